"""arange's floating values as PyTorch's CPU kernel computes them (RangeFactoriesKernel.cpp's
arange_kernel), bit for bit.

PyTorch splits the range into its threads' chunks (at::parallel_for: GRAIN_SIZE elements at
least) and runs each chunk as a TensorIterator loop: pairs of Vectorized<T> while two whole
vectors fit, then single elements.  A vector's lanes are Vectorized<T>::arange(base, step):
base = start + step * i of its first element i, in the accumulation type (double for
float32 and float64, float for float16) and rounded to T, then base + l * step for lane l.
A single element is start + step * i, rounded once to T.  PyTorch's build contracts each
multiply-add into one fused multiply-add (the kernels are compiled with FMA), so every one
of these is one rounding: _fma.  The vector's length is PyTorch's for this CPU
(reduction.pytorch_float_lanes: 32 bytes, 64 with AVX512).
"""
import numpy as np

from .._shared import cpu_kernel
from .._shared.fast_math import _fma

GRAIN_SIZE = 32768      # at::internal::GRAIN_SIZE


@cpu_kernel(nogil=True)
def _vector_bases(bases, n, start, step, width, chunk):
    """start + step * c (one fused multiply-add, in bases' dtype: the accumulation type) for
    the first element c of each vector of each chunk, in order."""
    k = 0
    for b in range(0, n, chunk):
        e = min(n, b + chunk)
        nv = (e - b) // (2 * width) * (2 * width)
        for c in range(b, b + nv, width):
            bases[k] = _fma(step, bases.dtype.type(c), start)
            k += 1


@cpu_kernel(nogil=True)
def _fill_range(out, bases, start, step, width, chunk):
    """The values in the accumulation type (out's): a vector's lanes base + l * step from its
    base (already rounded to the result's dtype), the elements after start + step * i."""
    n = out.shape[0]
    k = 0
    for b in range(0, n, chunk):
        e = min(n, b + chunk)
        nv = (e - b) // (2 * width) * (2 * width)
        for c in range(b, b + nv, width):
            base = bases[k]
            k += 1
            out[c] = base
            for lane in range(1, width):
                out[c + lane] = _fma(out.dtype.type(lane), step, base)
        for i in range(b + nv, e):
            out[i] = _fma(step, out.dtype.type(i), start)


def _vectors(n, width, chunk):
    count = 0
    for b in range(0, n, chunk):
        count += (min(n, b + chunk) - b) // (2 * width) * 2
    return count


def arange_float(n, start, step, dtype, threads):
    """A new buffer of PyTorch's n values start + i * step of floating dtype, with PyTorch's
    chunks for `threads` threads."""
    from .reduction import pytorch_float_lanes
    dtype = np.dtype(dtype)
    if n == 0:
        return np.empty(0, dtype)
    acc = np.dtype(np.float32) if dtype == np.float16 else np.dtype(np.float64)
    width = pytorch_float_lanes() * 4 // dtype.itemsize
    tasks = 1 if n <= GRAIN_SIZE or threads <= 1 else min(threads, -(-n // GRAIN_SIZE))
    chunk = -(-n // tasks)
    start, step = acc.type(start), acc.type(step)
    bases = np.empty(_vectors(n, width, chunk), acc)
    with np.errstate(over="ignore", invalid="ignore"):
        if len(bases):
            _vector_bases(bases, n, start, step, width, chunk)
            bases = bases.astype(dtype).astype(acc)         # (Vectorized<T>::arange's base is a T)
        out = np.empty(n, acc)
        _fill_range(out, bases, start, step, width, chunk)
        return out if dtype == acc else out.astype(dtype)
