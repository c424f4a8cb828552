"""grid_sample's scalar steps for both devices, as PyTorch's CPU kernel takes them
(aten/src/ATen/native/cpu/GridSamplerKernel.cpp, lane by lane): a grid value unnormalized
((g + 1) * sf, less 0.5 without align_corners), then padded (border: clipped to [0, size - 1],
NaN to 0; reflection: reflected about the span's ends, then clipped), bilinear distances and
corner weights, the nearest index (half to even) and the cubic convolution coefficients
(A = -0.75) with their derivatives, each in the input's dtype and PyTorch's operation order.

Every floating constant comes from K, an array of the input's dtype built by `constants`
(so float32 arithmetic stays float32 under Numba's typing); a dim's geometry is a row of
`dim_params` (the rows of x, then y, in P). Indices are truncated as PyTorch's vector conversion does (a NaN or a value
outside the int32 range becomes INT_MIN, which every bounds test refuses).
"""
import numpy as np
from numba.extending import register_jitable

# fma: a * b + c rounded once, where PyTorch's compiler fused a product into the add that
# follows it (its vector kernels are built with FMA contraction)
from .fast_math import fma

_helper = register_jitable(error_model="numpy")

# K: the dtype's constants (KBIG: the least float whose neighbours are all integers, 2**23 or 2**52)
K0, K1, KHALF, KA, K2, K3, K4, K5, K8, K10, KBIG = range(11)
# a dim's row: scaling factor, max value (size - 1), twice the reflection span, reflection low, empty span
SF, MAXV, SPAN2, LOW, EMPTY = range(5)
ROW = 5
BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
INT_MIN = -2147483648


def constants(dtype):
    big = 2.0 ** (np.finfo(dtype).nmant)
    return np.array([0.0, 1.0, 0.5, -0.75, 2.0, 3.0, 4.0, 5.0, 8.0, 10.0, big], dtype=dtype)


def dim_params(size, align_corners, dtype):
    """A dim's row (ComputeLocationBase's members), in the dtype."""
    t = np.dtype(dtype).type
    if align_corners:
        return [t(size - 1) / t(2), t(size - 1), t(size - 1) * t(2), t(0), t(1 if size <= 1 else 0)]
    return [t(size) / t(2), t(size - 1), t(size) * t(2), t(-0.5), t(1 if size <= 0 else 0)]


@_helper
def rint(v, K):
    """v rounded half to even, in its dtype (adding and taking away KBIG rounds it; NumPy's
    ufuncs are not device code)."""
    if not abs(v) < K[KBIG]:
        return v                    # NaN, an infinity or already an integer
    if v < K[K0]:
        return (v - K[KBIG]) + K[KBIG]
    return (v + K[KBIG]) - K[KBIG]


@_helper
def floor(v, K):
    """floor(v) in v's dtype; -0.0 stays -0.0."""
    r = rint(v, K)
    if r > v:
        r = r - K[K1]
    if r == K[K0]:
        return v * K[K0]            # +0.0 for [0, 1), -0.0 for -0.0
    return r


@_helper
def to_index(v):
    """v (an integral float) as an int, INT_MIN for NaN and values outside the int32 range."""
    if v != v or not (-2147483648.0 <= v < 2147483648.0):
        return INT_MIN
    return int(v)


@_helper
def unnormalize(g, P, d, align_corners, K):
    if align_corners:
        return (g + K[K1]) * P[d + SF]
    return fma(g + K[K1], P[d + SF], -K[KHALF])


@_helper
def clip(v, P, d, K):
    """clamp_max(max, clamp_min(0, v)): NaN becomes 0."""
    r = v if v > K[K0] else K[K0]
    return r if r < P[d + MAXV] else P[d + MAXV]


@_helper
def clip_grad(v, P, d, K):
    """(v clipped, 1 or 0): the gradient multiplier is 0 on the borders and beyond; NaN passes."""
    if v != v:
        return v, K[K1]
    lo = v if v > K[K0] else K[K0]
    r = lo if lo < P[d + MAXV] else P[d + MAXV]
    inside = lo != K[K0] and r != P[d + MAXV]
    return r, (K[K1] if inside else K[K0])


@_helper
def _minimum(a, b):
    """Vectorized minimum: NaN propagates."""
    if a != a or b != b:
        return a + b
    return a if a < b else b


@_helper
def reflect(v, P, d, align_corners, K):
    if align_corners and P[d + EMPTY] != K[K0]:
        return K[K0]
    span2 = P[d + SPAN2]
    low = P[d + LOW]
    a = abs(v - low) if not align_corners else abs(v)
    flips = floor(a / span2, K)           # (trunc: a is not negative)
    extra = fma(-flips, span2, a)
    r = _minimum(extra, span2 - extra)
    return r + low if not align_corners else r


