"""Issue 14's composed functions on both devices (tiny shapes: the simulator): the
devices agree on values and gradients."""
import numpy as np

import nbgrad

RNG = np.random.default_rng(14)


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


def test_composites_on_device(device):
    a, b, i = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2)), RNG.standard_normal(2)
    x = nbgrad.tensor(a, device=device, requires_grad=True)
    y = nbgrad.tensor(b, device=device, requires_grad=True)
    v = nbgrad.tensor(i, device=device, requires_grad=True)
    out = nbgrad.addmm(v, x, y, beta=0.5) + nbgrad.diag(v).sum() + x.trace() + nbgrad.logaddexp(x, 2 * x).sum()
    np.testing.assert_allclose(host(out), 0.5 * i + a @ b + i.sum() + np.trace(a) + np.logaddexp(a, 2 * a).sum())
    out.sum().backward()
    np.testing.assert_allclose(host(y.grad), a.T @ np.ones((2, 2)))
    # v: 0.5 per element of its column in addmm (2 rows), and diag(v).sum() added to all 4 outputs
    np.testing.assert_allclose(host(v.grad), np.full(2, 0.5 * 2 + 4))
    c = nbgrad.tensor(RNG.standard_normal((2, 4)), device=device, requires_grad=True)
    r = nbgrad.cummax(c, 1)
    np.testing.assert_allclose(host(r.values), np.maximum.accumulate(host(c), 1))
    np.testing.assert_allclose(host(nbgrad.logcumsumexp(c, 1)), np.logaddexp.accumulate(host(c), 1))
    np.testing.assert_allclose(host(c.quantile(0.4, 1)), np.quantile(host(c), 0.4, 1))
    np.testing.assert_allclose(host(c.unfold(1, 2, 1)).shape, (2, 3, 2))
    assert c.median(1).values.device.type == device


def test_layer_norm_on_device_is_the_cpus(device):
    """The device's layer_norm_forward/backward (its own primitives) against the CPU's one pass."""
    x, w, b, g = (RNG.standard_normal(s) for s in ((3, 2, 4), (2, 4), (2, 4), (3, 2, 4)))
    results = []
    for dev in ("cpu", device):
        X, W, B = (nbgrad.tensor(v, device=dev, requires_grad=True) for v in (x, w, b))
        y = nbgrad.nn.functional.layer_norm(X, (2, 4), W, B)
        assert y.grad_fn.name() == "NativeLayerNormBackward0" and y.device.type == dev
        y.backward(nbgrad.tensor(g, device=dev))
        results.append([host(t) for t in (y, X.grad, W.grad, B.grad)])
    for a, c in zip(*results):
        np.testing.assert_allclose(c, a, rtol=1e-12, atol=1e-12)
