"""Reductions and softmax: block-per-row trees for contiguous rows, a column kernel for the rest.

Deterministic: every output is combined in the same order on every run (no
atomics).  Geometry, steps and the op table are the CPU's, written once
(nbgrad/backends/_shared/reduce.py): kept dims are coalesced, and the reduced
dims must merge into one run of rn elements at stride rs (otherwise the input
is first copied into (kept..., reduced...) order).
  rows     one block per output: its threads walk the run with stride
           REDUCE_THREADS, then halve a shared array until one value is left.
           When there are few rows and they are long (a full sum), each row is
           split over several blocks writing partials, and a second launch
           reduces those.
  columns  (sum/mean/prod/max/min/all/any) when the kept dims' innermost run is
           contiguous and the reduced run is not (x.sum(0) of a C matrix, the
           middle dim of (B, R, C)): each thread owns one output, neighbouring
           threads own neighbouring columns (coalesced reads), a 2-D block of
           COLUMNS_X columns x COLUMNS_Y row groups combines its row groups in
           shared memory.  No copy.  When the outputs are too few to fill the
           device, the run is split into chunks (partials, then the same kernel
           over the partials).
float32 sums accumulate in float64 as on the CPU.
"""
import collections
import math

import numba
import numpy as np
from numba import cuda

from .._shared.geometry import contiguous_strides, numel
from .._shared.reduce import (COMBINE, REDUCE_OPS, acc_dtype, check_nonempty, dim_plan, final_same, init_value,
                              output_numel, plan, step_max, step_sum)
from .._shared.walk import strided_offsets
from ._device import (REDUCE_THREADS as TPB, SIMULATOR, as_device, device_array, device_fn, geometry, jit,
                      sizes)
from .strided_copy import copy

# The columns kernel's block: COLUMNS_X neighbouring outputs x COLUMNS_Y row groups (a power of two).
if SIMULATOR:
    COLUMNS_X, COLUMNS_Y = 4, 2
else:
    COLUMNS_X, COLUMNS_Y = 32, 8

# Launches by path ("rows", "columns", "copy": the reordering copy before "rows"), for tests and
# NBGRAD_DEBUG-style checks that a layout takes the path meant for it.
LAUNCHES = collections.Counter()

_step_sum = device_fn(step_sum)
_step_max = device_fn(step_max)
_strided_offsets = device_fn(strided_offsets)


def _numba_type(np_dtype):
    return numba.from_dtype(np.dtype(np_dtype))


@cuda.jit(device=True)
def _row_start(row, off, geom, nd):
    # element offset of kept-index `row` (geom: kept shape[nd], kept strides[nd])
    return _strided_offsets(row, geom, nd, 1, off, 0, 0)[0]


def make_tree(step):
    """A device function halving a block's shared array with step until sm[0] holds the result."""
    @cuda.jit(device=True)
    def tree(sm, tid):
        w = TPB // 2
        while w > 0:
            if tid < w:
                sm[tid] = step(sm[tid], sm[tid + w])
            cuda.syncthreads()
            w //= 2
    return tree


def make_block_combine(tree):
    """A device function combining each thread's value v over the block: every thread gets the result."""
    @cuda.jit(device=True)
    def combine(sm, tid, v):
        sm[tid] = v
        cuda.syncthreads()
        tree(sm, tid)
        v = sm[0]
        cuda.syncthreads()
        return v
    return combine


_tree_sum = make_tree(_step_sum)
_tree_max = make_tree(_step_max)
_block_total = make_block_combine(_tree_sum)
_block_greatest = make_block_combine(_tree_max)


@cuda.jit(device=True)
def _block_max(x, p, rs, rn, sm, tid):
    """max (NaN wins) of a row of rn elements at stride rs, seen by every thread of the block."""
    m = -math.inf
    for j in range(tid, rn, TPB):
        m = _step_max(m, x[p + j * rs])
    return _block_greatest(sm, tid, m)


@cuda.jit(device=True)
def _block_sum_exp(x, p, rs, rn, m, sm, tid):
    """sum of exp(x - m) over the row, seen by every thread of the block."""
    s = 0.0
    for j in range(tid, rn, TPB):
        s += math.exp(x[p + j * rs] - m)
    return _block_total(sm, tid, s)


# --------------------------------------------------------------------------- #
# sum / mean / prod / max / min / all / any

