"""The vectorisable exp/log/tanh/sigmoid of the CPU elementwise kernels, against NumPy.

Inputs cover the whole float line: random bit patterns (every exponent,
denormals, NaNs, infinities), a dense sweep of the ranges where the
formulas change (overflow and underflow edges, the tanh switch at 0.625),
and the special values.  The reference is NumPy in a wider type (float64 for
float32, long double for float64) rounded once; the bound is a few ulp of
the reference, measured at the result's dtype (denormal results included).
"""
import numpy as np
import pytest

from nbgrad.backends import cpu as B

# ulp bounds per (op, dtype); measured maxima are 1-2 ulp.
MAX_ULP = {"exp": 2, "log": 2, "tanh": 3, "sigmoid": 3}

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.625, -0.625, 0.5, 2.0, 1e-8, -1e-8]


def references(op, x):
    with np.errstate(all="ignore"):
        wide = x.astype(np.longdouble if x.dtype == np.float64 else np.float64)
        if op == "exp":
            r = np.exp(wide)
        elif op == "log":
            r = np.log(wide)
        elif op == "tanh":
            r = np.tanh(wide)
        else:
            r = np.where(wide >= 0, 1 / (1 + np.exp(-wide)), np.exp(wide) / (1 + np.exp(wide)))
    return r


def inputs(dtype):
    rng = np.random.default_rng(1234)
    int_type = np.uint32 if dtype == np.float32 else np.uint64
    bits = rng.integers(0, np.iinfo(int_type).max, 200_000, dtype=int_type, endpoint=True)
    random_bits = bits.view(dtype)
    tiny = np.finfo(dtype).tiny
    edges = [np.linspace(-120, 100, 20_001), np.linspace(-760, 720, 20_001),
             np.linspace(-2, 2, 20_001), np.geomspace(1e-300, 1e300, 5_001),
             np.geomspace(float(tiny) / 2**20, float(tiny) * 4, 2_001)]
    with np.errstate(all="ignore"):
        dense = np.concatenate([e.astype(dtype) for e in edges])
    return np.concatenate([random_bits, dense, -dense, np.array(SPECIALS, dtype=dtype)])


def ulp_errors(got, ref, dtype):
    """|got - ref| in units of the spacing of ref rounded to dtype; NaN/inf must match exactly."""
    with np.errstate(all="ignore"):
        rounded = ref.astype(dtype)
        finite = np.isfinite(rounded)
        spacing = np.spacing(np.abs(rounded[finite])).astype(ref.dtype)
        err = np.abs(got[finite].astype(ref.dtype) - ref[finite]) / spacing
    same_special = (np.isnan(got[~finite]) & np.isnan(rounded[~finite])) | (got[~finite] == rounded[~finite])
    return err, finite, same_special


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["exp", "log", "tanh", "sigmoid"])
def test_fast_transcendental_within_ulp_bound(op, dtype):
    x = inputs(dtype)
    got = B.unary(op, (x, 0, (x.size,), (1,)), np.dtype(dtype))
    assert got.dtype == dtype
    err, finite, same_special = ulp_errors(got, references(op, x), dtype)
    assert same_special.all(), (op, x[~finite][~same_special][:10], got[~finite][~same_special][:10])
    worst = int(np.argmax(err))
    assert err[worst] <= MAX_ULP[op], (op, dtype, x[finite][worst], got[finite][worst], err[worst])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_math_special_values(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 1000.0, -1000.0], dtype=dtype)
    v = (x, 0, (x.size,), (1,))
    with np.errstate(all="ignore"):
        for op, want in [("exp", [np.nan, np.inf, 0, 1, 1, np.exp(-1), np.inf, 0]),
                         ("log", [np.nan, np.inf, np.nan, -np.inf, -np.inf, np.nan, np.log(1000.0), np.nan]),
                         ("tanh", [np.nan, 1, -1, 0, -0.0, np.tanh(-1), 1, -1]),
                         ("sigmoid", [np.nan, 1, 0, 0.5, 0.5, 1 / (1 + np.e), 1, 0])]:
            np.testing.assert_allclose(B.unary(op, v, np.dtype(dtype)), np.array(want, dtype=dtype),
                                       rtol=4 * np.finfo(dtype).eps, err_msg=op)
    # the sign of zero survives tanh, as in libm
    t = B.unary("tanh", v, np.dtype(dtype))
    assert np.signbit(t[4]) and not np.signbit(t[3])


