"""Cumulative sums and products along one dim on the GPU: a thread per (outer, inner)
column, walking the dim in order (the CPU backend's accumulation: float64 for floats,
int64 for integers, float32 for the half types, each output rounded once)."""
import numpy as np
from numba import cuda

from .._shared.geometry import contiguous_strides, numel
from ._device import device_array, jit, launch, to_device
from .strided_copy import copy


@jit
def _scan_columns(buf, columns, n, inner, is_prod, init):
    for c in range(cuda.grid(1), columns, cuda.gridsize(1)):
        o = c // inner
        k = c - o * inner
        p = o * n * inner + k
        acc = init[0]
        for j in range(n):
            if is_prod:
                acc *= buf[p]
            else:
                acc += buf[p]
            buf[p] = acc
            p += inner


def cumulative(op, x_view, dim, out_dtype, acc_dtype=None):
    """-> contiguous device buffer of x's shape: the running sum or product along dim."""
    buf, offset, shape, strides = x_view
    shape = tuple(shape)
    total = numel(shape)
    out = device_array(total, out_dtype)
    if total == 0:
        return out
    copy((buf, offset, shape, tuple(strides)), (out, 0, shape, contiguous_strides(shape)))
    if len(shape) == 0:
        return out
    n = shape[dim]
    inner = numel(shape[dim + 1:])
    columns = total // n
    acc = acc_dtype or (np.float64 if np.dtype(out_dtype).kind == "f" else np.int64)
    blocks, threads = launch(columns)
    _scan_columns[blocks, threads](out, columns, n, inner, op == "prod", to_device(np.ones(1, acc) * (op == "prod")))
    return out
