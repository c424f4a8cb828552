"""scatter_reduce and the functions of ops/more_functions.py on both devices (tiny shapes:
the simulator): the devices agree on values and gradients."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(31)


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_on_device(device, reduce):
    a, s = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 4))
    index = RNG.integers(0, 3, (4, 4))
    results = []
    for dev in ("cpu", device):
        x = nbgrad.tensor(a, device=dev, requires_grad=True)
        src = nbgrad.tensor(s, device=dev, requires_grad=True)
        out = x.scatter_reduce(0, nbgrad.tensor(index, device=dev), src, reduce, include_self=False)
        (out * out).sum().backward()
        results.append((host(out), host(x.grad), host(src.grad)))
    for c, d in zip(*results):
        np.testing.assert_allclose(d, c, rtol=1e-12)
    h = nbgrad.tensor([5.0, 2.0], dtype=nbgrad.float16, device=device)
    hs = nbgrad.tensor([1.1, 1.3, 1.7], dtype=nbgrad.float16, device=device)
    out = h.scatter_reduce(0, nbgrad.tensor([0, 0, 1], device=device), hs, reduce)
    assert out.tolist() == h.cpu().scatter_reduce(0, nbgrad.tensor([0, 0, 1]), hs.cpu(), reduce).tolist()


def test_index_copy_and_masked_scatter_on_device(device):
    a, s, t = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 2)), RNG.standard_normal(8)
    mask = RNG.random((3, 4)) < 0.5
    results = []
    for dev in ("cpu", device):
        x = nbgrad.tensor(a, device=dev, requires_grad=True)
        src = nbgrad.tensor(s, device=dev, requires_grad=True)
        flat = nbgrad.tensor(t, device=dev, requires_grad=True)
        out = x.index_copy(1, nbgrad.tensor([3, 0], device=dev), src)
        out = out.masked_scatter(nbgrad.tensor(mask, device=dev), flat * 2)
        (out * out).sum().backward()
        results.append((host(out), host(x.grad), host(src.grad), host(flat.grad)))
    for c, d in zip(*results):
        np.testing.assert_allclose(d, c, rtol=1e-12)
