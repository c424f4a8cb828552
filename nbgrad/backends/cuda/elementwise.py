"""Elementwise kernels: unary, binary and where as grid-stride loops over strided, broadcast views.

Scalar math is written once: most functions are the CPU backend's own plain
Python functions (nbgrad/backends/cpu/elementwise.py), compiled here as CUDA
device functions.  The CPU's transcendental functions call numpy ufuncs, which
numba-cuda does not compile in device code; their GPU twins below use `math`
(libdevice).  floor/ceil/trunc/round/sign are rewritten as plain logic (the
CPU's use ufuncs, or subtract bools, which numpy scalars refuse).
Dispatch mirrors the CPU: coalesce dims, then a contiguous kernel (and
broadcast-scalar variants for binary ops) or one general strided kernel.
"""
import math

import numpy as np
from numba import cuda

from ... import _debug
from ..cpu import elementwise as cpu
from .._shared.geometry import coalesce, contiguous_strides, numel
from ._device import SIMULATOR, as_device, device_array, device_fn, geometry, jit, launch
from .strided_copy import copy

# --------------------------------------------------------------------------- #
# Twins of the CPU scalar functions that call numpy ufuncs

_TWO52 = 4503599627370496.0  # at or above this magnitude a double is an integer


def _exp(x):
    return math.exp(x)


def _exp2(x):
    return math.pow(2.0, x)


def _log(x):
    return math.log(x)


def _log2(x):
    return math.log2(x)


def _log10(x):
    return math.log10(x)


def _log1p(x):
    return math.log1p(x)


def _expm1(x):
    return math.expm1(x)


def _sqrt(x):
    return math.sqrt(x)


def _rsqrt(x):
    return 1.0 / math.sqrt(x)


def _sin(x):
    return math.sin(x)


def _cos(x):
    return math.cos(x)


def _tan(x):
    return math.tan(x)


def _asin(x):
    return math.asin(x)


def _acos(x):
    return math.acos(x)


def _atan(x):
    return math.atan(x)


def _sinh(x):
    return math.sinh(x)


def _cosh(x):
    return math.cosh(x)


def _tanh(x):
    return math.tanh(x)


def _sigmoid(x):
    # Never exponentiate a positive number (as the CPU's).
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _sign(x):
    # PyTorch: sign(nan) == 0; written with branches (numpy bools do not subtract).
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def _trunc(x):
    if not abs(x) < _TWO52:  # nan, inf, or already an integer
        return x
    return math.copysign(float(int(x)), x)


def _floor(x):
    t = _trunc_dev(x)
    return t - 1 if t > x else t


def _ceil(x):
    t = _trunc_dev(x)
    return t + 1 if t < x else t


def _round(x):
    # half to even
    if not abs(x) < _TWO52:
        return x
    f = _floor_dev(x)
    d = x - f
    if d > 0.5 or (d == 0.5 and f - 2.0 * _floor_dev(f * 0.5) != 0):
        f += 1
    return math.copysign(f, x)


def _atan2(a, b):
    return math.atan2(a, b)


def _hypot(a, b):
    return math.hypot(a, b)


_trunc_dev = device_fn(_trunc)
_floor_dev = device_fn(_floor)

# On a GPU, `math` compiles to libdevice, whose special values (log(0) = -inf,
# exp overflow = inf, log(-1) = nan) are C's and numpy's.  Under the simulator
# `math` is Python's, which raises on those, so the simulator keeps the CPU's
# numpy-scalar functions for the transcendental ops.
_GPU_MATH = {
    "exp": _exp, "exp2": _exp2, "log": _log, "log2": _log2, "log10": _log10, "log1p": _log1p,
    "expm1": _expm1, "sqrt": _sqrt, "rsqrt": _rsqrt, "sin": _sin, "cos": _cos, "tan": _tan,
    "asin": _asin, "acos": _acos, "atan": _atan, "sinh": _sinh, "cosh": _cosh, "tanh": _tanh,
    "sigmoid": _sigmoid, "atan2": _atan2, "hypot": _hypot,
}
# Pure-logic twins, used everywhere (so the simulator tests them).
_LOGIC = {"sign": _sign, "trunc": _trunc, "floor": _floor, "ceil": _ceil, "round": _round}


def _numpy_scalar(ufunc):
    def scalar(*args):
        return ufunc(*args)
    return scalar


def _sim_sigmoid(x):
    if x >= 0:
        return 1 / (1 + np.exp(-x))
    z = np.exp(x)
    return z / (1 + z)


