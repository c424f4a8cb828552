"""The CPU backend against numpy: every contract function, on many view geometries.

Views are built by hand as (buf, offset, shape, strides) so that offsets,
zero (broadcast) strides, transposes and steps are all exercised; the
reference value of a view is read element by element with numpy indexing,
independent of the backend's own to_numpy.
"""
import math

import numpy as np
import pytest

from nbgrad.backends import cpu as B

FLOATS = [np.float32, np.float64]
INTS = [np.int32, np.int64]
ALL_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.int8, np.int16, np.uint8]


# --------------------------------------------------------------------------- #
# View construction and reading

def c_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def dense(view):
    """The values of a view as a fresh C-contiguous numpy array (no backend code)."""
    buf, off, shape, strides = view
    shape = tuple(shape)
    if math.prod(shape) == 0:
        return np.empty(shape, dtype=buf.dtype)
    pos = np.full(shape, off, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        idx_shape = [1] * len(shape)
        idx_shape[d] = n
        pos = pos + (np.arange(n) * s).reshape(idx_shape)
    return buf[pos]


def random_values(rng, n, dtype, low=-3.0, high=3.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        lo, hi = (0, 7) if dtype.kind == "u" else (-6, 7)
        return rng.integers(lo, hi, size=n).astype(dtype)
    return rng.uniform(low, high, size=n).astype(dtype)


def make_view(rng, shape, dtype, kind, low=-3.0, high=3.0):
    """A view of `shape` with geometry `kind`, over a buffer with junk around it."""
    shape = tuple(shape)
    nd = len(shape)
    if kind == "contiguous":
        strides, extent, off = c_strides(shape), math.prod(shape), 3
    elif kind == "transposed":
        rev = shape[::-1]
        strides = c_strides(rev)[::-1]
        extent, off = math.prod(shape), 2
    elif kind == "sliced":
        big = tuple(2 * n + 1 for n in shape)
        strides = tuple(2 * s for s in c_strides(big))
        extent, off = math.prod(big), 1 + sum(c_strides(big))
    elif kind == "broadcast":
        # dim 0 (and every other even dim) broadcast with stride 0
        sub = tuple(1 if d % 2 == 0 else n for d, n in enumerate(shape))
        base = c_strides(sub)
        strides = tuple(0 if d % 2 == 0 else s for d, s in enumerate(base))
        extent, off = math.prod(sub), 4
    else:
        raise ValueError(kind)
    buf = random_values(rng, off + extent + 5, dtype, low, high)
    return (buf, off, shape, tuple(strides))


GEOMETRIES = ["contiguous", "transposed", "sliced", "broadcast"]
SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4), (1, 4, 1), (2, 0, 3)]


def as_array(buf, shape):
    return np.asarray(buf).reshape(shape)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# --------------------------------------------------------------------------- #
# memory: empty, full, arange, to_numpy, from_numpy

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_empty_and_full(dtype):
    e = B.empty(7, np.dtype(dtype))
    assert e.shape == (7,) and e.dtype == dtype
    f = B.full(5, np.dtype(dtype), 3)
    assert f.dtype == dtype and f.flags.c_contiguous
    np.testing.assert_array_equal(f, np.full(5, 3, dtype=dtype))
    assert B.full(0, np.dtype(dtype), 1).shape == (0,)


def test_full_casts():
    np.testing.assert_array_equal(B.full(3, np.dtype(np.int64), -2.7), [-2, -2, -2])
    np.testing.assert_array_equal(B.full(2, np.dtype(np.bool_), 0.5), [True, True])
    np.testing.assert_array_equal(B.full(2, np.dtype(np.bool_), 0), [False, False])
    assert np.isnan(B.full(2, np.dtype(np.float32), float("nan"))).all()
    np.testing.assert_array_equal(B.full(2, np.dtype(np.float64), True), [1.0, 1.0])


def test_arange():
    np.testing.assert_array_equal(B.arange(5, 2, 3, np.dtype(np.int64)), [2, 5, 8, 11, 14])
    np.testing.assert_array_equal(B.arange(4, 3, -1, np.dtype(np.int32)), [3, 2, 1, 0])
    got = B.arange(10, 0.0, 0.1, np.dtype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (np.arange(10) * 0.1).astype(np.float32))
    assert B.arange(0, 0, 1, np.dtype(np.float64)).shape == (0,)


def test_to_numpy_aliases_and_views():
    buf = np.arange(20, dtype=np.float32)
    arr = B.to_numpy((buf, 2, (3, 2), (4, 1)))
    np.testing.assert_array_equal(arr, [[2, 3], [6, 7], [10, 11]])
    arr[1, 1] = -5
    assert buf[7] == -5
    bc = B.to_numpy((buf, 1, (2, 3), (0, 2)))
    np.testing.assert_array_equal(bc, [[1, 3, 5], [1, 3, 5]])
    zero_d = B.to_numpy((buf, 9, (), ()))
    assert zero_d.shape == () and zero_d == 9
    zero_d[()] = 100
    assert buf[9] == 100
    assert B.to_numpy((buf, 20, (0, 3), (3, 1))).shape == (0, 3)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_from_numpy_aliases(dtype):
    a = np.zeros((4, 6), dtype=dtype)
    for arr in (a, a.T, a[1::2, ::3], a[2], a[1, 2, ...]):
        buf, off, strides = B.from_numpy(arr)
        assert buf.ndim == 1 and buf.dtype == arr.dtype
        view = (buf, off, arr.shape, strides)
        np.testing.assert_array_equal(dense(view), arr)
        if arr.size:
            # writing through the buffer shows in the array, and back
            first = tuple(0 for _ in arr.shape)
            buf[off] = 1
            assert arr[first] == 1
            arr[first] = 0
            assert buf[off] == 0
        back = B.to_numpy(view)
        assert np.shares_memory(back, arr) or arr.size == 0


