"""Small PyTorch functions (ops/misc_functions.py and friends): values against NumPy or
PyTorch 2.13's (recorded here as literals), gradients against finite differences (float64),
PyTorch's node names, dtypes and errors."""
import itertools
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(31)


def leaf(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def name(t):
    return type(t.grad_fn).__name__


# -- combinations, unique_consecutive, unravel_index ----------------------------------------
def test_combinations_values_nodes_gradients():
    x = nbgrad.tensor([1.0, 2, 3, 4])
    assert nbgrad.combinations(x, 3).tolist() == [[1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 4]]
    assert nbgrad.combinations(x[:3], 2, True).tolist() == [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]
    for r, wr in itertools.product(range(1, 4), (False, True)):
        fn = itertools.combinations_with_replacement if wr else itertools.combinations
        assert nbgrad.combinations(nbgrad.arange(5), r, wr).tolist() == [list(c) for c in fn(range(5), r)]
    assert nbgrad.combinations(x, 0).shape == (0,)
    a = leaf(RNG.standard_normal(4))
    assert name(nbgrad.combinations(a)) == "StackBackward0"
    assert gradcheck(lambda t: nbgrad.combinations(t, 2, True), (a,))
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        nbgrad.combinations(nbgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match="Expect a non-negative number, but got -1"):
        nbgrad.combinations(x, -1)


def test_unique_consecutive():
    u = nbgrad.tensor([1.0, 1, 2, 2, 3, 1, 1, 2], requires_grad=True)
    v, inv, cnt = nbgrad.unique_consecutive(u, return_inverse=True, return_counts=True)
    assert v.tolist() == [1, 2, 3, 1, 2] and inv.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert cnt.tolist() == [2, 2, 1, 2, 1] and inv.dtype == nbgrad.int64
    assert name(v) == "UniqueConsecutiveBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'unique_consecutive' is not implemented."):
        v.sum().backward()
    v, cnt = nbgrad.tensor([float("nan"), float("nan"), 1, 1]).unique_consecutive(return_counts=True)
    assert cnt.tolist() == [1, 1, 2]                     # NaN equals nothing
    m = nbgrad.tensor([[1, 2], [1, 2], [3, 4]])
    v, inv, cnt = nbgrad.unique_consecutive(m, return_inverse=True, return_counts=True, dim=0)
    assert v.tolist() == [[1, 2], [3, 4]] and inv.tolist() == [0, 0, 1] and cnt.tolist() == [2, 1]
    v = nbgrad.unique_consecutive(nbgrad.tensor([[1.0, 1, 2], [3, 3, 4]]), dim=1)
    assert v.tolist() == [[1, 2], [3, 4]] and v.stride() == (1, 2)        # PyTorch's layout
    v, inv, cnt = nbgrad.unique_consecutive(nbgrad.tensor(5.0), return_inverse=True, return_counts=True)
    assert v.shape == (1,) and inv.shape == () and cnt.tolist() == [1]
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        nbgrad.unique_consecutive(nbgrad.tensor(3.0), dim=0)
    with pytest.raises(RuntimeError, match="aren't selected"):
        nbgrad.unique_consecutive(nbgrad.zeros(2, 0), dim=0)


def test_unravel_index():
    r = nbgrad.unravel_index(nbgrad.tensor([[1234], [5678]]), (10, 10, 10, 10))
    assert [t.tolist() for t in r] == [[[1], [5]], [[2], [6]], [[3], [7]], [[4], [8]]]
    r = nbgrad.unravel_index(nbgrad.tensor([-7, 7, 4]), (2, 3))       # wraps as floor_divide and %
    assert [t.tolist() for t in r] == [[1, 0, 1], [2, 1, 1]]
    assert nbgrad.unravel_index(nbgrad.tensor(4), 3)[0].tolist() == 1
    assert nbgrad.unravel_index(nbgrad.tensor([1]), ()) == ()
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        nbgrad.unravel_index(nbgrad.tensor([1.0]), (2, 3))
    with pytest.raises(ValueError, match=r"'shape' cannot have negative values, but got \(2, -3\)"):
        nbgrad.unravel_index(nbgrad.tensor([1]), (2, -3))
    with pytest.raises(TypeError, match="expected 'shape' sequence to only contain ints"):
        nbgrad.unravel_index(nbgrad.tensor([1]), (2.0, 3))


