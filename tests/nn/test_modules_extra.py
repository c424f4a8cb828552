"""nn modules and functions of issue 14's last list: Dropout1d and the alpha dropouts (by their
statistics and seeded reproducibility), against NumPy and values, names and errors recorded
from PyTorch 2.13."""
import math

import numpy as np
import pytest

import nbgrad
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def t(a, grad=False):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


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