_SIM_MATH = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "atan2": np.arctan2, "hypot": np.hypot,
}
_SIM_MATH = {op: _numpy_scalar(u) for op, u in _SIM_MATH.items()}
_SIM_MATH["rsqrt"] = lambda x: 1 / np.sqrt(x)
_SIM_MATH["sigmoid"] = _sim_sigmoid
_TWINS = {**(_SIM_MATH if SIMULATOR else _GPU_MATH), **_LOGIC}

_UNARY_FNS = {op: _TWINS.get(op, fn) for op, fn in cpu._UNARY_FNS.items()}
_BINARY_FNS = {op: _TWINS.get(op, fn) for op, fn in cpu._BINARY_FNS.items()}

UNARY_OPS = cpu.UNARY_OPS
BINARY_OPS = cpu.BINARY_OPS


# --------------------------------------------------------------------------- #
# Templates

def make_unary(fn):
    f = device_fn(fn)

    @jit
    def contiguous(x, xoff, out, n):
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            out[i] = f(x[xoff + i])

    @jit
    def strided(x, xoff, out, n, geom, nd):
        # geom: shape[nd], x strides[nd]
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            rem = i
            px = xoff
            for d in range(nd - 1, -1, -1):
                size = geom[d]
                q = rem // size
                px += (rem - q * size) * geom[nd + d]
                rem = q
            out[i] = f(x[px])

    return contiguous, strided


def make_binary(fn):
    f = device_fn(fn)

    @jit
    def contiguous(a, aoff, b, boff, out, n):
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            out[i] = f(a[aoff + i], b[boff + i])

    @jit
    def scalar_b(a, aoff, b, boff, out, n):
        bv = b[boff]
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            out[i] = f(a[aoff + i], bv)

    @jit
    def scalar_a(a, aoff, b, boff, out, n):
        av = a[aoff]
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            out[i] = f(av, b[boff + i])

    @jit
    def strided(a, aoff, b, boff, out, n, geom, nd):
        # geom: shape[nd], a strides[nd], b strides[nd]
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            rem = i
            pa = aoff
            pb = boff
            for d in range(nd - 1, -1, -1):
                size = geom[d]
                q = rem // size
                idx = rem - q * size
                rem = q
                pa += idx * geom[nd + d]
                pb += idx * geom[2 * nd + d]
            out[i] = f(a[pa], b[pb])

    return contiguous, scalar_a, scalar_b, strided


