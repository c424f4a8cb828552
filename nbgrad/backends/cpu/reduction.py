"""Reduction kernels: sum/prod/max/min/all/any/mean, var, logsumexp, arg-reductions, softmax.

STALE-CACHE TRAP: the step/finalize scalar functions used by these cached
kernels live in this file (Numba's cache key hashes only the kernel's file).

Geometry (done in Python): the reduced dims are moved last (logically), then
the kept dims and the reduced dims are coalesced separately.  When the
reduced dims merge into one run of stride rs:
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
reduced run with the partial results combined here.
"""
import numpy as np
from numba import njit
from numba.extending import register_jitable

from ._allocator import new_buffer
from ._geometry import as_index_array, coalesce, contiguous_strides, numel
from ... import _debug
from ._threads import run_split, split, num_threads, worth_splitting
from .strided_copy import copy  # a Python wrapper, not a jitted helper

# register_jitable keeps the plain Python function, which pickles by reference:
# factory closures over it get a cache key that is stable across processes
# (a Dispatcher pickles with a per-process uuid, so closures over one never
# hit the cache).
_scalar = register_jitable(error_model="numpy")


@_scalar
def _next_position(idx, p, strides, shape, last):
    """Advance the C-order odometer idx over dims 0..last by one step and return
    position p moved with it (the outer-loop step of the row/column kernels)."""
    d = last
    while d >= 0:
        idx[d] += 1
        p += strides[d]
        if idx[d] < shape[d]:
            return p
        p -= strides[d] * shape[d]
        idx[d] = 0
        d -= 1
    return p
_REASSOC = {"reassoc", "contract", "nsz"}


# --------------------------------------------------------------------------- #
# Scalar step (acc, x) -> acc and finalize (acc, n) -> value

@_scalar
def _step_sum(acc, x):
    return acc + x


@_scalar
def _step_prod(acc, x):
    return acc * x


@_scalar
def _step_max(acc, x):
    # NaN wins and stays.
    if acc != acc:
        return acc
    if x != x or x > acc:
        return x
    return acc


@_scalar
def _step_min(acc, x):
    if acc != acc:
        return acc
    if x != x or x < acc:
        return x
    return acc


@_scalar
def _step_all(acc, x):
    return acc & (x != 0)


@_scalar
def _step_any(acc, x):
    return acc | (x != 0)


@_scalar
def _final_same(acc, n):
    return acc


@_scalar
def _final_mean(acc, n):
    return acc / n


# --------------------------------------------------------------------------- #
# Templates

def make_reduce(step, finalize, fastmath):
    kernel = njit(cache=True, error_model="numpy", fastmath=fastmath, nogil=True)

    @kernel
    def rows(x, xoff, kshape, kst, rn, rs, init, out):
        nd = kshape.size
        idx = np.zeros(nd, np.int64)
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
            p = _next_position(idx, p, kst, kshape, nd - 1)

    @kernel
    def columns(x, xoff, kshape, kst, rn, rs, init, out):
        # kst[-1] == 1: accumulate input rows into a row of accumulators.
        nd = kshape.size
        inner = kshape[nd - 1]
        acc = np.full(inner, init)
        idx = np.zeros(nd, np.int64)
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
            p = _next_position(idx, p, kst, kshape, nd - 2)

    return rows, columns


_kernel = njit(cache=True, error_model="numpy", nogil=True)


@_kernel
def _var_rows(x, xoff, kshape, kst, rn, rs, correction, out):
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
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
        p = _next_position(idx, p, kst, kshape, nd - 1)


@_kernel
def _logsumexp_rows(x, xoff, kshape, kst, rn, rs, out):
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
    p = xoff
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
            s = np.float64(0.0)
            for j in range(rn):
                s += np.exp(x[p + j * rs] - m)
            out[o] = m + np.log(s)
        p = _next_position(idx, p, kst, kshape, nd - 1)


@_kernel
def _arg_rows(x, xoff, kshape, kst, rn, rs, is_max, values, indices):
    # First index on ties; the first NaN wins (PyTorch).
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
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
        p = _next_position(idx, p, kst, kshape, nd - 1)


@_kernel
def _arg_columns(x, xoff, kshape, kst, rn, rs, is_max, values, indices):
    # kst[-1] == 1: walk input rows, keeping a row of best values and indices.
    # Same answers as _arg_rows: first index on ties, the first NaN wins.
    nd = kshape.size
    inner = kshape[nd - 1]
    idx = np.zeros(nd, np.int64)
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
        p = _next_position(idx, p, kst, kshape, nd - 2)


