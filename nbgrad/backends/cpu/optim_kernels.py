"""Fused optimizer updates: one kernel per parameter for SGD and for Adam/AdamW.

Each kernel reads the gradient once and writes the parameter and its state
buffers in place, following PyTorch's single-tensor update formulas step by
step in the parameter's dtype (scalars are rounded to that dtype first, as
PyTorch does for a Python scalar applied to a float32 tensor), so that
results agree with PyTorch to float32 rounding.
"""
import math

import numpy as np
from numba import njit

_kernel = njit(cache=True, error_model="numpy")


@_kernel
def _sgd(p, g, buf, init_buf, lr, weight_decay, momentum, dampening_keep, nesterov, maximize, use_wd,
         use_momentum):
    neg_lr = -lr
    for i in range(p.size):
        d = -g[i] if maximize else g[i]
        if use_wd:
            d = d + weight_decay * p[i]
        if use_momentum:
            if init_buf:
                b = d
            else:
                b = buf[i] * momentum
                b = b + dampening_keep * d
            buf[i] = b
            d = d + momentum * b if nesterov else b
        p[i] = p[i] + neg_lr * d


@_kernel
def _adam(p, g, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1_keep, one_minus_beta1_keep, beta2, one_minus_beta2,
          weight_decay, decay_keep, eps, neg_step_size, bc2_sqrt, amsgrad, maximize, use_wd, decoupled):
    for i in range(p.size):
        d = -g[i] if maximize else g[i]
        if decoupled:
            p[i] = p[i] * decay_keep
        elif use_wd:
            d = d + weight_decay * p[i]
        # exp_avg.lerp_(grad, 1 - beta1), with lerp's two branches
        m = exp_avg[i]
        if beta1_keep < 0.5:
            m = m + beta1_keep * (d - m)
        else:
            m = d - (d - m) * one_minus_beta1_keep
        exp_avg[i] = m
        # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        v = exp_avg_sq[i] * beta2
        v = v + one_minus_beta2 * d * d
        exp_avg_sq[i] = v
        if amsgrad:
            vm = max_exp_avg_sq[i]
            if v > vm or v != v:
                vm = v
            max_exp_avg_sq[i] = vm
            v = vm
        denom = math.sqrt(v) / bc2_sqrt + eps
        p[i] = p[i] + neg_step_size * (m / denom)


def _flat(view):
    buf, off, shape, strides = view
    n = 1
    for s in shape:
        n *= s
    return buf[off:off + n]


def sgd_step(p_view, g_view, buf_view, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
    """In place: p (and the momentum buffer, when momentum != 0).  All views contiguous, same dtype.
    init_buf: the buffer is being created this step (it becomes the gradient, as PyTorch's clone)."""
    p = _flat(p_view)
    g = _flat(g_view)
    t = p.dtype.type
    buf = _flat(buf_view) if buf_view is not None else p[:0]
    _sgd(p, g, buf, bool(init_buf), t(lr), t(weight_decay), t(momentum), t(1.0 - dampening), bool(nesterov),
         bool(maximize), weight_decay != 0, momentum != 0)


def adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step, lr, beta1, beta2, eps,
              weight_decay, amsgrad, maximize, decoupled_weight_decay):
    """In place: p, exp_avg, exp_avg_sq (and max_exp_avg_sq with amsgrad).  `step` is the step count
    after this step's increment.  decoupled_weight_decay: AdamW's p *= 1 - lr*weight_decay."""
    p = _flat(p_view)
    t = p.dtype.type
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bc2_sqrt = bias_correction2 ** 0.5
    w = 1 - beta1
    mx = _flat(max_exp_avg_sq_view) if amsgrad else p[:0]
    _adam(p, _flat(g_view), _flat(exp_avg_view), _flat(exp_avg_sq_view), mx, t(w), t(1 - w), t(beta2),
          t(1 - beta2), t(weight_decay), t(1 - lr * weight_decay), t(eps), t(-step_size), t(bc2_sqrt),
          bool(amsgrad), bool(maximize), weight_decay != 0, bool(decoupled_weight_decay))
