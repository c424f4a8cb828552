"""Transposed convolution: conv_transpose2d (conv_transpose1d over a unit height,
conv_transpose3d per kernel depth offset) with
PyTorch's arguments, checks and node (ConvolutionBackward0, as PyTorch records it through
`convolution` with transposed=True).

A transposed convolution is a convolution's input gradient: its forward is the backend's
conv2d_backward (input part) with the input as the "gradient", its input gradient is the
convolution of the gradient with the same weight (conv2d_forward), its weight gradient is
the convolution's weight gradient with the roles of input and gradient swapped.  Without
the accelerations (NBGRAD_FUSED=0, other dtypes) and when the backward is recorded, the
same three are the composed im2col/col2im Tensor ops of nbgrad/ops/conv.py.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..amp import autocast_mode as _amp  # the autocast hook: one truth test while off
from ..autograd.backward_path import FUSED, backward_path
from ..autograd.grad_mode import no_grad
from . import conv as C
from . import views as V
from ._graph import accelerated, backend_of, check_same_device, needs_grad, new_tensor, record
from ._dtype_rules import check as check_dtype, check_same_dtype


def _check(x, w, b, stride, padding, output_padding, dilation, groups, n):
    """PyTorch's checks of a transposed convolution in torch 2.13's order (Convolution.cpp's
    check_shape_forward first); returns the output's spatial sizes."""
    sizes = C._sizes
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w._shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {sizes(w._shape)} instead")
    if w._shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{sizes(w._shape)}] instead")
    if x._shape[1] != w._shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {sizes(w._shape)}, expected input{sizes(x._shape)} "
                           f"to have {w._shape[0]} channels, but got {x._shape[1]} channels instead")
    co = w._shape[1] * groups
    if b is not None and (b.dim() != 1 or b._shape[0] != co):
        raise RuntimeError(f"Given transposed=1, weight of size {sizes(w._shape)}, expected bias to be "
                           f"1-dimensional with {co} elements, but got bias of size {sizes(b._shape)} instead")
    if x.numel() == 0 and x._shape[0] and x._shape[1]:
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{sizes(x._shape)}")
    if n == 3:
        return _check3d(x, w, b, stride, padding, output_padding, dilation)
    # then slow_conv_transpose2d's own checks (a 1-D one is checked as 2-D with a unit height),
    # with the dtype checks where torch 2.13 meets them
    unit = ((1,), (0,)) if n == 1 else ((), ())
    dil2, op2, s2 = unit[0] + tuple(dilation), unit[1] + tuple(output_padding), unit[0] + tuple(stride)
    k2 = unit[0] + tuple(w._shape[2:])
    if min(k2) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k2[0]} "
                           f"kernel_width: {k2[1]}")
    if any(d <= 0 for d in dil2):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dil2[0]}, "
                           f"dilation_width: {dil2[1]}")
    if any(op >= s and op >= d for op, s, d in zip(op2, s2, dil2)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_height: {op2[0]} output_padding_width: {op2[1]} stride_height: {s2[0]} "
                           f"stride_width: {s2[1]} dilation_height: {dil2[0]} dilation_width: {dil2[1]}")
    if w.numel() == 0:
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {sizes(w._shape)}")
    if b is not None and b._dtype is not x._dtype:
        names = {D.float32: "Float", D.float64: "Double", D.float16: "Half", D.int64: "Long", D.int32: "Int"}
        raise RuntimeError(f"Input type (torch.{names.get(x._dtype, x._dtype.name)}Tensor) and bias type "
                           f"(torch.{names.get(b._dtype, b._dtype.name)}Tensor) should be the same or input should "
                           f"be a MKLDNN tensor and bias is a dense tensor")
    out = _out_sizes(x._shape[2:], w._shape[2:], stride, padding, output_padding, dilation)
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x._shape[2:]))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, out))}). Output size is too small")
    check_dtype("conv_transpose2d", x._dtype)
    check_same_dtype(x._dtype, w._dtype)
    return out


def _check3d(x, w, b, stride, padding, output_padding, dilation):
    """slow_conv_transpose3d's shape checks, in its order; returns the output's sizes."""
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_depth: {dilation[0]}, "
                           f"dilation_height: {dilation[1]}, dilation_width: {dilation[2]}")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_depth: {output_padding[0]} output_padding_height: {output_padding[1]} "
                           f"output_padding_width: {output_padding[2]} stride_depth: {stride[0]} stride_height: "
                           f"{stride[1]} stride_width: {stride[2]} dilation_depth: {dilation[0]} dilation_height: "
                           f"{dilation[1]} dilation_width: {dilation[2]}")
    if w.numel() == 0:
        raise RuntimeError("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
                           f"kernel_width) tensor expected for weight, but got: {C._sizes(w._shape)}")
    out = _out_sizes(x._shape[2:], w._shape[2:], stride, padding, output_padding, dilation)
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x._shape[2:]))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, out))}). Output size is too small")
    check_dtype("conv_transpose3d", x._dtype)
    check_same_dtype(x._dtype, w._dtype)
    if b is not None:
        check_same_dtype(x._dtype, b._dtype)
    return out


