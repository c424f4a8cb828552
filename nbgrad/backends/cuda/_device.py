"""The CUDA runtime seen by every kernel file: numba.cuda itself, launch sizes, device geometry.

Importing this file raises RuntimeError (never ImportError) when CUDA cannot be
used, so `get_backend("cuda")` fails with one clear message.  Under Numba's
CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set before numba is imported) kernels
run as Python threads: launches are then sized small (grid-stride loops cover
any size) and tile/tree kernels are built with small compile-time sizes.
"""
import math
import os

import numpy as np

from .._shared import cached
from . import allocator

_MISSING = ("nbgrad's CUDA backend needs numba-cuda and an NVIDIA GPU with its driver: "
            "pip install 'nbgrad[cuda]'")

try:
    import numba
    import numba_cuda  # noqa: F401  -- the maintained package; `from numba import cuda` then uses it
    from numba import cuda
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise RuntimeError(f"{_MISSING} ({exc})") from None

SIMULATOR = bool(numba.config.ENABLE_CUDASIM)

# Small tensors get small grids on purpose (grid-stride loops); numba-cuda would
# warn about low occupancy on every such launch.
numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0

# NBGRAD_CUDA_COMPILE_ONLY=1: build kernels without a GPU (tests/cuda/compile_ptx_all.py); no launches.
_COMPILE_ONLY = os.environ.get("NBGRAD_CUDA_COMPILE_ONLY") == "1"

if not SIMULATOR and not _COMPILE_ONLY and not cuda.is_available():  # pragma: no cover
    raise RuntimeError(f"{_MISSING} (numba.cuda.is_available() is False: no GPU or driver found)")

# Device memory (allocator.py): on a GPU nbgrad's caching allocator becomes Numba's memory
# manager (NBGRAD_CUDA_ALLOCATOR=rmm / numba choose another) before the first context;
# under the simulator a counter of live buffers keeps nbgrad.cuda.memory_allocated() honest.
if SIMULATOR:
    allocator.track_simulated()
    _track = allocator.simulated_buffer
else:
    if not _COMPILE_ONLY:  # pragma: no cover - needs a GPU
        allocator.install()

    def _track(buf):
        return buf

# Threads per block of the elementwise (grid-stride) kernels and the most blocks
# one launch asks for; the tree and tile kernels read their own sizes below.
if SIMULATOR:
    THREADS = 8
    MAX_BLOCKS = 1
    REDUCE_THREADS = 4   # a power of two: the shared-memory tree halves it
else:
    THREADS = 256
    MAX_BLOCKS = 65535
    REDUCE_THREADS = 256


def launch(n):
    """(blocks, threads) for a grid-stride loop over n items."""
    return max(1, min(MAX_BLOCKS, math.ceil(n / THREADS))), THREADS


def cache_on():
    """The on-disk kernel cache: on unless NBGRAD_CUDA_CACHE=0 (never under the simulator,
    which compiles nothing)."""
    return os.environ.get("NBGRAD_CUDA_CACHE", "1") != "0" and not SIMULATOR


def cacheable(fn):
    """Whether a kernel's machine code may be cached on disk: a module-level function of a
    source file.  Numba keys a cached kernel by its file and bytecode and by a pickle of its
    closure cells; a kernel made in a factory closes over device functions (dispatchers),
    whose pickle is not a stable key, and a generated kernel (fused.py's exec) has no file:
    those stay uncached and compile once per process."""
    code = fn.__code__
    return fn.__closure__ is None and os.path.isfile(code.co_filename)


def jit(fn):
    """A kernel, cached on disk when cacheable(fn) and cache_on(); the cache key carries the
    digest of the shared helpers (nbgrad/backends/_shared: the cache rule)."""
    return cached(cuda.jit(cache=cache_on() and cacheable(fn))(fn))


def device_fn(fn):
    """A device function compiled from a plain Python scalar function (often the CPU's own)."""
    return cuda.jit(device=True)(fn)


# --------------------------------------------------------------------------- #
# Buffers

def is_device_array(obj):
    return cuda.is_cuda_array(obj) if not SIMULATOR else hasattr(obj, "copy_to_host")


def device_array(n, dtype):
    return _track(cuda.device_array(int(n), dtype=np.dtype(dtype)))


def to_device(array):
    """A device buffer holding a copy of a host array (any layout)."""
    return _track(cuda.to_device(np.ascontiguousarray(array)))


def as_device(buf):
    """buf itself when it lives on the device; a device copy of a host buffer (a CPU
    scalar tensor mixed into a CUDA op, as PyTorch allows for 0-d tensors)."""
    if isinstance(buf, np.ndarray):
        return to_device(buf)
    return buf


_GEOMETRY_CACHE = {}


def geometry(*rows):
    """An int64 device array holding the concatenated int sequences (shape, strides...).
    Cached by value, so repeated shapes cost no host-to-device copy."""
    key = tuple(tuple(int(v) for v in r) for r in rows)
    arr = _GEOMETRY_CACHE.get(key)
    if arr is None:
        if len(_GEOMETRY_CACHE) > 4096:
            _GEOMETRY_CACHE.clear()
        flat = [v for r in key for v in r] or [0]
        arr = _GEOMETRY_CACHE[key] = to_device(np.array(flat, dtype=np.int64))
    return arr


def host_int64(values):
    return np.ascontiguousarray(values, dtype=np.int64)


def synchronize():
    alloc = allocator.ALLOCATOR
    mark = alloc.mark() if alloc is not None else None
    cuda.synchronize()
    if alloc is not None:
        alloc.synchronized(mark=mark)   # the kernels queued before are done: those blocks serve any stream


def device_pointer(buf):
    """The device address of a buffer's first element."""
    if SIMULATOR:
        return buf._ary.ctypes.data
    return buf.__cuda_array_interface__["data"][0]


def _patch_simulator():
    """The simulator's arrays have no __cuda_array_interface__; give them one (their
    memory is host memory, so the pointer is a host address) so that Storage.data_ptr
    and interop work the same under the simulator as on a GPU."""
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    if "__cuda_array_interface__" in FakeCUDAArray.__dict__:
        return

    def interface(self):
        ary = self._ary
        return {"shape": tuple(ary.shape), "strides": None if ary.flags.c_contiguous else tuple(ary.strides),
                "typestr": ary.dtype.str, "data": (ary.ctypes.data, False), "version": 3}

    FakeCUDAArray.__cuda_array_interface__ = property(interface)


if SIMULATOR:
    _patch_simulator()
