"""2-D convolution: stride 1 as shifted BLAS products over the padded planes, other strides
as im2col per sample, then BLAS.

Stride 1 with a small weight (a LeNet layer; ROWS_WEIGHT) runs the forward as loops over
whole output planes ("shifted rows" below).  Stride 1 otherwise (see "stride 1: shifted
products" below) copies the input once
into zero-padded planes and runs KH*KW products per chunk of samples that read the planes
in place at an offset, through the BLAS symbols bound below (NumPy's bundled OpenBLAS, else
SciPy's); the batch's chunks are handed out to the pool's threads while BLAS runs
single-threaded.  Measured (benchmarks/compare.py C2, C2b: 32 x 64 -> 64 channels of 32x32,
3x3): the earlier per-sample im2col (9 copies, then np.dot) spent as long copying as
multiplying, and OpenBLAS's own threads collapsed when other processes shared the 2 cores
(4.4x and 2.5x PyTorch's time; now about 1x).
Other strides: the forward writes, per sample and group, the (Cg*KH*KW, OH*OW) column
matrix of the input's windows (zero where a window reaches into the padding) and
multiplies the group's (Cog, Cg*KH*KW) weight matrix by it with np.dot (or, for a weight
of at most SMALL_WEIGHT elements, by vectorised loops; so does stride 1's backward).  The
backward recomputes the columns for the weight's gradient (g @ col.T, summed over samples)
and scatters w.T @ g back into the input's gradient (col2im).  One sample's column matrix
stays in cache where the whole batch's made every product memory-bound.  Small samples (a
LeNet layer) split the batch across the pool; large ones leave the threads to BLAS.
Inputs are contiguous (the op layer makes them so); buffers are 1-D.
"""
import contextlib
import ctypes
import threading

import llvmlite.binding as llvm_binding
import numpy as np
from numba import config, njit, types
from numba.extending import get_cython_function_address

from ._allocator import new_buffer
from ._blas_threads import controls as blas_controls
from ._threads import num_threads, run_dynamic, run_split

_kernel = njit(cache=True, error_model="numpy", nogil=True)

# geometry array: the conv's sizes as one int64 array (read by index in the kernels)
# and BLAS_: 1 where the BLAS the shifted products call takes 64-bit integers
N_, C_, H_, W_, CO_, G_, KH_, KW_, SH_, SW_, PH_, PW_, DH_, DW_, OH_, OW_, BLAS_ = range(17)


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


# --------------------------------------------------------------------------- stride 1, small weight: shifted rows
# A small weight (at most ROWS_WEIGHT elements a group: a LeNet layer's 16 x 1 x 3 x 3) at
# stride 1 skips the column matrix.  Each input channel is copied into KW shifted copies of
# its zero-padded rows, laid out with the OUTPUT's row length OW: copy kw holds, at
# r*OW + ow, the padded input at row r, column ow + kw*DW.  Then kernel offset (kh, kw)'s
# input for the whole output plane is copy kw from kh*DH*OW on: one contiguous run as long
# as the plane, so each output plane is a sum of whole-plane products (no short rows, no
# wide grid to crop), three kernel columns a pass (the plane is read and written once per
# three products; more arrays a loop and LLVM stops vectorising it: its run-time alias
# checks).  Indices are a range's own variable on sliced views, so no wraparound check
# stops the vectoriser either.  Measured (C1's forward, 64 samples of 1 -> 16 channels
# of 12x12, one thread, on a loaded 2-core machine): im2col + loops 217 us, these 100-150.

