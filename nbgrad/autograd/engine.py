"""The backward engine: walks Nodes in dependency order, once each, without recursion.

It knows nothing of kernels: gradients are Tensors, and a node's backward is
written with Tensor ops (so that create_graph=True records the backward pass).
"""
import math
from sys import getrefcount

from .grad_mode import is_grad_enabled, set_grad_enabled
from .function import BackwardCFunction
from .node import AccumulateGrad
from . import anomaly_mode
from .._layout import contiguous_format


def _edge_of(t):
    if t._grad_fn is not None or t._base is not None:
        fn = t.grad_fn
        if fn is not None:
            return fn, t._output_nr
    if t._requires_grad:      # a leaf, or a view that requires_grad_() made one
        return t._grad_accumulator(), 0
    return None, 0


def _make_grads(outputs, grad_outputs):
    from .._tensor import Tensor
    from .. import _creation
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
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
        for nxt, _ in node.next_functions:
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
            if any(n in needed or n in targets for n, _ in node.next_functions if n is not None):
                needed.add(node)
    return deps, needed


def _check_nan(node, grads):
    for i, g in enumerate(grads):
        if g is not None and g.dtype.is_floating_point and bool(g.isnan().any()):
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output.\n"
                f"Traceback of forward call that caused the error:\n{node._trace or ''}")


def _fit(grad, meta):
    """Validate a gradient against its input's metadata: reduce broadcasting and cast."""
    shape, dtype = meta
    if grad.shape != shape:
        if len(grad.shape) < len(shape):
            grad = grad.reshape(shape) if grad.numel() == math.prod(shape) else grad.expand(shape)
        else:
            grad = grad.sum_to_size(shape)
    if grad.dtype is not dtype:
        grad = grad.to(dtype)
    return grad


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None, accumulate=True,
                 allow_unused=False):
    """The engine proper.  With accumulate=False it returns the gradients of `inputs`."""
    roots, root_grads = [], []
    for out, g in zip(outputs, _make_grads(outputs, grad_outputs)):
        node, nr = _edge_of(out)
        if node is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        roots.append((node, nr))
        root_grads.append(g)

    # What to capture: for leaves, their AccumulateGrad node; for non-leaves, (grad_fn, output_nr).
    capture = None
    targets = None
    if inputs is not None:
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

    deps, needed = _collect([n for n, _ in roots], targets)
    wanted = None if needed is None else needed | targets
    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        _add_to(buffers, node, nr, g)
    ready = list(dict.fromkeys(n for n, _ in roots if deps.get(n, 0) == 0))
    results = [None] * (len(inputs) if inputs is not None else 0)
    anomaly = anomaly_mode.is_anomaly_enabled()
    # Storages a leaf may not take over as its .grad: the caller's gradients, anything a
    # hook or a custom Function handed back, and what an earlier leaf already took.
    shared = {id(g._storage) for g in root_grads}

    with set_grad_enabled(create_graph):
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if not grads:
                grad_list = [None]
            elif len(grads) == 1 and 0 in grads:        # the common single-output case
                grad_list = [grads[0]]
            else:
                grad_list = [grads.get(i) for i in range(max(grads) + 1)]
            # tensor hooks registered on this node's outputs, then retain_grad
            if node._pre_hooks:
                for nr, hooks in node._pre_hooks.items():
                    for hook in list(hooks):
                        if nr < len(grad_list) and grad_list[nr] is not None:
                            shared.add(id(grad_list[nr]._storage))
                            new = hook(grad_list[nr])
                            if new is not None:
                                grad_list[nr] = new
                                shared.add(id(new._storage))
            if node._retains:
                for nr, ref in node._retains.items():
                    t = ref()
                    if t is not None and nr < len(grad_list) and grad_list[nr] is not None:
                        g = grad_list[nr]
                        if t._grad is None:
                            # PyTorch's retain_grad hook: grad.clone(contiguous_format)
                            t._grad = (g if create_graph else g.detach()).clone(memory_format=contiguous_format)
                        else:
                            t._grad = t._grad + g
            if capture is not None:
                for nr, g in enumerate(grad_list):
                    for i in capture.get((node, nr), ()):
                        results[i] = g
            if isinstance(node, AccumulateGrad):
                g = grad_list[0]
                if accumulate and g is not None and (capture is None or (node, 0) in capture):
                    steal = capture is None and id(g._storage) not in shared
                    node.accumulate(g, create_graph, steal)
                    shared.add(id(g._storage))
                continue
            if needed is not None and node not in needed:
                _release_children(node, deps, ready, needed)
                continue
            if grad_list.count(None) == len(grad_list):
                in_grads = (None,) * len(node.next_functions)
            else:
                if wanted is None:
                    in_grads = node(*grad_list)
                else:
                    node._wanted = tuple(nxt is not None and nxt in wanted for nxt, _ in node.next_functions)
                    try:
                        in_grads = node(*grad_list)
                    finally:
                        del node._wanted
                if isinstance(node, BackwardCFunction):
                    shared.update(id(g._storage) for g in in_grads if g is not None)
                if anomaly:
                    _check_nan(node, in_grads)
                if node._hooks:
                    for hook in node._hooks:
                        hook(in_grads, tuple(grad_list))
            if not retain_graph:
                node.release()
            metas = node.input_meta
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                g = in_grads[i] if i < len(in_grads) else None
                if g is not None and wanted is not None and nxt not in wanted:
                    g = None        # (PyTorch computes no gradient for a node that leads to no input)
                if g is not None:
                    meta = metas[i] if metas else None
                    if meta is not None and (g._shape != meta[0] or g._dtype is not meta[1]):
                        g = _fit(g, meta)
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
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    ready.append(nxt)
    if inputs is not None and not accumulate and not allow_unused:
        for i, r in enumerate(results):
            if r is None:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
    return results


def _release_children(node, deps, ready, needed):
    for nxt, _ in node.next_functions:
        if nxt is not None:
            deps[nxt] -= 1
            if deps[nxt] == 0:
                ready.append(nxt)


def _add_to(buffers, node, nr, g):
    slot = buffers.setdefault(node, {})
    prev = slot.get(nr)
    slot[nr] = g if prev is None else prev + g
