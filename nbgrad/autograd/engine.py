"""The backward engine: walks Nodes in dependency order, once each, without recursion.

It knows nothing of kernels: gradients are Tensors, and a node's backward is
written with Tensor ops (so that create_graph=True records the backward pass).
"""
import importlib
import itertools
import math
import sys
from heapq import heappop, heappush
from sys import getrefcount

from .grad_mode import is_grad_enabled, set_grad_enabled
from .function import BackwardCFunction
from .node import AccumulateGrad
from . import anomaly_mode
from .._layout import contiguous_format


def _edge_of(t):
    if isinstance(t, tuple):        # a GradientEdge (autograd.graph): (node, output number, ...)
        return t[0], t[1]
    if t._grad_fn is not None or t._base is not None:
        fn = t.grad_fn
        if fn is not None:
            return fn, t._output_nr
    if t._requires_grad:      # a leaf, or a view that requires_grad_() made one
        return t._grad_accumulator(), 0
    return None, 0


def _module(name):
    """A module that imports this one, looked up instead of imported per call."""
    return sys.modules.get(name) or importlib.import_module(name)


def _make_grads(outputs, grad_outputs):
    Tensor = _module("nbgrad._tensor").Tensor           # (those modules import this one)
    _creation = _module("nbgrad._creation")
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if isinstance(out, tuple):
            # a GradientEdge: nbgrad's nodes keep no record of their outputs' shapes, so its
            # gradient is the caller's, unchecked
            if not isinstance(g, Tensor):
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
        elif g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.dtype.is_floating_point:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            g = _creation.ones_like(out)
        elif not isinstance(g, Tensor):
            g = _creation.full_like(out, g)
        else:
            if g.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] "
                    f"has a shape of {out.shape}.")
        grads.append(g)
    return grads


def _collect(roots, targets):
    """Dependency counts of every node reachable from roots, and (when targets are
    given) the set of nodes that lie above a target on a path to it."""
    deps = {}
    if targets is None:
        # every node runs: the dependency counts alone, one visit per node
        stack = [r for r in dict.fromkeys(roots) if r is not None]
        seen = set(stack)
        while stack:
            for nxt in stack.pop()._next_fns:
                if nxt is not None:
                    deps[nxt] = deps.get(nxt, 0) + 1
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
        return deps, None
    seen = set()
    order = []          # post-order, children before parents
    stack = [(r, False) for r in roots if r is not None]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for nxt in node._next_fns:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    stack.append((nxt, False))
    needed = None
    if targets is not None:
        # a node runs only if a target lies strictly below it: a non-leaf target's own
        # node is where its gradient is captured, not run (PyTorch's exec_info), so its
        # saved tensors are neither needed nor freed
        needed = set()
        for node in order:
            if any(n in needed or n in targets for n in node._next_fns if n is not None):
                needed.add(node)
    return deps, needed


def _check_nan(node, grads):
    for i, g in enumerate(grads):
        if g is not None and g.dtype.is_floating_point and bool(g.isnan().any()):
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output.\n"
                f"Traceback of forward call that caused the error:\n{node._trace or ''}")


