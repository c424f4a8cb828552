"""einsum against numpy.einsum (values, finite-difference gradients, PyTorch's last node
and errors) and meshgrid (views expanded as PyTorch's, gradients through them)."""
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)

# (equation, operand shapes, PyTorch 2.13's grad_fn name of the result)
CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)], "ViewBackward0"),
    ("ij,jk", [(3, 4), (4, 5)], "ViewBackward0"),
    ("ii", [(3, 3)], "SumBackward1"),
    ("ii->i", [(3, 3)], "PermuteBackward0"),
    ("ij->ji", [(2, 3)], "PermuteBackward0"),
    ("ij->j", [(2, 3)], "SumBackward1"),
    ("i,j->ij", [(3,), (4,)], "MulBackward0"),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], "ViewBackward0"),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)], None),
    ("...j,j->...", [(2, 3, 4), (4,)], "ViewBackward0"),
    ("i,i->", [(5,), (5,)], "ViewBackward0"),
    ("ij,ij->ij", [(2, 3), (2, 3)], None),
    ("iij->j", [(3, 3, 2)], "SumBackward1"),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)], None),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)], None),
    ("Ab,bA->", [(3, 2), (2, 3)], None),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], None),
    ("i,i,i->i", [(3,), (3,), (3,)], None),
    ("...", [(2, 3)], "PermuteBackward0"),
    ("i...->...", [(2, 3, 4)], "SumBackward1"),
    ("ij,kl->", [(2, 3), (4, 5)], None),
    ("ba,a->b", [(3, 1), (4,)], "ViewBackward0"),
    (" ij , jk -> ki ", [(2, 3), (3, 2)], None),
]


@pytest.mark.parametrize("equation, shapes, node", CASES)
def test_einsum_matches_numpy(equation, shapes, node):
    arrays = [RNG.standard_normal(s) for s in shapes]
    tensors = [nbgrad.tensor(a, requires_grad=True) for a in arrays]
    got = nbgrad.einsum(equation, *tensors)
    np.testing.assert_allclose(got.detach().numpy(), np.einsum(equation.replace(" ", ""), *arrays),
                               rtol=1e-10, atol=1e-12)
    if node is not None:
        assert got.grad_fn.name() == node
    assert gradcheck(lambda *xs: nbgrad.einsum(equation, *xs), tuple(tensors))


# PyTorch 2.13's bmm takes the pair in the other order when every dim only the right
# operand keeps comes before every dim only the left keeps: the result's strides show it
LAYOUTS = [("ij,jk->ki", (2, 1)), ("ij,jk->ik", (3, 1)), ("aij,jb->bia", (8, 4, 1)), ("aij,jb->iba", (12, 1, 3)),
           ("aij,jb->iab", (12, 3, 1)), ("bij,bjk->kbi", (2, 6, 1)), ("bij,bjk->kib", (2, 1, 6))]


@pytest.mark.parametrize("equation, strides", LAYOUTS)
def test_einsum_result_layout(equation, strides):
    sizes = {"a": 4, "b": 5, "i": 2, "j": 7, "k": 3}
    if equation.startswith("aij"):
        sizes["b"] = 3
    lhs, out = equation.split("->")
    arrays = [RNG.standard_normal([sizes[c] for c in term]) for term in lhs.split(",")]
    got = nbgrad.einsum(equation, *[nbgrad.tensor(a) for a in arrays])
    assert got.stride() == strides
    np.testing.assert_allclose(got.numpy(), np.einsum(equation, *arrays), rtol=1e-10)


def test_einsum_forms_and_second_derivative():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    x, y = nbgrad.tensor(a, requires_grad=True), nbgrad.tensor(b, requires_grad=True)
    np.testing.assert_allclose(nbgrad.einsum("ij,jk", [x, y]).detach().numpy(), a @ b)      # a list of operands
    np.testing.assert_allclose(nbgrad.einsum(x, [0, 1], y, [1, 2], [0, 2]).detach().numpy(), a @ b)  # sublists
    assert nbgrad.einsum("ij->ij", x)._base is x                                          # a view
    assert gradgradcheck(lambda p, q: nbgrad.einsum("ij,jk->i", p, q), (x, y))
    f32 = nbgrad.einsum("ij,jk->ik", x.float(), y.float())
    assert f32.dtype == nbgrad.float32


