"""Small PyTorch functions nbgrad lacked, composed from existing ops as PyTorch composes
them (its CompositeImplicitAutograd functions), with explicit nodes only where PyTorch shows
one of its own: combinations, unique_consecutive, unravel_index, column_stack / row_stack /
dstack, atleast_1d/2d/3d, diagonal_scatter / select_scatter / slice_scatter, index_fill,
index_reduce, put, fill_diagonal_, new_empty_strided, split_with_sizes, unsafe_chunk /
unsafe_split."""
import itertools
import math
import operator

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._checks import checked_scalar, scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import needs_grad, record, _wrap
from .more import renamed
from ._dtype_rules import check as check_dtype


def _type_name(v):
    return type(v).__name__


# ---------------------------------------------------------------- combinations
def _meshgrid(tensors):
    from .rearranging import meshgrid
    return meshgrid(*tensors, indexing="ij")


def _triu_mask(n, dims, diagonal, device):
    """ATen's _triu_mask: a bool (n,)*dims mask of the index tuples in increasing order
    (non-decreasing with diagonal)."""
    from .._creation import arange, ones
    rng = arange(n, dtype=D.int64, device=device)
    grids = _meshgrid([rng] * dims)
    mask = ones(grids[0].shape, dtype=D.bool_, device=device)
    for a, b in zip(grids, grids[1:]):
        mask = mask & ((a <= b) if diagonal else (a < b))
    return mask


def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-D tensor's elements (itertools.combinations order):
    ATen's meshgrid, a triangular mask, masked_select and stack."""
    from .._creation import empty
    from .indexing import stack
    if not isinstance(input, Tensor):
        raise TypeError(f"combinations(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}")
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype, device=input.device)
    mask = _triu_mask(input.numel(), r, with_replacement, input.device)
    grids = _meshgrid([input] * r)
    return stack([g.masked_select(mask) for g in grids], 1)


# ---------------------------------------------------------------- unique_consecutive
class UniqueConsecutiveBackward0(Node):
    def backward(self, *grads):
        if not self.needs_input_grad(0):
            return None
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def unique_consecutive(*args, **kwargs):
    """torch.unique_consecutive, dispatched as torch/functional.py does: its boolean_dispatch
    reads a positional return_inverse at index 2 and return_counts at index 1 (each in the
    other's place), and those truth tests decide which outputs are returned; each output is
    computed from its own argument (one not asked for is an empty int64 tensor):
    unique_consecutive(x, True, False) is (values, empty).  Tensor.unique_consecutive passes
    its flags by keyword, where the two agree."""
    returns_inverse = bool(kwargs["return_inverse"] if "return_inverse" in kwargs else
                           args[2] if len(args) > 2 else False)
    returns_counts = bool(kwargs["return_counts"] if "return_counts" in kwargs else
                          args[1] if len(args) > 1 else False)
    return _returned(_unique_consecutive(*args, **kwargs), returns_inverse, returns_counts)


def unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    """Tensor.unique_consecutive (its flags decide its outputs)."""
    return _returned(_unique_consecutive(self, return_inverse, return_counts, dim), return_inverse, return_counts)


def _returned(outputs, with_inverse, with_counts):
    """The values alone, or a tuple of them with the inverse and/or the counts."""
    values, inverse, counts = outputs
    chosen = (values,) + ((inverse,) if with_inverse else ()) + ((counts,) if with_counts else ())
    return chosen[0] if len(chosen) == 1 else chosen


unique_consecutive_method.__name__ = "unique_consecutive"


