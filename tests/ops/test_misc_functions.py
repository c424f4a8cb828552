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
    with pytest.raises(IndexError,
                       match=r"select\(\): index 5 out of range for tensor of size \[3, 4\] at dimension 0"):
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
        a, s = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((3, 2)))
        q4 = leaf(RNG.standard_normal((4, 4)))
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


# -- elementwise: float_power, fmax/fmin, gcd/lcm, ldexp, frexp, nextafter, shifts, isneginf... --
def test_float_power():
    x = leaf(RNG.uniform(0.5, 2, 4))
    y = leaf(RNG.standard_normal(4))
    out = nbgrad.float_power(x, y)
    assert out.dtype == nbgrad.float64 and name(out) == "PowBackward1"
    np.testing.assert_allclose(out.detach().numpy(), x.detach().numpy() ** y.detach().numpy(), rtol=1e-15)
    f32 = nbgrad.tensor([1.5, 2.0], requires_grad=True)
    r = nbgrad.float_power(f32, 2)
    assert r.dtype == nbgrad.float64 and r.tolist() == [2.25, 4.0] and name(r) == "PowBackward0"
    assert r.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    assert name(nbgrad.float_power(2, x)) == "PowBackward2"
    assert nbgrad.float_power(nbgrad.tensor([2]), nbgrad.tensor([3])).dtype == nbgrad.float64
    assert gradcheck(lambda a, b: a.float_power(b), (x, y))
    w = nbgrad.tensor([1.5, 2.0], dtype=nbgrad.float64)
    w.float_power_(nbgrad.tensor([2]))
    assert w.tolist() == [2.25, 4.0]
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        nbgrad.ones(2).float_power_(2)


def test_fmax_fmin():
    nan = float("nan")
    a = nbgrad.tensor([1.0, nan, nan, 3.0, -0.0, 0.0])
    b = nbgrad.tensor([2.0, 1.0, nan, nan, 0.0, -0.0])
    assert str(nbgrad.fmax(a, b).tolist()) == "[2.0, 1.0, nan, 3.0, -0.0, 0.0]"
    assert str(nbgrad.fmin(a, b).tolist()) == "[1.0, 1.0, nan, 3.0, -0.0, 0.0]"
    assert nbgrad.fmax(nbgrad.tensor([1, 5]), nbgrad.tensor([2.0, nan])).tolist() == [2.0, 5.0]
    x = leaf([1.0, 2.0, nan, 4.0, 5.0])
    y = leaf([1.0, 3.0, 2.0, nan, 0.0])
    out = x.fmax(y)
    assert name(out) == "FmaxBackward0" and name(nbgrad.fmin(x, y)) == "FminBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [1, 0, 0, 1, 1] and y.grad.tolist() == [0, 1, 1, 0, 0]   # ties go to input
    assert gradcheck(nbgrad.fmin, (leaf(RNG.standard_normal(5)), leaf(RNG.standard_normal(5))))
    with pytest.raises(TypeError, match="fmax\\(\\): argument 'other' \\(position 2\\) must be Tensor, not int"):
        nbgrad.fmax(x, 2)