def _fit(grad, meta, node, index):
    """Validate a gradient against its input's metadata (PyTorch's validate_outputs): a
    gradient of a shape the input expands to is summed down to it (broadcasting), any
    other shape is an error naming the node (node None: a root's gradient, whose error
    names none); then cast to the input's dtype."""
    shape, dtype = meta
    if grad._shape != shape:
        gshape = grad._shape
        if len(shape) > len(gshape) or any(s != g and s != 1 for s, g in zip(reversed(shape), reversed(gshape))):
            who = "" if node is None else f"Function {type(node).__name__} returned an "
            raise RuntimeError(f"{who}invalid gradient at index {index} - got "
                               f"{list(gshape)} but expected shape compatible with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad.dtype is not dtype:
        grad = grad.to(dtype)
    return grad


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None, accumulate=True,
                 allow_unused=False):
    """The engine proper.  With accumulate=False it returns the gradients of `inputs`."""
    roots, root_grads = _roots(outputs, grad_outputs)
    capture, targets = _what_to_capture(inputs, accumulate)
    deps, needed = _collect([n for n, _ in roots], targets)
    walk = _Walk(deps, needed, capture, len(inputs) if inputs is not None else 0, retain_graph, create_graph,
                 accumulate, root_grads, targets)
    for (node, nr), g in zip(roots, root_grads):
        _add_to(walk.buffers, node, nr, g)
    callbacks = []
    _final_callbacks.append(callbacks)
    walk.task_id = next(_task_ids)
    walk.roots = {n for n, _ in roots}
    _walks.append(walk)
    try:
        with set_grad_enabled(create_graph):
            walk.run(list(dict.fromkeys(n for n, _ in roots if deps.get(n, 0) == 0)))
            # queue_callback's callbacks, in order, once the whole graph has run (a
            # callback may queue more); not after a failed pass, as in PyTorch
            i = 0
            while i < len(callbacks):
                callbacks[i]()
                i += 1
    finally:
        _final_callbacks.pop()
        _walks.pop()
    if inputs is not None and not accumulate and not allow_unused:
        _check_all_used(walk.results)
    return walk.results


_final_callbacks = []     # one list per backward pass in progress (a hook may start another)
_walks = []               # the passes in progress, innermost last (autograd.graph's multi-grad hooks)
_task_ids = itertools.count()


def _current_graph_task_id():
    """The number of the backward pass now running (-1: none), PyTorch's graph task id."""
    return _walks[-1].task_id if _walks else -1


def _will_engine_execute_node(node):
    """Whether the backward pass now running runs `node` (PyTorch's
    _will_engine_execute_node): a node of its graph that, when the pass has `inputs`, lies
    on a path to one or is where one's gradient is captured (a leaf's AccumulateGrad among
    backward()'s inputs included; among autograd.grad()'s, PyTorch's error)."""
    if not _walks:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    walk = _walks[-1]
    in_graph = node in walk.roots or node in walk.deps
    if walk.needed is None:
        return in_graph
    if isinstance(node, AccumulateGrad) and node in walk.targets:
        if not walk.accumulate:
            raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                               "autograd.grad(). This is currently not supported.")
        return in_graph
    return in_graph and (node in walk.needed or node in walk.targets)


def queue_callback(callback):
    """Run callback() when the backward pass now running has finished (PyTorch's
    Variable._execution_engine.queue_callback): DistributedDataParallel waits for its
    last all-reduces there."""
    if not _final_callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _final_callbacks[-1].append(callback)


def _roots(outputs, grad_outputs):
    """The (node, output number) each output's gradient starts at, and those gradients."""
    roots, root_grads = [], []
    for i, (out, g) in enumerate(zip(outputs, _make_grads(outputs, grad_outputs))):
        node, nr = _edge_of(out)
        if isinstance(out, tuple):          # a GradientEdge
            roots.append((node, nr))
            root_grads.append(g)
            continue
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        meta = out._producer_meta
        if meta is not None and meta[0] is node and meta[1] == nr and g is not None:
            # the output was reshaped in place under no_grad after its node made it: PyTorch
            # validates the root's gradient against the node's record of that output
            g = _fit(g, meta[2:], None, i)
        elif type(node) is AccumulateGrad and g is not None and node.input_shape_dtype[0] != g._shape:
            # ... and a leaf's against its AccumulateGrad's record, made when a graph first
            # used the leaf (before a squeeze_ under no_grad; seed 53010471)
            g = _fit(g, node.input_shape_dtype, None, i)
        roots.append((node, nr))
        root_grads.append(g)
    return roots, root_grads


def _what_to_capture(inputs, accumulate):
    """(capture, targets): for `inputs` given, {(node, output number): [input positions]}
    (a leaf's AccumulateGrad node, a non-leaf's (grad_fn, output_nr)) and the set of
    those nodes; (None, None) when every leaf accumulates."""
    if inputs is None:
        return None, None
    capture = {}
    targets = set()
    for i, t in enumerate(inputs):
        node, nr = _edge_of(t)
        if node is None:
            if accumulate:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            continue
        capture.setdefault((node, nr), []).append(i)
        targets.add(node)
    return capture, targets


