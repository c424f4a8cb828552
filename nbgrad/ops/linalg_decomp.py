"""torch.linalg's factorizations, solves and norms: inv, det, slogdet, solve, svd, svdvals,
qr, cholesky, eigh, eigvalsh, cross, vector_norm, matrix_norm, norm.

The numerical work is the backend's (LAPACK through Numba on the CPU, staged through the
host on CUDA: nbgrad/backends/cpu/linalg_lapack.py); everything here is meaning: PyTorch's
argument checks and errors, batching and broadcasting, result layouts (LAPACK's batched
column-major, as PyTorch returns them), and the backward nodes.  Each backward is
PyTorch's formula (FunctionsManual.cpp: linalg_inv, linalg_det_backward, slogdet_backward,
linalg_solve_backward, svd_backward, linalg_eig_backward, linalg_qr_backward,
cholesky_backward) written with differentiable Tensor ops, so create_graph=True gives
higher derivatives.  PyTorch's triangular solves in the qr/cholesky backward are general
solves here (the same values; a second derivative's graph shows LinalgSolveEx nodes).
"""
import math

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._checks import as_number
from .._tensor import Tensor
from .._layout import row_major_strides
from ..return_types import return_type
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._graph import (backend_of, broadcast_shapes, broadcast_view, check_same_device, copy_raw, needs_grad,
                     new_tensor, record, _wrap)
from . import views as V
from .linalg import matmul
from ._dtype_rules import check as check_dtype, refuse, not_implemented, INTEGRAL, check_same_dtype


class LinAlgError(RuntimeError):
    """PyTorch's torch.linalg.LinAlgError (torch._C._LinAlgError): a RuntimeError raised
    when a factorization or solve fails on its input (a singular matrix, one that is not
    positive-definite)."""


# named as PyTorch's class is (type(e).__name__ and tracebacks print _LinAlgError)
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


slogdet_result = return_type("linalg_slogdet", ["sign", "logabsdet"])
torch_slogdet_result = return_type("slogdet", ["sign", "logabsdet"])
svd_result = return_type("linalg_svd", ["U", "S", "Vh"])
qr_result = return_type("linalg_qr", ["Q", "R"])
eigh_result = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])


# -- checks, layouts, errors -------------------------------------------------------
def _check_matrix(op, A, square=True, kernel=None, refuse_int_as=None):
    """PyTorch's checks of a linalg input, in its order: a Tensor, >= 2 dims, square, a
    float32/float64 dtype.  kernel: the CPU kernel whose dispatch refuses float16
    (NotImplementedError); else the "Low precision dtypes" RuntimeError."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{A._shape[-2]} by {A._shape[-1]} matrices")
    dt = A._dtype
    if dt is D.float32 or dt is D.float64:
        return
    name = D.scalar_type_name(dt)
    if refuse_int_as is not None:
        refuse(refuse_int_as, dt, INTEGRAL)
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {name}")
    if kernel is not None:
        raise not_implemented(kernel, dt)
    raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {name}")


def _raise_on_failure(info, op, batched, what):
    """PyTorch's error for the first matrix whose LAPACK info (an array or a list) is non-zero."""
    for b, code in enumerate(info.tolist() if hasattr(info, "tolist") else info):
        if code:
            where = f"(Batch element {b}): " if batched else ""
            error = LinAlgError(f"{op}: {where}{what(code)}")
            error.after_kernel = True       # (found after PyTorch's kernel ran: ops/_out checks out= first)
            raise error


def _column_major_strides(shape):
    """LAPACK's layout, PyTorch's for its linalg results: each matrix column-major,
    the batch outside."""
    m, n = shape[-2], shape[-1]
    strides = [1, max(m, 1)]
    step = max(m * n, 1)
    for size in reversed(shape[:-2]):
        strides.insert(0, step)
        step *= max(size, 1)
    return tuple(strides)


def _matrices(buf, shape, A):
    """A backend result (C order) of `shape` as PyTorch lays it out: batched column-major."""
    t = new_tensor(buf, tuple(shape), A._dtype, A.device)
    if len(shape) >= 2 and t.numel():
        return copy_raw(t, _column_major_strides(tuple(shape)))
    return t


