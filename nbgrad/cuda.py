"""nbgrad.cuda: whether a GPU can be used, and waiting for it (PyTorch's torch.cuda, in small).

Nothing here imports numba.cuda until asked, so `import nbgrad` stays cheap
and works without numba-cuda.  is_available() is True only with numba-cuda
and a real GPU; under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) it is
False, so code that picks `"cuda" if is_available() else "cpu"` never lands on
the (very slow) simulator by accident; tests reach the simulated backend
directly with device="cuda".
"""


def _numba_cuda():
    try:
        import numba
        import numba_cuda  # noqa: F401
        from numba import cuda
    except ImportError:
        return None, None
    return numba, cuda


def is_available():
    numba, cuda = _numba_cuda()
    if cuda is None or numba.config.ENABLE_CUDASIM:
        return False
    try:
        return bool(cuda.is_available())
    except Exception:  # a broken driver install reports as unavailable, as PyTorch does
        return False


def is_simulated():
    """True when the CUDA backend runs under Numba's CUDA simulator."""
    numba, cuda = _numba_cuda()
    return cuda is not None and bool(numba.config.ENABLE_CUDASIM)


def device_count():
    if not is_available():
        return 0
    from numba import cuda
    return len(cuda.gpus)


def current_device():
    _backend()
    return 0


def get_device_name(device=None):
    if is_simulated():
        return "Numba CUDA simulator"
    _backend()
    from numba import cuda
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else name


def synchronize(device=None):
    """Wait for every kernel launched so far to finish."""
    _backend().synchronize()


# --------------------------------------------------------------------------- #
# Memory (torch.cuda's names): what nbgrad's caching allocator (backends/cuda/allocator.py)
# holds, in bytes.  Before the CUDA backend is first used, or with another allocator
# (NBGRAD_CUDA_ALLOCATOR=rmm or numba), they answer 0 and empty_cache() does nothing, as
# PyTorch's do before CUDA is initialized.  Under the simulator they count the live
# buffers (nothing is cached there, so reserved == allocated).

def set_allocator(kind):
    """Choose the device allocator before the CUDA backend is first used: "nbgrad" (the caching
    allocator, the default), "rmm" (RAPIDS RMM's pool, rmm.allocators.numba.RMMNumbaManager,
    where installed) or "numba" (Numba's own, no cache).  Same as NBGRAD_CUDA_ALLOCATOR=kind."""
    import os
    import sys
    kind = str(kind).strip().lower()
    if kind not in ("nbgrad", "rmm", "numba"):
        raise ValueError(f"allocator must be 'nbgrad', 'rmm' or 'numba', got {kind!r}")
    if "nbgrad.backends.cuda._device" in sys.modules:
        from .backends.cuda import allocator
        if allocator.KIND != kind:
            raise RuntimeError(f"the CUDA backend already uses the {allocator.KIND!r} allocator: choose one "
                               "before the first CUDA tensor (or set NBGRAD_CUDA_ALLOCATOR)")
        return
    os.environ["NBGRAD_CUDA_ALLOCATOR"] = kind


def _allocator():
    import sys
    module = sys.modules.get("nbgrad.backends.cuda.allocator")
    return None if module is None else module.ALLOCATOR


def _stat(name):
    alloc = _allocator()
    return 0 if alloc is None else int(alloc.stats()[name])


def memory_allocated(device=None):
    """Bytes of device memory held by tensors (at the allocator's block sizes, as PyTorch counts)."""
    return _stat("allocated")


def max_memory_allocated(device=None):
    """The peak of memory_allocated() since the start or the last reset_peak_memory_stats()."""
    return _stat("peak")


def memory_reserved(device=None):
    """Bytes obtained from the driver and not yet given back: allocated plus cached."""
    return _stat("reserved")


def max_memory_reserved(device=None):
    return _stat("peak_reserved")


def empty_cache():
    """Give every cached block that no tensor uses back to the driver."""
    alloc = _allocator()
    if alloc is not None:
        alloc.empty_cache()


def reset_peak_memory_stats(device=None):
    alloc = _allocator()
    if alloc is not None:
        alloc.reset_peak()


def memory_stats(device=None):
    """A few of torch.cuda.memory_stats()'s entries ("allocated_bytes.all.current", ...)."""
    alloc = _allocator()
    if alloc is None:
        return {}
    s = alloc.stats()
    return {"allocated_bytes.all.current": s["allocated"], "allocated_bytes.all.peak": s["peak"],
            "reserved_bytes.all.current": s["reserved"], "reserved_bytes.all.peak": s["peak_reserved"],
            "num_device_alloc": s["num_driver_allocs"],
            "allocation.all.allocated": s["num_allocs"]}


def manual_seed(seed):
    _backend().manual_seed(int(seed))


manual_seed_all = manual_seed


# --------------------------------------------------------------------------- #
# The matmul kernel's tile configuration (backends/cuda/matmul_tiles.py)

def _tiles():
    _backend()
    from .backends.cuda import matmul_tiles
    return matmul_tiles


def _np_dtype(dtype):
    from ._dtype import to_dtype
    return to_dtype(dtype).np


def matmul_tiles():
    """The names of the matmul kernel's tile configurations on this backend."""
    return list(_tiles().TILES)


def set_matmul_tile(name):
    """Use one tile configuration for every CUDA matmul of this process (same as
    NBGRAD_CUDA_MATMUL_TILE=name); None: choose automatically again.  ValueError for an
    unknown name."""
    _tiles().set_tile(name)


def get_matmul_tile(dtype=None):
    """The tile configuration a large CUDA matmul of dtype (default: the default dtype) uses now:
    the one set (set_matmul_tile, NBGRAD_CUDA_MATMUL_TILE), else the one measured by
    tune_matmul on this device (in this or an earlier process), else the built-in default.
    Small products use smaller tiles unless one is set."""
    from ._dtype import get_default_dtype
    return _tiles().large_choice(_np_dtype(get_default_dtype() if dtype is None else dtype))


def tune_matmul(n=1024, dtype=None, reps=3, budget_s=None, persist=True):
    """Time an n x n matmul of dtype with every tile configuration on this device (CUDA events)
    and make the fastest the default for dtype, in this process and, through nbgrad's cache
    directory, in later ones on a device of the same name (unless persist=False).  Returns
    {name: seconds}; with budget_s, configurations not started within that many seconds are
    left out."""
    from ._dtype import get_default_dtype
    return _tiles().tune(int(n), _np_dtype(get_default_dtype() if dtype is None else dtype), reps=reps,
                         budget_s=budget_s, persist=persist)


def _backend():
    from .backends import get_backend
    return get_backend("cuda")


# PyTorch's legacy CUDA tensor types (nbgrad/_legacy.py): constructors and isinstance tests
from ._legacy import cuda_types as _cuda_types   # noqa: E402
globals().update(_cuda_types())
del _cuda_types
