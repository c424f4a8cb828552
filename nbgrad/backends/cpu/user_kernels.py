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
