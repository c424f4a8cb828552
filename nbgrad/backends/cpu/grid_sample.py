"""grid_sample on a 4-D input (bilinear, nearest, bicubic; zeros, border, reflection padding)
and its backward, as PyTorch's CPU kernel computes them (the scalar steps, lane by lane, are
backends/_shared/grid_sample.py).

The input, the grid and the incoming gradient are read through their strides; the results
are contiguous: out (N, C, OH, OW), the input's gradient (N, C, IH, IW), the grid's
(N, OH, OW, 2). Each output position reads its grid pair once and loops over the channels.
The backward walks the positions in PyTorch's vectors of `lanes` positions (its Vectorized
width for the dtype; over the flattened OH * OW when the grid's (OH, OW) is contiguous, else
row by row) and, within a vector, adds to the input's gradient channel by channel, corner
by corner (bicubic: tap by tap), lane by lane: PyTorch's order, so that the sums are its
bits. Large batches split their samples across the thread pool.
"""
import numpy as np

from .._shared import cpu_kernel
from .._shared.grid_sample import (BICUBIC, BILINEAR, NEAREST, ROW, constants, corner_values, corners, cubic,
                                   cubic_grad, dim_params, floor, fma, nearest, sample_position, source, source_grad,
                                   tap, tap_offset, unnormalize)
from ._allocator import new_buffer
from ._threads import run_split, worth_splitting

_kernel = cpu_kernel(nogil=True)      # (the scalar steps are shared with CUDA: the cache rule)


@_kernel
def _forward(x, xo, xs, C, IH, IW, g, go, gs, n0, n1, OH, OW, interp, padding, ac, P, K, chain, out):
    L = OH * OW
    for n in range(n0, n1):
        for p in range(L):
            h = p // OW
            gp = go + n * gs[0] + h * gs[1] + (p - h * OW) * gs[2]
            sample_position(x, xo + n * xs[0], xs, C, IH, IW, g, gp, gs, interp, padding, ac, P, K, chain, out,
                            n * C * L + p, L)


@_kernel
def _backward(gout, goo, gos, x, xo, xs, C, IH, IW, g, go, gs, n0, n1, OH, OW, interp, padding, ac, P, K,
              lanes, flat, want_input, gx, gg):
    L = OH * OW
    IL = IH * IW
    # one vector's per-lane values
    lx = np.empty(lanes, x.dtype)
    ly = np.empty(lanes, x.dtype)
    mx = np.empty(lanes, x.dtype)
    my = np.empty(lanes, x.dtype)
    wts = np.empty((4, lanes), x.dtype)
    dist = np.empty((4, lanes), x.dtype)
    cfx = np.empty((4, lanes), x.dtype)
    cfy = np.empty((4, lanes), x.dtype)
    cgx = np.empty((4, lanes), x.dtype)
    cgy = np.empty((4, lanes), x.dtype)
    pos = np.empty((4, lanes), np.int64)     # input offsets (iy, ix) of the north-west corner / nearest
    okm = np.empty((4, lanes), np.bool_)
    accx = np.empty(lanes, x.dtype)
    accy = np.empty(lanes, x.dtype)
    pidx = np.empty(lanes, np.int64)
    rows = 1 if flat else OH
    run = L if flat else OW
    for n in range(n0, n1):
        xb = xo + n * xs[0]
        gxb = n * C * IL
        for r in range(rows):
            for p0 in range(0, run, lanes):
                m = min(lanes, run - p0)
                for q in range(m):
                    p = r * OW + p0 + q
                    pidx[q] = p
                    h = p // OW
                    w = p - h * OW
                    gp = go + n * gs[0] + h * gs[1] + w * gs[2]
                    accx[q] = K[0]
                    accy[q] = K[0]
                    if interp == BICUBIC:
                        fx = unnormalize(g[gp], P, 0, ac, K)
                        fy = unnormalize(g[gp + gs[3]], P, ROW, ac, K)
                        ix = floor(fx, K)
                        iy = floor(fy, K)
                        lx[q] = ix
                        ly[q] = iy
                        mx[q] = P[0]            # the scaling factors: PyTorch's bicubic ignores the padding's
                        my[q] = P[ROW]
                        cfx[0, q], cfx[1, q], cfx[2, q], cfx[3, q] = cubic(fx - ix, K)
                        cfy[0, q], cfy[1, q], cfy[2, q], cfy[3, q] = cubic(fy - iy, K)
                        cgx[0, q], cgx[1, q], cgx[2, q], cgx[3, q] = cubic_grad(fx - ix, K)
                        cgy[0, q], cgy[1, q], cgy[2, q], cgy[3, q] = cubic_grad(fy - iy, K)
                    elif interp == BILINEAR:
                        fx, mx[q] = source_grad(g[gp], P, 0, padding, ac, K)
                        fy, my[q] = source_grad(g[gp + gs[3]], P, ROW, padding, ac, K)
                        (dist[0, q], dist[1, q], dist[2, q], dist[3, q], wts[0, q], wts[1, q], wts[2, q], wts[3, q],
                         iy, ix, okm[0, q], okm[1, q], okm[2, q], okm[3, q]) = corners(fx, fy, IW, IH, K)
                        pos[0, q] = iy
                        pos[1, q] = ix
                    else:
                        fx = source(g[gp], P, 0, padding, ac, K)
                        fy = source(g[gp + gs[3]], P, ROW, padding, ac, K)
                        iy, ix, ok = nearest(fx, fy, IW, IH, K)
                        pos[0, q] = iy
                        pos[1, q] = ix
                        okm[0, q] = ok
                for c in range(C):
                    xc = xb + c * xs[1]
                    gc = gxb + c * IL
                    ob = goo + n * gos[0] + c * gos[1]
                    if interp == BILINEAR:
                        if want_input:
                            for k in range(4):
                                dy = 1 if k >= 2 else 0
                                dx = 1 if k == 1 or k == 3 else 0
                                for q in range(m):
                                    if okm[k, q]:
                                        p = pidx[q]
                                        h = p // OW
                                        go_ = gout[ob + h * gos[2] + (p - h * OW) * gos[3]]
                                        gx[gc + (pos[0, q] + dy) * IW + pos[1, q] + dx] += wts[k, q] * go_
                        for q in range(m):
                            p = pidx[q]
                            h = p // OW
                            go_ = gout[ob + h * gos[2] + (p - h * OW) * gos[3]]
                            v_nw, v_ne, v_sw, v_se = corner_values(x, xc + pos[0, q] * xs[2] + pos[1, q] * xs[3], xs,
                                                                   okm[0, q], okm[1, q], okm[2, q], okm[3, q], K)
                            dn, ds, dw, de = dist[0, q], dist[1, q], dist[2, q], dist[3, q]
                            accx[q] = fma(fma(v_se - v_sw, dn, (v_ne - v_nw) * ds), go_, accx[q])
                            accy[q] = fma(fma(v_se - v_ne, dw, (v_sw - v_nw) * de), go_, accy[q])
                    elif interp == BICUBIC:
                        for i in range(4):
                            for j in range(4):
                                for q in range(m):
                                    p = pidx[q]
                                    h = p // OW
                                    go_ = gout[ob + h * gos[2] + (p - h * OW) * gos[3]]
                                    xx = lx[q] + tap_offset(i, K)
                                    yy = ly[q] + tap_offset(j, K)
                                    ty, tx, ok = tap(xx, yy, P, padding, ac, IW, IH, K)
                                    if want_input and ok:
                                        gx[gc + ty * IW + tx] += go_ * cfx[i, q] * cfy[j, q]
                                    v = x[xc + ty * xs[2] + tx * xs[3]] if ok else K[0]
                                    accx[q] = fma(-(v * go_ * cgx[i, q]), cfy[j, q], accx[q])
                                    accy[q] = fma(-(v * go_ * cgy[j, q]), cfx[i, q], accy[q])
                    elif want_input:
                        for q in range(m):
                            if okm[0, q]:
                                p = pidx[q]
                                h = p // OW
                                gx[gc + pos[0, q] * IW + pos[1, q]] += gout[ob + h * gos[2] + (p - h * OW) * gos[3]]
                for q in range(m):
                    k = (n * L + pidx[q]) * 2
                    if interp == NEAREST:               # nearest: the grid's gradient is zero
                        gg[k] = K[0]
                        gg[k + 1] = K[0]
                    else:
                        gg[k] = accx[q] * mx[q]
                        gg[k + 1] = accy[q] * my[q]


