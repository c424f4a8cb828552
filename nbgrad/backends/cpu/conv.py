"""2-D convolution: im2col into a per-sample column matrix kept in cache, then BLAS.

conv2d's forward writes, per sample and group, the (Cg*KH*KW, OH*OW) column
matrix of the input's windows (zero where a window reaches into the padding)
and multiplies the group's (Cog, Cg*KH*KW) weight matrix by it with np.dot
(or, for a weight of at most SMALL_WEIGHT elements, by vectorised loops).  The
backward recomputes the columns for the weight's gradient (g @ col.T, summed
over samples) and scatters w.T @ g back into the input's gradient (col2im).
Stride 1 (the common case) computes on a wide grid, below: each column-matrix
row is one contiguous run.  Measured (benchmarks/compare.py C1, C2): one
sample's column matrix stays in cache (2.4 MB for 64 channels of 32x32 with a
3x3 kernel) where the whole batch's (75 MB) made every product memory-bound;
cutting a sample's matrix into blocks of output rows (to stay in L2) measured
slower (smaller products).  Small samples (a LeNet layer) split the batch
across the pool; large ones leave the threads to BLAS.  Inputs are contiguous
(the op layer makes them so); buffers are 1-D.
"""
import numpy as np
from numba import njit

from ._allocator import new_buffer
from ._threads import num_threads, run_split

_kernel = njit(cache=True, error_model="numpy", nogil=True)

# geometry array: the conv's sizes as one int64 array (read by index in the kernels)
N_, C_, H_, W_, CO_, G_, KH_, KW_, SH_, SW_, PH_, PW_, DH_, DW_, OH_, OW_ = range(16)


@_kernel
def _window_range(k, d, p, s, size, out_size):
    """[o0, o1): the outputs whose input index o*s - p + k*d lies in [0, size)."""
    off = k * d - p
    o0 = 0 if off >= 0 else (-off + s - 1) // s
    last = size - 1 - off
    o1 = 0 if last < 0 else last // s + 1
    o0 = min(o0, out_size)
    o1 = max(min(o1, out_size), o0)
    return off, o0, o1


@_kernel
def _im2col(x, xo, C, geo, col, add_back):
    """col[(c*KH + kh)*KW + kw, oh*OW + ow] = x[c, oh*SH - PH + kh*DH, ow*SW - PW + kw*DW] (0 outside);
    add_back: its adjoint (col2im), x[...] += col[...] for every window element that reads it."""
    H, W, KH, KW = geo[H_], geo[W_], geo[KH_], geo[KW_]
    sh, sw, ph, pw, dh, dw, OH, OW = geo[SH_], geo[SW_], geo[PH_], geo[PW_], geo[DH_], geo[DW_], geo[OH_], geo[OW_]
    flat = col.ravel()
    for c in range(C):
        for kh in range(KH):
            offh, oh0, oh1 = _window_range(kh, dh, ph, sh, H, OH)
            for kw in range(KW):
                offw, ow0, ow1 = _window_range(kw, dw, pw, sw, W, OW)
                base = ((c * KH + kh) * KW + kw) * OH * OW
                if not add_back:        # the windows' parts in the padding
                    for i in range(base, base + oh0 * OW):
                        flat[i] = 0
                    for i in range(base + oh1 * OW, base + OH * OW):
                        flat[i] = 0
                for oh in range(oh0, oh1):
                    r = base + oh * OW
                    src = xo + (c * H + oh * sh + offh) * W + offw
                    if add_back:
                        for ow in range(ow0, ow1):
                            x[src + ow * sw] += flat[r + ow]
                        continue
                    for ow in range(ow0):
                        flat[r + ow] = 0
                    if sw == 1:
                        for ow in range(ow0, ow1):
                            flat[r + ow] = x[src + ow]
                    else:
                        for ow in range(ow0, ow1):
                            flat[r + ow] = x[src + ow * sw]
                    for ow in range(ow1, OW):
                        flat[r + ow] = 0


# A group's weight matrix of at most this many elements is multiplied by loops, not BLAS,
# straight into the output rows (no wide grid: its crop pass cost as much as the product):
# a LeNet layer's (16, 9) times (9, 144) is ~5 us through BLAS's call and ~1.7 us here.
SMALL_WEIGHT = 256


@_kernel
def _small_product(wg, col, o, b, bo, has_bias):
    """o = wg @ col (+ b[bo + row]) by loops over contiguous rows (vectorised over o's columns)."""
    cog, k = wg.shape
    L = col.shape[1]
    for co in range(cog):
        orow = o[co]
        orow[:] = b[bo + co] if has_bias else 0
        for kk in range(k):
            wv = wg[co, kk]
            crow = col[kk]
            for p in range(L):
                orow[p] += wv * crow[p]


