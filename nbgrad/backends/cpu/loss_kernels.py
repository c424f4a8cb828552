"""Fused loss kernels: cross-entropy (log-softmax + NLL in one pass each way), NLL, MSE,
BCE-with-logits.

Every array argument is a contiguous 1-D buffer (the op layer in
nbgrad/ops/loss.py makes them so); a (M, C) matrix is a flat buffer read
row by row.  Row sums accumulate in float64, except where a kernel follows PyTorch's own
order to its bits: cross-entropy in float32 without label smoothing (_ce_forward_f32) and
NLL's sums (_nll_forward).
Targets are int64; a target outside [0, C) that is not ignore_index is found
by _first_bad_target before any forward kernel runs, and the wrapper raises.
"""
import math

import numpy as np
from numba import carray, uint64
from numba.extending import register_jitable

from .._shared import cpu_cfunc, cpu_kernel
from .._shared.fast_math import (_exp_f64, block_exp_shifted_f32, block_max_f32, block_sum, fma, sleef_expf,
                                 sleef_logf)
from .._shared.loss import (bce_logits, bce_logits_grads, class_weight, cross_entropy_grad_of_p,
                            row_cross_entropy, row_loss, scale_at, squared_error)

from .._shared.native import address_as
from ._threads import native_function, run_native
from .reduction import pytorch_float_lanes, worth_splitting_rows

_kernel = cpu_kernel()
_scalar = register_jitable(error_model="numpy")


@_scalar
def _row_logsumexp(x, base, c, e):
    """_shared.loss.row_logsumexp with its exps vectorised: written into e (c float64s) by
    fast_math's exp in one loop, then added up in order (the same sum as one loop of
    libm calls, which keeps the whole loop scalar: cross-entropy's forward over 128x10
    float32 logits 16 -> 7 us here, 128x1000 0.77 -> 0.37 ms)."""
    mx = -math.inf
    for j in range(c):
        v = float(x[base + j])
        if v > mx or v != v:
            mx = v
    for j in range(c):
        e[j] = _exp_f64(float(x[base + j]) - mx)
    acc = 0.0
    for j in range(c):
        acc += e[j]
    return mx + math.log(acc) if mx > -math.inf else float(mx)


@_kernel
def _first_bad_target(target, m, c, ignore_index):
    for i in range(m):
        t = target[i]
        if t != ignore_index and (t < 0 or t >= c):
            return i
    return -1


def _check_targets(target, m, c, ignore_index):
    bad = _first_bad_target(target, m, c, ignore_index)
    if bad >= 0:
        raise IndexError(f"Target {int(target[bad])} is out of bounds.")


# --------------------------------------------------------------------------- #
# cross-entropy with class indices: loss_i = (1-eps) * w[t] * -logp[t] + eps/C * sum_c w_c * -logp_c

@_kernel
def _ce_forward(x, m, c, target, weight, has_weight, ignore_index, smoothing, row_losses, lse, sums):
    # sums: [sum of w[t]*nll, sum of smooth terms, sum of w[t] over kept rows]
    s_nll = 0.0
    s_smooth = 0.0
    s_w = 0.0
    e = np.empty(c, np.float64)
    for i in range(m):
        l = _row_logsumexp(x, i * c, c, e)
        lse[i] = l
        t = target[i]
        if t == ignore_index:
            row_losses[i] = 0.0
            continue
        nll, smooth, wt = row_cross_entropy(x, i * c, c, t, weight, has_weight, smoothing, l)
        row_losses[i] = row_loss(nll, smooth, smoothing, c)
        s_nll += nll
        s_smooth += smooth
        s_w += wt
    sums[0] = s_nll
    sums[1] = s_smooth
    sums[2] = s_w


