"""The dtypes, shapes and refusals of the losses whose PyTorch versions are ATen composites of
in-place ops (binary_cross_entropy_with_logits, soft_margin_loss) or Python over F.logsigmoid
(multilabel_soft_margin_loss): the in-place ops decide the result's dtype and which operands are
refused.  Values from NumPy in float64; dtypes and messages recorded from PyTorch 2.13."""
import itertools
import warnings

import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
FLOATS = ("float16", "float32", "float64")
X = np.array([[0.5, -1.25, 2.0], [-0.75, 0.0, 1.5]])
Y = np.array([[1.0, 0.0, 0.25], [0.5, 1.0, 0.0]])


def _log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _t(a, dtype, requires_grad=False):
    return nbgrad.tensor(a, dtype=getattr(nbgrad, dtype), requires_grad=requires_grad)


def _tolerance(*dtypes):
    return 2e-3 if "float16" in dtypes else 1e-6 if "float32" in dtypes else 1e-12


# -- binary_cross_entropy_with_logits ------------------------------------------------------------
@pytest.mark.parametrize("xd, yd", list(itertools.product(FLOATS, FLOATS)))
def test_bce_with_logits_takes_the_targets_dtype(xd, yd):
    # ATen: (1 - target).mul_(input).sub_(log_sigmoid(input)): the loss is target-typed
    x, y = _t(X, xd, True), _t(Y, yd, True)
    loss = F.binary_cross_entropy_with_logits(x, y)
    assert loss.dtype == getattr(nbgrad, yd)
    xs, ys = x.detach().double().numpy(), y.detach().double().numpy()
    np.testing.assert_allclose(loss.item(), ((1 - ys) * xs - _log_sigmoid(xs)).mean(), rtol=_tolerance(xd, yd))
    loss.backward()
    assert x.grad.dtype == x.dtype and y.grad.dtype == y.dtype
    np.testing.assert_allclose(x.grad.double().numpy(), (_sigmoid(xs) - ys) / xs.size, atol=_tolerance(xd, yd))
    np.testing.assert_allclose(y.grad.double().numpy(), -xs / xs.size, atol=_tolerance(xd, yd))


