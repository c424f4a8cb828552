"""Running a user's own @numba.njit kernel (nbgrad.custom_op) on tensors' memory.

The kernel receives NumPy arrays that alias the views (their strides, 0 for a
broadcast dim) and Python numbers as they are; it writes its results into the
arrays that alias the outputs.  Nothing is copied here.
"""
from .memory import to_numpy


def run_user_kernel(kernel, args, launch=None):
    """kernel(*arrays): each view in args (a (buf, offset, shape, strides) tuple) as a
    NumPy array aliasing it, anything else passed as it is; launch is CUDA's, unused."""
    kernel(*[to_numpy(a) if type(a) is tuple else a for a in args])


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
    rows = to_numpy(view)
    out = np.empty(rows.shape[0], dtype)
    _fold_kernel(rows, _jitted(combine), out.dtype.type(identity), out)
    return out
