"""2-D pooling: max_pool2d (with indices), avg_pool2d, adaptive_avg_pool2d, with PyTorch's
argument checks, output sizes (ceil_mode), nodes and double-backward nodes.

The windows are the backends' pooling primitives (nbgrad/backends/__init__.py).  Each
backward is linear in the gradient, so when it is itself recorded (create_graph=True)
it is one more op whose own backward is the forward's adjoint: max pooling's gathers
the gradient's gradient at the saved indices, average pooling's is the average pooling
itself (PyTorch's MaxPool2DWithIndicesBackwardBackward0 / AvgPool2DBackwardBackward0).
"""
import math

from .. import _dtype as D
from .._checks import int_tuple
from .._tensor import Tensor
from ..autograd.node import Node
from ._graph import backend_of, check_work_fits, needs_grad, new_tensor, record, zeros_grad
from . import views as V
from ._dtype_rules import check as check_dtype, refuse, BOOL, INTEGRAL
from operator import index as _index       # (an output size is an integer: a float is a TypeError)


def _pair(value, fn, what, allow_none=False):
    if allow_none and (value is None or (isinstance(value, (tuple, list)) and len(value) == 0)):
        return None
    if isinstance(value, (tuple, list)):
        if len(value) not in (1, 2):
            verb = {"kernel_size": "must either be a single int, or a tuple of two ints",
                    "stride": "must either be omitted, a single int, or a tuple of two ints",
                    "padding": "must either be a single int, or a tuple of two ints",
                    "dilation": "must be either a single int, or a tuple of two ints"}[what]
            raise RuntimeError(f"{fn}: {what} {verb}")
        return (int(value[0]), int(value[-1]))
    return (int(value), int(value))


def _out_size(size, k, s, p, d, ceil_mode):
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > ((k - 1) * d + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} "
                           f"and dilation={d}")
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1        # the last window must start inside the input or its left padding
    return out


def _geometry(x, fn, kernel_size, stride, padding, dilation, ceil_mode):
    """(kernel, stride, padding, dilation, (OH, OW)) after PyTorch's checks."""
    kernel = _pair(kernel_size, fn, "kernel_size")
    stride = _pair(stride, fn, "stride", allow_none=True) or kernel
    padding = _pair(padding, fn, "padding")
    dilation = _pair(dilation, fn, "dilation")
    if fn == "max_pool2d" and x.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if fn == "avg_pool2d" and x.dim() < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.dim()}, {x.dim() - 1}], but "
                         f"got -3)")
    if fn == "avg_pool2d" and x.dim() > 4:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) < 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
                           f"dilationW: {dilation[1]}")
    if 0 in x._shape[-3:]:      # (pool2d_shape_check: only the batch may be empty)
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(x._shape)}")
    h, w = x._shape[-2:]
    out = (_out_size(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode),
           _out_size(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode))
    if min(out) < 1:
        c = x._shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
                           f"Output size is too small")
    return kernel, stride, padding, dilation, out


def _check_float(x, fn):
    refuse(fn, x._dtype, INTEGRAL)


def _check_avg_dtype(x):
    """avg_pool2d's dtypes: PyTorch's CPU kernel takes int64 too (a truncated quotient), its
    CUDA kernel floating types only."""
    if x.device.type == "cuda":
        refuse("avg_pool2d_out_cuda_frame", x._dtype, INTEGRAL)
    refuse("avg_pool2d", x._dtype, INTEGRAL - {D.int64})


# --------------------------------------------------------------------------- max

# The backward ops take the forward's input as PyTorch's do (max_pool2d_with_indices_backward(grad,
# self, ...)): a recorded gradient requires grad when the input does, and the input's own
# derivative there is zero.

class MaxPool2DWithIndicesBackward0(Node):
    def backward(self, g):
        x, indices = self.saved_tensors
        return _max_unpool_grad(g, x, indices)


class MaxPool2DWithIndicesBackwardBackward0(Node):
    def backward(self, gg):
        x, indices = self.saved_tensors
        flat = V.reshape(gg, gg._shape[:-2] + (-1,))
        ggy = V.reshape(flat.gather(-1, V.reshape(indices, indices._shape[:-2] + (-1,))), indices._shape)
        return ggy, (zeros_grad(x) if self.needs_input_grad(1) else None)


