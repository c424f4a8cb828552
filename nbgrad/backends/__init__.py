"""Backends: one module per device that does the numerical work of every op.

The op layer (nbgrad/ops) never touches numpy or numba; it calls
`get_backend(device_type)` and hands it *strided views*.  A backend knows
nothing of autograd.

The contract: required primitives plus declared optional accelerations
-----------------------------------------------------------------------
Every backend exports the REQUIRED primitives below (names in `REQUIRED`) and
declares, in its own `ACCELERATIONS` frozenset, which of the optional
accelerations (names in `ACCELERATIONS` here) it offers: one kernel for work the
op layer can also compose from primitives and Tensor ops.  The op layer asks
`nbgrad.ops._graph.accelerated(t, name)` (the declaration, and NBGRAD_FUSED=0
turns every acceleration off) and otherwise runs its composed fallback, which
gives the same values (to float rounding), gradients, grad_fn names and errors.
A new backend needs only the primitives.  tests/backends/test_contract.py checks
every backend's exports against its declaration.

Required primitives
-------------------
A *view* is a plain tuple ``(buf, offset, shape, strides)``:
  buf      1-D device buffer (a numpy array on the CPU), the tensor's storage
  offset   int, element offset of element [0, 0, ...] in buf
  shape    tuple of ints
  strides  tuple of ints, in elements; 0 means broadcast

Buffers returned by the backend are new, 1-D, contiguous, of length
prod(shape) (C order).  `dtype` arguments are numpy dtypes.  (A result that is
not row-major -- PyTorch's layout rule, nbgrad/_layout.py -- is asked for by
the op layer with every view's dims permuted into the result's memory order.)

  empty(numel, dtype)                       -> buffer (uninitialised)
  full(numel, dtype, value)                 -> buffer filled with value
  arange(n, start, step, dtype)             -> buffer start + i*step
  to_numpy(view)                            -> np.ndarray aliasing the view's memory
  from_numpy(array)                         -> (buf, offset, strides) aliasing array
  to_host(view)                             -> a host numpy array holding the view's values
                                            (device backends; the CPU uses to_numpy)
  cuda_array_interface(view)                -> the __cuda_array_interface__ dict (CUDA only)
  tensor_from_cuda_array(obj, dtype)        -> an nbgrad Tensor sharing obj's device memory
                                            (CUDA only; called by nbgrad.as_tensor)
  from_host(array)                          -> new buffer holding a copy of a host numpy
                                            array's values (C order); moves data to the device
  run_user_kernel(kernel, args, launch, n_outputs) runs a user's kernel (nbgrad.custom_op)
                                            over views (as arrays aliasing them: NumPy arrays
                                            on the CPU, device arrays of contiguous views on
                                            CUDA) and Python numbers; the last n_outputs views
                                            are zero-filled first; launch: CUDA's (griddim,
                                            blockdim)
  user_reduce(combine, view, identity, dtype) -> buffer of m values: each row of a
                                            contiguous (m, k) view folded by a user's scalar
                                            combine(acc, value) from identity (nbgrad.reduction)

  copy(src_view, dst_view)                  writes src into dst (same shape; src may
                                            broadcast with 0 strides; casts between
                                            dtypes: float->int truncates toward zero,
                                            x->bool is x != 0).  src and dst never overlap
                                            (the op layer guarantees it).
  fill(dst_view, value)                     writes a scalar into every element

  unary(op, x_view, out_dtype, out=None)    -> buffer;  op in UNARY_OPS.  out: as binary's
                                            (float32/float64 results; it may be exactly
                                            x's elements: an unrecorded in-place op)
  binary(op, a_view, b_view, out_shape, out_dtype, out=None) -> buffer; op in BINARY_OPS.
                                            a and b have the same dtype and are already
                                            broadcast to out_shape (0 strides).  With
                                            out (a 1-D buffer of numel(out_shape)
                                            elements of out_dtype) the result is written
                                            there and out is returned; out may be
                                            exactly a's or b's elements (an in-place
                                            accumulate) but must not partly overlap them.
  binary_scaled(op, a_view, b_view, alpha, out_shape, out_dtype, out=None) -> buffer a + alpha*b
                                            (op 'add') or a - alpha*b ('sub'), PyTorch's
                                            add/sub with alpha: float32 and float64 as one
                                            fused multiply-add (out: as binary's, these
                                            two dtypes only), float16 by PyTorch's Half
                                            loops (defined for every backend in _half.py)
  fma(a_view, b_view, c_view, out_shape, out_dtype, out=None) -> buffer a * b + c rounded once (float32,
                                            float64; float16 in float32, rounded once after):
                                            PyTorch's fused multiply-adds (addcmul; add/sub
                                            with alpha and lerp are one too).  Defined for every
                                            backend in _half.py, on its fused_elementwise
  where(cond_view, a_view, b_view, out_shape, out_dtype) -> buffer (cond is bool,
                                            a and b of out_dtype, all broadcast)

  reduce(op, x_view, dims, out_dtype, correction=1, one_value_path=True) -> buffer holding
                                            x.shape without `dims` (C order).  dims is a
                                            sorted tuple; an empty tuple never reaches the
                                            backend.  op in REDUCE_OPS.  one_value_path:
                                            the device's PyTorch paths to one value (CPU:
                                            mean in PyTorch's sum order, var as its
                                            std_var_all_cpu; cpu/cascade.py); False for
                                            var_mean/std_mean and widened float16
  max_with_index(x_view, dim, is_max)       -> (values buffer, int64 indices buffer) of
                                            x.shape without dim; first index on ties;
                                            NaN wins (as PyTorch)
  softmax(x_view, dim, log)                 -> buffer of x.shape (stable: max subtracted)

  sort(x_view, dim, descending)             -> (values buffer, int64 indices buffer) of
                                            x.shape, sorted along dim (NaN largest), stably.
                                            A backend that sets TIE_ORDERS = True also takes
                                            (..., order, k): the arrangement PyTorch's kernel
                                            on its device leaves ties in ("std": sort with
                                            stable=False; "topk"/"topk_sorted", "kth", "mode":
                                            see nbgrad/backends/cpu/sorting.py)
  cumulative(op, x_view, dim, out_dtype, acc_dtype=None) -> buffer of x.shape (C order): the running 'sum' or
                                            'prod' along dim of x's values cast to out_dtype
                                            (float64 accumulators for floats, int64 for
                                            integers, or acc_dtype=; each output rounded once)
  matmul(a_view, b_view, out_dtype)         a: (*B, n, k), b: (*B, k, m) with identical
                                            batch shape B (broadcast batch dims come with
                                            0 strides) -> buffer (*B, n, m)

  take(buf, offsets)                        offsets: contiguous int64 np array of
                                            element positions in buf -> buffer buf[offsets]
  put(buf, offsets, values, accumulate)     buf[offsets[i]] = values[i] (or +=, in order,
                                            repeated offsets accumulate); values
                                            contiguous, same dtype as buf, same length
  put_reduce(buf, offsets, values, op)      buf[offsets[i]] = op(buf[offsets[i]], values[i]),
                                            in order (scatter_reduce): op 'prod' (bool: and),
                                            'amax' or 'amin' (a NaN value wins, a NaN in buf
                                            stays); values as for put

  max_pool2d(x_view, kernel, stride, padding, dilation, out_hw)
                                            x contiguous (..., H, W) -> (values, int64 indices
                                            into each H*W plane) of (..., OH, OW); PyTorch's
                                            window scan (a larger value or a NaN takes over)
  max_pool2d_backward(g_view, idx_view, in_hw) -> (..., H, W) buffer: g added at the indices
  avg_pool2d(x_view, kernel, stride, padding, out_hw, count_include_pad, divisor_override,
             adaptive)                      -> (..., OH, OW) window means (adaptive: PyTorch's
                                            adaptive windows; kernel/stride/padding unused)
  avg_pool2d_backward(g_view, in_hw, kernel, stride, padding, count_include_pad,
                      divisor_override, adaptive) -> (..., H, W) buffer
  grid_sampler_2d(x_view, grid_view, interpolation, padding, align_corners, chain)
                                            x (N, C, IH, IW) and grid (N, OH, OW, 2) of one float
                                            dtype, any strides; interpolation 0 bilinear, 1
                                            nearest, 2 bicubic; padding 0 zeros, 1 border, 2
                                            reflection -> (N, C, OH, OW) buffer; PyTorch CPU's
                                            arithmetic (chain: bicubic's rows as its case-2 grid
                                            walk sums them)
  grid_sampler_2d_backward(g_view, x_view, grid_view, interpolation, padding, align_corners,
                           want_input, lanes, flat)
                                            -> (grad_input (N, C, IH, IW) buffer or None,
                                            grad_grid (N, OH, OW, 2) buffer); the input's
                                            gradient summed in PyTorch's order (vectors of
                                            `lanes` positions over the flattened grid when
                                            flat, else row by row)
  Dense linear algebra (nbgrad/ops/linalg_decomp.py).  x is a (*B, m, n) float32/float64
  view (any strides); results are new C-order buffers of x's dtype; `info` is an int64 host
  numpy array with one LAPACK code per matrix (0: done; k > 0: the k-th pivot is exactly
  zero / the leading minor of order k is not positive-definite), raised by the op layer:
  linalg_inv(x_view)                        -> (inverse (*B, n, n), info)
  linalg_solve(a_view, b_view)              a (*B, n, n), b (*B, n, k) -> (X (*B, n, k), info)
  linalg_det(x_view)                        -> det (*B,)
  linalg_slogdet(x_view)                    -> (sign (*B,), log|det| (*B,))
  linalg_svd(x_view, full_matrices)         -> (U (*B, m, m|k), S (*B, k), Vh (*B, n|k, n)),
                                            k = min(m, n), S descending
  linalg_qr(x_view, complete)               -> (Q (*B, m, m|k), R (*B, m|k, n)) (Householder:
                                            LAPACK's signs)
  linalg_cholesky(x_view)                   lower triangle read -> (L (*B, n, n), info)
  linalg_eigh(x_view, upper)                one triangle read -> (eigenvalues (*B, n)
                                            ascending, eigenvectors (*B, n, n) as columns)
  linalg_lu_factor(x_view)                  -> (LU (*B, m, n), int32 1-based pivots
                                            (*B, min(m, n)), info); getrf's partial pivoting
  linalg_solve_triangular(a_view, b_view, upper, unitriangular)
                                            a (*B, n, n) (one triangle read), b (*B, n, k)
                                            -> X (*B, n, k); no error for a zero diagonal
  linalg_geqrf(x_view)                      -> (a (*B, m, n), tau (*B, min(m, n))): geqrf's
                                            compact QR (R on and above the diagonal, the
                                            reflectors' vectors below it)
  linalg_householder_product(a_view, tau_view)
                                            a (*B, m, n), m >= n (read below the diagonal),
                                            tau (*B, k), k <= n -> the first n columns of
                                            H_1 ... H_k (*B, m, n) (orgqr)
  linalg_ldl_factor(x_view)                 lower triangle read -> (LD (*B, n, n) in batched
                                            column-major order, int32 1-based pivots (*B, n),
                                            info: one ?sytrf code per matrix, on the host)
  linalg_ldl_solve(ld_view, piv_view, b_view)
                                            LD (*B, n, n), pivots (*B, n) with |p| in [1, n],
                                            B (*B, n, k) -> X (*B, n, k) column-major (?sytrs)
  CTC loss (nbgrad/ops/ctc.py).  lp is a (T, N, C) float32/float64 view (any strides); the
  rest is host metadata (contiguous int64 numpy arrays) the op layer has checked: targets
  holds each sample's labels one after another, starts[b] where sample b's begin, every
  label read in [0, C), 0 <= input_lengths[b] <= T, target_lengths[b] >= 0:
  ctc_loss_forward(lp_view, targets, starts, input_lengths, target_lengths, blank)
                                            -> (nll (N,), log_alpha (N, T, 2 * max target
                                            length + 1)) buffers of lp's dtype: each sample's
                                            -log p(target | lp) by the log-space alpha recursion
                                            (PyTorch's CPU kernel's order); -0.0 / inf for an
                                            input length of 0 with an empty / non-empty target
  ctc_loss_backward(grad, lp_view, targets, starts, input_lengths, target_lengths, nll,
                    log_alpha, blank, zero_infinity)
                                            grad, nll, log_alpha: contiguous buffers of lp's
                                            dtype (the forward's) -> row-major (T, N, C) buffer:
                                            (exp(lp) - exp(log sum alpha*beta + nll - lp)) *
                                            grad[b] for t < input_lengths[b], 0 after (and
                                            for the whole sample when zero_infinity and its
                                            nll is inf)
  manual_seed(seed)                         seeds the backend's generator
  get_rng_state()                           -> uint8 host buffer: the generator's whole state
  set_rng_state(state)                      restores a state get_rng_state returned
  uniform(numel, dtype, low, high)          -> buffer
  normal(numel, dtype, mean, std)           -> buffer
  randint(numel, dtype, low, high)          -> buffer (low <= x < high)
  randperm(n)                               -> int64 buffer
  nonzero(view)                             -> (int64 buffer (n, ndim) of the indices of the
                                            non-zero elements in C order, n)
  UNARY_OPS, BINARY_OPS, REDUCE_OPS         the op-name tables below

Optional small-op shortcuts (names in SHORTCUTS; the op layer looks them up with
nbgrad.ops._graph.shortcut and uses them when present).  Each is a general entry
point's own kernel call for dense row-major operands of one shape, without its
plan lookup and view unpacking: a small op's cost is its Python (issue 12's W5,
W8).  Each returns None for a call it does not serve (large enough to split
across threads, a dtype its kernels do not read natively, NBGRAD_DEBUG on),
and the op layer then calls the general entry point; so a backend may leave
any of them out, and they need no composed fallback.  Their results are the
general entry point's, bit for bit (tests/backends/test_shortcuts.py).
  binary_dense(op, abuf, aoff, bbuf, boff, n, out_dtype, out=None, b_scalar=False,
               a_scalar=False, out_is_a=False) -> buf of n
      binary() of two n-element runs (b_scalar / a_scalar: that operand is one element,
      read for all n); into `out` (n elements, may be abuf's own run at aoff: out_is_a
      says it is) when given
  unary_dense(op, buf, off, n, out_dtype, out=None, out_is_x=False) -> buf of n   (floating
      input; into `out` when given, out_is_x: the operand's own run)
  mul_backward_dense(gbuf, goff, abuf, aoff, bbuf, boff, n) -> (g*b, g*a)
  clamp_dense(buf, off, n, bounds, out=None, out_is_a=False) -> buf of n   (minimum(maximum(x, bounds[0]),
      bounds[1]) of a run, in one pass; bounds: two elements of buf's dtype)
  arg_dense(op, buf, off, rows, n) -> int64 buf of rows   ("argmax" or "argmin" of each
      of `rows` consecutive runs of n elements)
  total_dense(op, buf, off, n, out_dtype) -> buf of 1   ("sum", "mean", "max", "min", "amax"
      or "amin" of the run)
  var_dense(buf, off, n, correction, take_sqrt, out_dtype) -> buf of 1   (reduce("var")'s
      value over the run, its sqrt when take_sqrt, rounded once to out_dtype)

Optional capture forms (names in CAPTURE_FORMS; looked up by name).  An acceleration
whose results reach Python (sums as floats, an IndexError) cannot be replayed by a
compiled call (nbgrad/_compile); its capture form does the same work with every result
a buffer, so that the op layer can finish with Tensor ops that a compiled call repeats.
Without it, the op layer composes the op while capturing.
  cross_entropy_stats(x, m, c, target, weight, ignore_index, smoothing)
      -> (row_loss (m,), lse (m,), sums float64 (3,), bad bool (1,)): cross_entropy_forward's
      results, its sums in a buffer; bad (and nothing else computed) where it would raise
  nll_stats(x, m, c, target, weight, ignore_index)
      -> (row_loss (m,), sums float64 (2,), bad bool (1,)): nll_forward's, likewise

Optional accelerations (each backend declares the ones it has in ACCELERATIONS)
--------------------------------------------------------------------------------
  Fused backward kernels (one call where the op layer would make several); fallbacks:
  MulBackward0's g*b, g*a and AddmmBackward0's mm/sum (nbgrad/ops), FusedBackward0's and
  nbgrad.fuse's evaluation of the traced program as Tensor ops (nbgrad/ops/fusion.py):
  mul_backward(g_view, a_view, b_view, need_a=True, need_b=True)
                                            -> (g*b, g*a) buffers of g's shape (None where
                                            not needed), one pass over g when g, a, b are
                                            contiguous.  a, b broadcast to g's shape (0
                                            strides), g's dtype; reducing a broadcast
                                            operand's gradient to its shape stays the
                                            caller's (reduce('sum', ...)).
  linear_backward(g_view, x_view, w_view, need_x=True, need_w=True, need_b=True)
                                            out = x @ w.T + b with x (N, in), w (out, in),
                                            g (N, out), all 2-D -> (gx (N, in), gw (out, in),
                                            gb (out,)) buffers or None.  g.T goes to BLAS as
                                            a transposed view (no copy); gb is a column sum.

  layer_norm_forward(x, x_off, m, n, w, b, eps)
                                            -> (y, mean, rstd) of m contiguous rows of n
                                            elements from x_off (float32/float64): mean and
                                            rstd = 1/sqrt(biased var + eps) per row, y =
                                            (x - mean) * rstd * w + b; w, b: n-element
                                            buffers or None (nbgrad/ops/normalization.py)
  layer_norm_backward(g, g_off, x, x_off, m, n, w, mean, rstd, need_x, need_w, need_b)
                                            -> (dx, dw, db), each None when not needed
  fused_elementwise(program, outputs, inputs, n, dtype, out=None)
                                            -> buffers of a traced elementwise program
                                            (nbgrad.fuse; format in backends/cpu/fused.py);
                                            out: the one output's buffer (float32/float64)
  vector_norm2(x_view, rows, n)             -> buffer (rows,): the 2-norm of each of `rows`
                                            consecutive runs of n elements of a row-major x
                                            (float32/float64), in x's dtype (the CPU's in
                                            PyTorch's CPU order; the fallback: abs, square,
                                            sum, sqrt as Tensor ops)
  softmax_backward(g_view, y_view, dim, log=False)
                                            softmax's gradient over the last dim (float32,
                                            float64; g and y of one shape): -> row-major
                                            buffer (g - sum(g * y)) * y; log (float32):
                                            log_softmax's, g - exp(y) * sum(g); the sum in
                                            the order of PyTorch's kernel on the CPU (CUDA:
                                            its own sum); the fallback is those Tensor ops


  Convolution (nbgrad/ops/conv.py; the fallback is im2col as Tensor ops there).  Views are
  contiguous; stride, padding, dilation are (h, w) pairs, padding symmetric and zero:
  conv2d_forward(x_view, w_view, b_view, stride, padding, dilation, groups, out_hw)
                                            x (N, C, H, W), w (Co, C/groups, KH, KW), b (Co,) or
                                            None -> buffer (N, Co, OH, OW)
  conv2d_backward(g_view, x_view, w_view, stride, padding, dilation, groups, need_x, need_w,
                  need_b)                   g (N, Co, OH, OW) -> (gx, gw, gb) buffers or None
  interp_pass(x_view, outer, in_size, inner, idx, w, taps, out_size, nearest)
                                            x contiguous (outer, in_size, inner) -> buffer
                                            (outer, out_size, inner): x[:, idx[j]] (nearest) or
                                            the sum over taps t of x[:, idx[t*out + j]] *
                                            w[t*out + j] (in tap order); idx int64 and w (x's
                                            dtype) device buffers of taps * out_size
  interp_pass_backward(g_view, outer, in_size, inner, idx, w, taps, out_size, nearest)
                                            -> (outer, in_size, inner) buffer: the adjoint
  fractional_max_pool(x_view, samples_view, pool, out_size, cols)
                                            x contiguous (planes, T, H, W), samples (planes, D)
                                            of x's dtype (any strides), pool and out_size
                                            (T, H, W) triples, cols: the samples' column for
                                            T, H, W (-1: none) -> (values, int64 indices into
                                            each T*H*W plane) of (planes, OT, OH, OW): PyTorch's
                                            generate_intervals windows and scan (the fallback:
                                            Tensor ops in nbgrad/ops/pooling_fractional.py)

float16 (nbgrad/backends/_half.py): every backend stores float16 but computes it in
float32; _half.install wraps the entry points above so that float16 views are widened,
the float32 kernels run and float16 results are rounded once (moves run on the int16
bits), with PyTorch's own Half exceptions (composite logsumexp, Half prod and nll sums,
per-op optimizer steps, ...).  bfloat16 (nbgrad/backends/_bfloat16.py) is stored as its
16-bit words in uint16 buffers and installed over the float16 wrappers the same way: widened
exactly, computed by the float32 kernels, rounded to nearest even once.

Fused losses (nbgrad/ops/loss.py; optional accelerations, their composed fallbacks are
nbgrad/ops/_composed.py, same signatures).  Here every buffer argument is contiguous,
1-D, starting at element 0, of exactly the length said; a (m, c) matrix is
read row by row.  Targets are int64 buffers; weight/pos_weight are None or a
buffer of x's dtype.  Sums come back as Python floats; per-row losses and
coefficients are float64 buffers.
  cross_entropy_forward(x, m, c, target, weight, ignore_index, smoothing)
                                            -> (row_loss (m,), lse (m,) log-sum-exp of each
                                            row, (sum of w[t]*nll, sum of label-smoothing
                                            terms, sum of w[t])) over rows whose target is
                                            not ignore_index; raises IndexError("Target k is
                                            out of bounds.").  The CPU's float32 without
                                            smoothing: PyTorch's bits for (m, c) rows (its
                                            sums a float32 cascade), forward and backward
  cross_entropy_backward(x, m, c, lse, target, weight, ignore_index, smoothing,
                         coef_nll, coef_smooth) -> d loss / d x (m*c,) of x's dtype, where
                                            row i's loss is coef_nll[i]*w[t]*nll_i +
                                            coef_smooth[i]*sum_j w_j*(lse_i - x_ij);
                                            coef_* of length m, or 1 (every row alike) in a
                                            backend with cross_entropy_stats
  nll_forward(x, m, c, target, weight, ignore_index) -> (row_loss (m,), (sum, sum of w[t]))
  nll_backward(m, c, target, weight, ignore_index, coef, dtype)
                                            -> (m*c,) buffer: -w[t]*coef[i] at [i, t], else 0
  mse_forward(x, y)                         -> (squared errors float64, their sum)
  bce_logits_forward(x, y, w, pw)           -> (elementwise w*((1-y)x + (1+(pw-1)y)*
                                            softplus(-x)) float64, their sum)
  bce_logits_backward(x, y, w, pw, coef)    -> (grad wrt x, grad wrt y), scaled by coef

Fused optimizer updates (nbgrad/optim; optional accelerations, the fallback is PyTorch's
single-tensor formula as Tensor ops, in nbgrad/optim/sgd.py and adam.py): in place, one pass per parameter,
PyTorch's single-tensor formulas in the parameter's dtype.  Views as above,
contiguous, all of the parameter's dtype.
  sgd_step(p_view, g_view, buf_view, init_buf, lr, weight_decay, momentum,
           dampening, nesterov, maximize)   buf_view None when momentum == 0;
                                            init_buf: the buffer starts as the gradient
  sgd_step_many(p_views, g_views, buf_views, init_buf, ...)   (optional, used only where
                                            sgd_step is accelerated) sgd_step over lists of
                                            views of one dtype, in as few kernel calls as the
                                            backend can (PyTorch's foreach); buf_views None
                                            when momentum == 0; each element as sgd_step does it
  adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step,
            lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
            decoupled_weight_decay)         step counts this step; max view None unless
                                            amsgrad; decoupled = AdamW

UNARY_OPS (out_dtype = x's dtype unless said):
  neg abs exp exp2 log log2 log10 log1p expm1 sqrt rsqrt sin cos tan asin acos atan
  sinh cosh tanh sigmoid relu sign floor ceil round (half to even) trunc reciprocal
  erf erfc erfinv asinh acosh atanh lgamma digamma trigamma i0 i0e i1 i1e ndtri sinc erfcx log_ndtr square logical_not(->bool) isnan(->bool) isinf(->bool) isfinite(->bool)
  bitwise_not (int/bool)
  bessel_j0 bessel_j1 bessel_y0 bessel_y1 modified_bessel_i0 modified_bessel_i1 modified_bessel_k0
  modified_bessel_k1 scaled_modified_bessel_k0 scaled_modified_bessel_k1 spherical_bessel_j0 airy_ai
BINARY_OPS (out_dtype = input dtype unless said):
  add sub mul div floordiv remainder (sign of divisor, as Python) pow maximum minimum
  (NaN propagates) atan2 hypot eq ne lt le gt ge (->bool) logical_and logical_or
  logical_xor (->bool) bitwise_and bitwise_or bitwise_xor
  polygamma (n, x) (n-th derivative of digamma, n truncated) zeta (x, q) (Hurwitz zeta)
  igamma igammac (a, x) (regularized incomplete gamma), chebyshev_polynomial_t/u/v/w,
  shifted_chebyshev_polynomial_t/u/v/w, hermite_polynomial_h/he, laguerre_polynomial_l,
  legendre_polynomial_p (x, n) (n truncated to an integer)
  fused backward helpers: tanh_backward (g, y) -> g*(1-y*y);
  sigmoid_backward (g, y) -> g*y*(1-y); relu_backward (g, x) -> g if x > 0 else 0
REDUCE_OPS: sum prod max min amax amin logsumexp var all(->bool) any(->bool) mean
  (float only) argmax argmin (->int64, flat index over the reduced dims)
"""
import importlib

