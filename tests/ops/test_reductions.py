"""Reductions over any set of dims with keepdim, and softmax/log_softmax, against NumPy."""
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nbgrad

SETTINGS = settings(max_examples=20, deadline=None)
NP_DTYPE = {nbgrad.float32: np.float32, nbgrad.float64: np.float64,
            nbgrad.int32: np.int32, nbgrad.int64: np.int64, nbgrad.bool: np.bool_}
LAYOUTS = ["contiguous", "transposed", "sliced"]


def make(values, dtype, layout):
    """(numpy view, nbgrad tensor) with the values of `values`, laid out as asked."""
    np_dtype = NP_DTYPE[dtype]
    values = values.astype(np_dtype)
    if layout == "transposed":
        rev = tuple(reversed(range(values.ndim)))
        base = np.ascontiguousarray(values.transpose(rev))
        return values, nbgrad.tensor(base).permute(rev)
    if layout == "sliced":
        base = np.zeros(tuple(2 * n + 1 for n in values.shape), np_dtype)
        index = tuple(slice(1, None, 2) for _ in values.shape)
        base[index] = values
        return values, nbgrad.tensor(base)[index]
    return values, nbgrad.tensor(values)


def tolerances(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == nbgrad.float32 else dict(rtol=1e-11, atol=1e-11)


@st.composite
def reduction_cases(draw, min_dims=1):
    """(values, dims as a tuple with some negative entries, keepdim, layout, dtype)."""
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=4, min_side=1, max_side=5))
    nd = len(shape)
    dims = draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    dims = tuple(d - nd if draw(st.booleans()) else d for d in dims)
    seed = draw(st.integers(0, 2**32 - 1))
    values = np.random.default_rng(seed).uniform(-3, 3, shape)
    layout = draw(st.sampled_from(LAYOUTS))
    dtype = draw(st.sampled_from([nbgrad.float32, nbgrad.float64]))
    keepdim = draw(st.booleans())
    return values, dims, keepdim, layout, dtype


def _np_logsumexp(a, axis, keepdims):
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