def _check_all_used(results):
    for i, r in enumerate(results):
        if r is None:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.")


class _Walk:
    """One backward pass: nodes run once each, in dependency order, from a ready list.

    buffers  {node: {output number: gradient}}: what has arrived for nodes not yet run
    deps     how many not-yet-run parents each node still waits for
    shared   ids of storages a leaf may not take over as its .grad: the caller's
             gradients, anything a hook or a custom Function handed back, and what an
             earlier leaf already took
    """

    def __init__(self, deps, needed, capture, n_results, retain_graph, create_graph, accumulate, root_grads,
                 targets=None):
        self.deps, self.needed, self.capture, self.targets = deps, needed, capture, targets
        self.retain_graph, self.create_graph, self.accumulate = retain_graph, create_graph, accumulate
        self.buffers = {}
        self.results = [None] * n_results
        self.shared = {id(g._storage) for g in root_grads}

    def run(self, ready):
        """Run every node from `ready` on: its gradients, tensor hooks and retain_grad,
        captures, then a leaf's accumulation or the node's backward and post hooks, and
        its input gradients sent on.  The loop runs once per node (W8 is 100k of them): its
        state is held in locals, and the step every node takes (_send) gets it as arguments."""
        buffers, capture, needed, deps = self.buffers, self.capture, self.needed, self.deps
        retain_graph, create_graph, shared = self.retain_graph, self.create_graph, self.shared
        anomaly = anomaly_mode.is_anomaly_enabled()
        # autograd.grad(inputs=...): only the nodes on a path to an input get gradients
        # (PyTorch's task_should_compute_output); None: every node does
        wanted = None if needed is None else needed | self.targets
        # PyTorch's ready queue: the newest node (highest sequence number) runs first, a
        # leaf's AccumulateGrad before any other; the order shows where a backward stops
        # when it fails, which buffers it freed, and in which order gradients add up
        roots, ready = ready, []
        for n in roots:                 # pushed in order, as PyTorch's graph root sends them
            heappush(ready, (-n._seq, n))
        send = _sender(buffers, deps, ready, create_graph, shared, wanted)
        while ready:
            node = heappop(ready)[1]
            # the gradients arrived for this node, as the list its backward is called with
            grads = buffers.pop(node, None)
            if not grads:
                grad_list = [None]
            elif len(grads) == 1 and 0 in grads:        # the common single-output case
                grad_list = [grads[0]]
            else:
                grad_list = [grads.get(i) for i in range(max(grads) + 1)]
            if node._pre_hooks:
                self._tensor_hooks(node, grad_list)
            if node._retains:
                self._retain_grads(node, grad_list)
            if capture is not None:
                self._capture(node, grad_list)
            if isinstance(node, AccumulateGrad):
                self._accumulate_leaf(node, grad_list[0])
                continue
            if needed is not None and node not in needed:
                _release_children(node, deps, ready, needed)
                continue
            if not grads:       # nothing arrived (a buffer holds no None): nothing to run
                in_grads = (None,) * len(node._next_fns)
            else:
                if wanted is None:
                    in_grads = node(*grad_list)
                else:
                    node._wanted = tuple(nxt is not None and nxt in wanted for nxt in node._next_fns)
                    try:
                        in_grads = node(*grad_list)
                    finally:
                        del node._wanted
                if isinstance(node, BackwardCFunction):
                    # what a custom Function returns no leaf may take over as its .grad
                    shared.update(id(g._storage) for g in in_grads if g is not None)
                if anomaly:
                    _check_nan(node, in_grads)
                if node._hooks:
                    _post_hooks(node, in_grads, grad_list)
            if not retain_graph:
                node.release()
            send(node, in_grads)

    def _tensor_hooks(self, node, grad_list):
        """Hooks registered on this node's output tensors (Tensor.register_hook), in order;
        a hook's result replaces the gradient."""
        shared = self.shared
        for nr, hooks in node._pre_hooks.items():
            for hook in list(hooks):
                if nr < len(grad_list) and grad_list[nr] is not None:
                    shared.add(id(grad_list[nr]._storage))
                    new = hook(grad_list[nr])
                    if new is not None:
                        grad_list[nr] = new
                        shared.add(id(new._storage))

    def _retain_grads(self, node, grad_list):
        """retain_grad() on this node's outputs: their .grad gets (or adds) the gradient."""
        for nr, ref in node._retains.items():
            t = ref()
            if t is not None and nr < len(grad_list) and grad_list[nr] is not None:
                g = grad_list[nr]
                if t._grad is None:
                    # PyTorch's retain_grad hook: grad.clone(contiguous_format)
                    t._grad = (g if self.create_graph else g.detach()).clone(memory_format=contiguous_format)
                else:
                    t._grad = t._grad + g

    def _capture(self, node, grad_list):
        capture, results = self.capture, self.results
        for nr, g in enumerate(grad_list):
            for i in capture.get((node, nr), ()):
                results[i] = g

    def _accumulate_leaf(self, node, g):
        """A leaf's AccumulateGrad: into .grad, unless only `inputs` are asked for and the
        leaf is not one of them.  A gradient nothing else holds is taken over, not copied."""
        capture = self.capture
        if self.accumulate and g is not None and (capture is None or (node, 0) in capture):
            steal = capture is None and id(g._storage) not in self.shared
            node.accumulate(g, self.create_graph, steal)
            self.shared.add(id(g._storage))


