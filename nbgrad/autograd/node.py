"""Graph nodes: Node (one backward function), AccumulateGrad (a leaf's sink), saved tensors.

A node holds edges to the nodes that produced its inputs (`next_functions`),
the tensors its backward needs (saved with the version they had), and
nothing that points back at its outputs, so a graph dies with its outputs.
"""
import itertools
import math
import sys
import threading
import weakref

from . import anomaly_mode
from .._layout import contiguous_format, is_dense, row_major_strides
from .grad_mode import is_grad_enabled

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def node_label(node):
    """A node's name as PyTorch's error messages print it: `ExpBackward0` -> `Exp`,
    `PowBackward1` -> `Pow1`, a custom Function's `FBackward` -> `F`, `torch::autograd::CopySlices` unchanged."""
    name = node.name()
    head, sep, tail = name.rpartition("Backward")
    if sep and head and (tail == "" or tail.isdigit()):
        return head + ("" if tail == "0" else tail)
    return name


class SavedTensor:
    """A tensor saved for backward, with the version it had then.  Made by _saved_input and
    _saved_output below (no __init__ frame: a save runs once per op)."""

    __slots__ = ("tensor", "version", "is_output", "producer", "output_nr")

    def unpack(self, node):
        t = self.tensor
        if t._vc.value != self.version:
            # PyTorch names the saving node for an output, else the tensor's current grad_fn
            producer = node if self.is_output else self.producer
            if self.is_output and self.producer is not None:
                # the output of an in-place op on a view: PyTorch names the view's history
                # (AsStrided) while that node lives
                producer = self.producer() or node
            if not self.is_output and t._requires_grad:
                try:
                    producer = t.grad_fn
                except RuntimeError:        # a view whose history cannot be regenerated
                    pass
            where = f", which is output {self.output_nr} of {node_label(producer)}," if producer is not None else ""
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{t.type()} [{', '.join(map(str, t.shape))}]]{where} is at "
                f"version {t._vc.value}; expected version {self.version} instead. Hint: enable "
                "anomaly detection to find the operation that failed to compute its gradient, "
                "with nbgrad.autograd.set_detect_anomaly(True, check_nan=False).")
        if self.is_output:
            out = t._shallow_alias(share_version=True)
            out._requires_grad = True
            out._grad_fn = node
            if self.producer is not None:
                # the output of an in-place op on a view: PyTorch's SavedVariable keeps the
                # view's history (AsStridedBackward0) as the unpacked tensor's grad_fn while
                # that node lives, so a double backward reaches the view itself
                view_fn = self.producer()
                if view_fn is not None:
                    out._grad_fn = view_fn
            out._output_nr = self.output_nr
            return out
        return t


_new = object.__new__


def _saved_input(tensor):
    """The SavedTensor of an input: the tensor itself, and the node that made it."""
    if _HOOK_STACKS:        # (the one test a save pays for saved_tensors_hooks)
        return _hooked_save(tensor, False)
    s = _new(SavedTensor)
    s.version = tensor._vc.value
    s.is_output = False
    s.output_nr = tensor._output_nr
    s.tensor = tensor
    s.producer = tensor._grad_fn
    return s


def _saved_output(tensor):
    """The SavedTensor of the saving node's own output (tanh, exp, sigmoid, relu save theirs):
    the data kept without its grad_fn, which is that node (no reference cycle); unpack()
    puts the grad_fn back."""
    if _HOOK_STACKS:
        return _hooked_save(tensor, True)
    s = _new(SavedTensor)
    s.version = tensor._vc.value
    s.is_output = True
    s.output_nr = tensor._output_nr
    s.tensor = tensor._shallow_alias(share_version=True)
    s.producer = None
    return s


# -- saved-tensor hooks (nbgrad.autograd.graph.saved_tensors_hooks, saved_hooks.py) ----------
# Per thread (as PyTorch's are thread-local): {thread id: [(pack_hook, unpack_hook), ...]},
# the innermost pair last; a thread without hooks has no entry, so with none active anywhere
# the dict is empty and a save pays one truth test of it.
_HOOK_STACKS = {}
# Per thread: the message disable_saved_tensors_hooks raises when hooks are pushed under it.
_HOOKS_DISABLED = {}


