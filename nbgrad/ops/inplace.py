"""In-place ops: compute out of place, check, then write into the target's memory.

One mechanism serves every in-place op (`add_`, `+=`, `copy_`, `fill_`, setitem):

1. the new value is computed out of place by the ordinary (recorded) op, from
   a stand-in for the target's current value that carries the target's history;
2. only then is it cast-checked and written, so a failing op writes nothing;
3. the version counter is bumped, which is what saved-tensor checks read;
4. the history is rewritten: a plain tensor takes the result's grad_fn; a view
   of a tensor makes its base's grad_fn a CopySlices node (PyTorch's name) that
   routes the gradient of the written window to the result and the rest to the
   base's old history.  Other views of that base notice the version change and
   regenerate their grad_fn as a strided window of the base's new history.
"""
from .. import _dtype as D
from .._tensor import Tensor, is_non_overlapping
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._graph import (backend_of, broadcast_shapes, broadcast_view, cast, copy_raw, needs_grad, new_tensor, record,
                     zeros_grad)
from .views import AsStridedBackward0, _geometry, restride

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def type_name(dtype):
    return _TYPE_NAMES[dtype.name]


def recording(t, *args):
    """Will an in-place change of t (with args) be recorded?  A view counts its base's flag."""
    if not is_grad_enabled():
        return False
    base = t._base
    return needs_grad(t, *args) or (base is not None and base._requires_grad)


def check_inplace(t):
    """PyTorch's checks before writing into t under grad mode."""
    if not is_grad_enabled():
        return
    base = t._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if base is None and t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _check_no_internal_overlap(t):
    for n, s in zip(t._shape, t._stride):
        if s == 0 and n > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single "
                "memory location. Please clone() the tensor before performing the operation.")


def write_result(t, result):
    """Cast-check and write result's values into t's memory; bump the version."""
    if not D.can_cast(result._dtype, t._dtype):
        raise RuntimeError(f"result type {type_name(result._dtype)} can't be cast to the desired output "
                           f"type {type_name(t._dtype)}")
    if result._shape != t._shape:
        shape = broadcast_shapes(t._shape, result._shape)
        if shape != t._shape:
            raise RuntimeError(f"output with shape {list(t._shape)} doesn't match the broadcast shape {list(shape)}")
    _check_no_internal_overlap(t)
    backend_of(t).copy(broadcast_view(result, t._shape), t._view_tuple())
    t._vc.value += 1


class CopySlices(Node):
    """The base's history after an in-place op on one of its views."""

    def backward(self, g):
        grad_base = grad_result = None
        if self.needs_input_grad(0):
            from .._creation import ones
            window = restride([(ones(self.view_geom[0], dtype=D.bool_, device=g.device), self.view_geom)],
                              self.base_geom, D.bool_)
            from .elementwise import where
            grad_base = where(window, 0.0, g)
        if self.needs_input_grad(1):
            grad_result = restride([(g, self.base_geom)], self.view_geom, g.dtype)
        return grad_base, grad_result


def regenerate_view_grad_fn(view):
    """A view whose base changed in place: its history is a window of the base's new history."""
    base = view._base
    view._view_version = view._vc.value
    if view._dtype.is_floating_point:
        _record_window_of_base(base, view, _geometry(base), _geometry(view))


def _record_window_of_base(base, out, base_geom, view_geom):
    """out's history: the window view_geom of base's storage (an as_strided view)."""
    divide = None if is_non_overlapping(base_geom[0], base_geom[1]) else base_geom
    record(AsStridedBackward0, (base,), (out,), input_geom=base_geom, view_geoms=[view_geom],
           dtype=base._dtype, divide=divide)


def _stand_in(t, needs_old):
    """A tensor holding t's current value (copied when the op may save it)."""
    return copy_raw(t) if needs_old else t._shallow_alias(share_version=False)