@_kernel
def _ce_backward(x, m, c, lse, target, weight, has_weight, ignore_index, smoothing, coef_nll, coef_smooth,
                 grad):
    wsum = 0.0
    for j in range(c):
        wsum += class_weight(weight, has_weight, j)
    for i in range(m):
        base = i * c
        t = target[i]
        if t == ignore_index:
            for j in range(c):
                grad[base + j] = 0.0
            continue
        a = coef_nll[i] * class_weight(weight, has_weight, t)
        li = lse[i]
        b = coef_smooth[i]
        for j in range(c):
            grad[base + j] = cross_entropy_grad_of_p(_exp_f64(float(x[base + j]) - li), a, b, wsum,
                                                     class_weight(weight, has_weight, j), j == t)


# PyTorch's nll_loss_out_frame adds its losses and weights in a cascade of 8 levels of partial
# sums in the input's dtype: level j + 1 takes level j's whenever the row number's 4 bits at
# level j are all 0 (its level_power is max(4, ceil(log2(m)) / 8): 4 below 2**40 rows), the
# rows ignore_index skips taking no part; the total is the levels added from 0 in order.
# parts, wparts and acc (one element) are arrays of that dtype: a store rounds a float64 sum
# of two of its values as the dtype's own addition would.

@_scalar
def _cascade_add(parts, wparts, acc, i, row_loss, wt, has_weight):
    """Row i's loss -w[t] * x[i, t] (float64, exact) and its weight into the cascade."""
    acc[0] = row_loss                       # (-= data * w: the product rounded once, to the dtype)
    parts[0] += acc[0]
    if has_weight:
        wparts[0] += wt
    for j in range(7):
        if (i >> (4 * j)) & 15 != 0:
            break
        parts[j + 1] += parts[j]
        wparts[j + 1] += wparts[j]
        parts[j] = 0.0
        wparts[j] = 0.0


@_scalar
def _cascade_total(parts, acc):
    acc[0] = 0.0
    for j in range(8):
        acc[0] += parts[j]
    return acc[0]


# Float32 without label smoothing: PyTorch's own composition, nll_loss(log_softmax(x)), to its
# bits.  log_softmax as _vec_log_softmax_lastdim computes it (reduction.py's
# _softmax_lastdim_f32: SLEEF's expf, vec::reduce_all's lane order, SLEEF's logf), nll_loss's
# 8-level cascade of float32 partial sums (_nll_forward), and the gradient as
# nll_loss_backward then _vec_log_softmax_backward make it: s = w[t] * -(g / total_weight) at
# the target, then g - exp(log p) * sum(row) as one fused multiply-add.  lse is the contract's
# log-sum-exp (max + log(sum of exp(x - max)) in float64), for any backward; this one computes
# the float32 max and log(sum) of each row again, as the forward did (its exps twice).

_CE_BLOCK_ELEMENTS = 4096      # logits per block of rows (_log_softmax_stats_f32's passes meet them in L1)


@_scalar
def _log_softmax_stats_f32(x, r0, b, c, lanes, acc, sh, e, mx, ls):
    """For rows r0 .. r0 + b of the (m, c) float32 logits: mx[i] their max and ls[i] the log
    of their sum of exps (e: scratch of b * c; sh: another), as _softmax_lastdim_f32 computes
    them, by the same passes over the block (fast_math's block_*)."""
    block_max_f32(x, r0 * c, b, c, mx)
    block_exp_shifted_f32(x, r0 * c, b, c, mx, sh, e, 0)
    block_sum(e, 0, b, c, lanes, acc, ls)
    for i in range(b):
        ls[i] = sleef_logf(ls[i])