def make_reduce(step, finalize, accumulator):
    step = device_fn(step)
    finalize = device_fn(finalize)
    tree = make_tree(step)
    acc_t = _numba_type(accumulator)

    @jit
    def rows(x, xoff, kgeom, knd, rn, rs, init, nfinal, splits, chunk, nblocks, out):
        sm = cuda.shared.array(TPB, acc_t)
        tid = cuda.threadIdx.x
        for blk in range(cuda.blockIdx.x, nblocks, cuda.gridDim.x):
            row = blk // splits
            s = blk - row * splits
            p = _row_start(row, xoff, kgeom, knd)
            acc = init
            hi = min(rn, (s + 1) * chunk)
            for j in range(s * chunk + tid, hi, TPB):
                acc = step(acc, x[p + j * rs])
            sm[tid] = acc
            cuda.syncthreads()
            tree(sm, tid)
            if tid == 0:
                out[blk] = finalize(sm[0], nfinal)
            cuda.syncthreads()

    return rows


def make_reduce_columns(step, finalize, accumulator):
    """The columns kernel: out[s * nout + g * ncols + c] = finalize(step over j in chunk s of
    x[start(g) + c + j * rs]), for ncols contiguous columns in each of the kept groups g
    (ggeom: the outer kept dims' shape[gnd] and strides[gnd]).  Launched with
    (COLUMNS_X, COLUMNS_Y) threads; tiles (group, column tile, split) are grid-strided."""
    step = device_fn(step)
    finalize = device_fn(finalize)
    acc_t = _numba_type(accumulator)

    @jit
    def columns(x, xoff, ggeom, gnd, ncols, rn, rs, init, nfinal, splits, chunk, ntiles, nout, out):
        sm = cuda.shared.array((COLUMNS_Y, COLUMNS_X), acc_t)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        ctiles = (ncols + COLUMNS_X - 1) // COLUMNS_X
        for t in range(cuda.blockIdx.x, ntiles, cuda.gridDim.x):
            rest = t // splits
            s = t - rest * splits
            g = rest // ctiles
            c = (rest - g * ctiles) * COLUMNS_X + tx
            acc = init
            if c < ncols:
                p = _row_start(g, xoff, ggeom, gnd) + c
                for j in range(s * chunk + ty, min(rn, (s + 1) * chunk), COLUMNS_Y):
                    acc = step(acc, x[p + j * rs])
            sm[ty, tx] = acc
            cuda.syncthreads()
            w = COLUMNS_Y // 2
            while w > 0:
                if ty < w:
                    sm[ty, tx] = step(sm[ty, tx], sm[ty + w, tx])
                cuda.syncthreads()
                w //= 2
            if ty == 0 and c < ncols:
                out[s * nout + g * ncols + c] = finalize(sm[0, tx], nfinal)
            cuda.syncthreads()

    return columns


_reduce_kernels = {}


def _reduce_kernel(step, finalize, accumulator, kind="rows"):
    key = (kind, step, finalize, np.dtype(accumulator))
    k = _reduce_kernels.get(key)
    if k is None:
        make = make_reduce if kind == "rows" else make_reduce_columns
        k = _reduce_kernels[key] = make(step, finalize, accumulator)
    return k


# --------------------------------------------------------------------------- #
# var, logsumexp, arg-reductions, softmax (float64 trees; values kept in x's dtype for args)

@jit
def _var_rows(x, xoff, kgeom, knd, rn, rs, divisor, nout, out):
    sm = cuda.shared.array(TPB, numba.float64)
    tid = cuda.threadIdx.x
    for row in range(cuda.blockIdx.x, nout, cuda.gridDim.x):
        p = _row_start(row, xoff, kgeom, knd)
        s = 0.0
        for j in range(tid, rn, TPB):
            s += x[p + j * rs]
        mean = _block_total(sm, tid, s) / rn
        ss = 0.0
        for j in range(tid, rn, TPB):
            dev = x[p + j * rs] - mean
            ss += dev * dev
        ss = _block_total(sm, tid, ss)
        if tid == 0:
            out[row] = ss / divisor


