"""Elementwise kernels: scalar functions plus the unary, binary and where templates.

STALE-CACHE TRAP (docs/ARCHITECTURE.md, "The on-disk kernel cache"): Numba's
cache key hashes only the file that holds a cached function.  Every scalar
function used by a kernel below lives in THIS file (or would come from
backends/_shared through its digest-keyed cpu_kernel), next to the factories
that compile it into kernels; editing any of them changes this file's stamp and
invalidates its cached kernels.  The op table's generated kernels (fused.py)
import these functions by name into files named by a digest of this file.
Factory-made kernels are cached per pickle of their closure variables, so the
scalar functions are `register_jitable` plain functions (they pickle by name,
the same in every process); tests/backends/test_cpu_kernel_cache.py checks
that two ops from one factory each hit their own cached kernel.

Kernels take 1-D buffers plus int64 arrays for shape and strides (never n-d
arrays), so the number of compiled signatures depends on dtypes only, not on
ndim.  The Python wrappers coalesce dims first and then pick:
  * a contiguous path (a plain 1-D loop LLVM vectorises), with variants where
    one binary operand is a broadcast scalar;
  * a strided path: an odometer over the outer dims around a tight inner loop
    over the last dim.
Large calls are split across threads (see _threads.py): the same nogil
kernels run on disjoint slices of the output (the contiguous range, or the
outermost coalesced dim of the strided path).

exp, log, tanh and sigmoid of float32/float64 use the branch-free
formulations below (range reduction + polynomial, selects for the special
values) rather than libm: there is no SVML here, so np.exp in a loop is a
scalar call, while these vectorise (8 float32 lanes with AVX2).  Their
accuracy against NumPy (a few ulp, incl. overflow, underflow, denormals, NaN,
+-inf) is tested in tests/backends/test_fast_math.py.
"""
import math

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.extending import intrinsic, overload, register_jitable

from ._allocator import new_buffer
from .._shared.geometry import as_index_array, coalesce, contiguous_strides, numel
from ... import _debug
from . import _threads
from ._threads import run_split, worth_splitting
from .strided_copy import copy  # a Python wrapper, not a jitted helper

# register_jitable keeps the plain Python function, which pickles by reference:
# factory closures over it get a cache key that is stable across processes
# (a Dispatcher pickles with a per-process uuid, so closures over one never
# hit the cache).
_scalar = register_jitable(error_model="numpy")
_kernel = njit(cache=True, error_model="numpy", nogil=True)


# --------------------------------------------------------------------------- #
# Vectorisable transcendentals.  Bit casts are LLVM bitcasts (free, and they
# vectorise); the type switch (float32 / float64 / anything else -> NumPy's
# scalar function) happens at compile time through @overload.
#
# The same formulas run as plain Python under NUMBA_DISABLE_JIT=1 (kernels on
# NumPy scalars): the bit casts are then the NumPy views below, bound in place
# of the intrinsics at import, and each `_fast_*` stub's Python body does the
# type switch (Numba compiles the @overload instead, never the body).  Jitted
# code is unchanged.  tests/backends/test_plain_python_kernels.py checks that
# the Python meaning gives the compiled bits.

@intrinsic
def _float_bits(typingctx, x):
    """The IEEE bits of a float32 (as int32) or float64 (as int64)."""
    if x == types.float32:
        sig = types.int32(x)
    elif x == types.float64:
        sig = types.int64(x)
    else:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(signature.return_type))
    return sig, codegen


def _make_from_bits(float_type, width):
    @intrinsic
    def from_bits(typingctx, i):
        """The float whose IEEE bits are the low `width` bits of integer i."""
        if not isinstance(i, types.Integer):
            return None
        sig = float_type(i)

        def codegen(context, builder, signature, args):
            v = args[0]
            if i.bitwidth > width:
                v = builder.trunc(v, ir.IntType(width))
            elif i.bitwidth < width:
                v = builder.sext(v, ir.IntType(width))
            return builder.bitcast(v, context.get_value_type(float_type))
        return sig, codegen
    return from_bits


_f32_from_bits = _make_from_bits(types.float32, 32)
_f64_from_bits = _make_from_bits(types.float64, 64)


def _py_float_bits(x):
    """_float_bits in plain Python: a NumPy scalar view."""
    if isinstance(x, np.float32):
        return x.view(np.int32)
    return np.float64(x).view(np.int64)


def _py_f32_from_bits(i):
    """_f32_from_bits in plain Python (int() & mask: the truncation or sign extension)."""
    return np.uint32(int(i) & 0xFFFFFFFF).view(np.float32)


