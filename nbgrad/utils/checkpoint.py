"""nbgrad.utils.checkpoint: activation checkpointing (PyTorch's torch.utils.checkpoint).

checkpoint(function, *args) runs `function` without keeping the activations it makes;
the backward pass runs it again (with the RNG state it had the first time, so dropout
draws the same mask) and differentiates that recomputation.  Two forms, as in PyTorch:

- use_reentrant=True (PyTorch 2.13's default when use_reentrant is not passed, with its
  warning): a custom Function, CheckpointFunction, runs `function` under no_grad; its
  backward recomputes it under enable_grad on detached inputs and runs a nested
  backward() through the recomputation, which also accumulates into the parameters the
  function reached by closure.  PyTorch's rules: only tensors directly in *args count as
  inputs, no keyword arguments, a warning when no input requires grad, and autograd.grad()
  (or backward(inputs=...)) refused.

- use_reentrant=False: `function` runs with grad mode as it is, recording its graph; the
  graph's boundary is read off it (the edges from the nodes made during the call to the
  nodes that were there before: the inputs' histories and the leaves the function
  reached, its parameters included), then the inner graph and its saved activations are
  dropped, and the outputs get one node, CheckpointBackward, with those edges.  Its
  backward recomputes `function` under enable_grad, points the recomputed graph's
  boundary edges at one collecting node, runs the recomputed graph's backward with the
  gradients that arrived, and hands the collected gradients on along its own edges (then
  puts the recomputed graph's edges back, so a create_graph=True pass stays differentiable).
  So autograd.grad, backward(inputs=...), keyword arguments, tensors inside nested
  arguments and double backward all work.

Where the non-reentrant form departs from PyTorch's (which uses saved-tensor hooks, which
nbgrad lacks):
- the outputs' grad_fn is CheckpointBackward (PyTorch: the last op's own node).
- during the forward call the segment's activations live until `function` returns
  (PyTorch drops each saved tensor as it is saved); they are freed when checkpoint returns.
- the backward recomputes the whole function, always: no early stop (early_stop and
  set_checkpoint_early_stop are not provided), and also for a function that saved nothing
  (PyTorch's recomputes only when a saved tensor is needed).
- determinism_check="default" compares the outputs' shapes, dtypes and devices and the
  graph's boundary between the forward and the recomputation (PyTorch compares every saved
  tensor's metadata); debug=True adds the lists of backward nodes recorded by the forward
  and by the recomputation to such an error (PyTorch: the operator logs and stack traces).
- outputs are new tensor objects over the function's results (a function that returns
  one tensor twice gets two).
- a function whose recomputation reaches a tensor the forward did not (a leaf that
  requires grad made inside the function is a new one each time) fails in backward with
  CheckpointError.
"""
import contextlib

from .._warnings import warn_user as _warn_user
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.node import RUNS_FIRST, Node, _next_seq

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn", "set_checkpoint_debug_enabled"]

_DEFAULT_DETERMINISM_MODE = "default"
_ALLOWED_DETERMINISM_CHECKS = ("default", "none")
_checkpoint_debug_enabled = None


class CheckpointError(RuntimeError):
    """The recomputation did not match the original forward."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Override checkpoint's `debug` flag inside the block (None: each call's own flag)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


def detach_variable(inputs):
    """The tuple `inputs` with each tensor detached, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        _warn_user("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


# ---------------------------------------------------------------- RNG state
def _stash_rng(preserve):
    """The generator states to recompute with: the CPU one, and the CUDA backend's when it
    is loaded (nbgrad's CUDA backend has one generator for all devices)."""
    if not preserve:
        return None
    from .. import random as nb_random
    backend = nb_random._cuda_backend()
    return nb_random.get_rng_state(), (backend.get_rng_state() if backend is not None else None)


@contextlib.contextmanager
def _rng_as_in_forward(states):
    """Run the block with the stashed states, and give the surrounding code its own back
    afterwards (PyTorch's fork_rng + set_rng_state)."""
    if states is None:
        yield
        return
    from .. import random as nb_random
    cpu_state, device_state = states
    with nb_random.fork_rng(devices=[0] if device_state is not None else []):
        nb_random.set_rng_state(cpu_state)
        if device_state is not None:
            nb_random._cuda_backend().set_rng_state(device_state)
        yield


# ---------------------------------------------------------------- the reentrant form
class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.rng_states = _stash_rng(preserve_rng_state)
        # non-tensor inputs kept as they are, tensors saved (their versions checked in backward)
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        return run_function(*args)          # (Function.apply runs forward under no_grad)

    @staticmethod
    def backward(ctx, *args):
        # The nested backward below accumulates into .grad: it cannot serve autograd.grad or
        # backward(inputs=...), the walks that ask for some gradients only (the engine
        # marks the node with them while it runs: PyTorch's _is_checkpoint_valid)
        if getattr(ctx, "_wanted", None) is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _rng_as_in_forward(ctx.rng_states):
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for out, g in zip(outputs, args):
            if isinstance(out, Tensor) and out.requires_grad:
                outputs_with_grad.append(out)
                args_with_grad.append(g)
        if not outputs_with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        from ..autograd import backward
        backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


# ---------------------------------------------------------------- the non-reentrant form
def _flatten(obj, leaves):
    """obj's leaves (tensors and anything else inside tuples, lists and dicts) appended to
    `leaves`; returns a function that rebuilds obj's structure from a list of leaves."""
    if isinstance(obj, (tuple, list)):
        parts = [_flatten(o, leaves) for o in obj]
        kind = type(obj)
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):      # a namedtuple
            return lambda it: kind(*[p(it) for p in parts])
        return lambda it: kind([p(it) for p in parts])
    if isinstance(obj, dict):
        keys = list(obj.keys())
        parts = [_flatten(obj[k], leaves) for k in keys]
        kind = type(obj)
        return lambda it: kind(zip(keys, [p(it) for p in parts]))
    leaves.append(obj)
    return lambda it: next(it)


