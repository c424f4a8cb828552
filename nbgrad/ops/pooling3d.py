"""3-D pooling: max_pool3d (with indices), avg_pool3d, adaptive_avg_pool3d and
adaptive_max_pool3d, with PyTorch's checks, messages, output sizes and node names.

Each is composed of Tensor ops over a table of windows: per output position, the flat
D*H*W positions its window reads in PyTorch's scan order (depth, then rows, then columns),
the taps outside the input left out and the rest of the row filled with one position past
the input, where an appended element holds the reduction's identity (the dtype's lowest
value for max, 0 for the sums).  One index_select gathers the windows, (..., OD, OH, OW, K);
max keeps PyTorch's scan's choice (the first maximum, or the last NaN) and gathers it, so
its gradient goes where the index says; average adds the taps one by one in the input's
dtype, as PyTorch's loops do, and divides by PyTorch's divisor.
Each op is one node of PyTorch's name (MaxPool3DWithIndicesBackward0, ...: ops/composite.py),
and the gradients, double backward included, are those of the composition.  The windows cost K
times the output's memory (K = the kernel's volume; 8 for the common 2x2x2 stride 2).
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import check_work_fits, needs_grad, record
from .pooling import _out_size, check_adaptive_grad, check_adaptive_output_size, check_window_work, list_with_default
from ._dtype_rules import refuse, BOOL, INTEGRAL, HALF
from ._signatures import python_body
from operator import index as _index       # (an output size is an integer: a float is a TypeError)


def _triple(value, message):
    if isinstance(value, (tuple, list)):
        if len(value) not in (1, 3):
            raise RuntimeError(message)
        return tuple(int(v) for v in value) * (3 if len(value) == 1 else 1)
    return (int(value),) * 3


def _pool_out(size, k, p, s, d, ceil_mode):
    """PyTorch's pooling_output_shape, its checks in its order (the pad's bound and the size
    are the 2-D pools' _out_size)."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    return _out_size(size, k, s, p, d, ceil_mode)


def _geometry(x, fn, kernel_size, stride, padding, dilation, ceil_mode, divisor_override=None):
    """(kernel, stride, padding, dilation, (OD, OH, OW)) after PyTorch's checks for max_pool3d
    (fn "max_pool3d") or avg_pool3d."""
    avg = fn == "avg_pool3d"
    kernel = _triple(kernel_size, f"{fn}: kernel_size must {'' if avg else 'either '}be a single int, or a "
                                  "tuple of three ints")
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel
    else:
        stride = _triple(stride, f"{fn}: stride must {'' if avg else 'either '}be omitted, a single int, or a "
                                 "tuple of three ints")
    padding = _triple(padding, f"{fn}: padding must {'' if avg else 'either '}be a single int, or a tuple of "
                               "three ints")
    dilation = _triple(dilation, "max_pool3d: dilation must be either a single int, or a tuple of three ints")
    if x.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    sizes = x._shape[-3:]
    out = tuple(_pool_out(sizes[i], kernel[i], padding[i], stride[i], dilation[i], ceil_mode) for i in range(3))
    # pool3d_shape_check
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kernel[0]} kH: {kernel[1]} "
                           f"kW: {kernel[2]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {stride[0]} dH: {stride[1]} "
                           f"dW: {stride[2]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dilation[0]} dilationH: "
                           f"{dilation[1]} dilationW: {dilation[2]}")
    for i in range(x.dim()):
        if (x.dim() == 4 or i > 0) and x._shape[i] == 0:
            raise RuntimeError(f"{fn if avg else 'max_pool3d_with_indices_out_cpu_template'}(): Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {list(x._shape)} and non-batch dimension {x._shape[i]} has length "
                               "zero!")
    if avg and any(sizes[i] < kernel[i] for i in range(3)):
        raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
                           f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    if min(out) < 1:
        c = x._shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{sizes[0]}x{sizes[1]}x{sizes[2]}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")
    return kernel, stride, padding, dilation, out


# ------------------------------------------------------------------------------ windows

