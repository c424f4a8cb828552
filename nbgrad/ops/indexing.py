"""Indexing: basic (views), advanced (copies), gather/scatter, index_select, cat/stack.

Every gathering op reduces to one primitive pair over flat positions of a
contiguous layout: `gather_flat` (backend `take`) and `scatter_add_flat`
(backend `put` with accumulate), each the other's gradient.  Positions are
int64 tensors computed with ordinary tensor arithmetic.
"""
import math
import numbers

import numpy as np

from .. import _dtype as D
from .._size import Size
from .._checks import check_python_int, checked_scalar, scalar_type_name
from .._tensor import Tensor, contiguous_strides
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from .._layout import contiguous_format, format_strides, layout_of, suggest_memory_format
from ._graph import (backend_of, broadcast_shapes, broadcast_view, cast, check_same_device, contiguous_data,
                     copy_raw, needs_grad, new_strided, new_tensor, record, _wrap)
from . import _graph, views as V
from ._dtype_rules import not_implemented


# -- the flat primitives --------------------------------------------------------------
class _GatherFlatBackward(Node):
    def backward(self, g):
        pos = self.saved_tensors[0]
        # made in the input's shape: a fresh tensor, not a view of a flat one (PyTorch's
        # index_put_ into zeros; a view made in no-grad backward would refuse in-place ops)
        return scatter_add_flat(self.numel, pos, g, once=self.sum_once, shape=self.shape)

    sum_once = False     # float16: True sums repeats in float32 (scatter_add), False rounds each add


class IndexBackward0(_GatherFlatBackward): pass
class IndexSelectBackward0(_GatherFlatBackward): pass
class GatherBackward0(_GatherFlatBackward):
    sum_once = True
class TakeBackward0(_GatherFlatBackward): pass
class MaskedSelectBackward0(_GatherFlatBackward): pass


def gather_flat(x, pos, node_cls=IndexBackward0, index=None, layout=None):
    """out[...] = x.flatten()[pos[...]] (pos: int64 tensor of any shape), laid out as
    `layout` says (None: row-major; see nbgrad/_layout.py).  `index`, the user's index
    tensor, is saved too, as PyTorch saves it: changing it in place before backward is
    then refused (the gradient itself only needs pos)."""
    if layout is None:
        buf = backend_of(x).take(_flat_buffer(x), _flat_buffer(pos))
        out = new_tensor(buf, pos._shape, x._dtype, x.device)
    else:
        order, strides = layout
        with no_grad():
            ordered = pos.permute(*order)          # the positions in the result's memory order
        buf = backend_of(x).take(_flat_buffer(x), _flat_buffer(ordered))
        out = new_strided(buf, pos._shape, strides, x._dtype, x.device)
    if needs_grad(x):
        node = record(node_cls, (x,), (out,), numel=x.numel(), shape=x._shape)
        node.save(pos, *(index if isinstance(index, tuple) else (index,)))
    return out


class ScatterAddFlatBackward(Node):
    def backward(self, g):
        pos = self.saved_tensors[0]
        return gather_flat(g.reshape(-1), pos, TakeBackward0)


def _sum_dtype(dtype, once):
    """The dtype repeated positions are summed in.  PyTorch's index_put_/index_add_ on
    Half round after every addition (the backend's put does); its scatter_add (and so
    gather's backward) sums in float32 and rounds once."""
    return D.float32 if once and dtype is D.float16 else dtype


def scatter_add_flat(n, pos, src, base=None, once=False, shape=None):
    """A new tensor of n elements, flat or of `shape` (row-major): base (or zeros) with src
    added at the flat positions pos (repeats accumulate)."""
    be = backend_of(src)
    acc = _sum_dtype(src._dtype, once)
    buf = copy_raw(cast(base.reshape(-1), acc))._storage.buffer if base is not None else be.full(n, acc.np, 0)
    values = contiguous_data(src.expand(pos._shape) if src._shape != pos._shape else src)
    be.put(buf, _flat_buffer(pos), _flat_buffer(cast(values, acc)), True)
    out = cast(new_tensor(buf, (n,) if shape is None else tuple(shape), acc, src.device), src._dtype)
    if needs_grad(src):
        record(ScatterAddFlatBackward, (src,), (out,)).save(pos)
    return out


def _flat_buffer(t):
    t = contiguous_data(t)
    buf = t._storage.buffer
    return buf[t._offset:t._offset + t.numel()] if (t._offset or len(buf) != t.numel()) else buf


def _arange(n, device):
    from .._creation import arange
    return arange(n, dtype=D.int64, device=device)


def _axis_positions(n, stride, ndim, axis, device):
    """arange(n) * stride shaped to broadcast along `axis` of an ndim result."""
    shape = [1] * ndim
    shape[axis] = n
    return (_arange(n, device) * stride).reshape(shape)


def _normalize_index(idx, size, dim, allow_negative=True, error=IndexError, message=None, empty_message=False):
    """Wrap negative indices and check bounds (IndexError as PyTorch; gather/scatter raise
    RuntimeError and take no negative indices; index_select/index_add/embedding say
    'index out of range in self' and take no negative indices either).  empty_message:
    x[t]'s message for an empty dim (_out_of_bounds)."""
    if idx.numel():
        lo, hi = int(idx.min()), int(idx.max())
        if lo < (-size if allow_negative else 0) or hi >= size:
            bad = hi if hi >= size else lo
            if empty_message and not message:
                raise _out_of_bounds(bad, dim, size)
            raise error(message.format(index=bad, size=size) if message else
                        f"index {bad} is out of bounds for dimension {dim} with size {size}")
        if lo < 0:
            idx = idx + (idx < 0).long() * size
    return idx


# -- getitem ------------------------------------------------------------------------------
def _to_index_tensor(item, device):
    from .._creation import tensor
    if isinstance(item, Tensor):
        return item
    t = tensor(item, device=device)
    if t.numel() == 0:
        t = t.long()
    return t


def _is_integer_item(item):
    return isinstance(item, int) and not isinstance(item, bool) or (
        hasattr(item, "__index__") and not isinstance(item, (Tensor, slice, list, tuple, bool, np.ndarray)))


def _check_integer_items(x, index, consumed):
    """Bounds of integer items, before any view is made, with PyTorch's message: the
    dimension it names is the item's position in the index tuple."""
    tdim = 0
    for pos, item in enumerate(index):
        if item is None:
            continue
        if item is Ellipsis:
            tdim += x.dim() - consumed
        elif _is_integer_item(item):
            k = int(item)
            if not -2 ** 63 <= k < 2 ** 63:
                raise ValueError("Overflow when unpacking long long")
            n = x._shape[tdim] if tdim < x.dim() else 0      # (past the last dim: a second ellipsis's)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {n}")
            tdim += 1
        elif isinstance(item, Tensor) and (item._dtype is D.bool_ or item._dtype is D.uint8):
            tdim += item.dim()
        elif not isinstance(item, bool):
            tdim += 1


_INDEX_KINDS = (type(None), type(Ellipsis), slice, bool, Tensor, list, tuple, range, str, np.ndarray)


def _check_index_kinds(index):
    """PyTorch's applySlicing: each item an integer (__index__), a slice, an ellipsis, None, a
    bool, a tensor or a sequence; anything else (a float, a dtype) its IndexError."""
    for item in index:
        if not isinstance(item, _INDEX_KINDS) and not hasattr(item, "__index__"):
            kind = type(item)
            name = "torch.dtype" if isinstance(item, D.dtype) else \
                f"numpy.{kind.__name__}" if isinstance(item, np.generic) else kind.__name__
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {name})")


def _is_python_sequence(obj):
    """CPython's PySequence_Check: a list, tuple, str, range, NumPy array, tensor, or any object
    whose type has __getitem__ and is not a dict (a NumPy scalar is none)."""
    return not isinstance(obj, (dict, np.generic)) and hasattr(type(obj), "__getitem__")


def _sequence_as_tuple(index):
    """PyTorch's treatSequenceAsTuple (NumPy's old heuristic): a sequence other than a tuple, a
    tensor, an array or a str, of fewer than 32 items one of which is a tensor, a sequence, a
    slice, an ellipsis or None, is a tuple of indices: x[[t0, 1]] is x[t0, 1] and x[[[0, 1],
    [1, 0]]] is x[[0, 1], [1, 0]] (with PyTorch's deprecation warning, each time)."""
    if isinstance(index, (Tensor, np.ndarray, str, bytes)) or not _is_python_sequence(index):
        return False
    try:
        n = len(index)
        if n >= 32:
            return False
        items = [index[i] for i in range(n)]
    except Exception:       # (PySequence_Size / GetItem failing: PyTorch clears it and says no)
        return False
    return any(isinstance(i, (Tensor, slice)) or i is Ellipsis or i is None or _is_python_sequence(i) for i in items)


