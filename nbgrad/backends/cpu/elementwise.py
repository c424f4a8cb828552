"""Elementwise kernels: scalar functions plus the unary, binary and where templates.

STALE-CACHE TRAP: Numba's cache key hashes only the file that holds a cached
function.  Every scalar function used by a kernel below therefore lives in
THIS file, next to the factories that compile it into kernels; editing any of
them changes this file's stamp and invalidates all its cached kernels.  Do not
import scalar functions from another file into these kernels.
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
Kernels are serial; a parallel variant (prange over the outer odometer chunks,
above a measured size threshold) would plug in where `_run_*` chooses a path.
"""
import math

import numpy as np
from numba import njit
from numba.extending import register_jitable

from ._geometry import as_index_array, coalesce, contiguous_strides, numel
from .strided_copy import copy  # a Python wrapper, not a jitted helper

# register_jitable keeps the plain Python function, which pickles by reference:
# factory closures over it get a cache key that is stable across processes
# (a Dispatcher pickles with a per-process uuid, so closures over one never
# hit the cache).
_scalar = register_jitable(error_model="numpy")
_kernel = njit(cache=True, error_model="numpy")


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
    return np.exp(x)


@_scalar
def _exp2(x):
    return np.exp2(x)


@_scalar
def _log(x):
    return np.log(x)


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
    # libm tanh saturates to +-1 for large |x| without overflow.
    return np.tanh(x)


@_scalar
def _sigmoid(x):
    # Never exponentiate a positive number: exp(-|x|) is in (0, 1].
    if x >= 0:
        z = np.exp(-x)
        return 1 / (1 + z)
    z = np.exp(x)
    return z / (1 + z)


@_scalar
def _relu(x):
    # NaN propagates (PyTorch's relu is clamp_min(x, 0)).
    if x > 0 or x != x:
        return x
    return 0


@_scalar
def _sign(x):
    # PyTorch: sign(nan) == 0 (numpy gives nan).
    return (x > 0) - (x < 0)


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
    return a % b  # Python semantics: sign of the divisor


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
    if x > 0:
        return g
    return 0


# --------------------------------------------------------------------------- #
# Templates

def make_unary(fn):
    """Kernels computing out[i] = fn(x[...]) for a contiguous output."""

    @_kernel
    def contiguous(x, xoff, out):
        for i in range(out.size):
            out[i] = fn(x[xoff + i])

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
            for j in range(inner):
                out[o + j] = fn(x[px + j * xs])
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
        for i in range(out.size):
            out[i] = fn(a[aoff + i], b[boff + i])

    @_kernel
    def scalar_b(a, aoff, b, boff, out):
        bv = b[boff]
        for i in range(out.size):
            out[i] = fn(a[aoff + i], bv)

    @_kernel
    def scalar_a(a, aoff, b, boff, out):
        av = a[aoff]
        for i in range(out.size):
            out[i] = fn(av, b[boff + i])

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
            for j in range(inner):
                out[o + j] = fn(a[pa + j * as_], b[pb + j * bs])
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
    for i in range(out.size):
        out[i] = a[aoff + i] if c[coff + i] else b[boff + i]


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
    "maximum": _maximum, "minimum": _minimum, "atan2": _atan2,
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
    n = numel(shape)
    out_dtype = np.dtype(out_dtype)
    out = np.empty(n, dtype=out_dtype)
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
    contiguous, strided = _unary_kernels_for(op)
    cshape, (cst,) = coalesce(shape, [strides])
    if len(cshape) == 1 and cst[0] == 1:
        contiguous(buf, off, out)
    else:
        strided(buf, off, as_index_array(cst), out, as_index_array(cshape))
    return out


def binary(op, a_view, b_view, out_shape, out_dtype):
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    out_shape = tuple(out_shape)
    n = numel(out_shape)
    out = np.empty(n, dtype=np.dtype(out_dtype))
    if n == 0:
        return out
    contiguous, scalar_a, scalar_b, strided = _binary_kernels_for(op)
    cshape, (cas, cbs) = coalesce(out_shape, [ast, bst])
    if len(cshape) == 1:
        sa, sb = cas[0], cbs[0]
        if sa == 1 and sb == 1:
            contiguous(abuf, aoff, bbuf, boff, out)
            return out
        if sa == 1 and sb == 0:
            scalar_b(abuf, aoff, bbuf, boff, out)
            return out
        if sa == 0 and sb == 1:
            scalar_a(abuf, aoff, bbuf, boff, out)
            return out
    strided(abuf, aoff, as_index_array(cas), bbuf, boff, as_index_array(cbs),
            out, as_index_array(cshape))
    return out


def where(cond_view, a_view, b_view, out_shape, out_dtype):
    cbuf, coff, _, cst = cond_view
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    out_shape = tuple(out_shape)
    n = numel(out_shape)
    out = np.empty(n, dtype=np.dtype(out_dtype))
    if n == 0:
        return out
    cshape, (ccs, cas, cbs) = coalesce(out_shape, [cst, ast, bst])
    if len(cshape) == 1 and ccs[0] == 1 and cas[0] == 1 and cbs[0] == 1:
        _where_contiguous(cbuf, coff, abuf, aoff, bbuf, boff, out)
    else:
        _where_strided(cbuf, coff, as_index_array(ccs), abuf, aoff, as_index_array(cas),
                       bbuf, boff, as_index_array(cbs), out, as_index_array(cshape))
    return out
