"""Fractional max pooling: F.fractional_max_pool2d / fractional_max_pool3d (and their
*_with_indices forms), with PyTorch's argument handling, checks in its order, messages,
indices (flat positions in each (H, W) or (T, H, W) plane) and node names
(FractionalMaxPool2DBackward0 / FractionalMaxPool3DBackward0, and the double-backward
FractionalMaxPool2DBackwardBackward0 / FractionalMaxPool3DBackwardBackward0).

Windows: each (n, c) plane has its own samples u in [0, 1), one per pooled dim (2-D: column 0
for W, column 1 for H, as PyTorch's kernel reads them; 3-D: T, H, W).  Along a dim of input
size I, output size O and pool k the window starts are PyTorch's generate_intervals:
alpha = (I - k) / (O - 1), start_i = int((i + u) * alpha) - int(u * alpha), the last start
I - k, each operation rounded in the input's dtype.  A window's max is PyTorch's scan (from
-inf at the window's first position, a larger value or a NaN takes over).

The forward is the backend's optional acceleration `fractional_max_pool` (one kernel:
nbgrad/backends/cpu/pooling_fractional.py); without it (another device, NBGRAD_FUSED=0)
the same starts, maxima and indices are composed of Tensor ops (the windows gathered,
K = kT*kH*kW times the output's memory).  Either way the node is the same: its backward
adds the gradient at the indices (the backend's max_pool2d_backward over flattened planes,
so ties and overlapping windows accumulate), and is itself differentiable (a gather at the
indices, as PyTorch's max_pool_double_backward).

Without _random_samples the samples are drawn from nbgrad's generator (nbgrad.rand, as
PyTorch's torch.rand): the same call under the same seed gives other windows than
PyTorch's.  Departures: samples that put a window outside the input (values far outside
[0, 1), NaN cases that do not cancel) raise a RuntimeError where PyTorch's kernel asserts.
"""
import math

from .. import _dtype as D
from .._checks import ntuple
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._dtype_rules import FLOATING, not_implemented
from ._graph import accelerated, backend_of, check_no_requires_grad, needs_grad, new_tensor, record, zeros_grad
from . import views as V
from ._argument_check import argument_error
from ._signatures import python_body

_INT_MIN = -(2 ** 31)


# --------------------------------------------------------------------------- arguments

def _ints(value, n, fn, what):
    """An int-list argument the parser took (a single int repeated n times), then the kernel's
    length check."""
    if isinstance(value, (tuple, list)):
        values = tuple(int(v) for v in value)
        if len(values) != n:
            three = " three" if n == 3 else ""
            raise RuntimeError(f"{fn}: {what} must either be a single Int or tuple of{three} Ints")
        return values
    return (int(value),) * n


@python_body
def _draw_samples(x, nd):
    """PyTorch's default samples: rand(batch, C, nd) of x's dtype, from nbgrad's generator."""
    from .._creation import rand
    batch = 1 if x.dim() == nd + 1 else x.size(0)
    return rand(batch, x.size(-nd - 1), nd, dtype=x.dtype, device=x.device)


# --------------------------------------------------------------------------- checks

def _check(nd, x, pool, out, samples):
    """The kernel's checks in PyTorch's order: autograd's, the meta function's, the
    samples' shape; returns (batch, channels)."""
    fn = f"fractional_max_pool{nd}d"
    check_no_requires_grad(samples, "random_samples", fn)
    where = fn if nd == 2 else "fractional_max_pool3d_out"
    if x.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(x.shape)}")
    for i in range(1, x.dim()):
        if x.shape[i] == 0:
            raise RuntimeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but "
                               f"got{list(x.shape)} with dimension {i} being empty.")
    size = tuple(x.shape[-nd:])
    names = ("height", "width") if nd == 2 else ("time", "height", "width")
    # (2-D allows out + k - 1 == in; PyTorch's 3-D check is strict, and takes width before height)
    order = (0, 1) if nd == 2 else (0, 2, 1)
    for d in order:
        fits = out[d] + pool[d] - 1 <= size[d] if nd == 2 else out[d] + pool[d] - 1 < size[d]
        if not fits:
            raise RuntimeError(f"{where}(): pool {names[d]} {pool[d]} too large relative to input {names[d]} "
                               f"{size[d]}")
    out_shape = tuple(x.shape[:-nd]) + tuple(out)
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(out_shape)}")
    # fractional_max_pool_check_shape
    if samples.dtype is not x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batch, channels = (1, x.shape[0]) if x.dim() == nd + 1 else (x.shape[0], x.shape[1])
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    return batch, channels, out_shape


