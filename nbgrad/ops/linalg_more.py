"""More of torch.linalg and its top-level relatives: triangular solves, LU (lu_factor, lu,
lu_solve, lu_unpack), cholesky_solve / cholesky_inverse, pinv, lstsq, matrix_rank, cond,
matrix_exp, multi_dot, vecdot / vdot, vander, the _ex variants, tensorinv / tensorsolve,
logdet, cdist / dist, renorm, adjoint.

Where PyTorch composes (CompositeImplicitAutograd: logdet, cond, vander, vecdot, multi_dot,
matrix_rank, tensorinv, tensorsolve, the mm path of cdist) this composes the same Tensor ops,
so values, gradients and the output's node are PyTorch's.  Where PyTorch has a node of its
own (LinalgSolveTriangularBackward0, LinalgLuFactorExBackward0, LinalgLuSolveBackward0,
LinalgPinvBackward0, LinalgMatrixExpBackward0, CdistBackward0, ...), the forward runs without
recording and the node's backward is PyTorch's formula (FunctionsManual.cpp) written with
differentiable Tensor ops, so create_graph gives higher derivatives.

The numerical work new here is the backend's linalg_lu_factor (getrf's partial pivoting)
and linalg_solve_triangular (trsm's substitution), nbgrad/backends/cpu/linalg_lapack.py.
"""
import math

from .. import _dtype as D
from .._warnings import warn_once as _warn_once
from .._checks import as_number, as_symint, is_float
from .._tensor import Tensor
from ..return_types import return_type
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import (backend_of, broadcast_shapes, broadcast_view, check_no_requires_grad, check_same_device,
                     copy_raw, needs_grad, new_tensor, record, _wrap)
from . import views as V
from .linalg import matmul
from .linalg_decomp import (LinAlgError, _factored_triangle, LinalgInvExBackward0, LinalgCholeskyExBackward0, _check_matrix,
                            _column_major_strides, _eye, _tril, _triu, _raise_on_failure, eigh, matrix_norm,
                            slogdet, solve, svd, svdvals, eigvalsh)
from .more import renamed
from ._dtype_rules import check as check_dtype, not_implemented, check_same_dtype

lu_factor_result = return_type("linalg_lu_factor", ["LU", "pivots"])
lu_factor_ex_result = return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
lu_result = return_type("linalg_lu", ["P", "L", "U"])
lu_unpack_result = return_type("lu_unpack", ["P", "L", "U"])
triangular_solve_result = return_type("triangular_solve", ["solution", "cloned_coefficient"])
lstsq_result = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
inv_ex_result = return_type("linalg_inv_ex", ["inverse", "info"])
cholesky_ex_result = return_type("linalg_cholesky_ex", ["L", "info"])
solve_ex_result = return_type("linalg_solve_ex", ["result", "info"])


def _type_name(x):
    return type(x).__name__


def _check_tensor(fn, name, pos, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {_type_name(x)}")


def _check_float(op, A, kernel=None):
    """checkFloatingOrComplex: float32/float64 (float16 refused as low precision); kernel:
    the CPU kernel whose dispatch refuses other dtypes first (NotImplementedError)."""
    dt = A._dtype
    if dt is D.float32 or dt is D.float64:
        return
    if kernel is not None:
        raise not_implemented(kernel, dt)
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(dt)}")
    raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {D.scalar_type_name(dt)}")


def _zeros(shape, like, dtype=None):
    from .._creation import zeros
    return zeros(tuple(shape), dtype=dtype or like.dtype, device=like.device)


def _int_tensor(values, shape, dtype, like):
    """A tensor of host integers (an info or pivots vector) on like's device."""
    import numpy as np
    from .._creation import tensor
    return tensor(np.asarray(values, dtype=dtype.np).reshape(tuple(shape)), device=like.device)


# -- triangular solves -------------------------------------------------------------------
def _triangular(A, B, upper, left, unitriangular):
    """X of A X = B (left) or X A = B, A (*, n, n) triangular, B (*, n, k) / (*, k, n),
    batches broadcast; not recorded."""
    with no_grad():
        if not left:
            # X A = B  <=>  A^T X^T = B^T, with the other triangle
            return V.mT(_triangular(V.mT(A), V.mT(B), not upper, True, unitriangular))
        n, k = B._shape[-2], B._shape[-1]
        batch = tuple(broadcast_shapes(A._shape[:-2], B._shape[:-2]))
        buf = backend_of(A).linalg_solve_triangular(broadcast_view(A, batch + (n, n)),
                                                    broadcast_view(B, batch + (n, k)), bool(upper),
                                                    bool(unitriangular))
        return new_tensor(buf, batch + (n, k), A._dtype, A.device)


class LinalgSolveTriangularBackward0(Node):
    def backward(self, g):
        # linalg_solve_triangular_backward: gB = A^{-H} g, gA = -gB X^H (left) / -X^H gB, masked
        A, X = self.saved_tensors
        gB = solve_triangular(V.mT(A), g, upper=not self.upper, left=self.left, unitriangular=self.unit)
        gA = None
        if self.needs_input_grad(0):
            gA = -matmul(gB, V.mT(X)) if self.left else -matmul(V.mT(X), gB)
            gA = _triu(gA, int(self.unit)) if self.upper else _tril(gA, -int(self.unit))
        return gA, (gB if self.needs_input_grad(1) else None)


def _solver_checks(op, A, B, left):
    """checkInputsSolver: A square, B a matrix, compatible for AX = B / XA = B, same dtype."""
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    if B.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    ok = A._shape[-2] == B._shape[-2] if left else A._shape[-1] == B._shape[-1]
    if not ok:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'}"
                           f" ({A._shape[-2]}x{A._shape[-1]} and {B._shape[-2]}x{B._shape[-1]})")


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    _check_tensor("linalg_solve_triangular", "input", 1, A)
    _check_tensor("linalg_solve_triangular", "B", 2, B)
    op = "linalg.solve_triangular"
    _solver_checks(op, A, B, left)
    check_same_device(A, B)
    _check_float(op, A, "triangular_solve_cpu")
    if A._dtype is not B._dtype:      # (PyTorch solves in A's dtype)
        B = B.to(A.dtype)
    X = _layout(_triangular(A, B, upper, left, unitriangular), True)
    if needs_grad(A, B):
        record(LinalgSolveTriangularBackward0, (A, B), (X,), upper=bool(upper), left=bool(left),
               unit=bool(unitriangular)).save(A, X, outputs=(X,))
    return X


class TriangularSolveBackward0(Node):
    def backward(self, g_x=None, g_m=None):
        # triangular_solve_backward
        b, A, X = self.saved_tensors
        gb = ga = None
        if g_x is not None:
            gb = triangular_solve(g_x, A, upper=self.upper, transpose=not self.transpose,
                                  unitriangular=self.unit)[0]
            if self.needs_input_grad(1):
                ga = -matmul(X, V.mT(gb)) if self.transpose else -matmul(gb, V.mT(X))
                ga = _triu(ga, int(self.unit)) if self.upper else _tril(ga, -int(self.unit))
        if ga is None:
            ga = _zeros((), b).expand(tuple(A.shape))
        if gb is None:
            gb = _zeros((), b).expand(tuple(b.shape))
        if self.needs_input_grad(1) and g_m is not None:
            ga = ga + g_m
        return gb, ga


