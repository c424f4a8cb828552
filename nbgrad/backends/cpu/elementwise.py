"""Elementwise kernels: scalar functions plus the unary, binary and where templates.

STALE-CACHE TRAP (docs/ARCHITECTURE.md, "The on-disk kernel cache"): Numba's
cache key hashes only the file that holds a cached function.  Every scalar
function used by a kernel below lives in THIS file or in backends/_shared
(maximum/minimum are the max/min reductions' steps; the strided kernels walk
with _shared/walk.py), and every kernel is made by _shared.cpu_kernel, whose
key carries the shared helpers' digest: editing either invalidates the
cached kernels.  The op table's generated kernels (fused.py) import these
functions by name into files named by a digest of this file and of the
shared helpers.
Factory-made kernels are cached per pickle of their closure variables, so the
scalar functions are `register_jitable` plain functions bound to their names
in their module (they pickle by name, the same in every process; so do those
_calling makes); tests/backends/test_cpu_kernel_cache.py checks that two ops
from one factory each hit their own cached kernel.

Kernels take 1-D buffers plus int64 arrays for shape and strides (never n-d
arrays), so the number of compiled signatures depends on dtypes only, not on
ndim.  The entry points (unary, binary, where, mul_backward) are written once
for both devices (backends/_shared/elementwise.py: views, outputs, integer
shortcuts, the cached geometry plan); this file's _run_* functions launch the
kernels of the path the plan picked:
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
from types import SimpleNamespace

import numpy as np
from numba import carray, types
from numba.extending import overload, register_jitable

from ._allocator import new_buffer
from .._shared import cpu_cfunc, cpu_kernel
from .._shared.native import address_as
from .._shared.elementwise import CONTIGUOUS, PATH_NAMES, SCALAR_A, SCALAR_B, STRIDED, LazyKernels, entry_points
from .._shared.geometry import as_index_array
from .._shared.walk import carry, jump
from .._shared import special as _special
from .._shared import special_more as _special_more
from ... import _debug
from . import _threads
from ._threads import may_split, native_function, run_native, run_split, worth_native, worth_splitting
from .strided_copy import copy  # a Python wrapper, not a jitted helper
from .strided_copy import KERNEL_DTYPES as _NATIVE

# register_jitable keeps the plain Python function, which pickles by reference:
# factory closures over it get a cache key that is stable across processes
# (a Dispatcher pickles with a per-process uuid, so closures over one never
# hit the cache).
_scalar = register_jitable(error_model="numpy")
_kernel = cpu_kernel(nogil=True)


# --------------------------------------------------------------------------- #
# Vectorisable transcendentals.  Bit casts are LLVM bitcasts (free, and they
# vectorise); the type switch (float32 / float64 / anything else -> NumPy's
# scalar function) happens at compile time through @overload.
#
# The same formulas run as plain Python under NUMBA_DISABLE_JIT=1 (kernels on
# NumPy scalars): the bit casts are then NumPy views (nbgrad/backends/_shared/fast_math.py,
# where exp, log and the intrinsics live), bound in place of the intrinsics at import, and each `_fast_*` stub's Python body does the
# type switch (Numba compiles the @overload instead, never the body).  Jitted
# code is unchanged.  tests/backends/test_plain_python_kernels.py checks that
# the Python meaning gives the compiled bits.

from .._shared.fast_math import (  # noqa: F401  (re-exported: tests and fused code name them here)
    _float_bits, _f32_from_bits, _f64_from_bits, _fma, _F, _MAGIC_F, _MAGIC_F_BITS, _MAGIC_D, _MAGIC_D_BITS,
    _LOG2E_F, _LN2_HI_F, _LN2_LO_F, _LOG2E_D, _LN2_HI_D, _LN2_LO_D, _SQRT2_F, _SQRT2_D, _TINY_F, _TINY_D,
    _TWO23_F, _TWO54_D, _TWO52_D, _INF_F, _NAN_F, _exp_f32, _exp_f64, _exp_reduced_f32, _exp_reduced_f64,
    _log_f32, _log_f64, _by_float_type,
    _fast_exp, _overload_by_float_type, _wide_vectors)




@register_jitable(error_model="numpy")
def _tanh_f32(x):
    ax = abs(x)
    z = x * x
    # |x| < 0.625: Cephes tanhf odd polynomial.
    p = _F(-5.70498872745e-3)
    p = _fma(p, z, _F(2.06390887954e-2))
    p = _fma(p, z, _F(-5.37397155531e-2))
    p = _fma(p, z, _F(1.33314422036e-1))
    p = _fma(p, z, _F(-3.33332819422e-1))
    small = _fma(p * z, x, x) if z != 0 else x     # keeps -0.0 (and tiny x) exact
    # otherwise 1 - 2/(exp(2|x|) + 1), which is 1 from |x| = 9.01 on: with |x| held at 9.125
    # (a NaN passes) exp(2|x|) is a normal number, scaled once (the bits of _exp_f32's two
    # halves, in 11 fewer operations: 64K float32 29 -> 25 us)
    a = _F(9.125) if ax > _F(9.125) else ax
    e, n = _exp_reduced_f32(a + a)
    big = _F(1.0) - _F(2.0) / (e * _f32_from_bits((n + 127) << 23) + _F(1.0))
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
    a = 19.5 if ax > 19.5 else ax                   # (1 from 19.06 on; as _tanh_f32)
    e, n = _exp_reduced_f64(a + a)
    big = 1.0 - 2.0 / (e * _f64_from_bits((n + 1023) << 52) + 1.0)
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


_overload_by_float_type(_fast_log, _log_f32, _log_f64, lambda x: np.log(x))
_overload_by_float_type(_fast_tanh, _tanh_f32, _tanh_f64, lambda x: np.tanh(x))
_overload_by_float_type(_fast_sigmoid, _sigmoid_f32, _sigmoid_f64, _libm_sigmoid)


# --------------------------------------------------------------------------- #
# Scalar functions (unary)

def _calling(name, fn, arity):
    """The scalar function `name` whose whole work is a call of fn (a NumPy ufunc, a builtin,
    a fast stub above), made once here for all of them.  It is bound to its name in this
    module, so that it pickles by name as a written one would (the kernel cache keys)."""
    if arity == 1:
        def scalar(x):
            return fn(x)
    else:
        def scalar(a, b):
            return fn(a, b)
    scalar.__name__ = scalar.__qualname__ = name
    globals()[name] = scalar
    return _scalar(scalar)


@_scalar
def _erfinv_of(y):
    """erf's inverse: Giles' single-precision approximation (2010), then two Newton steps
    on erf to double precision; +-inf at +-1, NaN outside [-1, 1]."""
    if y != y or y < -1.0 or y > 1.0:
        return math.nan
    if y == 1.0:
        return math.inf
    if y == -1.0:
        return -math.inf
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w = w - 2.5
        p = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):
            p = c + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):
            p = c + p * w
    x = p * y
    a = abs(y)
    if a <= 0.5:
        for _ in range(2):
            x = x - (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
        return x
    # near +-1: Newton on log(erfc(|x|)) = log(1 - |y|) (1 - |y| is exact: the tail's digits
    # are kept, and the log is near linear in |x|^2, so the steps converge from afar)
    q = 1.0 - a
    lq = math.log(q)
    t = abs(x)
    for _ in range(4):
        e = math.erfc(t)
        t = t + (math.log(e) - lq) * e / (1.1283791670955126 * math.exp(-t * t))
    return t if y > 0 else -t


# The special functions in float32 arithmetic for float32 operands, as PyTorch's float versions
# (backends/_shared/special.py): a compile-time switch on the operand's type
def _float32_or_double(name, f32, f64):
    def stub(x):
        return _by_float_type(x, f32, f64, f64)
    stub.__name__ = stub.__qualname__ = name
    globals()[name] = stub
    _overload_by_float_type(stub, f32, f64, lambda x: f64(x))
    return stub


def _polygamma_any(n, x):
    if isinstance(x, np.float32):
        return _special.polygamma_f32(n, x)
    return _special.polygamma_of(n, x)


@overload(_polygamma_any, jit_options={"error_model": "numpy"})
def _polygamma_any_impl(n, x):
    if x == types.float32:
        return lambda n, x: _special.polygamma_f32(n, x)
    return lambda n, x: _special.polygamma_of(n, x)


def _zeta_any(x, q):
    if isinstance(x, np.float32):
        return _special.zeta_f32(x, q)
    return _special.zeta_of(x, q)


@overload(_zeta_any, jit_options={"error_model": "numpy"})
def _zeta_any_impl(x, q):
    if x == types.float32:
        return lambda x, q: _special.zeta_f32(x, q)
    return lambda x, q: _special.zeta_of(x, q)


_SPECIAL_UNARY = {op: _float32_or_double(f"_{op}_any", getattr(_special, op + "_f32"), getattr(_special, op + "_of"))
                  for op in ("digamma", "trigamma", "i0", "i0e", "i1", "i1e", "ndtri", "sinc", "erfcx", "log_ndtr")}


# torch.special's incomplete gamma, Bessel and Airy functions and orthogonal polynomials
# (backends/_shared/special_more.py): the same compile-time switch, for one or two operands
def _float32_or_double_binary(name, f32, f64):
    def stub(a, b):
        return f32(a, b) if isinstance(a, np.float32) else f64(a, b)
    stub.__name__ = stub.__qualname__ = name
    globals()[name] = stub

    @overload(stub, jit_options={"error_model": "numpy"})
    def impl(a, b):
        if a == types.float32:
            return lambda a, b: f32(a, b)
        return lambda a, b: f64(a, b)
    return stub


_SPECIAL_UNARY.update({op: _float32_or_double(f"_{op}_any", getattr(_special_more, op + "_f32"),
                                              getattr(_special_more, op + "_of")) for op in _special_more.UNARY})
_SPECIAL_BINARY = {op: _float32_or_double_binary(f"_{op}_any", getattr(_special_more, op + "_f32"),
                                                 getattr(_special_more, op + "_of")) for op in _special_more.BINARY}


# op -> the function its scalar function `_<op>` calls
_UNARY_CALLS = {
    "abs": abs, "exp": _fast_exp, "exp2": np.exp2, "log": _fast_log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": _fast_tanh, "sigmoid": _fast_sigmoid,
    "floor": np.floor, "ceil": np.ceil, "round": np.rint,  # rint: half to even
    "trunc": np.trunc, "erf": math.erf,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "erfc": math.erfc,
    "erfinv": _erfinv_of,
    # the special functions (backends/_shared/special.py, Cephes' algorithms as PyTorch's)
    "lgamma": _special.lgamma_of, **_SPECIAL_UNARY,
}
_BINARY_CALLS = {"atan2": np.arctan2, "hypot": np.hypot,
                 "polygamma": _polygamma_any, "zeta": _zeta_any, **_SPECIAL_BINARY}


@_scalar
def _neg(x):
    return -x


@_scalar
def _rsqrt(x):
    return 1 / np.sqrt(x)


@_scalar
def _maximum(a, b):
    # NaN wins (a's when both are), as in the max reduction's step_max, whose answers these
    # are: written as selects, so that the loops vectorize (step_max's early returns kept
    # clamp's two passes scalar: 18 us for 64K float32, 4 with the selects).
    r = b if (b > a) | (b != b) else a
    return a if a != a else r


@_scalar
def _minimum(a, b):
    r = b if (b < a) | (b != b) else a
    return a if a != a else r


@_scalar
def _relu(x):
    # NaN propagates and -0.0 stays -0.0 (PyTorch's relu: x < 0 ? 0 : x).  Written as a
    # test for keeping x: the form `if x < 0: return 0` compiled for float32 lost -0.0
    # (LLVM made it a max); tests/equivalence/test_fresh_seed_differences.py holds it.
    if x >= 0 or x != x:
        return x
    return 0


@_scalar
def _sign(x):
    # PyTorch: sign(nan) == 0 (numpy gives nan).
    return int(x > 0) - int(x < 0)  # int(): NumPy bools (DISABLE_JIT) do not subtract


@_scalar
def _reciprocal(x):
    return 1 / x


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
    # the one integer quotient that overflows, MIN // -1, wraps to MIN as two's complement
    # negation does (Numba's int64 // gives 0 there; narrower ints, computed in int64, wrap
    # when stored).  (a < 0 and -a < 0 holds for that integer alone: never for a float.)
    if b == -1 and a < 0 and -a < 0:
        return a
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
    return _power(a, b)


@register_jitable(error_model="numpy")
def _int_pow(a, b):
    """PyTorch's powi for integers: squaring in wrapping integer arithmetic (Numba's own int
    ** int goes through a float pow for exponents over 2 ** 16: 3 ** 2 ** 31 became INT64_MIN);
    a negative exponent gives 1 / a ** -b truncated: 0 but for bases 1 and -1."""
    if b < 0:
        if a == 1:
            return a
        if a == -1:
            return a if b % 2 else -a
        return a - a
    result = a - a + 1
    while b:
        if b & 1:
            result = result * a
        b >>= 1
        if b:
            a = a * a
    return result


def _power(a, b):
    """a ** b: for two integers _int_pow, else C's pow.  (The Python meaning, under
    NUMBA_DISABLE_JIT: NumPy integer scalars wrap as the compiled loop does.)"""
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        with np.errstate(over="ignore"):
            return _int_pow(a, b)
    return a ** b


@overload(_power, jit_options={"error_model": "numpy"})
def _power_typed(a, b):
    if isinstance(a, types.Integer) and isinstance(b, types.Integer):
        return lambda a, b: _int_pow(a, b)
    return lambda a, b: a ** b


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

    # Slice first: x[xoff + i] would keep Numba's negative-index fix-up in
    # the loop (xoff could be negative as far as LLVM knows), ~1.5x slower.
    if fn in _WIDE_VECTOR_FNS:
        @_scalar        # its body is also a helper: the native entry point runs it (_native_unary)
        def contiguous(x, xoff, out):
            _wide_vectors()                 # the same loop as below, in 512-bit vectors
            xs = x[xoff:xoff + out.size]
            for i in range(out.size):
                out[i] = fn(xs[i])
    else:
        @_scalar
        def contiguous(x, xoff, out):
            xs = x[xoff:xoff + out.size]
            for i in range(out.size):
                out[i] = fn(xs[i])
    contiguous = _kernel(contiguous)

    @_kernel
    def strided(x, xoff, xst, out, shape):
        nd = shape.size
        inner = shape[nd - 1]
        xs = xst[nd - 1]
        idx = np.zeros(nd, np.int64)
        px = xoff
        for o in range(0, out.size, inner):
            orow = out[o:o + inner]
            if xs == 1:                     # sliced: a unit-stride row vectorises
                xrow = x[px:px + inner]
                for j in range(inner):
                    orow[j] = fn(xrow[j])
            else:
                for j in range(inner):
                    orow[j] = fn(x[px + j * xs])
            d = carry(idx, shape, nd - 2)
            if d >= 0:
                px += jump(shape, xst, d, nd - 2)

    # In place (x.relu_(), x.sigmoid_()): as make_binary's self_b (64K float32 sigmoid_: 250 us
    # through contiguous with out a second view of x, whose overlap check fails; 28 this way)
    # (helpers too: the native entry points of a split run them, _native_self)
    if fn in _WIDE_VECTOR_FNS:
        @_scalar
        def in_place(x):
            _wide_vectors()
            for i in range(x.size):
                x[i] = fn(x[i])
    else:
        @_scalar
        def in_place(x):
            for i in range(x.size):
                x[i] = fn(x[i])

    return contiguous, strided, _kernel(in_place)


def make_binary(fn):
    """Kernels computing out[i] = fn(a[...], b[...]) for a contiguous output."""

    @_kernel
    @_scalar
    def contiguous(a, aoff, b, boff, out):
        n = out.size
        as_ = a[aoff:aoff + n]
        bs = b[boff:boff + n]
        for i in range(n):
            out[i] = fn(as_[i], bs[i])

    @_kernel
    @_scalar
    def scalar_b(a, aoff, b, boff, out):
        bv = b[boff]
        as_ = a[aoff:aoff + out.size]
        for i in range(out.size):
            out[i] = fn(as_[i], bv)

    @_kernel
    @_scalar
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
        for o in range(0, out.size, inner):
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
            d = carry(idx, shape, nd - 2)
            if d >= 0:
                pa += jump(shape, ast, d, nd - 2)
                pb += jump(shape, bst, d, nd - 2)

    # A dense operand with a row repeated over all its rows (a bias, (n, m) + (m,)): the
    # strided walk's per-row work was twice the additions' ((128, 256) float32: 8.4 -> 3.4 us)
    @_kernel
    def row_b(a, aoff, b, boff, out, inner):
        brow = b[boff:boff + inner]
        for o in range(0, out.size, inner):
            arow = a[aoff + o:aoff + o + inner]
            orow = out[o:o + inner]
            for j in range(inner):
                orow[j] = fn(arow[j], brow[j])

    @_kernel
    def row_a(a, aoff, b, boff, out, inner):
        arow = a[aoff:aoff + inner]
        for o in range(0, out.size, inner):
            brow = b[boff + o:boff + o + inner]
            orow = out[o:o + inner]
            for j in range(inner):
                orow[j] = fn(arow[j], brow[j])

    # In place (a's own run as the output: x.mul_(2), x.clamp_(...)): with out a second view
    # of a's memory, the vectorized loop's overlap check fails and the scalar loop runs
    # (64K float32 mul_: 13 us, 4 this way).
    @_kernel
    @_scalar
    def self_b(a, b, boff):
        bv = b[boff]
        for i in range(a.size):
            a[i] = fn(a[i], bv)

    @_kernel
    @_scalar
    def self_ab(a, b, boff):
        bs = b[boff:boff + a.size]
        for i in range(a.size):
            a[i] = fn(a[i], bs[i])

    return contiguous, scalar_a, scalar_b, strided, row_b, row_a, self_b, self_ab


@_kernel
def _where_contiguous(c, coff, a, aoff, b, boff, out):
    n = out.size
    cs = c[coff:coff + n]
    as_ = a[aoff:aoff + n]
    bs = b[boff:boff + n]
    for i in range(n):
        out[i] = as_[i] if cs[i] else bs[i]


@_kernel
@_scalar
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
    cs, as_, bs = cst[nd - 1], ast[nd - 1], bst[nd - 1]
    idx = np.zeros(nd, np.int64)
    pc, pa, pb = coff, aoff, boff
    for o in range(0, out.size, inner):
        for j in range(inner):
            out[o + j] = a[pa + j * as_] if c[pc + j * cs] else b[pb + j * bs]
        d = carry(idx, shape, nd - 2)
        if d >= 0:
            pc += jump(shape, cst, d, nd - 2)
            pa += jump(shape, ast, d, nd - 2)
            pb += jump(shape, bst, d, nd - 2)


# --------------------------------------------------------------------------- #
# Op tables: adding an op adds a scalar function (or a line of _UNARY_CALLS /
# _BINARY_CALLS) and one line here.

_UNARY_FNS = {
    "neg": _neg, "rsqrt": _rsqrt, "relu": _relu, "sign": _sign, "reciprocal": _reciprocal,
    "square": _square, "logical_not": _logical_not, "isnan": _isnan, "isinf": _isinf,
    "isfinite": _isfinite, "bitwise_not": _bitwise_not,
    **{op: _calling(f"_{op}", fn, 1) for op, fn in _UNARY_CALLS.items()},
}

_BINARY_FNS = {
    "add": _add, "sub": _sub, "mul": _mul, "div": _div,
    "floordiv": _floordiv, "remainder": _remainder, "pow": _pow,
    "maximum": _maximum, "minimum": _minimum,
    "eq": _eq, "ne": _ne, "lt": _lt, "le": _le, "gt": _gt, "ge": _ge,
    "logical_and": _logical_and, "logical_or": _logical_or,
    "logical_xor": _logical_xor, "bitwise_and": _bitwise_and,
    "bitwise_or": _bitwise_or, "bitwise_xor": _bitwise_xor,
    "tanh_backward": _tanh_backward, "sigmoid_backward": _sigmoid_backward,
    "relu_backward": _relu_backward,
    **{op: _calling(f"_{op}", fn, 2) for op, fn in _BINARY_CALLS.items()},
}
# a * b + c rounded once: the fused programs' "fma" (the op table's lerp, the backend's fma)
_TERNARY_FNS = {"fma": _fma}

# The polynomial transcendentals: their contiguous kernels ask for the widest vectors
# (_wide_vectors; the memory-bound ops and libm calls gain nothing from them).
_WIDE_VECTOR_FNS = frozenset(_UNARY_FNS[op] for op in ("exp", "log", "tanh", "sigmoid"))

UNARY_OPS = frozenset(_UNARY_FNS)
BINARY_OPS = frozenset(_BINARY_FNS)

# Kernels are made lazily, on an op's first use: _unary_kernels[op].
_unary_kernels = LazyKernels(make_unary, _UNARY_FNS)
_binary_kernels = LazyKernels(make_binary, _BINARY_FNS)

# Unary ops too cheap per element to gain from threads (see _threads.py).
_MEMORY_BOUND_UNARY = frozenset({"neg", "abs", "relu", "sign", "floor", "ceil", "round", "trunc",
                                 "square", "logical_not", "isnan", "isinf", "isfinite",
                                 "bitwise_not", "reciprocal", "sqrt", "rsqrt"})
# Binary ops costly enough per element to gain from threads.
_COMPUTE_BOUND_BINARY = frozenset({"pow", "atan2", "remainder", "floordiv", "hypot"})


# --------------------------------------------------------------------------- #
# Native entry points (backends/_shared/native.py): a contiguous kernel's own body run on
# elements [lo, hi) by a C function that the team's workers call with no GIL, so that a split
# costs ~1 us, not the pool's 20-50 (_threads.run_native).  One per kernel and dtypes, made
# (or loaded from the disk cache) on the first split call that needs it; floating operands
# only (an integer kernel may raise, division by zero, and a worker has no Python to raise in).

def _native_unary(body, xdt, odt):
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 2)
        x = carray(address_as(block[0], xdt), hi)
        out = carray(address_as(block[1], odt), hi)
        body(x, lo, out[lo:hi])
    return cpu_cfunc(native).address


def _native_binary(body, a_step, b_step, adt, bdt, odt):
    """body(a, aoff, b, boff, out) of a contiguous path; a_step, b_step: 1 for an operand read
    element by element, 0 for one read as a single value (the scalar paths)."""
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 3)
        a = carray(address_as(block[0], adt), hi if a_step else 1)
        b = carray(address_as(block[1], bdt), hi if b_step else 1)
        out = carray(address_as(block[2], odt), hi)
        body(a, lo * a_step, b, lo * b_step, out[lo:hi])
    return cpu_cfunc(native).address


def _native_unary_self(body, dt):
    """make_unary's in_place body on x's elements [lo, hi)."""
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 1)
        x = carray(address_as(block[0], dt), hi)
        body(x[lo:hi])
    return cpu_cfunc(native).address


def _native_binary_self(body, b_step, dt, bdt):
    """make_binary's self_b (b_step 0) or self_ab (b_step 1) body on a's elements [lo, hi)."""
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 2)
        a = carray(address_as(block[0], dt), hi)
        b = carray(address_as(block[1], bdt), hi if b_step else 1)
        body(a[lo:hi], b, lo * b_step)
    return cpu_cfunc(native).address


def _same_run(out, buf, off):
    """Whether out is buf's run from off (an in-place op's output: the same memory)."""
    return out.dtype == buf.dtype and out.ctypes.data == buf.ctypes.data + off * buf.itemsize


def _native_mul_backward(dt):
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 5)
        g = carray(address_as(block[0], dt), hi)
        a = carray(address_as(block[1], dt), hi)
        b = carray(address_as(block[2], dt), hi)
        ga = carray(address_as(block[3], dt), hi)
        gb = carray(address_as(block[4], dt), hi)
        _mul_backward_contiguous(g, lo, a, lo, b, lo, ga[lo:hi], gb[lo:hi])
    return cpu_cfunc(native).address


# A native function reads and writes through raw addresses, where a kernel's slices would
# clip: each operand is checked to hold the elements it reads (the entry points' plans make
# it so; this keeps a wrong plan from touching memory outside a buffer).

def _native_split_unary(op, kernel, buf, off, out, n, same=None):
    """same: whether out is buf's run from off (None: look; the small-op shortcuts know)."""
    if not worth_native(n, op not in _MEMORY_BOUND_UNARY) or buf.dtype.kind != "f" or buf.dtype not in _NATIVE \
            or out.dtype not in _NATIVE or not (0 <= off and off + n <= buf.size and n <= out.size):
        return False
    if same if same is not None else _same_run(out, buf, off):
        # in place: the kernel without a second view of x (8x for sigmoid_)
        fn = native_function(("unary_self", op, out.dtype), _native_unary_self, _unary_kernels[op][_IN_PLACE].py_func,
                             out.dtype.type)
        return run_native(fn, n, (out,), (0,))
    fn = native_function(("unary", op, buf.dtype, out.dtype), _native_unary, kernel.py_func, buf.dtype.type,
                         out.dtype.type)
    return run_native(fn, n, (buf, out), (off, 0))


