"""The CUDA backend: the contract of nbgrad.backends, done by numba.cuda kernels.

It mirrors nbgrad/backends/cpu file for file; every kernel is a grid-stride
loop (or a block-per-row tree, or a tiled matmul), so small launches cover any
size and the same code runs under Numba's CUDA simulator.  Importing it raises
RuntimeError when numba-cuda or a GPU is missing (see _device.py).
  _device.py       numba.cuda, launch sizes, cached device geometry, the disk cache rule, simulator shims
  allocator.py     the caching device allocator (EMM plugin on a GPU) and its statistics
  memory.py        empty/full/arange, host transfers, __cuda_array_interface__ exchange
  strided_copy.py  copy with cast, fill
  elementwise.py   unary, binary, where (scalar functions shared with the CPU, + GPU twins)
  reduction.py     reduce, max_with_index, softmax (rows: shared-memory trees; columns: a thread per output)
  linalg.py        matmul (shared-memory tiles, register blocking)
  matmul_tiles.py  the matmul's tile configurations, the choice of one, tune() by measurement
  linalg_lapack.py inv, solve, svd, qr, ... staged through the host (the CPU's LAPACK kernels)
  ctc.py           CTC loss staged through the host (the CPU's kernels)
  indexing.py      take, put (atomics for accumulate), put_reduce, nonzero
  sampling.py      manual_seed, get_rng_state, set_rng_state, uniform, normal, randint, randperm (counter-based)
  loss_kernels.py  fused cross-entropy, nll, mse, bce-with-logits (forward and backward)
  optim_kernels.py fused SGD and Adam/AdamW parameter updates, in place
  sorting.py       sort along a dim (a thread per row)
  scan.py          cumulative (cumsum, cumprod: a thread per column)
  fused.py         generated kernels for traced elementwise programs (nbgrad.fuse)
  user_kernels.py  a user's own cuda.jit kernel (nbgrad.custom_op) on contiguous views
"""
from .. import ACCELERATIONS as _ALL_ACCELERATIONS, CAPTURE_FORMS as _CAPTURE_FORMS, REQUIRED as _REQUIRED
from ._device import SIMULATOR, synchronize
from .fused import fused_elementwise
from .norm_kernels import layer_norm_backward, layer_norm_forward
from .elementwise import BINARY_OPS, UNARY_OPS, binary, mul_backward, unary, where
from .indexing import nonzero, put, put_reduce, take
from .linalg import linear_backward, matmul
from .linalg_lapack import (linalg_cholesky, linalg_det, linalg_eigh, linalg_inv, linalg_qr,
                            linalg_slogdet, linalg_solve, linalg_svd)
from .linalg_lapack import linalg_lu_factor, linalg_solve_triangular
from .linalg_lapack import linalg_geqrf, linalg_householder_product, linalg_ldl_factor, linalg_ldl_solve
from .ctc import ctc_loss_backward, ctc_loss_forward
from .loss_kernels import (bce_logits_backward, bce_logits_forward, cross_entropy_backward,
                           cross_entropy_forward, cross_entropy_stats, mse_forward, nll_backward,
                           nll_forward, nll_stats)
from .memory import (arange, cuda_array_interface, empty, from_host, from_numpy, full, tensor_from_cuda_array,
                     to_host, to_numpy)
from .optim_kernels import adam_step, sgd_step
from .reduction import REDUCE_OPS, max_with_index, reduce, softmax, softmax_backward, vector_norm2
from .sampling import get_rng_state, manual_seed, normal, randint, randperm, set_rng_state, uniform
from .sorting import sort
from .scan import cumulative
from .strided_copy import copy, fill
from .user_kernels import run_user_kernel, user_reduce


def _seed_from_default_generator():
    # nbgrad.manual_seed() may have run before this backend was first loaded
    from ..._creation import default_generator
    if default_generator.initial_seed() is not None:
        manual_seed(default_generator.initial_seed())


_seed_from_default_generator()


def _install_float16():
    # float16 is stored as float16 and computed by the float32 kernels (nbgrad/backends/_half.py);
    # the only float16 kernels are the two conversions of the copy kernel
    import numpy as np
    from .._half import install
    from ._device import device_array, to_device
    from .strided_copy import copy as copy_kernel

    def convert(buf, dtype):
        if isinstance(buf, np.ndarray):          # a CPU scalar tensor mixed in
            with np.errstate(over="ignore", invalid="ignore"):
                return to_device(buf.astype(dtype))
        n = buf.size
        out = device_array(n, dtype)
        copy_kernel((buf, 0, (n,), (1,)), (out, 0, (n,), (1,)))
        return out
    install(globals(), lambda buf: convert(buf, np.float32), lambda buf: convert(buf, np.float16),
            lambda buf, dtype: buf.view(dtype))


_install_float16()


def _install_bfloat16():
    # bfloat16 is stored as uint16 words and computed by the float32 kernels, over the
    # float16 wrappers (nbgrad/backends/_bfloat16.py)
    from .._bfloat16 import install_cuda
    install_cuda(globals())


_install_bfloat16()

# This backend offers every optional acceleration of the contract (nbgrad/backends/__init__.py);
# a backend that lacks one leaves it out here and the op layer composes it (NBGRAD_FUSED=0
# composes all of them).
ACCELERATIONS = _ALL_ACCELERATIONS

__all__ = sorted(_REQUIRED | ACCELERATIONS | _CAPTURE_FORMS
                 | {"to_host", "cuda_array_interface", "tensor_from_cuda_array", "synchronize", "SIMULATOR"})

# convolution and pooling (nbgrad/ops/conv.py, pooling.py): imported after the float16
# wrappers are installed, which they do not take (float16 pooling is not supported)
from .conv import conv2d_backward, conv2d_forward  # noqa: E402
from .pooling import avg_pool2d, avg_pool2d_backward, max_pool2d, max_pool2d_backward  # noqa: E402
from .upsample import interp_pass, interp_pass_backward  # noqa: E402
from .grid_sample import grid_sampler_2d, grid_sampler_2d_backward  # noqa: E402
from .pooling_fractional import fractional_max_pool  # noqa: E402  (staged through the host)

# (bfloat16 for the kernels just imported: widened in, rounded once out: _bfloat16.py)
from .._bfloat16 import install_late as _install_late_bfloat16  # noqa: E402
_install_late_bfloat16(globals())
