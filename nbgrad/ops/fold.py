"""unfold (im2col) and fold (col2im): a batch's sliding windows as columns and back, with
PyTorch's checks, messages and nodes (Im2ColBackward0, Col2ImBackward0).

The two are each other's adjoint, so each one's backward is the other op (recorded in
grad mode: a double backward meets PyTorch's nodes).  Their work is the convolution's
composed im2col / col2im (nbgrad/ops/conv.py): an as_strided window view of the padded
input copied into columns, and the columns added back window offset by window offset.
"""
import collections.abc
import operator

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from . import conv as C
from . import views as V
from ._graph import needs_grad, record
from ._dtype_rules import refuse, INTEGRAL, BOOL


def _two(value, name):
    """nn.functional's _pair (an iterable's items, a tensor's rows too: a 0-d one is iteration's
    TypeError; else the value twice), then ATen's count check; the items are ints or what has
    __index__ (the op's parser refused anything else first: ops/_signatures' precheck)."""
    value = tuple(value) if isinstance(value, collections.abc.Iterable) else (value, value)
    if len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    return (operator.index(value[0]), operator.index(value[1]))


def _check_params(kernel, dilation, padding, stride, fold):
    """PyTorch's im2col / col2im parameter checks, in their order."""
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    checks = [("stride", stride, "should be greater than zero", "stride", 1),
              ("dilation", dilation, "should be greater than zero", "dilation", 1),
              ("padding", padding, "should be non-negative", "pad", 0)]
    if not fold:        # im2col checks dilation and padding before the stride
        checks = checks[1:] + checks[:1]
    for what, value, rule, short, least in checks:
        if min(value) < least:
            raise RuntimeError(f"{what} {rule}, but got {short}_height: {value[0]} {short}_width: {value[1]}")


def _blocks(size, k, d, p, s):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def _check_dtype(x, name):
    refuse(f"{name}_out_cpu", x._dtype, INTEGRAL - BOOL)


class Im2ColBackward0(Node):
    def backward(self, g):
        return fold(g, self.in_hw, self.kernel, self.dilation, self.padding, self.stride)


class Col2ImBackward0(Node):
    def backward(self, g):
        return unfold(g, self.kernel, self.dilation, self.padding, self.stride)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's F.unfold: (N, C, H, W) or (C, H, W) -> (N, C*KH*KW, L), the L sliding windows
    (row-major over the window positions) as columns."""
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(f"unfold(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if needs_grad(x):       # (im2col's autograd saves the input's last two sizes before the kernel's checks)
        x.size(-2), x.size(-1)
    kernel, dilation = _two(kernel_size, "kernel_size"), _two(dilation, "dilation")
    padding, stride = _two(padding, "padding"), _two(stride, "stride")
    _check_params(kernel, dilation, padding, stride, False)
    x.size(1) != 0 and x.size(2) != 0       # (im2col_shape_check's valid_dims: IndexError below 3-D, short-circuit)
    shape = x._shape
    if not ((x.dim() == 3 and all(shape)) or (x.dim() == 4 and all(shape[1:]))):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    h, w = shape[-2:]
    blocks = tuple(_blocks(n, k, d, p, s) for n, k, d, p, s in zip((h, w), kernel, dilation, padding, stride))
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({kernel[0]}, {kernel[1]}), "
                           f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
                           f"calculated shape of the array of sliding blocks as ({blocks[0]}, {blocks[1]}), but its "
                           f"components must be at least one.")
    _check_dtype(x, "im2col")
    batched = x.dim() == 4
    out_shape = (shape[0] if batched else 1, shape[-3] * kernel[0] * kernel[1], blocks[0] * blocks[1])
    with no_grad():
        x4 = x if batched else V.unsqueeze(x, 0)
        col, _ = C._columns(x4, kernel, stride, padding, dilation, 1)
        out = C._fresh(col, out_shape if batched else out_shape[1:])
    if needs_grad(x):
        record(Im2ColBackward0, (x,), (out,), in_hw=(h, w), kernel=kernel, dilation=dilation, padding=padding,
               stride=stride)
    return out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's F.fold: (N, C*KH*KW, L) or (C*KH*KW, L) -> (N, C, H, W), every column added back
    at its window's place (overlaps sum)."""
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(f"fold(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    size, kernel = _two(output_size, "output_size"), _two(kernel_size, "kernel_size")
    dilation, padding, stride = _two(dilation, "dilation"), _two(padding, "padding"), _two(stride, "stride")
    _check_params(kernel, dilation, padding, stride, True)
    shape = x._shape
    if not ((x.dim() == 2 and all(shape)) or (x.dim() == 3 and all(shape[1:]))):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    planes, length = shape[-2:]
    if planes % (kernel[0] * kernel[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={planes} and kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = tuple(_blocks(n, k, d, p, s) for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))
    geometry = (f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
                f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
                f"stride=({stride[0]}, {stride[1]}), ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(geometry + f"expected size of input's dimension 2 to match the calculated number of "
                                      f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                                      f"input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(geometry + f"calculated shape of the array of sliding blocks as ({blocks[0]}, {blocks[1]}), "
                                      f"which is too small (non-positive)")
    _check_dtype(x, "col2im")
    batched = x.dim() == 3
    n = shape[0] if batched else 1
    c = planes // (kernel[0] * kernel[1])
    out_shape = (n, c) + size
    with no_grad():
        cols = V.reshape(x, (n, c) + kernel + blocks)
        out = C._fresh(C._col2im(cols, out_shape, stride, padding, dilation), out_shape if batched else out_shape[1:])
    if needs_grad(x):
        record(Col2ImBackward0, (x,), (out,), kernel=kernel, dilation=dilation, padding=padding, stride=stride)
    return out