def _native_split_binary(op, path, kernel, abuf, aoff, bbuf, boff, out, n, same=None):
    """same: whether out is a's run from aoff (None: look; the small-op shortcuts know)."""
    a_n = 1 if path == SCALAR_A else n
    b_n = 1 if path == SCALAR_B else n
    if not worth_native(n, op in _COMPUTE_BOUND_BINARY) or abuf.dtype.kind != "f" or bbuf.dtype.kind != "f" \
            or abuf.dtype not in _NATIVE or bbuf.dtype not in _NATIVE or out.dtype not in _NATIVE \
            or not (0 <= aoff and aoff + a_n <= abuf.size and 0 <= boff and boff + b_n <= bbuf.size and n <= out.size):
        return False
    if path != SCALAR_A and (same if same is not None else _same_run(out, abuf, aoff)):
        # in place (as _native_split_unary)
        self_path = _SELF_B if path == SCALAR_B else _SELF_AB
        fn = native_function(("binary_self", op, self_path, out.dtype, bbuf.dtype), _native_binary_self,
                             _binary_kernels[op][self_path].py_func, int(path != SCALAR_B), out.dtype.type,
                             bbuf.dtype.type)
        return run_native(fn, n, (out, bbuf), (0, boff))
    fn = native_function(("binary", op, path, abuf.dtype, bbuf.dtype, out.dtype), _native_binary, kernel.py_func,
                         int(path != SCALAR_A), int(path != SCALAR_B), abuf.dtype.type, bbuf.dtype.type,
                         out.dtype.type)
    return run_native(fn, n, (abuf, bbuf, out), (aoff, boff, 0))


