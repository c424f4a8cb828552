"""nn modules and functions of issue 14's last list: Dropout1d and the alpha dropouts (by their
statistics and seeded reproducibility), against NumPy and values, names and errors recorded
from PyTorch 2.13."""
import math

import numpy as np
import pytest

import nbgrad
from ._cuda import requires_cuda
from ._float64 import t
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# -- dropouts ------------------------------------------------------------------------------------
ALPHA = 1.7580993408473766


def alpha_affine(p):
    a = 1 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    return a, ALPHA * a * (p - 1)          # kept: a * x; dropped: the constant a * 0 + b


def test_dropout1d_drops_whole_channels(rng):
    x = t(rng.uniform(1, 2, (8, 16, 7)), True)
    nbgrad.manual_seed(3)
    y = F.dropout1d(x, 0.25)
    r = (y / x).detach().numpy()
    assert y.grad_fn.name() == "MulBackward0"
    # one draw per (sample, channel): each row all 0 or all 1/(1-p)
    assert np.all((np.abs(r - r[..., :1]) < 1e-12))
    assert set(np.round(np.unique(r), 12)) <= {0.0, round(1 / 0.75, 12)}
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r)
    nbgrad.manual_seed(3)
    np.testing.assert_array_equal(F.dropout1d(x, 0.25).detach().numpy(), y.detach().numpy())
    # unbatched (C, L): a batch dim added and taken away again
    u = F.dropout1d(t(np.ones((5, 4)), True), 0.5)
    assert u.shape == (5, 4) and u.grad_fn.name() == "SqueezeBackward1"
    assert F.dropout1d(x, 0.5, training=False) is x
    assert F.dropout1d(x, 1.0).grad_fn.name() == "MulBackward0"
    assert np.all(F.dropout1d(x, 1.0).detach().numpy() == 0)


def test_dropout1d_mean_preserved_and_inplace():
    nbgrad.manual_seed(0)
    y = F.dropout1d(nbgrad.ones(200, 500, 3), 0.3)
    assert abs(float(y.mean()) - 1.0) < 0.02
    assert abs(float((y[:, :, 0] == 0).float().mean()) - 0.3) < 0.01
    x = nbgrad.ones(2, 3, 4)
    assert F.dropout1d(x, 0.5, inplace=True) is x


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_alpha_dropout_keeps_mean_and_variance(p):
    nbgrad.manual_seed(1)
    x = nbgrad.randn(400000)
    y = F.alpha_dropout(x, p, True)
    assert abs(float(y.mean())) < 0.01
    assert abs(float(y.var()) - 1.0) < 0.01
    a, b = alpha_affine(p)
    xn, yn = x.numpy(), y.numpy()
    dropped = np.isclose(yn, b, atol=1e-6)
    assert abs(dropped.mean() - p) < 0.005
    np.testing.assert_allclose(yn[~dropped], a * xn[~dropped] + ALPHA * a * p, rtol=1e-5, atol=1e-5)


def test_alpha_dropout_values_gradient_and_nodes(rng):
    x = t(rng.standard_normal((6, 5)), True)
    nbgrad.manual_seed(7)
    y = F.alpha_dropout(x, 0.5, True)
    assert y.grad_fn.name() == "AddBackward0"
    a, b = alpha_affine(0.5)
    xn, yn = x.detach().numpy(), y.detach().numpy()
    kept = ~np.isclose(yn, b, rtol=0, atol=1e-12) | np.isclose(a * xn + ALPHA * a * 0.5, b)
    # recorded from PyTorch (float64): zeros at p = 0.5 become -/+0.7791939305180315, twos at
    # p = 0.2 become -1.2361598485763778 (dropped) or 2.06684712903116 (kept)
    zeros = F.alpha_dropout(t(np.zeros(1000)), 0.5, True).numpy()
    np.testing.assert_allclose(np.unique(zeros), [-0.7791939305180315, 0.7791939305180315], rtol=1e-15)
    twos = F.alpha_dropout(t(np.full(1000, 2.0)), 0.2, True).numpy()
    np.testing.assert_allclose(np.unique(twos), [-1.2361598485763778, 2.06684712903116], rtol=1e-15)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0))
    nbgrad.manual_seed(7)
    np.testing.assert_array_equal(F.alpha_dropout(x, 0.5, True).detach().numpy(), yn)
    # not training by default (F.alpha_dropout's training=False), p 0, empty input: the input itself
    assert F.alpha_dropout(x) is x and F.alpha_dropout(x, 0.0, True) is x
    z = F.alpha_dropout(x, 1.0, True)
    assert z.grad_fn.name() == "MulBackward0" and np.all(z.detach().numpy() == 0)


