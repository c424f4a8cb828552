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

# Launch sizes.  REDUCE_THREADS is a compile-time size (the reduction kernels' shared arrays
# and trees are built for it); THREADS / MAX_BLOCKS of the grid-stride kernels are host-side
# and come from the current device's properties, read once at the first launch (never at
# import: NBGRAD_CUDA_COMPILE_ONLY=1 builds kernels where there is no device).
if SIMULATOR:
    REDUCE_THREADS = 4   # a power of two: the shared-memory tree halves it
else:
    REDUCE_THREADS = 256
BLOCKS_PER_SM = 32       # grid-stride launches: enough resident blocks to hide latency, few enough to loop


class LaunchSizes:
    """threads: per block of a grid-stride kernel; max_blocks: the most blocks one launch asks for;
    reduce_threads: per block of a tree reduction; sm_count: the device's multiprocessors."""

    def __init__(self, threads, max_blocks, reduce_threads, sm_count):
        self.threads, self.max_blocks = threads, max_blocks
        self.reduce_threads, self.sm_count = reduce_threads, sm_count

    def __repr__(self):
        return (f"LaunchSizes(threads={self.threads}, max_blocks={self.max_blocks}, "
                f"reduce_threads={self.reduce_threads}, sm_count={self.sm_count})")


def launch_sizes(sm_count, max_threads_per_block):
    """The launch sizes for a device with these properties (MULTIPROCESSOR_COUNT, MAX_THREADS_PER_BLOCK).

    Grid-stride kernels: 256 threads a block (or the device's maximum if lower), at most
    BLOCKS_PER_SM blocks per multiprocessor.  Tree reductions use REDUCE_THREADS, the size their
    kernels are compiled for; a device that cannot run blocks that large is refused here rather
    than given wrong results."""
    sm_count, max_threads_per_block = int(sm_count), int(max_threads_per_block)
    if sm_count < 1 or max_threads_per_block < 1:
        raise ValueError(f"bad device properties: {sm_count} multiprocessors, "
                         f"{max_threads_per_block} threads per block")
    if max_threads_per_block < REDUCE_THREADS:
        raise RuntimeError(f"the device runs at most {max_threads_per_block} threads per block; nbgrad's "
                           f"CUDA reductions need {REDUCE_THREADS}")
    threads = 1 << (min(256, max_threads_per_block).bit_length() - 1)   # a power of two
    return LaunchSizes(threads, sm_count * BLOCKS_PER_SM, REDUCE_THREADS, sm_count)


# The simulator runs blocks one after another as Python threads: one small block.
_SIZES = LaunchSizes(8, 1, REDUCE_THREADS, 1) if SIMULATOR else None


def sizes():
    """This process's LaunchSizes: the current device's, read at the first call."""
    global _SIZES
    if _SIZES is None:  # pragma: no cover - needs a GPU
        if _COMPILE_ONLY:
            raise RuntimeError("NBGRAD_CUDA_COMPILE_ONLY=1: kernels are built, never launched")
        dev = cuda.get_current_device()
        _SIZES = launch_sizes(dev.MULTIPROCESSOR_COUNT, dev.MAX_THREADS_PER_BLOCK)
    return _SIZES


def launch(n):
    """(blocks, threads) for a grid-stride loop over n items."""
    s = sizes()
    return max(1, min(s.max_blocks, math.ceil(n / s.threads))), s.threads


def device_name():
    """The current device's name (the key of measured choices such as the matmul tile)."""
    if SIMULATOR:
        return "Numba CUDA simulator"
    name = cuda.get_current_device().name  # pragma: no cover - needs a GPU
    return name.decode() if isinstance(name, bytes) else name


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


def _lock_simulator_shared_arrays():
    """The simulator's cuda.shared.array finds a block's array by its call site and makes it
    at the first call, unlocked: two threads of a block that both miss get two arrays, and
    what one writes the other never reads (a reduction then sums stale memory; one launch of
    ~300 of a 32-thread sum at a 1 us switch interval, and a DDP test in CI).  Made under a
    lock here, looked up by the same call site (file, line)."""
    import sys
    import threading
    from numba.core import types
    from numba.np import numpy_support
    from numba.cuda.simulator import kernelapi
    shared = kernelapi.FakeCUDAShared
    if getattr(shared.array, "_nbgrad_locked", False):
        return
    original = shared.array
    lock = threading.Lock()

    def array(self, shape, dtype, alignment=None):
        if alignment is not None or shape == 0:
            return original(self, shape, dtype, alignment)    # (its refusal; dynamic shared memory)
        frame = sys._getframe(1)
        caller = (frame.f_code.co_filename, frame.f_lineno)
        with lock:
            found = self._allocations.get(caller)
            if found is None:
                np_dtype = numpy_support.as_dtype(dtype) if isinstance(dtype, types.Type) else dtype
                found = self._allocations[caller] = np.empty(shape, np_dtype)
        return found

    array._nbgrad_locked = True
    shared.array = array


if SIMULATOR:
    _patch_simulator()
    _lock_simulator_shared_arrays()