def _py_f64_from_bits(i):
    """_f64_from_bits in plain Python."""
    return np.uint64(int(i) & 0xFFFFFFFFFFFFFFFF).view(np.float64)


if config.DISABLE_JIT:
    _float_bits, _f32_from_bits, _f64_from_bits = _py_float_bits, _py_f32_from_bits, _py_f64_from_bits

_F = np.float32
# Round-to-nearest integer by adding 1.5*2**(mantissa bits): the integer lands
# in the low mantissa bits, so n = bits(t) - bits(MAGIC) with no float->int
# conversion (which AVX2 lacks for float64).
_MAGIC_F = _F(12582912.0)
_MAGIC_F_BITS = int(np.array(_MAGIC_F).view(np.int32))
_MAGIC_D = 6755399441055744.0
_MAGIC_D_BITS = int(np.array(_MAGIC_D).view(np.int64))
_LOG2E_F = _F(1.4426950408889634)
_LN2_HI_F = _F(0.693359375)        # few mantissa bits: n * hi is exact
_LN2_LO_F = _F(-2.12194440e-4)
_LOG2E_D = 1.4426950408889634
_LN2_HI_D = 6.93145751953125e-1
_LN2_LO_D = 1.42860682030941723212e-6
_SQRT2_F = _F(1.41421356)
_SQRT2_D = 1.4142135623730951
_TINY_F = _F(1.17549435e-38)       # smallest normal float32
_TINY_D = 2.2250738585072014e-308
_TWO23_F = _F(8388608.0)
_TWO54_D = 18014398509481984.0
_TWO52_D = 4503599627370496.0
_INF_F = _F(np.inf)
_NAN_F = _F(np.nan)


@register_jitable(error_model="numpy")
def _exp_f32(x):
    xc = min(max(x, _F(-104.0)), _F(89.0))      # beyond: 0 / inf after scaling
    t = xc * _LOG2E_F + _MAGIC_F
    n = t - _MAGIC_F
    ni = _float_bits(t) - _MAGIC_F_BITS
    r = xc - n * _LN2_HI_F
    r = r - n * _LN2_LO_F
    # Cephes expf polynomial for exp(r) on |r| <= ln2/2.
    p = _F(1.9875691500e-4)
    p = p * r + _F(1.3981999507e-3)
    p = p * r + _F(8.3334519073e-3)
    p = p * r + _F(4.1665795894e-2)
    p = p * r + _F(1.6666665459e-1)
    p = p * r + _F(5.0000001201e-1)
    p = p * (r * r) + r + _F(1.0)
    # 2**n in two halves so that n in [-150, 128] never leaves the normal range
    # (one rounding only, into the denormals when the result is that small).
    h = ni >> 1
    y = p * _f32_from_bits((h + 127) << 23) * _f32_from_bits((ni - h + 127) << 23)
    return y if x == x else x


@register_jitable(error_model="numpy")
def _exp_f64(x):
    xc = min(max(x, -746.0), 710.0)
    t = xc * _LOG2E_D + _MAGIC_D
    n = t - _MAGIC_D
    ni = _float_bits(t) - _MAGIC_D_BITS
    r = xc - n * _LN2_HI_D
    r = r - n * _LN2_LO_D
    # Taylor series to r**13 (|r| <= 0.347: truncation < 2e-16 relative).
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * (r * r) + r + 1.0
    h = ni >> 1
    y = p * _f64_from_bits((h + 1023) << 52) * _f64_from_bits((ni - h + 1023) << 52)
    return y if x == x else x


@register_jitable(error_model="numpy")
def _log_f32(x):
    tiny = x < _TINY_F
    xs = x * _TWO23_F if tiny else x             # denormals: scale into the normals
    bits = _float_bits(xs)
    # The biased exponent k as a float without an int->float conversion:
    # the float with bits 0x4B000000 | k is 2**23 + k.
    k = _f32_from_bits(((bits >> 23) & 0xFF) | 0x4B000000) - _TWO23_F
    m = _f32_from_bits((bits & 0x7FFFFF) | 0x3F800000)   # mantissa in [1, 2)
    big = m > _SQRT2_F
    f = (m * _F(0.5) if big else m) - _F(1.0)   # in [sqrt(1/2) - 1, sqrt(2) - 1]
    fe = k - (_F(150.0) if tiny else _F(127.0)) + (_F(1.0) if big else _F(0.0))
    z = f * f
    # Cephes logf polynomial.
    p = _F(7.0376836292e-2)
    p = p * f - _F(1.1514610310e-1)
    p = p * f + _F(1.1676998740e-1)
    p = p * f - _F(1.2420140846e-1)
    p = p * f + _F(1.4249322787e-1)
    p = p * f - _F(1.6668057665e-1)
    p = p * f + _F(2.0000714765e-1)
    p = p * f - _F(2.4999993993e-1)
    p = p * f + _F(3.3333331174e-1)
    y = p * f * z + fe * _LN2_LO_F - _F(0.5) * z
    y = f + y + fe * _LN2_HI_F
    if x > 0 and x < _INF_F:
        return y
    if x == 0:
        return -_INF_F
    if x == _INF_F:
        return x
    return _NAN_F