def _is_inner(node, mark):
    """Made after `mark` (a sequence number), and not a leaf's sink (nor another of the nodes
    that carry PyTorch's largest number)."""
    return mark < node._seq < RUNS_FIRST


def _inner_graph(roots, mark):
    """The nodes made after `mark` reachable from `roots` (in the order found), and the
    boundary: {(outer node, output number): (shape, dtype) or None}, first found first."""
    inner, boundary = [], {}
    seen = set()
    stack = [r for r in roots if r is not None and _is_inner(r, mark)]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        inner.append(node)
        metas = node.input_meta
        for i, (nxt, nr) in enumerate(zip(node._next_fns, node._next_nrs)):
            if nxt is None:
                continue
            if _is_inner(nxt, mark):
                if nxt not in seen:
                    stack.append(nxt)
            elif (nxt, nr) not in boundary:
                boundary[(nxt, nr)] = metas[i] if metas and i < len(metas) else None
    return inner, boundary


def _meta(t):
    return (tuple(t.shape), t.dtype, t.device)


class _Collect(Node):
    """Where the recomputed graph's boundary edges end: output k collects the gradient of
    the checkpoint's k-th edge (the engine sums what arrives from several nodes)."""

    def __init__(self):
        super().__init__(())
        self.grads = {}

    def backward(self, *grads):
        for k, g in enumerate(grads):
            if g is not None:
                self.grads[k] = g
        return ()


