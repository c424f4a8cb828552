"""Recording the graph: where a tensor's gradient flows (`edge`) and attaching a Node to
the outputs of an op (`record`).  Every built-in op and every custom Function records
through these two (nbgrad/ops/_graph.py re-exports them for the op modules).

They run once per op, so they are the hottest Python in the package: plain attribute
reads, no per-node dicts.  Imported lazily by the rest of nbgrad.autograd (this module
needs the Tensor class, whose module imports nbgrad.autograd).

The end of the module is torch.autograd.graph's public API: the saved-tensor hooks
(saved_hooks.py), Node as an abstract base, GradientEdge / get_gradient_edge,
increment_version and register_multi_grad_hook.  Departures from PyTorch:
- allow_mutation_on_saved_tensors is not provided (PyTorch's rests on a dispatch mode
  that sees every in-place op).
- increment_version checks every element before it bumps any (PyTorch bumps the tensors
  before a non-tensor element, then raises).
- A GradientEdge given as an output of autograd.grad/backward needs its grad_outputs:
  nbgrad's nodes keep no metadata of their outputs to make a scalar's ones from.
"""
from .._tensor import Tensor
from .grad_mode import _state as _grad_state
from . import anomaly_mode
from .node import AccumulateGrad, Node as _Node, _NUMBERS, _next_seq, interned_numbers

_new = object.__new__
_node_init = _Node.__init__


def check_no_requires_grad(t, argument, fn):
    """PyTorch's autograd refusal (check_no_requires_grad) of a tensor that requires grad given
    for an argument its derivative does not cover, while grad mode is on: its gradient would
    silently be missing."""
    if needs_grad(t):
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{argument}'. "
                           "This input cannot have requires_grad True.")


def needs_grad(*tensors):
    """Whether an op on `tensors` (tensors and anything else) must be recorded."""
    if not _grad_state.enabled:
        return False
    for t in tensors:
        if isinstance(t, Tensor):
            if t._requires_grad:
                return True
            base = t._base        # a view requires grad whenever its base does, live
            if base is not None and base._requires_grad:
                return True
    return False


_NO_EDGE = (None, 0)


def edge(t):
    """(node, output number) that t's gradient goes to: its grad_fn, its AccumulateGrad
    (a leaf that requires grad), or (None, 0)."""
    if not isinstance(t, Tensor):
        return _NO_EDGE
    base = t._base
    if not t._requires_grad and (base is None or not base._requires_grad):
        return _NO_EDGE
    if base is None:
        fn = t._grad_fn
    else:
        fn = t.grad_fn                  # a view may regenerate its grad_fn
        if fn is None and not t._requires_grad:
            return _NO_EDGE             # a view made under no_grad: no history, not a leaf of its own
                                        # (unless requires_grad_() made it one)
    if fn is not None:
        return (fn, t._output_nr)
    return (t._grad_accumulator(), 0)


# Nodes' input_meta is interned: its (shape, dtype) pairs and the tuples of them.  A
# graph of many small ops then keeps one shared tuple per distinct value instead of
# new ones per node: fewer objects for Python's cyclic GC to scan (GC was ~35% of W8).
_METAS = {}


def _interned(key):
    found = _METAS.get(key)
    if found is None:
        if len(_METAS) < 4096:
            _METAS[key] = key
        return key
    return found


def record_unary(node_cls, x, out):
    """record(node_cls, (x,), (out,)) for a one-input op's common call (a plain tensor x, a
    node class without its own __init__), spelled out as record_pair is; else record."""
    if type(x) is not Tensor or x._base is not None or x._producer_meta is not None \
            or node_cls.__init__ is not _node_init:
        return record(node_cls, (x,), (out,))
    if x._requires_grad:
        fn = x._grad_fn
        if fn is not None:
            nr, m = x._output_nr, (x._shape, x._dtype)
        else:
            fn = x._grad_accumulator()
            nr, m = 0, fn.input_shape_dtype
        meta = (m,)
    else:
        fn, nr, meta = None, 0, (None,)
    found = _METAS.get(meta)
    if found is None:
        found = _interned((None if meta[0] is None else _interned(meta[0]),))
    node = _new(node_cls)
    node._next_fns = (fn,)
    node._next_nrs = _NUMBERS.get((nr,)) or interned_numbers((nr,))
    node.input_meta = found
    node._seq = node._priority or _next_seq()
    if anomaly_mode.ENABLED:
        node._trace = anomaly_mode.creation_trace()
    if out._dtype.is_floating_point:
        out._grad_fn = node
        out._requires_grad = True
        out._output_nr = 0
    return node