@register_jitable(error_model="numpy")
def _log_f64(x):
    tiny = x < _TINY_D
    xs = x * _TWO54_D if tiny else x
    bits = _float_bits(xs)
    k = _f64_from_bits(((bits >> 52) & 0x7FF) | 0x4330000000000000) - _TWO52_D
    m = _f64_from_bits((bits & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000)
    big = m > _SQRT2_D
    f = (m * 0.5 if big else m) - 1.0
    dk = k - (1077.0 if tiny else 1023.0) + (1.0 if big else 0.0)
    # fdlibm's log: log(1+f) = f - hfsq + s*(hfsq+R), s = f/(2+f).
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01))
    t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
                                              + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    y = dk * 6.93147180369123816490e-01 - ((hfsq - (s * (hfsq + r) + dk * 1.90821492927058770002e-10)) - f)
    if x > 0 and x < np.inf:
        return y
    if x == 0:
        return -np.inf
    if x == np.inf:
        return x
    return np.nan


@register_jitable(error_model="numpy")
def _tanh_f32(x):
    ax = abs(x)
    z = x * x
    # |x| < 0.625: Cephes tanhf odd polynomial.
    p = _F(-5.70498872745e-3)
    p = p * z + _F(2.06390887954e-2)
    p = p * z - _F(5.37397155531e-2)
    p = p * z + _F(1.33314422036e-1)
    p = p * z - _F(3.33332819422e-1)
    small = p * z * x + x if z != 0 else x      # keeps -0.0 (and tiny x) exact
    # otherwise 1 - 2/(exp(2|x|) + 1): saturates to 1 when exp overflows.
    big = _F(1.0) - _F(2.0) / (_exp_f32(ax + ax) + _F(1.0))
    big = -big if x < 0 else big
    return small if ax < _F(0.625) else big


@register_jitable(error_model="numpy")
def _tanh_f64(x):
    ax = abs(x)
    z = x * x
    # |x| < 0.625: Cephes tanh rational approximation.
    num = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3
    den = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z + 4.84406305325125486048e3
    small = x + x * z * (num / den) if z != 0 else x
    big = 1.0 - 2.0 / (_exp_f64(ax + ax) + 1.0)
    big = -big if x < 0 else big
    return small if ax < 0.625 else big


@register_jitable(error_model="numpy")
def _sigmoid_f32(x):
    # Never exponentiate a positive number: exp(-|x|) is in (0, 1].
    z = _exp_f32(-abs(x))
    s = _F(1.0) / (_F(1.0) + z)
    return s if x >= 0 else z * s


@register_jitable(error_model="numpy")
def _sigmoid_f64(x):
    z = _exp_f64(-abs(x))
    s = 1.0 / (1.0 + z)
    return s if x >= 0 else z * s


def _by_float_type(x, f32, f64, other):
    # The Python meaning of the compile-time switch of _overload_by_float_type:
    # float64 covers np.float64 and Python floats (Numba types both float64).
    # Compiled kernels never warn; neither do these (an intermediate overflow,
    # as exp(2|x|) in tanh, is part of the formula, not of the caller's values).
    with np.errstate(all="ignore"):
        if isinstance(x, np.float32):
            return f32(x)
        if isinstance(x, float):
            return f64(x)
        return other(x)


def _fast_exp(x):
    """Jitted code dispatches on the float type at compile time (see the @overload below)."""
    return _by_float_type(x, _exp_f32, _exp_f64, np.exp)


def _fast_log(x):
    """Dispatches on the float type at compile time."""
    return _by_float_type(x, _log_f32, _log_f64, np.log)


def _fast_tanh(x):
    """Dispatches on the float type at compile time."""
    return _by_float_type(x, _tanh_f32, _tanh_f64, np.tanh)