def _params(in_hw, align_corners, dtype):
    """P: the rows of x (width) and y (height); K: the dtype's constants."""
    ih, iw = in_hw
    return (np.array(dim_params(iw, align_corners, dtype) + dim_params(ih, align_corners, dtype), dtype=dtype),
            constants(dtype))


def _over(fn, n, work):
    if worth_splitting(work) and n > 1:
        run_split(fn, n, align=1)
    elif n:
        fn(0, n)


def grid_sampler_2d(x_view, grid_view, interpolation, padding, align_corners, chain=False):
    """(N, C, OH, OW) buffer: x (N, C, IH, IW) sampled at grid (N, OH, OW, 2), both any strides;
    chain: bicubic's rows summed as one chain of fused products (see _forward)."""
    xb, xo, (N, C, IH, IW), xs = x_view
    gb, go, (_, OH, OW, _), gs = grid_view
    P, K = _params((IH, IW), align_corners, xb.dtype)
    out = new_buffer(N * C * OH * OW, xb.dtype)
    xs, gs = np.array(xs, np.int64), np.array(gs, np.int64)
    if out.size:
        _over(lambda n0, n1: _forward(xb, xo, xs, C, IH, IW, gb, go, gs, n0, n1, OH, OW, interpolation, padding,
                                      align_corners, P, K, chain, out), N, out.size * (16 if interpolation == 2 else 4))
    return out


def grid_sampler_2d_backward(g_view, x_view, grid_view, interpolation, padding, align_corners, want_input, lanes,
                             flat):
    """(grad_input (N, C, IH, IW) buffer or None, grad_grid (N, OH, OW, 2) buffer): the
    gradients for g (N, C, OH, OW); `lanes` and `flat` give PyTorch's vectors (see above)."""
    gob, goo, _, gos = g_view
    xb, xo, (N, C, IH, IW), xs = x_view
    gb, go, (_, OH, OW, _), gs = grid_view
    P, K = _params((IH, IW), align_corners, xb.dtype)
    gx = np.zeros(N * C * IH * IW if want_input else 0, xb.dtype)
    gg = np.empty(N * OH * OW * 2, xb.dtype)
    xs, gs, gos = np.array(xs, np.int64), np.array(gs, np.int64), np.array(gos, np.int64)
    if N * OH * OW:
        _over(lambda n0, n1: _backward(gob, goo, gos, xb, xo, xs, C, IH, IW, gb, go, gs, n0, n1, OH, OW,
                                       interpolation, padding, align_corners, P, K, lanes, flat, want_input, gx, gg),
              N, N * C * OH * OW * (16 if interpolation == 2 else 4))
    return (gx if want_input else None), gg
