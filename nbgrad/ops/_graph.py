"""What every op needs: operands as tensors, broadcasting, results from backend buffers,
the backend's accelerations, and recording a node in the graph (`record`, `edge` and
`needs_grad` live in nbgrad/autograd/graph.py, re-exported here for the op modules).
Nothing here touches numba; NumPy only in the small CPU copies of copy_raw (cpu_run)."""
import math
import os

import numpy as np

from .. import _debug, _dtype as D
from .._layout import layout_of, preserve_strides
from .._size import Size
from .._storage import Storage
from .._tensor import Tensor, _strides_of, contiguous_strides, row_major, row_major_of
# (re-exported for the op modules)
from ..autograd.graph import (check_no_requires_grad, edge, needs_grad, record, record_pair,  # noqa: F401
                              record_unary)
from ..autograd.node import RUNS_FIRST, Node
from ..backends import get_backend


ACCELERATIONS_ON = os.environ.get("NBGRAD_FUSED", "1") != "0"


# The Recording of an nbgrad.compile capture in progress (nbgrad/_compile), else None.  The
# few ops whose eager path reads kernel results into Python (the fused losses' sums) take
# a path that keeps them on the device while a capture runs.
CAPTURE = [None]


def capturing():
    return CAPTURE[0]


def accelerated(t, name):
    """Whether t's backend declares the optional acceleration `name` (one fused kernel the
    op layer may call instead of composing primitives and Tensor ops; the contract is in
    nbgrad/backends/__init__.py).  NBGRAD_FUSED=0 turns every acceleration off, so that
    the composed fallbacks are what runs (and is tested)."""
    return ACCELERATIONS_ON and name in get_backend(t._storage.device.type).ACCELERATIONS


class shortcuts(dict):
    """device type -> a backend's small-op shortcut `name` (binary_dense, unary_dense,
    mul_backward_dense, total_dense: optional, the contract in nbgrad/backends/__init__.py),
    or None; each looked up once, then read as `BINARY_DENSE[dev.type]` (a plain dict
    read: these run per op).  A shortcut is the general entry point's own kernel call for
    dense operands, so it needs no composed fallback: it returns None for what it does
    not serve."""

    def __init__(self, name):
        super().__init__()
        self.name = name
        SHORTCUT_TABLES.append(self)

    def __missing__(self, device_type):
        if CAPTURE[0] is not None:
            # nbgrad.compile is recording (its tables were cleared when it began): every
            # kernel call goes through the backend's entry points, which it records
            return None
        fn = self[device_type] = getattr(get_backend(device_type), self.name, None)
        return fn


SHORTCUT_TABLES = []        # every shortcuts table: nbgrad.compile clears them while it records


def acceleration(t, name):
    """The function that does the acceleration `name` for t's device: the backend's kernel
    when accelerated(t, name), else its composed fallback of the same signature
    (nbgrad/ops/_composed.py, built from Tensor ops)."""
    if accelerated(t, name):
        return getattr(get_backend(t._storage.device.type), name)
    from ._composed import composed
    return composed(name, t._storage.device)


def backend_of(t):
    return get_backend(t._storage.device.type)


def check_same_device(*tensors):
    if len(tensors) == 2:
        a, b = tensors
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a._storage.device is b._storage.device:
            return a._storage.device
    dev = None
    for t in tensors:
        if isinstance(t, Tensor):
            d = t._storage.device
            if dev is None:
                dev = d
            elif d != dev and t.dim() > 0:
                raise RuntimeError(
                    "Expected all tensors to be on the same device, but found at least two devices, "
                    f"{dev} and {d}!")
    return dev


def new_tensor(buffer, shape, dtype, device):
    return Tensor._from_buffer(buffer, shape, dtype, device)


def new_strided(buffer, shape, strides, dtype, device):
    """A new tensor owning a dense buffer the backend returned, with the given strides."""
    return Tensor._make(Storage(buffer, device), shape if type(shape) is Size else Size(shape),
                        strides, 0, dtype)


def output_layout(shape, operands):
    """The layout (None: row-major, or (order, strides), see nbgrad/_layout.py) of an
    elementwise result of broadcast `shape` over `operands` (tensors and Python numbers,
    in PyTorch's operand order): PyTorch's TensorIterator rule.  Every elementwise op's
    output is allocated by it.  Row-major operands take no more than one stride check
    each (a hit in row_major_of also means no size-0 dim, whose ties PyTorch breaks
    differently)."""
    for t in operands:
        if isinstance(t, Tensor):
            rm = row_major_of(t._shape)
            if t._stride is not rm and t._stride != rm:
                break
    else:
        return None
    return layout_of(shape, [(t._shape, t._stride) if isinstance(t, Tensor) else None
                             for t in operands])