def _native_split_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, ga, gb, n):
    dtype = ga.dtype
    if not worth_native(n) or dtype.kind != "f" or dtype not in _NATIVE \
            or not gbuf.dtype == abuf.dtype == bbuf.dtype == gb.dtype == dtype \
            or not all(0 <= off and off + n <= buf.size for buf, off in ((gbuf, goff), (abuf, aoff), (bbuf, boff))):
        return False
    fn = native_function(("mul_backward", dtype), _native_mul_backward, dtype.type)
    return run_native(fn, n, (gbuf, abuf, bbuf, ga, gb), (goff, aoff, boff, 0, 0))


def _run_unary(op, kernels, plan, buf, off, out, n):
    contiguous, strided = kernels[:2]
    if plan[0] == CONTIGUOUS and n >= _threads.SPLIT_FLOOR and _native_split_unary(op, contiguous, buf, off, out, n):
        if _debug.ENABLED: _debug.log("unary", op=op, path="contiguous", n=n, dtype=buf.dtype, split="native")
        return
    split = n >= _threads.SPLIT_FLOOR and worth_splitting(n, op not in _MEMORY_BOUND_UNARY)
    if _debug.ENABLED: _debug.log("unary", op=op, path=PATH_NAMES[plan[0]], n=n, dtype=buf.dtype, split=split)
    if plan[0] == CONTIGUOUS:
        if split:
            run_split(lambda s, e: contiguous(buf, off + s, out[s:e]), n)
        else:
            contiguous(buf, off, out)
    elif split and plan[1][0] > 1:
        _split_outer(strided, plan[1], [(buf, off, plan[2][0])], out)
    else:
        strided(buf, off, plan[3][0], out, plan[4])


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