def _unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first of each run of equal consecutive elements (or slices along dim), with each
    element's run number and each run's length (NaN equals nothing: every NaN a run); an
    output not asked for is an empty int64 tensor, as ATen's."""
    from .._creation import zeros
    from .counting import _moved_back, _new_groups, parse_unique_flags
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(f"unique_consecutive(): argument 'input' (position 1) must be Tensor, not {_type_name(x)}")
    parse_unique_flags("unique_consecutive", dim, None, return_inverse=return_inverse, return_counts=return_counts)
    with no_grad():
        if dim is None:
            flat = x.reshape(-1)
            new = _new_groups(flat)
            values = flat.masked_select(new) if flat.numel() else flat.clone()
            inverse_shape = x.shape
            k = values.numel()
        else:
            if x.dim() == 0:
                raise IndexError("Dimension specified as 0 but tensor has no dimensions")
            d = _wrap(dim, x.dim())
            zero_dims = [i for i, n in enumerate(x.shape) if n == 0]
            if x.shape[d] == 0 and len(zero_dims) > 1:
                raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
            if x.shape[d] != 0 and zero_dims:
                raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                                   "applied")
            moved = x.movedim(d, 0)
            n = moved.shape[0]
            rows = moved.reshape(n, math.prod(moved.shape[1:]))
            new = _new_groups(rows)
            picked = moved.index_select(0, new.nonzero(as_tuple=True)[0]).contiguous()
            values = _moved_back(picked, d)
            inverse_shape = (n,)
            k = picked.shape[0]
        group = new.long().cumsum(0) - 1
        inverse = group.reshape(inverse_shape) if return_inverse else zeros(0, dtype=D.int64, device=x.device)
        counts = zeros(k if return_counts else 0, dtype=D.int64, device=x.device)
        if return_counts and group.numel():
            counts = counts.index_add(0, group, group.new_ones(group.numel()))
    if needs_grad(x):
        record(UniqueConsecutiveBackward0, (x,), (values,))
    return values, inverse, counts


# ---------------------------------------------------------------- unravel_index
def unravel_index(indices, shape):
    """torch.unravel_index: the coordinates of flat indices in a tensor of `shape` (as
    torch/functional.py: floor_divide by the row-major coefficients, then remainder)."""
    from .._creation import tensor
    from .._size import Size
    # (its Python's first read, in torch.functional._unravel_index: an int's AttributeError, a
    # dtype's is_complex is a bool that cannot be called)
    if indices.is_complex() or indices.is_floating_point() or indices.dtype is D.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, list, tuple, Size)) or isinstance(shape, bool):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    else:
        for n in shape:
            if not isinstance(n, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(n)}")
        shape = tuple(shape)
    if not all(n >= 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    coefs = list(reversed(list(itertools.accumulate(reversed(shape[1:] + (1,)), func=operator.mul))))
    res = indices.unsqueeze(-1).floor_divide(tensor(coefs, device=indices.device, dtype=D.int64)) \
        % tensor(list(shape), device=indices.device, dtype=D.int64)
    return res.unbind(-1)


# ---------------------------------------------------------------- stacking, atleast_nd
def _tensor_list(name, tensors):
    from .indexing import tensor_list
    return tensor_list(name, tensors)


def _atleast(name, fn, tensors):
    """torch's atleast_nd wrappers: one tensor -> a tensor; a sequence (or several) -> a tuple."""
    if len(tensors) == 1:
        tensors = tensors[0]
    if isinstance(tensors, Tensor):
        return fn(tensors)
    if isinstance(tensors, (list, tuple)) and all(isinstance(t, Tensor) for t in tensors):
        return tuple(fn(t) for t in tensors)
    got = ", ".join(_type_name(t) for t in (tensors if isinstance(tensors, tuple) else (tensors,)))
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    " * (Tensor input)\n * (tuple of Tensors tensors)\n")


def _atleast_1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _atleast_2d(t):
    if t.dim() == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.dim() == 1 else t


def _atleast_3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_1d(*tensors):
    return _atleast("atleast_1d", _atleast_1d, tensors)


def atleast_2d(*tensors):
    return _atleast("atleast_2d", _atleast_2d, tensors)


def atleast_3d(*tensors):
    return _atleast("atleast_3d", _atleast_3d, tensors)


def column_stack(tensors):
    """hstack of the tensors, each 0-D or 1-D one made a column first."""
    from .indexing import hstack
    tensors = _tensor_list("column_stack", tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return hstack([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors])


def row_stack(tensors):
    from .indexing import vstack
    tensors = _tensor_list("row_stack", tensors)
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return vstack(tensors)


def dstack(tensors):
    from .indexing import cat
    tensors = _tensor_list("dstack", tensors)
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_atleast_3d(t) for t in tensors], 2)


# ---------------------------------------------------------------- *_scatter
def _slice_of(t, kind, args):
    if kind == "diagonal":
        offset, dim1, dim2 = args
        return t.diagonal(offset, dim1, dim2)
    if kind == "select":
        dim, index = args
        return t.select(dim, index)
    dim, start, end, step = args
    return t[(slice(None),) * dim + (slice(start, end, step),)]


class _ScatterBackward(Node):
    """self: grad.<kind>_scatter(zeros_like(src), ...); src: grad.<kind>(...)."""

    def backward(self, g):
        gx = gs = None
        if self.needs_input_grad(0):
            from .._creation import zeros
            gx = _scatter(g, zeros(self.src_shape, dtype=g.dtype, device=g.device), self.kind, self.args)
        if self.needs_input_grad(1):
            gs = _slice_of(g, self.kind, self.args)
            if gs.dtype is not self.src_dtype:
                gs = gs.to(self.src_dtype)
        return gx, gs


