"""In-place view ops: unsqueeze_, squeeze_, t_, transpose_ (swapaxes_, swapdims_), as_strided_,
set_ (which takes another storage as well as another geometry) and resize_ (which may
give the storage a larger buffer).

They change the tensor object's own shape and strides; its data stays where it is.
As in PyTorch, each counts as an in-place change (the version goes up, so a tensor
saved for backward before it is refused, and other views of the same base regenerate
their history), is refused on a leaf that requires grad (or a view of one) while grad
mode is on, and gives the tensor a new node (UnsqueezeBackward1, SqueezeBackward3/4/5,
TBackward1, TransposeBackward1, AsStridedBackward1) whose input is the tensor's old history.
"""
import functools

from .. import _dtype as D, _settings
from .._size import Size
from .._storage import Storage, fix, is_resizable
from .._tensor import Tensor, contiguous_strides
from ..autograd.node import Node
from .inplace import check_inplace
from ._graph import NotImplementedNode, backend_of, needs_grad, record, _wrap
from .views import AsStridedBackward0, SqueezeBackward0, SqueezeBackward4, _geometry, is_non_overlapping, squeezed_dims


class UnsqueezeBackward1(Node):
    def backward(self, g):
        return g.squeeze(self.dim)


class SqueezeBackward3(SqueezeBackward0): pass
class SqueezeBackward5(SqueezeBackward0): pass


AsStridedBackward1 = type("AsStridedBackward1", (AsStridedBackward0,), {"__module__": __name__})


class TBackward1(Node):
    def backward(self, g):
        return g.t()


class TransposeBackward1(Node):
    def backward(self, g):
        return g.transpose(self.d0, self.d1)


def _autograd_checked(op):
    """PyTorch's autograd layer runs check_inplace before the op sees its arguments: a leaf
    that requires grad (or a view of one) is refused before its dims are checked."""
    @functools.wraps(op)
    def method(self, *args, **kwargs):
        check_inplace(self)
        return op(self, *args, **kwargs)
    return method


def _restride_(t, shape, strides, node_cls, offset=None, storage=None, source=None, **attrs):
    """t takes the geometry (shape, strides, offset) over its storage (or over `storage`),
    in place; recorded as node_cls, whose inputs are t's old history (and source's)."""
    inputs = (t,) if source is None else (t, source)
    node = record(node_cls, inputs, (), **attrs) if needs_grad(*inputs) and t._dtype.is_floating_point else None
    if node is None and t._grad_fn is not None and t._producer_meta is None:
        # the history stays while the shape changes (no_grad): a node recorded on t from
        # now on must still expect a gradient of the shape t's grad_fn produced (PyTorch
        # keeps that metadata on the producing node, and its engine refuses other shapes)
        t._producer_meta = (t._grad_fn, t._output_nr, t._shape, t._dtype)
    if storage is not None:
        t._storage = storage
    t._shape = Size(shape)
    t._stride = tuple(strides)
    if offset is not None:
        t._offset = offset
    t._vc.value += 1
    if node is not None:
        if t._base is not None:
            t._view_version = t._vc.value   # its history is the new node, not a regenerated one
        old_fn, old_nr = t._grad_fn, t._output_nr
        t._grad_fn = node
        t._output_nr = 0
        t._requires_grad = True
        # PyTorch gives an in-place view op's node to the tensor with set_history, not
        # rebase_history: retain_grad stays on the old node (t.grad is then the gradient of
        # the value before the op, of its shape), and so do the tensor's hooks, which later
        # register_hook calls join while this node is t's grad_fn
        if t._retains_grad and t._retained_at is None and old_fn is not None:
            t._retained_at = (old_fn, old_nr)
        at = t._hooks_at
        if at is not None and at[2] is old_fn:
            t._hooks_at = (at[0], at[1], node)
        elif old_fn is not None and old_fn._pre_hooks and old_fn._pre_hooks.get(old_nr):
            t._hooks_at = (old_fn, old_nr, node)
    return t


@_autograd_checked
def unsqueeze_(self, dim):
    d = _wrap(dim, self.dim() + 1)
    shape, strides = list(self._shape), list(self._stride)
    strides.insert(d, shape[d] * strides[d] if d < len(shape) else 1)
    shape.insert(d, 1)
    return _restride_(self, shape, strides, UnsqueezeBackward1, dim=d)


