"""Fused optimizer updates: one kernel per parameter for SGD and for Adam/AdamW.

Each kernel reads the gradient once and writes the parameter and its state
buffers in place; an element's update and the scalar preparation are shared
with the CUDA backend (nbgrad/backends/_shared/optim.py).
"""
from .._shared import cpu_kernel
from .._shared.optim import (ADAM_AMSGRAD, SGD_MOMENTUM, SGD_READS_BUF, adam_scalars, adam_update, flat,
                             sgd_scalars, sgd_update)


@cpu_kernel()
def _sgd(p, g, buf, h):
    read_buf = h[SGD_READS_BUF]
    for i in range(p.size):
        p[i], b = sgd_update(p[i], g[i], buf[i] if read_buf else p[i], h)
        if h[SGD_MOMENTUM]:
            buf[i] = b


@cpu_kernel()
def _adam(p, g, exp_avg, exp_avg_sq, max_exp_avg_sq, h):
    amsgrad = h[ADAM_AMSGRAD]
    for i in range(p.size):
        vmax = max_exp_avg_sq[i] if amsgrad else p[i]
        p[i], exp_avg[i], exp_avg_sq[i], vmax = adam_update(p[i], g[i], exp_avg[i], exp_avg_sq[i], vmax, h)
        if amsgrad:
            max_exp_avg_sq[i] = vmax


def sgd_step(p_view, g_view, buf_view, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
    """In place: p (and the momentum buffer, when momentum != 0).  All views contiguous, same dtype.
    init_buf: the buffer is being created this step (it becomes the gradient, as PyTorch's clone)."""
    p = flat(p_view)
    buf = flat(buf_view) if buf_view is not None else p[:0]
    _sgd(p, flat(g_view), buf, sgd_scalars(p.dtype.type, init_buf, lr, weight_decay, momentum, dampening, nesterov,
                                           maximize))


def adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step, lr, beta1, beta2, eps,
              weight_decay, amsgrad, maximize, decoupled_weight_decay):
    """In place: p, exp_avg, exp_avg_sq (and max_exp_avg_sq with amsgrad).  `step` is the step count
    after this step's increment.  decoupled_weight_decay: AdamW's p *= 1 - lr*weight_decay."""
    p = flat(p_view)
    mx = flat(max_exp_avg_sq_view) if amsgrad else p[:0]
    _adam(p, flat(g_view), flat(exp_avg_view), flat(exp_avg_sq_view), mx,
          adam_scalars(p.dtype.type, step, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                       decoupled_weight_decay))