def _vectors(buf, shape, A):
    return new_tensor(buf, tuple(shape), A._dtype, A.device)


def _solved_vectors(buf, shape, A):
    """A batch of solved vectors (..., b, n) as PyTorch lays it out: the transpose of a
    row-major (..., n, b), since it solves the batch's last dim as the columns of one
    right-hand side (recorded from torch 2.13: (2, 3) -> strides (1, 2))."""
    t = _vectors(buf, shape, A)
    if len(shape) >= 2 and t.numel():
        rm = list(row_major_strides(tuple(shape[:-2]) + (shape[-1], shape[-2])))
        return copy_raw(t, tuple(rm[:-2]) + (rm[-1], rm[-2]))
    return t


def _eye(n, like):
    from .._creation import eye
    return eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v):
    """(..., n) -> (..., n, n) with v on the diagonal and exact zeros off it (differentiable;
    not v * eye, whose 0 * inf would put NaN off the diagonal, as PyTorch's diag_embed does not)."""
    from .more import diag_embed
    return diag_embed(v)


def _tril(x, k=0):
    """x with the elements above its k-th diagonal set to zero (differentiable)."""
    from .._creation import arange
    from .elementwise import where
    m, n = x.shape[-2], x.shape[-1]
    rows = V.unsqueeze(arange(m, device=x.device), -1)
    keep = (arange(n, device=x.device) - rows) <= k
    return where(keep, x, x.new_zeros(()))      # (x's dtype kept: lu_unpack of an integer or bool LU)


def _triu(x, k=0):
    return V.mT(_tril(V.mT(x), -k))


# -- inverse -----------------------------------------------------------------------
class LinalgInvExBackward0(Node):
    def backward(self, g, g_info=None):
        # derivatives.yaml: -A^{-H} grad A^{-H}
        (inverse,) = self.saved_tensors
        inv_h = V.mT(inverse)
        return -matmul(inv_h, matmul(g, inv_h))


def inv(A, *, out=None):
    _check_matrix("linalg.inv", A)
    buf, info = backend_of(A).linalg_inv(A._view_tuple())
    _raise_on_failure(info, "linalg.inv", A.dim() > 2, lambda k: f"The diagonal element {k} is zero, the "
                      "inversion could not be completed because the input matrix is singular.")
    result = _matrices(buf, A._shape, A)
    if needs_grad(A):
        record(LinalgInvExBackward0, (A,), (result,)).save(result, outputs=(result,))
    return result


def inverse(A):
    return inv(A)


# -- solve -------------------------------------------------------------------------
def _is_vector_rhs(A, B):
    """PyTorch's linalg_solve_is_vector_rhs: B is a vector, or a batch of vectors whose
    batch is exactly A's."""
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and tuple(B._shape) == tuple(A._shape[:-1]))


def _solved_with(A, factored):
    """The matrix a backward of solve, det or slogdet solves with.  PyTorch's solves with the
    LU it saved at forward, so a later change of A's data through .data (which no version
    check sees) does not reach the gradient; only under create_graph does it factor A again,
    to differentiate through it.  `factored` is a copy of A made at forward, standing in for
    PyTorch's saved LU and pivots."""
    return A if is_grad_enabled() else factored


class LinalgSolveExBackward0(Node):
    def backward(self, gX, g_info=None):
        # linalg_solve_backward (left=True): gB = A^{-H} gX, gA = -gB X^H
        A, X, factored = self.saved_tensors
        gX2 = V.unsqueeze(gX, -1) if self.vector else gX
        gB = solve(V.mT(_solved_with(A, factored)), gX2)
        gA = None
        if self.needs_input_grad(0):
            X2 = V.unsqueeze(X, -1) if self.vector else X
            gA = -matmul(gB, V.mT(X2))
        if not self.needs_input_grad(1):
            return gA, None
        return gA, (V.squeeze(gB, -1) if self.vector else gB)


