"""View ops: new (shape, strides, offset) over the same storage, each with its backward.

A view shares its base's Storage and VersionCounter, and remembers the root
base in `_base`.  Gradients of windowing views (select, slice, split, diagonal,
as_strided) go through `restride`: scatter the gradient into a zero buffer laid
out like the storage, then read it back with the input's geometry.
"""
import math

from .. import _dtype as D
from .._size import Size
from .._tensor import Tensor, contiguous_strides, is_non_overlapping
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, new_tensor, record, wrap_dims, _wrap


def make_view(x, shape, strides, offset):
    """A new Tensor object aliasing x's memory (no autograd recording)."""
    v = Tensor._make(x._storage, Size(shape), tuple(strides), offset, x._dtype, x._vc)
    v._base = x._base if x._base is not None else x
    v._view_version = x._vc.value
    return v


def _geometry(t):
    return (tuple(t._shape), tuple(t._stride), t._offset)


# -- restride: the linear map behind windowing views' gradients --------------------
def _span(geom):
    shape, strides, offset = geom
    if math.prod(shape) == 0:
        return offset, offset
    return offset, offset + sum((n - 1) * s for n, s in zip(shape, strides))


class RestrideBackward(Node):
    """Backward of restride: read the gradient with each source's geometry."""

    def backward(self, g):
        return tuple(restride([(g, self.dst)], src_geom, self.dtype)
                     if self.needs_input_grad(i) else None
                     for i, src_geom in enumerate(self.srcs))


def restride(sources, dst_geom, dtype=None):
    """Write each (tensor, geometry) into a zero buffer at that geometry, then return the
    buffer read at dst_geom as a new contiguous tensor.  Geometries are absolute
    (shape, strides, offset) triples on one notional storage."""
    tensors = [t for t, _ in sources]
    first = tensors[0]
    dtype = dtype or first._dtype
    be = backend_of(first)
    lo, hi = _span(dst_geom)
    for _, geom in sources:
        a, b = _span(geom)
        lo, hi = min(lo, a), max(hi, b)
    buf = be.full(hi - lo + 1, dtype.np, 0)
    for t, (shape, strides, offset) in sources:
        if is_non_overlapping(shape, strides):
            be.copy(t._view_tuple(), (buf, offset - lo, tuple(shape), tuple(strides)))
        else:
            # elements sharing memory (as_strided overlaps) add up, as their gradients must
            from .indexing import _flat_buffer
            from ._graph import cast
            from ..autograd.grad_mode import no_grad
            with no_grad():
                from .indexing import _grid_positions
                from .._creation import full
                pos = full(tuple(shape), offset - lo, dtype=D.int64, device=t.device)
                grid = _grid_positions(tuple(shape), tuple(strides), None, t.device)
                pos = (pos if grid is None else pos + grid).contiguous()
            be.put(buf, _flat_buffer(pos), _flat_buffer(cast(t, dtype)), True)
    shape, strides, offset = dst_geom
    out_buf = be.empty(math.prod(shape), dtype.np)
    be.copy((buf, offset - lo, tuple(shape), tuple(strides)), (out_buf, 0, tuple(shape), contiguous_strides(shape)))
    out = new_tensor(out_buf, shape, dtype, first.device)
    if needs_grad(*tensors):
        record(RestrideBackward, tuple(tensors), (out,), srcs=[g for _, g in sources], dst=dst_geom, dtype=dtype)
    return out


def _window_backward(node, grads):
    """Gradient of a windowing view (or several, for split/unbind) w.r.t. its input."""
    pairs = [(g, geom) for g, geom in zip(grads, node.view_geoms) if g is not None]
    return restride(pairs, node.input_geom, node.dtype)


class _WindowNode(Node):
    def backward(self, *grads):
        return _window_backward(self, grads)


class SelectBackward0(_WindowNode): pass
class SliceBackward0(_WindowNode): pass
class DiagonalBackward0(_WindowNode): pass
class AsStridedBackward0(_WindowNode): pass
class UnbindBackward0(_WindowNode): pass
class SplitBackward0(_WindowNode): pass
class SplitWithSizesBackward0(_WindowNode): pass


