"""Gather and scatter by flat element offsets: take, put and put_reduce.

Both refuse any offset outside the buffer before touching memory (the op layer
validates indices with PyTorch's messages first; this is the last line of defence
that keeps a wrong offset from reading or writing outside the buffer)."""
import numpy as np

from .._shared import cpu_kernel
from .._shared.reduce import PUT_REDUCE_OPS, put_reduce_step

_kernel = cpu_kernel()      # (put_reduce's step is a shared helper: the cache rule)


@_kernel
def _first_out_of_range(offsets, n):
    for i in range(offsets.size):
        o = offsets[i]
        if o < 0 or o >= n:
            return i
    return -1


def _check_offsets(buf, offsets):
    bad = _first_out_of_range(offsets, buf.size)
    if bad >= 0:
        raise IndexError(f"index {int(offsets[bad])} is out of bounds for a buffer of {buf.size} elements")


@_kernel
def _take(buf, offsets, out):
    for i in range(offsets.size):
        out[i] = buf[offsets[i]]


@_kernel
def _put(buf, offsets, values):
    for i in range(offsets.size):
        buf[offsets[i]] = values[i]


@_kernel
def _put_accumulate(buf, offsets, values):
    # In order, so repeated offsets accumulate.
    for i in range(offsets.size):
        buf[offsets[i]] += values[i]


def take(buf, offsets):
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    out = np.empty(offsets.size, dtype=buf.dtype)
    if offsets.size:
        _check_offsets(buf, offsets)
        _take(buf, offsets, out)
    return out


def _positions(buf, offsets, values, name):
    """put's and put_reduce's operands: int64 offsets (checked against the buffer) and values
    of the buffer's dtype, contiguous, of one length."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=buf.dtype)
    assert offsets.size == values.size, f"{name}: offsets and values differ in length"
    if offsets.size:
        _check_offsets(buf, offsets)
    return offsets, values


def put(buf, offsets, values, accumulate):
    offsets, values = _positions(buf, offsets, values, "put")
    if offsets.size == 0:
        return
    if accumulate:
        if buf.dtype == np.bool_:
            # bool += is logical or
            _put_accumulate_bool(buf, offsets, values)
        else:
            _put_accumulate(buf, offsets, values)
    else:
        _put(buf, offsets, values)


@_kernel
def _put_accumulate_bool(buf, offsets, values):
    for i in range(offsets.size):
        buf[offsets[i]] = buf[offsets[i]] | values[i]


# put_reduce: buf[o] = op(buf[o], v) for each (o, v) in order, PyTorch's scatter_reduce steps
# (shared with CUDA: _shared/reduce.py's put_reduce_step)
@_kernel
def _put_reduce(buf, offsets, values, op):
    for i in range(offsets.size):
        o = offsets[i]
        buf[o] = put_reduce_step(buf[o], values[i], op)


def put_reduce(buf, offsets, values, op):
    if op not in PUT_REDUCE_OPS:
        raise ValueError(f"put_reduce: unknown op {op!r}")
    offsets, values = _positions(buf, offsets, values, "put_reduce")
    if offsets.size:
        _put_reduce(buf, offsets, values, PUT_REDUCE_OPS[op])