@_kernel
def _shifted_rows(x, xo, geo, xs):
    """xs[kw, r*OW + ow] = the padded input's row r (of H + 2*PH), column ow + kw*DW, for
    one channel's plane at x[xo:]."""
    H, W, ph, pw, KW, dw, OW = geo[H_], geo[W_], geo[PH_], geo[PW_], geo[KW_], geo[DW_], geo[OW_]
    for kw in range(KW):
        dst = xs[kw]
        dst[:ph * OW] = 0
        dst[(ph + H) * OW:(H + 2 * ph) * OW] = 0
        shift = kw * dw - pw                 # output column ow reads input column ow + shift
        if OW == W:                          # one flat copy, then zero the columns that wrapped
            body = dst[ph * OW:(ph + H) * OW]
            if abs(shift) >= W:              # every column reads the padding
                body[:] = 0
                continue
            n = H * W - abs(shift)
            if shift >= 0:
                src, run = x[xo + shift:xo + shift + n], body[:n]
                body[n:] = 0
                lo, hi = W - shift, W
            else:
                src, run = x[xo:xo + n], body[-shift:]
                body[:-shift] = 0
                lo, hi = 0, -shift
            for j in range(n):
                run[j] = src[j]
            for h in range(H):
                for j in range(lo, hi):
                    body[h * W + j] = 0
            continue
        lo = min(max(-shift, 0), OW)         # the output columns that read inside the input
        hi = max(min(W - shift, OW), lo)
        for h in range(H):
            row = dst[(h + ph) * OW:(h + ph + 1) * OW]
            src = x[xo + h * W + shift + lo:xo + h * W + shift + hi]
            row[:lo] = 0
            inner = row[lo:hi]
            for j in range(hi - lo):
                inner[j] = src[j]
            row[hi:] = 0


@njit(cache=True, error_model="numpy", nogil=True, fastmath={"contract"})     # (FMA: three products a pass)
def _conv_forward_rows(x, xo, w, wo, b, bo, has_bias, out, n0, n1, geo, xs):
    """out's samples [n0, n1) at stride 1; xs: (Cg, KW, (H + 2*PH) * OW) scratch."""
    C, CO, G, KH, KW, dh = geo[C_], geo[CO_], geo[G_], geo[KH_], geo[KW_], geo[DH_]
    cg, cog, k, hw, L = _group_sizes(geo)
    OW = geo[OW_]
    for n in range(n0, n1):
        for g in range(G):
            for c in range(cg):
                _shifted_rows(x, xo + (n * C + g * cg + c) * hw, geo, xs[c])
            for j in range(cog):
                co = g * cog + j
                o = out[(n * CO + co) * L:(n * CO + co + 1) * L]
                o[:] = b[bo + co] if has_bias else 0
                for c in range(cg):
                    xc = xs[c]
                    for kh in range(KH):
                        wb = wo + ((co * cg + c) * KH + kh) * KW
                        q = kh * dh * OW
                        if KW == 3:     # (the common case: constant rows of xc, 15% faster)
                            w0, w1, w2 = w[wb], w[wb + 1], w[wb + 2]
                            a0, a1, a2 = xc[0, q:q + L], xc[1, q:q + L], xc[2, q:q + L]
                            for p in range(L):
                                o[p] += w0 * a0[p] + w1 * a1[p] + w2 * a2[p]
                            continue
                        rest = KW % 3   # (a for loop: a while loop here cost 1.5x)
                        for kw in range(0, KW - rest, 3):
                            w0, w1, w2 = w[wb + kw], w[wb + kw + 1], w[wb + kw + 2]
                            a0, a1, a2 = xc[kw, q:q + L], xc[kw + 1, q:q + L], xc[kw + 2, q:q + L]
                            for p in range(L):
                                o[p] += w0 * a0[p] + w1 * a1[p] + w2 * a2[p]
                        kw = KW - rest
                        if rest == 2:
                            w0, w1 = w[wb + kw], w[wb + kw + 1]
                            a0, a1 = xc[kw, q:q + L], xc[kw + 1, q:q + L]
                            for p in range(L):
                                o[p] += w0 * a0[p] + w1 * a1[p]
                        elif rest == 1:
                            w0 = w[wb + kw]
                            a0 = xc[kw, q:q + L]
                            for p in range(L):
                                o[p] += w0 * a0[p]


