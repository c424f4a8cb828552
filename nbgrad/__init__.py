"""nbgrad: an autograd engine with PyTorch's API and semantics whose numerical work runs in
Numba kernels.  This file only re-exports; see docs/ARCHITECTURE.md for the map."""
from ._dtype import (dtype, bool_ as bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
                     get_default_dtype, set_default_dtype, promote_types)
from ._dtype import float32 as float, float64 as double, float16 as half, int32 as int, int64 as long
from ._dtype import int16 as short
from ._size import Size, device, set_default_device, get_default_device
from ._layout import memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d
from ._tensor import Tensor, _install_methods

_install_methods()

from ._creation import (tensor, as_tensor, asarray, from_numpy, zeros, ones, empty, empty_strided, full, zeros_like,
                        ones_like, empty_like, full_like, rand_like, randn_like, randint_like, arange,
                        linspace, logspace, eye, manual_seed, seed, initial_seed, rand, randn, randint,
                        randperm, normal, Generator, default_generator)
from .autograd import no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode
from .autograd.grad_mode import is_inference_mode_enabled
from .autograd.anomaly_mode import is_anomaly_enabled, set_detect_anomaly, detect_anomaly
from . import autograd
from .ops.elementwise import (add, sub, mul, div, floor_divide, remainder, pow, neg, abs, exp, exp2, log, log2,
                              log10, log1p, expm1, sqrt, rsqrt, sin, cos, tan, asin, acos, atan, sinh, cosh,
                              tanh, sigmoid, relu, sign, sgn, floor, ceil, round, trunc, reciprocal, square, erf,
                              atan2, clamp, clamp_min, clamp_max, maximum, minimum, where, masked_fill, eq,
                              ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, logical_not,
                              bitwise_not, bitwise_and, bitwise_or, bitwise_xor, isnan, isinf, isfinite, rsub,
                              logit, xlogy, hypot, lerp)
# the activations PyTorch also has at the top level (torch.selu, torch.prelu, ...)
from .ops.tabled import (celu, celu_, hardshrink, prelu, rrelu, rrelu_, selu, selu_,  # noqa: E402
                         threshold, threshold_)
from .ops.elementwise import subtract, mul as multiply, div as divide, div as true_divide
from .ops.elementwise import clamp as clip, neg as negative, abs as absolute, gt as greater, lt as less
from .ops.reduction import (sum, mean, prod, max, min, amax, amin, argmax, argmin, all, any, var, std,
                            logsumexp, softmax, log_softmax)
from .ops import _dim_required
# torch.softmax / log_softmax take no implicit dim (F's keep the legacy one, with its warning)
softmax, log_softmax = _dim_required(softmax), _dim_required(log_softmax)
from .ops.linalg import matmul, mm, bmm, mv, dot, outer, ger
from .ops.linalg_decomp import det, inverse, torch_slogdet as slogdet, tensor_norm as norm, torch_cross as cross
from . import linalg
from .ops.sorting import sort, argsort, topk
from .ops.views import (flatten, unflatten, squeeze, unsqueeze, transpose, permute, t, movedim, narrow,
                        select, unbind, split, chunk, tensor_split, diagonal, as_strided, reshape,
                        broadcast_to)
from .ops.views import transpose as swapaxes, transpose as swapdims, split_function as split
from .ops.indexing import (index_select, gather, scatter, scatter_add, index_add, take, masked_select, nonzero,
                           argwhere, nonzero_static, cat, concat, concatenate, stack, hstack, vstack, index_put)
from .ops.copying import clone
from .ops.rearranging import tril, triu, flip, roll, repeat_interleave, tile, meshgrid, tril_indices, triu_indices
from .ops.einsum import einsum
from .ops.cumulative import cumsum, cumprod
from .ops.comparison import equal, isclose, allclose
from ._legacy import (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor,
                      CharTensor, ByteTensor, BoolTensor, set_default_tensor_type)
from .ops.counting import unique, bincount, histc, histogram
from .ops.fusion import fuse
from ._dlpack import from_dlpack
from .ops.user_elementwise import elementwise
from .ops.custom import custom_op
from .ops.user_reduction import reduction
from .ops.elementwise import _result_type as _rt2
from ._dtype import finfo, iinfo
from ._dtype import public_can_cast as can_cast
from . import cuda, distributed, nn, optim, utils
from .serialization import save, load
from ._parallel import get_num_threads, set_num_threads, set_flush_denormal
from ._format import set_printoptions