def test_from_numpy_strides_empty_and_0d():
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    buf, off, strides = B.from_numpy(a.transpose(2, 0, 1)[:, 1:, ::2])
    assert strides == (1, 12, 8)
    assert dense((buf, off, (4, 1, 2), strides)).tolist() == a.transpose(2, 0, 1)[:, 1:, ::2].tolist()
    buf, off, strides = B.from_numpy(np.zeros((0, 3), np.float32))
    assert buf.size == 0 and strides == (3, 1)
    buf, off, strides = B.from_numpy(np.array(2.5))
    assert strides == () and buf[off] == 2.5


def test_from_numpy_rejects_negative_strides_and_byteswap():
    msg = ("At least one stride in the given numpy array is negative, and tensors with "
           "negative strides are not currently supported. (You can probably work around "
           "this by making a copy of your array  with array.copy().)")
    with pytest.raises(ValueError) as err:
        B.from_numpy(np.arange(5.0)[::-1])
    assert msg in str(err.value)
    with pytest.raises(ValueError):
        B.from_numpy(np.arange(5.0).astype(">f8"))
    with pytest.raises(TypeError):
        B.from_numpy(np.array(["a"]))


# --------------------------------------------------------------------------- #
# copy and fill

@pytest.mark.parametrize("src_dtype", ALL_DTYPES)
@pytest.mark.parametrize("dst_dtype", ALL_DTYPES)
def test_copy_casts_between_dtypes(src_dtype, dst_dtype):
    src = np.array([0, 1, 2, 3, 5, 0, 1, 4], dtype=src_dtype)
    dst = np.zeros(8, dtype=dst_dtype)
    B.copy((src, 0, (8,), (1,)), (dst, 0, (8,), (1,)))
    np.testing.assert_array_equal(dst, src.astype(dst_dtype))


def test_copy_cast_rules():
    src = np.array([-1.7, -0.5, 0.0, 0.5, 2.9, np.nan, -0.0], dtype=np.float64)
    dst = np.zeros(6, dtype=np.int32)
    B.copy((src, 0, (6,), (1,)), (dst, 0, (6,), (1,)))
    assert dst[:5].tolist() == [-1, 0, 0, 0, 2]
    b = np.zeros(7, dtype=np.bool_)
    B.copy((src, 0, (7,), (1,)), (b, 0, (7,), (1,)))
    assert b.tolist() == [True, True, False, True, True, True, False]
    ints = np.array([0, -3, 7], dtype=np.int64)
    b3 = np.zeros(3, dtype=np.bool_)
    B.copy((ints, 0, (3,), (1,)), (b3, 0, (3,), (1,)))
    assert b3.tolist() == [False, True, True]
    f = np.zeros(3, dtype=np.float32)
    B.copy((np.array([True, False, True]), 0, (3,), (1,)), (f, 0, (3,), (1,)))
    assert f.tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("shape", SHAPES + [(70, 45), (3, 40, 33)])
@pytest.mark.parametrize("src_kind", GEOMETRIES)
@pytest.mark.parametrize("dst_kind", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_copy_geometries(rng, shape, src_kind, dst_kind, dtype):
    src = make_view(rng, shape, dtype, src_kind)
    dst = make_view(rng, shape, dtype, dst_kind)
    before = dst[0].copy()
    B.copy(src, dst)
    np.testing.assert_array_equal(dense(dst), dense(src))
    # nothing outside the destination view was touched
    touched = np.zeros(dst[0].size, dtype=bool)
    if math.prod(shape):
        touched[dense((np.arange(dst[0].size), dst[1], dst[2], dst[3])).ravel()] = True
    np.testing.assert_array_equal(dst[0][~touched], before[~touched])


def test_copy_transpose_blocked_with_cast(rng):
    src = make_view(rng, (100, 67), np.float64, "transposed")
    dst = (np.zeros(100 * 67, np.float32), 0, (100, 67), (67, 1))
    B.copy(src, dst)
    np.testing.assert_array_equal(dense(dst), dense(src).astype(np.float32))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.uint8])
def test_fill(rng, shape, kind, dtype):
    dst = make_view(rng, shape, dtype, kind)
    before = dst[0].copy()
    B.fill(dst, 1)
    np.testing.assert_array_equal(dense(dst), np.ones(shape, dtype=dtype))
    touched = np.zeros(dst[0].size, dtype=bool)
    if math.prod(shape):
        touched[dense((np.arange(dst[0].size), dst[1], dst[2], dst[3])).ravel()] = True
    np.testing.assert_array_equal(dst[0][~touched], before[~touched])


def test_fill_casts():
    buf = np.zeros(4, np.int64)
    B.fill((buf, 1, (2,), (2,)), -3.9)
    assert buf.tolist() == [0, -3, 0, -3]
    b = np.zeros(3, np.bool_)
    B.fill((b, 0, (3,), (1,)), 0.1)
    assert b.all()


# --------------------------------------------------------------------------- #
# unary

def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _erfinv(x):
    from scipy.special import erfinv
    return erfinv(np.asarray(x, dtype=np.float64))


def _scipy(name, *lead):
    def reference(*args):
        import scipy.special
        return getattr(scipy.special, name)(*lead, *[np.asarray(a, dtype=np.float64) for a in args])
    return reference


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x.astype(np.float64)))


