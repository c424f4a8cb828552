"""Fused optimizer updates (SGD, Adam/AdamW): one grid-stride kernel per parameter, in place.

The formulas, their order of rounding and the scalar preparation are the
CPU's (nbgrad/backends/cpu/optim_kernels.py), so both devices agree with
PyTorch to float32 rounding.
"""
import math

from numba import cuda

from ._device import jit, launch


@jit
def _sgd(p, g, buf, n, init_buf, lr, weight_decay, momentum, dampening_keep, nesterov, maximize, use_wd,
         use_momentum):
    neg_lr = -lr
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
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


@jit
def _adam(p, g, exp_avg, exp_avg_sq, max_exp_avg_sq, n, beta1_keep, one_minus_beta1_keep, beta2,
          one_minus_beta2, weight_decay, decay_keep, eps, neg_step_size, bc2_sqrt, amsgrad, maximize, use_wd,
          decoupled):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[i] if maximize else g[i]
        if decoupled:
            p[i] = p[i] * decay_keep
        elif use_wd:
            d = d + weight_decay * p[i]
        m = exp_avg[i]
        if beta1_keep < 0.5:
            m = m + beta1_keep * (d - m)
        else:
            m = d - (d - m) * one_minus_beta1_keep
        exp_avg[i] = m
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
    p = _flat(p_view)
    g = _flat(g_view)
    n = p.size
    if n == 0:
        return
    t = p.dtype.type
    buf = _flat(buf_view) if buf_view is not None else p
    blocks, threads = launch(n)
    _sgd[blocks, threads](p, g, buf, n, bool(init_buf), t(lr), t(weight_decay), t(momentum), t(1.0 - dampening),
                          bool(nesterov), bool(maximize), weight_decay != 0, momentum != 0)


def adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step, lr, beta1, beta2, eps,
              weight_decay, amsgrad, maximize, decoupled_weight_decay):
    p = _flat(p_view)
    n = p.size
    if n == 0:
        return
    t = p.dtype.type
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bc2_sqrt = bias_correction2 ** 0.5
    w = 1 - beta1
    mx = _flat(max_exp_avg_sq_view) if amsgrad else p
    blocks, threads = launch(n)
    _adam[blocks, threads](p, _flat(g_view), _flat(exp_avg_view), _flat(exp_avg_sq_view), mx, n, t(w), t(1 - w),
                           t(beta2), t(1 - beta2), t(weight_decay), t(1 - lr * weight_decay), t(eps), t(-step_size),
                           t(bc2_sqrt), bool(amsgrad), bool(maximize), weight_decay != 0,
                           bool(decoupled_weight_decay))
