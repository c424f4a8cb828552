"""Convolution: conv2d (conv1d is conv2d over a unit height, conv3d conv2d per kernel depth
offset) with PyTorch's arguments,
checks, errors and its one node, ConvolutionBackward0 (inputs: input, weight, bias).

Forward and backward are the backend's conv2d_forward / conv2d_backward accelerations
(nbgrad/backends/__init__.py) when it has them; otherwise, with NBGRAD_FUSED=0, and for a
backward that is itself recorded (create_graph=True), they are composed of Tensor ops:
the input's windows as an as_strided view of the padded input reshaped into columns
(im2col), one batched matmul with the weight, and for the input's gradient the columns'
gradient added back window offset by window offset (col2im).
"""
from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._tensor import Tensor
from ..amp import autocast_mode as _amp  # the autocast hook: one truth test while off
from ..autograd.backward_path import FUSED, backward_path
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import accelerated, backend_of, check_same_device, copy_raw, needs_grad, new_tensor, record, zeros_grad
from . import views as V
from ._dtype_rules import not_implemented, check_same_dtype


def _pair(value, name, n=2):
    if isinstance(value, (tuple, list)):
        value = tuple(int(v) for v in value)
        if len(value) == 1:
            value = value * n
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match "
                               f"the convolution dimensions, but got {name}={list(value)}")
        return value
    return (int(value),) * n


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check(x, w, b, stride, padding, dilation, groups, n=2):
    """PyTorch's convolution checks (Convolution.cpp check_shape_forward), in its order."""
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w._shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_sizes(w._shape)}] instead")
    if x._shape[1] != w._shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(w._shape)}, expected input"
                           f"{_sizes(x._shape)} to have {w._shape[1] * groups} channels, but got {x._shape[1]} "
                           f"channels instead")
    if b is not None and (b.dim() != 1 or b._shape[0] != w._shape[0]):
        raise RuntimeError(f"Given weight of size {_sizes(w._shape)}, expected bias to be 1-dimensional with "
                           f"{w._shape[0]} elements, but got bias of size {_sizes(b._shape)} instead")
    padded = [x._shape[2 + i] + 2 * padding[i] for i in range(n)]
    kernel = [(w._shape[2 + i] - 1) * dilation[i] + 1 for i in range(n)]
    if any(k > p for k, p in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                           f"input size")
    check_same_dtype(x._dtype, w._dtype)
    if b is not None and b._dtype is not x._dtype:
        raise RuntimeError(f"Input type ({D.cpp_type_name(x._dtype)}) and bias type ({D.cpp_type_name(b._dtype)}) "
                           f"should be the same")
    if x._dtype is D.bool_:
        raise not_implemented("compute_columns3d" if n == 3 else "slow_conv2d_cpu", x._dtype)


# the dtypes the backends' kernels take; others (float16, integers) run the composed ops
_KERNEL_DTYPES = (D.float32, D.float64)


def _out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _columns(x, kernel, stride, padding, dilation, groups, out_hw=None):
    """(N, groups, C/groups*KH*KW, OH*OW): every window of the zero-padded input (im2col);
    out_hw: the first OH x OW windows only (default: all that fit)."""
    from .padding import constant_pad_nd
    n, c, h, w = x._shape
    kh, kw = kernel
    if out_hw is None:
        out_hw = (_out_size(h, kh, stride[0], padding[0], dilation[0]),
                  _out_size(w, kw, stride[1], padding[1], dilation[1]))
    oh, ow = out_hw
    xp = constant_pad_nd(x, (padding[1], padding[1], padding[0], padding[0])) if any(padding) else x.contiguous()
    s0, s1, s2, s3 = xp._stride
    cg = c // groups
    win = V.as_strided(xp, (n, groups, cg, kh, kw, oh, ow),
                       (s0, cg * s1, s1, dilation[0] * s2, dilation[1] * s3, stride[0] * s2, stride[1] * s3),
                       xp._offset)
    return V.reshape(win, (n, groups, cg * kh * kw, oh * ow)), (oh, ow)


