"""Dense factorizations and solves through LAPACK, reached from Numba: inv, solve, det,
slogdet, svd, qr, cholesky, eigh over a batch of matrices (nbgrad/ops/linalg_decomp.py);
geqrf's compact QR and orgqr's product of its reflectors are LAPACK's unblocked steps
written here (geqr2, org2r; nbgrad/ops/linalg_householder.py).

Each entry point takes one strided view (*B, m, n) of float32/float64, copies it into a
dense (batch, m, n) array (the strided copy kernel) and runs one njit kernel that loops
over the batch calling NumPy's linalg, which Numba compiles to LAPACK calls (SciPy's
LAPACK; the same routines PyTorch's CPU calls: getrf/getri, gesv, gesdd, geqrf/orgqr,
potrf, syevd).  Results are new C-order buffers.  A failure is not raised here: it is
returned as an int64 `info` array, one entry per matrix, LAPACK's code (k > 0: the k-th
pivot is exactly zero / the leading minor of order k is not positive-definite), and the
op layer raises PyTorch's error.  Numba's linalg refuses non-finite input; a matrix
holding NaN or inf gives NaN results instead (LAPACK's own results there are unspecified)
except det and slogdet, which factor it with getf2's steps here as PyTorch's LU would,
and a solve with a finite matrix and a non-finite right-hand side runs LAPACK's steps here.
"""
import math

import numpy as np

from .._shared import cpu_kernel
from .._shared.fast_math import fma as _fma

from .strided_copy import copy  # a Python wrapper, not a jitted helper
from .._shared.geometry import contiguous_strides

# (keyed by the shared helpers' digest: _lu_diagonal calls fast_math's fma; numpy's error model,
# as every kernel of the package: no division here may raise)
_kernel = cpu_kernel()


def _dense(view):
    """The view's values as a new C-order (batch, m, n) array."""
    buf, _, shape, _ = view
    shape = tuple(shape)
    out = np.empty(shape, dtype=buf.dtype)
    if out.size:
        copy(view, (out.reshape(-1), 0, shape, contiguous_strides(shape)))
    return out.reshape((int(np.prod(shape[:-2])),) + shape[-2:])


@_kernel
def _finite(a):
    for x in a.ravel():
        if not np.isfinite(x):
            return False
    return True


@_kernel
def _lu_factor(lu, piv):
    """LAPACK getf2's partial-pivoting LU of the square `lu`, in place (the first largest
    |pivot|; rows swapped whole; multipliers scaled by the pivot's reciprocal), its row swaps
    in `piv`; getrf's info: 1 + the first step whose pivot is exactly zero (stopping there),
    0 if none (unblocked: the same pivots as getrf's)."""
    n = lu.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(lu[i, k]) > abs(lu[p, k]):
                p = i
        piv[k] = p
        if lu[p, k] == 0:
            return k + 1
        if p != k:
            for j in range(n):
                t = lu[k, j]
                lu[k, j] = lu[p, j]
                lu[p, j] = t
        r = 1.0 / lu[k, k]
        for i in range(k + 1, n):
            lu[i, k] *= r
        for i in range(k + 1, n):
            f = lu[i, k]
            for j in range(k + 1, n):
                lu[i, j] -= f * lu[k, j]
    return 0


@_kernel
def _first_zero_pivot(a):
    """LAPACK getrf's info for a square matrix (_lu_factor's), 0 if no pivot is zero."""
    return _lu_factor(a.copy(), np.empty(a.shape[0], np.int64))


@_kernel
def _inv_kernel(a, out, info):
    for b in range(a.shape[0]):
        if not _finite(a[b]):
            out[b] = np.nan
            continue
        try:
            out[b] = np.linalg.inv(a[b])
        except Exception:
            k = _first_zero_pivot(a[b])
            info[b] = k if k > 0 else a.shape[1]


