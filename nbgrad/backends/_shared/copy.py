"""The strided copy's casting rules and fill values, for both devices.

float -> int truncates toward zero (Numba's fptosi), x -> bool is x != 0,
bool -> number is 0/1.  A copy kernel is made once per conversion function.
"""
import math

import numpy as np
from numba.extending import overload, register_jitable

from .geometry import coalesce, numel

_scalar = register_jitable(error_model="numpy")


@_scalar
def as_is(x):
    return x


@_scalar
def to_bool(x):
    return x != 0


# float -> a narrow integer goes through a wide one first, then wraps, as PyTorch's CPU cast
# does (its compiler's int8/int16 cast truncates to int32 first; uint8 is its explicit
# static_cast_with_inter_type through int64): a bare store let LLVM's vectorized loops
# saturate instead (float32 -2.7 -> uint8 was 254 below 8 elements, 0 from 8 on).  In plain
# Python (NUMBA_DISABLE_JIT=1) NumPy's unsafe cast, silent as a compiled one.
def _wide_int(x, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dtype)[()]


def _to_int32(x):
    return _wide_int(x, np.int32)


def _to_int64(x):
    return _wide_int(x, np.int64)


@overload(_to_int32)
def _to_int32_typed(x):
    return lambda x: np.int32(x)


@overload(_to_int64)
def _to_int64_typed(x):
    return lambda x: np.int64(x)


@_scalar
def via_int32(x):
    return _to_int32(x)


@_scalar
def via_int64(x):
    return _to_int64(x)


_VIA_INT32 = frozenset(np.dtype(t) for t in (np.int8, np.int16))


def conversion(src_dtype, dst_dtype):
    """The conversion function of a copy from src_dtype to dst_dtype."""
    if dst_dtype == np.bool_:
        return as_is if src_dtype == np.bool_ else to_bool
    if src_dtype.kind == "f" and dst_dtype.kind in "iu":
        if dst_dtype == np.uint8:
            return via_int64
        if dst_dtype in _VIA_INT32:
            return via_int32
    return as_is


_SCALARS = {}       # (dtype, type, value) -> scalar, for nonzero non-nan Python numbers


def scalar_of(dtype, value):
    """`value` as a numpy scalar of `dtype`, by the copy casting rules."""
    kind = type(value)
    if (kind is int or kind is float) and value == value and (value or kind is int or math.copysign(1.0, value) > 0):
        # (a fill's value: zeros()'s 0, the implicit gradient's 1, ones(), full(); -0.0 and
        # nan are not cached: -0.0 == 0.0 as a key, nan != nan)
        key = (dtype, kind, value)
        found = _SCALARS.get(key)
        if found is None:
            found = _scalar_of(dtype, value)
            if len(_SCALARS) < 256:
                _SCALARS[key] = found
        return found
    return _scalar_of(dtype, value)


def _scalar_of(dtype, value):
    if dtype == np.bool_:
        return np.bool_(value != 0)
    if dtype.kind in "iu" and isinstance(value, float):
        value = int(value)  # truncate toward zero
    with np.errstate(over="ignore"):    # (1e40 as float32 is inf, silently, as PyTorch's cast)
        return np.array(value).astype(dtype)[()]


def fill_plan(dst_view, value):
    """(value as a scalar of dst's dtype, coalesced shape, dst's coalesced strides, numel) of a
    fill, or None when the view is empty."""
    dbuf, _, shape, dst_st = dst_view
    n = numel(shape)
    if n == 0:
        return None
    cshape, (cd,) = coalesce(list(shape), [list(dst_st)])
    return scalar_of(dbuf.dtype, value), cshape, cd, n


def copy_plan(src_view, dst_view):
    """(conversion function, coalesced shape, src strides, dst strides, numel) of a copy, or None
    when the view is empty.  Dims are first ordered by decreasing dst stride, so that the innermost
    dim is dst's densest (the CPU's inner loop, neighbouring CUDA threads)."""
    sbuf, _, _, sst = src_view
    dbuf, _, shape, dst_st = dst_view
    n = numel(shape)
    if n == 0:
        return None
    order = sorted(range(len(shape)), key=lambda d: -abs(dst_st[d]))
    cshape, (cs, cd) = coalesce([shape[d] for d in order], [[sst[d] for d in order], [dst_st[d] for d in order]])
    return conversion(sbuf.dtype, dbuf.dtype), cshape, cs, cd, n
