"""CUDA test set-up: a `device` fixture over cpu and cuda, and a skip when CUDA is unusable.

Under the simulator (the default without an NVIDIA driver, see tests/conftest.py)
kernels run as Python threads at a few hundred thousand elements per second,
so every shape here is tiny.
"""
import warnings

import pytest


from cuda_available import requires_cuda  # noqa: E402


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=requires_cuda)])
def device(request):
    return request.param


@pytest.fixture(autouse=True)
def _quiet_simulator():
    # The simulator runs kernels on numpy scalars, which warn on overflow (the hash of
    # the random generator wraps on purpose) and on nan comparisons.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