UNARY_REFERENCE = {
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "exp2": np.exp2, "log": np.log,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "sigmoid": _sigmoid,
    "relu": lambda x: np.where((x > 0) | np.isnan(x), x, 0),
    "sign": lambda x: np.where(np.isnan(x), 0, np.sign(x)) if x.dtype.kind == "f" else np.sign(x),
    "floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc,
    "reciprocal": lambda x: 1 / x, "erf": _erf, "square": lambda x: x * x,
    "logical_not": np.logical_not, "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite, "bitwise_not": np.invert,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "erfc": _erfc, "erfinv": _erfinv,
    # the special functions (backends/_shared/special.py)
    "lgamma": _scipy("gammaln"), "digamma": _scipy("psi"), "trigamma": _scipy("polygamma", 1),
    "i0": _scipy("i0"), "i0e": _scipy("i0e"), "i1": _scipy("i1"), "i1e": _scipy("i1e"),
    "ndtri": _scipy("ndtri"), "sinc": np.sinc, "erfcx": _scipy("erfcx"), "log_ndtr": _scipy("log_ndtr"),
    # torch.special's Bessel and Airy functions (backends/_shared/special_more.py)
    "bessel_j0": _scipy("j0"), "bessel_j1": _scipy("j1"), "bessel_y0": _scipy("y0"), "bessel_y1": _scipy("y1"),
    "modified_bessel_i0": _scipy("i0"), "modified_bessel_i1": _scipy("i1"), "modified_bessel_k0": _scipy("k0"),
    "modified_bessel_k1": _scipy("k1"), "scaled_modified_bessel_k0": _scipy("k0e"),
    "scaled_modified_bessel_k1": _scipy("k1e"), "spherical_bessel_j0": _scipy("spherical_jn", 0),
    "airy_ai": lambda x: _scipy("airy")(x)[0],
}
# PyTorch's algorithm's own accuracy, (float32, float64): its trigamma is six shifts, then
# four terms of the series (5e-10 relative at x = 1.5, as torch.polygamma(1, x) gives); its
# float versions compute in float (pi * x in float near the negative poles)
_ALGORITHM_RTOL = {"trigamma": (1e-4, 1e-8), "polygamma": (1e-4, 1e-8), "digamma": (1e-4, 0),
                   # (PyTorch's airy_ai below -2.09 drops Cephes' implicit leading 1 of two
                   # denominators: 3e-6 off, absolutely)
                   "airy_ai": (1e-5, 1e-5),
                   # (Cephes' j0, j1, y0, y1 as PyTorch ports them: 2e-11 from SciPy's)
                   **dict.fromkeys(("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"), (2e-6, 1e-10))}
BOOL_RESULT = {"logical_not", "isnan", "isinf", "isfinite"}
DOMAIN = {
    "log": (0.1, 5), "log2": (0.1, 5), "log10": (0.1, 5), "sqrt": (0.1, 5),
    "rsqrt": (0.1, 5), "log1p": (-0.9, 5), "asin": (-0.99, 0.99), "acos": (-0.99, 0.99),
    "reciprocal": (0.25, 4), "acosh": (1.1, 5), "atanh": (-0.95, 0.95), "erfinv": (-0.95, 0.95),
    "ndtri": (0.05, 0.95),
}
FLOAT_UNARY = sorted(set(UNARY_REFERENCE) - {"bitwise_not"})
INT_UNARY = ["neg", "abs", "sign", "square", "relu", "floor", "ceil", "round", "trunc",
             "bitwise_not", "logical_not", "isnan", "isinf", "isfinite"]


def check_unary(op, view, out_dtype):
    got = B.unary(op, view, np.dtype(out_dtype))
    assert got.dtype == out_dtype and got.ndim == 1
    x = dense(view)
    with np.errstate(all="ignore"):
        want = np.asarray(UNARY_REFERENCE[op](x)).astype(out_dtype)
    got = as_array(got, x.shape)
    if np.dtype(out_dtype).kind == "f":
        rtol = 2e-6 if out_dtype == np.float32 else 1e-13
        rtol = max(rtol, _ALGORITHM_RTOL.get(op, (0, 0))[out_dtype == np.float64])
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def test_unary_op_set_matches_contract():
    assert isinstance(B.UNARY_OPS, frozenset)
    assert B.UNARY_OPS == set(UNARY_REFERENCE)


@pytest.mark.parametrize("op", FLOAT_UNARY)
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_float(rng, op, dtype):
    low, high = DOMAIN.get(op, (-3, 3))
    out_dtype = np.bool_ if op in BOOL_RESULT else dtype
    for kind in GEOMETRIES:
        for shape in [(), (0,), (7,), (3, 5), (2, 3, 4)]:
            check_unary(op, make_view(rng, shape, dtype, kind, low, high), out_dtype)


@pytest.mark.parametrize("op", INT_UNARY)
@pytest.mark.parametrize("dtype", INTS)
def test_unary_int(rng, op, dtype):
    out_dtype = np.bool_ if op in BOOL_RESULT else dtype
    for kind in ["contiguous", "transposed"]:
        check_unary(op, make_view(rng, (3, 5), dtype, kind), out_dtype)