@_autograd_checked
def squeeze_(self, dim=None):
    gone = squeezed_dims(self, dim)
    node_cls = SqueezeBackward3 if dim is None else \
        SqueezeBackward5 if isinstance(dim, (tuple, list)) else SqueezeBackward4
    keep = [i for i in range(self.dim()) if i not in gone]
    return _restride_(self, [self._shape[i] for i in keep], [self._stride[i] for i in keep], node_cls,
                      dims=tuple(gone))


def _swapped(t, d0, d1):
    shape, strides = list(t._shape), list(t._stride)
    if shape:
        shape[d0], shape[d1] = shape[d1], shape[d0]
        strides[d0], strides[d1] = strides[d1], strides[d0]
    return shape, strides


@_autograd_checked
def transpose_(self, dim0, dim1):
    d0, d1 = _wrap(dim0, self.dim()), _wrap(dim1, self.dim())
    return _restride_(self, *_swapped(self, d0, d1), TransposeBackward1, d0=d0, d1=d1)


@_autograd_checked
def t_(self):
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _restride_(self, *_swapped(self, 0, 1 if self.dim() == 2 else 0), TBackward1)


@_autograd_checked
def as_strided_(self, size, stride, storage_offset=None):
    """The tensor itself given the storage geometry (size, stride, storage_offset); its
    gradient is as_strided's, from the geometry it had."""
    from .._checks import as_int, check_strided_geometry, int_tuple
    size = int_tuple(size, "as_strided_", "size", 1)
    stride = int_tuple(stride, "as_strided_", "stride", 2)
    offset = self._offset if storage_offset is None else as_int(storage_offset, "as_strided_", "storage_offset", 3)
    check_strided_geometry(size, stride, offset, self._dtype.itemsize, len(self._storage.buffer))
    old = _geometry(self)
    return _restride_(self, size, stride, AsStridedBackward1, offset=offset, input_geom=old,
                      view_geoms=[(tuple(size), tuple(stride), offset)], dtype=self._dtype,
                      divide=None if is_non_overlapping(self._shape, self._stride) else old)


class SetBackward(NotImplementedNode):
    """set_'s node (PyTorch's NotImplemented): a tensor set_ to one that requires grad
    requires grad, and its backward refuses."""

    def backward(self, *grads):
        raise RuntimeError("derivative for set_ is not implemented")


SetBackward.__name__ = "NotImplemented"


_SET_SIGNATURES = ("set_() received an invalid combination of arguments - got ({}), but expected one of:\n"
                   " * ()\n"
                   " * (nbgrad.Storage source)\n"
                   " * (nbgrad.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n"
                   " * (Tensor source)\n"
                   " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n")


def _as_typed(storage, dtype):
    """storage's elements read as dtype (a storage is typed here, untyped in PyTorch): the
    same memory reinterpreted, as view(dtype) does, when the element sizes agree."""
    buf = storage.buffer
    if buf.dtype == dtype.np:
        return storage
    if buf.dtype.itemsize != dtype.itemsize or storage.device.type != "cpu":
        raise RuntimeError(f"set_: nbgrad reads a storage of {buf.dtype} elements only as a tensor of a dtype "
                           f"of the same element size, not as {dtype}")
    return Storage(buf.view(dtype.np), storage.device, fix(storage.root or storage))


