"""2-D convolution and pooling on the GPU: grid-stride loops, one thread per output element.

conv2d's forward gives a thread an output element (its window's dot product with
the weight); the backward gives a thread an input element (gathering from every
output whose window reads it, so no atomics), a weight element (summing over the
batch and the output positions) or a bias element.  Pooling gives a thread an
output element (forward) or an input element (average backward); max pooling's
backward scatters by the saved indices with atomics.  Inputs are contiguous (the
op layer makes them so); the geometry travels as one cached int64 device array.
"""
import numpy as np
from numba import cuda

from ._device import device_array, geometry, jit, launch, to_device
from .memory import full

# geometry: the same layout as the CPU kernels' (backends/cpu/conv.py)
N_, C_, H_, W_, CO_, G_, KH_, KW_, SH_, SW_, PH_, PW_, DH_, DW_, OH_, OW_ = range(16)


def _geometry(x_shape, w_shape, stride, padding, dilation, groups, out_hw):
    n, c, h, w = x_shape
    co, _, kh, kw = w_shape
    return geometry((n, c, h, w, co, groups, kh, kw, stride[0], stride[1], padding[0], padding[1],
                     dilation[0], dilation[1], out_hw[0], out_hw[1]))


@jit
def _forward(x, xo, w, wo, b, bo, has_bias, out, total, geo, zero):
    C, H, W, CO, G, KH, KW = geo[C_], geo[H_], geo[W_], geo[CO_], geo[G_], geo[KH_], geo[KW_]
    OH, OW = geo[OH_], geo[OW_]
    cg = C // G
    cog = CO // G
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        ow = i % OW
        oh = (i // OW) % OH
        co = (i // (OW * OH)) % CO
        n = i // (OW * OH * CO)
        c0 = (co // cog) * cg
        acc = b[bo + co] if has_bias else zero[0]
        for ci in range(cg):
            for kh in range(KH):
                ih = oh * geo[SH_] - geo[PH_] + kh * geo[DH_]
                if ih < 0 or ih >= H:
                    continue
                for kw in range(KW):
                    iw = ow * geo[SW_] - geo[PW_] + kw * geo[DW_]
                    if iw >= 0 and iw < W:
                        acc += x[xo + ((n * C + c0 + ci) * H + ih) * W + iw] * w[wo + ((co * cg + ci) * KH + kh) * KW + kw]
        out[i] = acc


@jit
def _grad_input(gy, gyo, w, wo, gx, total, geo, zero):
    C, H, W, CO, G, KH, KW = geo[C_], geo[H_], geo[W_], geo[CO_], geo[G_], geo[KH_], geo[KW_]
    sh, sw, ph, pw, dh, dw, OH, OW = geo[SH_], geo[SW_], geo[PH_], geo[PW_], geo[DH_], geo[DW_], geo[OH_], geo[OW_]
    cg = C // G
    cog = CO // G
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        iw = i % W
        ih = (i // W) % H
        c = (i // (W * H)) % C
        n = i // (W * H * C)
        grp = c // cg
        ci = c - grp * cg
        acc = zero[0]
        for kh in range(KH):
            th = ih + ph - kh * dh
            if th < 0 or th % sh != 0 or th // sh >= OH:
                continue
            oh = th // sh
            for kw in range(KW):
                tw = iw + pw - kw * dw
                if tw < 0 or tw % sw != 0 or tw // sw >= OW:
                    continue
                ow = tw // sw
                for j in range(cog):
                    co = grp * cog + j
                    acc += gy[gyo + ((n * CO + co) * OH + oh) * OW + ow] * w[wo + ((co * cg + ci) * KH + kh) * KW + kw]
        gx[i] = acc


@jit
def _grad_weight(gy, gyo, x, xo, gw, total, geo, zero):
    N, C, H, W, CO, G, KH, KW = geo[N_], geo[C_], geo[H_], geo[W_], geo[CO_], geo[G_], geo[KH_], geo[KW_]
    OH, OW = geo[OH_], geo[OW_]
    cg = C // G
    cog = CO // G
    for i in range(cuda.grid(1), total, cuda.gridsize(1)):
        kw = i % KW
        kh = (i // KW) % KH
        ci = (i // (KW * KH)) % cg
        co = i // (KW * KH * cg)
        c = (co // cog) * cg + ci
        acc = zero[0]
        for n in range(N):
            for oh in range(OH):
                ih = oh * geo[SH_] - geo[PH_] + kh * geo[DH_]
                if ih < 0 or ih >= H:
                    continue
                for ow in range(OW):
                    iw = ow * geo[SW_] - geo[PW_] + kw * geo[DW_]
                    if iw >= 0 and iw < W:
                        acc += gy[gyo + ((n * CO + co) * OH + oh) * OW + ow] * x[xo + ((n * C + c) * H + ih) * W + iw]
        gw[i] = acc


@jit
def _grad_bias(gy, gyo, gb, N, CO, L, zero):
    for co in range(cuda.grid(1), CO, cuda.gridsize(1)):
        acc = zero[0]
        for n in range(N):
            for p in range(L):
                acc += gy[gyo + (n * CO + co) * L + p]
        gb[co] = acc


_ONE_ELEMENT = {}


def one_element(dtype, value):
    """A cached one-element device array holding value in dtype (a kernel's typed constant)."""
    key = (np.dtype(dtype), value)
    a = _ONE_ELEMENT.get(key)
    if a is None:
        a = _ONE_ELEMENT[key] = to_device(np.array([value], dtype))
    return a


def _zero(dtype):
    """0 of dtype on the device (the kernels' typed accumulator start)."""
    return one_element(dtype, 0)


def conv2d_forward(x_view, w_view, b_view, stride, padding, dilation, groups, out_hw):
    xb, xo, xs, _ = x_view
    wb, wo, ws, _ = w_view
    total = xs[0] * ws[0] * out_hw[0] * out_hw[1]
    out = device_array(total, xb.dtype)
    if total == 0:
        return out
    bb, bo = (b_view[0], b_view[1]) if b_view is not None else (wb, 0)
    if xs[1] * xs[2] * xs[3] == 0:              # no window elements: a zero sum (plus the bias)
        xb, xo = _zero(xb.dtype), 0
    blocks, threads = launch(total)
    _forward[blocks, threads](xb, xo, wb, wo, bb, bo, b_view is not None, out, total,
                              _geometry(xs, ws, stride, padding, dilation, groups, out_hw), _zero(xb.dtype))
    return out


def conv2d_backward(g_view, x_view, w_view, stride, padding, dilation, groups, need_x, need_w, need_b):
    gb_, go, gs, _ = g_view
    xb, xo, xs, _ = x_view
    wb, wo, ws, _ = w_view
    geo = _geometry(xs, ws, stride, padding, dilation, groups, gs[2:])
    dtype = gb_.dtype
    gx = gw = gb = None
    empty = gs[0] * gs[1] * gs[2] * gs[3] == 0
    if need_x:
        total = xs[0] * xs[1] * xs[2] * xs[3]
        gx = full(total, dtype, 0) if empty else device_array(total, dtype)
        if total and not empty:
            blocks, threads = launch(total)
            _grad_input[blocks, threads](gb_, go, wb, wo, gx, total, geo, _zero(dtype))
    if need_w:
        total = ws[0] * ws[1] * ws[2] * ws[3]
        gw = full(total, dtype, 0) if empty else device_array(total, dtype)
        if total and not empty:
            blocks, threads = launch(total)
            _grad_weight[blocks, threads](gb_, go, xb, xo, gw, total, geo, _zero(dtype))
    if need_b:
        gb = full(ws[0], dtype, 0) if empty else device_array(ws[0], dtype)
        if ws[0] and not empty:
            blocks, threads = launch(ws[0])
            _grad_bias[blocks, threads](gb_, go, gb, gs[0], gs[1], gs[2] * gs[3], _zero(dtype))
    return gx, gw, gb
