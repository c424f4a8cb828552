"""Sorting along one dim on the GPU: one thread per row, a stable insertion sort of indices.

The wrapper moves the sorted dim last and makes rows contiguous with the
strided copy, as the CPU backend does.  A thread per row is simple and fine
for the short rows sorting sees in training code (top-k of class scores);
long rows want a block-wide merge sort, not built yet.  NaN sorts as the
largest value, as in PyTorch.
"""
import numpy as np
from numba import cuda

from .._shared.geometry import contiguous_strides, numel
from ._device import device_array, jit, launch
from .strided_copy import copy


@jit
def _sort_rows(x, rows, n, descending, values, indices):
    for r in range(cuda.grid(1), rows, cuda.gridsize(1)):
        base = r * n
        for j in range(n):
            indices[base + j] = j
        for j in range(1, n):
            k = indices[base + j]
            key = x[base + k]
            i = j - 1
            while i >= 0:
                other = x[base + indices[base + i]]
                if descending:
                    before = key > other or (key != key and other == other)
                else:
                    before = key < other or (other != other and key == key)
                if not before:
                    break
                indices[base + i + 1] = indices[base + i]
                i -= 1
            indices[base + i + 1] = k
        for j in range(n):
            values[base + j] = x[base + indices[base + j]]


def sort(view, dim, descending):
    """(values, int64 indices) device buffers of view's shape, sorted along dim."""
    buf, offset, shape, strides = view
    shape, strides = tuple(shape), tuple(strides)
    total = numel(shape)
    values = device_array(total, buf.dtype)
    indices = device_array(total, np.int64)
    if total == 0:
        return values, indices
    perm = [d for d in range(len(shape)) if d != dim] + [dim]
    pshape = tuple(shape[d] for d in perm)
    rows_buf = device_array(total, buf.dtype)
    copy((buf, offset, pshape, tuple(strides[d] for d in perm)), (rows_buf, 0, pshape, contiguous_strides(pshape)))
    sorted_vals = device_array(total, buf.dtype)
    sorted_idx = device_array(total, np.int64)
    n = shape[dim]
    rows = total // n
    blocks, threads = launch(rows)
    _sort_rows[blocks, threads](rows_buf, rows, n, bool(descending), sorted_vals, sorted_idx)
    out_strides = contiguous_strides(shape)
    pstrides = tuple(out_strides[d] for d in perm)
    copy((sorted_vals, 0, pshape, contiguous_strides(pshape)), (values, 0, pshape, pstrides))
    copy((sorted_idx, 0, pshape, contiguous_strides(pshape)), (indices, 0, pshape, pstrides))
    return values, indices
