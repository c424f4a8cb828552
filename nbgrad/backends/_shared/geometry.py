"""Pure-Python geometry of strided views, for both backends: coalescing dims, contiguity, batch offsets.

Nothing here is jitted: kernels only ever see the int64 arrays these helpers
produce.
"""
import math

import numpy as np


def numel(shape):
    return math.prod(shape)


_CONTIGUOUS = {}        # shape tuple -> its strides: the backends ask for the same few shapes per op


def contiguous_strides(shape):
    """C-order strides (in elements) of a dense array of `shape`."""
    hashable = isinstance(shape, tuple)
    if hashable:
        found = _CONTIGUOUS.get(shape)
        if found is not None:
            return found
    strides = [0] * len(shape)
    step = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= max(shape[d], 1)
    strides = tuple(strides)
    if hashable and len(_CONTIGUOUS) < 4096:
        _CONTIGUOUS[tuple(shape)] = strides
    return strides


def coalesce(shape, strides_list):
    """Drop size-1 dims and merge neighbours that are contiguous for every operand.

    Dims i (outer) and i+1 (inner) merge when, for every operand,
    stride[i] == stride[i+1] * shape[i+1]; the flat C order is unchanged, so
    a flat index over the result is a flat index over the input.  Returns
    (shape, [strides per operand]) as lists with at least one dim; the
    caller handles numel == 0 before calling.
    """
    out_shape = []
    out_strides = [[] for _ in strides_list]
    for d, n in enumerate(shape):
        if n == 1:
            continue
        if out_shape and all(s[-1] == st[d] * n for s, st in zip(out_strides, strides_list)):
            out_shape[-1] *= n
            for s, st in zip(out_strides, strides_list):
                s[-1] = st[d]
        else:
            out_shape.append(n)
            for s, st in zip(out_strides, strides_list):
                s.append(st[d])
    if not out_shape:
        return [1], [[0] for _ in strides_list]
    return out_shape, out_strides


def as_index_array(values):
    return np.array(values, dtype=np.int64)


def is_c_matrix(rows, cols, s_rows, s_cols):
    """True when a (rows, cols) block with these strides is C-contiguous."""
    return (cols == 1 or s_cols == 1) and (rows == 1 or s_rows == cols)


def is_f_matrix(rows, cols, s_rows, s_cols):
    """True when a (rows, cols) block with these strides is F-contiguous."""
    return (rows == 1 or s_rows == 1) and (cols == 1 or s_cols == rows)


_SINGLE_OFFSETS = {}


def batch_offsets(offset, shape, strides):
    """Element offset of every index of `shape` (C order) as an int64 array.  The
    one-matrix case (every 2-D matmul) returns a cached array: callers only read it
    (a read-only flag would give Numba a second array type to compile for)."""
    if not shape:
        offsets = _SINGLE_OFFSETS.get(offset)
        if offsets is None:
            offsets = np.full(1, offset, dtype=np.int64)
            if len(_SINGLE_OFFSETS) < 1024:
                _SINGLE_OFFSETS[offset] = offsets
        return offsets
    offsets = np.full(1, offset, dtype=np.int64)
    for n, s in zip(shape, strides):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64) * s).ravel()
    return offsets