@_kernel
def _group_sizes(geo):
    """Per group: input and output channels, a column's length (cg * KH * KW), the input
    plane's size and the output plane's (the im2col columns)."""
    cg, cog = geo[C_] // geo[G_], geo[CO_] // geo[G_]
    return cg, cog, cg * geo[KH_] * geo[KW_], geo[H_] * geo[W_], geo[OH_] * geo[OW_]


@_kernel
def _conv_forward(x, xo, w, wo, b, bo, has_bias, out, n0, n1, geo, col):
    C, CO, G = geo[C_], geo[CO_], geo[G_]
    cg, cog, k, hw, L = _group_sizes(geo)
    for n in range(n0, n1):
        for g in range(G):
            _im2col(x, xo + (n * C + g * cg) * hw, cg, geo, col, False)
            wg = w[wo + g * cog * k:wo + (g + 1) * cog * k].reshape((cog, k))
            o = out[(n * CO + g * cog) * L:(n * CO + (g + 1) * cog) * L].reshape((cog, L))
            if cog * k <= SMALL_WEIGHT:
                _small_product(wg, col, o, b, bo + g * cog, has_bias)
                continue
            np.dot(wg, col, o)
            if has_bias:
                for co in range(cog):
                    bv = b[bo + g * cog + co]
                    for p in range(L):
                        o[co, p] += bv


@_kernel
def _add_weight_grad(g, col, tmp, gw):
    """gw (a group's flat weight gradient) += g @ col.T (one sample's share)."""
    np.dot(g, col.T, tmp)
    t = tmp.ravel()
    for i in range(gw.size):
        gw[i] += t[i]


@_kernel
def _conv_backward(gy, gyo, x, xo, w, wo, gx, gw, need_x, need_w, n0, n1, geo, col, tmp):
    """gx (zeroed, whole) gets the samples [n0, n1); gw (zeroed, this piece's own) their sum."""
    C, CO, G = geo[C_], geo[CO_], geo[G_]
    cg, cog, k, hw, L = _group_sizes(geo)
    for n in range(n0, n1):
        for g in range(G):
            go = gy[gyo + (n * CO + g * cog) * L:gyo + (n * CO + (g + 1) * cog) * L].reshape((cog, L))
            if need_w:
                _im2col(x, xo + (n * C + g * cg) * hw, cg, geo, col, False)
                _add_weight_grad(go, col, tmp, gw[g * cog * k:(g + 1) * cog * k])
            if need_x:
                np.dot(w[wo + g * cog * k:wo + (g + 1) * cog * k].reshape((cog, k)).T, go, col)
                _im2col(gx, (n * C + g * cg) * hw, cg, geo, col, True)


# --------------------------------------------------------------------------- stride 1: a wide grid
# With stride 1 the output is computed on the zero-padded input's full width Wp (OH x Wp
# positions, of which the last (KW-1)*DW of each row are discarded): then every column-matrix
# row is ONE contiguous run of the padded planes (OH*Wp elements from offset kh*DH*Wp +
# kw*DW), a memcpy instead of OH short runs with zero fills, and col2im is one long add per
# row.  Reads of the discarded columns run past a plane into the next one (or into a tail of
# (KW-1)*DW zeros after the last): they only ever meet zero gradients or discarded outputs.

@_kernel
def _pad_planes(x, xo, C, geo, xp):
    """xp (flat) = the C planes of x from xo, zero-padded by (PH, PW), then a zero tail."""
    H, W, ph, pw = geo[H_], geo[W_], geo[PH_], geo[PW_]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    for c in range(C):
        base = c * Hp * Wp
        for i in range(base, base + ph * Wp):
            xp[i] = 0
        for h in range(H):
            r = base + (h + ph) * Wp
            src = xo + (c * H + h) * W
            for j in range(pw):
                xp[r + j] = 0
            for j in range(W):
                xp[r + pw + j] = x[src + j]
            for j in range(pw + W, Wp):
                xp[r + j] = 0
        for i in range(base + (ph + H) * Wp, base + Hp * Wp):
            xp[i] = 0
    for i in range(C * Hp * Wp, xp.size):
        xp[i] = 0


@_kernel
def _wide_columns(xp, C, geo, col, add_back):
    """col[(c*KH + kh)*KW + kw, :] = the run of xp at c's plane + kh*DH*Wp + kw*DW (or, with
    add_back, the run += that row: col2im on the wide grid)."""
    KH, KW, dh, dw = geo[KH_], geo[KW_], geo[DH_], geo[DW_]
    Hp, Wp = geo[H_] + 2 * geo[PH_], geo[W_] + 2 * geo[PW_]
    L = geo[OH_] * Wp
    flat = col.ravel()
    for c in range(C):
        for kh in range(KH):
            for kw in range(KW):
                r = ((c * KH + kh) * KW + kw) * L
                src = c * Hp * Wp + kh * dh * Wp + kw * dw
                if add_back:
                    for i in range(L):
                        xp[src + i] += flat[r + i]
                else:
                    for i in range(L):
                        flat[r + i] = xp[src + i]


