"""Gradients (first and second order) that must equal PyTorch 2.13's.

Expected values were recorded by running PyTorch 2.13; float64 finite differences
(gradcheck / gradgradcheck) cover the rest."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad import autograd
from nbgrad.autograd.gradcheck import gradcheck, gradgradcheck


def f64(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return nbgrad.tensor(rng.standard_normal(shape), dtype=nbgrad.float64, requires_grad=True)


def grad_of(x):
    return x.grad.tolist()


# -- 1. windowing views of an input that overlaps itself (expanded, 0 strides) -----------
# Their backward works in the input's logical index space, not in storage.

def test_narrow_of_expanded_counts_each_element_once():
    x = nbgrad.tensor([[[1.]]], requires_grad=True)
    x.expand(1, 4, 1, -1).narrow(2, 0, 1).sum().backward()
    assert grad_of(x) == [[[4.0]]]          # PyTorch: 4 (was 16)


@pytest.mark.parametrize("view, expected", [
    (lambda y: y.select(1, 0), [[[1.0]]]),
    (lambda y: y[:, 1:3], [[[2.0]]]),
    (lambda y: y[0, ::2, 0], [[[2.0]]]),
    (lambda y: y.narrow(1, 1, 3).narrow(1, 0, 2), [[[2.0]]]),
    (lambda y: y.split(3, dim=1)[0], [[[3.0]]]),
    (lambda y: y.chunk(2, dim=1)[1], [[[2.0]]]),
    (lambda y: y.unbind(1)[2], [[[1.0]]]),
    (lambda y: y.tensor_split(3, dim=1)[0], [[[2.0]]]),
])
def test_windows_of_expanded(view, expected):
    x = nbgrad.tensor([[[1.]]], requires_grad=True)
    view(x.expand(1, 4, 1, -1)).sum().backward()
    assert grad_of(x) == expected


def test_squared_windows_of_expanded():
    # the repro's shape of program: expand, window, square, sum(dim), cat
    x = nbgrad.tensor([[[2.]]], requires_grad=True)
    y = x.expand(1, 4, 1, 3)
    a = y.narrow(1, 0, 2) ** 2
    b = y.select(3, 1) ** 2
    out = nbgrad.cat([a.sum(dim=1).reshape(-1), b.reshape(-1)]).sum()
    out.backward()
    # d/dx (6 x^2 + 4 x^2) = 20 x
    assert grad_of(x) == [[[40.0]]]


def test_diagonal_and_unbind_of_expanded():
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    y = x.expand(3, 2)
    assert autograd.grad(y.diagonal().sum(), x)[0].tolist() == [1.0, 1.0]
    a, b, c = y.unbind(0)
    assert autograd.grad((a * 1 + b * 2).sum(), x)[0].tolist() == [3.0, 3.0]


def test_as_strided_of_expanded_shares_storage_gradient():
    # PyTorch's as_strided_backward divides by how many input elements share a location
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    y = x.expand(3, 2)
    assert autograd.grad(y.as_strided((2,), (1,)).sum(), x)[0].tolist() == [1.0, 1.0]


def test_windows_of_expanded_gradcheck_first_and_second_order():
    x = f64(2, 1, 3)
    fns = [
        lambda t: (t.expand(2, 4, 3).narrow(1, 1, 2) ** 2).sum(dim=1),
        lambda t: t.expand(2, 4, 3)[:, ::2, 1:] ** 3,
        lambda t: t.expand(3, 2, 4, 3).diagonal(0, 1, 2) ** 2,
        lambda t: nbgrad.stack([u ** 2 for u in t.expand(2, 3, 3).unbind(1)]),
        lambda t: t.expand(2, 2, 3).transpose(0, 1).select(0, 1) ** 2,
    ]
    for fn in fns:
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_inplace_on_window_of_a_view_chain():
    # CopySlices on a base written through a narrowed view of an expanded tensor's row
    x = nbgrad.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    z = y.expand(2, 3)[0]                   # a 1-D window, no internal overlap
    z[1:].mul_(2)
    y.sum().backward()
    assert grad_of(x) == [1.0, 2.0, 2.0]


# -- 3. second order ------------------------------------------------------------------------

def test_prod_with_zeros_is_twice_differentiable():
    x = nbgrad.tensor([[1., 1.], [2., 1.]], requires_grad=True)
    g, = autograd.grad(nbgrad.log(x).prod(dim=1).sum(), [x], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, 1.0], [0.5, -0.1931472]], rtol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda t: t.prod(1), lambda t: t.prod(), lambda t: t.prod(0), lambda t: t.prod(1, keepdim=True),
    lambda t: t.prod(-1) * t.sum(),
])
def test_prod_gradgradcheck_with_zeros(fn):
    x = nbgrad.tensor([[0., 1., 2., 3., 0.5], [2., 1., 0., -1., -2.], [0., 0., 1.5, 2., 1.]],
                      dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_prod_first_order_values_with_zeros():
    x = nbgrad.tensor([[0., 2., 3.], [0., 0., 4.], [1., 2., 3.]], requires_grad=True)
    x.prod(1).sum().backward()
    assert grad_of(x) == [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]
    y = nbgrad.tensor([0., 2., 3.], requires_grad=True)
    y.prod().backward()
    assert grad_of(y) == [6.0, 0.0, 0.0]


def test_div_second_order_at_zero_divisor_is_inf():
    a = nbgrad.tensor([1., 2.], requires_grad=True)
    b = nbgrad.tensor([0., 1.], requires_grad=True)
    g, = autograd.grad((a / b).sum(), [b], create_graph=True)
    assert g.tolist() == [-math.inf, -2.0]
    g.sum().backward()
    assert grad_of(a) == [-math.inf, -1.0]
    assert grad_of(b) == [math.inf, 4.0]         # was nan


def test_relu_backward_is_recorded_under_create_graph():
    x = nbgrad.tensor([1., -1.], requires_grad=True)
    g, = autograd.grad(x.relu().sum(), [x], create_graph=True)
    assert g.requires_grad
    assert g.grad_fn.name() == "ThresholdBackwardBackward0"
    g.sum().backward()
    assert grad_of(x) == [0.0, 0.0]


def test_relu_inplace_on_view_second_order_reaches_leaf_with_zeros():
    w = nbgrad.tensor([1., -2., 3.], requires_grad=True)
    v = w[nbgrad.tensor([-1, -1, -1, -1])] * 1
    v.view(-1).relu_()
    g, = autograd.grad(v.sum(), [w], create_graph=True)
    assert g.tolist() == [0.0, 0.0, 4.0]
    g.sum().backward()
    assert grad_of(w) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("op, name", [("tanh", "TanhBackwardBackward0"), ("sigmoid", "SigmoidBackwardBackward0"),
                                      ("relu", "ThresholdBackwardBackward0")])
def test_fused_backward_ops_record_their_own_node(op, name):
    x = nbgrad.tensor([0.5, -0.25, 0.3], requires_grad=True)
    g, = autograd.grad(getattr(x, op)().sum(), [x], create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == name
    x2 = nbgrad.tensor([[0.5, -0.25, 0.3], [1.5, -2.0, 0.7]], dtype=nbgrad.float64, requires_grad=True)
    assert gradgradcheck(lambda t: getattr(t, op)(), (x2,))


def test_tanh_sigmoid_second_order_values():
    # recorded from PyTorch 2.13
    x = nbgrad.tensor([0.5, -0.25, 0.3], requires_grad=True)
    g, = autograd.grad(x.tanh().sum(), [x], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.7269, 0.4605, -0.5332], atol=1e-4)
    x = nbgrad.tensor([0.5, -0.25, 0.3], requires_grad=True)
    g, = autograd.grad(x.sigmoid().sum(), [x], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.0576, 0.0306, -0.0364], atol=1e-4)


def test_relu_gradient_at_nan_passes_through():
    # PyTorch's threshold_backward zeroes only where x <= 0
    x = nbgrad.tensor([math.nan, -1., 0., 2.], requires_grad=True)
    x.relu().sum().backward()
    assert grad_of(x) == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("fn", [
    lambda x: x.sign(), lambda x: x.floor(), lambda x: x.ceil(), lambda x: x.round(), lambda x: x.trunc(),
    lambda x: x.pow(0), lambda x: (x * 1).fill_(2.), lambda x: (x * 1).zero_(),
    lambda x: (x * 1).copy_(nbgrad.ones(3)),
])
def test_zero_derivatives_are_not_recorded(fn):
    # PyTorch's zeros_like(grad): not connected to grad's history, so the leaf behind
    # grad_outputs gets no .grad (nbgrad recorded g * 0 and gave it zeros)
    x = nbgrad.tensor([0.5, -0.25, 0.3], requires_grad=True)
    y = fn(x)
    v = nbgrad.ones(y.shape).requires_grad_()
    g, = autograd.grad(y, [x], v, create_graph=True)
    assert not g.requires_grad
    assert g.tolist() == [0.0, 0.0, 0.0]


def test_zero_derivative_ignores_inf_upstream():
    x = nbgrad.tensor([0.5, 1.5], requires_grad=True)
    y = x.floor()
    (y * nbgrad.tensor([math.inf, 1.])).sum().backward()
    assert grad_of(x) == [0.0, 0.0]                 # PyTorch: zeros, not inf * 0 = nan


# -- 2. first order at the edges: PyTorch's masked formulas, not nan ---------------------------

def g1(fn, *values):
    xs = [nbgrad.tensor(v, requires_grad=True) for v in values]
    fn(*xs).sum().backward()
    return [x.grad.tolist() for x in xs]


def test_std_of_constant_has_zero_gradient():
    assert g1(lambda x: x.std(), [2., 2., 2.]) == [[0.0, 0.0, 0.0]]
    assert g1(lambda x: x.std(correction=0), [2.]) == [[0.0]]
    np.testing.assert_allclose(g1(lambda x: x.std(1), [[2., 2.], [1., 3.]])[0],
                               [[0.0, 0.0], [-0.70710678, 0.70710678]], rtol=1e-6)


def test_var_without_degrees_of_freedom():
    # PyTorch: nan where x equals its mean, inf elsewhere (no ZeroDivisionError)
    got = g1(lambda x: x.var(), [2.])[0]
    assert math.isnan(got[0])
    assert g1(lambda x: x.var(correction=3), [2., 3.]) == [[math.inf, math.inf]]
    got = g1(lambda x: x.var(1), [[2.], [3.]])[0]
    assert all(math.isnan(v[0]) for v in got)


def test_pow_tensor_exponent_at_zero_base():
    x = nbgrad.tensor([0., 0., 0.], requires_grad=True)
    y = nbgrad.tensor([0., 1., -1.], requires_grad=True)
    nbgrad.pow(x, y).sum().backward()
    assert grad_of(x) == [0.0, 1.0, -math.inf]
    assert grad_of(y) == [0.0, 0.0, -math.inf]


def test_pow_python_base_zero_and_negative():
    assert g1(lambda y: nbgrad.pow(0.0, y), [0., 1., -1.]) == [[0.0, 0.0, -math.inf]]
    got = g1(lambda y: nbgrad.pow(-2.0, y), [0., 1., 2.])[0]
    assert all(math.isnan(v) for v in got)
    np.testing.assert_allclose(g1(lambda y: nbgrad.pow(2.0, y), [0., 1.])[0], [math.log(2), 2 * math.log(2)])


@pytest.mark.parametrize("op", ["max", "min"])
def test_full_max_min_gradient_goes_to_nan(op):
    assert g1(lambda x: getattr(x, op)(), [1., math.nan, 2.]) == [[0.0, 1.0, 0.0]]
    assert g1(lambda x: getattr(x, op)(), [math.nan, math.nan, 2.]) == [[0.5, 0.5, 0.0]]
    assert g1(lambda x: getattr(x, op)(), [2., 2., 1.] if op == "max" else [1., 1., 2.]) == [[0.5, 0.5, 0.0]]


def test_maximum_minimum_with_nan_give_both_inputs_the_gradient():
    a, b = [1., math.nan, 2., 1.], [math.nan, 1., 2., 0.]
    assert g1(nbgrad.maximum, a, b) == [[1.0, 1.0, 0.5, 1.0], [1.0, 1.0, 0.5, 0.0]]
    assert g1(nbgrad.minimum, a, b) == [[1.0, 1.0, 0.5, 0.0], [1.0, 1.0, 0.5, 1.0]]


def test_norm_edges():
    assert g1(lambda x: x.norm(), [0., 0.]) == [[0.0, 0.0]]
    assert g1(lambda x: x.norm(0.5), [0., 1.]) == [[0.0, 1.0]]
    assert g1(lambda x: x.norm(3), [0., 0.]) == [[0.0, 0.0]]
    # the NaN is the max (PyTorch's mask), and its sign() is 0: PyTorch gives [0, 0, -0]
    assert g1(lambda x: x.norm(float("inf")), [1., math.nan, -2.]) == [[0.0, 0.0, 0.0]]
    np.testing.assert_allclose(g1(lambda x: x.norm(1.5, dim=0), [[0., -1.], [0., 2.]])[0],
                               [[0.0, -0.6392], [0.0, 0.9040]], atol=1e-4)


def test_clamp_with_min_above_max_gives_max_the_gradient():
    got = g1(lambda x, lo, hi: x.clamp(lo, hi), [0., 1., 2., 3.], [0.5, 0.5, 2.5, 0.5], [2.5, 2.5, 1., 2.5])
    assert got == [[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]


def test_edge_formulas_gradgradcheck():
    x = nbgrad.tensor([[1., 2., 4.], [2., -1., 0.5]], dtype=nbgrad.float64, requires_grad=True)
    for fn in [lambda t: t.std(), lambda t: t.std(1), lambda t: t.var(0), lambda t: t.norm(3),
               lambda t: t.norm(1.5, dim=1), lambda t: t.norm(0.5), lambda t: t.max() * t.sum()]:
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    y = nbgrad.tensor([[1.5, 3., 0.5]], dtype=nbgrad.float64, requires_grad=True)
    e = nbgrad.tensor([[2., 0.5, -1.]], dtype=nbgrad.float64, requires_grad=True)
    assert gradgradcheck(nbgrad.pow, (y, e))
    assert gradgradcheck(lambda t: nbgrad.pow(2.0, t), (e,))


# -- rounding divisions: piecewise constant, zero gradients, differentiable backward ----------

@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_rounding_mode_has_zero_gradients(mode):
    a = nbgrad.tensor([1.5, 2.], requires_grad=True)
    b = nbgrad.tensor([0.5, 0.7], requires_grad=True)
    y = nbgrad.div(a, b, rounding_mode=mode)
    assert y.grad_fn.name() == "DivBackward2"
    y.sum().backward()
    assert grad_of(a) == [0.0, 0.0] and grad_of(b) == [0.0, 0.0]
    c = nbgrad.tensor([1.5, 2.], requires_grad=True)
    nbgrad.div(c, 2, rounding_mode=mode).sum().backward()
    assert grad_of(c) == [0.0, 0.0]


def test_floor_divide_derivative_not_implemented_message():
    a = nbgrad.tensor([1.5, 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        (a // 2).sum().backward()


def test_remainder_is_twice_differentiable():
    # RemainderBackward1 used floor_divide (NotImplemented) for the divisor's gradient
    x = nbgrad.tensor([[0.5, -1.5, 2.0]], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor([[2.0, 1.5, 1.25]], dtype=nbgrad.float64, requires_grad=True)
    v = nbgrad.full((1, 3), 0.5, dtype=nbgrad.float64, requires_grad=True)
    gx, gy = autograd.grad(x.remainder(y), [x, y], v, create_graph=True)
    assert gx.tolist() == [[0.5, 0.5, 0.5]] and gy.tolist() == [[-0.0, 0.5, -0.5]]
    (gx * 1.5 + gy * 2.5).sum().backward()
    assert grad_of(x) == [[0.0, 0.0, 0.0]] and grad_of(y) == [[0.0, 0.0, 0.0]]
    assert grad_of(v) == [[1.5, 4.0, -1.0]]


# -- .grad of a leaf under create_graph: a copy with the leaf's strides (PyTorch's
#    clone_obey_contract), recorded as CopyBackwards when the gradient requires grad ---------

def test_create_graph_grad_is_not_an_expanded_view():
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    x.sum().backward(create_graph=True)
    assert x.grad.stride() == (1,) and not x.grad.requires_grad and x.grad.grad_fn is None
    x.sum().backward(create_graph=True)
    assert grad_of(x) == [2.0, 2.0]


def test_create_graph_grad_is_not_the_callers_tensor():
    v = nbgrad.tensor([3., 4.], requires_grad=True)
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    (x + 0).backward(v, create_graph=True)
    assert x.grad is not v
    assert x.grad.requires_grad and x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    x.grad.sum().backward()
    assert grad_of(v) == [1.0, 1.0]


def test_create_graph_grad_keeps_leaf_strides():
    w = nbgrad.ones(2, 3, requires_grad=True)
    w.t().sum().backward(create_graph=True)
    assert w.grad.stride() == (3, 1)


# -- the same mechanisms on the CUDA backend (simulator or GPU), when it loads -----------------

def _cuda_unusable():
    try:
        from nbgrad.backends import get_backend
        get_backend("cuda")
    except RuntimeError as exc:
        return str(exc)
    return None


@pytest.mark.skipif(_cuda_unusable() is not None, reason="CUDA backend unusable")
def test_cuda_windows_of_expanded_and_recorded_relu_backward():
    x = nbgrad.tensor([[[1.]]], device="cuda", requires_grad=True)
    x.expand(1, 4, 1, -1).narrow(2, 0, 1).sum().backward()
    assert x.grad.tolist() == [[[4.0]]]
    y = nbgrad.tensor([1., 2.], device="cuda", requires_grad=True)
    assert autograd.grad(y.expand(3, 2).as_strided((2,), (1,)).sum(), y)[0].tolist() == [1.0, 1.0]
    z = nbgrad.tensor([1., -1., math.nan], device="cuda", requires_grad=True)
    g, = autograd.grad(z.relu().sum(), [z], create_graph=True)
    assert g.requires_grad and g.tolist() == [1.0, 0.0, 1.0]
    g.sum().backward()
    assert z.grad.tolist() == [0.0, 0.0, 0.0]


def test_atan2_gradient_at_origin_is_zero():
    x = nbgrad.tensor([0., 0., 1e-200, 0.5], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor([0., 1e-200, 0., 2.], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.atan2(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 0.0, 2 / 4.25])     # was nan / inf
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.0, 0.0, -0.5 / 4.25])
    a = nbgrad.tensor([0.5, -1.], dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.tensor([2., 0.3], dtype=nbgrad.float64, requires_grad=True)
    assert gradgradcheck(nbgrad.atan2, (a, b))


@pytest.mark.parametrize("op, name", [("softmax", "SoftmaxBackwardDataBackward0"),
                                      ("log_softmax", "LogSoftmaxBackwardDataBackward0")])
def test_softmax_backward_is_one_recorded_op(op, name):
    x = nbgrad.tensor([[0.5, -1., 2.], [0.1, 0.2, -3.]], dtype=nbgrad.float64, requires_grad=True)
    w = nbgrad.tensor([[1., 2., 3.], [-1., 0.5, 2.]], dtype=nbgrad.float64)
    g, = autograd.grad((getattr(x, op)(1) * w).sum(), [x], create_graph=True)
    assert g.grad_fn.name() == name
    for dim in (0, 1, -1):
        assert gradgradcheck(lambda t: getattr(t, op)(dim) * w, (x,))


def test_as_strided_of_expanded_second_order():
    x = nbgrad.tensor([1.5, -2.], dtype=nbgrad.float64, requires_grad=True)
    fn = lambda t: t.expand(3, 2).as_strided((2, 2), (1, 0)) ** 3
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


@pytest.mark.parametrize("fn, name", [
    (lambda t: t.select(1, 0), "SelectBackwardBackward0"),
    (lambda t: t[:, 1:], "SliceBackwardBackward0"),
    (lambda t: t.diagonal(), "DiagonalBackwardBackward0"),
    (lambda t: t.as_strided((2,), (1,)), "AsStridedBackward0"),
    (lambda t: t.unbind(0)[1], "StackBackward0"),
    (lambda t: t.split(1, 1)[2], "CatBackward0"),
])
def test_window_double_backward_names(fn, name):
    x = nbgrad.tensor([[0.5, -1., 2.], [0.1, 0.2, -3.]], requires_grad=True)
    v = nbgrad.ones(fn(x).shape, requires_grad=True)
    g, = autograd.grad(fn(x), [x], v, create_graph=True)
    assert g.grad_fn.name() == name


def test_masked_fill_node_names_and_double_backward():
    x = nbgrad.tensor([0.5, 1.5, -2.], requires_grad=True)
    mask = nbgrad.tensor([True, False, True])
    assert x.masked_fill(mask, nbgrad.tensor(2.)).grad_fn.name() == "MaskedFillBackward1"
    y = x.masked_fill(mask, 2.)
    assert y.grad_fn.name() == "MaskedFillBackward0"
    v = nbgrad.ones(3, requires_grad=True)
    g, = autograd.grad(y, [x], v, create_graph=True)
    assert g.grad_fn.name() == "MaskedFillBackward0" and g.tolist() == [0.0, 1.0, 0.0]
    w = nbgrad.tensor([[1., 3., 3.], [2., 0., 2.]], requires_grad=True)
    g, = autograd.grad(w.amax(1).sum(), [w], create_graph=True)
    assert g.tolist() == [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_backward_is_one_recorded_op(reduction):
    F = nbgrad.nn.functional
    x = nbgrad.tensor([[0.5, -1., 2.], [0.1, 0.2, -3.]], dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor([[1., 2., 3.], [-1., 0.5, 2.]], dtype=nbgrad.float64, requires_grad=True)
    gx, gy = autograd.grad(F.mse_loss(x, y, reduction=reduction).sum(), [x, y], create_graph=True)
    assert gx.grad_fn.name() == gy.grad_fn.name() == "MseLossBackwardBackward0"
    fn = lambda a, b: F.mse_loss(a, b, reduction=reduction) ** 2
    assert gradgradcheck(fn, (x, y))


def test_descending_sort_is_stable_so_ties_get_the_gradient_as_in_pytorch():
    x = nbgrad.tensor([1., 1., 0.], requires_grad=True)
    values, indices = x.sort(descending=True)
    assert indices.tolist() == [0, 1, 2]                   # was [1, 0, 2] on the CPU
    (values * nbgrad.tensor([1., 2., 3.])).sum().backward()
    assert grad_of(x) == [1.0, 2.0, 3.0]
    y = nbgrad.tensor([math.nan, 1., math.nan, 1., 2.])
    assert y.sort(descending=True).indices.tolist() == [0, 2, 4, 1, 3]
    assert nbgrad.tensor([True, False, True]).sort(descending=True).indices.tolist() == [0, 2, 1]
    assert nbgrad.tensor([[1., 1.], [1., 0.]]).topk(1, 0).indices.tolist() == [[0, 0]]


@pytest.mark.parametrize("value", [0.1, 0.7, 1 / 3])
def test_std_of_constant_float64_row_is_exactly_zero(value):
    # sum / n rounds off the value for these: var was ~1e-33, std's gradient O(1)
    x = nbgrad.tensor([[value] * 3, [1., 2., 4.]], dtype=nbgrad.float64, requires_grad=True)
    s = x.std(1)
    assert s[0].item() == 0.0
    (s * nbgrad.tensor([1., 0.], dtype=nbgrad.float64)).sum().backward()
    assert grad_of(x) == [[0.0] * 3, [0.0] * 3]


def test_masked_fill_out_of_place_broadcasts_self_with_the_mask():
    x = nbgrad.ones(1, 1, requires_grad=True)
    mask = nbgrad.tensor([[True, False, True]])
    y = x.masked_fill(mask, 0.5)
    assert y.tolist() == [[0.5, 1.0, 0.5]]
    y.sum().backward()
    assert grad_of(x) == [[1.0]]
    with pytest.raises(RuntimeError, match=r"output with shape \[1, 1\] doesn't match the broadcast shape \[1, 3\]"):
        nbgrad.ones(1, 1).masked_fill_(mask, 0.5)
