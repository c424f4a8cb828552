"""View ops: new (shape, strides, offset) over the same storage, each with its backward.

A view shares its base's Storage and VersionCounter, and remembers the root
base in `_base`.  Gradients of windowing views (select, slice, split, diagonal,
as_strided) go through `restride`: scatter the gradient into a zero buffer, then
read it back with the input's geometry.  Windowing views do this in their input's
logical index space (PyTorch's select_backward writes into zeros(input_sizes)),
so an input that overlaps itself (expanded, 0 strides) gets each element's
gradient once; only as_strided is defined on storage.
"""
import math

from .. import _dtype as D
from .._checks import as_symint, check_numel, int_tuple, is_bool_tensor_of_one, is_int, is_integer_tensor, \
    symint_of_bool_error
from .._size import Size
from .._tensor import Tensor, contiguous_strides, is_non_overlapping
from ..autograd.grad_mode import is_grad_enabled, no_grad, _state as _grad_state
from ..autograd.node import Node
from ._graph import _list_element, backend_of, cast, needs_grad, new_tensor, record, wrap_dims, _wrap


# PyTorch's CreationMeta: how a view was made, which decides whether an in-place change
# of it (or of its base) may rewrite its history.  Stored on a view only when not DEFAULT.
DEFAULT = "DEFAULT"
NO_GRAD_MODE = "NO_GRAD_MODE"            # made under no_grad
INFERENCE_MODE = "INFERENCE_MODE"        # made under inference_mode
MULTI_OUTPUT_NODE = "MULTI_OUTPUT_NODE"  # one of several views of one op (unbind, split, chunk)
IN_CUSTOM_FUNCTION = "IN_CUSTOM_FUNCTION"


def make_view(x, shape, strides, offset, multi_output=False):
    """A new Tensor object aliasing x's memory (no autograd recording).

    The one place views are made: it sets the root base, the version the view's
    history is valid for, its creation meta (PyTorch's rules, propagated from a view
    of a view) and requires_grad, which a view has whenever its base does, also when
    made under no_grad (its grad_fn is then None)."""
    v = Tensor._make(x._storage, shape if type(shape) is Size else Size(shape), tuple(strides), offset, x._dtype, x._vc)
    base = x._base
    if _grad_state.inference:
        meta = INFERENCE_MODE
    elif not _grad_state.enabled:
        meta = NO_GRAD_MODE
    else:
        meta = MULTI_OUTPUT_NODE if multi_output else DEFAULT
    if base is None:
        base = x
    else:
        prev = x._creation_meta
        if meta is DEFAULT or prev is INFERENCE_MODE:
            meta = prev
    v._base = base
    v._view_version = x._vc.value
    if meta is not DEFAULT:
        v._creation_meta = meta
    return v            # (requires_grad follows the base live: Tensor.requires_grad, needs_grad)


def view_rebase_error(view, indirect=False):
    """PyTorch's handle_view_on_rebase: the error for an in-place change that would rewrite
    the history of a view whose creation meta forbids it (None when it is allowed)."""
    from ..autograd.node import node_label
    meta = view._creation_meta
    if meta is DEFAULT:
        return None
    fn = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta is INFERENCE_MODE or meta is NO_GRAD_MODE or fn is None:
        prefix = (f"Output {view._output_nr} of {node_label(fn)} is a view of a view which was created in"
                  if fn is not None else "A view was created in")
        if meta is INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view._output_nr} of {node_label(fn)} is a view and {modified} modified inplace."
    if meta is MULTI_OUTPUT_NODE:
        msg += (" This view is the output of a function that returns multiple views. Such functions do not"
                " allow the output views to be modified inplace. You should replace the inplace operation by an"
                " out-of-place one.")
    elif meta is NO_GRAD_MODE or meta is INFERENCE_MODE:
        block = "no_grad" if meta is NO_GRAD_MODE else "inference_mode"
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden."
                " You can clarify your code by moving both the view and the inplace either both"
                f" inside the {block} block (if you don't want the inplace to be tracked) or both outside (if you want"
                " the inplace to be tracked).")
    else:
        msg += (" This view was created inside a custom Function (or because an input was returned as-is) and the"
                " autograd logic to handle view+inplace would override the custom backward associated with the custom"
                " Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by"
                " cloning the output of the custom Function.")
    return RuntimeError(msg)


def _geometry(t):
    return (tuple(t._shape), tuple(t._stride), t._offset)


# -- restride: the linear map behind windowing views' gradients --------------------
def _span(geom):
    shape, strides, offset = geom
    if math.prod(shape) == 0:
        return offset, offset
    return offset, offset + sum((n - 1) * s for n, s in zip(shape, strides))


def _logical(shape):
    """The geometry of a tensor's own index space: contiguous, offset 0."""
    return (tuple(shape), contiguous_strides(tuple(shape)), 0)


