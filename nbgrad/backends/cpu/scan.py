"""Cumulative sums and products along one dim (cumsum, cumprod).

The wrapper copies the input, in the result's dtype, into a contiguous buffer
(outer, n, inner); the kernel then scans it in place, one row of `inner`
accumulators per step along the dim (the inner loop runs over contiguous memory).
As PyTorch's CPU kernel: accumulators are float64 for floats, int64 for integers,
and every output is the accumulator rounded once to the result's dtype.
"""
import numpy as np
from numba import njit

from .._shared.geometry import contiguous_strides, numel
from ._allocator import new_buffer
from .strided_copy import copy

_kernel = njit(cache=True, error_model="numpy", nogil=True)

SCAN_OPS = ("sum", "prod")


@_kernel
def _scan_rows(buf, outer, n, inner, is_prod, acc):
    for o in range(outer):
        base = o * n * inner
        for k in range(inner):
            acc[k] = 1 if is_prod else 0
        for j in range(n):
            row = base + j * inner
            for k in range(inner):
                if is_prod:
                    acc[k] *= buf[row + k]
                else:
                    acc[k] += buf[row + k]
                buf[row + k] = acc[k]


def _acc_dtype(dtype):
    return np.float64 if np.dtype(dtype).kind == "f" else np.int64


def cumulative(op, x_view, dim, out_dtype):
    """-> contiguous buffer of x's shape: the running sum ('sum') or product ('prod') along dim."""
    buf, offset, shape, strides = x_view
    shape = tuple(shape)
    total = numel(shape)
    out = new_buffer(total, np.dtype(out_dtype))
    if total == 0:
        return out
    copy((buf, offset, shape, tuple(strides)), (out, 0, shape, contiguous_strides(shape)))
    if len(shape) == 0:
        return out
    n = shape[dim]
    inner = numel(shape[dim + 1:])
    _scan_rows(out, total // (n * inner), n, inner, op == "prod", np.empty(inner, _acc_dtype(out_dtype)))
    return out
