"""Ops that move or mask elements without arithmetic: tril/triu (and their index
functions), flip, roll, repeat_interleave, repeat/tile, meshgrid.

Each forward is a strided copy (or composed Tensor ops run unrecorded) into a fresh
tensor, recorded as one node with PyTorch's name; each backward is the same kind of op
on the gradient (tril's is tril, flip's is flip, roll's is roll back), called as a
Tensor op so that a backward under create_graph is recorded and differentiable again.
"""
from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._layout import contiguous_format, preserve_strides
from .._storage import Storage
from .._tensor import Tensor, _strides_of
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, record, _wrap
from ._dtype_rules import not_implemented


def _int_arg(value, op, arg):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type(value).__name__}")
    return value.__index__()


def _dims_arg(dims, op, arg="dims"):
    """An int or a sequence of ints (PyTorch's IntArrayRef)."""
    if isinstance(dims, (tuple, list)):
        # (a later element's bool is its int: is_int_list_element)
        return tuple(int(d) if i and type(d) is bool else _int_arg(d, op, arg) for i, d in enumerate(dims))
    return (_int_arg(dims, op, arg),)


def _fresh(x, strides=None):
    """A new uninitialised tensor of x's shape and dtype (contiguous, or the given dense strides)."""
    be = backend_of(x)
    buf = be.empty(x.numel(), x._dtype.np)
    strides = _strides_of(x._shape) if strides is None else tuple(strides)
    return Tensor._make(Storage(buf, x._storage.device), x._shape, strides, 0, x._dtype)


# -- tril / triu ---------------------------------------------------------------------------
class TrilBackward0(Node):
    def backward(self, g):
        return tril(g, self.diagonal)


class TriuBackward0(Node):
    def backward(self, g):
        return triu(g, self.diagonal)


def _triangle(x, diagonal, lower):
    op = "tril" if lower else "triu"
    diagonal = _int_arg(diagonal, op, "diagonal")
    if x.dim() < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    from .._creation import arange, zeros
    from .elementwise import where
    m, n = x._shape[-2], x._shape[-1]
    with no_grad():
        rows = arange(m, device=x.device).unsqueeze(1)
        cols = arange(n, device=x.device)
        offset = cols - rows                      # j - i
        keep = offset <= diagonal if lower else offset >= diagonal
        out = where(keep, x, zeros((), dtype=x._dtype, device=x.device))
        # PyTorch's tril/triu results have contiguous strides, also when empty (where
        # breaks a size-0 shape's ties otherwise, and contiguous() keeps an empty tensor)
        from .._tensor import contiguous_strides
        if out._stride != contiguous_strides(tuple(out._shape)):
            out = out.contiguous() if out.numel() else \
                zeros(out._shape, dtype=out._dtype, device=out.device)
    if needs_grad(x):
        record(TrilBackward0 if lower else TriuBackward0, (x,), (out,), diagonal=diagonal)
    return out


def _batch_contiguous(shape, strides):
    """PyTorch's checkTrilTriuBatchContiguous (zero strides allowed): whether tril_/triu_
    can work on the tensor's own memory, matrix by matrix."""
    from .._tensor import contiguous_strides
    if tuple(strides) == contiguous_strides(tuple(shape)) or len(shape) <= 3:
        return True
    expected = shape[-1] * shape[-2]
    for i in range(len(shape) - 3, -1, -1):
        if i == 0 and (strides[i] == 0 or shape[i] == 1):
            continue
        if strides[i] != expected:
            return False
        expected *= shape[i]
    return True


def check_triangle_inplace(t):
    """tril_/triu_ on a tensor it cannot work on in place compute a contiguous copy and copy
    it back, which PyTorch refuses when elements of t share memory."""
    from .inplace import _INTERNAL_MSG, has_internal_overlap
    if t.numel() and not _batch_contiguous(t._shape, t._stride) and has_internal_overlap(t):
        raise RuntimeError(_INTERNAL_MSG)


