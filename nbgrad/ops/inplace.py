"""In-place ops: compute out of place, check, then write into the target's memory.

One mechanism serves every in-place op (`add_`, `+=`, `copy_`, `fill_`, setitem):

0. PyTorch's checks come first, before anything is computed: check_inplace (leaves,
   views of leaves, views whose creation meta forbids rewriting their history) and
   check_overlap (memory overlap of the target with itself and with its inputs);
1. the new value is computed out of place by the ordinary (recorded) op, from
   a stand-in for the target's current value that carries the target's history;
2. only then is it cast-checked and written, so a failing op writes nothing;
3. the version counter is bumped, which is what saved-tensor checks read; an
   output the op's node saved (exp_, sigmoid_, ...) becomes the target itself at
   that version, so later changes of the target fail that node's backward;
4. the history is rewritten: a plain tensor takes the result's grad_fn; a view
   of a tensor makes its base's grad_fn a CopySlices node (PyTorch's name) that
   routes the gradient of the written window to the result and the rest to the
   base's old history.  Other views of that base notice the version change and
   regenerate their grad_fn as a strided window of the base's new history.
"""
import weakref

from .._warnings import warn_user as _warn_user
from .._checks import checked_scalar
from .. import _dtype as D
from .._layout import contiguous_format
from .._tensor import Tensor, dense_strides, is_non_overlapping
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import FREED_MSG, Node, interned_numbers
from ._graph import (backend_of, broadcast_shapes, broadcast_view, copy_raw, cpu_run, needs_grad, new_tensor,
                     record, zeros_grad)
from .views import DEFAULT, AsStridedBackward0, _geometry, view_rebase_error

def type_name(dtype):
    return D.scalar_type_name(dtype)


def recording(t, *args):
    """Will an in-place change of t (with args) be recorded?  A view counts its base's flag."""
    if not is_grad_enabled():
        return False
    base = t._base
    return needs_grad(t, *args) or (base is not None and base._requires_grad)


def check_inplace(t, *args):
    """PyTorch's check_inplace: before an in-place change of t (with args) that will be
    recorded, refuse views whose creation meta forbids rewriting their history (made under
    no_grad, outputs of unbind/split), views of leaves and leaves that require grad."""
    if not recording(t, *args):
        return          # (an integer or bool t still has a view's creation meta to honour)
    base = t._base
    if base is not None:
        if t._creation_meta is not DEFAULT:
            raise view_rebase_error(t)
        if (t._requires_grad or base._requires_grad) and base._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    elif t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


# -- memory overlap (PyTorch's MemOverlap.cpp) --------------------------------------------
# Decided on storage byte ranges: FULL when two tensors start and end at the same byte with
# the same strides, PARTIAL when their ranges otherwise intersect; a tensor that is not
# non-overlapping-and-dense makes the question TOO_HARD, which is allowed.
_NO, _FULL, _PARTIAL, _TOO_HARD = 0, 1, 2, 3
_PARTIAL_MSG = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.")
_INTERNAL_MSG = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                 "memory location. Please clone() the tensor before performing the operation.")


def overlap_status(a, b):
    if a is b:
        return _FULL
    sa, sb = a._storage, b._storage
    if sa is not sb and (sa.root or sa) is not (sb.root or sb):     # PyTorch: storage.is_alias_of
        return _NO
    if a.numel() == 0 or b.numel() == 0:
        return _NO
    if dense_strides(a._shape, a._stride) is None or dense_strides(b._shape, b._stride) is None:
        return _TOO_HARD
    # storages of one root start at the same byte: offsets in bytes compare directly
    a_begin, b_begin = a._offset * a._dtype.itemsize, b._offset * b._dtype.itemsize
    a_end = a_begin + a.numel() * a._dtype.itemsize
    b_end = b_begin + b.numel() * b._dtype.itemsize
    if a_begin == b_begin and a_end == b_end:
        return _FULL if tuple(a._stride) == tuple(b._stride) else _PARTIAL
    if a_begin < b_end and b_begin < a_end:
        return _PARTIAL
    return _NO


def assert_no_internal_overlap(t):
    _assert_geometry_writable(t._shape, t._stride)


def _assert_geometry_writable(shape, strides):
    """The written tensor may not have two elements at one address (a broadcast 0 stride);
    a tensor without elements has none (PyTorch: non-overlapping and dense)."""
    if 0 in shape:
        return
    for n, st in zip(shape, strides):
        if st == 0 and n > 1:
            raise RuntimeError(_INTERNAL_MSG)