def _linear_solve_checks(b, A, name):
    """ATen's linearSolveCheckInputs: b and A of one dtype, A square, sizes that match."""
    if A._dtype is not b._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{D.scalar_type_name(b._dtype)} and A of type {D.scalar_type_name(A._dtype)} instead.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    if A._shape[-1] != b._shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {A._shape[-1]} by "
                           f"{A._shape[-1]} but each b matrix is {b._shape[-2]} by {b._shape[-1]}")


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve(b, A): (the solution X of op(A) X = b, a copy of A broadcast to
    the batch), deprecated in PyTorch for linalg.solve_triangular (its warning once)."""
    b = input
    _check_tensor("triangular_solve", "input", 1, b)
    _check_tensor("triangular_solve", "A", 2, A)
    _warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of "
               "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
               "torch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of "
               "the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
               "X = torch.linalg.solve_triangular(A, B).")
    if b.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b.dim()} dimensions instead")
    if A.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A.dim()} dimensions instead")
    _linear_solve_checks(b, A, "triangular_solve")
    _check_float("triangular_solve", A, "triangular_solve_cpu")
    batch = tuple(broadcast_shapes(A._shape[:-2], b._shape[:-2]))
    with no_grad():
        Ab = V.expand(A, batch + tuple(A._shape[-2:]))
        X = _layout(_triangular(V.mT(Ab) if transpose else Ab, b, upper != bool(transpose), True, unitriangular), True)
        M = _layout(Ab, True)
    if needs_grad(b, A):
        record(TriangularSolveBackward0, (b, A), (X, M), upper=bool(upper), transpose=bool(transpose),
               unit=bool(unitriangular)).save(b, A, X, outputs=(X, M))
    return triangular_solve_result(X, M)




def _layout(X, column_major):
    """X as PyTorch lays out a LAPACK result: batched column-major (or row-major)."""
    if not X.numel():
        return X
    from .._layout import row_major_strides
    strides = _column_major_strides(tuple(X._shape)) if column_major else row_major_strides(tuple(X._shape))
    return X if tuple(X._stride) == tuple(strides) else copy_raw(X, tuple(strides))


# -- LU --------------------------------------------------------------------------------
def _lu_factor_raw(A):
    """(LU (column-major, as PyTorch's), pivots int32, info list), not recorded."""
    buf, pbuf, info = backend_of(A).linalg_lu_factor(A._view_tuple())
    shape = tuple(A._shape)
    LU = new_tensor(buf, shape, A._dtype, A.device)
    if LU.numel():
        LU = copy_raw(LU, _column_major_strides(shape))
    k = min(shape[-2], shape[-1])
    pivots = new_tensor(pbuf, shape[:-2] + (k,), D.int32, A.device)
    return LU, pivots, info


def _unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    """lu_unpack's (P, L, U) with Tensor ops (L, U differentiable in LU); P not recorded."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    batch = tuple(LU.shape[:-2])
    if unpack_data:
        L = _tril(V.narrow(LU, -1, 0, k), -1) + _eye_rect(m, k, LU)
        U = _triu(V.narrow(LU, -2, 0, k))
    else:
        L = U = _zeros((0,), LU)
    if unpack_pivots:
        # (no swaps to apply when k is 0: PyTorch reads none of the pivots, P is the identity)
        P = _permutation(pivots if k else pivots.new_zeros((*batch, 0)), m, batch, LU)
    else:
        P = _zeros((0,), LU)
    return P, L, U


def _eye_rect(m, k, like):
    from .._creation import eye
    return eye(m, k, dtype=like.dtype, device=like.device)


def _permutation(pivots, m, batch, like):
    """The permutation matrices P (*B, m, m) of LAPACK's 1-based row swaps: A = P L U."""
    import numpy as np
    from .._creation import tensor
    nb = int(np.prod(batch)) if batch else 1
    piv = np.asarray(pivots.cpu().numpy()).reshape(nb, pivots.shape[-1]).astype(np.int64) - 1
    if piv.size and (piv.min() < 0 or piv.max() >= m):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                           "Did you properly pass the result of lu_factor?")
    # the row swaps applied in order, the whole batch at once
    perm = np.tile(np.arange(m), (nb, 1))
    rows = np.arange(nb)
    for i in range(piv.shape[1]):
        j = piv[:, i]
        keep = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = keep
    P = np.zeros((nb, m, m), dtype=like.dtype.np)
    P[rows[:, None], perm, np.arange(m)[None, :]] = 1
    with no_grad():
        return tensor(P.reshape(batch + (m, m)), device=like.device)


def _lu_backward(gL, gU, P, L, U, pivot=True):
    """linalg_lu_backward (FunctionsManual.cpp), square, wide and tall."""
    from .indexing import cat
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    Lh, Uh = V.mT(L), V.mT(U)
    if m == n:
        gA = _tril(matmul(Lh, gL), -1) if gL is not None else None
        if gU is not None:
            t = _triu(matmul(gU, Uh))
            gA = t if gA is None else gA + t
        gA = solve_triangular(Uh, gA, upper=False, left=False)
        gA = solve_triangular(Lh, gA, upper=True, left=True, unitriangular=True)
    elif m < n:
        U1 = V.narrow(U, -1, 0, k)
        gA = matmul(Lh, gL) if gL is not None else None
        if gU is not None:
            t = matmul(_triu(gU), Uh)
            gA = -t if gA is None else gA - t
        gA = solve_triangular(V.mT(U1), _tril(gA, -1), upper=False, left=False)
        if gU is not None:
            gA = cat([gA + _triu(V.narrow(gU, -1, 0, k)), V.narrow(gU, -1, k, n - k)], -1)
        gA = solve_triangular(Lh, gA, upper=True, left=True, unitriangular=True)
        if gU is None:
            gA = cat([gA, _zeros(tuple(U.shape[:-1]) + (n - k,), U)], -1)
    else:
        L1 = V.narrow(L, -2, 0, k)
        gA = matmul(gU, Uh) if gU is not None else None
        if gL is not None:
            t = matmul(Lh, _tril(gL, -1))
            gA = -t if gA is None else gA - t
        gA = solve_triangular(V.mT(L1), _triu(gA), upper=True, left=True, unitriangular=True)
        if gL is not None:
            gA = cat([gA + _tril(V.narrow(gL, -2, 0, k), -1), V.narrow(gL, -2, k, m - k)], -2)
        gA = solve_triangular(Uh, gA, upper=False, left=False)
        if gL is None:
            gA = cat([gA, _zeros((m - k,) + tuple(L.shape[-1:]), L).expand(tuple(L.shape[:-2]) + (m - k, k))
                      if False else _zeros(tuple(L.shape[:-2]) + (m - k, n), L)], -2)
    return matmul(P, gA) if pivot else gA


class LinalgLuFactorExBackward0(Node):
    def backward(self, g, g_piv=None, g_info=None):
        if g is None:
            return None
        LU, pivots = self.saved_tensors
        P, L, U = _unpack(LU, pivots)
        m, n = LU.shape[-2], LU.shape[-1]
        k = min(m, n)
        return _lu_backward(V.narrow(g, -1, 0, k), V.narrow(g, -2, 0, k), P, L, U)


def _lu_checks(op, A, pivot):
    if A.dim() < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A._shape)} instead")
    _check_float(op, A, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _check_tensor("linalg_lu_factor_ex", "A", 1, A)
    _lu_checks("linalg.lu_factor_ex", A, pivot)
    LU, pivots, info = _lu_factor_raw(A)
    if check_errors:
        _lu_factor_error(info, "torch.linalg.lu_factor_ex", A.dim() > 2)
    if needs_grad(A):
        record(LinalgLuFactorExBackward0, (A,), (LU, pivots)).save(LU, pivots, outputs=(LU,))
    return lu_factor_ex_result(LU, pivots, _int_tensor(info, A._shape[:-2], D.int32, A))


def _lu_factor_error(info, op, batched):
    try:
        _raise_on_failure(info, op, batched, lambda k: f"U[{k},{k}] is zero and using it on lu_solve would result "
                          "in a division by zero. If you still want to perform the factorization, consider "
                          "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    except LinAlgError as e:      # (a plain RuntimeError in PyTorch)
        error = RuntimeError(str(e))
        error.after_kernel = True
        raise error from None


def lu_factor(A, *, pivot=True, out=None):
    _check_tensor("linalg_lu_factor", "A", 1, A)
    _lu_checks("linalg.lu_factor", A, pivot)
    LU, pivots, info = _lu_factor_raw(A)
    _lu_factor_error(info, "torch.linalg.lu_factor", A.dim() > 2)
    if needs_grad(A):
        record(LinalgLuFactorExBackward0, (A,), (LU, pivots)).save(LU, pivots, outputs=(LU,))
    return lu_factor_result(LU, pivots)


class LinalgLuBackward0(Node):
    def backward(self, gP=None, gL=None, gU=None):
        if gL is None and gU is None:
            return None
        P, L, U = self.saved_tensors
        return _lu_backward(gL, gU, P, L, U, self.pivot)


def lu(A, *, pivot=True, out=None):
    _check_tensor("linalg_lu", "A", 1, A)
    if A.dim() < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A._shape)} "
                           "instead")
    _lu_checks("linalg.lu", A, pivot)
    with no_grad():
        LU, pivots, _info = _lu_factor_raw(A)
        P, L, U = _unpack(LU, pivots)
        P, L, U = _layout(P, False), _layout(L, False), _layout(U, False)
    if needs_grad(A):
        record(LinalgLuBackward0, (A,), (None, L, U), pivot=bool(pivot)).save(P, L, U, outputs=(L, U))
    return lu_result(P, L, U)