@jit
def _logsumexp_rows(x, xoff, kgeom, knd, rn, rs, nout, out):
    sm = cuda.shared.array(TPB, numba.float64)
    tid = cuda.threadIdx.x
    for row in range(cuda.blockIdx.x, nout, cuda.gridDim.x):
        p = _row_start(row, xoff, kgeom, knd)
        m = _block_max(x, p, rs, rn, sm, tid)
        if m != m or m == math.inf or m == -math.inf:
            if tid == 0:
                out[row] = m  # nan, +inf, or an all -inf (or empty) row
        else:
            s = _block_sum_exp(x, p, rs, rn, m, sm, tid)
            if tid == 0:
                out[row] = m + math.log(s)
        cuda.syncthreads()


@cuda.jit(device=True)
def _better(va, ia, vb, ib, is_max):
    """True when (vb, ib) beats (va, ia): NaN wins, then the larger (smaller), then the first index."""
    if va != va:
        return vb != vb and ib < ia
    if vb != vb:
        return True
    if vb == va:
        return ib < ia
    if is_max:
        return vb > va
    return vb < va


def make_arg_rows(x_dtype):
    val_t = _numba_type(x_dtype)

    @jit
    def arg_rows(x, xoff, kgeom, knd, rn, rs, is_max, nout, values, indices):
        sv = cuda.shared.array(TPB, val_t)
        si = cuda.shared.array(TPB, numba.int64)
        tid = cuda.threadIdx.x
        for row in range(cuda.blockIdx.x, nout, cuda.gridDim.x):
            p = _row_start(row, xoff, kgeom, knd)
            bi = -1
            best = x[p]
            for j in range(tid, rn, TPB):
                v = x[p + j * rs]
                if bi < 0 or _better(best, bi, v, j, is_max):
                    best = v
                    bi = j
            sv[tid] = best
            si[tid] = bi
            cuda.syncthreads()
            w = TPB // 2
            while w > 0:
                if tid < w and si[tid + w] >= 0:
                    if si[tid] < 0 or _better(sv[tid], si[tid], sv[tid + w], si[tid + w], is_max):
                        sv[tid] = sv[tid + w]
                        si[tid] = si[tid + w]
                cuda.syncthreads()
                w //= 2
            if tid == 0:
                values[row] = sv[0]
                indices[row] = si[0]
            cuda.syncthreads()

    return arg_rows


@jit
def _softmax_rows(x, xoff, out, geom, knd, rn, xrs, ors, log, nrows):
    # geom: kept shape[knd], x kept strides[knd], out kept strides[knd]
    sm = cuda.shared.array(TPB, numba.float64)
    tid = cuda.threadIdx.x
    for row in range(cuda.blockIdx.x, nrows, cuda.gridDim.x):
        px, po, _ = _strided_offsets(row, geom, knd, 2, xoff, 0, 0)
        m = _block_max(x, px, xrs, rn, sm, tid)
        s = _block_sum_exp(x, px, xrs, rn, m, sm, tid)
        if log:
            ls = math.log(s)
            for j in range(tid, rn, TPB):
                out[po + j * ors] = x[px + j * xrs] - m - ls
        else:
            inv = 1.0 / s
            for j in range(tid, rn, TPB):
                out[po + j * ors] = math.exp(x[px + j * xrs] - m) * inv


_arg_kernels = {}


def _arg_kernel(dtype):
    k = _arg_kernels.get(np.dtype(dtype))
    if k is None:
        k = _arg_kernels[np.dtype(dtype)] = make_arg_rows(dtype)
    return k


# --------------------------------------------------------------------------- #
# Geometry and wrappers

class _Geometry:
    """x as (kept dims coalesced) x (one reduced run of rn elements at stride rs)."""

    def __init__(self, buf, off, kshape, kst, rn, rs):
        self.buf, self.off, self.rn, self.rs = buf, off, rn, rs
        self.kgeom = geometry(kshape, kst)
        self.knd = len(kshape)


def _geometry(x_view, p):
    """The rows kernels' view of x under plan p (copied first when p asks for it)."""
    buf, off, shape, strides = x_view
    buf = as_device(buf)
    if p.copy_shape is not None:           # to contiguous (kept..., reduced...) order
        LAUNCHES["copy"] += 1
        tmp = device_array(numel(p.copy_shape), buf.dtype)
        copy((buf, off, p.copy_shape, p.copy_strides), (tmp, 0, p.copy_shape, contiguous_strides(p.copy_shape)))
        buf, off = tmp, 0
    return _Geometry(buf, off, p.kshape, p.kst, p.rn, p.rs)


def _blocks(nrows):
    return max(1, min(nrows, sizes().max_blocks))