# --------------------------------------------------------------------------- stride 1: shifted products
# With stride 1 the output is computed on a wide grid: the zero-padded planes' full width Wp
# (of each output row the last (KW-1)*DW columns are discarded), so that the input run that
# kernel offset (kh, kw) reads for an output run is the padded plane's run shifted by
# kh*DH*Wp + kw*DW: one contiguous run.  So no column matrix is made: the padded planes (a
# chunk of nb samples' planes back to back in each channel's row) are, at offset
# kh*DH*Wp + kw*DW, the (Cg, columns) matrix of that kernel offset -- a strided view BLAS reads
# in place (ldb = the row length) -- and the wide output is the sum over (kh, kw) of the
# weight's (Cog, Cg) slice times it (beta = 1 after the first).  The backward is the same
# products transposed: the weight gradient's (kh, kw) slice += wide gradient @ view.T, the
# planes' gradient at that offset += slice.T @ wide gradient, then cropped into the input's
# gradient.  The wide gradient is zero in the discarded columns, so what the planes hold
# there never reaches a result.  Measured (C2's forward, 32 samples of 64 -> 64 channels of
# 32x32, one thread, CPU time): im2col 22 ms + K = 576 products 30 ms before; three K = 192
# products over a stack of KW shifted copies of the planes took the same 28.8 ms as these nine
# K = 64 ones (28.4) with NumPy's OpenBLAS, and cost a 6.7 ms copy: the whole forward is now
# 35 ms.  One sample a chunk (PLANES_ELEMENTS) wastes the fewest wide-grid columns.

_P = types.voidptr
_sgemm = types.ExternalFunction("nbgrad_conv_sgemm", types.void(*(_P,) * 13))
_dgemm = types.ExternalFunction("nbgrad_conv_dgemm", types.void(*(_P,) * 13))


def _find_blas():
    """(sgemm, dgemm, 64-bit ints?, role) of the BLAS the kernels call: NumPy's bundled
    OpenBLAS where its wheel exports it (scipy-openblas64, ILP64; _blas_threads' "numpy"),
    else SciPy's (the library Numba's own np.dot calls, "numba").  Measured (C2's products,
    one thread): NumPy's OpenBLAS 0.3.31 took 0.80x the time of SciPy's 0.3.30."""
    try:
        import numpy._core._multiarray_umath as umath
        lib = ctypes.CDLL(umath.__file__)           # dlsym searches the libraries it links
        return (ctypes.cast(lib.scipy_sgemm_64_, ctypes.c_void_p).value,
                ctypes.cast(lib.scipy_dgemm_64_, ctypes.c_void_p).value, True, "numpy")
    except (OSError, AttributeError, ImportError):
        pass
    return tuple(get_cython_function_address("scipy.linalg.cython_blas", f) for f in ("sgemm", "dgemm")) + (
        False, "numba")


@_kernel
def _gemm_blas(ta, tb, M, N, K, a, ao, lda, b, bo, ldb, beta, c, co, ldc, ilp64):
    """Row-major c[co:] (M x N, row stride ldc) = op(a) @ op(b) + beta * c, where a's matrix
    starts at ao with row stride lda (op(a) = a, M x K, or with ta a.T, a being K x M), b's
    likewise.  Fortran BLAS sees row-major matrices transposed: it computes c.T = op(b).T op(a).T.
    ilp64: the BLAS takes 64-bit integers (geo[BLAS_])."""
    isz = c.itemsize
    iw = 8 if ilp64 else 4
    ints = np.empty(6, np.int64)
    ints32 = ints[:3].view(np.int32)
    if ilp64:
        ints[0], ints[1], ints[2], ints[3], ints[4], ints[5] = N, M, K, ldb, lda, ldc
    else:
        ints32[0], ints32[1], ints32[2], ints32[3], ints32[4], ints32[5] = N, M, K, ldb, lda, ldc
    scal = np.empty(2, c.dtype)
    scal[0], scal[1] = 1, beta
    flags = np.empty(2, np.uint8)
    flags[0] = 84 if tb else 78         # 'T' / 'N'
    flags[1] = 84 if ta else 78
    ip, sp, fp = ints.ctypes.data, scal.ctypes.data, flags.ctypes.data
    args = (fp, fp + 1, ip, ip + iw, ip + 2 * iw, sp, b.ctypes.data + bo * isz, ip + 3 * iw,
            a.ctypes.data + ao * isz, ip + 4 * iw, sp + isz, c.ctypes.data + co * isz, ip + 5 * iw)
    if isz == 4:
        _sgemm(*args)
    else:
        _dgemm(*args)