@pytest.mark.parametrize("op", ["logical_not", "bitwise_not", "isnan", "isinf", "isfinite"])
def test_unary_bool(rng, op):
    view = make_view(rng, (4, 3), np.bool_, "sliced")
    got = as_array(B.unary(op, view, np.dtype(np.bool_)), (4, 3))
    x = dense(view)
    want = {"logical_not": ~x, "bitwise_not": ~x, "isnan": np.zeros_like(x),
            "isinf": np.zeros_like(x), "isfinite": np.ones_like(x)}[op]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_special_values(dtype):
    x = np.array([-1e4, -1000.0, -0.0, 0.0, 1000.0, 1e4, np.inf, -np.inf, np.nan], dtype=dtype)
    view = (x, 0, (x.size,), (1,))
    sig = B.unary("sigmoid", view, np.dtype(dtype))
    np.testing.assert_array_equal(sig[:6], [0, 0, 0.5, 0.5, 1, 1])
    np.testing.assert_array_equal(sig[6:8], [1, 0])
    assert np.isnan(sig[8])
    th = B.unary("tanh", view, np.dtype(dtype))
    np.testing.assert_array_equal(th[[0, 1, 4, 5, 6, 7]], [-1, -1, 1, 1, 1, -1])
    sg = B.unary("sign", view, np.dtype(dtype))
    np.testing.assert_array_equal(sg, [-1, -1, 0, 0, 1, 1, 1, -1, 0])
    relu = B.unary("relu", view, np.dtype(dtype))
    np.testing.assert_array_equal(relu[:8], [0, 0, 0, 0, 1000, 1e4, np.inf, 0])
    assert np.isnan(relu[8])
    assert B.unary("isnan", view, np.dtype(np.bool_)).tolist() == [False] * 8 + [True]
    assert B.unary("isinf", view, np.dtype(np.bool_)).tolist() == [False] * 6 + [True, True, False]
    assert B.unary("isfinite", view, np.dtype(np.bool_)).tolist() == [True] * 6 + [False] * 3
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5], dtype=dtype)
    np.testing.assert_array_equal(B.unary("round", (halves, 0, (5,), (1,)), np.dtype(dtype)),
                                  [0, 2, 2, -0.0, -2])
    zeros = np.array([0.0, -0.0, -1.0], dtype=dtype)
    np.testing.assert_array_equal(B.unary("reciprocal", (zeros, 0, (2,), (1,)), np.dtype(dtype)),
                                  [np.inf, -np.inf])
    assert np.isnan(B.unary("log", (zeros, 2, (1,), (1,)), np.dtype(dtype))[0])


# --------------------------------------------------------------------------- #
# binary and where

def _floordiv(a, b):
    return np.floor_divide(a, b)


BINARY_REFERENCE = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": _floordiv, "remainder": np.remainder, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2, "hypot": np.hypot,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "tanh_backward": lambda g, y: g * (1 - y * y),
    "sigmoid_backward": lambda g, y: g * y * (1 - y),
    "relu_backward": lambda g, x: np.where(x > 0, g, 0),
    "polygamma": lambda n, x: _scipy("polygamma")(np.trunc(n), x),
    "zeta": _scipy("zeta"),
    "igamma": _scipy("gammainc"), "igammac": _scipy("gammaincc"),
}


def _orthogonal(first, shifted=False, step=lambda x, k, p, q: 2 * x * q - p):
    """p_n(x) of the order n truncated (0 below 0) by its recurrence from p_0 = 1, p_1 = first(x)."""
    def reference(x, n):
        x = np.asarray(x, np.float64)
        x = 2 * x - 1 if shifted else x
        n = np.trunc(np.asarray(n, np.float64))
        p, q = np.ones_like(x), first(x)
        out = np.where(n == 0, p, np.where(n == 1, q, 0.0))
        for k in range(1, int(max(n.max(initial=0), 1))):
            p, q = q, step(x, k, p, q)
            out = np.where(n == k + 1, q, out)
        return out
    return reference


BINARY_REFERENCE.update({
    "chebyshev_polynomial_t": _orthogonal(lambda x: x), "chebyshev_polynomial_u": _orthogonal(lambda x: 2 * x),
    "chebyshev_polynomial_v": _orthogonal(lambda x: 2 * x - 1), "chebyshev_polynomial_w": _orthogonal(lambda x: 2 * x + 1),
    "shifted_chebyshev_polynomial_t": _orthogonal(lambda x: x, True),
    "shifted_chebyshev_polynomial_u": _orthogonal(lambda x: 2 * x, True),
    "shifted_chebyshev_polynomial_v": _orthogonal(lambda x: 2 * x - 1, True),
    "shifted_chebyshev_polynomial_w": _orthogonal(lambda x: 2 * x + 1, True),
    "hermite_polynomial_h": _orthogonal(lambda x: 2 * x, step=lambda x, k, p, q: 2 * x * q - 2 * k * p),
    "hermite_polynomial_he": _orthogonal(lambda x: x, step=lambda x, k, p, q: x * q - k * p),
    "laguerre_polynomial_l": _orthogonal(lambda x: 1 - x, step=lambda x, k, p, q: ((2 * k + 1 - x) * q - k * p) / (k + 1)),
    "legendre_polynomial_p": _orthogonal(lambda x: x, step=lambda x, k, p, q: ((2 * k + 1) * x * q - k * p) / (k + 1)),
})
_SPECIAL_BINARY = {"polygamma", "zeta", "igamma", "igammac", *(op for op in BINARY_REFERENCE if "polynomial" in op)}
BOOL_BINARY = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
FLOAT_BINARY = sorted(set(BINARY_REFERENCE) - {"bitwise_and", "bitwise_or", "bitwise_xor"})
INT_BINARY = sorted(set(BINARY_REFERENCE) - {"div", "atan2", "tanh_backward", "sigmoid_backward", "pow"}
                    - _SPECIAL_BINARY)
BOOL_OK_BINARY = ["eq", "ne", "logical_and", "logical_or", "logical_xor", "bitwise_and",
                  "bitwise_or", "bitwise_xor", "maximum", "minimum", "add", "mul"]


