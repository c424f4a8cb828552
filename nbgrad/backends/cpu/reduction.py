"""Reduction kernels: sum/prod/max/min/all/any/mean, var, logsumexp, arg-reductions, softmax.

Steps, finalizers, the op table, the geometry plan and the index walk are
shared with the CUDA backend (nbgrad/backends/_shared: reduce.py, walk.py);
the kernels are made by _shared.cpu_kernel, so editing those helpers
recompiles them (the cache rule).

Geometry (done in Python, _shared/reduce.py): the reduced dims are moved
last (logically), then the kept dims and the reduced dims are coalesced
separately.  When the reduced dims merge into one run of stride rs:
  * rows:    for each output element, reduce rn elements at stride rs (the
             inner loop vectorises when rs == 1; sum uses fastmath reassoc);
  * columns: when the kept dims end with stride 1 and rs != 1 (e.g. sum over
             dim 0 of a C matrix), accumulate whole rows of input into a row
             of accumulators instead of walking memory by columns.
Otherwise (reduced dims that do not merge, or a strided row for an op that
has no column kernel) the input is first copied to a contiguous buffer in
(kept..., reduced...) order.  float32 sums accumulate in float64.
arg-reductions (max/min with indices, argmax) over a strided run use an
"arg columns" kernel the same way, instead of transposing the input first.
Large calls are split across threads (_threads.py): over the kept dims
(rows or column blocks), or, for a reduction to a single value, over the
reduced run with the partial results combined here (float sums and means of
a contiguous run through the team's native pieces, _native_total).
"""
import numpy as np
from numba import carray, uint64
from numba.extending import register_jitable

from ... import _debug

from .._shared import cpu_cfunc, cpu_kernel
from .._shared.fast_math import (_fast_exp, _wide_vectors, block_exp_shifted_f32, block_max_f32, block_sum,
                                 extremum_run, fma, lane_add, long_max_f32, reduce_all_max_f32,
                                 reduce_all_sum as _reduce_all_sum,
                                 sleef_expf, sleef_logf)
from .._shared.native import address_as
from .._shared.geometry import as_index_array, contiguous_strides, numel
from .._shared.reduce import (COMBINE, REDUCE_OPS, acc_dtype, check_nonempty, dim_plan, init_value, output_numel,
                              plan)
from .._shared.walk import advance, carry, jumps, odometer
from ._allocator import new_buffer
from ._threads import (native_function, num_threads, run_native, run_native_partials, run_split, split,
                       worth_native, worth_splitting)
from .strided_copy import copy  # a Python wrapper, not a jitted helper
from .cascade import (GRAIN_SIZE, SUM_VECTOR_BYTES, cascade_mean, cascade_reduce, cascade_sum, contiguous_run,
                      dense_sum, in_pytorch_order, iterator_walk, squared_deviations)

_REASSOC = {"reassoc", "contract", "nsz"}


# --------------------------------------------------------------------------- #
# Templates

def make_reduce(step, finalize, fastmath):
    kernel = cpu_kernel(fastmath=fastmath, nogil=True)

    @kernel
    @register_jitable(error_model="numpy", fastmath=fastmath)   # also a helper: the native totals run it
    def rows(x, xoff, kshape, kst, rn, rs, init, out):
        nd = kshape.size
        idx, jump = odometer(kshape, kst, nd - 1)
        p = xoff
        for o in range(out.size):
            acc = init
            if rs == 1:
                row = x[p:p + rn]   # sliced: no negative-index fix-up in the loop
                for j in range(rn):
                    acc = step(acc, row[j])
            else:
                for j in range(rn):
                    acc = step(acc, x[p + j * rs])
            out[o] = finalize(acc, rn)
            p = advance(idx, kshape, nd - 1, p, jump)

    @kernel
    def columns(x, xoff, kshape, kst, rn, rs, init, out):
        # kst[-1] == 1: accumulate input rows into a row of accumulators.
        nd = kshape.size
        inner = kshape[nd - 1]
        acc = np.full(inner, init)
        idx, jump = odometer(kshape, kst, nd - 2)
        p = xoff
        o = 0
        n = out.size
        while o < n:
            for i in range(inner):
                acc[i] = init
            for j in range(rn):
                q = p + j * rs
                row = x[q:q + inner]
                for i in range(inner):
                    acc[i] = step(acc[i], row[i])
            for i in range(inner):
                out[o + i] = finalize(acc[i], rn)
            o += inner
            p = advance(idx, kshape, nd - 2, p, jump)

    return rows, columns


_kernel = cpu_kernel(nogil=True)


@_kernel
def _var_rows(x, xoff, kshape, kst, rn, rs, correction, out):
    nd = kshape.size
    idx, jump = odometer(kshape, kst, nd - 1)
    p = xoff
    # np.float64 where Numba infers float64 anyway, so that the plain-Python run
    # (NUMBA_DISABLE_JIT=1) accumulates as wide and divides by 0 as NumPy does
    divisor = np.float64(max(0.0, rn - correction))
    for o in range(out.size):
        s = np.float64(0.0)
        first = np.float64(x[p]) if rn > 0 else np.float64(0.0)
        same = rn > 0
        for j in range(rn):
            v = x[p + j * rs]
            s += v
            if v != first:
                same = False
        # a constant row's mean is its value exactly (sum / n may round off it): var is
        # then exactly 0, as PyTorch's Welford gives, and std's gradient mask sees it
        mean = first if same else s / rn
        ss = np.float64(0.0)
        for j in range(rn):
            dev = x[p + j * rs] - mean
            ss += dev * dev
        out[o] = ss / divisor
        p = advance(idx, kshape, nd - 1, p, jump)


@_kernel
def _logsumexp_rows(x, xoff, kshape, kst, rn, rs, out):
    nd = kshape.size
    idx, jump = odometer(kshape, kst, nd - 1)
    p = xoff
    e = np.empty(rn, np.float64)    # a row's exps (as in _softmax_rows)
    for o in range(out.size):
        m = -np.inf
        for j in range(rn):
            v = x[p + j * rs]
            if v != v or v > m:
                m = np.float64(v)   # m is float64 (np.float64: also in plain Python)
                if v != v:
                    break
        if m != m or m == np.inf or m == -np.inf:
            out[o] = m  # nan, +inf, or an all -inf (or empty) row
        else:
            for j in range(rn):
                e[j] = x[p + j * rs] - m
            for j in range(rn):
                e[j] = _fast_exp(e[j])
            s = np.float64(0.0)
            for j in range(rn):
                s += e[j]
            out[o] = m + np.log(s)
        p = advance(idx, kshape, nd - 1, p, jump)


