"""Shared test set-up.

NBGRAD_TESTS_AGAINST_TORCH=1 runs the suite with `nbgrad` replaced by PyTorch
(when it is installed).  The tests state PyTorch's semantics, so this checks
the tests themselves; it is a development aid, never used in CI.

NUMBA_DISABLE_JIT=1 runs the kernels as plain Python (README: Debugging); the
tests about compilation itself are marked `@pytest.mark.requires_jit` and
skip there.
"""
import os
import sys

import pytest

# The CUDA tests (tests/cuda) run under Numba's CUDA simulator unless this machine
# has an NVIDIA driver.  Must be set before numba is first imported; it changes
# only numba.cuda, never the CPU kernels.
if "NUMBA_ENABLE_CUDASIM" not in os.environ and not (
        os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/version")):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

if os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1":
    import torch

    sys.modules["nbgrad"] = torch

_REQUIRES_JIT = ("about Numba compilation itself (the on-disk cache, the stale-cache guard, PTX, "
                 "compiled against plain-Python results): NUMBA_DISABLE_JIT=1 compiles nothing")


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_jit: " + _REQUIRES_JIT + "; skipped there")


def pytest_collection_modifyitems(config, items):
    from numba import config as numba_config   # after the CUDASIM set-up above
    if not numba_config.DISABLE_JIT:
        return
    skip = pytest.mark.skip(reason=_REQUIRES_JIT)
    for item in items:
        if item.get_closest_marker("requires_jit"):
            item.add_marker(skip)