def binary_inputs(rng, op, dtype, shape, kind_a, kind_b):
    low, high = (0.5, 2.0) if op == "pow" else (-3, 3)
    a_low, a_high = {"polygamma": (0, 4), "zeta": (1.5, 4)}.get(op, (low, high))
    if op in ("polygamma", "zeta"):
        low, high = 0.5, 3
    a = make_view(rng, shape, dtype, kind_a, a_low, a_high)
    b = make_view(rng, shape, dtype, kind_b, low, high)
    if op in ("floordiv", "remainder") and np.dtype(dtype).kind in "iu":
        b[0][b[0] == 0] = 3  # integer division by zero is undefined here
    return a, b


def check_binary(op, a, b, out_dtype):
    shape = a[2]
    got = B.binary(op, a, b, shape, np.dtype(out_dtype))
    assert got.dtype == out_dtype
    x, y = dense(a), dense(b)
    with np.errstate(all="ignore"):
        want = np.asarray(BINARY_REFERENCE[op](x, y)).astype(out_dtype)
    got = as_array(got, shape)
    if np.dtype(out_dtype).kind == "f":
        rtol = 2e-6 if out_dtype == np.float32 else 1e-13
        rtol = max(rtol, _ALGORITHM_RTOL.get(op, (0, 0))[out_dtype == np.float64])
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


def test_binary_op_set_matches_contract():
    assert isinstance(B.BINARY_OPS, frozenset)
    assert B.BINARY_OPS == set(BINARY_REFERENCE)


PAIRS = [("contiguous", "contiguous"), ("transposed", "contiguous"), ("sliced", "broadcast"),
         ("broadcast", "transposed")]


@pytest.mark.parametrize("op", FLOAT_BINARY)
@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_float(rng, op, dtype):
    out_dtype = np.bool_ if op in BOOL_BINARY else dtype
    for kind_a, kind_b in PAIRS:
        for shape in [(), (0,), (6,), (3, 5), (2, 3, 4)]:
            check_binary(op, *binary_inputs(rng, op, dtype, shape, kind_a, kind_b), out_dtype)


@pytest.mark.parametrize("op", INT_BINARY)
@pytest.mark.parametrize("dtype", INTS)
def test_binary_int(rng, op, dtype):
    out_dtype = np.bool_ if op in BOOL_BINARY else dtype
    for kind_a, kind_b in PAIRS:
        check_binary(op, *binary_inputs(rng, op, dtype, (3, 4), kind_a, kind_b), out_dtype)


@pytest.mark.parametrize("op", BOOL_OK_BINARY)
def test_binary_bool(rng, op):
    a = make_view(rng, (4, 5), np.bool_, "transposed")
    b = make_view(rng, (4, 5), np.bool_, "contiguous")
    got = as_array(B.binary(op, a, b, (4, 5), np.dtype(np.bool_)), (4, 5))
    x, y = dense(a), dense(b)
    want = {"add": x | y, "mul": x & y}.get(op)
    if want is None:
        want = BINARY_REFERENCE[op](x, y).astype(bool)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_scalar_broadcast_paths(rng, dtype):
    a = make_view(rng, (50,), dtype, "contiguous")
    s = (np.array([9.0, 2.5], dtype=dtype), 1, (50,), (0,))
    check_binary("sub", a, s, dtype)
    check_binary("sub", s, a, dtype)
    check_binary("div", s, s, dtype)


def test_binary_special_values():
    f = np.array([1.0, -1.0, 0.0, np.nan, 2.0, -7.0, 7.0], dtype=np.float64)
    g = np.array([0.0, 0.0, 0.0, 1.0, np.nan, 2.0, -2.0], dtype=np.float64)
    fv, gv = (f, 0, (7,), (1,)), (g, 0, (7,), (1,))
    d = B.binary("div", fv, gv, (7,), np.dtype(np.float64))
    assert d[0] == np.inf and d[1] == -np.inf and np.isnan(d[2])
    mx = B.binary("maximum", fv, gv, (7,), np.dtype(np.float64))
    assert np.isnan(mx[3]) and np.isnan(mx[4]) and mx[5] == 2 and mx[6] == 7
    mn = B.binary("minimum", gv, fv, (7,), np.dtype(np.float64))
    assert np.isnan(mn[3]) and np.isnan(mn[4]) and mn[5] == -7
    r = B.binary("remainder", fv, gv, (7,), np.dtype(np.float64))
    assert r[5] == 1.0 and r[6] == -1.0  # sign of the divisor
    ia = np.array([-7, 7, -7, 7], dtype=np.int64)
    ib = np.array([2, -2, -2, 2], dtype=np.int64)
    iv, jv = (ia, 0, (4,), (1,)), (ib, 0, (4,), (1,))
    assert B.binary("remainder", iv, jv, (4,), np.dtype(np.int64)).tolist() == [1, -1, -1, 1]
    assert B.binary("floordiv", iv, jv, (4,), np.dtype(np.int64)).tolist() == [-4, -4, 3, 3]
    rb = B.binary("relu_backward", (np.array([np.inf, 5.0]), 0, (2,), (1,)),
                  (np.array([-1.0, 0.0]), 0, (2,), (1,)), (2,), np.dtype(np.float64))
    assert rb.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_where(rng, dtype):
    for kinds in [("contiguous",) * 3, ("transposed", "broadcast", "sliced"),
                  ("broadcast", "contiguous", "transposed")]:
        for shape in [(), (0, 2), (3, 4), (2, 3, 5)]:
            c = make_view(rng, shape, np.bool_, kinds[0])
            a = make_view(rng, shape, dtype, kinds[1])
            b = make_view(rng, shape, dtype, kinds[2])
            got = B.where(c, a, b, shape, np.dtype(dtype))
            assert got.dtype == dtype
            np.testing.assert_array_equal(as_array(got, shape),
                                          np.where(dense(c), dense(a), dense(b)))


