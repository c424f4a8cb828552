"""Shared test set-up.

NBGRAD_TESTS_AGAINST_TORCH=1 runs the suite with `nbgrad` replaced by PyTorch
(when it is installed).  The tests state PyTorch's semantics, so this checks
the tests themselves; it is a development aid, never used in CI.
"""
import os
import sys

# The CUDA tests (tests/cuda) run under Numba's CUDA simulator unless this machine
# has an NVIDIA driver.  Must be set before numba is first imported; it changes
# only numba.cuda, never the CPU kernels.
if "NUMBA_ENABLE_CUDASIM" not in os.environ and not (
        os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/version")):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

if os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1":
    import torch

    sys.modules["nbgrad"] = torch
