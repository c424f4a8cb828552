"""Reductions and softmax: one thread block per output row, a shared-memory tree inside it.

Deterministic: every output is combined in the same order on every run (no
atomics).  Geometry is the CPU's: kept dims are coalesced, and the reduced
dims must merge into one run of rn elements at stride rs (otherwise the input
is first copied into (kept..., reduced...) order).  A block walks its row with
stride REDUCE_THREADS, then halves a shared array until one value is left.
When there are few rows and they are long (a full sum), each row is split
over several blocks writing partials, and a second launch reduces those.
Step functions (acc, x) -> acc are the CPU's own (nbgrad/backends/cpu/reduction.py);
float32 sums accumulate in float64 as there.
"""
import math

import numba
import numpy as np
from numba import cuda

from ..cpu import reduction as cpu
from ..cpu._geometry import coalesce, contiguous_strides, numel
from ._device import MAX_BLOCKS, REDUCE_THREADS as TPB, SIMULATOR, as_device, device_array, device_fn, geometry, jit, launch
from .strided_copy import copy

_step_sum = device_fn(cpu._step_sum)
_step_max = device_fn(cpu._step_max)


def _numba_type(np_dtype):
    return numba.from_dtype(np.dtype(np_dtype))


@cuda.jit(device=True)
def _row_start(row, off, geom, nd):
    # element offset of kept-index `row` (geom: kept shape[nd], kept strides[nd])
    p = off
    rem = row
    for d in range(nd - 1, -1, -1):
        size = geom[d]
        q = rem // size
        p += (rem - q * size) * geom[nd + d]
        rem = q
    return p


@cuda.jit(device=True)
def _tree_sum(sm, tid):
    w = TPB // 2
    while w > 0:
        if tid < w:
            sm[tid] = sm[tid] + sm[tid + w]
        cuda.syncthreads()
        w //= 2


@cuda.jit(device=True)
def _tree_max(sm, tid):
    w = TPB // 2
    while w > 0:
        if tid < w:
            sm[tid] = _step_max(sm[tid], sm[tid + w])
        cuda.syncthreads()
        w //= 2


# --------------------------------------------------------------------------- #
# sum / mean / prod / max / min / all / any

def make_reduce(step, finalize, acc_dtype):
    step = device_fn(step)
    finalize = device_fn(finalize)
    acc_t = _numba_type(acc_dtype)

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
            w = TPB // 2
            while w > 0:
                if tid < w:
                    sm[tid] = step(sm[tid], sm[tid + w])
                cuda.syncthreads()
                w //= 2
            if tid == 0:
                out[blk] = finalize(sm[0], nfinal)
            cuda.syncthreads()

    return rows


_COMBINE = {
    "sum": (cpu._step_sum, cpu._final_same),
    "mean": (cpu._step_sum, cpu._final_mean),
    "prod": (cpu._step_prod, cpu._final_same),
    "max": (cpu._step_max, cpu._final_same),
    "min": (cpu._step_min, cpu._final_same),
    "all": (cpu._step_all, cpu._final_same),
    "any": (cpu._step_any, cpu._final_same),
}
_COMBINE["amax"] = _COMBINE["max"]
_COMBINE["amin"] = _COMBINE["min"]

REDUCE_OPS = cpu.REDUCE_OPS

_reduce_kernels = {}


def _reduce_kernel(step, finalize, acc_dtype):
    key = (step, finalize, np.dtype(acc_dtype))
    k = _reduce_kernels.get(key)
    if k is None:
        k = _reduce_kernels[key] = make_reduce(step, finalize, acc_dtype)
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
        sm[tid] = s
        cuda.syncthreads()
        _tree_sum(sm, tid)
        mean = sm[0] / rn
        cuda.syncthreads()
        ss = 0.0
        for j in range(tid, rn, TPB):
            dev = x[p + j * rs] - mean
            ss += dev * dev
        sm[tid] = ss
        cuda.syncthreads()
        _tree_sum(sm, tid)
        if tid == 0:
            out[row] = sm[0] / divisor
        cuda.syncthreads()


