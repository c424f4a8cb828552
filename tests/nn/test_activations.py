"""Activation modules (GELU, SiLU, LeakyReLU, ELU, Softplus, Mish, Hardtanh, ReLU6, Softmin,
Softsign, Tanhshrink) against NumPy formulas, their functionals' results, PyTorch's reprs,
attributes, in-place behaviour and node names; LazyLinear's inference and conversion."""
import math

import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck

X = np.array([-3.5, -1.25, -0.5, -0.01, 0.0, 0.3, 1.0, 2.5, 7.0])
_erf = np.vectorize(math.erf)


def _softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


# module, NumPy formula, node name, PyTorch's repr
CASES = [
    (lambda: nn.GELU(), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), "GeluBackward0", "GELU(approximate='none')"),
    (lambda: nn.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
     "GeluBackward0", "GELU(approximate='tanh')"),
    (lambda: nn.SiLU(), lambda x: x / (1 + np.exp(-x)), "SiluBackward0", "SiLU()"),
    (lambda: nn.LeakyReLU(), lambda x: np.where(x > 0, x, 0.01 * x), "LeakyReluBackward0",
     "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x), "LeakyReluBackward0",
     "LeakyReLU(negative_slope=0.2)"),
    (lambda: nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), "EluBackward0", "ELU(alpha=0.5)"),
    (lambda: nn.Softplus(), lambda x: np.log1p(np.exp(x)), "SoftplusBackward0", "Softplus(beta=1.0, threshold=20.0)"),
    (lambda: nn.Softplus(2, 3), lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2), "SoftplusBackward0",
     "Softplus(beta=2, threshold=3)"),
    (lambda: nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x))), "MishBackward0", "Mish()"),
    (lambda: nn.Hardtanh(), lambda x: np.clip(x, -1, 1), "HardtanhBackward0", "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.Hardtanh(-2, 2.5), lambda x: np.clip(x, -2, 2.5), "HardtanhBackward0",
     "Hardtanh(min_val=-2, max_val=2.5)"),
    (lambda: nn.ReLU6(), lambda x: np.clip(x, 0, 6), "HardtanhBackward0", "ReLU6()"),
    (lambda: nn.Softmin(0), lambda x: _softmax(-x), "SoftmaxBackward0", "Softmin(dim=0)"),
    (lambda: nn.Softsign(), lambda x: x / (1 + np.abs(x)), "DivBackward0", "Softsign()"),
    (lambda: nn.Tanhshrink(), lambda x: x - np.tanh(x), "SubBackward0", "Tanhshrink()"),
]


@pytest.mark.parametrize("make, ref, node, text", CASES, ids=[c[3] for c in CASES])
def test_module_values_node_and_repr(make, ref, node, text):
    m = make()
    assert repr(m) == text
    assert list(m.state_dict()) == [] and list(m.parameters()) == []
    x = nbgrad.tensor(X, requires_grad=True)
    y = m(x)
    np.testing.assert_allclose(y.detach().numpy(), ref(X), rtol=1e-12, atol=1e-14)
    assert type(y.grad_fn).__name__ == node
    assert y.dtype is nbgrad.float64


@pytest.mark.parametrize("make", [c[0] for c in CASES if "Hardtanh" not in c[3] and "ReLU6" not in c[3]
                                  and "Leaky" not in c[3]], ids=[c[3] for c in CASES if "Hardtanh" not in c[3]
                                                                 and "ReLU6" not in c[3] and "Leaky" not in c[3]])
def test_module_gradients(make):
    # away from the kinks (hardtanh, relu6, leaky_relu are piecewise linear: checked below)
    x = nbgrad.tensor(np.array([-1.7, -0.4, 0.2, 0.9, 1.6]), requires_grad=True)
    assert gradcheck(make(), (x,))


def test_piecewise_linear_gradients():
    x = nbgrad.tensor(np.array([-7.0, -1.5, -0.5, 0.5, 3.0, 6.5]), requires_grad=True)
    for m, slope in ((nn.Hardtanh(), [0, 0, 1, 1, 0, 0]), (nn.ReLU6(), [0, 0, 0, 1, 1, 0]),
                     (nn.LeakyReLU(0.1), [0.1, 0.1, 0.1, 1, 1, 1])):
        x.grad = None
        m(x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), slope)
        assert gradcheck(m, (x,))


@pytest.mark.parametrize("make, text, plain", [
    (lambda: nn.SiLU(inplace=True), "SiLU(inplace=True)", nn.SiLU()),
    (lambda: nn.Mish(inplace=True), "Mish(inplace=True)", nn.Mish()),
    (lambda: nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)", nn.LeakyReLU(0.2)),
    (lambda: nn.ELU(0.5, True), "ELU(alpha=0.5, inplace=True)", nn.ELU(0.5)),
    (lambda: nn.Hardtanh(-2, 2, True), "Hardtanh(min_val=-2, max_val=2, inplace=True)", nn.Hardtanh(-2, 2)),
    (lambda: nn.ReLU6(True), "ReLU6(inplace=True)", nn.ReLU6()),
])
def test_inplace_modules_write_their_input(make, text, plain):
    m = make()
    assert repr(m) == text and m.inplace is True
    leaf = nbgrad.tensor(X, requires_grad=True)
    x = leaf * 1.0
    expected = plain(x.detach()).numpy()
    v = x._version
    y = m(x)
    assert y is x and x._version == v + 1
    np.testing.assert_array_equal(x.detach().numpy(), expected)
    y.sum().backward()      # the gradient reaches the leaf through the in-place node
    assert leaf.grad is not None