def permuted(view, order):
    """A backend view with its dims taken in `order` (a layout's outermost-first dims)."""
    buf, off, shape, strides = view
    return (buf, off, tuple([shape[d] for d in order]), tuple([strides[d] for d in order]))


_SCALAR_OPERANDS = {}


_CPU_SCALARS = {}


def scalar_tensor(value, dtype, device):
    """A 0-dim tensor holding a Python number (an op's operand; never handed to users)."""
    # -0.0 == 0.0 (and hashes equal): the sign is part of the key, or x / -0.0 would
    # read a cached +0.0 (a wrong infinity)
    if value and device.type == "cpu":
        # (the common operand, a nonzero CPU number -- x + 1 -- in one small-key lookup;
        # nan is never found: nan != nan)
        t = _CPU_SCALARS.get((value, dtype))
        if t is not None:
            return t
    key = (value, dtype, device.type, device.index, value == 0 and math.copysign(1.0, value) < 0)
    t = _SCALAR_OPERANDS.get(key) if value == value else None
    if t is None:
        if type(value) is int and not -2 ** 63 <= value < 2 ** 64:
            from .._checks import check_python_int
            check_python_int(value)
        be = get_backend(device.type)
        t = Tensor._from_buffer(be.full(1, dtype.np, value), (), dtype, device)
        if value == value and len(_SCALAR_OPERANDS) < 1024:
            _SCALAR_OPERANDS[key] = t
            if value and device.type == "cpu":
                _CPU_SCALARS[value, dtype] = t
    return t


def new_scalar(value, dtype, device):
    """A fresh 0-dim tensor holding value: an op's result, safe to hand to users (unlike
    scalar_tensor's shared operands, which must never get a grad_fn or be written)."""
    return Tensor._from_buffer(get_backend(device.type).full(1, dtype.np, value), (), dtype, device)


def zeros_grad(t):
    """zeros_like(t) as a gradient that is identically zero: recorded nowhere, so that a
    backward under create_graph does not connect it to t's history (PyTorch's
    zeros_like(grad) in derivatives.yaml), and free of t's NaN/inf (unlike t * 0)."""
    buf = get_backend(t._storage.device.type).full(t.numel(), t._dtype.np, 0)
    if 0 in t._shape:       # PyTorch calls an empty tensor dense: empty_like copies its strides
        return new_strided(buf, t._shape, t._stride, t._dtype, t._storage.device)
    if t.is_contiguous():
        return Tensor._from_buffer(buf, t._shape, t._dtype, t._storage.device)
    from .._layout import preserve_strides        # zeros_like keeps t's layout (preserve_format)
    strides = preserve_strides(t._shape, t._stride)
    if any(s < 0 for s in strides):
        return Tensor._from_buffer(buf, t._shape, t._dtype, t._storage.device)
    return new_strided(buf, t._shape, strides, t._dtype, t._storage.device)


# Two shapes that broadcast to a third one, as a training step repeats them (a bias row
# meeting a batch of activations): the loop below ran ~2 us of a 32K-element add's ~12
_BROADCASTS = {}


def broadcast_shapes(*shapes):
    if len(shapes) == 2:
        a, b = shapes
        if a == b or not b:
            return a if type(a) is Size else Size(a)
        if not a:
            return b if type(b) is Size else Size(b)
        if type(a) is Size and type(b) is Size:
            found = _BROADCASTS.get(shapes)
            if found is None:
                found = _broadcast(shapes)
                if len(_BROADCASTS) >= 1024:
                    _BROADCASTS.clear()
                _BROADCASTS[shapes] = found
            return found
    return _broadcast(shapes)


def _broadcast(shapes):
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        off = ndim - len(s)
        for i in range(len(s) - 1, -1, -1):     # from the last dim, as TensorIterator's infer_size
            n = s[i]
            j = off + i
            if n == out[j] or n == 1:
                continue
            if out[j] == 1:
                out[j] = n
            else:
                # name the two tensors as PyTorch does (a: the shape so far, b: this operand's)
                raise RuntimeError(
                    f"The size of tensor a ({out[j]}) must match the size of tensor b ({n}) at "
                    f"non-singleton dimension {j}")
    return Size(out)


_ZERO_STRIDES = [(0,) * n for n in range(9)]


