"""Recording the graph: where a tensor's gradient flows (`edge`) and attaching a Node to
the outputs of an op (`record`).  Every built-in op and every custom Function records
through these two (nbgrad/ops/_graph.py re-exports them for the op modules).

They run once per op, so they are the hottest Python in the package: plain attribute
reads, no per-node dicts.  Imported lazily by the rest of nbgrad.autograd (this module
needs the Tensor class, whose module imports nbgrad.autograd).
"""
from .._tensor import Tensor
from .grad_mode import _state as _grad_state
from . import anomaly_mode
from .node import AccumulateGrad, Node, _NUMBERS, _next_seq, interned_numbers

_new = object.__new__
_node_init = Node.__init__


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