@_kernel
def _lu_solve_nonfinite(a, rhs, out):
    """X of a X = rhs for a finite `a` and a rhs holding inf or NaN, which Numba's solve
    refuses: LAPACK's gesv steps (_lu_factor; getrs: the row swaps, then unit-lower and
    upper triangular solves column by column, reference trsm's order, skipping zeros), so
    an infinite right-hand side gives the infinities LAPACK gives, as PyTorch's does (a
    gradient of -inf through det).
    The first exactly zero pivot's order, or 0."""
    n = a.shape[0]
    lu = a.copy()
    piv = np.empty(n, np.int64)
    first_zero = _lu_factor(lu, piv)
    if first_zero:
        return first_zero
    x = rhs.copy()
    for i in range(n):
        if piv[i] != i:
            for c in range(x.shape[1]):
                t = x[i, c]
                x[i, c] = x[piv[i], c]
                x[piv[i], c] = t
    for c in range(x.shape[1]):
        for k in range(n):
            if x[k, c] != 0:
                for i in range(k + 1, n):
                    x[i, c] -= x[k, c] * lu[i, k]
        for k in range(n - 1, -1, -1):
            if x[k, c] != 0:
                x[k, c] /= lu[k, k]
                for i in range(k):
                    x[i, c] -= x[k, c] * lu[i, k]
    out[:] = x
    return 0


@_kernel
def _solve_kernel(a, rhs, out, info):
    for b in range(a.shape[0]):
        if _finite(a[b]) and not _finite(rhs[b]):
            info[b] = _lu_solve_nonfinite(a[b], rhs[b], out[b])
            continue
        if not (_finite(a[b]) and _finite(rhs[b])):
            out[b] = np.nan
            continue
        try:
            out[b] = np.linalg.solve(a[b], rhs[b])
        except Exception:
            k = _first_zero_pivot(a[b])
            info[b] = k if k > 0 else a.shape[1]


# det and slogdet factor a matrix of up to this order with _lu_diagonal, larger finite ones
# with LAPACK's blocked getrf: at these orders getf2's steps with fused multiply-adds give
# PyTorch's (MKL's) bits far more often than NumPy's LAPACK does (2x2: 95% of random
# matrices against 37%, 5x5: 40% against 8%, 16x16: 21% against 0.3%), and cost nothing
_OWN_LU_MAX = 16


@_kernel
def _lu_diagonal(a):
    """getf2's LU of a copy of the square `a`, whatever its values (NaN and inf included,
    which Numba's linalg refuses): (the row permutation's sign, U's diagonal).  The pivot
    is the first largest |value| (a NaN is never larger), a zero pivot's column is left
    unscaled and the factorization goes on, as LAPACK's; the trailing update is a fused
    multiply-add, as MKL's is."""
    lu = a.copy()
    n = lu.shape[0]
    sign = 1.0
    diag = np.empty(n, lu.dtype)
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(lu[i, k]) > abs(lu[p, k]):
                p = i
        if p != k:
            sign = -sign
            for j in range(n):
                t = lu[k, j]
                lu[k, j] = lu[p, j]
                lu[p, j] = t
        pivot = lu[k, k]
        if pivot != 0:
            r = 1.0 / pivot
            for i in range(k + 1, n):
                lu[i, k] *= r
        for i in range(k + 1, n):
            m = lu[i, k]
            for j in range(k + 1, n):
                lu[i, j] = _fma(-m, lu[k, j], lu[i, j])
        diag[k] = lu[k, k]
    return sign, diag


@_kernel
def _det_kernel(a, out):
    for b in range(a.shape[0]):
        if a.shape[1] > _OWN_LU_MAX and _finite(a[b]):
            out[b] = np.linalg.det(a[b])
        else:       # PyTorch's det: the permutation's sign times the product of U's diagonal
            s, diag = _lu_diagonal(a[b])
            d = 1.0
            for x in diag:
                d *= x
            out[b] = s * d


