"""Batch normalization: F.batch_norm with PyTorch's running statistics, checks and one node,
NativeBatchNormBackward0 (inputs: input, weight, bias), composed of Tensor ops.

Training normalises by the batch's biased variance and moves the running statistics
toward the batch's (the unbiased variance) by `momentum`, written straight into their
storage without a version bump, as PyTorch's kernel does; evaluation normalises by the
running statistics.  The backward is PyTorch's batchnorm_backward formula; recorded
(create_graph=True) it computes the batch statistics again from the input so that the
gradient is differentiable in it.
"""
import math

from .. import _dtype as D
from ..autograd.backward_path import FUSED, RECORDED, backward_path
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import accelerated, backend_of, cast, check_no_requires_grad, needs_grad, new_tensor, record
from . import views as V
from .elementwise import rsqrt
from ._dtype_rules import refuse, INTEGRAL

_REDUCED = (D.float16, D.bfloat16)     # computed in float32 (opmath), rounded once


def _stats(x, dims):
    mean = x.mean(dims, keepdim=True)
    centered = x - mean
    return mean, (centered * centered).mean(dims, keepdim=True)


class NativeBatchNormBackward0(Node):
    def backward(self, g):
        x, w, mean, invstd = self.saved_tensors
        dims, training = self.dims, self.training
        need_x, need_w, need_b = self.needs_input_grad(0), self.needs_input_grad(1), self.needs_input_grad(2)
        if training and backward_path(False, g, x, w) is RECORDED:
            mean, var = _stats(x, dims)
            invstd = rsqrt(var + self.eps)
        xhat = (x - mean) * invstd
        # the sums give the training gradient's means too (one reduction each)
        sum_g = g.sum(dims) if need_b or (need_x and training) else None
        sum_gx = (g * xhat).sum(dims) if need_w or (need_x and training) else None
        gx = None
        if need_x:
            scale = invstd if w is None else invstd * V.reshape(w, invstd._shape)
            if training:
                m = x.numel() // x._shape[1]
                gx = scale * (g - V.reshape(sum_g, invstd._shape) / m - xhat * (V.reshape(sum_gx, invstd._shape) / m))
            else:
                gx = g * scale
        gb = sum_g if need_b else None
        gw = sum_gx if need_w else None
        return gx, gw, gb


def _check_size(name, t, c):
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def _write_raw(dst, value):
    """dst's elements = value's, in dst's storage, no version bump (PyTorch's kernel writes so)."""
    value = value.to(dst._dtype) if value._dtype is not dst._dtype else value
    backend_of(dst).copy(V.reshape(value, dst._shape)._view_tuple(), dst._view_tuple())


def float_input(kernel, x):
    """PyTorch's NotImplementedError for a normalisation (or pooling) kernel of an integer or
    bool input (NumPy-style arithmetic would have given a number, or a dtype error of mean())."""
    refuse(kernel, x._dtype, INTEGRAL)


def _verify_batch_size(size):
    """PyTorch's F._verify_batch_size: more than one value per channel (a 0-dim input's size[0]
    is its IndexError)."""
    size_prods = size[0]
    for n in size[2:]:
        size_prods *= n
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """PyTorch's F.batch_norm over dim 1 of an (N, C, ...) input."""
    # PyTorch's Python first (its `if training:` reads a tensor given there), then its parser
    # (ops/_signatures, on the failure path), then ATen's batch_norm
    try:
        if training:
            _verify_batch_size(input.size())
        if training and eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
        elif eps < 0.0:
            raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    except (ValueError, IndexError, RuntimeError) as e:     # (RuntimeError: a tensor's truth there)
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise
    return aten_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _empty_batch_norm(x, weight, bias):
    """PyTorch's _batch_norm_impl_index of an empty input: cloned (not a view, not a new empty
    tensor: the gradient's chain stays), times weight[0], plus bias[0]."""
    out = x.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


def _constant_running_stats(running_mean, running_var):
    """native_batch_norm's autograd refuses running statistics that require grad (they are no
    input of its derivative: a gradient for them would silently be missing)."""
    check_no_requires_grad(running_mean, "running_mean", "native_batch_norm")
    check_no_requires_grad(running_var, "running_var", "native_batch_norm")


