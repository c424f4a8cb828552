"""Optimizer updates of one element (SGD, Adam/AdamW) and their scalar preparation, for both devices.

Each update follows PyTorch's single-tensor formulas step by step in the
parameter's dtype (scalars are rounded to that dtype first, as PyTorch does
for a Python scalar applied to a float32 tensor), so that both backends
agree with PyTorch to float32 rounding.  The CPU kernel loops over i, the
CUDA kernel strides over i; an element's update is a function of scalars below.
"""
import math

from numba.extending import register_jitable

_scalar = register_jitable(error_model="numpy")


@_scalar
def sgd_update(p, g, b, h):
    """(new p, new momentum buffer value) of one element; h: sgd_scalars(...); b, the old buffer
    value, is read only with momentum on a buffer that exists (not init_buf).  Scalars in,
    scalars out: an array argument per element would keep the helper out of line and the loop slow."""
    init_buf, lr, weight_decay, momentum, dampening_keep, nesterov, maximize, use_wd, use_momentum, _ = h
    d = -g if maximize else g
    if use_wd:
        d = d + weight_decay * p
    if use_momentum:
        if init_buf:
            b = d
        else:
            b = b * momentum
            b = b + dampening_keep * d
        d = d + momentum * b if nesterov else b
    return p + -lr * d, b


@_scalar
def adam_update(p, g, m, v, vmax, h):
    """(new p, exp_avg, exp_avg_sq, max_exp_avg_sq) values of one element; h: adam_scalars(...);
    vmax is read with amsgrad only."""
    (beta1_keep, one_minus_beta1_keep, beta2, one_minus_beta2, weight_decay, decay_keep, eps, neg_step_size,
     bc2_sqrt, amsgrad, maximize, use_wd, decoupled) = h
    d = -g if maximize else g
    if decoupled:
        p = p * decay_keep
    elif use_wd:
        d = d + weight_decay * p
    # exp_avg.lerp_(grad, 1 - beta1), with lerp's two branches
    if beta1_keep < 0.5:
        m = m + beta1_keep * (d - m)
    else:
        m = d - (d - m) * one_minus_beta1_keep
    # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    v = v * beta2
    v = v + one_minus_beta2 * d * d
    vd = v
    if amsgrad:
        if v > vmax or v != v:
            vmax = v
        vd = vmax
    denom = math.sqrt(vd) / bc2_sqrt + eps
    return p + neg_step_size * (m / denom), m, v, vmax


def flat(view):
    """The contiguous elements of a (buffer, offset, shape, strides) view."""
    buf, off, shape, _ = view
    n = 1
    for s in shape:
        n *= s
    return buf[off:off + n]


# where the kernels find a flag in the tuples below
SGD_MOMENTUM = 8
SGD_READS_BUF = 9
ADAM_AMSGRAD = 9


def sgd_scalars(t, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
    """sgd_update's h, rounded to the parameter's scalar type t, and whether the old buffer is read."""
    return (bool(init_buf), t(lr), t(weight_decay), t(momentum), t(1.0 - dampening), bool(nesterov),
            bool(maximize), weight_decay != 0, momentum != 0, momentum != 0 and not init_buf)


def adam_scalars(t, step, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
    """adam_update's h; `step` is the step count after this step's increment."""
    step_size = lr / (1 - beta1 ** step)
    bc2_sqrt = (1 - beta2 ** step) ** 0.5
    w = 1 - beta1
    return (t(w), t(1 - w), t(beta2), t(1 - beta2), t(weight_decay), t(1 - lr * weight_decay), t(eps),
            t(-step_size), t(bc2_sqrt), bool(amsgrad), bool(maximize), weight_decay != 0,
            bool(decoupled_weight_decay))
