"""Optimizer updates of one element (SGD, Adam/AdamW) and their scalar preparation, for both devices.

Each update follows PyTorch's single-tensor formulas step by step in the
parameter's dtype (scalars are rounded to that dtype first, as PyTorch does
for a Python scalar applied to a float32 tensor), rounding where PyTorch's
CPU kernels round: add with alpha, lerp and addcmul are one fused
multiply-add there (fma below), addcdiv is self + (value * t1) / t2.  So the
parameters follow PyTorch's bit for bit, step after step.  The CPU kernel loops over i, the
CUDA kernel strides over i; an element's update is a function of scalars below.
"""
import math

from numba.extending import register_jitable

from .fast_math import fma

_scalar = register_jitable(error_model="numpy")


@_scalar
def sgd_update(p, g, b, h):
    """(new p, new momentum buffer value) of one element; h: sgd_scalars(...); b, the old buffer
    value, is read only with momentum on a buffer that exists (not init_buf).  Scalars in,
    scalars out: an array argument per element would keep the helper out of line and the loop slow."""
    init_buf, lr, weight_decay, momentum, dampening_keep, nesterov, maximize, use_wd, use_momentum, _ = h
    d = -g if maximize else g
    if use_wd:
        d = fma(p, weight_decay, d)                 # grad.add(param, alpha=weight_decay)
    if use_momentum:
        if init_buf:
            b = d
        else:
            b = fma(d, dampening_keep, b * momentum)     # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
        d = fma(b, momentum, d) if nesterov else b       # grad.add(buf, alpha=momentum)
    return fma(d, -lr, p), b                        # param.add_(grad, alpha=-lr)


@_scalar
def adam_update(p, g, m, v, vmax, h):
    """(new p, exp_avg, exp_avg_sq, max_exp_avg_sq) values of one element; h: adam_scalars(...);
    vmax is read with amsgrad only."""
    (weight, weight_minus_one, beta2, one_minus_beta2, weight_decay, decay_keep, eps, neg_step_size,
     bc2_sqrt, amsgrad, maximize, use_wd, decoupled) = h
    d = -g if maximize else g
    if decoupled:
        p = p * decay_keep
    elif use_wd:
        d = fma(p, weight_decay, d)                 # grad.add(param, alpha=weight_decay)
    # exp_avg.lerp_(grad, 1 - beta1): lerp's two branches, each one fma
    if abs(weight) < 0.5:
        m = fma(weight, d - m, m)
    else:
        m = fma(weight_minus_one, d - m, d)
    # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2): fma(value * t1, t2, self)
    v = fma(one_minus_beta2 * d, d, v * beta2)
    vd = v
    if amsgrad:
        if v > vmax or v != v:
            vmax = v
        vd = vmax
    denom = math.sqrt(vd) / bc2_sqrt + eps
    return p + (neg_step_size * m) / denom, m, v, vmax    # param.addcdiv_(exp_avg, denom, value=-step_size)


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
    w = t(1 - beta1)                    # lerp's weight, in the parameter's type; w - 1 rounded there too
    return (w, t(w - t(1)), t(beta2), t(1 - beta2), t(weight_decay), t(1 - lr * weight_decay), t(eps),
            t(-step_size), t(bc2_sqrt), bool(amsgrad), bool(maximize), weight_decay != 0,
            bool(decoupled_weight_decay))