def _expand_index(x, index):
    if not isinstance(index, tuple):
        if _sequence_as_tuple(index):
            from .._warnings import warn_user
            warn_user("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                      "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                      "tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                      "result")
            index = tuple(index[i] for i in range(len(index)))
        else:
            index = (index,)
    _check_index_kinds(index)
    # list-of-ints/tensors used as a whole index (numpy's legacy) stays a single advanced index
    consumed = 0
    for item in index:
        if item is None or item is Ellipsis:
            continue
        if isinstance(item, Tensor) and (item._dtype is D.bool_ or item._dtype is D.uint8) or isinstance(item, bool):
            consumed += item.dim() if isinstance(item, Tensor) else 0
        else:
            consumed += 1
    if consumed > x.dim():
        if x.dim() == 0:
            first = next(i for i in index if i is not None and i is not Ellipsis)
            if isinstance(first, slice):
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            if isinstance(first, int) and not isinstance(first, bool):
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {x.dim()}")
    _check_integer_items(x, index, consumed)
    out = []
    for item in index:
        if item is Ellipsis:        # (each one, as PyTorch's applySlicing: whole dims, past the last too)
            out.extend([slice(None)] * (x.dim() - consumed))
        else:
            out.append(item)
    return out


def _is_int_scalar_tensor(item):
    return isinstance(item, Tensor) and not item._shape and not item._dtype.is_floating_point \
        and item._dtype is not D.bool_


def _is_full_slice(item, n):
    """PyTorch's slice optimisation tests the slice as written, not normalised: start 0 (or
    none), step 1 (or none) and a stop of at least n.  x[-n:] or x[:-1] of an empty dim are
    slices, not skipped."""
    return (item.start is None or item.start == 0) and (item.step is None or item.step == 1) \
        and (item.stop is None or item.stop >= n)


def _apply_basic(x, items, skip_full_slices=False, deferred=None):
    """Apply the basic part of an expanded index (ints, slices, None) as views of x and
    collect the advanced part.  Returns (view, [(dim in view, index tensor)], applied):
    `applied` says whether any view op ran.  getitem records the views; setitem calls
    this under no_grad.  deferred: a list that takes a mask-shape IndexError instead of
    raising it (setitem raises it after its overlap checks, as PyTorch's index_put_)."""
    v = x
    dim = 0
    advanced = []
    applied = False
    for item in items:
        if item is None:
            v = V.unsqueeze(v, dim)
            dim += 1
            applied = True
        elif isinstance(item, bool) or (isinstance(item, Tensor) and not item._shape
                                        and (item._dtype is D.bool_ or item._dtype is D.uint8)):
            # (a 0-dim mask is a Python bool: a new dim here, indexed by [0] or by nothing)
            if isinstance(item, Tensor) and item._dtype is D.uint8:
                from .._warnings import warn
                warn("uint8_index", stacklevel=4)
            v = V.unsqueeze(v, dim)
            from .._creation import tensor
            advanced.append((dim, tensor([0] if bool(item) else [], dtype=D.int64, device=x.device)))
            dim += 1
        elif _is_integer_item(item) or _is_int_scalar_tensor(item):
            k, n = int(item), v._shape[dim] if dim < v.dim() else 0     # a 0-dim integer tensor selects, as an int
            if v.dim() and not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {n}")
            v = V.select(v, dim, k)
            applied = True
        elif isinstance(item, slice):
            if item.step is not None and item.step == 0:
                raise ValueError("slice step cannot be zero")
            if item.step is not None and item.step < 0:
                raise ValueError("step must be greater than zero")
            # (past the last dim, after a second ellipsis, PyTorch reads the size as 0)
            n = v._shape[dim] if dim < v.dim() else 0
            if item != slice(None) and not (skip_full_slices and _is_full_slice(item, n)):
                v = V.slice_dim(v, dim, item.start, item.stop, item.step or 1)
                applied = True
            dim += 1
        else:
            t = _to_index_tensor(item, x.device)
            if t._dtype is D.uint8:
                from .._warnings import warn
                warn("uint8_index", stacklevel=4)
            if t._dtype is D.bool_ or t._dtype is D.uint8:
                error = _mask_shape_error(v, dim, t)
                if error is not None:
                    if deferred is None:
                        raise error
                    deferred.append(error)
                    dim += t.dim()
                    continue
                for k, idx in enumerate(nonzero(t, as_tuple=True)):
                    advanced.append((dim + k, idx))
                dim += max(t.dim(), 0)
                if t.dim() == 0:
                    v = V.unsqueeze(v, dim)
                    advanced.append((dim, _arange(1 if bool(t) else 0, x.device)))
                    dim += 1
            elif t._dtype not in (D.int64, D.int32):
                error = IndexError("tensors used as indices must be long, int, byte or bool tensors")
                if deferred is None:
                    raise error
                deferred.append(error)      # (setitem: after index_put_'s autograd check)
                dim += 1
            else:
                if dim >= v.dim():      # (past the last dim, after a second ellipsis: index's count check)
                    raise IndexError(f"too many indices for tensor of dimension {v.dim()} (got {dim + 1})")
                advanced.append((dim, t))
                dim += 1
    return v, advanced, applied


def getitem(x, index):
    # PyTorch: a lone slice is always a slice view (x[:] is SliceBackward0); in a tuple,
    # slices that cover their dim are skipped, and an index that changes nothing
    # (x[...], x[()], x[:, :]) is an alias (AliasBackward0)
    kind = type(index)
    if kind is int or kind is slice:
        # x[i] in range and x[a:b:c] with int bounds of a tensor with dims: the select or
        # slice view the general path below comes to, without expanding the index
        shape = x._shape
        if shape:
            if kind is int:
                if -shape[0] <= index < shape[0]:
                    return V.select(x, 0, index)
            elif (index.step is None or (type(index.step) is int and index.step > 0)) \
                    and (index.start is None or type(index.start) is int) \
                    and (index.stop is None or type(index.stop) is int):
                return V.slice_dim(x, 0, index.start, index.stop, index.step or 1)
    elif kind is Tensor:
        out = _masked_dense(x, index) if index._dtype is D.bool_ else _taken_dense(x, index)
        if out is not None:
            return out
    single_slice = isinstance(index, slice)
    v, advanced, applied = _apply_basic(x, _expand_index(x, index), skip_full_slices=not single_slice)
    if not advanced:
        if not applied:
            v = V.slice_dim(v, 0, None, None, 1) if single_slice and v.dim() else V.alias(v)
        return v
    return _advanced_gather(v, advanced)


def _masked_dense(x, mask):
    """x[mask] for a mask of x's shape, both row-major on the CPU, nothing to record and no
    capture running: NumPy's boolean indexing of the two runs (the elements where the mask
    is set, in order: the general path's nonzero and gather, ~50 us for 16 elements).  None
    for any other call."""
    shape = x._shape
    if not shape or mask._shape != shape or x._storage.device.type != "cpu" \
            or mask._storage.device.type != "cpu" or _graph.CAPTURE[0] is not None or needs_grad(x):
        return None
    rm = contiguous_strides(tuple(shape))
    if x._stride != rm or mask._stride != rm:
        return None
    n = math.prod(shape)
    values = x._storage.buffer[x._offset:x._offset + n][mask._storage.buffer[mask._offset:mask._offset + n]]
    return Tensor._from_buffer(values, (values.size,), x._dtype, x._storage.device)


def _out_of_bounds(i, k, size):
    """PyTorch's IndexError for index i of the k-th index tensor (its index kernel's message
    numbers the index tensors, not the dims they index: x[:, t] says 'dimension 0'; for an
    empty dim it names neither)."""
    if size == 0:
        return IndexError("index is out of bounds for dimension with size 0")
    return IndexError(f"index {i} is out of bounds for dimension {k} with size {size}")


def _check_bounds(a, size, k):
    """PyTorch's IndexError when an index in the array a (the k-th index tensor's) is outside
    [-size, size); else a's smallest index."""
    lo, hi = int(a.min()), int(a.max())
    if lo < -size or hi >= size:
        raise _out_of_bounds(hi if hi >= size else lo, k, size)
    return lo


def _taken_dense(x, index):
    """x[index] for an integer index tensor, both row-major on the CPU, nothing to record and
    no capture running: NumPy's indexing along dim 0 (the general path's positions and gather
    took ~20 us for 16 elements; PyTorch's result is row-major too).  The bounds are checked
    as _host_positions checks them.  None for any other call."""
    shape = x._shape
    if not shape or index._dtype not in (D.int64, D.int32) or x._storage.device.type != "cpu" \
            or index._storage.device.type != "cpu" or _graph.CAPTURE[0] is not None or needs_grad(x):
        return None
    ishape = index._shape
    if not ishape:
        return None         # (a 0-dim index is an integer's view, as PyTorch's)
    if x._stride != contiguous_strides(tuple(shape)) or index._stride != contiguous_strides(tuple(ishape)):
        return None
    n = math.prod(shape)
    out_shape = tuple(ishape) + tuple(shape[1:])
    _check_indexed_empty_dims(x, (0,), ishape)
    if not math.prod(out_shape):        # (an empty result reads, and checks, no index: _host_positions)
        return Tensor._from_buffer(x._storage.buffer[:0].copy(), out_shape, x._dtype, x._storage.device)
    a = index._storage.buffer[index._offset:index._offset + math.prod(ishape)]
    _check_bounds(a, shape[0], 0)
    rows = x._storage.buffer[x._offset:x._offset + n].reshape(tuple(shape))
    values = rows[a]            # (a negative index counts from the end, as PyTorch's)
    return Tensor._from_buffer(values.reshape(-1), out_shape, x._dtype, x._storage.device)


def _kept_dims(v, dims):
    """The dims of v an advanced index over `dims` keeps, as (before, after): the broadcast
    index dims go where the indexed dims were when those are adjacent, first otherwise."""
    rest = [d for d in range(v.dim()) if d not in dims]
    if dims and dims == list(range(dims[0], dims[0] + len(dims))):
        return [d for d in rest if d < dims[0]], [d for d in rest if d > dims[0]]
    return [], rest


def _advanced_shape(v, advanced):
    """The shape an advanced index gives (no index value is looked at)."""
    bshape = _index_shape([t._shape for _, t in advanced])
    before, after = _kept_dims(v, [d for d, _ in advanced])
    return [v._shape[d] for d in before] + list(bshape) + [v._shape[d] for d in after]


def _check_value_fits(v, advanced, value, cast_ok=False):
    """PyTorch's index_put_ checks the value against the indexing result's shape, then its
    dtype against v's (unless cast_ok: setitem's masked_fill_ path), before it reads any index
    (an out-of-bounds index is the kernel's later error)."""
    if not isinstance(value, Tensor):
        return
    _check_indexed_empty_dims(v, [d for d, _ in advanced], _index_shape([t._shape for _, t in advanced]))
    shape = _advanced_shape(v, advanced)
    try:
        fits = list(broadcast_shapes(tuple(shape), value._shape)) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._shape)} cannot be broadcast to "
                           f"indexing result of shape {shape}")
    if value._dtype is not v._dtype and not cast_ok:
        _raise_dtype_mismatch(v, value)