@_kernel
def _slogdet_kernel(a, sign, logabs):
    for b in range(a.shape[0]):
        if a.shape[1] > _OWN_LU_MAX and _finite(a[b]):
            s, l = np.linalg.slogdet(a[b])
            sign[b] = s
            logabs[b] = l
        else:
            # PyTorch's slogdet from the LU: sign = the permutation's sign times the product
            # of sgn(U's diagonal), where sgn(NaN) is 0; log|det| = the sum of log|u_kk|
            s, diag = _lu_diagonal(a[b])
            l = 0.0
            for x in diag:
                s *= 1.0 if x > 0 else -1.0 if x < 0 else 0.0
                l += np.log(abs(x))
            sign[b] = s
            logabs[b] = l


@_kernel
def _svd_kernel(a, full_matrices, u, s, vh):
    for b in range(a.shape[0]):
        if not _finite(a[b]):
            u[b] = np.nan
            s[b] = np.nan
            vh[b] = np.nan
            continue
        ub, sb, vhb = np.linalg.svd(a[b], full_matrices)
        u[b] = ub
        s[b] = sb
        vh[b] = vhb


@_kernel
def _qr_kernel(a, q, r):
    # a complete Q of a tall matrix: the QR of the square [A | 0], whose reflectors past the
    # n-th are identities (LAPACK's tau = 0 for a zero column): Q = H_1 ... H_n, as orgqr
    # completes it for PyTorch and NumPy; R its first n columns
    m, n = a.shape[1], a.shape[2]
    complete = q.shape[2] > min(m, n)
    for b in range(a.shape[0]):
        if not _finite(a[b]):
            q[b] = np.nan
            r[b] = np.nan
            continue
        if complete:
            ext = np.zeros((m, m), dtype=a.dtype)
            ext[:, :n] = a[b]
            qb, rb = np.linalg.qr(ext)
            q[b] = qb
            r[b] = rb[:, :n]
        else:
            qb, rb = np.linalg.qr(a[b])
            q[b] = qb
            r[b] = rb


@_kernel
def _potf2(low):
    """The left-looking unblocked Cholesky (LAPACK dpotf2) of low's lower triangle, in place,
    as far as it goes: returns the order of the first leading minor that is not positive-
    definite, its pivot (<= 0 or NaN) left on the diagonal and the columns after it as they
    were, or 0.  What PyTorch's cholesky_ex returns for a failed factorization."""
    n = low.shape[0]
    for j in range(n):
        d = low[j, j]
        for k in range(j):
            d -= low[j, k] * low[j, k]
        if not d > 0:
            low[j, j] = d
            return j + 1
        low[j, j] = np.sqrt(d)
        for i in range(j + 1, n):
            t = low[i, j]
            for k in range(j):
                t -= low[i, k] * low[j, k]
            low[i, j] = t / low[j, j]
    return 0


@_kernel
def _cholesky_partial(a, low):
    """low := a's lower triangle (its upper zeroed), factored in place by _potf2 as far as it
    goes; returns _potf2's info (LAPACK potrf's: the order of the first leading minor that is
    not positive-definite, 0 if none)."""
    n = a.shape[0]
    for i in range(n):
        for j in range(n):
            low[i, j] = a[i, j] if j <= i else 0.0
    return _potf2(low)


@_kernel
def _cholesky_kernel(a, out, info):
    for b in range(a.shape[0]):
        if not _finite(a[b]):
            # Numba's cholesky refuses it: potrf's steps here, which read the lower triangle
            # only and fail at a NaN pivot (PyTorch raises there) rather than return NaN;
            # this path's output keeps the columns from the failed one on zeroed
            k = _cholesky_partial(a[b], out[b])
            if k > 0:
                out[b, :, k - 1:] = 0.0
            info[b] = k
            continue
        try:
            out[b] = np.linalg.cholesky(a[b])
        except Exception:
            # what the factorization leaves where it stops (PyTorch returns it, its upper
            # triangle zeroed): the factored columns, the failed pivot's value, the rest
            # of the lower triangle as it was (measured against PyTorch 2.13's CPU build)
            k = _cholesky_partial(a[b], out[b])
            info[b] = k if k > 0 else a.shape[1]