def record_pair(node_cls, a, b, out):
    """record(node_cls, (a, b), (out,)) for a binary op's common call, spelled out: a plain
    tensor a (not a view, nothing reshaped under no_grad since its node made it) with a
    plain tensor or a Python number b, one output, a node class without its own __init__.
    Anything else goes to record.  (The two-input lists, their tuples and four interning
    lookups of the general loop were ~0.4 of the ~1.2 us a recorded mul spent recording.)"""
    tb = type(b)
    if type(a) is not Tensor or a._base is not None or a._producer_meta is not None \
            or (tb is Tensor and (b._base is not None or b._producer_meta is not None)) \
            or (tb is not Tensor and isinstance(b, Tensor)) or node_cls.__init__ is not _node_init:
        return record(node_cls, (a, b), (out,))
    if a._requires_grad:
        fa = a._grad_fn
        if fa is not None:
            na, ma = a._output_nr, (a._shape, a._dtype)
        else:
            fa = a._grad_accumulator()
            na, ma = 0, fa.input_shape_dtype
    else:
        fa = ma = None
        na = 0
    if tb is Tensor and b._requires_grad:
        fb = b._grad_fn
        if fb is not None:
            nb, mb = b._output_nr, (b._shape, b._dtype)
        else:
            fb = b._grad_accumulator()
            nb, mb = 0, fb.input_shape_dtype
    else:
        fb = mb = None
        nb = 0
    meta = (ma, mb)
    found = _METAS.get(meta)        # (one lookup when this pair of metas was seen before)
    if found is None:
        found = _interned((None if ma is None else _interned(ma), None if mb is None else _interned(mb)))
    nrs = (na, nb)
    node = _new(node_cls)
    node._next_fns = (fa, fb)
    node._next_nrs = _NUMBERS.get(nrs) or interned_numbers(nrs)
    node.input_meta = found
    node._seq = node._priority or _next_seq()
    if anomaly_mode.ENABLED:
        node._trace = anomaly_mode.creation_trace()
    if out._dtype.is_floating_point:
        out._grad_fn = node
        out._requires_grad = True
        out._output_nr = 0
    return node


def record(node_cls, inputs, outputs, node=None, **attrs):
    """Create a node of node_cls for `outputs` computed from `inputs` and attach it to the
    floating-point outputs (None entries keep their output number but get nothing);
    return it.  `node`: an instance of node_cls made beforehand (a custom Function's
    ctx), initialised here instead of a new one."""
    fns = []        # the edges as the node keeps them (node.py): nodes, output numbers
    nrs = []
    meta = []
    for t in inputs:
        if type(t) is Tensor and t._base is None and t._producer_meta is None:
            # edge(t) of a plain tensor (not a view, not reshaped under no_grad since its
            # node made it), spelled out: the common case
            if t._requires_grad:
                fn = t._grad_fn
                if fn is not None:
                    fns.append(fn)
                    nrs.append(t._output_nr)
                    key = (t._shape, t._dtype)
                else:
                    acc = t._grad_accumulator()
                    fns.append(acc)
                    nrs.append(0)
                    key = acc.input_shape_dtype
                meta.append(_METAS.get(key) or _interned(key))
            else:
                fns.append(None)
                nrs.append(0)
                meta.append(None)
            continue
        if not isinstance(t, Tensor):       # a number operand (x + 1): no edge
            fns.append(None)
            nrs.append(0)
            meta.append(None)
            continue
        e = edge(t)
        fns.append(e[0])
        nrs.append(e[1])
        if e[0] is None:
            meta.append(None)
        elif type(e[0]) is AccumulateGrad:
            meta.append(_interned(e[0].input_shape_dtype))
        elif t._producer_meta is None:
            meta.append(_interned((t._shape, t._dtype)))
        else:
            fn, nr, shape, dtype = t._producer_meta
            meta.append(_interned((shape, dtype) if fn is e[0] and nr == e[1] else (t._shape, t._dtype)))
    meta = tuple(meta)
    meta = _METAS.get(meta) or _interned(meta)
    nrs = tuple(nrs)
    nrs = _NUMBERS.get(nrs) or interned_numbers(nrs)
    if node is None and node_cls.__init__ is not _node_init:
        node = node_cls(tuple(zip(fns, nrs)), meta)     # (a node's own __init__ takes the pairs)
    else:
        # Node.__init__ spelled out (no frame: this runs per op), on a new node or on the
        # one given (a custom Function's ctx)
        if node is None:
            node = _new(node_cls)
        node._next_fns = tuple(fns)
        node._next_nrs = nrs
        node.input_meta = meta
        node._seq = node._priority or _next_seq()
        if anomaly_mode.ENABLED:
            node._trace = anomaly_mode.creation_trace()
    if attrs:
        for name, value in attrs.items():     # setattr keeps 3.11's inline attribute values:
            setattr(node, name, value)        # no per-node __dict__ object for the GC to track
    if len(outputs) == 1:
        out = outputs[0]
        if out is not None and out._dtype.is_floating_point:
            out._grad_fn = node
            out._requires_grad = True
            out._output_nr = 0
        return node
    for i, out in enumerate(outputs):
        if out is not None and out._dtype.is_floating_point:
            out._grad_fn = node
            out._requires_grad = True
            out._output_nr = i
    return node