def assert_no_partial_overlap(t, other):
    if isinstance(other, Tensor) and overlap_status(t, other) == _PARTIAL:
        raise RuntimeError(_PARTIAL_MSG)


def assert_no_overlap(t, other):
    if isinstance(other, Tensor) and overlap_status(t, other) in (_FULL, _PARTIAL):
        raise RuntimeError(_PARTIAL_MSG)


def has_internal_overlap(t):
    return 0 not in t._shape and any(st == 0 and n > 1 for n, st in zip(t._shape, t._stride))


def put_into_memory(t, op, pos, values, accumulate=False, warn=True):
    """Write values at flat positions `pos` (of t's row-major order) straight into t's memory.
    For a t whose elements share memory (expanded), which PyTorch's masked_fill_ and
    index_put_ write element by element with a deprecation warning (tril_/triu_: without):
    computing the result out of place and copying it back would let untouched aliases
    overwrite written ones."""
    example = "tensor[mask] = scalar" if op == "masked_fill_" else "tensor[indices] = tensor"
    if warn:
        _warn_user(f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing "
                   f"this operation. This also applies to advanced indexing e.g. {example}", UserWarning,
                   stacklevel=3)
    from .._tensor import contiguous_strides
    from .indexing import _flat_buffer, _put_values
    with no_grad():
        addr = pos.long() * 0 + t._offset
        for n, cst, st in zip(t._shape, contiguous_strides(t._shape), t._stride):
            if st and n > 1:
                addr = addr + (pos // cst) % n * st
        vals = _put_values(t, pos, values)
        backend_of(t).put(t._storage.buffer, _flat_buffer(addr), _flat_buffer(vals), accumulate)
    t._vc.value += 1
    return t


def masked_fill_(t, mask, value):
    """masked_fill_ through the in-place mechanism; an expanded t is written element by element."""
    from .elementwise import check_masked_fill_arguments, masked_fill
    check_masked_fill_arguments("masked_fill_", mask, value)
    writer = None
    if has_internal_overlap(t):
        check_inplace(t, mask, value)                   # (autograd's check before the op's own)
        assert_no_partial_overlap(t, mask)
        masked_fill(t, mask, value)                     # the checks of shapes and dtypes
        from .indexing import nonzero
        with no_grad():
            m = mask.expand(t._shape) if mask._shape != t._shape else mask
            pos = nonzero(m.reshape(-1), as_tuple=True)[0]
        writer = positions_writer("masked_fill_", pos, value)
    return apply_inplace(t, masked_fill, mask, value, needs_old=False, overlap="masked", writer=writer)


def positions_writer(op, pos, values, accumulate=False):
    """The write of an in-place op into a t whose elements share memory: only the positions
    the op writes (see put_into_memory), instead of the whole result."""
    def write(t, result):
        put_into_memory(t, op, pos, values, accumulate)
    return write


def check_overlap(t, inputs, full_ok=True, internal=True):
    """PyTorch's checks of an in-place write into t reading `inputs`: elementwise ops allow an
    input that is t's memory with t's geometry (full_ok), indexing ops (index_put_, scatter_,
    index_add_) refuse any overlap of t with their index and source tensors."""
    if internal:
        assert_no_internal_overlap(t)
    check = assert_no_partial_overlap if full_ok else assert_no_overlap
    for a in inputs:
        check(t, a)


def write_result(t, result):
    """Cast-check and write result's values into t's memory; bump the version."""
    if not D.can_cast(result._dtype, t._dtype):
        raise RuntimeError(f"result type {type_name(result._dtype)} can't be cast to the desired output "
                           f"type {type_name(t._dtype)}")
    if result._shape != t._shape:
        shape = broadcast_shapes(t._shape, result._shape)
        if shape != t._shape:
            raise RuntimeError(f"output with shape {list(t._shape)} doesn't match the broadcast shape {list(shape)}")
    backend_of(t).copy(broadcast_view(result, t._shape), t._view_tuple())
    t._vc.value += 1


class CopySlices(Node):
    """The base's history after an in-place op on one of its views (PyTorch's CopySlices).

    It wraps the op's own node `fn`, which is not in the graph: its first edge (to the
    view's old value) is replaced by the base's old history, its other edges are this
    node's.  Backward copies the base's gradient, hands fn the gradient of the written
    window, and writes fn's gradient for the view's old value back into that window."""

    fn = None               # the op's node; None when the written value has no history
    fn_nr = 0               # the written value's output number in fn

    def name(self):
        return "torch::autograd::CopySlices"

    def release(self):
        self._freed = True      # PyTorch drops the op's node it wraps: a second backward fails
        if self.fn is not None:
            self.fn.release()

    def backward(self, g):
        if self._freed:
            raise RuntimeError(FREED_MSG)
        from .._creation import empty_strided
        base_shape, base_strides, base_offset = self.base_geom
        view_shape, view_strides, view_offset = self.view_geom
        # the base's gradient, laid out as the base (new_empty_strided), and its window
        result = empty_strided(base_shape, base_strides, dtype=g.dtype, device=g.device)
        result.copy_(g)
        grad_slice = result.as_strided(view_shape, view_strides, view_offset - base_offset)
        fn = self.fn
        if fn is None:              # the written value depends on nothing: a zero window
            if self.needs_input_grad(0):
                grad_slice.zero_()
                return (result,)
            return (None,)
        wanted = self._wanted
        if wanted is not None:      # autograd.grad(inputs=): fn computes what this node must
            fn._wanted = wanted
        try:
            res = fn(*[None] * self.fn_nr, grad_slice.clone(memory_format=contiguous_format))
        finally:
            if wanted is not None:
                del fn._wanted
        grads = [None] * len(self._next_fns)
        for i, r in enumerate(res):
            if r is None or not self.needs_input_grad(i):
                continue            # (PyTorch: an undefined gradient is skipped, the base's too)
            if i == 0:
                grad_slice.copy_(r)
                grads[0] = result
            else:
                grads[i] = r
        return tuple(grads)


def _wrap_op_node(node, fn, nr):
    """CopySlices' edges: the base's old history, then fn's edges after its first."""
    if fn is None:
        return
    node._next_fns = node._next_fns[:1] + fn._next_fns[1:]
    node._next_nrs = interned_numbers(node._next_nrs[:1] + fn._next_nrs[1:])
    node.input_meta = node.input_meta[:1] + tuple(fn.input_meta[1:])
    node.fn = fn
    node.fn_nr = nr


def regenerate_view_grad_fn(view):
    """A view whose base changed in place: its history is a window of the base's new history."""
    base = view._base
    view._view_version = view._vc.value
    if view._dtype.is_floating_point:
        old_fn, old_nr = view._grad_fn, view._output_nr
        _record_window_of_base(base, view, _geometry(base), _geometry(view))
        _move_retained_grad(view, old_fn, old_nr)


def _record_window_of_base(base, out, base_geom, view_geom, stand_in=False):
    """out's history: the window view_geom of base's storage (an as_strided view).
    stand_in: out is the old value an in-place op on a view reads; PyTorch has no node
    there (CopySlices copies the op's gradient into the base's), so an empty window's
    gradient stays recorded rather than becoming as_strided_backward's fresh zeros."""
    divide = None if is_non_overlapping(base_geom[0], base_geom[1]) else base_geom
    record(AsStridedBackward0, (base,), (out,), input_geom=base_geom, view_geoms=[view_geom],
           dtype=base._dtype, divide=divide, stand_in=stand_in)


def _saved_result_is_target(t, result, view_fn=None):
    """The op's node saved its output (exp_, sigmoid_, relu_, ...): in PyTorch that is the
    written tensor itself at its post-write version, so later in-place changes of t (or
    of its base or views) must fail that node's backward.  Point the saved output at t."""
    node = result._grad_fn
    saved = node._saved if node is not None else ()
    for s in saved:
        if s is None or not s.is_output:
            continue
        if view_fn is not None:         # already pointed at t: only name the view's history
            if s.tensor._vc is t._vc:
                s.producer = view_fn
            continue
        if s.tensor._storage is not result._storage:
            continue
        if result._shape == t._shape and result._dtype is t._dtype:
            s.tensor = t._shallow_alias(share_version=True)
        else:       # values differ from t's (wider dtype, broadcast): keep them, track t's version
            r = s.tensor
            s.tensor = Tensor._make(r._storage, r._shape, r._stride, r._offset, r._dtype, t._vc)
        s.version = t._vc.value


def _stand_in(t, needs_old):
    """A tensor holding t's current value (copied when the op may save it)."""
    return copy_raw(t) if needs_old else t._shallow_alias(share_version=False)


def _check_not_saved(old, result, fn):
    """needs_old=False promised that fn's node does not save its first input: old is then
    t's own memory, about to be overwritten, and a saved alias of it would give a wrong
    gradient without any version error.  A broken promise is nbgrad's bug: say so loudly."""
    node = result._grad_fn
    saved = getattr(node, "_saved", ())
    if any(s is not None and not s.is_output and s.tensor is old for s in saved):
        raise AssertionError(f"nbgrad: the in-place form of {getattr(fn, '__name__', fn)} is declared "
                             f"needs_old=False, but {type(node).__name__} saves its input")


def _compute_and_write(t, old, fn, args, needs_old, write):
    """fn on t's old value (the stand-in), written into t; the result's saved output now
    aliases t (_saved_result_is_target)."""
    result = fn(old, *args)
    if not needs_old and result._grad_fn is not None:
        _check_not_saved(old, result, fn)
    write(t, result)
    if result._requires_grad:
        _saved_result_is_target(t, result)
    return result


def apply_inplace(t, fn, *args, needs_old=True, overlap="partial", writer=None, precheck=None, differentiable=True):
    """Run `fn(current value of t, *args)` out of place and write the result into t.

    needs_old=False is a promise that fn does not save its first argument for
    backward, so t's memory can be read directly instead of copied first.
    overlap: which memory overlap of t with its tensor args is refused before anything is
    computed: "partial" (elementwise ops; t's own memory and geometry is allowed), "any"
    (indexing ops), "masked" (masked_fill_: partial, and t may be expanded) or None
    (fill_: no check at all).
    writer: how the result reaches t's memory, when not by write_result (positions_writer).
    precheck: the op's own checks (shapes, dtypes), run after the autograd and overlap ones.
    An op that checks its arguments before calling this must call check_inplace first: PyTorch's
    autograd layer checks the written tensor before any op sees its arguments.
    differentiable=False: an op PyTorch's autograd does not know (logical_and_...): no
    check_inplace, no history; only the write and the version bump (a view of the written
    tensor regenerates its history as after any in-place change).
    """
    write = writer or write_result
    if differentiable:
        check_inplace(t, *args)
    if overlap is not None:
        check_overlap(t, args, full_ok=overlap != "any", internal=overlap != "masked")
    if precheck is not None:
        precheck()
    if not differentiable or not recording(t, *args):
        with no_grad():
            result = fn(t, *args)
        write(t, result)
        return t
    base = t._base
    if base is None:
        old = _stand_in(t, needs_old)
        if t._requires_grad:
            old._requires_grad = True
            old._grad_fn = t._grad_fn
            old._output_nr = t._output_nr
        result = _compute_and_write(t, old, fn, args, needs_old, write)
        if result._requires_grad:
            old_fn, old_nr = t._grad_fn, t._output_nr
            t._grad_fn = result._grad_fn
            t._output_nr = result._output_nr
            t._requires_grad = True
            _move_retained_grad(t, old_fn, old_nr)
        return t
    # t is a view: the base's history becomes CopySlices(base's old history, result)
    base_geom, view_geom = _geometry(base), _geometry(t)
    old = _stand_in(t, needs_old)
    if base._requires_grad:
        _record_window_of_base(base, old, base_geom, view_geom, stand_in=True)
    result = _compute_and_write(t, old, fn, args, needs_old, write)
    if result._requires_grad or base._requires_grad:
        old_fn, old_nr = base._grad_fn, base._output_nr
        node = record(CopySlices, (base,), (base,), base_geom=base_geom, view_geom=view_geom)
        _wrap_op_node(node, result._grad_fn if result._requires_grad else None, result._output_nr)
        _move_retained_grad(base, old_fn, old_nr)
        regenerate_view_grad_fn(t)
        if result._requires_grad and t._grad_fn is not None:
            _saved_result_is_target(t, result, weakref.ref(t._grad_fn))
    return t


def _move_retained_grad(t, old_fn, old_nr):
    """PyTorch moves retain_grad to a tensor's new grad_fn when an in-place op rewrites its
    history: t.grad is then the gradient of its new value, not of the overwritten one."""
    if not t._retains_grad or old_fn is None or old_fn is t._grad_fn:
        return
    if t._retained_at is not None:      # where an in-place view op left it (inplace_views.py)
        (old_fn, old_nr), t._retained_at = t._retained_at, None
    retains = old_fn._retains
    if retains and old_nr in retains and retains[old_nr]() is t:
        del retains[old_nr]
    if t._grad_fn is not None:
        t._grad_fn._retain(t._output_nr, t)


# -- the ops that only write -----------------------------------------------------------
class CopyBackwards(Node):
    def backward(self, g):
        return (zeros_grad(g) if self.needs_input_grad(0) else None), g


def _copied_from(old, src, node_cls=None):
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
        record(node_cls or CopyBackwards, (old, src), (out,))
    return out


_DIRECT_LIMIT = 1 << 16          # (zero_ and copy_ by NumPy up to this many elements; larger ones keep the
                                 # backend's, which may split across threads)


def copy_(t, src, non_blocking=False):
    """t[...] = src with broadcasting and casting (any dtype to any dtype)."""
    if non_blocking is not False and non_blocking is not True:      # (PyTorch's parser: a bool only)
        raise TypeError(f"copy_(): argument 'non_blocking' must be bool, not {type(non_blocking).__name__}")
    if not isinstance(src, Tensor):
        # (PyTorch's parser wraps a number into a 0-dim tensor of its kind: copy_'s cast, which
        # wraps an integer past the dtype's range, its overlap check and CopyBackwards, not fill_)
        from .._checks import is_number
        if not is_number(src) or isinstance(src, complex):
            raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
        from ._graph import scalar_tensor
        src = scalar_tensor(src, D.scalar_dtype(src), t.device)
    if not t._dtype.is_floating_point and is_grad_enabled():
        with no_grad():     # PyTorch's copy_ alone asks isDifferentiableType(self): no checks, no history
            return copy_(t, src, non_blocking)
    if not recording(t, src) and src.device == t.device and src._storage is not t._storage:
        check_overlap(t, (src,))
        shape = broadcast_shapes(t._shape, src._shape)
        if shape != t._shape:
            raise RuntimeError(f"output with shape {list(t._shape)} doesn't match the broadcast shape {list(shape)}")
        if not _copied_directly(t, src):
            backend_of(t).copy(broadcast_view(src, t._shape), t._view_tuple())
        t._vc.value += 1
        return t
    if _same_data(t, src):
        # PyTorch's copy_ returns at once when src is t's own memory at t's geometry (before
        # any overlap check: copying an expanded tensor into itself is fine); the autograd
        # history and the version change as for any copy_
        return apply_inplace(t, _copied_from, src, needs_old=False, overlap=None)
    return apply_inplace(t, _copied_from, src, needs_old=False)


def _copied_directly(t, src):
    """copy_'s values by NumPy's slice assignment when t and src are small row-major CPU tensors
    of one shape and dtype (_graph.cpu_run; a bit copy, as the backend's; 16 elements 5.7 ->
    2.2 us): True when done."""
    if src._dtype is not t._dtype or not (src._shape is t._shape or src._shape == t._shape):
        return False
    n = cpu_run(t)
    if not n or n > _DIRECT_LIMIT or not cpu_run(src):
        return False
    t._storage.buffer[t._offset:t._offset + n] = src._storage.buffer[src._offset:src._offset + n]
    return True


def _same_data(t, src):
    return (src._storage is t._storage and src._offset == t._offset and src._stride == t._stride
            and src._shape == t._shape and src._dtype is t._dtype)


class FillBackward2(Node):
    """fill_(Scalar)."""

    def backward(self, g):
        return zeros_grad(g)


class FillBackward3(Node):
    """fill_(Tensor), and setitem's fill with a number: zero for self, the sum for the value."""

    def backward(self, g):
        gself = zeros_grad(g) if self.needs_input_grad(0) else None
        if len(self._next_fns) == 1:
            return gself
        return gself, (g.sum() if self.needs_input_grad(1) else None)


class ZeroBackward0(FillBackward2):
    pass


class FillBackward0(FillBackward2):
    """torch.fill(Scalar)."""


class FillBackward1(FillBackward3):
    """torch.fill(Tensor)."""


def fill(input, value):
    """torch.fill: a new tensor laid out as input (empty_like's strides) filled with value, a
    number or a 0-dim tensor (which gets the gradient's sum; input gets none)."""
    from .._creation import empty_like
    with no_grad():
        out = fill_(empty_like(input), value)
    if isinstance(value, Tensor):
        if needs_grad(input, value):
            record(FillBackward1, (input, value), (out,))
    elif needs_grad(input):
        record(FillBackward0, (input,), (out,))
    return out


def _filled(old, value, node_cls=FillBackward2):
    from .._creation import full
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
        with no_grad():
            out = _copied_from(old, value)
        if needs_grad(old, value):
            record(FillBackward3, (old, value), (out,))
        return out
    out = full(old._shape, value, dtype=old._dtype, device=old.device)
    if needs_grad(old):
        record(node_cls, (old,), (out,))
    return out


def fill_(t, value):
    return filled_(t, value, FillBackward2)


def filled_(t, value, node_cls):
    """fill_ recorded as node_cls (setitem's: FillBackward3).  PyTorch: fill_(Scalar) may write
    an expanded tensor; fill_(Tensor) and setitem may not."""
    check_inplace(t, value)                             # (autograd's check before the op's own)
    if isinstance(value, Tensor) or node_cls is FillBackward3:
        assert_no_internal_overlap(t)
    if not isinstance(value, Tensor) and not recording(t):
        checked_scalar(value, t._dtype)
        if not t._dtype.is_floating_point and isinstance(value, float) and t._dtype is not D.bool_:
            value = int(value)
        backend_of(t).fill(t._view_tuple(), value)
        t._vc.value += 1
        return t
    return apply_inplace(t, _filled, value, node_cls, needs_old=False, overlap=None)


def zero_(t):
    if not recording(t):
        # a small row-major CPU tensor (w.grad.zero_() in a hand-written loop, _graph.cpu_run):
        # NumPy's fill of its run, all bits zero in every dtype; the backend's fill plans the
        # view (16 elements 5.8 -> 0.8 us)
        n = cpu_run(t)
        if n and n <= _DIRECT_LIMIT:
            t._storage.buffer[t._offset:t._offset + n] = 0
            t._vc.value += 1
            return t
        return fill_(t, 0)
    return apply_inplace(t, lambda old: _filled(old, 0, ZeroBackward0), needs_old=False, overlap=None)


class _DrawnBackward(Node):
    """An in-place random fill: the new values do not depend on the old ones."""

    def backward(self, g):
        return zeros_grad(g)


class UniformBackward0(_DrawnBackward): pass
class NormalBackward0(_DrawnBackward): pass
class RandomBackward0(_DrawnBackward): pass      # random_(from, to)
class RandomBackward1(_DrawnBackward): pass      # random_(to)
class RandomBackward2(_DrawnBackward): pass      # random_()
class BernoulliBackward2(_DrawnBackward): pass   # bernoulli_(float p)
class ExponentialBackward0(_DrawnBackward): pass


class _DrawnFromBackward(Node):
    """normal(mean, std) with tensors: the draws do not depend on them (derivatives.yaml's
    zeros of each input's sizes, in the gradient's dtype)."""

    def backward(self, g):
        from .._creation import zeros
        return tuple(None if m is None else zeros(m[0], dtype=g.dtype, device=g.device) for m in self.input_meta)


class NormalBackward1(_DrawnFromBackward): pass     # normal(Tensor mean, float std)
class NormalBackward2(_DrawnFromBackward): pass     # normal(float mean, Tensor std)
class NormalBackward3(_DrawnFromBackward): pass     # normal(Tensor mean, Tensor std)


def record_drawn_from(out, mean, std):
    """out = normal(mean, std) recorded over its tensor arguments (PyTorch's NormalBackward1-3)."""
    if not needs_grad(mean, std):
        return out
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        record(NormalBackward3, (mean, std), (out,))
    else:
        record(NormalBackward1 if isinstance(mean, Tensor) else NormalBackward2,
               (mean if isinstance(mean, Tensor) else std,), (out,))
    return out


def _drawn(old, buf, node_cls):
    src = new_tensor(buf, old._shape, old._dtype, old.device)
    if needs_grad(old):
        record(node_cls, (old,), (src,))
    return src


def write_random(t, buf, node_cls=RandomBackward0):
    """Write freshly drawn values (a backend buffer of t's numel) into t.  Recorded like
    any in-place op: t's history becomes node_cls (zero gradient), or CopySlices for a view."""
    check_inplace(t)                                    # (autograd's check before the op's own)
    assert_no_internal_overlap(t)
    if not recording(t):
        write_result(t, new_tensor(buf, t._shape, t._dtype, t.device))
        return t
    return apply_inplace(t, _drawn, buf, node_cls, needs_old=False, overlap=None)