def _check_parameter_dtypes(x, *parameters, mixed=True):
    """batch_norm_cpu's rule for its parameters' dtypes: where the first one given has the
    input's dtype, every one must (its kernel's "expected scalar type", mixed=False: checked
    after the dispatch on the input's dtype); else the mixed mode, whose parameters are all
    float32 (a float16 or bfloat16 input with float32 statistics: checked first, mixed=True)."""
    given = [p for p in parameters if p is not None]
    if not given:
        return
    if given[0]._dtype is x._dtype:
        if mixed:
            return
        for p in given:
            if p._dtype is not x._dtype:
                raise RuntimeError(f"expected scalar type {D.scalar_type_name(x._dtype)} but found "
                                   f"{D.scalar_type_name(p._dtype)}")
        return
    if not mixed:
        return
    if any(p._dtype is not D.float32 for p in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x._dtype is not D.float16 and x._dtype is not D.bfloat16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def aten_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, native=False,
                    statistics_dtypes=True):
    """ATen's batch_norm (_batch_norm_impl_index): its checks in its order, then the work; an
    empty input is returned before any check (native=True: native_batch_norm's order, the
    checks first)."""
    x = input
    if x.numel() == 0 and not native:
        return _empty_batch_norm(x, weight, bias)
    one_d = IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if native:
        _constant_running_stats(running_mean, running_var)
        if x.dim() == 0:        # (batch_norm_cpu's DimVector of ndim - 1 reduced dims, first)
            raise RuntimeError("SmallVector unable to grow. Requested capacity (18446744073709551615) is larger "
                               "than maximum value for size type (4294967295)")
        if training and x.dim() < 2:        # (its first read of size(1))
            raise one_d
    # (a 1-D input's features are 0 there: its sizes()[1] is past the end)
    c = x._shape[1] if x.dim() > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            _check_size(name, t, c)
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    _check_size("weight", weight, c)
    _check_size("bias", bias, c)
    if not native:
        _constant_running_stats(running_mean, running_var)
    # (instance_norm's folded call, statistics_dtypes=False: its statistics' dtypes are not checked)
    # batch_norm_cpu's order: in training its statistics' size(1), the dispatch on the input's
    # dtype, the mixed mode's check, then its kernel's size(1) and parameter types
    parameters = (weight, bias, *((running_mean, running_var) if statistics_dtypes else ()))
    if training and x.dim() < 2:
        raise one_d
    float_input("batch_norm", x)
    _check_parameter_dtypes(x, *parameters)
    if x.dim() < 2:
        raise one_d
    _check_parameter_dtypes(x, *parameters, mixed=False)
    if x.numel() == 0:
        return _empty_batch_norm(x, weight, bias)
    dims = (0,) + tuple(range(2, x.dim()))
    bshape = (1, c) + (1,) * (x.dim() - 2)
    with no_grad():
        if training:
            mean, var = _stats(x, dims)
            n = x.numel() // c
            if running_mean is not None:
                _write_raw(running_mean, V.reshape(mean, (c,)) * momentum + running_mean * (1 - momentum))
            if running_var is not None:
                unbiased = var * (n / (n - 1)) if n > 1 else var * math.inf
                _write_raw(running_var, V.reshape(unbiased, (c,)) * momentum + running_var * (1 - momentum))
        else:
            mean = V.reshape(running_mean, bshape).to(x._dtype).clone()
            var = V.reshape(running_var, bshape).to(x._dtype)
        invstd = rsqrt(var + eps)
        scale = invstd if weight is None else invstd * V.reshape(weight, bshape)
        out = (x - mean) * scale
        if bias is not None:
            out = out + V.reshape(bias, bshape)
        if out._dtype is not x._dtype:
            out = cast(out, x._dtype)           # (mixed dtypes: the input's, as layer_norm's)
        out = out.contiguous()
    if needs_grad(x, weight, bias):
        node = record(NativeBatchNormBackward0, (x, weight, bias), (out,), dims=dims, training=bool(training),
                      eps=eps)
        node.save(x, weight, mean, invstd)
    return out


