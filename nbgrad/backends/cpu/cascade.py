"""PyTorch's CPU float sum order (SumKernel.cpp's cascade_sum), for a sum or mean to one value.

PyTorch sums float32 in float32 (float64 in float64) in a fixed order: a run of at least one
vector's length at stride 1 is summed lane by lane (vectorized_inner_sum: each lane by
row_sum, the tail elements after, the lanes last), any other run element by element
(row_sum: four interleaved partial sums, each a cascade of levels of 16 chunks). Its mean is
that sum divided by n in the same dtype, and std/var of all elements (std_var_all_cpu) take
the squared deviations from that mean in float64.  nbgrad sums in that order so that a loss
(x.sum(), x.mean()) prints PyTorch's digits, and so that the variance of equal values is
exactly 0 where PyTorch's is (then std's gradient is masked to 0) or the same tiny positive
number (then the gradient is finite): the last bit of the mean decides it.

Only where PyTorch's order is fixed: a reduction to one value over fewer than GRAIN_SIZE
elements (PyTorch splits larger ones across its threads).  The elements are walked as
TensorIterator walks them (its order of the dims, coalesced), its 2-D loop over the two inner
dims taking one of SumKernel's four paths (vectorized inner or outer, scalar inner or outer).
The vector length is 32 bytes (8 float32 lanes) on every CPU: SumKernel.cpp is built without
its AVX512 variant ("these kernels are slower with AVX512 than with AVX2"), so a CPU whose
other kernels run 64-byte vectors still sums with 32-byte ones (measured with torch 2.13 on
an AVX-512 AMD EPYC: 64-byte lanes gave a different float32 mean for 155 of 200 sizes, 32-byte
lanes none of 1,200 sums and means).
"""
import numpy as np

from ..._layout import _sorted_dims as reorder_dimensions
from .._shared import cpu_kernel
from .._shared.fast_math import lane_add
from ._threads import run_split, worth_splitting

GRAIN_SIZE = 32768          # at::internal::GRAIN_SIZE: below it a reduction runs on one thread

_kernel = cpu_kernel(nogil=True)
# the bytes of the Vectorized<T> PyTorch's sum kernel adds with (see the docstring)
SUM_VECTOR_BYTES = 32


def iterator_dims(shape, strides):
    """The dims TensorIterator walks a reduction of all of x's dims in, innermost first, as
    (sizes, strides): its reorder_dimensions (by increasing stride, a broadcast dim left where it
    is, ties to the smaller size) then coalesce_dimensions."""
    if len(shape) == 0:
        return [1], [0]
    sizes, (steps,) = _coalesced(shape, (strides,), reorder_dimensions(shape, (strides,)))
    return sizes, steps


def _coalesced(shape, op_strides, perm):
    """TensorIterator's coalesce_dimensions of the dims in perm's order (innermost first):
    (sizes, [strides of each operand])."""
    sizes = [shape[p] for p in perm]
    walk = [[st[p] for p in perm] for st in op_strides]
    prev = 0
    for d in range(1, len(perm)):
        if sizes[prev] == 1 or sizes[d] == 1 or all(sizes[prev] * st[prev] == st[d] for st in walk):
            if sizes[prev] == 1:
                for st in walk:
                    st[prev] = st[d]
            sizes[prev] *= sizes[d]
        else:
            prev += 1
            sizes[prev] = sizes[d]
            for st in walk:
                st[prev] = st[d]
    return sizes[:prev + 1], [st[:prev + 1] for st in walk]


def in_pytorch_order(x_view, dtype):
    """(off, sizes, strides) of TensorIterator's walk of x_view when its sum to one value has
    PyTorch's fixed order (see the module's docstring), else None."""
    if dtype not in (np.float32, np.float64):
        return None
    buf, off, shape, strides = x_view
    n = 1
    for k in shape:
        n *= k
    if not 0 < n < GRAIN_SIZE:
        return None
    return iterator_walk(x_view)