class LuUnpackBackward0(Node):
    def backward(self, gP=None, gL=None, gU=None):
        # lu_unpack_backward: tril(gL, -1) into LU's first k columns, triu(gU) into its first k rows
        m, n = self.m, self.n
        k = min(m, n)
        from .padding import pad
        out = None
        if gL is not None:
            t = _tril(gL, -1)
            out = pad(t, (0, n - k)) if n > k else t
        if gU is not None:
            t = _triu(gU)
            t = pad(t, (0, 0, 0, m - k)) if m > k else t
            out = t if out is None else out + t
        return out, None


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    _check_tensor("lu_unpack", "LU_data", 1, LU_data)
    _check_tensor("lu_unpack", "LU_pivots", 2, LU_pivots)
    if needs_grad(LU_data):     # (its autograd saves LU's last two sizes before the kernel's checks)
        LU_data.size(-1), LU_data.size(-2)
    LU, pivots = LU_data, LU_pivots
    if LU.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU._shape)} instead")
    m, n = LU._shape[-2], LU._shape[-1]
    k = min(m, n)
    if unpack_pivots:
        if pivots._dtype is not D.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                               f"dtype.\nNote: this function is intended to be used with the output produced by "
                               f"torch.linalg.lu_factor")
        if k and tuple(pivots._shape) != tuple(LU._shape[:-2]) + (k,):     # (no pivots to read: unchecked)
            raise RuntimeError(f"torch.lu_unpack: Expected LU_pivots.size() == {list(LU._shape[:-2]) + [k]} "
                               f"but got {list(pivots._shape)}")
    with no_grad():
        P, L, U = _unpack(LU, pivots, unpack_data, unpack_pivots)
        P = _layout(P, False)
        if unpack_data:
            L, U = _layout(L, False), _layout(U, False)
    if needs_grad(LU) and unpack_data:
        record(LuUnpackBackward0, (LU, pivots), (None, L, U), m=m, n=n)
    return lu_unpack_result(P, L, U)


def _lu_solve_raw(LU, pivots, B, left, adjoint):
    """X of op(A) X = B (left) or X op(A) = B, A = P L U, not recorded."""
    with no_grad():
        if not left:
            # X A = B <=> A^T X^T = B^T;  X A^T = B <=> A X^T = B^T
            return V.mT(_lu_solve_raw(LU, pivots, V.mT(B), True, not adjoint))
        P, L, U = _unpack(LU, pivots)
        if not adjoint:
            Y = matmul(V.mT(P), B)
            Y = _triangular(L, Y, False, True, True)
            return _triangular(U, Y, True, True, False)
        Y = _triangular(V.mT(U), B, False, True, False)
        Y = _triangular(V.mT(L), Y, True, True, True)
        return matmul(P, Y)


class LinalgLuSolveBackward0(Node):
    def backward(self, gX):
        LU, pivots, X = self.saved_tensors
        left, adjoint = self.left, self.adjoint
        gLU = gB = None
        if self.needs_input_grad(0):
            P, L, U = _unpack(LU, pivots)
            if left != adjoint:
                gR = solve_triangular(V.mT(U), -matmul(gX if left else V.mT(gX), V.mT(X) if left else X),
                                      upper=False)
                gL = _tril(solve_triangular(V.mT(L), matmul(gR, V.mT(U)), upper=True, left=True,
                                            unitriangular=True), -1)
                gLU = gL + _triu(gR)
            else:
                gR = -matmul(matmul(matmul(V.mT(P), X if left else V.mT(X)), V.mT(gX) if left else gX), P)
                gR = solve_triangular(V.mT(L), gR, upper=True, left=False, unitriangular=True)
                gU = _triu(solve_triangular(V.mT(U), matmul(V.mT(L), gR), upper=False, left=False))
                gLU = _tril(gR, -1) + gU
        if self.needs_input_grad(2):
            gB = lu_solve(LU, pivots, gX, left=left, adjoint=not adjoint)
        return gLU, None, gB


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    _check_tensor("linalg_lu_solve", "LU", 1, LU)
    _check_tensor("linalg_lu_solve", "pivots", 2, pivots)
    _check_tensor("linalg_lu_solve", "B", 3, B)
    op = "linalg.lu_solve"
    if LU.dim() < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    if LU._shape[-1] != LU._shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU._shape[-2]} by {LU._shape[-1]} matrices")
    _check_float("torch.linalg.lu_solve", LU)
    if B.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    n = LU._shape[-1]
    if (B._shape[-2] if left else B._shape[-1]) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B._shape[-2]}x{B._shape[-1]})")
    if LU._dtype is not B._dtype:
        raise RuntimeError(f"{op}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{D.scalar_type_name(LU._dtype)} and B of type {D.scalar_type_name(B._dtype)} instead")
    if pivots.dim() == 0 or pivots._shape[-1] != n:
        raise RuntimeError(f"{op}: Number of pivots per batch should be same as the dimension of the matrix")
    if tuple(LU._shape[:-1]) != tuple(pivots._shape):
        raise RuntimeError(f"{op}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots._shape)} instead")
    if pivots._dtype is not D.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
    if pivots.numel():
        with no_grad():
            lo, hi = int(pivots.min().item()), int(pivots.max().item())
        if lo < 1:
            raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
                               "the result of lu_factor?")
        if hi > n:
            raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
                               "properly pass the result of lu_factor?")
    batch = tuple(broadcast_shapes(LU._shape[:-2], B._shape[:-2]))
    with no_grad():
        LUb = V.expand(LU, batch + (n, n))
        pb = V.expand(pivots, batch + (n,))
        X = _layout(_lu_solve_raw(LUb, pb, B, left, adjoint), left)
    if needs_grad(LU, B):
        record(LinalgLuSolveBackward0, (LU, pivots, B), (X,), left=bool(left), adjoint=bool(adjoint)).save(
            LU, pivots, X, outputs=(X,))
    return X


# -- cholesky_solve / cholesky_inverse ---------------------------------------------------
class CholeskySolveBackward0(Node):
    def backward(self, g):
        B, L, X = self.saved_tensors
        gB = cholesky_solve(g, L, upper=self.upper)
        gL = None
        if self.needs_input_grad(1):
            c = matmul(gB, V.mT(X))
            c = c + V.mT(c)
            gL = -matmul(L, c) if self.upper else -matmul(c, L)
        return (gB if self.needs_input_grad(0) else None), gL


