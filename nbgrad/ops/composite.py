"""One node for an op nbgrad composes of other ops.

PyTorch's graph shows an ATen op as one node from its inputs to its result (avg_pool3d's
AvgPool3DBackward0 leads straight to the input's node).  Where nbgrad computes such an op as a
composition of Tensor ops, `one_node` runs the composition on detached aliases of the inputs
(they share the inputs' memory and version counters) and keeps its graph inside a single node
of PyTorch's name, recorded from the inputs to the result: a user walking grad_fn and
next_functions sees PyTorch's graph, and the gradient is the composition's own (the same ops,
the same roundings).  Under create_graph the node differentiates a fresh run of the composition
on the inputs themselves, so a gradient's graph reaches them.

`saves`: whether PyTorch's node saves its inputs; then a backward without retain_graph frees
the node as it frees PyTorch's (a second backward is the engine's error) and a changed input is
the saved-tensor version error; else the node keeps its graph, as PyTorch's keeps nothing.
"""
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.node import FREED_MSG, Node
from ._graph import copy_raw, needs_grad, record

_CLASSES = {}


class CompositeNode(Node):
    """A node whose backward differentiates the composition it keeps (see the module's docstring)."""
    _composite = None

    def backward(self, *grads):
        if self._composite is None:
            raise RuntimeError(FREED_MSG)
        fn, inputs, leaves, out = self._composite
        wanted = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and self.needs_input_grad(i)]
        g = grads[0]
        from ..autograd import grad
        if is_grad_enabled():       # (create_graph: the composition again, on the inputs themselves)
            with enable_grad():
                out = fn(*inputs)
            targets = [inputs[i] for i in wanted]
        else:
            targets = [leaves[i] for i in wanted]
        found = grad(out, targets, g, retain_graph=True, create_graph=is_grad_enabled(), allow_unused=True)
        result = [None] * len(inputs)
        for i, r in zip(wanted, found):
            result[i] = r
        return tuple(result) if len(result) > 1 else result[0]

    def release(self):
        if self._saves:
            self._composite = None
            self._freed = True
        super().release()


def _node_class(name, saves):
    cls = _CLASSES.get((name, saves))
    if cls is None:
        cls = _CLASSES[(name, saves)] = type(name, (CompositeNode,), {"__module__": __name__, "_saves": saves})
    return cls


def one_node(name, fn, *inputs, saves=True, outputs=1):
    """fn(*inputs) (a composition of Tensor ops; `outputs` > 1: a tuple whose first item is the
    differentiable result, the others (indices) without history) as one node named `name`,
    whose inputs are `inputs` (an optional tensor given as None keeps its edge, None, as in
    PyTorch's node: group_norm without weight)."""
    if not needs_grad(*inputs):
        return fn(*inputs)
    leaves = tuple(t.detach().requires_grad_(t.requires_grad) if isinstance(t, Tensor) and t.requires_grad else t
                   for t in inputs)
    with enable_grad():
        out = fn(*leaves)
    first = out[0] if outputs > 1 else out
    result = copy_raw(first.detach())       # (its own memory and version: the composition's stay inside)
    node = record(_node_class(name, saves), inputs, (result,) + (None,) * (outputs - 1))
    node._composite = ((lambda *ts: fn(*ts)[0]) if outputs > 1 else fn, inputs, leaves, first)
    if saves:
        node.save(*(t for t in inputs if isinstance(t, Tensor)))
    return (result,) + tuple(out[1:]) if outputs > 1 else result
