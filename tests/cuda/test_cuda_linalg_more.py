"""linalg_more on both devices (tiny shapes: the simulator): the new backend entry points
(linalg_lu_factor, linalg_solve_triangular: CUDA stages through the host) and the functions
composed on them agree with the CPU on values, pivots, info and gradients."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(37)
L = nbgrad.linalg


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


def both(device, fn, *arrays):
    """fn on leaves made from `arrays` on the CPU and on `device`: (outputs, gradients) of each."""
    results = []
    for dev in ("cpu", device):
        xs = [nbgrad.tensor(a, device=dev, requires_grad=a.dtype.kind == "f") for a in arrays]
        outs = fn(*xs)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
        sum(((o * o).sum() for o in floats), nbgrad.tensor(0.0, dtype=nbgrad.float64, device=dev)).backward()
        results.append(([host(o) for o in outs], [host(x.grad) for x in xs if x.requires_grad]))
    return results


def assert_same(results, rtol=1e-12):
    (oc, gc), (od, gd) = results
    for c, d in zip(oc + gc, od + gd):
        assert c.dtype == d.dtype
        np.testing.assert_allclose(d, c, rtol=rtol, atol=1e-13)


def test_lu_factor_and_lu_solve_on_device(device):
    a = RNG.standard_normal((2, 3, 3))
    b = RNG.standard_normal((2, 3, 2))
    assert_same(both(device, lambda x: L.lu_factor_ex(x), a))
    assert_same(both(device, lambda x: L.lu(x), RNG.standard_normal((3, 4))))
    piv = L.lu_factor(nbgrad.tensor(a))[1].numpy()
    assert_same(both(device, lambda lu, p, y: L.lu_solve(lu, p, y, adjoint=True),
                     L.lu_factor(nbgrad.tensor(a))[0].numpy(), piv, b))
    s = nbgrad.tensor([[1., 2], [2, 4]], device=device)
    assert L.lu_factor_ex(s).info.item() == 2


@pytest.mark.parametrize("upper, left", [(True, True), (False, False)])
def test_solve_triangular_and_cholesky_solve_on_device(device, upper, left):
    a = np.triu(RNG.standard_normal((3, 3))) + 3 * np.eye(3)
    a = a if upper else a.T
    b = RNG.standard_normal((2, 3, 3))
    assert_same(both(device, lambda x, y: L.solve_triangular(x, y, upper=upper, left=left), a, b))
    c = np.linalg.cholesky(a @ a.T)
    assert_same(both(device, lambda y, x: nbgrad.cholesky_solve(y, x), b, c))
    assert_same(both(device, lambda x: nbgrad.cholesky_inverse(x), c))


def test_pinv_matrix_exp_cdist_on_device(device):
    assert_same(both(device, L.pinv, RNG.standard_normal((4, 3))), rtol=1e-10)
    assert_same(both(device, L.matrix_exp, RNG.standard_normal((3, 3))), rtol=1e-10)
    for p in (1.0, 2.0):
        assert_same(both(device, lambda x, y: nbgrad.cdist(x, y, p), RNG.standard_normal((3, 2)),
                         RNG.standard_normal((4, 2))))
    assert_same(both(device, lambda x: nbgrad.renorm(x, 2, 0, 0.5), RNG.standard_normal((3, 2))))


def test_vector_norm2_on_device_matches_the_cpu(device, monkeypatch):
    # the CUDA backend's vector_norm2 (its squares, sums and sqrt) serves x.norm() over
    # trailing dims of a row-major tensor, as the CPU's kernel does there
    cuda = nbgrad.backends.get_backend("cuda")
    calls = []
    real = cuda.vector_norm2
    monkeypatch.setattr(cuda, "vector_norm2", lambda *a: calls.append(a[1:]) or real(*a))
    a = RNG.standard_normal((3, 4, 5))
    assert_same(both(device, lambda x: x.norm(2, (1, 2), keepdim=True), a))
    assert_same(both(device, lambda x: nbgrad.linalg.vector_norm(x), a))
    assert_same(both(device, lambda x: x.float().norm(dim=-1).double(), a), rtol=1e-6)
    assert calls == ([(3, 20), (1, 60), (12, 5)] if device != "cpu" else [])
