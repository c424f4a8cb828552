"""A skip marker for the tests that run on the CUDA backend (a GPU or the simulator)."""
import pytest

import nbgrad


def _skip_reason():
    try:
        nbgrad.backends.get_backend("cuda")
    except RuntimeError as exc:
        return str(exc)
    return None


CUDA_SKIP_REASON = _skip_reason()
requires_cuda = pytest.mark.skipif(CUDA_SKIP_REASON is not None, reason=f"CUDA backend unusable: {CUDA_SKIP_REASON}")
