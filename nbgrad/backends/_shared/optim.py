"""Optimizer updates of one element (SGD, Adam/AdamW) and their scalar preparation, for both devices.

Each update follows PyTorch's single-tensor formulas step by step in the
parameter's dtype (scalars are rounded to that dtype first, as PyTorch does
for a Python scalar applied to a float32 tensor), so that both backends
agree with PyTorch to float32 rounding.  The CPU kernel loops over i, the
CUDA kernel strides over i; the element's work is the function below.
"""
import math

from numba.extending import register_jitable

_scalar = register_jitable(error_model="numpy")


@_scalar
def sgd_update(i, p, g, buf, init_buf, lr, weight_decay, momentum, dampening_keep, nesterov, maximize, use_wd,
               use_momentum):
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
    p[i] = p[i] + -lr * d


@_scalar
def adam_update(i, p, g, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1_keep, one_minus_beta1_keep, beta2,
                one_minus_beta2, weight_decay, decay_keep, eps, neg_step_size, bc2_sqrt, amsgrad, maximize, use_wd,
                decoupled):
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


def flat(view):
    """The contiguous elements of a (buffer, offset, shape, strides) view."""
    buf, off, shape, _ = view
    n = 1
    for s in shape:
        n *= s
    return buf[off:off + n]


def sgd_scalars(t, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
    """sgd_update's scalar arguments, rounded to the parameter's scalar type t."""
    return (bool(init_buf), t(lr), t(weight_decay), t(momentum), t(1.0 - dampening), bool(nesterov),
            bool(maximize), weight_decay != 0, momentum != 0)


def adam_scalars(t, step, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
    """adam_update's scalar arguments; `step` is the step count after this step's increment."""
    step_size = lr / (1 - beta1 ** step)
    bc2_sqrt = (1 - beta2 ** step) ** 0.5
    w = 1 - beta1
    return (t(w), t(1 - w), t(beta2), t(1 - beta2), t(weight_decay), t(1 - lr * weight_decay), t(eps),
            t(-step_size), t(bc2_sqrt), bool(amsgrad), bool(maximize), weight_decay != 0,
            bool(decoupled_weight_decay))