class RestrideBackward(Node):
    """Backward of restride: read the gradient with each source's geometry."""

    def backward(self, g):
        return tuple(restride([(g, self.dst)], src_geom, self.dtype, self.divide)
                     if self.needs_input_grad(i) else None
                     for i, src_geom in enumerate(self.srcs))


def _scatter(be, buf, lo, t, geom, dtype):
    """Add t's values into buf at geometry geom (elements sharing memory add up)."""
    shape, strides, offset = geom
    if is_non_overlapping(shape, strides):
        be.copy(cast(t, dtype)._view_tuple(), (buf, offset - lo, tuple(shape), tuple(strides)))
        return
    from .indexing import _flat_buffer
    be.put(buf, _flat_buffer(_positions(geom, lo, t.device)), _flat_buffer(cast(t, dtype)), True)


def _positions(geom, lo, device):
    """int64 tensor of geom's shape: each element's position in a buffer starting at lo."""
    from .indexing import _grid_positions
    from .._creation import full
    shape, strides, offset = geom
    with no_grad():
        pos = full(tuple(shape), offset - lo, dtype=D.int64, device=device)
        grid = _grid_positions(tuple(shape), tuple(strides), None, device)
        return (pos if grid is None else pos + grid).contiguous()


# What PyTorch calls the backward of each windowing view's backward (select_backward's
# node is SelectBackwardBackward0, unbind's backward is a stack, split's a cat).
class SelectBackwardBackward0(RestrideBackward): pass
class SliceBackwardBackward0(RestrideBackward): pass
class DiagonalBackwardBackward0(RestrideBackward): pass
class _AsStridedOfGradient(RestrideBackward): pass
_AsStridedOfGradient.__name__ = "AsStridedBackward0"     # as_strided_backward is as_strided ops
class StackBackward0(RestrideBackward): pass
class CatBackward0(RestrideBackward): pass


def restride(sources, dst_geom, dtype=None, divide=None, node_cls=RestrideBackward, in_place=False,
             empty_recorded=False):
    """Write each (tensor, geometry) into a zero buffer at that geometry, then return the
    buffer read at dst_geom as a new contiguous tensor (in_place: as a view of the buffer
    with dst_geom's strides, as PyTorch's as_strided_backward returns).  Geometries are absolute
    (shape, strides, offset) triples on one notional buffer: windowing views use their
    input's logical index space (`_logical`), only as_strided uses storage.

    divide: a geometry that overlaps itself (an as_strided input with 0 strides); each
    buffer element is divided by how many of its elements read it, as PyTorch's
    as_strided_backward does, so that the map stays the adjoint of its own backward."""
    tensors = [t for t, _ in sources]
    first = tensors[0]
    dtype = dtype or first._dtype
    be = backend_of(first)
    if in_place and (math.prod(dst_geom[0]) == 0 or any(math.prod(g[0]) == 0 for _, g in sources)):
        if not empty_recorded:
            # PyTorch's as_strided_backward returns at once: zeros of the input's sizes,
            # contiguous and not recorded
            n = math.prod(dst_geom[0])
            return new_tensor(be.full(n, dtype.np, 0), dst_geom[0], dtype, first.device)
        in_place = False
    lo, hi = _span(dst_geom)
    for _, geom in sources:
        a, b = _span(geom)
        lo, hi = min(lo, a), max(hi, b)
    if divide is not None:
        a, b = _span(divide)
        lo, hi = min(lo, a), max(hi, b)
    if in_place and is_grad_enabled() and needs_grad(*tensors):
        return _as_strided_backward_recorded(sources, dst_geom, dtype, divide, lo, hi - lo + 1)
    buf = be.full(hi - lo + 1, dtype.np, 0)
    for t, geom in sources:
        _scatter(be, buf, lo, t, geom, dtype)
    if divide is not None:
        count = be.full(hi - lo + 1, dtype.np, 0)
        with no_grad():
            from .._creation import ones
            _scatter(be, count, lo, ones(divide[0], dtype=dtype, device=first.device), divide, dtype)
            n = hi - lo + 1
            b = new_tensor(buf, (n,), dtype, first.device)
            c = new_tensor(count, (n,), dtype, first.device)
            buf = (b / c.clamp(min=1))._storage.buffer
    shape, strides, offset = dst_geom
    n = math.prod(shape)
    if in_place:
        # the storage PyTorch allocates spans every geometry (all non-empty here): the buffer
        out = make_view(new_tensor(buf, (len(buf),), dtype, first.device), shape, strides, offset - lo)
    elif offset == lo and len(buf) == n and tuple(strides) == contiguous_strides(tuple(shape)):
        out_buf = buf               # the buffer already is the result: no second copy
    else:
        out_buf = be.empty(n, dtype.np)
        be.copy((buf, offset - lo, tuple(shape), tuple(strides)), (out_buf, 0, tuple(shape), contiguous_strides(shape)))
    if not in_place:
        out = new_tensor(out_buf, shape, dtype, first.device)
    if needs_grad(*tensors):
        record(node_cls, tuple(tensors), (out,), srcs=[g for _, g in sources], dst=dst_geom,
               dtype=dtype, divide=divide)
    return out