# The required primitives: what a backend must export (device backends add to_host,
# from_host's transfers and their own extras, e.g. CUDA's cuda_array_interface).
REQUIRED = frozenset({
    "empty", "full", "arange", "to_numpy", "from_numpy", "from_host",
    "copy", "fill",
    "unary", "binary", "binary_scaled", "fma", "where",
    "reduce", "max_with_index", "softmax", "sort", "cumulative", "matmul",
    "take", "put", "put_reduce", "nonzero",
    "manual_seed", "uniform", "normal", "randint", "randperm", "get_rng_state", "set_rng_state",
    "UNARY_OPS", "BINARY_OPS", "REDUCE_OPS",
    "max_pool2d", "max_pool2d_backward", "avg_pool2d", "avg_pool2d_backward",
    "grid_sampler_2d", "grid_sampler_2d_backward",
    "linalg_inv", "linalg_solve", "linalg_det", "linalg_slogdet", "linalg_svd", "linalg_qr",
    "linalg_cholesky", "linalg_eigh", "linalg_lu_factor", "linalg_solve_triangular",
    "linalg_geqrf", "linalg_householder_product", "linalg_ldl_factor", "linalg_ldl_solve",
    "run_user_kernel", "user_reduce",
    "ctc_loss_forward", "ctc_loss_backward",
})

