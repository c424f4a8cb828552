"""The last nn layers of issue 14, written as PyTorch writes them: bilinear (at::bilinear over a
flattened batch, its _trilinear contraction shown as TrilinearBackward0), channel_shuffle (a
reshape, a transpose and a copy shown as ChannelShuffleBackward0), max_unpool1d/2d (a scatter by
max_pool's indices, one node MaxUnpool2DBackward0 whose backward gathers), lp_pool1d/2d and
local_response_norm (F's compositions of avg_pool)."""
import math
from .._checks import ntuple as _ntuple
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import check_same_device, needs_grad, record
from .more import renamed


# -- bilinear ----------------------------------------------------------------------------------
def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]."""
    from .einsum import einsum
    from .. import _dtype as D
    same = input1.dtype is input2.dtype is weight.dtype and (bias is None or bias.dtype is input1.dtype)
    if not same:
        names = [("input1", input1), ("input2", input2), ("weight", weight)] + ([("bias", bias)] if bias is not None
                                                                               else [])
        raise RuntimeError("All tensors must have the same dtype, got " +
                           ", ".join(f"{n}: {D.cpp_type_name(t.dtype)}" for n, t in names))
    d1, d2 = input1.dim(), input2.dim()
    if d1 != d2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {d1} and {d2}")
    for i in range(d1 - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
                           f"expected {weight.shape[0]}")
    out_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = renamed(einsum("bi,oij,bj->bo", x1, weight, x2), "TrilinearBackward0").reshape(out_shape)
    return out if bias is None else out + bias


# -- channel shuffle ---------------------------------------------------------------------------
def channel_shuffle(input, groups):
    """(N, g * k, *) -> channels reordered k-major: channel i * g + j <- j * k + i."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    c = input.shape[1]
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    from .composite import one_node         # (PyTorch's ChannelShuffleBackward0 saves no tensor)
    return one_node("ChannelShuffleBackward0", lambda t: t.reshape(n, groups, c // groups, *rest).transpose(1, 2)
                    .contiguous().reshape(t.shape), input, saves=False)


# -- max unpool ----------------------------------------------------------------------------------
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """F's _unpool_output_size: the default sizes from the input's trailing ones (too few
    dims is the size tuple's IndexError, as in PyTorch), a given output_size checked against
    them, and none negative."""
    k = len(kernel_size)
    sizes = input.size()
    default = [(sizes[-k + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(k)]
    if output_size is None:
        _check_unpool_output_size(default, k)
        return default
    if len(output_size) == k + 2:
        output_size = output_size[2:]
    if len(output_size) != k:
        raise ValueError(f"output_size should be a sequence containing {k} or {k + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(k):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not (lo < output_size[d] < hi):
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    _check_unpool_output_size(output_size, k)
    return output_size


def _check_unpool_output_size(output_size, k):
    """torch._check_value(output_size[d] >= 0, ...) for each of the k kernel dims: a condition
    that is not a bool (a tensor's comparison) is _check_value's TypeError."""
    from .._tensor import Tensor
    for d in range(k):
        n = output_size[d]
        cond = n >= 0
        if not isinstance(cond, bool):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true."
                            if isinstance(cond, Tensor) else f"cond must be a bool, but got {type(cond)}")
        if not cond:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={n}")


class MaxUnpool2DBackward0(Node):
    def backward(self, g):
        shape, idx = self.in_shape, self.index
        return g.reshape(idx.shape[0], -1).gather(1, idx).reshape(shape), None


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    pass


def _max_unpool2d(input, indices, output_size):
    return _max_unpool(input, indices, output_size, 2)


def _max_unpool(input, indices, output_size, n, stride=None, padding=None):
    """Each plane's values scattered to their indices in zeros of output_size (2 or 3 dims),
    with max_unpooling2d's / max_unpooling3d's checks in PyTorch's order."""
    from .._checks import int_tuple       # (its op's parser: F computed the sizes, a float stride's too)
    output_size = int_tuple(tuple(output_size), f"max_unpool{n}d", "output_size", 3)
    if stride is not None:
        stride = int_tuple(tuple(stride), f"max_unpool{n}d", "stride", 4)
        padding = int_tuple(tuple(padding), f"max_unpool{n}d", "padding", 5)
    from .. import _dtype as D
    from .._creation import zeros
    if indices.dtype is not D.int64:
        raise RuntimeError("elements in indices should be type int64" +
                           (f" but got: {D.scalar_type_name(indices.dtype)}" if n == 2 else ""))
    nd = input.dim()
    if n == 2:
        if len(output_size) != 2:
            raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                               f"{len(output_size)} elements.")
        if nd not in (3, 4):
            raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {nd} "
                               "dimensions.")
    else:
        if nd not in (4, 5):
            raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {nd} "
                               "dimensions.")
        if len(output_size) != 3:
            raise RuntimeError(f"There should be exactly three elements (depth, height, width) in output_size, but "
                               f"got {len(output_size)} elements.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    for i in range(1, nd):
        if input.shape[i] <= 0:
            raise RuntimeError(f"max_unpooling{n}d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {list(input.shape)} with dimension {i} being empty.")
    if stride is not None and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    check_same_device(input, indices)
    sizes = [int(s) for s in output_size]
    planes = input.shape[:-n]
    if math.prod(sizes) * math.prod(planes) and not input.dtype.is_floating_point:
        from ._dtype_rules import not_implemented        # (its kernel's dispatch: floating types only)
        raise not_implemented(f"max_unpool{n}d", input.dtype)
    with no_grad():
        idx = indices.reshape(-1, math.prod(input.shape[-n:]))
        bad = (idx < 0) | (idx >= math.prod(sizes))
        if math.prod(sizes) and bool(bad.any()):      # (an output of no elements: PyTorch writes nothing)
            first = int(idx[bad][0])
            # (PyTorch's 2-D message leaves its parenthesis open; which invalid index its
            # threads report first varies)
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               f"{'x'.join(map(str, sizes))}{')' if n == 3 else ''}")
        out = zeros(idx.shape[0], math.prod(sizes), dtype=input.dtype, device=input.device)
        if math.prod(sizes):
            out = out.scatter(1, idx, input.detach().reshape(idx.shape))
        out = out.reshape(*planes, *sizes)
    if needs_grad(input):
        record(MaxUnpool2DBackward0 if n == 2 else MaxUnpool3DBackward0, (input, indices), (out,),
               in_shape=tuple(input.shape), index=idx)
    return out


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel_size = _ntuple(kernel_size, 3)
    stride = _ntuple(stride, 3) if stride is not None else kernel_size
    padding = _ntuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, size, 3, stride, padding)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel_size = _ntuple(kernel_size, 2)
    stride = _ntuple(stride, 2) if stride is not None else kernel_size
    padding = _ntuple(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel_size = _ntuple(kernel_size, 1)
    stride = _ntuple(stride, 1) if stride is not None else kernel_size
    padding = _ntuple(padding, 1)
    size = list(_unpool_output_size(input, kernel_size, stride, padding, output_size)) + [1]
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


# -- power-average pooling, local response normalisation ---------------------------------------
def _lp_tail(out, n, norm_type):
    from .elementwise import relu, sign
    return (sign(out) * relu(out.abs())).mul(n).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over the window of x^p)^(1/p), as avg_pool1d(x^p) * k, its sign kept (PyTorch's)."""
    # (the public functions: their parser's checks are PyTorch's next word after its Python's)
    from ..nn.functional import avg_pool1d, max_pool1d
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_tail(out, kernel_size, norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    from ..nn.functional import avg_pool2d, max_pool2d
    kw, kh = _ntuple(kernel_size, 2)
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_tail(out, kw * kh, norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    from ..nn.functional import avg_pool3d, max_pool3d
    kd, kw, kh = _ntuple(kernel_size, 3)
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_tail(out, kd * kw * kh, norm_type)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta (zero-padded window),
    as PyTorch's Python composes it: avg_pool2d over (N, 1, C, L) for a 3-d input, avg_pool3d over
    (N, 1, C, D, rest) for more dims, each through its public form (its parser reads the window)."""
    from ..nn.functional import avg_pool2d, avg_pool3d, pad
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