REDUCTIONS = {
    # name: (call on (x, dims, keepdim), numpy reference on (a, axis, keepdims), values transform)
    "sum": (lambda x, d, k: x.sum(dim=d, keepdim=k), lambda a, d, k: a.sum(axis=d, keepdims=k), None),
    "mean": (lambda x, d, k: x.mean(dim=d, keepdim=k), lambda a, d, k: a.mean(axis=d, keepdims=k), None),
    "amax": (lambda x, d, k: x.amax(dim=d, keepdim=k), lambda a, d, k: a.max(axis=d, keepdims=k), None),
    "amin": (lambda x, d, k: x.amin(dim=d, keepdim=k), lambda a, d, k: a.min(axis=d, keepdims=k), None),
    "var": (lambda x, d, k: x.var(dim=d, keepdim=k), lambda a, d, k: a.var(axis=d, keepdims=k, ddof=1), None),
    "var_biased": (lambda x, d, k: x.var(dim=d, keepdim=k, unbiased=False),
                   lambda a, d, k: a.var(axis=d, keepdims=k), None),
    "var_correction0": (lambda x, d, k: x.var(dim=d, keepdim=k, correction=0),
                        lambda a, d, k: a.var(axis=d, keepdims=k), None),
    "std": (lambda x, d, k: x.std(dim=d, keepdim=k), lambda a, d, k: a.std(axis=d, keepdims=k, ddof=1), None),
    "std_biased": (lambda x, d, k: nbgrad.std(x, dim=d, keepdim=k, unbiased=False),
                   lambda a, d, k: a.std(axis=d, keepdims=k), None),
    "logsumexp": (lambda x, d, k: x.logsumexp(dim=d, keepdim=k), _np_logsumexp, None),
    "logsumexp_fn": (lambda x, d, k: nbgrad.logsumexp(x, d, keepdim=k), _np_logsumexp, None),
    "norm": (lambda x, d, k: x.norm(p=2, dim=d, keepdim=k),
             lambda a, d, k: np.sqrt((a * a).sum(axis=d, keepdims=k)), None),
    "norm_p1": (lambda x, d, k: x.norm(p=1, dim=d, keepdim=k),
                lambda a, d, k: np.abs(a).sum(axis=d, keepdims=k), None),
    "prod": (None, lambda a, d, k: a.prod(axis=d, keepdims=k), lambda v: 1 + v / 6),
    "sum_fn": (lambda x, d, k: nbgrad.sum(x, d, keepdim=k), lambda a, d, k: a.sum(axis=d, keepdims=k), None),
    "mean_fn": (lambda x, d, k: nbgrad.mean(x, dim=d, keepdim=k), lambda a, d, k: a.mean(axis=d, keepdims=k), None),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(case=reduction_cases())
def test_reduction_over_dims(name, case):
    values, dims, keepdim, layout, dtype = case
    fn, ref_fn, transform = REDUCTIONS[name]
    if transform is not None:
        values = transform(values)
    if name.startswith(("var", "std")) and all(values.shape[d] == 1 for d in dims):
        dims = tuple(range(values.ndim))  # keep the unbiased divisor N-1 nonzero
        if values.size == 1:
            values = np.concatenate([values.ravel(), [0.5]]).reshape(2)
            dims = (0,)
    a, x = make(values, dtype, layout)
    ref = ref_fn(a.astype(np.float64), dims, keepdim)
    if name == "prod":
        # prod takes a single dim: reduce one dim at a time
        out, ref = x, a.astype(np.float64)
        for d in sorted((d % a.ndim for d in dims), reverse=True):
            out = out.prod(dim=d, keepdim=keepdim)
            ref = ref.prod(axis=d, keepdims=keepdim)
    else:
        out = fn(x, dims if len(dims) > 1 else dims[0], keepdim)
    assert out.dtype == dtype
    assert tuple(out.shape) == np.shape(ref)
    np.testing.assert_allclose(out.numpy(), ref, **tolerances(dtype))


FULL = {
    "sum": (lambda x: x.sum(), np.sum),
    "mean": (lambda x: x.mean(), np.mean),
    "prod": (lambda x: x.prod(), np.prod),
    "max": (lambda x: x.max(), np.max),
    "min": (lambda x: nbgrad.min(x), np.min),
    "amax": (lambda x: x.amax(), np.max),
    "var": (lambda x: x.var(), lambda a: a.var(ddof=1)),
    "std": (lambda x: x.std(), lambda a: a.std(ddof=1)),
    "logsumexp_all": (lambda x: x.logsumexp(dim=tuple(range(x.dim()))), lambda a: _np_logsumexp(a, None, False)),
    "norm": (lambda x: x.norm(), lambda a: np.sqrt((a * a).sum())),
    "norm_fn": (lambda x: nbgrad.norm(x), lambda a: np.sqrt((a * a).sum())),
}


@pytest.mark.parametrize("name", sorted(FULL))
@SETTINGS
@given(case=reduction_cases())
def test_full_reduction_gives_0dim(name, case):
    values, _, _, layout, dtype = case
    if name == "prod":
        values = 1 + values / 6
    if name in ("var", "std") and values.size == 1:
        values = np.array([values.ravel()[0], 0.5])
    fn, ref_fn = FULL[name]
    a, x = make(values, dtype, layout)
    out = fn(x)
    assert out.shape == ()
    assert out.dtype == dtype
    np.testing.assert_allclose(out.item(), ref_fn(a.astype(np.float64)), **tolerances(dtype))


@pytest.mark.parametrize("is_max", [True, False], ids=["max", "min"])
@SETTINGS
@given(case=reduction_cases())
def test_max_min_with_dim_return_values_and_indices(is_max, case):
    values, dims, keepdim, layout, dtype = case
    dim = dims[0]
    a, x = make(values, dtype, layout)
    result = x.max(dim=dim, keepdim=keepdim) if is_max else x.min(dim, keepdim)
    ref_values = (np.max if is_max else np.min)(a, axis=dim, keepdims=keepdim)
    ref_indices = (np.argmax if is_max else np.argmin)(a, axis=dim, keepdims=keepdim)
    values_out, indices_out = result  # a named tuple
    assert result.values is values_out and result.indices is indices_out
    assert result[0] is values_out
    assert values_out.dtype == dtype and indices_out.dtype == nbgrad.int64
    assert tuple(values_out.shape) == ref_values.shape
    np.testing.assert_array_equal(values_out.numpy(), ref_values)
    np.testing.assert_array_equal(indices_out.numpy(), ref_indices)


@pytest.mark.parametrize("is_max", [True, False], ids=["argmax", "argmin"])
@SETTINGS
@given(case=reduction_cases())
def test_argmax_argmin(is_max, case):
    values, dims, keepdim, layout, dtype = case
    a, x = make(values, dtype, layout)
    name = "argmax" if is_max else "argmin"
    ref_fn = np.argmax if is_max else np.argmin
    full = getattr(x, name)()
    assert full.shape == () and full.dtype == nbgrad.int64
    assert full.item() == ref_fn(a)  # flat index into the logical (C-order) tensor
    out = getattr(nbgrad, name)(x, dim=dims[0], keepdim=keepdim)
    ref = ref_fn(a, axis=dims[0], keepdims=keepdim)
    assert out.dtype == nbgrad.int64
    assert tuple(out.shape) == ref.shape
    np.testing.assert_array_equal(out.numpy(), ref)


def test_max_dim_ties_pick_the_first_index():
    x = nbgrad.tensor([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]])
    r = x.max(dim=1)
    assert r.values.tolist() == [5.0, 7.0]
    assert r.indices.tolist() == [1, 0]
    assert x.argmax().item() == 3
    assert x.min(dim=0).indices.tolist() == [0, 1, 0]


