"""grid_sample on the GPU with the CPU's arithmetic (the scalar steps of
backends/_shared/grid_sample.py as device functions), so both devices give PyTorch CPU's bits.

Forward and the grid's gradient: a thread per (sample, output position), looping over the
channels. The input's gradient: a thread per (sample, channel) plane, adding the positions'
shares in the CPU kernel's order (PyTorch's vectors of `lanes` positions, corner by corner or
tap by tap within one): deterministic, no atomics, the CPU's sums.
"""
import numpy as np
from numba import cuda

from .._shared import grid_sample as S
from .._shared.grid_sample import BICUBIC, BILINEAR, NEAREST, ROW
from ._device import device_array, jit, launch, to_device

_source = S.source
_source_grad = S.source_grad
_corners = S.corners
_nearest = S.nearest
_cubic = S.cubic
_cubic_grad = S.cubic_grad
_tap = S.tap
_tap_offset = S.tap_offset
_unnormalize = S.unnormalize
_corner_values = S.corner_values
_sample_position = S.sample_position
_floor = S.floor
_fma = S.fma


@jit
def _forward(x, xo, xs, C, IH, IW, g, go, gs, N, OH, OW, interp, padding, ac, P, K, chain, out):
    L = OH * OW
    for t in range(cuda.grid(1), N * L, cuda.gridsize(1)):
        n = t // L
        p = t - n * L
        h = p // OW
        gp = go + n * gs[0] + h * gs[1] + (p - h * OW) * gs[2]
        _sample_position(x, xo + n * xs[0], xs, C, IH, IW, g, gp, gs, interp, padding, ac, P, K, chain, out,
                         n * C * L + p, L)


@jit
def _grid_grad(gout, goo, gos, x, xo, xs, C, IH, IW, g, go, gs, N, OH, OW, interp, padding, ac, P, K, gg):
    L = OH * OW
    for t in range(cuda.grid(1), N * L, cuda.gridsize(1)):
        n = t // L
        p = t - n * L
        h = p // OW
        w = p - h * OW
        gp = go + n * gs[0] + h * gs[1] + w * gs[2]
        xb = xo + n * xs[0]
        accx = K[0]
        accy = K[0]
        if interp == NEAREST:
            gg[t * 2] = K[0]
            gg[t * 2 + 1] = K[0]
            continue
        if interp == BICUBIC:
            fx = _unnormalize(g[gp], P, 0, ac, K)
            fy = _unnormalize(g[gp + gs[3]], P, ROW, ac, K)
            lx = _floor(fx, K)
            ly = _floor(fy, K)
            mx = P[0]
            my = P[ROW]
            for c in range(C):
                go_ = gout[goo + n * gos[0] + c * gos[1] + h * gos[2] + w * gos[3]]
                for i in range(4):
                    cfx = _pick(_cubic(fx - lx, K), i)
                    cgx = _pick(_cubic_grad(fx - lx, K), i)
                    for j in range(4):
                        cfy = _pick(_cubic(fy - ly, K), j)
                        cgy = _pick(_cubic_grad(fy - ly, K), j)
                        ty, tx, ok = _tap(lx + _tap_offset(i, K), ly + _tap_offset(j, K), P, padding, ac, IW, IH, K)
                        v = x[xb + c * xs[1] + ty * xs[2] + tx * xs[3]] if ok else K[0]
                        accx = _fma(-(v * go_ * cgx), cfy, accx)
                        accy = _fma(-(v * go_ * cgy), cfx, accy)
        else:
            fx, mx = _source_grad(g[gp], P, 0, padding, ac, K)
            fy, my = _source_grad(g[gp + gs[3]], P, ROW, padding, ac, K)
            dn, ds, dw, de, nw, ne, sw, se, iy, ix, m_nw, m_ne, m_sw, m_se = _corners(fx, fy, IW, IH, K)
            for c in range(C):
                go_ = gout[goo + n * gos[0] + c * gos[1] + h * gos[2] + w * gos[3]]
                v_nw, v_ne, v_sw, v_se = _corner_values(x, xb + c * xs[1] + iy * xs[2] + ix * xs[3], xs,
                                                        m_nw, m_ne, m_sw, m_se, K)
                accx = _fma(_fma(v_se - v_sw, dn, (v_ne - v_nw) * ds), go_, accx)
                accy = _fma(_fma(v_se - v_ne, dw, (v_sw - v_nw) * de), go_, accy)
        gg[t * 2] = accx * mx
        gg[t * 2 + 1] = accy * my


