"""nbgrad.func's differentiation transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian, linearize; nested transforms; the requires_grad flags of results (PyTorch 2.13's);
PyTorch's errors."""
import re

import numpy as np
import pytest

import nbgrad

from ._helpers import T, close, fd_jacobian, flags

fn = nbgrad.func
XS = [0.3, -0.7, 1.1]
YS = [0.5, -0.2, 0.9]


def sinsum(x):
    return x.sin().sum()


# ------------------------------------------------------------------------------------ grad
def test_grad_values_and_flags():
    x = T(XS)
    g = fn.grad(sinsum)(x)
    close(g, np.cos(XS))
    assert not g.requires_grad and not x.requires_grad


def test_grad_flags_follow_the_callers_autograd():
    xr = T(XS, requires_grad=True)
    g = fn.grad(sinsum)(xr)
    assert g.requires_grad                          # differentiable again by ordinary autograd
    (gg,) = nbgrad.autograd.grad(g.sum(), xr)
    close(gg, -np.sin(XS))
    assert not fn.grad(lambda a: (3 * a).sum())(xr).requires_grad
    w = T([2.0, 3.0, -1.0], requires_grad=True)
    g = fn.grad(lambda a: (w * a).sum())(T(XS))      # a captured tensor that requires grad
    assert g.requires_grad
    close(g, [2.0, 3.0, -1.0])
    with nbgrad.no_grad():
        assert not fn.grad(sinsum)(xr).requires_grad


def test_grad_of_function_not_depending_on_input_is_zeros():
    w = T([2.0, 3.0, -1.0], requires_grad=True)
    g = fn.grad(lambda a: (w * w).sum())(T(XS))
    close(g, [0.0, 0.0, 0.0])
    assert not g.requires_grad
    close(fn.grad(lambda a: T(1.0))(T(XS)), [0.0, 0.0, 0.0])


def test_grad_argnums_and_pytrees():
    x, y = T(XS), T(YS)
    f = lambda a, b: (a * b.exp()).sum()               # noqa: E731
    gx, gy = fn.grad(f, argnums=(0, 1))(x, y)
    close(gx, np.exp(YS))
    close(gy, np.array(XS) * np.exp(YS))
    close(fn.grad(f, argnums=1)(x, y), np.array(XS) * np.exp(YS))
    close(fn.grad(f, argnums=-1)(x, y), np.array(XS) * np.exp(YS))
    g = fn.grad(lambda p: (p["a"] * p["b"]).sum())({"a": x, "b": y})
    assert isinstance(g, dict) and list(g) == ["a", "b"]
    close(g, {"a": YS, "b": XS})
    g = fn.grad(lambda p: (p[0] * p[1][0]).sum())((x, [y]))
    assert isinstance(g, tuple) and isinstance(g[1], list)
    close(g, (YS, [XS]))


def test_grad_has_aux_and_grad_and_value():
    x = T(XS)
    g, aux = fn.grad(lambda a: (sinsum(a), {"c": a.cos()}), has_aux=True)(x)
    close(g, np.cos(XS))
    close(aux, {"c": np.cos(XS)})
    g, value = fn.grad_and_value(sinsum)(x)
    close(value, np.sin(XS).sum())
    g, (value, aux) = fn.grad_and_value(lambda a: (sinsum(a), a * 2), has_aux=True)(x)
    close(aux, 2 * np.array(XS))
    assert not any(flags((g, value, aux)))


def test_nested_grad():
    s = T(0.7)
    # d2/ds2 (sin(s) s^3) = -sin s^3 + 6 cos s^2 + 6 sin s
    expected = -np.sin(0.7) * 0.7 ** 3 + 6 * np.cos(0.7) * 0.7 ** 2 + 6 * np.sin(0.7) * 0.7
    g2 = fn.grad(fn.grad(lambda a: a.sin() * a ** 3))(s)
    close(g2, expected)
    assert not g2.requires_grad
    g3 = fn.grad(fn.grad(fn.grad(lambda a: a ** 4)))(s)
    close(g3, 24 * 0.7)


def test_nested_grad_keeps_levels_apart():
    # d/da [a * d/db sin(a b)|b=0.4] = d/da [a^2 cos(0.4 a)]: the inner derivative is with respect
    # to b only, even though it captures a
    g = fn.grad(lambda a: fn.grad(lambda b: (a * b).sin())(T(0.4)) * a)(T(0.7))
    close(g, 2 * 0.7 * np.cos(0.28) - 0.7 ** 2 * 0.4 * np.sin(0.28))
    assert not g.requires_grad
    # inner grad taken at the outer input: d/db (a b) = a, then d/da a = 1
    close(fn.grad(lambda a: fn.grad(lambda b: a * b)(a))(T(0.7)), 1.0)