@_kernel
def _arg_rows(x, xoff, kshape, kst, rn, rs, is_max, values, indices):
    # First index on ties; the first NaN wins (PyTorch).
    nd = kshape.size
    idx, jump = odometer(kshape, kst, nd - 1)
    p = xoff
    for o in range(values.size):
        best = x[p]
        bi = 0
        if best == best:
            for j in range(1, rn):
                v = x[p + j * rs]
                if v != v:
                    best = v
                    bi = j
                    break
                if is_max:
                    if v > best:
                        best = v
                        bi = j
                elif v < best:
                    best = v
                    bi = j
        values[o] = best
        indices[o] = bi
        p = advance(idx, kshape, nd - 1, p, jump)


@_kernel
def _arg_columns(x, xoff, kshape, kst, rn, rs, is_max, values, indices):
    # kst[-1] == 1: walk input rows, keeping a row of best values and indices.
    # Same answers as _arg_rows: first index on ties, the first NaN wins.
    nd = kshape.size
    inner = kshape[nd - 1]
    idx, jump = odometer(kshape, kst, nd - 2)
    p = xoff
    o = 0
    n = values.size
    while o < n:
        best = values[o:o + inner]
        where = indices[o:o + inner]
        first = x[p:p + inner]
        for i in range(inner):
            best[i] = first[i]
            where[i] = 0
        for j in range(1, rn):
            q = p + j * rs
            row = x[q:q + inner]
            if is_max:
                for i in range(inner):
                    v = row[i]
                    b = best[i]
                    take = (v > b or v != v) and b == b
                    best[i] = v if take else b
                    where[i] = j if take else where[i]
            else:
                for i in range(inner):
                    v = row[i]
                    b = best[i]
                    take = (v < b or v != v) and b == b
                    best[i] = v if take else b
                    where[i] = j if take else where[i]
        o += inner
        p = advance(idx, kshape, nd - 2, p, jump)


@register_jitable(error_model="numpy")
def _row_max(x, p, rn, rs):
    """The largest of x[p + j * rs], j < rn (rn >= 1), in x's dtype; NaN if one is NaN."""
    m = x[p]
    for j in range(1, rn):
        v = x[p + j * rs]
        if v != v or v > m:
            m = v
            if v != v:
                break
    return m


@_kernel
def _softmax_rows(x, xoff, kshape, xkst, okst, rn, xrs, ors, log, divide, out):
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
    jx = jumps(kshape, xkst, nd - 1)
    jo = jumps(kshape, okst, nd - 1)
    px = xoff
    po = 0
    e = np.empty(rn, x.dtype)
    total = 1
    for d in range(nd):
        total *= kshape[d]
    for _ in range(total):
        m = _row_max(x, px, rn, xrs)
        # the row's exps by fast_math's exp over a contiguous copy of x - m (a loop of unit
        # stride vectorises; one of libm calls, or of a run-time stride, stays scalar), then
        # their float64 sum in order
        for j in range(rn):
            e[j] = x[px + j * xrs] - m
        for j in range(rn):
            e[j] = _fast_exp(e[j])
        s = np.float64(0.0)     # a float64 sum (np.float64: also in plain Python)
        for j in range(rn):
            s += e[j]
        if log:
            ls = np.log(s)
            for j in range(rn):
                out[po + j * ors] = x[px + j * xrs] - m - ls
        elif divide:
            # (over a dim that is not the last PyTorch's _vec_softmax divides by the sum; its
            # last-dim kernel multiplies by the reciprocal)
            for j in range(rn):
                out[po + j * ors] = e[j] / s
        else:
            for j in range(rn):
                out[po + j * ors] = e[j]
            inv = 1.0 / s
            for j in range(rn):
                out[po + j * ors] = out[po + j * ors] * inv
        d = carry(idx, kshape, nd - 1)
        if d >= 0:
            px += jx[d]
            po += jo[d]


@_kernel
def _softmax_rows_f32(x, xoff, kshape, xkst, okst, rn, xrs, ors, log, out):
    """float32 softmax / log_softmax over a dim that is not the last, as PyTorch's _vec_softmax
    and _vec_log_softmax compute it: per output position the max over the dim, e = exp(x -
    max) by SLEEF's expf, their float32 sum in the dim's order, then e / sum (softmax) or
    (x - max) - logf(sum) by SLEEF's logf (log_softmax).  On an AVX-512 machine this gave
    PyTorch's bits for log_softmax on nearly every shape tried and for softmax where the
    inner size is a multiple of 16 (its float lanes); elsewhere 1-14% of softmax's elements
    are an ulp apart (the float64-then-float32 rounding before was an ulp apart on 33-77%)."""
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
    jx = jumps(kshape, xkst, nd - 1)
    jo = jumps(kshape, okst, nd - 1)
    px = xoff
    po = 0
    e = np.empty(rn, np.float32)
    total = 1
    for d in range(nd):
        total *= kshape[d]
    for _ in range(total):
        m = _row_max(x, px, rn, xrs)
        s = np.float32(0.0)
        for j in range(rn):
            e[j] = sleef_expf(np.float32(x[px + j * xrs] - m))
            s = np.float32(s + e[j])
        if log:
            ls = sleef_logf(s)
            for j in range(rn):
                out[po + j * ors] = np.float32(x[px + j * xrs] - m) - ls
        else:
            for j in range(rn):
                out[po + j * ors] = e[j] / s
        d = carry(idx, kshape, nd - 1)
        if d >= 0:
            px += jx[d]
            po += jo[d]


# --------------------------------------------------------------------------- #
# Op table

_combine_kernels = {}


def _kernels_for(op):
    step, finalize, reassociable = COMBINE[op]
    key = (step, finalize)
    kernels = _combine_kernels.get(key)
    if kernels is None:
        kernels = _combine_kernels[key] = make_reduce(step, finalize, _REASSOC if reassociable else False)
    return kernels


class _Geometry:
    """x as (kept dims coalesced) x (one reduced run of rn elements at stride rs)."""

    def __init__(self, buf, off, kshape, kst, rn, rs):
        self.buf, self.off, self.rn, self.rs = buf, off, rn, rs
        self.kshape = as_index_array(kshape)
        self.kst = as_index_array(kst)
        self.inner_stride = kst[-1]