def iterator_walk(x_view):
    """(off, sizes, strides) of TensorIterator's walk of x_view (iterator_dims as int64 arrays;
    a dense run without new arrays)."""
    _, off, shape, strides = x_view
    sizes, steps = iterator_dims(tuple(shape), tuple(strides))
    if len(sizes) == 1 and steps[0] == 1:
        return (off,) + contiguous_run(sizes[0])
    return off, np.asarray(sizes, dtype=np.int64), np.asarray(steps, dtype=np.int64)


def contiguous_run(n):
    """(sizes, strides) of a dense run of n elements (the common case, without new arrays)."""
    return _CONTIGUOUS_SIZES[n], _UNIT_STRIDE


class _Sizes(dict):
    def __missing__(self, n):
        if len(self) > 256:
            self.clear()
        a = self[n] = np.array([n], dtype=np.int64)
        return a


_CONTIGUOUS_SIZES = _Sizes()
_UNIT_STRIDE = np.array([1], dtype=np.int64)


@_kernel
def _ceil_log2(x):
    if x <= 2:
        return 1
    bits = 0
    v = x - 1
    while v > 0:
        bits += 1
        v >>= 1
    return bits


# The kernels share one scratch array of the input's dtype (no allocation per row or column):
_ACC, _PARTS, _ONE, _FINAL, _TOTAL, _LANES = 0, 4, 8, 9, 10, 16