def test_strided_and_broadcast_inputs_use_the_same_formulas():
    x = np.linspace(-20, 20, 64, dtype=np.float32)
    view = (x, 1, (3, 10), (20, 2))   # strided rows
    got = B.unary("tanh", view, np.dtype(np.float32))
    want = np.tanh(np.lib.stride_tricks.as_strided(x[1:], (3, 10), (80, 8))).ravel()
    np.testing.assert_allclose(got, want, rtol=4e-7, atol=1e-7)


# -- the block passes of softmax and cross-entropy: each row's value as the per-row helpers give it

from numba import njit  # noqa: E402

from nbgrad.backends._shared import fast_math as FM  # noqa: E402


@njit(cache=False)
def _blocks(v, b, n, lanes):
    acc = np.empty(lanes, np.float32)
    tmp = np.empty(lanes, np.float32)
    mx = np.empty(b, np.float32)
    sh = np.empty(b * n, np.float32)
    e = np.empty(b * n + 3, np.float32)
    sums = np.empty(b, np.float32)
    FM.block_max_f32(v, 2, b, n, mx)
    FM.block_exp_shifted_f32(v, 2, b, n, mx, sh, e, 3)
    FM.block_sum(e, 3, b, n, lanes, acc, sums)
    # the same statistics a row at a time
    mx1 = np.empty(b, np.float32)
    e1 = np.empty(b * n + 3, np.float32)
    sums1 = np.empty(b, np.float32)
    for i in range(b):
        p = 2 + i * n
        mx1[i] = FM.reduce_all_max_f32(v, p, n) if n < 256 else FM.long_max_f32(v, p, n)
        for j in range(n):
            e1[3 + i * n + j] = FM.sleef_expf(v[p + j] - mx1[i])
        sums1[i] = FM.reduce_all_sum(e1, 3 + i * n, n, lanes, acc, tmp)
    return mx, e[3:], sums, mx1, e1[3:], sums1


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_block_passes_give_each_row_the_per_row_bits(lanes):
    rng = np.random.default_rng(lanes)
    for n in list(range(1, 40)) + [63, 64, 65, 100, 255, 256, 300]:
        b = 37
        v = (rng.standard_normal(b * n + 2) * 30).astype(np.float32)
        v[2 + 3 * n + n // 2] = np.nan             # a NaN in row 3
        v[2 + 5 * n:2 + 6 * n] = -np.inf           # row 5 all -inf
        v[2 + 7 * n] = -0.0
        v[2 + 9 * n + n - 1] = np.inf
        # row 11: its max a -0.0, then a 0.0 (chains of 16: the -0.0 in the last, the 0.0 in the first)
        v[2 + 11 * n:2 + 12 * n] = -np.abs(v[2 + 11 * n:2 + 12 * n]) - 1
        first, second = (15, 16) if n > 16 else (n // 3, n - 1)
        v[2 + 11 * n + first] = -0.0
        v[2 + 11 * n + second] = 0.0
        got = _blocks(v, b, n, lanes)
        for a, w in zip(got[:3], got[3:]):
            np.testing.assert_array_equal(a.view(np.int32), w.view(np.int32), err_msg=f"n={n}")
        assert np.isnan(got[0][3]) and got[0][5] == -np.inf and got[0][9] == np.inf
        assert got[0][11] == 0 and np.signbit(got[0][11]) == (first != second)


@pytest.mark.parametrize("dtype, lanes", [(np.float32, 8), (np.float32, 16), (np.float32, 32), (np.float64, 4),
                                          (np.float64, 8), (np.float64, 16), (np.float32, 5)])
@pytest.mark.parametrize("stride", [-1, 0, 3, 40])
@pytest.mark.parametrize("square", [False, True])
def test_lane_add_adds_each_lane_in_order(dtype, lanes, stride, square):
    # acc[l] += x[start + k * step + l] (squared) for k in order; stride -1: step = lanes (the
    # vectors one after the other), 0: one vector repeated (a broadcast view's rows)
    @njit(cache=False)
    def run(x, start, count, acc, square, stride):
        FM.lane_add(x, start, count, acc, square, stride)

    rng = np.random.default_rng(lanes + stride)
    count, start = 37, 5
    step = lanes if stride < 0 else stride
    x = (rng.standard_normal(start + count * max(step, lanes) + lanes) * 100).astype(dtype)
    acc = rng.standard_normal(lanes).astype(dtype)
    want = acc.copy()
    for k in range(count):
        v = x[start + k * step:start + k * step + lanes]
        want = (want + (v * v if square else v)).astype(dtype)
    run(x, start, count, acc, square, stride)
    np.testing.assert_array_equal(acc.view(np.uint8), want.view(np.uint8))
    run(x, start, 0, acc, square, stride)              # no vectors: acc unchanged
    np.testing.assert_array_equal(acc.view(np.uint8), want.view(np.uint8))