def _gemm_numpy(ta, tb, M, N, K, a, ao, lda, b, bo, ldb, beta, c, co, ldc, ilp64):
    """_gemm_blas under NUMBA_DISABLE_JIT (no external symbols in Python): strided views."""
    def view(buf, off, rows, cols, ld):
        return np.lib.stride_tricks.as_strided(buf[off:], (rows, cols), (ld * buf.itemsize, buf.itemsize))
    A = view(a, ao, K, M, lda).T if ta else view(a, ao, M, K, lda)
    B = view(b, bo, N, K, ldb).T if tb else view(b, bo, K, N, ldb)
    C = view(c, co, M, N, ldc)
    C[...] = A @ B + (beta * C if beta else 0)


if config.DISABLE_JIT:
    _gemm = _gemm_numpy
    _BLAS_ILP64, _BLAS_ROLE = False, None
else:       # cached kernels name the two symbols, never an address
    _s, _d, _BLAS_ILP64, _BLAS_ROLE = _find_blas()
    llvm_binding.add_symbol("nbgrad_conv_sgemm", _s)
    llvm_binding.add_symbol("nbgrad_conv_dgemm", _d)
    _gemm = _gemm_blas


@_kernel
def _planes(x, xo, xn, C, geo, nb, xp):
    """xp (C rows of nb*plane + (KW-1)*DW, flat): row c = the zero-padded planes of channel c
    of the nb samples (x from xo, samples xn apart) back to back, then zeros."""
    H, W, ph, pw = geo[H_], geo[W_], geo[PH_], geo[PW_]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    plane = Hp * Wp
    row = nb * plane + (geo[KW_] - 1) * geo[DW_]
    for c in range(C):
        for s in range(nb):
            d = c * row + s * plane
            src = xo + s * xn + c * H * W
            for i in range(d, d + ph * Wp):
                xp[i] = 0
            for h in range(H):
                q = d + (h + ph) * Wp
                for j in range(pw):
                    xp[q + j] = 0
                q += pw
                r = src + h * W
                for j in range(W):
                    xp[q + j] = x[r + j]
                q += W
                for j in range(pw):
                    xp[q + j] = 0
            for i in range(d + (ph + H) * Wp, d + plane):
                xp[i] = 0
        for i in range(c * row + nb * plane, (c + 1) * row):
            xp[i] = 0


@_kernel
def _conv_forward_shifted(x, xo, wr, b, bo, has_bias, out, n0, n1, nb, geo, xp, wide):
    """out's samples [n0, n1), nb at a time; wr: the weight as (G, KH, KW, Cog, Cg)."""
    C, CO, G = geo[C_], geo[CO_], geo[G_]
    H, W, KH, KW, dh, dw = geo[H_], geo[W_], geo[KH_], geo[KW_], geo[DH_], geo[DW_]
    Hp, Wp = H + 2 * geo[PH_], W + 2 * geo[PW_]
    OH, OW = geo[OH_], geo[OW_]
    cg, cog = C // G, CO // G
    plane = Hp * Wp
    L = OH * OW
    for n in range(n0, n1, nb):
        m = min(nb, n1 - n)
        row = m * plane + (KW - 1) * dw
        cols = (m - 1) * plane + OH * Wp       # the wide output's columns (the last sample's rows end early)
        for g in range(G):
            _planes(x, xo + (n * C + g * cg) * H * W, C * H * W, cg, geo, m, xp)
            for kh in range(KH):
                for kw in range(KW):
                    _gemm(False, False, cog, cols, cg, wr, ((g * KH + kh) * KW + kw) * cog * cg, cg,
                          xp, kh * dh * Wp + kw * dw, row, 0.0 if kh + kw == 0 else 1.0, wide, 0, m * plane,
                          geo[BLAS_])
            for s in range(m):
                for co in range(cog):
                    o = ((n + s) * CO + g * cog + co) * L
                    src = co * m * plane + s * plane
                    bv = b[bo + g * cog + co] if has_bias else 0
                    for oh in range(OH):
                        for ow in range(OW):
                            out[o + oh * OW + ow] = wide[src + oh * Wp + ow] + bv


