"""nbgrad.nn.utils: gradient clipping, parameters as one vector, sequence padding,
parametrizations (weight_norm, spectral_norm, orthogonal) and their deprecated hook forms."""
from . import rnn, parametrize, parametrizations
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import weight_norm, remove_weight_norm, spectral_norm, remove_spectral_norm
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .skip_init import skip_init

from ..._lazy import lazy_submodules as _lazy_submodules
__getattr__ = _lazy_submodules(__name__, ("stateless", "prune"))   # loaded on first use, as few programs need them
