"""nbgrad.nn.functional: stateless layers and losses (PyTorch's names and signatures)."""
from .. import _dtype as D
from ..ops import elementwise as _E, linalg as _L
from ..ops.loss import (binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss, nll_loss,  # noqa: F401
                        _reduction)
from ..ops.linear_cross_entropy import linear_cross_entropy  # noqa: F401,E402
from ..ops.loss_more import (binary_cross_entropy, cosine_embedding_loss, gaussian_nll_loss,  # noqa: F401
                             hinge_embedding_loss, huber_loss, kl_div, margin_ranking_loss,
                             multilabel_soft_margin_loss, poisson_nll_loss, smooth_l1_loss, soft_margin_loss)
from ..ops.loss_more import (multi_margin_loss, multilabel_margin_loss, triplet_margin_loss,  # noqa: F401
                             triplet_margin_with_distance_loss)
from ..ops.ctc import ctc_loss  # noqa: F401


def relu(input, inplace=False):
    return input.relu_() if inplace else _E.relu(input)


def relu_(input):
    return input.relu_()


def sigmoid(input):
    return input.sigmoid()          # (PyTorch's F.sigmoid is the method call: an int's AttributeError)


# the op table's activations (nbgrad/ops/optable.py), with PyTorch's signatures
from ..ops.tabled import (celu, celu_, elu, gelu, hardshrink, hardsigmoid, hardswish, hardtanh,  # noqa: E402,F401
                          leaky_relu, logsigmoid, mish, prelu, rrelu, rrelu_, selu, selu_, silu, softplus, softshrink,
                          threshold, threshold_)
# convolution networks (nbgrad/ops/conv.py, padding.py)
from ..ops.conv import conv1d, conv2d, conv3d  # noqa: E402,F401
from ..ops.conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d  # noqa: E402,F401
from ..ops.fold import fold, unfold  # noqa: E402,F401
from ..ops.upsample import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: E402,F401
from ..ops.grid_sample import affine_grid, grid_sample  # noqa: E402,F401
from ..ops.padding import pad  # noqa: E402,F401
from ..ops.pooling import adaptive_avg_pool2d, avg_pool2d, max_pool2d, max_pool2d_with_indices  # noqa: E402,F401
from ..ops.pooling3d import (adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,  # noqa: E402,F401
                              avg_pool3d, max_pool3d, max_pool3d_with_indices)
from ..ops.normalization import batch_norm, layer_norm  # noqa: E402,F401
from ..ops.dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,  # noqa: E402,F401
                           feature_alpha_dropout)
from ..ops.embedding import embedding, embedding_bag  # noqa: E402,F401
from ..ops.glu import glu  # noqa: E402,F401
from ..ops.pooling_more import (adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d,  # noqa: E402,F401
                                avg_pool1d, max_pool1d)