def _max_unpool_grad(g, x, indices):
    """The gradient of max pooling's input: g added at the indices (one op, differentiable in g)."""
    gc = g.contiguous()
    buf = backend_of(g).max_pool2d_backward(gc._view_tuple(), indices.contiguous()._view_tuple(),
                                            tuple(x._shape[-2:]))
    gx = new_tensor(buf, tuple(x._shape), g._dtype, g.device)
    if needs_grad(g, x):
        node = record(MaxPool2DWithIndicesBackwardBackward0, (g, x), (gx,))
        node.save(x, indices)
    return gx


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    x = input
    kernel, stride, padding, dilation, out_hw = _geometry(x, "max_pool2d", kernel_size, stride, padding, dilation,
                                                          ceil_mode)
    check_dtype("max_pool2d", x._dtype)
    refuse("max_pool2d", x._dtype, BOOL)
    xc = x.contiguous()
    vals, idx = backend_of(x).max_pool2d(xc._view_tuple(), kernel, stride, padding, dilation, out_hw)
    shape = x._shape[:-2] + out_hw
    out = new_tensor(vals, shape, x._dtype, x.device)
    indices = new_tensor(idx, shape, D.int64, x.device)
    if needs_grad(x):
        node = record(MaxPool2DWithIndicesBackward0, (x,), (out,))
        node.save(x, indices)
    return out, indices


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """PyTorch's F.max_pool2d over (N, C, H, W) or (C, H, W); the indices are positions in each H*W plane."""
    out, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


# --------------------------------------------------------------------------- average

class _AvgNode(Node):
    def _args(self):
        return self.kernel, self.stride, self.padding, self.count_include_pad, self.divisor, self.adaptive


class AvgPool2DBackward0(_AvgNode):
    def backward(self, g):
        (x,) = self.saved_tensors
        return _avg_grad(g, x, *self._args())


def check_adaptive_grad(name, g):
    """PyTorch's adaptive pooling backwards refuse a gradient with an empty non-batch dim
    (the forward of an output size 0 succeeds; its backward fails)."""
    for i in range(1, g.dim()):
        if g.shape[i] == 0:
            raise RuntimeError(f"{name}_backward(): Expected grad_output to have non-zero size for non-batch "
                               f"dimensions, but grad_output has sizes {list(g.shape)} with dimension {i} being "
                               "empty")


class AdaptiveAvgPool2DBackward0(AvgPool2DBackward0):
    def backward(self, g):
        check_adaptive_grad("adaptive_avg_pool2d", g)
        return super().backward(g)


class AvgPool2DBackwardBackward0(_AvgNode):
    def backward(self, gg):
        (x,) = self.saved_tensors
        return _avg_forward(gg, self.out_hw, *self._args()), (zeros_grad(x) if self.needs_input_grad(1) else None)


class AdaptiveAvgPool2DBackwardBackward0(AvgPool2DBackwardBackward0):
    pass


def _avg_attrs(kernel, stride, padding, count_include_pad, divisor, adaptive):
    return dict(kernel=kernel, stride=stride, padding=padding, count_include_pad=count_include_pad,
                divisor=divisor, adaptive=adaptive)


def _avg_forward(x, out_hw, kernel, stride, padding, count_include_pad, divisor, adaptive):
    xc = x.contiguous()
    buf = backend_of(x).avg_pool2d(xc._view_tuple(), kernel, stride, padding, out_hw, count_include_pad, divisor,
                                   adaptive)
    out = new_tensor(buf, x._shape[:-2] + tuple(out_hw), x._dtype, x.device)
    if needs_grad(x):
        cls = AdaptiveAvgPool2DBackward0 if adaptive else AvgPool2DBackward0
        record(cls, (x,), (out,), **_avg_attrs(kernel, stride, padding, count_include_pad, divisor,
                                               adaptive)).save(x)
    return out


