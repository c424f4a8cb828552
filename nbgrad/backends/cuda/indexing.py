"""Gather and scatter by flat element offsets (take, put, put_reduce), and nonzero.

put with accumulate uses atomic adds (float32/float64/int32/int64): repeated
offsets accumulate, and only the float rounding order may vary run to run (under
nbgrad.use_deterministic_algorithms(True) they take the serial loop instead).
Other dtypes (and bool's logical-or accumulate) take a serial one-thread loop
in order, as the CPU does; so does put_reduce (scatter_reduce's prod/amax/amin), whose
float products then round as the CPU's do.  nonzero is two passes over fixed chunks (count,
then write at each chunk's prefix offset), so its output is in C order.

take/put skip any offset outside the buffer (take reads 0 there): the op layer has
already raised PyTorch's error for such an index; this keeps a wrong offset from ever
touching memory outside the buffer without a device-to-host check per launch.
"""
import math

import numpy as np
from numba import cuda

from ... import _settings
from .._shared.geometry import contiguous_strides, numel
from .._shared.reduce import PUT_REDUCE_OPS, put_reduce_step
from ._device import as_device, device_array, device_fn, jit, launch, sizes, to_device
from .strided_copy import copy


@jit
def _take(buf, offsets, out, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        o = offsets[i]
        if 0 <= o < buf.size:      # never read outside the buffer (the op layer raised already)
            out[i] = buf[o]
        else:
            out[i] = 0


@jit
def _put(buf, offsets, values, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        o = offsets[i]
        if 0 <= o < buf.size:
            buf[o] = values[i]


@jit
def _put_accumulate_atomic(buf, offsets, values, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        o = offsets[i]
        if 0 <= o < buf.size:
            cuda.atomic.add(buf, o, values[i])


@jit
def _put_accumulate_serial(buf, offsets, values, n):
    if cuda.grid(1) == 0:
        for i in range(n):
            o = offsets[i]
            if 0 <= o < buf.size:
                buf[o] += values[i]


@jit
def _put_or(buf, offsets, values, n):
    # bool += is logical or: writing True is idempotent, so no atomics are needed
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        o = offsets[i]
        if values[i] and 0 <= o < buf.size:
            buf[o] = True


_ATOMIC_DTYPES = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64)}


def _offsets(offsets):
    if isinstance(offsets, np.ndarray):
        return to_device(np.ascontiguousarray(offsets, dtype=np.int64))
    return offsets


def take(buf, offsets):
    offsets = _offsets(offsets)
    n = offsets.size
    out = device_array(n, buf.dtype)
    if n:
        blocks, threads = launch(n)
        _take[blocks, threads](as_device(buf), offsets, out, n)
    return out


def _positions(offsets, values, name):
    """put's and put_reduce's operands on the device, of one length."""
    offsets, values = _offsets(offsets), as_device(values)
    assert offsets.size == values.size, f"{name}: offsets and values differ in length"
    return offsets, values


def put(buf, offsets, values, accumulate):
    offsets, values = _positions(offsets, values, "put")
    n = offsets.size
    if n == 0:
        return
    blocks, threads = launch(n)
    if not accumulate:
        _put[blocks, threads](buf, offsets, values, n)
    elif buf.dtype == np.bool_:
        _put_or[blocks, threads](buf, offsets, values, n)
    elif buf.dtype in _ATOMIC_DTYPES and not _settings.are_deterministic_algorithms_enabled():
        # atomics add repeated positions in whatever order threads reach them (float sums then
        # differ from run to run); nbgrad.use_deterministic_algorithms(True) takes the serial,
        # in-order loop below, PyTorch's deterministic alternative for these scatters
        _put_accumulate_atomic[blocks, threads](buf, offsets, values, n)
    else:
        _put_accumulate_serial[1, 1](buf, offsets, values, n)


_put_reduce_step = device_fn(put_reduce_step)


@jit
def _put_reduce_serial(buf, offsets, values, n, op):
    # one thread, in order, as the CPU (_shared/reduce.py's put_reduce_step)
    if cuda.grid(1) == 0:
        for i in range(n):
            o = offsets[i]
            if 0 <= o < buf.size:
                buf[o] = _put_reduce_step(buf[o], values[i], op)


def put_reduce(buf, offsets, values, op):
    offsets, values = _positions(offsets, values, "put_reduce")
    n = offsets.size
    if n:
        _put_reduce_serial[1, 1](buf, offsets, values, n, PUT_REDUCE_OPS[op])


# --------------------------------------------------------------------------- #
# nonzero

@jit
def _count_chunks(flat, n, chunk, counts, nchunks):
    for c in range(cuda.grid(1), nchunks, cuda.gridsize(1)):
        k = 0
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            if flat[i] != 0:
                k += 1
        counts[c] = k


@jit
def _write_chunks(flat, n, chunk, starts, nchunks, shape, ndim, out):
    for c in range(cuda.grid(1), nchunks, cuda.gridsize(1)):
        k = starts[c]
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            if flat[i] != 0:
                rem = i
                for d in range(ndim - 1, -1, -1):
                    out[k * ndim + d] = rem % shape[d]
                    rem //= shape[d]
                k += 1


def nonzero(view):
    """(int64 buffer of shape (count, ndim) in C order, count): indices of nonzero elements."""
    buf, offset, shape, strides = view
    shape = tuple(shape)
    n = numel(shape)
    flat = device_array(max(n, 1), buf.dtype)
    copy((as_device(buf), offset, shape, strides), (flat, 0, shape, contiguous_strides(shape)))
    s = sizes()
    nchunks = max(1, min(n, s.threads * s.max_blocks))   # one chunk per thread of a full launch
    chunk = max(1, math.ceil(n / nchunks))
    nchunks = max(1, math.ceil(n / chunk))
    counts = device_array(nchunks, np.int64)
    blocks, threads = launch(nchunks)
    _count_chunks[blocks, threads](flat, n, chunk, counts, nchunks)
    host_counts = counts.copy_to_host()
    count = int(host_counts.sum())
    ndim = max(len(shape), 1)
    if len(shape) == 0:
        return device_array(0, np.int64), count
    out = device_array(count * ndim, np.int64)
    if count:
        starts = to_device(np.concatenate([[0], np.cumsum(host_counts)[:-1]]).astype(np.int64))
        dshape = to_device(np.array(shape, dtype=np.int64))
        _write_chunks[blocks, threads](flat, n, chunk, starts, nchunks, dshape, ndim, out)
    return out, count