def _index_shape(shapes):
    """The index tensors' broadcast shape; PyTorch's IndexError when they do not broadcast
    (checked before any index value is)."""
    try:
        return broadcast_shapes(*shapes)
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s)) for s in shapes)) from None


def _check_indexed_empty_dims(v, dims, bshape):
    """ATen's AdvancedIndex: an indexed dim of size 0 with index values to read (however empty
    the result: x of (0, 0), x[[0, 0]]) is out of bounds before any kernel runs."""
    if math.prod(bshape) and any(v._shape[d] == 0 for d in dims):
        raise IndexError("index is out of bounds for dimension with size 0")


def _host_positions(v, advanced):
    """_advanced_layout's positions computed in NumPy on the host, for a CPU v indexed by CPU
    integer tensors: the same checks in the same order (each index's bounds, then their
    broadcast) and the same int64 positions, without the ~15 Tensor ops (each a dispatch)
    the general path composes: x[idx] of 16 elements was 80 us, PyTorch's 2.  None for any
    other call (a device tensor, nbgrad.compile recording: the general path)."""
    if v._storage.device.type != "cpu" or _graph.CAPTURE[0] is not None:
        return None
    if any(t._storage.device.type != "cpu" or t._dtype not in (D.int64, D.int32) for _, t in advanced):
        return None
    bshape = _index_shape([t._shape for _, t in advanced])
    dims = [d for d, _ in advanced]
    _check_indexed_empty_dims(v, dims, bshape)
    before, after = _kept_dims(v, dims)
    out_shape = [v._shape[d] for d in before] + list(bshape) + [v._shape[d] for d in after]
    check = math.prod(out_shape) > 0        # (PyTorch's kernel checks the indices it reads: none for an empty result)
    arrays = []
    for k, (d, t) in enumerate(advanced):
        buf, shape = t._storage.buffer, tuple(t._shape)
        if t.is_contiguous():
            a = buf[t._offset:t._offset + math.prod(shape)].reshape(shape)
        else:
            a = np.lib.stride_tricks.as_strided(buf[t._offset:], shape=shape,
                                                strides=tuple(st * buf.itemsize for st in t._stride))
        size = v._shape[d]
        if a.size and check:
            if _check_bounds(a, size, k) < 0:
                a = np.where(a < 0, a + size, a)
        arrays.append(a.astype(np.int64, copy=False))
    cstrides = contiguous_strides(v._shape)
    nb = len(bshape)
    ndim = len(out_shape)
    pos = None
    for a, d in zip(arrays, dims):
        term = (a * cstrides[d]).reshape([1] * len(before) + [1] * (nb - a.ndim) + list(a.shape) + [1] * len(after))
        pos = term if pos is None else pos + term
    for axis, d in [(axis, d) for axis, d in enumerate(before)] + \
            [(len(before) + nb + k, d) for k, d in enumerate(after)]:
        shape = [1] * ndim
        shape[axis] = v._shape[d]
        pos = pos + (np.arange(v._shape[d], dtype=np.int64) * cstrides[d]).reshape(shape)
    if list(pos.shape) != out_shape:
        pos = np.broadcast_to(pos, out_shape)
    pos = np.ascontiguousarray(pos, dtype=np.int64).reshape(-1)     # (always a new array: a * stride is)
    return Size(out_shape), Tensor._from_buffer(pos, Size(out_shape), D.int64, v._storage.device)


def _advanced_layout(v, advanced):
    """Result shape and flat positions (in v's contiguous layout) of an advanced index."""
    found = _host_positions(v, advanced)
    if found is not None:
        return found
    dims = [d for d, _ in advanced]
    bshape = _index_shape([t._shape for _, t in advanced])
    _check_indexed_empty_dims(v, dims, bshape)
    with no_grad():
        # index tensors may live on the CPU for a device tensor, as PyTorch allows
        before, after = _kept_dims(v, dims)
        out_shape = [v._shape[d] for d in before] + list(bshape) + [v._shape[d] for d in after]
        # (numbered as _out_of_bounds says; an empty result reads no index, PyTorch checks none)
        idxs = [t.long().to(v.device) if not math.prod(out_shape) else
                _normalize_index(t.long().to(v.device), v._shape[d], k, empty_message=True)
                for k, (d, t) in enumerate(advanced)]
        cstrides = contiguous_strides(v._shape)
        nb = len(bshape)
        ndim = len(out_shape)
        pos = None
        for t, d in zip(idxs, dims):
            term = (t * cstrides[d]).reshape([1] * len(before) + [1] * (nb - t.dim()) + list(t._shape)
                                             + [1] * len(after))
            pos = term if pos is None else pos + term
        for axis, d in enumerate(before):
            pos = pos + _axis_positions(v._shape[d], cstrides[d], ndim, axis, v.device)
        for k, d in enumerate(after):
            pos = pos + _axis_positions(v._shape[d], cstrides[d], ndim, len(before) + nb + k, v.device)
        pos = pos.expand(out_shape).contiguous() if tuple(pos._shape) != tuple(out_shape) else pos
    return Size(out_shape), pos


def _advanced_gather(v, advanced):
    shape, pos = _advanced_layout(v, advanced)
    return gather_flat(v, pos, IndexBackward0, tuple(t for _, t in advanced),
                       layout=_index_result_layout(v, advanced, shape))


def _index_result_layout(v, advanced, out_shape):
    """The layout PyTorch's index kernel gives its result: TensorIterator over v restrided
    to the result (0 strides where the indexed dims were) and the index tensors
    broadcast together and placed at the indexed dims."""
    if len(out_shape) < 2:
        return None
    before, after = _kept_dims(v, [d for d, _ in advanced])
    bshape = broadcast_shapes(*[t._shape for _, t in advanced])
    nb = len(bshape)
    src = tuple([v._stride[d] for d in before] + [0] * nb + [v._stride[d] for d in after])
    operands = [(tuple(out_shape), src)]
    shape = (1,) * len(before) + tuple(bshape) + (1,) * len(after)
    for _, t in advanced:
        # expand_outplace, then reshape_indexer's reshape (computeStride's strides)
        st = broadcast_view(t, bshape)[3] if t._shape != bshape else t._stride
        st = V._view_strides(tuple(bshape), tuple(st), shape) if bshape else None
        operands.append((shape, st if st is not None else contiguous_strides(shape)))
    return layout_of(tuple(out_shape), operands)


# -- setitem ------------------------------------------------------------------------------
class IndexPutBackward0(Node):
    def backward(self, g):
        pos = self.saved_tensors[0]
        gx = None
        if self.needs_input_grad(0):
            gx = g if self.accumulate else _zeroed_at(g, pos)
        gv = gather_flat(g.reshape(-1), pos, TakeBackward0) if self.needs_input_grad(1) else None
        return gx, gv


def _zeroed_at(g, pos):
    """g with zeros at the flat positions pos (the gradient of what a write replaced): linear
    in g, and recorded as an index_put when g requires grad, so that a backward under
    create_graph stays differentiable (an unrecorded copy cut second-order gradients)."""
    return index_put_positions(g, pos, 0.0)


def _put_values(x, pos, values):
    """values (a tensor or a Python number) as x's dtype, one per position of pos."""
    if isinstance(values, Tensor):
        vals = cast(values, x._dtype)
        return vals.expand(pos._shape) if vals._shape != pos._shape else vals
    from .._creation import full
    return full(pos._shape, values, dtype=x._dtype, device=x.device)


def _put_flat(x, pos, values, accumulate=False):
    """A copy of x with values written (or added) at flat positions; not recorded."""
    out = copy_raw(x)
    if pos.numel() == 0:            # (an empty index writes nothing, whatever the values' shape)
        return out
    vals = _put_values(x, pos, values)
    backend_of(x).put(out._storage.buffer, _flat_buffer(pos), _flat_buffer(vals), accumulate)
    return out


class IndexAddBackward0(IndexPutBackward0):
    pass


def _raise_dtype_mismatch(x, values):
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                       f"{scalar_type_name(x._dtype)} for the destination and "
                       f"{scalar_type_name(values._dtype)} for the source.")


