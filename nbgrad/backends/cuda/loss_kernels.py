"""Fused loss kernels (cross-entropy, NLL, MSE, BCE-with-logits), forward and backward.

Same contract and formulas as nbgrad/backends/cpu/loss_kernels.py: buffers are
contiguous and 1-D, per-row work is one thread per row (a row's classes in a
loop, float64 accumulation), elementwise work is a grid-stride loop.  The
sums the op layer needs as Python floats are reduced on the device by the
deterministic tree reduction and only those few numbers are copied back.
"""
import math

import numpy as np
from numba import cuda

from ._device import as_device, device_array, jit, launch, to_device
from .reduction import reduce
from .strided_copy import fill


def _sum_rows(parts, k, m):
    """Sums of the k rows of a (k, m) float64 device buffer, as Python floats."""
    if m == 0:
        return (0.0,) * k
    sums = reduce("sum", (parts, 0, (k, m), (m, 1)), (1,), np.float64)
    return tuple(float(v) for v in sums.copy_to_host())


def _ones(dtype):
    out = device_array(1, dtype)
    fill((out, 0, (1,), (1,)), 1)
    return out


@cuda.jit(device=True)
def _weight(weight, has_weight, t):
    if has_weight:
        return float(weight[t])
    return 1.0


# --------------------------------------------------------------------------- #
# cross-entropy with class indices

@jit
def _ce_forward(x, m, c, target, weight, has_weight, ignore_index, smoothing, row_loss, lse, parts, bad):
    # parts: (3, m) rows of w[t]*nll, smooth terms, w[t] (0 for ignored rows)
    for i in range(cuda.grid(1), m, cuda.gridsize(1)):
        base = i * c
        mx = -math.inf
        for j in range(c):
            v = x[base + j]
            if v > mx or v != v:
                mx = v
        acc = 0.0
        for j in range(c):
            acc += math.exp(x[base + j] - mx)
        l = mx + math.log(acc) if mx > -math.inf else mx
        lse[i] = l
        t = target[i]
        parts[i] = 0.0
        parts[m + i] = 0.0
        parts[2 * m + i] = 0.0
        if t == ignore_index:
            row_loss[i] = 0.0
            continue
        if t < 0 or t >= c:
            cuda.atomic.min(bad, 0, i)
            row_loss[i] = 0.0
            continue
        wt = _weight(weight, has_weight, t)
        nll = wt * (l - x[base + t])
        smooth = 0.0
        if smoothing != 0.0:
            for j in range(c):
                smooth += _weight(weight, has_weight, j) * (l - x[base + j])
        row_loss[i] = (1.0 - smoothing) * nll + smoothing / c * smooth
        parts[i] = nll
        parts[m + i] = smooth
        parts[2 * m + i] = wt


@jit
def _ce_backward(x, m, c, lse, target, weight, has_weight, ignore_index, wsum, coef_nll, coef_smooth, grad):
    for e in range(cuda.grid(1), m * c, cuda.gridsize(1)):
        i = e // c
        j = e - i * c
        t = target[i]
        if t == ignore_index:
            grad[e] = 0.0
            continue
        a = coef_nll[i] * _weight(weight, has_weight, t)
        b = coef_smooth[i]
        p = math.exp(x[e] - lse[i])
        g = a * p + b * (p * wsum - _weight(weight, has_weight, j))
        if j == t:
            g -= a
        grad[e] = g


def _check_bad(bad, target):
    first = int(bad.copy_to_host()[0])
    if first != np.iinfo(np.int64).max:
        raise IndexError(f"Target {int(target[first:first + 1].copy_to_host()[0])} is out of bounds.")


def cross_entropy_forward(x, m, c, target, weight, ignore_index, smoothing):
    x, target = as_device(x), as_device(target)
    has_weight = weight is not None
    w = as_device(weight) if has_weight else _ones(x.dtype)
    row_loss = device_array(m, np.float64)
    lse = device_array(m, np.float64)
    parts = device_array(3 * m, np.float64)
    bad = to_device(np.array([np.iinfo(np.int64).max], dtype=np.int64))
    if m:
        blocks, threads = launch(m)
        _ce_forward[blocks, threads](x, m, c, target, w, has_weight, int(ignore_index), float(smoothing),
                                     row_loss, lse, parts, bad)
        _check_bad(bad, target)
    return row_loss, lse, _sum_rows(parts, 3, m)


def cross_entropy_backward(x, m, c, lse, target, weight, ignore_index, smoothing, coef_nll, coef_smooth):
    x, target = as_device(x), as_device(target)
    has_weight = weight is not None
    w = as_device(weight) if has_weight else _ones(x.dtype)
    wsum = float(c) if not has_weight else _sum_rows(_as_f64(w, c), 1, c)[0]
    grad = device_array(m * c, x.dtype)
    if m * c:
        blocks, threads = launch(m * c)
        _ce_backward[blocks, threads](x, m, c, as_device(lse), target, w, has_weight, int(ignore_index), wsum,
                                      as_device(coef_nll), as_device(coef_smooth), grad)
    return grad


def _as_f64(buf, n):
    from .strided_copy import copy
    out = device_array(n, np.float64)
    copy((buf, 0, (n,), (1,)), (out, 0, (n,), (1,)))
    return out


# --------------------------------------------------------------------------- #
# NLL on log-probabilities

