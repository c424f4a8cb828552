"""Device buffers: allocation, ranges, host transfers and zero-copy __cuda_array_interface__ exchange."""
import ctypes

import numpy as np
from numba import cuda

from .._shared.geometry import contiguous_strides, numel
from ._device import SIMULATOR, device_array, device_pointer, jit, launch, to_device
from .strided_copy import copy, fill


empty = device_array    # the contract's empty(numel, dtype)


def full(n, dtype, value):
    out = device_array(n, dtype)
    fill((out, 0, (n,), (1,)), value)
    return out


@jit
def _arange_float(out, n, start, step):
    # start + i*step in double, rounded once into out's dtype (as PyTorch does)
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = start + i * step


@jit
def _arange_int(out, n, start, step):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = start + i * step


def arange(n, start, step, dtype):
    dtype = np.dtype(dtype)
    out = device_array(n, dtype)
    if n:
        blocks, threads = launch(n)
        if dtype.kind in "iu":
            _arange_int[blocks, threads](out, n, np.int64(int(start)), np.int64(int(step)))
        else:
            _arange_float[blocks, threads](out, n, np.float64(start), np.float64(step))
    return out


def to_numpy(view):
    raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
                    "tensor to host memory first.")


def from_numpy(array):
    raise TypeError("from_numpy() makes CPU tensors; use nbgrad.tensor(array, device='cuda') or "
                    "nbgrad.as_tensor(array, device='cuda') to copy a numpy array to the GPU")


def from_host(array):
    """A new device buffer holding a C-order copy of a host array's values."""
    host = np.array(array, copy=True, order="C").reshape(-1)
    return to_device(host)


def to_host(view):
    """A host numpy array (of the view's shape) holding the view's values."""
    buf, off, shape, strides = view
    shape = tuple(shape)
    n = numel(shape)
    if n == 0:
        return np.empty(shape, dtype=buf.dtype)
    if isinstance(buf, np.ndarray):  # a CPU scalar tensor mixed in
        from ..cpu.memory import to_numpy as cpu_to_numpy
        return np.array(cpu_to_numpy(view))
    dense = contiguous_strides(shape)
    if all(s == d for s, d, k in zip(strides, dense, shape) if k != 1):
        src = buf[off:off + n]
    else:
        src = device_array(n, buf.dtype)
        copy(view, (src, 0, shape, dense))
    return src.copy_to_host().reshape(shape)


# --------------------------------------------------------------------------- #
# Zero-copy interop

def host_view(view):
    """A contiguous host copy of a device view, as a view tuple (the CPU kernels' input where an
    op is staged through host memory: LAPACK, CTC, fractional pooling)."""
    host = np.ascontiguousarray(to_host(view))
    return (host.reshape(-1), 0, host.shape, tuple(s // host.itemsize for s in host.strides))


def cuda_array_interface(view):
    buf, off, shape, strides = view
    item = buf.dtype.itemsize
    shape = tuple(int(s) for s in shape)
    dense = contiguous_strides(shape)
    c_contiguous = all(s == d for s, d, k in zip(strides, dense, shape) if k != 1)
    ptr = device_pointer(buf) + off * item if numel(shape) else 0
    return {
        "shape": shape,
        "strides": None if c_contiguous else tuple(int(s) * item for s in strides),
        "typestr": buf.dtype.str,
        "data": (ptr, False),
        "version": 3,
    }


def tensor_from_cuda_array(obj, dtype=None):
    """An nbgrad Tensor sharing obj's device memory (obj exposes __cuda_array_interface__)."""
    from ... import _dtype as D
    from ..._size import device as _device
    from ..._storage import Storage, fix
    from ..._tensor import Tensor
    from ..._size import Size

    desc = obj.__cuda_array_interface__
    np_dtype = np.dtype(desc["typestr"])
    shape = tuple(desc["shape"])
    item = np_dtype.itemsize
    if desc.get("strides") is None:
        strides = contiguous_strides(shape)
    else:
        if any(s % item or s < 0 for s in desc["strides"]):
            raise ValueError("__cuda_array_interface__ strides must be non-negative multiples of the "
                             "element size")
        strides = tuple(s // item for s in desc["strides"])
    span = 0 if numel(shape) == 0 else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    ptr = desc["data"][0]
    buf = _wrap_pointer(ptr, span, np_dtype, obj)
    t = Tensor._make(fix(Storage(buf, _device("cuda:0"))), Size(shape), tuple(strides), 0,
                     D.from_numpy_dtype(np_dtype))
    if dtype is not None and D.to_dtype(dtype) is not t.dtype:
        return t.to(D.to_dtype(dtype))
    return t


def _wrap_pointer(ptr, n, np_dtype, owner):
    """A 1-D device buffer of n elements at address ptr, keeping owner alive."""
    if SIMULATOR:
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
        if n == 0:
            host = np.empty(0, dtype=np_dtype)
        else:
            raw = (ctypes.c_char * (n * np_dtype.itemsize)).from_address(ptr)
            host = np.frombuffer(raw, dtype=np_dtype)
        buf = FakeCUDAArray(host)
        buf._nbgrad_owner = owner
        return buf
    desc = {"shape": (n,), "strides": None, "typestr": np_dtype.str, "data": (ptr, False), "version": 3}

    return cuda.from_cuda_array_interface(desc, owner=owner)
