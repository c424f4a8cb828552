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


# The generator's whole state, as bytes: Numba's rnd_state_t of this thread (the Mersenne
# Twister's index and 624 words, the cached Gaussian draw and its flag, the init flag).
import ctypes as _ctypes  # noqa: E402

_STATE_SIZE = 2520      # sizeof(rnd_state_t): int + 624 uint32 + int, double (8-aligned) + int, padded


def _state_ptr():
    from numba import _helperlib
    return _helperlib.rnd_get_np_state_ptr()


def get_rng_state():
    """A copy of the generator's state (uint8 buffer)."""
    return np.frombuffer(_ctypes.string_at(_state_ptr(), _STATE_SIZE), dtype=np.uint8).copy()


def set_rng_state(state):
    """Restore a state get_rng_state returned (uint8 buffer of its size)."""
    state = np.ascontiguousarray(state, dtype=np.uint8)
    if state.size != _STATE_SIZE:
        raise RuntimeError(f"Expected an RNG state of size {_STATE_SIZE} but found the input RNG state size to be "
                           f"{state.size}")
    _ctypes.memmove(_state_ptr(), state.ctypes.data, _STATE_SIZE)
