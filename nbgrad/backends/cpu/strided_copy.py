"""Strided copy (with dtype cast) and fill kernels.

Casting rules and the odometer walk are shared with the CUDA backend
(nbgrad/backends/_shared: copy.py, walk.py; kernels made by _shared.cpu_kernel).
The wrapper coalesces dims over src and
dst, orders them by dst strides, and picks one of:
  * contiguous: both stride 1 -> a plain 1-D loop;
  * blocked: two dims where src walks the other way (a transpose), both at
    least 64 long -> 256x256 blocks staged through a contiguous buffer (rows
    padded by 16 elements): src rows are read and dst rows written as
    contiguous 256-element runs, and the transposition happens in the
    L1/L2-resident buffer (reading straight across src rows of a
    power-of-two stride hits one cache set and thrashes).  The run length
    is what counts out of cache: 4096^2 float32, one thread, medians of
    9-11 interleaved runs: 64x64 tiles 28-32 ms, 128x128 19-20 ms, 256x256
    16-20 ms, 512x512 / 1024x1024 22-24 ms (buffer beyond L2), the same
    256x256 unpadded 31 ms, 256-wide blocks staged as 64-row strips 29 ms;
    a contiguous copy of the same bytes 7-11 ms.  Neither outer blocking
    around 64x64 tiles (TLB: the arrays are on huge pages), 8x8/16x16 tiles
    without staging (33-98 ms), nor 8x8 register transposes (LLVM
    shufflevector, 15-20 ms) did better.  Split over 2 threads: 64x64
    20.5 ms, 256x256 12.3 ms.  2048^2 and smaller are unchanged (in cache);
  * strided: odometer over outer dims, tight loop over the last (sliced, so that
    it vectorises, when dst's last stride is 1 and src's is 1 or 0).
Large copies are split across threads (_threads.py): the contiguous range,
the blocked rows (cut at multiples of 64), or the outermost dim of the odometer.
"""
import numpy as np
from numba import carray
from numba.extending import overload, register_jitable

from .._shared import cpu_cfunc, cpu_kernel
from .._shared.native import address_as
from .._shared.copy import as_is, conversion, copy_plan, fill_plan, scalar_of, to_bool, via_int32, via_int64
from .._shared.geometry import as_index_array, contiguous_strides
from .._shared.walk import carry, jumps
from ._threads import native_function, run_native, run_split, worth_native, worth_splitting
from ... import _debug

_kernel = cpu_kernel(nogil=True)

_TILE = 64      # smallest sides that take the blocked kernel; thread-split alignment
_BLOCK = 256    # side of the blocks the blocked kernel stages
_PAD = 16       # elements added to each staged row


# A jitted store casts C-style (wraps, truncates); a NumPy scalar store (NUMBA_DISABLE_JIT=1)
# refuses 1000 into int8 or NaN into an int.  So every store goes through _store_cast: in
# Python NumPy's unsafe cast, and its @overload (what kernels compile) the bare value.
def _store_cast(x, dst):
    with np.errstate(all="ignore"):      # a compiled cast never warns
        return np.asarray(x).astype(dst.dtype)[()]


@overload(_store_cast)
def _store_cast_typed(x, dst):
    return lambda x, dst: x