def _post_hooks(node, in_grads, grad_list):
    """Node.register_hook's hooks: fn(grad_inputs, grad_outputs), after the node ran."""
    for hook in node._hooks:
        hook(in_grads, tuple(grad_list))


def _sender(buffers, deps, ready, create_graph, shared, wanted=None):
    """send(node, in_grads) for one walk: each input gradient, fitted to its input's
    metadata, added into the next node's buffer (in place when nothing else holds the
    buffer's gradient); a next node whose last parent this was becomes ready.  A closure
    over the walk's state: the call every node makes stays a two-argument one."""

    def send(node, in_grads):
        metas = node.input_meta
        nrs = node._next_nrs
        for i, nxt in enumerate(node._next_fns):
            if nxt is None:
                continue
            nr = nrs[i]
            g = in_grads[i] if i < len(in_grads) else None
            if g is not None and wanted is not None and nxt not in wanted:
                g = None        # (PyTorch computes no gradient for a node that leads to no input)
            if g is not None:
                meta = metas[i] if metas else None
                if meta is not None and (g._shape != meta[0] or g._dtype is not meta[1]):
                    g = _fit(g, meta, node, i)
                slot = buffers.get(nxt)
                if slot is None:
                    buffers[nxt] = {nr: g}
                else:
                    prev = slot.get(nr)
                    if prev is None:
                        slot[nr] = g
                    elif (not create_graph and getrefcount(prev) == 3
                          and getrefcount(prev._storage) == 2
                          and getrefcount(prev._storage.buffer) == 2
                          and id(prev._storage) not in shared):
                        # Nothing but this slot holds prev (PyTorch's InputBuffer checks
                        # use_count() == 1): add in place, no new buffer.  The references
                        # counted: the slot and the local (+1 for getrefcount's argument);
                        # the storage and the buffer are held by prev alone.
                        prev._accumulate_(g)
                    else:
                        slot[nr] = prev + g
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                heappush(ready, (-nxt._seq, nxt))
    return send


def _release_children(node, deps, ready, needed):
    for nxt in node._next_fns:
        if nxt is not None:
            deps[nxt] -= 1
            if deps[nxt] == 0:
                heappush(ready, (-nxt._seq, nxt))


def _add_to(buffers, node, nr, g):
    slot = buffers.setdefault(node, {})
    prev = slot.get(nr)
    slot[nr] = g if prev is None else prev + g