@_kernel
def _conv_forward_wide(x, xo, w, wo, b, bo, has_bias, out, n0, n1, geo, xp, col, tmp):
    C, CO, G = geo[C_], geo[CO_], geo[G_]
    cg, cog = C // G, CO // G
    k = cg * geo[KH_] * geo[KW_]
    hw = geo[H_] * geo[W_]
    OH, OW = geo[OH_], geo[OW_]
    Wp = geo[W_] + 2 * geo[PW_]
    L = OH * OW
    for n in range(n0, n1):
        for g in range(G):
            _pad_planes(x, xo + (n * C + g * cg) * hw, cg, geo, xp)
            _wide_columns(xp, cg, geo, col, False)
            wg = w[wo + g * cog * k:wo + (g + 1) * cog * k].reshape((cog, k))
            np.dot(wg, col, tmp)
            for co in range(cog):
                o = (n * CO + g * cog + co) * L
                row = tmp[co]
                if has_bias:
                    bv = b[bo + g * cog + co]
                    for oh in range(OH):
                        for ow in range(OW):
                            out[o + oh * OW + ow] = row[oh * Wp + ow] + bv
                else:
                    for oh in range(OH):
                        for ow in range(OW):
                            out[o + oh * OW + ow] = row[oh * Wp + ow]


@_kernel
def _conv_backward_wide(gy, gyo, x, xo, w, wo, gx, gw, need_x, need_w, n0, n1, geo, xp, col, gwide, tmp):
    C, CO, G = geo[C_], geo[CO_], geo[G_]
    cg, cog = C // G, CO // G
    k = cg * geo[KH_] * geo[KW_]
    H, W, ph, pw = geo[H_], geo[W_], geo[PH_], geo[PW_]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    OH, OW = geo[OH_], geo[OW_]
    L = OH * OW
    gflat = gwide.ravel()
    for n in range(n0, n1):
        for g in range(G):
            # the gradient on the wide grid: zeros in the discarded columns
            for co in range(cog):
                src = gyo + (n * CO + g * cog + co) * L
                dst = co * OH * Wp
                for oh in range(OH):
                    for ow in range(OW):
                        gflat[dst + oh * Wp + ow] = gy[src + oh * OW + ow]
                    for ow in range(OW, Wp):
                        gflat[dst + oh * Wp + ow] = 0
            if need_w:
                _pad_planes(x, xo + (n * C + g * cg) * H * W, cg, geo, xp)
                _wide_columns(xp, cg, geo, col, False)
                _add_weight_grad(gwide, col, tmp, gw[g * cog * k:(g + 1) * cog * k])
            if need_x:
                np.dot(w[wo + g * cog * k:wo + (g + 1) * cog * k].reshape((cog, k)).T, gwide, col)
                xp[:] = 0
                _wide_columns(xp, cg, geo, col, True)
                for c in range(cg):
                    dst = (n * C + g * cg + c) * H * W
                    for h in range(H):
                        src = c * Hp * Wp + (h + ph) * Wp + pw
                        for j in range(W):
                            gx[dst + h * W + j] = xp[src + j]


@_kernel
def _channel_sums(gy, gyo, N, CO, L, out):
    for co in range(CO):
        out[co] = 0
    for n in range(N):
        for co in range(CO):
            s = 0.0
            p = gyo + (n * CO + co) * L
            for i in range(L):
                s += gy[p + i]
            out[co] += s


# Below this many multiply-adds per sample BLAS does not thread a sample's product:
# the batch is split across the pool instead (case A, 1 -> 16 channels of 12x12: 21K).
SPLIT_BELOW_MACS_PER_SAMPLE = 1 << 20


def _geometry(x_shape, w_shape, stride, padding, dilation, groups, out_hw):
    n, c, h, w = x_shape
    co, _, kh, kw = w_shape
    return np.array([n, c, h, w, co, groups, kh, kw, stride[0], stride[1], padding[0], padding[1],
                     dilation[0], dilation[1], out_hw[0], out_hw[1]], dtype=np.int64)