@_kernel
def _conv_backward_shifted(gy, gyo, x, xo, wr, gx, gwr, need_x, need_w, n0, n1, nb, geo, xp, wide):
    """gx (whole) gets the samples [n0, n1); gwr (zeroed, (G, KH, KW, Cog, Cg), this piece's
    own) their weight gradient's sum.  xp: the padded planes, then their gradient."""
    C, CO, G = geo[C_], geo[CO_], geo[G_]
    H, W, ph, pw, KH, KW, dh, dw = geo[H_], geo[W_], geo[PH_], geo[PW_], geo[KH_], geo[KW_], geo[DH_], geo[DW_]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    OH, OW = geo[OH_], geo[OW_]
    cg, cog = C // G, CO // G
    plane = Hp * Wp
    L = OH * OW
    for n in range(n0, n1, nb):
        m = min(nb, n1 - n)
        wl = m * plane                      # the wide gradient's row length
        row = wl + (KW - 1) * dw
        cols = (m - 1) * plane + OH * Wp
        for g in range(G):
            # the gradient on the wide grid: zero in the discarded columns and rows
            for co in range(cog):
                for s in range(m):
                    src = gyo + ((n + s) * CO + g * cog + co) * L
                    dst = co * wl + s * plane
                    for oh in range(OH):
                        for ow in range(OW):
                            wide[dst + oh * Wp + ow] = gy[src + oh * OW + ow]
                        for ow in range(OW, Wp):
                            wide[dst + oh * Wp + ow] = 0
                    for i in range(dst + OH * Wp, dst + plane):
                        wide[i] = 0
            if need_w:
                _planes(x, xo + (n * C + g * cg) * H * W, C * H * W, cg, geo, m, xp)
                for kh in range(KH):
                    for kw in range(KW):
                        _gemm(False, True, cog, cg, cols, wide, 0, wl, xp, kh * dh * Wp + kw * dw, row,
                              1.0, gwr, ((g * KH + kh) * KW + kw) * cog * cg, cg, geo[BLAS_])
            if need_x:      # (kh, kw) = (0, 0) writes the columns [0, cols), the others add; the rest starts at 0
                for c in range(cg):
                    xp[c * row + cols:(c + 1) * row] = 0
                for kh in range(KH):
                    for kw in range(KW):
                        _gemm(True, False, cg, cols, cog, wr, ((g * KH + kh) * KW + kw) * cog * cg, cg,
                              wide, 0, wl, 0.0 if kh + kw == 0 else 1.0, xp, kh * dh * Wp + kw * dw, row,
                              geo[BLAS_])
                for s in range(m):
                    for c in range(cg):
                        dst = ((n + s) * C + g * cg + c) * H * W
                        base = c * row + s * plane + ph * Wp + pw
                        for h in range(H):
                            for j in range(W):
                                gx[dst + h * W + j] = xp[base + h * Wp + j]


# reassociated (vectorised) sums: 2 ms -> 1 ms over C2b's gradient (one thread)
@njit(cache=True, error_model="numpy", nogil=True, fastmath={"reassoc", "contract", "nsz"})
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
                     dilation[0], dilation[1], out_hw[0], out_hw[1], int(_BLAS_ILP64)], dtype=np.int64)


# The shifted rows split the batch across the pool only above this many multiply-adds in
# all: case A's forward (1.3M) takes ~60 us on one thread, about what waking the pool's
# threads after a pause costs, and a busy second core makes the split slower than one thread.
ROWS_SPLIT_ABOVE_MACS = 1 << 23