def test_max_with_nan_returns_nan():
    x = nbgrad.tensor([1.0, float("nan"), 3.0])
    assert np.isnan(x.max().item())
    assert x.argmax().item() == 1
    assert np.isnan(x.max(dim=0).values.item())


def test_binary_max_is_maximum():
    a = nbgrad.tensor([1.0, 4.0])
    b = nbgrad.tensor([3.0, 2.0])
    assert nbgrad.max(a, b).tolist() == [3.0, 4.0]
    assert a.min(b).tolist() == [1.0, 2.0]


# --- dtypes of reductions --------------------------------------------------------------

def test_int_reductions():
    x = nbgrad.tensor([[1, -2, 3], [4, 5, -6]], dtype=nbgrad.int32)
    assert x.sum().dtype == nbgrad.int64 and x.sum().item() == 5
    assert x.sum(dim=0).tolist() == [5, 3, -3]
    assert x.prod().dtype == nbgrad.int64 and x.prod().item() == 720
    assert x.max().dtype == nbgrad.int32 and x.max().item() == 5
    assert x.min(dim=1).values.tolist() == [-2, -6]
    assert x.argmax().item() == 4
    assert nbgrad.tensor([True, True, False]).sum().item() == 2


def test_int_sum_with_dtype_argument():
    x = nbgrad.tensor([1, 2, 3])
    s = x.sum(dtype=nbgrad.float64)
    assert s.dtype == nbgrad.float64 and s.item() == 6.0


def test_mean_of_ints_raises():
    with pytest.raises(RuntimeError):
        nbgrad.tensor([1, 2]).mean()
    assert nbgrad.tensor([1, 2]).float().mean().item() == 1.5


def test_reductions_of_empty_tensors():
    assert nbgrad.zeros(0).sum().item() == 0.0
    assert nbgrad.zeros(0, 3).sum(0).tolist() == [0.0, 0.0, 0.0]
    assert nbgrad.zeros(0).prod().item() == 1.0
    with pytest.raises(RuntimeError):
        nbgrad.zeros(0).max()


def test_reduction_dim_out_of_range_raises_indexerror():
    with pytest.raises(IndexError):
        nbgrad.zeros(2, 3).sum(dim=2)
    with pytest.raises(IndexError):
        nbgrad.zeros(2, 3).max(dim=-3)


def test_reduction_with_repeated_dim_raises():
    with pytest.raises(RuntimeError):
        nbgrad.zeros(2, 3).sum(dim=(1, -1))


def test_var_std_examples():
    x = nbgrad.tensor([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]])
    np.testing.assert_allclose(x.var().item(), np.var(x.numpy(), ddof=1), rtol=1e-6)
    np.testing.assert_allclose(x.std(dim=1, unbiased=False).numpy(), np.std(x.numpy(), axis=1), rtol=1e-6)
    np.testing.assert_allclose(x.var(dim=1, correction=0).numpy(), np.var(x.numpy(), axis=1), rtol=1e-6)


def test_norm_inf_and_int_dim():
    x = nbgrad.tensor([[3.0, -4.0], [-7.0, 1.0]])
    assert x.norm().item() == pytest.approx(np.sqrt(75.0), rel=1e-6)
    assert x.norm(p=float("inf")).item() == 7.0
    np.testing.assert_allclose(x.norm(dim=1).numpy(), [5.0, np.sqrt(50.0)], rtol=1e-6)
    np.testing.assert_allclose(x.norm(dim=0, keepdim=True).numpy(), [[np.sqrt(58.0), np.sqrt(17.0)]], rtol=1e-6)


# --- softmax and log_softmax ----------------------------------------------------------------

def _np_softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@SETTINGS
@given(case=reduction_cases())
def test_softmax_log_softmax_over_a_dim(log, case):
    values, dims, _, layout, dtype = case
    dim = dims[0]
    a, x = make(values * 5, dtype, layout)
    ref = _np_softmax(a.astype(np.float64), dim)
    if log:
        ref = np.log(ref)
        outs = [nbgrad.log_softmax(x, dim), x.log_softmax(dim), x.log_softmax(dim=dim)]
    else:
        outs = [nbgrad.softmax(x, dim), x.softmax(dim), x.softmax(dim=dim)]
    for out in outs:
        assert out.dtype == dtype and tuple(out.shape) == a.shape
        np.testing.assert_allclose(out.numpy(), ref, **tolerances(dtype))


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64], ids=["float32", "float64"])
def test_softmax_is_stable_for_huge_logits(dtype):
    x = nbgrad.tensor([[1e4, 0.0, -1e4], [1e4, 1e4, 1e4 - 1]], dtype=dtype)
    s = nbgrad.softmax(x, dim=1).numpy()
    assert np.isfinite(s).all()
    e = np.exp(-1.0)
    np.testing.assert_allclose(s, [[1.0, 0.0, 0.0], [1 / (2 + e), 1 / (2 + e), e / (2 + e)]], rtol=1e-5, atol=1e-7)
    ls = x.log_softmax(dim=-1).numpy()
    assert np.isfinite(ls).all()
    log_z = np.log(2 + e)
    np.testing.assert_allclose(ls, [[0.0, -1e4, -2e4], [-log_z, -log_z, -1 - log_z]], rtol=1e-5, atol=1e-5)
    lse = x.logsumexp(dim=1).numpy()
    np.testing.assert_allclose(lse, [1e4, 1e4 + log_z], rtol=1e-6)
    big_neg = nbgrad.tensor([-1e4, -1e4], dtype=dtype)
    np.testing.assert_allclose(big_neg.softmax(0).numpy(), [0.5, 0.5])


