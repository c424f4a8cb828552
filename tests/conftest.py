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

# NBGRAD_FUSED=0 turns every optional backend acceleration off (nbgrad.ops._graph.accelerated),
# so the composed fallbacks run.  Tests about an acceleration itself (a fused node, a kernel
# count) carry this one marker and skip there; every other test runs on both paths.
ACCELERATIONS_ON = os.environ.get("NBGRAD_FUSED", "1") != "0"


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_jit: " + _REQUIRES_JIT + "; skipped there")
    config.addinivalue_line(
        "markers", "acceleration: a test about an optional backend acceleration itself (fused kernels, "
        "FusedBackward0); skipped under NBGRAD_FUSED=0")


def pytest_collection_modifyitems(config, items):
    from numba import config as numba_config   # after the CUDASIM set-up above
    skip_jit = pytest.mark.skip(reason=_REQUIRES_JIT)
    skip_acc = pytest.mark.skip(reason="NBGRAD_FUSED=0: this test is about an acceleration, which is turned off")
    for item in items:
        if numba_config.DISABLE_JIT and item.get_closest_marker("requires_jit"):
            item.add_marker(skip_jit)
        if not ACCELERATIONS_ON and item.get_closest_marker("acceleration") is not None:
            item.add_marker(skip_acc)
