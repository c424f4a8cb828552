"""In-place view ops: unsqueeze_, squeeze_, t_, transpose_ (swapaxes_, swapdims_), as_strided_.

They change the tensor object's own shape and strides; its data stays where it is.
As in PyTorch, each counts as an in-place change (the version goes up, so a tensor
saved for backward before it is refused, and other views of the same base regenerate
their history), is refused on a leaf that requires grad (or a view of one) while grad
mode is on, and gives the tensor a new node (UnsqueezeBackward1, SqueezeBackward3/4/5,
TBackward1, TransposeBackward1, AsStridedBackward1) whose input is the tensor's old history.
"""
import functools

from .._size import Size
from ..autograd.node import Node
from .inplace import check_inplace
from ._graph import needs_grad, record, wrap_dims, _wrap
from .views import AsStridedBackward0, SqueezeBackward0, SqueezeBackward4, _geometry, is_non_overlapping


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


def _restride_(t, shape, strides, node_cls, offset=None, **attrs):
    node = record(node_cls, (t,), (), **attrs) if needs_grad(t) and t._dtype.is_floating_point else None
    if node is None and t._grad_fn is not None and t._producer_meta is None:
        # the history stays while the shape changes (no_grad): a node recorded on t from
        # now on must still expect a gradient of the shape t's grad_fn produced (PyTorch
        # keeps that metadata on the producing node, and its engine refuses other shapes)
        t._producer_meta = (t._grad_fn, t._output_nr, t._shape, t._dtype)
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
    if dim is None:
        gone = [i for i, n in enumerate(self._shape) if n == 1]
        node_cls = SqueezeBackward3
    else:
        dims = wrap_dims(dim, self.dim())
        gone = [i for i, n in enumerate(self._shape) if i in dims and n == 1]
        node_cls = SqueezeBackward5 if isinstance(dim, (tuple, list)) else SqueezeBackward4
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