def _window(x, node_cls, views):
    """Record a windowing node for views (a list) of x."""
    if needs_grad(x):
        record(node_cls, (x,), views, input_geom=_geometry(x),
               view_geoms=[_geometry(v) for v in views], dtype=x._dtype)
    return views


# -- reshaping views ------------------------------------------------------------------
def _infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, n in enumerate(shape) if n == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for n in shape:
        if not isinstance(n, int) or n < -1:
            raise RuntimeError(f"invalid shape dimension {n}")
    known = math.prod(n for n in shape if n != -1)
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _view_strides(oldshape, oldstride, newshape):
    """PyTorch's computeStride: strides for viewing without a copy, or None."""
    if math.prod(oldshape) == 0 or len(oldshape) == 0:
        return contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def _shape_args(shape, op, arg):
    """The ints of a size/dims argument given as *ints or one sequence (PyTorch's IntArrayRef):
    a missing argument or a non-integer element is a TypeError, as in PyTorch's parser."""
    if not shape:
        raise TypeError(f'{op}() missing 1 required positional arguments: "{arg}"')
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = shape[0]
    out = []
    for i, s in enumerate(shape):
        if type(s) is not int:
            if isinstance(s, bool) or not hasattr(s, "__index__"):
                raise TypeError(f"{op}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(s).__name__}\"")
            s = s.__index__()
        out.append(s)
    return tuple(out)


class ViewBackward0(Node):
    def backward(self, g):
        return g.reshape(self.shape)


class UnsafeViewBackward0(ViewBackward0):
    pass