def result_type(tensor1, tensor2):
    """PyTorch's result_type for two tensors or numbers."""
    return _rt2(tensor1, tensor2)


def broadcast_shapes(*shapes):
    """PyTorch's torch.broadcast_shapes (torch._refs._broadcast_shapes): ints are 1-d shapes,
    None is skipped, dims are matched from the last, and its messages."""
    import builtins                     # (max, int, range: nbgrad's own names in this module)
    from collections.abc import Sequence
    shapes = tuple((s,) if isinstance(s, builtins.int) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * builtins.max(len(shape) for shape in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in builtins.range(-1, -1 - len(shape), -1):
            n = shape[idx]
            if n == common[idx]:
                continue
            if common[idx] == 1:
                if n < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = n
            if n != 1 and common[idx] != n:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {idx}! Mismatching "
                                   f"argument at index {arg_idx} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    return Size(common)


def broadcast_tensors(*tensors):
    from .ops._graph import broadcast_shapes as _broadcast      # (TensorIterator's messages)
    shape = _broadcast(*[t.shape for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(t):
    return t.is_floating_point()


def numel(t):
    return t.numel()


def detach(t):
    return t.detach()


def relu_(t):
    return t.relu_()


def zero_(t):
    return t.zero_()


# issue 14: PyTorch's aliases and more composed functions (ops/more.py)
from .ops.elementwise import acos as arccos, asin as arcsin, atan as arctan, atan2 as arctan2
from .ops.views import movedim as moveaxis
from .ops.more import ravel, fliplr, flipud, positive
from .ops.more import (addmm, addmv, addr, baddbmm, addbmm, addcmul, addcdiv, diag, diag_embed, diagflat, trace,
                       diff, rot90, kron, inner, take_along_dim, nan_to_num, nansum, nanmean, count_nonzero,
                       heaviside, signbit, copysign, deg2rad, rad2deg, frac, fmod, logaddexp, logaddexp2,
                       matrix_power, hsplit, vsplit, dsplit, cummax, cummin, logcumsumexp)
from .ops.elementwise import asinh, acosh, atanh, erfc, erfinv
from .ops.elementwise import asinh as arcsinh, acosh as arccosh, atanh as arctanh
from .ops.more import median, nanmedian, mode, kthvalue, quantile, nanquantile, bernoulli, multinomial
from .ops.more import std_mean, var_mean
from .ops.more import searchsorted, bucketize, msort, cartesian_prod
from .ops.distance import cosine_similarity, pairwise_distance, pdist
from .ops.more_functions import (tensordot, isin, aminmax, block_diag, cov, corrcoef, trapezoid, trapz,
                                 cumulative_trapezoid)
from .ops.indexing import scatter_reduce, index_copy, masked_scatter
from .ops.linalg_more import (cdist, dist, renorm, chain_matmul, logdet, pinverse, cholesky_inverse,
                              cholesky_solve, vdot, triangular_solve, lu_unpack, matrix_exp, adjoint)
from .ops.linalg_more import torch_lu as lu, torch_lu_solve as lu_solve
from .ops.linalg_householder import geqrf, orgqr
from .ops.weight_norm import norm_except_dim, _weight_norm, _weight_norm_interface
from ._compile import CompileError, compile  # noqa: A001  (torch.compile's name)
# misc-fns: more small functions (ops/misc_functions.py)
from .ops.misc_functions import (combinations, unique_consecutive, unravel_index, column_stack, row_stack, dstack,
                                 atleast_1d, atleast_2d, atleast_3d, diagonal_scatter, select_scatter,
                                 slice_scatter, index_fill, index_reduce, put, split_with_sizes, unsafe_chunk,
                                 unsafe_split, unsafe_split_with_sizes)
from .ops.misc_elementwise import (float_power, fmax, fmin, gcd, gcd_, lcm, lcm_, ldexp, ldexp_, frexp, nextafter,
                                   bitwise_left_shift, bitwise_right_shift, isneginf, isposinf, isreal)
from .ops import toplevel as _TOPLEVEL
globals().update({_n: _f for _n, _f in _TOPLEVEL.inplace_functions().items() if _n not in globals()})
globals().update({_n: getattr(_TOPLEVEL, _n) for _n in _TOPLEVEL.NAMES})
from .ops.windows import hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window
from ._random_more import get_rng_state, set_rng_state, poisson, binomial
from . import _random_more as _RANDOM_MORE
Generator.get_state, Generator.set_state = _RANDOM_MORE._generator_get_state, _RANDOM_MORE._generator_set_state

# PyTorch's special functions (the op table's rows, ops/special_functions.py) and torch.special
from .ops.elementwise import lgamma, digamma, i0, sinc, angle
from .ops.torch_level import (svd, qr, cholesky, is_complex, is_conj, is_neg, is_signed, is_same_size, is_nonzero,
                              conj, resolve_conj, resolve_neg, conj_physical, real, imag, narrow_copy, get_device,
                              strided)
from .ops.special_functions import polygamma, mvlgamma
from .ops.torch_level import typename
from .ops.inplace import fill
from ._creation import range_ as range     # noqa: A001  (torch.range: this module's code calls builtins.range)
from .ops import view_copies as _VIEW_COPIES
globals().update(_VIEW_COPIES.functions())    # torch.permute_copy, torch.split_copy, ...
from ._creation import scalar_tensor, empty_permuted
from ._settings import (use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                        is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                        get_deterministic_debug_mode, set_float32_matmul_precision, get_float32_matmul_precision,
                        set_warn_always, is_warn_always_enabled)
from .utils import deterministic as _deterministic_switch  # noqa: F401  (nbgrad.utils.deterministic)
from .ops.special_functions_more import igamma, igammac
from .ops.ctc import torch_ctc_loss as ctc_loss
from . import special

from .ops.numerical_more import (gradient, histogramdd, vander, native_layer_norm, native_batch_norm,  # noqa: E402
                                  native_group_norm, native_dropout)
from ._lowrank import svd_lowrank, pca_lowrank  # noqa: E402
from ._lobpcg import lobpcg  # noqa: E402
# torch.autocast and its switches (nbgrad/amp: the ops it casts test one flag while it is off)
from .amp.autocast_mode import (autocast, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,  # noqa: E402
                                set_autocast_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled,
                                clear_autocast_cache, autocast_increment_nesting, autocast_decrement_nesting,
                                is_autocast_cpu_enabled, get_autocast_cpu_dtype)

# small PyTorch names programs use (nbgrad/_compat_more.py); importing it registers nbgrad.cpu,
# nbgrad.cpu.amp and nbgrad.cuda.amp (the deprecated autocast spellings)
from ._compat_more import (frombuffer, cond, is_storage, get_num_interop_threads,  # noqa: E402
                           set_num_interop_threads, pi, e, inf, nan, newaxis, sym_int, sym_float, sym_max,
                           sym_min, sym_not, get_autocast_gpu_dtype, TypedStorage, cpu)
from . import _compat_more as _COMPAT_MORE  # noqa: E402
cuda.amp = _COMPAT_MORE.cuda_amp
Tensor.pin_memory, Tensor.is_pinned, Tensor.storage = (_COMPAT_MORE.pin_memory, _COMPAT_MORE.is_pinned,
                                                       _COMPAT_MORE.storage)
nn.DataParallel = nn.parallel.DataParallel = _COMPAT_MORE.DataParallel
del _COMPAT_MORE

# the public functions with PyTorch's keywords (input=, other=, axis=, keepdims=) and out=
from .ops._signatures import public_functions as _public_functions
globals().update(_public_functions(globals()))

__version__ = "0.1.0"

# PyTorch's submodules that most programs never touch load on first use (nbgrad/_lazy.py)
from ._lazy import lazy_submodules as _lazy_submodules
_lazy_submodule = _lazy_submodules(__name__, ("distributions", "func", "testing", "random", "profiler", "library",
                                              "multiprocessing", "jit"))


def __getattr__(name):
    if name == "vmap":          # torch.vmap is torch.func.vmap (nbgrad.func loads on first use)
        return _lazy_submodule("func").vmap
    return _lazy_submodule(name)


# built-in nodes' PyTorch-named saved values (grad_fn._saved_self, ...) as class properties
from .autograd import _saved_names as _saved_names_module
_saved_names_module.install()
del _saved_names_module

# the objects that live as long as the process, out of the cyclic collector's full walks (_gc.py)
from . import _gc
_gc.freeze_static_heap()
