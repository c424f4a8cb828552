"""PyTorch's CPU float sum order (SumKernel.cpp's cascade_sum), for a mean to one value.

PyTorch sums float32 in float32 (float64 in float64) in a fixed order: a run of at least one
vector's length at stride 1 is summed lane by lane (vectorized_inner_sum: each lane by
row_sum, the tail elements after, the lanes last), any other run element by element
(row_sum: four interleaved partial sums, each a cascade of levels of 16 chunks). Its mean is
that sum divided by n in the same dtype, and std/var of all elements (std_var_all_cpu) take
the squared deviations from that mean in float64.  The last bit of that mean decides whether
the variance of equal values is exactly 0 (then std's gradient is masked to 0) or a tiny
positive number (then the gradient is finite), so nbgrad computes mean (x.mean(), and the
mean inside var/std to one value) in the same order.  sum keeps nbgrad's float64
accumulation (no decision hangs on its last bit, and it is several times faster).

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

GRAIN_SIZE = 32768          # at::internal::GRAIN_SIZE: below it a reduction runs on one thread

_kernel = cpu_kernel(nogil=True)
# the bytes of the Vectorized<T> PyTorch's sum kernel adds with (see the docstring)
SUM_VECTOR_BYTES = 32


def iterator_dims(shape, strides):
    """The dims TensorIterator walks a reduction of all of x's dims in, innermost first, as
    (sizes, strides): its reorder_dimensions (by increasing stride, a broadcast dim left where it
    is, ties to the smaller size) then coalesce_dimensions."""
    nd = len(shape)
    if nd == 0:
        return [1], [0]
    perm = reorder_dimensions(shape, (strides,))
    sizes, steps = [shape[p] for p in perm], [strides[p] for p in perm]
    prev = 0
    for d in range(1, nd):
        if sizes[prev] == 1 or sizes[d] == 1 or sizes[prev] * steps[prev] == steps[d]:
            if sizes[prev] == 1:
                steps[prev] = steps[d]
            sizes[prev] *= sizes[d]
        else:
            prev += 1
            sizes[prev], steps[prev] = sizes[d], steps[d]
    return sizes[:prev + 1], steps[:prev + 1]


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
def _lane_sums(x, off, width, nvec, acc, scratch):
    """_row_sum of each lane of the nvec vectors of width lanes at x[off:] (lane l of vector v:
    x[off + v * width + l]) into scratch[_LANES + l], the lanes side by side as PyTorch's
    Vectorized adds them (acc: (4 levels, 4 interleaved, width) of x's dtype)."""
    size_ilp = nvec // 4
    level_power = max(4, _ceil_log2(size_ilp) // 4)
    level_step = 1 << level_power
    level_mask = level_step - 1
    acc[:, :, :] = 0
    i = 0
    while i < size_ilp:
        end = i + level_step if i + level_step <= size_ilp else size_ilp
        full = end - i == level_step
        for r in range(i, end):
            base = off + 4 * r * width
            for k in range(4):
                row = base + k * width
                for lane in range(width):
                    acc[0, k, lane] += x[row + lane]
        i = end
        if not full:
            break
        for j in range(1, 4):
            for k in range(4):
                for lane in range(width):
                    acc[j, k, lane] += acc[j - 1, k, lane]
                    acc[j - 1, k, lane] = 0
            if (i & (level_mask << (j * level_power))) != 0:
                break
    for j in range(1, 4):
        for k in range(4):
            for lane in range(width):
                acc[0, k, lane] += acc[j, k, lane]
    for v in range(size_ilp * 4, nvec):
        for lane in range(width):
            acc[0, 0, lane] += x[off + v * width + lane]
    for k in range(1, 4):
        for lane in range(width):
            acc[0, 0, lane] += acc[0, k, lane]
    for lane in range(width):
        scratch[_LANES + lane] = acc[0, 0, lane]


@_kernel
def _tile_sum(x, base, in0, in1, size0, size1, width, scratch, acc):
    """One call of cascade_sum's loop over a (size0 inner, size1 outer) tile, adding each of its
    results into scratch[_TOTAL] as its store does."""
    if in0 == 1 and size0 >= width:                   # vectorized_inner_sum
        nvec = size0 // width
        for j in range(size1):
            row = base + j * in1
            _lane_sums(x, row, width, nvec, acc, scratch)
            scratch[_FINAL] = 0
            for k in range(nvec * width, size0):
                scratch[_FINAL] += x[row + k]
            for lane in range(width):
                scratch[_FINAL] += scratch[_LANES + lane]
            scratch[_TOTAL] += scratch[_FINAL]
    elif in1 == 1 and size1 >= width:                 # vectorized_outer_sum
        j = 0
        while j + 4 * width <= size1:
            for c in range(4 * width):
                scratch[_ONE] = _cascade(x, base + j + c, in0, size0, scratch)
                scratch[_TOTAL] += scratch[_ONE]
            j += 4 * width
        while j + width <= size1:
            for c in range(width):
                scratch[_ONE] = _row_sum(x, base + j + c, in0, size0, scratch)
                scratch[_TOTAL] += scratch[_ONE]
            j += width
        while j < size1:
            scratch[_ONE] = _row_sum(x, base + j, in0, size0, scratch)
            scratch[_TOTAL] += scratch[_ONE]
            j += 1
    elif in0 < in1:                                   # scalar_inner_sum
        for j in range(size1):
            scratch[_ONE] = _row_sum(x, base + j * in1, in0, size0, scratch)
            scratch[_TOTAL] += scratch[_ONE]
    else:                                             # scalar_outer_sum
        j = 0
        while j + 3 < size1:
            for k in range(4):
                scratch[_ONE] = _cascade(x, base + (j + k) * in1, in0, size0, scratch)
                scratch[_TOTAL] += scratch[_ONE]
            j += 4
        while j < size1:
            scratch[_ONE] = _row_sum(x, base + j * in1, in0, size0, scratch)
            scratch[_TOTAL] += scratch[_ONE]
            j += 1


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
def _cascade_sum(x, off, sizes, strides, width, out):
    """out[0] = PyTorch's sum of the elements TensorIterator walks (sizes/strides innermost
    first): its 2-D loop over the two inner dims, once per index of the outer ones."""
    nd = sizes.size
    size1 = sizes[1] if nd > 1 else 1
    in1 = strides[1] if nd > 1 else 0
    scratch = np.zeros(_LANES + width, dtype=x.dtype)
    acc = np.zeros((4, 4, width), dtype=x.dtype)
    idx = np.zeros(max(nd, 2), dtype=np.int64)
    while True:
        _tile_sum(x, _tile_base(idx, off, strides, nd), strides[0], in1, sizes[0], size1, width, scratch, acc)
        if not _next_tile(idx, sizes, nd):
            break
    out[0] = scratch[_TOTAL]


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


def cascade_sum(buf, off, sizes, strides):
    out = np.zeros(1, dtype=buf.dtype)
    _cascade_sum(buf, off, sizes, strides, SUM_VECTOR_BYTES // buf.dtype.itemsize, out)
    return out[0]


def cascade_mean(buf, off, sizes, strides):
    """PyTorch's mean: the sum divided by n in the input's dtype."""
    n = 1
    for k in sizes:
        n *= int(k)
    return buf.dtype.type(cascade_sum(buf, off, sizes, strides) / buf.dtype.type(n))


def squared_deviations(buf, off, sizes, strides, mean):
    """std_var_all_cpu's float64 sum of squared deviations over an iterator_walk."""
    return float(_squared_deviations(buf, off, sizes, strides, np.float64(mean)))