@pytest.mark.parametrize("xd, yd, error, message", [
    ("int64", "float32", NotImplementedError, "\"log_sigmoid_cpu\" not implemented for 'Long'"),
    ("bool", "float32", NotImplementedError, "\"log_sigmoid_cpu\" not implemented for 'Bool'"),
    ("uint8", "uint8", NotImplementedError, "\"log_sigmoid_cpu\" not implemented for 'Byte'"),
    ("float32", "bool", RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported"),
    ("float32", "int64", RuntimeError, "result type Float can't be cast to the desired output type Long"),
    ("float64", "int32", RuntimeError, "result type Double can't be cast to the desired output type Int"),
])
@pytest.mark.parametrize("n", [0, 2])
def test_bce_with_logits_refuses_what_pytorch_refuses(xd, yd, error, message, n):
    x, y = nbgrad.ones(n, dtype=getattr(nbgrad, xd)), nbgrad.ones(n, dtype=getattr(nbgrad, yd))
    for fn in (F.binary_cross_entropy_with_logits, nbgrad.binary_cross_entropy_with_logits):
        with pytest.raises(error, match=message.replace("(", r"\(")):
            fn(x, y)


def test_torch_bce_with_logits_broadcasts_the_input_to_the_targets_shape():
    # ATen's op (not F's, which asks for equal sizes) writes into the target-shaped 1 - target
    x = _t(X[0], "float64", True)
    y = _t(Y, "float64")
    loss = nbgrad.binary_cross_entropy_with_logits(x, y, reduction=0)
    assert loss.shape == (2, 3)
    np.testing.assert_allclose(loss.detach().numpy(), (1 - Y) * X[0] - _log_sigmoid(X[0]), rtol=1e-12)
    with pytest.raises(ValueError, match=r"Target size \(.*\[2, 3\]\)\) must be the same as input size"):
        F.binary_cross_entropy_with_logits(x, y)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        nbgrad.binary_cross_entropy_with_logits(y, x, reduction=0)
    # its backward writes the input's gradient in place: PyTorch refuses the broadcast there
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        loss.sum().backward()


def test_torch_bce_with_logits_weights_that_do_not_fit_are_refused_by_the_in_place_product():
    x, y = _t(X[0], "float64"), _t(Y[0], "float64")
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        nbgrad.binary_cross_entropy_with_logits(x, y, None, _t(Y, "float64"), reduction=0)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        nbgrad.binary_cross_entropy_with_logits(x, y, _t(Y, "float64"), reduction=1)


@pytest.mark.parametrize("name, args", [
    ("binary_cross_entropy_with_logits", (X, Y)),
    ("hinge_embedding_loss", (X, np.sign(Y - 0.5))),
    ("kl_div", (X, Y)),
    ("margin_ranking_loss", (X[0], X[1], np.array([1.0, -1.0, 1.0]))),
    ("cosine_embedding_loss", (X, Y + 0.25, np.array([1.0, -1.0]))),
])
@pytest.mark.parametrize("reduction", [5, -1])
def test_torch_losses_take_an_unknown_reduction_as_none(name, args, reduction):
    # ATen's apply_loss_reduction: 1 is the mean, 2 the sum, any other int no reduction
    fn = getattr(nbgrad, name)
    tensors = [_t(a, "float64") for a in args]
    out, unreduced = fn(*tensors, reduction=reduction), fn(*tensors, reduction=0)
    assert out.shape == unreduced.shape == (tensors[0].shape[:1] if name == "cosine_embedding_loss" else
                                            tensors[0].shape)
    np.testing.assert_array_equal(out.numpy(), unreduced.numpy())


# -- soft_margin_loss ----------------------------------------------------------------------------
@pytest.mark.parametrize("xd, yd", list(itertools.product(FLOATS, FLOATS)))
def test_soft_margin_loss_keeps_the_inputs_dtype(xd, yd):
    # ATen: neg(input) into an input-typed output, then mul_(target).exp_().log1p_()
    x, y = _t(X, xd, True), _t(np.sign(Y - 0.5), yd)
    loss = F.soft_margin_loss(x, y)
    assert loss.dtype == x.dtype
    xs, ys = x.detach().double().numpy(), y.double().numpy()
    np.testing.assert_allclose(loss.item(), np.log1p(np.exp(-ys * xs)).mean(), rtol=_tolerance(xd, yd))
    loss.backward()
    assert x.grad.dtype == x.dtype


@pytest.mark.parametrize("xd, yd, message", [
    ("int64", "float32", "result type Float can't be cast to the desired output type Long"),
    ("uint8", "float64", "result type Double can't be cast to the desired output type Byte"),
    ("int64", "float16", "result type Half can't be cast to the desired output type Long"),
    ("int32", "int64", "result type Float can't be cast to the desired output type Int"),
])
def test_soft_margin_loss_refuses_an_integral_input(xd, yd, message):
    with pytest.raises(RuntimeError, match=message):
        F.soft_margin_loss(nbgrad.ones(3, dtype=getattr(nbgrad, xd)), nbgrad.ones(3, dtype=getattr(nbgrad, yd)))


def test_soft_margin_loss_gradient_negates_a_uint8_target_only_in_the_exponent():
    # soft_margin_loss_backward: z = exp(-target * input) (uint8 -8 is 248), then
    # -(target * z) / (1 + z) * grad
    x = _t([[2.71, -2.32, 2.13]], "float64", True)
    F.soft_margin_loss(x, nbgrad.tensor([8], dtype=nbgrad.uint8)).backward()
    z = np.exp(248.0 * np.array([2.71, -2.32, 2.13]))
    np.testing.assert_allclose(x.grad.numpy()[0], -(8 * z) / (1 + z) / 3, rtol=1e-12)
    assert x.grad[0, 1].item() != 0.0          # (a tiny, not a vanished, gradient)


# -- multilabel_soft_margin_loss, gaussian_nll_loss ------------------------------------------------
@pytest.mark.parametrize("xd, name", [("bool", "Bool"), ("uint8", "Byte"), ("int64", "Long")])
def test_multilabel_soft_margin_loss_is_refused_by_logsigmoid(xd, name):
    with pytest.raises(NotImplementedError, match=f"\"log_sigmoid_cpu\" not implemented for '{name}'"):
        F.multilabel_soft_margin_loss(nbgrad.ones(2, 3, dtype=getattr(nbgrad, xd)), nbgrad.ones(2, 3))


def test_multilabel_soft_margin_loss_with_a_uint8_target_wraps_one_minus_it():
    # PyTorch's Python: -(y * logsigmoid(x) + (1 - y) * logsigmoid(-x)), 1 - y in uint8
    x = _t([[0.0, -2.32, 2.13]], "float64", True)
    y = nbgrad.tensor([[7, 0, 1]], dtype=nbgrad.uint8)
    loss = F.multilabel_soft_margin_loss(x, y)
    xs, ys = np.array([0.0, -2.32, 2.13]), np.array([7.0, 0.0, 1.0])
    np.testing.assert_allclose(loss.item(), -(ys * _log_sigmoid(xs) + ((1 - ys) % 256) * _log_sigmoid(-xs)).mean(),
                               rtol=1e-12)
    loss.backward()
    # d/dx of log_sigmoid(x) at 0 is 1/2 (an analytic gradient, not a clamp's one-sided 1)
    expected = -(ys * (1 - _sigmoid(xs)) - ((1 - ys) % 256) * _sigmoid(xs)) / 3
    np.testing.assert_allclose(x.grad.numpy()[0], expected, rtol=1e-12)


def test_gaussian_nll_loss_with_an_int_var_is_refused_by_torch_any():
    x = nbgrad.ones(3)
    with pytest.raises(TypeError, match=r"any\(\)"):
        F.gaussian_nll_loss(x, x, 3)
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(x, x, nbgrad.tensor([1.0, -1.0, 1.0]))
    assert F.gaussian_nll_loss(x, x, 3.0).item() == pytest.approx(0.5 * np.log(3.0), rel=1e-6)


# -- the legacy reduction arguments, read in PyTorch's order ---------------------------------------
def test_legacy_reduction_reads_size_average_before_reduce():
    # legacy_get_string: `if size_average and reduce`: a many-element size_average is refused
    # even where reduce is falsy
    x = nbgrad.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
            F.soft_margin_loss(x, x, size_average=nbgrad.ones(3, 3), reduce=())
        assert F.soft_margin_loss(x, x, size_average=False, reduce=()).shape == (3,)


def test_binary_cross_entropy_checks_the_weights_shape_before_the_op():
    # F's _infer_size(target.size(), weight.size()) comes before the op's dtype check
    x, y = nbgrad.full((2, 3), 0.5), nbgrad.full((2, 3), 0.5, dtype=nbgrad.float64)
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 2 at -1"):
        F.binary_cross_entropy(x, y, nbgrad.ones(3, 2))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F.binary_cross_entropy(x, y, nbgrad.ones(3))
    with pytest.raises(AttributeError):
        F.binary_cross_entropy(nbgrad.ones(2, dtype=nbgrad.bool), nbgrad.ones(2, dtype=nbgrad.int64), "fro")
