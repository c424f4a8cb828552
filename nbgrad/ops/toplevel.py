"""PyTorch's module-level spellings of existing ops: the in-place functions (torch.abs_(t) is
t.abs_()), the comparison aliases, fix, and the nn functions torch also exposes at the top
level with ATen's own signatures (reduction as an int, torch.dropout(input, p, train) without
defaults, torch.embedding(weight, indices, ...) with the weight first, batch_norm and
instance_norm with every argument given, ...), each calling nbgrad.nn.functional; and ATen's
ops torch keeps at the top level for the JIT (convolution, conv_tbc, the rnn cells,
frobenius_norm/nuclear_norm, native_channel_shuffle) over the same functions."""
from .._tensor import Tensor
from .dropout import dropout_impl

# every torch.X_ that is a Tensor method in nbgrad (enumerated against torch 2.13's dir(torch))
INPLACE_NAMES = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ ceil_ "
    "clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ floor_ frac_ "
    "index_put_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ rsqrt_ "
    "sigmoid_ sin_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ fix_ sinc_ i0_ as_strided_ resize_as_").split()


def _inplace_function(name):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, ...): input.{name}(...)."
    return fn


def inplace_functions():
    return {name: _inplace_function(name) for name in INPLACE_NAMES}


def _method_alias(name, method):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, method)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


greater_equal = _method_alias("greater_equal", "ge")
less_equal = _method_alias("less_equal", "le")
not_equal = _method_alias("not_equal", "ne")
fix = _method_alias("fix", "trunc")


def _F():
    from ..nn import functional
    return functional


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
# torch.<loss>(...) without a reduction does not reduce: ATen's schemas say reduction=Mean, but
# the Python binding's default is 0 (Reduction::None), as PyTorch 2.13 behaves (recorded in
# tests/equivalence/test_api_fuzz_findings.py); F.<loss>'s default stays "mean"
_NONE = 0


def _reduction(name, reduction):
    """ATen's Reduction enum (an int) as F's string.  ATen's apply_loss_reduction takes the mean
    for 1, the sum for 2 and any other int as no reduction, as these composite losses do."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' must be int, not {type(reduction).__name__}")
    return _REDUCTIONS.get(reduction, "none")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _F().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as ATen's adaptive_max_pool1d always returns both."""
    return tuple(_F().adaptive_max_pool1d(input, output_size, return_indices=True))


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """ATen's batch_norm: without F.batch_norm's Python checks (its batch size, its eps)."""
    from .normalization import aten_batch_norm
    return aten_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """ATen's instance_norm: without F.instance_norm's spatial check."""
    from .normalization_more import aten_instance_norm
    return aten_instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    from .normalization_more import aten_group_norm
    return aten_group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


# ATen's dropout ops (ops/dropout.dropout_impl; F.dropout & co. are PyTorch's Python over these)
def dropout(input, p, train):
    return dropout_impl(input, p, train, False, False, False)


def dropout_(input, p, train):
    return dropout_impl(input, p, train, False, False, True)


def alpha_dropout(input, p, train):
    return dropout_impl(input, p, train, False, True, False)


def alpha_dropout_(input, p, train):
    return dropout_impl(input, p, train, False, True, True)


def feature_dropout(input, p, train):
    return dropout_impl(input, p, train, True, False, False)


def feature_dropout_(input, p, train):
    return dropout_impl(input, p, train, True, False, True)


def feature_alpha_dropout(input, p, train):
    return dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout_(input, p, train):
    return dropout_impl(input, p, train, True, True, True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """ATen's embedding (weight first).  ATen never checks padding_idx: only its backward reads
    it, skipping the rows equal to it, so one outside [0, rows) (-1 included) is none; F.embedding's
    own range assertion is not ATen's."""
    from ._graph import needs_grad
    if needs_grad(weight):      # (its autograd saves weight.size(0) before the op's checks)
        weight.size(0)
    rows = weight.shape[0] if isinstance(weight, Tensor) and weight.dim() == 2 else 0
    return _F().embedding(indices, weight, padding_idx if 0 <= padding_idx < rows else None,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def pixel_shuffle(input, upscale_factor):
    return _F().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):
    return _F().channel_shuffle(input, groups)


def bilinear(input1, input2, weight, bias=None):
    return _F().bilinear(input1, input2, weight, bias)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=_NONE):
    from .loss import bce_with_logits       # (ATen's op: F's equal-size check is F's own)
    return bce_with_logits(input, target, weight, pos_weight, _reduction("binary_cross_entropy_with_logits", reduction))


