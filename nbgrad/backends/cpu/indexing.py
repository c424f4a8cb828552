"""Gather and scatter by flat element offsets: take, put and put_reduce.

Both refuse any offset outside the buffer before touching memory (the op layer
validates indices with PyTorch's messages first; this is the last line of defence
that keeps a wrong offset from reading or writing outside the buffer)."""
import numpy as np
from numba import njit

_kernel = njit(cache=True, error_model="numpy")


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


def put(buf, offsets, values, accumulate):
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=buf.dtype)
    assert offsets.size == values.size, "put: offsets and values differ in length"
    if offsets.size == 0:
        return
    _check_offsets(buf, offsets)
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
# (ScatterGatherKernel.cpp's ReduceMultiply, ReduceMaximum, ReduceMinimum: a NaN source wins,
# and a NaN already there stays)
@_kernel
def _put_prod(buf, offsets, values):
    for i in range(offsets.size):
        buf[offsets[i]] *= values[i]


@_kernel
def _put_prod_bool(buf, offsets, values):
    for i in range(offsets.size):
        buf[offsets[i]] = buf[offsets[i]] & values[i]


@_kernel
def _put_amax(buf, offsets, values):
    for i in range(offsets.size):
        o, v = offsets[i], values[i]
        if v != v or buf[o] < v:
            buf[o] = v


@_kernel
def _put_amin(buf, offsets, values):
    for i in range(offsets.size):
        o, v = offsets[i], values[i]
        if v != v or v < buf[o]:
            buf[o] = v


def put_reduce(buf, offsets, values, op):
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=buf.dtype)
    assert offsets.size == values.size, "put_reduce: offsets and values differ in length"
    if offsets.size == 0:
        return
    _check_offsets(buf, offsets)
    if op == "prod":
        (_put_prod_bool if buf.dtype == np.bool_ else _put_prod)(buf, offsets, values)
    elif op == "amax":
        _put_amax(buf, offsets, values)
    elif op == "amin":
        _put_amin(buf, offsets, values)
    else:
        raise ValueError(f"put_reduce: unknown op {op!r}")