@_kernel
def _softmax_rows(x, xoff, kshape, xkst, okst, rn, xrs, ors, log, out):
    nd = kshape.size
    idx = np.zeros(nd, np.int64)
    px = xoff
    po = 0
    total = 1
    for d in range(nd):
        total *= kshape[d]
    for _ in range(total):
        m = x[px]
        for j in range(1, rn):
            v = x[px + j * xrs]
            if v != v or v > m:
                m = v
                if v != v:
                    break
        s = np.float64(0.0)     # a float64 sum (np.float64: also in plain Python)
        if log:
            for j in range(rn):
                s += np.exp(x[px + j * xrs] - m)
            ls = np.log(s)
            for j in range(rn):
                out[po + j * ors] = x[px + j * xrs] - m - ls
        else:
            for j in range(rn):
                e = np.exp(x[px + j * xrs] - m)
                out[po + j * ors] = e
                s += e
            inv = 1.0 / s
            for j in range(rn):
                out[po + j * ors] = out[po + j * ors] * inv
        d = nd - 1
        while d >= 0:
            idx[d] += 1
            px += xkst[d]
            po += okst[d]
            if idx[d] < kshape[d]:
                break
            px -= xkst[d] * kshape[d]
            po -= okst[d] * kshape[d]
            idx[d] = 0
            d -= 1


# --------------------------------------------------------------------------- #
# Op table

# op -> (step, finalize, fastmath, has column kernel)
_COMBINE = {
    "sum": (_step_sum, _final_same, _REASSOC),
    "mean": (_step_sum, _final_mean, _REASSOC),
    "prod": (_step_prod, _final_same, _REASSOC),
    "max": (_step_max, _final_same, False),
    "min": (_step_min, _final_same, False),
    "all": (_step_all, _final_same, False),
    "any": (_step_any, _final_same, False),
}
_COMBINE["amax"] = _COMBINE["max"]
_COMBINE["amin"] = _COMBINE["min"]

REDUCE_OPS = frozenset(set(_COMBINE) | {"logsumexp", "var", "argmax", "argmin"})

_combine_kernels = {}


def _kernels_for(op):
    step, finalize, fastmath = _COMBINE[op]
    key = (step, finalize)
    kernels = _combine_kernels.get(key)
    if kernels is None:
        kernels = _combine_kernels[key] = make_reduce(step, finalize, fastmath)
    return kernels


def _init_value(op, x_dtype, acc_dtype):
    if op in ("sum", "mean"):
        return acc_dtype.type(0)
    if op == "prod":
        return acc_dtype.type(1)
    if op == "all":
        return np.bool_(True)
    if op == "any":
        return np.bool_(False)
    # max / min: the identity of the comparison in x's dtype
    is_max = op in ("max", "amax")
    if x_dtype.kind == "f":
        return x_dtype.type(-np.inf if is_max else np.inf)
    if x_dtype.kind == "b":
        return np.bool_(not is_max)
    info = np.iinfo(x_dtype)
    return x_dtype.type(info.min if is_max else info.max)


def _acc_dtype(op, x_dtype, out_dtype):
    if op in ("sum", "mean", "prod"):
        return np.dtype(np.float64) if out_dtype.kind == "f" else out_dtype
    if op in ("all", "any"):
        return np.dtype(np.bool_)
    return x_dtype


class _Geometry:
    """x as (kept dims coalesced) x (one reduced run of rn elements at stride rs)."""

    def __init__(self, buf, off, kshape, kst, rn, rs):
        self.buf, self.off, self.rn, self.rs = buf, off, rn, rs
        self.kshape = as_index_array(kshape)
        self.kst = as_index_array(kst)
        self.inner_stride = kst[-1]


def _geometry(x_view, dims, force_contiguous=False):
    buf, off, shape, strides = x_view
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
    if len(cr) == 1 and not (force_contiguous and crs[0] != 1):
        return _Geometry(buf, off, ck, cks, cr[0], crs[0])
    # Copy to contiguous (kept..., reduced...) order.
    full_shape = kshape + rshape
    tmp = new_buffer(numel(full_shape), buf.dtype)
    copy((buf, off, tuple(full_shape), tuple(kst + rst)),
         (tmp, 0, tuple(full_shape), contiguous_strides(full_shape)))
    ck, (cks,) = coalesce(kshape, [list(contiguous_strides(kshape + [rn])[:-1])])
    return _Geometry(tmp, 0, ck, cks, rn, 1)


# Row kernels for a strided reduced run are cache-hostile; above this length
# the input is copied (blocked transpose) to make rows contiguous first.
_STRIDED_ROW_LIMIT = 16