def _run_binary(op, kernels, plan, abuf, aoff, bbuf, boff, out, n):
    path = plan[0]
    if path != STRIDED and n >= _threads.SPLIT_FLOOR \
            and _native_split_binary(op, path, kernels[path], abuf, aoff, bbuf, boff, out, n):
        if _debug.ENABLED: _debug.log("binary", op=op, path=PATH_NAMES[path], n=n, dtype=abuf.dtype, split="native")
        return
    split = n >= _threads.SPLIT_FLOOR and worth_splitting(n, op in _COMPUTE_BOUND_BINARY)
    if _debug.ENABLED: _debug.log("binary", op=op, path=PATH_NAMES[path], n=n, dtype=abuf.dtype, split=split)
    if path != STRIDED:
        kernel = kernels[path]      # contiguous, scalar_a, scalar_b: in CONTIGUOUS.. order
        if split:
            sa, sb = plan[2][0][0], plan[2][1][0]
            run_split(lambda s, e: kernel(abuf, aoff + s * sa, bbuf, boff + s * sb, out[s:e]), n)
        else:
            kernel(abuf, aoff, bbuf, boff, out)
    elif split and plan[1][0] > 1:
        _split_outer(kernels[3], plan[1], [(abuf, aoff, plan[2][0]), (bbuf, boff, plan[2][1])], out)
    else:
        cshape = plan[1]
        if len(cshape) == 2:
            inner = cshape[1]
            (a0, a1), (b0, b1) = plan[2]
            if a1 == 1 and b1 == 1:
                if a0 == inner and b0 == 0:         # dense a, one row of b for every row
                    kernels[4](abuf, aoff, bbuf, boff, out, inner)
                    return
                if b0 == inner and a0 == 0:
                    kernels[5](abuf, aoff, bbuf, boff, out, inner)
                    return
        kernels[3](abuf, aoff, plan[3][0], bbuf, boff, plan[3][1], out, plan[4])