# -- stacking and atleast_nd -----------------------------------------------------------------
def test_column_row_dstack_and_atleast():
    a, b = RNG.standard_normal(3), RNG.standard_normal((3, 2))
    np.testing.assert_array_equal(nbgrad.column_stack([nbgrad.tensor(a), nbgrad.tensor(b)]).numpy(),
                                  np.column_stack([a, b]))
    np.testing.assert_array_equal(nbgrad.row_stack((nbgrad.tensor(a), nbgrad.tensor(2.0 * a))).numpy(),
                                  np.vstack([a, 2 * a]))
    np.testing.assert_array_equal(nbgrad.dstack([nbgrad.tensor(b), nbgrad.tensor(b)]).numpy(), np.dstack([b, b]))
    assert nbgrad.column_stack([nbgrad.tensor(1.0), nbgrad.tensor(2.0)]).shape == (1, 2)
    assert nbgrad.row_stack([nbgrad.tensor(1.0), nbgrad.tensor(2.0)]).shape == (2, 1)
    assert nbgrad.hstack([nbgrad.tensor(1.0), nbgrad.tensor(2.0)]).shape == (2,)
    x, y = leaf(a), leaf(b)
    for fn in (nbgrad.column_stack, nbgrad.dstack, nbgrad.row_stack):
        assert name(fn([x, x])) == "CatBackward0"
        assert gradcheck(lambda s, t: fn([s.reshape(3, 1).expand(3, 2), t]), (x, y))
    for fn in ("column_stack", "dstack", "row_stack"):
        with pytest.raises(RuntimeError, match="expects a non-empty TensorList"):
            getattr(nbgrad, fn)([])
    s = nbgrad.tensor(1.0)
    assert [nbgrad.atleast_1d(s).shape, nbgrad.atleast_2d(s).shape, nbgrad.atleast_3d(s).shape] == [(1,), (1, 1),
                                                                                                   (1, 1, 1)]
    assert nbgrad.atleast_3d(x).shape == (1, 3, 1) and nbgrad.atleast_3d(y).shape == (3, 2, 1)
    assert nbgrad.atleast_2d(x).shape == (1, 3) and nbgrad.atleast_2d(y) is y
    assert name(nbgrad.atleast_3d(x)) == "UnsqueezeBackward0" and name(nbgrad.atleast_1d(x.sum())) == "ViewBackward0"
    out = nbgrad.atleast_1d(s, x)
    assert isinstance(out, tuple) and [t.shape for t in out] == [(1,), (3,)]
    assert isinstance(nbgrad.atleast_2d([s]), tuple) and nbgrad.atleast_3d() == ()
    with pytest.raises(TypeError, match="atleast_1d"):
        nbgrad.atleast_1d(1.0)


# -- diagonal_scatter, select_scatter, slice_scatter ----------------------------------------
def test_scatter_functions_values_nodes_gradients():
    a = RNG.standard_normal((3, 4))
    x = leaf(a)
    d = leaf(RNG.standard_normal(3))
    out = nbgrad.diagonal_scatter(x, d)
    want = a.copy()
    want[range(3), range(3)] = d.detach().numpy()
    np.testing.assert_array_equal(out.detach().numpy(), want)
    assert name(out) == "DiagonalScatterBackward0"
    assert gradcheck(lambda s, t: nbgrad.diagonal_scatter(s, t, 1), (x, leaf(RNG.standard_normal(3))))
    assert gradgradcheck(lambda s, t: s.diagonal_scatter(t, -1, 1, 0), (x, leaf(RNG.standard_normal(3))))
    r = leaf(RNG.standard_normal(4))
    out = nbgrad.select_scatter(x, r, 0, -1)
    np.testing.assert_array_equal(out.detach().numpy()[2], r.detach().numpy())
    assert name(out) == "SelectScatterBackward0"
    assert gradcheck(lambda s, t: s.select_scatter(t, 0, 1), (x, r))
    c = leaf(RNG.standard_normal((3, 2)))
    out = nbgrad.slice_scatter(x, c, 1, 0, None, 2)
    np.testing.assert_array_equal(out.detach().numpy()[:, ::2], c.detach().numpy())
    assert name(out) == "SliceScatterBackward0"
    assert gradgradcheck(lambda s, t: nbgrad.slice_scatter(s, t, dim=1, start=-3, end=4, step=2), (x, c))
    assert nbgrad.slice_scatter(nbgrad.zeros(8), nbgrad.ones(2), start=6).tolist() == [0] * 6 + [1, 1]
    # a src of another dtype is copied in (cast); its gradient has src's dtype
    s32 = nbgrad.ones(3, dtype=nbgrad.float32, requires_grad=True)
    nbgrad.diagonal_scatter(x, s32).sum().backward()
    assert s32.grad.dtype == nbgrad.float32 and s32.grad.tolist() == [1, 1, 1]
    with pytest.raises(RuntimeError, match=r"expected src to have a size equal to the slice of self. src size = "
                                           r"\[2\], slice size = \[3\]"):
        nbgrad.diagonal_scatter(x, nbgrad.ones(2))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, 0"):
        nbgrad.diagonal_scatter(x, d, 0, 0, 0)
    with pytest.raises(IndexError, match=r"select\(\): index 5 out of range for tensor of size \[3, 4\] at dimension 0"):
        nbgrad.select_scatter(x, r, 0, 5)
    with pytest.raises(RuntimeError, match="slice step must be positive"):
        nbgrad.slice_scatter(x, c, 1, step=0)