@_kernel
def _eigh_kernel(a, upper, w, v):
    for b in range(a.shape[0]):
        # syevd reads the lower triangle: the upper one is the transpose's lower one
        m = np.ascontiguousarray(a[b].T) if upper else a[b]
        if not _finite(m):
            w[b] = np.nan
            v[b] = np.nan
            continue
        wb, vb = np.linalg.eigh(m)
        w[b] = wb
        v[b] = vb


def _flat(*arrays):
    return tuple(x.reshape(-1) for x in arrays)


def linalg_inv(view):
    """(*B, n, n) -> (inverse buffer, info)."""
    a = _dense(view)
    out = np.empty_like(a)
    info = np.zeros(a.shape[0], np.int64)
    if a.size:
        _inv_kernel(a, out, info)
    return out.reshape(-1), info


def linalg_solve(a_view, b_view):
    """A (*B, n, n), rhs (*B, n, k) (same batch) -> (X buffer (*B, n, k), info)."""
    a, rhs = _dense(a_view), _dense(b_view)
    out = np.empty_like(rhs)
    info = np.zeros(a.shape[0], np.int64)
    if a.size and rhs.size:
        _solve_kernel(a, rhs, out, info)
    elif rhs.size:          # 0 x 0 systems: nothing to solve
        out[...] = 0
    return out.reshape(-1), info


def linalg_det(view):
    """(*B, n, n) -> det buffer (*B,)."""
    a = _dense(view)
    out = np.ones(a.shape[0], a.dtype)
    if a.size:
        _det_kernel(a, out)
    return out


def linalg_slogdet(view):
    """(*B, n, n) -> (sign buffer, log|det| buffer), each (*B,)."""
    a = _dense(view)
    sign = np.ones(a.shape[0], a.dtype)
    logabs = np.zeros(a.shape[0], a.dtype)
    if a.size:
        _slogdet_kernel(a, sign, logabs)
    return sign, logabs


def linalg_svd(view, full_matrices):
    """(*B, m, n) -> (U, S, Vh) buffers: U (*B, m, m or k), S (*B, k), Vh (*B, n or k, n)."""
    a = _dense(view)
    bsz, m, n = a.shape
    k = min(m, n)
    u = np.empty((bsz, m, m if full_matrices else k), a.dtype)
    s = np.empty((bsz, k), a.dtype)
    vh = np.empty((bsz, n if full_matrices else k, n), a.dtype)
    if a.size:
        _svd_kernel(a, bool(full_matrices), u, s, vh)
    else:               # an empty matrix: its full factors are identities
        u[...] = np.eye(m, u.shape[2], dtype=a.dtype)
        vh[...] = np.eye(vh.shape[1], n, dtype=a.dtype)
    return _flat(u, s, vh)


def linalg_qr(view, complete):
    """(*B, m, n) -> (Q, R) buffers: Q (*B, m, m if complete else k), R (*B, m or k, n)."""
    a = _dense(view)
    bsz, m, n = a.shape
    cols = m if complete else min(m, n)
    q = np.empty((bsz, m, cols), a.dtype)
    r = np.empty((bsz, cols, n), a.dtype)
    if a.size:
        _qr_kernel(a, q, r)
    else:
        q[...] = np.eye(m, cols, dtype=a.dtype)
        r[...] = 0
    return _flat(q, r)


def linalg_cholesky(view):
    """(*B, n, n), lower triangle read -> (L buffer, info)."""
    a = _dense(view)
    out = np.empty_like(a)
    info = np.zeros(a.shape[0], np.int64)
    if a.size:
        _cholesky_kernel(a, out, info)
    return out.reshape(-1), info


