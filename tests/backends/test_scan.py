"""The CPU scan kernels (cumsum, cumprod): along the last dim a run's accumulator is a
local, read straight from a row-major input of the result's dtype; every route gives the
accumulator's value rounded once to the result's dtype (float64 / int64 accumulation, as
PyTorch's CPU kernel), element for element the sequential loop's."""
import numpy as np
import pytest

from nbgrad.backends.cpu import scan


def _reference(op, x, dim, out_dtype):
    """The sequential loop along dim: a float64 (or int64) accumulator, rounded at each store."""
    acc_dtype = np.float64 if np.dtype(out_dtype).kind == "f" else np.int64
    a = np.moveaxis(np.asarray(x), dim, -1).astype(out_dtype).astype(acc_dtype)
    out = np.empty(a.shape, out_dtype)
    acc = np.full(a.shape[:-1], 1 if op == "prod" else 0, acc_dtype)
    with np.errstate(all="ignore"):
        for j in range(a.shape[-1]):
            acc = acc * a[..., j] if op == "prod" else acc + a[..., j]
            out[..., j] = acc
    return np.moveaxis(out, -1, dim)


def _view(a):
    return (a.reshape(-1) if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(-1), 0, a.shape,
            tuple(s // a.itemsize for s in a.strides))


@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("dtype,out_dtype", [(np.float32, np.float32), (np.float64, np.float64),
                                             (np.int64, np.int64), (np.int32, np.int64), (np.float32, np.float64),
                                             (np.bool_, np.int64)])
def test_scan_along_the_last_dim_is_the_sequential_loop(op, dtype, out_dtype):
    rng = np.random.default_rng(3)
    for shape in [(1,), (7,), (3, 1000), (2, 3, 64)]:
        x = (rng.standard_normal(shape) * (1.01 if op == "prod" else 100)).astype(dtype)
        got = scan.cumulative(op, _view(x), len(shape) - 1, np.dtype(out_dtype)).reshape(shape)
        want = _reference(op, x, len(shape) - 1, out_dtype)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_scan_reads_an_offset_row_major_run_and_a_strided_one_alike(monkeypatch):
    rng = np.random.default_rng(4)
    copied = []
    real_copy = scan.copy
    monkeypatch.setattr(scan, "copy", lambda *a: copied.append(a) or real_copy(*a))
    base = rng.standard_normal(5 + 6 * 40).astype(np.float32)
    base[9] = -0.0
    base[20] = np.nan
    direct = scan.cumulative("sum", (base, 5, (6, 40), (40, 1)), 1, np.dtype(np.float32))
    want = _reference("sum", base[5:].reshape(6, 40), 1, np.float32).reshape(-1)
    np.testing.assert_array_equal(direct.view(np.uint8), want.view(np.uint8))
    assert not copied                                       # read in place, no copy first
    assert np.isnan(direct[15:40]).all() and not np.isnan(direct[40:]).any()    # a NaN ends only its row
    # a transposed view takes the copy first: the same values as its row-major copy
    t = rng.standard_normal((40, 6)).astype(np.float32)
    strided = scan.cumulative("sum", (t.reshape(-1), 0, (6, 40), (1, 6)), 1, np.dtype(np.float32))
    np.testing.assert_array_equal(strided, _reference("sum", t.T, 1, np.float32).reshape(-1))
    assert len(copied) == 1
    # size-1 dims may have any stride; the buffer beyond the run is not read
    odd = scan.cumulative("prod", (base, 5, (1, 40), (999, 1)), 1, np.dtype(np.float32))
    np.testing.assert_array_equal(odd, _reference("prod", base[5:45].reshape(1, 40), 1, np.float32).reshape(-1))
    assert len(copied) == 1


def test_scan_of_a_zero_dim_and_over_an_inner_dim():
    x = np.array([-0.0], np.float32)
    got = scan.cumulative("sum", (x, 0, (), ()), 0, np.dtype(np.float32))
    assert got[0] == 0 and not np.signbit(got[0])          # 0 + -0.0, as PyTorch's accumulator
    rng = np.random.default_rng(5)
    y = rng.standard_normal((4, 9, 3)).astype(np.float32)
    got = scan.cumulative("sum", _view(y), 1, np.dtype(np.float32)).reshape(y.shape)
    np.testing.assert_array_equal(got, _reference("sum", y, 1, np.float32))