# ------------------------------------------------------------------------------------ vjp / jvp / linearize
def test_vjp():
    x, y = T(XS), T(YS)
    out, vjp_fn = fn.vjp(lambda a, b: (a * b, (a ** 2).sum()), x, y)
    close(out, (np.array(XS) * YS, np.sum(np.square(XS))))
    gx, gy = vjp_fn((T([1.0, 2.0, 3.0]), T(2.0)))
    close(gx, np.array([1.0, 2.0, 3.0]) * YS + 4 * np.array(XS))
    close(gy, np.array([1.0, 2.0, 3.0]) * XS)
    # callable again (the graph is retained), and zeros for an unused input
    _, vjp_fn = fn.vjp(lambda a, b: a * 2, x, y)
    close(vjp_fn(T([1.0, 1.0, 1.0])), ([2.0, 2.0, 2.0], [0.0, 0.0, 0.0]))
    close(vjp_fn(T([1.0, 0.0, 0.0])), ([2.0, 0.0, 0.0], [0.0, 0.0, 0.0]))
    out, vjp_fn, aux = fn.vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)
    close(aux, sum(XS))
    assert not any(flags((out, vjp_fn(T([1.0, 1.0, 1.0])), aux)))


def test_vjp_flags_with_requires_grad_input():
    xr = T(XS, requires_grad=True)
    out, vjp_fn = fn.vjp(lambda a: a.sin() * 2, xr)
    (g,) = vjp_fn(T([1.0, 1.0, 1.0]))
    assert out.requires_grad and g.requires_grad
    close(g, 2 * np.cos(XS))


def test_jvp():
    x, y = T(XS), T(YS)
    out, jv = fn.jvp(lambda a, b: (a * b, (a ** 2).sum()), (x, y), (T([1.0, 2.0, 3.0]), T([0.0, 1.0, 0.0])))
    close(jv, (np.array([1.0, 2.0, 3.0]) * YS + np.array([0.0, 1.0, 0.0]) * XS,
               2 * np.dot(XS, [1.0, 2.0, 3.0])))
    out, jv, aux = fn.jvp(lambda a: (a.exp(), a.sum()), (x,), (y,), has_aux=True)
    close(jv, np.exp(XS) * YS)
    close(aux, sum(XS))
    out, jv = fn.jvp(lambda a, b: b * 2, (x, T([1.0, 1.0, 1.0])), (x, y))
    close(jv, 2 * np.array(YS))
    out, jv = fn.jvp(lambda a: a, (x,), (y,))                   # the identity
    close(jv, YS)
    assert not any(flags((out, jv)))


def test_linearize():
    x = T(XS)
    out, jvp_fn = fn.linearize(lambda a: a.sin() * 2, x)
    close(out, 2 * np.sin(XS))
    close(jvp_fn(T([1.0, 2.0, 3.0])), 2 * np.cos(XS) * [1.0, 2.0, 3.0])
    close(jvp_fn(T([0.0, 1.0, 0.0])), 2 * np.cos(XS) * [0.0, 1.0, 0.0])


# ------------------------------------------------------------------------------------ Jacobians
@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_values(jac):
    f = lambda a: a.sin() * a.sum()                    # noqa: E731
    x = T(XS)
    j = getattr(fn, jac)(f)(x)
    close(j, fd_jacobian(f, x), atol=1e-8)
    assert not j.requires_grad
    m = T([[1.0, 2, 3], [4, 5, 6]])
    j = getattr(fn, jac)(lambda a: a @ T(YS))(m)
    expected = np.zeros((2, 2, 3))
    expected[0, 0], expected[1, 1] = YS, YS
    close(j, expected)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_structures(jac):
    x, y = T(XS), T(YS)
    j = getattr(fn, jac)(lambda a, b: (a * b, (a ** 2).sum()), argnums=(0, 1))(x, y)
    assert isinstance(j, tuple) and isinstance(j[0], tuple) and isinstance(j[1], tuple)
    close(j, ((np.diag(YS), np.diag(XS)), (2 * np.array(XS), np.zeros(3))))
    j, aux = getattr(fn, jac)(lambda a: (a.exp(), a.sum()), has_aux=True)(x)
    close(j, np.diag(np.exp(XS)))
    close(aux, sum(XS))
    j = getattr(fn, jac)(lambda p: {"o": p["a"] * p["b"]})({"a": x, "b": y})
    close(j, {"o": {"a": np.diag(YS), "b": np.diag(XS)}})


@pytest.mark.parametrize("compose", ["hessian", "jacrev(jacrev)", "jacfwd(jacfwd)", "jacfwd(jacrev)"])
def test_hessians(compose):
    f = lambda a: (a.tanh() * a.sum()).sum()          # noqa: E731
    x = T(XS)
    h = {"hessian": fn.hessian(f), "jacrev(jacrev)": fn.jacrev(fn.jacrev(f)),
         "jacfwd(jacfwd)": fn.jacfwd(fn.jacfwd(f)), "jacfwd(jacrev)": fn.jacfwd(fn.jacrev(f))}[compose](x)
    # PyTorch 2.13's values
    close(h, [[1.457047, 1.549877, 1.274338], [1.549877, 1.806542, 0.993941], [1.274338, 0.993941, 0.315846]],
          atol=1e-6)
    close(h, fd_jacobian(fn.grad(f), x), atol=1e-7)
    assert not h.requires_grad