def _out_sizes(sizes, kernel, stride, padding, output_padding, dilation):
    return tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for i, k, s, p, op, d in zip(sizes, kernel, stride, padding, output_padding, dilation))


class ConvolutionBackward0(C.ConvolutionBackward0):
    """The transposed convolution's node (PyTorch's name; inputs: input, weight, bias)."""

    def backward(self, g):
        x, w = self.saved_tensors
        need_x, need_w, need_b = self.needs_input_grad(0), self.needs_input_grad(1), self.needs_input_grad(2)
        args = (self.stride, self.padding, self.dilation, self.groups)
        unit = self.unit
        in_hw = tuple(x._shape[2:]) if not unit else (1, x._shape[2])
        path = backward_path(lambda: accelerated(g, "conv2d_backward") and accelerated(g, "conv2d_forward"), g, x, w)
        gx = gw = None
        if path is FUSED and g._dtype is x._dtype and x._dtype in C._KERNEL_DTYPES:
            g4, x4, w4 = (C._dense_4d(t, unit) for t in (g, x, w))
            be, dev, dt = backend_of(g), g.device, g._dtype
            if need_x:      # the convolution of the gradient: exactly the input's positions
                gx = new_tensor(be.conv2d_forward(g4._view_tuple(), w4._view_tuple(), None, *args, in_hw),
                                x._shape, dt, dev)
            if need_w:      # the convolution's weight gradient, the input acting as its gradient
                gw = new_tensor(be.conv2d_backward(x4._view_tuple(), g4._view_tuple(), w4._view_tuple(), *args,
                                                   False, True, False)[1], w._shape, dt, dev)
        else:
            g4, x4, w4 = (C._as_2d(t, unit) for t in (g, x, w))
            if need_x:
                gx = C._composed_forward(g4, w4, None, *args, in_hw)
                gx = V.reshape(gx, x._shape) if unit else gx
            if need_w:
                gw = C._composed_weight_grad(x4, g4, w4._shape, *args)
                gw = V.reshape(gw, w._shape) if unit else gw
        gb = g.sum((0, 2, 3) if not unit else (0, 2)) if need_b else None
        return gx, gw, gb


def _conv_transpose(x, w, b, stride, padding, output_padding, dilation, groups, out_hw, unit):
    """The transposed convolution of a batched input (checked already), in conv2d's geometry."""
    x4, w4 = C._dense_4d(x, unit), C._dense_4d(w, unit)
    co = w._shape[1] * groups
    shape4 = (x._shape[0], co) + tuple(out_hw)
    shape = (x._shape[0], co, out_hw[1]) if unit else shape4
    if x._dtype in C._KERNEL_DTYPES and accelerated(x, "conv2d_backward"):
        # the convolution's input gradient; its "input" view only gives the shape (not read)
        wb = w4._view_tuple()
        buf = backend_of(x).conv2d_backward(x4._view_tuple(), (wb[0], 0, shape4, None), wb, stride, padding,
                                            dilation, groups, True, False, False)[0]
        out = new_tensor(buf, shape, x._dtype, x.device)
        if b is not None:
            with no_grad():
                out.add_(V.reshape(b, (co,) + (1,) * (len(shape) - 2)))
    else:
        with no_grad():
            out = C._composed_input_grad(x4, w4, shape4, stride, padding, dilation, groups)
            if b is not None:
                out = out + V.reshape(b, (co, 1, 1))
            out = C._fresh(out, shape)
    if needs_grad(x, w, b):
        node = record(ConvolutionBackward0, (x, w, b), (out,), stride=stride, padding=padding, dilation=dilation,
                      groups=groups)
        if unit:
            node.unit = True
        node.save(x, w)
    return out