def make_copy(convert):
    @_kernel
    @register_jitable(error_model="numpy")      # also the body of the native entry point (_native_copy)
    def contiguous(src, soff, dst, doff, n):
        # Sliced first so that no negative-index fix-up stays in the loop.
        s = src[soff:soff + n]
        d = dst[doff:doff + n]
        for i in range(n):
            d[i] = _store_cast(convert(s[i]), d)

    @_kernel
    def blocked(src, soff, sst, dst, doff, dst_st, shape):
        # two dims; dst's inner stride is the small one, src's outer one is.
        # Blocks of up to _BLOCK x _BLOCK: src rows are copied into `tile`
        # (rows padded by _PAD against cache-set conflicts), then dst rows
        # are written from the tile's columns.
        n0 = shape[0]
        n1 = shape[1]
        s0 = sst[0]
        s1 = sst[1]
        d0 = dst_st[0]
        d1 = dst_st[1]
        tile = np.empty((min(_BLOCK, n1), min(_BLOCK, n0) + _PAD), src.dtype)
        for i0 in range(0, n0, _BLOCK):
            e0 = min(i0 + _BLOCK, n0)
            for j0 in range(0, n1, _BLOCK):
                e1 = min(j0 + _BLOCK, n1)
                for j in range(j0, e1):             # along src's dense dim (i)
                    row = tile[j - j0]
                    ps = soff + j * s1 + i0 * s0
                    if s0 == 1:
                        srow = src[ps:ps + e0 - i0]
                        for i in range(e0 - i0):
                            row[i] = srow[i]
                    else:
                        for i in range(e0 - i0):
                            row[i] = src[ps + i * s0]
                for i in range(i0, e0):             # along dst's dense dim (j)
                    pd = doff + i * d0 + j0 * d1
                    if d1 == 1:
                        drow = dst[pd:pd + e1 - j0]
                        for j in range(e1 - j0):
                            drow[j] = _store_cast(convert(tile[j, i - i0]), drow)
                    else:
                        for j in range(e1 - j0):
                            dst[pd + j * d1] = _store_cast(convert(tile[j, i - i0]), dst)

    @_kernel
    def strided(src, soff, sst, dst, doff, dst_st, shape):
        nd = shape.size
        inner = shape[nd - 1]
        ss = sst[nd - 1]
        ds = dst_st[nd - 1]
        total = 1
        for d in range(nd):
            total *= shape[d]
        idx = np.zeros(nd, np.int64)
        js = jumps(shape, sst, nd - 2)
        jd = jumps(shape, dst_st, nd - 2)
        ps = soff
        pd = doff
        done = 0
        while done < total:
            # dst rows with unit stride are sliced so the loop vectorises: a broadcast
            # (0-stride) source, as expand().contiguous() of a sum's gradient, becomes
            # a fill (1024^2 float32: 1.0 -> 0.2 ms), a unit-stride one a plain copy.
            if ds == 1 and ss == 0:
                drow = dst[pd:pd + inner]
                v = _store_cast(convert(src[ps]), dst)
                for j in range(inner):
                    drow[j] = v
            elif ds == 1 and ss == 1:
                drow = dst[pd:pd + inner]
                srow = src[ps:ps + inner]
                for j in range(inner):
                    drow[j] = _store_cast(convert(srow[j]), drow)
            else:
                for j in range(inner):
                    dst[pd + j * ds] = _store_cast(convert(src[ps + j * ss]), dst)
            done += inner
            d = carry(idx, shape, nd - 2)
            if d >= 0:
                ps += js[d]
                pd += jd[d]

    return contiguous, blocked, strided


_COPIES = {convert: make_copy(convert) for convert in (as_is, to_bool, via_int32, via_int64)}
_COPY, _COPY_TO_BOOL = _COPIES[as_is], _COPIES[to_bool]     # (named for tests)


@_kernel
@register_jitable(error_model="numpy")
def _fill_contiguous(dst, doff, n, value):
    d = dst[doff:doff + n]
    for i in range(n):
        d[i] = value


# Native entry points (backends/_shared/native.py): a contiguous copy or fill split across the
# team's workers (_threads.run_native) from 128K elements, each piece the kernel's own body on
# its range, for the dtypes kernels read as they are; a piece copies element by element, so
# the result is the serial one (copy_ refuses partial overlap before).

# Dtypes whose buffers the kernels read as they are (float16 goes through nbgrad/backends/_half.py).
KERNEL_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int64, np.int32, np.int16, np.int8,
                                                np.uint8, np.bool_))


def _native_copy(body, sdt, ddt):
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 2)
        src = carray(address_as(block[0], sdt), hi)
        dst = carray(address_as(block[1], ddt), hi)
        body(src, lo, dst, lo, hi - lo)
    return cpu_cfunc(native).address


def _native_fill(ddt):
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 2)
        dst = carray(address_as(block[0], ddt), hi)
        value = carray(address_as(block[1], ddt), 1)[0]
        _fill_contiguous(dst, lo, hi - lo, value)
    return cpu_cfunc(native).address


def _native_split_copy(convert, kernel, sbuf, soff, dbuf, doff, n):
    if not worth_native(n) or sbuf.dtype not in KERNEL_DTYPES or dbuf.dtype not in KERNEL_DTYPES \
            or not (0 <= soff and soff + n <= sbuf.size and 0 <= doff and doff + n <= dbuf.size):
        return False
    fn = native_function(("copy", convert, sbuf.dtype, dbuf.dtype), _native_copy, kernel.py_func, sbuf.dtype.type,
                         dbuf.dtype.type)
    return run_native(fn, n, (sbuf, dbuf), (soff, doff))


