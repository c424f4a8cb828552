"""User ops on CUDA under the simulator: nbgrad.elementwise and nbgrad.custom_op (tiny shapes)."""
import math

import numpy as np
import pytest
from numba import cuda

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


@cuda.jit
def scale_fwd(x, alpha, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = alpha * x[i] * x[i]


@cuda.jit
def scale_bwd(grad, x, alpha, out, gx, galpha):
    i = cuda.grid(1)
    if i < out.shape[0]:
        gx[i] = 2 * alpha * x[i] * grad[i]


def test_custom_op_with_cuda_kernels():
    import numba

    @numba.njit
    def cpu_fwd(x, alpha, out):
        for i in range(out.shape[0]):
            out[i] = alpha * x[i] * x[i]

    fwd, bwd = scale_fwd, scale_bwd
    op = nbgrad.custom_op("scaled_square", cpu_fwd, cuda_forward=fwd, cuda_backward=bwd, launch=(1, 8))
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.25])
    xt = nbgrad.tensor(x, device="cuda", requires_grad=True)
    y = op(xt[::1], 1.5)
    assert y.device.type == "cuda" and type(y.grad_fn).__name__ == "ScaledSquareBackward"
    np.testing.assert_allclose(y.detach().cpu().numpy(), 1.5 * x * x, rtol=1e-12)
    y.backward(nbgrad.ones(5, dtype=nbgrad.float64, device="cuda"))
    np.testing.assert_allclose(xt.grad.cpu().numpy(), 3.0 * x, rtol=1e-12)
    # a strided CUDA input is made contiguous for the kernel
    s = nbgrad.tensor(np.arange(10.0), device="cuda")[::2]
    np.testing.assert_allclose(op(s, 2.0).cpu().numpy(), 2.0 * np.arange(0.0, 10.0, 2) ** 2)
    # the CPU kernel still serves CPU tensors; no CUDA backward on a forward-only op raises, naming it
    np.testing.assert_allclose(op(nbgrad.tensor(x), 1.0).numpy(), x * x)
    fwd_only = nbgrad.custom_op("fwd_only_cuda", cpu_fwd, cuda_forward=fwd)
    with pytest.raises(RuntimeError, match="custom op 'fwd_only_cuda' has no backward for cuda tensors"):
        fwd_only(xt, 1.0).sum().backward()
    with pytest.raises(RuntimeError, match="custom op 'scaled_square': expected all tensors on one device"):
        op2 = nbgrad.custom_op("scaled_square", lambda a, b, out: None)
        op2(xt, nbgrad.tensor(x))
    cpu_only = nbgrad.custom_op("cpu_only", cpu_fwd)
    with pytest.raises(RuntimeError, match=r"custom op 'cpu_only': has no kernel for cuda tensors \(pass cuda_forward=\)"):
        cpu_only(xt, 1.0)


def test_user_reduction_on_cuda():
    def logaddexp(acc, v):
        m = max(acc, v)
        if m == -math.inf:
            return m
        return m + math.log(math.exp(acc - m) + math.exp(v - m))
    lse = nbgrad.reduction(logaddexp, -math.inf, grad=lambda x, out: math.exp(x - out))
    a = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, -3.0]])
    x = nbgrad.tensor(a, device="cuda", requires_grad=True)
    y = lse(x, 1)
    assert y.device.type == "cuda"
    ref = np.log(np.exp(a).sum(1))
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.exp(a - ref[:, None]), rtol=1e-10)