DiagonalScatterBackward0 = type("DiagonalScatterBackward0", (_ScatterBackward,), {"__module__": __name__})
SelectScatterBackward0 = type("SelectScatterBackward0", (_ScatterBackward,), {"__module__": __name__})
SliceScatterBackward0 = type("SliceScatterBackward0", (_ScatterBackward,), {"__module__": __name__})
_SCATTER_NODES = {"diagonal": DiagonalScatterBackward0, "select": SelectScatterBackward0,
                  "slice": SliceScatterBackward0}


def _scatter(x, src, kind, args):
    from ._graph import copy_raw
    with no_grad():
        view = _slice_of(x, kind, args)
        if tuple(view.shape) != tuple(src.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(src.shape)}, slice size = {list(view.shape)}")
        out = copy_raw(x)
        _slice_of(out, kind, args).copy_(src)
    if needs_grad(x, src):
        if not out.dtype.is_floating_point:
            # (the history autograd would give an integral or bool result: refused, as PyTorch's)
            raise RuntimeError(f"Autograd not support dtype: {D.scalar_type_name(out.dtype)}")
        record(_SCATTER_NODES[kind], (x, src), (out,), kind=kind, args=args, src_shape=tuple(src.shape),
               src_dtype=src.dtype)
    return out


def _check_src(name, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 2) must be Tensor, not {_type_name(src)}")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with src written onto its diagonal (a copy; src's gradient is the diagonal's)."""
    _check_src("diagonal_scatter", src)
    d1, d2 = _wrap(dim1, input.dim()), _wrap(dim2, input.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _scatter(input, src, "diagonal", (offset, d1, d2))


def select_scatter(input, src, dim, index):
    _check_src("select_scatter", src)
    d = _wrap(dim, input.dim())
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    return _scatter(input, src, "select", (d, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    _check_src("slice_scatter", src)
    d = _wrap(dim, input.dim())
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _scatter(input, src, "slice", (d, start, end, step))


# ---------------------------------------------------------------- index_fill
def _index_mask(name, x, d, index, inplace):
    """bool (x.shape[d],) reshaped to broadcast along d: True at the (wrapped) indices."""
    from .._creation import zeros
    from .indexing import first_out_of_range, restrided_iteration_is_empty
    size = x.shape[d] if x.dim() else 1
    empty = restrided_iteration_is_empty(x, d, index.numel(), inplace)     # (then no index is read)
    with no_grad():
        idx = index.reshape(-1)[:0] if empty else index.reshape(-1)
        first = first_out_of_range(idx, -size, size)
        if first is not None:
            raise IndexError(f"index {first} is out of bounds for dimension {d} with size {size}")
        idx = idx % size if size else idx
        mask = zeros(size, dtype=D.bool_, device=x.device)
        if idx.numel():
            mask = mask.scatter(0, idx, True)
        if x.dim():
            shape = [1] * x.dim()
            shape[d] = size
            mask = mask.reshape(shape)
        else:
            mask = mask.reshape(())
    return mask


def _check_index_fill(x, dim, index, value):
    if not isinstance(index, Tensor):
        raise TypeError(f"index_fill(): argument 'index' (position 2) must be Tensor, not {_type_name(index)}")
    # ATen's order: the Tensor overload's value check, then the Scalar one's (index dtype,
    # the dim, the index's dims)
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap(dim, x.dim())
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    return d


def _index_fill_checked(x, d, index, value, inplace=False):
    # (the value read as x's type before the index is: ATen's kernel converts it first)
    if isinstance(value, Tensor):
        checked_scalar(value.item(), x.dtype)
    elif not isinstance(value, bool):
        checked_scalar(value, x.dtype)
    out = x.masked_fill(_index_mask("index_fill", x, d, index, inplace), value)
    return renamed(out, "IndexFillBackward1" if isinstance(value, Tensor) else "IndexFillBackward0")


def index_fill(input, dim, index, value):
    """input with the slices at index along dim set to value (PyTorch's gradients: zero there
    for input, their sum for a tensor value)."""
    d = _check_index_fill(input, dim, index, value)
    return _index_fill_checked(input, d, index, value)


def index_fill_(input, dim, index, value):
    from .inplace import apply_inplace, check_inplace
    check_inplace(input, value)
    d = _check_index_fill(input, dim, index, value)
    tensors = (value,) if isinstance(value, Tensor) else ()
    return apply_inplace(input, lambda old, *v: _index_fill_checked(old, d, index, v[0] if v else value, True),
                         *tensors, needs_old=False, overlap=None)


# ---------------------------------------------------------------- index_reduce
_INDEX_REDUCE_OPS = ("prod", "mean", "amax", "amin")


def _check_index_reduce(x, dim, index, source, reduce):
    if not isinstance(source, Tensor):
        raise TypeError(f"index_reduce(): argument 'source' (position 3) must be Tensor, not {_type_name(source)}")
    if reduce not in _INDEX_REDUCE_OPS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    d = _wrap(dim, x.dim())
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{scalar_type_name(index.dtype)} and size: {list(index.shape)}")
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{scalar_type_name(index.dtype)}")
    if x.dtype is not source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({scalar_type_name(x.dtype)}) and source "
                           f"({scalar_type_name(source.dtype)}) must have the same scalar type")
    n = index.numel()
    if source.dim() and n != source.shape[d if d < source.dim() else 0]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({source.shape[d]}), for dim: {dim}")
    xs = [s for k, s in enumerate(x.shape) if k != d]
    ss = [s for k, s in enumerate(source.shape) if k != d]
    if source.dim() != x.dim() or xs != ss:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(x.shape)} source.shape = {list(source.shape)}")
    check_dtype("index_add", x._dtype)
    size = x.shape[d] if x.dim() else 1
    with no_grad():
        if n and bool(((index < 0) | (index >= size)).any()):
            raise IndexError("index out of range in self")
    return d


def _index_reduce_checked(x, d, index, source, reduce, include_self):
    idx = index.long().reshape(-1)
    if x.dim():
        shape = [1] * x.dim()
        shape[d] = idx.numel()
        idx = idx.reshape(shape).expand(source.shape)
    else:
        idx = idx.reshape(source.shape)
    return renamed(x.scatter_reduce(d, idx, source, reduce, include_self=include_self), "IndexReduceBackward0")


def _warn_index_reduce():
    _warn_user("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices folded (prod, mean, amax, amin) into the slices at index
    along dim: scatter_reduce with the index broadcast over source's other dims."""
    d = _check_index_reduce(input, dim, index, source, reduce)
    _warn_index_reduce()
    return _index_reduce_checked(input, d, index, source, reduce, include_self)


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    from .inplace import apply_inplace, check_inplace
    check_inplace(input, source)
    d = _check_index_reduce(input, dim, index, source, reduce)
    _warn_index_reduce()
    return apply_inplace(input, lambda old, s: _index_reduce_checked(old, d, index, s, reduce, include_self),
                         source, needs_old=True, overlap="any")


# ---------------------------------------------------------------- put
def _put_args(x, index, source, accumulate, name="put"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' (position 1) must be Tensor, not {_type_name(index)}")
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' (position 2) must be Tensor, not {_type_name(source)}")
    if not isinstance(accumulate, bool):
        raise TypeError(f"{name}(): argument 'accumulate' must be bool, not {_type_name(accumulate)}")
    if index._dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    if x.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{scalar_type_name(x.dtype)} and source.dtype = {scalar_type_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")


class PutBackward0(Node):
    """self: accumulate ? grad : grad.put(index, zeros_like(source), false);
    source: grad.take(index).reshape_as(source)."""

    def backward(self, g):
        from .indexing import _zeroed_at, gather_flat, TakeBackward0
        pos = self.saved_tensors[0]
        gx = gs = None
        if self.needs_input_grad(0):
            gx = g if self.accumulate else _zeroed_at(g, pos)
        if self.needs_input_grad(1):
            gs = gather_flat(g.reshape(-1), pos, TakeBackward0)
        return gx, gs


def _put_checked(x, index, source, accumulate):
    from .indexing import _normalize_index, index_put_positions
    with no_grad():
        pos = _normalize_index(index, x.numel(), 0,
                               message="out of range: tried to access index {index} on a tensor of {size} elements.")
        pos = pos.reshape(source.shape)
    return index_put_positions(x, pos, source, accumulate, PutBackward0)


def put(input, index, source, accumulate=False):
    """input (read as 1-D, row-major) with source's elements written (or added) at index."""
    _put_args(input, index, source, accumulate)
    return _put_checked(input, index, source, accumulate)


def put_(input, index, source, accumulate=False):
    from .inplace import apply_inplace, check_inplace
    check_inplace(input, source)
    _put_args(input, index, source, accumulate, "put_")
    return apply_inplace(input, lambda old, s: _put_checked(old, index, s, accumulate), source,
                         needs_old=False, overlap="any")


# ---------------------------------------------------------------- fill_diagonal_
def fill_diagonal_(input, fill_value, wrap=False):
    """ATen's fill_diagonal_: fill_ of an as_strided view of the main diagonal (of a tall
    matrix, with wrap, every (cols + 1)-th row again)."""
    x = input
    nd = x.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    h, w = x.shape[0], x.shape[1]
    if nd > 2 and any(n != h for n in x.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    size = min(h, w)
    stride = sum(x.stride())
    offset = x.storage_offset()
    x.as_strided((size,), (stride,), offset).fill_(fill_value)
    if wrap and nd == 2 and h > w + 1:
        step = w + 1
        wrap_size = (x.numel() + step - 1) // step - size
        x.as_strided((wrap_size,), (stride,), offset + x.stride(0) * (w + 1)).fill_(fill_value)
    return x


# ---------------------------------------------------------------- new_empty_strided
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                      requires_grad=False):
    """An uninitialised tensor of the given geometry with self's dtype and device by default."""
    from .._creation import empty_strided
    return empty_strided(size, stride, dtype=dtype if dtype is not None else self.dtype,
                         device=device if device is not None else self.device, requires_grad=requires_grad)


# ---------------------------------------------------------------- split_with_sizes, unsafe_*
def _int_sizes(name, sizes):
    if isinstance(sizes, Tensor) or not isinstance(sizes, (list, tuple)) or \
            not all(isinstance(s, int) and not (isinstance(s, bool) and not i) for i, s in enumerate(sizes)):
        raise TypeError(f"{name}(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{_type_name(sizes)}")
    return list(sizes)


def split_with_sizes(input, split_sizes, dim=0):
    from .views import split
    return split(input, _int_sizes("split_with_sizes", split_sizes), dim)


class _UnsafeSplitBackward(Node):
    """The pieces' gradients (zeros for a piece without one) concatenated along dim."""

    def backward(self, *grads):
        from .._creation import zeros
        from .indexing import cat
        parts = []
        grads = tuple(grads) + (None,) * (len(self.shapes) - len(grads))   # (trailing ones may be left off)
        for g, shape in zip(grads, self.shapes):
            parts.append(g if g is not None else zeros(shape, dtype=self.dtype, device=self.device))
        return cat(parts, self.dim)


UnsafeSplitBackward0 = type("UnsafeSplitBackward0", (_UnsafeSplitBackward,), {"__module__": __name__})
UnsafeSplitWithSizesBackward0 = type("UnsafeSplitWithSizesBackward0", (_UnsafeSplitBackward,),
                                     {"__module__": __name__})


def _unsafe(x, pieces, dim, node_cls):
    """split's pieces as tensors sharing x's memory that autograd does not see as views (so
    in-place changes of them are allowed, PyTorch's "unsafe"), one node for all."""
    out = tuple(Tensor._make(p._storage, p._shape, p._stride, p._offset, p._dtype) for p in pieces)
    if needs_grad(x):
        record(node_cls, (x,), out, dim=_wrap(dim, x.dim()), shapes=[tuple(p.shape) for p in out],
               dtype=x.dtype, device=x.device)
    return out


def unsafe_split(input, split_size, dim=0):
    from .views import split
    from .._checks import as_symint, is_integer_tensor
    if is_integer_tensor(split_size, True) and split_size._dtype is not D.bool_:
        split_size = as_symint(split_size, "unsafe_split", "split_size", 2)    # (a SymInt: an integer tensor too)
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{_type_name(split_size)}")
    with no_grad():
        pieces = split(input, split_size, dim)
    return _unsafe(input, pieces, dim, UnsafeSplitBackward0)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    from .views import split
    sizes = _int_sizes("unsafe_split_with_sizes", split_sizes)
    with no_grad():
        pieces = split(input, sizes, dim)
    return _unsafe(input, pieces, dim, UnsafeSplitWithSizesBackward0)


def unsafe_chunk(input, chunks, dim=0):
    from .views import chunk
    with no_grad():
        pieces = chunk(input, chunks, dim)
    empty = input.dim() and input.shape[_wrap(dim, input.dim())] == 0
    return _unsafe(input, pieces, dim, UnsafeSplitWithSizesBackward0 if empty else UnsafeSplitBackward0)