def apply_inplace(t, fn, *args, needs_old=True):
    """Run `fn(current value of t, *args)` out of place and write the result into t.

    needs_old=False is a promise that fn does not save its first argument for
    backward, so t's memory can be read directly instead of copied first.
    """
    check_inplace(t)
    if not recording(t, *args):
        with no_grad():
            result = fn(t, *args)
        write_result(t, result)
        return t
    base = t._base
    if base is None:
        old = _stand_in(t, needs_old)
        if t._requires_grad:
            old._requires_grad = True
            old._grad_fn = t._grad_fn
            old._output_nr = t._output_nr
        result = fn(old, *args)
        write_result(t, result)
        if result._requires_grad:
            t._grad_fn = result._grad_fn
            t._output_nr = result._output_nr
            t._requires_grad = True
        return t
    # t is a view: the base's history becomes CopySlices(base's old history, result)
    base_geom, view_geom = _geometry(base), _geometry(t)
    old = _stand_in(t, needs_old)
    if base._requires_grad:
        _record_window_of_base(base, old, base_geom, view_geom)
    result = fn(old, *args)
    write_result(t, result)
    if result._requires_grad or base._requires_grad:
        record(CopySlices, (base, result), (base,), base_geom=base_geom, view_geom=view_geom)
        regenerate_view_grad_fn(t)
    return t


# -- the ops that only write -----------------------------------------------------------
class CopyBackwards(Node):
    def backward(self, g):
        return (zeros_grad(g) if self.needs_input_grad(0) else None), g


def _copied_from(old, src):
    src_t = src if isinstance(src, Tensor) else None
    if src_t is None:
        from .._creation import full
        return full(old._shape, src, dtype=old._dtype, device=old.device)
    shape = broadcast_shapes(old._shape, src._shape)
    if shape != old._shape:
        raise RuntimeError(f"output with shape {list(old._shape)} doesn't match the broadcast shape {list(shape)}")
    be = backend_of(old)
    from .._tensor import contiguous_strides
    if src.device != old.device:
        from .copying import to
        with no_grad():
            src_t = to(src, old.device)
    buf = be.empty(old.numel(), old._dtype.np)
    be.copy(broadcast_view(src_t, old._shape), (buf, 0, old._shape, contiguous_strides(old._shape)))
    out = new_tensor(buf, old._shape, old._dtype, old.device)
    if needs_grad(old, src):
        record(CopyBackwards, (old, src), (out,))
    return out


def copy_(t, src, non_blocking=False):
    """t[...] = src with broadcasting and casting (any dtype to any dtype)."""
    if not isinstance(src, Tensor):
        return fill_(t, src)
    if not recording(t, src) and src.device == t.device and src._storage is not t._storage:
        check_inplace(t)
        shape = broadcast_shapes(t._shape, src._shape)
        if shape != t._shape:
            raise RuntimeError(f"output with shape {list(t._shape)} doesn't match the broadcast shape {list(shape)}")
        _check_no_internal_overlap(t)
        backend_of(t).copy(broadcast_view(src, t._shape), t._view_tuple())
        t._vc.value += 1
        return t
    return apply_inplace(t, _copied_from, src, needs_old=False)


class FillBackward0(Node):
    def backward(self, g):
        return zeros_grad(g)


class ZeroBackward0(FillBackward0):
    pass


def _filled(old, value, node_cls=FillBackward0):
    from .._creation import full
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
        out = _copied_from(old, value)
        return out
    out = full(old._shape, value, dtype=old._dtype, device=old.device)
    if needs_grad(old):
        record(node_cls, (old,), (out,))
    return out


def fill_(t, value):
    if not isinstance(value, Tensor) and not recording(t):
        check_inplace(t)
        _check_no_internal_overlap(t)
        if not t._dtype.is_floating_point and isinstance(value, float) and t._dtype is not D.bool_:
            value = int(value)
        backend_of(t).fill(t._view_tuple(), value)
        t._vc.value += 1
        return t
    return apply_inplace(t, _filled, value, needs_old=False)


def zero_(t):
    if not recording(t):
        return fill_(t, 0)
    return apply_inplace(t, lambda old: _filled(old, 0, ZeroBackward0), needs_old=False)


def write_random(t, buf):
    """Write freshly drawn values (a backend buffer of t's numel) into t."""
    check_inplace(t)
    src = new_tensor(buf, t._shape, t._dtype, t.device)
    with no_grad():
        write_result(t, src)
    return t