def broadcast_view(t, shape):
    """The backend view of t broadcast to shape (0 strides, no copy)."""
    if t._shape == shape:
        return (t._storage.buffer, t._offset, shape, t._stride)
    if not t._shape and len(shape) < 9:          # a 0-dim operand (a Python number)
        return (t._storage.buffer, t._offset, shape, _ZERO_STRIDES[len(shape)])
    off = len(shape) - len(t._shape)
    strides = [0] * len(shape)
    for i, (n, st) in enumerate(zip(t._shape, t._stride)):
        strides[off + i] = st if n != 1 or shape[off + i] == 1 else 0
    return (t._storage.buffer, t._offset, shape, tuple(strides))


def cast(t, dtype):
    """t's values as dtype (t itself when it already is); not recorded."""
    if t._dtype is dtype:
        return t
    be = backend_of(t)
    buf = be.empty(t.numel(), dtype.np)
    shape = t._shape
    strides = _strides_of(shape)
    if t._stride != strides:
        strides = preserve_strides(shape, t._stride)    # to(dtype)'s preserve_format
    be.copy(t._view_tuple(), (buf, 0, shape, strides))
    return Tensor._make(Storage(buf, t._storage.device), shape, strides, 0, dtype)


def as_operand(x, dtype, device):
    """A tensor of `dtype` holding x (a Tensor or a Python number)."""
    if isinstance(x, Tensor):
        return cast(x, dtype)
    return scalar_tensor(x, dtype, device)


def contiguous_data(t):
    """t itself when contiguous, else a contiguous copy; not recorded."""
    if t.is_contiguous():
        return t
    return copy_raw(t)


def row_major_numel(t):
    """n when t's values are the run buffer[offset:offset + n] of a row-major, non-empty tensor
    (the backends' small-op shortcuts serve such runs), else 0."""
    shape = t._shape
    rm = row_major_of(shape) or row_major(shape)
    if rm is None or not (t._stride is rm or t._stride == rm):
        return 0
    return math.prod(shape)


def cpu_run(t):
    """row_major_numel(t) of a CPU tensor while nbgrad.compile is not capturing, else 0: then
    NumPy on that run does what the backend's planned call would (the small-op shortcuts of
    copy_raw, zero_ and copy_), while a capture must see the backend's calls to replay them."""
    if CAPTURE[0] is not None or t._storage.device.type != "cpu":
        return 0
    return row_major_numel(t)


_SMALL_COPY_BYTES = 64 << 10     # (larger copies keep the backend's: its pooled buffers, its threads)


def _small_strided_copy(t):
    """A small strided (transposed, expanded, sliced) CPU tensor's values row-major in new
    memory, by NumPy's copy of an ndarray over its buffer with its strides (bits moved, as a
    same-dtype copy), or None: not while nbgrad.compile captures, not for other devices,
    empty or larger tensors, nor under NBGRAD_DEBUG (which logs the backend's copy paths).  A
    leaf's gradient from x.sum() is an expanded scalar that its AccumulateGrad copies: the
    backend's planned copy took 8 of a 16-element clone's us."""
    if CAPTURE[0] is not None or t._storage.device.type != "cpu" or _debug.ENABLED:
        return None
    buf = t._storage.buffer
    item = buf.itemsize
    n = math.prod(t._shape)
    if n == 0 or n * item > _SMALL_COPY_BYTES:
        return None
    view = np.ndarray(t._shape, buf.dtype, buffer=buf, offset=t._offset * item,
                      strides=tuple(s * item for s in t._stride))
    return Tensor._from_buffer(view.copy().reshape(n), t._shape, t._dtype, t._storage.device)


def check_result_fits(shape, dtype, device):
    """PyTorch allocates an op's result before its work.  An op built from temporaries asks
    first, for a large result, whether memory can hold it (the trial's pages are never
    touched): a result the system refuses is then the allocator's RuntimeError, not
    temporaries filling memory until the process is killed."""
    if math.prod(shape) * dtype.itemsize >= 1 << 30:
        from .._creation import empty
        empty(tuple(shape), dtype=dtype, device=device)


def check_work_fits(nbytes):
    """check_result_fits for the temporaries of a composition (the composed pools gather every
    window, an int64 position for each element of it): estimated work past half this machine's
    memory is the allocator's RuntimeError before it starts, not a process killed mid-way."""
    import os
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    if nbytes > physical // 2:      # (half: the work's other temporaries beside it)
        from ..backends.cpu._allocator import out_of_memory
        raise out_of_memory(nbytes)


