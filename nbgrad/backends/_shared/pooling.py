"""Pooling windows for both devices: an output's window along one dim, its divisor, and the
max of a window with PyTorch's index rule.  The CPU kernels loop over outputs, the CUDA
kernels stride over them; an output's window is computed here."""
import numpy as np
from numba.extending import register_jitable

_helper = register_jitable(error_model="numpy")

# pooling geometry array: kernel, stride, padding, dilation (each h, w), output h, w, input h, w
KH_, KW_, SH_, SW_, PH_, PW_, DH_, DW_, OH_, OW_, H_, W_ = range(12)


def lowest_of(dtype):
    """A one-element host array of dtype holding its lowest value, window_max's start: -inf for
    floats, the minimum for integers (PyTorch's numeric_limits lowest/-infinity)."""
    dtype = np.dtype(dtype)
    value = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
    return np.array([value], dtype)


@_helper
def window(o, size, out_size, k, s, pad, adaptive):
    """(start, end) of output o's window along one dim, before clamping to [0, size): PyTorch's
    avg_pool2d window (end capped at size + pad), or its adaptive one."""
    if adaptive:
        return (o * size) // out_size, ((o + 1) * size + out_size - 1) // out_size
    start = o * s - pad
    return start, min(start + k, size + pad)


@_helper
def divisor(hs, he, ws, we, H, W, adaptive, count_include_pad, override):
    """(the window clamped to the input, its divisor): PyTorch's pool_size with the padding,
    the count without it, or divisor_override (not for adaptive windows)."""
    pool = (he - hs) * (we - ws)
    hs, ws = max(hs, 0), max(ws, 0)
    he, we = min(he, H), min(we, W)
    if override != 0 and not adaptive:
        d = override
    elif count_include_pad and not adaptive:
        d = pool
    else:
        d = (he - hs) * (we - ws)
    return hs, he, ws, we, d


@_helper
def window_max(x, base, oh, ow, geo, lowest):
    """(max, its position in the plane) of output (oh, ow)'s window in the plane at x[base], as
    PyTorch's CPU kernel finds it: from `lowest` (the dtype's: -inf for floats) at the first
    in-bounds position, a larger value or a NaN takes over (so the first in-bounds element
    starts, and the last NaN's index wins).  A window with no in-bounds element (padding and
    dilation can make one) reads nothing: `lowest` at PyTorch's position for it, which may lie
    past the plane (the backwards skip such positions)."""
    kh, kw, sh, sw, ph, pw, dh, dw = geo[KH_], geo[KW_], geo[SH_], geo[SW_], geo[PH_], geo[PW_], geo[DH_], geo[DW_]
    H, W = geo[H_], geo[W_]
    ih0 = oh * sh - ph
    ih1 = min(ih0 + (kh - 1) * dh + 1, H)
    while ih0 < 0:
        ih0 += dh
    iw0 = ow * sw - pw
    iw1 = min(iw0 + (kw - 1) * dw + 1, W)
    while iw0 < 0:
        iw0 += dw
    mi = ih0 * W + iw0
    mv = lowest
    for ih in range(ih0, ih1, dh):
        for iw in range(iw0, iw1, dw):
            v = x[base + ih * W + iw]
            if v > mv or v != v:
                mv = v
                mi = ih * W + iw
    return mv, mi
