"""Host transfers and compaction: from_host (a copy of a host array) and nonzero."""
import numpy as np
from numba import njit

from .strided_copy import copy
from .._shared.geometry import contiguous_strides


def from_host(array):
    """A new 1-D buffer holding a C-order copy of a host numpy array's values."""
    return np.array(array, copy=True, order="C").reshape(-1)


@njit(cache=True)
def _nonzero_kernel(flat, shape, out):
    # flat: the values in C order; writes the multi-index of each nonzero into out rows
    ndim = shape.size
    k = 0
    for i in range(flat.size):
        if flat[i] != 0:
            rem = i
            for d in range(ndim - 1, -1, -1):
                out[k, d] = rem % shape[d]
                rem //= shape[d]
            k += 1
    return k


def nonzero(view):
    """(int64 buffer of shape (n, ndim) in C order, n): indices of nonzero elements."""
    buf, offset, shape, strides = view
    n = int(np.prod(shape)) if len(shape) else 1
    flat = np.empty(n, dtype=buf.dtype)
    copy(view, (flat, 0, tuple(shape), contiguous_strides(tuple(shape))))
    if flat.dtype == np.bool_:
        flat = flat.view(np.uint8)
    out = np.empty((n, max(len(shape), 1)), dtype=np.int64)
    count = _nonzero_kernel(flat, np.array(shape if len(shape) else (1,), dtype=np.int64), out)
    if len(shape) == 0:
        return np.empty(0, dtype=np.int64), count
    return np.ascontiguousarray(out[:count]).reshape(-1), count