def _as_strided_backward_recorded(sources, dst_geom, dtype, divide, lo, n):
    """as_strided's backward under create_graph, made of the ops PyTorch's
    as_strided_backward runs, so its graph is theirs.  The gradient's size-1 dims are
    squeezed and its 0-stride dims summed away; it is copied into its window of a zero
    storage (CopySlices on the storage) or, when that window overlaps itself, index_add_-ed;
    divided by the count of an overlapping input geometry; and the storage is read at the
    input's geometry (AsStridedBackward0).  The result is then a view of a tensor with
    history, as in PyTorch, not of a leaf (seed 50027485)."""
    from .._creation import arange, ones, zeros
    (grad, (sizes, strides, offset)), = sources         # (as_strided has one output)
    out_sizes, out_strides = [], []
    for i in reversed(range(len(sizes))):
        if sizes[i] == 1:
            grad = grad.squeeze(i)
        elif strides[i] == 0:
            grad = grad.sum(i)
        else:
            out_sizes.insert(0, sizes[i])
            out_strides.insert(0, strides[i])
    device = grad.device
    storage = zeros(n, dtype=dtype, device=device)
    indices = None
    if is_non_overlapping(out_sizes, out_strides):
        storage.as_strided(out_sizes, out_strides, offset - lo).copy_(grad)
    else:
        indices = arange(n, device=device)
        storage.index_add_(0, indices.as_strided(out_sizes, out_strides, offset - lo).reshape(-1), grad.reshape(-1))
    if divide is not None:
        indices = arange(n, device=device) if indices is None else indices
        read = indices.as_strided(divide[0], divide[1], divide[2] - lo).reshape(-1)
        count = zeros(n, dtype=dtype, device=device)
        count.index_add_(0, read, ones(1, dtype=dtype, device=device).expand(read._shape))
        storage = storage.div(count)    # (nan where nothing reads: PyTorch's too, never visible)
    shape, strides, offset = dst_geom
    return storage.as_strided(shape, strides, offset - lo)


def _window_backward(node, grads):
    """Gradient of a windowing view (or several, for split/unbind) w.r.t. its input."""
    pairs = [(g, geom) for g, geom in zip(grads, node.view_geoms) if g is not None]
    as_strided = node.backward_node is _AsStridedOfGradient
    return restride(pairs, node.input_geom, node.dtype, node.divide, node.backward_node,
                    in_place=as_strided, empty_recorded=as_strided and node.stand_in)


class _WindowNode(Node):
    def backward(self, *grads):
        return _window_backward(self, grads)


def _window_node(name, backward_node, **attrs):
    """A windowing view's node; backward_node records its own backward (double backward)."""
    return type(name, (_WindowNode,), {"backward_node": backward_node, "__module__": __name__, **attrs})


SelectBackward0 = _window_node("SelectBackward0", SelectBackwardBackward0)
SliceBackward0 = _window_node("SliceBackward0", SliceBackwardBackward0)
DiagonalBackward0 = _window_node("DiagonalBackward0", DiagonalBackwardBackward0)
AsStridedBackward0 = _window_node("AsStridedBackward0", _AsStridedOfGradient,
                                  stand_in=False)       # see inplace._record_window_of_base
UnbindBackward0 = _window_node("UnbindBackward0", StackBackward0)
SplitBackward0, SplitWithSizesBackward0 = (_window_node(name, CatBackward0)
                                           for name in ("SplitBackward0", "SplitWithSizesBackward0"))


def _window(x, node_cls, geom_fn, multi_output=False):
    """The views of x that geom_fn(shape, strides, offset) -> [geometry, ...] describes,
    with their windowing node.  The node keeps the views' geometries in x's logical
    index space (geom_fn applied to contiguous strides), not in storage."""
    views = [make_view(x, *g, multi_output) for g in geom_fn(x._shape, x._stride, x._offset)]
    if needs_grad(x):
        logical = _logical(x._shape)
        record(node_cls, (x,), views, input_geom=logical, view_geoms=geom_fn(*logical),
               dtype=x._dtype, divide=None)
    return views


# -- reshaping views ------------------------------------------------------------------
def _infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, n in enumerate(shape) if n == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, n in enumerate(shape):
        if not isinstance(n, int) or n < -1:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape {shape}")
    known = math.prod(n for n in shape if n != -1)
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because the "
                               f"unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _view_strides(oldshape, oldstride, newshape):
    """PyTorch's computeStride: strides for viewing without a copy, or None."""
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    if math.prod(oldshape) == 0:
        # no element: NumPy's rule, the old strides for the same shape, else a resize's
        return tuple(oldstride) if tuple(oldshape) == tuple(newshape) else contiguous_strides(newshape)
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


