"""The lazy convolutions and norms (LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d,
LazyInstanceNorm1d/2d/3d): placeholders until the first call, which reads the channels off
the input, initializes as the ordinary module does and turns the module into it; state dicts
loaded before the first call; PyTorch's reprs and errors."""
import copy

import numpy as np
import pytest

import nbgrad
from nbgrad import nn

CONVS = [
    (nn.LazyConv1d, nn.Conv1d, (2, 3, 9), (4, 3, 3)),
    (nn.LazyConv2d, nn.Conv2d, (2, 3, 8, 7), (4, 3, 3, 3)),
    (nn.LazyConv3d, nn.Conv3d, (2, 3, 5, 6, 5), (4, 3, 3, 3, 3)),
    (nn.LazyConvTranspose1d, nn.ConvTranspose1d, (2, 3, 9), (3, 4, 3)),
    (nn.LazyConvTranspose2d, nn.ConvTranspose2d, (2, 3, 8, 7), (3, 4, 3, 3)),
    (nn.LazyConvTranspose3d, nn.ConvTranspose3d, (2, 3, 5, 6, 5), (3, 4, 3, 3, 3)),
]


@pytest.mark.parametrize("lazy, eager, in_shape, w_shape", CONVS)
def test_lazy_conv_becomes_its_module_on_the_first_call(lazy, eager, in_shape, w_shape):
    nbgrad.manual_seed(0)
    m = lazy(4, 3)
    assert m.in_channels == 0 and isinstance(m.weight, nn.UninitializedParameter)
    assert repr(m).startswith(f"{lazy.__name__}(0, 4, kernel_size=")
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        m.weight.shape
    x = nbgrad.randn(*in_shape)
    y = m(x)
    assert type(m) is eager and m.in_channels == 3 and m.weight.shape == w_shape and m.bias.shape == (4,)
    assert repr(m).startswith(f"{eager.__name__}(3, 4, kernel_size=")
    bound = 1 / np.sqrt(w_shape[1] * np.prod(w_shape[2:]))      # kaiming_uniform_(a=sqrt(5)): +-1/sqrt(fan_in)
    assert float(m.weight.detach().abs().max()) <= bound
    ref = eager(3, 4, 3)
    with nbgrad.no_grad():
        ref.weight.copy_(m.weight)
        ref.bias.copy_(m.bias)
    np.testing.assert_array_equal(y.detach().numpy(), ref(x).detach().numpy())
    # unbatched: the channels are the first dim
    u = lazy(4, 3, bias=False)
    u(x[0])
    assert u.in_channels == 3 and u.bias is None


def test_lazy_conv_checks():
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        nn.LazyConv2d(4, 3, groups=2)(nbgrad.zeros(2, 3, 8, 8))
    with pytest.raises(RuntimeError, match=r"^Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d, but "
                                           r"got input of size: "):
        nn.LazyConv2d(4, 3)(nbgrad.zeros(3, 8))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for LazyConvTranspose2d'):
        nn.LazyConvTranspose2d(4, 3, padding_mode="reflect")


