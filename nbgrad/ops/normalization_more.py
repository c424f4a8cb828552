"""group_norm and instance_norm, composed from Tensor ops (group_norm shown as PyTorch's
NativeGroupNormBackward0) and, for instance_norm, over batch_norm exactly as PyTorch's
at::instance_norm does it: the (N, C) instances folded into the channels of one batch."""
import math

from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from .normalization import _verify_batch_size, aten_batch_norm, float_input


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of C / num_groups channels of each sample, then the per-channel affine:
    PyTorch's Python (the input's rank, one value per channel), then ATen's group_norm."""
    x = input
    try:
        if x.dim() < 2:
            raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.dim()}")
        _verify_batch_size([x.size(0) * x.size(1) // num_groups, num_groups] + list(x.size()[2:]))
    except (ValueError, RuntimeError, ZeroDivisionError) as e:
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise
    return aten_group_norm(x, num_groups, weight, bias, eps)


def aten_group_norm(input, num_groups, weight, bias, eps):
    """ATen's group_norm (torch.group_norm's): check_group_norm_inputs, then the kernel's dtype."""
    x = input
    c = x.shape[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(x.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(x.shape)}")
    float_input("GroupNormKernelImpl", x)
    from .composite import one_node        # (one node from input, weight and bias, as native_group_norm's)
    return one_node("NativeGroupNormBackward0", lambda x, w, b: _group_norm(x, num_groups, w, b, eps),
                    input, weight, bias)


def _group_norm(x, num_groups, weight, bias, eps):
    n, c = x.shape[0], x.shape[1]
    half = x.dtype is D.float16     # (in float32, rounded once: PyTorch's opmath, as layer_norm)
    # (the group's size spelled out: -1 is ambiguous when the batch is empty)
    groups = (x.float() if half else x).reshape(n, num_groups, x.numel() // (n * num_groups) if n else 0)
    mean = groups.mean(-1, keepdim=True)
    centered = groups - mean
    var = (centered * centered).mean(-1, keepdim=True)
    out = (centered * (var + eps).rsqrt()).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(bshape)
    if bias is not None:
        out = out + bias.reshape(bshape)
    if out.dtype is not x.dtype:
        out = out.to(x.dtype)       # (float16 input, float32 weights too: the input's dtype)
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) over its spatial elements; with running statistics,
    their update is the mean over the batch of each instance's update (PyTorch's)."""
    # PyTorch's Python (`if use_input_stats:` reads a tensor given there), its parser (on the
    # failure path), then ATen's instance_norm
    if use_input_stats and math.prod(input.size()[2:]) == 1:
        e = ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise e
    return aten_instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def aten_instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps):
    """ATen's instance_norm (torch.instance_norm's): its check, the sizes, then batch_norm's
    over the (1, N * C, ...) fold."""
    x = input
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = x.size(0), x.size(1)
    folded = x.reshape(1, b * c, *x.shape[2:])
    rm = running_mean.repeat(b) if running_mean is not None else None
    rv = running_var.repeat(b) if running_var is not None else None
    w = weight.repeat(b) if weight is not None else None
    bb = bias.repeat(b) if bias is not None else None
    out = aten_batch_norm(folded, rm, rv, w, bb, use_input_stats, momentum, eps, statistics_dtypes=False)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(x.shape)