def solve(A, B, *, left=True, out=None):
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg_solve(): argument 'B' (position 2) must be Tensor, not {type(B).__name__}")
    _check_matrix("linalg.solve", A, kernel="lu_cpu")
    if not left:
        # XA = B is A^T X^T = B^T
        return V.mT(solve(V.mT(A), V.mT(B)))
    check_same_device(A, B)
    if A._dtype is not B._dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{D.scalar_type_name(A._dtype)} and B of type {D.scalar_type_name(B._dtype)} instead")
    vector = _is_vector_rhs(A, B)
    B2 = V.unsqueeze(B, -1) if vector else B
    n = A._shape[-1]
    if B2.dim() < 2 or B2._shape[-2] != n:
        rows = B2._shape[-2] if B2.dim() >= 2 else B2._shape[-1]
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A._shape[-2]}x{n} and {rows}x{B2._shape[-1] if B2.dim() >= 2 else 1})")
    batch = tuple(broadcast_shapes(A._shape[:-2], B2._shape[:-2]))
    k = B2._shape[-1]
    buf, info = backend_of(A).linalg_solve(broadcast_view(A, batch + (n, n)), broadcast_view(B2, batch + (n, k)))
    _raise_on_failure(info, "torch.linalg.solve", len(batch) > 0,
                      lambda code: "The solver failed because the input matrix is singular.")
    if vector:
        X = _solved_vectors(buf, batch + (n,), A)
    else:
        X = _matrices(buf, batch + (n, k), A)
    if needs_grad(A, B):
        record(LinalgSolveExBackward0, (A, B), (X,), vector=vector).save(A, X, copy_raw(A), outputs=(X,))
    return X


# -- determinants --------------------------------------------------------------------
def _prod_of_others(S):
    """prod_{j != i} S_j for each i along the last dim, without dividing (PyTorch's
    prod_safe_zeros_backward with grad 1): S with its i-th entry replaced by 1, multiplied."""
    from .elementwise import where
    n = S.shape[-1]
    rows = V.expand(V.unsqueeze(S, -2), tuple(S.shape[:-1]) + (n, n))
    return where(_eye(n, S) != 0, 1.0, rows).prod(-1)


def _cofactor_gradient(g, A):
    """g times the cofactor matrix of A, without inverting it (PyTorch's singular branch
    of linalg_det_backward): A = U diag(S) Vh, det A = det U det Vh prod S, so the
    gradient is U diag(g det(U) det(Vh) prod_{j!=i} S_j) Vh."""
    U, S, Vh = svd(A)
    alpha = det(U) * det(Vh)
    weights = V.unsqueeze(g * alpha, -1) * _prod_of_others(S)
    return matmul(U * V.unsqueeze(weights, -2), Vh)


def _det_gradient(g, det_value, A):
    """linalg_det_backward: g det A^{-H}, through a solve; a batch holding an exactly
    singular matrix takes the cofactor formula for the whole batch.  (PyTorch's backward
    without create_graph solves with the LU even there; the cofactors are what it gives
    with create_graph, and the gradient.)"""
    if A.numel() == 0:
        from .._creation import zeros_like
        return zeros_like(A)
    if A.shape[-1] == 1:
        # d det / dA of a 1x1 matrix is 1: the gradient is g itself, with no history of A
        # (PyTorch's shortcut: g.unsqueeze(-1).unsqueeze(-1).expand(A.shape))
        return V.expand(V.unsqueeze(V.unsqueeze(g, -1), -1), tuple(A.shape))
    d = _diag_embed(V.expand(V.unsqueeze(g * det_value, -1), tuple(A.shape[:-1])))
    try:
        return solve(V.mT(A), d)
    except LinAlgError:
        return _cofactor_gradient(g, A)


class LinalgDetBackward0(Node):
    def backward(self, g, g_lu=None, g_pivots=None):
        A, det_value, factored = self.saved_tensors
        return _det_gradient(g, det_value, _solved_with(A, factored))


def _lu_input(A):
    """The matrix PyTorch's det and slogdet factor: A^T when A is contiguous (det A^T = det A,
    and LAPACK then reads A's memory as it is, column-major), else A.  With NaN or inf in A
    the two factorizations differ (which inf meets which), and so do the results."""
    return V.mT(A) if A.is_contiguous() else A