def _set_target(t, source, storage_offset, size, stride):
    """(storage, offset, shape, strides) that set_'s arguments give t."""
    from .._checks import as_int, check_strided_geometry, int_tuple
    if source is None:
        if storage_offset is not None or size is not None or stride is not None:
            raise TypeError(_SET_SIGNATURES.format("NoneType, ..."))
        buf = backend_of(t).empty(0, t._dtype.np)
        return Storage(buf, t._storage.device), 0, (0,), (1,)
    if isinstance(source, Tensor):
        if source._dtype is not t._dtype:
            raise RuntimeError(f"Could not set tensor of type {D.cpp_type_name(source._dtype)} to a tensor of "
                               f"type {D.cpp_type_name(t._dtype)}")
        storage = source._storage
        if storage_offset is None and size is None and stride is None:
            return storage, source._offset, source._shape, source._stride
    elif isinstance(source, Storage):
        storage = _as_typed(source, t._dtype)
        if storage_offset is None and size is None and stride is None:
            return storage, 0, (len(storage.buffer),), (1,)
    else:
        raise TypeError(_SET_SIGNATURES.format(type(source).__name__))
    if storage.device != t._storage.device:
        raise RuntimeError(f"Attempted to set the storage of a tensor on device \"{t.device}\" to a storage on "
                           f"different device \"{storage.device}\".  This is no longer allowed; the devices must match.")
    if size is None:
        raise TypeError(_SET_SIGNATURES.format(f"{type(source).__name__}, int"))
    size = int_tuple(size, "set_", "size", 3)
    stride = contiguous_strides(size) if stride is None else int_tuple(stride, "set_", "stride", 4)
    offset = as_int(0 if storage_offset is None else storage_offset, "set_", "storage_offset", 2)
    # (PyTorch grows a storage too small for the geometry; nbgrad refuses: nothing may be
    # read or written outside a tensor's storage)
    check_strided_geometry(size, stride, offset, t._dtype.itemsize, len(storage.buffer))
    return storage, offset, size, stride


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """self takes source's memory and geometry (a tensor's; a storage's, from storage_offset
    with size and stride; nothing: a new empty storage), in place: self stays the same
    object, with its version counter, which counts the change.  Set to a tensor that
    requires grad, self requires grad, and backward through it refuses, as PyTorch's."""
    check_inplace(self, source)
    storage, offset, shape, strides = _set_target(self, source, storage_offset, size, stride)
    src = source if isinstance(source, Tensor) else None
    return _restride_(self, shape, strides, SetBackward, offset=offset, storage=storage, source=src,
                      op_name="set_")


def _sizes(args, fn):
    """resize_'s sizes: ints, or one sequence of them."""
    from .._checks import int_tuple
    if len(args) == 1 and not isinstance(args[0], int):
        return int_tuple(args[0], fn, "size", 1)
    return int_tuple(tuple(args), fn, "size", 1)


def resize_(self, *sizes, memory_format=None):
    """self takes the shape `sizes`, contiguous (or in memory_format) from its storage
    offset; a storage too small gets a larger buffer, its old elements kept, the new ones
    uninitialized, as PyTorch's.  The same shape (without memory_format) changes nothing."""
    from .._checks import check_numel
    from .._layout import format_strides
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _sizes(sizes, "resize_")
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    check_numel(shape)
    if memory_format is None and shape == tuple(self._shape):
        return self
    strides = format_strides(shape, memory_format) if memory_format is not None else contiguous_strides(shape)
    n = 1
    for d in shape:
        n *= d
    need = self._offset + n
    if n:
        grow_storage(self, need)
    self._shape = Size(shape)
    self._stride = tuple(strides)
    self._vc.value += 1
    return self


def grow_storage(t, need):
    """t's storage grown to `need` elements (old values kept; the new ones NaN or the integer
    maximum under use_deterministic_algorithms), in place: every tensor over it sees the new
    buffer.  A storage that is not resizable (from_numpy's, shared memory, a view(dtype)'s)
    raises PyTorch's error and is left as it was."""
    storage = t._storage
    if need <= len(storage.buffer):
        return
    if not is_resizable(storage):
        raise RuntimeError("Trying to resize storage that is not resizable")
    be = backend_of(t)
    old = storage.buffer
    new = be.empty(need, old.dtype)
    if len(old):
        be.copy((old, 0, (len(old),), (1,)), (new, 0, (len(old),), (1,)))
    storage.buffer = new
    if _settings.fills_uninitialized():
        _settings.fill_buffer(storage, len(old), need, t._dtype)


def resize_as_(self, the_template, *, memory_format=None):
    """resize_ to the_template's shape."""
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
                        f"{type(the_template).__name__}")
    return resize_(self, tuple(the_template._shape), memory_format=memory_format)


def is_set_to(self, tensor):
    """Whether self and tensor are the same view of the same memory: one storage, offset,
    shape and strides."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    return (self._storage is tensor._storage and self._offset == tensor._offset and self._shape == tensor._shape
            and self._stride == tensor._stride)
