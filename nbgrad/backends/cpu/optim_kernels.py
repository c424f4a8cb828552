"""Fused optimizer updates: one kernel per parameter for SGD and for Adam/AdamW, and SGD's
multi-tensor form (several parameters of one dtype per kernel call, as PyTorch's foreach;
from 128K elements in all, one native call split across the team's workers).

Each kernel reads the gradient once and writes the parameter and its state
buffers in place; an element's update and the scalar preparation are shared
with the CUDA backend (nbgrad/backends/_shared/optim.py).
"""
import numpy as np
from numba import carray
from numba.extending import register_jitable

from .._shared import cpu_cfunc, cpu_kernel
from .._shared.native import address_as
from .._shared.optim import (ADAM_AMSGRAD, SGD_MOMENTUM, SGD_READS_BUF, adam_scalars, adam_update, flat,
                             sgd_scalars, sgd_update)
from ._threads import native_function, run_native, worth_native


@register_jitable(error_model="numpy")
def _sgd_loop(p, g, buf, h):
    read_buf = h[SGD_READS_BUF]
    for i in range(p.size):
        p[i], b = sgd_update(p[i], g[i], buf[i] if read_buf else p[i], h)
        if h[SGD_MOMENTUM]:
            buf[i] = b


@cpu_kernel()
def _sgd(p, g, buf, h):
    _sgd_loop(p, g, buf, h)


# Parameters per call of the multi-tensor kernel: its arguments are tuples of exactly this
# many arrays (padded with empty ones), so one compiled signature serves any parameter count.
SGD_GROUP = 8


@cpu_kernel()
def _sgd_many(ps, gs, bufs, h):
    for j in range(len(ps)):
        _sgd_loop(ps[j], gs[j], bufs[j], h)


# The multi-tensor step split across the team's workers (_threads.run_native): one native call
# over the concatenated elements of all the parameters, each piece [lo, hi) updating the parts
# of the parameters it covers with the same loop (each element updated as sgd_step updates
# it, so the bits are the serial ones).  Its argument block: a table of (p, g, buf addresses,
# first element) per parameter and a closing row with the total, h as float64 (its floats are
# the parameter dtype's values, exact in float64; its flags 0/1), and the parameter count.
_TABLE_ROW = 4


@cpu_kernel()
def _sgd_table(ps, gs, bufs, table, start, row):
    """Rows row.. of the table for the parameters of one group; the first element after them."""
    for j in range(len(ps)):
        r = (row + j) * _TABLE_ROW
        table[r] = ps[j].ctypes.data
        table[r + 1] = gs[j].ctypes.data
        table[r + 2] = bufs[j].ctypes.data if bufs[j].size else ps[j].ctypes.data
        table[r + 3] = start
        start += ps[j].size
    return start


def _native_sgd(t):
    def native(args, lo, hi):
        block = carray(address_as(args, np.int64), 3)
        count = carray(address_as(block[2], np.int64), 1)[0]
        table = carray(address_as(block[0], np.int64), (count + 1) * _TABLE_ROW)
        v = carray(address_as(block[1], np.float64), 10)
        h = (v[0] != 0, t(v[1]), t(v[2]), t(v[3]), t(v[4]), v[5] != 0, v[6] != 0, v[7] != 0, v[8] != 0, v[9] != 0)
        for j in range(count):
            first = table[j * _TABLE_ROW + 3]
            end = table[(j + 1) * _TABLE_ROW + 3]
            a = max(first, lo)
            b = min(end, hi)
            if a < b:
                n = end - first
                p = carray(address_as(table[j * _TABLE_ROW], t), n)
                g = carray(address_as(table[j * _TABLE_ROW + 1], t), n)
                buf = carray(address_as(table[j * _TABLE_ROW + 2], t), n)
                _sgd_loop(p[a - first:b - first], g[a - first:b - first], buf[a - first:b - first], h)
    return cpu_cfunc(native).address


def _sgd_natively(ps, gs, bufs, h):
    """sgd_step_many's groups as one native call; False when not taken."""
    total = sum(p.size for p in ps)
    dtype = ps[0].dtype
    if not worth_native(total) or dtype.kind != "f" or dtype.itemsize not in (4, 8):
        return False
    table = np.empty((len(ps) + 1) * _TABLE_ROW, np.int64)
    start, empty = 0, ps[0][:0]
    for first in range(0, len(ps), SGD_GROUP):
        stop = first + SGD_GROUP
        pad = [empty] * max(0, stop - len(ps))
        rows = np.empty(SGD_GROUP * _TABLE_ROW, np.int64)
        start = _sgd_table(tuple(ps[first:stop] + pad), tuple(gs[first:stop] + pad), tuple(bufs[first:stop] + pad),
                           rows, start, 0)
        take = min(SGD_GROUP, len(ps) - first) * _TABLE_ROW
        table[first * _TABLE_ROW:first * _TABLE_ROW + take] = rows[:take]
    table[len(ps) * _TABLE_ROW + 3] = start
    fn = native_function(("sgd", dtype), _native_sgd, dtype.type)
    values = np.array([float(x) for x in h], np.float64)
    return run_native(fn, total, (table, values, np.array([len(ps)], np.int64)), (0, 0, 0))


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


def sgd_step_many(p_views, g_views, buf_views, init_buf, lr, weight_decay, momentum, dampening, nesterov,
                  maximize):
    """sgd_step for several parameters of one dtype (lists of views; buf_views None when
    momentum == 0): one kernel call per SGD_GROUP parameters, each element updated exactly as
    sgd_step updates it."""
    if not p_views:
        return
    dtype = p_views[0][0].dtype
    h = sgd_scalars(dtype.type, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize)
    ps = [flat(v) for v in p_views]
    gs = [flat(v) for v in g_views]
    bufs = [flat(v) for v in buf_views] if buf_views is not None else [p[:0] for p in ps]
    if not all(a.flags.aligned and a.flags.writeable for a in ps + bufs) or not all(a.flags.aligned for a in gs):
        # the tuples must hold one array type (an unaligned or read-only array is another)
        for p, g, buf in zip(ps, gs, bufs):
            _sgd(p, g, buf, h)
        return
    if _sgd_natively(ps, gs, bufs, h):
        return
    empty = ps[0][:0]
    for start in range(0, len(ps), SGD_GROUP):
        stop = start + SGD_GROUP
        pad = [empty] * max(0, stop - len(ps))
        _sgd_many(tuple(ps[start:stop] + pad), tuple(gs[start:stop] + pad), tuple(bufs[start:stop] + pad), h)


def adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step, lr, beta1, beta2, eps,
              weight_decay, amsgrad, maximize, decoupled_weight_decay):
    """In place: p, exp_avg, exp_avg_sq (and max_exp_avg_sq with amsgrad).  `step` is the step count
    after this step's increment.  decoupled_weight_decay: AdamW's p *= 1 - lr*weight_decay."""
    p = flat(p_view)
    mx = flat(max_exp_avg_sq_view) if amsgrad else p[:0]
    _adam(p, flat(g_view), flat(exp_avg_view), flat(exp_avg_sq_view), mx,
          adam_scalars(p.dtype.type, step, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                       decoupled_weight_decay))
