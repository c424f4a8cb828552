"""nbgrad.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp against analytic
derivatives and finite differences (float64), PyTorch's output structures, flags and errors."""
import os

import numpy as np
import pytest

import nbgrad

from ._helpers import T, close, fd_jacobian, flags

F = nbgrad.autograd.functional
UNDER_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"

X = [[0.3, -0.7], [1.1, 0.4]]
Y = [0.5, -0.2]


def exp_reducer(x):
    return x.exp().sum(dim=1)


def two_out(x, y):
    return x @ y, (x * 2).sum(0) * y


def scalar2(x, y):
    return (x * y).sin().sum()


# ------------------------------------------------------------------------------------ vjp / jvp
def test_vjp_single_input_output():
    x = T(X)
    out, v = F.vjp(exp_reducer, x, T([1.0, 2.0]))
    e = np.exp(np.array(X))
    close(out, e.sum(1))
    close(v, e * np.array([[1.0], [2.0]]))
    assert not out.requires_grad and not v.requires_grad


def test_vjp_tuples_and_independent_input():
    x, y = T(X), T(Y)
    out, (gx, gy) = F.vjp(two_out, (x, y), (T([1.0, -1.0]), T([0.5, 2.0])))
    assert isinstance(out, tuple) and len(out) == 2
    xn, yn = np.array(X), np.array(Y)
    close(out, [xn @ yn, xn.sum(0) * 2 * yn])
    # d/dx: outer(v0, y) + 2 * (v1 * y) broadcast over rows; d/dy: x^T v0 + 2 colsum(x) * v1
    v0, v1 = np.array([1.0, -1.0]), np.array([0.5, 2.0])
    close(gx, np.outer(v0, yn) + 2 * (v1 * yn)[None, :])
    close(gy, xn.T @ v0 + 2 * xn.sum(0) * v1)
    # an input the outputs do not depend on gets zeros (not None)
    _, (g1, g2) = F.vjp(lambda a, b: a * 2, (x, y), T(np.ones((2, 2))))
    close(g2, [0.0, 0.0])


def test_vjp_create_graph_keeps_history():
    x = T(Y, requires_grad=True)
    out, v = F.vjp(lambda a: a ** 2, x, T([1.0, 1.0]), create_graph=True)
    assert out.requires_grad and v.requires_grad
    close(v, 2 * np.array(Y))
    (g,) = nbgrad.autograd.grad(v.sum(), x)
    close(g, [2.0, 2.0])


def test_vjp_default_v_for_one_element_output():
    out, g = F.vjp(lambda a: (a * 3).sum(), T(Y))
    close(out, 0.9)
    close(g, [3.0, 3.0])


def test_jvp_values_double_backward_trick():
    x, y = T(X), T(Y)
    vx, vy = T([[1.0, 0.0], [0.5, 1.0]]), T([1.0, 1.0])
    out, jv = F.jvp(two_out, (x, y), (vx, vy))
    xn, yn = np.array(X), np.array(Y)
    close(jv, [vx.numpy() @ yn + xn @ vy.numpy(),
               2 * vx.numpy().sum(0) * yn + 2 * xn.sum(0) * vy.numpy()])
    assert not jv[0].requires_grad
    out, jv = F.jvp(lambda a: a * 3, T(2.0))
    close(out, 6.0)
    close(jv, 3.0)


def test_jvp_create_graph():
    x = T(Y, requires_grad=True)
    out, jv = F.jvp(lambda a: a ** 3, x, T([1.0, 1.0]), create_graph=True)
    assert jv.requires_grad
    close(jv, 3 * np.array(Y) ** 2)
    (g,) = nbgrad.autograd.grad(jv.sum(), x)
    close(g, 6 * np.array(Y))


# ------------------------------------------------------------------------------------ jacobian
def test_jacobian_single_matches_finite_differences():
    f = lambda a: a.sin() * a.sum()                    # noqa: E731
    x = T([0.3, -0.7, 1.1])
    jac = F.jacobian(f, x)
    close(jac, fd_jacobian(f, x), atol=1e-8)
    assert not jac.requires_grad


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_tuple_of_tuples(vectorize):
    x, y = T(X), T(Y)
    jac = F.jacobian(two_out, (x, y), vectorize=vectorize)
    assert isinstance(jac, tuple) and all(isinstance(r, tuple) and len(r) == 2 for r in jac)
    assert [tuple(j.shape) for r in jac for j in r] == [(2, 2, 2), (2, 2), (2, 2, 2), (2, 2)]
    close(jac[0][0], fd_jacobian(lambda a: a @ T(Y), x), atol=1e-8)
    close(jac[0][1], np.array(X))
    close(jac[1][1], np.diag(np.array(X).sum(0) * 2))