def linalg_eigh(view, upper):
    """(*B, n, n), one triangle read -> (eigenvalues (*B, n) ascending, eigenvectors
    (*B, n, n) as columns) buffers."""
    a = _dense(view)
    w = np.empty(a.shape[:2], a.dtype)
    v = np.empty_like(a)
    if a.size:
        _eigh_kernel(a, bool(upper), w, v)
    return _flat(w, v)


# -- LU with its pivots, triangular solves (torch.linalg.lu_factor / solve_triangular) --
# (NumPy's error model: a division by zero gives inf/NaN, as LAPACK's, not ZeroDivisionError)
_kernel_ieee = _kernel        # (cpu_kernel's error model is numpy's)


@_kernel_ieee
def _lu_factor_rect(lu, piv):
    """LAPACK getf2's partial-pivoting LU of the (m, n) `lu`, in place, for min(m, n) steps:
    the first largest |pivot| of the column, rows swapped whole, the multipliers divided by
    the pivot.  A zero pivot does not stop it (getrf goes on, leaving that column's
    multipliers unscaled); pivots are 1-based, LAPACK's; info: 1 + the first step whose
    pivot is exactly zero, 0 if none."""
    m, n = lu.shape
    info = 0
    for k in range(min(m, n)):
        p = k
        for i in range(k + 1, m):
            if abs(lu[i, k]) > abs(lu[p, k]):
                p = i
        piv[k] = p + 1
        if lu[p, k] == 0:
            if info == 0:
                info = k + 1
            continue
        if p != k:
            for j in range(n):
                t = lu[k, j]
                lu[k, j] = lu[p, j]
                lu[p, j] = t
        d = lu[k, k]
        for i in range(k + 1, m):
            lu[i, k] /= d
        for i in range(k + 1, m):
            f = lu[i, k]
            if f != 0:
                for j in range(k + 1, n):
                    lu[i, j] -= f * lu[k, j]
    return info


@_kernel_ieee
def _lu_factor_kernel(a, piv, info):
    for b in range(a.shape[0]):
        info[b] = _lu_factor_rect(a[b], piv[b])


@_kernel_ieee
def _solve_triangular_kernel(a, x, upper, unit):
    """X of A X = B in place of B (x), A triangular (only its `upper` or lower triangle read,
    its diagonal taken as ones when `unit`): column-by-column substitution without reference
    trsm's skipping of zeros (as optimized BLAS, whose inf/NaN PyTorch shows for a zero
    diagonal element: 0 * inf is NaN), and no error."""
    n = a.shape[1]
    for b in range(a.shape[0]):
        for c in range(x.shape[2]):
            if upper:
                for k in range(n - 1, -1, -1):
                    if not unit:
                        x[b, k, c] /= a[b, k, k]
                    t = x[b, k, c]
                    for i in range(k):
                        x[b, i, c] -= t * a[b, i, k]
            else:
                for k in range(n):
                    if not unit:
                        x[b, k, c] /= a[b, k, k]
                    t = x[b, k, c]
                    for i in range(k + 1, n):
                        x[b, i, c] -= t * a[b, i, k]


def linalg_lu_factor(view):
    """(*B, m, n) -> (LU buffer (*B, m, n), 1-based int32 pivots buffer (*B, min(m, n)),
    info (one getrf code per matrix: k > 0, U[k-1, k-1] is exactly zero))."""
    a = _dense(view).copy()
    k = min(a.shape[1], a.shape[2])
    piv = np.zeros((a.shape[0], k), np.int32)
    info = np.zeros(a.shape[0], np.int64)
    if a.size:
        _lu_factor_kernel(a, piv, info)
    return a.reshape(-1), piv.reshape(-1), info