def _taps_strided(size, out, k, s, p, d):
    """(out, k) positions along one dim of each output's window, and which are inside."""
    pos = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
    return pos, (pos >= 0) & (pos < size)


def _taps_adaptive(size, out):
    """PyTorch's adaptive windows [floor(i*S/O), ceil((i+1)*S/O)) along one dim, as taps (by
    NumPy: an output size of 2 ** 31 is not a loop of Python)."""
    i = np.arange(out, dtype=np.int64)
    starts = i * size // out
    ends = ((i + 1) * size + out - 1) // out
    k = int((ends - starts).max())
    pos = starts[:, None] + np.arange(k)[None, :]
    return pos, pos < ends[:, None]


def _window_table(sizes, taps):
    """(OD*OH*OW, K) int64 flat positions in D*H*W, each row's taps inside the input first in
    scan order, then the position D*H*W (the appended identity) for the rest."""
    (pd, vd), (ph, vh), (pw, vw) = taps
    _, h, w = sizes
    check_work_fits(pd.size * ph.size * pw.size * 8 * 4)     # (the table and its temporaries)
    flat = (pd[:, None, None, :, None, None] * h + ph[None, :, None, None, :, None]) * w \
        + pw[None, None, :, None, None, :]
    valid = vd[:, None, None, :, None, None] & vh[None, :, None, None, :, None] & vw[None, None, :, None, None, :]
    n_out = flat.shape[0] * flat.shape[1] * flat.shape[2]
    flat = flat.reshape(n_out, -1)
    valid = valid.reshape(n_out, -1)
    flat = np.where(valid, flat, sizes[0] * h * w)
    order = np.argsort(~valid, axis=1, kind="stable")
    return np.take_along_axis(flat, order, axis=1)


def _windows(x, table, out, identity):
    """x (N, C, D, H, W) gathered into (N, C, OD, OH, OW, K), with `identity` past the input."""
    from .._creation import full
    from .indexing import cat
    from .. import tensor
    n, c, d, h, w = x._shape
    check_work_fits(n * c * table.size * x.element_size())      # (the gathered windows)
    flat = x.reshape(n, c, d * h * w)
    ext = cat([flat, full((n, c, 1), identity, dtype=x._dtype, device=x.device)], 2)
    index = tensor(table.reshape(-1), dtype=D.int64, device=x.device)
    return ext.index_select(2, index).reshape(n, c, *out, table.shape[1])


def _lowest(dtype):
    if dtype.is_floating_point:
        return -math.inf
    return int(np.iinfo(dtype.np).min)


def _batched(x):
    return (x, False) if x.dim() == 5 else (x.unsqueeze(0), True)


def _max_over_windows(x, table, out, name, return_indices):
    """values (and indices) of the max over each window, PyTorch's choice among equals: the
    first maximum in scan order, the last NaN where there is one; one node named `name` from x
    to the values (ops/composite.py)."""
    from .composite import one_node
    values, indices = one_node(name, lambda t: _max_composed(t, table, out), x, outputs=2)
    return (values, indices) if return_indices else values


def _max_composed(x, table, out):
    xb, unbatched = _batched(x)
    win = _windows(xb, table, out, _lowest(x._dtype))
    with no_grad():
        k = win.argmax(-1)
        if x._dtype.is_floating_point:
            nan = win.isnan()
            last_nan = (table.shape[1] - 1) - nan.flip(-1).to(D.int8).argmax(-1)
            k = k.where(~nan.any(-1), last_nan)
        k = k.unsqueeze(-1)
    values = win.gather(-1, k).squeeze(-1)
    if unbatched:
        values = values.squeeze(0)
    from .. import tensor
    with no_grad():
        plane = tensor(table, dtype=D.int64, device=x.device).reshape(*out, table.shape[1])
        indices = plane.expand(*xb._shape[:2], *plane._shape).gather(-1, k).squeeze(-1)
    return values, (indices.squeeze(0) if unbatched else indices)


# ------------------------------------------------------------------------------ the ops