def index_put_positions(x, pos, values, accumulate=False, node_cls=IndexPutBackward0, index=(), cast_ok=False):
    """Out-of-place index_put at flat positions (the value computed by setitem).  `index`:
    the user's index tensors, saved as PyTorch saves them (only their versions are read)."""
    if isinstance(values, Tensor):
        shape = broadcast_shapes(pos._shape, values._shape)
        if shape != pos._shape:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(values._shape)} cannot be broadcast to indexing result of shape {list(pos._shape)}")
        # (cast_ok: setitem's masked_fill_ path, a bool mask and a one-element value, which
        # PyTorch fills with value.item(): any dtype converts, float into bool too)
        if values._dtype is not x._dtype and not cast_ok:
            _raise_dtype_mismatch(x, values)
    out = _put_flat(x, pos, values, accumulate)
    if needs_grad(x, values):
        record(node_cls, (x, values), (out,), accumulate=accumulate).save(pos, *index)
    return out


def _index_put_view_cast(old, pos, value, index):
    return index_put_positions(old, pos, value, index=index, cast_ok=True)


def _strip_leading_ones(value):
    """PyTorch's slicePrefix1sDims: setitem drops a value's leading size-1 dims."""
    if not isinstance(value, Tensor) or not value._shape or value._shape[0] != 1:
        return value
    shape = value._shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return V.reshape(value, shape[k:])


def setitem(x, index, value):
    from .inplace import apply_inplace
    if not isinstance(value, (Tensor, numbers.Number, np.number)):
        # (PyTorch's first check: a tensor or a number, NumPy's too but for numpy.bool; x[0] = None
        # wrote True into a bool tensor)
        from ._argument_check import _type_name
        raise TypeError(f"can't assign a {_type_name(value)} to a {x.type()}")
    if not isinstance(value, Tensor):
        # PyTorch's valueToTensor, before the index is read: the number range-checked, but for
        # Half and BFloat16, where it is rounded unchecked (an overflow is inf)
        if x._dtype in (D.float16, D.bfloat16) and isinstance(value, (numbers.Real, np.number)) \
                and not isinstance(value, (bool, np.bool_)):
            if isinstance(value, numbers.Integral):
                check_python_int(value)         # (a Python int past int64: the parser's overflow)
            value = D.round_scalar(float(value), x._dtype)
        else:
            checked_scalar(value, x._dtype)
    if index is False:              # PyTorch: nothing selected, nothing written, no version bump
        return
    items = _expand_index(x, index)
    is_advanced = any(not (i is None or isinstance(i, (int, slice)) or _is_int_scalar_tensor(i)
                           or (hasattr(i, "__index__") and not isinstance(i, (Tensor, list, tuple, np.ndarray))))
                      or isinstance(i, bool) for i in items)
    # The basic part is applied as views in the caller's grad mode (so that they carry x's
    # creation meta); full slices are skipped and x[...] writes x itself, as in PyTorch.
    if not is_advanced:
        v, _, applied = _apply_basic(x, items, skip_full_slices=True)
        _copy_to(v if applied else x, value)
        return
    # advanced: the basic view, then index_put on it in place (of the value without its
    # leading size-1 dims, as PyTorch's set_item)
    value = _strip_leading_ones(value)
    deferred = []
    v, advanced, _ = _apply_basic(x, items, skip_full_slices=True, deferred=deferred)
    # a single boolean mask with a one-element value is PyTorch's masked_fill_ path, which
    # casts the value and reads it (value.item()) before writing, so the value may be x's
    # own memory; any other index_put needs the value's dtype to match and no overlap
    tensor_items = [i for i in items if isinstance(i, Tensor)]
    cast_ok = (len(tensor_items) == 1 and len(advanced) == tensor_items[0].dim()
               and tensor_items[0]._dtype is D.bool_
               and isinstance(value, Tensor) and value.numel() == 1)
    from .inplace import check_inplace, check_overlap
    check_inplace(v, value)         # PyTorch's autograd checks come before the kernel's index checks
    if cast_ok:                     # masked_fill_ converts value.item() to v's type, range-checked
        checked_scalar(value.item(), v._dtype)
    check_overlap(v, tensor_items + ([] if cast_ok else [value]), full_ok=False, internal=False)
    if deferred:
        raise deferred[0]
    if len(tensor_items) == 1 and tensor_items[0]._dtype is D.uint8 and tensor_items[0].dim() \
            and len(advanced) == tensor_items[0].dim() and (not isinstance(value, Tensor) or value.numel() == 1):
        # (index_put_'s masked_fill_ dispatch takes a uint8 mask too, and masked_fill_ refuses it)
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    _check_value_fits(v, advanced, value, cast_ok)
    with no_grad():
        _, pos = _advanced_layout(v, advanced)
    if isinstance(value, Tensor) and value.device != x.device:
        value = value.to(x.device)
    from .inplace import has_internal_overlap, positions_writer
    writer = positions_writer("index_put_", pos, value) if has_internal_overlap(v) else None
    index = tuple(t for t in items if isinstance(t, Tensor) and t._dtype is not D.bool_)
    apply_inplace(v, _index_put_view_cast if cast_ok else _index_put_view, pos, value, index,
                  needs_old=False, overlap=None, writer=writer)


def _copy_to(dst, value):
    """PyTorch's copy_to for setitem: copy_ for equal shapes, fill_ for a number or a 0-dim
    CPU tensor, else copy_ of the broadcast value."""
    from .inplace import FillBackward3, copy_, fill_, filled_
    if not isinstance(value, Tensor):
        if dst.dim() == 0:
            from .._checks import checked_scalar
            from .._creation import tensor
            value = tensor(checked_scalar(value, dst._dtype), dtype=dst._dtype, device=dst.device)
        else:
            return filled_(dst, value, FillBackward3)
    if value._shape != dst._shape:
        if value.dim() == 0 and value.device.type == "cpu":
            return fill_(dst, value)
        # PyTorch's view(slicePrefix1sSize(...)), always a view: even with no leading 1 to drop,
        # it recomputes the strides of size-1 dims, which the overlap check below compares
        shape = value._shape
        k = 0
        while k < len(shape) and shape[k] == 1:
            k += 1
        value = V.view(value, shape[k:])
        value = V.expand(value, dst._shape)         # PyTorch's expand_inplace(dst, value, "setitem")
    return copy_(dst, value)


def _index_put_view(old, pos, value, index):
    return index_put_positions(old, pos, value, index=index)


def _put_indices(name, x, indices):
    """index_put's indices as ATen's _index_put_impl_ reads them, up to its make_info: at least
    one (its kernel reads the first), no more than x's dims, each of an index dtype; a bool or
    uint8 mask (its shape that of the dims it covers) is those dims' nonzero() columns, a 0-dim
    one covers none, and None takes a whole dim.  -> [(dim, integer index tensor)]."""
    if len(indices) == 0:
        raise RuntimeError(f"{name}(): indices is an empty list: it must hold at least one index tensor")
    if len(indices) > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()} (got {len(indices)})")
    advanced, d = [], 0
    for t in indices:
        if t is None:
            d += 1
        elif t._dtype is D.bool_ or t._dtype is D.uint8:
            if t._dtype is D.uint8:
                from .._warnings import warn
                warn("uint8_index", stacklevel=4)
            error = _mask_shape_error(x, d, t)
            if error is not None:
                raise error
            if t.dim():         # (a 0-dim mask covers no dim: expandTensors drops it)
                for k, idx in enumerate(nonzero(t, as_tuple=True)):
                    advanced.append((d + k, idx))
            d += t.dim()
        elif t._dtype in (D.int64, D.int32):
            advanced.append((d, t))
            d += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if not advanced and x.numel():     # (only 0-dim masks: PyTorch's kernel asserts it has an index to read)
        raise RuntimeError(f"{name}(): its only indices are 0-dim masks, which index no dim (PyTorch's kernel fails "
                           "its internal assert ntensor >= 3 here)")
    return advanced


def _mask_shape_error(x, d, mask):
    """The IndexError of a mask whose shape is not that of x's dims from d on (None when it is)."""
    bad = next((k for k in range(mask.dim()) if d + k >= x.dim() or mask._shape[k] != x._shape[d + k]), None)
    if bad is None:
        return None
    return IndexError(f"The shape of the mask {list(mask._shape)} at index {bad} does not match the shape of the "
                      f"indexed tensor {list(x._shape)} at index {d + bad}")


def _masked_fill_dispatch(x, indices, values, accumulate):
    """ATen's canDispatchToMaskedFill: without accumulate, one bool or uint8 mask among Nones and a
    value of one element make index_put_ a masked_fill_ of value.item() (converted to x's dtype;
    the mask's shape checked, then broadcast over the dims before it and after it; a 0-dim mask
    all or nothing; a uint8 mask is masked_fill_'s refusal).  -> (the advanced index of the
    broadcast mask's True positions, the value as a 0-dim tensor), or None."""
    if accumulate or not isinstance(values, Tensor) or values.numel() != 1 or values.device != x.device \
            or len(indices) > x.dim():
        return None
    mask, d = None, 0
    for t in indices:
        if t is None:
            d += 1
        elif mask is not None or (t._dtype is not D.bool_ and t._dtype is not D.uint8) or t.device != x.device:
            return None
        else:
            error = _mask_shape_error(x, d, t)
            if error is not None:
                raise error
            mask, d = t, d + t.dim()
    if mask is None:
        return None
    if mask._dtype is D.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    with no_grad():
        full = V.reshape(mask, tuple(mask._shape) + (1,) * (x.dim() - d)).expand(x._shape)
        advanced = list(enumerate(nonzero(full, as_tuple=True)))
    return advanced, V.reshape(values, ())


