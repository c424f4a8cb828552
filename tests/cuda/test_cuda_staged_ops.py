"""Ops the CUDA backend stages through host memory with the CPU's kernels (fractional max
pooling, linalg.ldl_factor / ldl_solve): the devices agree bit for bit on values, indices and
gradients (tiny shapes: the simulator)."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(41)


def host(t):
    t = t.detach()
    return t.cpu().numpy() if t.device.type != "cpu" else t.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_fractional_max_pool_on_device(device, dtype):
    dt = getattr(nbgrad, dtype)
    xs, ss = RNG.standard_normal((2, 3, 9, 8)), RNG.random((2, 3, 2))
    results = []
    for dev in ("cpu", device):
        x = nbgrad.tensor(xs, dtype=dt, device=dev, requires_grad=True)
        s = nbgrad.tensor(ss, dtype=dt, device=dev)
        y, i = nbgrad.nn.functional.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=s,
                                                          return_indices=True)
        (y.float() * nbgrad.arange(y.numel(), device=dev).reshape(y.shape)).sum().backward()
        assert y.device.type == dev and i.device.type == dev
        results.append((host(y), host(i), host(x.grad)))
    for got, want in zip(results[1], results[0]):
        assert got.tobytes() == want.tobytes()


def test_ldl_factor_and_solve_on_device(device):
    a = RNG.standard_normal((2, 5, 5))
    a = a + a.transpose(0, 2, 1)
    b = RNG.standard_normal((2, 5, 3))
    results = []
    for dev in ("cpu", device):
        LD, piv = nbgrad.linalg.ldl_factor(nbgrad.tensor(a, device=dev))
        X = nbgrad.linalg.ldl_solve(LD, piv, nbgrad.tensor(b, device=dev))
        assert (LD.device.type, piv.device.type, X.device.type) == (dev, dev, dev)
        assert LD.stride() == (25, 1, 5) and piv.dtype == nbgrad.int32
        results.append((host(LD), host(piv), host(X)))
    for got, want in zip(results[1], results[0]):
        assert got.tobytes() == want.tobytes()
    np.testing.assert_allclose(a @ results[1][2], b, atol=1e-12)