def _geometry(x_view, dims, force_contiguous=False):
    buf, off, shape, strides = x_view
    p = plan(shape, strides, dims, force_contiguous)
    if p.copy_shape is not None:           # to contiguous (kept..., reduced...) order
        tmp = new_buffer(numel(p.copy_shape), buf.dtype)
        copy((buf, off, p.copy_shape, p.copy_strides), (tmp, 0, p.copy_shape, contiguous_strides(p.copy_shape)))
        buf, off = tmp, 0
    return _Geometry(buf, off, p.kshape, p.kst, p.rn, p.rs)


# Row kernels for a strided reduced run are cache-hostile; above this length
# the input is copied (blocked transpose) to make rows contiguous first.
_STRIDED_ROW_LIMIT = 16


def reduce(op, x_view, dims, out_dtype, correction=1, one_value_path=True):
    """one_value_path: a reduction of float32/float64 to one value takes PyTorch's CPU path for
    it (mean in PyTorch's sum order, var as std_var_all_cpu); off for values widened from
    float16 and for var_mean/std_mean (PyTorch's Welford for all)."""
    buf, off, shape, strides = x_view
    out_dtype = np.dtype(out_dtype)
    dims = tuple(dims) if shape else ()
    out_n = output_numel(shape, dims)
    out = np.empty(out_n, dtype=out_dtype)
    if out_n == 0:
        return out
    if op == "var" and out_n == 1 and one_value_path and buf.dtype in (np.float32, np.float64):
        out[0] = _var_all(x_view, dims, float(correction))
        return out
    if op in ("sum", "mean") and out_n == 1 and one_value_path and out_dtype == buf.dtype:
        # PyTorch's float sum to one value, in its order where that is fixed (a loss prints
        # the same digits); sum otherwise keeps its float64 accumulation
        run = in_pytorch_order(x_view, buf.dtype)
        if run is not None:
            out[0] = (cascade_mean if op == "mean" else cascade_sum)(buf, *run)
            if _debug.ENABLED: _debug.log("reduce", op=op, path="pytorch order", n=numel(shape), out=1)
            return out
    if op in ("sum", "mean") and out_n > 1 and one_value_path and out_dtype == buf.dtype and buf.dtype in _TOTAL_DENSE_DTYPES:
        # PyTorch's float sum over some dims, in its order (its mean: that sum / n in the dtype)
        sums = cascade_reduce(x_view, dims)
        if op == "mean":
            n = buf.dtype.type(numel(shape) // out_n)
            with np.errstate(divide="ignore", invalid="ignore"):     # (an empty dim: nan, as PyTorch)
                np.divide(sums, n, out=out)
        else:
            out = sums
        if _debug.ENABLED: _debug.log("reduce", op=op, path="pytorch order", n=numel(shape), out=out_n)
        return out
    if op in ("argmax", "argmin"):
        g = _geometry(x_view, dims, force_contiguous=False)
        check_nonempty(g.rn, op)
        if _debug.ENABLED: _debug.log("reduce", op=op, path="arg", n=numel(shape), out=out_n, copied=g.buf is not buf)
        values = np.empty(out_n, dtype=buf.dtype)
        _arg_reduce(x_view, dims, g, op == "argmax", values, out)
        return out
    if op == "sum" and dims == (0,) and len(shape) == 2 and shape[0] > 1 and shape[1] > 1 \
            and strides[1] == 1 and strides[0] == shape[1]:
        # a C matrix's column sums (a linear layer's bias gradient): the geometry plan()
        # would make, without planning it
        g = _Geometry(buf, off, (shape[1],), (1,), shape[0], shape[1])
    else:
        g = _geometry(x_view, dims)
    if op in ("max", "min", "amax", "amin"):
        check_nonempty(g.rn, op)
    if op == "var":
        g = _maybe_contiguous(x_view, dims, g)
        if _debug.ENABLED: _debug.log("reduce", op=op, path="rows", n=numel(shape), out=out_n, copied=g.buf is not buf)
        _var_rows(g.buf, g.off, g.kshape, g.kst, g.rn, g.rs, float(correction), out)
        return out
    if op == "logsumexp":
        g = _maybe_contiguous(x_view, dims, g)
        if _debug.ENABLED: _debug.log("reduce", op=op, path="rows", n=numel(shape), out=out_n, copied=g.buf is not buf)
        _logsumexp_rows(g.buf, g.off, g.kshape, g.kst, g.rn, g.rs, out)
        return out
    rows, columns = _kernels_for(op)
    init = init_value(op, buf.dtype, acc_dtype(op, buf.dtype, out_dtype))
    if g.rs != 1 and g.rn > 1 and g.inner_stride == 1 and g.kshape[-1] > 1:
        if _debug.ENABLED: _debug.log("reduce", op=op, path="columns", n=numel(shape), out=out_n, copied=g.buf is not buf)
        _run_kept(columns, g, init, (out,), column_blocks=True)
        return out
    g = _maybe_contiguous(x_view, dims, g)
    if _debug.ENABLED: _debug.log("reduce", op=op, path="rows", n=numel(shape), out=out_n, copied=g.buf is not buf)
    if op in _EXTREMA and g.rs == 1 and g.buf.dtype in _TOTAL_DENSE_DTYPES:
        # rows at unit stride: the vectorized comparisons (the same answer as the step loop's)
        rows = _max_rows if _EXTREMA[op] else _min_rows
    total = _native_total(op, g) if out_n == 1 else None
    if total is not None:
        out[0] = total
    elif out_n == 1 and op in _SPLITTABLE_TOTALS and _worth_splitting_total(g.rn):
        out[0] = _split_total(op, rows, g, init, out.dtype)
    else:
        _run_kept(rows, g, init, (out,), column_blocks=False)
    return out


def _var_all(x_view, dims, correction):
    """PyTorch's std_var_all_cpu (var of float32/float64 to one value): the squared deviations,
    in float64, from the mean as x.mean() gives it (in x's dtype: PyTorch's sum order where it
    is fixed), so that the variance is 0 exactly where var's backward sees x == x.mean()."""
    buf = x_view[0]
    n = numel(x_view[2])
    walk = iterator_walk(x_view)        # (the mean's walk where its order is PyTorch's, and the deviations')
    mean = cascade_mean(buf, *walk) if 0 < n < GRAIN_SIZE else reduce("mean", x_view, dims, buf.dtype)[0]
    return _variance(buf, walk, n, mean, correction)


def _variance(buf, walk, n, mean, correction):
    """The float64 squared deviations from mean over the walk, divided by n - correction (nan
    and inf where that is not positive, as PyTorch's)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float64(squared_deviations(buf, *walk, mean)) / np.float64(max(0.0, n - correction))


_ONE = as_index_array([1])
_ZERO = as_index_array([0])
_TOTAL_DENSE_OPS = frozenset({"sum", "mean"})
_EXTREMA = {"max": True, "amax": True, "min": False, "amin": False}     # op: is_max (_max_rows or _min_rows)
_TOTAL_DENSE_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
# max/min of integers take the shortcut too (reduce() runs the same _extremum_rows on them):
# an index tensor's bounds check (index_select, gather, x[idx]) is two of them, 25 us each
# through reduce()'s planning
_EXTREMUM_DENSE_DTYPES = _TOTAL_DENSE_DTYPES | frozenset(np.dtype(t) for t in (np.int64, np.int32, np.int16,
                                                                                 np.int8, np.uint8))


def total_dense(op, buf, off, n, out_dtype):
    """reduce(op) of a dense run of n elements over all its dims (x.sum(), x.mean(), x.max(),
    x.amin() ... of a row-major tensor), the small op's shortcut: the one-element buffer reduce() would
    return, from the same row kernel and arguments, with none of its planning.  None for
    a call it does not serve (an op or dtype other than float sum/mean or float and integer
    max/min/amax/amin, n large enough to split, NBGRAD_DEBUG on); the caller then takes reduce()."""
    out_dtype = np.dtype(out_dtype)
    is_max = _EXTREMA.get(op)
    if ((is_max is None and op not in _TOTAL_DENSE_OPS) or n == 0 or _debug.ENABLED or _worth_splitting_total(n)
            or _worth_native_total(n) or out_dtype != buf.dtype
            or buf.dtype not in (_TOTAL_DENSE_DTYPES if is_max is None else _EXTREMUM_DENSE_DTYPES)):
        return None
    out = np.empty(1, dtype=out_dtype)
    if is_max is not None and buf.dtype in _TOTAL_DENSE_DTYPES:     # the rows kernel's own run
        out[0] = _extremum_total(buf, off, n, is_max)                # (_max_rows, _min_rows)
        return out
    if is_max is None and n < GRAIN_SIZE:       # PyTorch's sum order, as reduce() takes it
        total = dense_sum(buf, off, n)
        out[0] = total if op == "sum" else buf.dtype.type(total / buf.dtype.type(n))
        return out
    _kernels_for(op)[0](buf, off, _ONE, _ZERO, n, 1, init_value(op, buf.dtype, acc_dtype(op, buf.dtype, out_dtype)),
                        out)
    return out


def var_dense(buf, off, n, correction, take_sqrt, out_dtype):
    """reduce("var") of a dense run of n float32/float64 elements to one value (_var_all: the
    mean in PyTorch's order, the float64 squared deviations), its float64 sqrt when take_sqrt
    (std), rounded once to out_dtype: the small op's shortcut for x.var() / x.std() (28 -> 10 us
    for 16 float32 elements, where the planned reduce, a sqrt op and a cast took the time).
    None for a call it does not serve (GRAIN_SIZE elements and more, another dtype,
    NBGRAD_DEBUG on)."""
    if n == 0 or n >= GRAIN_SIZE or _debug.ENABLED or buf.dtype not in _TOTAL_DENSE_DTYPES:
        return None
    walk = (off,) + contiguous_run(n)   # (iterator_walk's of a dense run, without working it out)
    v = _variance(buf, walk, n, cascade_mean(buf, *walk), correction)
    out = np.empty(1, dtype=out_dtype)
    out[0] = np.sqrt(v) if take_sqrt else v
    return out


@register_jitable(error_model="numpy")
def _extremum_rows(x, xoff, kshape, kst, rn, init, is_max, out):
    nd = kshape.size
    idx, jump = odometer(kshape, kst, nd - 1)
    p = xoff
    for o in range(out.size):
        out[o] = extremum_run(x, p, rn, is_max) if rn else init
        p = advance(idx, kshape, nd - 1, p, jump)


@_kernel
def _extremum_total(x, p, n, is_max):
    return extremum_run(x, p, n, is_max)


@_kernel
def _max_rows(x, xoff, kshape, kst, rn, rs, init, out):
    _extremum_rows(x, xoff, kshape, kst, rn, init, True, out)


@_kernel
def _min_rows(x, xoff, kshape, kst, rn, rs, init, out):
    _extremum_rows(x, xoff, kshape, kst, rn, init, False, out)


def arg_dense(op, buf, off, rows, n):
    """argmax/argmin of each of `rows` consecutive runs of n elements from buf[off] (a
    row-major tensor's last dim, or all of it as one run): the int64 indices reduce() gives,
    from its own row kernel, with none of its planning (logits.argmax(1) each step).  None for
    a call it does not serve (not float32/float64, empty runs, large, NBGRAD_DEBUG on)."""
    if op not in ("argmax", "argmin") or n == 0 or rows == 0 or _debug.ENABLED \
            or buf.dtype not in _TOTAL_DENSE_DTYPES or rows * n > 1 << 16:
        return None
    values = np.empty(rows, buf.dtype)
    indices = np.empty(rows, np.int64)
    _arg_rows(buf, off, as_index_array([rows]), as_index_array([n]), n, 1, op == "argmax", values, indices)
    return indices


# Reductions to one value that may be split along the reduced run: partial
# results of the same op, combined in Python (float sums in float64).
_SPLITTABLE_TOTALS = frozenset({"sum", "mean", "max", "min", "amax", "amin"})


def _worth_splitting_total(n):
    """A reduction to one value only reads, one pass at memory speed: it pays for a split from 4x
    the memory-bound line (float32 sum here, serial / split: 1M 148 / 238 us, 2M 298 / 332,
    4M 584 / 479, 8M 1164 / 774; mul over the same sizes gains from 1M)."""
    return worth_splitting(n >> 2)


# Float sums and means to one value of a contiguous run split through a native entry point
# (_threads.run_native: the team's workers take pieces in ~1 us): each piece is the sum rows
# kernel's own body over its range, its float64 partial written to its slot (lo // chunk)
# without rounding to the input's dtype, and the partials are added here in float64.  The
# pieces' sums are associated otherwise than one call's (which itself adds in vector lanes),
# so a float64 total may differ from the serial one in its last bits; a float32 one, rounded
# once from float64, practically never.  A read-only pass pays for the split from 4x the
# memory-bound line: float32 x.sum(), serial (from 4M the pool's split) against native, us
# (/work/prof/sumn.py, medians of 250): 128K 12 / 28, 256K 20 / 34, 512K 54 / 50,
# 1M 149 / 85-99, 4M 527-588 (pool) / 365-402.
def _worth_native_total(n):
    return worth_native(n >> 2)


def _native_sum_pieces(rows, xdt):
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 3)
        x = carray(address_as(block[0], xdt), hi)
        chunk = carray(address_as(block[2], np.int64), 1)[0]
        k = lo // chunk
        partial = carray(address_as(block[1], np.float64), k + 1)
        rows(x, lo, _ONE, _ZERO, hi - lo, 1, 0.0, partial[k:k + 1])
    return cpu_cfunc(native).address


def _native_total(op, g):
    """op (sum or mean) of g's one contiguous run of float32/float64, split natively; None when
    the call is not one for that route (or the team is busy)."""
    n = g.rn
    if op not in _TOTAL_DENSE_OPS or g.rs != 1 or g.buf.dtype not in _TOTAL_DENSE_DTYPES \
            or not _worth_native_total(n) or not (0 <= g.off and g.off + n <= g.buf.size):
        return None
    dtype = g.buf.dtype
    fn = native_function(("total", dtype), _native_sum_pieces, _kernels_for("sum")[0].py_func, dtype.type)
    partial = run_native_partials(fn, n, (g.buf,), (g.off,))
    if partial is None:
        return None
    total = partial.sum()
    return total / n if op == "mean" else total


def _split_total(op, rows, g, init, out_dtype):
    pieces = split(g.rn, num_threads())
    # float sums keep their partials in float64 (the accumulator's dtype), rounded once at the
    # end as one call's sum is: the native route's total (_native_total) then rounds the same
    partial = np.empty(len(pieces), dtype=np.float64 if op in ("sum", "mean") and out_dtype.kind == "f"
                       else out_dtype)
    step = "sum" if op == "mean" else op
    srows = rows if op != "mean" else _kernels_for("sum")[0]

    def part(k):
        s, e = pieces[k]
        srows(g.buf, g.off + s * g.rs, g.kshape, g.kst, e - s, g.rs, init, partial[k:k + 1])
    run_split(lambda a, b: [part(k) for k in range(a, b)], len(pieces), align=1)
    if step == "sum":
        total = partial.astype(np.float64).sum() if partial.dtype.kind == "f" else partial.sum()
        return total / g.rn if op == "mean" else total
    if np.isnan(partial).any() if partial.dtype.kind == "f" else False:
        return partial[np.isnan(partial)][0]
    return partial.max() if op in ("max", "amax") else partial.min()


def _run_kept(kernel, g, arg, outs, column_blocks):
    """kernel(buf, off, kshape, kst, rn, rs, arg, *outs), split over the outermost kept dim
    (for column kernels with one kept dim: over column blocks) when large enough."""
    kshape, kst = g.kshape, g.kst
    size = outs[0].size
    outer = int(kshape[0])
    if not worth_splitting(size * max(g.rn, 1)) or outer < 2:
        kernel(g.buf, g.off, kshape, kst, g.rn, g.rs, arg, *outs)
        return
    row = size // outer
    st0 = int(kst[0])
    rest = [int(v) for v in kshape[1:]]

    def part(start, stop):
        sub = as_index_array([stop - start] + rest)
        kernel(g.buf, g.off + start * st0, sub, kst, g.rn, g.rs, arg, *[o[start * row:stop * row] for o in outs])
    run_split(part, outer, align=16 if column_blocks and len(kshape) == 1 else 1)


def _arg_reduce(x_view, dims, g, is_max, values, indices):
    """First index of the max/min over the reduced run, by rows or by arg columns."""
    if g.rs != 1 and g.rn > 1 and g.inner_stride == 1 and g.kshape[-1] > 1:
        _run_kept(_arg_columns, g, bool(is_max), (values, indices), column_blocks=True)
        return
    g = _maybe_contiguous(x_view, dims, g)
    _run_kept(_arg_rows, g, bool(is_max), (values, indices), column_blocks=False)


def _maybe_contiguous(x_view, dims, g):
    if g.rs not in (0, 1) and g.rn > _STRIDED_ROW_LIMIT:
        return _geometry(x_view, dims, force_contiguous=True)
    return g


def max_with_index(x_view, dim, is_max):
    buf, off, shape, strides = x_view
    nd = len(shape)
    if nd == 0:
        values = np.empty(1, dtype=buf.dtype)
        values[0] = buf[off]
        return values, np.zeros(1, dtype=np.int64)
    dim %= nd
    out_n = numel(tuple(shape[:dim]) + tuple(shape[dim + 1:]))
    values = np.empty(out_n, dtype=buf.dtype)
    indices = np.empty(out_n, dtype=np.int64)
    if out_n == 0:
        return values, indices
    g = _geometry(x_view, (dim,))
    check_nonempty(g.rn, "max" if is_max else "min")
    _arg_reduce(x_view, (dim,), g, is_max, values, indices)
    return values, indices


def softmax(x_view, dim, log):
    buf, off, shape, strides = x_view
    n = numel(shape)
    out = new_buffer(n, buf.dtype)
    if n == 0:
        return out
    nd = len(shape)
    if nd == 0:
        shape, strides, dim = (1,), (0,), 0
    dim %= len(shape)
    ost = contiguous_strides(shape)
    ck, cx, co = dim_plan(shape, strides, ost, dim)
    if buf.dtype == np.float32 and dim == len(shape) - 1:
        rn, rs, lanes, log = shape[dim], strides[dim], pytorch_float_lanes(), bool(log)
        rows = n // rn
        if rows > 1 and worth_splitting_rows(n) and tuple(strides) == ost \
                and 0 <= off and off + n <= buf.size:
            # dense rows split natively across the team (~1 us a split, not the pool's 20-50)
            fn = native_function(("softmax_rows", "float32"), _native_softmax_rows)
            params = np.array([rn, lanes, log], np.int64)
            if run_native(fn, rows, (buf, out, params), (off, 0, 0), align=1):
                return out
        if ck[0] < 2 or ck[0] * co[0] != n or not worth_splitting(n, True):
            _softmax_lastdim_f32(buf, off, as_index_array(ck), as_index_array(cx), as_index_array(co), rn, rs,
                                 lanes, log, out)
            return out
        # rows are independent: blocks of the outermost kept dim on the thread pool, as
        # PyTorch's parallel_for over rows (the same bits)
        xst, ost0 = as_index_array(cx), int(co[0])
        cost, rest = as_index_array(co), list(ck[1:])

        def part(start, stop):
            _softmax_lastdim_f32(buf, off + start * cx[0], as_index_array([stop - start] + rest), xst, cost, rn, rs,
                                 lanes, log, out[start * ost0:stop * ost0])
        run_split(part, ck[0])
        return out
    args = (buf, off, as_index_array(ck), as_index_array(cx), as_index_array(co), shape[dim], strides[dim], ost[dim],
            bool(log))
    if buf.dtype == np.float32:
        _softmax_rows_f32(*args, out)
    else:
        _softmax_rows(*args, dim != len(shape) - 1, out)
    return out


# -- the 2-norm over the last dim ----------------------------------------------------
# PyTorch's norm kernel for p = 2 over a run at unit stride (norm_kernel_tensor_iterator_impl,
# binary_kernel_reduce_lastdim; x.norm(), torch.linalg.vector_norm(x, dim=-1) of a row-major
# x): acc_vec += x * x over the run's full Vectorized<T> (32 bytes: 8 float32 or 4 float64
# lanes; that kernel has no AVX512 build), the lanes added in order, then the rest one by one,
# buffer[0] += x * x, and the sqrt in the dtype.  The rest's loop as PyTorch's CPU build
# compiles it: float32 elements in fours first (a vectorized loop, its additions in order and
# unfused), then one fused multiply-add each; float64 one fused multiply-add each.  The bits
# of torch 2.13's CPU build, on 1,040 runs of 1 - 100003 elements and rows of 37
# (tests/backends/test_vector_norm.py).

@register_jitable(error_model="numpy")
def _norm2_run(x, p, n, acc, unfused):
    """One run's 2-norm; unfused: the rest's elements taken in blocks of that many first (4 for
    float32, 0 for float64)."""
    lanes = acc.size
    for lane in range(lanes):
        acc[lane] = 0
    full = n // lanes
    if full > 0:
        lane_add(x, p, full, acc, True)
    b = acc[0]
    for lane in range(1, lanes):
        b = b + acc[lane]
    d = p + full * lanes
    if unfused > 0:
        for _ in range(unfused * ((p + n - d) // unfused)):
            v = x[d]
            b = b + v * v
            d += 1
    for j in range(d, p + n):
        b = fma(x[j], x[j], b)
    return np.sqrt(b)


@_kernel
def _norm2_rows(x, off, rows, n, lanes, unfused, out):
    acc = np.empty(lanes, x.dtype)
    for i in range(rows):
        out[i] = _norm2_run(x, off + i * n, n, acc, unfused)


def vector_norm2(x_view, rows, n):
    """The contract's vector_norm2: 2-norms of `rows` runs of n elements of x's buffer from its
    offset, in PyTorch's order (above)."""
    buf, off = x_view[0], x_view[1]
    out = np.empty(rows, buf.dtype)
    _norm2_rows(buf, off, rows, n, SUM_VECTOR_BYTES // buf.dtype.itemsize, 4 if buf.dtype == np.float32 else 0, out)
    return out


def worth_splitting_rows(n):
    """Whether softmax-like row kernels over n elements split across the team: an element costs
    them ~4x a tanh's (a max, SLEEF's exp, a sum, a scale), so from a quarter of the elementwise
    line (TEAM_MIN_ELEMENTS), the same work a piece: (4096, 16) float32 softmax 87 -> 47 us."""
    return worth_native(4 * n, True)


# Rows per block of the softmax kernels: a block's passes meet its rows in L1.
_SOFTMAX_BLOCK_ELEMENTS = 4096


@register_jitable(error_model="numpy")
def _softmax_dense_rows_f32(x, r0, r1, rn, lanes, log, out):
    """_softmax_lastdim_f32 of rows r0 .. r1 of a dense (rows, rn) x into out's, by blocks
    (the same per-row bits as any other block of them)."""
    block = max(1, _SOFTMAX_BLOCK_ELEMENTS // rn)
    acc = np.empty(lanes, np.float32)
    mx = np.empty(block, np.float32)
    sc = np.empty(block, np.float32)
    sh = np.empty(block * rn, np.float32)
    sh2 = np.empty(block * rn, np.float32)
    r = r0
    while r < r1:
        b = min(block, r1 - r)
        _softmax_block_f32(x, r * rn, b, rn, lanes, log, acc, mx, sc, sh, sh2, out, r * rn)
        r += b


def _native_softmax_rows():
    """The native entry point (run_native) of _softmax_dense_rows_f32 over rows [lo, hi): its
    block holds x's address at the first row, out's, and (rn, lanes, log)."""
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 3)
        params = carray(address_as(block[2], np.int64), 3)
        rn = params[0]
        x = carray(address_as(block[0], np.float32), hi * rn)
        out = carray(address_as(block[1], np.float32), hi * rn)
        _softmax_dense_rows_f32(x, lo, hi, rn, params[1], params[2] != 0, out)
    return cpu_cfunc(native).address


@register_jitable(error_model="numpy")
def _softmax_block_f32(x, px, b, rn, lanes, log, acc, mx, sc, sh, sh2, out, po):
    """_softmax_lastdim_f32 of b rows of rn that are one run in x (from px) and in out (from
    po): each pass one loop over the block (fast_math's block_*; rows of 16: 190 -> 120 us for
    4096 of them, rows of 10: 330 -> 150)."""
    block_max_f32(x, px, b, rn, mx)
    block_exp_shifted_f32(x, px, b, rn, mx, sh, out, po)      # (sh: each row's max repeated)
    block_sum(out, po, b, rn, lanes, acc, sc)
    # each row's factor in a loop of its own over the rows (it vectorizes: SLEEF's logf a row
    # at a time inside the fill loop below was scalar), then repeated along the row
    if log:
        for i in range(b):
            sc[i] = sleef_logf(sc[i])
    else:
        for i in range(b):
            sc[i] = np.float32(1.0) / sc[i]
    for i in range(b):
        f = sc[i]
        for j in range(rn):
            sh2[i * rn + j] = f
    k = b * rn
    o = out[po:po + k]
    f = sh2[:k]
    if log:
        xr = x[px:px + k]
        m = sh[:k]
        for t in range(uint64(k)):
            o[t] = (xr[t] - m[t]) - f[t]
    else:
        for t in range(uint64(k)):
            o[t] = o[t] * f[t]


@_kernel
def _softmax_lastdim_f32(x, xoff, kshape, xkst, okst, rn, xrs, lanes, log, out):
    """PyTorch's _vec_softmax_lastdim and _vec_log_softmax_lastdim in float32, to the bit: per
    row the max, e = exp(x - max) by SLEEF's expf (its Vectorized exp), their sum as
    vec::reduce_all (map_reduce_all) adds it (the first vector, then each full one lane by
    lane, the partial last one into the first lanes, then lane i + lane i ^ h for
    h = lanes/2 ... 1; a row shorter than a vector in order), and e * (1 / sum); log:
    (x - max) - log(sum) with SLEEF's logf.  out is row-major (the row at stride 1).

    A block of rows at a time, in passes (the rows' maxima, their exps, their sums, the
    results): each pass a short loop that LLVM compiles well.  One loop over a row doing it
    all, with reduce_all_sum's branches beside SLEEF's polynomial, took 100 ns for a row of
    16 (4096 rows: 420 -> 180 us)."""
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
    jx = jumps(kshape, xkst, nd - 1)
    jo = jumps(kshape, okst, nd - 1)
    acc = np.empty(lanes, np.float32)
    tmp = np.empty(lanes, np.float32)
    total = 1
    for d in range(nd):
        total *= kshape[d]
    block = max(1, _SOFTMAX_BLOCK_ELEMENTS // rn)
    pxs = np.empty(block, np.int64)
    pos = np.empty(block, np.int64)
    mx = np.empty(block, np.float32)
    sc = np.empty(block, np.float32)
    sh = np.empty(block * rn, np.float32)
    sh2 = np.empty(block * rn, np.float32)
    urn = uint64(rn)
    px = xoff
    po = 0
    done = 0
    while done < total:
        b = min(block, total - done)
        for i in range(b):
            pxs[i] = px
            pos[i] = po
            d = carry(idx, kshape, nd - 1)
            if d >= 0:
                px += jx[d]
                po += jo[d]
        dense = xrs == 1
        for i in range(1, b):
            dense &= pxs[i] == pxs[i - 1] + rn and pos[i] == pos[i - 1] + rn
        if dense:                           # the block's rows one run in x and in out
            _softmax_block_f32(x, pxs[0], b, rn, lanes, log, acc, mx, sc, sh, sh2, out, pos[0])
            done += b
            continue
        if xrs != 1:                        # strided rows: into out's rows first
            for i in range(b):
                row = out[pos[i]:pos[i] + rn]
                for j in range(rn):
                    row[j] = x[pxs[i] + j * xrs]
        for i in range(b):                  # the maxima (a NaN wins)
            if xrs == 1:
                mx[i] = reduce_all_max_f32(x, pxs[i], rn) if rn < 256 else long_max_f32(x, pxs[i], rn)
            else:
                mx[i] = reduce_all_max_f32(out, pos[i], rn) if rn < 256 else long_max_f32(out, pos[i], rn)
        for i in range(b):                  # the exps (slices at unit stride: the loops vectorize)
            row = out[pos[i]:pos[i] + rn]
            m = mx[i]
            if xrs == 1:                    # from x's row into out's: no aliasing to check (2.5x)
                xr = x[pxs[i]:pxs[i] + rn]
                for j in range(urn):
                    row[j] = sleef_expf(xr[j] - m)
            else:
                for j in range(urn):
                    row[j] = sleef_expf(row[j] - m)
        for i in range(b):                  # the sums
            s = _reduce_all_sum(out, pos[i], rn, lanes, acc, tmp)
            sc[i] = sleef_logf(s) if log else np.float32(1.0) / s
        for i in range(b):
            row = out[pos[i]:pos[i] + rn]
            m = mx[i]
            f = sc[i]
            if not log:
                for j in range(urn):
                    row[j] = row[j] * f
            elif xrs == 1:
                xr = x[pxs[i]:pxs[i] + rn]
                for j in range(urn):
                    row[j] = (xr[j] - m) - f
            else:
                for j in range(rn):
                    row[j] = (x[pxs[i] + j * xrs] - m) - f
        done += b


def softmax_backward(g_view, y_view, dim, log=False):
    """PyTorch's _vec_host_softmax_backward_lastdim (the softmax's gradient over the last dim,
    float32 or float64): per row s = vec::reduce_all of the products g * y, then (g - s) * y;
    log (log_softmax's, float32): s = vec::reduce_all of g, then g - exp(y) * s with SLEEF's
    expf.  A row-major buffer; g and y of one shape and dtype."""
    gbuf, goff, shape, gst = g_view
    ybuf, yoff, _, yst = y_view
    n = numel(shape)
    out = new_buffer(n, gbuf.dtype)
    if n == 0:
        return out
    rn = shape[-1]
    lanes = pytorch_float_lanes() * 4 // gbuf.dtype.itemsize
    ost = contiguous_strides(shape)
    # the rows walked over the kept dims as they are (three operands' strides: no coalescing)
    kept = len(shape) - 1
    rows = n // rn
    if rows > 1 and worth_splitting_rows(n) and tuple(gst) == tuple(yst) == ost and 0 <= goff and 0 <= yoff \
            and goff + n <= gbuf.size and yoff + n <= ybuf.size and ybuf.dtype == gbuf.dtype:
        # dense rows split natively across the team, as the forward's
        fn = native_function(("softmax_backward_rows", gbuf.dtype.name), _native_softmax_backward_rows,
                             gbuf.dtype.type)
        if run_native(fn, rows, (gbuf, ybuf, out, np.array([rn, lanes, log], np.int64)), (goff, yoff, 0, 0),
                      align=1):
            return out
    ck, cg, cy, co = ((tuple(shape[:kept]), tuple(gst[:kept]), tuple(yst[:kept]), tuple(ost[:kept])) if kept
                      else ((1,), (0,), (0,), (0,)))
    _softmax_backward_rows(gbuf, goff, ybuf, yoff, as_index_array(ck), as_index_array(cg), as_index_array(cy),
                           as_index_array(co), rn, gst[-1], yst[-1], lanes, bool(log), out)
    return out


@register_jitable(error_model="numpy")
def _softmax_backward_row(g, pg, y, py, rn, grs, yrs, lanes, log, acc, tmp, out, po):
    """One row of _softmax_backward_rows (any strides)."""
    row = out[po:po + rn]
    if log:
        for j in range(rn):
            row[j] = g[pg + j * grs]
        s = _reduce_all_sum(row, 0, rn, lanes, acc, tmp)
        for j in range(rn):
            # (float32 only; the float64 instance of this kernel never takes this branch)
            row[j] = fma(-sleef_expf(np.float32(y[py + j * yrs])), s, row[j])
    else:
        for j in range(rn):
            row[j] = g[pg + j * grs] * y[py + j * yrs]
        s = _reduce_all_sum(row, 0, rn, lanes, acc, tmp)
        for j in range(rn):
            row[j] = (g[pg + j * grs] - s) * y[py + j * yrs]


@register_jitable(error_model="numpy")
def _softmax_backward_dense_rows(g, y, r0, r1, rn, lanes, log, out):
    """_softmax_backward_rows of rows r0 .. r1 of dense (rows, rn) g and y into out's, by blocks
    (as _softmax_dense_rows_f32 does the forward's)."""
    block = max(1, _SOFTMAX_BLOCK_ELEMENTS // rn)
    acc = np.empty(lanes, out.dtype)
    sc = np.empty(block, out.dtype)
    rep = np.empty(block * rn, out.dtype)
    r = r0
    while r < r1:
        b = min(block, r1 - r)
        _softmax_backward_block(g, r * rn, y, r * rn, b, rn, lanes, log, acc, sc, rep, out, r * rn)
        r += b


def _native_softmax_backward_rows(dt):
    """The native entry point (run_native) of _softmax_backward_dense_rows over rows [lo, hi); its
    block: the addresses of g, y and out at the first row, and (rn, lanes, log)."""
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 4)
        params = carray(address_as(block[3], np.int64), 3)
        rn = params[0]
        g = carray(address_as(block[0], dt), hi * rn)
        y = carray(address_as(block[1], dt), hi * rn)
        out = carray(address_as(block[2], dt), hi * rn)
        _softmax_backward_dense_rows(g, y, lo, hi, rn, params[1], params[2] != 0, out)
    return cpu_cfunc(native).address


@register_jitable(error_model="numpy")
def _softmax_backward_block(g, pg, y, py, b, rn, lanes, log, acc, sc, rep, out, po):
    """_softmax_backward_row of b rows that are one run in g, y and out, in passes over the
    block, each one loop (as _softmax_block_f32): the same operations and sums."""
    _wide_vectors()         # (the exps' loop below in 512-bit vectors where the CPU has them)
    k = b * rn
    o = out[po:po + k]
    gr = g[pg:pg + k]
    yr = y[py:py + k]
    if log:
        block_sum(g, pg, b, rn, lanes, acc, sc)
    else:
        for t in range(uint64(k)):
            o[t] = gr[t] * yr[t]
        block_sum(out, po, b, rn, lanes, acc, sc)
    for i in range(b):
        s = sc[i]
        for j in range(rn):
            rep[i * rn + j] = s
    r = rep[:k]
    if log:
        for t in range(uint64(k)):
            o[t] = fma(-sleef_expf(np.float32(yr[t])), r[t], gr[t])
    else:
        for t in range(uint64(k)):
            o[t] = (gr[t] - r[t]) * yr[t]


@_kernel
def _softmax_backward_rows(g, goff, y, yoff, kshape, gkst, ykst, okst, rn, grs, yrs, lanes, log, out):
    """Blocks of rows: those that lie as one run in g, y and out by _softmax_backward_block's
    passes ((4096, 16) float32: 250 -> 60 us), others a row at a time."""
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
    jg = jumps(kshape, gkst, nd - 1)
    jy = jumps(kshape, ykst, nd - 1)
    jo = jumps(kshape, okst, nd - 1)
    acc = np.empty(lanes, out.dtype)
    tmp = np.empty(lanes, out.dtype)
    total = 1
    for d in range(nd):
        total *= kshape[d]
    block = max(1, _SOFTMAX_BLOCK_ELEMENTS // rn)
    pgs = np.empty(block, np.int64)
    pys = np.empty(block, np.int64)
    pos = np.empty(block, np.int64)
    sc = np.empty(block, out.dtype)
    rep = np.empty(block * rn, out.dtype)
    pg = goff
    py = yoff
    po = 0
    done = 0
    while done < total:
        b = min(block, total - done)
        for i in range(b):
            pgs[i] = pg
            pys[i] = py
            pos[i] = po
            d = carry(idx, kshape, nd - 1)
            if d >= 0:
                pg += jg[d]
                py += jy[d]
                po += jo[d]
        dense = grs == 1 and yrs == 1
        for i in range(1, b):
            dense &= pgs[i] == pgs[i - 1] + rn and pys[i] == pys[i - 1] + rn and pos[i] == pos[i - 1] + rn
        if dense:
            _softmax_backward_block(g, pgs[0], y, pys[0], b, rn, lanes, log, acc, sc, rep, out, pos[0])
        else:
            for i in range(b):
                _softmax_backward_row(g, pgs[i], y, pys[i], rn, grs, yrs, lanes, log, acc, tmp, out, pos[i])
        done += b


_lanes = []


def pytorch_float_lanes():
    """float32 lanes of PyTorch's Vectorized<float> in its kernels built for this CPU (its CPU
    capability: 16 with AVX512 (avx512f/bw/vl/dq), else 8; ATEN_CPU_CAPABILITY overrides it as
    it overrides PyTorch's choice).  Not its sum kernel's, which has no AVX512 build (cascade.py)."""
    if not _lanes:
        import os
        cap = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
        if cap:
            avx512 = cap == "avx512"
        else:
            try:
                from llvmlite import binding
                features = binding.get_host_cpu_features()
                avx512 = all(features.get(f, False) for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"))
            except Exception:
                avx512 = False
        _lanes.append(16 if avx512 else 8)
    return _lanes[0]