def det(A, *, out=None):
    _check_matrix("linalg.det", A, kernel="lu_cpu")
    buf = backend_of(A).linalg_det(_lu_input(A)._view_tuple())
    result = _vectors(buf, A._shape[:-2], A)
    if needs_grad(A):
        record(LinalgDetBackward0, (A,), (result,)).save(A, result, copy_raw(A), outputs=(result,))
    return result


class LinalgSlogdetBackward0(Node):
    def backward(self, g_sign=None, g_logabsdet=None, *rest):
        # slogdet_backward, real: d log|det A| = tr(A^{-1} dA): grad A^{-H}
        if g_logabsdet is None:
            return None
        A, _sign, factored = self.saved_tensors
        A = _solved_with(A, factored)
        d = _diag_embed(V.expand(V.unsqueeze(g_logabsdet, -1), tuple(A.shape[:-1])))
        try:
            return solve(V.mT(A), d)
        except LinAlgError:
            # a singular matrix: log|det| has an infinite slope (cofactors / |det A|, which is 0)
            return _cofactor_gradient(g_logabsdet, A) / V.unsqueeze(V.unsqueeze(det(A).abs(), -1), -1)


def slogdet(A):
    _check_matrix("linalg.slogdet", A)
    sbuf, lbuf = backend_of(A).linalg_slogdet(_lu_input(A)._view_tuple())
    batch = A._shape[:-2]
    sign, logabsdet = _vectors(sbuf, batch, A), _vectors(lbuf, batch, A)
    if needs_grad(A):
        # PyTorch's slogdet_backward saves A, the sign and the LU factors, not logabsdet:
        # changing logabsdet in place is allowed, changing the sign is refused
        record(LinalgSlogdetBackward0, (A,), (sign, logabsdet)).save(A, sign, copy_raw(A), outputs=(sign,))
    return slogdet_result(sign, logabsdet)


def torch_slogdet(input):
    """torch.slogdet / Tensor.slogdet: linalg.slogdet under its own result type (torch.return_types.slogdet)."""
    return torch_slogdet_result(*slogdet(input))


# -- cholesky ------------------------------------------------------------------------
class LinalgCholeskyExBackward0(Node):
    def backward(self, gL, g_info=None):
        # cholesky_backward (Murray 2016): with Phi(X) = tril(X) with a halved diagonal,
        # gA = L^{-H} Phi(L^H gL) L^{-1}, symmetrised
        (L,) = self.saved_tensors
        if self.upper:
            L, gL = V.mT(L), V.mT(gL)
        gA = _tril(matmul(V.mT(L), gL))
        gA = 0.5 * (gA + V.mT(_tril(gA, -1)))
        # PyTorch's two solve_triangular calls read one triangle of L: tril(L) gives the
        # same values and, under create_graph, no derivative for L's (zero) upper triangle
        Lt = _tril(L)
        gA = solve(V.mT(Lt), gA)                   # L^{-H} gA
        gA = V.mT(solve(V.mT(Lt), V.mT(gA)))       # gA L^{-1}
        # laid out column-major, as PyTorch's last step (a right-sided triangular solve)
        # leaves it: the layout shows in autograd.grad's results and in accumulated grads
        if gA.numel() == 0:
            return gA
        if is_grad_enabled():                      # create_graph: a differentiable copy
            return V.mT(V.mT(gA).contiguous())
        return copy_raw(gA, _column_major_strides(tuple(gA.shape)))


def _factored_triangle(A, upper):
    """The view whose lower triangle the backend's (lower) Cholesky reads: A's own, or for
    upper=True A's upper one (LAPACK's uplo='U' reads only it), as A.mT's lower."""
    return (V.mT(A) if upper else A)._view_tuple()


def cholesky(A, *, upper=False, out=None):
    return factor_cholesky(A, upper)