def _takes_columns(p):
    """Whether plan p suits the columns kernel: the reduced dims merge into one run at a stride
    other than 1 and the innermost kept dim is contiguous."""
    return p.copy_shape is None and p.rn > 0 and p.rs != 1 and p.kst[-1] == 1


def _reduce_columns(x_view, p, step, finalize, acc, init, out_n, out):
    buf, off = as_device(x_view[0]), x_view[1]
    gshape, gst, ncols, rn, rs = p.kshape[:-1], p.kst[:-1], p.kshape[-1], p.rn, p.rs
    ggeom = geometry(gshape, gst)
    tiles = numel(gshape) * math.ceil(ncols / COLUMNS_X)
    # Too few tiles to fill the device: split the run into chunks of at least chunk_min rows.
    target = sizes().sm_count * 8
    chunk_min = COLUMNS_Y * (64 if SIMULATOR else 32)
    splits = 1
    if tiles < target and rn > 2 * chunk_min:
        splits = min(math.ceil(rn / chunk_min), math.ceil(target / tiles))
    block = (COLUMNS_X, COLUMNS_Y)
    LAUNCHES["columns"] += 1
    if splits == 1:
        kernel = _reduce_kernel(step, finalize, acc, "columns")
        kernel[_blocks(tiles), block](buf, off, ggeom, len(gshape), ncols, rn, rs, init, rn, 1, max(rn, 1),
                                      tiles, out_n, out)
        return out
    # Partials laid out (splits, out_n): the second launch is the same kernel over that matrix's columns.
    chunk = math.ceil(rn / splits)
    partial = device_array(splits * out_n, acc)
    first = _reduce_kernel(step, final_same, acc, "columns")
    first[_blocks(tiles * splits), block](buf, off, ggeom, len(gshape), ncols, rn, rs, init, rn, splits, chunk,
                                          tiles * splits, out_n, partial)
    LAUNCHES["columns"] += 1
    second = _reduce_kernel(step, finalize, acc, "columns")
    ctiles = math.ceil(out_n / COLUMNS_X)
    second[_blocks(ctiles), block](partial, 0, geometry((), ()), 0, out_n, splits, out_n, init, rn, 1, splits,
                                   ctiles, out_n, out)
    return out


