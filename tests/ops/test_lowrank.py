"""torch.svd_lowrank and torch.pca_lowrank: randomized, so the tests check what does not
depend on the draws: the factorization of a matrix of rank <= q, its singular values against
NumPy's, shapes, orthonormal factors, gradients (against the derivative of the singular values,
U V^T), and PyTorch's errors."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(7)


def low_rank(m, n, r, batch=()):
    return RNG.standard_normal(batch + (m, r)) @ RNG.standard_normal(batch + (r, n))


def reconstruct(U, S, V):
    return (U.numpy() * S.numpy()[..., None, :]) @ np.swapaxes(V.numpy(), -1, -2)


@pytest.mark.parametrize("m, n", [(20, 15), (12, 30)])
def test_svd_lowrank_recovers_a_low_rank_matrix(m, n):
    nbgrad.manual_seed(0)
    a = low_rank(m, n, 3)
    U, S, V = nbgrad.svd_lowrank(nbgrad.tensor(a), q=5)
    assert U.shape == (m, 5) and S.shape == (5,) and V.shape == (n, 5)
    assert U.dtype == S.dtype == V.dtype == nbgrad.float64
    np.testing.assert_allclose(reconstruct(U, S, V), a, atol=1e-10)
    want = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(S.numpy()[:3], want[:3], rtol=1e-10)
    np.testing.assert_allclose(S.numpy()[3:], 0, atol=1e-10)
    # the singular vectors of the nonzero singular values are orthonormal
    np.testing.assert_allclose(U.numpy()[:, :3].T @ U.numpy()[:, :3], np.eye(3), atol=1e-10)
    np.testing.assert_allclose(V.numpy()[:, :3].T @ V.numpy()[:, :3], np.eye(3), atol=1e-10)


def test_svd_lowrank_defaults_batches_float32_and_M():
    nbgrad.manual_seed(1)
    a = low_rank(16, 10, 2, batch=(3,))
    U, S, V = nbgrad.svd_lowrank(nbgrad.tensor(a))             # q=6, niter=2
    assert U.shape == (3, 16, 6) and S.shape == (3, 6) and V.shape == (3, 10, 6)
    np.testing.assert_allclose(reconstruct(U, S, V), a, atol=1e-10)
    for k in range(3):
        np.testing.assert_allclose(S.numpy()[k, :2], np.linalg.svd(a[k], compute_uv=False)[:2], rtol=1e-10)
    U, S, V = nbgrad.svd_lowrank(nbgrad.tensor(a[0], dtype=nbgrad.float32), q=4, niter=0)
    assert S.dtype == nbgrad.float32
    np.testing.assert_allclose(reconstruct(U, S, V), a[0], atol=1e-4)
    # M: the decomposition of A - M (M broadcast to A's shape)
    m_row = RNG.standard_normal((1, 10))
    U, S, V = nbgrad.svd_lowrank(nbgrad.tensor(a[1] + m_row), q=4, M=nbgrad.tensor(m_row))
    np.testing.assert_allclose(reconstruct(U, S, V), a[1], atol=1e-10)


def test_svd_lowrank_gradients_flow():
    # the derivative of the sum of the singular values of a rank-q matrix is U V^T
    nbgrad.manual_seed(2)
    a = low_rank(9, 7, 3)
    A = nbgrad.tensor(a, requires_grad=True)
    U, S, V = nbgrad.svd_lowrank(A, q=3)
    S.sum().backward()
    u, _, vt = np.linalg.svd(a)
    np.testing.assert_allclose(A.grad.numpy(), u[:, :3] @ vt[:3], atol=1e-8)
    A.grad = None
    U, S, V = nbgrad.svd_lowrank(A, q=4)
    (U @ nbgrad.diag(S) @ V.mT).pow(2).sum().backward()          # the rank-3 reconstruction is A itself
    np.testing.assert_allclose(A.grad.numpy(), 2 * a, atol=1e-8)


def test_pca_lowrank():
    nbgrad.manual_seed(3)
    a = low_rank(25, 8, 3) + RNG.standard_normal((1, 8)) * 5      # rank 3 about a mean far from 0
    U, S, V = nbgrad.pca_lowrank(nbgrad.tensor(a))
    assert U.shape == (25, 6) and S.shape == (6,) and V.shape == (8, 6)     # q = min(6, m, n)
    centered = a - a.mean(0, keepdims=True)
    np.testing.assert_allclose(S.numpy()[:3], np.linalg.svd(centered, compute_uv=False)[:3], rtol=1e-10)
    np.testing.assert_allclose(reconstruct(U, S, V), centered, atol=1e-9)
    U, S, V = nbgrad.pca_lowrank(nbgrad.tensor(a), q=4, center=False)
    np.testing.assert_allclose(S.numpy()[:4], np.linalg.svd(a, compute_uv=False)[:4], rtol=1e-10)
    np.testing.assert_allclose(reconstruct(U, S, V), a, atol=1e-9)
    assert nbgrad.pca_lowrank(nbgrad.tensor(a[:, :4]))[1].shape == (4,)
    A = nbgrad.tensor(a, requires_grad=True)
    nbgrad.pca_lowrank(A, q=3)[1].sum().backward()
    u, _, vt = np.linalg.svd(centered)
    # through the centring: (I - 11^T/m) U V^T, which is U V^T itself (U's columns sum to 0)
    np.testing.assert_allclose(A.grad.numpy(), u[:, :3] @ vt[:3], atol=1e-8)


def test_pca_lowrank_errors():
    a = nbgrad.ones(5, 3)
    with pytest.raises(ValueError, match=r"q\(=4\) must be non-negative integer and not greater than min\(m, n\)=3"):
        nbgrad.pca_lowrank(a, q=4)
    with pytest.raises(ValueError, match=r"q\(=-1\) must be non-negative integer"):
        nbgrad.pca_lowrank(a, q=-1)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        nbgrad.pca_lowrank(a, niter=-1)
