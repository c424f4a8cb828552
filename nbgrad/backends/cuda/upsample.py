"""Interpolation along one dim on the GPU (the CPU's backends/cpu/upsample.py, same layout):
a thread per output element (forward) or per input element (backward: it gathers the
outputs whose taps read its index, so no atomics)."""
from numba import cuda

from ._device import device_array, jit, launch
from .conv import _zero


@jit
def _forward(x, xo, in_size, inner, idx, w, taps, out_size, nearest, out, total):
    for p in range(cuda.grid(1), total, cuda.gridsize(1)):
        i = p % inner
        j = (p // inner) % out_size
        o = p // (inner * out_size)
        base = xo + o * in_size * inner + i
        if nearest:
            out[p] = x[base + idx[j] * inner]
        else:
            acc = x[base + idx[j] * inner] * w[j]
            for t in range(1, taps):
                acc += x[base + idx[t * out_size + j] * inner] * w[t * out_size + j]
            out[p] = acc


@jit
def _backward(g, go, in_size, inner, idx, w, taps, out_size, nearest, gx, total, zero):
    for p in range(cuda.grid(1), total, cuda.gridsize(1)):
        i = p % inner
        s = (p // inner) % in_size
        o = p // (inner * in_size)
        base = go + o * out_size * inner + i
        acc = zero[0]
        for j in range(out_size):
            if nearest:
                if idx[j] == s:
                    acc += g[base + j * inner]
                continue
            for t in range(taps):
                if idx[t * out_size + j] == s:
                    acc += g[base + j * inner] * w[t * out_size + j]
        gx[p] = acc


def interp_pass(x_view, outer, in_size, inner, idx, w, taps, out_size, nearest):
    xb, xo, _, _ = x_view
    total = outer * out_size * inner
    out = device_array(total, xb.dtype)
    if total:
        blocks, threads = launch(total)
        _forward[blocks, threads](xb, xo, in_size, inner, idx, w, taps, out_size, nearest, out, total)
    return out


def interp_pass_backward(g_view, outer, in_size, inner, idx, w, taps, out_size, nearest):
    gb, go, _, _ = g_view
    total = outer * in_size * inner
    gx = device_array(total, gb.dtype)
    if total:
        blocks, threads = launch(total)
        _backward[blocks, threads](gb, go, in_size, inner, idx, w, taps, out_size, nearest, gx, total,
                                   _zero(gb.dtype))
    return gx