# -- torch.autograd.graph's public API -------------------------------------------------------
import abc  # noqa: E402
import functools  # noqa: E402
from typing import NamedTuple, Optional  # noqa: E402

from .saved_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks  # noqa: E402, F401

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
           "Node", "GradientEdge", "get_gradient_edge", "increment_version"]


class Node(abc.ABC):
    """The abstract base of the graph's nodes: isinstance(t.grad_fn, Node) holds for every
    grad_fn and AccumulateGrad (nbgrad.autograd.node.Node's subclasses), as in PyTorch."""

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self):
        raise NotImplementedError

    @abc.abstractmethod
    def metadata(self):
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn):
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn):
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and issubclass(subclass, _Node):
            return True
        return NotImplemented


class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed: (node, output number).  Usable in place of a
    tensor as an output or an input of autograd.grad and autograd.backward."""

    node: Node
    output_nr: int
    ownership_token: Optional[Node] = None     # (PyTorch's: keeps a Python node's graph alive)


def _get_grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        node = t._grad_accumulator()
    else:
        node = t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def get_gradient_edge(tensor):
    """The GradientEdge of `tensor`: its grad_fn and output number, or a leaf's
    AccumulateGrad (held by the edge, so later graphs over the leaf reuse it)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    return GradientEdge(_get_grad_fn_or_grad_acc(tensor), tensor.output_nr)


def increment_version(tensor):
    """Bump the version counter of `tensor` (or of each tensor of an iterable), as an
    in-place change does: for memory changed behind autograd's back."""
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    try:
        tensors = list(tensor)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    if not all(isinstance(t, Tensor) for t in tensors):
        raise RuntimeError("increment_version expects each element of the iterable to be a tensor")
    for t in tensors:
        t._vc.value += 1


class _MultiHandle:
    """The handle register_multi_grad_hook returns: remove() removes every hook it put."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode="all": fn(grads) once per backward pass, when the gradients of all the tensors
    the pass computes have been computed (None for the others: not in the graph, or not on
    a path to the pass's `inputs`).  mode="any": fn(grad) once per pass, with the first
    of the tensors' gradients computed."""
    from . import engine
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "all":
        count = {}
        buffer = {}
        nb_calls = None
        grad_fns = [_get_grad_fn_or_grad_acc(t) for t in tensors]
        len_tensors = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                nonlocal nb_calls
                task = engine._current_graph_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                curr_count = count.get(task, 0)
                count[task] = curr_count + 1
                buf = buffer.setdefault(task, [None] * len_tensors)
                if curr_count == 0:
                    # the first call of this pass: how many of the tensors it will reach
                    nb_calls = sum(map(engine._will_engine_execute_node, grad_fns))
                buf[idx] = grad
                if curr_count == nb_calls - 1:
                    del count[task]
                    del buffer[task]
                    fn(buf)
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook = set()

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = engine._current_graph_task_id()
            if task == -1:
                raise AssertionError("expected this hook to be called inside a backward call")
            if task in ran_hook:
                return
            ran_hook.add(task)
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