def cholesky_solve(input, input2, upper=False, *, out=None):
    B, L = input, input2
    _check_tensor("cholesky_solve", "input", 1, B)
    _check_tensor("cholesky_solve", "input2", 2, L)
    if B.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead")
    if L.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.dim()} dimensions instead")
    _linear_solve_checks(B, L, "cholesky_solve")
    _check_float("cholesky_solve", L, "cholesky_solve_cpu")
    batch = tuple(broadcast_shapes(L._shape[:-2], B._shape[:-2]))
    with no_grad():
        Lb = V.expand(L, batch + tuple(L._shape[-2:]))
        if upper:        # A = U^H U
            Y = _triangular(V.mT(Lb), B, False, True, False)
            X = _triangular(Lb, Y, True, True, False)
        else:            # A = L L^H
            Y = _triangular(Lb, B, False, True, False)
            X = _triangular(V.mT(Lb), Y, True, True, False)
        X = copy_raw(X, _column_major_strides(tuple(X._shape))) if X.numel() else X
    if needs_grad(B, L):
        record(CholeskySolveBackward0, (B, L), (X,), upper=bool(upper)).save(B, L, X, outputs=(X,))
    return X


class CholeskyInverseBackward0(Node):
    def backward(self, g):
        L, inverse = self.saved_tensors
        c = g + V.mT(g)
        c = matmul(inverse, matmul(c, inverse))
        return -matmul(L, c) if self.upper else -matmul(c, L)


def _singular_factor(T, op):
    """LAPACK's potri failure: the first zero on a triangular factor's diagonal (1-based), as
    PyTorch's LinAlgError for the first such matrix of the batch."""
    n = T._shape[-1]
    zero = V.diagonal(T, 0, -2, -1) == 0
    if n and T.numel() and bool(zero.any()):
        rows = zero.reshape(-1, n).tolist()
        _raise_on_failure([next((k + 1 for k, z in enumerate(row) if z), 0) for row in rows], op, T.dim() > 2,
                          lambda k: f"The diagonal element {k} is zero, the inversion could not be completed "
                                    "because the input matrix is singular.")


def cholesky_inverse(input, upper=False, *, out=None):
    L = input
    _check_tensor("cholesky_inverse", "input", 1, L)
    if L.dim() < 2:
        raise RuntimeError(f"cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    if L._shape[-1] != L._shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they are "
                           f"{L._shape[-2]} by {L._shape[-1]} matrices")
    _check_float("cholesky_inverse", L, "cholesky_inverse_out_cpu")
    n = L._shape[-1]
    with no_grad():
        I = V.expand(_eye(n, L), tuple(L._shape))
        T = _tril(V.mT(L)) if upper else _tril(L)          # the lower factor, its other triangle unread
        _singular_factor(T, "cholesky_inverse")
        Linv = _triangular(T, I, False, True, False)        # L^{-1}
        inverse = matmul(V.mT(Linv), Linv)                  # (L L^H)^{-1} = L^{-H} L^{-1}
        inverse = copy_raw(inverse, _column_major_strides(tuple(inverse._shape))) if inverse.numel() else inverse
    if needs_grad(L):
        record(CholeskyInverseBackward0, (L,), (inverse,), upper=bool(upper)).save(L, inverse, outputs=(inverse,))
    return inverse


