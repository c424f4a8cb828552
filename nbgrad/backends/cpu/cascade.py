"""PyTorch's CPU float sum order (SumKernel.cpp's cascade_sum), for a reduction to one value.

PyTorch sums float32 in float32 (float64 in float64) in a fixed order: a run of at least one
vector's length at stride 1 is summed lane by lane (vectorized_inner_sum: each lane by
row_sum, the tail elements after, the lanes last), any other run element by element
(row_sum: four interleaved partial sums, each a cascade of levels of 16 chunks). Its mean is
that sum divided by n in the same dtype, and std/var of all elements (std_var_all_cpu) take
the squared deviations from that mean in float64.  The last bit of that mean decides whether
the variance of equal values is exactly 0 (then std's gradient is masked to 0) or a tiny
positive number (then the gradient is finite), so nbgrad computes it in the same order.

Only where PyTorch's order is fixed: a reduction to one value over fewer than GRAIN_SIZE
elements (PyTorch splits larger ones across its threads) whose dims coalesce into one run
(as TensorIterator coalesces them: contiguous in some order, or one dim, or broadcast).
The vector length is PyTorch's for this CPU: 64 bytes with AVX512 (avx512f/bw/vl/dq), else
32 bytes; ATEN_CPU_CAPABILITY overrides it as it overrides PyTorch's choice.
"""
import os

import numpy as np

from .._shared import cpu_kernel

GRAIN_SIZE = 32768          # at::internal::GRAIN_SIZE: below it a reduction runs on one thread

_kernel = cpu_kernel(nogil=True)
_vector_bytes = None


def vector_bytes():
    """The bytes of PyTorch's Vectorized<T> on this CPU (its CPU capability)."""
    global _vector_bytes
    if _vector_bytes is None:
        cap = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
        if cap:
            _vector_bytes = 64 if cap == "avx512" else 32
        else:
            try:
                from llvmlite import binding
                features = binding.get_host_cpu_features()
                avx512 = all(features.get(f, False) for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"))
            except Exception:       # (no feature list: PyTorch's default and AVX2 vectors are 32 bytes)
                avx512 = False
            _vector_bytes = 64 if avx512 else 32
    return _vector_bytes


def one_run(shape, strides):
    """(n, stride) when TensorIterator would walk all elements as one run, else None: the
    dims of more than one element, by increasing stride, each continuing the previous."""
    dims = sorted(((st, n) for n, st in zip(shape, strides) if n != 1))
    if not dims:
        return 1, 1
    stride, count = dims[0]
    for st, n in dims[1:]:
        if st != stride * count:
            return None
        count *= n
    return count, stride


def in_pytorch_order(x_view, dtype):
    """The one run (off, n, stride) of x_view when its sum to one value has PyTorch's fixed
    order (see the module's docstring), else None."""
    if dtype not in (np.float32, np.float64):
        return None
    buf, off, shape, strides = x_view
    run = one_run(shape, strides)
    if run is None or not 0 < run[0] < GRAIN_SIZE:
        return None
    return off, run[0], run[1]


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


@_kernel
def _row_sums(x, off, vstride, lstride, nlanes, size, out):
    """PyTorch's row_sum for each of nlanes lanes: element v of lane l is
    x[off + v * vstride + l * lstride], v < size (multi_row_sum over rows of 4, then the
    remainder, then the 4 partial sums)."""
    size_ilp = size // 4
    level_power = max(4, _ceil_log2(size_ilp) // 4)
    level_step = 1 << level_power
    level_mask = level_step - 1
    acc = np.zeros((4, 4, nlanes), dtype=x.dtype)
    i = 0
    while i + level_step <= size_ilp:
        for _ in range(level_step):
            base = off + 4 * i * vstride
            for k in range(4):
                for lane in range(nlanes):
                    acc[0, k, lane] += x[base + k * vstride + lane * lstride]
            i += 1
        for j in range(1, 4):
            for k in range(4):
                for lane in range(nlanes):
                    acc[j, k, lane] += acc[j - 1, k, lane]
                    acc[j - 1, k, lane] = 0
            if (i & (level_mask << (j * level_power))) != 0:
                break
    while i < size_ilp:
        base = off + 4 * i * vstride
        for k in range(4):
            for lane in range(nlanes):
                acc[0, k, lane] += x[base + k * vstride + lane * lstride]
        i += 1
    for j in range(1, 4):
        for k in range(4):
            for lane in range(nlanes):
                acc[0, k, lane] += acc[j, k, lane]
    for v in range(size_ilp * 4, size):
        for lane in range(nlanes):
            acc[0, 0, lane] += x[off + v * vstride + lane * lstride]
    for k in range(1, 4):
        for lane in range(nlanes):
            acc[0, 0, lane] += acc[0, k, lane]
    for lane in range(nlanes):
        out[lane] = acc[0, 0, lane]


@_kernel
def _cascade_sum(x, off, n, stride, width, out):
    """out[0] = PyTorch's sum of x[off + i * stride], i < n (width: its vector's lanes)."""
    if stride == 1 and n >= width:
        nvec = n // width
        lanes = np.zeros(width, dtype=x.dtype)
        _row_sums(x, off, width, 1, width, nvec, lanes)
        total = np.zeros(1, dtype=x.dtype)
        for k in range(nvec * width, n):
            total[0] += x[off + k]
        for lane in range(width):
            total[0] += lanes[lane]
        out[0] = total[0]
    else:
        _row_sums(x, off, stride, 0, 1, n, out)


@_kernel
def _squared_deviations(x, off, n, stride, mean):
    """sum((float64(x) - mean) ** 2) in float64, in memory order (std_var_all_cpu)."""
    s = np.float64(0.0)
    for i in range(n):
        dx = np.float64(x[off + i * stride]) - mean
        s += dx * dx
    return s


def cascade_sum(buf, off, n, stride):
    out = np.zeros(1, dtype=buf.dtype)
    _cascade_sum(buf, off, n, stride, vector_bytes() // buf.dtype.itemsize, out)
    return out[0]


def cascade_mean(buf, off, n, stride):
    """PyTorch's mean: the sum divided by n in the input's dtype."""
    return buf.dtype.type(cascade_sum(buf, off, n, stride) / buf.dtype.type(n))


def squared_deviations(buf, off, n, stride, mean):
    return float(_squared_deviations(buf, off, n, stride, np.float64(mean)))
