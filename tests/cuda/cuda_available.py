"""Whether the CUDA backend loads here (on a GPU, or under the simulator), for skip markers.

(No __init__.py in tests/cuda: a package named `cuda` would shadow NVIDIA's
`cuda` namespace package, cuda.bindings, that numba-cuda imports.)
"""
import pytest


def _skip_reason():
    try:
        from nbgrad.backends import get_backend
        get_backend("cuda")
    except RuntimeError as exc:
        return str(exc)
    return None


CUDA_SKIP_REASON = _skip_reason()
requires_cuda = pytest.mark.skipif(CUDA_SKIP_REASON is not None, reason=f"CUDA backend unusable: {CUDA_SKIP_REASON}")
