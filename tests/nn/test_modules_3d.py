"""The 3-D members of the normalization, padding and channel-dropout families (BatchNorm3d,
InstanceNorm3d, ConstantPad3d / ZeroPad3d / ReflectionPad3d / ReplicationPad3d / CircularPad3d,
Dropout3d and F.dropout3d): values and gradients against NumPy, PyTorch's checks and reprs."""
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.nn import functional as F

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3, 4, 5, 6))


def _leaf(a):
    return nbgrad.tensor(a, dtype=nbgrad.float64, requires_grad=True)


def test_batchnorm3d_normalizes_over_batch_and_space_and_updates_running_stats():
    m = nn.BatchNorm3d(3, dtype=nbgrad.float64)
    x = _leaf(X)
    y = m(x)
    mean = X.mean(axis=(0, 2, 3, 4), keepdims=True)
    var = X.var(axis=(0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(y.detach().numpy(), (X - mean) / np.sqrt(var + 1e-5), rtol=1e-10, atol=1e-12)
    n = X.size // 3
    np.testing.assert_allclose(m.running_mean.numpy(), 0.1 * mean.ravel(), rtol=1e-12)
    np.testing.assert_allclose(m.running_var.numpy(), 0.9 + 0.1 * var.ravel() * n / (n - 1), rtol=1e-12)
    assert int(m.num_batches_tracked) == 1
    assert type(y.grad_fn).__name__ == "NativeBatchNormBackward0"
    # the gradient is BatchNorm2d's over the same statistics (D and H folded into one dim)
    w = RNG.standard_normal(X.shape)
    (y * nbgrad.tensor(w)).sum().backward()
    x2 = _leaf(X.reshape(2, 3, 20, 6))
    (nn.BatchNorm2d(3, dtype=nbgrad.float64)(x2) * nbgrad.tensor(w.reshape(2, 3, 20, 6))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy().reshape(X.shape), rtol=1e-9, atol=1e-12)
    m.eval()
    np.testing.assert_allclose(m(x).detach().numpy(),
                               (X - m.running_mean.numpy().reshape(1, 3, 1, 1, 1))
                               / np.sqrt(m.running_var.numpy().reshape(1, 3, 1, 1, 1) + 1e-5), rtol=1e-12)


def test_batchnorm3d_wants_5d_input():
    with pytest.raises(ValueError, match=r"^expected 5D input \(got 4D input\)$"):
        nn.BatchNorm3d(3)(nbgrad.zeros(3, 4, 5, 6))
    assert repr(nn.BatchNorm3d(3)) == \
        "BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"


@pytest.mark.parametrize("batched", [True, False])
def test_instancenorm3d_normalizes_each_instance(batched):
    a = X if batched else X[0]
    y = nn.InstanceNorm3d(3)(_leaf(a)).detach().numpy()
    mean = a.mean(axis=(-3, -2, -1), keepdims=True)
    var = a.var(axis=(-3, -2, -1), keepdims=True)
    np.testing.assert_allclose(y, (a - mean) / np.sqrt(var + 1e-5), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match=r"^expected 4D or 5D input \(got 3D input\)$"):
        nn.InstanceNorm3d(3)(nbgrad.zeros(3, 4, 5))
    assert repr(nn.InstanceNorm3d(3)) == \
        "InstanceNorm3d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"


PAD = (1, 0, 2, 1, 0, 2)        # (W left, W right, H top, H bottom, D front, D back)
NP_PAD = [(0, 0), (0, 0), (0, 2), (2, 1), (1, 0)]


@pytest.mark.parametrize("module, np_mode", [
    (lambda: nn.ConstantPad3d(PAD, 1.5), "constant"),
    (lambda: nn.ZeroPad3d(PAD), "constant"),
    (lambda: nn.ReflectionPad3d(PAD), "reflect"),
    (lambda: nn.ReplicationPad3d(PAD), "edge"),
    (lambda: nn.CircularPad3d(PAD), "wrap"),
])
def test_pad3d_values_and_gradients(module, np_mode):
    m = module()
    x = _leaf(X)
    y = m(x)
    kw = {"constant_values": m.value} if np_mode == "constant" else {}
    np.testing.assert_array_equal(y.detach().numpy(), np.pad(X, NP_PAD, mode=np_mode, **kw))
    # the gradient sends each output's weight to the input element it copies
    w = RNG.standard_normal(y.shape)
    (y * nbgrad.tensor(w)).sum().backward()
    src = np.pad(np.arange(X.size).reshape(X.shape), NP_PAD, mode=np_mode,
                 **({"constant_values": -1} if np_mode == "constant" else {}))
    keep = src.ravel() >= 0
    expect = np.bincount(src.ravel()[keep], weights=w.ravel()[keep], minlength=X.size).reshape(X.shape)
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-12, atol=1e-12)


def test_pad3d_an_int_pads_every_side_and_the_reprs_are_pytorchs():
    assert nn.ZeroPad3d(2).padding == (2,) * 6
    assert repr(nn.ZeroPad3d(2)) == "ZeroPad3d((2, 2, 2, 2, 2, 2))"
    assert repr(nn.ConstantPad3d(1, 3.5)) == "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=3.5)"
    assert repr(nn.ReflectionPad3d(1)) == "ReflectionPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(nn.ReplicationPad3d(1)) == "ReplicationPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(nn.CircularPad3d(1)) == "CircularPad3d((1, 1, 1, 1, 1, 1))"
    assert nn.ReplicationPad3d(1)(nbgrad.zeros(3, 4, 5, 6)).shape == (3, 6, 7, 8)
    with pytest.raises(ValueError, match=r"^expected 4D or 5D input \(got 3D input\)$"):
        nn.CircularPad3d(1)(nbgrad.zeros(4, 5, 6))


def test_dropout3d_zeroes_whole_channels_and_scales_the_rest():
    nbgrad.manual_seed(0)
    x = _leaf(np.abs(X) + 1)
    y = F.dropout3d(x, 0.5)
    v = y.detach().numpy().reshape(2, 3, -1)
    kept = (v != 0).all(axis=2)
    assert ((v == 0).all(axis=2) | kept).all()        # each (sample, channel) all kept or all dropped
    assert kept.any() and not kept.all()
    np.testing.assert_allclose(v[kept], 2 * (np.abs(X) + 1).reshape(2, 3, -1)[kept])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy().reshape(2, 3, -1), np.where(kept[..., None], 2.0, 0.0)
                                  * np.ones((1, 1, 120)))
    # unbatched (C, D, H, W): one draw per channel; eval is the input itself
    assert F.dropout3d(x[0], 0.5).shape == (3, 4, 5, 6)
    assert F.dropout3d(x, 0.5, training=False) is x
    m = nn.Dropout3d(0.25)
    assert repr(m) == "Dropout3d(p=0.25, inplace=False)"
    m.eval()
    assert m(x) is x


def test_dropout3d_checks():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout3d(nbgrad.zeros(1, 2, 3, 4, 5), 1.5)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        F.dropout3d(nbgrad.zeros(2, 3, 4), 0.5)
    assert any("dropout3d: Received a 3-D input to dropout3d" in str(w.message) for w in seen)
