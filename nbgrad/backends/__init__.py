"""Backends: one module per device that does the numerical work of every op.

The op layer (nbgrad/ops) never touches numpy or numba; it calls
`get_backend(device_type)` and hands it *strided views*.  A backend knows
nothing of autograd.

The contract (every backend module exposes these functions)
-----------------------------------------------------------
A *view* is a plain tuple ``(buf, offset, shape, strides)``:
  buf      1-D device buffer (a numpy array on the CPU), the tensor's storage
  offset   int, element offset of element [0, 0, ...] in buf
  shape    tuple of ints
  strides  tuple of ints, in elements; 0 means broadcast

Buffers returned by the backend are new, 1-D, contiguous, of length
prod(shape) (C order).  `dtype` arguments are numpy dtypes.

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

  copy(src_view, dst_view)                  writes src into dst (same shape; src may
                                            broadcast with 0 strides; casts between
                                            dtypes: float->int truncates toward zero,
                                            x->bool is x != 0).  src and dst never overlap
                                            (the op layer guarantees it).
  fill(dst_view, value)                     writes a scalar into every element

  unary(op, x_view, out_dtype)              -> buffer;  op in UNARY_OPS
  binary(op, a_view, b_view, out_shape, out_dtype) -> buffer; op in BINARY_OPS.
                                            a and b have the same dtype and are already
                                            broadcast to out_shape (0 strides).
  where(cond_view, a_view, b_view, out_shape, out_dtype) -> buffer (cond is bool,
                                            a and b of out_dtype, all broadcast)

  reduce(op, x_view, dims, out_dtype, correction=1) -> buffer holding x.shape without
                                            `dims` (C order).  dims is a sorted tuple;
                                            an empty tuple never reaches the backend.
                                            op in REDUCE_OPS
  max_with_index(x_view, dim, is_max)       -> (values buffer, int64 indices buffer) of
                                            x.shape without dim; first index on ties;
                                            NaN wins (as PyTorch)
  softmax(x_view, dim, log)                 -> buffer of x.shape (stable: max subtracted)

  matmul(a_view, b_view, out_dtype)         a: (*B, n, k), b: (*B, k, m) with identical
                                            batch shape B (broadcast batch dims come with
                                            0 strides) -> buffer (*B, n, m)

  take(buf, offsets)                        offsets: contiguous int64 np array of
                                            element positions in buf -> buffer buf[offsets]
  put(buf, offsets, values, accumulate)     buf[offsets[i]] = values[i] (or +=, in order,
                                            repeated offsets accumulate); values
                                            contiguous, same dtype as buf, same length

  manual_seed(seed)                         seeds the backend's generator
  uniform(numel, dtype, low, high)          -> buffer
  normal(numel, dtype, mean, std)           -> buffer
  randint(numel, dtype, low, high)          -> buffer (low <= x < high)
  randperm(n)                               -> int64 buffer

UNARY_OPS (out_dtype = x's dtype unless said):
  neg abs exp exp2 log log2 log10 log1p expm1 sqrt rsqrt sin cos tan asin acos atan
  sinh cosh tanh sigmoid relu sign floor ceil round (half to even) trunc reciprocal
  erf square logical_not(->bool) isnan(->bool) isinf(->bool) isfinite(->bool)
  bitwise_not (int/bool)
BINARY_OPS (out_dtype = input dtype unless said):
  add sub mul div floordiv remainder (sign of divisor, as Python) pow maximum minimum
  (NaN propagates) atan2 eq ne lt le gt ge (->bool) logical_and logical_or
  logical_xor (->bool) bitwise_and bitwise_or bitwise_xor
  fused backward helpers: tanh_backward (g, y) -> g*(1-y*y);
  sigmoid_backward (g, y) -> g*y*(1-y); relu_backward (g, x) -> g if x > 0 else 0
REDUCE_OPS: sum prod max min amax amin logsumexp var all(->bool) any(->bool) mean
  (float only) argmax argmin (->int64, flat index over the reduced dims)
"""
import importlib

_BACKENDS = {}


def get_backend(device_type):
    """The backend module for a device type ('cpu' or 'cuda')."""
    backend = _BACKENDS.get(device_type)
    if backend is None:
        backend = importlib.import_module(f"nbgrad.backends.{device_type}")
        _BACKENDS[device_type] = backend
    return backend