def index_put(x, indices, values, accumulate=False):
    user_index = tuple(t for t in indices if t is not None)
    masked = _masked_fill_dispatch(x, indices, values, accumulate)
    if masked is not None:
        advanced, value = masked
        _, pos = _advanced_layout(x, advanced)
        return index_put_positions(x, pos, value, index=user_index, cast_ok=True)
    advanced = _put_indices("index_put", x, indices)
    _check_value_fits(x, advanced, values)
    if not advanced:        # (an empty x indexed by 0-dim masks alone: nothing to write)
        return x.clone()
    _, pos = _advanced_layout(x, advanced)
    return index_put_positions(x, pos, values, accumulate, index=tuple(t for _, t in advanced))


def index_put_(x, indices, values, accumulate=False):
    from .inplace import apply_inplace, check_inplace, check_overlap
    check_inplace(x, values)
    masked = _masked_fill_dispatch(x, indices, values, accumulate)
    if masked is not None:
        advanced, value = masked
        _, pos = _advanced_layout(x, advanced)
        return apply_inplace(x, _index_put_view_cast, pos, value, tuple(t for t in indices if t is not None),
                             needs_old=False, overlap=None)
    check_overlap(x, [t for t in indices if isinstance(t, Tensor)] + [values], full_ok=False, internal=False)
    advanced = _put_indices("index_put_", x, indices)
    _check_value_fits(x, advanced, values)
    if not advanced:        # (an empty x indexed by 0-dim masks alone: nothing to write)
        return x
    _, pos = _advanced_layout(x, advanced)
    from .inplace import has_internal_overlap, positions_writer
    writer = positions_writer("index_put_", pos, values, accumulate) if has_internal_overlap(x) else None
    index = tuple(t for _, t in advanced)
    return apply_inplace(x, lambda old, p, val: index_put_positions(old, p, val, accumulate, index=index), pos,
                         values, needs_old=False, overlap=None, writer=writer)


# -- named gathers ----------------------------------------------------------------------------
def _grid_positions(shape, cstrides, skip_dim, device):
    """Sum over dims != skip_dim (None: all dims) of arange(n_d) * cstride_d, shaped to
    broadcast over shape."""
    pos = None
    for d, n in enumerate(shape):
        if d == skip_dim:
            continue
        term = _axis_positions(n, cstrides[d], len(shape), d, device)
        pos = term if pos is None else pos + term
    return pos


def index_select(x, dim, index):
    d = _wrap(dim, x.dim())
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if x.dim():
        pos = _host_select_positions(x, d, index)
        if pos is not None:
            return gather_flat(x, pos, IndexSelectBackward0, index)
    with no_grad():
        idx = index.reshape(-1).long()
        if x.dim() > 1 and d == 1 and idx.numel():
            size = x._shape[d]
            if int(idx.min()) < 0 or int(idx.max()) >= size:
                _raise_select_out_of_range(x, d, idx.tolist())
        idx = _normalize_index(idx, x._shape[d] if x.dim() else 1, d, False, message="index out of range in self")
    if x.dim() == 0:
        if idx.numel() != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.numel()} value(s)")
        return gather_flat(x, idx.reshape(()), IndexSelectBackward0, index)      # 0-dim, as PyTorch's
    with no_grad():
        out_shape = list(x._shape)
        out_shape[d] = idx.numel()
        cstrides = contiguous_strides(x._shape)
        shape1 = [1] * x.dim()
        shape1[d] = idx.numel()
        pos = (idx * cstrides[d] if cstrides[d] != 1 else idx).reshape(shape1)
        grid = _grid_positions(out_shape, cstrides, d, x.device)
        if grid is not None:
            pos = pos + grid
        if pos._shape != tuple(out_shape):
            pos = pos.expand(out_shape)
        pos = pos.contiguous()
    return gather_flat(x, pos, IndexSelectBackward0, index)


def _raise_select_out_of_range(x, d, values):
    """index_select's error for an index outside [0, size): PyTorch's CPU kernel for dim 1 of
    a matrix or more (index_select_out_cpu_dim1_), and its bounds check of an empty x of 2 or
    more dims, name the first such index and raise a RuntimeError; its other loops raise
    IndexError (torch 2.13, every dtype and layout)."""
    size = x._shape[d]
    if x.dim() > 1 and x.numel() == 0 and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if (d == 1 or x.numel() == 0) and x.dim() > 1:
        bad = next(int(v) for v in values if not 0 <= int(v) < size)
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    raise IndexError("index out of range in self")


def _host_select_positions(x, d, index):
    """index_select's bounds check and flat positions (in x's row-major layout, shaped as the
    result) in NumPy on the host, for a CPU x (of 1 or more dims) and a contiguous CPU index,
    as _host_positions does for x[idx]: the general path composes ~10 Tensor ops on int64
    tensors (120 us for 2 indices into an 8x8 matrix; PyTorch's call 1.5 us).  None for any
    other call (a device tensor, nbgrad.compile recording: the general path)."""
    if x._storage.device.type != "cpu" or index._storage.device.type != "cpu" or _graph.CAPTURE[0] is not None \
            or not index.is_contiguous():
        return None
    n = index.numel()
    a = index._storage.buffer[index._offset:index._offset + n]
    shape = x._shape
    size = shape[d]
    if n:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= size:
            _raise_select_out_of_range(x, d, a)
    inner = math.prod(shape[d + 1:])
    pos = a.astype(np.int64) if inner == 1 else a.astype(np.int64) * inner     # (a new array either way)
    outer = math.prod(shape[:d])
    if inner != 1 or outer != 1:
        pos = ((np.arange(outer, dtype=np.int64) * (size * inner))[:, None, None] + pos[None, :, None]
               + np.arange(inner, dtype=np.int64)[None, None, :]).reshape(-1)
    out_shape = list(shape)
    out_shape[d] = n
    return Tensor._from_buffer(pos, Size(out_shape), D.int64, x._storage.device)


def _gather_positions(x, d, index):
    """The flat positions of x that index picks along d (gather's shape checks first); an empty
    index picks none and is not checked (ATen's meta functions return before their checks)."""
    if index.numel() == 0:
        return _arange(0, x.device).reshape(tuple(index._shape))
    if index.dim() != x.dim() and not (index.dim() <= 1 and x.dim() <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(index.dim()):
        if k != d and index._shape[k] > x._shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(index._shape)} to be no larger "
                f"than self {list(x._shape)} apart from dimension {d}")
    with no_grad():
        idx = _normalize_index(index.long(), x._shape[d] if x.dim() else 1, d, False, RuntimeError)
        cstrides = contiguous_strides(x._shape)
        pos = idx * (cstrides[d] if x.dim() else 1)
        grid = _grid_positions(tuple(index._shape), cstrides, d, x.device) if x.dim() else None
        if grid is not None:
            pos = pos + grid
        return pos.contiguous()


def gather(x, dim, index):
    d = _wrap(dim, x.dim())
    if index.numel() and index._dtype not in (D.int64, D.int32):     # (before the shapes, as ATen's meta)
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    return gather_flat(x, _gather_positions(x, d, index), GatherBackward0, index)


class ScatterBackward0(Node):
    def backward(self, g):
        pos = self.saved_tensors[0]
        gx = _zeroed_at(g, pos) if self.needs_input_grad(0) else None
        return gx, (_src_grad(g, pos, self) if self.needs_input_grad(1) else None)


class ScatterBackward1(Node):
    def backward(self, g):
        pos = self.saved_tensors[0]
        return _zeroed_at(g, pos)


class ScatterAddBackward0(Node):
    def backward(self, g):
        pos = self.saved_tensors[0]
        return g, (_src_grad(g, pos, self) if self.needs_input_grad(1) else None)


def _src_grad(g, pos, node):
    """scatter's gradient for src: g at the positions written, in the region of src that index
    covers (zeros elsewhere; all zeros for an empty index, whose rank may not be src's)."""
    if pos.numel() == 0:
        from .._creation import zeros
        return zeros(node.src_shape, dtype=g.dtype, device=g.device)
    gs = gather_flat(g.reshape(-1), pos, TakeBackward0).reshape(node.src_region)
    return gs if tuple(node.src_shape) == tuple(node.src_region) else _pad_to(gs, node.src_shape)


def _pad_to(g, shape):
    from .._creation import zeros
    out = zeros(shape, dtype=g.dtype, device=g.device)
    region = out
    for k, n in enumerate(g.shape):
        region = V.slice_dim(region, k, 0, n, 1)
    from .views import restride, _geometry
    return restride([(g, _geometry(region))], _geometry(out), g.dtype).reshape(shape)


def _src_region(src, index, x=None, d=None):
    """The part of src that scatter reads: src[:index.shape[0], :index.shape[1], ...]; none of
    it for an empty index (whose rank need not be src's)."""
    if index.numel() == 0:
        return V.slice_dim(src.reshape(-1), 0, 0, 0, 1)
    v = src
    for k, n in enumerate(index._shape):
        if v._shape[k] < n:
            where = f" than self {list(x._shape)} apart from dimension {d}" if x is not None else \
                " than self apart from dimension"
            raise RuntimeError(f"Expected index {list(index._shape)} to be no larger{where} and to be no larger "
                               f"size than src {list(src._shape)}")
        if v._shape[k] != n:
            v = V.slice_dim(v, k, 0, n, 1)
    return v