def test_softmax_rows_sum_to_one_and_dtype_argument():
    x = nbgrad.randn(4, 7)
    s = x.softmax(dim=1)
    np.testing.assert_allclose(s.sum(dim=1).numpy(), np.ones(4), rtol=1e-6)
    d = nbgrad.softmax(x, dim=0, dtype=nbgrad.float64)
    assert d.dtype == nbgrad.float64


# -- mean/std/var to one value in PyTorch's CPU order ----------------------------------------------
# Expected values recorded from PyTorch 2.13 (CPU, AVX2): a float32 sum to one value is summed in
# float32 in SumKernel.cpp's cascade order, the mean is that sum / n in float32, and std/var of all
# elements (std_var_all_cpu) take float64 squared deviations from that mean.  For equal values the
# mean can miss the value by an ulp: the std is then tiny, not 0, and its gradient finite.
_C = -0.005274730734527111      # a float32 value whose float32 mean of three copies is off by an ulp


def _grad_of(y, x):
    y.sum().backward()
    return x.grad.tolist()


def test_std_var_of_equal_values_follow_pytorchs_mean():
    x = nbgrad.full((3,), _C, requires_grad=True)
    y = x.std()
    assert y.item() == 5.703162941905759e-10
    assert _grad_of(y, x) == [-0.40824827551841736] * 3
    x = nbgrad.full((3,), _C, requires_grad=True)
    y = x.var()
    assert y.item() == 3.2526065174565133e-19
    assert _grad_of(y, x) == [-4.656612873077393e-10] * 3
    x = nbgrad.full((3,), _C, requires_grad=True)
    y = x.std(correction=0)
    assert y.item() == 4.656612873077393e-10
    assert _grad_of(y, x) == [-0.3333333432674408] * 3
    x = nbgrad.full((3,), 0.1, dtype=nbgrad.float64, requires_grad=True)
    y = x.std()
    assert y.item() == 1.6996749443881478e-17
    assert _grad_of(y, x) == [-0.4082482904638631] * 3


def test_std_of_equal_values_whose_mean_is_exact_has_a_zero_gradient():
    # PyTorch 2.13: std 0, gradient masked to 0 (grad / (2 * std) where std == 0)
    x = nbgrad.full((4,), 0.3, requires_grad=True)
    y = x.std()
    assert y.item() == 0.0 and _grad_of(y, x) == [0.0] * 4
    x = nbgrad.tensor(_C, requires_grad=True)            # broadcast: five copies, mean exact
    y = x.expand(5).std()
    assert y.item() == 0.0 and _grad_of(y, x) == 0.0
    x = nbgrad.full((3,), 5.4102277755737305, dtype=nbgrad.float64, requires_grad=True)
    y = x.std()
    assert y.item() == 0.0 and _grad_of(y, x) == [0.0] * 3


def test_std_over_a_dim_and_std_mean_use_welford():
    # PyTorch 2.13: over a dim, and std_mean/var_mean even to one value, the variance of equal
    # values is exactly 0 (Welford); var's gradient still reads x - x.mean() (an ulp here)
    x = nbgrad.full((2, 3), _C, requires_grad=True)
    y = x.std(1)
    assert y.tolist() == [0.0, 0.0] and _grad_of(y, x) == [[0.0] * 3] * 2
    x = nbgrad.full((3,), _C, requires_grad=True)
    s, m = nbgrad.std_mean(x)
    assert s.item() == 0.0 and _grad_of(s, x) == [0.0] * 3
    x = nbgrad.full((3,), _C, requires_grad=True)
    v, m = nbgrad.var_mean(x)
    assert v.item() == 0.0 and _grad_of(v, x) == [-4.656612873077393e-10] * 3


def test_float32_mean_to_one_value_in_pytorchs_order():
    a = nbgrad.tensor([0.1257302165031433, -0.13210485875606537, 0.6404226422309875, 0.10490011423826218,
                       -0.5356693863868713])
    assert a.mean().item() == 0.04065574333071709       # PyTorch's float32 sum 0.20327872037887573 / 5


