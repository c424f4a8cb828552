"""2-D pooling: max with indices, average (plain and adaptive windows), and their backwards.

Direct loops over each output's window, plane by plane (a plane is one (n, c) image);
large inputs split their planes across the thread pool.  Max pooling follows
PyTorch's CPU kernel exactly: the window's first in-bounds element starts, a larger
value or a NaN takes over (so the last NaN's index wins).  The average divides by the
window's size counted PyTorch's way (with or without the padding, or a divisor).
Inputs are contiguous (the op layer makes them so); indices are positions in a plane.

float16 (PyTorch's CPU kernels on Half): the forwards run the float32 kernels on widened
values (the max is exact, the average sums in float32 and rounds once); the backwards add
in Half, as PyTorch's `grad_input[i] += delta` does: the delta (an average's gradient
divided in float32) and every sum are rounded to float16 (`_round_half`), in the order
PyTorch adds them (output by output).
"""
import math

import numpy as np

from .._shared import cpu_kernel
from .._shared.pooling import H_, KH_, KW_, OH_, OW_, PH_, PW_, SH_, SW_, W_, divisor, lowest_of, window, window_max
from ._allocator import new_buffer
from ._threads import run_split, worth_splitting

_kernel = cpu_kernel(nogil=True)      # (the window helpers are shared with CUDA: the cache rule)


@_kernel
def _max_pool(x, xo, p0, p1, geo, lowest, out, idx):
    OH, OW, H, W = geo[OH_], geo[OW_], geo[H_], geo[W_]
    for p in range(p0, p1):
        base = xo + p * H * W
        o = p * OH * OW
        for oh in range(OH):
            for ow in range(OW):
                out[o + oh * OW + ow], idx[o + oh * OW + ow] = window_max(x, base, oh, ow, geo, lowest[0])


@_kernel
def _round_half(v):
    """v rounded to the nearest float16 value (ties to even; beyond 65504 to infinity)."""
    a = abs(v)
    if not a < np.inf:                      # nan, inf
        return v
    if a >= 65520.0:
        return math.copysign(np.inf, v)
    if a < 6.103515625e-05:                 # below 2**-14: the subnormals' spacing 2**-24
        q = 5.960464477539063e-08
    else:
        e = math.frexp(a)[1]                # a in [2**(e-1), 2**e): 11 significant bits
        q = math.ldexp(1.0, e - 11)
    t = a / q
    r = math.floor(t)
    d = t - r
    if d > 0.5 or (d == 0.5 and r % 2 == 1):
        r += 1
    return math.copysign(r * q, v)


@_kernel
def _max_pool_backward(g, go, idx, io, p0, p1, L, HW, gx, half):
    for p in range(p0, p1):
        for i in range(L):
            j = idx[io + p * L + i]
            if j < 0 or j >= HW:
                continue        # an empty window's position past the plane (window_max)
            k = p * HW + j
            if half:
                gx[k] = _round_half(gx[k] + g[go + p * L + i])
            else:
                gx[k] += g[go + p * L + i]


@_kernel
def _avg_pool(x, xo, p0, p1, geo, adaptive, count_include_pad, override, zero, integer, out):
    kh, kw, sh, sw, ph, pw = geo[KH_], geo[KW_], geo[SH_], geo[SW_], geo[PH_], geo[PW_]
    OH, OW, H, W = geo[OH_], geo[OW_], geo[H_], geo[W_]
    for p in range(p0, p1):
        base = xo + p * H * W
        o = p * OH * OW
        for oh in range(OH):
            hs0, he0 = window(oh, H, OH, kh, sh, ph, adaptive)
            for ow in range(OW):
                ws0, we0 = window(ow, W, OW, kw, sw, pw, adaptive)
                hs, he, ws, we, d = divisor(hs0, he0, ws0, we0, H, W, adaptive, count_include_pad, override)
                acc = zero
                for ih in range(hs, he):
                    for iw in range(ws, we):
                        acc += x[base + ih * W + iw]
                if not (hs < he and ws < we):
                    out[o + oh * OW + ow] = zero
                elif integer:
                    # PyTorch's int64 kernel: the sum wraps in int64, C's division truncates
                    # toward zero (a float quotient would round sums past 2**53)
                    q = abs(acc) // abs(d)
                    out[o + oh * OW + ow] = q if (acc < 0) == (d < 0) else -q
                else:
                    out[o + oh * OW + ow] = acc / d