# -- layer normalization ------------------------------------------------------------------------
class NativeLayerNormBackward0(Node):
    """PyTorch's layer_norm node (inputs: input, weight, bias; saved: input, weight, bias and
    the rows' mean and rstd).  Not recorded, its gradients come from one pass per row
    (the backend's layer_norm_backward); recorded (create_graph=True), from Tensor ops of
    the saved values, PyTorch's formula."""

    def backward(self, g):
        x, w, b, mean, rstd = self.saved_tensors
        need_x, need_w, need_b = self.needs_input_grad(0), self.needs_input_grad(1), self.needs_input_grad(2)
        n = self.n
        path = backward_path(lambda: _layer_norm_kernel(x, w, b, "layer_norm_backward") and g._dtype is x._dtype,
                             g, x, w)
        if path is FUSED:
            gc, xc = g.contiguous(), x.contiguous()
            wc = None if w is None else w.contiguous()
            dx, dw, db = backend_of(x).layer_norm_backward(
                gc._storage.buffer, gc._offset, xc._storage.buffer, xc._offset, x.numel() // n if n else 0, n,
                None if wc is None else _flat(wc), _flat(mean.contiguous()), _flat(rstd.contiguous()),
                need_x, need_w and w is not None, need_b and b is not None)
            return (None if dx is None else new_tensor(dx, x._shape, x._dtype, x.device),
                    None if dw is None else new_tensor(dw, w._shape, w._dtype, w.device),
                    None if db is None else new_tensor(db, b._shape, b._dtype, b.device))
        dims = self.dims
        lead = tuple(range(x.dim() - len(dims)))
        half = x._dtype is D.float16 or x._dtype is D.bfloat16
        if half:                # (in float32, as the forward; each gradient in its input's dtype)
            x, g, mean, rstd = (t.float() for t in (x, g, mean, rstd))
            w = None if w is None else w.float()
        if path is RECORDED:    # the statistics again from x, so that the gradient is differentiable in it
            mean, rstd = _moments(x, dims, self.eps)
        xhat = (x - mean) * rstd
        gx = gw = gb = None
        if need_x:
            gy = g if w is None else g * w
            gx = rstd * (gy - gy.mean(dims, keepdim=True) - xhat * (gy * xhat).mean(dims, keepdim=True))
        if need_w and w is not None:
            gw = (g * xhat).sum(lead) if lead else g * xhat
        if need_b and b is not None:
            gb = g.sum(lead) if lead else g
        if half:
            x0, w0, b0 = self.saved_tensors[:3]
            gx = None if gx is None else gx.to(x0.dtype)
            gw = None if gw is None else gw.to(w0.dtype)
            gb = None if gb is None else gb.to(b0.dtype)
        return gx, gw, gb


def _moments(x, dims, eps):
    """The rows' mean and 1 / sqrt(biased variance + eps), kept as dims of size 1."""
    mean = x.mean(dims, keepdim=True)
    centered = x - mean
    return mean, rsqrt((centered * centered).mean(dims, keepdim=True) + eps)


def _flat(t):
    """A contiguous tensor's elements as a 1-D buffer slice."""
    return t._storage.buffer[t._offset:t._offset + t.numel()]


def _layer_norm_kernel(x, w, b, which="layer_norm_forward"):
    """Whether the backend's one-pass layer norm `which` (its forward or its backward) serves
    these operands (float32/float64 on a device that offers it, weight and bias of x's dtype)."""
    from .. import _dtype as D
    return (x._dtype in (D.float32, D.float64) and accelerated(x, which)
            and all(t is None or (t._dtype is x._dtype and t.device == x.device) for t in (w, b)))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """PyTorch's F.layer_norm: the last len(normalized_shape) dims normalised by their mean and
    biased variance, then scaled by weight and shifted by bias; one node,
    NativeLayerNormBackward0.  The result is row-major (PyTorch's kernel reads X contiguous)."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    k = len(normalized_shape)
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != normalized_shape or k == 0:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    if not input._dtype.is_floating_point:
        if any(t is not None and t.dtype is not input.dtype for t in (weight, bias)):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        float_input("LayerNormKernelImpl", input)
    axis = input.dim() - k
    dims = tuple(range(axis, input.dim()))
    n = math.prod(normalized_shape)
    stat_shape = tuple(input.shape[:axis]) + (1,) * k
    with no_grad():
        x = input.contiguous()
        if _layer_norm_kernel(x, weight, bias):
            w = None if weight is None else _flat(weight.contiguous())
            bb = None if bias is None else _flat(bias.contiguous())
            y, mean, rstd = backend_of(x).layer_norm_forward(x._storage.buffer, x._offset, x.numel() // n if n else 0,
                                                             n, w, bb, eps)
            out = new_tensor(y, x._shape, x._dtype, x.device)
            mean = new_tensor(mean, stat_shape, x._dtype, x.device)
            rstd = new_tensor(rstd, stat_shape, x._dtype, x.device)
        else:
            # float16 in float32 (PyTorch's opmath), rounded once at the end: the statistics
            # of a half row in half lost its gradient (sign and all, against float64's)
            xo = cast(x, D.float32) if x._dtype in _REDUCED else x
            mean, rstd = _moments(xo, dims, eps)
            out = (xo - mean) * rstd
            if weight is not None:
                out = out * (cast(weight, D.float32) if weight._dtype in _REDUCED else weight)
            if bias is not None:
                out = out + (cast(bias, D.float32) if bias._dtype in _REDUCED else bias)
            if out._dtype is not x._dtype:
                # (a float16 input with float32 weight or bias too: PyTorch's mixed-dtype kernel
                # writes the input's dtype, and keeps float32 statistics)
                out = cast(out, x._dtype)
                if not any(t is not None and t._dtype is not x._dtype for t in (weight, bias)):
                    mean, rstd = cast(mean, x._dtype), cast(rstd, x._dtype)
            out = out.contiguous()
    if needs_grad(input, weight, bias):
        node = record(NativeLayerNormBackward0, (input, weight, bias), (out,), n=n, dims=dims, eps=eps)
        node.save(input, weight, bias, mean, rstd)
    return out