def test_jacobian_forward_mode_strategy_gives_lists():
    # PyTorch's forward-mode strategy returns lists where reverse mode returns tuples
    x, y = T(X), T(Y)
    jac = F.jacobian(two_out, (x, y), vectorize=True, strategy="forward-mode")
    assert isinstance(jac, list) and isinstance(jac[0], list)
    rev = F.jacobian(two_out, (x, y))
    close(jac, rev)


def test_jacobian_independent_input_zeros_and_create_graph():
    x, y = T(X), T(Y)
    jac = F.jacobian(lambda a, b: a * 2, (x, y))
    close(jac[1], np.zeros((2, 2, 2)))
    xr = T(Y, requires_grad=True)
    jac = F.jacobian(lambda a: a ** 2, xr, create_graph=True)
    assert jac.requires_grad
    (g,) = nbgrad.autograd.grad(jac.sum(), xr)
    close(g, [2.0, 2.0])


# ------------------------------------------------------------------------------------ hessian / vhp / hvp
def test_hessian_tuple_inputs():
    x, y = T(X), T(Y)
    h = F.hessian(scalar2, (x, y))
    assert isinstance(h, tuple) and len(h) == 2 and len(h[0]) == 2
    # PyTorch 2.13's values
    close(h[1][1], [[-0.645901, 0.0], [0.0, -0.05559]], atol=1e-6)
    close(h[0][1], [[[0.966355, 0.0], [0.0, 0.97068]], [[0.565047, 0.0], [0.0, 0.990409]]], atol=1e-6)
    close(h[1][0], h[0][1].permute(2, 0, 1))
    assert not any(flags(h))


def test_hessian_single_and_forward_mode():
    y = T(Y)
    h = F.hessian(lambda a: (a ** 3).sum(), y)
    close(h, np.diag(6 * np.array(Y)))
    hf = F.hessian(lambda a: (a ** 3).sum(), y, vectorize=True, outer_jacobian_strategy="forward-mode")
    close(hf, np.diag(6 * np.array(Y)))


def test_vhp_and_hvp_agree_for_symmetric_hessian():
    x, y = T(X), T(Y)
    v = (T([[1.0, 0.0], [0.5, 1.0]]), T([1.0, 2.0]))
    out1, vh = F.vhp(scalar2, (x, y), v)
    out2, hv = F.hvp(scalar2, (x, y), v)
    close(out1, out2)
    close(vh, hv)
    # PyTorch 2.13's values
    close(hv, [[[0.928996, 1.94136], [0.499711, 1.984014]], [0.602978, 0.879229]], atol=1e-6)
    assert not any(flags((out1, vh, out2, hv)))


def test_hvp_create_graph():
    x = T(Y, requires_grad=True)
    out, hv = F.hvp(lambda a: (a ** 4).sum(), x, T([1.0, 1.0]), create_graph=True)
    assert out.requires_grad and hv.requires_grad
    close(hv, 12 * np.array(Y) ** 2)
    (g,) = nbgrad.autograd.grad(hv.sum(), x)
    close(g, 24 * np.array(Y))