# -- logdet, pinv, matrix_rank, cond ------------------------------------------------------
def logdet(input):
    A = input
    _check_tensor("logdet", "input", 1, A)
    if A.dim() < 2:
        raise RuntimeError("logdet: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"logdet: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    _check_float("logdet", A)
    sign, logabsdet = slogdet(A)
    from .elementwise import where
    return where(sign == -1.0, math.nan, logabsdet)


def _tolerances(A, atol, rtol, fn):
    """get_atol_rtol: (atol, rtol) as float64 tensors (or Python floats broadcast later)."""
    from .._creation import full

    def as_tensor(x, name):
        if isinstance(x, Tensor):
            return x
        return full((), float(x), dtype=D.float64, device=A.device)
    a = as_tensor(0.0 if atol is None else atol, "atol")
    if rtol is not None:
        r = as_tensor(rtol, "rtol")
        return a, r
    # (the default rtol, eps * max(m, n), is computed whenever rtol is not given: ATen's
    # _get_epsilon knows float and double only)
    n = max(A.size(-1), A.size(-2))         # (read first: a 1-D A is this IndexError)
    eps = {D.float32: 1.1920928955078125e-07, D.float64: 2.220446049250313e-16}.get(A._dtype)
    if eps is None:
        raise RuntimeError("This function doesn't handle types other than float and double")
    default = eps * n
    if atol is None:
        r = as_tensor(default, "rtol")
    elif isinstance(atol, Tensor):
        from .elementwise import where
        r = where(atol > 0, 0.0, as_tensor(default, "rtol"))
    else:
        r = as_tensor(0.0 if atol > 0 else default, "rtol")
    return a, r


class LinalgPinvBackward0(Node):
    def backward(self, g):
        pinvA, A = self.saved_tensors
        return _pinv_backward(g, pinvA, A)


def _pinv_backward(g, pinvA, A):
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gh = V.mT(pinvA), V.mT(g)
    if m <= n:
        K = matmul(gh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        return (-V.mT(matmul(pinvA, K)) + KpinvAh - matmul(matmul(A, pinvA), KpinvAh)
                + matmul(matmul(pinvAh, pinvA), gh - matmul(K, A)))
    K = matmul(pinvA, gh)
    pinvAhK = matmul(pinvAh, K)
    return (-V.mT(matmul(K, pinvA)) + matmul(matmul(gh - matmul(A, K), pinvA), pinvAh) + pinvAhK
            - matmul(matmul(pinvAhK, pinvA), A))


def _older_tolerance(name, A, tol, atol, rtol):
    """linalg's older overloads take one tolerance by position (matrix_rank's tol, pinv's
    rcond), never beside atol/rtol: that call is the parser's TypeError."""
    if atol is not None or rtol is not None:
        from ._argument_check import argument_error
        given = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v is not None}
        raise argument_error(name, (A, tol), given, key="torch." + name)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """PyTorch's two forms: keyword atol/rtol, or the older positional rcond (alone)."""
    _check_tensor("linalg_pinv", "input", 1, A)
    if rcond is not None:
        _older_tolerance("linalg_pinv", A, rcond, atol, rtol)
    # (its autograd refuses tolerances that require grad: their gradient would silently be missing)
    check_no_requires_grad(atol, "atol", "linalg_pinv")
    check_no_requires_grad(rcond if rcond is not None else rtol, "rtol", "linalg_pinv")
    if (atol is not None or rtol is not None) and not isinstance(atol, Tensor) and not isinstance(rtol, Tensor):
        _tolerances(A, atol, rtol, "torch.linalg.pinv")     # (the float overload's, before the tensor one's checks)
    if not (A._dtype is D.float32 or A._dtype is D.float64) or A.dim() < 2:
        raise RuntimeError(f"linalg.pinv({D.scalar_type_name(A._dtype)}{{{list(A._shape)}}}): expected a tensor "
                           "with 2 or more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        atol, rtol = 0.0, rcond
    from .elementwise import where, maximum
    with no_grad():
        a, r = _tolerances(A, atol, rtol, "torch.linalg.pinv")
        if A.numel() == 0:
            U, S, Vh = svd(A, full_matrices=False)
            result = matmul(V.mT(Vh) * V.unsqueeze(S.reciprocal(), -2), V.mT(U))
        elif not hermitian:
            U, S, Vh = svd(A, full_matrices=False)
            tol = maximum(V.unsqueeze(a, -1), V.unsqueeze(r, -1) * V.narrow(S, -1, 0, 1))
            Sp = where(S > tol, S.reciprocal(), _zeros((), S)).to(A.dtype)
            result = matmul(V.mT(Vh) * V.unsqueeze(Sp, -2), V.mT(U))
        else:
            S, U = eigh(A)
            Sa = S.abs()
            tol = maximum(V.unsqueeze(a, -1), V.unsqueeze(r, -1) * Sa.amax(-1, keepdim=True))
            Sp = where(Sa > tol, S.reciprocal(), _zeros((), S)).to(A.dtype)
            result = matmul(U * V.unsqueeze(Sp, -2), V.mT(U))
    if needs_grad(A):
        record(LinalgPinvBackward0, (A,), (result,)).save(result, A, outputs=(result,))
    return result


def pinverse(input, rcond=1e-15):
    return pinv(input, rcond=rcond)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """PyTorch's two forms: keyword atol/rtol, or the older positional tol (alone)."""
    _check_tensor("linalg_matrix_rank", "input", 1, A)
    if tol is not None:
        _older_tolerance("linalg_matrix_rank", A, tol, atol, rtol)
    if A.dim() < 2:
        raise RuntimeError(f"torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    # (A's dtype: the tolerances' default needs a float or double A, svdvals and eigvalsh refuse
    # other dtypes themselves; an empty A has rank 0 before either)
    if tol is not None:
        atol, rtol = tol, 0.0
    from .elementwise import maximum
    with no_grad():
        a, r = _tolerances(A, atol, rtol, "torch.linalg.matrix_rank")
        if A.numel() == 0:
            return _zeros(A._shape[:-2], A, D.int64)
        if not hermitian:
            S = svdvals(A)
            smax = V.narrow(S, -1, 0, 1)
        else:
            S = eigvalsh(A).abs()
            smax = S.amax(-1, keepdim=True)
        tol_ = maximum(V.unsqueeze(a, -1), V.unsqueeze(r, -1) * smax)
        return (S > tol_).sum(-1)


_COND_ORDS = (1, -1, 2, -2, math.inf, -math.inf)


def cond(A, p=None, *, out=None):
    _check_tensor("linalg_cond", "input", 1, A)
    if A.dim() < 2:         # (ATen's overload for a str ord words it with the ord, before checking it)
        if isinstance(p, str):
            raise RuntimeError(f"linalg.cond(ord={p}): The input tensor A must have at least 2 dimensions.")
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord}")
        label = ord
    else:
        if ord not in _COND_ORDS:
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord:g}")
        if math.isinf(ord):
            label = "inf" if ord > 0 else "-inf"
        else:
            label = f"{ord:f}" if isinstance(ord, float) else str(int(ord))
    svd_path = ord == "nuc" or (not isinstance(ord, str) and abs(ord) == 2)
    if svd_path:
        _check_matrix("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    if not svd_path and (isinstance(ord, str) or A.numel()):     # (an empty input returns first for numbers)
        if A._shape[-1] != A._shape[-2]:
            raise RuntimeError(f"linalg.cond(ord={label}): A must be batches of square matrices, but they are "
                               f"{A._shape[-2]} by {A._shape[-1]} matrices")
        _check_matrix("linalg.inv", A)
    if A.numel() == 0:
        return _zeros(A._shape[:-2], A, A.dtype)
    if not isinstance(ord, str) and abs(ord) == 2:
        S = svdvals(A)
        smax, smin = V.narrow(S, -1, 0, 1), V.narrow(S, -1, S.shape[-1] - 1, 1)
        result = smin / smax if ord == -2 else smax / smin
        return V.squeeze(result, -1)
    if ord == "nuc":
        # the nuclear norm's definition (matrix_norm refuses infinities)
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    inverse, info = inv_ex(A)
    with no_grad():
        bad = V.unsqueeze(V.unsqueeze(info, -1), -1) > 0
    inverse.masked_fill_(bad, math.inf)       # in place, as PyTorch (its backward then refuses)
    result = matrix_norm(A, ord) * matrix_norm(inverse, ord)
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


# -- the _ex variants -------------------------------------------------------------------
def inv_ex(A, *, check_errors=False, out=None):
    _check_matrix("linalg.inv", A)
    buf, info = backend_of(A).linalg_inv(A._view_tuple())
    if check_errors:
        _raise_on_failure(info, "linalg.inv_ex", A.dim() > 2, lambda k: f"The diagonal element {k} is zero, the "
                          "inversion could not be completed because the input matrix is singular.")
    from .linalg_decomp import _matrices
    result = _matrices(buf, A._shape, A)
    if any(info.tolist()):
        # a singular matrix: PyTorch's getrf + getrs with the identity (its infinities), not
        # the unspecified values the backend leaves there
        with no_grad():
            LU, pivots, _info = _lu_factor_raw(A)
            eye = V.expand(_eye(A._shape[-1], A), tuple(A._shape))
            result = _layout(_lu_solve_raw(LU, pivots, eye, True, False), True)
    if needs_grad(A):
        record(LinalgInvExBackward0, (A,), (result, None)).save(result, outputs=(result,))
    return inv_ex_result(result, _int_tensor(info, A._shape[:-2], D.int32, A))


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _check_matrix("linalg.cholesky", A, kernel="cholesky_cpu")
    buf, info = backend_of(A).linalg_cholesky(_factored_triangle(A, upper))
    if check_errors:
        _raise_on_failure(info, "linalg.cholesky_ex", A.dim() > 2, lambda k: "The factorization could not be "
                          f"completed because the input is not positive-definite (the leading minor of order {k} "
                          "is not positive-definite).")
    L = new_tensor(buf, A._shape, A._dtype, A.device)
    if upper:
        L = V.mT(L)
    result = copy_raw(L, _column_major_strides(tuple(A._shape))) if A.numel() else L
    if needs_grad(A):
        record(LinalgCholeskyExBackward0, (A,), (result, None), upper=bool(upper)).save(result, outputs=(result,))
    return cholesky_ex_result(result, _int_tensor(info, A._shape[:-2], D.int32, A))


class _SingularSolveExBackward(Node):
    """linalg_solve_backward with the saved LU of a singular matrix (its infinities, no error)."""
    def backward(self, gX, g_info=None):
        LU, pivots, X = self.saved_tensors
        A_shape, B_shape = self.input_shapes
        g = V.unsqueeze(gX, -1) if self.vector else gX
        X2 = V.unsqueeze(X, -1) if self.vector else X
        gB = lu_solve(LU, pivots, g, left=self.left, adjoint=True)
        gA = None
        if self.needs_input_grad(0):
            gA = _sum_to(-matmul(gB, V.mT(X2)) if self.left else -matmul(V.mT(X2), gB), A_shape)
        if not self.needs_input_grad(1):
            return gA, None
        return gA, _sum_to(V.squeeze(gB, -1) if self.vector else gB, B_shape)


_SingularSolveExBackward.__name__ = _SingularSolveExBackward.__qualname__ = "LinalgSolveExBackward0"


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """linalg.solve_ex: solve's result and info; a singular matrix gives info > 0 and a result
    with NaN/inf instead of an error (unless check_errors)."""
    from .linalg_decomp import _is_vector_rhs
    _check_matrix("linalg.solve", A)
    try:
        X = solve(A, B, left=left)
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("torch.linalg.solve:", "torch.linalg.solve_ex:", 1)) from None
        with no_grad():
            LU, pivots, info = _lu_factor_raw(A)
        info_t = _int_tensor(info, A._shape[:-2], D.int32, A)      # (the factored A's batch, as PyTorch's)
        vector = _is_vector_rhs(A, B)
        with no_grad():
            X = _lu_solve_raw(LU, pivots, V.unsqueeze(B, -1) if vector else B, left, False)
            if vector:
                X = V.squeeze(X, -1)
        if needs_grad(A, B):
            record(_SingularSolveExBackward, (A, B), (X, None), vector=vector, left=bool(left),
                   input_shapes=(tuple(A.shape), tuple(B.shape))).save(
                LU, pivots, X, outputs=(X,))
        return solve_ex_result(X, info_t)
    return solve_ex_result(X, _zeros(A._shape[:-2], A, D.int32))


# -- matrix_exp ----------------------------------------------------------------------
# Padé approximant of degree 13 with scaling and squaring (Higham 2005), as scipy's expm
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def _expm(A):
    """exp(A) for a batch of square matrices (no_grad Tensor ops)."""
    n = A.shape[-1]
    I = _eye(n, A)
    norm1 = matrix_norm(A, 1)
    import numpy as np
    norms = np.asarray(norm1.reshape(-1).tolist(), dtype=np.float64)
    # PyTorch's first two degrees (Taylor 1 and 2) below its thresholds, so that small
    # matrices (a zero matrix: exactly the identity) get its values
    theta1, theta2 = (2.220446049250313e-16, 2.580956802971767e-08) if A.dtype is D.float64 else \
        (1.192092800768788e-07, 5.978858893805233e-04)
    if norms.size and norms.max() <= theta1:
        return I + A
    if norms.size and norms.max() <= theta2:
        return I + A + 0.5 * matmul(A, A)
    theta13 = 5.371920351148152
    norms = np.where(np.isfinite(norms), norms, 0.0)       # NaN/inf: no scaling (the result is NaN)
    s_host = np.maximum(0, np.ceil(np.log2(np.maximum(norms, 1e-300) / theta13))).astype(np.int64)
    s = int(s_host.max()) if s_host.size else 0
    if s:
        A = A / float(2 ** s)
    b = _PADE13
    A2 = matmul(A, A)
    A4 = matmul(A2, A2)
    A6 = matmul(A4, A2)
    U = matmul(A, matmul(A6, b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * I)
    Vp = matmul(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * I
    R = solve(Vp - U, Vp + U)
    for _ in range(s):
        R = matmul(R, R)
    return R


class LinalgMatrixExpBackward0(Node):
    def backward(self, g):
        (A,) = self.saved_tensors
        return _matrix_exp_backward(A, g)


def _matrix_exp_backward(A, g):
    """backward_analytic_function_of_a_matrix: exp([[A^H, G], [0, A^H]]) upper-right block."""
    from .indexing import cat
    n = A.shape[-1]
    Ah = V.mT(A)
    Z = _zeros(tuple(A.shape), A)
    M = cat([cat([Ah, g], -1), cat([Z, Ah], -1)], -2)
    return V.narrow(V.narrow(matrix_exp(M), -2, 0, n), -1, n, n)


def matrix_exp(A):
    _check_tensor("linalg_matrix_exp", "input", 1, A)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{A._shape[-2]} by {A._shape[-1]} matrices")
    if not A._dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(A._dtype)}")
    with no_grad():
        if A.numel() == 0:
            result = A.clone()
        elif A._shape[-1] == 1:
            result = A.exp()
        else:
            src = A.to(D.float32) if A._dtype is D.float16 else A
            result = _expm(src).to(A.dtype).contiguous()
    if needs_grad(A):
        record(LinalgMatrixExpBackward0, (A,), (result,)).save(A)
    return result


# -- lstsq -------------------------------------------------------------------------------
class LinalgLstsqBackward0(Node):
    def backward(self, gX=None, g_res=None, *rest):
        if gX is None:
            return None, None
        A, B = self.saved_tensors
        vector = self.vector
        gX2 = V.unsqueeze(gX, -1) if vector else gX
        B2 = V.unsqueeze(B, -1) if vector else B
        pinvA = pinv(A)
        gA = gB = None
        if self.needs_input_grad(0):
            gA = _pinv_backward(matmul(gX2, V.mT(B2)), pinvA, A)
        if self.needs_input_grad(1):
            gB = matmul(V.mT(pinvA), gX2)
            gB = V.squeeze(gB, -1) if vector else gB
        return gA, gB


def _lstsq_layout(X, rows, vector):
    """The solution as PyTorch returns it: the first n rows of a column-major (rows, k)
    buffer per matrix, rows = max(m, n) (LAPACK's right-hand side, overwritten in place)."""
    from .._layout import row_major_strides
    from ._graph import new_strided
    if not X.numel():
        return X.contiguous()
    batch = tuple(X._shape[:-1] if vector else X._shape[:-2])
    full = batch + ((rows,) if vector else (X._shape[-1], rows))
    fstrides = row_major_strides(full)
    strides = fstrides if vector else fstrides[:-2] + (fstrides[-1], fstrides[-2])
    be = backend_of(X)
    buf = be.full(math.prod(full), X._dtype.np, 0)
    be.copy(X._view_tuple(), (buf, 0, tuple(X._shape), tuple(strides)))
    return new_strided(buf, tuple(X._shape), tuple(strides), X._dtype, X.device)


def lstsq(A, B, rcond=None, *, driver=None):
    from .linalg_decomp import _is_vector_rhs
    _check_tensor("linalg_lstsq", "input", 1, A)
    _check_tensor("linalg_lstsq", "b", 2, B)
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A._dtype is not B._dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {D.scalar_type_name(A._dtype)} and other's dtype "
                           f"{D.scalar_type_name(B._dtype)}")
    dim_diff = A.dim() - B.dim()
    if not 0 <= dim_diff <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = dim_diff == 1
    B2 = V.unsqueeze(B, -1) if vector else B
    m, n = A._shape[-2], A._shape[-1]
    broadcast_shapes(A._shape[:-2], B2._shape[:-2])
    if B2._shape[-2] != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)" if vector else
                           "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if not (A._dtype is D.float32 or A._dtype is D.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is not None and driver not in drivers:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    with no_grad():
        rtol = rcond if rcond is not None and rcond > 0 else None
        if driver == "gels":
            rank_t = None
            X = matmul(pinv(A), B2)
        else:
            X = matmul(pinv(A, rtol=rtol), B2)
        batch = tuple(broadcast_shapes(A._shape[:-2], B2._shape[:-2]))
        X = X.expand(batch + (n, B2._shape[-1])) if tuple(X._shape[:-2]) != batch else X
        sv = _zeros((0,), A)
        rank = _zeros((0,), A, D.int64)
        if driver != "gels":
            rank = matrix_rank(A, rtol=rtol) if rtol is not None else matrix_rank(A)
        if driver in ("gelsd", "gelss"):
            sv = svdvals(A)
        res = _zeros((0,), A)
        if m > n and driver != "gelsy":
            full = True if driver == "gels" else bool((rank == n).all().item())
            if full:
                res = ((matmul(A, X) - B2) ** 2).sum(-2)
        Xs = V.squeeze(X, -1) if vector else X
        Xs = _lstsq_layout(Xs, max(m, n), vector)
    if needs_grad(A, B):
        record(LinalgLstsqBackward0, (A, B), (Xs, res), vector=vector).save(A, B)
    return lstsq_result(Xs, res, rank, sv)