@_helper
def reflect_grad(v, P, d, align_corners, K):
    if align_corners and P[d + EMPTY] != K[K0]:
        return K[K0], K[K0]
    span2 = P[d + SPAN2]
    low = P[d + LOW]
    m = v - low if not align_corners else v
    neg = m < K[K0]
    a = abs(m)
    flips = floor(a / span2, K)
    extra = fma(-flips, span2, a)
    reflected = span2 - extra
    more = extra > reflected
    r = reflected if more else extra
    if not align_corners:
        r = r + low
    return r, (-K[K1] if more != neg else K[K1])


@_helper
def pad(v, P, d, padding, align_corners, K):
    """compute_coordinates: the padding alone (bicubic's taps)."""
    if padding == BORDER:
        return clip(v, P, d, K)
    if padding == REFLECTION:
        return clip(reflect(v, P, d, align_corners, K), P, d, K)
    return v


@_helper
def source(g, P, d, padding, align_corners, K):
    """The input coordinate a grid value samples (ComputeLocation::apply)."""
    return pad(unnormalize(g, P, d, align_corners, K), P, d, padding, align_corners, K)


@_helper
def source_grad(g, P, d, padding, align_corners, K):
    """(coordinate, d coordinate / d g) (ComputeLocation::apply_get_grad)."""
    u = unnormalize(g, P, d, align_corners, K)
    sf = P[d + SF]
    if padding == BORDER:
        r, m = clip_grad(u, P, d, K)
        return r, (sf if m != K[K0] else K[K0])
    if padding == REFLECTION:
        r, gr = reflect_grad(u, P, d, align_corners, K)
        gm = gr * sf
        r, m = clip_grad(r, P, d, K)
        return r, (gm if m != K[K0] else K[K0])
    return u, sf


@_helper
def corners(x, y, W, H, K):
    """Bilinear's (n, s, w, e) distances, (nw, ne, sw, se) weights, the north-west corner's
    (iy, ix) and the four corners' in-bounds flags (compute_interp_params). A corner outside
    the input is never read: with border or reflection padding only the east and south ones
    can be (PyTorch's must_in_bound masks)."""
    x_w = floor(x, K)
    y_n = floor(y, K)
    w = x - x_w
    e = K[K1] - w
    n = y - y_n
    s = K[K1] - n
    ix = to_index(x_w)
    iy = to_index(y_n)
    m_w = -1 < ix < W
    m_n = -1 < iy < H
    m_e = -1 < ix + 1 < W
    m_s = -1 < iy + 1 < H
    return (n, s, w, e, s * e, s * w, n * e, n * w, iy, ix,
            m_w and m_n, m_e and m_n, m_w and m_s, m_e and m_s)


@_helper
def nearest(x, y, W, H, K):
    """The nearest input position (iy, ix) (half to even) and whether it is read."""
    ix = to_index(rint(x, K))
    iy = to_index(rint(y, K))
    return iy, ix, (-1 < ix < W and -1 < iy < H)


@_helper
def cubic(t, K):
    """The cubic convolution coefficients of the four taps at distance t from the first. (Where
    two products meet, PyTorch's compiler fuses the second into the sum: with 5A, 8A, 4A exact,
    the outer taps round each step; the inner ones end in one fused x * x + 1.)"""
    A = K[KA]
    x = t + K[K1]
    c0 = ((A * x - K[K5] * A) * x + K[K8] * A) * x - K[K4] * A
    x = t
    c1 = fma(fma(A + K[K2], x, -(A + K[K3])) * x, x, K[K1])
    x = K[K1] - t
    c2 = fma(fma(A + K[K2], x, -(A + K[K3])) * x, x, K[K1])
    x = K[K2] - t
    c3 = ((A * x - K[K5] * A) * x + K[K8] * A) * x - K[K4] * A
    return c0, c1, c2, c3


@_helper
def cubic_grad(t, K):
    """The coefficients' derivatives, as PyTorch's get_cubic_coefficients_grad computes them
    (every subtrahend and addend a product of exact constants: no step fused)."""
    A = K[KA]
    x = -K[K1] - t
    c0 = (-K[K3] * A * x - K[K10] * A) * x - K[K8] * A
    x = K[K0] - t
    c1 = (-K[K3] * (A + K[K2]) * x - K[K2] * (A + K[K3])) * x
    x = K[K1] - t
    c2 = (K[K3] * (A + K[K2]) * x - K[K2] * (A + K[K3])) * x
    x = K[K2] - t
    c3 = (K[K3] * A * x - K[K10] * A) * x + K[K8] * A
    return c0, c1, c2, c3