def factor_cholesky(A, upper, op="linalg.cholesky"):
    """linalg.cholesky; torch.cholesky's failure names its own op (`op`)."""
    _check_matrix("linalg.cholesky", A, kernel="cholesky_cpu")
    buf, info = backend_of(A).linalg_cholesky(_factored_triangle(A, upper))
    _raise_on_failure(info, op, A.dim() > 2, lambda k: "The factorization could not be "
                      f"completed because the input is not positive-definite (the leading minor of order {k} "
                      "is not positive-definite).")
    L = new_tensor(buf, A._shape, A._dtype, A.device)
    if upper:
        L = V.mT(L)                  # U = L^H, laid out column-major as PyTorch's
    result = copy_raw(L, _column_major_strides(tuple(A._shape))) if A.numel() else L
    if needs_grad(A):
        record(LinalgCholeskyExBackward0, (A,), (result,), upper=bool(upper)).save(result, outputs=(result,))
    return result


# -- qr ------------------------------------------------------------------------------
class LinalgQrBackward0(Node):
    def backward(self, gQ=None, gR=None):
        Q, R = self.saved_tensors
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if gQ is None and gR is None:
            return None
        return _qr_gradient(gQ, gR, Q, R)


def _qr_gradient(gQ, gR, Q, R):
    """linalg_qr_backward.  m >= n: gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^{-H},
    syminvadj(X) = X + X^H with the diagonal once.  m < n: A = [X | Y] = Q [U | W], where
    Q, U are X's (square) factors and W = Q^H Y: Y gets Q gW, X the square formula with
    gQ + Y gW^H in place of gQ."""
    m, n = Q.shape[-2], R.shape[-1]
    if m < n:
        U, W = V.narrow(R, -1, 0, m), V.narrow(R, -1, m, n - m)
        gU = None if gR is None else V.narrow(gR, -1, 0, m)
        gW = None if gR is None else V.narrow(gR, -1, m, n - m)
        from .indexing import cat
        if gW is None:     # Y has no gradient: zeros beside X's
            from .._creation import zeros
            gX = _qr_gradient(gQ, None, Q, U)
            return cat([gX, zeros(tuple(gX.shape[:-1]) + (n - m,), dtype=gX.dtype, device=gX.device)], -1)
        Y = matmul(Q, W)
        gQ_x = matmul(Y, V.mT(gW)) if gQ is None else gQ + matmul(Y, V.mT(gW))
        return cat([_qr_gradient(gQ_x, gU, Q, U), matmul(Q, gW)], -1)
    if gQ is not None:
        gA = -matmul(V.mT(Q), gQ) if gR is None else matmul(gR, V.mT(R)) - matmul(V.mT(Q), gQ)
    else:
        gA = matmul(gR, V.mT(R))
    upper = _triu(gA)
    sym = upper + V.mT(upper) - _diag_embed(V.diagonal(upper, 0, -2, -1))
    gA = matmul(Q, sym)
    if gQ is not None:
        gA = gA + gQ
    return V.mT(solve(R, V.mT(gA)))        # gA R^{-H}