def test_float32_mean_in_pytorchs_vector_order():
    # (PyTorch's sum kernel adds 8-lane float32 vectors on every CPU, AVX-512 ones included)
    b = nbgrad.tensor([36.15950393676758, 130.40000915527344, 94.70809936523438, -70.37351989746094,
                       -126.54214477539062, -62.32744598388672, 4.132597923278809, -232.50308227539062,
                       -21.879165649414062, -124.59109497070312, -73.22673797607422, -54.425899505615234,
                       -31.630016326904297, 41.163055419921875, 104.25133514404297, -12.853466033935547,
                       136.64634704589844, -66.51947021484375, 35.15100860595703, 90.34701538085938,
                       9.401229858398438, -74.34992218017578, -92.17253875732422, -45.7725830078125,
                       22.019512176513672, -100.9618148803711, -20.917556762695312, -15.922500610351562,
                       54.084556579589844, 21.465911865234375, 35.537269592285156, -65.38285827636719,
                       -12.961363792419434, 78.39754486083984, 149.34310913085938, -125.90655517578125,
                       151.3923797607422])
    assert b.mean().item() == -6.395115852355957        # (float64 sum / 37, rounded: -6.395114898681641)


def test_std_of_an_expanded_constant_follows_pytorchs_walk_of_its_dims():
    # PyTorch 2.13: 12 copies, walked as TensorIterator orders a (4, 1) or (1, 3) tensor expanded
    # to (4, 3) (a 2-D loop of rows of 3, summed by scalar_outer_sum / scalar_inner_sum)
    for shape, grad in (((4, 1), [-0.26111650466918945] * 4), ((1, 3), [-0.34815534949302673] * 3)):
        x = nbgrad.full(shape, _C, requires_grad=True)
        y = x.expand(4, 3).std()
        assert y.item() == 4.86367335295057e-10
        y.backward()
        assert x.grad.flatten().tolist() == grad
    x = nbgrad.full((4, 1), 0.3, requires_grad=True)
    y = x.expand(4, 3).std()
    y.backward()
    assert y.item() == 0.0 and x.grad.flatten().tolist() == [0.0] * 4


def test_float_sum_to_one_value_in_pytorchs_order():
    # torch 2.13's sums of NumPy's legacy RandomState(0) normals (stable across NumPy
    # versions); each differs in the last bit from the correctly rounded sum (in brackets)
    a = np.random.RandomState(0).randn(45).astype(np.float32)
    assert nbgrad.tensor(a).sum().item() == 9.76798152923584             # (9.767980575561523)
    b = np.random.RandomState(0).randn(6, 7).astype(np.float32)
    assert nbgrad.tensor(b).t().sum().item() == 10.03312873840332        # (10.033127784729004)
    c = np.random.RandomState(0).randn(23)
    assert nbgrad.tensor(c).sum().item() == 10.351756837378481           # (10.351756837378483)


# torch 2.13's float32 results (NumPy's legacy RandomState normals); in each, some elements
# differ in the last bit from the correctly rounded sums (26, 1, 3 and 9 of them)
_SUM0_37x40 = [1.1369118690490723, 4.123622894287109, 7.2450175285339355, 10.36887264251709, -4.609994888305664,
               -10.779759407043457, 10.67151165008545, 1.0950987339019775, 3.4889378547668457, 7.119551658630371,
               -11.123292922973633, -4.01434326171875, 9.986207962036133, -0.7413747310638428, 7.057113170623779,
               1.6360304355621338, -10.716347694396973, -5.902737140655518, -7.067899703979492, -2.0696592330932617,
               -7.982226848602295, -11.587117195129395, -0.832543134689331, -1.9635659456253052, -3.433885097503662,
               0.48919397592544556, -7.382974624633789, 1.2955104112625122, 0.4787173569202423, 7.560169219970703,
               -4.270369052886963, -3.9684274196624756, -0.6586930751800537, -10.51070785522461, 1.662583589553833,
               9.126014709472656, 2.426581859588623, -10.113285064697266, 3.615588426589966, -1.6119468212127686]


def test_float_sum_over_dims_in_pytorchs_order():
    # columns (vectorized_outer_sum: blocks of 32 columns, then 8, then one by one), rows
    # (vectorized_inner_sum) and a permuted mean (its TensorIterator walk; sum / n)
    a = np.random.RandomState(0).randn(37, 40).astype(np.float32)
    assert nbgrad.tensor(a).sum(0).tolist() == _SUM0_37x40
    b = np.random.RandomState(1).randn(3, 45).astype(np.float32)
    assert nbgrad.tensor(b).sum(-1).tolist() == [-3.6672797203063965, 9.076896667480469, 1.6710853576660156]
    c = np.random.RandomState(2).randn(6, 5, 7).astype(np.float32)
    assert nbgrad.tensor(c).permute(2, 0, 1).mean((0, 2)).tolist() == [
        -0.2833520472049713, -0.002127575920894742, 0.004604191519320011, 0.0072993142530322075,
        0.22905848920345306, 0.1084461510181427]