def _hooked_save(tensor, is_output):
    """_saved_input/_saved_output under saved_tensors_hooks: the innermost pair of this
    thread's hooks, or the plain save when another thread's are active."""
    stack = _HOOK_STACKS.get(threading.get_ident())
    if not stack:
        s = _new(SavedTensor)
        s.version = tensor._vc.value
        s.is_output = is_output
        s.output_nr = tensor._output_nr
        if is_output:
            s.tensor = tensor._shallow_alias(share_version=True)
            s.producer = None
        else:
            s.tensor = tensor
            s.producer = tensor._grad_fn
        return s
    pack, unpack = stack[-1]
    return HookedSavedTensor(tensor, is_output, pack, unpack)


class HookedSavedTensor:
    """A tensor saved under saved_tensors_hooks (or given hooks by SavedTensorHandle.
    register_hooks): what pack_hook returned, and the autograd metadata the unpacked tensor
    gets back (PyTorch's SavedVariable with hooks_).  As PyTorch's, it checks no version: a
    pack hook may keep a copy, so an in-place change of the original is no error.

    The code that reads a SavedTensor's fields directly sees it as its own `tensor`:
    Node.__call__'s version test reads `tensor._vc.value` and `version`, which are always
    equal here; an in-place op repoints a saved output at the written tensor and, on a view,
    gives it the view's history as `producer` (ops/inplace.py _saved_result_is_target),
    which the unpacked output then gets as grad_fn, as in PyTorch."""

    __slots__ = ("packed", "unpack_hook", "was_output", "output_nr", "requires_grad", "grad_fn", "grad_acc",
                 "producer", "_vc", "_out")
    is_output = True            # (so Node._unpacked_saved unpacks it; _check_not_saved passes it over)

    def __init__(self, tensor, is_output, pack, unpack):
        self.was_output = is_output
        self.output_nr = tensor._output_nr
        self.unpack_hook = unpack
        self.producer = None
        self._vc = tensor._vc
        # the metadata the unpacked tensor gets: the saving node as grad_fn for an output
        # (set at unpack: holding it here would be a cycle), else the tensor's own edge
        if is_output:
            self.requires_grad, self.grad_fn, self.grad_acc = True, None, None
            self._out = weakref.ref(tensor)     # (for an in-place op's repointing, while it runs)
        else:
            rg = tensor.requires_grad
            fn = tensor.grad_fn if rg else None
            self.requires_grad, self.grad_fn = rg, fn
            self.grad_acc = tensor._grad_acc if rg and fn is None else None
            self._out = None
        self.packed = _call_pack_hook(pack, tensor)

    # -- as its own `tensor`, for the code that reads SavedTensor fields ---------------
    @property
    def tensor(self):
        return self

    @tensor.setter
    def tensor(self, value):
        self._vc = value._vc        # repointed at the written tensor: keep only its counter

    @property
    def version(self):
        return self._vc.value

    @version.setter
    def version(self, value):
        pass

    def _original(self):
        return self._out() if self._out is not None else None

    @property
    def _storage(self):
        t = self._original()
        return None if t is None else t._storage

    def __getattr__(self, name):
        # _shape, _stride, _offset, _dtype of the saved output while the op that made it runs
        t = self._original()
        if t is None or name not in ("_shape", "_stride", "_offset", "_dtype"):
            raise AttributeError(name)
        return getattr(t, name)

    def unpack(self, node):
        t = self.unpack_hook(self.packed)
        Tensor = sys.modules["nbgrad._tensor"].Tensor
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        # a new tensor over what the hook returned, with the saved tensor's autograd
        # metadata (PyTorch's make_variable(data, edge)): gradients of a double backward
        # reach the original's history, whatever the hooks did to the data
        out = t._shallow_alias(share_version=True)
        if self.was_output:
            out._requires_grad = True
            out._grad_fn = node
            if self.producer is not None:       # an in-place op on a view: the view's history
                view_fn = self.producer()
                if view_fn is not None:
                    out._grad_fn = view_fn
        elif self.requires_grad:
            out._requires_grad = True
            out._grad_fn = self.grad_fn
            if self.grad_fn is None:
                out._grad_acc = self.grad_acc       # a leaf: its gradients go to the original's .grad
        out._output_nr = self.output_nr
        return out


