"""The activations of issue 14 beyond test_optable's REFERENCE rows: their in-place forms,
per-channel prelu, rrelu in training, glu, the nn modules' reprs and parameters, the
result layouts and PyTorch's errors (all values recorded from PyTorch 2.13)."""
import math

import numpy as np
import pytest

import nbgrad as T
import nbgrad.nn as nn
import nbgrad.nn.functional as F

from nn._cuda import requires_cuda  # (tests/nn is a package; tests/ is on the path)


# recorded from PyTorch 2.13: x = [0.1, 0.3, -1.0, 2.0] (float64) times 1, the activation
# in place, backward with [1, 2, 3, 4]: (node, values, x.grad)
IN_PLACE = {
    "selu_": (lambda v: F.selu(v, inplace=True), "EluBackward1",
              [0.105070098736, 0.315210296207, -1.111330737813, 2.101401974711],
              [1.050700987355, 2.101401974711, 1.940305809104, 4.202803949422]),
    "celu_": (lambda v: F.celu(v, 0.5, inplace=True), "CeluBackward1",
              [0.1, 0.3, -0.432332358382, 2.0], [1.0, 2.0, 0.40600584971, 4.0]),
    "threshold_": (lambda v: F.threshold(v, 0.2, 0.5, inplace=True), "ThresholdBackward1",
                   [0.5, 0.3, 0.5, 2.0], [0.0, 2.0, 0.0, 4.0]),     # differentiated at the OLD x
    "hardswish_": (lambda v: F.hardswish(v, inplace=True), "HardswishBackward0",
                   [0.051666666667, 0.165, -0.333333333333, 1.666666666667],
                   [0.533333333333, 1.2, 0.5, 4.666666666667]),
    "hardsigmoid_": (lambda v: F.hardsigmoid(v, inplace=True), "HardsigmoidBackward0",
                     [0.516666666667, 0.55, 0.333333333333, 0.833333333333],
                     [0.166666671634, 0.333333343267, 0.500000014901, 0.666666686535]),
    "rrelu_": (lambda v: F.rrelu(v, inplace=True), "RreluWithNoiseBackward1",
               [0.1, 0.3, -0.229166666667, 2.0], [1.0, 2.0, 0.6875, 4.0]),
    "selu_fn": (F.selu_, "EluBackward1", [0.105070098736, 0.315210296207, -1.111330737813, 2.101401974711],
                [1.050700987355, 2.101401974711, 1.940305809104, 4.202803949422]),
    "celu_fn": (lambda v: F.celu_(v, 0.5), "CeluBackward1",
                [0.1, 0.3, -0.432332358382, 2.0], [1.0, 2.0, 0.40600584971, 4.0]),
    "threshold_fn": (lambda v: F.threshold_(v, 0.2, 0.5), "ThresholdBackward1", [0.5, 0.3, 0.5, 2.0],
                     [0.0, 2.0, 0.0, 4.0]),
    "rrelu_fn": (F.rrelu_, "RreluWithNoiseBackward1", [0.1, 0.3, -0.229166666667, 2.0], [1.0, 2.0, 0.6875, 4.0]),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_forms_write_bump_the_version_and_differentiate_as_pytorch(name):
    fn, node, values, grad = IN_PLACE[name]
    x = T.tensor([0.1, 0.3, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    v = x * 1
    version = v._version
    y = fn(v)
    assert y is v and v._version == version + 1
    assert y.grad_fn.name() == node
    y.backward(T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64))
    np.testing.assert_allclose(y.tolist(), values, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.grad.tolist(), grad, rtol=1e-10, atol=1e-12)


def test_in_place_celu_with_a_negative_alpha_refuses_its_backward():
    x = T.tensor([-1.0], requires_grad=True)
    y = F.celu(x * 1, -0.5, inplace=True)
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"):
        y.sum().backward()


def test_in_place_on_a_leaf_that_requires_grad_is_refused():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.hardswish(T.ones(2, requires_grad=True), inplace=True)


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_prelu_per_channel_weight_broadcasts_over_dim_1(dtype):
    # recorded from PyTorch 2.13 (float64); the weight's gradient is summed over the batch
    # and the trailing dims, through the reshape's ViewBackward0
    x = T.tensor([[[1.0, -2.0], [-0.5, 3.0], [-4.0, 0.0]], [[-1.0, 2.0], [0.5, -3.0], [4.0, -0.25]]],
                 dtype=dtype, requires_grad=True)
    w = T.tensor([0.25, -0.5, 0.1], dtype=dtype, requires_grad=True)
    y = F.prelu(x, w)
    assert y.grad_fn.name() == "PreluKernelBackward0" and y.dtype is dtype
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad", "ViewBackward0"]
    (y * T.arange(12, dtype=dtype).reshape(2, 3, 2)).sum().backward()
    tol = 1e-6 if dtype is T.float32 else 1e-14
    np.testing.assert_allclose(y.tolist(), [[[1.0, -0.5], [0.25, 3.0], [-0.4, 0.0]],
                                            [[-0.25, 2.0], [0.5, 1.5], [4.0, -0.025]]], rtol=tol)
    np.testing.assert_allclose(x.grad.tolist(), [[[0.0, 0.25], [-1.0, 3.0], [0.4, 0.5]],
                                                 [[1.5, 7.0], [8.0, -4.5], [10.0, 1.1]]], rtol=tol)
    np.testing.assert_allclose(w.grad.tolist(), [-8.0, -28.0, -18.75], rtol=tol)


def test_prelu_gradients_against_finite_differences():
    x = T.tensor([[0.7, -1.3, 2.1], [-0.4, 0.9, -2.2]], dtype=T.float64, requires_grad=True)
    w = T.tensor([0.3, -0.2, 0.6], dtype=T.float64, requires_grad=True)
    assert T.autograd.gradcheck(F.prelu, (x, w))
    assert T.autograd.gradgradcheck(F.prelu, (x, w))
    # recorded from PyTorch 2.13: d/dw of sum(grad_x * [1, 2, 3]) is 5 (x = [1, -2, -0.5])
    x = T.tensor([1.0, -2.0, -0.5], dtype=T.float64, requires_grad=True)
    w1 = T.tensor([0.3], dtype=T.float64, requires_grad=True)
    gx, _ = T.autograd.grad(F.prelu(x, w1).sum(), [x, w1], create_graph=True)
    assert T.autograd.grad((gx * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum(), [w1])[0].tolist() == [5.0]


def test_prelu_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="prelu: Type promoting not supported. Got Long and Float"):
        F.prelu(T.tensor([1, 2]), T.tensor([0.25]))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size. Found parameter "
                                           "numbers = 2 and channel size = 3."):
        F.prelu(T.ones(2, 3), T.ones(2))
    with pytest.raises(RuntimeError, match="Found parameter numbers = 3 and channel size = 1"):
        F.prelu(T.tensor([-1.0, -2.0, -3.0]), T.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"):
        F.prelu(T.ones(2, 3), T.ones(3, 1))
    with pytest.raises(RuntimeError, match="Not allow zero-dim input tensor."):
        F.prelu(T.tensor(-1.0), T.ones(3))
    assert F.prelu(T.tensor([-1.0, -2.0]), T.tensor(0.5)).tolist() == [-0.5, -1.0]
    assert F.prelu(T.tensor(-2.0), T.ones(1) * 0.5).item() == -1.0


def test_prelu_module_has_a_weight_parameter_of_num_parameters():
    m = nn.PReLU(3, init=0.1)
    assert repr(m) == "PReLU(num_parameters=3)" and list(m.state_dict()) == ["weight"]
    assert isinstance(m.weight, nn.Parameter) and np.allclose(m.weight.tolist(), [0.1] * 3)
    assert nn.PReLU().weight.shape == (1,) and nn.PReLU().weight.tolist() == [0.25]
    x = T.tensor([[-1.0, 2.0, -3.0]], requires_grad=True)
    m(x).sum().backward()
    np.testing.assert_allclose(m.weight.grad.tolist(), [-1.0, 0.0, -3.0])
    assert [n for n, _ in m.named_parameters()] == ["weight"]


def test_rrelu_in_training_draws_one_slope_per_negative_element():
    T.manual_seed(0)
    x = T.tensor([-1.0, -2.0, 3.0, -4.0, 0.0, 5.0] * 50, dtype=T.float64, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    y.sum().backward()
    slopes = x.grad.numpy()
    xs = x.detach().numpy()
    neg = xs <= 0
    assert ((slopes[neg] >= 0.1) & (slopes[neg] < 0.3)).all() and (slopes[~neg] == 1).all()
    assert len(np.unique(slopes[neg])) > 100                   # one draw per element
    np.testing.assert_allclose(y.detach().numpy(), xs * slopes)   # the gradient is the slope used
    g, = T.autograd.grad(F.rrelu(x, 0.1, 0.3, training=True).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "RreluWithNoiseBackwardBackward0"


def test_rrelu_in_training_in_place_and_the_module_follows_train_and_eval():
    x = T.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    v = x * 1
    y = F.rrelu(v, 0.2, 0.2 + 1e-3, training=True, inplace=True)
    assert y is v and y.grad_fn.name() == "RreluWithNoiseBackward1"
    y.sum().backward()
    assert x.grad.tolist()[1] == 1.0 and 0.2 <= x.grad.tolist()[0] < 0.201
    m = nn.RReLU(0.1, 0.3)
    m.eval()
    assert np.allclose(m(T.tensor([-2.0, 1.0])).tolist(), [-0.4, 1.0])
    m.train()
    out = m(T.tensor([-2.0] * 20)).numpy()
    assert ((out <= -0.2) & (out > -0.6)).all() and len(np.unique(out)) > 1
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(T.tensor([-1.0]), 0.5, 0.1)


def test_glu_halves_along_dim_and_its_errors():
    x = T.tensor([[1.0, -2.0, 0.5, 3.0]], dtype=T.float64, requires_grad=True)
    y = F.glu(x)
    assert y.grad_fn.name() == "GluBackward0" and y.shape == (1, 2)
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    # recorded from PyTorch 2.13
    np.testing.assert_allclose(g.tolist(), [[0.6224593312018546, 0.9525741268224334, 0.2350037122015945,
                                             -0.090353319461824]], rtol=1e-14)
    assert T.autograd.gradgradcheck(F.glu, (x,))
    assert F.glu(T.ones(2, 4, dtype=T.float64), 1).shape == (2, 2) and nn.GLU(0)(T.ones(4, 3)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        F.glu(T.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="glu does not support scalars because halving size must be even"):
        F.glu(T.tensor(1.0))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.glu(T.ones(2, 4), 2)
    with pytest.raises(NotImplementedError, match="\"glu_cpu\" not implemented for 'Long'"):
        F.glu(T.tensor([1, 2]))


@pytest.mark.parametrize("fn,kernel", [
    (F.hardswish, "hardswish_cpu"), (F.hardsigmoid, "hardsigmoid_cpu"), (F.selu, "elu_cpu"), (F.celu, "elu_cpu"),
    (F.logsigmoid, "log_sigmoid_cpu"), (F.softshrink, "softshrink_check"), (F.hardshrink, "hardshrink_cpu"),
    (F.rrelu, "leaky_relu_cpu")])
@pytest.mark.parametrize("dtype,shown", [(T.int64, "Long"), (T.bool, "Bool")])
def test_integer_and_bool_inputs_are_refused_with_pytorchs_kernel_names(fn, kernel, dtype, shown):
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'{shown}\''):
        fn(T.tensor([1, 0], dtype=dtype))


def test_rrelu_in_training_refuses_integers_with_its_kernels_name():
    for dtype, shown in [(T.int64, "Long"), (T.bool, "Bool")]:
        with pytest.raises(NotImplementedError, match=f"\"rrelu_with_noise_out_cpu\" not implemented for '{shown}'"):
            F.rrelu(T.tensor([1, 0], dtype=dtype), training=True)


def test_threshold_keeps_integers_and_refuses_bool():
    out = F.threshold(T.tensor([1, 5, -3]), 2, 10)
    assert out.dtype is T.int64 and out.tolist() == [10, 5, 10]
    with pytest.raises(NotImplementedError, match="\"threshold_cpu\" not implemented for 'Bool'"):
        F.threshold(T.tensor([True]), 0, 1)


def test_argument_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, "
                                           "but found -0.5"):
        F.softshrink(T.tensor([1.0]), -0.5)
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 1.79769e\+308\] for input dtype Double, "
                                           "but found -1"):
        F.softshrink(T.tensor([1.0], dtype=T.float64), -1)
    assert F.hardshrink(T.tensor([1.0]), -0.5).tolist() == [1.0]          # no check in PyTorch
    with pytest.raises(RuntimeError, match="ZeroDivisionError: alpha cannot be 0 for CELU"):
        F.celu(T.tensor([1.0, -1.0]), 0.0)


def test_hardsigmoid_has_no_second_derivative_as_in_pytorch():
    x = T.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
        T.autograd.grad(g.sum(), x)


@pytest.mark.parametrize("src,node", [
    ("F.hardswish(x)", "HardswishBackwardBackward0"), ("F.selu(x)", "EluBackwardBackward0"),
    ("F.celu(x, 0.7)", "EluBackwardBackward0"), ("F.logsigmoid(x)", "LogSigmoidBackwardBackward0"),
    ("F.softshrink(x, 0.5)", "SoftshrinkBackwardBackward0"), ("F.hardshrink(x, 0.5)", "HardshrinkBackwardBackward0"),
    ("F.threshold(x, 0.2, -1.0)", "ThresholdBackwardBackward0"), ("F.rrelu(x)", "RreluWithNoiseBackwardBackward0")])
def test_create_graph_records_pytorchs_backward_nodes(src, node):
    x = T.tensor([-2.5, -0.7, -0.1, 0.0, 0.3, 1.1, 4.0], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(eval(src, {"F": F, "x": x}).sum(), x, create_graph=True)
    assert g.grad_fn.name() == node


def test_nan_and_signed_zeros_as_pytorch():
    # recorded from PyTorch 2.13 at [nan, -0.0, 0.0, 0.5, -0.5, 3.0, -3.0]
    v = [math.nan, -0.0, 0.0, 0.5, -0.5, 3.0, -3.0]
    cases = {
        "softshrink": (lambda t: F.softshrink(t, 0.5), [math.nan, -0.0, 0.0, 0.0, -0.0, 2.5, -2.5],
                       [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]),
        "hardshrink": (lambda t: F.hardshrink(t, 0.5), [math.nan, 0.0, 0.0, 0.0, 0.0, 3.0, -3.0],
                       [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]),
        "hardswish": (F.hardswish, [math.nan, -0.0, 0.0, 0.2916666666666667, -0.20833333333333334, 3.0, -0.0],
                      [1.0, 0.5, 0.5, 0.6666666666666666, 0.33333333333333337, 1.0, 0.0]),
        "hardsigmoid": (F.hardsigmoid, [math.nan, 0.5, 0.5, 0.5833333333333334, 0.4166666666666667, 1.0, 0.0],
                        [0.0] + [0.1666666716337204] * 4 + [0.0, 0.0]),
        "threshold": (lambda t: F.threshold(t, 0.0, 2.0), [math.nan, 2.0, 2.0, 0.5, 2.0, 3.0, 2.0],
                      [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0]),
        "logsigmoid": (F.logsigmoid, [math.nan, -0.6931471805599453, -0.6931471805599453, -0.4740769841801067,
                                      -0.9740769841801067, -0.04858735157374206, -3.048587351573742],
                       [math.nan, 0.5, 0.5, 0.37754066879814546, 0.6224593312018545, 0.04742587317756679,
                        0.9525741268224333]),
    }
    for name, (fn, values, grads) in cases.items():
        x = T.tensor(v, dtype=T.float64, requires_grad=True)
        y = fn(x)
        y.sum().backward()
        got = y.tolist()
        np.testing.assert_allclose(got, values, rtol=1e-15, err_msg=name)
        assert [math.copysign(1, a) for a in got[1:]] == [math.copysign(1, a) for a in values[1:]], name
        np.testing.assert_allclose(x.grad.tolist(), grads, rtol=1e-15, err_msg=name)


def test_result_layouts_follow_pytorch():
    # recorded from PyTorch 2.13 on a transposed input: log_sigmoid and rrelu (outside
    # training) write row-major results, the others take the input's layout
    x = T.tensor([[0.3, 1.2, -0.2], [-0.7, 0.0, 0.9]]).t()
    assert F.logsigmoid(x).stride() == (2, 1) and F.rrelu(x).stride() == (2, 1)
    for fn in (F.hardswish, F.hardsigmoid, F.selu, F.softshrink, F.hardshrink, lambda t: F.threshold(t, 0.5, 2.0),
               lambda t: F.prelu(t, T.tensor([0.25, 0.5]))):
        assert fn(x).stride() == (1, 3)


def test_selu_constants_are_pytorchs():
    x = T.tensor([-1.0, 1.0], dtype=T.float64)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    np.testing.assert_allclose(F.selu(x).tolist(), [scale * alpha * math.expm1(-1.0), scale], rtol=1e-15)


def test_module_reprs_and_attributes_are_pytorchs():
    # reprs recorded from PyTorch 2.13
    cases = [(nn.Hardswish(), "Hardswish()"), (nn.Hardswish(True), "Hardswish()"),
             (nn.Hardsigmoid(inplace=True), "Hardsigmoid()"), (nn.SELU(), "SELU()"),
             (nn.SELU(True), "SELU(inplace=True)"), (nn.CELU(), "CELU(alpha=1.0)"),
             (nn.CELU(0.5, True), "CELU(alpha=0.5, inplace=True)"), (nn.LogSigmoid(), "LogSigmoid()"),
             (nn.Softshrink(), "Softshrink(0.5)"), (nn.Softshrink(0.3), "Softshrink(0.3)"),
             (nn.Hardshrink(), "Hardshrink(0.5)"), (nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
             (nn.Threshold(0.1, 20.0, True), "Threshold(threshold=0.1, value=20.0, inplace=True)"),
             (nn.GLU(), "GLU(dim=-1)"), (nn.GLU(1), "GLU(dim=1)"), (nn.PReLU(), "PReLU(num_parameters=1)"),
             (nn.RReLU(), "RReLU(lower=0.125, upper=0.3333333333333333)"),
             (nn.RReLU(0.1, 0.3, True), "RReLU(lower=0.1, upper=0.3, inplace=True)")]
    for m, want in cases:
        assert repr(m) == want
    assert nn.Hardswish(True).inplace and nn.CELU(0.5).alpha == 0.5 and nn.Softshrink(0.3).lambd == 0.3
    x = T.tensor([-2.0, 0.5, 4.0], dtype=T.float64)
    for m, fn in [(nn.Hardswish(), F.hardswish), (nn.Hardsigmoid(), F.hardsigmoid), (nn.SELU(), F.selu),
                  (nn.CELU(0.5), lambda t: F.celu(t, 0.5)), (nn.LogSigmoid(), F.logsigmoid),
                  (nn.Softshrink(0.3), lambda t: F.softshrink(t, 0.3)), (nn.Hardshrink(), F.hardshrink),
                  (nn.Threshold(0.6, -1.0), lambda t: F.threshold(t, 0.6, -1.0))]:
        assert m(x).tolist() == fn(x).tolist()


@requires_cuda
def test_cuda_runs_prelu_rrelu_glu_and_the_in_place_forms():
    x = T.tensor([[1.0, -2.0], [-0.5, 3.0]], dtype=T.float64, device="cuda", requires_grad=True)
    w = T.tensor([0.25, -0.5], dtype=T.float64, device="cuda", requires_grad=True)
    y = F.prelu(x, w)
    y.sum().backward()
    assert y.device.type == "cuda" and y.tolist() == [[1.0, 1.0], [-0.125, 3.0]]
    assert w.grad.tolist() == [-0.5, -2.0] and x.grad.tolist() == [[1.0, -0.5], [0.25, 1.0]]
    v = T.tensor([0.1, 0.3, -1.0, 2.0], dtype=T.float64, device="cuda")
    F.threshold_(v, 0.2, 0.5)
    assert v.tolist() == [0.5, 0.3, 0.5, 2.0]
    assert np.allclose(F.glu(T.tensor([1.0, -2.0, 0.0, 0.0], device="cuda")).tolist(), [0.5, -1.0])
    r = F.rrelu(T.tensor([-1.0, 2.0], dtype=T.float64, device="cuda"), 0.1, 0.3, training=True)
    assert -0.3 < r.tolist()[0] <= -0.1 and r.tolist()[1] == 2.0


def test_prelu_second_derivatives_are_pytorchs_prelu_kernel_backward_ones():
    # recorded from PyTorch 2.13, zeros included (its double backward masks by x >= 0)
    x = T.tensor([[1.0, -2.0, 0.0], [-0.5, 0.0, 3.0]], dtype=T.float64, requires_grad=True)
    w = T.tensor([0.3, -0.2, 0.7], dtype=T.float64, requires_grad=True)
    weights = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=T.float64)
    gx, gw = T.autograd.grad((F.prelu(x, w) * weights).sum(), [x, w], create_graph=True)
    assert gx.grad_fn.name() == "PreluKernelBackwardBackward0" and gw.grad_fn.name() == "ViewBackward0"
    ggx = T.tensor([[1.5, -1.0, 2.0], [0.5, 3.0, -2.0]], dtype=T.float64)
    hx, hw = T.autograd.grad((gx * ggx).sum() + (gw * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum(), [x, w])
    np.testing.assert_allclose(gx.tolist(), [[1.0, -0.4, 2.1], [1.2, -1.0, 6.0]], rtol=1e-15)
    assert gw.tolist() == [-2.0, -4.0, 0.0]
    assert hx.tolist() == [[0.0, 4.0, 0.0], [4.0, 0.0, 0.0]] and hw.tolist() == [2.0, -2.0, 0.0]


def test_pytorchs_top_level_names_and_methods():
    # torch.selu, torch.threshold_, Tensor.hardshrink, Tensor.prelu, ... (PyTorch 2.13 has these)
    x = T.tensor([-1.0, 0.3, 2.0], dtype=T.float64)
    assert T.selu(x).tolist() == F.selu(x).tolist() and T.celu(x, 0.5).tolist() == F.celu(x, 0.5).tolist()
    assert T.threshold(x, 0.5, 9.0).tolist() == [9.0, 9.0, 2.0] and T.rrelu(x).tolist() == F.rrelu(x).tolist()
    assert x.hardshrink(0.5).tolist() == T.hardshrink(x, 0.5).tolist() == [-1.0, 0.0, 2.0]
    w = T.tensor([0.5], dtype=T.float64)
    assert x.prelu(w).tolist() == T.prelu(x, w).tolist() == [-0.5, 0.3, 2.0]
    for fn, ref in [(T.selu_, F.selu), (T.celu_, F.celu), (T.rrelu_, F.rrelu)]:
        v = x.clone()
        assert fn(v) is v and v.tolist() == ref(x).tolist()
    v = x.clone()
    assert T.threshold_(v, 0.5, 9.0) is v and v.tolist() == [9.0, 9.0, 2.0]


def test_glu_records_pytorchs_nodes_and_second_derivatives():
    # recorded from PyTorch 2.13 (FunctionsManual's glu_double_backward and
    # glu_double_backward_grad_output under GluBackwardBackward0)
    x = T.tensor([[1.0, -2.0, 0.5, 3.0, -0.7, 1.3], [0.2, 0.4, -1.5, 2.5, 0.0, -3.0]], dtype=T.float64,
                 requires_grad=True)
    y = F.glu(x, 1)
    w = T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=T.float64)
    g, = T.autograd.grad((y * w).sum(), x, create_graph=True)
    assert y.grad_fn.name() == "GluBackward0" and g.grad_fn.name() == "GluBackwardBackward0"
    h, = T.autograd.grad((g * T.arange(12, dtype=T.float64).reshape(2, 6)).sum(), x)
    np.testing.assert_allclose(y.tolist(), [[0.9525741268224334, -0.6636244556636678, 0.3929174915212793],
                                            [0.1848283639957513, 0.2, -0.07113880976635018]], rtol=1e-14)
    np.testing.assert_allclose(g.tolist(), [
        [0.9525741268224334, 0.6636244556636678, 2.3575049491276756, 0.045176659730912, -0.8868514931724363,
         0.25244754370359035],
        [-0.9241418199787566, 0.25, 0.09485174635513356, -0.014020743309021614, 0.05, -0.1355299791927364]],
        rtol=1e-14)
    np.testing.assert_allclose(h.tolist(), [
        [0.135529979192736, 1.7737029863448726, 2.5244754370359037, -0.12267472398283014, -0.7498348684592511,
         0.28820678107784814],
        [-0.6309334489059726, 1.25, 0.993886514080067, -0.3135801947488672, 0.875, -0.6265954081165409]],
        rtol=1e-13)
    assert T.autograd.gradgradcheck(lambda t: F.glu(t, 1), (x,))


# recorded from PyTorch 2.13 at x = [0.3, 0.5, 0.7] (float64): the node names of the first and
# second create_graph gradients (selu's and celu's second order is elu's, whose
# MulBackward0 is still a WhereBackward0 here: see test_optable's CREATE_GRAPH_NAMES)
@pytest.mark.parametrize("src,first,second", [
    ("F.hardswish(x)", "HardswishBackwardBackward0", None), ("F.logsigmoid(x)", "LogSigmoidBackwardBackward0",
                                                             "MulBackward0"),
    ("F.softshrink(x, 0.2)", "SoftshrinkBackwardBackward0", None),
    ("F.hardshrink(x, 0.2)", "HardshrinkBackwardBackward0", None),
    ("F.threshold(x, 0.4, 1.0)", "ThresholdBackwardBackward0", None),
    ("F.rrelu(x)", "RreluWithNoiseBackwardBackward0", None), ("F.prelu(x, x[:1])", "AddBackward0", None),
    ("F.glu(T.cat([x, x]))", "AddBackward0", "AddBackward0")])
def test_first_and_second_create_graph_node_names_are_pytorchs(src, first, second):
    x = T.tensor([0.3, 0.5, 0.7], dtype=T.float64, requires_grad=True)
    y = eval(src, {"F": F, "x": x, "T": T})
    (g1,) = T.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = T.autograd.grad(g1.sum(), x, create_graph=True)
    assert (g1.grad_fn.name(), g2.grad_fn.name() if g2.grad_fn else None) == (first, second)
