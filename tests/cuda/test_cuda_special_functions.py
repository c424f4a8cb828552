"""The special functions' kernels (backends/_shared/special.py) on both devices (tiny shapes:
the simulator runs them as plain Python, so no pole or infinity may raise there): the devices
agree on values, special values and gradients."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad import special

X = [-26.65, -3.7, -2.0, -0.3, 0.0, 0.4, 1.0, 2.5, 10.0, 31.5, 60.0, math.inf, -math.inf, math.nan]
U = [0.0, 1e-300, 0.01, 0.3, 0.5, 0.99, 1.0, -0.5, math.nan]

FUNCTIONS = {
    "lgamma": nbgrad.lgamma, "digamma": nbgrad.digamma, "polygamma1": lambda x: nbgrad.polygamma(1, x),
    "polygamma3": lambda x: nbgrad.polygamma(3, x), "i0": nbgrad.i0, "sinc": nbgrad.sinc, "i0e": special.i0e,
    "i1": special.i1, "i1e": special.i1e, "entr": special.entr, "zeta": lambda x: special.zeta(3.5, x),
    "xlog1py": lambda x: special.xlog1py(x, x * 0.25), "mvlgamma": lambda x: nbgrad.mvlgamma(x, 2),
    "erfcx": special.erfcx, "log_ndtr": special.log_ndtr,
}


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_values_on_device(device, name):
    fn = FUNCTIONS[name]
    want = host(fn(nbgrad.tensor(X, dtype=nbgrad.float64)))
    got = host(fn(nbgrad.tensor(X, dtype=nbgrad.float64, device=device)))
    np.testing.assert_allclose(got, want, rtol=1e-13)
    want32 = host(fn(nbgrad.tensor(X, dtype=nbgrad.float32)))
    got32 = host(fn(nbgrad.tensor(X, dtype=nbgrad.float32, device=device)))
    assert got32.dtype == np.float32
    # (the CPU's float32 arithmetic is PyTorch's float one; the device computes float32
    # through float64: they part at the integers, digamma's poles and sinc's zeros)
    away = np.array([not (v != 0 and v == int(v)) if math.isfinite(v) else True for v in X])
    np.testing.assert_allclose(got32[away], want32[away], rtol=1e-5, atol=1e-30)


def test_ndtri_on_device(device):
    want = host(special.ndtri(nbgrad.tensor(U, dtype=nbgrad.float64)))
    got = host(special.ndtri(nbgrad.tensor(U, dtype=nbgrad.float64, device=device)))
    np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "polygamma1", "i0", "sinc", "i1", "zeta"])
def test_gradients_on_device(device, name):
    fn = FUNCTIONS[name]
    results = []
    for dev in ("cpu", device):
        x = nbgrad.tensor([0.0 if name == "sinc" else 0.3, 1.7, 4.5], dtype=nbgrad.float64, device=dev,
                          requires_grad=True)
        g, = nbgrad.autograd.grad(fn(x).sum(), x, create_graph=True)
        gg, = nbgrad.autograd.grad(g.sum(), x)
        results.append((host(g), host(gg)))
    for c, d in zip(*results):
        np.testing.assert_allclose(d, c, rtol=1e-12)
