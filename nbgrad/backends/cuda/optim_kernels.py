"""Fused optimizer updates (SGD, Adam/AdamW): one grid-stride kernel per parameter, in place.

An element's update and the scalar preparation are the CPU's, written once
(nbgrad/backends/_shared/optim.py), so both devices agree with PyTorch to
float32 rounding.
"""
from numba import cuda

from .._shared import optim as shared
from .._shared.optim import ADAM_AMSGRAD, SGD_MOMENTUM, SGD_READS_BUF, adam_scalars, flat, sgd_scalars
from ._device import device_fn, jit, launch

_sgd_update = device_fn(shared.sgd_update)
_adam_update = device_fn(shared.adam_update)


@jit
def _sgd(p, g, buf, n, h):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        p[i], b = _sgd_update(p[i], g[i], buf[i] if h[SGD_READS_BUF] else p[i], h)
        if h[SGD_MOMENTUM]:
            buf[i] = b


@jit
def _adam(p, g, exp_avg, exp_avg_sq, max_exp_avg_sq, n, h):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        vmax = max_exp_avg_sq[i] if h[ADAM_AMSGRAD] else p[i]
        p[i], exp_avg[i], exp_avg_sq[i], vmax = _adam_update(p[i], g[i], exp_avg[i], exp_avg_sq[i], vmax, h)
        if h[ADAM_AMSGRAD]:
            max_exp_avg_sq[i] = vmax


def sgd_step(p_view, g_view, buf_view, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
    p = flat(p_view)
    n = p.size
    if n == 0:
        return
    buf = flat(buf_view) if buf_view is not None else p
    blocks, threads = launch(n)
    _sgd[blocks, threads](p, flat(g_view), buf, n, sgd_scalars(p.dtype.type, init_buf, lr, weight_decay, momentum,
                                                               dampening, nesterov, maximize))


def adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step, lr, beta1, beta2, eps,
              weight_decay, amsgrad, maximize, decoupled_weight_decay):
    p = flat(p_view)
    n = p.size
    if n == 0:
        return
    mx = flat(max_exp_avg_sq_view) if amsgrad else p
    blocks, threads = launch(n)
    _adam[blocks, threads](p, flat(g_view), flat(exp_avg_view), flat(exp_avg_sq_view), mx, n,
                           adam_scalars(p.dtype.type, step, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                                        decoupled_weight_decay))