def linalg_solve_triangular(a_view, b_view, upper, unitriangular):
    """A (*B, n, n) triangular (one triangle read), rhs (*B, n, k) (same batch) -> X buffer
    (*B, n, k) of A X = rhs; a zero on A's diagonal gives inf/NaN, not an error."""
    a, x = _dense(a_view), _dense(b_view).copy()
    if a.size and x.size:
        _solve_triangular_kernel(a, x, bool(upper), bool(unitriangular))
    return x.reshape(-1)


# -- Householder QR in LAPACK's compact form (torch.geqrf, torch.linalg.householder_product) --
# LAPACK's reference steps (geqr2: dlarfg, dlarf; org2r), computed in the matrix's own
# precision as its s/d routines are.  Both kernels work on each matrix's transpose, so that a
# column of the matrix is a row here (LAPACK's column-major walk): `at` is (batch, n, m),
# at[b, j] the j-th column.

# dlamch('S') / dlamch('E') (the smallest safe number over the rounding unit): below it,
# dlarfg rescales the column; dlamch('O'), the overflow threshold of dlapy2
_SAFMIN64 = float(np.finfo(np.float64).tiny / (np.finfo(np.float64).eps / 2))
_SAFMIN32 = float(np.finfo(np.float32).tiny / (np.finfo(np.float32).eps / 2))
_HUGE64 = float(np.finfo(np.float64).max)
_HUGE32 = float(np.finfo(np.float32).max)


@_kernel_ieee
def _column_norm(x):
    """The 2-norm of the vector x in its precision (LAPACK's nrm2): the plain sum of
    squares, or, where that may have overflowed or underflowed (a zero sum included), the sum
    rescaled by the largest |x_i|; NaN stays NaN."""
    zero = x.dtype.type(0.0)
    s = zero
    for v in x:
        s += v * v
    lo, hi = (1e-290, 1e290) if x.itemsize == 8 else (1e-30, 1e30)
    if (s > lo and s < hi) or s != s:
        return np.sqrt(s)
    scale = zero
    for v in x:
        scale = max(scale, abs(v))
    if scale == zero or scale == np.inf:
        return scale
    s = zero
    for v in x:
        r = v / scale
        s += r * r
    return scale * np.sqrt(s)


@_kernel_ieee
def _lapy2(x, y, one, huge):
    """LAPACK's dlapy2: sqrt(x^2 + y^2) without overflow (a NaN argument returned)."""
    if x != x:
        return x
    if y != y:
        return y
    xa, ya = abs(x), abs(y)
    w, z = max(xa, ya), min(xa, ya)
    if z == 0.0 or w > huge:
        return w
    q = z / w
    return w * np.sqrt(one + q * q)


@_kernel_ieee
def _reflector(col):
    """LAPACK's dlarfg on col = (alpha, x) in place: the elementary reflector
    H = I - tau v v^T with v = (1, x'), H col = (beta, 0), |beta| = ||col||, beta's sign
    opposite alpha's; col becomes (beta, x').  Returns tau (0 when x is zero: H = I)."""
    zero, one = col.dtype.type(0.0), col.dtype.type(1.0)
    xnorm = _column_norm(col[1:])
    if xnorm == zero:
        return zero
    double = col.itemsize == 8
    safmin = col.dtype.type(_SAFMIN64 if double else _SAFMIN32)
    huge = col.dtype.type(_HUGE64 if double else _HUGE32)
    alpha = col[0]
    beta = -math.copysign(_lapy2(alpha, xnorm, one, huge), alpha)
    knt = 0
    if abs(beta) < safmin:
        # xnorm and beta may be inaccurate: scale x up and recompute them (dlarfg's loop)
        rsafmn = one / safmin
        while True:
            knt += 1
            for i in range(1, col.shape[0]):
                col[i] *= rsafmn
            beta *= rsafmn
            alpha *= rsafmn
            if not (abs(beta) < safmin and knt < 20):
                break
        xnorm = _column_norm(col[1:])
        beta = -math.copysign(_lapy2(alpha, xnorm, one, huge), alpha)
    tau = (beta - alpha) / beta
    scal = one / (alpha - beta)
    for i in range(1, col.shape[0]):
        col[i] *= scal
    for _ in range(knt):
        beta *= safmin
    col[0] = beta
    return tau