def _avg_grad(g, x, kernel, stride, padding, count_include_pad, divisor, adaptive):
    input_shape = x._shape
    gc = g.contiguous()
    buf = backend_of(g).avg_pool2d_backward(gc._view_tuple(), tuple(input_shape[-2:]), kernel, stride, padding,
                                            count_include_pad, divisor, adaptive)
    gx = new_tensor(buf, tuple(input_shape), g._dtype, g.device)
    if needs_grad(g, x):
        cls = AdaptiveAvgPool2DBackwardBackward0 if adaptive else AvgPool2DBackwardBackward0
        record(cls, (g, x), (gx,), out_hw=tuple(g._shape[-2:]),
               **_avg_attrs(kernel, stride, padding, count_include_pad, divisor, adaptive)).save(x)
    return gx


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """PyTorch's F.avg_pool2d over (N, C, H, W) or (C, H, W)."""
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(f"avg_pool2d(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    kernel, stride, padding, _, out_hw = _geometry(x, "avg_pool2d", kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_avg_dtype(x)
    return _avg_forward(x, out_hw, kernel, stride, padding, bool(count_include_pad), int(divisor_override or 0),
                        False)


def list_with_default(out_size, input, name):
    """F's _list_with_default(output_size, input.size()), the first thing PyTorch's adaptive
    pools (2-D and 3-D) do: an int as it is; a sequence's None entries taken from the input's
    trailing sizes, of which there must be more than it has entries; then the sizes as the
    op's parser reads a tuple of ints."""
    defaults = input.size()
    if isinstance(out_size, int):
        if out_size.__class__ is bool:      # (an int to Python's isinstance, not to the op's parser)
            raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, not bool")
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return int_tuple([v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])],
                     name, "output_size", 2)


def check_window_work(x, size):
    """check_work_fits for a composed adaptive pool of x to `size` (its last len(size) dims):
    each output's window (at most ceil(S / O) + 1 taps per dim) as int64 positions, their
    temporaries and the gathered values, estimated before any of it is built."""
    k = 1
    for s, o in zip(x.shape[-len(size):], size):
        k *= -(-s // o) + 1
    outputs = math.prod(size)
    check_work_fits(outputs * k * (4 * 8 + math.prod(x.shape[:-len(size)]) * x.element_size()))


def check_adaptive_output_size(fn, size, x, average):
    """A negative output size: the average pools' check (ATen's adaptive_avg_pool{2,3}d, its
    wording: "{-1, -1,-1}" for 3-D), the max pools' failed allocation of the output."""
    if all(s >= 0 for s in size):
        return
    if average:
        inner = ", ".join(map(str, size)) if len(size) == 2 else f"{size[0]}, {size[1]},{size[2]}"
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received {{{inner}}}")
    shape = list(x.shape[:-len(size)]) + list(size)
    raise RuntimeError(f"Trying to create tensor with negative dimension {next(s for s in shape if s < 0)}: {shape}")


def adaptive_avg_pool2d(input, output_size):
    """PyTorch's F.adaptive_avg_pool2d: output (oh, ow) windows [floor(i*H/oh), ceil((i+1)*H/oh)).
    A None size keeps the input's; an output of 1x1 is a mean, as in PyTorch (MeanBackward1)."""
    x = input
    output_size = list_with_default(output_size, x, "adaptive_avg_pool2d")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
        size = tuple(x._shape[-2 + i] if s is None else _index(s) for i, s in enumerate(output_size))
    else:
        size = (_index(output_size),) * 2
    check_adaptive_output_size("adaptive_avg_pool2d", size, x, True)
    if size == (1, 1):
        # ATen's composite: a mean over the last two dims before any check of the input (a
        # 2-D or 5-D input, an empty one: its mean's rules)
        return x.mean((-2, -1), keepdim=True)
    if x.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(x._shape)}")
    for i in (x.dim() - 2, x.dim() - 1):       # (its CPU kernel takes 0 channels; the spatial dims not)
        if x._shape[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x._shape)} with dimension {i} being empty")
    if not x._dtype.is_floating_point and 0 in size:
        # (ATen returns an empty output before its kernel's dispatch refuses the dtype)
        from .._creation import empty
        return empty(x._shape[:-2] + size, dtype=x._dtype, device=x.device)
    _check_float(x, "adaptive_avg_pool2d")
    return _avg_forward(x, size, (1, 1), (1, 1), (0, 0), False, 0, True)