@_kernel
def _cascade(x, off, stride, size, scratch):
    """multi_row_sum's sum of one column, x[off + i * stride] for i < size (summed in chunks of
    2**level_power whose sums go up through four levels), returned in x's dtype."""
    level_power = max(4, _ceil_log2(size) // 4)
    level_step = 1 << level_power
    level_mask = level_step - 1
    for j in range(4):
        scratch[_ACC + j] = 0
    i = 0
    while i + level_step <= size:
        for _ in range(level_step):
            scratch[_ACC] += x[off + i * stride]
            i += 1
        for j in range(1, 4):
            scratch[_ACC + j] += scratch[_ACC + j - 1]
            scratch[_ACC + j - 1] = 0
            if (i & (level_mask << (j * level_power))) != 0:
                break
    while i < size:
        scratch[_ACC] += x[off + i * stride]
        i += 1
    for j in range(1, 4):
        scratch[_ACC] += scratch[_ACC + j]
    return scratch[_ACC]


@_kernel
def _row_sum(x, off, stride, size, scratch):
    """row_sum: four interleaved columns (elements 4i + k), the rest, then the four sums."""
    size_ilp = size // 4
    for k in range(4):
        scratch[_PARTS + k] = _cascade(x, off + k * stride, 4 * stride, size_ilp, scratch)
    for i in range(size_ilp * 4, size):
        scratch[_PARTS] += x[off + i * stride]
    for k in range(1, 4):
        scratch[_PARTS] += scratch[_PARTS + k]
    return scratch[_PARTS]


@_kernel
def _cascade_columns(x, base, stride, size, ncols, acc, res):
    """_cascade of the ncols adjacent columns x[base + c + i * stride] (i < size) side by side,
    into res[:ncols]: multi_row_sum over vectors (vectorized_outer_sum's blocks of four),
    each row's ncols elements added to level 0 in one loop the compiler vectorizes."""
    level_power = max(4, _ceil_log2(size) // 4)
    level_step = 1 << level_power
    level_mask = level_step - 1
    acc[:, :] = 0
    level0 = acc[0]
    i = 0
    while i + level_step <= size:
        # (the rows added to level 0 in a vector register: lane_add)
        lane_add(x, base + i * stride, level_step, level0, False, stride)
        i += level_step
        for j in range(1, 4):
            for t in range(ncols):
                acc[j, t] += acc[j - 1, t]
                acc[j - 1, t] = 0
            if (i & (level_mask << (j * level_power))) != 0:
                break
    lane_add(x, base + i * stride, size - i, level0, False, stride)
    for j in range(1, 4):
        for t in range(ncols):
            acc[0, t] += acc[j, t]
    for t in range(ncols):
        res[t] = acc[0, t]


@_kernel
def _lane_sums(x, off, width, nvec, acc, scratch):
    """_row_sum of each lane of the nvec vectors of width lanes at x[off:] (lane l of vector v:
    x[off + v * width + l]) into scratch[_LANES + l], the lanes side by side as PyTorch's
    Vectorized adds them: row_sum's four interleaved vectors are 4 * width adjacent columns
    whose rows are 4 * width apart (_cascade_columns), then the vectors left over, then the
    four added into the first."""
    block = 4 * width
    size_ilp = nvec // 4
    lanes = scratch[_LANES:]
    _cascade_columns(x, off, block, size_ilp, block, acc, lanes)
    for v in range(size_ilp * 4, nvec):
        for lane in range(width):
            lanes[lane] += x[off + v * width + lane]
    for k in range(1, 4):
        for lane in range(width):
            lanes[lane] += lanes[k * width + lane]


# cascade_sum's loop over a 2-D tile (size0 reduced, size1 outer: the two inner dims of the walk,
# the reduced one first) takes one of four paths, and every tile of a walk takes the same one (the
# tiles differ only in where they start).  So the path is chosen once per walk, in Python
# (_tile_plan), and each path is a kernel of its own that walks all the tiles: a sum compiles only
# its path (a bias gradient's column sums: the outer one), not all four: on a cold cache that is
# seconds of LLVM for each dtype.  Each kernel: (x, off, starts, size0, size1, in0, in1, o0, os,
# width, out, j_lo, j_hi): the tiles start at x[off + starts[t, 0]] and out[starts[t, 1]]; row j of
# a tile (j_lo <= j < j_hi, j_lo a multiple of 4 * width: the rows take the paths they take in the
# whole tile) is summed and added into out[ob + j * os] as the store does (os 0: all into one value).


@_kernel
def _inner_sums(x, off, starts, size0, size1, in0, in1, o0, os, width, out, j_lo, j_hi):
    """vectorized_inner_sum: each row a dense run of at least one vector (_lane_sums)."""
    scratch = np.zeros(_LANES + 4 * width, dtype=x.dtype)
    acc = np.zeros((4, 4 * width), dtype=x.dtype)
    nvec = size0 // width
    block = 4 * width
    short = nvec // 4 < 16          # no level of the cascade is ever reached: inlined
    level0 = acc[0]
    for t in range(starts.shape[0]):
        base, ob = off + starts[t, 0], starts[t, 1]
        for j in range(j_lo, min(j_hi, size1)):
            row = base + j * in1
            if short:
                for c in range(block):
                    level0[c] = 0
                lane_add(x, row, nvec // 4, level0)
                for c in range(block):
                    level0[c] += 0.0    # (the three empty levels: -0.0 becomes +0.0)
                for v in range((nvec // 4) * 4, nvec):
                    for lane in range(width):
                        level0[lane] += x[row + v * width + lane]
                for k in range(1, 4):
                    for lane in range(width):
                        level0[lane] += level0[k * width + lane]
                for lane in range(width):
                    scratch[_LANES + lane] = level0[lane]
            else:
                _lane_sums(x, row, width, nvec, acc, scratch)
            scratch[_FINAL] = 0
            for k in range(nvec * width, size0):
                scratch[_FINAL] += x[row + k]
            for lane in range(width):
                scratch[_FINAL] += scratch[_LANES + lane]
            out[ob + j * os] += scratch[_FINAL]


@_kernel
def _outer_sums(x, off, starts, size0, size1, in0, in1, o0, os, width, out, j_lo, j_hi):
    """vectorized_outer_sum: the rows adjacent (in1 == 1), summed 4 vectors of them side by side
    (_cascade_columns), then one at a time (_row_sum)."""
    scratch = np.zeros(_LANES + 4 * width, dtype=x.dtype)
    acc = np.zeros((4, 4 * width), dtype=x.dtype)
    block = 4 * width
    hi = min(j_hi, size1)
    for t in range(starts.shape[0]):
        base, ob = off + starts[t, 0], starts[t, 1]
        j = j_lo
        while j + block <= hi:
            _cascade_columns(x, base + j, in0, size0, block, acc, scratch[_LANES:])
            for c in range(block):
                out[ob + (j + c) * os] += scratch[_LANES + c]
            j += block
        # then PyTorch's vectors of width columns (row_sum of a Vectorized: each lane one
        # column's row_sum) and the scalar columns after them (row_sum): the same sums, in one loop
        while j < hi:
            scratch[_ONE] = _row_sum(x, base + j, in0, size0, scratch)
            out[ob + j * os] += scratch[_ONE]
            j += 1


@_kernel
def _scalar_inner_sums(x, off, starts, size0, size1, in0, in1, o0, os, width, out, j_lo, j_hi):
    """scalar_inner_sum: each row by _row_sum."""
    scratch = np.zeros(_LANES, dtype=x.dtype)
    for t in range(starts.shape[0]):
        base, ob = off + starts[t, 0], starts[t, 1]
        for j in range(j_lo, min(j_hi, size1)):
            scratch[_ONE] = _row_sum(x, base + j * in1, in0, size0, scratch)
            out[ob + j * os] += scratch[_ONE]


@_kernel
def _scalar_outer_sums(x, off, starts, size0, size1, in0, in1, o0, os, width, out, j_lo, j_hi):
    """scalar_outer_sum: rows four at a time, each by one _cascade, the rest by _row_sum."""
    scratch = np.zeros(_LANES, dtype=x.dtype)
    hi = min(j_hi, size1)
    for t in range(starts.shape[0]):
        base, ob = off + starts[t, 0], starts[t, 1]
        j = j_lo
        while j + 3 < hi:
            for k in range(4):
                scratch[_ONE] = _cascade(x, base + (j + k) * in1, in0, size0, scratch)
                out[ob + (j + k) * os] += scratch[_ONE]
            j += 4
        while j < hi:
            scratch[_ONE] = _row_sum(x, base + j * in1, in0, size0, scratch)
            out[ob + j * os] += scratch[_ONE]
            j += 1


@_kernel
def _kept_adds(x, off, starts, size0, size1, in0, in1, o0, os, width, out, j_lo, j_hi):
    """A tile with no reduced dim: its elements added into their outputs one by one."""
    for t in range(starts.shape[0]):
        base, ob = off + starts[t, 0], starts[t, 1]
        for j in range(j_lo, min(j_hi, size1)):
            for i in range(size0):
                out[ob + i * o0 + j * os] += x[base + i * in0 + j * in1]


@_kernel
def _tile_base(idx, off, strides, nd):
    """Where the 2-D tile of the two inner dims at odometer idx (over dims 2..) starts."""
    base = off
    for d in range(2, nd):
        base += idx[d] * strides[d]
    return base


@_kernel
def _next_tile(idx, sizes, nd):
    """Step the odometer over the dims above the two inner ones, dim 2 fastest (TensorIterator's
    order): False past the last tile."""
    d = 2
    while d < nd:
        idx[d] += 1
        if idx[d] < sizes[d]:
            return True
        idx[d] = 0
        d += 1
    return False


@_kernel
def _tile_starts(sizes, strides, out_strides, t_lo, t_hi):
    """Where the tiles t_lo to t_hi (outer indices, dim 2 fastest) start in the input (from its
    offset) and in the output: [t, 0] and [t, 1]."""
    nd = sizes.size
    starts = np.empty((t_hi - t_lo, 2), dtype=np.int64)
    idx = np.zeros(max(nd, 2), dtype=np.int64)
    rest = t_lo
    for d in range(2, nd):
        idx[d] = rest % sizes[d]
        rest //= sizes[d]
    for t in range(t_hi - t_lo):
        starts[t, 0] = _tile_base(idx, 0, strides, nd)
        starts[t, 1] = _tile_base(idx, 0, out_strides, nd)
        _next_tile(idx, sizes, nd)
    return starts


_ONE_TILE = np.zeros((1, 2), dtype=np.int64)


def _tile_plan(sizes, strides, out_strides, width):
    """The path every tile of a walk (sizes, input and output strides innermost first; output
    strides 0 on reduced dims) takes and its arguments: (kernel, size0, size1, in0, in1, o0, o1),
    the reduced dim moved first."""
    nd = len(sizes)
    size0, size1 = int(sizes[0]), (int(sizes[1]) if nd > 1 else 1)
    in0, in1 = int(strides[0]), (int(strides[1]) if nd > 1 else 0)
    o0, o1 = int(out_strides[0]), (int(out_strides[1]) if nd > 1 else 0)
    if o0 != 0 and o1 == 0:
        size0, size1, in0, in1, o0, o1 = size1, size0, in1, in0, o1, o0
    if o0 != 0 and o1 != 0:
        kernel = _kept_adds
    elif in0 == 1 and size0 >= width:
        kernel = _inner_sums
    elif in1 == 1 and size1 >= width:
        kernel = _outer_sums
    elif in0 < in1:
        kernel = _scalar_inner_sums
    else:
        kernel = _scalar_outer_sums
    return kernel, size0, size1, in0, in1, o0, o1


def _cascade_reduce(x, off, sizes, strides, out_strides, width, out, t_lo, t_hi, j_lo, j_hi, plan=None):
    """out (zeroed, x's dtype) += PyTorch's sums of the elements TensorIterator walks (sizes,
    input and output strides innermost first; output strides 0 on reduced dims): its 2-D loop
    over the two inner dims, once per index of the outer ones, with cascade_sum's cases.  Only
    the tiles t_lo to t_hi (outer indices, dim 2 fastest) and their rows j_lo to j_hi (after
    the move): pieces of the walk that write different outputs can run side by side."""
    kernel, size0, size1, in0, in1, o0, o1 = plan or _tile_plan(sizes, strides, out_strides, width)
    starts = _ONE_TILE if len(sizes) <= 2 else _tile_starts(sizes, strides, out_strides, t_lo, t_hi)
    kernel(x, off, starts, size0, size1, in0, in1, o0, o1, width, out, j_lo, j_hi)


@_kernel
def _squared_deviations(x, off, sizes, strides, mean):
    """sum((float64(x) - mean) ** 2) in float64, walking the elements as TensorIterator does
    (innermost dim first), as std_var_all_cpu's serial loop adds them: a sum per 2-D tile of
    the two inner dims, added to the total."""
    nd = sizes.size
    size1 = sizes[1] if nd > 1 else 1
    in1 = strides[1] if nd > 1 else 0
    idx = np.zeros(max(nd, 2), dtype=np.int64)
    total = np.float64(0.0)
    while True:
        base = _tile_base(idx, off, strides, nd)
        tile = np.float64(0.0)
        for j in range(size1):
            row = base + j * in1
            for i in range(sizes[0]):
                dx = np.float64(x[row + i * strides[0]]) - mean
                tile += dx * dx
        total += tile
        if not _next_tile(idx, sizes, nd):
            break
    return total


@_kernel
def _dense_sum(x, off, n, width, starts):
    """PyTorch's sum of one dense run x[off:off + n] of at least one vector (TensorIterator's
    single dim at stride 1: _inner_sums of one row), in one call: a small op's total."""
    out = np.zeros(1, dtype=x.dtype)
    _inner_sums(x, off, starts, n, 1, 1, 0, 0, 0, width, out, 0, 1)
    return out[0]


def dense_sum(buf, off, n):
    width = SUM_VECTOR_BYTES // buf.dtype.itemsize
    if n >= width:
        return _dense_sum(buf, off, n, width, _ONE_TILE)
    return cascade_sum(buf, off, *contiguous_run(n))


def cascade_sum(buf, off, sizes, strides):
    out = np.zeros(1, dtype=buf.dtype)
    _cascade_reduce(buf, off, sizes, strides, _zeros_like(strides), SUM_VECTOR_BYTES // buf.dtype.itemsize, out,
                    0, _tiles(sizes), 0, _ALL_ROWS)
    return out[0]


def _zeros_like(strides):
    return _NO_OUTPUT_STRIDES if strides is _UNIT_STRIDE else np.zeros(len(strides), dtype=np.int64)


_NO_OUTPUT_STRIDES = np.zeros(1, dtype=np.int64)
_ALL_ROWS = 1 << 62


def _tiles(sizes):
    n = 1
    for k in sizes[2:]:
        n *= int(k)
    return n


def cascade_reduce(x_view, dims):
    """PyTorch's float sum of x_view over dims (sorted, at least one kept dim left) in its
    order, into a row-major buffer of the kept dims (TensorIterator's walk: reduced_walk).
    Large ones are split across threads where the pieces write different outputs (as
    PyTorch's parallel_dim_reduction splits them, which leaves each output's order as is):
    by outer tiles when every outer dim is kept, else by rows of the one tile when those are
    kept (cut on multiples of 4 vectors, so that every row takes its path as in one call)."""
    buf, off, shape, strides = x_view
    key = (tuple(shape), tuple(strides), tuple(dims), buf.dtype.itemsize)
    walk = _WALKS.get(key)
    if walk is None:
        if len(_WALKS) > 512:
            _WALKS.clear()
        walk = reduced_walk((None, 0) + key[:2], dims)
        walk = _WALKS[key] = walk + (_tile_plan(walk[1], walk[2], walk[3], SUM_VECTOR_BYTES // buf.dtype.itemsize),)
    _, sizes, strides, out_strides, out_n, plan = walk
    out = np.zeros(out_n, dtype=buf.dtype)
    width = SUM_VECTOR_BYTES // buf.dtype.itemsize
    tiles = _tiles(sizes)
    n = tiles * int(sizes[0]) * (int(sizes[1]) if len(sizes) > 1 else 1)
    if worth_splitting(n):
        if tiles > 1 and all(out_strides[2:]):
            run_split(lambda a, b: _cascade_reduce(buf, off, sizes, strides, out_strides, width, out, a, b, 0, _ALL_ROWS, plan),
                      tiles, align=1)
            return out
        _, _, rows, _, _, _, row_stride = plan      # the tile's outer dim, after the plan's move
        if tiles == 1 and rows >= 2 * 4 * width and row_stride != 0:
            run_split(lambda a, b: _cascade_reduce(buf, off, sizes, strides, out_strides, width, out, 0, 1, a, b, plan),
                      rows, align=4 * width)
            return out
    _cascade_reduce(buf, off, sizes, strides, out_strides, width, out, 0, tiles, 0, _ALL_ROWS, plan)
    return out


_WALKS = {}        # (shape, strides, dims, dtype) -> reduced_walk at offset 0 (its arrays are only read) + _tile_plan


def reduced_walk(x_view, dims):
    """(off, sizes, input strides, output strides, output numel) of TensorIterator's walk of a
    reduction of x_view over dims into a row-major result: its reorder_dimensions (the
    output's strides compared first, its reduced dims, of stride 0, moved innermost; ties to
    the smaller size) and coalesce_dimensions over both operands, innermost first."""
    _, off, shape, strides = x_view
    nd = len(shape)
    reduced = set(dims)
    ostrides, step = [0] * nd, 1
    for d in range(nd - 1, -1, -1):
        if d not in reduced:
            ostrides[d] = step
            step *= shape[d]
    sizes, (out_walk, in_walk) = _coalesced(shape, (ostrides, strides),
                                            reorder_dimensions(shape, (ostrides, strides), reduction=True))
    return (off, np.asarray(sizes, dtype=np.int64), np.asarray(in_walk, dtype=np.int64),
            np.asarray(out_walk, dtype=np.int64), step)


def cascade_mean(buf, off, sizes, strides):
    """PyTorch's mean: the sum divided by n in the input's dtype."""
    n = 1
    for k in sizes:
        n *= int(k)
    return buf.dtype.type(cascade_sum(buf, off, sizes, strides) / buf.dtype.type(n))


def squared_deviations(buf, off, sizes, strides, mean):
    """std_var_all_cpu's float64 sum of squared deviations over an iterator_walk."""
    return float(_squared_deviations(buf, off, sizes, strides, np.float64(mean)))