# --------------------------------------------------------------------------- nodes

def _scatter_grad(g, x, indices, nd, node_cls):
    """x's gradient: g added at the indices, plane by plane (one op, differentiable in g)."""
    plane = math.prod(x.shape[-nd:])
    per = math.prod(indices.shape[-nd:])
    planes = math.prod(x.shape[:-nd])
    gc = V.reshape(g.contiguous(), (planes, 1, per))
    ic = V.reshape(indices.contiguous(), (planes, 1, per))
    buf = backend_of(g).max_pool2d_backward(gc._view_tuple(), ic._view_tuple(), (1, plane))
    gx = new_tensor(buf, tuple(x.shape), g.dtype, g.device)
    if needs_grad(g, x):
        record(node_cls, (g, x), (gx,)).save(x, indices)
    return gx


class _FractionalBackward(Node):
    nd = 2

    def backward(self, g):
        x, indices = self.saved_tensors
        return _scatter_grad(g, x, indices, self.nd, _DOUBLE[type(self).__name__])


class _FractionalBackwardBackward(Node):
    nd = 2

    def backward(self, gg):
        x, indices = self.saved_tensors
        nd = self.nd
        planes = math.prod(x.shape[:-nd])
        flat = V.reshape(gg, (planes, math.prod(x.shape[-nd:])))
        ggy = V.reshape(flat.gather(-1, V.reshape(indices, (planes, -1))), tuple(indices.shape))
        return ggy, (zeros_grad(x) if self.needs_input_grad(1) else None)


class FractionalMaxPool2DBackward0(_FractionalBackward):
    nd = 2


class FractionalMaxPool3DBackward0(_FractionalBackward):
    nd = 3


class FractionalMaxPool2DBackwardBackward0(_FractionalBackwardBackward):
    nd = 2


class FractionalMaxPool3DBackwardBackward0(_FractionalBackwardBackward):
    nd = 3


_DOUBLE = {"FractionalMaxPool2DBackward0": FractionalMaxPool2DBackwardBackward0,
           "FractionalMaxPool3DBackward0": FractionalMaxPool3DBackwardBackward0}


# --------------------------------------------------------------------------- composed forward

def _c_int(v):
    """C's static_cast<int> of a float tensor as x86 does it: truncation, INT_MIN for NaN,
    infinities and values outside int32's range (int64 results)."""
    from .. import where
    ok = v.isfinite() & (v >= -2147483648.0) & (v < 2147483648.0)
    return where(ok, where(ok, v, 0.0).trunc().to(D.int64), _INT_MIN)


def _composed_starts(s, size, out, pool, cols):
    """(planes, OT + OH + OW) int64 starts from (planes, D) samples, as the CPU kernel's
    interval_starts (nbgrad/backends/cpu/pooling_fractional.py) computes them."""
    from .. import arange, cat, full, tensor
    planes = s.shape[0]
    parts = []
    for d in range(3):
        n = out[d]
        last = full((planes, min(n, 1)), size[d] - pool[d], dtype=D.int64, device=s.device)
        if n > 1 and cols[d] >= 0:
            u = s[:, cols[d]:cols[d] + 1]
            alpha = tensor(float(size[d] - pool[d]), dtype=s.dtype, device=s.device) / \
                tensor(float(n - 1), dtype=s.dtype, device=s.device)
            i = arange(n - 1, device=s.device).to(s.dtype)
            diff = _c_int((i + u) * alpha) - _c_int(u * alpha)
            parts.append((diff - _INT_MIN).remainder(2 ** 32) + _INT_MIN)      # int32's wrap-around
        elif n > 1:
            parts.append(full((planes, n - 1), size[d] - pool[d], dtype=D.int64, device=s.device))
        parts.append(last)
    starts = cat(parts, 1)
    lo = 0
    for d in range(3):
        part = starts[:, lo:lo + out[d]]
        lo += out[d]
        if part.numel() and bool(((part < 0) | (part > size[d] - pool[d])).any()):
            low, high = int(part.min()), int(part.max())
            raise RuntimeError(f"fractional max pooling: a window starts outside the input (samples outside [0, 1) "
                               f"give a start in [{low}, {high}] for an input of {size[d]} and a pool of "
                               f"{pool[d]})")
    return starts