# The small-op shortcuts: binary(), unary() and mul_backward() of dense row-major operands
# of one shape, with none of the plan lookup and view unpacking of the general entry
# points (a small op's cost is its Python: W5, W8; and ~2-3 us of a 64K-element op's
# ~18 us).  Each returns None for a call it does not serve (one the thresholds would split
# across threads, a dtype the kernels do not read natively, NBGRAD_DEBUG on, which logs
# the general path's decisions); the caller then takes the general entry point.
def binary_dense(op, abuf, aoff, bbuf, boff, n, out_dtype, out=None, b_scalar=False, a_scalar=False,
                 out_is_a=False):
    """binary(op) of two operands of n elements each (b_scalar, a_scalar: that operand is
    one element, read for all n), into a new buffer (or into `out`, n elements that may be
    a's own: out_is_a says they are, an in-place op's call)."""
    if n == 0 or _debug.ENABLED or out_dtype not in _NATIVE or abuf.dtype not in _NATIVE \
            or bbuf.dtype not in _NATIVE:
        return None
    if n >= _threads.SPLIT_FLOOR and may_split(n, op in _COMPUTE_BOUND_BINARY):
        return _binary_dense_split(op, abuf, aoff, bbuf, boff, n, out_dtype, out, b_scalar, a_scalar, out_is_a)
    if out is None:
        # (below SPLIT_FLOOR np.empty, new_buffer's own fast path without the call; larger
        # outputs from the pool, _allocator.py: no fresh pages to fault in)
        out = np.empty(n, out_dtype) if n < _threads.SPLIT_FLOOR else new_buffer(n, out_dtype)
    elif out_is_a and not a_scalar and out.dtype == abuf.dtype:
        _binary_kernels[op][_SELF_B if b_scalar else _SELF_AB](out, bbuf, boff)
        return out
    path = CONTIGUOUS if n == 1 else SCALAR_B if b_scalar else SCALAR_A if a_scalar else CONTIGUOUS
    _binary_kernels[op][path](abuf, aoff, bbuf, boff, out)
    return out