@python_body        # (F.max_pool3d's return_indices branch: its Python reads input.is_cuda)
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """PyTorch's F.max_pool3d_with_indices: (values, indices), whatever return_indices says."""
    input.is_cuda       # (PyTorch's Python reads it first, for its deterministic CUDA path)
    return _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(f"max_pool3d(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    kernel, stride, padding, dilation, out = _geometry(x, "max_pool3d", kernel_size, stride, padding, dilation,
                                                       ceil_mode)
    refuse("max_pool3d", x._dtype, BOOL)
    sizes = x._shape[-3:]
    table = _window_table(sizes, [_taps_strided(sizes[i], out[i], kernel[i], stride[i], padding[i], dilation[i])
                                  for i in range(3)])
    return _max_over_windows(x, table, out, "MaxPool3DWithIndicesBackward0", return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """PyTorch's F.max_pool3d over (N, C, D, H, W) or (C, D, H, W); indices are positions in D*H*W
    (PyTorch's boolean_dispatch: return_indices takes max_pool3d_with_indices)."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, False)


def _divided(sums, divisor, dtype):
    """sums / divisor in PyTorch's arithmetic: integers truncated, floats in their dtype."""
    from .. import tensor
    if not dtype.is_floating_point:
        return sums.div(tensor(divisor, dtype=D.int64, device=sums.device), rounding_mode="trunc")
    return sums / tensor(divisor, dtype=dtype, device=sums.device)


def _window_sums(x, table, out):
    """Each window's taps added one by one in scan order and in the input's dtype, as PyTorch's
    CPU loops add them (float16 too; a reduction's pairwise order would round otherwise); the
    fill is -0.0, which changes no sum, a -0.0 included."""
    win = _windows(x, table, out, -0.0 if x._dtype.is_floating_point else 0)
    acc = win[..., 0]
    for j in range(1, table.shape[1]):
        acc = acc + win[..., j]
    return acc


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """PyTorch's F.avg_pool3d over (N, C, D, H, W) or (C, D, H, W): one AvgPool3DBackward0 node
    over the composition (ops/composite.py)."""
    from .composite import one_node
    return one_node("AvgPool3DBackward0", lambda x: _avg_pool3d(x, kernel_size, stride, padding, ceil_mode,
                                                                 count_include_pad, divisor_override), input)


def _avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(f"avg_pool3d(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    kernel, stride, padding, _, out = _geometry(x, "avg_pool3d", kernel_size, stride, padding, 1, ceil_mode,
                                                divisor_override)
    refuse("avg_pool3d_out_frame", x._dtype, (INTEGRAL - {D.int64}) | HALF)
    sizes = x._shape[-3:]
    taps = [_taps_strided(sizes[i], out[i], kernel[i], stride[i], padding[i], 1) for i in range(3)]
    table = _window_table(sizes, taps)
    # PyTorch's divide_factor per output: the override, or the window's volume clipped to the
    # padded input (count_include_pad), or the taps inside the input
    if divisor_override is not None:
        divisor = np.full(out, int(divisor_override))
    else:
        per_dim = []
        for i in range(3):
            if count_include_pad:
                start = np.arange(out[i]) * stride[i] - padding[i]
                per_dim.append(np.minimum(start + kernel[i], sizes[i] + padding[i]) - start)
            else:
                per_dim.append(taps[i][1].sum(1))
        divisor = per_dim[0][:, None, None] * per_dim[1][None, :, None] * per_dim[2][None, None, :]
    xb, unbatched = _batched(x)
    result = _divided(_window_sums(xb, table, out), divisor, x._dtype)
    if unbatched:
        result = result.squeeze(0)
    return result


def _adaptive_size(x, output_size, message):
    if isinstance(output_size, (tuple, list)):
        if x.dim() <= len(output_size):        # (F's _list_with_default)
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != 3:
            raise RuntimeError(message)
        return tuple(x._shape[-3 + i] if s is None else _index(s) for i, s in enumerate(output_size))
    return (_index(output_size),) * 3


def _check_adaptive(x, fn):
    if x.dim() not in (4, 5):
        raise RuntimeError(f"{fn}(): Expected 4D or 5D tensor, but got{':' if 'max' in fn else ''} "
                           f"{list(x._shape)}")
    for i in range(1, x.dim()):
        if x._shape[i] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(x._shape)} with dimension {i} being empty")


