"""Helpers of the loss, distance and module tests: float64 tensors and NumPy references."""
import numpy as np

import nbgrad

REDUCTIONS = ["none", "mean", "sum"]


def t(a, grad=False):
    """A float64 tensor of a (requiring grad when grad)."""
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def np_reduce(loss, reduction):
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def close(out, ref):
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12, atol=1e-12)