def test_feature_alpha_dropout(rng):
    x = t(rng.standard_normal((4, 6, 5)), True)
    nbgrad.manual_seed(2)
    y = F.feature_alpha_dropout(x, 0.5, True)
    assert y.grad_fn.name() == "AddBackward0"
    a, b = alpha_affine(0.5)
    yn, xn = y.detach().numpy(), x.detach().numpy()
    for n in range(4):
        for c in range(6):
            row = yn[n, c]
            assert np.allclose(row, b, atol=1e-12) or np.allclose(row, a * xn[n, c] + ALPHA * a * 0.5)
    nbgrad.manual_seed(0)
    big = F.feature_alpha_dropout(nbgrad.randn(2000, 200, 1), 0.3, True)
    assert abs(float(big.mean())) < 0.02 and abs(float(big.var()) - 1.0) < 0.02
    assert F.feature_alpha_dropout(x, 0.5) is x
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        F.feature_alpha_dropout(t(np.ones(3)), 0.5, True)


def test_dropout_errors_and_modules():
    x = t(np.ones(4))
    for f in (F.dropout1d, F.alpha_dropout, F.feature_alpha_dropout):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            f(x, 1.5)
    with pytest.raises(RuntimeError, match=r"dropout1d: Expected 2D or 3D input, but received a 1D input. Note "
                       r"that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
                       r"a channel dimension, and an optional batch dimension \(i.e. 2D or 3D inputs\)."):
        F.dropout1d(x, 0.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        nn.AlphaDropout(-0.1)
    assert repr(nn.Dropout1d(0.3)) == "Dropout1d(p=0.3, inplace=False)"
    assert repr(nn.AlphaDropout(0.2, inplace=True)) == "AlphaDropout(p=0.2, inplace=True)"
    assert repr(nn.FeatureAlphaDropout()) == "FeatureAlphaDropout(p=0.5, inplace=False)"
    m = nn.AlphaDropout(0.5)
    x = t(np.ones((3, 4)), True)
    assert m(x).grad_fn.name() == "AddBackward0"
    m.eval()
    assert m(x) is x and nn.FeatureAlphaDropout().eval()(x) is x
    assert nn.Dropout1d().eval()(x.unsqueeze(0)).shape == (1, 3, 4)
    # unbatched: unsqueezed and squeezed again even when not training (PyTorch's SqueezeBackward1)
    y = nn.Dropout1d().eval()(x)
    assert y.grad_fn.name() == "SqueezeBackward1" and np.all(y.detach().numpy() == 1)


# -- bilinear ------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch", [(), (6,), (2, 3)])
@pytest.mark.parametrize("with_bias", [False, True])
def test_bilinear(rng, batch, with_bias):
    x1, x2 = rng.standard_normal(batch + (3,)), rng.standard_normal(batch + (4,))
    w, b = rng.standard_normal((5, 3, 4)), rng.standard_normal(5)
    args = [t(x1, True), t(x2, True), t(w, True)] + ([t(b, True)] if with_bias else [])
    out = F.bilinear(*args)
    ref = np.einsum("...i,oij,...j->...o", x1, w, x2) + (b if with_bias else 0)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    # at::bilinear: _trilinear over the flattened batch, reshaped, then + bias
    assert out.grad_fn.name() == ("AddBackward0" if with_bias else "ViewBackward0")
    assert gradcheck(F.bilinear, args)


def test_bilinear_module_init_and_errors():
    nbgrad.manual_seed(0)
    m = nn.Bilinear(3, 4, 5)
    assert repr(m) == "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)"
    assert m.weight.shape == (5, 3, 4) and m.bias.shape == (5,)
    bound = 1 / math.sqrt(3)
    for p in (m.weight, m.bias):
        v = p.detach().numpy()
        assert v.min() >= -bound and v.max() <= bound and v.std() > bound / 4
    assert m(nbgrad.randn(2, 3), nbgrad.randn(2, 4)).shape == (2, 5)
    assert nn.Bilinear(3, 4, 5, bias=False).bias is None
    assert repr(nn.Bilinear(3, 4, 5, bias=False)) == \
        "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=False)"
    a, b, w = nbgrad.randn(2, 3), nbgrad.randn(2, 4), m.weight
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input batch dimensions do not match: got 2 and 3"):
        F.bilinear(a, nbgrad.randn(3, 4), w)
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input2 size does not match weight size: got 4 but "
                                           "expected 3"):
        F.bilinear(a, b, nbgrad.randn(5, 3, 3))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): bias size does not match weight size: got 4 but "
                                           "expected 5"):
        F.bilinear(a, b, w, nbgrad.randn(4))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input1 size does not match weight size: got 2 but "
                                           "expected 3"):
        F.bilinear(nbgrad.randn(2, 2), b, w)