def _composed(xc, s, size, out, pool, cols):
    """(values, indices) of (planes, OT, OH, OW) by Tensor ops: the windows gathered, the
    max's index by PyTorch's scan (the first maximum; the last NaN where there is one)."""
    from .. import full, tensor, where
    planes = xc.shape[0]
    T, H, W = size
    OT, OH, OW = out
    starts = _composed_starts(s, size, out, pool, cols)
    ts = starts[:, :OT].reshape(planes, OT, 1, 1)
    hs = starts[:, OT:OT + OH].reshape(planes, 1, OH, 1)
    ws = starts[:, OT + OH:].reshape(planes, 1, 1, OW)
    base = ts * (H * W) + hs * W + ws
    offsets = [a * H * W + b * W + c for a in range(pool[0]) for b in range(pool[1]) for c in range(pool[2])]
    if not offsets:         # an empty window: -inf at its first position, as PyTorch's kernel
        return full((planes, OT, OH, OW), float("-inf"), dtype=xc.dtype, device=xc.device), base
    K = len(offsets)
    positions = base.unsqueeze(-1) + tensor(offsets, dtype=D.int64, device=xc.device)
    windows = xc.reshape(planes, T * H * W).gather(1, positions.reshape(planes, -1)).reshape(planes, OT, OH, OW, K)
    values, k = windows.max(-1)
    nan = windows.isnan()
    has_nan = nan.any(-1)
    if bool(has_nan.any()):
        last_nan = (K - 1) - nan.flip(-1).to(D.int64).argmax(-1)
        k = where(has_nan, last_nan, k)
    return values, positions.gather(-1, k.unsqueeze(-1)).squeeze(-1)


# --------------------------------------------------------------------------- the op

def _pool(nd, x, kernel_size, output_size, samples):
    fn = f"fractional_max_pool{nd}d"
    # torch._C._nn.fractional_max_pool2d's parser: every argument's type, then the kernel's checks
    error = argument_error(fn, (x, kernel_size, output_size, samples), {}, key="nn." + fn)
    if error is not None:
        raise error
    pool = _ints(kernel_size, nd, fn, "kernel_size")
    out = _ints(output_size, nd, fn, "output_size")
    batch, channels, out_shape = _check(nd, x, pool, out, samples)
    if math.prod(out_shape) == 0:
        vals = new_tensor(backend_of(x).empty(0, x.dtype.np), out_shape, x.dtype, x.device)
        idx = new_tensor(backend_of(x).empty(0, D.int64.np), out_shape, D.int64, x.device)
    else:
        if x.dtype not in FLOATING:
            raise not_implemented(f"{fn}_out_frame", x.dtype)
        planes = batch * channels
        size = (1,) * (3 - nd) + tuple(x.shape[-nd:])
        out3 = (1,) * (3 - nd) + out
        pool3 = (1,) * (3 - nd) + pool
        cols = (-1, 1, 0) if nd == 2 else (0, 1, 2)        # PyTorch's kernel: 2-D samples are (W, H)
        with no_grad():
            xc = V.reshape(x.contiguous(), (planes,) + size)
            s = samples.narrow(0, 0, batch).reshape(planes, nd).contiguous()
            if accelerated(x, "fractional_max_pool"):
                vbuf, ibuf = backend_of(x).fractional_max_pool(xc._view_tuple(), s._view_tuple(), pool3, out3, cols)
                vals = new_tensor(vbuf, out_shape, x.dtype, x.device)
                idx = new_tensor(ibuf, out_shape, D.int64, x.device)
            else:
                v, i = _composed(xc, s, size, out3, pool3, cols)
                vals, idx = v.reshape(out_shape).clone(), i.reshape(out_shape).clone()
    if needs_grad(x):
        cls = FractionalMaxPool2DBackward0 if nd == 2 else FractionalMaxPool3DBackward0
        record(cls, (x,), (vals,)).save(x, idx)
    return vals, idx


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """PyTorch's F.fractional_max_pool2d_with_indices over (N, C, H, W) or (C, H, W):
    (values, indices into each H*W plane)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of "
                             "Ints.")
        ratio = ntuple(output_ratio, 2)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    if _random_samples is None:
        _random_samples = _draw_samples(input, 2)
    return _pool(2, input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """PyTorch's F.fractional_max_pool2d: the values, or (values, indices) with return_indices."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """PyTorch's F.fractional_max_pool3d_with_indices over (N, C, T, H, W) or (C, T, H, W):
    (values, indices into each T*H*W plane)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = ntuple(output_ratio, 3)
        output_size = [int(input.size(-3) * ratio[0]), int(input.size(-2) * ratio[1]),
                       int(input.size(-1) * ratio[2])]
    if _random_samples is None:
        _random_samples = _draw_samples(input, 3)
    return _pool(3, input, kernel_size, output_size, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """PyTorch's F.fractional_max_pool3d: the values, or (values, indices) with return_indices."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]