# ------------------------------------------------------------------------------------ errors
ERRORS = [
    (lambda: F.vjp(exp_reducer, T(X)), RuntimeError, "The vector v can only be None if the user-provided function "
     "returns a single Tensor with a single element."),
    (lambda: F.vjp(exp_reducer, [T(X)]), TypeError, "The inputs given to vjp must be either a Tensor or a tuple of "
     "Tensors but the given inputs has type <class 'list'>."),
    (lambda: F.vjp(exp_reducer, (T(X), 3)), TypeError, "but the value at index 1 has type <class 'int'>."),
    (lambda: F.vjp(lambda a: 3, T(X)), TypeError, "The outputs of the user-provided function given to vjp must be "
     "either a Tensor or a tuple of Tensors"),
    (lambda: F.vjp(exp_reducer, T(X), T([1.0, 2.0, 3.0])), RuntimeError, r"^v has invalid size: should be"),
    (lambda: F.vjp(two_out, (T(X), T(Y)), (T([1.0, 2.0]),)), RuntimeError,
     "v is a tuple of invalid length: should be 2 but got 1."),
    (lambda: F.vjp(two_out, (T(X), T(Y)), (T([1.0, 2.0]), T([1.0]))), RuntimeError, "Entry 1 in v has invalid size"),
    (lambda: F.vjp(lambda a, b: a * 2, (T(X), T(Y)), T(np.ones((2, 2))), strict=True), RuntimeError,
     "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: F.vjp(lambda a: T([1.0, 2.0]), T(X), T([1.0, 2.0]), strict=True), RuntimeError,
     "Output 0 of the user-provided function does not require gradients."),
    (lambda: F.vjp(lambda a: a * 2, T(Y), T(Y), strict=True, create_graph=True), RuntimeError,
     "The jacobian of the user-provided function is independent of input 0. This is not allowed in strict mode "
     "when create_graph=True."),
    (lambda: F.jvp(exp_reducer, T(X)), RuntimeError, "The vector v can only be None if the input to the "
     "user-provided function is a single Tensor with a single element."),
    (lambda: F.jvp(lambda a, b: a * 2, (T(X), T(Y)), (T(X), T(Y)), strict=True), RuntimeError,
     "The output of the user-provided function is independent of input 1."),
    (lambda: F.jacobian(lambda a, b: a * 2, (T(X), T(Y)), strict=True), RuntimeError,
     "Output 0 of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: F.jacobian(lambda a: a * 2, T(Y), strict=True, create_graph=True), RuntimeError,
     "The jacobian of the user-provided function is independent of input 0. This is not allowed in strict mode "
     "when create_graph=True."),
    (lambda: F.jacobian(lambda a, b: a * 2, (T(X), T(Y)), strict=True, vectorize=True), RuntimeError,
     "`strict=True` and `vectorized=True` are not supported together."),
    (lambda: F.jacobian(exp_reducer, T(X), strategy="bad"), AssertionError,
     'Expected strategy to be either "forward-mode" or "reverse-mode". Hint'),
    (lambda: F.jacobian(exp_reducer, T(X), strategy="forward-mode"), NotImplementedError,
     "only implemented for `vectorize=True`."),
    (lambda: F.jacobian(exp_reducer, T(X), strategy="forward-mode", create_graph=True), NotImplementedError,
     '`create_graph=True` and `strategy="forward-mode"` are not supported together (yet).'),
    (lambda: F.jacobian(exp_reducer, T(X), strategy="forward-mode", strict=True), RuntimeError,
     '`strict=True` and `strategy="forward-mode"` are not supported together (yet).'),
    (lambda: F.hessian(exp_reducer, T(X)), RuntimeError,
     "The Tensor returned by the function given to hessian should contain a single element"),
    (lambda: F.hessian(lambda a: (a,), T(X)), RuntimeError, "The function given to hessian should return a single "
     "Tensor"),
    (lambda: F.hessian(lambda a: (a * 2).sum(), T(X), strict=True), RuntimeError,
     "While computing the hessian, found that the jacobian of the user-provided function with respect to input 0 "
     "is independent of the input."),
    (lambda: F.hessian(lambda a: a.sum(), T(X), outer_jacobian_strategy="x"), AssertionError,
     'Expected strategy to be either "forward-mode" or "reverse-mode".'),
    (lambda: F.hvp(lambda a: a, T(X), T(X)), RuntimeError,
     "The Tensor returned by the function given to hvp should contain a single element"),
    (lambda: F.vhp(lambda a: (a, a), T(X), T(X)), RuntimeError, "The function given to vhp should return a single "
     "Tensor"),
    (lambda: F.hvp(lambda a: (a * 2).sum(), T(X), T(X), strict=True), RuntimeError,
     "While computing the hessian, found that the jacobian"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors(call, exc, message):
    import re
    with pytest.raises(exc) as info:
        call()
    if message.startswith("^"):
        assert re.match(message, str(info.value)), str(info.value)
    else:
        assert message in str(info.value), str(info.value)


def test_inputs_not_modified_and_flags_kept():
    x = T(Y, requires_grad=True)
    F.jacobian(lambda a: a.exp(), x)
    F.hessian(lambda a: a.exp().sum(), x)
    assert x.requires_grad and x.grad is None and x.is_leaf
    y = T(Y)
    F.vjp(lambda a: a.exp(), y, T([1.0, 1.0]))
    assert not y.requires_grad


@pytest.mark.skipif(UNDER_TORCH, reason="PyTorch's forward-mode hessian leaves a history on its result (an artifact "
                    "of forward AD); nbgrad computes it in reverse mode and returns it detached")
def test_forward_mode_hessian_detached():
    hf = F.hessian(lambda a: (a ** 3).sum(), T(Y), vectorize=True, outer_jacobian_strategy="forward-mode")
    assert not hf.requires_grad
