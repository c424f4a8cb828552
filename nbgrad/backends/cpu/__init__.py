"""The CPU backend: the contract of nbgrad.backends, done by Numba kernels.

Kernels are serial and `nogil`; large compute-bound calls are split across a
small thread pool (_threads.py).  Helpers shared with the CUDA backend
(geometry, index walks, reduction steps, loss and optimizer math) are in
../_shared.  One file per kernel template, in the order data flows:
  _threads.py      splitting a large kernel call across threads; owns the thread count
                   (nbgrad.set_num_threads) (plain Python)
  _team.py        matrix products split across spinning native workers that claim pieces
                   (one-thread BLAS each; the caller never waits for a worker that has not begun)
  _allocator.py    output buffers of 128 KiB and more recycled from a pool (plain Python)
  _cache_guard.py  the cache rule: helpers only of the own file or of ../_shared (digest-keyed)
  memory.py        empty/full/arange, zero-copy to_numpy/from_numpy
  strided_copy.py  copy with cast (staged tile transposition), fill
  elementwise.py   unary, binary, where, mul_backward (+ scalar functions and
                   the vectorisable exp/log/tanh/sigmoid)
  reduction.py     reduce, max_with_index, softmax, softmax_backward
  scan.py          cumulative (cumsum, cumprod)
  linalg.py        matmul, linear_backward
  linalg_lapack.py inv, solve, det, slogdet, svd, qr, cholesky, eigh (LAPACK through Numba)
  indexing.py      take, put, put_reduce
  sampling.py      manual_seed, get_rng_state, set_rng_state, uniform, normal, randint, randperm
  loss_kernels.py  fused cross-entropy, nll, mse, bce-with-logits (forward and backward)
  optim_kernels.py fused SGD and Adam/AdamW parameter updates, in place
  norm_kernels.py  layer norm's forward and backward, one pass per row
  ctc.py           CTC loss: the alpha-beta (forward-backward) recursion in log space
  fused.py         generated kernels for traced elementwise programs (nbgrad.fuse)
  user_kernels.py  a user's own njit kernel (nbgrad.custom_op) on views, as NumPy arrays
"""
from .. import ACCELERATIONS as _ALL_ACCELERATIONS, CAPTURE_FORMS as _CAPTURE_FORMS, REQUIRED as _REQUIRED, \
    SHORTCUTS as _SHORTCUTS
from .elementwise import (BINARY_OPS, UNARY_OPS, binary, binary_dense, clamp_dense, mul_backward, mul_backward_dense,
                          unary, unary_dense, where)
from .indexing import put, put_reduce, take
from .linalg import linear_backward, matmul
from .linalg_lapack import (linalg_cholesky, linalg_det, linalg_eigh, linalg_inv, linalg_qr,
                            linalg_slogdet, linalg_solve, linalg_svd)
from .linalg_lapack import linalg_lu_factor, linalg_solve_triangular
from .linalg_lapack import linalg_geqrf, linalg_householder_product
from .linalg_ldl import linalg_ldl_factor, linalg_ldl_solve
from .memory import arange, empty, from_numpy, full, to_numpy
from .reduction import (REDUCE_OPS, arg_dense, max_with_index, reduce, softmax, softmax_backward, total_dense,
                        var_dense, vector_norm2)
from .sampling import get_rng_state, manual_seed, normal, randint, randperm, set_rng_state, uniform
from .strided_copy import copy, fill
from .transfer import from_host, nonzero
from .sorting import TIE_ORDERS, sort
from .scan import cumulative
from .loss_kernels import (bce_logits_backward, bce_logits_forward, cross_entropy_backward,
                           cross_entropy_forward, cross_entropy_stats, mse_forward, nll_backward,
                           nll_forward, nll_stats)
from .optim_kernels import adam_step, sgd_step, sgd_step_many
from .fused import fused_elementwise
from .norm_kernels import layer_norm_backward, layer_norm_forward
from .ctc import ctc_loss_backward, ctc_loss_forward
from .user_kernels import run_user_kernel, user_reduce

# This backend offers every optional acceleration of the contract (nbgrad/backends/__init__.py);
# a backend that lacks one leaves it out here and the op layer composes it (NBGRAD_FUSED=0
# composes all of them).
ACCELERATIONS = _ALL_ACCELERATIONS

__all__ = sorted(_REQUIRED | ACCELERATIONS | _SHORTCUTS | _CAPTURE_FORMS)


def _install_float16():
    # float16 is stored as float16 and computed by the float32 kernels (nbgrad/backends/_half.py)
    import numpy as np
    from .._half import install

    def narrow(buf):
        with np.errstate(over="ignore", invalid="ignore"):
            return buf.astype(np.float16)
    install(globals(), lambda buf: buf.astype(np.float32), narrow, lambda buf, dtype: buf.view(dtype))


_install_float16()


def _install_bfloat16():
    # bfloat16 is stored as uint16 words and computed by the float32 kernels, over the
    # float16 wrappers (nbgrad/backends/_bfloat16.py)
    from .._bfloat16 import install_cpu
    install_cpu(globals())


_install_bfloat16()

# convolution and pooling (nbgrad/ops/conv.py, pooling.py): imported after the float16
# wrappers are installed, which they do not take (float16 pooling widens itself: pooling.py)
from .conv import conv2d_backward, conv2d_forward  # noqa: E402
from .pooling import avg_pool2d, avg_pool2d_backward, max_pool2d, max_pool2d_backward  # noqa: E402
from .upsample import interp_pass, interp_pass_backward  # noqa: E402
from .grid_sample import grid_sampler_2d, grid_sampler_2d_backward  # noqa: E402
from .pooling_fractional import fractional_max_pool  # noqa: E402

# (bfloat16 for the kernels just imported: widened in, rounded once out: _bfloat16.py)
from .._bfloat16 import install_late as _install_late_bfloat16  # noqa: E402
_install_late_bfloat16(globals())