def test_broadcast_gradient_is_summed_in_pytorchs_order():
    x = np.random.RandomState(3).randn(33, 12).astype(np.float32)
    g = np.random.RandomState(4).randn(33, 12).astype(np.float32)
    w = nbgrad.ones(1, 12, requires_grad=True)
    (nbgrad.tensor(x) * w).backward(nbgrad.tensor(g))
    assert w.grad.reshape(-1).tolist() == [
        -3.011935234069824, 7.347932815551758, 4.430441856384277, 0.733568549156189, -0.13800060749053955,
        -1.0936064720153809, -0.8748266100883484, 4.186091423034668, 2.890354633331299, 7.864276885986328,
        -8.309283256530762, -14.908493041992188]


@pytest.mark.parametrize("shape, dims", [((1100, 1000), 0), ((1000, 1100), 1), ((8, 400, 400), (0, 2)),
                                         ((300, 70, 64), 1)])
def test_sum_over_dims_split_across_threads_keeps_each_outputs_order(shape, dims):
    # PyTorch's parallel_dim_reduction splits kept dims only: each output is summed as in one
    # call, so the bits do not depend on the number of threads
    x = nbgrad.tensor(np.random.RandomState(5).randn(*shape).astype(np.float32))
    before = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(1)
        one = x.sum(dims).numpy().copy()
        nbgrad.set_num_threads(2)
        two = x.sum(dims).numpy()
    finally:
        nbgrad.set_num_threads(before)
    assert one.tobytes() == two.tobytes()
    np.testing.assert_allclose(two, x.numpy().astype(np.float64).sum(dims), rtol=1e-4, atol=1e-3)


# torch 2.13's float32 softmax of RandomState(10).randn(24) * 3 with its AVX512 kernels (16
# lanes) and with ATEN_CPU_CAPABILITY=avx2 (8 lanes): the lanes decide how the exps are added
_SOFTMAX_16_LANES = [
    0.03587298467755318, 0.0056466455571353436, 6.403077804861823e-06, 0.0006440835422836244, 0.004259845241904259,
    7.61513874749653e-05, 0.0014648596988990903, 0.0009147269884124398, 0.0006690470036119223,
    0.00039118470158427954, 0.002421296900138259, 0.024393998086452484, 3.651721272035502e-05, 0.014440649189054966,
    0.0013114259345456958, 0.00251089152880013, 2.182756179536227e-05, 0.0009906793711706996, 0.05676022171974182,
    2.5882458430714905e-05, 1.7503136859886581e-06, 3.5355287764105015e-06, 0.0014673169935122132,
    0.8456680178642273]
_SOFTMAX_8_LANES = [
    0.035872988402843475, 0.005646646022796631, 6.403078259609174e-06, 0.0006440836004912853, 0.004259845241904259,
    7.61513874749653e-05, 0.0014648598153144121, 0.0009147270466201007, 0.0006690470036119223,
    0.00039118470158427954, 0.0024212971329689026, 0.024393999949097633, 3.6517216358333826e-05,
    0.014440651051700115, 0.0013114260509610176, 0.0025108917616307735, 2.1827563614351675e-05,
    0.0009906794875860214, 0.05676022917032242, 2.588246024970431e-05, 1.7503139133623336e-06,
    3.535529003784177e-06, 0.001467317109927535, 0.8456680774688721]


# torch 2.13's float32 softmax gradient (RandomState(1): x = randn(2, 20) * 2, then g = randn(2, 20)),
# with 16 and 8 lanes as above: the sum of g * y added as vec::map2_reduce_all adds it
_SOFTMAX_GRAD_16_LANES = [
    -0.07078121602535248, -0.002810793463140726, -0.0028444358613342047, 0.0018343342235311866,
    -0.0021146805956959724, -7.117423956515267e-05, 0.03263957425951958, 0.004292275290936232, 0.000575015670619905,
    0.0031371444929391146, 0.03844241425395012, -7.011141860857606e-05, -0.006321897730231285, -0.001989521784707904,
    -0.028145568445324898, 0.0005393562605604529, 0.005195666570216417, 0.0014230889501050115, 0.0020912846084684134,
    0.024979243054986, -0.0019040037877857685, 0.13196969032287598, 0.012745354324579239, -0.02801295556128025,
    0.010473162867128849, -0.001748753129504621, 0.009013378992676735, 0.002683459548279643, 0.01613982394337654,
    -0.07794686406850815, -0.006948454305529594, -0.006059217732399702, -0.0008287111995741725, 0.001407909905537963,
    -0.0002364504471188411, -0.03560390695929527, -0.0011107499012723565, 0.011025691404938698, -0.06105795130133629,
    0.025999536737799644]
_SOFTMAX_GRAD_8_LANES = [
    -0.07078121602535248, -0.002810793463140726, -0.0028444358613342047, 0.0018343342235311866,
    -0.0021146805956959724, -7.117423956515267e-05, 0.03263957425951958, 0.004292275290936232, 0.000575015670619905,
    0.0031371444929391146, 0.03844241425395012, -7.011141860857606e-05, -0.006321897730231285, -0.001989521784707904,
    -0.028145568445324898, 0.0005393562605604529, 0.005195666570216417, 0.0014230889501050115, 0.0020912846084684134,
    0.024979243054986, -0.0019040035549551249, 0.13196969032287598, 0.012745355255901814, -0.028012951835989952,
    0.010473165661096573, -0.0017487528966739774, 0.009013378992676735, 0.0026834593154489994, 0.016139822080731392,
    -0.07794685661792755, -0.006948453839868307, -0.006059217266738415, -0.0008287110249511898, 0.001407909905537963,
    -0.00023645031615160406, -0.035603903234004974, -0.0011107497848570347, 0.011025691404938698,
    -0.061057936400175095, 0.025999536737799644]