def scatter(x, dim, index, src=None, *, value=None, reduce=None):
    if src is None and value is None:
        raise TypeError("scatter() missing 'src' or 'value'")
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    d = _wrap(dim, x.dim())
    _check_scatter_args("scatter", x, d, index, src)
    pos = _gather_positions(x, d, index)
    if src is None:
        out = _put_flat(x, pos, value)
        if needs_grad(x):
            record(ScatterBackward1, (x,), (out,)).save(pos, index)
        return out
    with no_grad():
        region = _src_region(src, index, x, d)
    vals = contiguous_data(cast(region, x._dtype))
    out = _put_flat(x, pos, vals)
    if needs_grad(x, src):
        record(ScatterBackward0, (x, src), (out,), src_shape=src._shape, src_region=index._shape).save(pos, index)
    return out


def scatter_add(x, dim, index, src):
    d = _wrap(dim, x.dim())
    _check_scatter_args("scatter", x, d, index, src)
    pos = _gather_positions(x, d, index)
    with no_grad():
        region = _src_region(src, index, x, d)
    acc = _sum_dtype(x._dtype, True)
    out = cast(_put_flat(cast(x, acc), pos, contiguous_data(cast(region, acc)), accumulate=True), x._dtype)
    if needs_grad(x, src):
        record(ScatterAddBackward0, (x, src), (out,), src_shape=src._shape, src_region=index._shape).save(
            pos, index if needs_grad(src) else None)
    return out


def index_add(x, dim, index, source, *, alpha=1):
    d = _wrap(dim, x.dim())
    # (ATen's index_func_meta_impl, in its order)
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{scalar_type_name(index._dtype)} and size: {list(index.shape)}")
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{scalar_type_name(index._dtype)}")
    if source._dtype is not x._dtype:
        raise RuntimeError(f"index_add_(): self ({scalar_type_name(x._dtype)}) and source "
                           f"({scalar_type_name(source._dtype)}) must have the same scalar type")
    if not (d == 0 or d < source.dim()):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.dim()}")
    if index.numel() != (1 if source.dim() == 0 else source.shape[d]):
        if source.dim() == 0:           # (ATen's message reads source.size(dim))
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({source.shape[d]}), for dim: {d}")
    x_rest, s_rest = list(x.shape), list(source.shape)
    if x.dim() and source.dim():
        del x_rest[d], s_rest[d]
    if x_rest != s_rest:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {list(x.shape)} source.shape = {list(source.shape)}")
    checked_scalar(alpha, x._dtype)
    if alpha != 1:      # (read in the dtype: an integral one truncates a float alpha, as Scalar::to)
        from .more import _scalar_in
        source = source * _scalar_in(alpha, x._dtype)
    with no_grad():
        cstrides = contiguous_strides(x._shape)
        if x.dim() > 1:
            # (ATen's CPU kernel of more than one dim reads no index of an empty self, and refuses
            # the first one out of [0, size) with a RuntimeError)
            idx = index.long().reshape(-1)
            if x.numel() == 0:      # (nothing to add to: source's slices are not read either)
                idx, source = idx[:0], source.narrow(d, 0, 0)
            first = first_out_of_range(idx, 0, x._shape[d])
            if first is not None:
                raise RuntimeError(f"index {first} is out of bounds for dimension {d} with size {x._shape[d]}")
        if not x.dim():         # (a 0-dim self: one position, index 0)
            idx = _normalize_index(index.long(), 1, d, False, message="index out of range in self")
            pos = idx.reshape(())
        else:
            if x.dim() == 1:
                idx = _normalize_index(index.long(), x._shape[d], d, False, message="index out of range in self")
            shape1 = [1] * x.dim()
            shape1[d] = idx.numel()
            pos = (idx * cstrides[d]).reshape(shape1)
        grid = _grid_positions(tuple(source._shape), cstrides, d, x.device)
        if grid is not None:
            pos = pos + grid
        pos = pos.expand(source._shape).contiguous()
    return index_put_positions(x, pos, source, True, IndexAddBackward0, (index,) if needs_grad(source) else ())


def first_out_of_range(idx, low, size):
    """The first value of the 1-D index idx (in its order, as ATen's loops read it) outside
    [low, size), or None."""
    bad = (idx < low) | (idx >= size)
    if not idx.numel() or not bool(bad.any()):
        return None
    return int(idx[nonzero(bad, as_tuple=True)[0][0]])


def restrided_iteration_is_empty(x, d, n, inplace):
    """ATen's index_fill_ and index_copy_ iterate over x restrided to size n (the index's length)
    and stride 0 along d: an empty iteration reads no index (an index out of range into an empty
    slice is no error), and a non-empty one over an x empty along d is that as_strided's storage
    check (its setStorage error: the restrided x reaches past its storage).  The out-of-place
    forms work on a clone, whose storage, when x is empty, is empty and starts at 0."""
    if x.dim() == 0:
        return n == 0
    sizes, strides = list(x._shape), list(x._stride)
    sizes[d], strides[d] = n, 0
    if math.prod(sizes) == 0:
        return True
    if x._shape[d] == 0:
        from .._checks import check_strided_geometry
        offset, storage = (x._offset, len(x._storage.buffer)) if inplace else (0, 0)
        check_strided_geometry(sizes, strides, offset, x._dtype.itemsize, storage)
    return False


def take(x, index):
    if index._dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {scalar_type_name(index._dtype)}")
    with no_grad():
        idx = _normalize_index(index.long(), x.numel(), 0,
                               message="out of range: tried to access index {index} on a tensor of {size} elements.")
    return gather_flat(x, idx, TakeBackward0)


def masked_select(x, mask):
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(x._shape, mask._shape)
    xe = x.expand(shape) if x._shape != shape else x
    with no_grad():
        me = mask.expand(shape) if mask._shape != shape else mask
        pos = nonzero(me.reshape(-1), as_tuple=True)[0]
    return gather_flat(xe, pos, MaskedSelectBackward0)


def nonzero(x, *, as_tuple=False):
    if not isinstance(as_tuple, (bool, np.bool_)):
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {type(as_tuple).__name__}")
    buf, n = backend_of(x).nonzero(x._view_tuple())
    out = new_tensor(buf, (n, x.dim()), D.int64, x.device)
    if as_tuple:
        if x.dim() == 0:
            return (_arange(n, x.device) * 0,)
        return tuple(V.select(out, 1, k).contiguous() for k in range(x.dim()))
    return out


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's first `size` rows, then rows of fill_value up to `size` rows."""
    from .._creation import full
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = nonzero(input)
    if found.shape[0] >= size:
        return found[:size].contiguous()
    return cat([found, full((size - found.shape[0], input.dim()), fill_value, dtype=D.int64, device=input.device)])


def argwhere(x):
    return nonzero(x)


# -- cat / stack ---------------------------------------------------------------------------------
class CatBackward0(Node):
    def backward(self, g):
        # PyTorch's cat_tensors_backward: every input gets a gradient, an empty one too
        # (zeros([0]) for a skipped legacy 1-D empty input)
        out, start = [], 0
        for n, skipped in zip(self.sizes, self.skipped):
            if skipped:
                from .._creation import zeros
                out.append(zeros((0,), dtype=g.dtype, device=g.device))
                continue
            out.append(V.narrow(g, self.dim, start, n))
            start += n
        return tuple(out)