# -- max unpool ------------------------------------------------------------------------------------
def test_max_unpool2d_inverts_max_pool(rng):
    x = t(rng.standard_normal((2, 3, 6, 8)))
    y, i = F.max_pool2d(x, 2, return_indices=True)
    yg = y.detach().requires_grad_()
    u = F.max_unpool2d(yg, i, 2)
    assert u.shape == (2, 3, 6, 8) and u.grad_fn.name() == "MaxUnpool2DBackward0"
    # the maxima back where they were, zeros elsewhere
    ref = np.zeros((2, 3, 48))
    np.put_along_axis(ref, i.numpy().reshape(2, 3, -1), y.numpy().reshape(2, 3, -1), axis=2)
    np.testing.assert_array_equal(u.detach().numpy(), ref.reshape(2, 3, 6, 8))
    assert gradcheck(lambda a: F.max_unpool2d(a, i, 2), (yg,))
    m = nn.MaxUnpool2d(2)
    assert repr(m) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"
    assert m(yg, i, output_size=(7, 9)).shape == (2, 3, 7, 9)
    assert m(yg[0], i[0]).shape == (3, 6, 8)


def test_max_unpool1d(rng):
    x = t(rng.standard_normal((2, 3, 9)))
    y, i = F.max_pool1d(x, 3, stride=2, padding=1, return_indices=True)
    yg = y.detach().requires_grad_()
    u = F.max_unpool1d(yg, i, 3, 2, 1)
    assert u.shape == (2, 3, 9) and u.grad_fn.name() == "SqueezeBackward1"
    ref = np.zeros((2, 3, 9))
    np.put_along_axis(ref, i.numpy(), y.numpy(), axis=2)
    np.testing.assert_array_equal(u.detach().numpy(), ref)
    # overlapping windows can pick one index twice (the gradient then goes to both, as PyTorch's
    # gather does): gradcheck over distinct indices
    y2, i2 = F.max_pool1d(x, 3, stride=3, return_indices=True)
    assert gradcheck(lambda a: F.max_unpool1d(a, i2, 3, output_size=[2, 3, 10]), (y2.detach().requires_grad_(),))
    m = nn.MaxUnpool1d(3, stride=2, padding=1)
    assert repr(m) == "MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))"
    assert m(yg, i, output_size=[10]).shape == (2, 3, 10)


