"""Fractional max pooling (PyTorch's FractionalMaxPool2d.cpp / FractionalMaxPool3d.cpp): the
window starts from the random samples, and the max of each window with its index.

One entry point serves 2-D and 3-D pooling: a plane is (T, H, W), 2-D pooling is T = 1.
The starts follow PyTorch's generate_intervals in the samples' own dtype: alpha = (in - k)
/ (out - 1), start i = int((i + u) * alpha) - int(u * alpha), the last start in - k, every
operation rounded in that dtype (NumPy's float16 arithmetic rounds each operation as
c10::Half's does) and `int` a C int32 conversion as x86 does it (NaN or out of range gives
INT_MIN; the difference wraps).  A start outside [0, in - k] is refused with a
RuntimeError, where PyTorch's AT_ASSERT fails.  The window scan is PyTorch's: from -inf
at the window's first position, a larger value or a NaN takes over (so the last NaN's
index wins), in (t, h, w) order.  float16 windows run on widened values (a max is exact).
The backward needs no kernel of its own: it is max_pool2d_backward over flattened planes.
"""
import numpy as np

from .._shared import cpu_kernel
from ._allocator import new_buffer
from ._threads import run_split, worth_splitting

_kernel = cpu_kernel(nogil=True)

_INT_MIN = -(2 ** 31)


@_kernel
def _fractional_max(x, p0, p1, size, out_size, pool, starts, neg_inf, out, idx):
    T, H, W = size[0], size[1], size[2]
    OT, OH, OW = out_size[0], out_size[1], out_size[2]
    kt, kh, kw = pool[0], pool[1], pool[2]
    L = OT + OH + OW
    for p in range(p0, p1):
        xb = p * T * H * W
        sb = p * L
        ob = p * OT * OH * OW
        for t in range(OT):
            ts = starts[sb + t]
            for h in range(OH):
                hs = starts[sb + OT + h]
                for w in range(OW):
                    ws = starts[sb + OT + OH + w]
                    m = neg_inf
                    mi = ts * H * W + hs * W + ws
                    for t2 in range(ts, ts + kt):
                        for h2 in range(hs, hs + kh):
                            for w2 in range(ws, ws + kw):
                                j = t2 * H * W + h2 * W + w2
                                v = x[xb + j]
                                if v > m or v != v:
                                    m = v
                                    mi = j
                    o = ob + (t * OH + h) * OW + w
                    out[o] = m
                    idx[o] = mi


def _c_int(v):
    """C's static_cast<int> of floats as x86 does it: truncation, INT_MIN for NaN and for
    values outside int32's range (int64 results)."""
    ok = np.isfinite(v) & (v >= -2147483648.0) & (v < 2147483648.0)
    return np.where(ok, np.trunc(np.where(ok, v, 0)), _INT_MIN).astype(np.int64)


def interval_starts(samples, in_size, out_size, pool):
    """(planes, out_size) int64 window starts along one dim from (planes,) samples (a NumPy
    array of the input's float dtype): PyTorch's generate_intervals."""
    dt = samples.dtype.type
    planes = samples.shape[0]
    starts = np.empty((planes, out_size), np.int64)
    if out_size > 1:
        with np.errstate(all="ignore"):
            alpha = dt(in_size - pool) / dt(out_size - 1)
            i = np.arange(out_size - 1).astype(samples.dtype)
            u = samples[:, None]
            d = _c_int((i[None, :] + u) * alpha) - _c_int(u * alpha)
        starts[:, :-1] = (d - _INT_MIN) % (2 ** 32) + _INT_MIN       # int32's wrap-around
    if out_size > 0:
        starts[:, -1] = in_size - pool
    return starts


def _starts(samples, size, out_size, pool, cols):
    planes = samples.shape[0]
    parts = []
    for d in range(3):
        if cols[d] < 0:     # (a dim without samples: one output, start in - k)
            parts.append(np.full((planes, out_size[d]), size[d] - pool[d], np.int64))
        else:
            parts.append(interval_starts(samples[:, cols[d]], size[d], out_size[d], pool[d]))
    starts = np.ascontiguousarray(np.concatenate(parts, axis=1))
    for d in range(3):
        lo = sum(out_size[:d])
        s = starts[:, lo:lo + out_size[d]]
        if s.size and (s.min() < 0 or s.max() + pool[d] > size[d]):
            raise RuntimeError(f"fractional max pooling: a window starts outside the input (samples outside "
                               f"[0, 1) give a start in [{int(s.min())}, {int(s.max())}] for an input of "
                               f"{size[d]} and a pool of {pool[d]})")
    return starts


def fractional_max_pool(x_view, samples_view, pool, out_size, cols):
    """(values, int64 indices into each T*H*W plane) of (planes, OT, OH, OW) from contiguous x
    (planes, T, H, W); samples (planes, D) of x's dtype, any strides; cols: the samples' column
    for T, H, W (-1: none; that dim has one output)."""
    from .memory import to_numpy
    xb, xo, xs, _ = x_view
    if xb.dtype == np.float16:
        xb, xo = xb[xo:xo + int(np.prod(xs))].astype(np.float32), 0
    planes = int(xs[0])
    size = tuple(int(s) for s in xs[1:])
    out_size = tuple(int(s) for s in out_size)
    pool = tuple(int(k) for k in pool)
    n = planes * out_size[0] * out_size[1] * out_size[2]
    out, idx = new_buffer(n, xb.dtype), new_buffer(n, np.int64)
    if n == 0:
        return (out.astype(np.float16) if x_view[0].dtype == np.float16 else out), idx
    starts = _starts(to_numpy(samples_view), size, out_size, pool, cols).reshape(-1)
    geo = (np.array(size, np.int64), np.array(out_size, np.int64), np.array(pool, np.int64))
    neg = xb.dtype.type(-np.inf)
    xin = xb[xo:]

    def run(p0, p1):
        _fractional_max(xin, p0, p1, geo[0], geo[1], geo[2], starts, neg, out, idx)

    if worth_splitting(planes * size[0] * size[1] * size[2]):
        run_split(run, planes, align=1)
    else:
        run(0, planes)
    return (out.astype(np.float16) if x_view[0].dtype == np.float16 else out), idx
