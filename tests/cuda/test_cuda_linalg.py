"""nbgrad.linalg on CUDA (staged through the host): values equal to the CPU's, results on
the device, errors and one float64 gradcheck per family.  Tiny shapes (the simulator)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck
from cuda_available import requires_cuda

LA = nbgrad.linalg
RNG = np.random.default_rng(3)
pytestmark = requires_cuda


def host(x):
    return x.cpu().numpy()


def test_factorizations_match_the_cpu():
    a = RNG.standard_normal((2, 3, 3))
    spd = a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)
    for fn, x in [(LA.inv, a), (LA.det, a), (LA.cholesky, spd), (LA.svdvals, a), (LA.eigvalsh, spd),
                  (lambda m: LA.qr(m).R, a), (lambda m: LA.slogdet(m).logabsdet, a),
                  (lambda m: LA.solve(m, m[..., 0]), a), (lambda m: LA.matrix_norm(m, "nuc"), a)]:
        on_gpu = fn(nbgrad.tensor(x, device="cuda"))
        assert on_gpu.device.type == "cuda"
        np.testing.assert_allclose(host(on_gpu), fn(nbgrad.tensor(x)).numpy(), atol=1e-12)


def test_singular_matrix_raises_on_cuda():
    with pytest.raises(LA.LinAlgError, match="The diagonal element 2 is zero"):
        LA.inv(nbgrad.tensor([[1.0, 2.0], [2.0, 4.0]], device="cuda"))


def test_gradients_on_cuda():
    x = nbgrad.tensor(RNG.standard_normal((2, 2)), device="cuda", requires_grad=True)
    assert gradcheck(LA.inv, (x,))
    assert gradcheck(lambda m: LA.eigvalsh(m + m.mT), (x,))
    assert gradcheck(LA.svdvals, (x,))
    LA.det(x).backward()
    assert x.grad.device.type == "cuda"
    np.testing.assert_allclose(host(x.grad), np.linalg.det(host(x.detach())) * np.linalg.inv(host(x.detach())).T)