# torch 2.13's float32 log_softmax of the same randn(24) * 3 (16 and 8 lanes): SLEEF's expf, the
# exps added as vec::map_reduce_all adds them, SLEEF's logf of the sum, (x - max) - log(sum)
_LOG_SOFTMAX_16_LANES = [
    -3.327770948410034, -5.176693439483643, -11.958731651306152, -7.347681999206543, -5.458522319793701,
    -9.482787132263184, -6.52599573135376, -6.996884822845459, -7.309656143188477, -7.846330642700195,
    -6.023451805114746, -3.7134182453155518, -10.217726707458496, -4.23770809173584, -6.6366400718688965,
    -5.987117290496826, -10.73233699798584, -6.91711950302124, -2.868919610977173, -10.561944961547852,
    -13.255715370178223, -12.552647590637207, -6.524319648742676, -0.1676284223794937]
_LOG_SOFTMAX_8_LANES = [
    -3.327770709991455, -5.176693439483643, -11.958731651306152, -7.347681999206543, -5.458522319793701,
    -9.482787132263184, -6.52599573135376, -6.996884822845459, -7.309656143188477, -7.846330642700195,
    -6.023451805114746, -3.7134180068969727, -10.217726707458496, -4.23770809173584, -6.6366400718688965,
    -5.987117290496826, -10.73233699798584, -6.91711950302124, -2.8689193725585938, -10.561944961547852,
    -13.255715370178223, -12.552647590637207, -6.524319648742676, -0.16762833297252655]


# torch 2.13's float32 log_softmax gradient of the softmax gradient's inputs (16 and 8 lanes):
# s = vec::reduce_all of g, then g - exp(y) * s as one fused multiply-add (its compiler contracts it)
_LOG_SOFTMAX_GRAD_16_LANES = [
    -1.220474123954773, -0.8993781805038452, -0.7610453367233276, 1.6877835988998413, -0.17464621365070343,
    -0.6373958587646484, -1.1179606914520264, 2.0915415287017822, 0.04456481337547302, 0.592949628829956,
    -0.44343942403793335, -0.35289841890335083, -1.1634750366210938, -0.3678690493106842, -0.5945092439651489,
    0.5821970701217651, 0.810695230960846, 0.9242016673088074, 0.24213220179080963, 0.7570258378982544,
    -0.7602335810661316, 0.7324317097663879, 0.19290398061275482, -0.4421498775482178, 0.16896221041679382,
    -0.08900538831949234, 1.0903880596160889, 1.5117021799087524, 2.1547160148620605, -1.5488083362579346,
    -1.4573360681533813, -0.5283141732215881, 0.14669562876224518, 0.866442859172821, 0.3018616735935211,
    -2.0736143589019775, -0.31184807419776917, 0.7437024712562561, -1.2279109954833984, 0.5294138193130493]
_LOG_SOFTMAX_GRAD_8_LANES = [
    -1.220474123954773, -0.8993781805038452, -0.7610453367233276, 1.6877835988998413, -0.17464621365070343,
    -0.6373958587646484, -1.1179606914520264, 2.0915415287017822, 0.04456481337547302, 0.592949628829956,
    -0.44343942403793335, -0.35289841890335083, -1.1634750366210938, -0.3678690493106842, -0.5945092439651489,
    0.5821970701217651, 0.810695230960846, 0.9242016673088074, 0.24213220179080963, 0.7570258378982544,
    -0.7602335810661316, 0.7324317693710327, 0.19290398061275482, -0.442149817943573, 0.1689622849225998,
    -0.08900538831949234, 1.0903880596160889, 1.5117021799087524, 2.1547160148620605, -1.5488083362579346,
    -1.4573360681533813, -0.5283141732215881, 0.14669562876224518, 0.866442859172821, 0.3018617033958435,
    -2.0736143589019775, -0.31184807419776917, 0.7437024712562561, -1.2279108762741089, 0.5294138789176941]


_BY_NAME = [("softmax", 16, _SOFTMAX_16_LANES), ("softmax", 8, _SOFTMAX_8_LANES),
            ("log_softmax", 16, _LOG_SOFTMAX_16_LANES), ("log_softmax", 8, _LOG_SOFTMAX_8_LANES)]
_GRADS_BY_NAME = [("softmax", 16, _SOFTMAX_GRAD_16_LANES), ("softmax", 8, _SOFTMAX_GRAD_8_LANES),
                  ("log_softmax", 16, _LOG_SOFTMAX_GRAD_16_LANES), ("log_softmax", 8, _LOG_SOFTMAX_GRAD_8_LANES)]