def qr(A, mode="reduced", *, out=None):
    _check_matrix("linalg.qr", A, square=False, kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    m, n = A._shape[-2], A._shape[-1]
    complete = mode == "complete"
    qbuf, rbuf = backend_of(A).linalg_qr(A._view_tuple(), complete)
    k = m if complete else min(m, n)
    batch = tuple(A._shape[:-2])
    R = _matrices(rbuf, batch + (k, n), A)
    if mode == "r":
        Q = new_tensor(backend_of(A).empty(0, A._dtype.np), (0,), A._dtype, A.device)
    else:
        Q = _matrices(qbuf, batch + (m, k), A)
    if needs_grad(A):
        record(LinalgQrBackward0, (A,), (Q, R), mode=mode).save(Q, R, outputs=(Q, R))
    return qr_result(Q, R)


# -- svd -----------------------------------------------------------------------------
def _svd_gradient(gU, gS, gVh, U, S, Vh):
    """svd_backward (real): gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] V^H
    with E_ij = S_j^2 - S_i^2, plus the terms of the columns outside U's or V's span."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return (matmul(U, V.unsqueeze(gS, -1) * Vh) if m >= n else matmul(U * V.unsqueeze(gS, -2), Vh))
    UhgU = None if gU is None else matmul(V.mT(U), gU)
    VhgV = None if gVh is None else matmul(Vh, V.mT(gVh))
    if UhgU is not None:
        UhgU = UhgU - V.mT(UhgU)
    if VhgV is not None:
        VhgV = VhgV - V.mT(VhgV)
    S2 = S * S
    E = V.unsqueeze(S2, -2) - V.unsqueeze(S2, -1) + _eye(S.shape[-1], S)
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * V.unsqueeze(S, -2) + V.unsqueeze(S, -1) * VhgV) / E
    elif UhgU is not None:
        gA = UhgU * (V.unsqueeze(S, -2) / E)
    else:
        gA = V.unsqueeze(S, -1) * (VhgV / E)
    if gS is not None:
        gA = gA + _diag_embed(gS)
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = gU / V.unsqueeze(S, -2)
        gA = gA + gUSinv - matmul(U, matmul(V.mT(U), gUSinv))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(gA, Vh)
        SinvgVh = gVh / V.unsqueeze(S, -1)
        gA = gA + SinvgVh - matmul(matmul(SinvgVh, V.mT(Vh)), Vh)
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh)) if m >= n else matmul(matmul(U, gA), Vh)


class LinalgSvdBackward0(Node):
    def backward(self, gU=None, gS=None, gVh=None):
        if gU is None and gS is None and gVh is None:
            return None
        U, S, Vh = self.saved_tensors
        if self.full_matrices:
            k = S.shape[-1]
            U, Vh = V.narrow(U, -1, 0, k), V.narrow(Vh, -2, 0, k)
            gU = None if gU is None else V.narrow(gU, -1, 0, k)
            gVh = None if gVh is None else V.narrow(gVh, -2, 0, k)
        return _svd_gradient(gU, gS, gVh, U, S, Vh)


def _svd(A, full_matrices, op):
    _check_matrix(op, A, square=False, kernel="linalg_svd_cpu")
    m, n = A._shape[-2], A._shape[-1]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    if A.numel():
        # PyTorch's LAPACK (gesdd) fails on a matrix holding a nan, and PyTorch reports it
        # (an inf gives nans without an error); ours returns nans, so the check is here
        with no_grad():
            has_nan = A.isnan().reshape(batch + (m * n,)).any(-1).reshape(-1).tolist()
        _raise_on_failure([int(x) for x in has_nan], "linalg.svd", len(batch) > 0,
                          lambda code: "The algorithm failed to converge because the input matrix contained "
                                       "non-finite values.")
    ubuf, sbuf, vbuf = backend_of(A).linalg_svd(A._view_tuple(), bool(full_matrices))
    U = _matrices(ubuf, batch + (m, m if full_matrices else k), A)
    S = _vectors(sbuf, batch + (k,), A)
    Vh = _matrices(vbuf, batch + (n if full_matrices else k, n), A)
    return U, S, Vh


def svd(A, full_matrices=True, *, driver=None, out=None):
    U, S, Vh = _svd(A, full_matrices, "linalg.svd")
    if needs_grad(A):
        record(LinalgSvdBackward0, (A,), (U, S, Vh), full_matrices=bool(full_matrices)).save(
            U, S, Vh, outputs=(U, S, Vh))
    return svd_result(U, S, Vh)


def svdvals(A, *, driver=None, out=None):
    U, S, Vh = _svd(A, False, "linalg.svd")      # (ATen's svdvals is _linalg_svd: its words)
    if needs_grad(A):
        # PyTorch computes the vectors when A requires grad; only S is returned
        # (U and Vh are the node's outputs too, so that a second derivative flows through them)
        record(LinalgSvdBackward0, (A,), (U, S, Vh), full_matrices=False).save(U, S, Vh, outputs=(U, S, Vh))
    return S


# -- eigh ----------------------------------------------------------------------------
def _eigh_gradient(gL, gV, L, Vec):
    """linalg_eig_backward, Hermitian: gA = V (skew(V^H gV)/2 / E + diag(gL)) V^H with
    E_ij = L_j - L_i (ones on the diagonal)."""
    if gV is None:
        return matmul(Vec * V.unsqueeze(gL, -2), V.mT(Vec))
    VhgV = matmul(V.mT(Vec), gV)
    VhgV = 0.5 * (VhgV - V.mT(VhgV))
    E = V.unsqueeze(L, -2) - V.unsqueeze(L, -1) + _eye(L.shape[-1], L)
    ret = VhgV / E
    if gL is not None:
        ret = ret + _diag_embed(gL)      # VhgV's diagonal is exactly 0: this sets it to gL
    return matmul(Vec, matmul(ret, V.mT(Vec)))


class LinalgEighBackward0(Node):
    def backward(self, gL=None, gV=None):
        if gL is None and gV is None:
            return None
        L, Vec = self.saved_tensors
        return _eigh_gradient(gL, gV, L, Vec)


def _eigh(A, UPLO, op):
    _check_matrix(op, A, kernel="linalg_eigh_cpu", refuse_int_as="linalg_eigh_cpu")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    wbuf, vbuf = backend_of(A).linalg_eigh(A._view_tuple(), UPLO == "U")
    return _vectors(wbuf, A._shape[:-1], A), _matrices(vbuf, A._shape, A)


def eigh(A, UPLO="L", *, out=None):
    L, Vec = _eigh(A, UPLO, "linalg.eigh")
    if needs_grad(A):
        record(LinalgEighBackward0, (A,), (L, Vec)).save(L, Vec, outputs=(L, Vec))
    return eigh_result(L, Vec)


def eigvalsh(A, UPLO="L", *, out=None):
    L, Vec = _eigh(A, UPLO, "linalg.eigvalsh")
    if needs_grad(A):
        record(LinalgEighBackward0, (A,), (L, Vec)).save(L, Vec, outputs=(L, Vec))
    return L


# -- cross ---------------------------------------------------------------------------
class LinalgCrossBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = cross(b, g, dim=self.dim) if self.needs_input_grad(0) else None
        gb = cross(g, a, dim=self.dim) if self.needs_input_grad(1) else None
        return ga, gb


def cross(input, other, *, dim=-1, out=None):
    a, b = input, other
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap(dim, a.dim())
    if a._shape[d] != 3 or b._shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a._shape[d]} "
                           f"and {b._shape[d]}")
    check_same_device(a, b)
    # PyTorch's order: the meta function's shapes, then the kernel's dispatch on input's dtype
    # (no bool kernel), then its read of other as that dtype
    shape = tuple(broadcast_shapes(a._shape, b._shape))
    check_dtype("cross", a._dtype)
    check_same_dtype(a._dtype, b._dtype)
    from .indexing import stack
    with no_grad():
        ae, be = V.expand(a, shape), V.expand(b, shape)
        x = [V.select(ae, d, i) for i in range(3)]
        y = [V.select(be, d, i) for i in range(3)]
        result = stack([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]], d)
    if needs_grad(a, b):
        # each input's derivative reads only the other (PyTorch saves only what is read)
        record(LinalgCrossBackward0, (a, b), (result,), dim=d).save(a if needs_grad(b) else None,
                                                                     b if needs_grad(a) else None)
    return result


def torch_cross(input, other, dim=None):
    """torch.cross / Tensor.cross: linalg.cross, except that without `dim` it takes the
    first dim of size 3 (deprecated in PyTorch, with its warning)."""
    if dim is None:
        _warn_user("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                   "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change "
                   "to agree with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = tuple(broadcast_shapes(input._shape, other._shape)) if input.dim() == other.dim() else input._shape
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError(f"no dimension of size 3 in input")
    return cross(input, other, dim=dim)


# -- norms ---------------------------------------------------------------------------
def _check_norm_input(op, x, low_precision=True):
    """ATen's checkFloatingOrComplex; low_precision False: float16 and bfloat16 refused too (the
    matrix norms computed from singular values)."""
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(x._dtype)}")
    if not low_precision and x._dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {D.scalar_type_name(x._dtype)}")


def _check_norm_dtype(op, x, dtype):
    """ATen's check of a norm's dtype argument against its input's (a matrix norm checks its
    dims between _check_norm_input and this)."""
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError(f"{op}: dtype should be floating point or complex, but got "
                               f"{D.scalar_type_name(dtype)}")
        if D.promote_types(x._dtype, dtype) is not dtype:
            raise RuntimeError(f"{op}: the dtype of the input ({D.scalar_type_name(x._dtype)}) should be "
                               f"convertible without narrowing to the specified dtype "
                               f"({D.scalar_type_name(dtype)})")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    from .reduction import norm as _vector_norm
    ord = as_number(ord, "linalg_vector_norm", "ord", 2)
    _check_norm_input("linalg.vector_norm", x)
    _check_norm_dtype("linalg.vector_norm", x, dtype)
    if dtype is not None and dtype is not x._dtype:
        x = x.to(dtype)
    return _vector_norm(x, ord, dim, keepdim)


def _matrix_dims(op, A, dim):
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:     # (ATen prints the dims space-separated)
        got = " ".join(map(str, dim)) if isinstance(dim, (tuple, list)) else dim
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {got}")
    d0, d1 = _wrap(dim[0], A.dim()), _wrap(dim[1], A.dim())
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({d0}, {d1})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    op = "linalg.matrix_norm"
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg_matrix_norm(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}")
    # ATen's order: the order, A a matrix of floats, the dims, the dtype
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{op}: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"{op}: Order {ord:g} not supported.")
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _check_norm_input(op, A, low_precision=not (ord == "nuc" or (not isinstance(ord, str) and abs(ord) == 2)))
    d0, d1 = _matrix_dims(op, A, dim)
    _check_norm_dtype(op, A, dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if dtype is not None and dtype is not A._dtype:
        A = A.to(dtype)
    if ord == "nuc" or abs(ord) == 2:
        # the singular values over the two dims moved to the end
        perm = [i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1]
        S = svdvals(V.permute(A, perm))
        result = S.sum(-1, keepdim) if ord == "nuc" else _extremum(S, S.dim() - 1, keepdim, ord)
        if keepdim:         # (ATen's: a last dim added, then the permutation undone: PermuteBackward0)
            inverse = [0] * len(perm)
            for i, d in enumerate(perm):
                inverse[d] = i
            result = V.permute(V.unsqueeze(result, -1), inverse)
        return result
    # the 1 norm: the largest column sum; inf: the largest row sum (the 1 norm of A^T)
    if abs(ord) == math.inf:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1, d0, keepdim)
    return _extremum(sums, d1, keepdim, ord)


def _extremum(x, dim, keepdim, ord):
    """matrix_norm's last step: amax over dim for a positive order, amin for a negative one.
    PyTorch's largest over an empty dim is zeros, a new tensor without history (amax itself
    refuses it, as amin does here)."""
    if ord > 0 and x._shape[dim] == 0:
        shape = list(x._shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        from .._creation import zeros
        return zeros(shape, dtype=x._dtype, device=x.device)
    return x.amax(dim, keepdim) if ord > 0 else x.amin(dim, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.norm: a vector norm, or a matrix norm when ord is given and there are
    two dims (dim of length 2, or a 2-D input without dim)."""
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str):
        if dim is None:
            dim = (0, 1)
        elif len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
        return matrix_norm(A, ord, tuple(dim), keepdim, dtype=dtype)
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2)):
        return matrix_norm(A, ord, tuple(dim) if dim is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def tensor_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm / Tensor.norm (torch/functional.py): 'fro' (over <= 2 dims) and numbers
    are vector norms, 'nuc' the matrix norm."""
    from .. import linalg          # (the public functions: their parser checks the arguments passed on)
    input.layout        # (its Python's first read: `if input.layout == torch.strided and ...`)
    _dim = [dim] if isinstance(dim, int) else dim
    given = {} if out is None else {"out": out}     # (out= goes to the function PyTorch's Python calls)
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg.vector_norm(input, 2, _dim, keepdim, dtype=dtype, **given)
        if _dim is None:
            _dim = list(range(input.dim()))
        return linalg.matrix_norm(input, p, _dim, keepdim, dtype=dtype, **given)
    return linalg.vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype, **given)


tensor_norm.passes_out = True


def tensor_norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm: torch.norm without out= (its fifth parameter is dtype)."""
    return tensor_norm(self, p, dim, keepdim, dtype=dtype)