def reduce(op, x_view, dims, out_dtype, correction=1):
    buf, off, shape, strides = x_view
    out_dtype = np.dtype(out_dtype)
    nd = len(shape)
    dims = tuple(dims) if nd else ()
    out_n = numel([shape[d] for d in range(nd) if d not in {x % nd for x in dims}]) if nd else 1
    out = np.empty(out_n, dtype=out_dtype)
    if out_n == 0:
        return out
    if op in ("argmax", "argmin"):
        g = _geometry(x_view, dims, force_contiguous=False)
        _check_nonempty(g.rn, op)
        if _debug.ENABLED: _debug.log("reduce", op=op, path="arg", n=numel(shape), out=out_n, copied=g.buf is not buf)
        values = np.empty(out_n, dtype=buf.dtype)
        _arg_reduce(x_view, dims, g, op == "argmax", values, out)
        return out
    g = _geometry(x_view, dims)
    if op in ("max", "min", "amax", "amin"):
        _check_nonempty(g.rn, op)
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
    acc_dtype = _acc_dtype(op, buf.dtype, out_dtype)
    init = _init_value(op, buf.dtype, acc_dtype)
    if g.rs != 1 and g.rn > 1 and g.inner_stride == 1 and g.kshape[-1] > 1:
        if _debug.ENABLED: _debug.log("reduce", op=op, path="columns", n=numel(shape), out=out_n, copied=g.buf is not buf)
        _run_kept(columns, g, init, out, column_blocks=True)
        return out
    g = _maybe_contiguous(x_view, dims, g)
    if _debug.ENABLED: _debug.log("reduce", op=op, path="rows", n=numel(shape), out=out_n, copied=g.buf is not buf)
    if out_n == 1 and op in _SPLITTABLE_TOTALS and worth_splitting(g.rn):
        out[0] = _split_total(op, rows, g, init, out.dtype)
    else:
        _run_kept(rows, g, init, out, column_blocks=False)
    return out


# Reductions to one value that may be split along the reduced run: partial
# results of the same op, combined in Python (float sums in float64).
_SPLITTABLE_TOTALS = frozenset({"sum", "mean", "max", "min", "amax", "amin"})


def _split_total(op, rows, g, init, out_dtype):
    pieces = split(g.rn, num_threads())
    partial = np.empty(len(pieces), dtype=out_dtype)
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


def _run_kept(kernel, g, out_init, out, column_blocks):
    """kernel(buf, off, kshape, kst, rn, rs, init, out), split over the outermost kept dim
    (for column kernels with one kept dim: over column blocks) when large enough."""
    kshape, kst = g.kshape, g.kst
    work = out.size * max(g.rn, 1)
    if not worth_splitting(work):
        kernel(g.buf, g.off, kshape, kst, g.rn, g.rs, out_init, out)
        return
    outer = int(kshape[0])
    if outer < 2:
        kernel(g.buf, g.off, kshape, kst, g.rn, g.rs, out_init, out)
        return
    row = out.size // outer
    st0 = int(kst[0])
    rest = [int(v) for v in kshape[1:]]

    def part(start, stop):
        sub = as_index_array([stop - start] + rest)
        kernel(g.buf, g.off + start * st0, sub, kst, g.rn, g.rs, out_init, out[start * row:stop * row])
    run_split(part, outer, align=16 if column_blocks and len(kshape) == 1 else 1)


def _arg_reduce(x_view, dims, g, is_max, values, indices):
    """First index of the max/min over the reduced run, by rows or by arg columns."""
    if g.rs != 1 and g.rn > 1 and g.inner_stride == 1 and g.kshape[-1] > 1:
        _arg_split(_arg_columns, g, bool(is_max), values, indices, column_blocks=True)
        return
    g = _maybe_contiguous(x_view, dims, g)
    _arg_split(_arg_rows, g, bool(is_max), values, indices, column_blocks=False)


def _arg_split(kernel, g, is_max, values, indices, column_blocks):
    kshape, kst = g.kshape, g.kst
    outer = int(kshape[0])
    if not worth_splitting(values.size * max(g.rn, 1)) or outer < 2:
        kernel(g.buf, g.off, kshape, kst, g.rn, g.rs, is_max, values, indices)
        return
    row = values.size // outer
    st0 = int(kst[0])
    rest = [int(v) for v in kshape[1:]]

    def part(start, stop):
        sub = as_index_array([stop - start] + rest)
        kernel(g.buf, g.off + start * st0, sub, kst, g.rn, g.rs, is_max,
               values[start * row:stop * row], indices[start * row:stop * row])
    run_split(part, outer, align=16 if column_blocks and len(kshape) == 1 else 1)


def _maybe_contiguous(x_view, dims, g):
    if g.rs not in (0, 1) and g.rn > _STRIDED_ROW_LIMIT:
        return _geometry(x_view, dims, force_contiguous=True)
    return g


def _check_nonempty(rn, op):
    if rn == 0:
        raise IndexError(f"{op}(): Expected reduction dim to have non-zero size.")


def _dim_geometry(shape, strides, dim):
    nd = len(shape)
    kept = [d for d in range(nd) if d != dim]
    return [shape[d] for d in kept], [strides[d] for d in kept]


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
    _check_nonempty(g.rn, "max" if is_max else "min")
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
    kshape, kst = _dim_geometry(shape, strides, dim)
    _, okst = _dim_geometry(shape, ost, dim)
    ck, (cx, co) = coalesce(kshape, [kst, okst])
    _softmax_rows(buf, off, as_index_array(ck), as_index_array(cx), as_index_array(co),
                  shape[dim], strides[dim], ost[dim], bool(log), out)
    return out