_SELF_B, _SELF_AB = 6, 7        # make_binary's in-place kernels


# A dense call large enough to split goes from the shortcut straight to the team's native
# entry points (_native_split_*), without the general entry point's plan and view unpacking:
# that Python (~5-7 us) decided where splitting pays (a 64K-element mul: 10.8 us whole on one
# thread, 13 us split through the general path, 9.5 us split from here).  A call the team
# cannot take (busy with another thread's call, an integer dtype) or the pool would split
# (worth_splitting without a native entry point) goes the general way.
def _binary_dense_split(op, abuf, aoff, bbuf, boff, n, out_dtype, out, b_scalar, a_scalar, out_is_a):
    if not worth_native(n, op in _COMPUTE_BOUND_BINARY):
        return None
    path = SCALAR_B if b_scalar else SCALAR_A if a_scalar else CONTIGUOUS
    same = out is not None and out_is_a and not a_scalar and out.dtype == abuf.dtype
    target = new_buffer(n, out_dtype) if out is None else out
    if _native_split_binary(op, path, _binary_kernels[op][path], abuf, aoff, bbuf, boff, target, n, same):
        return target
    return None


def _unary_dense_split(op, buf, off, n, out_dtype, out, out_is_x):
    if not worth_native(n, op not in _MEMORY_BOUND_UNARY):
        return None
    same = out is not None and out_is_x and out.dtype == buf.dtype
    target = new_buffer(n, out_dtype) if out is None else out
    if _native_split_unary(op, _unary_kernels[op][CONTIGUOUS], buf, off, target, n, same):
        return target
    return None


