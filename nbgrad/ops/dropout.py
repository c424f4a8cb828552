"""Dropout, in two layers as PyTorch has it.

ATen's ops (torch.dropout, alpha_dropout, feature_dropout, feature_alpha_dropout and their
in-place forms) are one function, `dropout_impl` (ATen's _dropout_impl): its probability check
(a RuntimeError), input itself when not training (or p is 0, or input is empty), input times a
0-dim zero of its dtype when p is 1, else input times noise drawn per element or, for feature
dropout, per (sample, channel) (and + b for alpha dropout, SELU's: dropped values at the
negative saturation value -alpha', an affine map keeping zero mean and unit variance).

nn.functional's dropout, alpha_dropout, feature_alpha_dropout, dropout1d, dropout2d and
dropout3d are PyTorch's Python over those ops, in its order: its own probability check (a
ValueError), the input's rank where it reads one, `if inplace:`, then the op through nbgrad's
public function, whose argument parser reads input, p and train before anything else
(F.dropout(x, 0.5, 1) is "dropout(): argument 'train' (position 3) must be bool, not int").
"""
import math

from .._warnings import warn_user

# SELU's alpha * scale: the value a SELU unit saturates at is -_ALPHA
_ALPHA = 1.7580993408473766


def dropout_impl(input, p, train, feature, alpha, inplace):
    """ATen's _dropout_impl (see the module's docstring)."""
    if not (p >= 0 and p <= 1):         # (NaN too, as ATen's TORCH_CHECK(p >= 0 && p <= 1))
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    from .._creation import zeros
    if p == 1:
        z = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(z) if inplace else input * z
    from ..autograd.grad_mode import no_grad
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    with no_grad():
        noise = input.new_empty(shape).bernoulli_(1 - p)
        if alpha:
            a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
            b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
            noise.mul_(a)
        else:
            noise.div_(1 - p)
    out = input.mul_(noise) if inplace else input * noise
    return out.add_(b) if alpha else out


# -- nn.functional's Python

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _op(name, inplace):
    """nbgrad's public torch.<name> (its in-place form where `if inplace:` holds): the op whose
    argument parser PyTorch's Python calls."""
    import nbgrad
    return getattr(nbgrad, name + "_" if inplace else name)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (input itself when not training)."""
    _check_p(p)
    return _op("dropout", inplace)(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _op("alpha_dropout", inplace)(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _op("feature_alpha_dropout", inplace)(input, p, training)


def _unbatched_feature_dropout(input, p, training, inplace):
    """feature_dropout of an input without a batch dim, given a batch of one."""
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _op("feature_dropout", inplace)(input, p, training)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    dim = input.dim()
    if dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {dim}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if dim == 2:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _op("feature_dropout", inplace)(input, p, training)


def _warn_unexpected_rank(spatial, dim):
    """dropout2d's and dropout3d's deprecation of an input of another rank than theirs."""
    fn, ranks = f"dropout{spatial}d", f"{spatial + 1}D or {spatial + 2}D"
    warn_user(f"{fn}: Received a {dim}-D input to {fn}, which is deprecated and will result in an error in a future "
              f"release. To retain the behavior and silence this warning, please use dropout instead. Note that {fn} "
              f"exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
              f"dimension, and an optional batch dimension (i.e. {ranks} inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    dim = input.dim()
    if dim not in (3, 4):
        _warn_unexpected_rank(2, dim)
    if dim == 3:        # (PyTorch keeps dropout1d's reading of a 3-D input: (N, C, L))
        warn_user("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                  "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                  "This behavior will change in a future release to interpret the input as one without a batch "
                  "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                  "switch to using dropout1d instead.", stacklevel=2)
    return _op("feature_dropout", inplace)(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    dim = input.dim()
    if dim not in (4, 5):
        _warn_unexpected_rank(3, dim)
    if dim != 5:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _op("feature_dropout", inplace)(input, p, training)