@jit
def _input_grad(gout, goo, gos, C, IH, IW, g, go, gs, N, OH, OW, interp, padding, ac, P, K, lanes, flat, gx):
    L = OH * OW
    IL = IH * IW
    rows = 1 if flat else OH
    run = L if flat else OW
    for t in range(cuda.grid(1), N * C, cuda.gridsize(1)):
        n = t // C
        c = t - n * C
        gc = t * IL
        for k in range(IL):
            gx[gc + k] = K[0]
        for r in range(rows):
            for p0 in range(0, run, lanes):
                m = min(lanes, run - p0)
                taps = 16 if interp == BICUBIC else 4 if interp == BILINEAR else 1
                for k in range(taps):
                    for q in range(m):
                        p = r * OW + p0 + q
                        h = p // OW
                        w = p - h * OW
                        gp = go + n * gs[0] + h * gs[1] + w * gs[2]
                        go_ = gout[goo + n * gos[0] + c * gos[1] + h * gos[2] + w * gos[3]]
                        if interp == BICUBIC:
                            i = k // 4
                            j = k - i * 4
                            fx = _unnormalize(g[gp], P, 0, ac, K)
                            fy = _unnormalize(g[gp + gs[3]], P, ROW, ac, K)
                            lx = _floor(fx, K)
                            ly = _floor(fy, K)
                            ty, tx, ok = _tap(lx + _tap_offset(i, K), ly + _tap_offset(j, K), P, padding, ac, IW, IH,
                                              K)
                            if ok:
                                cfx = _pick(_cubic(fx - lx, K), i)
                                gx[gc + ty * IW + tx] += go_ * cfx * _pick(_cubic(fy - ly, K), j)
                        elif interp == BILINEAR:
                            fx = _source(g[gp], P, 0, padding, ac, K)
                            fy = _source(g[gp + gs[3]], P, ROW, padding, ac, K)
                            dn, ds, dw, de, nw, ne, sw, se, iy, ix, m_nw, m_ne, m_sw, m_se = _corners(fx, fy, IW, IH, K)
                            dy = 1 if k >= 2 else 0
                            dx = 1 if k == 1 or k == 3 else 0
                            ok = m_nw if k == 0 else m_ne if k == 1 else m_sw if k == 2 else m_se
                            wt = nw if k == 0 else ne if k == 1 else sw if k == 2 else se
                            if ok:
                                gx[gc + (iy + dy) * IW + ix + dx] += wt * go_
                        else:
                            fx = _source(g[gp], P, 0, padding, ac, K)
                            fy = _source(g[gp + gs[3]], P, ROW, padding, ac, K)
                            iy, ix, ok = _nearest(fx, fy, IW, IH, K)
                            if ok:
                                gx[gc + iy * IW + ix] += go_


@cuda.jit(device=True)
def _pick(four, i):
    if i == 0:
        return four[0]
    if i == 1:
        return four[1]
    if i == 2:
        return four[2]
    return four[3]


def _params(in_hw, align_corners, dtype):
    ih, iw = in_hw
    P = np.array(S.dim_params(iw, align_corners, dtype) + S.dim_params(ih, align_corners, dtype), dtype=dtype)
    return to_device(P), to_device(S.constants(dtype))


def _strides(s):
    return to_device(np.array(s, np.int64))


def grid_sampler_2d(x_view, grid_view, interpolation, padding, align_corners, chain=False):
    xb, xo, (N, C, IH, IW), xs = x_view
    gb, go, (_, OH, OW, _), gs = grid_view
    out = device_array(N * C * OH * OW, xb.dtype)
    if N * C * OH * OW:
        P, K = _params((IH, IW), align_corners, xb.dtype)
        blocks, threads = launch(N * OH * OW)
        _forward[blocks, threads](xb, xo, _strides(xs), C, IH, IW, gb, go, _strides(gs), N, OH, OW, interpolation,
                                  padding, align_corners, P, K, chain, out)
    return out


def grid_sampler_2d_backward(g_view, x_view, grid_view, interpolation, padding, align_corners, want_input, lanes,
                             flat):
    gob, goo, _, gos = g_view
    xb, xo, (N, C, IH, IW), xs = x_view
    gb, go, (_, OH, OW, _), gs = grid_view
    P, K = _params((IH, IW), align_corners, xb.dtype)
    gg = device_array(N * OH * OW * 2, xb.dtype)
    gx = device_array(N * C * IH * IW if want_input else 0, xb.dtype)
    xs_d, gs_d, gos_d = _strides(xs), _strides(gs), _strides(gos)
    if N * OH * OW:
        blocks, threads = launch(N * OH * OW)
        _grid_grad[blocks, threads](gob, goo, gos_d, xb, xo, xs_d, C, IH, IW, gb, go, gs_d, N, OH, OW, interpolation,
                                    padding, align_corners, P, K, gg)
    if want_input and N * C:
        blocks, threads = launch(N * C)
        _input_grad[blocks, threads](gob, goo, gos_d, C, IH, IW, gb, go, gs_d, N, OH, OW, interpolation, padding,
                                     align_corners, P, K, lanes, flat, gx)
    return (gx if want_input else None), gg