@pytest.mark.parametrize("name, lanes, expected", _BY_NAME)
def test_float32_softmax_and_log_softmax_over_the_last_dim_are_pytorchs_to_the_bit(monkeypatch, name, lanes, expected):
    # PyTorch's _vec_softmax_lastdim: SLEEF's expf, vec::reduce_all's lane order, e * (1 / sum);
    # _vec_log_softmax_lastdim (serial_vec_log_softmax_lastdim_range): (x - max) - SLEEF's logf(sum)
    from nbgrad.backends.cpu import reduction as R
    monkeypatch.setattr(R, "_lanes", [lanes])
    x = nbgrad.tensor(np.random.RandomState(10).randn(24).astype(np.float32) * 3)
    assert getattr(x, name)(-1).tolist() == expected
    assert getattr(x.reshape(1, 24).expand(3, 24), name)(1)[2].tolist() == expected     # (a row at stride 0)


@pytest.mark.acceleration           # (softmax_backward; its composed fallback sums in another order)
@pytest.mark.parametrize("name, lanes, expected", _GRADS_BY_NAME)
def test_float32_softmax_and_log_softmax_gradients_over_the_last_dim_are_pytorchs_to_the_bit(monkeypatch, name, lanes,
                                                                                           expected):
    from nbgrad.backends.cpu import reduction as R
    monkeypatch.setattr(R, "_lanes", [lanes])
    rs = np.random.RandomState(1)
    a = (rs.randn(2, 20) * 2).astype(np.float32)
    g = rs.randn(2, 20).astype(np.float32)
    x = nbgrad.tensor(a, requires_grad=True)
    (gx,) = nbgrad.autograd.grad(getattr(x, name)(-1), x, nbgrad.tensor(g))
    assert gx.reshape(-1).tolist() == expected


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5,), (17, 33), (3, 4, 5), (70_000,), (600, 700)])
def test_norm_over_every_dim_by_the_sum_shortcut_has_reduces_bits(monkeypatch, dtype, shape):
    # a norm's sum over every dim of a row-major tensor takes the small-op shortcut (one norm
    # per parameter in clip_grad_norm_); reduce's own result, bit for bit
    from nbgrad.ops import reduction as R
    rng = np.random.default_rng(len(shape))
    x = nbgrad.from_numpy((rng.standard_normal(shape) * 7).astype(dtype))
    got = [nbgrad.linalg.vector_norm(x, p).numpy() for p in (1, 2)] + [x.norm().numpy()]
    monkeypatch.setattr(R, "_total_dense", lambda op, t: None)
    want = [nbgrad.linalg.vector_norm(x, p).numpy() for p in (1, 2)] + [x.norm().numpy()]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape == ()
        assert np.atleast_1d(g).view(np.uint8).tolist() == np.atleast_1d(w).view(np.uint8).tolist()


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, float("inf"), -float("inf"), -1, -2])
def test_a_norm_of_one_element_per_result_is_its_abs(p):
    # recorded from PyTorch 2.13: with one element per result its reduction returns |x| (no
    # square to overflow or underflow, no root to round), whatever p (0 counts nonzeros)
    x = nbgrad.tensor([[1e30], [-1e-30], [5e-45], [-3.0], [-0.0]], dtype=nbgrad.float32, requires_grad=True)
    out = nbgrad.linalg.vector_norm(x, p, dim=1)
    want = np.abs(x.detach().numpy()[:, 0])
    np.testing.assert_array_equal(out.detach().numpy(), want)
    assert not np.signbit(out.detach().numpy()).any() and out.grad_fn.name() == "LinalgVectorNormBackward0"
    assert nbgrad.linalg.vector_norm(x[:1, 0], p).item() == np.float32(1e30)
    assert nbgrad.linalg.vector_norm(x, 0, dim=1).tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]


def test_float32_softmax_over_a_leading_dim_sums_in_float32_and_divides():
    # PyTorch's _vec_softmax / _vec_log_softmax: exps by SLEEF's expf, their float32 sum in the
    # dim's order, then e / sum (softmax) or (x - max) - logf(sum); a float64 sum rounded last
    # was an ulp off: softmax of [6.389056, 6.389056, 19.085537] over dim 0 gave 0.99999386
    # for the last element where PyTorch gives 0.99999392 (differential seed 88001619)
    x = nbgrad.tensor([[6.389056], [6.389056], [19.085537]])
    y = x.softmax(0).numpy().ravel()
    assert y.view(np.uint32).tolist() == [911047274, 911047274, 1065353114]
    e = np.exp(x.numpy().astype(np.float64) - 19.085537)
    np.testing.assert_allclose(y, e.ravel() / e.sum(), rtol=2e-7)
    ls = x.log_softmax(0).numpy().ravel()
    np.testing.assert_allclose(ls, np.log(e.ravel() / e.sum()), rtol=1e-6, atol=1e-6)