# -- products ----------------------------------------------------------------------------
def _chain_order(shapes):
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = None
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if m[i][j] is None or q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def multi_dot(tensors, *, out=None):
    from .linalg import mm
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    ts = list(tensors)
    out_shape = []
    if ts[0].dim() == 1:
        ts[0] = V.unsqueeze(ts[0], 0)
    elif ts[0].dim() == 2:
        out_shape.append(ts[0].shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {ts[0].dim()}D")
    if ts[-1].dim() == 1:
        ts[-1] = V.unsqueeze(ts[-1], -1)
    elif ts[-1].dim() == 2:
        out_shape.append(ts[-1].shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {ts[-1].dim()}D")
    for i in range(1, n - 1):
        if ts[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ts[i].dim()}D")
    dt = ts[0].dtype
    for i in range(1, n):
        if ts[i].dtype is not dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{D.cpp_type_name(dt)} and tensor {i} {D.cpp_type_name(ts[i].dtype)}")
        if ts[i].device != ts[0].device:
            raise RuntimeError(f"multi_dot(): all tensors must be on the same device but tensor 0 is on "
                               f"{ts[0].device} and tensor {i} on {ts[i].device}")
        if ts[i - 1].shape[-1] != ts[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1].shape)} and "
                               f"{list(tensors[i].shape)} cannot be multiplied")
    if n == 2:
        return mm(ts[0], ts[1]).view(out_shape)
    if n == 3:
        a, b, c, d = ts[0].shape[0], ts[1].shape[0], ts[2].shape[0], ts[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            return mm(ts[0], mm(ts[1], ts[2])).view(out_shape)
        return mm(mm(ts[0], ts[1]), ts[2]).view(out_shape)
    order = _chain_order([tuple(t.shape) for t in ts])

    def chain(i, j):
        if i == j:
            return ts[i]
        return mm(chain(i, order[i][j]), chain(order[i][j] + 1, j))
    return chain(0, n - 1).view(out_shape)


def chain_matmul(*matrices, out=None):
    _warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future PyTorch "
               "release. Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
               "than multiple parameters.")
    for i, t in enumerate(matrices):        # (a list of them is refused too: *matrices is the one list)
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if out is not None:         # (the parser reads out= after the matrices, before any check of theirs)
        from ._out import check_out_type
        check_out_type("chain_matmul", out)
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if out is not None:
        # PyTorch's chain_matmul_out: one matrix is copied into out (any dtype), more go
        # through linalg.multi_dot's out= (its dtype rule, ops/_out.py's one mechanism)
        from ._out import call_with_out, check_out_type, check_no_grad, resize_output
        check_out_type("chain_matmul", out)
        if len(matrices) > 1:
            check_no_grad("mm", matrices, (out,))      # (PyTorch's refusal names the op it reaches)
            return call_with_out("linalg_multi_dot", multi_dot, "expected", (matrices,), {}, out, "linalg_multi_dot")
        # (a composite's copy_: out's history is CopyBackwards where its dtype can have one)
        from .inplace import copy_
        resize_output(out, matrices[0].shape)
        return copy_(out, matrices[0])
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def vecdot(x, y, *, dim=-1, out=None):
    _check_tensor("linalg_vecdot", "x", 1, x)
    _check_tensor("linalg_vecdot", "y", 2, y)
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(x._dtype)}")
    if x._dtype is not y._dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{D.scalar_type_name(x._dtype)} and y of type {D.scalar_type_name(y._dtype)} instead")
    if x.dim() == 1 and y.dim() == 1:       # (ATen's vecdot of two vectors is vdot: dim is not read)
        return vdot(x, y)
    return (x * y).sum(dim)


class VdotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g * b if self.needs_input_grad(0) else None
        gb = g * a if self.needs_input_grad(1) else None
        return ga, gb


def vdot(input, other, *, out=None):
    a, b = input, other
    _check_tensor("vdot", "input", 1, a)
    _check_tensor("vdot", "other", 2, b)
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{D.scalar_type_name(a._dtype)} and {D.scalar_type_name(b._dtype)}")
    if a.numel() != b.numel():
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.numel()}] and src [{b.numel()}] to have "
                           f"the same number of elements, but got {a.numel()} and {b.numel()} elements respectively")
    check_same_device(a, b)
    from .linalg import dot
    with no_grad():
        result = dot(a, b)
    if needs_grad(a, b):
        # a's gradient reads b, b's reads a (PyTorch saves only what is read)
        record(VdotBackward0, (a, b), (result,)).save(a if needs_grad(b) else None, b if needs_grad(a) else None)
    return result


def vander(x, *, N=None):
    _check_tensor("linalg_vander", "x", 1, x)
    dt = x._dtype
    if not (dt is D.float32 or dt is D.float64 or (not dt.is_floating_point and dt is not D.bool_)):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{D.scalar_type_name(dt)}")
    x_ = V.unsqueeze(x, -1) if x.dim() == 0 else x
    shape = list(x_.shape)
    n = shape[-1] if N is None else as_symint(N, "linalg_vander", "N", 2)     # (a SymInt: an integer tensor too)
    if not n > 1:
        raise RuntimeError("N must be greater than 1.")
    from .cumulative import cumprod
    from .indexing import cat
    result = cumprod(V.expand(V.unsqueeze(x_, -1), tuple(shape) + (n - 1,)), -1)
    from .._creation import ones
    return cat([ones(tuple(shape) + (1,), dtype=result.dtype, device=result.device), result], -1)


# -- tensorinv / tensorsolve / diagonal ----------------------------------------------------
def tensorinv(A, ind=2, *, out=None):
    _check_tensor("linalg_tensorinv", "input", 1, A)
    if not ind > 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.dim():       # (ATen slices the sizes at ind: c10's refusal)
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.dim()}")
    end, start = list(A.shape[ind:]), list(A.shape[:ind])
    p_end, p_start = math.prod(end), math.prod(start)
    if p_end != p_start:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {p_end} != {p_start}")
    result, info = inv_ex(A.reshape(p_end, p_end))
    _raise_on_failure(info.reshape(-1).tolist(), "inv", False,
                      lambda k: f"The diagonal element {k} is zero, the inversion could not "
                      "be completed because the input matrix is singular.")
    return result.reshape(end + start)


def tensorsolve(A, B, dims=None, *, out=None):
    _check_tensor("linalg_tensorsolve", "input", 1, A)
    _check_tensor("linalg_tensorsolve", "other", 2, B)
    ndim = A.dim()
    A_ = A
    if dims is not None:
        dims = list(dims)
        A_ = V.movedim(A_, dims, list(range(ndim - len(dims), ndim)))
    result_shape = list(A_.shape[B.dim():])
    rp, op = math.prod(result_shape), math.prod(B.shape)
    if rp != op:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {rp} != {op}")
    A_ = A_.reshape(rp, rp)
    return solve(A_, B.flatten()).reshape(result_shape)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    _check_tensor("linalg_diagonal", "A", 1, A)
    return V.diagonal(A, offset, dim1, dim2)