@pytest.mark.parametrize("lazy, eager, shape", [
    (nn.LazyBatchNorm1d, nn.BatchNorm1d, (6, 5)), (nn.LazyBatchNorm2d, nn.BatchNorm2d, (3, 5, 4, 4)),
    (nn.LazyBatchNorm3d, nn.BatchNorm3d, (3, 5, 2, 3, 2)), (nn.LazyInstanceNorm1d, nn.InstanceNorm1d, (3, 5, 4)),
    (nn.LazyInstanceNorm2d, nn.InstanceNorm2d, (3, 5, 4, 4)),
    (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, (3, 5, 2, 3, 2)),
])
def test_lazy_norms(lazy, eager, shape):
    m = lazy()
    assert m.affine and m.track_running_stats          # (PyTorch's lazy instance norms too)
    assert repr(m) == (f"{lazy.__name__}(0, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                       "track_running_stats=True)")
    assert isinstance(m.running_mean, nn.UninitializedBuffer) and isinstance(m.weight, nn.UninitializedParameter)
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    x = nbgrad.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    y = m(x)
    ref = eager(5, affine=True, track_running_stats=True)
    assert type(m) is eager and m.num_features == 5
    np.testing.assert_allclose(y.detach().numpy(), ref(x).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(m.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-12)
    # (instance norms count no batches, as PyTorch's)
    assert type(m.running_mean) is nbgrad.Tensor and int(m.num_batches_tracked) == ("Batch" in lazy.__name__)
    assert np.array_equal(m.weight.detach().numpy(), np.ones(5))


def test_lazy_modules_load_a_state_dict_and_copy():
    src = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
    dst = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d())
    dst.load_state_dict(src.state_dict())
    assert type(dst[0]) is nn.LazyConv2d and dst[0].weight.shape == (4, 3, 3, 3)
    np.testing.assert_array_equal(dst[0].weight.detach().numpy(), src[0].weight.detach().numpy())
    assert dst[1].running_var.shape == (4,)
    x = nbgrad.randn(1, 3, 5, 5)
    np.testing.assert_array_equal(dst.eval()(x).detach().numpy(), src.eval()(x).detach().numpy())
    assert type(dst[0]) is nn.Conv2d and type(dst[1]) is nn.BatchNorm2d
    assert isinstance(copy.deepcopy(nn.LazyLinear(3)).weight, nn.UninitializedParameter)
    with pytest.raises(ValueError, match="^Attempted to use an uninitialized parameter in <function Tensor.__deepcopy__"):
        copy.deepcopy(nn.LazyBatchNorm2d())


def test_an_optimizer_built_before_the_first_call_trains_the_materialized_parameters():
    nbgrad.manual_seed(1)
    m = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.ReLU())
    params = list(m.parameters())
    opt = nbgrad.optim.SGD(params, lr=0.1)
    m(nbgrad.randn(2, 3, 6, 6)).sum().backward()
    before = params[0].detach().clone()
    opt.step()
    assert params[0] is m[0].weight and not np.array_equal(before.numpy(), m[0].weight.detach().numpy())


_USE = "^Attempted to use an uninitialized parameter in "


@pytest.mark.parametrize("use", [lambda p: p + 1, lambda p: p.sum(), lambda p: p == p, lambda p: p.numel(),
                                 lambda p: p.view(2), lambda p: p[0], lambda p: bool(p), lambda p: p.numpy(),
                                 lambda p: p.requires_grad_(False), lambda p: nbgrad.relu(p),
                                 lambda p: nbgrad.nn.functional.linear(nbgrad.ones(2, 3), p)])
def test_an_uninitialized_parameter_refuses_every_op(use):
    # (an op on its 0 placeholder elements would otherwise give a silent empty result)
    p = nn.parameter.UninitializedParameter()
    with pytest.raises(ValueError, match=_USE + ".*UninitializedParameter` objects. When using LazyModules Call "
                                                 "`forward` with a dummy batch"):
        use(p)


def test_an_uninitialized_tensor_answers_what_pytorch_allows():
    p = nn.parameter.UninitializedParameter(dtype=nbgrad.float64)
    assert p.dtype == nbgrad.float64 and p.requires_grad and p.is_leaf and p.grad is None
    assert tuple(p.size()) == (0,) and p.is_floating_point() and repr(p) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="^Can't access the shape of an uninitialized parameter"):
        p.shape
    q = p.float()
    assert type(q) is nbgrad.Tensor and q.dtype == nbgrad.float32 and q.numel() == 0
    b = nn.parameter.UninitializedBuffer()
    with pytest.raises(ValueError, match=_USE + "<method 'mul'.*UninitializedBuffer` objects"):
        b.mul(2)


def test_a_lazy_modules_conversion_reaches_its_parameters_after_materializing():
    m = nn.LazyLinear(3).double()
    assert type(m.weight).__name__ == "UninitializedParameter" and m.weight.dtype == nbgrad.float64
    with pytest.raises(ValueError, match=_USE):
        m.weight + 1
    y = m(nbgrad.ones(2, 4, dtype=nbgrad.float64))
    assert y.dtype == nbgrad.float64 and tuple(m.weight.shape) == (3, 4)