def tensor_list(name, tensors):
    """A TensorList argument as PyTorch's parser reads one: a list or tuple of tensors, as a
    list.  One tensor (which list() would split into its rows), another container, or an
    element that is not a tensor is its TypeError."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{'Tensor' if isinstance(tensors, Tensor) else type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def cat(tensors, dim=0):
    tensors = tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")   # (PyTorch 2.13: TORCH_CHECK_VALUE)
    check_same_device(*tensors)
    for i, t in enumerate(tensors):          # every one, before the dim is wrapped (as PyTorch)
        if not t._shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    parts = [t for t in tensors if not (t.dim() == 1 and t._shape[0] == 0)]
    ref = parts[0] if parts else tensors[0]
    d = _wrap(dim, ref.dim())
    for i, t in enumerate(parts):
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} and {t.dim()}")
        for k in range(ref.dim()):
            if k != d and t._shape[k] != ref._shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref._shape[k]} "
                    f"but got size {t._shape[k]} for tensor number {i} in the list.")
    dt = D.result_type_of(tuple(tensors))
    shape = list(ref._shape)
    shape[d] = sum(t._shape[d] for t in parts)
    be = backend_of(ref)
    buf = be.empty(math.prod(shape), dt.np)
    out = new_strided(buf, shape, _cat_strides(tensors, tuple(shape)), dt, ref.device)
    cstr = out._stride
    if not _join_dense(parts, d, shape, cstr, buf, dt):
        start = 0
        for t in parts:
            n = t._shape[d]
            if n:
                be.copy(t._view_tuple(), (buf, start * cstr[d], tuple(t._shape), cstr))
            start += n
    if needs_grad(*tensors):
        skipped = [not any(t is q for q in parts) for t in tensors]
        record(CatBackward0, tuple(tensors), (out,), dim=d, skipped=skipped,
               sizes=[0 if k else t._shape[d] for t, k in zip(tensors, skipped)])
    return out


concat = cat
concatenate = cat

_JOIN_DENSE_LIMIT = 1 << 16        # (larger copies keep the backend's, which may split across threads)


def _join_dense(parts, d, shape, out_strides, buf, dt, stacking=False):
    """cat's copies (and stack's: d the new dim, each part one index of it) by NumPy slice assignment when every part is
    a row-major CPU tensor of the result's dtype and the result is row-major and small: the
    backend's copy plans each part (~5 us apiece), which is most of a small cat.  The same
    values (a copy); False, having written nothing, for any other call and while
    nbgrad.compile captures (a compiled call replays the backend calls it recorded)."""
    if _graph.CAPTURE[0] is not None:
        return False                    # nbgrad.compile records the backend's copies, not NumPy's
    total = math.prod(shape)
    if not parts:
        return True                     # (every input an empty vector: nothing to copy)
    if total > _JOIN_DENSE_LIMIT or parts[0]._storage.device.type != "cpu" \
            or tuple(out_strides) != contiguous_strides(tuple(shape)):
        return False
    for t in parts:
        if t._dtype is not dt or t._stride != contiguous_strides(t._shape):
            return False
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    rows = buf[:total].reshape(outer, shape[d] * inner)
    start = 0
    for t in parts:
        width = inner if stacking else t._shape[d] * inner
        if width:
            src = t._storage.buffer[t._offset:t._offset + outer * width]
            rows[:, start:start + width] = src.reshape(outer, width)
        start += width
    return True


class StackBackward0(Node):
    def backward(self, g):
        return tuple(V.select(g, self.dim, i) for i in range(self.count))


def _cat_strides(tensors, shape):
    """The strides of cat's result: PyTorch's cat_compute_output_memory_format, a
    channels-last layout when every input suggests the same one, else row-major."""
    fmt = suggest_memory_format(tensors[0]._shape, tensors[0]._stride)
    if fmt is contiguous_format or any(suggest_memory_format(t._shape, t._stride) is not fmt for t in tensors[1:]):
        return contiguous_strides(shape)
    return format_strides(shape, fmt)


def stack(tensors, dim=0):
    tensors = tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    d = _wrap(dim, ref.dim() + 1)          # PyTorch wraps the dim before comparing sizes
    for i, t in enumerate(tensors):
        if t._shape != ref._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref._shape)} at entry 0 and {list(t._shape)} at entry {i}")
    check_same_device(*tensors)
    dt = D.result_type_of(tuple(tensors))
    shape = list(ref._shape)
    shape.insert(d, len(tensors))
    be = backend_of(ref)
    buf = be.empty(math.prod(shape), dt.np)
    if d < ref.dim() and ref.numel():
        # PyTorch's stack is cat along dim d, viewed with the new dim split off: cat's layout
        cat_shape = list(ref._shape)
        cat_shape[d] *= len(tensors)
        cs = _cat_strides(tensors, tuple(cat_shape))
        strides = cs[:d] + (ref._shape[d] * cs[d],) + cs[d:]
    else:
        strides = contiguous_strides(tuple(shape))
    out = new_strided(buf, shape, strides, dt, ref.device)
    cstr = out._stride
    inner = cstr[:d] + cstr[d + 1:]
    if not _join_dense(tensors, d, shape, cstr, buf, dt, stacking=True):
        for i, t in enumerate(tensors):
            be.copy(t._view_tuple(), (buf, i * cstr[d], tuple(t._shape), inner))
    if needs_grad(*tensors):
        record(StackBackward0, tuple(tensors), (out,), dim=d, count=len(tensors))
    return out


def hstack(tensors):
    """cat of the tensors made at least 1-D (ATen's atleast_1d), along dim 0 for vectors, else 1."""
    tensors = tensor_list("hstack", tensors)
    if not len(tensors):
        raise RuntimeError("hstack expects a non-empty TensorList")
    rep = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    return cat(rep, 0 if rep[0].dim() == 1 else 1)


def vstack(tensors):
    """cat along dim 0 of the tensors made at least 2-D (ATen's atleast_2d)."""
    tensors = tensor_list("vstack", tensors)
    if not len(tensors):
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t for t in tensors], 0)


# -- used by max(dim) backward -----------------------------------------------------------------
def _scatter_into_zeros(shape, dim, indices, g):
    """zeros(shape) with g placed at indices along dim (differentiable in g).  The zeros
    are fresh, so g is written straight into them instead of into a copy."""
    from .._creation import zeros
    out = zeros(shape, dtype=g.dtype, device=g.device)
    pos = _gather_positions(out, _wrap(dim, out.dim()), indices)
    backend_of(out).put(out._storage.buffer, _flat_buffer(pos), _flat_buffer(cast(g, out._dtype)), False)
    if needs_grad(g):
        record(ScatterBackward0, (out, g), (out,), src_shape=g._shape, src_region=indices._shape).save(pos)
    return out


# -- scatter_reduce ----------------------------------------------------------------------------
# PyTorch's names of its reductions (get_operator_enum with the new options: max/min are taken
# as amax/amin by the forward; only the backward refuses them)
_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "max": "amax", "amin": "amin",
               "min": "amin"}


def _int_limits(dtype):
    if dtype is D.bool_:
        return False, True
    bits = 8 * dtype.itemsize
    if dtype is D.uint8:
        return 0, 2 ** bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _reduce_identity(op, dtype):
    """What scatter_reduce with include_self=False writes first where an index points
    (scatter_reduce_exclude_self_helper)."""
    if op in ("sum", "mean"):
        return 0
    if op == "prod":
        return 1
    if dtype.is_floating_point:
        return float("-inf") if op == "amax" else float("inf")
    lo, hi = _int_limits(dtype)
    return lo if op == "amax" else hi


def _check_scatter_args(name, x, d, index, src):
    """PyTorch's scatter_gather_dtype_check and scatter_shape_check, in its order."""
    if index.numel() and index._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and src._dtype is not x._dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    if not index.numel():
        return
    if max(x.dim(), 1) != max(index.dim(), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    ndim = max(x.dim(), 1)

    def size(t, k):
        return t._shape[_wrap(k, t.dim())] if t.dim() else 1
    wrong = any(k != d and size(index, k) > size(x, k) for k in range(ndim))
    if not wrong and src is not None:
        wrong = any(size(index, k) > size(src, k) for k in range(ndim))
    if wrong:
        raise RuntimeError(f"Expected index {list(index._shape)} to be no larger than self {list(x._shape)} apart "
                           f"from dimension {d}" + ("" if src is None else
                                                    f" and to be no larger size than src {list(src._shape)}"))


def _check_reduce(reduce):
    op = _REDUCTIONS.get(reduce) if isinstance(reduce, str) else None
    if op is None:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return op


def _check_scatter_bounds(x, d, index):
    """The scatter kernel's bound check: the first index (its loop order, `dim` innermost)
    outside [0, size)."""
    n = x._shape[d] if x.dim() else 1
    with no_grad():
        idx = index.long()
        bad = (idx < 0) | (idx >= n)
        if index.numel() and bool(bad.any()):
            order = idx.movedim(d, -1) if idx.dim() else idx
            flat_bad = (bad.movedim(d, -1) if idx.dim() else bad).reshape(-1)
            first = int(nonzero(flat_bad, as_tuple=True)[0][0])
            raise RuntimeError(f"index {int(order.reshape(-1)[first])} is out of bounds for dimension {d} with "
                               f"size {n}")


class ScatterReduceBackward0(Node):
    """PyTorch's scatter_reduce_backward (FunctionsManual.cpp), with Tensor ops."""

    def backward(self, grad):
        from .._creation import ones_like, zeros_like
        from .elementwise import where
        x, index, src, result = self.saved_tensors
        d, reduce, include_self = self.dim, self.reduce, self.include_self
        if reduce == "sum":
            grad_self = grad
            grad_src = grad.gather(d, index)
        elif reduce == "prod":
            # the exclusive products of elements of self and src that are 0, explicitly
            masked_self = x.masked_fill(x == 0, 1)
            masked_self_result = masked_self.scatter_reduce(d, index, src, reduce, include_self=include_self)
            grad_self = grad * masked_self_result / masked_self
            src_zero = src == 0
            src_num_zeros = zeros_like(x).scatter_add(d, index, src_zero.to(x.dtype)).gather(d, index)
            src_single_zero = src_zero & (src_num_zeros == 1)
            masked_src = src.masked_fill(src_single_zero, 1)
            masked_src_result = x.scatter_reduce(d, index, masked_src, reduce, include_self=include_self)
            grad_src = where(src_single_zero, (grad * masked_src_result).gather(d, index),
                               (grad * result).gather(d, index) / src.masked_fill(src_zero, 1))
        elif reduce == "mean":
            n = ones_like(grad) if include_self else zeros_like(grad)
            n = n.scatter_add(d, index, ones_like(src))
            n = n.masked_fill(n == 0, 1)
            grad_self = grad / n
            grad_src = grad.gather(d, index) / n.gather(d, index)
        elif reduce in ("amax", "amin"):
            # the gradient split evenly between the elements equal to the result
            value = result.gather(d, index)
            self_is_result = (x == result).to(x.dtype)
            src_is_result = (src == value).to(x.dtype)
            n = self_is_result.scatter_add(d, index, src_is_result)
            grad_distributed = grad / n
            grad_self = (x == result) * grad_distributed
            grad_src = (src == value) * grad_distributed.gather(d, index)
        else:
            raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got "
                               f"{reduce}.")
        if not include_self:
            grad_self = grad_self.scatter(d, index, 0)
        return (grad_self if self.needs_input_grad(0) else None), (grad_src if self.needs_input_grad(1) else None)