def adjoint(input):
    if input.dim() == 0:        # (PyTorch's deprecated 0-dim case: the tensor itself)
        from .._warnings import warn_once
        warn_once("adjoint_0d", "adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        return input
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    return V.transpose(input, -2, -1)


def linalg_matrix_power(A, n, *, out=None):
    from .more import matrix_power
    return matrix_power(A, n)


# -- distances -----------------------------------------------------------------------------
def dist(input, other, p=2):
    _check_tensor("dist", "input", 1, input)
    _check_tensor("dist", "other", 2, other)
    p = as_number(p, "dist", "p", 3)
    diff = input - other
    if not diff._dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{D.scalar_type_name(diff._dtype)} instead.")
    from .composite import one_node        # (PyTorch's DistBackward0: one node from input and other)
    return one_node("DistBackward0", lambda a, b: (a - b).norm(p), input, other)


class CdistBackward0(Node):
    def backward(self, g):
        x1, x2, dist = self.saved_tensors
        need1, need2 = self.needs_input_grad(0), self.needs_input_grad(1)
        if self.p == 0:
            return (_zeros(tuple(x1.shape), x1) if need1 else None), (_zeros(tuple(x2.shape), x2) if need2 else None)
        r1, r2, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
        if math.prod(dist.shape) * m <= _CDIST_DENSE_BACKWARD:
            # all columns at once: the (*, r1, r2, m) differences
            diff = V.unsqueeze(x1, -2) - V.unsqueeze(x2, -3)
            term = _cdist_term(V.unsqueeze(g, -1), diff, V.unsqueeze(dist, -1), self.p)
            g1 = term.sum(-2) if need1 else None
            g2 = -term.sum(-3) if need2 else None
        else:
            # a column at a time, never more than (*, r1, r2) values (as PyTorch's kernel)
            from .indexing import stack
            c1, c2 = [], []
            for k in range(m):
                diff = V.unsqueeze(V.select(x1, -1, k), -1) - V.unsqueeze(V.select(x2, -1, k), -2)
                term = _cdist_term(g, diff, dist, self.p)
                if need1:
                    c1.append(term.sum(-1))
                if need2:
                    c2.append(-term.sum(-2))
            g1 = stack(c1, -1) if need1 else None
            g2 = stack(c2, -1) if need2 else None
        return (_sum_to(g1, x1.shape) if need1 else None), (_sum_to(g2, x2.shape) if need2 else None)


_CDIST_DENSE_BACKWARD = 1 << 22


def _cdist_term(g, diff, d, p):
    """_cdist_backward's summand for x1: g * d dist / d x1 at each difference (x2's is its
    negative), 0 where the distance is 0 (and, for p < 1, where the difference is)."""
    from .elementwise import where
    if p == 1:
        return g * diff.sign()
    if p == 2:
        return where(d == 0, 0.0, g * diff / d)
    if math.isinf(p):
        return where(diff.abs() == d, g * diff.sign(), 0.0)
    if p < 2:
        bad = (d == 0) | ((diff == 0) & (p < 1))
        return where(bad, 0.0, diff.sign() * diff.abs() ** (p - 1) * g / d ** (p - 1))
    return where(d == 0, 0.0, diff * diff.abs() ** (p - 2) * g / d ** (p - 1))


def _sum_to(out, shape):
    """out summed over the broadcast batch dims down to an input's own shape."""
    extra = out.dim() - len(shape)
    if extra > 0:
        out = out.sum(tuple(range(extra)))
    for i, (a, b) in enumerate(zip(out.shape, shape)):
        if a != b:
            out = out.sum(i, keepdim=True)
    return out


def _euclidean_dist(x1, x2):
    from .indexing import cat
    from .._creation import ones_like
    x1_norm = (x1 ** 2).sum(-1, keepdim=True)
    x1_pad = ones_like(x1_norm)
    x2_norm = (x2 ** 2).sum(-1, keepdim=True)
    x2_pad = ones_like(x2_norm)
    x1_ = cat([x1 * -2, x1_norm, x1_pad], -1)
    x2_ = cat([x2, x2_pad, x2_norm], -1)
    with no_grad():
        result = matmul(x1_, V.mT(x2_)).clamp_min(0).sqrt()
    if needs_grad(x1, x2):
        record(EuclideanDistBackward0, (x1, x2), (result,)).save(x1, x2, result, outputs=(result,))
    return result


class EuclideanDistBackward0(Node):
    def backward(self, g):
        from .elementwise import where
        x1, x2, res = self.saved_tensors
        ratio = where(res == 0, 0.0, g / res)
        g1 = x1 * ratio.sum(-1, keepdim=True) - matmul(ratio, x2) if self.needs_input_grad(0) else None
        g2 = (x2 * V.unsqueeze(ratio.sum(-2), -1) - matmul(V.mT(ratio), x1)) if self.needs_input_grad(1) else None
        return g1, g2


def _cdist_serial(x1, x2, p):
    """PyTorch's CPU cdist kernel: each distance accumulated column by column in the input's
    dtype (agg = red(agg, map(|a|))), then finished (sqrt, or the 1/p power), so that the
    values are its bits; a column's (*, r1, r2) differences at a time (no (*, r1, r2, m)
    intermediate)."""
    from .elementwise import fma_raw, where
    agg = None
    m = x1.shape[-1]
    # the columns as contiguous rows (each step's operands dense)
    c1, c2 = V.movedim(x1, -1, 0).contiguous(), V.movedim(x2, -1, 0).contiguous()
    for k in range(m):
        a = (V.unsqueeze(c1[k], -1) - V.unsqueeze(c2[k], -2)).abs()
        if p == 2:
            # agg + a * a; its compiled loop takes the columns in groups of 2 (float64) or 4
            # (float32) without contraction, and the remainder's steps as one fma each (found
            # against torch 2.13's bits)
            if agg is None:
                agg = a * a
            elif k >= m - m % (2 if a._dtype is D.float64 else 4):
                agg = fma_raw(a, a, agg)
            else:
                agg = agg + a * a
            continue
        if math.isinf(p):
            # std::max(agg, a) from agg = 0: a NaN difference is passed over
            agg = where(a > 0, a, 0.0) if agg is None else where(agg < a, a, agg)
            continue
        if p == 0:
            term = where(a != a, a, (a != 0).to(a.dtype))          # min(ceil(a), 1): NaN stays
        elif p == 1:
            term = a
        else:
            term = a ** p
        agg = term.clone() if agg is None else agg + term
    if p == 2:
        return agg.sqrt()
    if p in (0, 1) or math.isinf(p):
        return agg
    return agg ** (1.0 / p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    # PyTorch's Python first (compute_mode compared with its three words), then _VF.cdist's
    # parser (x1, x2 tensors, p a float), then ATen's checks
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    mode = next((i for i, m in enumerate(modes) if compute_mode == m), None)
    if mode is None:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    _check_tensor("cdist", "x1", 1, x1)
    _check_tensor("cdist", "x2", 2, x2)
    if not is_float(p):
        from ._argument_check import _type_name
        raise TypeError(f"cdist(): argument 'p' (position 3) must be float, not {_type_name(p)}")
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: "
                           f"{x2._shape[-1]}")
    if not x1._dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {D.scalar_type_name(x1._dtype)}")
    if not x2._dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {D.scalar_type_name(x2._dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    check_same_device(x1, x2)
    r1, r2, c = x1._shape[-2], x2._shape[-2], x1._shape[-1]
    batch = tuple(broadcast_shapes(x1._shape[:-2], x2._shape[:-2]))
    out_shape = batch + (r1, r2)
    nb = math.prod(batch)
    use_mm = p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    if not use_mm:
        check_dtype("cdist", x1._dtype)     # (PyTorch's kernel; its mm path takes Half)
    if use_mm and x1.numel() and x2.numel() and r1 and r2 and nb and c:
        if x1._dtype is not x2._dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {D.cpp_type_name(x1._dtype)} "
                               f"!= {D.cpp_type_name(x2._dtype)}")
        a = x1 if nb == 1 else x1.expand(batch + (r1, c))
        b = x2 if nb == 1 else x2.expand(batch + (r2, c))
        return _euclidean_dist(a, b).view(out_shape)
    check_same_dtype(x1._dtype, x2._dtype)
    check_dtype("cdist", x1._dtype)
    with no_grad():
        if r1 == 0 or r2 == 0 or nb == 0:
            result = _zeros(out_shape, x1)
        elif c == 0:
            result = _zeros(out_shape, x1)
        else:
            result = _cdist_serial(x1, x2, p).expand(out_shape).contiguous()
    if needs_grad(x1, x2):
        record(CdistBackward0, (x1, x2), (result,), p=float(p)).save(x1, x2, result, outputs=(result,))
    return result


# -- renorm ------------------------------------------------------------------------------
def renorm(input, p, dim, maxnorm, *, out=None):
    _check_tensor("renorm", "input", 1, input)
    # (ATen's meta function: p, maxnorm, the rank; then renorm_out wraps the dim before its norm)
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if not float(p) > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if float(maxnorm) < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    d = _wrap(dim, input.dim())
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(input._dtype)}")
    dims = tuple(i for i in range(input.dim()) if i != d)
    from .composite import one_node        # (PyTorch's RenormBackward0: one node from the input)
    return one_node("RenormBackward0", lambda t: _renorm(t, p, dims, maxnorm), input)


def _renorm(input, p, dims, maxnorm):
    from .elementwise import where
    from .linalg_decomp import vector_norm
    half = input._dtype is D.float16
    # float16: the norm and the factor in float32 (PyTorch's CUDA accumulate type), the factor
    # rounded to float16 before the product
    norm = vector_norm(input, p, dims, True, dtype=D.float32 if half else None)
    factor = where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    if half:
        factor = factor.to(D.float16)
    return input * factor


# -- torch.lu / torch.lu_solve (deprecated forms) -------------------------------------------
def torch_lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu / Tensor.lu: (LU, pivots) or, with get_infos, (LU, pivots, infos) (no error
    for a singular matrix then).  out: as PyTorch's Python-level torch.lu, each out tensor
    resize_as_'d and copy_'d (cast, recorded by autograd as any copy_), and out returned."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    result = (LU, pivots, info) if get_infos else (LU, pivots)
    if out is None:
        return result
    if len(out) - bool(get_infos) != 2:
        raise TypeError(f"expected tuple of {2 + int(get_infos)} elements but got {len(out)}")
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    for o, r in zip(out, result):
        o.resize_as_(r).copy_(r)
    return out


def torch_lu_solve(input, LU_data, LU_pivots, *, out=None):
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
               "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
               "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solve(LU_data, LU_pivots, input)


def renorm_(self, p, dim, maxnorm):
    from .inplace import apply_inplace
    return apply_inplace(self, lambda old, *_: renorm(old, p, dim, maxnorm), needs_old=True)
