"""LAPACK's Bunch-Kaufman LDL^T factorization of symmetric matrices and its solve, written
here as njit kernels: ?sytf2 (the unblocked ?sytrf, lower triangle) and ?sytrs (lower),
for torch.linalg.ldl_factor(_ex) and ldl_solve (nbgrad/ops/linalg_ldl.py).

Why not SciPy's ?sytrf/?sytrs: PyTorch calls MKL's, and these loops, run in reference
LAPACK's order with no fused multiply-add and in the matrix's own precision, give MKL's
bits: the factorization for every order we measured up to 65 (MKL's blocked steps take
over above that; the pivots still agree), the solve up to order 9 in float64 (its
dot products are summed in another order above) and beyond in float32, where SciPy's
OpenBLAS differs from order 17 (factor) and 2 (solve).  And ?sytrs reads outside its
arrays for pivots that no factorization gives; this solve takes any pivots in [-n, n].

Layout: both entry points work on transposed copies (each matrix's columns as rows, so
that LAPACK's column operations walk contiguous memory) and return them as they are,
which is PyTorch's batched column-major layout of LD and of the solution.  A NaN or inf
is not refused: the steps go on as LAPACK's do (which |value| is largest follows LAPACK's
comparisons), and an exactly zero pivot is reported in `info` (k > 0: D[k-1, k-1] is zero),
as ?sytrf's.
"""
import math

import numpy as np

from .._shared import cpu_kernel
from .linalg_lapack import _dense

_kernel = cpu_kernel()      # numpy's error model: a division by zero gives inf/NaN, no exception

# ?sytf2's Bunch-Kaufman threshold (1 + sqrt(17)) / 8
_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


@_kernel
def _sytf2(t, piv, alpha):
    """?sytf2 (uplo='L') on one matrix held transposed: t[j, i] is A[i, j], only i >= j
    read.  In place: L's multipliers below the diagonal, D's 1x1 and 2x2 blocks on and
    next to it; A's other triangle set to zero, as PyTorch returns LD.  piv: LAPACK's
    1-based pivots (a 2x2 block at k, k+1 has piv[k] = piv[k+1] = -(row swapped with
    k+1)).  Returns info: 1 + the first k whose pivot column is exactly zero, 0 if none
    (the factorization goes on, as LAPACK's).  All arithmetic in t's precision."""
    n = t.shape[0]
    one = t.dtype.type(1.0)
    zero = t.dtype.type(0.0)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(t[k, k])
        # idamax over A[k+1:, k]: the first largest |value| (a NaN is never larger)
        imax = k
        colmax = zero
        if k < n - 1:
            imax = k + 1
            colmax = abs(t[k, k + 1])
            for i in range(k + 2, n):
                if abs(t[k, i]) > colmax:
                    colmax = abs(t[k, i])
                    imax = i
        # max(absakk, colmax) as MKL takes it: a NaN diagonal with a non-zero column goes on
        biggest = absakk if absakk > colmax else colmax
        if biggest == zero:
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= alpha * colmax:
                kp = k
            else:
                # the largest off-diagonal |value| in row/column imax
                rowmax = abs(t[k, imax])
                for j in range(k + 1, imax):
                    if abs(t[j, imax]) > rowmax:
                        rowmax = abs(t[j, imax])
                if imax < n - 1:
                    m2 = abs(t[imax, imax + 1])
                    for i in range(imax + 2, n):
                        if abs(t[imax, i]) > m2:
                            m2 = abs(t[imax, i])
                    rowmax = rowmax if rowmax > m2 else m2
                if absakk >= alpha * colmax * (colmax / rowmax):
                    kp = k
                elif abs(t[imax, imax]) >= alpha * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                # swap rows and columns kk and kp of the trailing lower triangle
                for i in range(kp + 1, n):
                    s = t[kk, i]
                    t[kk, i] = t[kp, i]
                    t[kp, i] = s
                for j in range(kk + 1, kp):
                    s = t[kk, j]
                    t[kk, j] = t[j, kp]
                    t[j, kp] = s
                s = t[kk, kk]
                t[kk, kk] = t[kp, kp]
                t[kp, kp] = s
                if kstep == 2:
                    s = t[k, k + 1]
                    t[k, k + 1] = t[k, kp]
                    t[k, kp] = s
            if kstep == 1:
                if k < n - 1:
                    # dsyr: A22 -= d11 x x^T (lower), then dscal: x *= d11
                    d11 = one / t[k, k]
                    for j in range(k + 1, n):
                        w = -d11 * t[k, j]
                        for i in range(j, n):
                            t[j, i] = t[j, i] + t[k, i] * w
                    for i in range(k + 1, n):
                        t[k, i] = d11 * t[k, i]
            elif k < n - 2:
                d21 = t[k, k + 1]
                d11 = t[k + 1, k + 1] / d21
                d22 = t[k, k] / d21
                s = one / (d11 * d22 - one)
                d21 = s / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * t[k, j] - t[k + 1, j])
                    wkp1 = d21 * (d22 * t[k + 1, j] - t[k, j])
                    for i in range(j, n):
                        t[j, i] = t[j, i] - t[k, i] * wk - t[k + 1, i] * wkp1
                    t[k, j] = wk
                    t[k + 1, j] = wkp1
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = -(kp + 1)
            piv[k + 1] = -(kp + 1)
        k += kstep
    for j in range(n):              # A's upper triangle: zeros in LD
        for i in range(j):
            t[j, i] = zero
    return info