def test_inplace_node_names_match_pytorch():
    # PyTorch: silu_/mish_ record SiluBackward0/MishBackward0, elu_ EluBackward1, hardtanh_ HardtanhBackward0
    x = nbgrad.tensor(X, requires_grad=True)
    names = {name: type(fn(x * 1.0).grad_fn).__name__ for name, fn in (
        ("silu", lambda t: F.silu(t, inplace=True)), ("mish", lambda t: F.mish(t, inplace=True)),
        ("elu", lambda t: F.elu(t, inplace=True)), ("hardtanh", lambda t: F.hardtanh(t, inplace=True)),
        ("relu6", lambda t: F.relu6(t, inplace=True)))}
    assert names == {"silu": "SiluBackward0", "mish": "MishBackward0", "elu": "EluBackward1",
                     "hardtanh": "HardtanhBackward0", "relu6": "HardtanhBackward0"}


def test_attributes_as_pytorch_keeps_them():
    assert vars(nn.GELU("tanh"))["approximate"] == "tanh"
    m = nn.ReLU6()
    assert (m.min_val, m.max_val, m.inplace) == (0.0, 6.0, False)
    assert (nn.Softplus().beta, nn.Softplus().threshold) == (1.0, 20.0)
    assert nn.LeakyReLU().negative_slope == 0.01 and nn.ELU().alpha == 1.0


def test_bad_arguments():
    with pytest.raises(AssertionError, match=r"max_val \(1\) must be greater than min_val \(2\)"):
        nn.Hardtanh(2, 1)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        nn.GELU("exact")(nbgrad.ones(2))


def test_softmax2d_over_channels():
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 2))
    y = nn.Softmax2d()(nbgrad.tensor(x))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y.numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(nn.Softmax2d()(nbgrad.tensor(x[0])).numpy(), y.numpy()[0], rtol=1e-12)
    assert repr(nn.Softmax2d()) == "Softmax2d()"
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(nbgrad.ones(2, 3))


def test_softmin_dtype_and_functional():
    x = nbgrad.tensor(np.array([[1.0, 2.0], [0.5, -1.0]]), dtype=nbgrad.float32)
    y = F.softmin(x, dim=1, dtype=nbgrad.float64)
    assert y.dtype is nbgrad.float64
    ref = np.exp(-x.numpy().astype(np.float64))
    np.testing.assert_allclose(y.numpy(), ref / ref.sum(1, keepdims=True), rtol=1e-7)


# -- LazyLinear --------------------------------------------------------------------------
def test_lazy_linear_before_its_first_call():
    m = nn.LazyLinear(3)
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert isinstance(m.weight, nn.UninitializedParameter) and repr(m.weight) == "<UninitializedParameter>"
    assert m.weight.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        m.weight.shape
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias"] and isinstance(sd["weight"], nn.UninitializedParameter)
    assert nn.LazyLinear(3, bias=False).bias is None


def test_lazy_linear_becomes_linear_and_initialises():
    nbgrad.manual_seed(0)
    m = nn.LazyLinear(50)
    opt = nbgrad.optim.SGD(m.parameters(), lr=0.1)    # holds the placeholders: the same objects get filled
    w = m.weight
    x = nbgrad.randn(4, 2, 8)
    y = m(x)
    assert type(m) is nn.Linear and repr(m) == "Linear(in_features=8, out_features=50, bias=True)"
    assert m.in_features == 8 and m.weight is w and type(w) is nn.Parameter
    assert tuple(m.weight.shape) == (50, 8) and tuple(m.bias.shape) == (50,)
    assert y.shape == (4, 2, 50)
    # PyTorch's Linear init: kaiming_uniform(a=sqrt(5)) and bias, both within 1/sqrt(in_features)
    bound = 1 / math.sqrt(8)
    wn = m.weight.detach().numpy()
    assert np.abs(wn).max() <= bound and np.abs(wn).max() > 0.8 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ wn.T + m.bias.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    y.sum().backward()
    before = wn.copy()
    opt.step()
    # (atol: an updated weight near 0 keeps the float32 rounding of its operands, ~0.35 in size;
    # NumPy rounds 0.1 * g before subtracting, the kernels or the composed add with alpha need not)
    np.testing.assert_allclose(m.weight.detach().numpy(), before - 0.1 * m.weight.grad.numpy(), rtol=1e-6,
                               atol=1e-7)


def test_lazy_linear_keeps_dtype_and_loads_shapes_from_a_state_dict():
    m = nn.LazyLinear(3).double()
    assert m.weight.dtype is nbgrad.float64
    src = nn.Linear(5, 3).double()
    m.load_state_dict(src.state_dict())
    assert type(m) is nn.LazyLinear and tuple(m.weight.shape) == (3, 5)   # lazy until called, as PyTorch
    x = nbgrad.randn(2, 5, dtype=nbgrad.float64)
    np.testing.assert_array_equal(m(x).detach().numpy(), src(x).detach().numpy())
    assert type(m) is nn.Linear and m.in_features == 5


@requires_cuda
def test_activation_modules_on_cuda():
    x = nbgrad.tensor(X[:4], device="cuda", requires_grad=True)
    for m in (nn.GELU(), nn.SiLU(), nn.Softsign(), nn.ReLU6()):
        y = m(x)
        assert y.device.type == "cuda"
        np.testing.assert_allclose(y.detach().cpu().numpy(), m(x.detach().cpu()).numpy(), rtol=1e-12)
    m = nn.LazyLinear(2, device="cuda", dtype=nbgrad.float64)
    y = m(x.reshape(1, 4))
    assert m.weight.device.type == "cuda" and y.shape == (1, 2)