@_kernel
def _clamp_run(a, aoff, bounds, out):
    lo, hi = bounds[0], bounds[1]
    as_ = a[aoff:aoff + out.size]
    for i in range(out.size):
        out[i] = _minimum(_maximum(as_[i], lo), hi)


@_kernel
def _clamp_self(a, bounds):
    lo, hi = bounds[0], bounds[1]
    for i in range(a.size):
        a[i] = _minimum(_maximum(a[i], lo), hi)


def clamp_dense(buf, off, n, bounds, out=None, out_is_a=False):
    """clamp of n elements by two number bounds (bounds: a buffer [min, max] of buf's dtype)
    in one pass: binary(minimum) of binary(maximum)'s result, element by element, so the
    same bits.  Into a new buffer, or into `out` (n elements; out_is_a: buf's own run)."""
    dt = buf.dtype
    if n == 0 or _debug.ENABLED or dt not in _NATIVE or bounds.dtype != dt \
            or (n >= _threads.SPLIT_FLOOR and may_split(n)):
        return None
    if out is None:
        out = np.empty(n, dt) if n < _threads.SPLIT_FLOOR else new_buffer(n, dt)
    elif out_is_a:
        _clamp_self(out, bounds)
        return out
    _clamp_run(buf, off, bounds, out)
    return out


