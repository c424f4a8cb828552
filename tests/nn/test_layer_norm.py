"""F.layer_norm as PyTorch's one op: NativeLayerNormBackward0 over (input, weight, bias), values
and gradients against a float64 NumPy reference and finite differences, the backend's one-pass
kernels against the composed Tensor ops, and PyTorch's errors (recorded from torch 2.13)."""
import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.ops import normalization as N


def _reference(x, shape, w, b, eps=1e-5):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean = x.mean(axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


CASES = [((8, 5), (5,)), ((2, 3, 4), (3, 4)), ((6,), (6,)), ((3, 1, 7), (7,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_values_against_numpy(dtype, affine, case):
    shape, ns = case
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(shape), rng.standard_normal(ns), rng.standard_normal(ns)
    y = F.layer_norm(nbgrad.tensor(x.astype(dtype)), ns, nbgrad.tensor(w.astype(dtype)) if affine else None,
                     nbgrad.tensor(b.astype(dtype)) if affine else None)
    assert y.dtype == (nbgrad.float32 if dtype == np.float32 else nbgrad.float64) and y.is_contiguous()
    ref = _reference(x.astype(dtype).astype(np.float64), ns, w.astype(dtype) if affine else None,
                     b.astype(dtype) if affine else None)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_one_node_with_pytorchs_edges_and_gradients_by_finite_differences(affine, case):
    shape, ns = case
    rng = np.random.default_rng(1)
    x = nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal(ns), requires_grad=True) if affine else None
    b = nbgrad.tensor(rng.standard_normal(ns), requires_grad=True) if affine else None
    y = F.layer_norm(x, ns, w, b)
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    edges = [type(f).__name__ if f is not None else None for f, _ in y.grad_fn.next_functions]
    assert edges == (["AccumulateGrad"] * 3 if affine else ["AccumulateGrad", None, None])
    inputs = (x, w, b) if affine else (x,)
    assert nbgrad.autograd.gradcheck(lambda *a: F.layer_norm(a[0], ns, *a[1:]) if affine else F.layer_norm(a[0], ns),
                                     inputs)


def test_second_derivatives_by_finite_differences():
    rng = np.random.default_rng(2)
    x = nbgrad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal(4), requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal(4), requires_grad=True)
    assert nbgrad.autograd.gradgradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (x, w, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_pass_kernels_match_the_composed_ops(dtype, monkeypatch):
    rng = np.random.default_rng(3)
    xv, wv, bv = rng.standard_normal((64, 48)), rng.standard_normal(48), rng.standard_normal(48)
    gv = rng.standard_normal((64, 48))
    results = []
    for kernel in (True, False):
        if not kernel:
            monkeypatch.setattr(N, "_layer_norm_kernel", lambda *a: False)
        x, w, b = (nbgrad.tensor(v.astype(dtype), requires_grad=True) for v in (xv, wv, bv))
        y = F.layer_norm(x.t().contiguous().t(), (48,), w, b)      # (a column-major input)
        y.backward(nbgrad.tensor(gv.astype(dtype)))
        results.append([t.detach().numpy() for t in (y, x.grad, w.grad, b.grad)])
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for a, c in zip(*results):
        np.testing.assert_allclose(a, c, rtol=tol, atol=tol)


def test_module_and_a_large_input_split_across_threads():
    rng = np.random.default_rng(4)
    ln = nbgrad.nn.LayerNorm(512)
    with nbgrad.no_grad():
        ln.weight.copy_(nbgrad.tensor(rng.standard_normal(512).astype(np.float32)))
    x = nbgrad.tensor(rng.standard_normal((600, 512)).astype(np.float32), requires_grad=True)   # 2^18+ elements
    y = ln(x)
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    ref = _reference(x.detach().numpy().astype(np.float64), (512,), ln.weight.detach().numpy().astype(np.float64),
                     0.0)
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-4, atol=1e-5)
    y.sum().backward()
    # the sum of a normalised row's gradient is 0 (sum of dx over the row is 0)
    np.testing.assert_allclose(x.grad.numpy().sum(1), 0.0, atol=1e-3)
    np.testing.assert_allclose(ln.bias.grad.numpy(), np.full(512, 600.0), rtol=1e-6)


@pytest.mark.parametrize("args, message", [
    (((4,),), r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but got input of size\[2, 3\]"),
    (((3,), nbgrad.ones(4)), r"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                             r"\[4\] and normalized_shape = \[3\]"),
    (((3,), None, nbgrad.ones(2)), r"Expected bias to be of same shape as normalized_shape, but got bias of shape "
                                   r"\[2\] and normalized_shape = \[3\]"),
    (((2, 3, 4),), r"Given normalized_shape=\[2, 3, 4\], expected input with shape \[\*, 2, 3, 4\]"),
])
def test_errors(args, message):
    with pytest.raises(RuntimeError, match=message):
        F.layer_norm(nbgrad.randn(2, 3), *args)


def test_changing_the_input_in_place_fails_the_backward():
    x = nbgrad.randn(2, 3, requires_grad=True)
    h = x * 1
    y = F.layer_norm(h, (3,))
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
