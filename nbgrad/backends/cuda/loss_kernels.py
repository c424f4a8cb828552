"""Fused loss kernels (cross-entropy, NLL, MSE, BCE-with-logits), forward and backward.

Same contract as nbgrad/backends/cpu/loss_kernels.py, and the same formulas, written
once (nbgrad/backends/_shared/loss.py): buffers are contiguous and 1-D, per-row
work is one thread per row (a row's classes in a loop, float64 accumulation),
elementwise work is a grid-stride loop.  The
sums the op layer needs as Python floats are reduced on the device by the
deterministic tree reduction and only those few numbers are copied back.
"""
import numpy as np
from numba import cuda

from .._shared import loss as shared
from ._device import as_device, device_array, device_fn, jit, launch, to_device
from .reduction import reduce
from .strided_copy import fill


def _device_sums(parts, k, m):
    """Sums of the k rows of a (k, m) float64 device buffer, left on the device (zeros for m 0)."""
    if m:
        return reduce("sum", (parts, 0, (k, m), (m, 1)), (1,), np.float64)
    sums = device_array(k, np.float64)
    fill((sums, 0, (k,), (1,)), 0.0)
    return sums


def _sum_rows(parts, k, m):
    """Sums of the k rows of a (k, m) float64 device buffer, as Python floats."""
    if m == 0:
        return (0.0,) * k
    return tuple(float(v) for v in _device_sums(parts, k, m).copy_to_host())


def _ones(dtype):
    out = device_array(1, dtype)
    fill((out, 0, (1,), (1,)), 1)
    return out


_weight = device_fn(shared.class_weight)
_row_logsumexp = device_fn(shared.row_logsumexp)
_row_cross_entropy = device_fn(shared.row_cross_entropy)
_row_loss = device_fn(shared.row_loss)
_cross_entropy_grad = device_fn(shared.cross_entropy_grad)
_scale_at = device_fn(shared.scale_at)
_squared_error = device_fn(shared.squared_error)
_bce_logits = device_fn(shared.bce_logits)
_bce_logits_grads = device_fn(shared.bce_logits_grads)


# --------------------------------------------------------------------------- #
# cross-entropy with class indices

@jit
def _ce_forward(x, m, c, target, weight, has_weight, ignore_index, smoothing, row_loss, lse, parts, bad):
    # parts: (3, m) rows of w[t]*nll, smooth terms, w[t] (0 for ignored rows)
    for i in range(cuda.grid(1), m, cuda.gridsize(1)):
        l = _row_logsumexp(x, i * c, c)
        lse[i] = l
        t = target[i]
        parts[i] = 0.0
        parts[m + i] = 0.0
        parts[2 * m + i] = 0.0
        row_loss[i] = 0.0
        if t == ignore_index:
            continue
        if t < 0 or t >= c:
            cuda.atomic.min(bad, 0, i)
            continue
        nll, smooth, wt = _row_cross_entropy(x, i * c, c, t, weight, has_weight, smoothing, l)
        row_loss[i] = _row_loss(nll, smooth, smoothing, c)
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
        grad[e] = _cross_entropy_grad(x[e], lse[i], coef_nll[i] * _weight(weight, has_weight, t), coef_smooth[i],
                                      wsum, _weight(weight, has_weight, j), j == t)


_NO_BAD_ROW = np.iinfo(np.int64).max      # (the kernels' "first row with a bad target": none)


def _check_bad(first, target):
    """The forward's IndexError for the first row whose target was out of range, if any."""
    first = int(first.copy_to_host()[0])
    if first != _NO_BAD_ROW:
        raise IndexError(f"Target {int(target[first:first + 1].copy_to_host()[0])} is out of bounds.")


@jit
def _flag_bad(first, bad):
    # the capture forms' bad flag: some kept row's target was out of range
    if cuda.grid(1) == 0:
        bad[0] = first[0] != _NO_BAD_ROW


def _bad_flag(first):
    """The capture forms' bad flag (bool (1,)), on the device: nothing read, nothing raised."""
    bad = device_array(1, np.bool_)
    _flag_bad[1, 1](first, bad)
    return bad


