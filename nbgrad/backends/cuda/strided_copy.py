"""Strided copy (with dtype cast) and fill: grid-stride loops over the destination.

Casting rules are the CPU's (nbgrad/backends/cpu/strided_copy.py): float -> int
truncates toward zero, x -> bool is x != 0; the conversion functions are the
CPU's own plain Python functions compiled as device functions.
Geometry: dims are coalesced over src and dst; a contiguous pair is a flat
loop, anything else decomposes each flat destination index over the shape
(int64 shape/strides live in a cached device array, see _device.geometry).
"""
import numpy as np
from numba import cuda

from ..cpu._geometry import coalesce, numel
from ..cpu.strided_copy import _as_is, _scalar_of, _to_bool
from ._device import as_device, device_fn, geometry, jit, launch


def make_copy(convert):
    convert = device_fn(convert)

    @jit
    def contiguous(src, soff, dst, doff, n):
        start = cuda.grid(1)
        step = cuda.gridsize(1)
        for i in range(start, n, step):
            dst[doff + i] = convert(src[soff + i])

    @jit
    def strided(src, soff, dst, doff, n, geom, nd):
        # geom: shape[nd], src strides[nd], dst strides[nd]
        start = cuda.grid(1)
        step = cuda.gridsize(1)
        for i in range(start, n, step):
            rem = i
            ps = soff
            pd = doff
            for d in range(nd - 1, -1, -1):
                size = geom[d]
                q = rem // size
                idx = rem - q * size
                rem = q
                ps += idx * geom[nd + d]
                pd += idx * geom[2 * nd + d]
            dst[pd] = convert(src[ps])

    return contiguous, strided


_COPY = make_copy(_as_is)
_COPY_TO_BOOL = make_copy(_to_bool)


@jit
def _fill_contiguous(dst, doff, n, value):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    for i in range(start, n, step):
        dst[doff + i] = value


@jit
def _fill_strided(dst, doff, n, geom, nd, value):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    for i in range(start, n, step):
        rem = i
        pd = doff
        for d in range(nd - 1, -1, -1):
            size = geom[d]
            q = rem // size
            pd += (rem - q * size) * geom[nd + d]
            rem = q
        dst[pd] = value


def copy(src_view, dst_view):
    sbuf, soff, _, sst = src_view
    dbuf, doff, shape, dst_st = dst_view
    n = numel(shape)
    if n == 0:
        return
    sbuf = as_device(sbuf)
    contiguous, strided = _COPY_TO_BOOL if dbuf.dtype == np.bool_ and sbuf.dtype != np.bool_ else _COPY
    cshape, (cs, cd) = coalesce(list(shape), [list(sst), list(dst_st)])
    blocks, threads = launch(n)
    if len(cshape) == 1 and cs[0] == 1 and cd[0] == 1:
        contiguous[blocks, threads](sbuf, soff, dbuf, doff, n)
    else:
        strided[blocks, threads](sbuf, soff, dbuf, doff, n, geometry(cshape, cs, cd), len(cshape))


def fill(dst_view, value):
    dbuf, doff, shape, dst_st = dst_view
    n = numel(shape)
    if n == 0:
        return
    value = _scalar_of(dbuf.dtype, value)
    cshape, (cd,) = coalesce(list(shape), [list(dst_st)])
    blocks, threads = launch(n)
    if len(cshape) == 1 and cd[0] == 1:
        _fill_contiguous[blocks, threads](dbuf, doff, n, value)
    else:
        _fill_strided[blocks, threads](dbuf, doff, n, geometry(cshape, cd), len(cshape), value)
