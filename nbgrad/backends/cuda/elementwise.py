"""Elementwise kernels: unary, binary and where as grid-stride loops over strided, broadcast views.

Scalar math is written once: most functions are the CPU backend's own plain
Python functions (nbgrad/backends/cpu/elementwise.py), compiled here as CUDA
device functions.  The CPU's transcendental functions call numpy ufuncs, which
numba-cuda does not compile in device code; their GPU twins below use `math`
(libdevice).  floor/ceil/trunc/round/sign are rewritten as plain logic (the
CPU's use ufuncs, or subtract bools, which numpy scalars refuse).
Dispatch is the CPU's own (nbgrad/backends/_shared/elementwise.py: the entry
points and the geometry plan, written once); this file launches the kernels of
the path the plan picked: a contiguous kernel (and broadcast-scalar variants
for binary ops) or one general strided kernel, whose threads find their
positions with the shared index walk (_shared/walk.py's strided_offsets).
"""
import math
from types import SimpleNamespace

import numpy as np
from numba import cuda

from ... import _debug
from ..cpu import elementwise as cpu
from .._shared import fast_math
from .._shared import special as _special
from .._shared import special_more as _special_more
from .._shared.elementwise import CONTIGUOUS, PATH_NAMES, STRIDED, LazyKernels, entry_points
from .._shared.walk import strided_offsets
from ._device import SIMULATOR, as_device, device_array, device_fn, geometry, jit, launch
from .strided_copy import copy, fill

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


def _asinh(x):
    return math.asinh(x)


def _acosh(x):
    return math.acosh(x)


def _atanh(x):
    return math.atanh(x)


def _erfc(x):
    return math.erfc(x)


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


_strided_offsets = device_fn(strided_offsets)
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
    "asinh": _asinh, "acosh": _acosh, "atanh": _atanh, "erfc": _erfc,
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
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
}
_SIM_MATH = {op: _numpy_scalar(u) for op, u in _SIM_MATH.items()}
_SIM_MATH["rsqrt"] = lambda x: 1 / np.sqrt(x)
_SIM_MATH["sigmoid"] = _sim_sigmoid
_TWINS = {**(_SIM_MATH if SIMULATOR else _GPU_MATH), **_LOGIC}
# the special functions: the CPU's pick float32 arithmetic for float32 operands at compile
# time; here (and under the simulator) every dtype computes through the float64 functions
_TWINS.update({op: cpu._calling(f"_{op}_double", getattr(_special, op + "_of"), 1)
               for op in ("digamma", "trigamma", "i0", "i0e", "i1", "i1e", "ndtri", "sinc", "erfcx", "log_ndtr")})
_TWINS["polygamma"] = cpu._calling("_polygamma_double", _special.polygamma_of, 2)
_TWINS.update({op: cpu._calling(f"_{op}_double", getattr(_special_more, op + "_of"), 1) for op in _special_more.UNARY})
_TWINS.update({op: cpu._calling(f"_{op}_double", getattr(_special_more, op + "_of"), 2) for op in _special_more.BINARY})

_UNARY_FNS = {op: _TWINS.get(op, fn) for op, fn in cpu._UNARY_FNS.items()}
_BINARY_FNS = {op: _TWINS.get(op, fn) for op, fn in cpu._BINARY_FNS.items()}


def _fma_gpu(a, b, c):
    return cuda.fma(a, b, c)


# a * b + c rounded once (the fused programs' "fma": add/sub with alpha, lerp, addcmul):
# the device's fma instruction; under the simulator the exact Python form
_TERNARY_FNS = {"fma": fast_math.fma if SIMULATOR else _fma_gpu}

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
            out[i] = f(x[_strided_offsets(i, geom, nd, 1, xoff, 0, 0)[0]])

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
            pa, pb, _ = _strided_offsets(i, geom, nd, 2, aoff, boff, 0)
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
    # geom: shape[nd], c, a and b strides[nd]
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        pc, pa, pb = _strided_offsets(i, geom, nd, 3, coff, aoff, boff)
        if c[pc]:
            out[i] = a[pa]
        else:
            out[i] = b[pb]


# Kernels are made lazily, on an op's first use: _unary_kernels[op].
_unary_kernels = LazyKernels(make_unary, _UNARY_FNS)
_binary_kernels = LazyKernels(make_binary, _BINARY_FNS)


def _run_unary(op, kernels, plan, buf, off, out, n):
    blocks, threads = launch(n)
    if _debug.ENABLED: _debug.log("cuda.unary", op=op, path=PATH_NAMES[plan[0]], n=n, blocks=blocks, threads=threads)
    if plan[0] == CONTIGUOUS:
        kernels[0][blocks, threads](buf, off, out, n)
    else:
        kernels[1][blocks, threads](buf, off, out, n, geometry(plan[1], *plan[2]), len(plan[1]))


def _run_binary(op, kernels, plan, abuf, aoff, bbuf, boff, out, n):
    path = plan[0]
    blocks, threads = launch(n)
    if _debug.ENABLED: _debug.log("cuda.binary", op=op, path=PATH_NAMES[path], n=n, blocks=blocks, threads=threads)
    if path != STRIDED:         # contiguous, scalar_a, scalar_b: in CONTIGUOUS.. order
        kernels[path][blocks, threads](abuf, aoff, bbuf, boff, out, n)
    else:
        kernels[path][blocks, threads](abuf, aoff, bbuf, boff, out, n, geometry(plan[1], *plan[2]), len(plan[1]))


def _run_where(plan, cbuf, coff, abuf, aoff, bbuf, boff, out, n):
    blocks, threads = launch(n)
    if _debug.ENABLED: _debug.log("cuda.where", path=PATH_NAMES[plan[0]], n=n, blocks=blocks, threads=threads)
    if plan[0] == CONTIGUOUS:
        _where_contiguous[blocks, threads](cbuf, coff, abuf, aoff, bbuf, boff, out, n)
    else:
        _where_strided[blocks, threads](cbuf, coff, abuf, aoff, bbuf, boff, out, n,
                                        geometry(plan[1], *plan[2]), len(plan[1]))


@jit
def _mul_backward_contiguous(g, goff, a, aoff, b, boff, ga, gb, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        gv = g[goff + i]
        ga[i] = gv * b[boff + i]
        gb[i] = gv * a[aoff + i]


def _run_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, n, dtype):
    ga = device_array(n, dtype)
    gb = device_array(n, dtype)
    blocks, threads = launch(n)
    _mul_backward_contiguous[blocks, threads](gbuf, goff, abuf, aoff, bbuf, boff, ga, gb, n)
    return ga, gb


def _fill(out, value):
    fill((out, 0, (out.size,), (1,)), value)


# The entry points, written once for both devices (nbgrad/backends/_shared/elementwise.py).
unary, binary, where, mul_backward = entry_points(SimpleNamespace(
    empty=device_array, on_device=as_device, copy=copy, fill=_fill,
    unary_kernels=_unary_kernels, binary_kernels=_binary_kernels,
    run_unary=_run_unary, run_binary=_run_binary, run_where=_run_where, run_mul_backward=_run_mul_backward,
    log="cuda."))