@_scalar
def _ce_rows_f32(x, r0, r1, c, target, weight, has_weight, ignore_index, lanes, row_losses, lse):
    """Rows r0 .. r1 of _ce_forward_f32: each row's lse and loss (0 where ignored); rows are
    independent (the team's pieces run these, _native_ce_rows)."""
    block = max(1, _CE_BLOCK_ELEMENTS // c)
    e = np.empty(block * c, np.float32)
    mx = np.empty(block, np.float32)
    ls = np.empty(block, np.float32)
    acc = np.empty(lanes, np.float32)
    sh = np.empty(block * c, np.float32)
    for b0 in range(r0, r1, block):
        b = min(block, r1 - b0)
        _log_softmax_stats_f32(x, b0, b, c, lanes, acc, sh, e, mx, ls)
        for k in range(b):
            i = b0 + k
            lse[i] = float(mx[k]) + float(ls[k])
            t = target[i]
            if t == ignore_index:
                row_losses[i] = 0.0
                continue
            wt = class_weight(weight, has_weight, t)
            row_losses[i] = -wt * float((x[i * c + t] - mx[k]) - ls[k])     # (exact: the 'none' loss rounds it once)


@_kernel
def _ce_total_f32(m, target, weight, has_weight, ignore_index, row_losses, sums):
    """The row losses' and weights' sums, in nll_loss's cascade order (after _ce_rows_f32)."""
    parts = np.zeros(8, np.float32)
    wparts = np.zeros(8, np.float32)
    one = np.zeros(1, np.float32)
    kept = 0
    for i in range(m):
        t = target[i]
        if t == ignore_index:
            continue
        kept += 1
        _cascade_add(parts, wparts, one, i, row_losses[i], class_weight(weight, has_weight, t), has_weight)
    sums[0] = _cascade_total(parts, one)
    sums[1] = 0.0
    sums[2] = _cascade_total(wparts, one) if has_weight else kept


@_kernel
def _ce_forward_f32(x, m, c, target, weight, has_weight, ignore_index, lanes, row_losses, lse, sums):
    _ce_rows_f32(x, 0, m, c, target, weight, has_weight, ignore_index, lanes, row_losses, lse)
    _ce_total_f32(m, target, weight, has_weight, ignore_index, row_losses, sums)


@_scalar
def _ce_backward_rows_f32(x, r0, r1, c, target, weight, has_weight, ignore_index, coef_nll, lanes, grad):
    """Rows r0 .. r1 of _ce_backward_f32 (independent rows: _native_ce_backward_rows)."""
    block = max(1, _CE_BLOCK_ELEMENTS // c)
    mx = np.empty(block, np.float32)
    ls = np.empty(block, np.float32)
    acc = np.empty(lanes, np.float32)
    sh = np.empty(block * c, np.float32)
    sl = np.empty(block * c, np.float32)
    sr = np.empty(block * c, np.float32)
    sv = np.empty(block, np.float32)
    for b0 in range(r0, r1, block):
        b = min(block, r1 - b0)
        # (the exps of the statistics into the gradient's own rows, written over below)
        _log_softmax_stats_f32(x, b0, b, c, lanes, acc, sh, grad[b0 * c:(b0 + b) * c], mx, ls)
        for k in range(b):                  # each row's constants, repeated along it
            t = target[b0 + k]
            s = np.float32(0.0)
            if t != ignore_index:
                wt = weight[t] if has_weight else np.float32(1.0)
                s = -np.float32(float(wt) * coef_nll[b0 + k])     # w[t] * -(g / total_weight), rounded once
            sv[k] = s
            row_sum = s if c == 1 else s + np.float32(0.0)  # (reduce_all of the row: a -0.0 meets +0.0s)
            for j in range(c):
                sh[k * c + j] = mx[k]
                sl[k * c + j] = ls[k]
                sr[k * c + j] = row_sum
        n = b * c                           # the block in one loop (rows of 10: no loop per row)
        xr = x[b0 * c:b0 * c + n]
        gr = grad[b0 * c:b0 * c + n]
        mr, lr, rr = sh[:n], sl[:n], sr[:n]
        for j in range(uint64(n)):
            gr[j] = fma(-sleef_expf((xr[j] - mr[j]) - lr[j]), rr[j], np.float32(0.0))
        for k in range(b):
            t = target[b0 + k]
            if t != ignore_index:
                j = k * c + t
                gr[j] = fma(-sleef_expf((xr[j] - mr[j]) - lr[j]), rr[j], sv[k])


@_kernel
def _ce_backward_f32(x, m, c, target, weight, has_weight, ignore_index, coef_nll, lanes, grad):
    """coef_nll[i]: g / total_weight ('mean', the division in float32), g ('sum') or g[i]."""
    _ce_backward_rows_f32(x, 0, m, c, target, weight, has_weight, ignore_index, coef_nll, lanes, grad)


# The row kernels above split across the team's workers (_threads.run_native) where
# reduction.worth_splitting_rows says (the softmax kernels' line): a piece is a range of rows.
# The argument block holds the arrays' addresses and a params array (c, has_weight,
# ignore_index, lanes).

@_scalar
def _ce_args(args, hi):
    """(x, target, weight, c, has_weight, ignore_index, lanes) of a row kernel's argument block."""
    block = carray(address_as(args, np.int64), 6)
    params = carray(address_as(block[5], np.int64), 4)
    c, has_weight = params[0], params[1] != 0
    return (block, carray(address_as(block[0], np.float32), hi * c), carray(address_as(block[1], np.int64), hi),
            carray(address_as(block[2], np.float32), c if has_weight else 1), c, has_weight, params[2], params[3])


def _native_ce_rows():
    def native(args, lo, hi):
        block, x, target, w, c, has_weight, ignore_index, lanes = _ce_args(args, hi)
        _ce_rows_f32(x, lo, hi, c, target, w, has_weight, ignore_index, lanes,
                     carray(address_as(block[3], np.float64), hi), carray(address_as(block[4], np.float64), hi))
    return cpu_cfunc(native).address


def _native_ce_backward_rows():
    def native(args, lo, hi):
        block, x, target, w, c, has_weight, ignore_index, lanes = _ce_args(args, hi)
        _ce_backward_rows_f32(x, lo, hi, c, target, w, has_weight, ignore_index,
                              carray(address_as(block[3], np.float64), hi), lanes,
                              carray(address_as(block[4], np.float32), hi * c))
    return cpu_cfunc(native).address


def _split_rows(m, c):
    return m > 1 and worth_splitting_rows(m * c)


def bitwise_cross_entropy(x, smoothing):
    """Whether cross_entropy_forward/backward take PyTorch's float32 bits (above)."""
    return x.dtype == np.float32 and smoothing == 0.0


def cross_entropy_forward(x, m, c, target, weight, ignore_index, smoothing):
    """x: (m, c) logits; weight: (c,) buffer or None.
    -> (row_loss float64 (m,), lse float64 (m,), (sum of w[t]*nll, sum of smooth terms, sum of w[t]))."""
    has_weight = weight is not None
    w = weight if has_weight else np.ones(1, dtype=x.dtype)
    row_loss = np.empty(m, dtype=np.float64)
    lse = np.empty(m, dtype=np.float64)
    sums = np.zeros(3, dtype=np.float64)
    _check_targets(target, m, c, int(ignore_index))
    _run_ce_forward(x, m, c, target, w, has_weight, ignore_index, smoothing, row_loss, lse, sums)
    return row_loss, lse, tuple(float(v) for v in sums)


def _run_ce_forward(x, m, c, target, w, has_weight, ignore_index, smoothing, row_loss, lse, sums):
    if bitwise_cross_entropy(x, smoothing):
        lanes = pytorch_float_lanes()
        if _split_rows(m, c) and w.dtype == np.float32:
            fn = native_function(("ce_rows", "float32"), _native_ce_rows)
            params = np.array([c, has_weight, ignore_index, lanes], np.int64)
            if run_native(fn, m, (x, target, w, row_loss, lse, params), (0,) * 6, align=1):
                _ce_total_f32(m, target, w, has_weight, int(ignore_index), row_loss, sums)
                return
        _ce_forward_f32(x, m, c, target, w, has_weight, int(ignore_index), lanes, row_loss, lse, sums)
    else:
        _ce_forward(x, m, c, target, w, has_weight, int(ignore_index), float(smoothing), row_loss, lse, sums)


def cross_entropy_stats(x, m, c, target, weight, ignore_index, smoothing):
    """cross_entropy_forward with every result a buffer, for nbgrad.compile's capture (nothing
    read into Python, nothing raised: a compiled call runs it again).
    -> (row_loss float64 (m,), lse float64 (m,), its three sums float64 (3,), bad bool (1,)):
    bad when a kept row's target is outside [0, c), and then nothing else is computed (the
    capture's check raises the IndexError)."""
    has_weight = weight is not None
    w = weight if has_weight else np.ones(1, dtype=x.dtype)
    row_loss = np.zeros(m, dtype=np.float64)
    lse = np.zeros(m, dtype=np.float64)
    sums = np.zeros(3, dtype=np.float64)
    bad = np.zeros(1, dtype=np.bool_)
    if _first_bad_target(target, m, c, int(ignore_index)) >= 0:
        bad[0] = True
    else:
        _run_ce_forward(x, m, c, target, w, has_weight, ignore_index, smoothing, row_loss, lse, sums)
    return row_loss, lse, sums, bad


def cross_entropy_backward(x, m, c, lse, target, weight, ignore_index, smoothing, coef_nll, coef_smooth):
    """-> gradient buffer (m*c,) of x's dtype; coef_* are float64 per-row scales, (m,) or (1,)
    for every row alike."""
    has_weight = weight is not None
    w = weight if has_weight else np.ones(1, dtype=x.dtype)
    if coef_nll.size != m:
        coef_nll = np.full(m, coef_nll[0])
    grad = np.empty(m * c, dtype=x.dtype)
    if bitwise_cross_entropy(x, smoothing):     # (no smoothing: coef_smooth is not read)
        lanes = pytorch_float_lanes()
        done = False
        if _split_rows(m, c) and w.dtype == np.float32 and coef_nll.dtype == np.float64:
            fn = native_function(("ce_backward_rows", "float32"), _native_ce_backward_rows)
            params = np.array([c, has_weight, ignore_index, lanes], np.int64)
            done = run_native(fn, m, (x, target, w, coef_nll, grad, params), (0,) * 6, align=1)
        if not done:
            _ce_backward_f32(x, m, c, target, w, has_weight, int(ignore_index), coef_nll, lanes, grad)
    else:
        if coef_smooth.size != m:
            coef_smooth = np.full(m, coef_smooth[0])
        _ce_backward(x, m, c, lse, target, w, has_weight, int(ignore_index), float(smoothing), coef_nll,
                     coef_smooth, grad)
    return grad


# --------------------------------------------------------------------------- #
# NLL on log-probabilities: loss_i = -w[t] * x[i, t]

@_kernel
def _nll_forward(x, m, c, target, weight, has_weight, ignore_index, row_losses, sums, parts, wparts, acc):
    """Row losses -w[t] * x[i, t] (float64: exact for float32 and float16 operands), and their
    sum and the sum of w[t] in PyTorch's cascade (_cascade_add) in the dtype of parts, wparts
    and acc (x's, for float32 and float64); no weight: the count of rows kept."""
    kept = 0
    for i in range(m):
        t = target[i]
        if t == ignore_index:
            row_losses[i] = 0.0
            continue
        kept += 1
        wt = class_weight(weight, has_weight, t)
        row_losses[i] = -wt * float(x[i * c + t])
        _cascade_add(parts, wparts, acc, i, row_losses[i], wt, has_weight)
    sums[0] = _cascade_total(parts, acc)
    sums[1] = _cascade_total(wparts, acc) if has_weight else kept


@_kernel
def _nll_backward(m, c, target, weight, has_weight, ignore_index, coef, grad):
    for k in range(m * c):
        grad[k] = 0.0
    for i in range(m):
        t = target[i]
        if t != ignore_index:
            grad[i * c + t] = -class_weight(weight, has_weight, t) * coef[i]


def nll_forward(x, m, c, target, weight, ignore_index):
    """-> (row_loss float64 (m,), (sum of losses, sum of w[t])): the sums in PyTorch's order
    and, for float32 and float64, in x's dtype (_nll_forward)."""
    row_loss = np.empty(m, dtype=np.float64)
    sums = np.zeros(2, dtype=np.float64)
    _check_targets(target, m, c, int(ignore_index))
    _run_nll_forward(x, m, c, target, weight, ignore_index, row_loss, sums)
    return row_loss, tuple(float(v) for v in sums)


def nll_stats(x, m, c, target, weight, ignore_index):
    """nll_forward with every result a buffer, for nbgrad.compile's capture (nothing read into
    Python, nothing raised): (row_loss float64 (m,), its two sums float64 (2,), bad bool (1,));
    bad when a kept row's target is outside [0, c), and then nothing else is computed."""
    row_loss = np.zeros(m, dtype=np.float64)
    sums = np.zeros(2, dtype=np.float64)
    bad = np.zeros(1, dtype=np.bool_)
    if _first_bad_target(target, m, c, int(ignore_index)) >= 0:
        bad[0] = True
    else:
        _run_nll_forward(x, m, c, target, weight, ignore_index, row_loss, sums)
    return row_loss, sums, bad


def _run_nll_forward(x, m, c, target, weight, ignore_index, row_loss, sums):
    has_weight = weight is not None
    w = weight if has_weight else np.ones(1, dtype=x.dtype)
    acc_dtype = x.dtype if x.dtype in (np.float32, np.float64) else np.float64
    _nll_forward(x, m, c, target, w, has_weight, int(ignore_index), row_loss, sums, np.zeros(8, acc_dtype),
                 np.zeros(8, acc_dtype), np.zeros(1, acc_dtype))


def nll_backward(m, c, target, weight, ignore_index, coef, dtype):
    """-> gradient buffer (m*c,) of dtype: -w[t]*coef[i] at each row's target, 0 elsewhere."""
    has_weight = weight is not None
    w = weight if has_weight else np.ones(1, dtype=np.dtype(dtype))
    grad = np.empty(m * c, dtype=np.dtype(dtype))
    _nll_backward(m, c, target, w, has_weight, int(ignore_index), coef, grad)
    return grad


# --------------------------------------------------------------------------- #
# MSE: sum (x - y)^2; backward 2 * (x - y) * scale

@_kernel
def _mse_forward(x, y, row):
    s = 0.0
    for i in range(x.size):
        v = squared_error(x[i], y[i])
        row[i] = v
        s += v
    return s


def mse_forward(x, y):
    """-> (elementwise squared errors float64, their sum)."""
    row = np.empty(x.size, dtype=np.float64)
    return row, float(_mse_forward(x, y, row))


# --------------------------------------------------------------------------- #
# BCE with logits: l = (1-y)*x + (1 + (pw-1)*y) * softplus(-x), times w

@_kernel
def _bce_forward(x, y, w, pw, has_pw, out):
    s = 0.0
    for i in range(x.size):
        v = bce_logits(x[i], y[i], w[i], pw[i], has_pw)
        out[i] = v
        s += v
    return s


@_kernel
def _bce_backward(x, y, w, pw, has_pw, coef, coef_is_scalar, gx, gy):
    for i in range(x.size):
        gx[i], gy[i] = bce_logits_grads(x[i], y[i], w[i], pw[i], has_pw,
                                        scale_at(coef, coef_is_scalar, i))


def bce_logits_forward(x, y, w, pw):
    """x, y, w (and pw or None): same-length buffers -> (elementwise losses float64, sum)."""
    has_pw = pw is not None
    out = np.empty(x.size, dtype=np.float64)
    s = _bce_forward(x, y, w, pw if has_pw else w, has_pw, out)
    return out, float(s)


def bce_logits_backward(x, y, w, pw, coef):
    """-> (grad wrt x, grad wrt y) buffers of x's dtype; coef a float64 scale (length 1) or per element."""
    has_pw = pw is not None
    gx = np.empty(x.size, dtype=x.dtype)
    gy = np.empty(x.size, dtype=x.dtype)
    _bce_backward(x, y, w, pw if has_pw else w, has_pw, coef, coef.size == 1 and x.size != 1, gx, gy)
    return gx, gy