def _shape_args(shape, op, arg, symint=True):
    """The ints of a size/dims argument given as *ints or one sequence (PyTorch's SymInt[], or
    its IntArrayRef where not symint): a missing argument or a non-integer element is a TypeError,
    as in PyTorch's parser, and a bool tensor in a SymInt list its RuntimeError."""
    if not shape:
        raise TypeError(f'{op}() missing 1 required positional arguments: "{arg}"')
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = shape[0]
    out = []
    for i, s in enumerate(shape):
        if type(s) is not int:
            if symint and is_bool_tensor_of_one(s):
                raise symint_of_bool_error()
            if (isinstance(s, bool) and not i) or not hasattr(s, "__index__"):    # (is_int_list_element)
                raise TypeError(f"{op}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(s).__name__}\"")
            s = s.__index__()
        out.append(s)
    return tuple(out)


def _reshaped(node_cls, x, shape, strides, offset=None):
    """A view of x with its own shape and strides, whose backward needs only x's shape back."""
    out = make_view(x, shape, strides, x._offset if offset is None else offset)
    if needs_grad(x):
        record(node_cls, (x,), (out,), shape=x._shape)
    return out


class ViewBackward0(Node):
    def backward(self, g):
        return g.reshape(self.shape)


class UnsafeViewBackward0(ViewBackward0):
    pass


class ReshapeAliasBackward0(ViewBackward0):
    """reshape of a non-contiguous tensor that can still be viewed (PyTorch's _reshape_alias)."""


# view's and reshape's geometry by (shape, strides, the size arguments as given), for arguments
# of plain ints (a bool or a float equals an int as a key, and must fail the argument check):
# the new Size, its strides and the node class (None: reshape must copy).  A loop's
# x.view(-1) then costs a dict lookup instead of parsing, inferring and computeStride.
_VIEW_GEOMETRY = {}


def _plain_ints(args):
    for a in args:
        if type(a) is not int:
            return False
    return True


def _view_geometry(x, args, op, arg):
    """(Size, strides or None, the reshaped view's node class) of x viewed as args."""
    key = (op, x._shape, x._stride, args)
    cacheable = _plain_ints(args)
    if cacheable:
        try:
            found = _VIEW_GEOMETRY.get(key)
        except TypeError:               # (strides held as a list: no key)
            found, cacheable = None, False
        if found is not None:
            return found
    shape = _infer_shape(_shape_args(args, op, arg), x.numel())
    strides = _view_strides(tuple(x._shape), x._stride, shape)
    node_cls = ViewBackward0 if op == "view" or x.is_contiguous() else ReshapeAliasBackward0
    found = (Size(shape), strides, node_cls)
    if cacheable and len(_VIEW_GEOMETRY) < 4096:
        _VIEW_GEOMETRY[key] = found
    return found


_UNGIVEN = object()     # (a keyword not given: PyTorch's parser takes the var-args by their name too)


def _by_keyword(name, args, **kwargs):
    from ._argument_check import given_by_keyword
    return given_by_keyword(name, args, {k: v for k, v in kwargs.items() if v is not _UNGIVEN})


def view(x, *shape, size=_UNGIVEN, dtype=_UNGIVEN):
    if size is not _UNGIVEN or dtype is not _UNGIVEN:
        shape = _by_keyword("view", shape, size=size, dtype=dtype)
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return view_dtype(x, shape[0])
    shape, strides, node_cls = _viewed_geometry(x, shape)
    return _reshaped(node_cls, x, shape, strides)


def _viewed_geometry(x, shape):
    """_view_geometry for view, whose refusal it is where no strides fit."""
    shape, strides, node_cls = _view_geometry(x, shape, "view", "size")
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return shape, strides, node_cls