# conv_transpose3d, as conv3d (ops/conv.py) is built: conv_transpose2d once per kernel depth
# offset kd over the input's depth slices stacked into the batch; input slice i lands at
# output depth i * sD - pD + kd * dD, so each kd's result is added at stride sD into a buffer
# deep enough for every offset, which the padding then crops.  Its node's gradients are the
# adjoints: the input's is conv3d of the gradient with the same weight, the weight's is
# conv3d's weight gradient with the gradient as its input and the input as its gradient.
class ConvTranspose3dBackward(C.ConvolutionBackward0):
    def backward(self, g):
        x, w = self.saved_tensors
        args = (self.stride, self.padding, self.dilation, self.groups)
        if x.numel() == 0:
            # nothing went in (an empty batch): zeros, without conv3d's refusal of an output
            # depth (1 for an empty input depth) below the kernel's
            from .._creation import zeros_like
            return (zeros_like(x) if self.needs_input_grad(0) else None,
                    zeros_like(w) if self.needs_input_grad(1) else None,
                    g.sum((0, 2, 3, 4)) if self.needs_input_grad(2) else None)
        gx = C.conv3d(g, w, None, *args) if self.needs_input_grad(0) else None
        gw = C._conv3d_grads(x, g, w, args, False, True, False)[1] if self.needs_input_grad(1) else None
        gb = g.sum((0, 2, 3, 4)) if self.needs_input_grad(2) else None
        return gx, gw, gb


ConvTranspose3dBackward.__name__ = "ConvolutionBackward0"


def _conv_transpose3d(x, w, b, stride, padding, output_padding, dilation, groups, out_sizes):
    from .._creation import zeros
    n, d = x._shape[0], x._shape[2]
    cout, kd_n = w._shape[1] * groups, w._shape[2]
    od, oh, ow = out_sizes
    with no_grad():
        # (float16 too in its own dtype: nearer PyTorch's col2vol sums than float32 is)
        x2 = C.depth_batch(x, 0, 1, d)
        depth = (d - 1) * stride[0] + (kd_n - 1) * dilation[0] + 1 + output_padding[0]
        acc = zeros((n, cout, depth, oh, ow), dtype=x._dtype, device=x.device)
        for kd in range(kd_n):
            part = conv_transpose2d(x2, V.select(w, 2, kd), None, stride[1:], padding[1:], output_padding[1:], groups,
                                    dilation[1:])
            C.depth_slices(acc, kd * dilation[0], stride[0], d).add_(C.depth_unbatched(part, n, d))
        out = V.slice_dim(acc, 2, padding[0], padding[0] + od)
        if b is not None:
            out = out + V.reshape(b, (cout, 1, 1, 1))
        out = C._fresh(out, (n, cout) + tuple(out_sizes))
    if needs_grad(x, w, b):
        record(ConvTranspose3dBackward, (x, w, b), (out,), stride=stride, padding=padding, dilation=dilation,
               groups=groups).save(x, w)
    return out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """PyTorch's F.conv_transpose2d: input (N, Cin, H, W) or (Cin, H, W), weight (Cin, Cout/groups, KH, KW)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """PyTorch's F.conv_transpose1d: conv_transpose2d over a unit height."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """PyTorch's F.conv_transpose3d: input (N, Cin, D, H, W) or (Cin, D, H, W), weight
    (Cin, Cout/groups, KD, KH, KW)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def _conv_transposend(x, w, b, stride, padding, output_padding, groups, dilation, n):
    if _amp.ON: x, w, b = _amp.cast_lower(x, w, b)
    name = f"conv_transpose{n}d"
    for what, t in (("input", x), ("weight", w)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{what}' (position {1 if t is x else 2}) must be Tensor, "
                            f"not {type(t).__name__}")
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    check_same_device(x, w, b)
    if x.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input "
                           f"of size: {C._sizes(x._shape)}")
    if w.dim() != n + 2:
        k = max(w.dim() - 2, 0)
        value = stride if isinstance(stride, (tuple, list)) else (stride,) * n
        raise RuntimeError(f"expected stride to be a single integer value or a list of {k} values to match the "
                           f"convolution dimensions, but got stride={list(value)}")
    stride, padding = C._pair(stride, "stride", n), C._pair(padding, "padding", n)
    output_padding, dilation = C._pair(output_padding, "output_padding", n), C._pair(dilation, "dilation", n)
    groups = int(groups)
    unbatched = x.dim() == n + 1
    if unbatched:
        x = V.unsqueeze(x, 0)
    out_sizes = _check(x, w, b, stride, padding, output_padding, dilation, groups, n)
    if n == 1:
        out = _conv_transpose(x, w, b, (1,) + stride, (0,) + padding, (0,) + output_padding, (1,) + dilation,
                              groups, (1,) + out_sizes, True)
    elif n == 3:
        out = _conv_transpose3d(x, w, b, stride, padding, output_padding, dilation, groups, out_sizes)
    else:
        out = _conv_transpose(x, w, b, stride, padding, output_padding, dilation, groups, out_sizes, False)
    return V.squeeze(out, 0) if unbatched else out
