"""nbgrad.custom_op: a user's @numba.njit forward and backward as an op with a named node."""
import numba
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


@numba.njit
def laplace_fwd(u, out):
    for i in range(1, u.shape[0] - 1):
        out[i] = u[i - 1] - 2 * u[i] + u[i + 1]


@numba.njit
def laplace_bwd(grad, u, out, grad_u):
    for i in range(1, u.shape[0] - 1):
        grad_u[i - 1] += grad[i]
        grad_u[i] -= 2 * grad[i]
        grad_u[i + 1] += grad[i]


laplace = nbgrad.custom_op("laplace", laplace_fwd, laplace_bwd)


@numba.njit
def axpy_fwd(x, y, alpha, out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = x[i, j] + alpha * y[i, j] * y[i, j]


@numba.njit
def axpy_bwd(grad, x, y, alpha, out, gx, gy, galpha):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            gx[i, j] = grad[i, j]
            gy[i, j] = 2 * alpha * y[i, j] * grad[i, j]


def _same_shape(x, y, alpha):
    if x != y:
        raise ValueError(f"x and y must have one shape, got {x} and {y}")
    return x


axpy = nbgrad.custom_op("axpy_square", axpy_fwd, axpy_bwd, output=_same_shape,
                        input_dtypes=(nbgrad.float32, nbgrad.float64))


def f64(a, grad=True):
    return nbgrad.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _np_laplace(u):
    out = np.zeros_like(u)
    out[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
    return out


def test_values_node_and_gradient():
    u = RNG.normal(size=7)
    ut = f64(u)
    y = laplace(ut)
    np.testing.assert_allclose(y.detach().numpy(), _np_laplace(u), rtol=1e-12)
    assert type(y.grad_fn).__name__ == "LaplaceBackward" and y.grad_fn.name() == "LaplaceBackward"
    w = RNG.normal(size=7)
    (y * f64(w, False)).sum().backward()
    ref = np.zeros(7)                      # the adjoint of the stencil
    ref[:-2] += w[1:-1]
    ref[1:-1] -= 2 * w[1:-1]
    ref[2:] += w[1:-1]
    np.testing.assert_allclose(ut.grad.numpy(), ref, rtol=1e-12)


def test_gradcheck_contiguous_and_strided():
    assert gradcheck(laplace, (f64(RNG.normal(size=6)),))
    strided = f64(RNG.normal(size=12), grad=False)[::2].requires_grad_()
    assert gradcheck(laplace, (strided,))
    x, y = f64(RNG.normal(size=(2, 3))), f64(RNG.normal(size=(2, 3)))
    assert gradcheck(lambda x, y: axpy(x, y, 0.7), (x, y))
    assert gradcheck(lambda x, y: axpy(x.t(), y.t(), -1.5), (f64(RNG.normal(size=(3, 2))),
                                                             f64(RNG.normal(size=(3, 2)))))


def test_numbers_dtypes_and_no_grad():
    x = nbgrad.tensor(RNG.normal(size=(2, 2)).astype(np.float32))
    y = nbgrad.tensor(RNG.normal(size=(2, 2)).astype(np.float32))
    out = axpy(x, y, 2.0)
    assert out.dtype is nbgrad.float32 and out.grad_fn is None
    np.testing.assert_allclose(out.numpy(), x.numpy() + 2 * y.numpy() ** 2, rtol=1e-6)
    xg = f64(RNG.normal(size=(2, 2)))
    with nbgrad.no_grad():
        assert axpy(xg, xg, 1.0).grad_fn is None


def test_output_shapes_and_dtypes():
    @numba.njit
    def rowsum(x, out):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                out[i] += x[i, j]

    @numba.njit
    def rowsum_bwd(grad, x, out, gx):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                gx[i, j] = grad[i]

    op = nbgrad.custom_op("rowsum", rowsum, rowsum_bwd, output=lambda s: (s[0],))
    x = f64(RNG.normal(size=(3, 4)))
    r = op(x)
    assert r.shape == (3,)
    np.testing.assert_allclose(r.detach().numpy(), x.detach().numpy().sum(1))
    assert gradcheck(op, (x,))

    @numba.njit
    def argmax_fwd(x, out):
        out[0] = np.argmax(x)
    am = nbgrad.custom_op("argmax1", argmax_fwd, output=lambda s: ((1,), nbgrad.int64))
    res = am(f64([1.0, 5.0, 2.0]))
    assert res.dtype is nbgrad.int64 and res.tolist() == [1] and not res.requires_grad


def test_contiguous_only_when_declared():
    seen = []

    def probe(x, out):                     # a plain Python kernel: it sees the arrays given
        seen.append((x.flags.c_contiguous, x.strides))
        out[...] = x

    t = nbgrad.arange(12.0).reshape(3, 4).t()
    nbgrad.custom_op("probe", probe)(t)
    assert seen[-1] == (False, (8 // 2, 16))
    nbgrad.custom_op("probe_c", probe, contiguous=True)(t)
    assert seen[-1] == (True, (12, 4))

    shared = []

    def alias(x, out):
        shared.append(np.shares_memory(x, t.numpy()))
    nbgrad.custom_op("alias", alias)(t)
    assert shared == [True]                # no copy: the kernel reads the tensor's memory


def test_version_counter_errors():
    x = f64(RNG.normal(size=5))
    h = x * 1
    y = laplace(h)
    h.mul_(2)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[nbgrad.DoubleTensor \[5\]\], "
                                           r"which is output 0 of Mul, is at version 1; expected version 0"):
        y.sum().backward()
    z = laplace(x * 1)
    z.add_(1)                              # the saved result changed
    with pytest.raises(RuntimeError, match="output 0 of Laplace, is at version 1; expected version 0"):
        z.sum().backward()


def test_create_graph_needs_a_composite_backward():
    u = f64(RNG.normal(size=5))
    with pytest.raises(RuntimeError, match=r"custom op 'laplace': .*create_graph=True needs a composite_backward="):
        nbgrad.autograd.grad(laplace(u).sum(), u, create_graph=True)

    @numba.njit
    def cube_fwd(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] ** 3

    @numba.njit
    def cube_bwd(grad, x, out, gx):
        for i in range(x.shape[0]):
            gx[i] = 3 * x[i] * x[i] * grad[i]

    cube = nbgrad.custom_op("cube", cube_fwd, cube_bwd,
                            composite_backward=lambda g, x, out: (g * 3 * x * x,))
    x = f64(RNG.normal(size=4))
    (g,) = nbgrad.autograd.grad(cube(x).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    (gg,) = nbgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy(), rtol=1e-12)
    assert gradcheck(cube, (x,)) and gradgradcheck(cube, (x,))
    # a composite backward alone serves plain backward too
    composite_only = nbgrad.custom_op("cube2", cube_fwd, composite_backward=lambda g, x, out: g * 3 * x * x)
    assert gradcheck(composite_only, (x,))


def test_no_backward_raises_on_backward():
    op = nbgrad.custom_op("fwd_only", laplace_fwd)
    y = op(f64(RNG.normal(size=4)))
    assert type(y.grad_fn).__name__ == "FwdOnlyBackward"
    with pytest.raises(RuntimeError, match="custom op 'fwd_only' has no backward for cpu tensors"):
        y.sum().backward()


def test_errors_name_the_op_and_change_nothing():
    x, y = f64(RNG.normal(size=(2, 3))), f64(RNG.normal(size=(3, 2)))
    with pytest.raises(ValueError, match=r"custom op 'axpy_square': x and y must have one shape"):
        axpy(x, y, 1.0)
    with pytest.raises(TypeError, match=r"custom op 'axpy_square': argument 0 has dtype nbgrad.int64, expected one of"):
        axpy(nbgrad.ones(2, 2, dtype=nbgrad.int64), nbgrad.ones(2, 2, dtype=nbgrad.int64), 1.0)
    with pytest.raises(TypeError, match="custom op 'axpy_square': argument 2 must be a tensor or a Python number"):
        axpy(x, x, "1")
    with pytest.raises(ValueError, match=r"custom op 'bad_out': output= returned 'abc'"):
        nbgrad.custom_op("bad_out", laplace_fwd, output=lambda s: "abc")(x)

    @numba.njit("void(float64[:], float64[:])")
    def typed(x, out):
        out[:] = x
    with pytest.raises(TypeError, match=r"custom op 'typed': the forward kernel does not accept the arguments "
                                        r"\(nbgrad.float32 tensor of shape \(3,\)\)"):
        nbgrad.custom_op("typed", typed)(nbgrad.ones(3))

    @numba.njit
    def checked(x, out):
        for i in range(x.shape[0]):
            if x[i] < 0:
                raise ValueError("negative input")
            out[i] = np.sqrt(x[i])
    before = x.detach().numpy().copy()
    with pytest.raises(RuntimeError, match="custom op 'checked': the forward kernel raised ValueError: negative input"):
        nbgrad.custom_op("checked", checked)(nbgrad.tensor([1.0, -1.0]))
    np.testing.assert_array_equal(x.detach().numpy(), before)

    def raising_backward(grad, u, out, gu):
        raise FloatingPointError("boom")
    op = nbgrad.custom_op("bad_bwd", laplace_fwd, raising_backward)
    with pytest.raises(RuntimeError, match="custom op 'bad_bwd': the backward kernel raised FloatingPointError: boom"):
        op(f64(RNG.normal(size=4))).sum().backward()

    bad = nbgrad.custom_op("bad_composite", laplace_fwd, composite_backward=lambda g, u, out: (g, g))
    with pytest.raises(RuntimeError, match="custom op 'bad_composite': composite_backward returned 2 gradients "
                                           "for 1 arguments"):
        bad(f64(RNG.normal(size=4))).sum().backward()
    wrong = nbgrad.custom_op("wrong_shape", laplace_fwd, composite_backward=lambda g, u, out: g[:2])
    with pytest.raises(RuntimeError, match=r"Function WrongShapeBackward returned an invalid gradient at index 0 - "
                                           r"got \[2\] but expected shape compatible with \[4\]"):
        wrong(f64(RNG.normal(size=4))).sum().backward()
