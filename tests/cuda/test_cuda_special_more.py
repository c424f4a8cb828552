"""torch.special's incomplete gamma, Bessel and Airy functions and orthogonal polynomials
(backends/_shared/special_more.py) on both devices (tiny shapes: the simulator runs the scalar
functions as plain Python, so no special value may raise there): the devices agree on values,
special values and the incomplete gamma's gradient in x."""
import math

import numpy as np
import pytest

import nbgrad

X = [-30.5, -2.5, -0.3, 0.0, 0.3, 1.0, 2.5, 5.5, 9.5, 30.5, 110.0, math.inf, -math.inf, math.nan]
BESSEL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0", "airy_ai"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
A = [0.0, 0.5, 2.5, 2.5, 30.0, 250.0, 1.0, math.inf, -1.0, 3.0]
G = [1.0, 0.2, 0.7, 6.0, 28.0, 260.0, 0.0, 2.0, 1.0, math.nan]
PX = [-1.0, -0.6, 0.0, 0.3, 0.5, 1.0, 1.5, 0.3]
PN = [3.0, 2.0, 5.0, 9.0, 30.0, 4.0, 7.0, math.nan]


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


def on(values, dtype, device):
    return nbgrad.tensor(values, dtype=dtype, device=device)


def _close(got, want, rtol, atol=0.0):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_on_device(device, name):
    fn = getattr(nbgrad.special, name)
    _close(host(fn(on(X, nbgrad.float64, device))), host(fn(on(X, nbgrad.float64, "cpu"))), rtol=1e-13)
    got32 = host(fn(on(X, nbgrad.float32, device)))
    assert got32.dtype == np.float32
    # (the CPU's float32 is PyTorch's float arithmetic, whose sin and cos of a large argument lose
    # digits; the device computes through float64)
    _close(got32, host(fn(on(X, nbgrad.float32, "cpu"))), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_on_device(device, name):
    fn = getattr(nbgrad.special, name)
    # (the simulator's lgamma is Python's, not the C library's: a few ulp apart)
    _close(host(fn(on(A, nbgrad.float64, device), on(G, nbgrad.float64, device))),
           host(fn(on(A, nbgrad.float64, "cpu"), on(G, nbgrad.float64, "cpu"))), rtol=1e-13)
    _close(host(fn(on(A, nbgrad.float32, device), on(G, nbgrad.float32, device))),
           host(fn(on(A, nbgrad.float32, "cpu"), on(G, nbgrad.float32, "cpu"))), rtol=1e-5, atol=1e-7)
    grads = []
    for dev in ("cpu", device):
        x = nbgrad.tensor([0.3, 2.0, 28.0], dtype=nbgrad.float64, device=dev, requires_grad=True)
        g, = nbgrad.autograd.grad(fn(on([0.5, 3.0, 30.0], nbgrad.float64, dev), x).sum(), x)
        grads.append(host(g))
    _close(grads[1], grads[0], rtol=1e-12)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_on_device(device, name):
    fn = getattr(nbgrad.special, name)
    for dtype, rtol in ((nbgrad.float64, 1e-13), (nbgrad.float32, 1e-4)):
        got = host(fn(on(PX, dtype, device), on(PN, dtype, device)))
        want = host(fn(on(PX, dtype, "cpu"), on(PN, dtype, "cpu")))
        _close(got, want, rtol=rtol, atol=1e-5 if dtype is nbgrad.float32 else 0.0)