def _fast_sigmoid(x):
    """Dispatches on the float type at compile time."""
    return _by_float_type(x, _sigmoid_f32, _sigmoid_f64, _libm_sigmoid)


def _libm_sigmoid(x):
    if x >= 0:
        z = np.exp(-x)
        return 1 / (1 + z)
    z = np.exp(x)
    return z / (1 + z)


def _overload_by_float_type(stub, f32, f64, other):
    @overload(stub, jit_options={"error_model": "numpy"})
    def impl(x):
        if x == types.float32:
            return lambda x: f32(x)
        if x == types.float64:
            return lambda x: f64(x)
        return other


_overload_by_float_type(_fast_exp, _exp_f32, _exp_f64, lambda x: np.exp(x))
_overload_by_float_type(_fast_log, _log_f32, _log_f64, lambda x: np.log(x))
_overload_by_float_type(_fast_tanh, _tanh_f32, _tanh_f64, lambda x: np.tanh(x))
_overload_by_float_type(_fast_sigmoid, _sigmoid_f32, _sigmoid_f64, _libm_sigmoid)


# --------------------------------------------------------------------------- #
# Scalar functions (unary)

@_scalar
def _neg(x):
    return -x


@_scalar
def _abs(x):
    return abs(x)


@_scalar
def _exp(x):
    return _fast_exp(x)


@_scalar
def _exp2(x):
    return np.exp2(x)


@_scalar
def _log(x):
    return _fast_log(x)


@_scalar
def _log2(x):
    return np.log2(x)


@_scalar
def _log10(x):
    return np.log10(x)


@_scalar
def _log1p(x):
    return np.log1p(x)


@_scalar
def _expm1(x):
    return np.expm1(x)


@_scalar
def _sqrt(x):
    return np.sqrt(x)


@_scalar
def _rsqrt(x):
    return 1 / np.sqrt(x)


@_scalar
def _sin(x):
    return np.sin(x)


@_scalar
def _cos(x):
    return np.cos(x)


@_scalar
def _tan(x):
    return np.tan(x)


@_scalar
def _asin(x):
    return np.arcsin(x)


@_scalar
def _acos(x):
    return np.arccos(x)


@_scalar
def _atan(x):
    return np.arctan(x)


@_scalar
def _sinh(x):
    return np.sinh(x)


@_scalar
def _cosh(x):
    return np.cosh(x)


@_scalar
def _tanh(x):
    return _fast_tanh(x)


@_scalar
def _sigmoid(x):
    return _fast_sigmoid(x)


@_scalar
def _relu(x):
    # NaN propagates and -0.0 stays -0.0 (PyTorch's relu: x < 0 ? 0 : x).  Written as a
    # test for keeping x: the form `if x < 0: return 0` compiled for float32 lost -0.0
    # (LLVM made it a max), measured in tests/backends/test_cpu_backend.py.
    if x >= 0 or x != x:
        return x
    return 0


@_scalar
def _sign(x):
    # PyTorch: sign(nan) == 0 (numpy gives nan).
    return int(x > 0) - int(x < 0)  # int(): NumPy bools (DISABLE_JIT) do not subtract


@_scalar
def _floor(x):
    return np.floor(x)


@_scalar
def _ceil(x):
    return np.ceil(x)


@_scalar
def _round(x):
    return np.rint(x)  # half to even


@_scalar
def _trunc(x):
    return np.trunc(x)


@_scalar
def _reciprocal(x):
    return 1 / x


@_scalar
def _erf(x):
    return math.erf(x)


@_scalar
def _square(x):
    return x * x


@_scalar
def _logical_not(x):
    return not x


@_scalar
def _isnan(x):
    return x != x


@_scalar
def _isinf(x):
    return (x == np.inf) | (x == -np.inf)


@_scalar
def _isfinite(x):
    return (x == x) & (x != np.inf) & (x != -np.inf)


@_scalar
def _bitwise_not(x):
    return ~x


# --------------------------------------------------------------------------- #
# Scalar functions (binary)

@_scalar
def _add(a, b):
    return a + b


@_scalar
def _sub(a, b):
    return a - b


@_scalar
def _mul(a, b):
    return a * b


@_scalar
def _div(a, b):
    return a / b


@_scalar
def _floordiv(a, b):
    return a // b


@_scalar
def _remainder(a, b):
    # the sign of the divisor (Python's %); a zero result keeps fmod's sign, a's, as
    # PyTorch's (-0.0 % 1.0 is -0.0; 0.0 % -1.0 is 0.0)
    m = a % b
    if m == 0:
        return -abs(m) if math.copysign(1.0, a) < 0 else abs(m)
    return m