class CheckpointBackward(Node):
    """The node of a non-reentrant checkpoint's outputs: its edges are the checkpointed
    graph's boundary; it keeps the inputs (version-checked) and the RNG state, not the
    activations."""

    def backward(self, *grads):
        saved = self._unpacked_saved()
        args = list(self._args)
        for i, t in zip(self._tensor_positions, saved):
            args[i] = t
        with _rng_as_in_forward(self._rng_states), self._recompute_context, enable_grad():
            mark = _next_seq()
            out = self._function(*args)
        leaves = []
        _flatten(out, leaves)
        positions = self._attached           # leaf position -> output number
        if len(leaves) != self._n_leaves:
            self._mismatch(f"the function returned {len(leaves)} values during recomputation, "
                           f"{self._n_leaves} during the forward pass", [])
        roots, root_grads = [], []
        for pos, nr in positions.items():
            t = leaves[pos]
            fn = t.grad_fn if isinstance(t, Tensor) else None
            if fn is None or not _is_inner(fn, mark):
                self._mismatch(f"output {pos} has no history during recomputation", [])
            if self._check_metadata and _meta(t) != self._out_meta[nr]:
                self._mismatch(f"output {pos}: forward metadata {self._out_meta[nr]}, recomputed {_meta(t)}", [])
            if nr < len(grads) and grads[nr] is not None:
                roots.append(t)
                root_grads.append(grads[nr])
        n_edges = len(self._next_fns)
        if not roots:
            return (None,) * n_edges
        inner, boundary = _inner_graph([t.grad_fn for t in roots], mark)
        index = self._edge_index
        for edge in boundary:
            if edge not in index:
                # (a leaf made inside the function is a new one each time: refused too)
                self._mismatch("the recomputed graph reaches a tensor the forward pass did not use "
                               f"({edge[0].name()})", inner)
        collect = _Collect()
        rewired = []
        try:
            for node in inner:
                fns, nrs = node._next_fns, node._next_nrs
                new_fns, new_nrs, changed = list(fns), list(nrs), False
                for i, nxt in enumerate(fns):
                    if nxt is None or _is_inner(nxt, mark):
                        continue
                    new_fns[i], new_nrs[i] = collect, index[(nxt, nrs[i])]
                    changed = True
                if changed:
                    rewired.append((node, fns, nrs))
                    node._next_fns, node._next_nrs = tuple(new_fns), tuple(new_nrs)
            from ..autograd import engine
            create_graph = is_grad_enabled()        # (the engine runs a create_graph pass with grad on)
            engine.run_backward(roots, root_grads, retain_graph=create_graph, create_graph=create_graph)
        finally:
            # the recomputed graph gets its own edges back: the gradients of a create_graph
            # pass have their history through it, down to the real inputs
            for node, fns, nrs in rewired:
                node._next_fns, node._next_nrs = fns, nrs
        return tuple(collect.grads.get(k) for k in range(n_edges))

    def release(self):
        # freed after a backward without retain_graph even when it saved no tensor (a
        # function of closure parameters only): a second backward is PyTorch's error
        self._saved = ()
        self._freed = True

    def _mismatch(self, what, recomputed_nodes):
        msg = ("torch.utils.checkpoint: the recomputation differs from the original forward pass: " + what + ".")
        if self._debug:
            recomputed = [n.name() for n in sorted(recomputed_nodes, key=lambda n: n._seq)]
            msg += ("\n\nBackward nodes recorded during the original forward:\n" + "\n".join(self._forward_names)
                    + "\n\nBackward nodes recorded during recomputation:\n" + "\n".join(recomputed))
        raise CheckpointError(msg)


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, args, kwargs):
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        debug = True
    if determinism_check not in _ALLOWED_DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_ALLOWED_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():
        return function(*args, **kwargs)        # nothing recorded: nothing to drop or recompute
    rng_states = _stash_rng(preserve)
    mark = _next_seq()
    with forward_context:
        out = function(*args, **kwargs)
    leaves = []
    rebuild = _flatten(out, leaves)
    roots = {}
    for pos, t in enumerate(leaves):
        if isinstance(t, Tensor):
            fn = t.grad_fn
            if fn is not None and _is_inner(fn, mark):
                roots[pos] = fn
    if not roots:
        return out          # no output has a history made here: nothing to recompute
    inner, boundary = _inner_graph(roots.values(), mark)
    edges = list(boundary)
    node = CheckpointBackward(edges, tuple(boundary.values()))
    # the inputs to recompute with, saved (an in-place change before backward is an error)
    flat_args = []
    rebuild_args = _flatten((args, kwargs), flat_args)
    tensor_positions = [i for i, a in enumerate(flat_args) if isinstance(a, Tensor)]
    node.save(*[flat_args[i] for i in tensor_positions])
    node._tensor_positions = tensor_positions
    node._rng_states = rng_states
    node._recompute_context = recompute_context
    node._edge_index = {e: k for k, e in enumerate(edges)}
    node._n_leaves = len(leaves)
    node._check_metadata = determinism_check == "default"
    node._debug = debug
    node._forward_names = [n.name() for n in sorted(inner, key=lambda n: n._seq)] if debug else None
    # recomputed from the flat list of arguments, rebuilt into (args, kwargs)
    node._function = _Recompute(function, rebuild_args)
    # (the tensors come back from the saved ones, checked; not held a second time here)
    node._args = [None if isinstance(a, Tensor) else a for a in flat_args]
    # the outputs: new tensors over the results, attached to the checkpoint's node; the
    # inner graph and every activation it saved die with the originals
    new_leaves = list(leaves)
    node._attached = {}
    node._out_meta = []
    for nr, pos in enumerate(roots):
        t = leaves[pos]
        o = t.detach()
        o._requires_grad = True
        o._grad_fn = node
        o._output_nr = nr
        new_leaves[pos] = o
        node._attached[pos] = nr
        node._out_meta.append(_meta(t))
    return rebuild(iter(new_leaves))


class _Recompute:
    """function called on (args, kwargs) rebuilt from their flat leaves."""

    def __init__(self, function, rebuild_args):
        self.function, self.rebuild_args = function, rebuild_args

    def __call__(self, *flat):
        args, kwargs = self.rebuild_args(iter(flat))
        return self.function(*args, **kwargs)


# ---------------------------------------------------------------- public entry points
def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """Run function(*args, **kwargs) without keeping its activations; the backward pass
    recomputes them.  preserve_rng_state=True (a keyword) recomputes with the RNG state of
    the forward.  use_reentrant: see the module's docstring; not passed, PyTorch 2.13 warns
    and takes True.  early_stop is accepted and has no effect (nbgrad always recomputes the
    whole function)."""
    if use_reentrant is None:
        _warn_user(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run `functions` (a Sequential or a list of modules/functions) in `segments` chunks,
    each but the last checkpointed."""
    if use_reentrant is None:
        _warn_user(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