# Every optional acceleration the op layer knows, each with a composed fallback there.
ACCELERATIONS = frozenset({
    "mul_backward", "linear_backward", "fused_elementwise",
    "cross_entropy_forward", "cross_entropy_backward", "nll_forward", "nll_backward",
    "mse_forward", "bce_logits_forward", "bce_logits_backward",
    "sgd_step", "adam_step",
    "conv2d_forward", "conv2d_backward",
    "interp_pass", "interp_pass_backward", "softmax_backward",
    "layer_norm_forward", "layer_norm_backward", "vector_norm2",
    "fractional_max_pool",
})

# The optional small-op shortcuts a backend may export (no declaration: looked up by name).
SHORTCUTS = frozenset({"binary_dense", "unary_dense", "mul_backward_dense", "total_dense", "clamp_dense",
                       "arg_dense", "var_dense"})

# Optional forms of an acceleration for nbgrad.compile's capture (looked up by name).
CAPTURE_FORMS = frozenset({"cross_entropy_stats", "nll_stats"})

_BACKENDS = {}


def get_backend(device_type):
    """The backend module for a device type ('cpu' or 'cuda')."""
    backend = _BACKENDS.get(device_type)
    if backend is None:
        backend = importlib.import_module(f"nbgrad.backends.{device_type}")
        _BACKENDS[device_type] = backend
    return backend


# torch.backends' switch modules (nbgrad/backends/_flags.py), loaded on first use; device
# backends are the packages get_backend imports (device strings other than cpu and cuda are
# refused before that, so these are never taken for one)
from .._lazy import lazy_submodules as _lazy_submodules
_flag_modules = _lazy_submodules(__name__, ("cudnn", "mkldnn", "mps", "mkl", "openmp"))


def __getattr__(name):
    if name == "cuda":
        # torch.backends.cuda: nbgrad's CUDA backend package where it imports (a GPU, or the
        # simulator); on a machine without one, a stand-in holding the switches scripts set at
        # their top (backends.cuda.matmul.allow_tf32, ...), so those scripts still run
        import importlib
        try:
            return importlib.import_module(f"{__name__}.cuda")
        except RuntimeError:
            from .._compat_more import backends_cuda
            return backends_cuda
    return _flag_modules(name)
