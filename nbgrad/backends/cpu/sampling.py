"""Random numbers from Numba's own generator (np.random inside njit).

Numba keeps one generator state per thread for all jitted code, separate
from numpy's; `manual_seed` seeds it from inside an njit function, so draws
are reproducible across calls of these kernels.
"""
import numpy as np
from numba import njit

_kernel = njit(cache=True, error_model="numpy")


@_kernel
def _seed(seed):
    np.random.seed(seed)


@_kernel
def _uniform(out, low, high):
    span = high - low
    for i in range(out.size):
        out[i] = low + span * np.random.random()
        # Rounding into a narrower dtype may reach `high`: draw again.
        while out[i] >= high and high > low:
            out[i] = low + span * np.random.random()


@_kernel
def _normal(out, mean, std):
    for i in range(out.size):
        out[i] = mean + std * np.random.standard_normal()


@_kernel
def _randint(out, low, high):
    for i in range(out.size):
        out[i] = np.random.randint(low, high)


@_kernel
def _randperm(n):
    return np.random.permutation(n)


def manual_seed(seed):
    # Numba's seed takes a uint32.
    _seed(int(seed) & 0xFFFFFFFF)


def uniform(numel, dtype, low, high):
    out = np.empty(numel, dtype=np.dtype(dtype))
    if numel:
        _uniform(out, float(low), float(high))
    return out


def normal(numel, dtype, mean, std):
    out = np.empty(numel, dtype=np.dtype(dtype))
    if numel:
        _normal(out, float(mean), float(std))
    return out


def randint(numel, dtype, low, high):
    out = np.empty(numel, dtype=np.dtype(dtype))
    if numel:
        _randint(out, int(low), int(high))
    return out


def randperm(n):
    return _randperm(int(n)).astype(np.int64, copy=False)