# --------------------------------------------------------------------------- #
# reductions

def _var(x, axis, correction):
    n = math.prod(x.shape[a] for a in axis)
    mean = x.astype(np.float64).mean(axis=axis, keepdims=True)
    ss = ((x - mean) ** 2).sum(axis=axis)
    return ss / max(0, n - correction)


def _logsumexp(x, axis):
    x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    return np.log(np.sum(np.exp(x - m), axis=axis)) + np.squeeze(m, axis=axis)


def _argreduce(x, axis, fn):
    axis = tuple(axis)
    kept = [d for d in range(x.ndim) if d not in axis]
    moved = np.transpose(x, kept + list(axis))
    flat = moved.reshape([x.shape[d] for d in kept] + [-1])
    return fn(flat, axis=-1)


REDUCE_REFERENCE = {
    "sum": lambda x, ax: np.sum(x, axis=ax, dtype=np.float64 if x.dtype.kind == "f" else np.int64),
    "prod": lambda x, ax: np.prod(x, axis=ax, dtype=np.float64 if x.dtype.kind == "f" else np.int64),
    "mean": lambda x, ax: np.mean(x.astype(np.float64), axis=ax),
    "max": np.max, "min": np.min, "amax": np.max, "amin": np.min,
    "all": lambda x, ax: np.all(x, axis=ax), "any": lambda x, ax: np.any(x, axis=ax),
    "var": lambda x, ax: _var(x, ax, 1),
    "logsumexp": _logsumexp,
    "argmax": lambda x, ax: _argreduce(x, ax, np.argmax),
    "argmin": lambda x, ax: _argreduce(x, ax, np.argmin),
}


def reduce_out_dtype(op, dtype):
    if op in ("all", "any"):
        return np.bool_
    if op in ("argmax", "argmin"):
        return np.int64
    if op in ("sum", "prod") and np.dtype(dtype).kind in "biu":
        return np.int64
    return dtype


def check_reduce(op, view, dims, correction=1):
    dtype = view[0].dtype
    out_dtype = reduce_out_dtype(op, dtype)
    x = dense(view)
    got = B.reduce(op, view, dims, np.dtype(out_dtype), correction) if op == "var" else \
        B.reduce(op, view, dims, np.dtype(out_dtype))
    assert got.dtype == out_dtype
    out_shape = tuple(n for d, n in enumerate(x.shape) if d not in dims)
    assert got.size == math.prod(out_shape)
    with np.errstate(all="ignore"):
        want = _var(x, dims, correction) if op == "var" else REDUCE_REFERENCE[op](x, tuple(dims))
    got = as_array(got, out_shape)
    want = np.asarray(want).astype(out_dtype)
    if np.dtype(out_dtype).kind == "f":
        rtol = 1e-5 if out_dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, want)


REDUCE_CASES = [((6,), (0,)), ((3, 4), (0,)), ((3, 4), (1,)), ((3, 4), (0, 1)),
                ((2, 3, 4), (0, 2)), ((2, 3, 4), (1,)), ((2, 3, 4), (1, 2)),
                ((4, 1, 5), (0,)), ((40, 33), (0,)), ((33, 40), (1,)), ((5, 40), (0, 1))]


def test_reduce_op_set_matches_contract():
    assert isinstance(B.REDUCE_OPS, frozenset)
    assert B.REDUCE_OPS == set(REDUCE_REFERENCE)


@pytest.mark.parametrize("op", sorted(REDUCE_REFERENCE))
@pytest.mark.parametrize("dtype", FLOATS)
def test_reduce_float(rng, op, dtype):
    low, high = (0.7, 1.3) if op == "prod" else (-3, 3)
    for kind in GEOMETRIES:
        for shape, dims in REDUCE_CASES:
            view = make_view(rng, shape, dtype, kind, low, high)
            if op in ("argmax", "argmin", "max", "min") and kind == "broadcast":
                continue  # ties everywhere: covered by test_argreduce_ties_and_nan
            check_reduce(op, view, dims)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "amax", "amin", "all", "any",
                                "argmax", "argmin"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_reduce_int_and_bool(rng, op, dtype):
    if dtype == np.bool_ and op in ("argmax", "argmin"):
        pytest.skip("PyTorch has no argmax for bool")
    for kind in ["contiguous", "transposed", "sliced"]:
        for shape, dims in REDUCE_CASES:
            view = make_view(rng, shape, dtype, kind)
            if op == "prod":
                view[0][:] = np.clip(view[0], -2, 2).astype(dtype) if dtype != np.bool_ else view[0]
            check_reduce(op, view, dims)


