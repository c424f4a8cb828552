"""Layer normalization's forward and backward, one pass over each row (PyTorch's
LayerNormKernelImpl and LayerNormBackwardKernelImpl on the CPU, their formulas).

x is m rows of n contiguous elements (float32 or float64).  A row's moments are added in
float64 (PyTorch adds them in the row's dtype by its cascade of Welford steps: the two agree
within the dtype's rounding); mean and rstd = 1 / sqrt(var + eps) are rounded to the dtype,
and y = (x - mean) * rstd * w + b is computed in the dtype in that order, as PyTorch's
vectorized loop does.  The backward's row sums and the weight's and bias's column sums are
float64, rounded once.  Rows are split across the thread pool from 2^18 elements.
"""
import math

import numpy as np
from numba import uint64
from numba.extending import register_jitable

from .._shared import cpu_kernel
from ._allocator import new_buffer
from ._threads import run_split, worth_splitting

_kernel = cpu_kernel(nogil=True)
_REASSOC = {"reassoc", "nsz"}


@register_jitable(error_model="numpy", fastmath=_REASSOC)
def _row_moments(x, p, n):
    # (a slice and an unsigned range: no wraparound checks, so the float64 sums vectorize)
    r = x[p:p + n]
    s = 0.0
    for j in range(uint64(n)):
        s += np.float64(r[j])
    mu = s / n
    ss = 0.0
    for j in range(uint64(n)):
        d = np.float64(r[j]) - mu
        ss += d * d
    return mu, ss / n


@_kernel
def _forward_rows(x, xoff, r0, r1, n, w, b, has_w, has_b, eps, y, mean, rstd):
    for i in range(r0, r1):
        p = xoff + i * n
        mu, var = _row_moments(x, p, n)
        mean[i] = mu                                    # (rounded to the dtype by the stores)
        rstd[i] = 1.0 / math.sqrt(max(var, 0.0) + eps)
        m = mean[i]
        r = rstd[i]
        xr, yr = x[p:p + n], y[i * n:(i + 1) * n]
        for j in range(uint64(n)):
            t = (xr[j] - m) * r
            if has_w:
                t = t * w[j]
            if has_b:
                t = t + b[j]
            yr[j] = t


@register_jitable(error_model="numpy", fastmath=_REASSOC)
def _row_sums(g, pg, x, p, w, has_w, n):
    gr, xr = g[pg:pg + n], x[p:p + n]
    ds = 0.0
    db = 0.0
    if has_w:
        for j in range(uint64(n)):
            gw = np.float64(gr[j]) * np.float64(w[j])
            ds += gw * np.float64(xr[j])
            db += gw
    else:
        for j in range(uint64(n)):
            gw = np.float64(gr[j])
            ds += gw * np.float64(xr[j])
            db += gw
    return ds, db


@_kernel
def _backward_rows(g, goff, x, xoff, r0, r1, n, w, has_w, mean, rstd, need_x, dx, dw, db):
    """dx for rows [r0, r1); dw, db: float64 column sums over those rows (added into)."""
    for i in range(r0, r1):
        p = xoff + i * n
        pg = goff + i * n
        a = np.float64(rstd[i])
        mu = np.float64(mean[i])
        gr, xr = g[pg:pg + n], x[p:p + n]
        if need_x:
            ds, dbs = _row_sums(g, pg, x, p, w, has_w, n)
            bc = (dbs * mu - ds) * a * a * a / n
            c = -bc * mu - dbs * a / n
            dxr = dx[i * n:(i + 1) * n]
            for j in range(uint64(n)):
                gw = np.float64(gr[j]) * (np.float64(w[j]) if has_w else 1.0)
                dxr[j] = a * gw + bc * np.float64(xr[j]) + c
        for j in range(uint64(n)):
            gj = np.float64(gr[j])
            dw[j] += gj * (np.float64(xr[j]) - mu) * a
            db[j] += gj


def layer_norm_forward(x_buf, x_off, m, n, w, b, eps):
    """(y, mean, rstd): y m*n elements, mean and rstd m, all of x's dtype; w, b: buffers of n
    elements or None."""
    dtype = x_buf.dtype
    y, mean, rstd = new_buffer(m * n, dtype), np.empty(m, dtype), np.empty(m, dtype)
    if m == 0:
        return y, mean, rstd
    dummy = np.zeros(1, dtype)
    wb = w if w is not None else dummy
    bb = b if b is not None else dummy
    args = (n, wb, bb, w is not None, b is not None, float(eps), y, mean, rstd)
    if worth_splitting(m * n, True) and m > 1:
        run_split(lambda r0, r1: _forward_rows(x_buf, x_off, r0, r1, *args), m, align=1)
    else:
        _forward_rows(x_buf, x_off, 0, m, *args)
    return y, mean, rstd


def layer_norm_backward(g_buf, g_off, x_buf, x_off, m, n, w, mean, rstd, need_x, need_w, need_b):
    """(dx or None, dw or None, db or None) of x's dtype: dx m*n elements, dw and db n."""
    dtype = x_buf.dtype
    dx = new_buffer(m * n, dtype) if need_x else np.empty(1, dtype)
    wb = w if w is not None else np.zeros(1, dtype)
    if worth_splitting(m * n, True) and m > 1:
        parts = {}

        def piece(r0, r1):
            dw, db = np.zeros(n), np.zeros(n)
            _backward_rows(g_buf, g_off, x_buf, x_off, r0, r1, n, wb, w is not None, mean, rstd, need_x, dx,
                           dw, db)
            parts[r0] = (dw, db)
        run_split(piece, m, align=1)
        dw = sum(parts[k][0] for k in sorted(parts))
        db = sum(parts[k][1] for k in sorted(parts))
    else:
        dw, db = np.zeros(n), np.zeros(n)
        _backward_rows(g_buf, g_off, x_buf, x_off, 0, m, n, wb, w is not None, mean, rstd, need_x, dx, dw, db)
    return (dx if need_x else None, dw.astype(dtype) if need_w else None, db.astype(dtype) if need_b else None)
