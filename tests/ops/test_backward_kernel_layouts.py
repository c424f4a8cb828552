"""The layout of a gradient is the layout PyTorch's backward gives it.

A transposed gradient meets a row-major input: PyTorch's backward kernels lay their result
out from their operands in the order their TensorIterator reads them (logit_backward(grad,
self): grad's), from a preallocated output (binary_cross_entropy_backward's
empty_like(input)), or as a formula's first operand ((2 x erfcx(x) - 2/sqrt(pi)) * grad:
x's); zeros from saved sizes are row-major (sgn, copysign's other).  Strides recorded from
torch 2.13, for x of shape (2, 3) row-major and the incoming gradient of strides (1, 2).
"""
import pytest

import nbgrad as T

F = T.nn.functional
ROW, TRANSPOSED = (3, 1), (1, 2)

UNARY = {
    "logit": (T.logit, TRANSPOSED),
    "logit_eps": (lambda x: T.logit(x, 0.25), TRANSPOSED),
    "special_erfcx": (T.special.erfcx, ROW),
    "xlogy_number_other": (lambda x: T.xlogy(x, 2.0), TRANSPOSED),
    "nan_to_num": (T.nan_to_num, TRANSPOSED),
    "sgn": (T.sgn, ROW),
    "sign": (T.sign, TRANSPOSED),
    "angle": (T.angle, ROW),
    "logaddexp": (lambda x: T.logaddexp(x, x.detach()), TRANSPOSED),
    "erf": (T.erf, ROW),
    "tanh": (T.tanh, TRANSPOSED),
}

BINARY = {
    "logaddexp": (T.logaddexp, [TRANSPOSED, TRANSPOSED]),
    "logaddexp2": (T.logaddexp2, [TRANSPOSED, TRANSPOSED]),
    "copysign": (T.copysign, [TRANSPOSED, ROW]),
    "bce": (lambda x, y: F.binary_cross_entropy(x.abs() / 2, y.abs() / 2, reduction="none"), [ROW, ROW]),
    "kl_div": (lambda x, y: F.kl_div(x, y, reduction="none"), [TRANSPOSED, ROW]),
    "kl_div_log_target": (lambda x, y: F.kl_div(x, y, reduction="none", log_target=True), [TRANSPOSED, TRANSPOSED]),
    "xlogy": (T.xlogy, [ROW, TRANSPOSED]),
}


def _operands():
    x = T.tensor([[0.3, -0.2, 0.45], [0.1, 0.7, -0.6]], dtype=T.float64, requires_grad=True)
    y = T.tensor([[0.5, 0.25, -0.75], [1.5, -0.3, 0.2]], dtype=T.float64, requires_grad=True)
    g = T.tensor([[1.0, 0.5], [0.25, -1.0], [2.0, 0.75]], dtype=T.float64).t()
    return x, y, g


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_layout(name):
    fn, strides = UNARY[name]
    x, _, g = _operands()
    got, = T.autograd.grad(fn(x), [x], g)
    assert got.stride() == strides


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_layouts(name):
    fn, strides = BINARY[name]
    x, y, g = _operands()
    got = T.autograd.grad(fn(x, y), [x, y], g)
    assert [t.stride() for t in got] == strides


def test_kl_div_builds_its_product_before_the_xlogy_as_pytorch_does():
    # PyTorch's `xlogy(t, t) - t * x` evaluates its right operand first: MulBackward0 is
    # the older node, so XlogyBackward0 runs first in backward
    x, y, _ = _operands()
    loss = F.kl_div(x, y, reduction="none")
    older, newer = loss.grad_fn.next_functions[1][0], loss.grad_fn.next_functions[0][0]
    assert (older.name(), newer.name()) == ("MulBackward0", "XlogyBackward0")
    assert older._seq < newer._seq


def test_logaddexp_gradient_values_are_pytorchs_formula():
    inf, nan = float("inf"), float("nan")
    x = T.tensor([inf, -inf, 1.0, 1.0, -inf, 3.0, 0.0], dtype=T.float64, requires_grad=True)
    y = T.tensor([inf, -inf, 1.0, 2.0, 1.0, -inf, -0.0], dtype=T.float64, requires_grad=True)
    out = T.logaddexp(x, y)
    assert out.grad_fn.name() == "LogaddexpBackward0"
    assert [f.name() for f, _ in out.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 2
    out.backward(T.ones_like(out))
    assert str(x.grad.tolist()) == str([nan, nan, 0.5, 0.2689414213699951, 0.0, 1.0, 0.5])
    assert str(y.grad.tolist()) == str([nan, nan, 0.5, 0.7310585786300049, 1.0, 0.0, 0.5])
    x2 = T.tensor([1.0, 1.0], dtype=T.float64, requires_grad=True)
    y2 = T.tensor([2.0, -inf], dtype=T.float64, requires_grad=True)
    T.logaddexp2(x2, y2).sum().backward()
    assert x2.grad.tolist() == [0.3333333333333333, 1.0] and y2.grad.tolist() == [0.6666666666666666, 0.0]


def test_angle_of_real_numbers():
    nan = float("nan")
    got = T.angle(T.tensor([-1.0, 0.0, -0.0, nan, 2.0, -float("inf")]))
    assert str(got.tolist()) == str([3.1415927410125732, 0.0, 0.0, nan, 0.0, 3.1415927410125732])
    assert T.angle(T.tensor([-1, 0, 3])).dtype == T.float32
    assert T.tensor([-2.0], dtype=T.float64).angle().tolist() == [3.141592653589793]
    x = T.tensor([-1.0, 2.0], requires_grad=True)
    y = T.angle(x)
    assert y.grad_fn.name() == "AngleBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert not hasattr(T.Tensor, "angle_")
