"""CUDA reductions over non-innermost dims (the columns kernel) and over rows, against NumPy.

Also which path a layout takes (reduction.LAUNCHES counts launches by path), so the
columns kernel cannot silently fall back to a copy + rows.  Tiny shapes (the simulator).
"""
import numpy as np
import pytest

import nbgrad
from cuda_available import requires_cuda

pytestmark = requires_cuda
RNG = np.random.default_rng(16)


def host(x):
    return x.cpu().numpy()


def launches():
    from nbgrad.backends.cuda import reduction
    return dict(reduction.LAUNCHES)


def delta(before):
    after = launches()
    keys = set(after) | set(before)
    return {k: after.get(k, 0) - before.get(k, 0) for k in keys if after.get(k, 0) != before.get(k, 0)}


REF = {"sum": np.sum, "mean": np.mean, "amax": np.max, "amin": np.min, "prod": np.prod, "all": np.all, "any": np.any}


def check(op, a, x, dim, keepdim=False):
    got = host(getattr(x, op)(dim, keepdim=keepdim))
    ref = REF[op](a.astype(np.float64) if a.dtype == np.float32 and op in ("sum", "mean", "prod") else a,
                  axis=dim, keepdims=keepdim)
    assert got.shape == ref.shape
    if a.dtype.kind == "f":
        np.testing.assert_allclose(got, ref.astype(a.dtype), rtol=1e-6 if a.dtype == np.float32 else 1e-13)
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod"])
@pytest.mark.parametrize("shape, dim", [((5, 6), 0), ((3, 4, 5), 1), ((3, 4, 5), 0), ((3, 4, 5), (0, 1))])
def test_columns_match_numpy_float(op, shape, dim):
    if op == "prod" and isinstance(dim, tuple):
        return                                  # PyTorch's prod takes one dim
    for dtype in (np.float64, np.float32):
        a = RNG.uniform(0.5, 1.5, shape).astype(dtype)
        x = nbgrad.tensor(a, device="cuda")
        before = launches()
        check(op, a, x, dim)
        assert delta(before) == {"columns": 1}


@pytest.mark.parametrize("op", ["sum", "amax", "amin", "prod", "all", "any"])
def test_columns_int64_and_bool(op):
    a = RNG.integers(-3, 4, (4, 2, 5))
    check(op, a, nbgrad.tensor(a, device="cuda"), 1)
    b = a > 0
    if op != "prod":
        check(op, b, nbgrad.tensor(b, device="cuda"), 0)
    if op == "sum":
        assert nbgrad.tensor(b, device="cuda").sum(0).dtype is nbgrad.int64


def test_columns_keepdim_and_non_contiguous_inputs():
    a = RNG.normal(size=(6, 7))
    x = nbgrad.tensor(a, device="cuda")
    before = launches()
    check("sum", a, x, 0, keepdim=True)
    check("mean", a, x, 0, keepdim=True)
    check("sum", a.T, x.t(), 1)                 # a transposed matrix's rows are columns in memory
    check("amax", a[1:, 2:6], x[1:, 2:6], 0)    # a slice: offset, row stride 7
    assert delta(before) == {"columns": 4}
    check("sum", a[:, ::2], x[:, ::2], 0)       # kept dim strided: not the columns kernel, still right
    c = RNG.normal(size=(2, 3, 4, 5))
    before = launches()
    check("sum", c[:, :2], nbgrad.tensor(c, device="cuda")[:, :2], 2)   # two kept outer dims that do not merge
    assert delta(before) == {"columns": 1}
    b = RNG.normal(size=(2, 3, 4))
    y = nbgrad.tensor(b, device="cuda").permute(2, 0, 1)   # (4, 2, 3) with strides (1, 12, 4)
    check("sum", b.transpose(2, 0, 1), y, 1)
    check("mean", b.transpose(2, 0, 1), y, (1, 2), keepdim=True)


def test_nan_propagates_through_columns():
    a = np.array([[1.0, 2.0, np.nan], [np.nan, 5.0, 0.0], [3.0, -1.0, 4.0]])
    x = nbgrad.tensor(a, device="cuda")
    for op, ref in (("amax", np.max), ("amin", np.min), ("sum", np.sum), ("mean", np.mean)):
        np.testing.assert_array_equal(host(getattr(x, op)(0)), ref(a, axis=0))
    np.testing.assert_array_equal(host(x.max(0).values), np.max(a, axis=0))


def test_long_columns_split_into_partials_and_stay_deterministic():
    # few outputs, a long run: chunks of the run in one launch, the partials in a second
    a = RNG.normal(size=(300, 3)).astype(np.float32)
    x = nbgrad.tensor(a, device="cuda")
    before = launches()
    s = host(x.sum(0))
    np.testing.assert_allclose(s, a.astype(np.float64).sum(0).astype(np.float32), rtol=1e-6)
    assert delta(before) == {"columns": 2}
    np.testing.assert_array_equal(host(x.amax(0)), a.max(0))
    np.testing.assert_allclose(host(x.mean(0)), a.astype(np.float64).mean(0).astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(host(x.sum(0)), s)        # same order of additions every run


def test_contiguous_rows_take_one_pass_without_copy():
    a = RNG.normal(size=(4, 5))
    x = nbgrad.tensor(a, device="cuda")
    before = launches()
    check("sum", a, x, 1)
    b = RNG.normal(size=(2, 3, 4))
    check("sum", b, nbgrad.tensor(b, device="cuda"), -1)
    check("amax", b, nbgrad.tensor(b, device="cuda"), (1, 2))
    assert delta(before) == {"rows": 3}
    long = RNG.normal(size=700)                 # one long row: partials, then a second launch
    before = launches()
    np.testing.assert_allclose(host(nbgrad.tensor(long, device="cuda").sum(0)), long.sum(), rtol=1e-12)
    assert delta(before) == {"rows": 2}


def test_empty_reductions_through_the_columns_layout():
    x = nbgrad.zeros(0, 3, device="cuda")
    np.testing.assert_array_equal(host(x.sum(0)), np.zeros(3, np.float32))
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size\."):
        x.amax(0)
    assert host(nbgrad.zeros(3, 0, device="cuda").sum(0)).shape == (0,)