def test_hessian_argnums_and_requires_grad_input():
    x, y = T(XS), T(YS)
    h = fn.hessian(lambda a, b: (a.exp() * b ** 2).sum(), argnums=(0, 1))(x, y)
    e = np.exp(XS)
    close(h, ((np.diag(e * np.square(YS)), np.diag(2 * e * YS)), (np.diag(2 * e * YS), np.diag(2 * e))))
    h = fn.hessian(lambda a: (a ** 3).sum())(T(XS, requires_grad=True))
    assert h.requires_grad                             # depends on the input, which autograd records
    close(h, np.diag(6 * np.array(XS)))


# ------------------------------------------------------------------------------------ errors
ERRORS = [
    (lambda: fn.grad(lambda a: a * 2)(T(XS)), RuntimeError, "grad_and_value(f)(*args): Expected f(*args) to return "
     "a scalar Tensor, got tensor with 1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?"),
    (lambda: fn.grad(lambda a: 2.0)(T(XS)), RuntimeError,
     "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>"),
    (lambda: fn.grad(sinsum, argnums=3)(T(XS)), RuntimeError, "Got argnum=3, but only 1 positional inputs"),
    (lambda: fn.grad(sinsum, argnums=())(T(XS)), RuntimeError, "argnums must be non-empty"),
    (lambda: fn.grad(lambda a, b: a.sum(), argnums=(0, 0))(T(XS), T(XS)), RuntimeError,
     "argnums elements must be unique, got (0, 0)"),
    (lambda: fn.grad(sinsum, argnums=[0])(T(XS)), RuntimeError,
     "argnums must be int or Tuple[int, ...], got: <class 'list'>"),
    (lambda: fn.grad(sinsum, argnums=(0.0,))(T(XS)), RuntimeError, "argnum must be int, got: <class 'float'>"),
    (lambda: fn.grad(sinsum, has_aux=True)(T(XS)), RuntimeError, "grad_and_value(f)(*args): output of function f "
     "should be a tuple: (output, aux) if has_aux is True"),
    (lambda: fn.grad(sinsum)(3.0), ValueError, "Thing passed to transform API must be Tensor, got <class 'float'>"),
    (lambda: fn.vjp(lambda a: (a, a), T(XS))[1](T(XS)), RuntimeError, "Expected pytree structure of cotangents to "
     "be the same as pytree structure of outputs to the function. cotangents: *, primal output: (*, *)"),
    (lambda: fn.vjp(lambda a: a.long(), T(XS)), RuntimeError, "vjp(f, ...): All outputs of f must be floating-point "
     "or complex Tensors, got Tensor with dtype"),
    (lambda: fn.vjp(lambda a: (), T(XS)), RuntimeError,
     "vjp(f, *primals): Expected f to be a function that has non-empty output (got output = [])"),
    (lambda: fn.vjp(lambda a: 3, T(XS)), RuntimeError,
     "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type <class 'int'>"),
    (lambda: fn.jvp(sinsum, T(XS), T(XS)), RuntimeError, "jvp(f, primals, tangents): Expected primals to be a tuple."),
    (lambda: fn.jvp(sinsum, (T(XS),), (T(XS), T(XS))), RuntimeError, "jvp(f, primals, tangents): Expected primals "
     "and tangents to have the same python structure."),
    (lambda: fn.jvp(lambda a: T([1.0]), (T(XS),), (T(XS),), strict=True), RuntimeError,
     "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. This is not allowed "
     "with strict=True."),
    (lambda: fn.jvp(sinsum, (3.0,), (T(XS),)), RuntimeError, "jvp(f, primals, tangents): Expected primals to only "
     "contain Tensors, got <class 'float'>"),
    (lambda: fn.jvp(sinsum, (), ()), RuntimeError,
     "jvp(f, primals, tangents): Expected primals to contain at least one Tensor."),
    (lambda: fn.jacrev(sinsum, chunk_size=0), ValueError, "jacrev: `chunk_size` should be greater than 0."),
    (lambda: fn.linearize(lambda a: a * 2, T(XS))[1](T([1.0, 2.0])), RuntimeError,
     r"^tangent:0 with shape \S+Size\(\[2\]\) in flattened pytree doesn't match the shape \S+Size\(\[3\]\) of the "
     "corresponding primal.$"),
    (lambda: fn.jacfwd(lambda a: a * nbgrad.rand(3, dtype=nbgrad.float64))(T(XS)), RuntimeError,
     "vmap: called random operation while in randomness error mode."),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    if message.startswith("^"):
        assert re.match(message, str(info.value)), str(info.value)
    else:
        assert message in str(info.value), str(info.value)
