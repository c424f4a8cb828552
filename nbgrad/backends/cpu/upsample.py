"""Interpolation along one dim: the pass F.interpolate makes per spatial dim (nbgrad/ops/upsample.py).

x is viewed as (outer, in_size, inner), the result as (outer, out_size, inner):
out[o, j, i] = x[o, idx0[j], i] (nearest) or x[o, idx0[j], i] * w0[j] + x[o, idx1[j], i] * w1[j].
Inner runs are contiguous (the loops vectorise over i).  The backward adds each output's
share back output by output (PyTorch's order).  Buffers are 1-D; x and g are contiguous.
"""
import numpy as np
from numba import njit

from ._allocator import new_buffer
from ._threads import run_split, worth_splitting

_kernel = njit(cache=True, error_model="numpy", nogil=True)


@_kernel
def _forward(x, xo, o0, o1, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, out):
    for o in range(o0, o1):
        src = xo + o * in_size * inner
        dst = o * out_size * inner
        for j in range(out_size):
            a = src + idx0[j] * inner
            r = dst + j * inner
            if nearest:
                for i in range(inner):
                    out[r + i] = x[a + i]
            else:
                b = src + idx1[j] * inner
                l0, l1 = w0[j], w1[j]
                for i in range(inner):
                    out[r + i] = x[a + i] * l0 + x[b + i] * l1


@_kernel
def _backward(g, go, o0, o1, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, gx):
    for o in range(o0, o1):
        src = go + o * out_size * inner
        dst = o * in_size * inner
        for k in range(dst, dst + in_size * inner):
            gx[k] = 0
        for j in range(out_size):
            r = src + j * inner
            a = dst + idx0[j] * inner
            if nearest:
                for i in range(inner):
                    gx[a + i] += g[r + i]
            else:
                b = dst + idx1[j] * inner
                l0, l1 = w0[j], w1[j]
                for i in range(inner):
                    gx[a + i] += g[r + i] * l0
                for i in range(inner):
                    gx[b + i] += g[r + i] * l1


def _over(fn, outer, elements):
    if worth_splitting(elements) and outer > 1:
        run_split(fn, outer, align=1)
    elif outer:
        fn(0, outer)


def interp_pass(x_view, outer, in_size, inner, idx0, idx1, w0, w1, out_size, nearest):
    """(outer, out_size, inner) buffer from contiguous x (outer, in_size, inner); idx0/idx1
    int64 and w0/w1 (x's dtype) buffers of out_size (w0, w1, idx1 unread when nearest)."""
    xb, xo, _, _ = x_view
    out = new_buffer(outer * out_size * inner, xb.dtype)
    if out.size:
        _over(lambda o0, o1: _forward(xb, xo, o0, o1, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, out),
              outer, out.size)
    return out


def interp_pass_backward(g_view, outer, in_size, inner, idx0, idx1, w0, w1, out_size, nearest):
    """(outer, in_size, inner) buffer: interp_pass's adjoint applied to contiguous g."""
    gb, go, _, _ = g_view
    gx = np.empty(outer * in_size * inner, gb.dtype)
    if gx.size:
        _over(lambda o0, o1: _backward(gb, go, o0, o1, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, gx),
              outer, gx.size + outer * out_size * inner)
    return gx