@_kernel
def _avg_pool_backward(g, go, p0, p1, geo, adaptive, count_include_pad, override, gx, half):
    kh, kw, sh, sw, ph, pw = geo[KH_], geo[KW_], geo[SH_], geo[SW_], geo[PH_], geo[PW_]
    OH, OW, H, W = geo[OH_], geo[OW_], geo[H_], geo[W_]
    for p in range(p0, p1):
        base = p * H * W
        o = go + p * OH * OW
        for oh in range(OH):
            hs0, he0 = window(oh, H, OH, kh, sh, ph, adaptive)
            for ow in range(OW):
                ws0, we0 = window(ow, W, OW, kw, sw, pw, adaptive)
                hs, he, ws, we, d = divisor(hs0, he0, ws0, we0, H, W, adaptive, count_include_pad, override)
                if hs >= he or ws >= we:
                    continue
                if half and adaptive:       # PyTorch's grad / kh / kw: each quotient a Half
                    q = _round_half(np.float32(g[o + oh * OW + ow] / (he - hs)))
                    v = _round_half(np.float32(np.float32(q) / (we - ws)))
                elif half:
                    v = _round_half(np.float32(g[o + oh * OW + ow] / d))
                else:
                    v = g[o + oh * OW + ow] / d
                for ih in range(hs, he):
                    for iw in range(ws, we):
                        if half:
                            gx[base + ih * W + iw] = _round_half(gx[base + ih * W + iw] + v)
                        else:
                            gx[base + ih * W + iw] += v


def _geometry(kernel, stride, padding, dilation, out_hw, in_hw):
    return np.array([kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1],
                     out_hw[0], out_hw[1], in_hw[0], in_hw[1]], dtype=np.int64)


def _over_planes(fn, planes, plane_elements):
    if worth_splitting(planes * plane_elements):
        run_split(fn, planes, align=1)
    elif planes:
        fn(0, planes)


_HALF = np.dtype(np.float16)


def _widened(view):
    """A float16 view's values as float32 (its buffer from the offset on)."""
    buf, off, shape, strides = view
    return (buf[off:].astype(np.float32), 0, shape, strides)


def max_pool2d(x_view, kernel, stride, padding, dilation, out_hw):
    """(values, int64 indices into each H*W plane) of (N*C planes, OH, OW) from contiguous x (..., H, W)."""
    if x_view[0].dtype == _HALF:
        values, idx = max_pool2d(_widened(x_view), kernel, stride, padding, dilation, out_hw)
        return values.astype(np.float16), idx
    xb, xo, xs, _ = x_view
    planes = int(np.prod(xs[:-2]))
    geo = _geometry(kernel, stride, padding, dilation, out_hw, xs[-2:])
    n = planes * out_hw[0] * out_hw[1]
    out, idx = new_buffer(n, xb.dtype), new_buffer(n, np.int64)
    if n:
        low = lowest_of(xb.dtype)
        _over_planes(lambda p0, p1: _max_pool(xb, xo, p0, p1, geo, low, out, idx), planes, xs[-2] * xs[-1])
    return out, idx


def max_pool2d_backward(g_view, idx_view, in_hw):
    """gx (planes, H, W): each output's gradient added at its index."""
    half = g_view[0].dtype == _HALF
    if half:
        g_view = _widened(g_view)
    gb, go, gs, _ = g_view
    ib, io, _, _ = idx_view
    planes = int(np.prod(gs[:-2]))
    hw = in_hw[0] * in_hw[1]
    gx = np.zeros(planes * hw, gb.dtype)
    L = gs[-2] * gs[-1]
    if L:
        _over_planes(lambda p0, p1: _max_pool_backward(gb, go, ib, io, p0, p1, L, hw, gx, half), planes, hw)
    return gx.astype(np.float16) if half else gx


def avg_pool2d(x_view, kernel, stride, padding, out_hw, count_include_pad, divisor_override, adaptive):
    """(planes, OH, OW) window means of contiguous x (..., H, W); adaptive: PyTorch's adaptive windows
    (kernel, stride, padding unused)."""
    if x_view[0].dtype == _HALF:
        return avg_pool2d(_widened(x_view), kernel, stride, padding, out_hw, count_include_pad, divisor_override,
                          adaptive).astype(np.float16)
    xb, xo, xs, _ = x_view
    planes = int(np.prod(xs[:-2]))
    geo = _geometry(kernel, stride, padding, (1, 1), out_hw, xs[-2:])
    out = new_buffer(planes * out_hw[0] * out_hw[1], xb.dtype)
    if out.size:
        _over_planes(lambda p0, p1: _avg_pool(xb, xo, p0, p1, geo, adaptive, count_include_pad,
                                              divisor_override or 0, xb.dtype.type(0), xb.dtype.kind in "iu", out),
                     planes, xs[-2] * xs[-1])
    return out


def avg_pool2d_backward(g_view, in_hw, kernel, stride, padding, count_include_pad, divisor_override, adaptive):
    half = g_view[0].dtype == _HALF
    if half:
        g_view = _widened(g_view)
    gb, go, gs, _ = g_view
    planes = int(np.prod(gs[:-2]))
    geo = _geometry(kernel, stride, padding, (1, 1), gs[-2:], in_hw)
    gx = np.zeros(planes * in_hw[0] * in_hw[1], gb.dtype)
    if gs[-2] * gs[-1]:
        _over_planes(lambda p0, p1: _avg_pool_backward(gb, go, p0, p1, geo, adaptive, count_include_pad,
                                                       divisor_override or 0, gx, half), planes,
                     in_hw[0] * in_hw[1])
    return gx.astype(np.float16) if half else gx
