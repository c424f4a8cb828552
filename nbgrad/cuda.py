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


def manual_seed(seed):
    _backend().manual_seed(int(seed))


manual_seed_all = manual_seed


def _backend():
    from .backends import get_backend
    return get_backend("cuda")


# PyTorch's legacy CUDA tensor types (nbgrad/_legacy.py): constructors and isinstance tests
from ._legacy import cuda_types as _cuda_types   # noqa: E402
globals().update(_cuda_types())
del _cuda_types
