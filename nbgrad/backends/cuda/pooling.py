"""2-D pooling on the GPU: grid-stride loops, one thread per output (forwards) or per input
element (the average's backward, gathering from the windows that cover it); max pooling's
backward adds each output's gradient at its index with atomics.  The window rules are the
CPU's (backends/_shared/pooling.py, compiled as device functions).
"""
import numpy as np
from numba import cuda

from .._shared import pooling as shared
from .._shared.pooling import H_, KH_, KW_, OH_, OW_, PH_, PW_, SH_, SW_, W_
from ._device import device_array, device_fn, geometry, jit, launch
from .conv import _zero, one_element
from .memory import full

_window = device_fn(shared.window)
_divisor = device_fn(shared.divisor)
_window_max = device_fn(shared.window_max)


@jit
def _max_pool(x, xo, total, geo, lowest, out, idx):
    OH, OW, H, W = geo[OH_], geo[OW_], geo[H_], geo[W_]
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        ow = i % OW
        oh = (i // OW) % OH
        out[i], idx[i] = _window_max(x, xo + (i // (OW * OH)) * H * W, oh, ow, geo, lowest[0])


@jit
def _max_pool_backward(g, go, idx, io, total, L, HW, gx):
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        j = idx[io + i]
        if 0 <= j < HW:     # (an empty window's position may lie past the plane: window_max)
            cuda.atomic.add(gx, (i // L) * HW + j, g[go + i])


@jit
def _avg_pool(x, xo, total, geo, adaptive, count_include_pad, divisor, zero, out):
    kh, kw, sh, sw, ph, pw = geo[KH_], geo[KW_], geo[SH_], geo[SW_], geo[PH_], geo[PW_]
    OH, OW, H, W = geo[OH_], geo[OW_], geo[H_], geo[W_]
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        ow = i % OW
        oh = (i // OW) % OH
        base = xo + (i // (OW * OH)) * H * W
        hs0, he0 = _window(oh, H, OH, kh, sh, ph, adaptive)
        ws0, we0 = _window(ow, W, OW, kw, sw, pw, adaptive)
        hs, he, ws, we, d = _divisor(hs0, he0, ws0, we0, H, W, adaptive, count_include_pad, divisor)
        acc = zero[0]
        for ih in range(hs, he):
            for iw in range(ws, we):
                acc += x[base + ih * W + iw]
        out[i] = acc / d if hs < he and ws < we else zero[0]


@jit
def _avg_pool_backward(g, go, total, geo, adaptive, count_include_pad, divisor, zero, gx):
    kh, kw, sh, sw, ph, pw = geo[KH_], geo[KW_], geo[SH_], geo[SW_], geo[PH_], geo[PW_]
    OH, OW, H, W = geo[OH_], geo[OW_], geo[H_], geo[W_]
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        iw = i % W
        ih = (i // W) % H
        o = go + (i // (W * H)) * OH * OW
        acc = zero[0]
        # the outputs whose (clamped) window covers (ih, iw)
        for oh in range(OH):
            hs0, he0 = _window(oh, H, OH, kh, sh, ph, adaptive)
            if not (max(hs0, 0) <= ih < min(he0, H)):
                continue
            for ow in range(OW):
                ws0, we0 = _window(ow, W, OW, kw, sw, pw, adaptive)
                hs, he, ws, we, d = _divisor(hs0, he0, ws0, we0, H, W, adaptive, count_include_pad, divisor)
                if ws <= iw < we:
                    acc += g[o + oh * OW + ow] / d
        gx[i] = acc


def _geometry(kernel, stride, padding, dilation, out_hw, in_hw):
    return geometry((kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1],
                     out_hw[0], out_hw[1], in_hw[0], in_hw[1]))


def max_pool2d(x_view, kernel, stride, padding, dilation, out_hw):
    xb, xo, xs, _ = x_view
    total = int(np.prod(xs[:-2])) * out_hw[0] * out_hw[1]
    out, idx = device_array(total, xb.dtype), device_array(total, np.int64)
    if total:
        blocks, threads = launch(total)
        _max_pool[blocks, threads](xb, xo, total, _geometry(kernel, stride, padding, dilation, out_hw, xs[-2:]),
                                   one_element(xb.dtype, shared.lowest_of(xb.dtype)[0]), out, idx)
    return out, idx


def max_pool2d_backward(g_view, idx_view, in_hw):
    gb, go, gs, _ = g_view
    ib, io, _, _ = idx_view
    planes = int(np.prod(gs[:-2]))
    hw = in_hw[0] * in_hw[1]
    gx = full(planes * hw, gb.dtype, 0)
    total = planes * gs[-2] * gs[-1]
    if total:
        blocks, threads = launch(total)
        _max_pool_backward[blocks, threads](gb, go, ib, io, total, gs[-2] * gs[-1], hw, gx)
    return gx


def avg_pool2d(x_view, kernel, stride, padding, out_hw, count_include_pad, divisor_override, adaptive):
    xb, xo, xs, _ = x_view
    total = int(np.prod(xs[:-2])) * out_hw[0] * out_hw[1]
    out = device_array(total, xb.dtype)
    if total:
        blocks, threads = launch(total)
        _avg_pool[blocks, threads](xb, xo, total, _geometry(kernel, stride, padding, (1, 1), out_hw, xs[-2:]),
                                   adaptive, count_include_pad, divisor_override or 0, _zero(xb.dtype), out)
    return out


def avg_pool2d_backward(g_view, in_hw, kernel, stride, padding, count_include_pad, divisor_override, adaptive):
    gb, go, gs, _ = g_view
    total = int(np.prod(gs[:-2])) * in_hw[0] * in_hw[1]
    gx = device_array(total, gb.dtype)
    if total:
        blocks, threads = launch(total)
        _avg_pool_backward[blocks, threads](gb, go, total, _geometry(kernel, stride, padding, (1, 1), gs[-2:], in_hw),
                                            adaptive, count_include_pad, divisor_override or 0, _zero(gb.dtype), gx)
    return gx