def _native_split_fill(dbuf, doff, n, value):
    if not worth_native(n) or dbuf.dtype not in KERNEL_DTYPES or not (0 <= doff and doff + n <= dbuf.size):
        return False
    fn = native_function(("fill", dbuf.dtype), _native_fill, dbuf.dtype.type)
    return run_native(fn, n, (dbuf, np.full(1, value, dbuf.dtype)), (doff, 0))


_SMALL_COPY = 1 << 12      # (below _threads.SPLIT_FLOOR: never split)


def copy(src_view, dst_view):
    sbuf, soff, shape, sst = src_view
    if sst == dst_view[3] and not _debug.ENABLED:
        # both row-major over the same shape (a cast, a clone of a contiguous tensor): the plan
        # below comes to one contiguous run; a small one is copied without planning it (~5 of
        # x.double()'s 9.5 us on 16 elements)
        n = 1
        for k in shape:
            n *= k
        if 0 < n < _SMALL_COPY and sst == contiguous_strides(shape):
            dbuf = dst_view[0]
            _COPIES[conversion(sbuf.dtype, dbuf.dtype)][0](sbuf, soff, dbuf, dst_view[1], n)
            return
    plan = copy_plan(src_view, dst_view)
    if plan is None:
        return
    (sbuf, soff, _, _), (dbuf, doff, _, _) = src_view, dst_view
    convert, cshape, cs, cd, n = plan
    contiguous, blocked, strided = _COPIES[convert]
    if len(cshape) == 1 and cs[0] == 1 and cd[0] == 1:
        if _debug.ENABLED: _debug.log("copy", path="contiguous", n=n, src=sbuf.dtype, dst=dbuf.dtype)
        if _native_split_copy(convert, contiguous, sbuf, soff, dbuf, doff, n):
            pass
        elif worth_splitting(n):
            run_split(lambda s, e: contiguous(sbuf, soff + s, dbuf, doff + s, e - s), n)
        else:
            contiguous(sbuf, soff, dbuf, doff, n)
        return
    kernel = strided
    # a transpose: src's dense dim is dst's outer one (not a broadcast row: cs[0] == 0)
    if (len(cshape) == 2 and abs(cs[1]) > abs(cs[0]) and cs[0] != 0 and cshape[0] >= _TILE
            and cshape[1] >= _TILE):
        kernel = blocked
    if _debug.ENABLED:
        _debug.log("copy", path="blocked transpose" if kernel is blocked else "strided", n=n, dims=len(cshape),
                   src=sbuf.dtype, dst=dbuf.dtype)
    if worth_splitting(n) and cshape[0] > 1:
        csa, cda = as_index_array(cs), as_index_array(cd)
        align = _TILE if kernel is blocked else 1

        def part(start, stop):
            sub = as_index_array([stop - start] + list(cshape[1:]))
            kernel(sbuf, soff + start * cs[0], csa, dbuf, doff + start * cd[0], cda, sub)
        run_split(part, cshape[0], align=align)
        return
    kernel(sbuf, soff, as_index_array(cs), dbuf, doff, as_index_array(cd), as_index_array(cshape))


def fill(dst_view, value):
    dbuf, doff, shape, strides = dst_view
    if len(shape) == 1 and (strides[0] == 1 or shape[0] == 1) and 0 < shape[0] and not worth_splitting(shape[0]) \
            and not worth_native(shape[0]):
        # a 1-D run (a new buffer's full()): what the plan below comes to, without planning it
        _fill_contiguous(dbuf, doff, shape[0], scalar_of(dbuf.dtype, value))
        return
    plan = fill_plan(dst_view, value)
    if plan is None:
        return
    dbuf, doff, shape, _ = dst_view
    value, cshape, cd, n = plan
    if len(cshape) == 1 and cd[0] == 1:
        if _native_split_fill(dbuf, doff, n, value):
            pass
        elif worth_splitting(n):
            run_split(lambda s, e: _fill_contiguous(dbuf, doff + s, e - s, value), n)
        else:
            _fill_contiguous(dbuf, doff, n, value)
    else:                                   # a copy of the value broadcast over dst
        copy((np.full(1, value), 0, shape, (0,) * len(shape)), dst_view)