def test_reduce_0d_and_empty(rng):
    x = (np.array([7.0, 2.5], dtype=np.float32), 1, (), ())
    for op, want in [("sum", 2.5), ("mean", 2.5), ("max", 2.5), ("prod", 2.5),
                     ("logsumexp", 2.5)]:
        got = B.reduce(op, x, (0,), np.dtype(np.float32))
        assert got.tolist() == [want]
    assert B.reduce("argmax", x, (0,), np.dtype(np.int64)).tolist() == [0]
    e = (np.zeros(3, np.float64), 0, (2, 0), (0, 1))
    assert B.reduce("sum", e, (1,), np.dtype(np.float64)).tolist() == [0.0, 0.0]
    assert B.reduce("prod", e, (1,), np.dtype(np.float64)).tolist() == [1.0, 1.0]
    assert np.isnan(B.reduce("mean", e, (1,), np.dtype(np.float64))).all()
    assert B.reduce("logsumexp", e, (1,), np.dtype(np.float64)).tolist() == [-np.inf, -np.inf]
    assert B.reduce("all", e, (1,), np.dtype(np.bool_)).tolist() == [True, True]
    assert B.reduce("any", e, (1,), np.dtype(np.bool_)).tolist() == [False, False]
    assert B.reduce("sum", e, (0,), np.dtype(np.float64)).shape == (0,)
    with pytest.raises(IndexError):
        B.reduce("argmax", e, (1,), np.dtype(np.int64))


def test_reduce_var_correction(rng):
    view = make_view(rng, (4, 6), np.float64, "transposed")
    for correction in (0, 1, 2):
        check_reduce("var", view, (1,), correction)
        check_reduce("var", view, (0, 1), correction)
    one = (np.array([3.0]), 0, (1,), (1,))
    assert np.isnan(B.reduce("var", one, (0,), np.dtype(np.float64))[0])


def test_reduce_nan_propagation():
    x = np.array([1.0, np.nan, 3.0, 5.0, 2.0, 1.0], dtype=np.float32)
    view = (x, 0, (2, 3), (3, 1))
    for op in ("max", "min", "amax", "amin", "sum", "logsumexp"):
        got = B.reduce(op, view, (1,), np.dtype(np.float32))
        assert np.isnan(got[0]) and not np.isnan(got[1]), op
    colview = (x, 0, (3, 2), (1, 3))  # reduce dim 0: strided rows
    got = B.reduce("max", (x, 0, (2, 3), (3, 1)), (0,), np.dtype(np.float32))
    assert got[0] == 5 and np.isnan(got[1]) and got[2] == 3
    got = B.reduce("min", colview, (0,), np.dtype(np.float32))
    assert np.isnan(got[0]) and got[1] == 1


def test_logsumexp_stable():
    x = np.array([1000.0, 1000.0, -np.inf, -np.inf, np.inf, 0.0], dtype=np.float64)
    got = B.reduce("logsumexp", (x, 0, (3, 2), (2, 1)), (1,), np.dtype(np.float64))
    assert got[0] == pytest.approx(1000 + math.log(2))
    assert got[1] == -np.inf and got[2] == np.inf


def test_argreduce_ties_and_nan():
    x = np.array([1.0, 3.0, 3.0, 0.0, np.nan, 5.0, np.nan, 0.0, 0.0], dtype=np.float64)
    view = (x, 0, (3, 3), (3, 1))
    assert B.reduce("argmax", view, (1,), np.dtype(np.int64)).tolist() == [1, 1, 0]
    assert B.reduce("argmin", view, (1,), np.dtype(np.int64)).tolist() == [0, 1, 0]
    assert B.reduce("argmax", view, (0, 1), np.dtype(np.int64)).tolist() == [4]
    assert B.reduce("argmax", view, (0,), np.dtype(np.int64)).tolist() == [2, 1, 1]
    ties = (np.array([2, 2, 2, 2], np.int64), 0, (4,), (1,))
    assert B.reduce("argmin", ties, (0,), np.dtype(np.int64)).tolist() == [0]
    bc = (np.array([4.0]), 0, (3, 5), (0, 0))
    assert B.reduce("argmax", bc, (0, 1), np.dtype(np.int64)).tolist() == [0]


def test_float32_sum_accumulates_accurately():
    rng = np.random.default_rng(0)
    x = rng.random(1 << 22, dtype=np.float32)
    got = B.reduce("sum", (x, 0, (x.size,), (1,)), (0,), np.dtype(np.float32))[0]
    exact = math.fsum(x.astype(np.float64))
    assert abs(got - exact) / exact < 1e-6
    ones = np.ones(1 << 25 >> 3, np.float32)  # 4M ones: a float32 running sum stalls at 2^24
    col = B.reduce("sum", (ones, 0, (1 << 20, 4), (4, 1)), (0,), np.dtype(np.float32))
    assert col.tolist() == [float(1 << 20)] * 4


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_max_with_index(rng, dtype):
    for kind in ["contiguous", "transposed", "sliced"]:
        for shape in [(5,), (3, 4), (2, 3, 40)]:
            view = make_view(rng, shape, dtype, kind)
            x = dense(view)
            for dim in range(len(shape)):
                for is_max in (True, False):
                    values, indices = B.max_with_index(view, dim, is_max)
                    assert values.dtype == dtype and indices.dtype == np.int64
                    out_shape = x.shape[:dim] + x.shape[dim + 1:]
                    fn = np.argmax if is_max else np.argmin
                    want_i = fn(x, axis=dim)
                    np.testing.assert_array_equal(as_array(indices, out_shape), want_i)
                    np.testing.assert_array_equal(
                        as_array(values, out_shape),
                        np.take_along_axis(x, np.expand_dims(want_i, dim), dim).squeeze(dim))
    nan = np.array([1.0, np.nan, 9.0, np.nan])
    values, indices = B.max_with_index((nan, 0, (4,), (1,)), 0, False)
    assert np.isnan(values[0]) and indices.tolist() == [1]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("log", [False, True])
