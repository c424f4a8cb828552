"""PyTorch's *_copy functions (torch.permute_copy, torch.split_copy, ...): a view op's values
in new row-major memory, aliasing nothing (ATen's functionalization spellings of its views).

The history is the view op's own node under ATen's name for the copy (PermuteBackward0_copy,
UnbindBackward0_copy shared by every piece): one node from the input to each copy, as ATen's,
its backward the view's.  detach_copy is a tensor that requires grad when its input does,
with ATen's NotImplemented node.

out= is ATen's generated out-variants': a single result is checked for out's dtype, resized
into out (the deprecation warning when out had elements) and written; out then carries a
NotImplemented node when the input asked for a gradient (the out-variants have no
derivative), and out requiring grad is refused.  The pieces of unbind_copy and
split_with_sizes_copy are checked and resized the same way; split_copy's are copy_'d
(broadcast and cast, no dtype check), as ATen's split_copy_Tensor_out.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from . import _out, views as V
from ._graph import NotImplementedNode, needs_grad, record
from .more import renamed


def _fresh(v):
    from .._layout import contiguous_format
    with no_grad():
        return v.clone(memory_format=contiguous_format)


def _copied(result):
    """result (a view, or the views of one op) in new memory, carrying its node renamed."""
    views = (result,) if isinstance(result, Tensor) else tuple(result)
    copies = [_fresh(v) for v in views]
    fn = views[0]._grad_fn if views else None
    if fn is not None:
        renamed(views[0], type(fn).__name__ + "_copy")       # (the pieces share one node)
        for v, c in zip(views, copies):
            c._grad_fn, c._output_nr, c._requires_grad = v._grad_fn, v._output_nr, True
    return copies[0] if isinstance(result, Tensor) else tuple(copies)


def _out_first(name, out):
    """out's own checks, before the view's (PyTorch's autograd refuses an out that requires
    grad before the op sees its arguments: diagonal_copy(x, 5, out=o) is that refusal)."""
    _out.check_out_type(name, out)
    if is_grad_enabled() and out.requires_grad:
        raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _into_one(name, input, result, out):
    _out.RULES["expected"](name, result._dtype, out)
    _out.resize_output(out, result._shape)
    _out.write(out, result)
    if needs_grad(input):
        record(NotImplementedNode, (input,), (out,), op_name=name)
    return out


def _into_pieces(name, label, pieces, out, checked):
    if len(out) != len(pieces):
        raise RuntimeError(f"{label} expected an out= argument of size {len(pieces)}, got size {len(out)}")
    if checked:
        for o in out:
            _out.check_out_type(name, o)
    for o, p in zip(out, pieces):
        if checked:
            _out.RULES["expected"](name, p._dtype, o)
            _out.resize_output(o, p._shape)
        _out.write(o, p)


def _slice(input, dim=0, start=None, end=None, step=1):
    return V.slice_dim(input, dim, start, end, step)


def _view(input, *size, **kwargs):
    """ATen's view_copy: the view, or where input's strides cannot be viewed as size, its
    row-major values reshaped, under the view's node."""
    if kwargs or (len(size) == 1 and isinstance(size[0], D.dtype)):
        return Tensor.view(input, *size, **kwargs)
    shape, strides, _ = V._view_geometry(input, size, "view", "size")
    if strides is not None:
        return Tensor.view(input, *size)
    with no_grad():
        out = input.reshape(shape)
    if needs_grad(input):
        record(V.ViewBackward0, (input,), (out,), shape=input._shape)
    return out


def _expand(input, size, implicit=False):
    return V.expand(input, size)


def _split(input, split_size, dim=0):
    return Tensor.split(input, split_size, dim)


def _single(name, view):
    def fn(input, *args, out=None, **kwargs):
        if out is not None:
            _out_first(name, out)
            with no_grad():
                result = view(input, *args, **kwargs)
            return _into_one(name, input, result, out)
        return _copied(view(input, *args, **kwargs))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: {view.__name__}'s values in new memory (not a view of input)."
    return fn


def detach_copy(input, *, out=None):
    """input.detach()'s values in new memory; requires grad when input does (ATen's node for
    it has no derivative)."""
    if out is not None:
        _out_first("detach_copy", out)
        return _into_one("detach_copy", input, V.alias(input).detach(), out)
    copy = _fresh(input)
    if needs_grad(input):
        record(NotImplementedNode, (input,), (copy,), op_name="detach_copy")
    return copy


def _pieces(name, label, view, checked, refuses_grad_out=False):
    def fn(input, *args, out=None, **kwargs):
        if out is None:
            return _copied(view(input, *args, **kwargs))
        if refuses_grad_out and is_grad_enabled() and any(isinstance(o, Tensor) and o.requires_grad for o in out):
            raise _out._no_grad_error(name)
        with no_grad():
            pieces = view(input, *args, **kwargs)
        _into_pieces(name, label, pieces, out, checked)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: {view.__name__}'s pieces in new memory (not views of input)."
    return fn


def functions():
    """{name: function} of the *_copy functions (after the Tensor methods they call exist)."""
    single = {"alias_copy": V.alias, "diagonal_copy": V.diagonal, "expand_copy": _expand,
              "permute_copy": Tensor.permute, "select_copy": Tensor.select, "slice_copy": _slice,
              "squeeze_copy": Tensor.squeeze, "t_copy": V.t, "transpose_copy": Tensor.transpose,
              "unfold_copy": Tensor.unfold, "unsqueeze_copy": Tensor.unsqueeze, "view_copy": _view,
              "as_strided_copy": Tensor.as_strided}
    found = {name: _single(name, view) for name, view in single.items()}
    found["detach_copy"] = detach_copy
    found["split_copy"] = _pieces("split_copy", "split_copy_Tensor_out()", _split, checked=False)
    found["split_with_sizes_copy"] = _pieces("split_with_sizes_copy", "split_with_sizes_copy_out",
                                             Tensor.split_with_sizes, checked=True)
    found["unbind_copy"] = _pieces("unbind_copy", "unbind_copy_int_out", Tensor.unbind, checked=True,
                                   refuses_grad_out=True)
    return found
