"""1-D pooling over the 2-D pooling with a unit height (as conv1d is done over conv2d: the
result squeezed, PyTorch's SqueezeBackward1), and adaptive max pooling, whose windows
[floor(i*H/oh), ceil((i+1)*H/oh)) are gathered into a padded last dim and reduced by max."""

import math

from .. import _dtype as D
from .._tensor import Tensor
from . import pooling as P
from ..autograd.graph import needs_grad, record
from ._graph import check_result_fits
from ..autograd.node import Node
from ._dtype_rules import check as check_dtype
from operator import index as _index       # (an output size is an integer: a float is a TypeError)


def _single(value, fn, what):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{fn}() argument '{what}' should contain one int (got {len(value)})")
        return int(value[0])
    return int(value)


def _check_1d(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if x.dim() not in (2, 3) or (fn == "max_pool1d" and 0 in x.shape[-2:]):
        raise RuntimeError(f"{fn}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{list(x.shape)}")


def _check_max_pool1d(x, k, s, p, d, ceil_mode):
    """ATen's check_max_pool1d, in its order."""
    for ok, message in ((k > 0, f"kernel_size must be greater than zero, but got {k}"),
                        (s > 0, f"stride must be greater than zero, but got {s}"),
                        (p >= 0, f"padding must be non-negative, but got {p}"),
                        (p <= k // 2, f"padding should be at most half of kernel size, but got padding={p} and "
                                      f"kernel_size={k}"),
                        (d > 0, f"dilation must be greater than zero, but got {d}")):
        if not ok:
            raise RuntimeError("max_pool1d() " + message)
    ow = P._out_size(x.shape[-1], k, s, p, d, ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """PyTorch's F.max_pool1d over (N, C, L) or (C, L); the indices are positions in L."""
    _check_1d(input, "max_pool1d")
    k = _single(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _single(stride, "max_pool1d", "stride")
    p, d = _single(padding, "max_pool1d", "padding"), _single(dilation, "max_pool1d", "dilation")
    if not return_indices and not needs_grad(input) and input.device.type == "cpu":
        # PyTorch's own 1-d kernel (max_pool1d_impl, where no indices are needed): its checks,
        # then its dtypes (floats only); otherwise max_pool2d_with_indices' (integers too)
        _check_max_pool1d(input, k, s, p, d, ceil_mode)
        check_dtype("max_pool1d", input._dtype)
    out, idx = P.max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    out = out.squeeze(-2)
    return (out, idx.squeeze(-2)) if return_indices else out


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """PyTorch's F.avg_pool1d over (N, C, L) or (C, L)."""
    _check_1d(input, "avg_pool1d")
    k = _single(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _single(stride, "avg_pool1d", "stride")
    p = _single(padding, "avg_pool1d", "padding")
    return P.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad).squeeze(-2)


def _size1(output_size):
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_avg_pool1d: output_size must be 1")
        return _index(output_size[0])
    return _index(output_size)


def adaptive_avg_pool1d(input, output_size):
    _check_1d(input, "adaptive_avg_pool1d")
    size = _size1(output_size)
    return P.adaptive_avg_pool2d(input.unsqueeze(-2), (1, size if size is not None else input.shape[-1])) \
        .squeeze(-2)


def _window_index(h, w, oh, ow):
    """((oh, ow, K) int64 positions in an H*W plane, K): each output's window (ATen's start and
    end indices) as a (rows, cols) grid, row-major; a grid place past a shorter window holds
    H*W, the position of a -inf the caller appends (it never wins a max).  Built by NumPy, not
    per output in Python: an output size of 2 ** 31 is a memory error, not hours of work."""
    import numpy as np
    try:
        i, j = np.arange(oh, dtype=np.int64), np.arange(ow, dtype=np.int64)
        r0, r1 = i * h // oh, ((i + 1) * h + oh - 1) // oh
        c0, c1 = j * w // ow, ((j + 1) * w + ow - 1) // ow
        kh, kw = int((r1 - r0).max()), int((c1 - c0).max())
        a, b = np.arange(kh, dtype=np.int64), np.arange(kw, dtype=np.int64)
        inside = (a < (r1 - r0)[:, None])[:, None, :, None] & (b < (c1 - c0)[:, None])[None, :, None, :]
        position = ((r0[:, None] + a) * w)[:, None, :, None] + (c0[:, None] + b)[None, :, None, :]
        index = np.where(inside, position, h * w).reshape(oh, ow, kh * kw)
    except MemoryError:
        from ..backends.cpu._allocator import out_of_memory
        raise out_of_memory(oh * ow * 8) from None
    return index, kh * kw


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """PyTorch's F.adaptive_max_pool2d over (N, C, H, W) or (C, H, W); indices are positions in H*W."""
    x = input
    output_size = P.list_with_default(output_size, x, "adaptive_max_pool2d")
    if x.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(x.shape)}")
    for i in range(1, x.dim()):
        if x.shape[i] == 0:
            raise RuntimeError(f"adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)} with dimension {i} being empty")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
        size = tuple(x.shape[-2 + i] if s is None else _index(s) for i, s in enumerate(output_size))
    else:
        size = (_index(output_size),) * 2
    P.check_adaptive_output_size("adaptive_max_pool2d", size, x, False)
    P._check_float(x, "adaptive_max_pool2d")
    h, w = x.shape[-2:]
    oh, ow = size
    if oh * ow == 0:
        return _empty_adaptive_max(x, oh, ow, return_indices)
    # (ATen allocates the output before any work: one it cannot have is its error, first)
    check_result_fits((*x.shape[:-2], oh, ow), x._dtype, x.device)
    P.check_window_work(x, (oh, ow))       # (this composition gathers every window)
    index, kmax = _window_index(h, w, oh, ow)
    from .composite import one_node        # (one node from x to the values, as PyTorch's)
    out, indices = one_node("AdaptiveMaxPool2DBackward0", lambda t: _adaptive_max2d(t, index, kmax, oh, ow), x,
                            outputs=2)
    return (out, indices) if return_indices else out


def _adaptive_max2d(x, index, kmax, oh, ow):
    from .. import tensor
    flat_index = tensor(index.reshape(-1), dtype=D.int64, device=x.device)
    from .elementwise import where
    from .indexing import cat
    from ..autograd.grad_mode import no_grad
    flat = x.flatten(-2)
    padded = cat([flat, flat.new_full((*flat.shape[:-1], 1), -math.inf)], -1)
    windows = padded.index_select(-1, flat_index).reshape(*x.shape[:-2], oh, ow, kmax)
    # ATen's loop keeps the first largest value, but any NaN replaces it (`val > max ||
    # isnan(val)`): a window with NaNs takes its last one
    with no_grad():
        nan = windows.isnan()
        last_nan = (kmax - 1) - nan.flip(-1).to(D.uint8).argmax(-1)
        k = where(nan.any(-1), last_nan, windows.argmax(-1))
    out = windows.gather(-1, k.unsqueeze(-1)).squeeze(-1)
    with no_grad():
        plane = tensor(index, dtype=D.int64, device=x.device).expand(*x.shape[:-2], oh, ow, kmax)
        return out, plane.gather(-1, k.unsqueeze(-1)).squeeze(-1)


class _EmptyAdaptiveMaxBackward(Node):
    def backward(self, g):
        P.check_adaptive_grad("adaptive_max_pool2d", g)


_EmptyAdaptiveMaxBackward.__name__ = "AdaptiveMaxPool2DBackward0"


def _empty_adaptive_max(x, oh, ow, return_indices):
    """An output size of 0: empty values and indices, with a node whose backward fails as
    PyTorch's adaptive_max_pool2d_backward does."""
    from .._creation import empty
    shape = tuple(x.shape[:-2]) + (oh, ow)
    out = empty(shape, dtype=x.dtype, device=x.device)
    if needs_grad(x):
        record(_EmptyAdaptiveMaxBackward, (x,), (out,))
    if not return_indices:
        return out
    return out, empty(shape, dtype=D.int64, device=x.device)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    _check_1d(input, "adaptive_max_pool1d")
    if output_size.__class__ is bool:       # (its op's parser: an int[1], which a bool is not)
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not bool")
    size = _size1(output_size)
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, size if size is not None else input.shape[-1]), True)
    values, idx = out[0].squeeze(-2), out[1].squeeze(-2)
    return (values, idx) if return_indices else values