def triangle_writer(t, diagonal, lower):
    """How tril_/triu_ reach t's memory: PyTorch's in-place kernel writes zeros where the
    triangle ends and leaves the rest, so when elements of t share memory (expanded) a
    zero written at any of them wins; otherwise the whole result is written."""
    from .inplace import has_internal_overlap, put_into_memory, write_result

    def write(target, result):
        if not has_internal_overlap(target):
            write_result(target, result)
            return
        from .._creation import arange
        with no_grad():
            m, n = target._shape[-2], target._shape[-1]
            offset = arange(n, device=target.device) - arange(m, device=target.device).unsqueeze(1)
            dropped = (offset > diagonal) if lower else (offset < diagonal)
            pos = dropped.expand(target._shape).reshape(-1).nonzero().reshape(-1)
            zeros = result.new_zeros(pos.numel())
        put_into_memory(target, "tril_" if lower else "triu_", pos, zeros, warn=False)
    return write


def tril(input, diagonal=0):
    return _triangle(input, diagonal, True)


def triu(input, diagonal=0):
    return _triangle(input, diagonal, False)


# -- flip -------------------------------------------------------------------------------------
class FlipBackward0(Node):
    def backward(self, g):
        return flip(g, self.dims)


def flip(input, *dims, **kwargs):
    x = input
    if "dims" in kwargs and not dims:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    dims = _dims_arg(dims[0] if len(dims) == 1 else dims, "flip")
    wrapped = []
    for d in dims:      # (each wrapped and checked in turn: a repeat before a later dim out of range)
        w = _wrap(d, x.dim())
        if w in wrapped:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    if x.dim() == 0:
        wrapped = []
    # PyTorch's flip keeps x's layout (empty_like with preserve_format), reading x with
    # each flipped dim walked backwards
    strides = preserve_strides(x._shape, x._stride)
    if any(s < 0 for s in strides):
        strides = None
    out = _fresh(x, strides)
    if x.numel():
        src_strides = list(x._stride)
        offset = x._offset
        for d in wrapped:
            offset += (x._shape[d] - 1) * x._stride[d]
            src_strides[d] = -x._stride[d]
        backend_of(x).copy((x._storage.buffer, offset, tuple(x._shape), tuple(src_strides)), out._view_tuple())
    if needs_grad(x):
        record(FlipBackward0, (x,), (out,), dims=tuple(wrapped))
    return out


# -- roll -------------------------------------------------------------------------------------
class RollBackward0(Node):
    def backward(self, g):
        return roll(g, tuple(-s for s in self.shifts), self.dims)


def _roll_dim(x, dst, shift, d):
    """Copy x rolled by shift along dim d into dst (both of x's shape): two slab copies."""
    n = x._shape[d]
    s = shift % n if n else 0
    be = backend_of(x)
    src_view, dst_view = x._view_tuple(), dst._view_tuple()
    for src_start, dst_start, length in ((0, s, n - s), (n - s, 0, s)):
        if length == 0:
            continue
        shape = list(x._shape)
        shape[d] = length
        be.copy((src_view[0], src_view[1] + src_start * x._stride[d], tuple(shape), src_view[3]),
                (dst_view[0], dst_view[1] + dst_start * dst._stride[d], tuple(shape), dst_view[3]))


