"""Buffers: allocation, ranges, and zero-copy exchange with numpy arrays."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._allocator import new_buffer, out_of_memory
from .._shared.geometry import contiguous_strides, numel
from .._shared.copy import scalar_of
from .strided_copy import fill

_SUPPORTED_KINDS = "biuf"

_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with "
    "negative strides are not currently supported. (You can probably work around "
    "this by making a copy of your array  with array.copy().) "
)

_UNSUPPORTED_TYPE = (
    "can't convert np.ndarray of type {}. The only supported types are: float64, "
    "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
    "uint32, uint16, uint8, and bool."
)


empty = new_buffer      # the contract's empty(numel, dtype): from the allocator's pool


def full(numel, dtype, value):
    if numel < _SMALL_FULL:
        # a small buffer: NumPy's fill with the value as fill() converts it (the same element
        # repeated; fill's checks and kernel call were ~1.5 of zeros(16)'s 4.3 us)
        dtype = np.dtype(dtype)
        if value == 0 and (type(value) is int or type(value) is bool):
            return np.zeros(numel, dtype)       # (all bits zero: 0 of every dtype)
        out = np.empty(numel, dtype)
        out.fill(scalar_of(dtype, value))
        return out
    out = new_buffer(numel, dtype)
    fill((out, 0, (numel,), (1,)), value)
    return out


_SMALL_FULL = 1 << 12


def arange(n, start, step, dtype):
    dtype = np.dtype(dtype)
    try:
        if dtype.kind in "iu":
            return (int(start) + np.arange(n, dtype=np.int64) * int(step)).astype(dtype)
        if dtype.kind == "f":
            # PyTorch's vector lanes and fused multiply-adds, bit for bit (ranges.py)
            from ._threads import num_threads
            from .ranges import arange_float
            return arange_float(n, start, step, dtype, num_threads())
        return (float(start) + np.arange(n, dtype=np.float64) * float(step)).astype(dtype)
    except MemoryError:
        raise out_of_memory(n * dtype.itemsize) from None


arange.half_native = True       # (float16 too, in PyTorch's float accumulation: _half.py leaves it be)


def to_numpy(view):
    """A NumPy array aliasing the view: a new array object always (never the buffer itself,
    whose shape a caller could then set), a slice for a row-major view (as_strided's Python
    cost, ~4 us, is t.numpy()'s and t.tolist()'s on a small tensor)."""
    buf, offset, shape, strides = view
    if len(shape) == 1:
        (n,), (step,) = shape, strides          # (unpacked: a Size's [0] is a Python call)
        if step == 1 or n < 2:
            return buf[offset:offset + n]
    elif strides == contiguous_strides(shape):
        return buf[offset:offset + numel(shape)].reshape(shape)
    item = buf.itemsize
    return as_strided(buf[offset:], shape=tuple(shape),
                      strides=tuple(s * item for s in strides))


def from_numpy(array):
    """(buf, offset, strides in elements) with buf a 1-D alias of array's memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = array.dtype
    if dtype.kind not in _SUPPORTED_KINDS:
        raise TypeError(_UNSUPPORTED_TYPE.format(f"numpy.{dtype.type.__name__}"))
    if not dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native "
                         "byte order. Conversion between byte orders is currently "
                         "not supported.")
    if any(s < 0 for s in array.strides):
        raise ValueError(_NEGATIVE_STRIDES)
    item = dtype.itemsize
    if any(s % item for s in array.strides):
        raise ValueError("given numpy array strides not a multiple of the element "
                         "byte size. Copy the numpy array to reallocate the memory.")
    strides = tuple(s // item for s in array.strides)
    if numel(array.shape) == 0:
        span = 0
        strides = contiguous_strides(array.shape)  # numpy may report 0 strides here
    else:
        span = 1 + sum((n - 1) * s for n, s in zip(array.shape, strides))
    buf = as_strided(array, shape=(span,), strides=(item,))
    return buf, 0, strides
