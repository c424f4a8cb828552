"""Sorting along one dim: values and int64 indices (sort, argsort, topk build on it).

The wrapper moves the sorted dim last and makes the rows contiguous with the
strided copy; one kernel argsorts each row (NumPy's ordering: NaN sorts as the
largest value, as in PyTorch) and gathers the values; the results are copied
back into the input's dim order.
"""
import numpy as np

from .._shared.geometry import contiguous_strides, numel
from .._shared import cpu_kernel
from .._shared import stdsort as S
from .strided_copy import copy

# sort's `order` argument: PyTorch's CPU tie orders (the op layer asks when a backend has it)
TIE_ORDERS = True

_kernel = cpu_kernel(nogil=True)       # (digest-keyed: the module compiles _shared helpers in)


@_kernel
def _sort_rows(x, rows, n, descending, values, indices):
    for r in range(rows):
        row = x[r * n:(r + 1) * n]
        order = np.argsort(row, kind="mergesort")      # stable ascending
        if not descending:
            for j in range(n):
                k = order[j]
                values[r * n + j] = row[k]
                indices[r * n + j] = k
            continue
        # descending and stable too (as PyTorch's and the CUDA backend's): runs of equal
        # values (NaN with NaN) taken from the end, each run in ascending index order
        j = 0
        e = n
        while e > 0:
            s = e - 1
            v = row[order[s]]
            while s > 0:
                w = row[order[s - 1]]
                if not (w == v or (w != w and v != v)):
                    break
                s -= 1
            for t in range(s, e):
                k = order[t]
                values[r * n + j] = row[k]
                indices[r * n + j] = k
                j += 1
            e = s


# PyTorch's CPU sort with stable=False sorts a 1-D integer tensor of at least this many
# elements ascending with fbgemm's radix sort, which is stable (can_use_radix_sort: GRAIN_SIZE)
_RADIX_MIN = 32768

_ORDERS = {"std": S.STD, "topk": S.TOPK, "topk_sorted": S.TOPK_SORTED, "kth": S.KTH, "mode": S.MODE}


@_kernel
def _arrange_rows(x, rows, n, order, cmp, kk, values, indices):
    S.arrange_rows(x, rows, n, order, cmp, kk, values, indices)


def sort(view, dim, descending, order="stable", k=0):
    """(values, int64 indices) buffers of view's shape, sorted along dim.

    order (TIE_ORDERS): "stable", or the arrangement of PyTorch's CPU kernel that leaves ties
    to its algorithm (nbgrad/backends/_shared/stdsort.py): "std" (sort with stable=False),
    "topk"/"topk_sorted" (the first k of each row), "kth" (position k - 1), "mode"
    (position 0); descending picks the comparator of "std" and "topk" (largest)."""
    buf, offset, shape, strides = view
    shape, strides = tuple(shape), tuple(strides)
    total = numel(shape)
    values = np.empty(total, dtype=buf.dtype)
    indices = np.empty(total, dtype=np.int64)
    if total == 0:
        return values, indices
    n = shape[dim]
    rows_in_place = dim == len(shape) - 1 and strides == contiguous_strides(shape)
    if rows_in_place:
        # row-major along the last dim (the common call): the rows are read where they lie and
        # the results written straight into values and indices (no copy in, none back: a
        # 16-element topk 45 -> 30 us)
        rows_buf = buf[offset:offset + total]
        perm = pshape = None
    else:
        perm = [d for d in range(len(shape)) if d != dim] + [dim]
        pshape = tuple(shape[d] for d in perm)
        rows_buf = np.empty(total, dtype=buf.dtype)
        copy((buf, offset, pshape, tuple(strides[d] for d in perm)), (rows_buf, 0, pshape, contiguous_strides(pshape)))
    if rows_in_place:
        sorted_vals, sorted_idx = values, indices
    else:
        sorted_vals, sorted_idx = np.empty(total, dtype=buf.dtype), np.empty(total, dtype=np.int64)
    sort_src = rows_buf
    if rows_buf.dtype == np.bool_:         # (the kernels compare bytes)
        sort_src, sorted_vals = rows_buf.view(np.uint8), sorted_vals.view(np.uint8)
    if order == "std" and len(shape) == 1 and not descending and buf.dtype.kind in "iu" and n >= _RADIX_MIN:
        order = "stable"
    if order == "stable":
        _sort_rows(sort_src, total // n, n, bool(descending), sorted_vals, sorted_idx)
    else:
        _arrange_rows(sort_src, total // n, n, _ORDERS[order], S.DESC if descending else S.ASC, int(k),
                      sorted_vals, sorted_idx)
    if rows_in_place:
        return values, indices
    if rows_buf.dtype == np.bool_:
        sorted_vals = sorted_vals.view(np.bool_)
    # back to the input's dim order: write the permuted-contiguous rows through permuted strides
    out_strides = contiguous_strides(shape)
    pstrides = tuple(out_strides[d] for d in perm)
    copy((sorted_vals, 0, pshape, contiguous_strides(pshape)), (values, 0, pshape, pstrides))
    copy((sorted_idx, 0, pshape, contiguous_strides(pshape)), (indices, 0, pshape, pstrides))
    return values, indices