# -- index_fill, index_reduce, put, fill_diagonal_ ----------------------------------------------
def test_index_fill():
    a = RNG.standard_normal((3, 4))
    i = nbgrad.tensor([0, -1])
    out = nbgrad.index_fill(nbgrad.tensor(a), 1, i, 2.5)
    want = a.copy()
    want[:, [0, 3]] = 2.5
    np.testing.assert_array_equal(out.numpy(), want)
    x = leaf(a)
    assert name(x.index_fill(0, i, 1.0)) == "IndexFillBackward0"
    assert name(x.index_fill(0, i, nbgrad.tensor(1.0))) == "IndexFillBackward1"
    v = leaf(1.5)
    assert gradcheck(lambda s, t: s.index_fill(1, nbgrad.tensor([1, 3]), t), (x, v))
    y = x * 1
    y.index_fill_(0, nbgrad.tensor([1]), v)
    assert name(y) == "IndexFillBackward1"
    y.sum().backward()
    assert v.grad.item() == 4.0 and x.grad[1].tolist() == [0, 0, 0, 0] and x.grad[0].tolist() == [1, 1, 1, 1]
    assert nbgrad.arange(4).index_fill(0, nbgrad.tensor([0, 2]), 1.5).tolist() == [1, 1, 1, 3]
    with pytest.raises(IndexError, match=r"index_fill_\(\): Expected dtype int64 for index."):
        x.index_fill(0, i.int(), 1.0)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x.index_fill(0, nbgrad.tensor([5]), 1.0)
    with pytest.raises(RuntimeError, match="Index has to be a vector/scalar"):
        x.index_fill(0, nbgrad.tensor([[0]]), 1.0)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        x.index_fill(0, i, nbgrad.tensor([1.0]))
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        nbgrad.ones(3, dtype=nbgrad.uint8).index_fill(0, i, 300)
    w = nbgrad.ones(3)
    with pytest.raises(IndexError):
        w.index_fill_(0, nbgrad.tensor([7]), 0.0)
    assert w.tolist() == [1, 1, 1] and w._version == 0         # a failed in-place op writes nothing


def test_index_reduce():
    x = nbgrad.arange(12.0).view(3, 4)
    src = nbgrad.tensor([[1.0, 2, 3, 4], [5, 6, 7, 8], [-1, -2, -3, -4]])
    idx = nbgrad.tensor([0, 0, 2])
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        out = x.index_reduce(0, idx, src, "amax")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert out.tolist() == [[5, 6, 7, 8], [4, 5, 6, 7], [8, 9, 10, 11]]
        assert x.index_reduce(0, idx, src, "mean", include_self=False).tolist() == \
            [[3, 4, 5, 6], [4, 5, 6, 7], [-1, -2, -3, -4]]
        assert nbgrad.arange(5).index_reduce(0, nbgrad.tensor([0, 0, 1]), nbgrad.tensor([3, 4, 7]), "mean").tolist() \
            == [2, 4, 2, 3, 4]
        a, s, q4 = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((3, 2))), leaf(RNG.standard_normal((4, 4)))
        for red, inc in itertools.product(("prod", "mean", "amax", "amin"), (True, False)):
            assert name(nbgrad.index_reduce(a, 1, nbgrad.tensor([3, 0]), s, red, include_self=inc)) == \
                "IndexReduceBackward0"
            assert gradcheck(lambda p, q: p.index_reduce(0, nbgrad.tensor([2, 0, 2, 1]), q, red, include_self=inc),
                             (a, q4))
        y = a * 1
        y.index_reduce_(0, nbgrad.tensor([1]), q4[:1], "prod")
        assert name(y) == "IndexReduceBackward0"
        with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum."):
            x.index_reduce(0, idx, src, "sum")
        with pytest.raises(RuntimeError, match=r"self \(Float\) and source \(Double\) must have the same scalar type"):
            x.index_reduce(0, idx, src.double(), "prod")
        with pytest.raises(IndexError, match="index out of range in self"):
            x.index_reduce(0, nbgrad.tensor([0, 0, 3]), src, "prod")
        with pytest.raises(RuntimeError, match=r"Number of indices \(2\) should be equal to source.size\(dim\)"):
            x.index_reduce(0, idx[:2], src, "prod")
        with pytest.raises(RuntimeError, match="source tensor shape must match self tensor shape"):
            x.index_reduce(0, idx, src[:, :3], "prod")


