"""User ops on CUDA under the simulator: nbgrad.elementwise and nbgrad.custom_op (tiny shapes)."""
import math

import numpy as np
import pytest

import nbgrad
from cuda_available import requires_cuda

pytestmark = requires_cuda


@nbgrad.elementwise
def softclip(x, a):
    return a * math.tanh(x / a)


def test_elementwise_on_cuda_values_gradients_and_node():
    x = np.array([[-2.0, 0.5, 3.0]])
    a = np.array([[1.5], [0.5]])
    xt = nbgrad.tensor(x, device="cuda", requires_grad=True)
    at = nbgrad.tensor(a, device="cuda", requires_grad=True)
    y = softclip(xt, at)
    assert y.device.type == "cuda" and type(y.grad_fn).__name__ == "SoftclipBackward"
    np.testing.assert_allclose(y.detach().cpu().numpy(), a * np.tanh(x / a), rtol=1e-12)
    y.sum().backward()
    t = np.tanh(x / a)
    np.testing.assert_allclose(xt.grad.cpu().numpy(), (1 - t ** 2).sum(0, keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(at.grad.cpu().numpy(), (t - x / a * (1 - t ** 2)).sum(1, keepdims=True),
                               rtol=1e-10)