def view_dtype(x, dtype):
    """x's memory read as dtype (ATen's view_dtype).  Of another element size, the last dim
    (at stride 1) holds proportionally more or fewer elements, the other strides and the
    offset scaled, each checked as ATen checks them."""
    old, new = x._dtype.itemsize, dtype.itemsize
    shape, strides, offset = list(x._shape), list(x._stride), x._offset
    if new != old:
        what = f"to view {D.scalar_type_name(x._dtype)} as {D.scalar_type_name(dtype)} (different element sizes)"
        if x.dim() == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if new < old:
            ratio = old // new
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            shape[-1] *= ratio
            strides = [st * ratio for st in strides[:-1]] + [1]
            offset *= ratio
        else:
            ratio = new // old
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            for i, st in enumerate(strides[:-1]):
                if st % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}")
            shape[-1] //= ratio
            strides = [st // ratio for st in strides[:-1]] + [1]
            offset //= ratio
    arr = x._backend().to_numpy((x._storage.buffer, 0, (len(x._storage.buffer),), (1,)))
    if new > old:       # (whole elements of the new type: the storage's bytes past the last are not read)
        arr = arr[:len(arr) * old // new * new // old]
    from .._storage import Storage, fix
    # PyTorch: a view that is not differentiable (no _base, no requires_grad), sharing the version counter
    root = fix(x._storage.root or x._storage)      # (its buffer is aliased now: not resizable)
    return Tensor._make(Storage(arr.view(dtype.np), x.device, root), Size(shape), tuple(strides), offset, dtype,
                        x._vc)


def reshape(x, *sizes, shape=_UNGIVEN):
    if shape is not _UNGIVEN:
        sizes = _by_keyword("reshape", sizes, shape=shape)
    shape, strides, node_cls = _view_geometry(x, sizes, "reshape", "shape")
    if strides is not None:         # a view: ViewBackward0, or _reshape_alias's node
        return _reshaped(node_cls, x, shape, strides)
    from .copying import contiguous
    return unsafe_view(contiguous(x), shape)       # (a fresh copy: x could not be viewed)


def unsafe_view_any(x, shape):
    """ATen's _unsafe_view of any x: view's geometry (and view's refusal where none fits), the
    result not a view of x (its own autograd identity, UnsafeViewBackward0)."""
    shape, strides, _ = _viewed_geometry(x, tuple(shape))
    out = Tensor._make(x._storage, shape, strides, x._offset, x._dtype, x._vc)
    if needs_grad(x):
        record(UnsafeViewBackward0, (x,), (out,), shape=x._shape)
    return out


def unsafe_view(x, shape):
    """PyTorch's _unsafe_view: a fresh contiguous result (that nothing else holds)
    reshaped, without becoming a view of it."""
    out = Tensor._make(x._storage, Size(shape), contiguous_strides(shape), x._offset, x._dtype, x._vc)
    if needs_grad(x):
        record(UnsafeViewBackward0, (x,), (out,), shape=x._shape)
    return out


def _as(fn):
    """view_as, reshape_as, expand_as: fn to other's shape."""
    def like(x, other):
        return fn(x, other.shape)
    like.__name__ = fn.__name__ + "_as"
    return like


view_as = _as(view)
reshape_as = _as(reshape)


def flatten(x, start_dim=0, end_dim=-1):
    if start_dim.__class__ is not int or end_dim.__class__ is not int:
        # (the parser's ints, both, before either is wrapped)
        from .._checks import as_symint
        start_dim = as_symint(start_dim, "flatten", "start_dim", 1, any_dim=False)
        end_dim = as_symint(end_dim, "flatten", "end_dim", 2, any_dim=False)
    s, e = _wrap(start_dim, x.dim()), _wrap(end_dim, x.dim())
    if x.dim() == 0:
        return reshape(x, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x
    shape = x._shape[:s] + (math.prod(x._shape[s:e + 1]),) + x._shape[e + 1:]
    return reshape(x, shape)


def unflatten(x, dim, sizes):
    if x.dim() == 0:
        _wrap(dim, 0)       # (ATen wraps the dim first: a 0-dim tensor takes 0 and -1)
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions")
    d = _wrap(dim, x.dim())
    sizes = tuple(sizes)
    for i, n in enumerate(sizes):
        if is_bool_tensor_of_one(n):
            raise symint_of_bool_error()
        if isinstance(n, float) or (isinstance(n, bool) and not i) or not hasattr(n, "__index__"):
            raise TypeError(f"unflatten(): argument 'sizes' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(n).__name__}\"")
    sizes = tuple(int(n) for n in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(n for n in sizes if n != -1)
    if -1 in sizes and not (known == 0 and x._shape[d]) and not (known and x._shape[d] % known):
        try:
            sizes = _infer_shape(sizes, x._shape[d])
        except RuntimeError as e:
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    elif any(n < -1 for n in sizes) or sizes.count(-1) > 1:
        try:
            _infer_shape(sizes, x._shape[d])
        except RuntimeError as e:
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    if math.prod(sizes) != x._shape[d] or -1 in sizes:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({x._shape[d]}) in the input tensor")
    return view(x, x._shape[:d] + sizes + x._shape[d + 1:])


class SqueezeBackward0(Node):
    """PyTorch's unsqueeze_to: the squeezed size-1 dims come back one unsqueeze each, and a
    squeeze that removed nothing passes the gradient itself through."""
    def backward(self, g):
        for d in self.dims:             # increasing, so each lands at its input position
            g = g.unsqueeze(d)
        return g


class SqueezeBackward1(SqueezeBackward0): pass
class SqueezeBackward2(SqueezeBackward0): pass
class SqueezeBackward4(SqueezeBackward0): pass      # PyTorch's squeeze_(dim): matmul's 1-D @ 2-D


class UnsqueezeBackward0(Node):
    def backward(self, g):
        return g.squeeze(self.dim)


def squeezed_dims(x, dim):
    """The dims squeeze(dim) and squeeze_(dim) remove: the given ones (every one for None)
    of size 1."""
    if dim is None:
        return [i for i, n in enumerate(x._shape) if n == 1]
    # (an empty list squeezes none: wrap_dims reads it as every dim, a reduction's rule)
    dims = () if isinstance(dim, (tuple, list)) and len(dim) == 0 else wrap_dims(dim, x.dim(), in_order=True)
    return [i for i, n in enumerate(x._shape) if i in dims and n == 1]


def squeeze(x, dim=None):
    gone = squeezed_dims(x, dim)
    node_cls = SqueezeBackward0 if dim is None else \
        SqueezeBackward2 if isinstance(dim, (tuple, list)) else SqueezeBackward1
    keep = [i for i in range(x.dim()) if i not in gone]
    out = make_view(x, [x._shape[i] for i in keep], [x._stride[i] for i in keep], x._offset)
    if needs_grad(x):
        record(node_cls, (x,), (out,), dims=tuple(gone))
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
        record(UnsqueezeBackward0, (x,), (out,), dim=d)
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
    if x.dim() == 0:                    # dims 0 / -1 of a 0-dim tensor: itself
        return make_view(x, (), (), x._offset)
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


def permute(x, *order, dims=_UNGIVEN):
    if dims is not _UNGIVEN:
        order = _by_keyword("permute", order, dims=dims)
    dims = _shape_args(order, "permute", "dims", symint=False)
    if len(dims) != x.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {x.dim()} is not equal to len(dims) = {len(dims)}")
    try:
        wrapped = tuple(_wrap(d, x.dim()) for d in dims)
    except IndexError:
        # (ATen wraps and checks each dim in turn: a repeat before the dim out of range is its error)
        seen = []
        for d in dims:
            w = _wrap(d, x.dim())
            if w in seen:
                raise RuntimeError("permute(): duplicate dims are not allowed.") from None
            seen.append(w)
        raise
    dims = wrapped
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = make_view(x, [x._shape[d] for d in dims], [x._stride[d] for d in dims], x._offset)
    if needs_grad(x):
        record(PermuteBackward0, (x,), (out,), dims=dims)
    return out


def T(x):
    if x.dim() not in (0, 2):
        from .._warnings import warn
        warn("T_not_2d")
    return permute(x, tuple(range(x.dim() - 1, -1, -1)))


def mT(x):
    if x.dim() == 0:
        return x                        # PyTorch: the identity on 0-dim tensors (deprecated)
    if x.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(x, -2, -1)


def movedim(x, source, destination):
    # (an int list that takes one int, or an integer tensor of one element as that int)
    source, destination = _list_element(source), _list_element(destination)
    # (a later element's bool is its int: is_int_list_element)
    src = [source] if isinstance(source, int) else [int(d) if i and type(d) is bool else d for i, d in enumerate(source)]
    dst = [destination] if isinstance(destination, int) else \
        [int(d) if i and type(d) is bool else d for i, d in enumerate(destination)]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    given = src, dst
    src = [_wrap(d, x.dim()) for d in src]
    dst = [_wrap(d, x.dim()) for d in dst]
    for name, dims, raw in (("source", src, given[0]), ("destination", dst, given[1])):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({raw})")
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
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)):
        sizes = sizes[0]
    sizes = int_tuple(sizes, "expand", "size", 1)
    if len(sizes) < x.dim():
        raise RuntimeError(
            f"expand(nbgrad.{x._dtype._tensor_type}{{{list(x._shape)}}}, size={list(sizes)}): the number of "
            f"sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({x.dim()})")
    if sizes == x._shape:               # (Size equals its tuple) every dim kept: x's geometry
        return _reshaped(ExpandBackward0, x, x._shape, x._stride)
    # PyTorch's inferExpandGeometry, from the last dim: a new leading dim of size 1 gets
    # the stride size * stride of the dim after it, an expanded one 0
    lead = len(sizes) - x.dim()
    ndim = len(sizes)
    shape, strides = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        n = sizes[i]
        if i < lead:
            if n == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
            have, st = 1, (shape[i + 1] * strides[i + 1] if i + 1 < ndim else 0)
        else:
            have, st = x._shape[i - lead], x._stride[i - lead]
        if n == -1:
            n = have
        if have != n:
            if have != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({n}) must match the existing size ({have}) at "
                    f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(x._shape)}")
            st = 0
        shape[i], strides[i] = n, st
    check_numel(shape)   # a negative size or an element count past int64, as PyTorch
    return _reshaped(ExpandBackward0, x, shape, strides)


expand_as = _as(expand)


def broadcast_to(x, size):
    return expand(x, size)


# -- windowing views ---------------------------------------------------------------------
def select(x, dim, index):
    if dim.__class__ is not int:        # (the parser's int, before select's own checks)
        dim = as_symint(dim, "select", "dim", 1, any_dim=False)
    if index.__class__ is not int:      # (a SymInt: not a bool, a float, a float tensor)
        index = as_symint(index, "select", "index", 2)
    if x.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    if not -2 ** 63 <= index < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    if index < -n or index >= n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(x._shape)} at dimension {d}")
    index %= n
    return _window(x, SelectBackward0, lambda sh, st, off: [_select_geom(sh, st, off, d, index)])[0]