def copy_raw(t, strides=None):
    """A copy of t's values in new memory, contiguous or with the given dense strides;
    not recorded.  A small row-major CPU tensor copied row-major is NumPy's copy of its run
    (the backend's planned copy cost ~5 us of a 16-element clone), a small strided one
    NumPy's copy of its view (_small_strided_copy)."""
    row_major_copy = strides is None or strides == _strides_of(t._shape)
    if row_major_copy:
        n = cpu_run(t)
        buf = t._storage.buffer
        if n and n * buf.itemsize <= _SMALL_COPY_BYTES:
            return Tensor._from_buffer(buf[t._offset:t._offset + n].copy(), t._shape, t._dtype, t._storage.device)
        if not n:
            small = _small_strided_copy(t)
            if small is not None:
                return small
    be = backend_of(t)
    buf = be.empty(t.numel(), t._dtype.np)
    if row_major_copy:
        be.copy(t._view_tuple(), (buf, 0, t._shape, contiguous_strides(t._shape)))
        return Tensor._from_buffer(buf, t._shape, t._dtype, t._storage.device)
    be.copy(t._view_tuple(), (buf, 0, t._shape, strides))
    return Tensor._make(Storage(buf, t._storage.device), t._shape, tuple(strides), 0, t._dtype)


def wrap_dims(dims, ndim, in_order=False):
    """Normalise a dim, a list of dims or None (all) to a sorted tuple: every dim wrapped, then
    a repeat refused (a reduction's order); in_order: each wrapped and checked in turn (ATen's
    dim_list_to_bitset, squeeze's: a repeat before a later dim out of range)."""
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, (list, tuple)):
        if len(dims) == 0:
            return tuple(range(ndim))
        wrapped = []
        for i, d in enumerate(dims):
            w = _wrap(int(d) if i and type(d) is bool else _list_element(d), ndim)    # (is_int_list_element)
            if in_order and w in wrapped:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            wrapped.append(w)
        out = tuple(sorted(wrapped))
        if len(set(out)) != len(out):
            dup = next(d for d in out if out.count(d) > 1)
            raise RuntimeError(f"dim {dup} appears multiple times in the list of dims")
        return out if ndim else ()
    d = _wrap(_list_element(dims), ndim)
    # a 0-dim tensor accepts dim 0 / -1 but has no dimension to reduce or index: ()
    return (d,) if ndim else ()


def _list_element(d):
    """An int list's element as PyTorch's parser reads it: a tensor of one integral or bool
    element (of any dim) is its value; anything else is left to _wrap's checks."""
    if type(d) is not int and isinstance(d, Tensor) and d.numel() == 1 and not d._dtype.is_floating_point:
        return int(d.item())
    return d


def int_dim(op, dim):
    """The check of ops whose dim is one int (PyTorch's argument parser), before anything else
    of the op's: an int, an object with __index__, a 0-dim integer tensor, or None where the op
    takes none; else the parser's TypeError naming the op (a float, a bool, a tensor of another
    kind, a sequence)."""
    if type(dim) is int or dim is None:
        return dim
    from .._checks import is_integer_tensor
    error = TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    if isinstance(dim, Tensor):
        if is_integer_tensor(dim):
            return dim
        from .._tensor import _not_a_scalar
        raise _not_a_scalar(error, dim, "int")      # (a wrapped function's message names its position)
    if not isinstance(dim, (bool, tuple, list)) and hasattr(dim, "__index__"):
        return dim
    raise error


def wrap_int_dim(op, dim, x):
    """int_dim's dim wrapped for x, x read first: a call whose input is not a tensor is the
    input's error, as in PyTorch's parser (and F.softmax's input.softmax(dim))."""
    ndim = x.dim()
    return _wrap(int_dim(op, dim), ndim)


def _wrap(dim, ndim):
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if type(dim) is not int:
        # PyTorch's parser takes ints and integer-like objects, never floats or bools; of
        # tensors, a 0-dim integer one
        from .._checks import is_integer_tensor
        if isinstance(dim, Tensor) and not is_integer_tensor(dim):
            from .._tensor import _not_a_scalar
            raise _not_a_scalar(TypeError(f"argument 'dim' must be int, not {type(dim).__name__}"), dim, "int")
        if isinstance(dim, bool) or not hasattr(dim, "__index__"):
            raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}")
        dim = dim.__index__()
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % max(ndim, 1)


def numel(shape):
    return math.prod(shape)


class NotImplementedNode(Node):
    """PyTorch's node for ops without a derivative (floor_divide, ...)."""

    op_name = "this op"
    _priority = RUNS_FIRST      # PyTorch numbers error nodes UINT64_MAX: they run before the others

    def backward(self, *grads):
        raise RuntimeError(f"derivative for aten::{self.op_name} is not implemented")


NotImplementedNode.__name__ = "NotImplemented"