def test_put():
    out = nbgrad.zeros(2, 3).put(nbgrad.tensor([0, -1, 0]), nbgrad.tensor([1.0, 2, 3]), accumulate=True)
    assert out.tolist() == [[4, 0, 0], [0, 0, 2]]
    assert nbgrad.zeros(4).put(nbgrad.tensor([[1, 1], [2, 3]]), nbgrad.tensor([1.0, 2, 3, 4]), True).tolist() == \
        [0, 3, 3, 4]
    x, s = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((2, 2)))
    idx = nbgrad.tensor([5, -1, 0, 7])
    assert name(nbgrad.put(x, idx, s)) == "PutBackward0"
    for acc in (False, True):
        assert gradgradcheck(lambda p, q: p.put(idx, q, acc), (x, s))
        assert gradcheck(lambda p, q: p.t().put(idx, q, acc), (x, s))      # row-major order of the view
    y = x.t() * 1
    y.put_(idx, s)
    assert name(y) == "PutBackward0"
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements."):
        x.put(nbgrad.tensor([12]), s[:1, 0])
    with pytest.raises(IndexError, match="Expected source and index to have the same number of elements"):
        x.put(idx[:2], s)
    with pytest.raises(RuntimeError, match=r"put_\(\): Expected a long tensor for index, but got Int"):
        x.put(idx.int(), s)
    with pytest.raises(TypeError, match="argument 'accumulate' must be bool, not int"):
        x.put(idx, s, accumulate=2)


def test_fill_diagonal_():
    m = nbgrad.zeros(7, 3).fill_diagonal_(5, wrap=True)
    want = np.zeros((7, 3))
    want[[0, 1, 2, 4, 5, 6], [0, 1, 2, 0, 1, 2]] = 5
    np.testing.assert_array_equal(m.numpy(), want)
    assert nbgrad.zeros(7, 3).fill_diagonal_(5).numpy().sum() == 15
    np.testing.assert_array_equal(nbgrad.zeros(3, 5).fill_diagonal_(1.0, True).numpy(), np.eye(3, 5))
    c = nbgrad.zeros(2, 2, 2).fill_diagonal_(1)
    assert c.sum().item() == 2 and c[1, 1, 1].item() == 1
    assert nbgrad.zeros(3, 3, dtype=nbgrad.int64).fill_diagonal_(1.5).tolist() == np.eye(3, dtype=int).tolist()
    x = leaf(RNG.standard_normal((3, 3)))
    y = x * 1
    y.fill_diagonal_(2.0)
    assert name(y) == "CopySlices"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 1 - np.eye(3))
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        nbgrad.zeros(3).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        nbgrad.zeros(3, 4, 3).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.fill_diagonal_(1.0)


# -- new_empty_strided, split_with_sizes, unsafe_split / unsafe_chunk ---------------------------
def test_splits_and_new_empty_strided():
    e = nbgrad.ones(2, dtype=nbgrad.float64).new_empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == nbgrad.float64
    assert nbgrad.ones(2).new_empty_strided((2,), (1,), dtype=nbgrad.int32).dtype == nbgrad.int32
    x = leaf(RNG.standard_normal((6, 3)))
    parts = nbgrad.split_with_sizes(x, [2, 4])
    assert [p.shape for p in parts] == [(2, 3), (4, 3)] and name(parts[0]) == "SplitWithSizesBackward0"
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        nbgrad.split_with_sizes(x, 2)
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 6"):
        x.split_with_sizes([2, 3])
    for parts, node in ((nbgrad.unsafe_split(x, 4), "UnsafeSplitBackward0"),
                        (x.unsafe_chunk(3, 1), "UnsafeSplitBackward0"),
                        (nbgrad.unsafe_split_with_sizes(x, [1, 5]), "UnsafeSplitWithSizesBackward0")):
        assert all(name(p) == node for p in parts)
    assert gradcheck(lambda t: nbgrad.unsafe_split(t, 4)[0] * 2, (x,))
    assert gradcheck(lambda t: t.unsafe_chunk(3, 1)[1], (x,))
    # the pieces share the input's memory but are not views to autograd: in-place is allowed
    y = x * 1
    p = nbgrad.unsafe_split(y, 4)
    p[0].mul_(2)
    assert name(p[0]) == "MulBackward0" and y[0, 0].item() == p[0][0, 0].item()
    with pytest.raises(RuntimeError, match="multiple views"):
        y.split(4)[0].mul_(2)