@_helper
def tap_offset(i, K):
    """Tap i's offset from the floor, -1, 0, 1 or 2, in the dtype."""
    if i == 0:
        return -K[K1]
    if i == 1:
        return K[K0]
    if i == 2:
        return K[K1]
    return K[K2]


@_helper
def tap(x, y, P, padding, align_corners, W, H, K):
    """Bicubic's tap at (y, x) (integral floats): its (iy, ix) after the padding, and whether
    it is read (get_value_bounded / add_value_bounded)."""
    ix = to_index(pad(x, P, 0, padding, align_corners, K))
    iy = to_index(pad(y, P, ROW, padding, align_corners, K))
    return iy, ix, (-1 < ix < W and -1 < iy < H)


@_helper
def tap_value(x, base, xs, xx, yy, P, padding, align_corners, W, H, K):
    """The input's value at bicubic's tap (yy, xx) of the plane starting at `base` (0 outside)."""
    ty, tx, ok = tap(xx, yy, P, padding, align_corners, W, H, K)
    return x[base + ty * xs[2] + tx * xs[3]] if ok else K[K0]


@_helper
def corner_values(x, b, xs, m_nw, m_ne, m_sw, m_se, K):
    """Bilinear's four corner values (nw, ne, sw, se) from the north-west corner's offset b
    (0 for a corner outside the input)."""
    return (x[b] if m_nw else K[K0], x[b + xs[3]] if m_ne else K[K0],
            x[b + xs[2]] if m_sw else K[K0], x[b + xs[2] + xs[3]] if m_se else K[K0])


@_helper
def sample_position(x, xb, xs, C, IH, IW, g, gp, gs, interp, padding, align_corners, P, K, chain, out, o, L):
    """The forward at one output position (its grid pair at g[gp], g[gp + gs[3]]) for every
    channel: out[o + c * L].  The CPU kernel loops over the positions, the CUDA kernel strides."""
    ac = align_corners
    if interp == BICUBIC:
        fx = unnormalize(g[gp], P, 0, ac, K)
        fy = unnormalize(g[gp + gs[3]], P, ROW, ac, K)
        ix = floor(fx, K)
        iy = floor(fy, K)
        cx0, cx1, cx2, cx3 = cubic(fx - ix, K)
        cy0, cy1, cy2, cy3 = cubic(fy - iy, K)
        for c in range(C):
            base = xb + c * xs[1]
            acc = K[K0]
            for j in range(4):
                yy = iy + tap_offset(j, K)
                v0 = tap_value(x, base, xs, ix + tap_offset(0, K), yy, P, padding, ac, IW, IH, K)
                v1 = tap_value(x, base, xs, ix, yy, P, padding, ac, IW, IH, K)
                v2 = tap_value(x, base, xs, ix + tap_offset(2, K), yy, P, padding, ac, IW, IH, K)
                v3 = tap_value(x, base, xs, ix + tap_offset(3, K), yy, P, padding, ac, IW, IH, K)
                # PyTorch's compiled orders: the first product fused into the first sum, then
                # plain adds; a grid read by rows of x and y (its case 2) fuses every product
                if chain:
                    row = fma(cx3, v3, fma(cx2, v2, fma(cx1, v1, cx0 * v0)))
                else:
                    row = fma(cx0, v0, cx1 * v1) + cx2 * v2 + cx3 * v3
                cyj = cy0 if j == 0 else cy1 if j == 1 else cy2 if j == 2 else cy3
                acc = cyj * row if j == 0 else fma(cyj, row, acc)
            out[o + c * L] = acc
        return
    fx = source(g[gp], P, 0, padding, ac, K)
    fy = source(g[gp + gs[3]], P, ROW, padding, ac, K)
    if interp == BILINEAR:
        dn, ds, dw, de, nw, ne, sw, se, iy, ix, m_nw, m_ne, m_sw, m_se = corners(fx, fy, IW, IH, K)
        for c in range(C):
            v_nw, v_ne, v_sw, v_se = corner_values(x, xb + c * xs[1] + iy * xs[2] + ix * xs[3], xs,
                                                   m_nw, m_ne, m_sw, m_se, K)
            out[o + c * L] = fma(v_se, se, fma(v_sw, sw, fma(v_ne, ne, v_nw * nw)))
    else:
        iy, ix, ok = nearest(fx, fy, IW, IH, K)
        for c in range(C):
            out[o + c * L] = x[xb + c * xs[1] + iy * xs[2] + ix * xs[3]] if ok else K[K0]