# PyTorch's *_with_indices names: the pool with return_indices=True, always
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)
from ..ops.normalization_more import group_norm, instance_norm  # noqa: E402,F401
from ..ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle  # noqa: E402,F401
from ..ops.distance import cosine_similarity, normalize, pairwise_distance, pdist  # noqa: E402,F401
from ..ops._dtype_rules import check as check_dtype


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """PyTorch's F.elu_ is ATen's elu_ itself: its scale and input_scale too."""
    from ..ops.tabled import TABLE, _inplace_or_not, _tensor_arg
    return _inplace_or_not(TABLE["elu"], _tensor_arg("elu_", input),
                           {"alpha": alpha, "scale": scale, "input_scale": input_scale}, True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    from ..ops.tabled import hardtanh_op
    return hardtanh_op(input, min_val, max_val, inplace=True)



def tanh(input):
    return input.tanh()             # (PyTorch's F.tanh is the method call: an int's AttributeError)


def _get_softmax_dim(name, ndim, stacklevel):
    """PyTorch's legacy implicit dim (0 for 0-, 1- and 3-dim inputs, else 1), with its warning.
    (Its callers read input.dim() first, as PyTorch's: a non-tensor's AttributeError.)"""
    import operator
    from .._warnings import warn
    # (warnings.warn reads stacklevel with __index__: a tensor of many elements is its TypeError)
    warn("implicit_softmax_dim", stacklevel=operator.index(stacklevel) + 1, name=name)
    return 0 if ndim in (0, 1, 3) else 1


# (PyTorch's softmax, log_softmax and softmin call the Tensor methods: an int's AttributeError)
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax distribution, composed as PyTorch's: Gumbel(0, 1) noise
    -log(Exp(1)), softmax((logits + noise) / tau); hard: the one-hot of the argmax, with the
    soft sample's gradient (y_hard - y_soft.detach() + y_soft)."""
    if eps != 1e-10:
        from .._warnings import warn
        warn("gumbel_eps", stacklevel=3)
    from .._creation import zeros
    gumbels = -logits.new_empty(logits.shape).exponential_().log()     # ~Gumbel(0, 1)
    gumbels = (logits + gumbels) / tau                                  # ~Gumbel(logits, tau)
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft                                                   # the reparametrization trick
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros(logits.shape, dtype=logits.dtype, device=logits.device).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft                            # straight through


def linear(input, weight, bias=None):
    """input @ weight.T + bias (one op with a fused backward: nbgrad.ops.linalg.linear)."""
    return _L.linear(input, weight, bias)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x * rsqrt(mean(x^2 over the last len(normalized_shape) dims) + eps) * weight, composed as
    PyTorch's CompositeImplicit rms_norm (nodes PowBackward0, MeanBackward1, AddBackward1,
    RsqrtBackward0, MulBackward0; half types computed in float32 and cast back: ToCopyBackward0);
    eps None -> finfo(input.dtype).eps (float32's for half)."""
    if isinstance(normalized_shape, int):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    normalized_shape = tuple(int(n) for n in normalized_shape)
    n = len(normalized_shape)
    check_dtype("rms_norm", input.dtype)
    if n == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(normalized_shape)}")
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(normalized_shape)}")
    if input.dim() < n:
        raise ValueError(f"Input tensor must have at least {n} dimensions, but got {input.dim()}")
    if tuple(input.shape[input.dim() - n:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*{', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    dtype = input.dtype
    check_dtype("rms_norm", dtype)
    import numpy as np
    low = dtype is D.float16
    if eps is None:     # the eps of the type it computes in (float32 for half), as PyTorch's opmath
        eps = float(np.finfo(np.float32 if low else dtype.np).eps)
    dims = tuple(range(input.dim() - n, input.dim()))
    x = input.to(D.float32) if low else input
    rstd = _E.rsqrt(_E.add_scalar(x.pow(2).mean(dims, keepdim=True), eps))
    out = x * rstd
    if low:
        if weight is not None:
            return (out * weight.to(D.float32)).to(dtype)
        return out.to(dtype)
    if weight is not None:
        out = out * weight
    return out


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def one_hot(tensor, num_classes=-1):
    from .._creation import arange
    from .._checks import is_int, is_integer_tensor
    from .._tensor import Tensor
    if isinstance(tensor, Tensor) and not (is_int(num_classes) or is_integer_tensor(num_classes)):
        raise TypeError(f"one_hot(): argument 'num_classes' (position 2) must be int, not {type(num_classes).__name__}")
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes < 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        lo, hi = int(tensor.min()), int(tensor.max())
        if lo < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes < 0:
            num_classes = hi + 1
        elif hi >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == arange(num_classes)).long()


# activations PyTorch composes in Python (their nodes are the composed ones: NegBackward0 then
# SoftmaxBackward0, DivBackward0, SubBackward0) or routes through hardtanh (relu6)
def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


from ..ops.layers_more import (bilinear, channel_shuffle, local_response_norm, lp_pool1d,  # noqa: E402,F401
                               lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d, max_unpool3d)
from ._attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: E402,F401
from ..ops.pooling_fractional import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: E402,F401
                                     fractional_max_pool3d, fractional_max_pool3d_with_indices)


# every public function here refuses an argument that is not a tensor where it reads one as
# PyTorch's F does: TypeError naming the argument, not an AttributeError from inside
from ..ops._signatures import with_tensor_arguments as _with_tensor_arguments  # noqa: E402
globals().update(_with_tensor_arguments(globals(), __name__))