def test_max_unpool_errors(rng):
    y, i = F.max_pool2d(t(rng.standard_normal((1, 2, 4, 4))), 2, return_indices=True)
    bad = i.clone()
    bad[0, 0, 0, 0] = 16
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 16 \(output volumes are of size 4x4"):
        F.max_unpool2d(y, bad, 2)
    bad[0, 0, 0, 0] = -1
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: -1 \(output volumes are of size 4x4"):
        F.max_unpool2d(y, bad, 2)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64 but got: Float"):
        F.max_unpool2d(y, i.float(), 2)
    with pytest.raises(RuntimeError, match=r"Expected shape of indices to be same as that of the input tensor "
                       r"\(\[1, 2, 2, 2\]\) but got indices tensor with shape: \[1, 2, 2, 1\]"):
        F.max_unpool2d(y, i[..., :1], 2)
    with pytest.raises(RuntimeError, match="Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                                           "tensor with 2 dimensions."):
        F.max_unpool2d(y[0, 0], i[0, 0], 2)
    with pytest.raises(ValueError, match=r'invalid output_size "\(9, 9\)" \(dim 0 must be between 2 and 6\)'):
        F.max_unpool2d(y, i, 2, output_size=(9, 9))
    with pytest.raises(ValueError, match="output_size should be a sequence containing 2 or 4 elements, but it "
                                         "has a length of '3'"):
        F.max_unpool2d(y, i, 2, output_size=(1, 2, 3))


# -- power-average pooling -------------------------------------------------------------------------
def np_lp_pool1d(x, p, k, s):
    n = (x.shape[-1] - k) // s + 1
    return np.stack([(x[..., j * s:j * s + k] ** p).sum(-1) ** (1 / p) for j in range(n)], -1)


@pytest.mark.parametrize("p", [1.0, 2.0, 1.5, 3.0])
def test_lp_pool(rng, p):
    x = np.abs(rng.standard_normal((2, 3, 9))) + 0.1
    xt = t(x, True)
    out = F.lp_pool1d(xt, p, 3, stride=2)
    np.testing.assert_allclose(out.detach().numpy(), np_lp_pool1d(x, p, 3, 2), rtol=1e-12)
    assert out.grad_fn.name() == "PowBackward0"
    assert gradcheck(lambda a: F.lp_pool1d(a, p, 3, stride=2), (xt,))
    x2 = np.abs(rng.standard_normal((2, 2, 4, 6))) + 0.1
    x2t = t(x2, True)
    out = F.lp_pool2d(x2t, p, 2)
    ref = (x2.reshape(2, 2, 2, 2, 3, 2) ** p).sum((3, 5)) ** (1 / p)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert gradcheck(lambda a: F.lp_pool2d(a, p, (2, 3), stride=1, ceil_mode=True), (x2t,))
    np.testing.assert_allclose(nn.LPPool2d(p, 2)(x2t).detach().numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(nn.LPPool1d(p, 3, stride=2)(xt).detach().numpy(), np_lp_pool1d(x, p, 3, 2),
                               rtol=1e-12)


def test_lp_pool_inf_and_reprs(rng):
    x = rng.standard_normal((1, 2, 6))
    out = F.lp_pool1d(t(x), float("inf"), 2)
    np.testing.assert_array_equal(out.numpy(), np.abs(x).reshape(1, 2, 3, 2).max(-1))
    # a negative power sum keeps its sign and is then raised to 1/p: recorded from PyTorch, 2 ** (1/3) * -1 -> nan
    y = F.lp_pool1d(t([[[-1.0, -1.0]]]), 3, 2)
    assert np.isnan(y.numpy()).all()
    assert repr(nn.LPPool2d(2, 3)) == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    assert repr(nn.LPPool1d(1.5, 2, stride=1, ceil_mode=True)) == \
        "LPPool1d(norm_type=1.5, kernel_size=2, stride=1, ceil_mode=True)"


# -- local response norm ---------------------------------------------------------------------------
def np_lrn(x, size, alpha, beta, k):
    c = x.shape[1]
    sq = x * x
    div = np.zeros_like(x)
    for i in range(c):
        lo, hi = max(0, i - size // 2), min(c, i + (size - 1) // 2 + 1)
        div[:, i] = sq[:, lo:hi].sum(1) / size
    return x / (k + alpha * div) ** beta


@pytest.mark.parametrize("shape", [(2, 5, 4), (2, 5, 3, 2), (1, 4, 2, 2, 3)])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_local_response_norm(rng, shape, size):
    x = rng.standard_normal(shape)
    xt = t(x, True)
    out = F.local_response_norm(xt, size, alpha=0.5, beta=0.6, k=2.0)
    np.testing.assert_allclose(out.detach().numpy(), np_lrn(x, size, 0.5, 0.6, 2.0), rtol=1e-12)
    assert out.grad_fn.name() == "DivBackward0"
    assert gradcheck(lambda a: F.local_response_norm(a, size, alpha=0.5, beta=0.6, k=2.0), (xt,))
    m = nn.LocalResponseNorm(size)
    np.testing.assert_allclose(m(xt).detach().numpy(), np_lrn(x, size, 1e-4, 0.75, 1.0), rtol=1e-12)


def test_local_response_norm_errors_and_repr():
    with pytest.raises(ValueError, match="Expected 3D or higher dimensionality                          input "
                                         r"\(got 2 dimensions\)"):
        F.local_response_norm(nbgrad.ones(2, 2), 2)
    e = nbgrad.ones(0, 3, 2)
    assert F.local_response_norm(e, 2) is e
    assert repr(nn.LocalResponseNorm(3)) == "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"


# -- channel shuffle, circular padding -----------------------------------------------------------
def test_channel_shuffle(rng):
    x = rng.standard_normal((2, 6, 3, 2))
    xt = t(x, True)
    out = F.channel_shuffle(xt, 3)
    # recorded from PyTorch: channels 0..5 in groups of 3 come out as 0, 2, 4, 1, 3, 5
    np.testing.assert_array_equal(out.detach().numpy(), x[:, [0, 2, 4, 1, 3, 5]])
    assert out.grad_fn.name() == "ChannelShuffleBackward0"
    assert gradcheck(lambda a: F.channel_shuffle(a, 2), (xt,))
    m = nn.ChannelShuffle(2)
    assert repr(m) == "ChannelShuffle(groups=2)"
    np.testing.assert_array_equal(m(xt[:, :, :, 0]).detach().numpy(), x[..., 0][:, [0, 3, 1, 4, 2, 5]])
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 6 channels and 4 "
                                           "groups."):
        F.channel_shuffle(xt, 4)
    with pytest.raises(RuntimeError, match=r"channel_shuffle expects input with > 2 dims, but got input with sizes "
                                           r"\[1, 6\]"):
        F.channel_shuffle(t(np.ones((1, 6))), 2)
    with pytest.raises(RuntimeError, match="Number of groups to divide channels in must be positive. Value of "
                                           "groups:0"):
        F.channel_shuffle(xt, 0)


def test_circular_pad(rng):
    x = rng.standard_normal((2, 3, 4))
    m = nn.CircularPad1d(2)
    assert repr(m) == "CircularPad1d((2, 2))"
    np.testing.assert_array_equal(m(t(x)).numpy(), np.pad(x, ((0, 0), (0, 0), (2, 2)), mode="wrap"))
    np.testing.assert_array_equal(m(t(x[0])).numpy(), np.pad(x[0], ((0, 0), (2, 2)), mode="wrap"))
    m2 = nn.CircularPad2d((1, 2, 0, 1))
    assert repr(m2) == "CircularPad2d((1, 2, 0, 1))"
    np.testing.assert_array_equal(m2(t(x)).numpy(), np.pad(x, ((0, 0), (0, 1), (1, 2)), mode="wrap"))
    assert repr(nn.CircularPad2d(1)) == "CircularPad2d((1, 1, 1, 1))"
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 1D input\)"):
        m(t(np.ones(2)))
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        m2(t(np.ones((2, 2))))


@requires_cuda
@pytest.mark.parametrize("name", ["bilinear", "max_unpool2d", "lp_pool2d", "local_response_norm", "channel_shuffle",
                                  "alpha_dropout_eval"])
def test_on_cuda_as_on_cpu(rng, name):
    x = np.abs(rng.standard_normal((2, 4, 4, 4))) + 0.1
    w = rng.standard_normal((3, 4, 4))
    results = []
    for device in ("cpu", "cuda"):
        a = nbgrad.tensor(x, device=device, requires_grad=True)
        if name == "bilinear":
            out = F.bilinear(a, a * 2, nbgrad.tensor(w, device=device))
        elif name == "max_unpool2d":
            y, i = F.max_pool2d(a, 2, return_indices=True)
            out = F.max_unpool2d(y, i, 2)
        elif name == "lp_pool2d":
            out = F.lp_pool2d(a, 2.0, 2)
        elif name == "local_response_norm":
            out = F.local_response_norm(a, 3, alpha=0.5)
        elif name == "channel_shuffle":
            out = F.channel_shuffle(a, 2)
        else:
            out = F.alpha_dropout(a, 0.5, training=False)
        (out * out).sum().backward()
        assert out.device.type == device
        results.append((out.detach().cpu().numpy(), a.grad.cpu().numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
