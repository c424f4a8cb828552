"""Running a user's own @cuda.jit kernel (nbgrad.custom_op) on tensors' device memory.

The op layer hands contiguous views only (a user kernel indexes a device array by
its shape); each becomes a device array over the view's elements, no copy.  A
0-dim view is a one-element 1-D array.  The launch configuration is the user's.
"""

def _device_view(view):
    buf, off, shape, strides = view
    n = 1
    for s in shape:
        n *= s
    flat = buf[off:off + n]
    return flat.reshape(tuple(shape)) if len(shape) > 0 else flat[:1] if n else flat


def run_user_kernel(kernel, args, launch, n_outputs=0):
    """kernel[launch](*arrays): each view in args as a device array, numbers as they are;
    the last n_outputs views are zero-filled first (outputs)."""
    from .strided_copy import fill
    for view in args[len(args) - n_outputs:]:
        fill(view, 0)
    griddim, blockdim = launch
    kernel[griddim, blockdim](*[_device_view(a) if type(a) is tuple else a for a in args])


def user_reduce(combine, view, identity, dtype):
    """nbgrad.reduction on CUDA: staged through host memory and folded by the CPU's kernel
    (a user combine compiles once, for the CPU), the result copied back."""
    import numpy as np
    from ..cpu.user_kernels import user_reduce as cpu_user_reduce
    from .memory import from_host, to_host
    buf, off, shape, strides = view
    host = np.ascontiguousarray(to_host(view))
    return from_host(cpu_user_reduce(combine, (host.reshape(-1), 0, tuple(shape), (shape[1], 1)), identity, dtype))