def test_gcd_lcm():
    imin = -9223372036854775808
    assert nbgrad.gcd(nbgrad.tensor([12, -18, 0, 0, imin, 2 ** 62]),
                      nbgrad.tensor([8, 12, 5, 0, 6, 3 * 2 ** 40])).tolist() == [4, 6, 5, 0, -2, 2 ** 40]
    assert nbgrad.lcm(nbgrad.tensor([4, -6, 0, 7, 2 ** 40]),
                      nbgrad.tensor([6, 4, 3, -3, 3 * 2 ** 40 + 1])).tolist() == [12, 12, 0, 21, 2 ** 40]
    assert nbgrad.lcm(nbgrad.tensor([100, -90], dtype=nbgrad.int8),
                      nbgrad.tensor([3, 7], dtype=nbgrad.int8)).tolist() == [44, 118]
    assert nbgrad.lcm(nbgrad.tensor([100000], dtype=nbgrad.int32),
                      nbgrad.tensor([99999], dtype=nbgrad.int32)).tolist() == [1409965408]
    a, b = RNG.integers(-1000, 1000, 50), RNG.integers(-1000, 1000, 50)
    np.testing.assert_array_equal(nbgrad.tensor(a).gcd(nbgrad.tensor(b)).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(nbgrad.tensor(a).lcm(nbgrad.tensor(b)).numpy(), np.lcm(a, b))
    assert nbgrad.gcd(nbgrad.tensor([6], dtype=nbgrad.uint8), nbgrad.tensor([4], dtype=nbgrad.int8)).dtype == \
        nbgrad.int16
    t = nbgrad.tensor([12, 18])
    t.gcd_(nbgrad.tensor([8, 12]))
    assert t.tolist() == [4, 6]
    t.lcm_(nbgrad.tensor([6, 4]))
    assert t.tolist() == [12, 12]
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        nbgrad.gcd(nbgrad.tensor([1.0]), nbgrad.tensor([2.0]))
    with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired output type Long"):
        t.gcd_(nbgrad.tensor([1.0], dtype=nbgrad.float64))


def test_ldexp():
    x = leaf([1.5, -2.0, 3.0])
    y = leaf([0.5, 2.0, -1.0])
    out = nbgrad.ldexp(x, y)
    assert name(out) == "LdexpBackward0"
    np.testing.assert_allclose(out.detach().numpy(), [1.5 * 2 ** 0.5, -8.0, 1.5], rtol=1e-15)
    gx, gy = nbgrad.autograd.grad(out.sum(), [x, y])
    np.testing.assert_allclose(gx.numpy(), [2 ** 0.5, 4.0, 0.5], rtol=1e-15)
    np.testing.assert_allclose(gy.numpy(), [1.4704, -5.5452, 1.0397], atol=1e-4)      # PyTorch's, printed
    assert gradgradcheck(nbgrad.ldexp, (x, y))
    assert gradcheck(lambda a: a.ldexp(nbgrad.tensor([1, -2, 3])), (x,))
    i = nbgrad.ldexp(nbgrad.tensor([2]), nbgrad.tensor([3]))
    assert i.dtype == nbgrad.float32 and i.tolist() == [16.0]
    assert nbgrad.ldexp(nbgrad.tensor([1.0], dtype=nbgrad.float16), nbgrad.tensor([3])).dtype == nbgrad.float16
    # an integer exponent: correctly rounded (subnormal results too)
    assert nbgrad.ldexp(nbgrad.tensor([3.0]), nbgrad.tensor([-150])).item() == 2 * 2.0 ** -149
    assert nbgrad.ldexp(nbgrad.tensor([3.0], dtype=nbgrad.float64), nbgrad.tensor([-1075])).item() == 2 * 2.0 ** -1074
    assert nbgrad.ldexp(nbgrad.tensor([2.0 ** 1000], dtype=nbgrad.float64), nbgrad.tensor([-2000])).item() == \
        2.0 ** -1000
    w = nbgrad.tensor([1.0, 2.0])
    w.ldexp_(nbgrad.tensor([1, 2]))
    assert w.tolist() == [2.0, 8.0]
    with pytest.raises(RuntimeError, match="ldexp can't be cast to the desired output type Long"):
        nbgrad.tensor([1]).ldexp_(nbgrad.tensor([1]))


def test_frexp():
    v = [0.0, -0.0, 1.0, 8.0, 0.3, float("inf"), float("nan"), -float("inf"), 1e-310, -5e-324, 1.7e308]
    m, e = nbgrad.frexp(nbgrad.tensor(v, dtype=nbgrad.float64))
    finite = np.isfinite(v)
    want_m, want_e = np.frexp(np.array(v))
    np.testing.assert_array_equal(m.numpy()[finite], want_m[finite])
    np.testing.assert_array_equal(e.numpy()[finite], want_e[finite])
    assert e.dtype == nbgrad.int32 and e.numpy()[~finite].tolist() == [0, 0, 0]
    assert str(m.numpy()[~finite].tolist()) == "[inf, nan, -inf]"
    r = nbgrad.tensor([3.0, -0.1, 65504.0, 6e-8], dtype=nbgrad.float16).frexp()
    assert r.mantissa.dtype == nbgrad.float16 and r.exponent.tolist() == [2, -3, 16, -23]
    a = RNG.standard_normal(100).astype(np.float32) * np.float32(10.0) ** RNG.integers(-44, 38, 100)
    m, e = nbgrad.frexp(nbgrad.tensor(a))
    want_m, want_e = np.frexp(a)
    np.testing.assert_array_equal(m.numpy(), want_m)
    np.testing.assert_array_equal(e.numpy(), want_e)
    x = leaf([3.0, -0.1, 100.0])
    assert name(nbgrad.frexp(x)[0]) == "FrexpBackward0"
    nbgrad.frexp(x).mantissa.sum().backward()
    assert x.grad.tolist() == [0.25, 8.0, 2 ** -7]
    with pytest.raises(RuntimeError, match="torch.frexp\\(\\) only supports floating-point dtypes"):
        nbgrad.frexp(nbgrad.tensor([1]))


def test_nextafter():
    x = nbgrad.tensor([1.0, 0.0, -0.0, float("inf"), 1.0, float("nan"), -1.0], dtype=nbgrad.float64)
    y = nbgrad.tensor([2.0, -1.0, 1.0, 0.0, 1.0, 0.0, -2.0], dtype=nbgrad.float64)
    np.testing.assert_array_equal(nbgrad.nextafter(x, y).numpy(), np.nextafter(x.numpy(), y.numpy()))
    a = RNG.standard_normal(50).astype(np.float32)
    b = np.where(RNG.random(50) < 0.2, a, RNG.standard_normal(50).astype(np.float32))
    np.testing.assert_array_equal(nbgrad.nextafter(nbgrad.tensor(a), nbgrad.tensor(b)).numpy(), np.nextafter(a, b))
    h = nbgrad.nextafter(nbgrad.tensor([1.0, -1.0], dtype=nbgrad.float16), nbgrad.tensor([2.0, -2.0],
                                                                                          dtype=nbgrad.float16))
    assert h.tolist() == [1.0009765625, -1.0009765625]
    p, q = leaf([1.0, 2.0, float("nan")]), leaf([1.0, 0.0, 1.0])
    out = nbgrad.nextafter(p, q)
    assert name(out) == "NextafterBackward0"
    out.sum().backward()
    assert p.grad.tolist() == [0, 1, 1] and q.grad.tolist() == [0, 0, 0]
    with pytest.raises(NotImplementedError, match="\"nextafter_cpu\" not implemented for 'Long'"):
        nbgrad.nextafter(nbgrad.tensor([1]), nbgrad.tensor([2]))
    t = nbgrad.tensor([1.0], dtype=nbgrad.float64)
    t.nextafter_(nbgrad.tensor([2.0], dtype=nbgrad.float64))
    assert t.item() == np.nextafter(1.0, 2.0)


def test_shifts():
    assert nbgrad.bitwise_left_shift(nbgrad.tensor([1, -1, 3, 5, 7]), nbgrad.tensor([2, 63, 64, -1, 1])).tolist() == \
        [4, -9223372036854775808, 0, 0, 14]
    assert nbgrad.bitwise_right_shift(nbgrad.tensor([-8, 8, -1, 7, -9]), nbgrad.tensor([1, 70, 64, -1, 63])).tolist() \
        == [-4, 0, -1, 0, -1]
    u = nbgrad.tensor([1, 2, 255], dtype=nbgrad.uint8)
    assert (u << nbgrad.tensor([7, 200, 1], dtype=nbgrad.uint8)).tolist() == [128, 0, 254]
    assert (nbgrad.tensor([-128, 100, -3], dtype=nbgrad.int8) >> nbgrad.tensor([7, 8, 1], dtype=nbgrad.int8)).tolist() \
        == [-1, 0, -2]
    assert (1 << nbgrad.tensor([2])).tolist() == [4] and (nbgrad.tensor([3]) << 2).tolist() == [12]
    assert (nbgrad.tensor([1], dtype=nbgrad.int8) << nbgrad.tensor([1])).dtype == nbgrad.int64
    a = RNG.integers(-2 ** 40, 2 ** 40, 40)
    s = RNG.integers(0, 20, 40)
    np.testing.assert_array_equal((nbgrad.tensor(a) << nbgrad.tensor(s)).numpy(), a << s)
    np.testing.assert_array_equal((nbgrad.tensor(a) >> nbgrad.tensor(s)).numpy(), a >> s)
    t = nbgrad.tensor([1, 2])
    t <<= 1
    assert t.tolist() == [2, 4]
    t.bitwise_right_shift_(nbgrad.tensor([1, 0]))
    assert t.tolist() == [1, 4]
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Float'"):
        nbgrad.tensor([1.0]) << 1


def test_isneginf_isposinf_isreal_heaviside_():
    x = nbgrad.tensor([-float("inf"), 1.0, float("inf"), float("nan")])
    assert nbgrad.isneginf(x).tolist() == [True, False, False, False]
    assert x.isposinf().tolist() == [False, False, True, False]
    assert nbgrad.isreal(x).tolist() == [True] * 4 and nbgrad.isposinf(nbgrad.tensor([1])).tolist() == [False]
    h = nbgrad.tensor([-1.0, 0.0, 2.0])
    assert h.heaviside_(nbgrad.tensor([0.5])) is h and h.tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes."):
        nbgrad.tensor([1]).heaviside_(nbgrad.tensor([0.5]))
    p = leaf([1.0, -1.0])
    out = nbgrad.heaviside(p, p)
    assert name(out) == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        out.sum().backward()
    z = p * 1
    z.heaviside_(p)
    assert name(z) == "NotImplemented" and z.tolist() == [1.0, 0.0]
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside_ is not implemented"):
        z.sum().backward()
    b = p * 1
    b[0:1].heaviside_(nbgrad.tensor([0.5], dtype=nbgrad.float64))     # on a view: the base's CopySlices
    assert name(b) == "CopySlices"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside_ is not implemented"):
        b.sum().backward()


# -- module-level in-place functions, aliases, nn functions at the top level -----------------
def test_module_inplace_functions_and_aliases():
    from nbgrad.ops.toplevel import INPLACE_NAMES
    for n in INPLACE_NAMES:
        assert callable(getattr(nbgrad, n)), n
    x = nbgrad.tensor([-1.5, 0.25, 2.0], dtype=nbgrad.float64)
    assert nbgrad.abs_(x) is x and x.tolist() == [1.5, 0.25, 2.0]
    nbgrad.exp_(x)
    np.testing.assert_array_equal(x.numpy(), np.exp([1.5, 0.25, 2.0]))
    nbgrad.clamp_(x, 2.0, 5.0)
    assert x.tolist() == [np.exp(1.5), 2.0, 5.0]
    nbgrad.fix_(x)
    assert x.tolist() == [4.0, 2.0, 5.0]
    with pytest.raises(TypeError, match="abs_\\(\\): argument 'input' \\(position 1\\) must be Tensor, not float"):
        nbgrad.abs_(3.0)
    a, b = nbgrad.tensor([1.0, 2.0, 3.0]), nbgrad.tensor([2.0, 2.0, 2.0])
    assert nbgrad.greater_equal(a, b).tolist() == [False, True, True]
    assert nbgrad.less_equal(a, 2).tolist() == [True, True, False]
    assert nbgrad.not_equal(a, b).tolist() == [True, False, True]
    assert nbgrad.fix(nbgrad.tensor([-1.5, 1.5])).tolist() == [-1.0, 1.0]


def test_nn_functions_at_the_top_level():
    F = nbgrad.nn.functional
    x = nbgrad.tensor(RNG.standard_normal((2, 4, 6)))
    w = nbgrad.tensor(RNG.standard_normal((3, 4, 3)))
    np.testing.assert_array_equal(nbgrad.conv1d(x, w, None, 2, 1).numpy(), F.conv1d(x, w, None, 2, 1).numpy())
    np.testing.assert_array_equal(nbgrad.max_pool1d(x, 2, []).numpy(), F.max_pool1d(x, 2).numpy())
    vals, idx = nbgrad.adaptive_max_pool1d(x, 3)             # ATen's: always both
    assert vals.shape == (2, 4, 3) and idx.dtype == nbgrad.int64
    rm, rv = nbgrad.zeros(4, dtype=nbgrad.float64), nbgrad.ones(4, dtype=nbgrad.float64)
    out = nbgrad.batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5, True)
    np.testing.assert_allclose(out.numpy(), F.batch_norm(x, None, None, training=True).numpy(), rtol=1e-12)
    assert rm.abs().sum().item() > 0                        # running stats updated
    np.testing.assert_array_equal(nbgrad.layer_norm(x, [6]).numpy(), F.layer_norm(x, [6]).numpy())
    with pytest.raises(TypeError):
        nbgrad.dropout(x, 0.5)                              # torch.dropout(input, p, train): no defaults
    assert nbgrad.dropout(x, 0.5, False) is x
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nbgrad.dropout(x, 1.5, True)
    d = nbgrad.feature_dropout(nbgrad.ones(100, 8, 5), 0.25, True).numpy()
    assert np.all(d.std(axis=2) == 0) and set(np.unique(d)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.15 < np.mean(d == 0) < 0.35
    emb = nbgrad.tensor(RNG.standard_normal((5, 3)), requires_grad=True)
    i = nbgrad.tensor([[0, 2], [2, 4]])
    out = nbgrad.embedding(emb, i, 2)                       # weight first, padding_idx 2
    np.testing.assert_array_equal(out.detach().numpy(), emb.detach().numpy()[i.numpy()])
    out.sum().backward()
    assert emb.grad[2].tolist() == [0, 0, 0] and emb.grad[0].tolist() == [1, 1, 1]
    p, t = nbgrad.tensor(RNG.standard_normal((3, 4))), nbgrad.tensor(RNG.random((3, 4)))
    assert nbgrad.kl_div(p, t, 2).item() == F.kl_div(p, t, reduction="sum").item()
    assert nbgrad.binary_cross_entropy_with_logits(p, t, None, None, 0).shape == (3, 4)
    assert nbgrad.poisson_nll_loss(p, t, True, False, 1e-8, 1).item() == F.poisson_nll_loss(p, t).item()
    with pytest.raises(TypeError, match=r"^kl_div\(\): argument 'reduction' \(position 3\) must be int, not str$"):
        nbgrad.kl_div(p, t, "mean")
    assert nbgrad.constant_pad_nd(p, [1, 2], 1.5).shape == (3, 7)
    assert nbgrad.pixel_shuffle(nbgrad.ones(1, 8, 2, 2), 2).shape == (1, 2, 4, 4)
    assert nbgrad.rms_norm(p, [4]).shape == (3, 4)


# -- window functions ---------------------------------------------------------------------------
# PyTorch 2.13's float64 windows (hamming with alpha=0.6, beta=0.3; kaiser with beta=5)
WINDOWS = {
    ('hann_window', 7, True):
        [0.0, 0.1882550990706332, 0.6112604669781572, 0.9504844339512095, 0.9504844339512095,
         0.6112604669781573, 0.1882550990706333],
    ('blackman_window', 7, True):
        [0.0, 0.09045342435412806, 0.4591829575459636, 0.9203636180999082, 0.9203636180999082,
         0.4591829575459638, 0.09045342435412812],
    ('bartlett_window', 7, True):
        [0.0, 0.2857142857142857, 0.5714285714285714, 0.8571428571428571, 0.8571428571428572,
         0.5714285714285716, 0.2857142857142858],
    ('hamming_window', 7, True):
        [0.3, 0.4129530594423799, 0.6667562801868943, 0.8702906603707257, 0.8702906603707257,
         0.6667562801868944, 0.41295305944238],
    ('kaiser_window', 7, True):
        [0.036710892271286676, 0.2706944178894165, 0.6517382352453626, 0.9552473164564366,
         0.9552473164564366, 0.6517382352453626, 0.2706944178894165],
    ('hann_window', 7, False):
        [0.0, 0.24999999999999994, 0.7499999999999999, 1.0, 0.7500000000000002, 0.25000000000000033, 0.0],
    ('blackman_window', 7, False):
        [0.0, 0.12999999999999995, 0.6299999999999999, 1.0, 0.6300000000000003, 0.13000000000000023, 0.0],
    ('bartlett_window', 7, False):
        [0.0, 0.3333333333333333, 0.6666666666666666, 1.0, 0.6666666666666667, 0.3333333333333335, 0.0],
    ('hamming_window', 7, False):
        [0.3, 0.44999999999999996, 0.7499999999999999, 0.8999999999999999, 0.7500000000000001,
         0.4500000000000002, 0.3],
    ('kaiser_window', 7, False):
        [0.036710892271286676, 0.3282019573723212, 0.7753221044454067, 1.0, 0.7753221044454067,
         0.3282019573723212, 0.036710892271286676],
    ('hann_window', 8, True):
        [0.0, 0.1464466094067262, 0.49999999999999994, 0.8535533905932737, 1.0, 0.8535533905932738,
         0.5000000000000001, 0.14644660940672632],
    ('blackman_window', 8, True):
        [0.0, 0.0664466094067262, 0.33999999999999997, 0.7735533905932737, 1.0, 0.7735533905932739,
         0.3400000000000001, 0.06644660940672625],
    ('bartlett_window', 8, True):
        [0.0, 0.25, 0.5, 0.75, 1.0, 0.75, 0.5, 0.25],
    ('hamming_window', 8, True):
        [0.3, 0.3878679656440357, 0.6, 0.8121320343559641, 0.8999999999999999, 0.8121320343559643, 0.6,
         0.3878679656440358],
    ('kaiser_window', 8, True):
        [0.036710892271286676, 0.23054433409868888, 0.5528517696991324, 0.868017159478478, 1.0,
         0.868017159478478, 0.5528517696991324, 0.23054433409868888],
    ('hann_window', 8, False):
        [0.0, 0.1882550990706332, 0.6112604669781572, 0.9504844339512095, 0.9504844339512095,
         0.6112604669781573, 0.1882550990706333, 0.0],
    ('blackman_window', 8, False):
        [0.0, 0.09045342435412806, 0.4591829575459636, 0.9203636180999082, 0.9203636180999082,
         0.4591829575459638, 0.09045342435412812, 0.0],
    ('bartlett_window', 8, False):
        [0.0, 0.2857142857142857, 0.5714285714285714, 0.8571428571428571, 0.8571428571428572,
         0.5714285714285716, 0.2857142857142858, 0.0],
    ('hamming_window', 8, False):
        [0.3, 0.4129530594423799, 0.6667562801868943, 0.8702906603707257, 0.8702906603707257,
         0.6667562801868944, 0.41295305944238, 0.3],
    ('kaiser_window', 8, False):
        [0.036710892271286676, 0.2706944178894165, 0.6517382352453626, 0.9552473164564366,
         0.9552473164564366, 0.6517382352453626, 0.2706944178894165, 0.036710892271286676],
}


@pytest.mark.parametrize("key", sorted(WINDOWS))
def test_windows_match_pytorch(key):
    fn, length, periodic = key
    extra = {"hamming_window": (0.6, 0.3), "kaiser_window": (5.0,)}.get(fn, ())
    out = getattr(nbgrad, fn)(length, periodic, *extra, dtype=nbgrad.float64)
    assert out.dtype == nbgrad.float64 and out.shape == (length,)
    # within 1 ulp of the window's scale (cos and exp kernels are not PyTorch's bit for bit;
    # the Kaiser window sums their differences through Cephes' i0: a few ulps)
    tol = 8e-16 if fn == "kaiser_window" else 2.3e-16
    np.testing.assert_allclose(out.numpy(), WINDOWS[key], rtol=0, atol=tol)


def test_windows_defaults_dtypes_errors():
    assert nbgrad.hann_window(0).shape == (0,) and nbgrad.hann_window(1).tolist() == [1.0]
    w = nbgrad.hann_window(4, requires_grad=True)
    assert w.dtype == nbgrad.float32 and w.requires_grad and w.is_leaf
    np.testing.assert_allclose(w.detach().numpy(), [0.0, 0.5, 1.0, 0.5], atol=1e-7)
    assert nbgrad.kaiser_window(5, dtype=nbgrad.float16).dtype == nbgrad.float16
    np.testing.assert_array_equal(nbgrad.bartlett_window(9, False).numpy(), np.bartlett(9).astype(np.float32))
    np.testing.assert_allclose(nbgrad.hamming_window(12, False, dtype=nbgrad.float64).numpy(), np.hamming(12),
                               atol=3e-16)
    np.testing.assert_allclose(nbgrad.blackman_window(12, False, dtype=nbgrad.float64).numpy(), np.blackman(12),
                               atol=1e-15)
    np.testing.assert_allclose(nbgrad.kaiser_window(12, False, 8.0, dtype=nbgrad.float64).numpy(),
                               np.kaiser(12, 8.0), atol=1e-14)
    with pytest.raises(RuntimeError, match="hann_window requires non-negative window_length, got window_length=-1"):
        nbgrad.hann_window(-1)
    with pytest.raises(RuntimeError,
                       match="kaiser_window expects floating point dtypes, got: TensorOptions\\(dtype=int,"):
        nbgrad.kaiser_window(3, dtype=nbgrad.int32)
    with pytest.raises(TypeError, match="argument 'window_length' \\(position 1\\) must be int, not float"):
        nbgrad.hann_window(3.5)


# -- random: generator state, geometric_/log_normal_/cauchy_, poisson, binomial ------------------
def test_rng_state_round_trip():
    nbgrad.manual_seed(5)
    nbgrad.randn(3)                          # an odd count: Numba's cached Gaussian is part of the state
    state = nbgrad.get_rng_state()
    assert state.dtype == nbgrad.uint8 and state.dim() == 1
    first = [nbgrad.randn(5), nbgrad.rand(4), nbgrad.randint(0, 100, (6,)), nbgrad.empty(7).geometric_(0.3),
             nbgrad.poisson(nbgrad.full((5,), 3.0))]
    nbgrad.set_rng_state(state)
    again = [nbgrad.randn(5), nbgrad.rand(4), nbgrad.randint(0, 100, (6,)), nbgrad.empty(7).geometric_(0.3),
             nbgrad.poisson(nbgrad.full((5,), 3.0))]
    for a, b in zip(first, again):
        assert a.tolist() == b.tolist()
    assert nbgrad.default_generator.get_state().tolist() != state.tolist()
    nbgrad.default_generator.set_state(state)
    assert nbgrad.randn(5).tolist() == first[0].tolist()
    with pytest.raises(RuntimeError, match="Expected an RNG state of size"):
        nbgrad.set_rng_state(state[:10])
    with pytest.raises(TypeError, match="expected a torch.ByteTensor"):
        nbgrad.set_rng_state(state.long())


def _ks_statistic(a, cdf):
    """The one-sample Kolmogorov-Smirnov distance of the draws a from a CDF (callable)."""
    a = np.sort(a)
    f = cdf(a)
    n = len(a)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def test_random_samplers_distributions():
    nbgrad.manual_seed(11)
    n = 40000
    limit = 1.63 / np.sqrt(n)                   # KS at the 1% level (continuous laws)
    g = nbgrad.empty(n, dtype=nbgrad.float64).geometric_(0.3).numpy()
    assert g.min() == 1 and abs(g.mean() - 1 / 0.3) < 0.06 and abs(g.var() - 0.7 / 0.09) < 0.4
    ln = np.log(nbgrad.empty(n, dtype=nbgrad.float64).log_normal_(1.0, 2.0).numpy())
    from math import erf
    normal_cdf = np.vectorize(lambda v: 0.5 * (1 + erf((v - 1.0) / (2.0 * np.sqrt(2)))))
    assert _ks_statistic(ln, normal_cdf) < limit
    c = nbgrad.empty(n, dtype=nbgrad.float64).cauchy_(1.0, 3.0).numpy()
    assert _ks_statistic(c, lambda v: 0.5 + np.arctan((v - 1.0) / 3.0) / np.pi) < limit
    for lam in (0.5, 4.0, 37.5):
        p = nbgrad.poisson(nbgrad.full((n,), lam, dtype=nbgrad.float64)).numpy()
        assert abs(p.mean() - lam) < 4 * np.sqrt(lam / n) and abs(p.var() / lam - 1) < 0.05
        assert np.all(p == np.round(p)) and p.min() >= 0
    for cnt, pr in ((10, 0.3), (50, 0.85), (7, 0.5)):
        b = nbgrad.binomial(nbgrad.full((n,), float(cnt)), nbgrad.full((n,), pr)).numpy()
        sd = np.sqrt(cnt * pr * (1 - pr))
        assert abs(b.mean() - cnt * pr) < 4 * sd / np.sqrt(n) and abs(b.var() / sd ** 2 - 1) < 0.05
        assert b.min() >= 0 and b.max() <= cnt
    assert nbgrad.binomial(nbgrad.tensor([0.0, 5.0, 5.0]), nbgrad.tensor([0.5, 0.0, 1.0])).tolist() == [0, 0, 5]
    assert nbgrad.poisson(nbgrad.tensor([0.0])).tolist() == [0.0]


def test_random_samplers_nodes_and_errors():
    x = nbgrad.ones(3, requires_grad=True) * 1
    x.geometric_(0.5)
    assert name(x) == "GeometricBackward0"
    y = nbgrad.ones(3, requires_grad=True) * 1
    assert name(y.log_normal_()) == "LogNormalBackward0" and name((y * 1).cauchy_()) == "CauchyBackward0"
    assert nbgrad.empty(3, dtype=nbgrad.int64).geometric_(0.5).dtype == nbgrad.int64
    r = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    assert name(nbgrad.poisson(r)) == "PoissonBackward0"
    c, p = nbgrad.tensor([5.0], requires_grad=True), nbgrad.tensor([0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        nbgrad.binomial(c, p).sum().backward()
    with pytest.raises(RuntimeError, match="geometric_ expects p to be in \\(0, 1\\), but got p=1.5"):
        nbgrad.empty(3).geometric_(1.5)
    with pytest.raises(RuntimeError, match="log_normal_ expects std > 0.0, but found std=-1"):
        nbgrad.empty(3).log_normal_(1, -1)
    with pytest.raises(NotImplementedError, match="\"log_normal_cpu\" not implemented for 'Long'"):
        nbgrad.empty(3, dtype=nbgrad.int64).log_normal_()
    with pytest.raises(RuntimeError, match="cauchy_ expects sigma > 0.0, but found sigma=-1"):
        nbgrad.empty(3).cauchy_(0, -1)
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
        nbgrad.poisson(nbgrad.tensor([-1.0]))
    with pytest.raises(NotImplementedError, match="\"poisson_cpu\" not implemented for 'Long'"):
        nbgrad.poisson(nbgrad.tensor([1]))


# -- LBFGS ---------------------------------------------------------------------------------------
# PyTorch 2.13's float64 trajectories on the 3-D Rosenbrock function from (-1.2, 1.0, 0.3):
# (line_search_fn, history_size, max_iter) -> (x after each of 4 steps, func_evals, n_iter)
LBFGS_RUNS = {
    (None, 10, 5): ([[-0.9380992781836803, 0.7951278827271338, 0.5076025228179282],
                     [-0.8782147426980705, 0.7652186828437982, 0.5658396335502127],
                     [-0.8646805953780168, 0.7554162702646384, 0.5708540499540392],
                     [-0.8486484125442496, 0.7343999069614396, 0.5495748170116515]], 20, 20),
    ("strong_wolfe", 4, 6): ([[-0.8238786442340776, 0.6932443281582261, 0.48658733484813765],
                              [-0.6270842135008539, 0.39098343084695303, 0.1459429065003483],
                              [-0.29865455175658595, 0.07931771177537644, -0.017012951247547148],
                              [0.308485677038134, 0.06661213714870977, 0.03155892808884011]], 29, 17),
    ("strong_wolfe", 100, 20): ([[0.05282337152951151, -0.021343001899368833, -0.003344485671079864],
                                 [0.9825128773845437, 0.964577755768844, 0.9328547793511549],
                                 [1.0000028206999987, 1.0000056980275231, 1.0000112949826268],
                                 [1.0000028206999987, 1.0000056980275231, 1.0000112949826268]], 58, 43),
}


def _rosenbrock(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def _lbfgs_run(steps, opt_kwargs, x=None, state=None):
    x = nbgrad.tensor([-1.2, 1.0, 0.3], dtype=nbgrad.float64, requires_grad=True) if x is None else x
    opt = nbgrad.optim.LBFGS([x], **opt_kwargs)
    if state is not None:
        opt.load_state_dict(state)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss
    trajectory = []
    for _ in range(steps):
        opt.step(closure)
        trajectory.append(x.detach().numpy().copy())
    return np.array(trajectory), opt, x


@pytest.mark.parametrize("key", list(LBFGS_RUNS), ids=str)
def test_lbfgs_matches_pytorch_trajectory(key):
    ls, history, max_iter = key
    want, evals, iters = LBFGS_RUNS[key]
    got, opt, x = _lbfgs_run(4, dict(lr=1 if ls else 0.3, history_size=history, line_search_fn=ls,
                                     max_iter=max_iter))
    # (PyTorch's float64 dot is MKL's ddot, whose order of summation depends on the CPU: for 3
    # elements (x0*y0 + x2*y2) + x1*y1 on a 2-core AMD EPYC with AVX2, where the strong-Wolfe
    # run ends 3e-12 from this record (met within 1e-12 on an Intel Xeon); nbgrad sums in order)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert opt.state[x]["func_evals"] == evals and opt.state[x]["n_iter"] == iters


def test_lbfgs_state_dict_round_trip_and_errors():
    kwargs = dict(history_size=5, line_search_fn="strong_wolfe", max_iter=4)
    full, _, _ = _lbfgs_run(6, kwargs)
    first, opt, x = _lbfgs_run(3, kwargs)
    sd = opt.state_dict()
    assert sorted(sd["state"][0]) == ['H_diag', 'al', 'd', 'func_evals', 'n_iter', 'old_dirs', 'old_stps',
                                      'prev_flat_grad', 'prev_loss', 'ro', 't']
    assert sd["param_groups"][0]["max_eval"] == 5 and sd["param_groups"][0]["params"] == [0]
    x2 = nbgrad.tensor(x.detach().numpy(), requires_grad=True)
    rest, _, _ = _lbfgs_run(3, kwargs, x=x2, state=sd)
    np.testing.assert_array_equal(np.concatenate([first, rest]), full)
    p = nbgrad.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        nbgrad.optim.LBFGS([p], lr=-1)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        nbgrad.optim.LBFGS([{"params": [p]}, {"params": [nbgrad.zeros(1, requires_grad=True)]}])
    opt = nbgrad.optim.LBFGS([p], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_out_for_elementwise_functions():
    out = nbgrad.empty(0, dtype=nbgrad.int64)
    assert nbgrad.gcd(nbgrad.tensor([12, 18]), nbgrad.tensor([8, 12]), out=out) is out and out.tolist() == [4, 6]
    f = nbgrad.empty(2, dtype=nbgrad.float64)
    nbgrad.fmax(nbgrad.tensor([1.0, float("nan")]), nbgrad.tensor([2.0, 3.0]), out=f)
    assert f.tolist() == [2.0, 3.0]
    b = nbgrad.empty(2, dtype=nbgrad.bool)
    assert nbgrad.greater_equal(nbgrad.tensor([1, 3]), 2, out=b).tolist() == [False, True]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nbgrad.ldexp(nbgrad.tensor([1]), nbgrad.tensor([2]), out=nbgrad.empty(1, dtype=nbgrad.int64))