@jit
def _logsumexp_rows(x, xoff, kgeom, knd, rn, rs, nout, out):
    sm = cuda.shared.array(TPB, numba.float64)
    tid = cuda.threadIdx.x
    for row in range(cuda.blockIdx.x, nout, cuda.gridDim.x):
        p = _row_start(row, xoff, kgeom, knd)
        m = -math.inf
        for j in range(tid, rn, TPB):
            m = _step_max(m, x[p + j * rs])
        sm[tid] = m
        cuda.syncthreads()
        _tree_max(sm, tid)
        m = sm[0]
        cuda.syncthreads()
        if m != m or m == math.inf or m == -math.inf:
            if tid == 0:
                out[row] = m  # nan, +inf, or an all -inf (or empty) row
        else:
            s = 0.0
            for j in range(tid, rn, TPB):
                s += math.exp(x[p + j * rs] - m)
            sm[tid] = s
            cuda.syncthreads()
            _tree_sum(sm, tid)
            if tid == 0:
                out[row] = m + math.log(sm[0])
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
        px = xoff
        po = 0
        rem = row
        for d in range(knd - 1, -1, -1):
            size = geom[d]
            q = rem // size
            idx = rem - q * size
            rem = q
            px += idx * geom[knd + d]
            po += idx * geom[2 * knd + d]
        m = -math.inf
        for j in range(tid, rn, TPB):
            m = _step_max(m, x[px + j * xrs])
        sm[tid] = m
        cuda.syncthreads()
        _tree_max(sm, tid)
        m = sm[0]
        cuda.syncthreads()
        s = 0.0
        for j in range(tid, rn, TPB):
            s += math.exp(x[px + j * xrs] - m)
        sm[tid] = s
        cuda.syncthreads()
        _tree_sum(sm, tid)
        s = sm[0]
        cuda.syncthreads()
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
    nd = len(shape)
    dims = sorted({d % nd for d in dims}) if nd else []
    kept = [d for d in range(nd) if d not in dims]
    kshape = [shape[d] for d in kept]
    kst = [strides[d] for d in kept]
    rshape = [shape[d] for d in dims]
    rst = [strides[d] for d in dims]
    rn = numel(rshape)
    ck, (cks,) = coalesce(kshape, [kst])
    if rn == 0:
        return _Geometry(buf, off, ck, cks, 0, 0)
    cr, (crs,) = coalesce(rshape, [rst])
    if len(cr) == 1:
        return _Geometry(buf, off, ck, cks, cr[0], crs[0])
    full_shape = kshape + rshape
    tmp = device_array(numel(full_shape), buf.dtype)
    copy((buf, off, tuple(full_shape), tuple(kst + rst)),
         (tmp, 0, tuple(full_shape), contiguous_strides(full_shape)))
    ck, (cks,) = coalesce(kshape, [list(contiguous_strides(kshape + [rn])[:-1])])
    return _Geometry(tmp, 0, ck, cks, rn, 1)


def _blocks(nrows):
    return max(1, min(nrows, MAX_BLOCKS))


def _check_nonempty(rn, op):
    if rn == 0:
        raise IndexError(f"{op}(): Expected reduction dim to have non-zero size.")


def reduce(op, x_view, dims, out_dtype, correction=1):
    buf, off, shape, strides = x_view
    out_dtype = np.dtype(out_dtype)
    nd = len(shape)
    dims = tuple(dims) if nd else ()
    out_n = numel([shape[d] for d in range(nd) if d not in {x % nd for x in dims}]) if nd else 1
    out = device_array(out_n, out_dtype)
    if out_n == 0:
        return out
    g = _geometry(x_view, dims)
    if op in ("argmax", "argmin"):
        _check_nonempty(g.rn, op)
        values = device_array(out_n, g.buf.dtype)
        _arg_kernel(g.buf.dtype)[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs,
                                                      op == "argmax", out_n, values, out)
        return out
    if op in ("max", "min", "amax", "amin"):
        _check_nonempty(g.rn, op)
    if op == "var":
        divisor = max(0.0, g.rn - float(correction))
        _var_rows[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, divisor, out_n, out)
        return out
    if op == "logsumexp":
        _logsumexp_rows[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, out_n, out)
        return out
    step, finalize = _COMBINE[op]
    acc_dtype = cpu._acc_dtype(op, g.buf.dtype, out_dtype)
    init = cpu._init_value(op, g.buf.dtype, acc_dtype)
    chunk_min = TPB * (64 if SIMULATOR else 8)  # elements per partial block at least
    splits = 1
    if g.rn > 2 * chunk_min:
        splits = min(math.ceil(g.rn / chunk_min), max(1, 1024 // out_n))
    if splits == 1:
        kernel = _reduce_kernel(step, finalize, acc_dtype)
        kernel[_blocks(out_n), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, init, g.rn, 1, max(g.rn, 1),
                                    out_n, out)
        return out
    # Stage 1: each of `splits` blocks per row reduces a chunk into a partial.
    chunk = math.ceil(g.rn / splits)
    partial = device_array(out_n * splits, acc_dtype)
    first = _reduce_kernel(step, cpu._final_same, acc_dtype)
    first[_blocks(out_n * splits), TPB](g.buf, g.off, g.kgeom, g.knd, g.rn, g.rs, init, g.rn, splits, chunk,
                                        out_n * splits, partial)
    # Stage 2: reduce each row's partials (contiguous) and finalize with the full count.
    second = _reduce_kernel(step, finalize, acc_dtype)
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
    _check_nonempty(g.rn, "max" if is_max else "min")
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
    kept = [d for d in range(len(shape)) if d != dim]
    kshape = [shape[d] for d in kept]
    ck, (cx, co) = coalesce(kshape, [[strides[d] for d in kept], [ost[d] for d in kept]])
    nrows = numel(kshape)
    _softmax_rows[_blocks(nrows), TPB](buf, off, out, geometry(ck, cx, co), len(ck), shape[dim], strides[dim],
                                       ost[dim], bool(log), nrows)
    return out