def _select_geom(shape, strides, offset, d, index):
    return (tuple(shape[:d]) + tuple(shape[d + 1:]), tuple(strides[:d]) + tuple(strides[d + 1:]),
            offset + index * strides[d])


def _slice_geom(shape, strides, offset, d, start, stop, step):
    n = shape[d]
    start, stop, _ = slice(start, stop, step).indices(n)
    length = max(0, (stop - start + step - 1) // step)
    shape = list(shape)
    new_strides = list(strides)
    shape[d] = length
    new_strides[d] = strides[d] * step
    if length <= 1 and not -2 ** 63 <= new_strides[d] < 2 ** 63:
        new_strides[d] = strides[d]   # x[::2**70]: one element, and no stride past int64
    # PyTorch's offset even for an empty slice: start (clamped to [0, n]) times the stride
    return (tuple(shape), tuple(new_strides), offset + start * strides[d])


def _slice_view(x, d, start, stop, step, multi_output=False):
    return make_view(x, *_slice_geom(x._shape, x._stride, x._offset, d, start, stop, step), multi_output)


def slice_dim(x, dim, start=None, stop=None, step=1):
    if step is None:
        step = 1
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = _wrap(dim, x.dim())
    return _window(x, SliceBackward0, lambda sh, st, off: [_slice_geom(sh, st, off, d, start, stop, step)])[0]


def narrow(x, dim, start, length):
    if start.__class__ is not int or length.__class__ is not int:
        start, length = _narrow_arguments(dim, start, length)
    if not (-2 ** 63 <= start < 2 ** 63 and -2 ** 63 <= length < 2 ** 63):
        raise ValueError("Overflow when unpacking long long")
    # (ATen's narrow_symint: the rank, the length, then the dim's size)
    if x.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    if start < -n or start > n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return slice_dim(x, d, start, start + length, 1)


def _narrow_arguments(dim, start, length):
    """(start, length) as narrow's two overloads read them: a tensor start goes to narrow.Tensor,
    which takes a 0-dim integral one only, before anything else of narrow's; else the SymInts'
    parser (an int or an object with __index__, an integer tensor of one element: not a bool,
    not a float)."""
    from ._argument_check import argument_error
    if not (is_int(start) or isinstance(start, Tensor)) or not (is_int(length) or is_integer_tensor(length, True)):
        raise argument_error("narrow", (dim, start, length), {}, method=True) or \
            TypeError(f"narrow(): argument 'length' must be int, not {type(length).__name__}")
    if isinstance(start, Tensor):
        if not is_integer_tensor(start):
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    return start.__index__(), int(length.item()) if isinstance(length, Tensor) else length.__index__()


def unbind(x, dim=0):
    if x.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    return tuple(_window(x, UnbindBackward0,
                         lambda sh, st, off: [_select_geom(sh, st, off, d, i) for i in range(n)],
                         multi_output=True))


def split_function(tensor, split_size_or_sections, dim=0):
    """torch.split, written in Python by PyTorch: Tensor.split of its first argument (an int
    there is its AttributeError)."""
    return tensor.split(split_size_or_sections, dim)


def split(x, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, Tensor):
        try:            # (PyTorch's Tensor.split: a tensor of one element is its int)
            split_size_or_sections = int(split_size_or_sections)
        except ValueError:
            pass
    sections = split_size_or_sections
    # (a bool is an int to PyTorch's isinstance, which _VF.split's parser refuses; so is a dim that
    # is not an int, before split reads the input)
    if sections.__class__ is bool or (isinstance(sections, int) and dim.__class__ is not int
                                      and not (is_int(dim) or is_integer_tensor(dim))):
        from ._argument_check import described_call
        raise TypeError(f"split() received an invalid combination of arguments - got {described_call((x, sections, dim), {})}"
                        ", but expected one of:\n * (Tensor input, int split_size, int dim = 0)\n"
                        " * (Tensor input, tuple of ints split_size, int dim = 0)\n")
    if not isinstance(sections, int) and (
            not isinstance(sections, (tuple, list)) or any(s.__class__ is not int for s in sections)):
        from ._argument_check import argument_error
        error = argument_error("split_with_sizes", (x, sections, dim), {})
        if error is not None:       # (split_with_sizes' parser, a sequence of ints, before ATen's checks)
            raise error
    if x.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:    # (before the dim is read, as ATen's split; after its parser, which wants an int)
            if not (is_int(dim) or is_integer_tensor(dim)):
                _wrap(dim, x.dim())
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        d = _wrap(dim, x.dim())
        n = x._shape[d]
        if size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [min(size, n - i) for i in range(0, n, size)] if n else [0]
        node_cls = SplitBackward0
    else:
        d = _wrap(dim, x.dim())
        n = x._shape[d]
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), but got split_sizes={sizes}")
        node_cls = SplitWithSizesBackward0
    bounds = [0]
    for s in sizes:
        bounds.append(bounds[-1] + s)

    def geoms(sh, st, off):
        return [_slice_geom(sh, st, off, d, a, b, 1) for a, b in zip(bounds, bounds[1:])]
    return tuple(_window(x, node_cls, geoms, multi_output=True))


