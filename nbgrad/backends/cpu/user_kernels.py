"""Running a user's own @numba.njit kernel (nbgrad.custom_op) on tensors' memory.

The kernel receives NumPy arrays that alias the views (their strides, 0 for a
broadcast dim) and Python numbers as they are; it writes its results into the
arrays that alias the outputs (zero-filled first).  Nothing is copied here.
"""
import numpy as np

from .._shared.geometry import contiguous_strides


def _array(view):
    """A NumPy array aliasing the view: a slice for a row-major view (cheap), else an
    ndarray over the buffer with the view's strides."""
    buf, off, shape, strides = view
    if len(shape) == 1:
        (n,), (step,) = shape, strides          # (unpacked: a Size's [0] is a Python call)
        if step == 1 or n < 2:
            # a vector: the slice itself, no reshape (a new array object even for the whole
            # buffer: a kernel that is plain Python could set its shape)
            return buf[off:off + n]
    if tuple(strides) == contiguous_strides(shape) or len(shape) == 0:
        n = 1
        for s in shape:
            n *= s
        return buf[off:off + n].reshape(shape)
    item = buf.itemsize
    return np.ndarray(tuple(shape), buf.dtype, buffer=buf, offset=off * item,
                      strides=tuple(s * item for s in strides))


def run_user_kernel(kernel, args, launch=None, n_outputs=0):
    """kernel(*arrays): each view in args (a (buf, offset, shape, strides) tuple) as a
    NumPy array aliasing it, anything else passed as it is; the last n_outputs arrays are
    zero-filled first (outputs).  launch is CUDA's, unused."""
    arrays = [_array(a) if type(a) is tuple else a for a in args]
    for i in range(len(arrays) - n_outputs, len(arrays)):
        arrays[i].fill(0)
    kernel(*arrays)


# --------------------------------------------------------------------------- reductions
_JITTED = {}


def _jitted(combine):
    """combine compiled by Numba (once per function; an njit dispatcher is kept as it is)."""
    fn = _JITTED.get(combine)
    if fn is None:
        import numba
        fn = combine if isinstance(combine, numba.core.dispatcher.Dispatcher) else numba.njit(combine)
        if len(_JITTED) < 256:
            _JITTED[combine] = fn
    return fn


def _fold_rows(rows, combine, identity, out):
    for i in range(rows.shape[0]):
        acc = identity
        for j in range(rows.shape[1]):
            acc = combine(acc, rows[i, j])
        out[i] = acc


_fold_kernel = None


def user_reduce(combine, view, identity, dtype):
    """A buffer of m values: row i of the (m, k) contiguous view folded by the user's
    scalar combine(acc, value), starting from identity (nbgrad.reduction)."""
    global _fold_kernel
    import numpy as np
    if _fold_kernel is None:
        import numba
        _fold_kernel = numba.njit(nogil=True)(_fold_rows)    # specialised per combine function
    rows = _array(view)
    out = np.empty(rows.shape[0], dtype)
    _fold_kernel(rows, _jitted(combine), out.dtype.type(identity), out)
    return out
