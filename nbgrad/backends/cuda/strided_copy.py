"""Strided copy (with dtype cast) and fill: grid-stride loops over the destination.

Casting rules are the CPU's, written once (nbgrad/backends/_shared/copy.py):
float -> int truncates toward zero, x -> bool is x != 0; the conversion
functions are compiled here as device functions.
Geometry (_shared/copy.py): dims are ordered by dst strides and coalesced over src and dst; a contiguous pair is a flat
loop, anything else decomposes each flat destination index over the shape
(int64 shape/strides live in a cached device array, see _device.geometry).
"""
from numba import cuda

from .._shared.copy import as_is, copy_plan, fill_plan, to_bool, via_int32, via_int64
from .._shared.walk import strided_offsets
from ._device import as_device, device_fn, geometry, jit, launch

_strided_offsets = device_fn(strided_offsets)


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
            ps, pd, _ = _strided_offsets(i, geom, nd, 2, soff, doff, 0)
            dst[pd] = convert(src[ps])

    return contiguous, strided


_COPIES = {as_is: make_copy(as_is), to_bool: make_copy(to_bool)}
# (the device's own float -> int conversion for every integer: the CPU's wrap through a wide
# integer is PyTorch's CPU rule; CUDA's is left as it was)
_COPIES[via_int32] = _COPIES[via_int64] = _COPIES[as_is]


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
        dst[_strided_offsets(i, geom, nd, 1, doff, 0, 0)[0]] = value


def copy(src_view, dst_view):
    plan = copy_plan(src_view, dst_view)
    if plan is None:
        return
    convert, cshape, cs, cd, n = plan
    contiguous, strided = _COPIES[convert]
    sbuf, soff, _, _ = src_view
    dbuf, doff, _, _ = dst_view
    sbuf = as_device(sbuf)
    blocks, threads = launch(n)
    if len(cshape) == 1 and cs[0] == 1 and cd[0] == 1:
        contiguous[blocks, threads](sbuf, soff, dbuf, doff, n)
    else:
        strided[blocks, threads](sbuf, soff, dbuf, doff, n, geometry(cshape, cs, cd), len(cshape))


def fill(dst_view, value):
    plan = fill_plan(dst_view, value)
    if plan is None:
        return
    value, cshape, cd, n = plan
    blocks, threads = launch(n)
    dbuf, doff, _, _ = dst_view
    if len(cshape) == 1 and cd[0] == 1:
        _fill_contiguous[blocks, threads](dbuf, doff, n, value)
    else:
        _fill_strided[blocks, threads](dbuf, doff, n, geometry(cshape, cd), len(cshape), value)