@_scalar
def _pow(a, b):
    return a ** b


@_scalar
def _maximum(a, b):
    if a != a:
        return a
    if b != b or b > a:
        return b
    return a


@_scalar
def _minimum(a, b):
    if a != a:
        return a
    if b != b or b < a:
        return b
    return a


@_scalar
def _atan2(a, b):
    return np.arctan2(a, b)


@_scalar
def _hypot(a, b):
    return np.hypot(a, b)


@_scalar
def _eq(a, b):
    return a == b


@_scalar
def _ne(a, b):
    return a != b


@_scalar
def _lt(a, b):
    return a < b


@_scalar
def _le(a, b):
    return a <= b


@_scalar
def _gt(a, b):
    return a > b


@_scalar
def _ge(a, b):
    return a >= b


@_scalar
def _logical_and(a, b):
    return (a != 0) & (b != 0)


@_scalar
def _logical_or(a, b):
    return (a != 0) | (b != 0)


@_scalar
def _logical_xor(a, b):
    return (a != 0) != (b != 0)


@_scalar
def _bitwise_and(a, b):
    return a & b


@_scalar
def _bitwise_or(a, b):
    return a | b


@_scalar
def _bitwise_xor(a, b):
    return a ^ b


@_scalar
def _tanh_backward(g, y):
    return g * (1 - y * y)


@_scalar
def _sigmoid_backward(g, y):
    return g * y * (1 - y)


@_scalar
def _relu_backward(g, x):
    # PyTorch's threshold_backward: 0 where x <= 0, else g (so a NaN x passes g on)
    if x <= 0:
        return 0
    return g


# --------------------------------------------------------------------------- #
# Templates

def make_unary(fn):
    """Kernels computing out[i] = fn(x[...]) for a contiguous output."""

    @_kernel
    def contiguous(x, xoff, out):
        # Slice first: x[xoff + i] would keep Numba's negative-index fix-up in
        # the loop (xoff could be negative as far as LLVM knows), ~1.5x slower.
        xs = x[xoff:xoff + out.size]
        for i in range(out.size):
            out[i] = fn(xs[i])

    @_kernel
    def strided(x, xoff, xst, out, shape):
        nd = shape.size
        inner = shape[nd - 1]
        xs = xst[nd - 1]
        idx = np.zeros(nd, np.int64)
        px = xoff
        o = 0
        n = out.size
        while o < n:
            orow = out[o:o + inner]
            if xs == 1:                     # sliced: a unit-stride row vectorises
                xrow = x[px:px + inner]
                for j in range(inner):
                    orow[j] = fn(xrow[j])
            else:
                for j in range(inner):
                    orow[j] = fn(x[px + j * xs])
            o += inner
            d = nd - 2
            while d >= 0:
                idx[d] += 1
                px += xst[d]
                if idx[d] < shape[d]:
                    break
                px -= xst[d] * shape[d]
                idx[d] = 0
                d -= 1

    return contiguous, strided


def make_binary(fn):
    """Kernels computing out[i] = fn(a[...], b[...]) for a contiguous output."""

    @_kernel
    def contiguous(a, aoff, b, boff, out):
        n = out.size
        as_ = a[aoff:aoff + n]
        bs = b[boff:boff + n]
        for i in range(n):
            out[i] = fn(as_[i], bs[i])

    @_kernel
    def scalar_b(a, aoff, b, boff, out):
        bv = b[boff]
        as_ = a[aoff:aoff + out.size]
        for i in range(out.size):
            out[i] = fn(as_[i], bv)

    @_kernel
    def scalar_a(a, aoff, b, boff, out):
        av = a[aoff]
        bs = b[boff:boff + out.size]
        for i in range(out.size):
            out[i] = fn(av, bs[i])

    @_kernel
    def strided(a, aoff, ast, b, boff, bst, out, shape):
        nd = shape.size
        inner = shape[nd - 1]
        as_ = ast[nd - 1]
        bs = bst[nd - 1]
        idx = np.zeros(nd, np.int64)
        pa = aoff
        pb = boff
        o = 0
        n = out.size
        while o < n:
            # Rows with unit or 0 inner strides (a bias row, a keepdim column) are
            # sliced so that the loop vectorises: (128, 256) + (256,) float32 42 -> 17 us.
            orow = out[o:o + inner]
            if as_ == 1 and bs == 1:
                arow = a[pa:pa + inner]
                brow = b[pb:pb + inner]
                for j in range(inner):
                    orow[j] = fn(arow[j], brow[j])
            elif as_ == 1 and bs == 0:
                arow = a[pa:pa + inner]
                bv = b[pb]
                for j in range(inner):
                    orow[j] = fn(arow[j], bv)
            elif as_ == 0 and bs == 1:
                av = a[pa]
                brow = b[pb:pb + inner]
                for j in range(inner):
                    orow[j] = fn(av, brow[j])
            else:
                for j in range(inner):
                    orow[j] = fn(a[pa + j * as_], b[pb + j * bs])
            o += inner
            d = nd - 2
            while d >= 0:
                idx[d] += 1
                pa += ast[d]
                pb += bst[d]
                if idx[d] < shape[d]:
                    break
                pa -= ast[d] * shape[d]
                pb -= bst[d] * shape[d]
                idx[d] = 0
                d -= 1

    return contiguous, scalar_a, scalar_b, strided


