"""tril/triu, flip, roll, cumsum/cumprod, repeat_interleave, tile: values against NumPy,
gradients against finite differences (float64), PyTorch's node names, dtypes, layouts
and errors (PyTorch 2.13's behaviour, recorded here)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(14)


def leaf(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# -- tril / triu ----------------------------------------------------------------------------
@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (5, 2)])
def test_tril_triu_match_numpy(shape, diagonal):
    a = RNG.standard_normal(shape)
    x = nbgrad.tensor(a)
    np.testing.assert_array_equal(nbgrad.tril(x, diagonal).numpy(), np.tril(a, diagonal))
    np.testing.assert_array_equal(x.triu(diagonal=diagonal).numpy(), np.triu(a, diagonal))


def test_tril_triu_gradients_and_nodes():
    x = leaf(RNG.standard_normal((3, 4)))
    assert x.tril().grad_fn.name() == "TrilBackward0"
    assert x.triu(1).grad_fn.name() == "TriuBackward0"
    assert gradcheck(lambda t: t.tril(-1), (x,))
    assert gradcheck(lambda t: t.triu(1), (x,))
    assert gradgradcheck(lambda t: (t.tril() ** 2), (x,))


def test_tril_triu_of_an_empty_matrix_have_contiguous_strides():
    # torch 2.13: an empty (0, 1) view with strides (1, 1) gives (1, 1), and so a later
    # narrow at column 1 starts at offset 1 (found by the differential tester, seed 3120012664)
    v = nbgrad.tensor([[1.0]]).narrow(0, 0, 0)
    for out in (nbgrad.tril(v), nbgrad.triu(v)):
        assert out.stride() == (1, 1)
        assert out.tensor_split(2, 1)[1].storage_offset() == 1
    assert nbgrad.tril(nbgrad.ones(2, 0, 3)).stride() == (3, 3, 1)


def test_tril_masks_nan_and_keeps_dtype_and_is_contiguous():
    x = nbgrad.tensor([[1.0, float("nan")], [2.0, 3.0]])
    assert x.tril().tolist() == [[1.0, 0.0], [2.0, 3.0]]
    i = nbgrad.tensor([[1, 2], [3, 4]])
    assert i.triu().dtype == nbgrad.int64 and i.triu().tolist() == [[1, 2], [0, 4]]
    b = nbgrad.ones(2, 2, dtype=nbgrad.bool).triu()
    assert b.tolist() == [[True, True], [False, True]]
    t = nbgrad.tensor(RNG.standard_normal((3, 4))).t()
    assert t.tril().is_contiguous() and t.tril().stride() == (3, 1)


def test_tril_errors():
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        nbgrad.tensor([1.0, 2.0]).tril()
    with pytest.raises(TypeError, match="must be int, not float"):
        nbgrad.ones(2, 2).tril(diagonal=1.5)


def test_tril_inplace():
    a = RNG.standard_normal((3, 3))
    t = nbgrad.tensor(a)
    v = t._version
    assert t.tril_(-1) is t
    np.testing.assert_array_equal(t.numpy(), np.tril(a, -1))
    assert t._version == v + 1
    t.triu_(0)
    assert not t.numpy().any()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        nbgrad.zeros(2, 2, requires_grad=True).tril_()
    # elements sharing memory: allowed up to 3 dims (PyTorch works in place), refused past
    # them when the matrices are not laid out one after another (PyTorch copies back)
    e = nbgrad.ones(2, 2).expand(3, 2, 2)
    assert e.tril_().tolist() == [[[1.0, 0.0], [1.0, 1.0]]] * 3
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
        nbgrad.ones(2, 1, 2).expand(2, 2, 3, 2).tril_()
    # PyTorch writes only the zeros: one element behind them all becomes 0 if any of its
    # aliases falls outside the triangle, and stays when none does
    one = nbgrad.ones(1, 1)
    one.expand(3, 2).triu_(-1)
    assert one.item() == 0.0
    one.fill_(1.0)
    one.expand(3, 2).tril_(5)
    assert one.item() == 1.0
    x = leaf(a)
    y = x.clone()
    y.triu_(1)
    assert y.grad_fn.name() == "TriuBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.triu(np.ones((3, 3)), 1))


# -- flip -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [0, (1,), (0, 2), (-1, 0, 1)])
def test_flip_matches_numpy(dims):
    a = RNG.standard_normal((2, 3, 4))
    x = nbgrad.tensor(a)
    if isinstance(dims, int):
        # (torch.flip's dims is an int[]: one int is its parser's TypeError; the method's *dims takes it)
        with pytest.raises(TypeError, match="flip\\(\\): argument 'dims' \\(position 2\\) must be tuple of ints, not int"):
            nbgrad.flip(x, dims)
    else:
        np.testing.assert_array_equal(nbgrad.flip(x, dims).numpy(), np.flip(a, dims))
    np.testing.assert_array_equal(x.flip(*(dims if isinstance(dims, tuple) else (dims,))).numpy(), np.flip(a, dims))


def test_flip_gradient_node_layout_and_edge_cases():
    x = leaf(RNG.standard_normal((3, 4)))
    assert x.flip(0).grad_fn.name() == "FlipBackward0"
    assert gradcheck(lambda t: t.flip(0, 1), (x,))
    # PyTorch keeps the input's layout (preserve_format)
    t = nbgrad.tensor(RNG.standard_normal((3, 4))).t()
    assert t.flip(0).stride() == (1, 4)
    np.testing.assert_array_equal(t.flip(0).numpy(), np.flip(t.numpy(), 0))
    assert nbgrad.ones(2, 2).flip(()).shape == (2, 2)
    assert nbgrad.flip(nbgrad.arange(6.0).view(2, 3), dims=[0]).tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert nbgrad.arange(6.0).view(2, 3).flip(dims=(0, 1)).tolist() == [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]]
    assert nbgrad.tensor(3.0).flip(0).item() == 3.0
    assert nbgrad.ones(0, 3).flip(0).shape == (0, 3)
    # a view (strided, offset) reads the right elements
    a = RNG.standard_normal((4, 6))
    v = nbgrad.tensor(a)[1:, ::2]
    np.testing.assert_array_equal(v.flip(0, 1).numpy(), a[1:, ::2][::-1, ::-1])


def test_flip_errors():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        nbgrad.ones(2, 2).flip(0, 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.ones(2, 3).flip(2)


# -- roll -----------------------------------------------------------------------------------
@pytest.mark.parametrize("shifts, dims", [(1, None), (-7, None), (2, 0), (-1, 1), ((1, 5), (0, 1)),
                                          ((2, -3), (-1, 0)), (4, 1)])
def test_roll_matches_numpy(shifts, dims):
    a = RNG.standard_normal((3, 4))
    x = nbgrad.tensor(a).t().t()
    np.testing.assert_array_equal(nbgrad.roll(x, shifts, dims).numpy(), np.roll(a, shifts, dims))
    np.testing.assert_array_equal(nbgrad.tensor(a).t().roll(shifts, dims).numpy(), np.roll(a.T, shifts, dims))


def test_roll_gradients_nodes_layout():
    x = leaf(RNG.standard_normal((3, 4)))
    for args in [(1,), (1, 0), ((1, -2), (0, 1))]:
        y = x.roll(*args)
        assert y.grad_fn.name() == "RollBackward0"
        assert gradcheck(lambda t: t.roll(*args) * nbgrad.arange(12.0, dtype=nbgrad.float64).view(3, 4), (x,))
    assert gradgradcheck(lambda t: t.roll(1) ** 2, (x,))
    t = nbgrad.tensor(RNG.standard_normal((3, 4))).t()
    assert t.roll(1, 0).is_contiguous() and t.roll(1).is_contiguous()


def test_roll_edge_cases_and_errors():
    assert nbgrad.tensor(3.0).roll(1).item() == 3.0
    assert nbgrad.ones(0, 3).roll(1, 0).shape == (0, 3)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        nbgrad.tensor(3.0).roll(1, 0)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        nbgrad.ones(2, 2).roll((1, 2), 0)
    with pytest.raises(RuntimeError, match="`shifts` required"):
        nbgrad.ones(2, 2).roll((), ())
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.ones(2, 3).roll(1, 2)


# -- cumsum / cumprod ---------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod_match_numpy(dim):
    a = RNG.standard_normal((3, 4, 2))
    x = nbgrad.tensor(a)
    np.testing.assert_allclose(nbgrad.cumsum(x, dim).numpy(), np.cumsum(a, dim), rtol=1e-12)
    np.testing.assert_allclose(x.cumprod(dim=dim).numpy(), np.cumprod(a, dim), rtol=1e-12)
    t = nbgrad.tensor(a).transpose(0, 2)
    np.testing.assert_allclose(t.cumsum(dim).numpy(), np.cumsum(a.transpose(2, 1, 0), dim), rtol=1e-12)
    assert t.cumsum(dim).is_contiguous()


def test_cumsum_float32_accumulates_in_float64():
    # PyTorch's CPU scan keeps a double accumulator and rounds each output once
    a = np.array([1e8, 1.0, 1.0, 1.0, -1e8], dtype=np.float32)
    expected = np.cumsum(a.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(nbgrad.tensor(a).cumsum(0).numpy(), expected)


def test_cumsum_dtypes():
    assert nbgrad.tensor([1, 2, 3]).cumsum(0).dtype == nbgrad.int64
    assert nbgrad.tensor([True, False, True]).cumsum(0).tolist() == [1, 1, 2]
    assert nbgrad.tensor([1, 2], dtype=nbgrad.int8).cumprod(0).dtype == nbgrad.int64
    assert nbgrad.tensor([True, False]).cumprod(0).tolist() == [1, 0]
    assert nbgrad.tensor([1.0, 2.0]).cumsum(0, dtype=nbgrad.float64).dtype == nbgrad.float64
    r = nbgrad.tensor([1.7, 2.6]).cumsum(0, dtype=nbgrad.int32)   # the input is cast first
    assert r.dtype == nbgrad.int32 and r.tolist() == [1, 3]
    assert nbgrad.tensor([1, 2]).cumsum(0, dtype=nbgrad.float32).tolist() == [1.0, 3.0]
    h = nbgrad.tensor([1.0, 2.0, 3.5], dtype=nbgrad.float16).cumsum(0)
    assert h.dtype == nbgrad.float16 and h.tolist() == [1.0, 3.0, 6.5]
    assert nbgrad.tensor(3.0).cumsum(0).item() == 3.0 and nbgrad.tensor(3.0).cumprod(-1).item() == 3.0
    assert nbgrad.ones(0, 2).cumsum(0).shape == (0, 2)


def test_cumsum_errors():
    with pytest.raises(NotImplementedError, match="\"cumsum_out_cpu\" not implemented for 'Bool'"):
        nbgrad.tensor([True, False]).cumsum(0, dtype=nbgrad.bool)
    with pytest.raises(NotImplementedError, match="\"cumprod_out_cpu\" not implemented for 'Bool'"):
        nbgrad.tensor([1, 2]).cumprod(0, dtype=nbgrad.bool)
    assert nbgrad.tensor(True).cumsum_(0).item() is True                  # 0-dim and empty: no dtype check
    assert nbgrad.zeros(2, 0, dtype=nbgrad.bool).cumprod_(1).shape == (2, 0)
    with pytest.raises(NotImplementedError, match="\"cumsum_out_cpu\" not implemented for 'Bool'"):
        nbgrad.tensor([True, False]).cumsum_(0)
    with pytest.raises(NotImplementedError, match="\"cumprod_out_cpu\" not implemented for 'Bool'"):
        nbgrad.tensor([True]).expand(3).cumprod_(0)     # the dtype before the overlap
    with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
        nbgrad.ones(2, requires_grad=True).cumsum(0, dtype=nbgrad.int64)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dim"'):
        nbgrad.ones(2, 2).cumsum()
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.ones(2, 2).cumsum(2)


def test_cumsum_gradients_and_nodes():
    x = leaf(RNG.standard_normal((3, 4)))
    assert x.cumsum(1).grad_fn.name() == "CumsumBackward0"
    assert gradcheck(lambda t: t.cumsum(0), (x,))
    assert gradcheck(lambda t: t.cumsum(-1), (x,))
    assert gradgradcheck(lambda t: t.cumsum(1) ** 2, (x,))
    # dtype=: one node (no cast node), the gradient comes back in the input's dtype
    y = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = y.cumsum(0, dtype=nbgrad.float64)
    assert z.grad_fn.name() == "CumsumBackward0" and z.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    z.sum().backward()
    assert y.grad.dtype == nbgrad.float32 and y.grad.tolist() == [3.0, 2.0, 1.0]


@pytest.mark.parametrize("values", [
    [2.0, -1.5, 0.7, 1.3, -0.4],            # no zero
    [2.0, 0.0, 0.7, 1.3, -0.4],             # one zero
    [0.0, 1.5, 0.0, 1.3, -0.4],             # zeros first and later
    [1.5, 2.0, -0.5, 0.8, 0.0],             # a zero last
    [0.0, 0.0, 2.0, 3.0, 1.5],
])
def test_cumprod_gradient_with_zeros(values):
    # finite differences are exact enough here: cumprod is multilinear in its inputs
    x = leaf(np.stack([values, values[::-1]]))
    assert x.cumprod(1).grad_fn.name() == "CumprodBackward0"
    assert gradcheck(lambda t: t.cumprod(1), (x,))
    assert gradcheck(lambda t: t.cumprod(0), (x,))
    assert gradgradcheck(lambda t: t.cumprod(1), (x,))


def test_cumprod_zero_gradient_values():
    # d/dx of cumprod([a, 0, c]).sum() = [1 + 0 + 0, a + a*c, 0]
    x = leaf([3.0, 0.0, 5.0])
    x.cumprod(0).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0 + 15.0, 0.0]


def test_cumprod_saved_output_checked():
    x = leaf([1.0, 2.0, 3.0])
    y = x.cumprod(0)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_cumsum_inplace():
    t = nbgrad.tensor([1.0, 2.0, 3.0])
    assert t.cumsum_(0) is t and t.tolist() == [1.0, 3.0, 6.0] and t._version == 1
    i = nbgrad.tensor([1, 2, 3], dtype=nbgrad.int32)
    assert i.cumsum_(0).dtype == nbgrad.int32 and i.tolist() == [1, 3, 6]
    with pytest.raises(RuntimeError, match="Bad in-place call: input tensor dtype float and output tensor dtype "
                                           "double should match"):
        t.cumsum_(0, dtype=nbgrad.float64)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
        nbgrad.ones(2, 2).expand(3, 2, 2).cumsum_(0)
    assert t.tolist() == [1.0, 3.0, 6.0]
    x = leaf([1.0, 2.0, 3.0])
    y = x.clone()
    y.cumprod_(0)
    assert y.grad_fn.name() == "CumprodBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1 + 2 + 6, 1 + 3, 2]


# -- repeat_interleave / tile ------------------------------------------------------------
def test_repeat_interleave_int_matches_numpy():
    a = RNG.standard_normal((2, 3))
    x = nbgrad.tensor(a)
    np.testing.assert_array_equal(x.repeat_interleave(2).numpy(), np.repeat(a, 2))
    np.testing.assert_array_equal(x.repeat_interleave(3, dim=1).numpy(), np.repeat(a, 3, axis=1))
    np.testing.assert_array_equal(nbgrad.repeat_interleave(x, 2, dim=-2).numpy(), np.repeat(a, 2, axis=0))
    assert x.repeat_interleave(0, dim=1).shape == (2, 0)


def test_repeat_interleave_tensor_repeats():
    a = RNG.standard_normal((3, 2))
    x = nbgrad.tensor(a)
    r = nbgrad.tensor([1, 0, 2])
    np.testing.assert_array_equal(x.repeat_interleave(r, dim=0).numpy(), np.repeat(a, [1, 0, 2], axis=0))
    np.testing.assert_array_equal(x.repeat_interleave(nbgrad.tensor([2]), dim=0).numpy(), np.repeat(a, 2, axis=0))
    assert nbgrad.repeat_interleave(nbgrad.tensor([1, 2, 3])).tolist() == [0, 1, 1, 2, 2, 2]
    assert nbgrad.tensor([1, 2, 3]).repeat_interleave(nbgrad.tensor([1, 0, 2])).tolist() == [1, 3, 3]
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        x.repeat_interleave(nbgrad.tensor([1, 2]), dim=0)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        x.repeat_interleave(-1)


def test_repeat_interleave_gradients_and_nodes():
    x = leaf(RNG.standard_normal((2, 3)))
    assert x.repeat_interleave(2).grad_fn.name() == "ViewBackward0"
    assert x.repeat_interleave(nbgrad.tensor([1, 2]), dim=0).grad_fn.name() == "IndexSelectBackward0"
    assert gradcheck(lambda t: t.repeat_interleave(2, dim=1), (x,))
    assert gradcheck(lambda t: t.repeat_interleave(nbgrad.tensor([2, 0, 1]), dim=1), (x,))


def test_tile():
    a = RNG.standard_normal((2, 3))
    x = nbgrad.tensor(a)
    np.testing.assert_array_equal(x.tile(2).numpy(), np.tile(a, 2))
    np.testing.assert_array_equal(nbgrad.tile(x, (2, 1, 2)).numpy(), np.tile(a, (2, 1, 2)))
    np.testing.assert_array_equal(x.tile(2, 2).numpy(), np.tile(a, (2, 2)))
    np.testing.assert_array_equal(nbgrad.tile(x, dims=(2,)).numpy(), np.tile(a, 2))
    g = leaf(a)
    assert g.tile((2,)).grad_fn.name() == "RepeatBackward0"
    assert g.repeat(2, 1, 1).grad_fn.name() == "RepeatBackward0"
    assert gradcheck(lambda t: t.tile((2, 1, 2)), (g,))
    assert gradcheck(lambda t: t.repeat(1, 1), (g,))
    assert gradgradcheck(lambda t: t.repeat(2, 3) ** 2, (g,))
    y = g.repeat(1, 1)          # a copy even when nothing repeats
    assert y._storage is not g._storage
    # PyTorch's repeat_backward: the gradient itself when nothing repeats (an expanded
    # gradient stays expanded), zeros for a 0 repeat
    (d,) = nbgrad.autograd.grad(g.repeat(1, 1).sum(), g)
    assert d.stride() == (0, 0)
    (d,) = nbgrad.autograd.grad(g.repeat(0, 1).sum(), g)
    assert d.tolist() == [[0.0] * 3] * 2
    (d,) = nbgrad.autograd.grad((g.repeat(2, 1, 3) * nbgrad.arange(36.0, dtype=nbgrad.float64).view(2, 2, 9)).sum(), g)
    w = np.arange(36.0).reshape(2, 2, 3, 3)
    np.testing.assert_array_equal(d.numpy(), w.sum(axis=(0, 2)))


@pytest.mark.parametrize("row, col, offset", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (3, 3, -5), (2, 5, 7)])
def test_tril_triu_indices_match_numpy(row, col, offset):
    np.testing.assert_array_equal(nbgrad.tril_indices(row, col, offset).numpy().reshape(2, -1),
                                  np.array(np.tril_indices(row, offset, col)).reshape(2, -1))
    np.testing.assert_array_equal(nbgrad.triu_indices(row, col, offset).numpy().reshape(2, -1),
                                  np.array(np.triu_indices(row, offset, col)).reshape(2, -1))
    assert nbgrad.tril_indices(row, col, offset).dtype == nbgrad.int64


def test_tril_indices_dtype_and_errors():
    assert nbgrad.tril_indices(2, 2, dtype=nbgrad.int32).dtype == nbgrad.int32
    assert nbgrad.tril_indices(0, 3).shape == (2, 0) and nbgrad.triu_indices(3, 3, -5).shape == (2, 9)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        nbgrad.tril_indices(3, 3, dtype=nbgrad.float32)
    with pytest.raises(RuntimeError, match="row must be non-negative, got-1"):
        nbgrad.tril_indices(-1, 3)


# -- searchsorted / bucketize, msort, cartesian_prod (recorded from torch 2.13) -------------------
def test_searchsorted_and_bucketize_follow_pytorchs_binary_search():
    s = nbgrad.tensor([1.0, 3.0, 5.0, 7.0])
    v = nbgrad.tensor([[0.0, 3.0, 6.0], [7.0, 8.0, float("nan")]])
    assert nbgrad.searchsorted(s, v).tolist() == [[0, 1, 3], [3, 4, 4]]
    assert nbgrad.searchsorted(s, v, right=True).tolist() == [[0, 2, 3], [4, 4, 4]]
    assert nbgrad.searchsorted(s, v, side="right").tolist() == [[0, 2, 3], [4, 4, 4]]
    assert nbgrad.searchsorted(s, 4.0).tolist() == 2 and nbgrad.searchsorted(s, 4.0).dim() == 0
    assert nbgrad.searchsorted(s, v, out_int32=True).dtype is nbgrad.int32
    assert nbgrad.bucketize(v, s).tolist() == [[0, 1, 3], [3, 4, 4]]
    assert nbgrad.bucketize(3.0, s).tolist() == 1
    rows = nbgrad.tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    assert nbgrad.searchsorted(rows, nbgrad.tensor([[3.0, 4.0], [4.0, 7.0]])).tolist() == [[1, 2], [1, 3]]
    assert nbgrad.searchsorted(nbgrad.tensor([3.0, 1.0, 2.0]), nbgrad.tensor([2.5]),
                               sorter=nbgrad.tensor([1, 2, 0])).tolist() == [2]
    # a NaN in the sequence: the binary search's steps, not a count (torch 2.13: [3, 3])
    seq = nbgrad.tensor([1.0, 2.0, float("nan")])
    assert nbgrad.searchsorted(seq, nbgrad.tensor([5.0, float("nan")])).tolist() == [3, 3]


@pytest.mark.parametrize("call, message", [
    (lambda: nbgrad.searchsorted(nbgrad.ones(3), nbgrad.ones(2), side="left", right=True),
     "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"),
    (lambda: nbgrad.searchsorted(nbgrad.ones(3), nbgrad.ones(2), side="middle"),
     "torch.searchsorted(): side can only be 'left' or 'right' but got middle"),
    (lambda: nbgrad.searchsorted(nbgrad.ones(2, 3), nbgrad.ones(2)),
     "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
     "tensor and input value tensor must match, but we got boundaries tensor [2, 3] and input value tensor [2]"),
    (lambda: nbgrad.searchsorted(nbgrad.tensor(1.0), nbgrad.ones(2)),
     "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"),
    (lambda: nbgrad.bucketize(nbgrad.ones(2), nbgrad.ones(2, 3)), "boundaries tensor must be 1 dimension, but got dim(2)"),
])
def test_searchsorted_errors_are_pytorchs(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_msort_and_cartesian_prod():
    assert nbgrad.tensor([[3.0, 1.0], [1.0, 2.0]]).msort().tolist() == [[1.0, 1.0], [3.0, 2.0]]
    assert nbgrad.msort(nbgrad.tensor([2.0, 1.0])).tolist() == [1.0, 2.0]
    assert nbgrad.cartesian_prod(nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4, 5])).tolist() == [
        [1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    assert nbgrad.cartesian_prod(x) is x
    out = nbgrad.cartesian_prod(x, nbgrad.tensor([3.0, 4.0]))
    assert out.grad_fn.name() == "StackBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_view_of_an_empty_tensor_keeps_its_strides_for_the_same_shape():
    # PyTorch's computeStride (NumPy's rule): no element, same shape: the old strides; another
    # shape: a resize's. So a later index starts where PyTorch's does (seed 11128014022)
    e = nbgrad.empty(2, 3, 2)[:, 1:1]
    assert e.stride() == (6, 2, 1)
    assert e.view(2, 0, 2).stride() == (6, 2, 1) and e.view(2, 0, 2)[-1].storage_offset() == 8
    assert e.view(4, 0).stride() == (1, 1)