def _call_pack_hook(pack, tensor):
    """pack(tensor) under no_grad (as PyTorch's set_hooks_and_pack_data); a hook that
    changes its input in place is refused."""
    from .grad_mode import _state
    version = tensor._vc.value
    enabled = _state.enabled
    _state.enabled = False
    try:
        packed = pack(tensor)
    finally:
        _state.enabled = enabled
    if tensor._vc.value != version:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
            "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open "
            "an issue if you need to perform in-place operations on the input to a pack hook.")
    return packed


class SavedTensorHandle:
    """One entry of a custom Function's `ctx._raw_saved_tensors` (PyTorch's
    torch._C._autograd.SavedTensor): register_hooks(pack_hook, unpack_hook) gives that one
    saved tensor its own pair of hooks, packing it at once."""

    __slots__ = ("_node", "_index")

    def __init__(self, node, index):
        self._node, self._index = node, index

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook and unpack_hook must "
                            "be callable")
        node, i = self._node, self._index
        if node._freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of "
                "the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
                "you need to backward through the graph a second time or if you need to access saved variables "
                "after calling backward.")
        s = node._saved[i] if i is not None and i < len(node._saved) else None
        if s is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if type(s) is HookedSavedTensor:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        value = s.unpack(node)      # (checks the version, as PyTorch's does before packing)
        # (the pack hook gets the saved data without its autograd history, as PyTorch's
        # SavedVariable::register_hooks packs it; the unpacked tensor gets the history back)
        hooked = HookedSavedTensor(value, s.is_output, lambda t: pack_hook(t.detach()), unpack_hook)
        if s.is_output:
            hooked.producer = s.producer        # (an in-place op on a view: the view's history)
        saved = list(node._saved)
        saved[i] = hooked
        node._saved = tuple(saved)


def saved_attribute(node, entry, name, raw):
    """node._saved_<name> (raw: ._raw_saved_<name>) as PyTorch's generated node gives it:
    a saved tensor unpacked (an input is itself, an output a new tensor with this node as its
    grad_fn; PyTorch's errors once freed or modified in place), None where nothing was saved
    (an input without an edge), a raw handle whose register_hooks hooks that one tensor, the
    other saved values (numbers, dims, sizes) as they were given.  entry: the node class's
    (tensor slots, other values) of autograd/_saved_names.py, which installs these as
    properties of the classes it names."""
    tensors, others = entry
    where = others.get(name)
    scalar = where[len("scalar:"):] if where is not None and where.startswith("scalar:") else None
    index = tensors.get(name)
    if index is not None or scalar is not None:
        saved = node._saved
        slot = saved[index] if index is not None and index < len(saved) else None
        if slot is None and scalar is not None and getattr(node, scalar) is not None and not node._freed:
            # a Python number saved where a tensor would be: PyTorch's wrapped-number tensor
            from .._creation import tensor
            from .. import _dtype as D
            value = getattr(node, scalar)
            dtype = D.bool if isinstance(value, bool) else D.int64 if isinstance(value, int) else D.float64
            return SavedTensorHandle(node, None) if raw else tensor(value, dtype=dtype)
        if raw:
            return SavedTensorHandle(node, index)
        if node._freed:
            raise RuntimeError(FREED_MSG)
        return None if slot is None else slot.unpack(node)
    if where.startswith(("meta:", "numel:")):
        kind, i = where.split(":")
        i, metas = int(i), node.input_meta
        if i >= len(metas) or metas[i] is None:
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{name}' (its input "
                                 f"{i}'s shape was not kept)")
        return tuple(metas[i][0]) if kind == "meta" else math.prod(metas[i][0])
    return getattr(node, where)