def _run_rows(x, m, c, target, weight, ignore_index, smoothing=None):
    """The per-row loss kernel over the m rows: cross-entropy's (_ce_forward: its lse too, three
    sums) when smoothing is given, NLL's (_nll_forward: two sums) else.  -> (target on the
    device, row_loss, lse or None, parts (sums, m), the first bad row)."""
    x, target = as_device(x), as_device(target)
    has_weight = weight is not None
    w = as_device(weight) if has_weight else _ones(x.dtype)
    row_loss = device_array(m, np.float64)
    lse = None if smoothing is None else device_array(m, np.float64)
    parts = device_array((2 if smoothing is None else 3) * m, np.float64)
    first = to_device(np.array([_NO_BAD_ROW], dtype=np.int64))
    if m:
        blocks, threads = launch(m)
        if smoothing is None:
            _nll_forward[blocks, threads](x, m, c, target, w, has_weight, int(ignore_index), row_loss, parts, first)
        else:
            _ce_forward[blocks, threads](x, m, c, target, w, has_weight, int(ignore_index), float(smoothing),
                                         row_loss, lse, parts, first)
    return target, row_loss, lse, parts, first


def cross_entropy_forward(x, m, c, target, weight, ignore_index, smoothing):
    target, row_loss, lse, parts, first = _run_rows(x, m, c, target, weight, ignore_index, smoothing)
    if m:
        _check_bad(first, target)
    return row_loss, lse, _sum_rows(parts, 3, m)


def cross_entropy_stats(x, m, c, target, weight, ignore_index, smoothing):
    """cross_entropy_forward with every result on the device (the capture form,
    nbgrad/backends/__init__.py): (row_loss, lse, the three sums (3,) float64, bad bool (1,)).
    Nothing is copied to the host and nothing raises: nbgrad.compile's check reads `bad` and
    raises the IndexError.  A row with a target out of range is skipped by the kernel (it
    writes zeros there), so its sums are partial only where the check raises anyway."""
    _, row_loss, lse, parts, first = _run_rows(x, m, c, target, weight, ignore_index, smoothing)
    return row_loss, lse, _device_sums(parts, 3, m), _bad_flag(first)


def _per_row(coef, m):
    """A coefficient buffer of m float64s: coef itself, or its one value for every row."""
    coef = as_device(coef)
    if coef.size == m:
        return coef
    from .strided_copy import copy
    out = device_array(m, np.float64)
    copy((coef, 0, (m,), (0,)), (out, 0, (m,), (1,)))
    return out


def cross_entropy_backward(x, m, c, lse, target, weight, ignore_index, smoothing, coef_nll, coef_smooth):
    """coef_* are float64 per-row scales, (m,) or (1,) for every row alike."""
    x, target = as_device(x), as_device(target)
    has_weight = weight is not None
    w = as_device(weight) if has_weight else _ones(x.dtype)
    wsum = float(c) if not has_weight else _sum_rows(_as_f64(w, c), 1, c)[0]
    grad = device_array(m * c, x.dtype)
    if m * c:
        blocks, threads = launch(m * c)
        _ce_backward[blocks, threads](x, m, c, as_device(lse), target, w, has_weight, int(ignore_index), wsum,
                                      _per_row(coef_nll, m), _per_row(coef_smooth, m), grad)
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
    target, row_loss, _, parts, first = _run_rows(x, m, c, target, weight, ignore_index)
    if m:
        _check_bad(first, target)
    return row_loss, _sum_rows(parts, 2, m)


def nll_stats(x, m, c, target, weight, ignore_index):
    """nll_forward with every result on the device (the capture form): (row_loss, its two sums
    (2,) float64, bad bool (1,)); nothing is copied to the host and nothing raises (a row with a
    target out of range is skipped, where the capture's check raises anyway)."""
    _, row_loss, _, parts, first = _run_rows(x, m, c, target, weight, ignore_index)
    return row_loss, _device_sums(parts, 2, m), _bad_flag(first)


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
        row[i] = _squared_error(x[i], y[i])


def mse_forward(x, y):
    x, y = as_device(x), as_device(y)
    n = x.size
    row = device_array(n, np.float64)
    if n:
        blocks, threads = launch(n)
        _mse_forward[blocks, threads](x, y, row, n)
    return row, _sum_rows(row, 1, n)[0]


# --------------------------------------------------------------------------- #
# BCE with logits

@jit
def _bce_forward(x, y, w, pw, has_pw, out, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = _bce_logits(x[i], y[i], w[i], pw[i], has_pw)


@jit
def _bce_backward(x, y, w, pw, has_pw, coef, coef_is_scalar, gx, gy, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        gx[i], gy[i] = _bce_logits_grads(x[i], y[i], w[i], pw[i], has_pw,
                                         _scale_at(coef, coef_is_scalar, i))


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