def chunk(x, chunks, dim=0):
    if chunks.__class__ is not int:     # (the parser's int: a 0-dim integer tensor too)
        if isinstance(chunks, Tensor) and not is_integer_tensor(chunks):
            # (carrying the tensor: the public function names its argument, as PyTorch's parser)
            from .._tensor import _not_a_scalar
            raise _not_a_scalar(TypeError("chunks must be an int"), chunks, "int")
        chunks = as_symint(chunks, "chunk", "chunks", 2, any_dim=False)
    if x.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    size = -(-n // chunks)
    if n == 0:
        # PyTorch keeps the number of chunks of an empty dim: split_with_sizes([0] * chunks)
        return split(x, [0] * chunks, d)
    return split(x, size, d)


def tensor_split(x, sections, dim=0):
    """Slices of x along dim, each its own SliceBackward0 as in PyTorch.  Indices wrap and
    clamp as slice bounds do (a decreasing index gives an empty piece, never a negative size)."""
    if x.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    if isinstance(sections, Tensor):
        # (ATen's tensor_split(Tensor) overload checks its argument before the dim is read)
        if sections.device.type != "cpu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
                               f"{sections.device}")
        if sections._dtype is not D.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{D.scalar_type_name(sections._dtype)}")
        if sections.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {sections.dim()} dims")
        sections = sections.item() if sections.dim() == 0 else sections.tolist()
    d = _wrap(dim, x.dim())
    n = x._shape[d]
    if isinstance(sections, int):
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        q, r = divmod(n, sections)
        bounds, start = [], 0
        for k in range(sections):
            stop = start + q + (1 if k < r else 0)
            bounds.append((start, stop))
            start = stop
    else:
        idx = [int(b) for b in sections]
        starts = [0] + idx
        stops = idx + [None]
        bounds = list(zip(starts, stops))
    return tuple(slice_dim(x, d, a, b, 1) for a, b in bounds)