def roll(input, shifts, dims=None):
    x = input
    shifts = _dims_arg(shifts, "roll", "shifts")
    dims = () if dims is None else _dims_arg(dims, "roll")
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        # PyTorch: roll the flattened tensor, shaped back (one node, RollBackward0)
        with no_grad():
            flat = roll(x.contiguous().view(x.numel()), shifts, 0)
        out = Tensor._make(flat._storage, x._shape, _strides_of(x._shape), 0, x._dtype)
    else:
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        if x.dim() == 0:            # (flip accepts dim 0 of a 0-dim tensor; roll does not)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        # (ATen's roll of one dim returns a clone of no elements before it wraps the dim)
        wrapped = list(dims) if len(dims) == 1 and x.numel() == 0 else [_wrap(d, x.dim()) for d in dims]
        out = _fresh(x)
        if x.numel():
            cur = x
            for i, (s, d) in enumerate(zip(shifts, wrapped)):
                dst = out if i == len(shifts) - 1 else _fresh(x)
                _roll_dim(cur, dst, s, d)
                cur = dst
        dims = tuple(wrapped)
    if needs_grad(x):
        record(RollBackward0, (x,), (out,), shifts=tuple(shifts), dims=tuple(dims))
    return out


# -- repeat_interleave / tile -----------------------------------------------------------------
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """PyTorch's composite: an int repeat is unsqueeze, expand, clone and view (its nodes
    are those ops'); a tensor of repeats is an index_select with the repeated indices."""
    from .indexing import index_select
    if repeats is None:                     # torch.repeat_interleave(repeats): the indices
        return _repeated_indices(input, output_size)
    x = input
    if isinstance(repeats, Tensor) and repeats.dim() > 1:     # (before ATen reads input's size at dim)
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if dim is None:                         # PyTorch's flatten(): a 1-D input is itself, no view
        x = x.reshape(-1) if x.dim() != 1 else x
        d = 0
    else:
        d = _wrap(dim, x.dim())
    if isinstance(repeats, Tensor):
        n = x._shape[d] if x.dim() else 1
        if repeats.numel() == 1:                # one repeat for every index
            repeats = repeats.reshape(1).expand(n)
        elif repeats.numel() != n:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size({d}) = {n}")
        return index_select(x, d, _repeated_indices(repeats.to(x.device), output_size))
    repeats = _int_arg(repeats, "repeat_interleave", "repeats")
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    if x.dim() == 0:
        x = x.reshape(1)
    shape = list(x._shape)
    y = x.unsqueeze(d + 1)
    big = list(y._shape)
    big[d + 1] = repeats
    shape[d] *= repeats
    if output_size is not None and output_size != shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {shape[d]} but got {output_size}")
    return y.expand(big).clone(memory_format=contiguous_format).view(shape)


def _repeated_indices(repeats, output_size=None):
    """torch.repeat_interleave(repeats): [0]*repeats[0] + [1]*repeats[1] + ...  (ATen dispatches
    on the index types first: a float or bool repeats is its NotImplementedError, before the
    dim check.)"""
    if repeats._dtype not in (D.int64, D.int32):
        raise not_implemented("repeat_interleave_cpu", repeats._dtype)
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = [int(v) for v in repeats.tolist()]
    if any(c < 0 for c in counts):
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and counts and output_size != sum(counts):      # (no repeats: not checked)
        raise RuntimeError("allocated size does not match required size")
    from .._creation import tensor
    return tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=repeats._dtype, device=repeats.device)


class RepeatBackward0(Node):
    """PyTorch's repeat_backward: zeros when a repeat is 0; new leading dims summed away one
    by one; then one reshape to (r, n) pairs for the dims repeated more than once and one
    sum over their r's (the gradient itself when nothing repeated)."""
    def backward(self, g):
        if 0 in self.repeats:
            from .._creation import zeros
            return zeros(self.shape, dtype=g.dtype, device=g.device)
        lead = len(self.repeats) - len(self.shape)
        for _ in range(lead):
            g = g.sum(0)
        sizes, summed = [], []
        for r, n in zip(self.repeats[lead:], self.shape):
            if r != 1:
                sizes.append(r)
                summed.append(len(sizes) - 1)
            sizes.append(n)
        if summed:
            g = g.reshape(sizes).sum(summed)
        return g