@jit
def _where_contiguous(c, coff, a, aoff, b, boff, out, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        if c[coff + i]:
            out[i] = a[aoff + i]
        else:
            out[i] = b[boff + i]


@jit
def _where_strided(c, coff, a, aoff, b, boff, out, n, geom, nd):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        rem = i
        pc = coff
        pa = aoff
        pb = boff
        for d in range(nd - 1, -1, -1):
            size = geom[d]
            q = rem // size
            idx = rem - q * size
            rem = q
            pc += idx * geom[nd + d]
            pa += idx * geom[2 * nd + d]
            pb += idx * geom[3 * nd + d]
        if c[pc]:
            out[i] = a[pa]
        else:
            out[i] = b[pb]


_unary_kernels = {}
_binary_kernels = {}


def unary_kernels(op):
    kernels = _unary_kernels.get(op)
    if kernels is None:
        kernels = _unary_kernels[op] = make_unary(_UNARY_FNS[op])
    return kernels


def binary_kernels(op):
    kernels = _binary_kernels.get(op)
    if kernels is None:
        kernels = _binary_kernels[op] = make_binary(_BINARY_FNS[op])
    return kernels


def unary(op, x_view, out_dtype):
    buf, off, shape, strides = x_view
    n = numel(shape)
    out = device_array(n, out_dtype)
    if n == 0:
        return out
    buf = as_device(buf)
    kind = buf.dtype.kind
    if kind in "biu":
        if op in cpu._INTEGER_IDENTITY or (op == "abs" and kind in "bu"):
            copy((buf, off, shape, strides), (out, 0, shape, contiguous_strides(shape)))
            return out
        if op in ("isnan", "isinf", "isfinite"):
            from .strided_copy import fill
            fill((out, 0, (n,), (1,)), op == "isfinite")
            return out
        if op == "bitwise_not" and kind == "b":
            op = "logical_not"
    contiguous, strided = unary_kernels(op)
    cshape, (cst,) = coalesce(shape, [strides])
    blocks, threads = launch(n)
    if len(cshape) == 1 and cst[0] == 1:
        if _debug.ENABLED: _debug.log("cuda.unary", op=op, path="contiguous", n=n, blocks=blocks, threads=threads)
        contiguous[blocks, threads](buf, off, out, n)
    else:
        if _debug.ENABLED: _debug.log("cuda.unary", op=op, path="strided", n=n, blocks=blocks, threads=threads)
        strided[blocks, threads](buf, off, out, n, geometry(cshape, cst), len(cshape))
    return out


def binary(op, a_view, b_view, out_shape, out_dtype, out=None):
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    out_shape = tuple(out_shape)
    n = numel(out_shape)
    if out is None:
        out = device_array(n, out_dtype)
    if n == 0:
        return out
    abuf, bbuf = as_device(abuf), as_device(bbuf)
    contiguous, scalar_a, scalar_b, strided = binary_kernels(op)
    cshape, (cas, cbs) = coalesce(out_shape, [ast, bst])
    blocks, threads = launch(n)
    if len(cshape) == 1:
        sa, sb = cas[0], cbs[0]
        if sa == 1 and sb == 1:
            if _debug.ENABLED: _debug.log("cuda.binary", op=op, path="contiguous", n=n, blocks=blocks, threads=threads)
            contiguous[blocks, threads](abuf, aoff, bbuf, boff, out, n)
            return out
        if sa == 1 and sb == 0:
            if _debug.ENABLED: _debug.log("cuda.binary", op=op, path="scalar_b", n=n, blocks=blocks, threads=threads)
            scalar_b[blocks, threads](abuf, aoff, bbuf, boff, out, n)
            return out
        if sa == 0 and sb == 1:
            if _debug.ENABLED: _debug.log("cuda.binary", op=op, path="scalar_a", n=n, blocks=blocks, threads=threads)
            scalar_a[blocks, threads](abuf, aoff, bbuf, boff, out, n)
            return out
    if _debug.ENABLED: _debug.log("cuda.binary", op=op, path="strided", n=n, blocks=blocks, threads=threads)
    strided[blocks, threads](abuf, aoff, bbuf, boff, out, n, geometry(cshape, cas, cbs), len(cshape))
    return out


def where(cond_view, a_view, b_view, out_shape, out_dtype):
    cbuf, coff, _, cst = cond_view
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    out_shape = tuple(out_shape)
    n = numel(out_shape)
    out = device_array(n, out_dtype)
    if n == 0:
        return out
    cbuf, abuf, bbuf = as_device(cbuf), as_device(abuf), as_device(bbuf)
    cshape, (ccs, cas, cbs) = coalesce(out_shape, [cst, ast, bst])
    blocks, threads = launch(n)
    if len(cshape) == 1 and ccs[0] == 1 and cas[0] == 1 and cbs[0] == 1:
        if _debug.ENABLED: _debug.log("cuda.where", path="contiguous", n=n, blocks=blocks, threads=threads)
        _where_contiguous[blocks, threads](cbuf, coff, abuf, aoff, bbuf, boff, out, n)
    else:
        if _debug.ENABLED: _debug.log("cuda.where", path="strided", n=n, blocks=blocks, threads=threads)
        _where_strided[blocks, threads](cbuf, coff, abuf, aoff, bbuf, boff, out, n,
                                        geometry(cshape, ccs, cas, cbs), len(cshape))
    return out


@jit
def _mul_backward_contiguous(g, goff, a, aoff, b, boff, ga, gb, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        gv = g[goff + i]
        ga[i] = gv * b[boff + i]
        gb[i] = gv * a[aoff + i]


def mul_backward(g_view, a_view, b_view, need_a=True, need_b=True):
    """Both gradients of out = a * b, (g * b, g * a), in one pass when all three are
    contiguous (the CPU's contract: None for a gradient not needed)."""
    gbuf, goff, shape, gst = g_view
    abuf, aoff, _, ast = a_view
    bbuf, boff, _, bst = b_view
    shape = tuple(shape)
    n = numel(shape)
    if not (need_a and need_b) or n == 0:
        ga = binary("mul", g_view, b_view, shape, gbuf.dtype) if need_a else None
        gb = binary("mul", g_view, a_view, shape, gbuf.dtype) if need_b else None
        return ga, gb
    cshape, (cgs, cas, cbs) = coalesce(shape, [gst, ast, bst])
    if not (len(cshape) == 1 and cgs[0] == 1 and cas[0] == 1 and cbs[0] == 1):
        return (binary("mul", g_view, b_view, shape, gbuf.dtype),
                binary("mul", g_view, a_view, shape, gbuf.dtype))
    ga = device_array(n, gbuf.dtype)
    gb = device_array(n, gbuf.dtype)
    blocks, threads = launch(n)
    _mul_backward_contiguous[blocks, threads](as_device(gbuf), goff, as_device(abuf), aoff, as_device(bbuf), boff,
                                              ga, gb, n)
    return ga, gb
