"""F.dropout1d, F.dropout2d, F.dropout3d: whole channels zeroed with probability p, the rest scaled by 1/(1-p)
(PyTorch's feature dropout: one Bernoulli draw per (sample, channel), broadcast over the spatial
dims); F.alpha_dropout, F.feature_alpha_dropout: SELU's dropout, dropped values set to the
negative saturation value -alpha' and an affine map that keeps zero mean and unit variance
(ATen's _dropout_impl, step for step)."""
import math

from .._warnings import warn_user as _warn_user

# SELU's alpha * scale: the value a SELU unit saturates at is -_ALPHA
_ALPHA = 1.7580993408473766


def dropout2d(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    dim = input.dim()
    if dim not in (3, 4):
        _warn_user(f"dropout2d: Received a {dim}-D input to dropout2d, which is deprecated and will result in "
                   "an error in a future release. To retain the behavior and silence this warning, please use "
                   "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                   "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                   "inputs).", stacklevel=2)
    if dim == 3:
        _warn_user("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                   "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                   "This behavior will change in a future release to interpret the input as one without a batch "
                   "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                   "switch to using dropout1d instead.", stacklevel=2)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    from ..autograd.grad_mode import no_grad
    shape = tuple(input.shape[:2]) + (1,) * (dim - 2) if dim >= 2 else tuple(input.shape)
    with no_grad():
        mask = input.new_empty(shape).bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    dim = input.dim()
    if dim not in (4, 5):
        _warn_user(f"dropout3d: Received a {dim}-D input to dropout3d, which is deprecated and will result in "
                   "an error in a future release. To retain the behavior and silence this warning, please use "
                   "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                   "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                   "inputs).", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, dim == 5)


def _feature_dropout(input, p, training, inplace, batched):
    """Feature dropout of a batched input, or of an unbatched one given a batch of one."""
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, True, False, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, feature, alpha, inplace):
    """ATen's _dropout_impl: identity when not training (or p is 0, or input is empty), input * 0
    when p is 1, else input * noise (+ b for alpha dropout), noise drawn per element or, for
    feature dropout, per (sample, channel)."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
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


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    dim = input.dim()
    if dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {dim}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, dim == 3)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, True, True, inplace)