def view(x, *shape):
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return view_dtype(x, shape[0])
    shape = _infer_shape(_shape_args(shape, "view", "size"), x.numel())
    strides = _view_strides(tuple(x._shape), x._stride, shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.")
    out = make_view(x, shape, strides, x._offset)
    if needs_grad(x):
        record(ViewBackward0, (x,), (out,), shape=x._shape)
    return out


def view_dtype(x, dtype):
    if dtype.itemsize != x._dtype.itemsize:
        raise RuntimeError("view(dtype) with a different element size is not supported")
    arr = x._backend().to_numpy((x._storage.buffer, 0, (len(x._storage.buffer),), (1,)))
    from .._storage import Storage
    out = Tensor._make(Storage(arr.view(dtype.np), x.device), x._shape, x._stride, x._offset, dtype, x._vc)
    out._base = x._base if x._base is not None else x
    return out


def reshape(x, *shape):
    shape = _infer_shape(_shape_args(shape, "reshape", "shape"), x.numel())
    strides = _view_strides(tuple(x._shape), x._stride, shape)
    if strides is not None:
        return view(x, shape)
    from .copying import contiguous
    c = contiguous(x)
    out = Tensor._make(c._storage, Size(shape), contiguous_strides(shape), 0, c._dtype, c._vc)
    if needs_grad(c):
        record(UnsafeViewBackward0, (c,), (out,), shape=c._shape)
    return out


def view_as(x, other):
    return view(x, other.shape)


def reshape_as(x, other):
    return reshape(x, other.shape)


def flatten(x, start_dim=0, end_dim=-1):
    if x.dim() == 0:
        return reshape(x, (1,))
    s, e = _wrap(start_dim, x.dim()), _wrap(end_dim, x.dim())
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x
    shape = x._shape[:s] + (math.prod(x._shape[s:e + 1]),) + x._shape[e + 1:]
    return reshape(x, shape)


def unflatten(x, dim, sizes):
    if x.dim() == 0:
        raise RuntimeError("unflatten got an unexpected error: Dimension specified as 0 but tensor has no dimensions")
    d = _wrap(dim, x.dim())
    sizes = tuple(sizes)
    if -1 in sizes:
        sizes = _infer_shape(sizes, x._shape[d])
    if math.prod(sizes) != x._shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({x._shape[d]}) in the input tensor")
    return view(x, x._shape[:d] + sizes + x._shape[d + 1:])


class SqueezeBackward0(Node):
    def backward(self, g):
        return g.reshape(self.shape)


class SqueezeBackward1(SqueezeBackward0): pass
class SqueezeBackward2(SqueezeBackward0): pass
class UnsqueezeBackward0(SqueezeBackward0): pass


def squeeze(x, dim=None):
    if dim is None:
        keep = [i for i, n in enumerate(x._shape) if n != 1]
        node_cls = SqueezeBackward0
    else:
        dims = wrap_dims(dim, x.dim()) if x.dim() else ()
        keep = [i for i, n in enumerate(x._shape) if not (i in dims and n == 1)]
        node_cls = SqueezeBackward2 if isinstance(dim, (tuple, list)) else SqueezeBackward1
    out = make_view(x, [x._shape[i] for i in keep], [x._stride[i] for i in keep], x._offset)
    if needs_grad(x):
        record(node_cls, (x,), (out,), shape=x._shape)
    return out


def unsqueeze(x, dim):
    d = _wrap(dim, x.dim() + 1)
    shape = list(x._shape)
    strides = list(x._stride)
    new_stride = shape[d] * strides[d] if d < len(shape) else 1
    shape.insert(d, 1)
    strides.insert(d, new_stride)
    out = make_view(x, shape, strides, x._offset)
    if needs_grad(x):
        record(UnsqueezeBackward0, (x,), (out,), shape=x._shape)
    return out


# -- reordering views ------------------------------------------------------------------
class TransposeBackward0(Node):
    def backward(self, g):
        return g.transpose(self.d0, self.d1)


class TBackward0(Node):
    def backward(self, g):
        return g.t()


class PermuteBackward0(Node):
    def backward(self, g):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return g.permute(inverse)


def _transposed(x, d0, d1):
    if x.dim() == 0:
        return make_view(x, (), (), x._offset)   # dims 0 and -1 of a 0-dim tensor: itself
    shape, strides = list(x._shape), list(x._stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return make_view(x, shape, strides, x._offset)


def transpose(x, dim0, dim1):
    d0, d1 = _wrap(dim0, x.dim()), _wrap(dim1, x.dim())
    out = _transposed(x, d0, d1)
    if needs_grad(x):
        record(TransposeBackward0, (x,), (out,), d0=d0, d1=d1)
    return out


def t(x):
    if x.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.dim()}D")
    out = _transposed(x, 0, 1) if x.dim() == 2 else make_view(x, x._shape, x._stride, x._offset)
    if needs_grad(x):
        record(TBackward0, (x,), (out,))
    return out


def permute(x, *dims):
    dims = _shape_args(dims, "permute", "dims")
    if len(dims) != x.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {x.dim()} is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap(d, x.dim()) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = make_view(x, [x._shape[d] for d in dims], [x._stride[d] for d in dims], x._offset)
    if needs_grad(x):
        record(PermuteBackward0, (x,), (out,), dims=dims)
    return out


def T(x):
    return permute(x, tuple(range(x.dim() - 1, -1, -1)))


def mT(x):
    if x.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(x, -2, -1)


def movedim(x, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_wrap(d, x.dim()) for d in src]
    dst = [_wrap(d, x.dim()) for d in dst]
    if x.dim() == 0:
        return alias(x)
    order = [None] * x.dim()
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(x.dim()) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(x, order)


# -- broadcasting views -----------------------------------------------------------------
class ExpandBackward0(Node):
    def backward(self, g):
        return g.sum_to_size(self.shape)


def expand(x, *sizes):
    sizes = _shape_args(sizes, "expand", "size")
    if len(sizes) < x.dim():
        raise RuntimeError(
            f"expand(nbgrad.{x._dtype._tensor_type}{{{list(x._shape)}}}, size={list(sizes)}): the number of "
            f"sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({x.dim()})")
    lead = len(sizes) - x.dim()
    shape, strides = [], []
    for i, n in enumerate(sizes):
        if i < lead:
            if n < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
            shape.append(n)
            strides.append(0)
            continue
        have, st = x._shape[i - lead], x._stride[i - lead]
        if n == -1:
            n = have
        if have == n:
            shape.append(n)
            strides.append(st)
        elif have == 1:
            shape.append(n)
            strides.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size ({have}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(x._shape)}")
    out = make_view(x, shape, strides, x._offset)
    if needs_grad(x):
        record(ExpandBackward0, (x,), (out,), shape=x._shape)
    return out


def expand_as(x, other):
    return expand(x, other.shape)


def broadcast_to(x, shape):
    return expand(x, shape)


# -- windowing views ---------------------------------------------------------------------
def select(x, dim, index):
    if x.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    index = int(index)
    if index < -n or index >= n:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {n}")
    index %= n
    out = make_view(x, x._shape[:d] + x._shape[d + 1:], x._stride[:d] + x._stride[d + 1:],
                    x._offset + index * x._stride[d])
    return _window(x, SelectBackward0, [out])[0]


def _slice_view(x, d, start, stop, step):
    n = x._shape[d]
    start, stop, _ = slice(start, stop, step).indices(n)
    length = max(0, (stop - start + step - 1) // step)
    shape = list(x._shape)
    strides = list(x._stride)
    shape[d] = length
    strides[d] = x._stride[d] * step
    return make_view(x, shape, strides, x._offset + (start * x._stride[d] if length else 0))


def slice_dim(x, dim, start=None, stop=None, step=1):
    if step is None:
        step = 1
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = _wrap(dim, x.dim())
    out = _slice_view(x, d, start, stop, step)
    return _window(x, SliceBackward0, [out])[0]


def narrow(x, dim, start, length):
    if x.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    start = int(start)
    if start < -n or start > n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return slice_dim(x, d, start, start + length, 1)


def unbind(x, dim=0):
    if x.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap(dim, x.dim())
    outs = [make_view(x, x._shape[:d] + x._shape[d + 1:], x._stride[:d] + x._stride[d + 1:],
                      x._offset + i * x._stride[d]) for i in range(x._shape[d])]
    return tuple(_window(x, UnbindBackward0, outs))


def split(x, split_size_or_sections, dim=0):
    if x.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [min(size, n - i) for i in range(0, n, size)] if n else [0]
        node_cls = SplitBackward0
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), but got split_sizes={sizes}")
        node_cls = SplitWithSizesBackward0
    outs, start = [], 0
    for s in sizes:
        outs.append(_slice_view(x, d, start, start + s, 1))
        start += s
    return tuple(_window(x, node_cls, outs))


def chunk(x, chunks, dim=0):
    if x.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    size = -(-n // chunks) if n else 1
    return split(x, size, d)


def tensor_split(x, sections, dim=0):
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    if isinstance(sections, int):
        q, r = divmod(n, sections)
        sizes = [q + 1] * r + [q] * (sections - r)
    else:
        bounds = [0] + [min(max(int(b), 0), n) for b in sections] + [n]
        sizes = [max(0, b - a) for a, b in zip(bounds, bounds[1:])]
    return split(x, sizes, d)


def diagonal(x, offset=0, dim1=0, dim2=1):
    d1, d2 = _wrap(dim1, x.dim()), _wrap(dim2, x.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = x._shape[d1], x._shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = x._offset + offset * x._stride[d2]
    else:
        length = max(0, min(n1 + offset, n2))
        start = x._offset - offset * x._stride[d1]
    if length == 0:
        start = x._offset
    keep = [i for i in range(x.dim()) if i not in (d1, d2)]
    shape = [x._shape[i] for i in keep] + [length]
    strides = [x._stride[i] for i in keep] + [x._stride[d1] + x._stride[d2]]
    out = make_view(x, shape, strides, start)
    return _window(x, DiagonalBackward0, [out])[0]


def as_strided(x, size, stride, storage_offset=None):
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    offset = x._offset if storage_offset is None else storage_offset
    if math.prod(size) and offset + sum((n - 1) * s for n, s in zip(size, stride)) >= len(x._storage.buffer):
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{x._dtype.itemsize} requiring a storage size of "
            f"{(offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * x._dtype.itemsize} are out of "
            f"bounds for storage of size {len(x._storage.buffer) * x._dtype.itemsize}")
    out = make_view(x, size, stride, offset)
    return _window(x, AsStridedBackward0, [out])[0]


class AliasBackward0(Node):
    def backward(self, g):
        return g


def alias(x):
    """A view of all of x (x[...], x[()]), recorded as PyTorch's AliasBackward0."""
    out = make_view(x, x._shape, x._stride, x._offset)
    if needs_grad(x):
        record(AliasBackward0, (x,), (out,))
    return out