def _scatter_reduce_checked(x, d, index, src, op, include_self, given):
    """scatter_reduce once its arguments are checked: x with src's values (the part index
    covers) folded in at index along d, in index order."""
    _check_scatter_bounds(x, d, index)
    with no_grad():         # (an empty index: no positions, no region)
        pos = _gather_positions(x, d, index)
        region = _src_region(src, index, x, d)
    if x._dtype is D.bool_ and op == "mean":
        raise not_implemented("scatter_gather_tensor_cpu_reduce_mean", D.bool_)
    be = backend_of(x)
    acc = _sum_dtype(x._dtype, True)            # (Half: folded in float32, rounded once, as PyTorch's)
    out = copy_raw(cast(x, acc))
    buf = out._storage.buffer
    if not include_self:
        be.put(buf, _flat_buffer(pos), _flat_buffer(_put_values(out, pos, _reduce_identity(op, x._dtype))), False)
    values = _flat_buffer(cast(contiguous_data(region), acc))
    if op in ("sum", "mean"):
        be.put(buf, _flat_buffer(pos), values, True)
    else:
        be.put_reduce(buf, _flat_buffer(pos), values, op)
    if op == "mean":
        with no_grad():
            from .._creation import full
            count = scatter_add_flat(x.numel(), pos, full(tuple(pos._shape), 1, dtype=D.int64, device=x.device),
                                     base=full(tuple(x._shape), int(include_self), dtype=D.int64, device=x.device),
                                     shape=x._shape)
            count = count.masked_fill(count == 0, 1)
            out = out / count.to(acc) if acc.is_floating_point else out.div(count, rounding_mode="floor").to(acc)
    out = cast(out, x._dtype)
    if needs_grad(x, src):
        record(ScatterReduceBackward0, (x, src), (out,), dim=d, reduce=given, include_self=include_self).save(x, index, src, out, outputs=(out,))
    return out


def _scatter_reduce_args(name, x, dim, index, src, reduce, include_self):
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if not isinstance(include_self, bool):
        raise TypeError(f"{name}(): argument 'include_self' must be bool, not {type(include_self).__name__}")
    d = _wrap(dim, x.dim())
    _check_scatter_args("scatter", x, d, index, src)
    return d


def scatter_reduce(x, dim, index, src, reduce, *, include_self=True):
    """PyTorch's scatter_reduce: self with src's values reduced in at index along dim (sum,
    prod, mean, amax, amin; include_self=False leaves self's values at the indexed places out)."""
    d = _scatter_reduce_args("scatter_reduce", x, dim, index, src, reduce, include_self)
    op = _check_reduce(reduce)
    return _scatter_reduce_checked(x, d, index, src, op, include_self, reduce)


def scatter_reduce_(x, dim, index, src, reduce, *, include_self=True):
    from .inplace import apply_inplace, check_inplace, check_overlap
    check_inplace(x, src)
    d = _scatter_reduce_args("scatter_reduce_", x, dim, index, src, reduce, include_self)
    check_overlap(x, [index, src], full_ok=False)
    op = _check_reduce(reduce)
    return apply_inplace(x, lambda old, i, s: _scatter_reduce_checked(old, d, i, s, op, include_self, reduce),
                         index, src, needs_old=True, overlap=None)


# -- index_copy ----------------------------------------------------------------------------------
class IndexCopyBackward0(IndexPutBackward0):
    """self: grad.index_fill(dim, index, 0); source: grad.index_select(dim, index)."""

    def backward(self, g):
        if self.scalar_self and self.n_index != 1 and self.needs_input_grad(1):
            # PyTorch's source gradient is grad.index_select(dim, index) of a 0-dim grad
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {self.n_index} value(s)")
        return super().backward(g)


def _sizes_text(shape):
    return " ".join(str(n) for n in shape)


def _check_index_copy(x, dim, index, source):
    """PyTorch's index_copy meta checks, in its order; the wrapped dim."""
    if not isinstance(source, Tensor):
        raise TypeError(f"index_copy(): argument 'source' (position 3) must be Tensor, not {type(source).__name__}")
    d = _wrap(dim, x.dim())
    if index.dim() >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.dim() != x.dim() and source.dim() != 0 and x.dim() != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.dim()}), destination dimensionality ({x.dim()})")
    if index._dtype is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {scalar_type_name(index._dtype)}")
    if source._dtype is not x._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{scalar_type_name(x._dtype)} and (source) {scalar_type_name(source._dtype)}")
    self_slice = [s for k, s in enumerate(x._shape) if k != d]
    source_slice = [s for k, s in enumerate(source._shape) if k != d]
    if self_slice != source_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {_sizes_text(self_slice)} at dimension {d} and source slice shape: "
                           f"{_sizes_text(source_slice)} at dimension 0.")
    if source.dim() and n != source._shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source._shape[d]})")
    return d


def _index_copy_checked(x, d, index, source, inplace=False):
    size = x._shape[d] if x.dim() else 1
    empty = restrided_iteration_is_empty(x, d, index.numel(), inplace)
    with no_grad():
        idx = index.reshape(-1)
        first = None if empty else first_out_of_range(idx, 0, size)
        if first is not None:
            raise IndexError(f"index_copy_(): index {first} is out of bounds for dimension {d} with size {size}")
        shape = tuple(x._shape) or (1,)
        cstrides = contiguous_strides(shape)
        src_shape = list(shape)
        src_shape[d] = idx.numel()
        shape1 = [1] * len(shape)
        shape1[d] = idx.numel()
        pos = (idx * cstrides[d]).reshape(shape1)
        grid = _grid_positions(tuple(src_shape), cstrides, d, x.device)
        if grid is not None:
            pos = pos + grid
        pos = pos.expand(src_shape).contiguous()
    values = source if tuple(source._shape) == tuple(src_shape) else V.reshape(source, tuple(src_shape))
    out = index_put_positions(x, pos, values, False, IndexCopyBackward0, (index,))
    if out._grad_fn is not None and type(out._grad_fn) is IndexCopyBackward0:
        out._grad_fn.scalar_self, out._grad_fn.n_index = x.dim() == 0, index.numel()
    return out


def index_copy(x, dim, index, source):
    """x with source's slices copied in at index along dim (a repeated index: the last one's)."""
    d = _check_index_copy(x, dim, index, source)
    return _index_copy_checked(x, d, index, source)


def index_copy_(x, dim, index, source):
    from .inplace import apply_inplace, check_inplace, check_overlap
    check_inplace(x, source)
    check_overlap(x, [index, source], full_ok=False)
    d = _check_index_copy(x, dim, index, source)
    return apply_inplace(x, lambda old, i, s: _index_copy_checked(old, d, i, s, True), index, source, needs_old=False,
                         overlap=None)


# -- masked_scatter --------------------------------------------------------------------------------
class MaskedScatterBackward0(Node):
    """self: grad.masked_fill(mask, 0) (summed to self's shape); source: masked_scatter_backward
    (the selected gradient, zeros after it, in source's shape)."""

    def backward(self, g):
        mask, = self.saved_tensors
        gx = gs = None
        if self.needs_input_grad(0):
            gx = g.masked_fill(mask, 0)
            if tuple(gx.shape) != tuple(self.self_shape):
                gx = gx.sum_to_size(self.self_shape)
        if self.needs_input_grad(1):
            selected = g.masked_select(mask)
            diff = math.prod(self.source_shape) - selected.numel()
            if diff > 0:
                from .._creation import zeros
                selected = cat([selected, zeros(diff, dtype=g.dtype, device=g.device)], 0)
            gs = selected.view(self.source_shape)
        return gx, gs


def _masked_scatter_checked(x, mask, source, shape):
    """x (broadcast to shape) with source's first elements written where mask (of shape) is set."""
    if source._dtype is not x._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{scalar_type_name(x._dtype)} and {scalar_type_name(source._dtype)}")
    if mask._dtype is not D.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{scalar_type_name(mask._dtype)}")
    with no_grad():
        m = V.expand(mask, shape) if tuple(mask._shape) != tuple(shape) else mask
        xe = V.expand(x, shape) if tuple(x._shape) != tuple(shape) else x
        pos = nonzero(m.reshape(-1), as_tuple=True)[0]
        if source.numel() < pos.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")
        values = source.reshape(-1)[:pos.numel()]
        out = _put_flat(xe, pos, values)
    if needs_grad(x, source):
        record(MaskedScatterBackward0, (x, source), (out,), self_shape=x._shape,
               source_shape=source._shape).save(m)
    return out


def _check_source(name, source):
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' (position 2) must be Tensor, not {type(source).__name__}")


def masked_scatter(x, mask, source):
    """x broadcast with mask, with source's elements (in order) written where mask is True."""
    _check_source("masked_scatter", source)
    shape = broadcast_shapes(mask._shape, x._shape)
    return _masked_scatter_checked(x, mask, source, shape)


def masked_scatter_(x, mask, source):
    from .inplace import apply_inplace, assert_no_internal_overlap, check_inplace
    _check_source("masked_scatter_", source)
    check_inplace(x, source)
    assert_no_internal_overlap(x)
    if source._dtype is x._dtype and mask._dtype is D.bool_:
        V.expand(mask, x._shape)                # PyTorch's expand_inplace(self, mask) and its error
    return apply_inplace(x, lambda old, m, s: _masked_scatter_checked(old, m, s, x._shape), mask, source,
                         needs_old=False, overlap=None)