def kl_div(input, target, reduction=_NONE, *, log_target=False):
    return _F().kl_div(input, target, reduction=_reduction("kl_div", reduction), log_target=log_target)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=_NONE):
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction("cosine_embedding_loss", reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=_NONE):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=_NONE):
    from .loss_more import margin_ranking           # (ATen's op: F's equal-rank check is F's own)
    return margin_ranking(input1, input2, target, margin, _reduction("margin_ranking_loss", reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction("poisson_nll_loss", reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=_NONE):
    from .loss_more import aten_triplet_margin_loss
    return aten_triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    _reduction("triplet_margin_loss", reduction))


def constant_pad_nd(input, pad, value=0):
    return _F().pad(input, pad, "constant", value)


# -- ATen ops torch exposes at the top level (JIT-era spellings of existing functions) ------------
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def native_channel_shuffle(input, groups):
    """channel_shuffle's values under ATen's node for native_channel_shuffle, which has no
    derivative (its backward refuses)."""
    from ..autograd.grad_mode import no_grad
    from ._graph import NotImplementedNode, needs_grad, record
    with no_grad():
        out = _F().channel_shuffle(input, groups)
    if needs_grad(input):
        record(NotImplementedNode, (input,), (out,), op_name="native_channel_shuffle")
    return out


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """ATen's convolution: the conv (or, transposed, the conv_transpose) of weight's spatial rank."""
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    n = weight.dim() - 2
    F = _F()
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return (F.conv1d, F.conv2d, F.conv3d)[n - 1](input, weight, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):
    """The 1-D convolution of a (time, batch, channel) input by a (width, in, out) weight,
    `pad` zeros at each end of time: conv1d of the permuted operands (ConvTbcBackward0)."""
    from .more import renamed
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    length = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if length < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {length}: "
                           f"[{length}, {input.shape[1]}, {weight.shape[2]}]")
    if pad < 0:         # (ATen's kernel reads only the part of the input a negative pad leaves)
        input = input[-pad:input.shape[0] + pad]
        pad = 0
    from .composite import one_node        # (PyTorch's ConvTbcBackward0: one node from its three inputs)
    return one_node("ConvTbcBackward0", lambda x, w, b: _F().conv1d(x.permute(1, 2, 0), w.permute(2, 1, 0), b,
                                                                    padding=pad).permute(2, 0, 1),
                    input, weight, bias)


def frobenius_norm(input, dim, keepdim=False):
    from .._warnings import warn_once
    from .linalg_decomp import vector_norm
    from .more import renamed
    warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It "
              "will be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` "
              "instead")
    if isinstance(dim, int):            # (an int[1]: one int is the list of it)
        dim = (dim,)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    return renamed(vector_norm(input, 2, tuple(dim), keepdim), "NormBackward1")      # (ATen's at::norm)


def nuclear_norm(input, dim=None, keepdim=False):
    """torch.nuclear_norm(input, keepdim=False) or (input, dim, keepdim=False)."""
    from .._warnings import warn_once
    from .linalg_decomp import matrix_norm
    warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will "
              "be removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` "
              "instead")
    if isinstance(dim, bool):           # (the overload without dim: its keepdim by position)
        dim, keepdim = None, dim
    if isinstance(dim, int):            # (an int[2] of one int: PyTorch's parser repeats it)
        dim = (dim, dim)
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def _cell_checks(input, states, w_ih, w_hh, gates):
    """ATen's checks of a cell's input, weights and hidden states, in each cell's order (the
    hidden size is w_hh's second dim): rnn cells weights first, lstm_cell its input then
    weights, gru_cell its input, hidden states, then weights."""
    def check_input():
        if input.size(1) != w_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")

    def check_weights(hidden):
        for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
            if w.size(0) != gates * hidden:
                raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = {gates * hidden}, but got "
                                   f"{w.shape[0]}")

    def check_hidden(hidden):
        for i, h in enumerate(states):
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                                   f"{h.shape[0]}")
            if h.size(1) != hidden:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected {hidden}")

    if gates == 1:
        check_weights(w_hh.size(1))
    check_input()
    hidden = w_hh.size(1)
    if gates == 4:
        check_weights(hidden)
    check_hidden(hidden)
    if gates == 3:
        check_weights(hidden)


def _cell(name, gates, step, relu=None):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        from ..nn.modules import rnn
        states = list(hx) if gates == 4 else [hx]
        if gates == 4 and len(states) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        _cell_checks(input, states, w_ih, w_hh, gates)
        gi = _F().linear(input, w_ih, b_ih)
        fn = getattr(rnn, step)
        if gates == 4:
            return fn(gi, states[0], states[1], w_hh, b_hh, None)
        return fn(gi, states[0], w_hh, b_hh) if gates == 3 else fn(gi, states[0], w_hh, b_hh, relu)
    cell.__name__ = cell.__qualname__ = name
    cell.__doc__ = f"torch.{name}: one step of nn's cell with the weights given."
    return cell


lstm_cell = _cell("lstm_cell", 4, "_lstm_step")
gru_cell = _cell("gru_cell", 3, "_gru_step")
rnn_tanh_cell = _cell("rnn_tanh_cell", 1, "_rnn_step", relu=False)
rnn_relu_cell = _cell("rnn_relu_cell", 1, "_rnn_step", relu=True)

# the functions this file gives under their own names
NAMES = ("conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d max_pool1d max_pool2d "
         "max_pool3d avg_pool1d adaptive_avg_pool1d adaptive_max_pool1d batch_norm instance_norm layer_norm "
         "group_norm rms_norm dropout dropout_ alpha_dropout alpha_dropout_ feature_alpha_dropout "
         "feature_alpha_dropout_ feature_dropout feature_dropout_ embedding pixel_shuffle pixel_unshuffle "
         "channel_shuffle bilinear binary_cross_entropy_with_logits kl_div cosine_embedding_loss "
         "hinge_embedding_loss margin_ranking_loss poisson_nll_loss triplet_margin_loss constant_pad_nd "
         "max_pool1d_with_indices native_channel_shuffle convolution conv_tbc frobenius_norm nuclear_norm "
         "lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell greater_equal less_equal not_equal fix").split()