@_kernel
def _ldl_factor_kernel(t, piv, info, alpha):
    a = t.dtype.type(alpha)
    for b in range(t.shape[0]):
        info[b] = _sytf2(t[b], piv[b], a)


@_kernel
def _swap_rows(x, p, q):
    """Rows p and q of the solution (x holds it transposed: x[c, i] is X[i, c])."""
    if p != q:
        for c in range(x.shape[0]):
            s = x[c, p]
            x[c, p] = x[c, q]
            x[c, q] = s


@_kernel
def _axpy_down(x, t, k, start, c):
    """X[start:, c] -= A[start:, k] X[k, c] (dger's column, reference order, no fma)."""
    w = -x[c, k]
    for i in range(start, t.shape[0]):
        x[c, i] = x[c, i] + t[k, i] * w


@_kernel
def _dot_down(x, t, k, start, c):
    """sum_{i >= start} X[i, c] A[i, k] (dgemv's transposed column, summed in order)."""
    s = x.dtype.type(0.0)
    for i in range(start, t.shape[0]):
        s += x[c, i] * t[k, i]
    return s


@_kernel
def _sytrs(t, piv, x):
    """?sytrs (uplo='L'): X of A X = B for A = L D L^T as _sytf2 leaves it (t, transposed),
    in place of x (B transposed: x[c, i] is B[i, c]).  The blocks are read from piv once
    (a negative pivot opens a 2x2 block unless it is the last row), so that pivots no
    factorization gives stay inside the arrays."""
    n = t.shape[0]
    nrhs = x.shape[0]
    one = t.dtype.type(1.0)
    two = np.zeros(n, np.bool_)         # two[k]: a 2x2 block starts at k
    k = 0
    while k < n:
        if piv[k] < 0 and k < n - 1:
            two[k] = True
            k += 2
        else:
            k += 1
    # L D Y = P B, first L's columns, then D's blocks
    k = 0
    while k < n:
        if not two[k]:
            _swap_rows(x, k, abs(piv[k]) - 1)
            for c in range(nrhs):
                _axpy_down(x, t, k, k + 1, c)
            r = one / t[k, k]
            for c in range(nrhs):
                x[c, k] = r * x[c, k]
            k += 1
        else:
            _swap_rows(x, k + 1, abs(piv[k]) - 1)
            for c in range(nrhs):
                _axpy_down(x, t, k, k + 2, c)
            for c in range(nrhs):
                _axpy_down(x, t, k + 1, k + 2, c)
            akm1k = t[k, k + 1]
            akm1 = t[k, k] / akm1k
            ak = t[k + 1, k + 1] / akm1k
            denom = akm1 * ak - one
            for c in range(nrhs):
                bkm1 = x[c, k] / akm1k
                bk = x[c, k + 1] / akm1k
                x[c, k] = (ak * bkm1 - bk) / denom
                x[c, k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    # L^T P^T X = Y, from the last row up
    k = n - 1
    while k >= 0:
        if k >= 1 and two[k - 1]:
            for c in range(nrhs):
                x[c, k] = x[c, k] - _dot_down(x, t, k, k + 1, c)
                x[c, k - 1] = x[c, k - 1] - _dot_down(x, t, k - 1, k + 1, c)
            _swap_rows(x, k, abs(piv[k]) - 1)
            k -= 2
        else:
            for c in range(nrhs):
                x[c, k] = x[c, k] - _dot_down(x, t, k, k + 1, c)
            _swap_rows(x, k, abs(piv[k]) - 1)
            k -= 1


@_kernel
def _ldl_solve_kernel(t, piv, x):
    for b in range(t.shape[0]):
        _sytrs(t[b], piv[b], x[b])


def _transposed(view):
    """The view's matrices (*B, m, n) as a new C-order (batch, n, m) array."""
    a = _dense(view)
    return np.ascontiguousarray(a.transpose(0, 2, 1))


def linalg_ldl_factor(view):
    """(*B, n, n) float32/float64, lower triangle read -> (LD buffer: (*B, n, n) in batched
    column-major order, int32 1-based pivots buffer (*B, n), info: int64 array, one ?sytrf
    code per matrix)."""
    t = _transposed(view)
    piv = np.zeros(t.shape[:2], np.int32)
    info = np.zeros(t.shape[0], np.int64)
    if t.size:
        _ldl_factor_kernel(t, piv, info, _ALPHA)
    return t.reshape(-1), piv.reshape(-1), info


def linalg_ldl_solve(ld_view, piv_view, b_view):
    """LD (*B, n, n), pivots (*B, n) of any integer dtype, values in [-n, -1] or [1, n],
    B (*B, n, k), one batch -> X (*B, n, k) in batched column-major order."""
    t = _transposed(ld_view)
    pbuf, poff, pshape, pstrides = piv_view
    piv = _dense((pbuf, poff, tuple(pshape) + (1,), tuple(pstrides) + (1,)))
    piv = piv.reshape(t.shape[:2]).astype(np.int64)
    x = _transposed(b_view)
    if x.size:
        _ldl_solve_kernel(t, piv, x)
    return x.reshape(-1)
