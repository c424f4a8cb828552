"""Interpolation along one dim on the GPU (the CPU's backends/cpu/upsample.py, same layout):
a thread per output element (forward) or per input element (backward: it gathers the
outputs whose sources are its index, so no atomics)."""
from numba import cuda

from ._device import device_array, jit, launch
from .conv import _zero


@jit
def _forward(x, xo, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, out, total):
    for t in range(cuda.grid(1), total, cuda.gridsize(1)):
        i = t % inner
        j = (t // inner) % out_size
        o = t // (inner * out_size)
        base = xo + o * in_size * inner + i
        if nearest:
            out[t] = x[base + idx0[j] * inner]
        else:
            out[t] = x[base + idx0[j] * inner] * w0[j] + x[base + idx1[j] * inner] * w1[j]


@jit
def _backward(g, go, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, gx, total, zero):
    for t in range(cuda.grid(1), total, cuda.gridsize(1)):
        i = t % inner
        s = (t // inner) % in_size
        o = t // (inner * in_size)
        base = go + o * out_size * inner + i
        acc = zero[0]
        for j in range(out_size):
            if nearest:
                if idx0[j] == s:
                    acc += g[base + j * inner]
            else:
                if idx0[j] == s:
                    acc += g[base + j * inner] * w0[j]
                if idx1[j] == s:
                    acc += g[base + j * inner] * w1[j]
        gx[t] = acc


def interp_pass(x_view, outer, in_size, inner, idx0, idx1, w0, w1, out_size, nearest):
    xb, xo, _, _ = x_view
    total = outer * out_size * inner
    out = device_array(total, xb.dtype)
    if total:
        blocks, threads = launch(total)
        _forward[blocks, threads](xb, xo, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, out, total)
    return out


def interp_pass_backward(g_view, outer, in_size, inner, idx0, idx1, w0, w1, out_size, nearest):
    gb, go, _, _ = g_view
    total = outer * in_size * inner
    gx = device_array(total, gb.dtype)
    if total:
        if out_size == 0:
            gx[:] = 0
        else:
            blocks, threads = launch(total)
            _backward[blocks, threads](gb, go, in_size, inner, idx0, idx1, w0, w1, out_size, nearest, gx, total,
                                       _zero(gb.dtype))
    return gx