_NUMBERS = {}


def interned_numbers(nrs):
    """One shared tuple per distinct tuple of output numbers (a node's _next_nrs)."""
    found = _NUMBERS.get(nrs)
    if found is None:
        if len(_NUMBERS) < 4096:
            _NUMBERS[nrs] = nrs
        return nrs
    return found


# PyTorch's sequence_nr: nodes are numbered as they are made; among the nodes ready to run,
# the engine runs the newest first (a leaf's AccumulateGrad before any of them).
_next_seq = itertools.count().__next__
RUNS_FIRST = 1 << 62


# PyTorch's C++ nodes of torch::autograd (functions/basic_ops.h, tensor.h) other than
# AccumulateGrad and CopySlices, which name themselves
_NAMESPACED = frozenset(("NotImplemented", "CopyBackwards", "Error", "DelayedError", "UndefinedGradBackward"))


class Node:
    """One backward function of the graph.  Subclasses define `backward(*grads)`.

    Its name is PyTorch's for the same call (`MulBackward0`); `next_functions`
    pairs each input with the node that produced it (or None).
    """

    _saved = ()
    _wanted = None         # per input, while the engine runs the node for autograd.grad(inputs=)
    _scalar_saved = False  # a Python number saved in PyTorch as a wrapped-number tensor
    _freed = False
    _pre_hooks = None      # {output_nr: [hook]} from Tensor.register_hook on outputs
    _retains = None        # {output_nr: weakref to tensor} from retain_grad()
    _hooks = None          # post hooks: fn(grad_inputs, grad_outputs)
    _trace = None
    input_meta = ()        # per input: (shape, dtype) or None, for the engine's checks
    # The edges, PyTorch's next_functions pairs (node, output number), kept as two tuples:
    # per input the node its gradient goes to (or None), and that node's output number
    # (interned: nearly always all zeros).  One tracked tuple per node instead of one per
    # edge plus their tuple: in a deep graph of small ops (W8's 100,000 chained adds) the
    # pairs were a third of the objects Python's cyclic GC walks in its full collections.
    _next_fns = ()
    _next_nrs = ()
    _seq = 0               # (set per node in __init__)
    _priority = 0          # RUNS_FIRST: ready, it runs before any ordinary node (PyTorch's
                           # UINT64_MAX sequence numbers: AccumulateGrad, error nodes)

    def __lt__(self, other):
        # The engine's ready queue holds (-sequence number, node); nodes that run first all
        # have PyTorch's one number, UINT64_MAX, and then no node is before another: the
        # heap leaves them in the order its pushes and pops do, as std::priority_queue does
        # in PyTorch's engine (an error node before or after a leaf's AccumulateGrad: where
        # a failing backward stops, seed 42017968)
        return False

    def __init__(self, edges, input_meta=()):
        # (graph.record spells this out for the nodes it makes: keep the two in step)
        self.next_functions = edges
        self.input_meta = input_meta
        self._seq = self._priority or _next_seq()
        if anomaly_mode.ENABLED:
            self._trace = anomaly_mode.creation_trace()

    @property
    def next_functions(self):
        """Per input, (the node its gradient goes to, or None; that node's output number)."""
        return tuple(zip(self._next_fns, self._next_nrs))

    @next_functions.setter
    def next_functions(self, edges):
        if edges:
            fns, nrs = zip(*edges)          # (no comprehensions: 0.74 -> 0.3 us for two edges)
            self._next_fns = fns
            self._next_nrs = interned_numbers(nrs)
        else:
            self._next_fns = self._next_nrs = ()

    def name(self):
        name = type(self).__name__
        # PyTorch's C++ nodes (not generated from derivatives.yaml) name themselves with their
        # namespace; their repr and type keep the class name
        return "torch::autograd::" + name if name in _NAMESPACED else name

    def _sequence_nr(self):
        """The order the node was made in (the engine runs later ones first); PyTorch's
        UINT64_MAX for the nodes that run first (AccumulateGrad).  nbgrad's numbers count up
        across the process, PyTorch's per thread: compare them, do not read their values."""
        return (1 << 64) - 1 if self._priority else self._seq

    @property
    def metadata(self):
        """A dict of the caller's, kept with the node (PyTorch's Node.metadata)."""
        m = self._metadata
        if m is None:
            m = self._metadata = {}
        return m

    _metadata = None

    def __repr__(self):
        # (the class name: a namespaced node, torch::autograd::CopySlices, shows as CopySlices)
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def needs_input_grad(self, i):
        # (autograd.grad(inputs=...): only inputs on a path to a wanted gradient, PyTorch's
        # task_should_compute_output; the engine sets _wanted while it runs this node)
        wanted = self._wanted
        return self._next_fns[i] is not None if wanted is None else wanted[i]

    # -- saved tensors ---------------------------------------------------
    def save(self, *tensors, outputs=()):
        """Save inputs (and, by position in `outputs`, this node's own outputs) for backward."""
        if outputs:
            first = outputs[0]
            self._saved = tuple([None if t is None else _saved_output(t) if t is first or any(t is o for o in outputs)
                                 else _saved_input(t) for t in tensors])
        else:
            self._saved = tuple([None if t is None else _saved_input(t) for t in tensors])

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(FREED_MSG)
        return tuple([None if s is None else s.unpack(self) for s in self._saved])

    def _unpacked_saved(self):
        """saved_tensors for a backward() that __call__ runs: it has checked the versions (and
        that nothing was freed), so an input comes back as it is, an output re-attached."""
        return tuple([None if s is None else s.tensor if not s.is_output else s.unpack(self) for s in self._saved])

    def release(self):
        """Free saved tensors after a backward without retain_graph."""
        if self._scalar_saved or self._saved.count(None) != len(self._saved):   # (an unsaved slot unpacks to nothing)
            self._saved = ()
            self._freed = True

    # -- hooks -----------------------------------------------------------
    def register_hook(self, fn):
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        return self._add_tensor_pre_hook(0, fn)

    def _add_tensor_pre_hook(self, output_nr, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    def _retain(self, output_nr, tensor):
        if self._retains is None:
            self._retains = {}
        self._retains[output_nr] = weakref.ref(tensor)

    def backward(self, *grads):
        raise NotImplementedError(f"{self.name()} has no backward")

    def __call__(self, *grads):
        saved = self._saved
        if saved or self._freed:
            # PyTorch's generated nodes unpack every saved tensor before computing any
            # gradient: a freed graph or a changed saved tensor raises even when the
            # gradient that reads it is not wanted
            if self._freed:
                raise RuntimeError(FREED_MSG)
            for s in saved:
                if s is not None and s.tensor._vc.value != s.version:
                    s.unpack(self)
        out = self.backward(*grads)
        return out if isinstance(out, tuple) else (out,)


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds arriving gradients into `variable.grad`."""

    _priority = RUNS_FIRST

    def __init__(self, variable):
        # Node.__init__ for a node without edges, spelled out: only the graphs reaching the
        # leaf hold its sink (the leaf keeps a weak reference, as PyTorch's), so each new
        # graph over a leaf makes one (S16: three per step, 1.4 -> 0.4 us each)
        self._seq = RUNS_FIRST
        if anomaly_mode.ENABLED:
            self._trace = anomaly_mode.creation_trace()
        self.variable = variable
        # the leaf's (shape, dtype) when this sink was made: PyTorch's AccumulateGrad keeps its
        # input metadata from then, so a gradient of another shape (the leaf reshaped in place
        # under no_grad meanwhile) fails the engine's check while the sink lives
        self.input_shape_dtype = (variable._shape, variable._dtype)

    def name(self):
        # PyTorch's C++ node names itself with its namespace; its repr keeps the class name
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def accumulate(self, grad, create_graph, steal=False):
        """Add grad into variable.grad.  With steal=True (the engine vouches that nothing
        else holds grad's memory) a first gradient is taken over instead of copied, as
        PyTorch does when the incoming buffer's use count is one."""
        var = self.variable
        # an in-place op gave the leaf a history after this edge was made; a leaf that is a
        # view asks its grad_fn, as PyTorch's AccumulateGrad does: after its base changed in
        # place that regenerates the view's history (or refuses, for a view made under no_grad)
        if var._grad_fn is not None or (var._base is not None and var.grad_fn is not None):
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not var._requires_grad:     # requires_grad_(False) after the graph was built: PyTorch
            return                     # drops the gradient (AccumulateGrad::apply)
        for hook in var._leaf_hooks or ():
            new = hook(grad)
            if new is not None:
                grad = new
                steal = False
        if var._grad is None:
            if create_graph:
                var._grad = _clone_obey_contract(grad, var, recorded=True)
            elif steal and grad._offset == 0 and len(grad._storage.buffer) == grad.numel() \
                    and grad._base is None and _obeys_layout_contract(grad, var):
                var._grad = grad.detach()
            else:
                var._grad = _clone_obey_contract(grad, var)
        elif create_graph or is_grad_enabled():
            var._grad = var._grad + grad
        elif steal:
            var._grad._accumulate_(grad)    # grad's memory is the engine's: one pass, in place
        else:
            var._grad += grad
        for hook in var._post_accumulate_hooks or ():
            returned = hook(var)
            if returned is not None:     # (PyTorch's words)
                raise TypeError(f"expected Variable, but hook returned '{type(returned).__name__}'")


def _obeys_layout_contract(grad, var):
    """PyTorch's gradient layout contract: a dense leaf's .grad has the leaf's strides
    (in dims of size > 1; no 0 strides), any other leaf's .grad is contiguous."""
    if grad._shape == var._shape:
        rm = row_major_strides(var._shape)
        if var._stride == rm and grad._stride == rm:
            return True                 # the common case: both row-major
    # (A leaf whose shape changed in place since its graph was made, unsqueeze_ under
    # no_grad, is checked the same way: PyTorch compares grad's dims with the leaf's
    # strides, sizes unchecked, and a gradient that passes keeps its own shape.  Beyond the
    # leaf's dims PyTorch reads past its strides; zip leaves those dims uncompared here.)
    if is_dense(var._shape, var._stride):
        for n, gs, vs in zip(grad._shape, grad._stride, var._stride):
            if gs != vs if n != 1 else gs == 0:
                return False
        return True
    return grad.is_contiguous()


def _clone_obey_contract(grad, var, recorded=False):
    """A copy of grad laid out by the contract: the leaf's strides when the leaf is dense,
    else contiguous (AccumulateGrad's clone_obey_contract).  Detached, or with
    recorded=True (create_graph) as PyTorch records it: new_empty_strided(...).copy_(grad)
    (CopyBackwards) for a dense leaf, grad.clone(contiguous_format) (CloneBackward0) else."""
    from ..ops._graph import copy_raw
    strides = var._stride if is_dense(var._shape, var._stride) else None
    if grad._shape != var._shape:
        # an in-place view op (unsqueeze_ under no_grad) changed the leaf's shape after its
        # graph was made: PyTorch copies grad into a new tensor of the leaf's sizes (and
        # strides), broadcasting; never the leaf's strides over grad's shape
        from .._creation import empty_strided
        from .grad_mode import no_grad
        if strides is None:
            strides = row_major_strides(var._shape)
        out = empty_strided(tuple(var._shape), tuple(strides), dtype=grad._dtype, device=grad.device)
        if recorded:
            return out.copy_(grad)
        with no_grad():
            return out.copy_(grad.detach())
    if not recorded:
        return copy_raw(grad, strides)
    if strides is None:
        return grad.clone(memory_format=contiguous_format)
    return copy_raw(grad.detach(), strides).copy_(grad)


class RemovableHandle:
    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks, fn):
        self._hooks, self._fn = hooks, fn

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass
