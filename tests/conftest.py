"""Shared test set-up.

NBGRAD_TESTS_AGAINST_TORCH=1 runs the suite with `nbgrad` replaced by PyTorch
(when it is installed).  The tests state PyTorch's semantics, so this checks
the tests themselves; it is a development aid, never used in CI.
"""
import os
import sys

if os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1":
    import torch

    sys.modules["nbgrad"] = torch