def unary_dense(op, buf, off, n, out_dtype, out=None, out_is_x=False):
    """unary(op) of a floating operand of n elements, into a new buffer (or into `out`, n
    elements that may be the operand's own: out_is_x says they are, an in-place op's call)."""
    if n == 0 or _debug.ENABLED or out_dtype not in _NATIVE or buf.dtype.kind != "f" or buf.dtype not in _NATIVE:
        return None
    if n >= _threads.SPLIT_FLOOR and may_split(n, op not in _MEMORY_BOUND_UNARY):
        return _unary_dense_split(op, buf, off, n, out_dtype, out, out_is_x)
    if out is None:
        out = np.empty(n, out_dtype) if n < _threads.SPLIT_FLOOR else new_buffer(n, out_dtype)
    elif out_is_x and out.dtype == buf.dtype:
        _unary_kernels[op][_IN_PLACE](out)
        return out
    _unary_kernels[op][CONTIGUOUS](buf, off, out)
    return out


_IN_PLACE = 2       # make_unary's in-place kernel


def mul_backward_dense(gbuf, goff, abuf, aoff, bbuf, boff, n):
    """mul_backward() of three operands of n elements each: (g * b, g * a) in one pass."""
    if n == 0 or _debug.ENABLED or gbuf.dtype not in _NATIVE:
        return None
    if n >= _threads.SPLIT_FLOOR and may_split(n):
        if not worth_native(n):
            return None
        ga, gb = new_buffer(n, gbuf.dtype), new_buffer(n, gbuf.dtype)        # (as _binary_dense_split)
        return (ga, gb) if _native_split_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, ga, gb, n) else None
    small = n < _threads.SPLIT_FLOOR
    ga = np.empty(n, gbuf.dtype) if small else new_buffer(n, gbuf.dtype)
    gb = np.empty(n, gbuf.dtype) if small else new_buffer(n, gbuf.dtype)
    _mul_backward_contiguous(gbuf, goff, abuf, aoff, bbuf, boff, ga, gb)
    return ga, gb


def _run_where(plan, cbuf, coff, abuf, aoff, bbuf, boff, out, n):
    if _debug.ENABLED: _debug.log("where", path=PATH_NAMES[plan[0]], n=n, dtype=abuf.dtype)
    if plan[0] == CONTIGUOUS:
        _where_contiguous(cbuf, coff, abuf, aoff, bbuf, boff, out)
    else:
        (ccs, cas, cbs) = plan[3]
        _where_strided(cbuf, coff, ccs, abuf, aoff, cas, bbuf, boff, cbs, out, plan[4])


def _run_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, n, dtype):
    ga = new_buffer(n, dtype)
    gb = new_buffer(n, dtype)
    if _debug.ENABLED: _debug.log("mul_backward", path="contiguous", n=n, dtype=dtype)
    if _native_split_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, ga, gb, n):
        return ga, gb
    if worth_splitting(n):
        run_split(lambda s, e: _mul_backward_contiguous(gbuf, goff + s, abuf, aoff + s, bbuf, boff + s,
                                                        ga[s:e], gb[s:e]), n)
    else:
        _mul_backward_contiguous(gbuf, goff, abuf, aoff, bbuf, boff, ga, gb)
    return ga, gb


def _fill(out, value):
    out[:] = value


# The entry points, written once for both devices (nbgrad/backends/_shared/elementwise.py).
unary, binary, where, mul_backward = entry_points(SimpleNamespace(
    empty=new_buffer, on_device=None, copy=copy, fill=_fill,
    unary_kernels=_unary_kernels, binary_kernels=_binary_kernels,
    run_unary=_run_unary, run_binary=_run_binary, run_where=_run_where, run_mul_backward=_run_mul_backward,
    log=""))