@pytest.mark.parametrize("call, message", [
    (lambda x: nbgrad.einsum("ij,jk", x), "fewer operands were provided than specified in the equation"),
    (lambda x: nbgrad.einsum("ij", x, x), "more operands were provided than specified in the equation"),
    (lambda x: nbgrad.einsum("ijk", x), "the number of subscripts in the equation \\(3\\) does not match the number "
                                       "of dimensions \\(2\\) for operand 0 and no ellipsis was given"),
    (lambda x: nbgrad.einsum("i...jkl", x), "the number of subscripts in the equation \\(4\\) is more than the "
                                           "number of dimensions \\(2\\) for operand 0"),
    (lambda x: nbgrad.einsum("ij->k", x), "output subscript k does not appear in the equation for any input operand"),
    (lambda x: nbgrad.einsum("ij->ii", x), "output subscript i appears more than once in the output"),
    (lambda x: nbgrad.einsum("ij,jk", x, nbgrad.ones(4, 2)), "subscript j has size 4 for operand 1 which does not "
                                                            "broadcast with previously seen size 3"),
    (lambda x: nbgrad.einsum("ii", nbgrad.ones(2, 3)), "subscript i is repeated for operand 0 but the sizes don't "
                                                       "match, 3 != 2"),
    (lambda x: nbgrad.einsum("i1", x), "invalid subscript given at index 1 in the equation string"),
])
def test_einsum_errors(call, message):
    with pytest.raises(RuntimeError, match="einsum\\(\\): " + message):
        call(nbgrad.ones(3, 3))


# -- meshgrid -----------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = np.arange(3.0), np.arange(2.0) + 10, np.arange(4.0) - 5
    grids = nbgrad.meshgrid(nbgrad.tensor(a), nbgrad.tensor(b), nbgrad.tensor(c), indexing=indexing)
    for got, ref in zip(grids, np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(got.numpy(), ref)
    pair = nbgrad.meshgrid([nbgrad.tensor(a), nbgrad.tensor(b)], indexing=indexing)
    for got, ref in zip(pair, np.meshgrid(a, b, indexing=indexing)):
        np.testing.assert_array_equal(got.numpy(), ref)


def test_meshgrid_views_nodes_and_gradients():
    x = nbgrad.tensor([1.0, 2.0, 3.0], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor([4.0, 5.0], dtype=nbgrad.float64, requires_grad=True)
    gx, gy = nbgrad.meshgrid(x, y, indexing="ij")
    assert gx.grad_fn.name() == "ExpandBackward0"
    assert gx.grad_fn.next_functions[0][0].name() == "ViewBackward0"
    assert gx.stride() == (1, 0) and gy.stride() == (0, 1) and gx._base is x
    gx2, gy2 = nbgrad.meshgrid(x, y, indexing="xy")
    assert gx2.shape == (2, 3) and gx2.stride() == (0, 1) and gy2.stride() == (1, 0)
    (gx * gy * gy).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 16.0 + 25.0))
    np.testing.assert_allclose(y.grad.numpy(), 2 * np.array([4.0, 5.0]) * 6.0)
    assert gradcheck(lambda p, q: nbgrad.meshgrid(p, q, indexing="xy")[0] * nbgrad.meshgrid(p, q, indexing="xy")[1],
                     (x, y))


def test_meshgrid_edge_cases_and_errors():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        nbgrad.meshgrid(nbgrad.tensor([1.0]), nbgrad.tensor([2.0]))
    a, b = nbgrad.meshgrid([nbgrad.tensor(1.0), nbgrad.tensor([1.0, 2.0])], indexing="ij")
    assert a.tolist() == [[1.0, 1.0]] and b.tolist() == [[1.0, 2.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (only,) = nbgrad.meshgrid(nbgrad.tensor([1.0, 2.0]), indexing="xy")
    assert only.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="meshgrid expects all tensors to have the same dtype"):
        nbgrad.meshgrid(nbgrad.tensor([1, 2]), nbgrad.tensor([1.0, 2.0]), indexing="ij")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list"):
        nbgrad.meshgrid(nbgrad.ones(2, 2), nbgrad.ones(2), indexing="ij")
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: foo'):
        nbgrad.meshgrid(nbgrad.ones(2), indexing="foo")
    with pytest.raises(RuntimeError, match="meshgrid expects a non-empty TensorList"):
        nbgrad.meshgrid(indexing="ij")