@_kernel
def _where_contiguous(c, coff, a, aoff, b, boff, out):
    n = out.size
    cs = c[coff:coff + n]
    as_ = a[aoff:aoff + n]
    bs = b[boff:boff + n]
    for i in range(n):
        out[i] = as_[i] if cs[i] else bs[i]


@_kernel
def _mul_backward_contiguous(g, goff, a, aoff, b, boff, ga, gb):
    # Both gradients of a*b in one pass over g: ga = g*b, gb = g*a.
    n = ga.size
    gs = g[goff:goff + n]
    as_ = a[aoff:aoff + n]
    bs = b[boff:boff + n]
    for i in range(n):
        gv = gs[i]
        ga[i] = gv * bs[i]
        gb[i] = gv * as_[i]


@_kernel
def _where_strided(c, coff, cst, a, aoff, ast, b, boff, bst, out, shape):
    nd = shape.size
    inner = shape[nd - 1]
    cs = cst[nd - 1]
    as_ = ast[nd - 1]
    bs = bst[nd - 1]
    idx = np.zeros(nd, np.int64)
    pc = coff
    pa = aoff
    pb = boff
    o = 0
    n = out.size
    while o < n:
        for j in range(inner):
            out[o + j] = a[pa + j * as_] if c[pc + j * cs] else b[pb + j * bs]
        o += inner
        d = nd - 2
        while d >= 0:
            idx[d] += 1
            pc += cst[d]
            pa += ast[d]
            pb += bst[d]
            if idx[d] < shape[d]:
                break
            pc -= cst[d] * shape[d]
            pa -= ast[d] * shape[d]
            pb -= bst[d] * shape[d]
            idx[d] = 0
            d -= 1


# --------------------------------------------------------------------------- #
# Op tables: adding an op adds a scalar function and one line here.

_UNARY_FNS = {
    "neg": _neg, "abs": _abs, "exp": _exp, "exp2": _exp2, "log": _log,
    "log2": _log2, "log10": _log10, "log1p": _log1p, "expm1": _expm1,
    "sqrt": _sqrt, "rsqrt": _rsqrt, "sin": _sin, "cos": _cos, "tan": _tan,
    "asin": _asin, "acos": _acos, "atan": _atan, "sinh": _sinh,
    "cosh": _cosh, "tanh": _tanh, "sigmoid": _sigmoid, "relu": _relu,
    "sign": _sign, "floor": _floor, "ceil": _ceil, "round": _round,
    "trunc": _trunc, "reciprocal": _reciprocal, "erf": _erf,
    "square": _square, "logical_not": _logical_not, "isnan": _isnan,
    "isinf": _isinf, "isfinite": _isfinite, "bitwise_not": _bitwise_not,
}

_BINARY_FNS = {
    "add": _add, "sub": _sub, "mul": _mul, "div": _div,
    "floordiv": _floordiv, "remainder": _remainder, "pow": _pow,
    "maximum": _maximum, "minimum": _minimum, "atan2": _atan2, "hypot": _hypot,
    "eq": _eq, "ne": _ne, "lt": _lt, "le": _le, "gt": _gt, "ge": _ge,
    "logical_and": _logical_and, "logical_or": _logical_or,
    "logical_xor": _logical_xor, "bitwise_and": _bitwise_and,
    "bitwise_or": _bitwise_or, "bitwise_xor": _bitwise_xor,
    "tanh_backward": _tanh_backward, "sigmoid_backward": _sigmoid_backward,
    "relu_backward": _relu_backward,
}

UNARY_OPS = frozenset(_UNARY_FNS)
BINARY_OPS = frozenset(_BINARY_FNS)

