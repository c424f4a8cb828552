"""Random numbers from a counter-based generator: splitmix64 of (seed, counter + i).

Each draw of n numbers hashes the counters [c, c+n) of the current seed and
advances c by n, so results depend only on the seed and the sequence of draws,
never on the launch size (the same on a GPU and under the simulator), and
there is no per-thread state to initialise.  (numba.cuda.random's xoroshiro
states cost a serial jump-ahead per thread at seeding time and tie the stream
to the grid.)  uniform: the top 53 bits as a double in [0, 1); normal:
Box-Muller on two uniforms; randint: floor(low + u * (high - low)).
"""
import math
import warnings

import numpy as np
from numba import cuda

from ._device import device_array, jit, launch, to_device

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO = np.uint64(2)
_ONE = np.uint64(1)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53

# splitmix64 wraps around uint64 on purpose; the simulator runs it as numpy scalars,
# which warn on every wrap
warnings.filterwarnings("ignore", message="overflow encountered in scalar", category=RuntimeWarning,
                        module=__name__)


@cuda.jit(device=True)
def _mix(z):
    z = z + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@cuda.jit(device=True)
def _uniform01(key, counter):
    # a double in [0, 1) from the 53 top bits of the hash of (key, counter)
    return np.float64(_mix(key ^ _mix(counter)) >> _S11) * _INV53


@jit
def _uniform_kernel(out, n, key, start, low, span, high):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        c = start + np.uint64(i)
        v = low + span * _uniform01(key, c)
        out[i] = v
        # rounding into a narrower dtype may reach `high`: rehash (as the CPU draws again)
        r = np.uint64(0)
        while out[i] >= high and high > low:
            r += _ONE
            out[i] = low + span * _uniform01(key ^ r, c)


@jit
def _normal_kernel(out, n, key, start, mean, std):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        c = start + _TWO * np.uint64(i)
        u1 = 1.0 - _uniform01(key, c)  # (0, 1]: log is finite
        u2 = _uniform01(key, c + _ONE)
        out[i] = mean + std * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@jit
def _randint_kernel(out, n, key, start, low, span):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        c = start + np.uint64(i)
        out[i] = low + min(np.int64(math.floor(span * _uniform01(key, c))), np.int64(span) - 1)


@jit
def _keys_kernel(out, n, key, start):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = _uniform01(key, start + np.uint64(i))


class _State:
    key = np.uint64(0x5DEECE66D)
    counter = 0


def manual_seed(seed):
    with np.errstate(over="ignore"):
        _State.key = np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF) * np.uint64(0x2545F4914F6CDD1D) + np.uint64(1)
    _State.counter = 0


def _advance(n):
    start = np.uint64(_State.counter & 0xFFFFFFFFFFFFFFFF)
    _State.counter += n
    return _State.key, start


def uniform(n, dtype, low, high):
    out = device_array(n, dtype)
    if n:
        key, start = _advance(n)
        blocks, threads = launch(n)
        _uniform_kernel[blocks, threads](out, n, key, start, float(low), float(high) - float(low), float(high))
    return out


def normal(n, dtype, mean, std):
    out = device_array(n, dtype)
    if n:
        key, start = _advance(2 * n)
        blocks, threads = launch(n)
        _normal_kernel[blocks, threads](out, n, key, start, float(mean), float(std))
    return out


def randint(n, dtype, low, high):
    out = device_array(n, dtype)
    if n:
        key, start = _advance(n)
        blocks, threads = launch(n)
        _randint_kernel[blocks, threads](out, n, key, start, np.int64(low), float(int(high) - int(low)))
    return out


def randperm(n):
    """A permutation: random keys drawn on the device, ranked on the host (there is no
    device sort here), the ranks copied back."""
    n = int(n)
    if n == 0:
        return device_array(0, np.int64)
    keys = device_array(n, np.float64)
    key, start = _advance(n)
    blocks, threads = launch(n)
    _keys_kernel[blocks, threads](keys, n, key, start)
    perm = np.argsort(keys.copy_to_host(), kind="stable").astype(np.int64)
    return to_device(perm)


def get_rng_state():
    """The generator's state (key, counter) as 16 bytes (uint8, on the host)."""
    return np.array([_State.key, np.uint64(_State.counter & 0xFFFFFFFFFFFFFFFF)], dtype=np.uint64).view(np.uint8)


def set_rng_state(state):
    state = np.ascontiguousarray(state, dtype=np.uint8)
    if state.size != 16:
        raise RuntimeError(f"Expected an RNG state of size 16 but found the input RNG state size to be {state.size}")
    key, counter = state.view(np.uint64)
    _State.key, _State.counter = np.uint64(key), int(counter)
