"""The functions of ops/misc_functions.py, misc_elementwise.py, windows.py and _random_more.py on
both devices (tiny shapes: the simulator): the devices agree on values and gradients; the CUDA
backend's generator state round-trips."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(37)


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


def test_indexing_functions_on_device(device):
    a, d, s = RNG.standard_normal((3, 4)), RNG.standard_normal(3), RNG.standard_normal(4)
    results = []
    for dev in ("cpu", device):
        x = nbgrad.tensor(a, device=dev, requires_grad=True)
        dg = nbgrad.tensor(d, device=dev, requires_grad=True)
        src = nbgrad.tensor(s, device=dev, requires_grad=True)
        idx = nbgrad.tensor([0, -1], device=dev)
        out = (nbgrad.diagonal_scatter(x, dg) * 2 + x.index_fill(1, idx, 0.5)
               + x.put(nbgrad.tensor([1, 5, 7, 11], device=dev), src, accumulate=True))
        (out * out).sum().backward()
        results.append((host(out), host(x.grad), host(dg.grad), host(src.grad)))
    for c, g in zip(*results):
        np.testing.assert_allclose(g, c, rtol=1e-12)


def test_elementwise_functions_on_device(device):
    v = np.array([0.0, -0.0, 1e-310, 3.0, -0.1, np.inf, 2.5])
    w = np.array([1.0, -1.0, 0.0, 3.0, 1.0, 0.0, -2.0])
    x, y = nbgrad.tensor(v, device=device), nbgrad.tensor(w, device=device)
    m, e = nbgrad.frexp(x)
    want_m, want_e = nbgrad.frexp(nbgrad.tensor(v))
    assert host(m).tolist() == want_m.tolist() and host(e).tolist() == want_e.tolist()
    np.testing.assert_array_equal(host(nbgrad.nextafter(x, y)), np.nextafter(v, w))
    np.testing.assert_array_equal(host(nbgrad.fmax(x, y)), np.fmax(v, w))
    i, j = nbgrad.tensor([12, -18, 7], device=device), nbgrad.tensor([8, 12, 0], device=device)
    assert host(nbgrad.gcd(i, j)).tolist() == [4, 6, 7] and host(nbgrad.lcm(i, j)).tolist() == [24, 36, 0]
    assert host(i << nbgrad.tensor([1, 64, -1], device=device)).tolist() == [24, 0, 0]
    assert host(nbgrad.ldexp(x[3:5], nbgrad.tensor([2, -3], device=device))).tolist() == [12.0, -0.1 / 8]


def test_windows_on_device(device):
    for fn in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        got = getattr(nbgrad, fn)(6, device=device, dtype=nbgrad.float64)
        np.testing.assert_allclose(host(got), getattr(nbgrad, fn)(6, dtype=nbgrad.float64).numpy(), atol=1e-15)


def test_backend_generator_state_round_trip(device):
    from nbgrad.backends import get_backend
    be = get_backend(device)
    be.manual_seed(3)
    state = be.get_rng_state()
    def draw():
        buf = be.uniform(5, np.float64, 0.0, 1.0)
        return be.to_host((buf, 0, (5,), (1,))) if device != "cpu" else buf
    first = draw()
    be.set_rng_state(state)
    again = draw()
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))
    with pytest.raises(RuntimeError, match="Expected an RNG state of size"):
        be.set_rng_state(np.zeros(3, dtype=np.uint8))