def reduce(op, x_view, dims, out_dtype, correction=1, one_value_path=True):
    # (one_value_path: the CPU's PyTorch paths to one value; PyTorch's CUDA has none)
    buf, off, shape, strides = x_view
    out_dtype = np.dtype(out_dtype)
    dims = tuple(dims) if shape else ()
    out_n = output_numel(shape, dims)
    out = device_array(out_n, out_dtype)
    if out_n == 0:
        return out
    p = plan(shape, strides, dims)
    if op in COMBINE and _takes_columns(p):
        step, finalize, _ = COMBINE[op]
        x_dtype = np.dtype(buf.dtype)
        acc = acc_dtype(op, x_dtype, out_dtype)
        return _reduce_columns(x_view, p, step, finalize, acc, init_value(op, x_dtype, acc), out_n, out)
    g = _geometry(x_view, p)
    if op in ("argmax", "argmin"):
        check_nonempty(g.rn, op)
        values = device_array(out_n, g.buf.dtype)
        _arg_kernel(g.buf.dtype)[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs,
                                                      op == "argmax", out_n, values, out)
        return out
    if op in ("max", "min", "amax", "amin"):
        check_nonempty(g.rn, op)
    if op == "var":
        divisor = max(0.0, g.rn - float(correction))
        _var_rows[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, divisor, out_n, out)
        return out
    if op == "logsumexp":
        _logsumexp_rows[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, out_n, out)
        return out
    step, finalize, _ = COMBINE[op]
    acc = acc_dtype(op, g.buf.dtype, out_dtype)
    init = init_value(op, g.buf.dtype, acc)
    chunk_min = TPB * (64 if SIMULATOR else 8)  # elements per partial block at least
    splits = 1
    if g.rn > 2 * chunk_min:
        splits = min(math.ceil(g.rn / chunk_min), max(1, 1024 // out_n))
    LAUNCHES["rows"] += 1
    if splits == 1:
        kernel = _reduce_kernel(step, finalize, acc)
        kernel[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, init, g.rn, 1, max(g.rn, 1),
                                    out_n, out)
        return out
    # Stage 1: each of `splits` blocks per row reduces a chunk into a partial.
    chunk = math.ceil(g.rn / splits)
    partial = device_array(out_n * splits, acc)
    first = _reduce_kernel(step, final_same, acc)
    first[_blocks(out_n * splits), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, init, g.rn, splits, chunk,
                                        out_n * splits, partial)
    # Stage 2: reduce each row's partials (contiguous) and finalize with the full count.
    LAUNCHES["rows"] += 1
    second = _reduce_kernel(step, finalize, acc)
    pgeom = geometry((out_n,), (splits,))
    second[_blocks(out_n), TPB](partial, 0, pgeom, 1, splits, 1, init, g.rn, 1, splits, out_n, out)
    return out


def max_with_index(x_view, dim, is_max):
    buf, off, shape, strides = x_view
    nd = len(shape)
    buf = as_device(buf)
    if nd == 0:
        values = device_array(1, buf.dtype)
        copy((buf, off, (1,), (1,)), (values, 0, (1,), (1,)))
        indices = device_array(1, np.int64)
        from .strided_copy import fill
        fill((indices, 0, (1,), (1,)), 0)
        return values, indices
    dim %= nd
    out_n = numel(tuple(shape[:dim]) + tuple(shape[dim + 1:]))
    values = device_array(out_n, buf.dtype)
    indices = device_array(out_n, np.int64)
    if out_n == 0:
        return values, indices
    g = _geometry((buf, off, shape, strides), plan(shape, strides, (dim,)))
    check_nonempty(g.rn, "max" if is_max else "min")
    _arg_kernel(g.buf.dtype)[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, bool(is_max),
                                                  out_n, values, indices)
    return values, indices


def softmax(x_view, dim, log):
    buf, off, shape, strides = x_view
    buf = as_device(buf)
    n = numel(shape)
    out = device_array(n, buf.dtype)
    if n == 0:
        return out
    if len(shape) == 0:
        shape, strides, dim = (1,), (0,), 0
    dim %= len(shape)
    ost = contiguous_strides(shape)
    ck, cx, co = dim_plan(shape, strides, ost, dim)
    nrows = numel(ck)
    _softmax_rows[_blocks(nrows), TPB](buf, off, out, geometry(ck, cx, co), len(ck), shape[dim], strides[dim],
                                       ost[dim], bool(log), nrows)
    return out


def softmax_backward(g_view, y_view, dim, log=False):
    """(g - sum(g * y)) * y over the last dim, log: g - exp(y) * sum(g) (the contract's
    softmax_backward) from this backend's own primitives: its sum adds in its order
    (PyTorch's CUDA kernel has another, not followed here)."""
    from .elementwise import binary, unary
    from .._shared.geometry import contiguous_strides
    shape = tuple(g_view[2])
    dt = g_view[0].dtype
    cst = tuple(contiguous_strides(shape))
    if log:
        s = reduce("sum", g_view, (len(shape) - 1,), dt)
        s_view = (s, 0, shape, tuple(contiguous_strides(shape[:-1])) + (0,))
        e = unary("exp", y_view, dt)
        es = binary("mul", (e, 0, shape, cst), s_view, shape, dt)
        return binary("sub", g_view, (es, 0, shape, cst), shape, dt)
    prod = binary("mul", g_view, y_view, shape, dt)
    s = reduce("sum", (prod, 0, shape, cst), (len(shape) - 1,), dt)
    s_view = (s, 0, shape, tuple(contiguous_strides(shape[:-1])) + (0,))     # broadcast along the row
    diff = binary("sub", g_view, s_view, shape, dt)
    return binary("mul", (diff, 0, shape, cst), y_view, shape, dt)


def vector_norm2(x_view, rows, n):
    """The contract's vector_norm2 on the GPU: this backend's squares, sums of each run and
    sqrt, in the dtype (the op layer's composed norm, in three of its kernels; the CPU's is
    PyTorch's CPU order, which a GPU's reduction does not follow)."""
    from .elementwise import binary, unary
    buf, off = x_view[0], x_view[1]
    run = (buf, off, (rows, n), (n, 1))
    squares = binary("mul", run, run, (rows, n), buf.dtype)
    sums = reduce("sum", (squares, 0, (rows, n), (n, 1)), (1,), buf.dtype)
    return unary("sqrt", (sums, 0, (rows,), (1,)), buf.dtype)