def repeat(input, *sizes):
    """Tensor.repeat: the copies made by expand and reshape (unrecorded), one RepeatBackward0."""
    from . import _repeat
    from ._graph import copy_raw
    from .views import _shape_args
    x = input
    with no_grad():
        out = _repeat(x, *sizes)
    if out._base is not None or out._storage is x._storage:
        out = copy_raw(out)
    if needs_grad(x):
        record(RepeatBackward0, (x,), (out,), repeats=_shape_args(sizes, "repeat", "repeats"), shape=x._shape)
    return out


def tile(input, *dims, **kwargs):
    """PyTorch's tile: repeat, with leading 1s added when dims is shorter than the input."""
    from .views import _shape_args
    if "dims" in kwargs and not dims:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"tile() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dims = _shape_args(dims, "tile", "dims")
    x = input
    if len(dims) < x.dim():
        dims = (1,) * (x.dim() - len(dims)) + tuple(dims)
    return repeat(x, dims)


# -- meshgrid ---------------------------------------------------------------------------------
def meshgrid(*tensors, indexing=None):
    """PyTorch's meshgrid: each 0-D/1-D input viewed along its own dim and expanded to the
    grid (ViewBackward0 then ExpandBackward0, as PyTorch); 'xy' swaps the first two."""
    from ._argument_check import _type_name
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    # _VF.meshgrid's parser (PyTorch's Python passes it the tuple): the tensors, then a str
    # indexing; the list's emptiness is ATen's check after
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {_type_name(t)}")
    if indexing is not None and not isinstance(indexing, str):
        raise TypeError(f"meshgrid(): argument 'indexing' must be str, not {_type_name(indexing)}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        _warn_user("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                   UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors[1:]:
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    shape = [t.numel() for t in refs]
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(t.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# -- tril_indices / triu_indices ----------------------------------------------------------------
def _triangle_indices(op, row, col, offset, dtype, device, lower):
    from .._creation import arange
    from .._dtype import to_dtype
    dtype = D.int64 if dtype is None else to_dtype(dtype)
    if dtype not in (D.int64, D.int32):
        raise not_implemented(op, dtype)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    # the result first (PyTorch sizes it before it computes: triu_indices(3, 2**31) is an
    # allocation error, not (3, 2**31) index grids filling the memory)
    from .._creation import empty
    count = _tril_size(row, col, offset) if lower else row * col - _tril_size(row, col, offset - 1)
    empty((2, count), dtype=dtype, device=device)
    with no_grad():
        rows = arange(row, device=device).unsqueeze(1).expand(row, col)
        cols = arange(col, device=device).unsqueeze(0).expand(row, col)
        keep = (cols - rows <= offset) if lower else (cols - rows >= offset)
        from .indexing import stack
        return stack([rows.masked_select(keep), cols.masked_select(keep)]).to(dtype)


def _tril_size(row, col, offset):
    """How many elements of a row x col matrix lie on or below diagonal `offset` (PyTorch's
    get_tril_size): a trapezoid of rows, then full rows."""
    if row == 0 or col == 0:
        return 0
    first = min(col, 1 + offset) if offset > 0 else int(row + offset > 0)
    last = max(0, min(col, row + offset))
    n_rows = max(0, min(row, row + offset))
    trapezoid_rows = last - first + 1
    size = (first + last) * trapezoid_rows >> 1
    if n_rows - trapezoid_rows > 0:
        size += (n_rows - trapezoid_rows) * col
    return size


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, requires_grad=False, pin_memory=False):
    """The (row, col) indices of a row x col matrix's lower triangle, row by row."""
    return _triangle_factory("tril_indices", row, col, offset, dtype, device, True, requires_grad, pin_memory)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, requires_grad=False, pin_memory=False):
    return _triangle_factory("triu_indices", row, col, offset, dtype, device, False, requires_grad, pin_memory)


def _triangle_factory(name, row, col, offset, dtype, device, lower, requires_grad, pin_memory):
    from .._creation import _finish, _pinned
    if pin_memory:
        _pinned()
    return _finish(_triangle_indices(name, row, col, offset, dtype, device, lower), requires_grad)