class _EmptyAdaptiveBackward(Node):
    """The node of an adaptive pooling with an empty output size: its backward fails, as
    PyTorch's adaptive_*_pool3d_backward refuses an empty gradient."""

    def backward(self, g):
        check_adaptive_grad(self.fn, g)


def _empty_output(x, size, fn, name):
    from .._creation import empty
    out = empty(tuple(x._shape[:-3]) + size, dtype=x._dtype, device=x.device)
    if needs_grad(x):
        cls = _EMPTY_NODES.get(name)
        if cls is None:
            cls = _EMPTY_NODES[name] = type(name, (_EmptyAdaptiveBackward,), {"fn": fn})
        record(cls, (x,), (out,))
    return out


_EMPTY_NODES = {}


def adaptive_avg_pool3d(input, output_size):
    """PyTorch's F.adaptive_avg_pool3d: windows [floor(i*S/O), ceil((i+1)*S/O)) per dim; an
    output of 1x1x1 is a mean (MeanBackward1), as in PyTorch."""
    x = input
    output_size = list_with_default(output_size, x, "adaptive_avg_pool3d")
    size = _adaptive_size(x, output_size, "adaptive_avg_pool3d: output_size must be 3")
    check_adaptive_output_size("adaptive_avg_pool3d", size, x, True)
    if size == (1, 1, 1):
        return x.mean((-3, -2, -1), keepdim=True)
    _check_adaptive(x, "adaptive_avg_pool3d")
    refuse("adaptive_avg_pool3d_cpu", x._dtype, INTEGRAL)
    if 0 in size:
        return _empty_output(x, size, "adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0")
    check_window_work(x, size)
    from .composite import one_node
    return one_node("AdaptiveAvgPool3DBackward0", lambda t: _adaptive_avg_pool3d(t, size), x)


def _adaptive_avg_pool3d(x, size):
    sizes = x._shape[-3:]
    taps = [_taps_adaptive(sizes[i], size[i]) for i in range(3)]
    table = _window_table(sizes, taps)
    lengths = [t[1].sum(1) for t in taps]
    xb, unbatched = _batched(x)
    result = _window_sums(xb, table, size)
    # PyTorch's kernel: sum / kd / kh / kw, three roundings in the input's dtype (float16's too)
    from .. import tensor
    for i, n in enumerate(lengths):
        shape = [1, 1, 1]
        shape[i] = size[i]
        result = result / tensor(n.reshape(shape), dtype=x._dtype, device=x.device)
    if unbatched:
        result = result.squeeze(0)
    return result


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """(values, indices), whatever return_indices says (PyTorch's)."""
    return adaptive_max_pool3d(input, output_size, True)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """PyTorch's F.adaptive_max_pool3d; indices are positions in D*H*W."""
    x = input
    output_size = list_with_default(output_size, x, "adaptive_max_pool3d")
    _check_adaptive(x, "adaptive_max_pool3d")
    size = _adaptive_size(x, output_size, "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    check_adaptive_output_size("adaptive_max_pool3d", size, x, False)
    refuse("adaptive_max_pool3d_cpu", x._dtype, INTEGRAL)
    sizes = x._shape[-3:]
    if 0 in size:
        values = _empty_output(x, size, "adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0")
        if not return_indices:
            return values
        from .._creation import empty
        return values, empty(values._shape, dtype=D.int64, device=x.device)
    check_window_work(x, size)
    table = _window_table(sizes, [_taps_adaptive(sizes[i], size[i]) for i in range(3)])
    return _max_over_windows(x, table, size, "AdaptiveMaxPool3DBackward0", return_indices)
