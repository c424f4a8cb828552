"""equal, isclose, allclose, unique, bincount, histc against NumPy and PyTorch 2.13's
recorded behaviour (dtypes, errors, the nodes that refuse backward)."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(41)
NAN = float("nan")


# -- equal / isclose / allclose -----------------------------------------------------------
def test_equal():
    a = nbgrad.tensor([1.0, 2.0])
    assert nbgrad.equal(a, nbgrad.tensor([1.0, 2.0])) is True
    assert a.equal(nbgrad.tensor([1.0, 2.5])) is False
    assert nbgrad.equal(nbgrad.tensor([1, 2]), nbgrad.tensor([1.0, 2.0])) is True     # values, not dtypes
    assert nbgrad.equal(a, nbgrad.tensor([[1.0, 2.0]])) is False                      # no broadcasting
    assert nbgrad.equal(nbgrad.tensor([NAN]), nbgrad.tensor([NAN])) is False
    with pytest.raises(TypeError, match="must be Tensor"):
        nbgrad.equal(a, [1.0, 2.0])


@pytest.mark.parametrize("rtol, atol, equal_nan", [(1e-5, 1e-8, False), (1e-3, 0.0, True), (0.0, 0.0, False),
                                                   (0.0, 0.1, True)])
def test_isclose_matches_numpy(rtol, atol, equal_nan):
    a = RNG.standard_normal(40)
    b = a + RNG.standard_normal(40) * np.logspace(-9, 0, 40)
    a[:4] = [NAN, np.inf, -np.inf, NAN]
    b[:4] = [NAN, np.inf, np.inf, 1.0]
    x, y = nbgrad.tensor(a), nbgrad.tensor(b)
    got = nbgrad.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    assert got.dtype == nbgrad.bool
    np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    assert x.allclose(y, rtol, atol, equal_nan) is bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    assert nbgrad.allclose(x[4:], x[4:] * (1 + 1e-7)) is True


def test_isclose_records_its_ops_allclose_does_not():
    # a multi-output view whose base changed in place may not rewrite its history: isclose's
    # recorded subtraction is refused as in PyTorch, allclose (below autograd) is not
    x = nbgrad.ones(1, 2, 1, 3, dtype=nbgrad.float64, requires_grad=True)
    a, b = x.chunk(2, -3)
    with nbgrad.no_grad():
        b.squeeze_()
    assert nbgrad.allclose(a, b, equal_nan=True) is True
    with pytest.raises(RuntimeError, match="Output 1 of Split is a view and its base or another view"):
        nbgrad.isclose(a, b)


def test_isclose_result_version_counts_pytorchs_in_place_steps():
    x = nbgrad.tensor([1.0, NAN])
    assert nbgrad.isclose(x, x, equal_nan=True)._version == 2
    assert nbgrad.isclose(x, x)._version == 1
    assert nbgrad.isclose(x, x, rtol=0, atol=0)._version == 0
    assert nbgrad.isclose(nbgrad.tensor([1]), nbgrad.tensor([1]), equal_nan=True)._version == 1


def test_isclose_integers_broadcasting_and_errors():
    assert nbgrad.isclose(nbgrad.tensor([1, 2]), nbgrad.tensor([1, 3])).tolist() == [True, False]
    assert nbgrad.isclose(nbgrad.tensor([100, 2]), nbgrad.tensor([101, 2]), rtol=0.01).tolist() == [True, True]
    assert nbgrad.isclose(nbgrad.tensor([True, False]), nbgrad.tensor([True, True])).tolist() == [True, False]
    assert nbgrad.isclose(nbgrad.tensor([[1.0], [2.0]]), nbgrad.tensor([1.0, 2.0])).shape == (2, 2)
    assert nbgrad.isclose(nbgrad.tensor([1.0], requires_grad=True), nbgrad.tensor([1.0])).requires_grad is False
    with pytest.raises(RuntimeError, match="Long did not match Float"):
        nbgrad.isclose(nbgrad.tensor([1, 2]), nbgrad.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        nbgrad.isclose(nbgrad.tensor([1.0]), nbgrad.tensor([1.0]), rtol=-1)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        nbgrad.isclose(nbgrad.tensor([1.0]), nbgrad.tensor([1.0]), atol=-1)
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not float"):
        nbgrad.isclose(nbgrad.tensor([1.0]), 1.0)


# -- unique -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.int8])
def test_unique_matches_numpy(dtype):
    a = RNG.integers(-3, 4, size=(4, 5)).astype(dtype)
    values, inverse, counts = nbgrad.unique(nbgrad.tensor(a), return_inverse=True, return_counts=True)
    ref_values, ref_inverse, ref_counts = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), ref_values)
    assert values.dtype == nbgrad.tensor(a).dtype
    np.testing.assert_array_equal(inverse.numpy(), ref_inverse.reshape(a.shape))
    assert inverse.shape == a.shape and inverse.dtype == nbgrad.int64
    np.testing.assert_array_equal(counts.numpy(), ref_counts)
    assert counts.dtype == nbgrad.int64
    np.testing.assert_array_equal(nbgrad.tensor(a).unique(sorted=False).numpy(), ref_values)


def test_unique_dim_matches_numpy():
    a = RNG.integers(0, 2, size=(6, 3))
    a[4] = a[1]
    for dim in (0, 1, -1):
        values, inverse, counts = nbgrad.tensor(a).unique(dim=dim, return_inverse=True, return_counts=True)
        ref_values, ref_inverse, ref_counts = np.unique(a, axis=dim % 2, return_inverse=True, return_counts=True)
        np.testing.assert_array_equal(values.numpy(), ref_values)
        np.testing.assert_array_equal(inverse.numpy(), ref_inverse.reshape(-1))
        np.testing.assert_array_equal(counts.numpy(), ref_counts)
    assert nbgrad.unique(nbgrad.tensor([[1, 2], [1, 2], [0, 5]]), dim=0).tolist() == [[0, 5], [1, 2]]


def test_unique_dim_layout_and_empty_inputs():
    # PyTorch's values keep dim d's slices outermost in memory (a movedim of a contiguous result)
    v = nbgrad.unique(nbgrad.tensor([[1.0, 2, 1], [3, 4, 3]]), dim=1)
    assert v.tolist() == [[1.0, 2.0], [3.0, 4.0]] and v.stride() == (1, 2) and v._base is None
    assert nbgrad.unique(nbgrad.ones(2, 3, 2), dim=1).stride() == (2, 4, 1)
    values, inverse, counts = nbgrad.unique(nbgrad.zeros(0, 3), dim=0, return_inverse=True, return_counts=True)
    assert values.shape == (0, 3) and inverse.shape == (0,) and counts.shape == (0,)
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't selected"):
        nbgrad.unique(nbgrad.zeros(0, 3), dim=1)
    with pytest.raises(RuntimeError, match="Number of zero sized dimensions is more than one"):
        nbgrad.unique(nbgrad.zeros(0, 0), dim=1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        nbgrad.unique(nbgrad.tensor(5.0), dim=0)


def test_unique_edge_cases():
    # every NaN is its own value (PyTorch's CPU unique), sorted after the numbers
    assert str(nbgrad.unique(nbgrad.tensor([NAN, NAN, 1.0])).tolist()) == "[1.0, nan, nan]"
    assert nbgrad.unique(nbgrad.tensor([True, False, True])).tolist() == [False, True]
    values, counts = nbgrad.unique(nbgrad.tensor([]), return_counts=True)
    assert values.shape == (0,) and counts.shape == (0,) and counts.dtype == nbgrad.int64
    values, inverse = nbgrad.unique(nbgrad.tensor(3), return_inverse=True)
    assert values.tolist() == [3] and inverse.shape == () and inverse.item() == 0


def test_unique_has_no_derivative():
    x = nbgrad.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True)
    y = x.unique()
    assert y.grad_fn.name() == "Unique2Backward0" and y.requires_grad
    assert x.unique(dim=0).grad_fn.name() == "UniqueDimBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for '_unique2' is not implemented."):
        y.sum().backward()
    e = nbgrad.zeros(0, 2, requires_grad=True) * 1
    assert e.unique(dim=0).grad_fn.name() == "UniqueDimBackward0"
    # a gradient that goes nowhere is not asked for: no error (a view made under no_grad)
    with nbgrad.no_grad():
        v = x.view(4)
    u = v.unique()
    assert u.requires_grad and u.grad_fn.name() == "Unique2Backward0"
    u.sum().backward()
    assert x.grad is None


# -- bincount ---------------------------------------------------------------------------------
def test_bincount_matches_numpy():
    a = RNG.integers(0, 7, size=30)
    w = RNG.standard_normal(30)
    x = nbgrad.tensor(a)
    np.testing.assert_array_equal(nbgrad.bincount(x).numpy(), np.bincount(a))
    np.testing.assert_array_equal(x.bincount(minlength=12).numpy(), np.bincount(a, minlength=12))
    got = x.bincount(nbgrad.tensor(w))
    np.testing.assert_allclose(got.numpy(), np.bincount(a, w), rtol=1e-12)
    assert got.dtype == nbgrad.float64
    assert x.bincount(nbgrad.tensor(w, dtype=nbgrad.float32)).dtype == nbgrad.float32
    r = nbgrad.bincount(nbgrad.tensor([1, 1, 3]), weights=nbgrad.tensor([1, 2, 3]))
    assert r.dtype == nbgrad.float64 and r.tolist() == [0.0, 3.0, 0.0, 3.0]
    assert nbgrad.bincount(nbgrad.tensor([1, 2], dtype=nbgrad.int8)).tolist() == [0, 1, 1]
    e = nbgrad.bincount(nbgrad.tensor([], dtype=nbgrad.int64))
    assert e.shape == (0,) and e.dtype == nbgrad.int64


def test_bincount_errors():
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs."):
        nbgrad.bincount(nbgrad.tensor([-1]))
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs."):
        nbgrad.bincount(nbgrad.tensor([[1]]))
    with pytest.raises(NotImplementedError, match="\"bincount_cpu\" not implemented for 'Float'"):
        nbgrad.bincount(nbgrad.tensor([1.0]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        nbgrad.bincount(nbgrad.tensor([True]))


# -- histc ----------------------------------------------------------------------------------
def test_histc_matches_numpy():
    a = RNG.standard_normal(200).astype(np.float64)
    got = nbgrad.histc(nbgrad.tensor(a), bins=7, min=-1.5, max=2.0)
    inside = a[(a >= -1.5) & (a <= 2.0)]
    np.testing.assert_array_equal(got.numpy(), np.histogram(inside, bins=7, range=(-1.5, 2.0))[0])
    assert got.dtype == nbgrad.float64
    # the data's own range when min == max == 0
    ref = np.histogram(a, bins=10)[0]
    np.testing.assert_array_equal(nbgrad.tensor(a).histc(bins=10).numpy(), ref)


def test_histc_recorded_cases():
    assert nbgrad.histc(nbgrad.tensor([1.0, 2, 1]), bins=4, min=0, max=3).tolist() == [0, 2, 1, 0]
    assert nbgrad.histc(nbgrad.tensor([1.0, 2, 1]), bins=4).tolist() == [2, 0, 0, 1]
    assert nbgrad.histc(nbgrad.tensor([1.0, 1.0]), bins=4).tolist() == [0, 0, 2, 0]    # range [0, 2]
    assert nbgrad.histc(nbgrad.tensor([1.0, 2, 3, 4]), bins=3, min=1, max=4).tolist() == [1, 1, 2]
    h = nbgrad.histc(nbgrad.tensor([1.0, 2.0], requires_grad=True), bins=3)
    assert h.tolist() == [1, 0, 1] and not h.requires_grad and h.grad_fn is None
    with pytest.raises(RuntimeError, match="torch.histc: max must be larger than min"):
        nbgrad.histc(nbgrad.tensor([1.0, 2.0]), bins=4, min=3, max=1)
    with pytest.raises(RuntimeError, match="is not finite"):
        nbgrad.histc(nbgrad.tensor([1.0, NAN]), bins=3)
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        nbgrad.histc(nbgrad.tensor([1, 2]), bins=4)


# ---------------------------------------------------------------- histogram (PyTorch's recorded values)
def _hist(x, *a, **k):
    r = nbgrad.histogram(nbgrad.tensor(x), *a, **k)
    return r.hist.tolist(), r.bin_edges.tolist()


def test_histogram_equal_bins_over_the_data_or_a_range():
    x = [1.0, 2, 1, 2.5, 4, 0.7]
    hist, edges = _hist(x, 4)
    assert hist == [3.0, 1.0, 1.0, 1.0]
    np.testing.assert_allclose(edges, [0.7, 1.525, 2.35, 3.175, 4.0], rtol=1e-6)
    hist, edges = _hist(x, 4, range=(0.0, 3.0))
    assert hist == [1.0, 2.0, 1.0, 1.0] and edges == [0.0, 0.75, 1.5, 2.25, 3.0]
    assert _hist([2.0, 2.0], 3)[0] == [0.0, 2.0, 0.0]                    # one point: widened by 0.5
    np.testing.assert_allclose(_hist([2.0, 2.0], 3)[1], [1.5, 1.8333333, 2.1666667, 2.5], rtol=1e-6)
    assert _hist(np.zeros(0, np.float32), 3) == ([0.0, 0.0, 0.0], _hist(np.zeros(0, np.float32), 3)[1])
    np.testing.assert_allclose(_hist(np.zeros(0, np.float32), 3)[1], [0.0, 1 / 3, 2 / 3, 1.0], rtol=1e-6)
    assert _hist([[1.0, 2], [3, 4]], 2) == ([2.0, 2.0], [1.0, 2.5, 4.0])
    assert _hist([1.0, float("inf")], 2, range=(0.0, 2.0)) == ([0.0, 1.0], [0.0, 1.0, 2.0])   # the last edge counts


def test_histogram_with_edges_weights_and_density():
    x = nbgrad.tensor([1.0, 2, 1, 2.5, 4, 0.7])
    r = nbgrad.histogram(x, nbgrad.tensor([0.0, 1.0, 2.0, 5.0]), weight=nbgrad.ones(6) * 2, density=True)
    np.testing.assert_allclose(r.hist.numpy(), [1 / 6, 1 / 3, 1 / 6], rtol=1e-6)
    assert nbgrad.histogram(x, nbgrad.tensor([1.0, 0.0])).hist.tolist() == [0.0]       # decreasing: nothing inside
    a, b = x.histogram(2)
    assert a.tolist() == [4.0, 2.0] and type(nbgrad.histogram(x, 2)).__name__ == "histogram"
    o1, o2 = nbgrad.empty(0), nbgrad.empty(0)
    res = nbgrad.histogram(x, 2, out=(o1, o2))
    assert res.hist is o1 and o1.tolist() == [4.0, 2.0] and o2.numel() == 3
    assert nbgrad.histogram(x.double(), 3).hist.dtype == nbgrad.float64


def test_histogram_records_a_node_that_refuses_backward():
    x = nbgrad.tensor([1.0, 2, 1, 2.5, 4, 0.7], requires_grad=True)
    h = nbgrad.histogram(x, 3)
    assert h.hist.grad_fn is h.bin_edges.grad_fn and type(h.hist.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::histogram is not implemented"):
        h.hist.sum().backward()


@pytest.mark.parametrize("call, error, message", [
    (lambda x: nbgrad.histogram(nbgrad.arange(3), 3), NotImplementedError, "\"histogramdd\" not implemented for 'Long'"),
    (lambda x: nbgrad.histogram(x, 0), RuntimeError, r"histogram\(\): bins must be > 0, but got 0 for dimension 0"),
    (lambda x: nbgrad.histogram(x, nbgrad.tensor([1.0])), RuntimeError, "bins must be > 0, but got 0 for dimension 0"),
    (lambda x: nbgrad.histogram(x, 3, range=(2.0, 1.0)), RuntimeError,
     "histogramdd: min should not exceed max, but got min 2 max 1 for dimension 0"),
    (lambda x: nbgrad.histogram(x, 3, weight=nbgrad.ones(2)), RuntimeError,
     r"if weight tensor is provided it should have the same shape as the input tensor excluding its innermost "
     r"dimension, but got input with shape \[6, 1\] and weight with shape \[2\]"),
    (lambda x: nbgrad.histogram(x, 3, weight=nbgrad.ones(6, dtype=nbgrad.float64)), RuntimeError,
     r"input tensor and weight tensor should have the same dtype, but got input\(float\), and weight\(double\)"),
    (lambda x: nbgrad.histogram(x, nbgrad.tensor([0.0, 1.0]).double()), RuntimeError,
     "input tensor and bins tensors should have the same dtype, but got input with dtype float and bins for "
     "dimension 0 with dtype double"),
    (lambda x: nbgrad.histogram(x, nbgrad.tensor([[0.0, 1.0]])), RuntimeError,
     "bins tensor should have one dimension, but got 2 dimensions in the bins tensor for dimension 0"),
    (lambda x: nbgrad.histogram(nbgrad.tensor([1.0, float("inf")]), 2), RuntimeError,
     r"dimension 0's range \[1, inf\] is not finite"),
    (lambda x: nbgrad.histogram(x, nbgrad.tensor([0.0, 1.0]), range=(0.0, 1.0)), TypeError,
     "histogram\\(\\) received an invalid combination of arguments"),
])
def test_histogram_refusals(call, error, message):
    with pytest.raises(error, match=message):
        call(nbgrad.tensor([1.0, 2, 1, 2.5, 4, 0.7]))