def _pieces(geo):
    """Sample ranges to run at once: the whole batch, or a split across the pool for small samples."""
    n = int(geo[N_])
    macs = int(geo[CO_]) * (int(geo[C_]) // int(geo[G_])) * int(geo[KH_] * geo[KW_] * geo[OH_] * geo[OW_])
    if n < 2 or num_threads() < 2 or macs >= SPLIT_BELOW_MACS_PER_SAMPLE:
        return None
    return n


def _col_buffer(geo, dtype):
    k = int(geo[C_] // geo[G_] * geo[KH_] * geo[KW_])
    return np.empty((k, int(geo[OH_] * geo[OW_])), dtype=dtype)


def _wide_buffers(geo, dtype):
    """(padded planes with their zero tail, wide column matrix) of one group of one sample."""
    cg = int(geo[C_] // geo[G_])
    hp, wp = int(geo[H_] + 2 * geo[PH_]), int(geo[W_] + 2 * geo[PW_])
    k = cg * int(geo[KH_] * geo[KW_])
    tail = int((geo[KW_] - 1) * geo[DW_])
    return np.empty(cg * hp * wp + tail, dtype), np.empty((k, int(geo[OH_]) * wp), dtype)


def conv2d_forward(x_view, w_view, b_view, stride, padding, dilation, groups, out_hw):
    """out (N, Co, OH, OW) of contiguous x (N, C, H, W), w (Co, C/groups, KH, KW), b (Co,) or None."""
    xb, xo, xs, _ = x_view
    wb, wo, ws, _ = w_view
    geo = _geometry(xs, ws, stride, padding, dilation, groups, out_hw)
    out = new_buffer(int(geo[N_] * geo[CO_] * geo[OH_] * geo[OW_]), xb.dtype)
    if out.size == 0:
        return out
    if xs[1] == 0 or ws[2] * ws[3] == 0:           # empty windows: the bias alone
        out.reshape((xs[0], ws[0], -1))[:] = 0 if b_view is None else _bias(b_view)[None, :, None]
        return out
    bb, bo = (b_view[0], b_view[1]) if b_view is not None else (wb, 0)
    has_bias = b_view is not None
    # stride 1 on the wide grid, but a small weight's loops write the output rows directly
    wide = tuple(stride) == (1, 1) and ws[0] // groups * ws[1] * ws[2] * ws[3] > SMALL_WEIGHT

    def piece(n0, n1):
        if wide:
            xp, col = _wide_buffers(geo, xb.dtype)
            tmp = np.empty((ws[0] // groups, col.shape[1]), xb.dtype)
            _conv_forward_wide(xb, xo, wb, wo, bb, bo, has_bias, out, n0, n1, geo, xp, col, tmp)
        else:
            _conv_forward(xb, xo, wb, wo, bb, bo, has_bias, out, n0, n1, geo, _col_buffer(geo, xb.dtype))
    n = _pieces(geo)
    if n is None:
        piece(0, int(geo[N_]))
    else:
        run_split(piece, n, align=1)
    return out


def _bias(b_view):
    return b_view[0][b_view[1]:b_view[1] + b_view[2][0]]


def conv2d_backward(g_view, x_view, w_view, stride, padding, dilation, groups, need_x, need_w, need_b):
    """(gx, gw, gb) buffers (None where not needed) of conv2d_forward's inputs, from the
    contiguous gradient g (N, Co, OH, OW)."""
    gb_, go, gs, _ = g_view
    xb, xo, xs, _ = x_view
    wb, wo, ws, _ = w_view
    geo = _geometry(xs, ws, stride, padding, dilation, groups, gs[2:])
    dtype = gb_.dtype
    gx = np.zeros(int(np.prod(xs)), dtype) if need_x else None
    gw = np.zeros(int(np.prod(ws)), dtype) if need_w else None
    gb = None
    if need_b:
        gb = np.empty(ws[0], dtype)
        _channel_sums(gb_, go, int(gs[0]), int(gs[1]), int(gs[2] * gs[3]), gb)
    if gs[0] * gs[1] * gs[2] * gs[3] == 0 or not (need_x or need_w) or ws[1] * ws[2] * ws[3] == 0:
        return gx, gw, gb
    k = ws[1] * ws[2] * ws[3]
    none = np.empty(0, dtype)
    extra_gw = []           # the weight gradients of the pieces after the first, summed at the end

    def piece(n0, n1):
        own = gw if need_w else none
        if need_w and n0:
            own = np.zeros_like(gw)
            extra_gw.append(own)
        tmp = np.empty((ws[0] // groups, k), dtype)
        if tuple(stride) == (1, 1) and ws[0] // groups * k > SMALL_WEIGHT:   # (as the forward)
            xp, col = _wide_buffers(geo, dtype)
            gwide = np.empty((ws[0] // groups, col.shape[1]), dtype)
            _conv_backward_wide(gb_, go, xb, xo, wb, wo, gx if need_x else none, own, need_x, need_w, n0, n1, geo,
                                xp, col, gwide, tmp)
        else:
            _conv_backward(gb_, go, xb, xo, wb, wo, gx if need_x else none, own, need_x, need_w,
                           n0, n1, geo, _col_buffer(geo, dtype), tmp)
    n = _pieces(geo)
    if n is None:
        piece(0, int(geo[N_]))
    else:
        run_split(piece, n, align=1)
    for extra in extra_gw:
        gw += extra
    return gx, gw, gb