def diagonal(x, offset=0, dim1=0, dim2=1):
    if type(offset) is not int:
        # (a float or a tensor would have become the view's storage offset)
        from .._checks import as_symint
        offset = as_symint(offset, "diagonal", "offset", 1)
    d1, d2 = _wrap(dim1, x.dim()), _wrap(dim2, x.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if not -2 ** 63 <= offset < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return _window(x, DiagonalBackward0, lambda sh, st, off: [_diagonal_geom(sh, st, off, offset, d1, d2)])[0]


def _diagonal_geom(shape, strides, base, offset, d1, d2):
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = base + offset * strides[d2]
    else:
        length = max(0, min(n1 + offset, n2))
        start = base - offset * strides[d1]
    if length == 0:
        start = base
    keep = [i for i in range(len(shape)) if i not in (d1, d2)]
    return (tuple(shape[i] for i in keep) + (length,),
            tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],), start)


def as_strided(x, size, stride, storage_offset=None):
    from .._checks import as_int, check_strided_geometry, int_tuple
    size = int_tuple(size, "as_strided", "size", 1)
    stride = int_tuple(stride, "as_strided", "stride", 2)
    offset = x._offset if storage_offset is None else as_int(storage_offset, "as_strided", "storage_offset", 3)
    # every element must lie inside the storage: no negative stride/offset/size, no overflow
    check_strided_geometry(size, stride, offset, x._dtype.itemsize, len(x._storage.buffer))
    return as_strided_view(x, size, stride, offset)


def as_strided_view(x, size, stride, offset, node_cls=None):
    """A view at a storage geometry, with its storage-space backward (PyTorch's
    as_strided_backward: an input that overlaps itself shares each storage element's
    gradient among the elements that read it)."""
    out = make_view(x, size, stride, offset)
    if needs_grad(x):
        record(node_cls or AsStridedBackward0, (x,), (out,), input_geom=_geometry(x),
               view_geoms=[_geometry(out)], dtype=x._dtype,
               divide=None if is_non_overlapping(x._shape, x._stride) else _geometry(x))
    return out


class AliasBackward0(Node):
    def backward(self, g):
        return g


def alias(x):
    """A new view with x's own geometry (PyTorch's at::alias: what x[...] and x[()] return)."""
    out = make_view(x, x._shape, x._stride, x._offset)
    if needs_grad(x):
        record(AliasBackward0, (x,), (out,))
    return out