@_kernel_ieee
def _apply_reflector(at, j, tau, first):
    """H_j = I - tau v v^T, v = (1, at[j, j+1:]), on rows j.. of the columns at[first:]
    (LAPACK's dlarf from the left: w = C^T v by gemv, then the rank-1 update by ger)."""
    m = at.shape[1]
    for c in range(first, at.shape[0]):
        w = at[c, j]
        for i in range(j + 1, m):
            w += at[c, i] * at[j, i]
        s = -tau * w
        at[c, j] += s
        for i in range(j + 1, m):
            at[c, i] += at[j, i] * s


@_kernel_ieee
def _geqrf_kernel(at, tau):
    """LAPACK's geqr2 on each matrix (transposed, in place): for each of its first
    min(m, n) columns, the reflector that zeroes it below the diagonal (dlarfg), applied to
    the columns after it; R on and above the diagonal, the reflectors' vectors below it."""
    n, m = at.shape[1], at.shape[2]
    for b in range(at.shape[0]):
        for j in range(min(m, n)):
            t = _reflector(at[b, j, j:])
            tau[b, j] = t
            if t != 0.0 and j + 1 < n:
                _apply_reflector(at[b], j, t, j + 1)


@_kernel_ieee
def _householder_product_kernel(at, tau):
    """LAPACK's org2r on each matrix (transposed, in place; m >= n >= k): the first n
    columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i the i-th column below the diagonal
    after an implicit 1.  The columns past k start as the identity's; the reflectors are
    applied last to first, each to the columns it reaches."""
    n, m = at.shape[1], at.shape[2]
    k = tau.shape[1]
    one = at.dtype.type(1.0)
    for b in range(at.shape[0]):
        q = at[b]
        for j in range(k, n):
            q[j, :] = 0
            q[j, j] = one
        for i in range(k - 1, -1, -1):
            t = tau[b, i]
            if i < n - 1:
                _apply_reflector(q, i, t, i + 1)
            for r in range(i + 1, m):
                q[i, r] *= -t
            q[i, i] = one - t
            for r in range(i):
                q[i, r] = 0


def _transposed(view):
    """The view's matrices (*B, m, n) as a new C-order (batch, n, m) array: each one's
    columns as rows."""
    a = _dense(view)
    return np.ascontiguousarray(a.transpose(0, 2, 1))


def linalg_geqrf(view):
    """(*B, m, n) -> (a (*B, m, n), tau (*B, min(m, n))) buffers: LAPACK geqrf's compact QR,
    R on and above the diagonal, the reflectors' vectors below it."""
    at = _transposed(view)
    tau = np.zeros((at.shape[0], min(at.shape[1], at.shape[2])), at.dtype)
    if at.size:
        _geqrf_kernel(at, tau)
    return np.ascontiguousarray(at.transpose(0, 2, 1)).reshape(-1), tau.reshape(-1)


def linalg_householder_product(a_view, tau_view):
    """a (*B, m, n) with m >= n, tau (*B, k) with k <= n -> the first n columns of
    H_1 ... H_k (*B, m, n) (LAPACK orgqr; only a's part below the diagonal is read)."""
    at = _transposed(a_view)
    tau = _dense((tau_view[0], tau_view[1], tuple(tau_view[2]) + (1,), tuple(tau_view[3]) + (1,)))
    tau = tau.reshape(at.shape[0], int(tau_view[2][-1]))
    if at.size:
        _householder_product_kernel(at, tau)
    return np.ascontiguousarray(at.transpose(0, 2, 1)).reshape(-1)