# Kernels are made lazily, on an op's first use.
_unary_kernels = {}
_binary_kernels = {}

# Unary ops too cheap per element to gain from threads (see _threads.py).
_MEMORY_BOUND_UNARY = frozenset({"neg", "abs", "relu", "sign", "floor", "ceil", "round", "trunc",
                                 "square", "logical_not", "isnan", "isinf", "isfinite",
                                 "bitwise_not", "reciprocal", "sqrt", "rsqrt"})
# Binary ops costly enough per element to gain from threads.
_COMPUTE_BOUND_BINARY = frozenset({"pow", "atan2", "remainder", "floordiv", "hypot"})

# Ops that are the identity on integers and bools (exact, so not via float).
_INTEGER_IDENTITY = frozenset({"floor", "ceil", "round", "trunc"})


def _unary_kernels_for(op):
    kernels = _unary_kernels.get(op)
    if kernels is None:
        kernels = _unary_kernels[op] = make_unary(_UNARY_FNS[op])
    return kernels


def _binary_kernels_for(op):
    kernels = _binary_kernels.get(op)
    if kernels is None:
        kernels = _binary_kernels[op] = make_binary(_BINARY_FNS[op])
    return kernels


def unary(op, x_view, out_dtype):
    buf, off, shape, strides = x_view
    shape = tuple(shape)
    strides = tuple(strides)
    n = numel(shape)
    out_dtype = np.dtype(out_dtype)
    out = new_buffer(n, out_dtype)
    if n == 0:
        return out
    kind = buf.dtype.kind
    if kind in "biu":
        if op in _INTEGER_IDENTITY or (op == "abs" and kind in "bu"):
            copy(x_view, (out, 0, shape, contiguous_strides(shape)))
            return out
        if op in ("isnan", "isinf", "isfinite"):
            out[:] = op == "isfinite"
            return out
        if op == "bitwise_not" and kind == "b":
            op = "logical_not"
    contiguous, strided = _unary_kernels.get(op) or _unary_kernels_for(op)
    plan = _plan(shape, strides)
    split = n >= _threads.SPLIT_FLOOR and worth_splitting(n, op not in _MEMORY_BOUND_UNARY)
    if _debug.ENABLED: _debug.log("unary", op=op, path=_PATH_NAMES[plan[0]], n=n, dtype=buf.dtype, split=split)
    if plan[0] == _CONTIGUOUS:
        if split:
            run_split(lambda s, e: contiguous(buf, off + s, out[s:e]), n)
        else:
            contiguous(buf, off, out)
        return out
    cshape, (cst,) = plan[1], plan[2]
    if split and cshape[0] > 1:
        _split_outer(strided, cshape, [(buf, off, cst)], out)
    else:
        strided(buf, off, plan[3][0], out, plan[4])
    return out


# Geometry plans, cached per (shape, strides...): the path to take and the
# coalesced shape/strides (lists and int64 arrays).  Small ops are dominated
# by this Python work (coalesce + index arrays ~2 us of a 3 us call), and a
# training loop repeats the same few geometries.
_CONTIGUOUS, _SCALAR_A, _SCALAR_B, _STRIDED = 0, 1, 2, 3
_PATH_NAMES = ("contiguous", "scalar_a", "scalar_b", "strided")     # NBGRAD_DEBUG's words for them
_plans = {}
_PLANS_LIMIT = 4096


def _plan(shape, *strides):
    key = (shape,) + strides
    plan = _plans.get(key)
    if plan is not None:
        return plan
    cshape, cst = coalesce(shape, list(strides))
    path = _STRIDED
    if len(cshape) == 1:
        firsts = [st[0] for st in cst]
        if all(f == 1 for f in firsts):
            path = _CONTIGUOUS
        elif len(firsts) == 2 and firsts == [1, 0]:
            path = _SCALAR_B
        elif len(firsts) == 2 and firsts == [0, 1]:
            path = _SCALAR_A
    plan = (path, cshape, cst, [as_index_array(st) for st in cst], as_index_array(cshape))
    if len(_plans) >= _PLANS_LIMIT:
        _plans.clear()
    _plans[key] = plan
    return plan


def _split_outer(strided, cshape, operands, out):
    """Run a strided kernel on slices of the outermost coalesced dim, across threads.

    operands: [(buf, offset, coalesced strides)]; the kernel's arguments are
    (buf, off, strides)... for each operand, then (out, shape).
    """
    rows = cshape[0]
    row = len(out) // rows
    strides = [as_index_array(st) for _, _, st in operands]

    def part(start, stop):
        sub = as_index_array([stop - start] + list(cshape[1:]))
        args = []
        for (buf, off, st), sta in zip(operands, strides):
            args += [buf, off + start * st[0], sta]
        strided(*args, out[start * row:stop * row], sub)
    run_split(part, rows, align=1)