def test_softmax(rng, dtype, log):
    for kind in GEOMETRIES:
        for shape in [(), (0, 3), (5,), (3, 4), (2, 3, 4)]:
            view = make_view(rng, shape, dtype, kind, -30, 30)
            x = dense(view).astype(np.float64)
            for dim in range(max(len(shape), 1)):
                got = B.softmax(view, dim, log)
                assert got.dtype == dtype
                if x.size == 0:
                    assert got.size == 0
                    continue
                if x.ndim:
                    z = x - x.max(axis=dim, keepdims=True)
                    lse = np.log(np.exp(z).sum(axis=dim, keepdims=True))
                    want = z - lse if log else np.exp(z - lse)
                else:
                    want = np.array(0.0 if log else 1.0)
                rtol = 1e-5 if dtype == np.float32 else 1e-12
                np.testing.assert_allclose(as_array(got, shape), want, rtol=rtol, atol=rtol)
    big = np.array([1e4, 0.0, -1e4, -np.inf], dtype=dtype)
    got = B.softmax((big, 0, (4,), (1,)), 0, False)
    np.testing.assert_array_equal(got, [1, 0, 0, 0])
    got = B.softmax((big, 0, (4,), (1,)), 0, True)
    np.testing.assert_array_equal(got, [0, -1e4, -2e4, -np.inf])


# --------------------------------------------------------------------------- #
# matmul

def matmul_operand(rng, batch, rows, cols, dtype, kind):
    shape = tuple(batch) + (rows, cols)
    if kind == "F":
        # last two dims transposed (a transposed C matrix)
        buf = random_values(rng, math.prod(shape) + 3, dtype)
        st = list(c_strides(tuple(batch) + (cols, rows)))
        st[-2], st[-1] = st[-1], st[-2]
        return (buf, 3, shape, tuple(st))
    if kind == "batch_broadcast" and batch:
        buf = random_values(rng, rows * cols + 1, dtype)
        return (buf, 1, shape, (0,) * len(batch) + (cols, 1))
    return make_view(rng, shape, dtype, "sliced" if kind == "sliced" else "contiguous")


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("kinds", [("C", "C"), ("C", "F"), ("F", "C"), ("F", "F"),
                                   ("sliced", "C"), ("F", "sliced"),
                                   ("batch_broadcast", "C"), ("C", "batch_broadcast")])
def test_matmul(rng, dtype, kinds):
    for batch, n, k, m in [((), 3, 4, 5), ((2,), 1, 3, 4), ((2, 3), 4, 1, 2), ((), 5, 7, 1),
                           ((3,), 17, 9, 11)]:
        a = matmul_operand(rng, batch, n, k, dtype, kinds[0])
        b = matmul_operand(rng, batch, k, m, dtype, kinds[1])
        got = B.matmul(a, b, np.dtype(dtype))
        assert got.dtype == dtype
        want = np.matmul(dense(a).astype(np.float64), dense(b).astype(np.float64)).astype(dtype)
        rtol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(as_array(got, tuple(batch) + (n, m)), want, rtol=rtol, atol=10 * rtol)


def test_matmul_degenerate():
    a = (np.zeros(0, np.float32), 0, (3, 0), (0, 1))
    b = (np.zeros(0, np.float32), 0, (0, 2), (2, 1))
    assert B.matmul(a, b, np.dtype(np.float32)).tolist() == [0.0] * 6
    e = (np.zeros(0, np.float64), 0, (0, 4), (4, 1))
    f = (np.ones(8, np.float64), 0, (4, 2), (2, 1))
    assert B.matmul(e, f, np.dtype(np.float64)).shape == (0,)


# --------------------------------------------------------------------------- #
# take / put

@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_take_put(dtype):
    buf = np.arange(10).astype(dtype)
    offs = np.array([3, 0, 9, 3], dtype=np.int64)
    np.testing.assert_array_equal(B.take(buf, offs), buf[offs])
    assert B.take(buf, np.zeros(0, np.int64)).shape == (0,)
    vals = np.array([1, 2, 3, 4]).astype(dtype)
    dst = np.zeros(10, dtype)
    B.put(dst, offs, vals, False)
    assert dst[3] == vals[3] and dst[0] == vals[1] and dst[9] == vals[2]
    dst = np.zeros(10, dtype)
    B.put(dst, offs, vals, True)
    want = np.zeros(10, dtype)
    np.add.at(want, offs, vals)
    np.testing.assert_array_equal(dst, want)


# --------------------------------------------------------------------------- #
# random

def test_random_reproducible_and_in_range():
    B.manual_seed(5)
    u1 = B.uniform(1000, np.dtype(np.float32), -2, 3)
    n1 = B.normal(2000, np.dtype(np.float64), 1.5, 2.0)
    r1 = B.randint(500, np.dtype(np.int64), -3, 4)
    p1 = B.randperm(50)
    B.manual_seed(5)
    np.testing.assert_array_equal(B.uniform(1000, np.dtype(np.float32), -2, 3), u1)
    np.testing.assert_array_equal(B.normal(2000, np.dtype(np.float64), 1.5, 2.0), n1)
    np.testing.assert_array_equal(B.randint(500, np.dtype(np.int64), -3, 4), r1)
    np.testing.assert_array_equal(B.randperm(50), p1)
    assert u1.dtype == np.float32 and u1.min() >= -2 and u1.max() < 3
    assert abs(n1.mean() - 1.5) < 0.2 and abs(n1.std() - 2.0) < 0.2
    assert r1.min() == -3 and r1.max() == 3
    assert p1.dtype == np.int64 and sorted(p1.tolist()) == list(range(50))
    B.manual_seed(6)
    assert not np.array_equal(B.uniform(1000, np.dtype(np.float32), -2, 3), u1)
    assert B.uniform(0, np.dtype(np.float64), 0, 1).shape == (0,)
    assert B.randperm(0).shape == (0,)
