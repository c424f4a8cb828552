"""PyTorch's randomized low-rank decompositions, torch.svd_lowrank and torch.pca_lowrank
(Halko, Martinsson and Tropp's randomized range finder, Algorithm 4.4, then an SVD of the
small projected matrix), written over nbgrad's public ops (randn, matmul, linalg.qr,
linalg.svd), which carry their gradients.

Departures from PyTorch: the random test matrix comes from nbgrad's generator, so the
results differ from PyTorch's for the same seed beyond what the decomposition fixes (the
singular values of a matrix of rank <= q, and U diag(S) V^H itself); sparse inputs are not
supported (nbgrad has no sparse tensors).
"""
from . import _dtype as D

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating_dtype(A):
    """torch._linalg_utils.get_floating_dtype: A's dtype when floating, else float32."""
    return A.dtype if A.dtype.is_floating_point else D.float32


def _approximate_basis(A, q, niter=2, M=None):
    """An (m, q) matrix Q with orthonormal columns whose range approximates the range of
    A - M: Q of the QR of (A - M) R for a Gaussian R, refined by niter power iterations
    (each re-orthonormalised, which keeps small singular values from being lost)."""
    from ._creation import randn
    from .linalg import qr
    from .ops.linalg import matmul
    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=_floating_dtype(A), device=A.device)
    X = matmul(A, R)
    if M is not None:
        X = X - matmul(M, R)
    Q = qr(X).Q
    for _ in range(niter):
        X = matmul(A.mH, Q)
        if M is not None:
            X = X - matmul(M.mH, Q)
        Q = qr(X).Q
        X = matmul(A, Q)
        if M is not None:
            X = X - matmul(M, Q)
        Q = qr(X).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V), a rank-q approximation of the SVD of A - M (M broadcast to A's shape):
    A - M ~ U diag(S) V^H with U (*, m, q), S (*, q), V (*, n, q).  q should be slightly
    more than the rank sought; niter: power iterations (more: more accurate, slower)."""
    from .linalg import svd
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:               # the basis of the smaller side: work on A^H
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V): the principal components of the rows of A (centred by its column means
    with center=True) by svd_lowrank; q defaults to min(6, m, n)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return svd_lowrank(A - C, q, niter=niter, M=None)