def binary(op, a_view, b_view, out_shape, out_dtype, out=None):
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    out_shape = tuple(out_shape)
    n = numel(out_shape)
    if out is None:
        out = new_buffer(n, out_dtype)
    if n == 0:
        return out
    kernels = _binary_kernels.get(op) or _binary_kernels_for(op)
    plan = _plan(out_shape, tuple(ast), tuple(bst))
    path = plan[0]
    split = n >= _threads.SPLIT_FLOOR and worth_splitting(n, op in _COMPUTE_BOUND_BINARY)
    if _debug.ENABLED: _debug.log("binary", op=op, path=_PATH_NAMES[path], n=n, dtype=abuf.dtype, split=split)
    if path != _STRIDED:
        kernel = kernels[path]      # contiguous, scalar_a, scalar_b: in _CONTIGUOUS.. order
        if split:
            sa, sb = plan[2][0][0], plan[2][1][0]
            run_split(lambda s, e: kernel(abuf, aoff + s * sa, bbuf, boff + s * sb, out[s:e]), n)
        else:
            kernel(abuf, aoff, bbuf, boff, out)
        return out
    cshape, (cas, cbs) = plan[1], plan[2]
    if split and cshape[0] > 1:
        _split_outer(kernels[3], cshape, [(abuf, aoff, cas), (bbuf, boff, cbs)], out)
        return out
    kernels[3](abuf, aoff, plan[3][0], bbuf, boff, plan[3][1], out, plan[4])
    return out


def mul_backward(g_view, a_view, b_view, need_a=True, need_b=True):
    """Both gradients of out = a * b: (g * b, g * a) as buffers of g's shape, in one pass.

    a and b are broadcast to g's shape (0 strides) and have g's dtype; a
    gradient that is not needed comes back as None.  Reducing a broadcast
    operand's gradient to its own shape stays the caller's job.
    """
    gbuf, goff, shape, gst = g_view
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    shape = tuple(shape)
    n = numel(shape)
    if not (need_a and need_b) or n == 0:
        ga = binary("mul", g_view, b_view, shape, gbuf.dtype) if need_a else None
        gb = binary("mul", g_view, a_view, shape, gbuf.dtype) if need_b else None
        return ga, gb
    if _plan(shape, tuple(gst), tuple(ast), tuple(bst))[0] != _CONTIGUOUS:
        if _debug.ENABLED: _debug.log("mul_backward", path="strided", n=n)       # two binary muls
        return (binary("mul", g_view, b_view, shape, gbuf.dtype),
                binary("mul", g_view, a_view, shape, gbuf.dtype))
    ga = new_buffer(n, gbuf.dtype)
    gb = new_buffer(n, gbuf.dtype)
    if _debug.ENABLED: _debug.log("mul_backward", path="contiguous", n=n, dtype=gbuf.dtype)
    if worth_splitting(n):
        run_split(lambda s, e: _mul_backward_contiguous(gbuf, goff + s, abuf, aoff + s, bbuf, boff + s,
                                                        ga[s:e], gb[s:e]), n)
    else:
        _mul_backward_contiguous(gbuf, goff, abuf, aoff, bbuf, boff, ga, gb)
    return ga, gb


def where(cond_view, a_view, b_view, out_shape, out_dtype):
    cbuf, coff, _, cst = cond_view
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    out_shape = tuple(out_shape)
    n = numel(out_shape)
    out = new_buffer(n, out_dtype)
    if n == 0:
        return out
    cshape, (ccs, cas, cbs) = coalesce(out_shape, [cst, ast, bst])
    if len(cshape) == 1 and ccs[0] == 1 and cas[0] == 1 and cbs[0] == 1:
        if _debug.ENABLED: _debug.log("where", path="contiguous", n=n, dtype=abuf.dtype)
        _where_contiguous(cbuf, coff, abuf, aoff, bbuf, boff, out)
    else:
        if _debug.ENABLED: _debug.log("where", path="strided", n=n, dtype=abuf.dtype)
        _where_strided(cbuf, coff, as_index_array(ccs), abuf, aoff, as_index_array(cas),
                       bbuf, boff, as_index_array(cbs), out, as_index_array(cshape))
    return out
