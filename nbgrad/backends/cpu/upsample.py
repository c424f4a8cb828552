"""Interpolation along one dim: the pass F.interpolate makes per spatial dim (nbgrad/ops/upsample.py).

x is viewed as (outer, in_size, inner), the result as (outer, out_size, inner): with `taps`
source rows per output row (1 nearest, 2 linear, 4 cubic), idx and w of taps * out_size
(tap t of output j at t * out_size + j),
out[o, j, i] = x[o, idx[j], i] (nearest: copied, no product) or
((x[o, idx[j], i] * w[j] + x[o, idx[out + j], i] * w[out + j]) + ...), PyTorch's order.
Inner runs are contiguous (the loops vectorise over i).  The backward adds each output's
shares back output by output, tap by tap.  Buffers are 1-D; x and g are contiguous.
"""
import numpy as np
from numba import njit

from ._allocator import new_buffer
from ._threads import run_split, worth_splitting

_kernel = njit(cache=True, error_model="numpy", nogil=True)


@_kernel
def _forward(x, xo, o0, o1, in_size, inner, idx, w, taps, out_size, nearest, out):
    for o in range(o0, o1):
        src = xo + o * in_size * inner
        dst = o * out_size * inner
        for j in range(out_size):
            a = src + idx[j] * inner
            r = dst + j * inner
            if nearest:
                for i in range(inner):
                    out[r + i] = x[a + i]
                continue
            l0 = w[j]
            for i in range(inner):
                out[r + i] = x[a + i] * l0
            for t in range(1, taps):
                b = src + idx[t * out_size + j] * inner
                lt = w[t * out_size + j]
                for i in range(inner):
                    out[r + i] += x[b + i] * lt


@_kernel
def _backward(g, go, o0, o1, in_size, inner, idx, w, taps, out_size, nearest, gx):
    for o in range(o0, o1):
        src = go + o * out_size * inner
        dst = o * in_size * inner
        for k in range(dst, dst + in_size * inner):
            gx[k] = 0
        for j in range(out_size):
            r = src + j * inner
            if nearest:
                a = dst + idx[j] * inner
                for i in range(inner):
                    gx[a + i] += g[r + i]
                continue
            for t in range(taps):
                b = dst + idx[t * out_size + j] * inner
                lt = w[t * out_size + j]
                for i in range(inner):
                    gx[b + i] += g[r + i] * lt


def _over(fn, outer, elements):
    if worth_splitting(elements) and outer > 1:
        run_split(fn, outer, align=1)
    elif outer:
        fn(0, outer)


def interp_pass(x_view, outer, in_size, inner, idx, w, taps, out_size, nearest):
    """(outer, out_size, inner) buffer from contiguous x (outer, in_size, inner); idx int64 and
    w (x's dtype) buffers of taps * out_size (w unread when nearest)."""
    xb, xo, _, _ = x_view
    out = new_buffer(outer * out_size * inner, xb.dtype)
    if out.size:
        _over(lambda o0, o1: _forward(xb, xo, o0, o1, in_size, inner, idx, w, taps, out_size, nearest, out),
              outer, out.size * taps)
    return out


def interp_pass_backward(g_view, outer, in_size, inner, idx, w, taps, out_size, nearest):
    """(outer, in_size, inner) buffer: interp_pass's adjoint applied to contiguous g."""
    gb, go, _, _ = g_view
    gx = np.empty(outer * in_size * inner, gb.dtype)
    if gx.size:
        _over(lambda o0, o1: _backward(gb, go, o0, o1, in_size, inner, idx, w, taps, out_size, nearest, gx),
              outer, gx.size + outer * out_size * inner * taps)
    return gx