def _col2im(gcol, shape, stride, padding, dilation):
    """The adjoint of _columns (groups=1): gcol (N, C, KH, KW, OH, OW) added back window offset
    by window offset into zeros of `shape` (N, C, H, W) (Tensor ops: recorded in grad mode)."""
    from .._creation import zeros
    n, c, h, wd = shape
    kh, kw, oh, ow = gcol._shape[2:]
    ph, pw = padding
    acc = zeros((n, c, h + 2 * ph, wd + 2 * pw), dtype=gcol._dtype, device=gcol.device)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            win = V.slice_dim(V.slice_dim(acc, 2, r0, r0 + stride[0] * (oh - 1) + 1, stride[0]),
                              3, c0, c0 + stride[1] * (ow - 1) + 1, stride[1])
            win.add_(gcol[:, :, i, j])
    return V.slice_dim(V.slice_dim(acc, 2, ph, ph + h), 3, pw, pw + wd).contiguous()


def _composed_forward(x, w, b, stride, padding, dilation, groups, out_hw=None):
    co = w._shape[0]
    col, (oh, ow) = _columns(x, w._shape[2:], stride, padding, dilation, groups, out_hw)
    wm = V.reshape(w, (groups, co // groups, -1))
    out = V.reshape(wm @ col, (x._shape[0], co, oh, ow))
    return out if b is None else out + V.reshape(b, (co, 1, 1))


def _composed_weight_grad(g, x, w_shape, stride, padding, dilation, groups):
    """The weight's gradient (Tensor ops): g's rows times the input's columns, summed over samples."""
    n = x._shape[0]
    co = w_shape[0]
    # (the spatial size spelled out: -1 is ambiguous when the batch is empty)
    g4 = V.reshape(g, (n, groups, co // groups, g._shape[2] * g._shape[3]))
    col, _ = _columns(x, w_shape[2:], stride, padding, dilation, groups, tuple(g._shape[2:]))
    return V.reshape((g4 @ V.mT(col)).sum(0), w_shape)


def _composed_input_grad(g, w, x_shape, stride, padding, dilation, groups):
    """The input's gradient (Tensor ops): the weight's transpose times g, added back (col2im)."""
    n, c = x_shape[:2]
    co, cg, kh, kw = w._shape
    oh, ow = g._shape[2:]
    g4 = V.reshape(g, (n, groups, co // groups, oh * ow))
    gcol = V.reshape(V.mT(V.reshape(w, (groups, co // groups, -1))) @ g4, (n, c, kh, kw, oh, ow))
    return _col2im(gcol, x_shape, stride, padding, dilation)


def _composed_backward(g, x, w, stride, padding, dilation, groups, need_x, need_w):
    """(gx, gw) as Tensor ops (recorded when grad mode is on)."""
    gw = _composed_weight_grad(g, x, w._shape, stride, padding, dilation, groups) if need_w else None
    gx = _composed_input_grad(g, w, x._shape, stride, padding, dilation, groups) if need_x else None
    return gx, gw


def _as_2d(t, unit):
    """t with a unit height at dim 2 (conv1d as conv2d), recorded when t requires grad."""
    return V.unsqueeze(t, 2) if unit else t


def _grads(g, x, w, args, need_x, need_w, need_b, unit=False):
    """(gx, gw, gb) of a conv2d (a conv1d's, unit) with arguments args = (stride, padding,
    dilation, groups): the backend's kernel, or Tensor ops (recorded in grad mode)."""
    path = backward_path(lambda: accelerated(g, "conv2d_backward"), g, x, w)
    if path is FUSED and g._dtype is x._dtype and x._dtype in _KERNEL_DTYPES:
        gx, gw, gb = backend_of(g).conv2d_backward(
            _dense_4d(g, unit)._view_tuple(), _dense_4d(x, unit)._view_tuple(), _dense_4d(w, unit)._view_tuple(),
            *args, need_x, need_w, need_b)
        dev, dt = g.device, g._dtype
        return (new_tensor(gx, x._shape, dt, dev) if gx is not None else None,
                new_tensor(gw, w._shape, dt, dev) if gw is not None else None,
                new_tensor(gb, (w._shape[0],), dt, dev) if gb is not None else None)
    gx, gw = _composed_backward(_as_2d(g, unit), _as_2d(x, unit), _as_2d(w, unit), *args, need_x, need_w)
    if unit:
        gx = None if gx is None else V.reshape(gx, x._shape)
        gw = None if gw is None else V.reshape(gw, w._shape)
    gb = g.sum((0, 2, 3) if not unit else (0, 2)) if need_b else None
    return gx, gw, gb


class ConvolutionBackward0(Node):
    unit = False        # a conv1d: the saved tensors and the gradient have no height dim
    depth = False       # a conv3d: conv2d's gradients per depth offset of the kernel (_conv3d)

    def backward(self, g):
        x, w = self.saved_tensors
        need = (self.needs_input_grad(0), self.needs_input_grad(1), self.needs_input_grad(2))
        args = (self.stride, self.padding, self.dilation, self.groups)
        if self.depth:
            return _conv3d_grads(g, x, w, args, *need)
        return _grads(g, x, w, args, *need, unit=self.unit)


def _dense_4d(t, unit):
    """t's values contiguous, as a 4-D tensor (not recorded)."""
    t = t.contiguous() if not t.is_contiguous() else t
    return V.make_view(t, t._shape[:2] + (1,) + t._shape[2:], t._stride[:2] + (0,) + t._stride[2:],
                       t._offset) if unit else t


def _fresh(t, shape):
    """A result tensor of `shape` owning t's values (t: an unrecorded composed result)."""
    if not (t.is_contiguous() and t._offset == 0 and len(t._storage.buffer) == t.numel()):
        t = copy_raw(t)
    return new_tensor(t._storage.buffer, shape, t._dtype, t.device)


def _conv(x, w, b, stride, padding, dilation, groups, unit):
    """The convolution of a batched input with symmetric zero padding (checked already); conv2d's
    geometry (a conv1d's with a unit height in front)."""
    n = x._shape[0]
    x4, w4 = _dense_4d(x, unit), _dense_4d(w, unit)
    oh = _out_size(x4._shape[2], w4._shape[2], stride[0], padding[0], dilation[0])
    ow = _out_size(x4._shape[3], w4._shape[3], stride[1], padding[1], dilation[1])
    shape = (n, w._shape[0], ow) if unit else (n, w._shape[0], oh, ow)
    if x._dtype in _KERNEL_DTYPES and accelerated(x, "conv2d_forward"):
        buf = backend_of(x).conv2d_forward(x4._view_tuple(), w4._view_tuple(),
                                           None if b is None else b.contiguous()._view_tuple(), stride, padding,
                                           dilation, groups, (oh, ow))
        out = new_tensor(buf, shape, x._dtype, x.device)
    else:
        with no_grad():
            out = _fresh(_composed_forward(x4, w4, b, stride, padding, dilation, groups), shape)
    if needs_grad(x, w, b):
        node = record(ConvolutionBackward0, (x, w, b), (out,), stride=stride, padding=padding,
                      dilation=dilation, groups=groups)
        if unit:
            node.unit = True
        node.save(x, w)
    return out


# conv3d as conv2d: the output's depth slice od reads the input's depth slices
# od * sD + kd * dD (kd < KD) through the kernel's depth slices w[:, :, kd].  For each kd the
# input's slices at kd * dD, kd * dD + sD, ... (one per output depth) are stacked into the batch,
# (N * OD, C, H, W), and one conv2d with w[:, :, kd] gives every output slice's share of kd;
# the shares add up.  The gradients are conv2d's per kd, the input's added back at the same
# slices.  KD conv2d calls over N * OD images each: the 2-D kernels' speed, no 3-D kernels.
def depth_slices(t, start, step, count):
    """t's depth (dim 2) slices start + i * step, i < count: a view (conv3d's and
    conv_transpose3d's reads and sums at one kernel depth offset)."""
    return V.slice_dim(t, 2, start, start + step * (count - 1) + 1 if count else start, step)


def depth_batch(t, start, step, count):
    """(N * count, C, H, W): t's depth slices start + i * step, i < count, stacked into the batch
    (a copy; the whole depth with start 0, step 1)."""
    n, c = t._shape[:2]
    slab = depth_slices(t, start, step, count)
    return V.reshape(V.permute(slab, (0, 2, 1, 3, 4)).contiguous(), (n * count, c) + tuple(t._shape[3:]))


def depth_unbatched(t, n, d):
    """(N, C, D, H, W) view of a (N * D, C, H, W) batch of depth slices (depth_batch's inverse)."""
    return V.permute(V.reshape(t, (n, d) + tuple(t._shape[1:])), (0, 2, 1, 3, 4))


def _pad_depth(x, pd):
    from .padding import constant_pad_nd
    return constant_pad_nd(x, (0, 0, 0, 0, pd, pd)) if pd else x


def _out_sizes(x, w, stride, padding, dilation):
    """The output's spatial sizes of a convolution of a batched x with w."""
    return tuple(_out_size(x._shape[2 + i], w._shape[2 + i], stride[i], padding[i], dilation[i])
                 for i in range(x.dim() - 2))


def _conv3d_forward(x, w, b, stride, padding, dilation, groups):
    """conv3d's values (Tensor ops, recorded in grad mode: conv2d's nodes and the slicing)."""
    n, co = x._shape[0], w._shape[0]
    od = _out_sizes(x, w, stride, padding, dilation)[0]
    xp = _pad_depth(x, padding[0])
    acc = None
    for kd in range(w._shape[2]):
        part = conv2d(depth_batch(xp, kd * dilation[0], stride[0], od), V.select(w, 2, kd), None,
                      stride[1:], padding[1:], dilation[1:], groups)
        acc = part if acc is None else acc + part
    out = depth_unbatched(acc, n, od).contiguous()
    return out if b is None else out + V.reshape(b, (co, 1, 1, 1))


def _conv3d_grads(g, x, w, args, need_x, need_w, need_b):
    """(gx, gw, gb) of _conv3d_forward: conv2d's gradients per kernel depth offset (float16's
    summed in float32, as its forward)."""
    from .._creation import zeros
    if g._dtype is D.float16:
        grads = _conv3d_grads(g.float(), x.float(), w.float(), args, need_x, need_w, need_b)
        return tuple(None if t is None else t.half() for t in grads)
    stride, padding, dilation, groups = args
    n, od, d = g._shape[0], g._shape[2], x._shape[2]
    g2 = depth_batch(g, 0, 1, od)
    xp = _pad_depth(x, padding[0])
    args2 = (stride[1:], padding[1:], dilation[1:], groups)
    gxp = zeros(xp._shape, dtype=g._dtype, device=g.device) if need_x else None
    gws = []
    for kd in range(w._shape[2]):
        slab = depth_batch(xp, kd * dilation[0], stride[0], od)
        gx2, gw2, _ = _grads(g2, slab, V.select(w, 2, kd), args2, need_x, need_w, False)
        if need_w:
            gws.append(gw2)
        if need_x:
            depth_slices(gxp, kd * dilation[0], stride[0], od).add_(depth_unbatched(gx2, n, od))
    from .indexing import stack
    gw = stack(gws, 2) if need_w else None
    gx = V.slice_dim(gxp, 2, padding[0], padding[0] + d).contiguous() if need_x else None
    gb = g.sum((0, 2, 3, 4)) if need_b else None
    return gx, gw, gb


def _conv3d(x, w, b, stride, padding, dilation, groups):
    """conv3d of a batched input (checked already), recorded as PyTorch's one node."""
    with no_grad():
        if x._dtype is D.float16:
            # float16 summed in float32 and rounded once (the KD partial sums would round each)
            f32 = [None if t is None else t.float() for t in (x, w, b)]
            values = _conv3d_forward(*f32, stride, padding, dilation, groups).half()
        else:
            values = _conv3d_forward(x, w, b, stride, padding, dilation, groups)
        out = _fresh(values, (x._shape[0], w._shape[0]) + _out_sizes(x, w, stride, padding, dilation))
    if needs_grad(x, w, b):
        node = record(ConvolutionBackward0, (x, w, b), (out,), stride=stride, padding=padding,
                      dilation=dilation, groups=groups)
        node.depth = True
        node.save(x, w)
    return out


class _NoChannelsBackward(Node):
    """The node of a convolution of an input without channels: zero gradients."""

    def backward(self, g):
        return tuple(zeros_grad(t) if self.needs_input_grad(i) else None for i, t in enumerate(self.inputs))


_NoChannelsBackward.__name__ = "ConvolutionBackward0"


def _no_channels(x, w, b, stride, padding, dilation):
    """PyTorch's convolution of an input with 0 channels: an empty output of 0 channels (not
    the weight's count) and zero gradients, its node ConvolutionBackward0."""
    from .._creation import empty
    out = empty((x._shape[0], 0) + _out_sizes(x, w, stride, padding, dilation), dtype=x._dtype, device=x.device)
    if needs_grad(x, w, b):
        record(_NoChannelsBackward, (x, w, b), (out,)).inputs = (x, w, b)     # (their shapes for the zeros)
    return out


def _same_padding(x, kernel, dilation, stride):
    """PyTorch's padding='same': the (left) padding per dim, and the input padded on the
    right/bottom by one more where the total is odd."""
    from .padding import constant_pad_nd
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    if any(d % 2 and k % 2 == 0 for d, k in zip(dilation, kernel)):
        _warn_user("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                   "copy of the input be created", UserWarning, stacklevel=4)
    left = tuple(t // 2 for t in total)
    extra = [t - 2 * lo for t, lo in zip(total, left)]
    if any(extra):
        pads = []
        for e in reversed(extra):
            pads += [0, e]
        x = constant_pad_nd(x, pads)
    return x, left


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """PyTorch's F.conv2d: input (N, C, H, W) or (C, H, W), weight (Co, C/groups, KH, KW)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """PyTorch's F.conv1d: conv2d over a unit height (input (N, C, L) or (C, L))."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """PyTorch's F.conv3d: input (N, C, D, H, W) or (C, D, H, W), weight (Co, C/groups, KD, KH, KW)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3)


def _convnd(x, w, b, stride, padding, dilation, groups, n):
    if _amp.ON: x, w, b = _amp.cast_lower(x, w, b)
    for name, t in (("input", x), ("weight", w)):
        if not isinstance(t, Tensor):
            raise TypeError(f"conv{n}d(): argument '{name}' (position {1 if t is x else 2}) must be Tensor, "
                            f"not {type(t).__name__}")
    check_same_device(x, w, b)
    if x.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv{n}d, but got input "
                           f"of size: {_sizes(x._shape)}")
    if w.dim() != n + 2:
        # PyTorch reads the number of spatial dims off the weight: the arguments then mismatch
        k = max(w.dim() - 2, 0)
        value = stride if isinstance(stride, (tuple, list)) else (stride,) * n
        raise RuntimeError(f"expected stride to be a single integer value or a list of {k} values to match the "
                           f"convolution dimensions, but got stride={list(value)}")
    stride, dilation = _pair(stride, "stride", n), _pair(dilation, "dilation", n)
    groups = int(groups)
    unbatched = x.dim() == n + 1
    if unbatched:
        x = V.unsqueeze(x, 0)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        pad = (0,) * n
        if padding == "same":
            x, pad = _same_padding(x, w._shape[2:], dilation, stride)
    else:
        pad = _pair(padding, "padding", n)
    _check(x, w, b, stride, pad, dilation, groups, n)
    if x._shape[1] == 0:
        out = _no_channels(x, w, b, stride, pad, dilation)
    elif n == 1:
        out = _conv(x, w, b, (1,) + stride, (0,) + pad, (1,) + dilation, groups, True)
    elif n == 3:
        out = _conv3d(x, w, b, stride, pad, dilation, groups)
    else:
        out = _conv(x, w, b, stride, pad, dilation, groups, False)
    return V.squeeze(out, 0) if unbatched else out