def _macs(geo):
    """The conv's multiply-adds over the batch."""
    return int(geo[N_]) * int(geo[CO_]) * (int(geo[C_]) // int(geo[G_])) * int(geo[KH_] * geo[KW_] * geo[OH_] * geo[OW_])


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


# A chunk's padded planes hold about this many elements (at least one sample's):
# nb samples' products run as one BLAS call per kernel offset.
PLANES_ELEMENTS = 1 << 17


def _shifted_weight(geo, w_flat):
    """The weight (Co, Cg, KH, KW) rearranged for the shifted products: (G, KH, KW, Cog, Cg), flat."""
    c, co, g, kh, kw = (int(geo[i]) for i in (C_, CO_, G_, KH_, KW_))
    return np.ascontiguousarray(w_flat.reshape(g, co // g, c // g, kh, kw).transpose(0, 3, 4, 1, 2)).ravel()


def _shifted_buffers(geo, dtype, size_only=False):
    """(padded planes, wide output) of one thread, for nb samples a chunk (PLANES_ELEMENTS in
    its planes); with size_only, nb."""
    n, c, co, g = (int(geo[i]) for i in (N_, C_, CO_, G_))
    plane = int((geo[H_] + 2 * geo[PH_]) * (geo[W_] + 2 * geo[PW_]))
    nb = max(1, min(n, PLANES_ELEMENTS // (c // g * plane)))
    if size_only:
        return nb
    tail = int((geo[KW_] - 1) * geo[DW_])
    return new_buffer(c // g * (nb * plane + tail), dtype), new_buffer(co // g * plane * nb, dtype)


# The forward's shifted rows (loops) serve a group's weight of at most this many elements at
# stride 1, the shifted BLAS products larger ones.  Measured (forward, float32, one run):
# 3 -> 16 channels of 32x32, 3x3 (432): rows 2.0 ms, BLAS 4.6; 8 -> 16 of 16x16 (1152): 0.68
# and 0.81; 16 -> 16 of 12x12 (2304): 1.76 and 1.82; 6 -> 16 of 14x14, 5x5 (2400): 2.0, 1.4.
ROWS_WEIGHT = 1536


def _shifted(geo, stride, w_shape, groups, limit=SMALL_WEIGHT):
    """Whether stride 1 runs the shifted BLAS products: a weight (a group's) above limit
    elements; a smaller one's loops write the output directly."""
    return tuple(stride) == (1, 1) and w_shape[0] // groups * w_shape[1] * w_shape[2] * w_shape[3] > limit


_serial_lock = threading.Lock()
_serial_users = [0, 0]      # conv calls now running serial BLAS, BLAS's own count before them


def _blas_control():
    """(get, set) of the thread count of the BLAS the shifted products call, or ()."""
    return () if _BLAS_ROLE is None else blas_controls(_BLAS_ROLE)


@contextlib.contextmanager
def _serial_blas():
    """BLAS single-threaded while the pool's threads each run their own products (restored by
    the last call to leave).  Another thread's BLAS call meanwhile runs single-threaded too."""
    ctl = _blas_control()
    if not ctl:
        yield
        return
    get, set_ = ctl
    with _serial_lock:
        if _serial_users[0] == 0:
            _serial_users[1] = get()
            set_(1)
        _serial_users[0] += 1
    try:
        yield
    finally:
        with _serial_lock:
            _serial_users[0] -= 1
            if _serial_users[0] == 0:
                set_(_serial_users[1])


# Thread policy of the shifted products ("pool"; "blas" kept for measuring): the batch's
# chunks handed out to the pool's threads, each running single-threaded BLAS, against one
# thread calling BLAS with its own threads.  Measured (/tmp-style loop of C2, C2b interleaved
# with PyTorch, on this 2-core machine while other processes used ~1.5 cores): "pool" 0.9x
# PyTorch's time, "blas" 5x -- OpenBLAS's threads meet at a barrier in every product, and a
# thread that loses its core stalls the other; a chunk taken from a queue stalls nobody.
SHIFTED_THREADS = "pool"


def _run_shifted(geo, dtype, run, first=None):
    """run(n0, n1, nb, planes, wide) over the batch's chunks of nb samples, each thread with
    its own buffers; first(), where given, is one more piece of work (taken first)."""
    n = int(geo[N_])
    nb = _shifted_buffers(geo, dtype, size_only=True)
    chunks = -(-n // nb) + (first is not None)
    buffers = {}

    def chunk(i, worker):
        if first is not None:
            if i == 0:
                first()
                return
            i -= 1
        if worker not in buffers:
            buffers[worker] = _shifted_buffers(geo, dtype)
        run(i * nb, min(n, (i + 1) * nb), nb, *buffers[worker])
    # (without control of BLAS's threads each thread's products would run on all of them;
    # in plain Python, NUMBA_DISABLE_JIT, NumPy's matmul runs them and the split is kept)
    if SHIFTED_THREADS == "pool" and chunks > 1 and num_threads() > 1 and (_blas_control() or config.DISABLE_JIT):
        with _serial_blas():
            run_dynamic(chunk, chunks)
    else:
        for i in range(chunks):
            chunk(i, 0)


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
    if _shifted(geo, stride, ws, groups, ROWS_WEIGHT):
        wr = _shifted_weight(geo, wb[wo:wo + int(np.prod(ws))])
        _run_shifted(geo, xb.dtype, lambda n0, n1, nb, planes, wide: _conv_forward_shifted(
            xb, xo, wr, bb, bo, has_bias, out, n0, n1, nb, geo, planes, wide))
        return out

    if tuple(stride) == (1, 1):         # a small weight: the shifted rows
        def piece(n0, n1):
            xs = np.empty((int(geo[C_] // geo[G_]), int(geo[KW_]), int((geo[H_] + 2 * geo[PH_]) * geo[OW_])), xb.dtype)
            _conv_forward_rows(xb, xo, wb, wo, bb, bo, has_bias, out, n0, n1, geo, xs)
        if _macs(geo) < ROWS_SPLIT_ABOVE_MACS:
            piece(0, int(geo[N_]))
            return out
    else:
        def piece(n0, n1):
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
    shifted = _shifted(geo, stride, ws, groups)
    if need_x:      # the shifted products write every element, the other kernels add into it
        gx = new_buffer(int(np.prod(xs)), dtype) if shifted else np.zeros(int(np.prod(xs)), dtype)
    else:
        gx = None
    gw = np.zeros(int(np.prod(ws)), dtype) if need_w else None
    gb = np.empty(ws[0], dtype) if need_b else None

    def bias_grad():
        _channel_sums(gb_, go, int(gs[0]), int(gs[1]), int(gs[2] * gs[3]), gb)
    nothing = gs[0] * gs[1] * gs[2] * gs[3] == 0 or not (need_x or need_w) or ws[1] * ws[2] * ws[3] == 0
    shifted = shifted and not nothing
    if need_b and not shifted:      # (else one more piece of the shifted products' pool)
        bias_grad()
    if nothing:
        if gx is not None:
            gx[:] = 0
        return gx, gw, gb
    k = ws[1] * ws[2] * ws[3]
    none = np.empty(0, dtype)
    if shifted:
        wr = _shifted_weight(geo, wb[wo:wo + int(np.prod(ws))])
        own_gw = {}         # worker -> its weight gradient in the products' layout (G, KH, KW, Cog, Cg)

        def chunk(n0, n1, nb, planes, wide):
            own = none
            if need_w:
                own = own_gw.get(id(planes))
                if own is None:
                    own = own_gw[id(planes)] = np.zeros(gw.size, dtype)
            _conv_backward_shifted(gb_, go, xb, xo, wr, gx if need_x else none, own, need_x, need_w, n0, n1, nb,
                                   geo, planes, wide)
        _run_shifted(geo, dtype, chunk, bias_grad if need_b else None)
        if need_w:
            total = sum(own_gw.values())
            co, cg, kh, kw = ws
            gw[:] = total.reshape(groups, kh, kw, co // groups, cg).transpose(0, 3, 4, 1, 2).ravel()
        return gx, gw, gb
    extra_gw = []           # the weight gradients of the pieces after the first, summed at the end

    def piece(n0, n1):
        own = gw if need_w else none
        if need_w and n0:
            own = np.zeros_like(gw)
            extra_gw.append(own)
        tmp = np.empty((ws[0] // groups, k), dtype)
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
