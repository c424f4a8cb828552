"""Reductions and softmax: one thread block per output row, a shared-memory tree inside it.

Deterministic: every output is combined in the same order on every run (no
atomics).  Geometry, steps and the op table are the CPU's, written once
(nbgrad/backends/_shared/reduce.py): kept dims are coalesced, and the reduced
dims must merge into one run of rn elements at stride rs (otherwise the input
is first copied into (kept..., reduced...) order).  A block walks its row with
stride REDUCE_THREADS, then halves a shared array until one value is left.
When there are few rows and they are long (a full sum), each row is split
over several blocks writing partials, and a second launch reduces those.
float32 sums accumulate in float64 as on the CPU.
"""
import math

import numba
import numpy as np
from numba import cuda

from .._shared.geometry import contiguous_strides, numel
from .._shared.reduce import (COMBINE, REDUCE_OPS, acc_dtype, check_nonempty, dim_plan, final_same, init_value,
                              output_numel, plan, step_max, step_sum)
from .._shared.walk import strided_offsets
from ._device import MAX_BLOCKS, REDUCE_THREADS as TPB, SIMULATOR, as_device, device_array, device_fn, geometry, jit
from .strided_copy import copy

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


_reduce_kernels = {}


def _reduce_kernel(step, finalize, accumulator):
    key = (step, finalize, np.dtype(accumulator))
    k = _reduce_kernels.get(key)
    if k is None:
        k = _reduce_kernels[key] = make_reduce(step, finalize, accumulator)
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


def _geometry(x_view, dims):
    buf, off, shape, strides = x_view
    buf = as_device(buf)
    p = plan(shape, strides, dims)
    if p.copy_shape is not None:           # to contiguous (kept..., reduced...) order
        tmp = device_array(numel(p.copy_shape), buf.dtype)
        copy((buf, off, p.copy_shape, p.copy_strides), (tmp, 0, p.copy_shape, contiguous_strides(p.copy_shape)))
        buf, off = tmp, 0
    return _Geometry(buf, off, p.kshape, p.kst, p.rn, p.rs)


def _blocks(nrows):
    return max(1, min(nrows, MAX_BLOCKS))


def reduce(op, x_view, dims, out_dtype, correction=1):
    buf, off, shape, strides = x_view
    out_dtype = np.dtype(out_dtype)
    dims = tuple(dims) if shape else ()
    out_n = output_numel(shape, dims)
    out = device_array(out_n, out_dtype)
    if out_n == 0:
        return out
    g = _geometry(x_view, dims)
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
    g = _geometry((buf, off, shape, strides), (dim,))
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