@jit
def _nll_forward(x, m, c, target, weight, has_weight, ignore_index, row_loss, parts, bad):
    for i in range(cuda.grid(1), m, cuda.gridsize(1)):
        t = target[i]
        row_loss[i] = 0.0
        parts[i] = 0.0
        parts[m + i] = 0.0
        if t == ignore_index:
            continue
        if t < 0 or t >= c:
            cuda.atomic.min(bad, 0, i)
            continue
        wt = _weight(weight, has_weight, t)
        row_loss[i] = -wt * x[i * c + t]
        parts[i] = row_loss[i]
        parts[m + i] = wt


@jit
def _nll_backward(m, c, target, weight, has_weight, ignore_index, coef, grad):
    for e in range(cuda.grid(1), m * c, cuda.gridsize(1)):
        i = e // c
        j = e - i * c
        t = target[i]
        if t != ignore_index and j == t:
            grad[e] = -_weight(weight, has_weight, t) * coef[i]
        else:
            grad[e] = 0.0


def nll_forward(x, m, c, target, weight, ignore_index):
    x, target = as_device(x), as_device(target)
    has_weight = weight is not None
    w = as_device(weight) if has_weight else _ones(x.dtype)
    row_loss = device_array(m, np.float64)
    parts = device_array(2 * m, np.float64)
    bad = to_device(np.array([np.iinfo(np.int64).max], dtype=np.int64))
    if m:
        blocks, threads = launch(m)
        _nll_forward[blocks, threads](x, m, c, target, w, has_weight, int(ignore_index), row_loss, parts, bad)
        _check_bad(bad, target)
    return row_loss, _sum_rows(parts, 2, m)


def nll_backward(m, c, target, weight, ignore_index, coef, dtype):
    target = as_device(target)
    has_weight = weight is not None
    w = as_device(weight) if has_weight else _ones(np.dtype(dtype))
    grad = device_array(m * c, dtype)
    if m * c:
        blocks, threads = launch(m * c)
        _nll_backward[blocks, threads](m, c, target, w, has_weight, int(ignore_index), as_device(coef), grad)
    return grad


# --------------------------------------------------------------------------- #
# MSE

@jit
def _mse_forward(x, y, row, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = float(x[i]) - float(y[i])
        row[i] = d * d


@jit
def _mse_backward(x, y, coef, coef_is_scalar, grad, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        k = coef[0] if coef_is_scalar else coef[i]
        grad[i] = 2.0 * (float(x[i]) - float(y[i])) * k


def mse_forward(x, y):
    x, y = as_device(x), as_device(y)
    n = x.size
    row = device_array(n, np.float64)
    if n:
        blocks, threads = launch(n)
        _mse_forward[blocks, threads](x, y, row, n)
    return row, _sum_rows(row, 1, n)[0]


def mse_backward(x, y, coef):
    x, y, coef = as_device(x), as_device(y), as_device(coef)
    n = x.size
    grad = device_array(n, x.dtype)
    if n:
        blocks, threads = launch(n)
        _mse_backward[blocks, threads](x, y, coef, coef.size == 1 and n != 1, grad, n)
    return grad


# --------------------------------------------------------------------------- #
# BCE with logits

@cuda.jit(device=True)
def _softplus_neg(x):
    # log(1 + exp(-x)), stable for large |x|
    return max(-x, 0.0) + math.log1p(math.exp(-abs(x)))


@jit
def _bce_forward(x, y, w, pw, has_pw, out, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        xi = float(x[i])
        yi = float(y[i])
        lw = 1.0 + (float(pw[i]) - 1.0) * yi if has_pw else 1.0
        out[i] = ((1.0 - yi) * xi + lw * _softplus_neg(xi)) * float(w[i])


@jit
def _bce_backward(x, y, w, pw, has_pw, coef, coef_is_scalar, gx, gy, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        xi = float(x[i])
        yi = float(y[i])
        k = (coef[0] if coef_is_scalar else coef[i]) * float(w[i])
        sig_neg = 1.0 / (1.0 + math.exp(xi)) if xi < 700.0 else 0.0  # sigmoid(-x)
        if has_pw:
            p = float(pw[i])
            lw = 1.0 + (p - 1.0) * yi
            gx[i] = ((1.0 - yi) - lw * sig_neg) * k
            gy[i] = (-xi + (p - 1.0) * _softplus_neg(xi)) * k
        else:
            gx[i] = ((1.0 - yi) - sig_neg) * k
            gy[i] = -xi * k


def bce_logits_forward(x, y, w, pw):
    x, y, w = as_device(x), as_device(y), as_device(w)
    has_pw = pw is not None
    n = x.size
    out = device_array(n, np.float64)
    if n:
        blocks, threads = launch(n)
        _bce_forward[blocks, threads](x, y, w, as_device(pw) if has_pw else w, has_pw, out, n)
    return out, _sum_rows(out, 1, n)[0]


def bce_logits_backward(x, y, w, pw, coef):
    x, y, w, coef = as_device(x), as_device(y), as_device(w), as_device(coef)
    has_pw = pw is not None
    n = x.size
    gx = device_array(n, x.dtype)
    gy = device_array(n, x.dtype)
    if n:
        blocks, threads = launch(n)
        _bce_backward[blocks, threads](x, y, w, as_device(pw) if has_pw else w, has_pw, coef,
                                       coef.size == 1 and n != 1, gx, gy, n)
    return gx, gy
