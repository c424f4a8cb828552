"""`nbgrad.compile`: capture a call once, run the generated step after, guarded.

A call with no matching variant is *captured*: run eagerly (its result is the eager
result) with the backend calls recorded (capture.py) and the state around it read
before and after (state.py).  The recording becomes a Program (codegen.py) whose
generated module later calls run.  A later call first checks its variant's guards --
the arguments' geometry, dtypes, devices and requires_grad, grad mode, the identity of
captured parameters, modules and optimizers, Python numbers (hyper-parameters, closure
constants), module train/eval flags, the optimizer state's keys -- and runs the module;
then it does what the eager call did to the state: rebinds `.grad` and optimizer state to
new tensors over the step's buffers, bumps the versions the eager call bumped, and
returns outputs like the eager ones.  A guard that fails looks for another variant or
captures a new one; past `max_variants`, a warning names what changed and the call runs
eagerly.
"""
import contextlib
import functools
import math
import re
import threading

import numpy as np

from .._warnings import warn_user as _warn_user
from .._storage import Storage, VersionCounter
from .._tensor import Tensor
from ..autograd import grad_mode
from .capture import CompileError, Recording, RecordingBackend, user_frame
from .codegen import Program, load
from .state import discover


def _snake(name):
    # CrossEntropyLoss -> cross_entropy_loss, ReLU -> relu, SGD -> sgd, MaxPool2d -> max_pool2d
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z][a-z])", "_", name).lower()


def _meta(t):
    return (t._shape, t._stride, t._offset, t._dtype, t._storage.device, t._requires_grad,
            t._grad_fn is None, len(t._storage.buffer))


_SPENT = {}


def _spent_node(name):
    """The grad_fn of a compiled call's output whose graph ran its backward inside the call
    (eager would have freed it): a node of the same name whose saved tensors are freed, so a
    second backward fails with PyTorch's message."""
    from ..autograd.node import Node
    cls = _SPENT.get(name)
    if cls is None:
        cls = _SPENT[name] = type(name, (Node,), {"_freed": True, "__module__": __name__})
    return cls(())


_HOST_METHODS = ("item", "tolist", "numpy", "__bool__", "__float__", "__int__", "__index__", "__repr__",
                 "__str__", "__format__", "__array__")


@contextlib.contextmanager
def _capturing(rec, fallback, on_host_read):
    """The backend registry holds recording stand-ins; modules, backward nodes and optimizer
    steps name their scopes; Tensor's host reads from user code raise CompileError."""
    from ..backends import _standin
    from ..nn.modules.module import Module
    from ..autograd.node import Node
    from ..optim.optimizer import Optimizer
    import os
    from ..ops import _graph
    _graph.CAPTURE[0] = rec
    saved_backends = _standin.install(lambda be, device: RecordingBackend(be, rec, device))
    patched = []

    def patch(cls, attr, wrapper):
        patched.append((cls, attr, cls.__dict__.get(attr, _MISSING)))
        setattr(cls, attr, wrapper)

    def scoped(orig):
        """orig (a method) run inside a scope named after its object's class."""
        def method(self, *args, **kwargs):
            rec.push_scope(_snake(type(self).__name__))
            try:
                return orig(self, *args, **kwargs)
            finally:
                rec.pop_scope()
        return method
    patch(Module, "__call__", scoped(Module.__call__))

    orig_node_call = Node.__call__

    def node_call(self, *grads):
        name = self.name()
        base = _snake(name[:-len("Backward0")] if name.endswith("Backward0") else name)
        rec.scopes.append("gradients")
        rec.push_scope(f"{base}_grad")
        try:
            return orig_node_call(self, *grads)
        finally:
            rec.pop_scope()
            rec.scopes.pop()
    patch(Node, "__call__", node_call)

    patch(Optimizer, "_step_each", scoped(Optimizer._step_each))

    import sys
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    examples = os.path.join(package, "examples")

    def host_wrapper(attr, orig):
        def method(self, *args, **kwargs):
            caller = sys._getframe(1).f_code.co_filename
            path = os.path.abspath(caller)
            if (not path.startswith(package + os.sep) or path.startswith(examples)) and rec.depth == 0:
                what = {"__bool__": "bool(tensor) (a Python `if`/`while` on a tensor's value)",
                        "__float__": "float(tensor)", "__int__": "int(tensor)", "__index__": "a tensor as an index",
                        "__repr__": "printing a tensor's values", "__str__": "printing a tensor's values",
                        "__format__": "formatting a tensor's values", "__array__": "numpy.asarray(tensor)"}.get(
                    attr, f"Tensor.{attr}()")
                on_host_read(what, user_frame())
            return orig(self, *args, **kwargs)
        return method
    for attr in _HOST_METHODS:
        patch(Tensor, attr, host_wrapper(attr, getattr(Tensor, attr)))
    try:
        yield
    finally:
        for cls, attr, old in reversed(patched):
            if old is _MISSING:
                delattr(cls, attr)
            else:
                setattr(cls, attr, old)
        _standin.restore(saved_backends)
        _graph.CAPTURE[0] = None


_MISSING = object()


def _flatten(obj, out):
    """The tensors of a returned structure, in order."""
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _flatten(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _flatten(o, out)
    return out


def _rebuild(spec, tensors):
    """The returned structure with its tensors from `tensors` (in _flatten's order)."""
    it = iter(tensors)

    def go(obj):
        if isinstance(obj, Tensor):
            return next(it)
        if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            return tuple(go(o) for o in obj)
        if isinstance(obj, tuple):
            return type(obj)(*[go(o) for o in obj])
        if isinstance(obj, list):
            return [go(o) for o in obj]
        if isinstance(obj, dict):
            return {k: go(v) for k, v in obj.items()}
        return obj
    return go(spec)


class Variant:
    """One captured call: its guards, its program, and what a call does to the state."""

    def __init__(self):
        self.lock = threading.Lock()

    # -- guards ------------------------------------------------------------
    def mismatch(self, args, kwargs):
        """None when this variant fits the call, else what changed (words)."""
        st = self.state
        if len(args) != self.n_args or set(kwargs) != self.kw_names:
            return "the number of arguments"
        if grad_mode.is_grad_enabled() != self.grad_mode:
            return "grad mode"
        st.current[0], st.current[1] = args, kwargs
        try:
            for desc, get, obj in st.objects:
                if get() is not obj:
                    return f"{desc} is another object"
            for desc, get, value in st.numbers:
                now = get()
                if not _same_number(now, value):
                    return f"{desc} changed from {value!r} to {now!r}"
            for desc, get, value in st.flags:
                if get() != value:
                    return f"{desc} changed"
            present = []
            for slot, before, meta in self.slot_guards:
                t = slot.get()
                if meta is not None:
                    present.append(t)
                if slot.kind == "fixed":
                    if t is not before:
                        return f"{slot.desc} is another tensor"
                    if _meta(t) != meta:
                        return f"{slot.desc} changed shape, layout, dtype, device or requires_grad"
                elif slot.kind == "arg":
                    if not isinstance(t, Tensor):
                        return f"{slot.desc} is not a tensor"
                    if _meta(t) != meta:
                        return f"{slot.desc}: {_describe(meta)} -> {_describe(_meta(t))}"
                else:
                    if (t is None) != (meta is None) or (t is not None and _meta(t) != meta):
                        return f"{slot.desc} changed"
            if self.alias_pattern != _sharing(present):
                return "which arguments share memory"
            for desc, get, value in self.arg_numbers:
                now = get()
                if not _same_number(now, value):
                    return f"{desc} changed from {value!r} to {now!r}"
        except (IndexError, KeyError, AttributeError, TypeError):
            return "the arguments' structure"
        finally:
            st.current[0], st.current[1] = (), {}
        return None

    def _aliases(self):
        return _sharing([slot.get() for slot, _, meta in self.slot_guards if meta is not None])

    # -- a compiled call -----------------------------------------------------
    def run(self, args, kwargs):
        st = self.state
        st.current[0], st.current[1] = args, kwargs
        try:
            X = [get() for get in self.inputs]
            vcs = [slot.get()._vc for slot in self.bump_slots]
        finally:
            st.current[0], st.current[1] = (), {}
        if not self.lock.acquire(blocking=False):
            # a call re-entered (a thread, a callback): private scratch buffers
            S = [np.empty(n, d) for n, d in self.scratch_specs]
            vals = self.module.run(X, self.consts, S, self.backends)
        else:
            try:
                vals = self.module.run(X, self.consts, self.scratch, self.backends)
            finally:
                self.lock.release()
        for vc, delta in zip(vcs, self.bump_deltas):
            vc.value += delta
        st.current[0], st.current[1] = args, kwargs
        try:
            made = self._make_tensors(vals)
            for slot, k in self.rebinds:
                slot.set(None if k is None else made[k])
            outs = [made[k] if kind == "new" else self.output_slots[k].get() for kind, k in self.output_refs]
        finally:
            st.current[0], st.current[1] = (), {}
        return _rebuild(self.result_spec, outs)

    def _make_tensors(self, vals):
        storages, vcs, made = {}, {}, []
        for spec in self.tensor_specs:
            vid, sgroup, vgroup, ext = spec["value"], spec["storage"], spec["vc"], spec["ext"]
            owner = ext[0].get() if ext is not None else None
            storage = storages.get(sgroup)
            if storage is None:
                if ext is not None:
                    storage = owner._storage if ext[1] else Storage(owner._storage.buffer, spec["device"])
                else:
                    storage = Storage(vals[vid], spec["device"])
                storages[sgroup] = storage
            vc = vcs.get(vgroup)
            if vc is None:
                if ext is not None and ext[2]:
                    vc = owner._vc
                else:
                    vc = VersionCounter()
                    vc.value = spec["version"]
                vcs[vgroup] = vc
            t = Tensor._make(storage, spec["shape"], spec["stride"], spec["offset"], spec["dtype"], vc)
            if spec["requires_grad"]:
                t._requires_grad = True
                if spec["grad_fn"] is not None:
                    t._grad_fn = _spent_node(spec["grad_fn"])
            if spec["cls"] is not Tensor:
                t.__class__ = spec["cls"]
            made.append(t)
        for spec, t in zip(self.tensor_specs, made):
            base = spec["base"]
            if base is not None:
                t._base = made[base[1]] if base[0] == "spec" else base[1].get()
        return made


def _sharing(tensors):
    """Which of the tensors share a buffer: each one's first index among distinct buffers."""
    seen = {}
    return tuple(None if t is None else seen.setdefault(id(t._storage.buffer), len(seen)) for t in tensors)


def _same_number(a, b):
    """a is b as a constant of the graph: the same type and value (NaN is NaN; -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_number(x, y) for x, y in zip(a, b))
    return a == b


def _describe(meta):
    shape, stride, offset, dtype, device, rg = meta[:6]
    return f"shape {list(shape)} strides {tuple(stride)} {dtype} on {device}{' requires_grad' if rg else ''}"


def _refuse_hooks(st, before):
    """Hooks run Python on every eager call that a compiled call would not run again."""
    for slot, t in before:
        if isinstance(t, Tensor) and (t._leaf_hooks or t._post_accumulate_hooks):
            raise CompileError(f"nbgrad.compile cannot capture {slot.desc}'s gradient hooks (they run Python on "
                               "every call); remove them, or use fallback='eager'")
    for mod in st.modules:
        for name, m in mod.named_modules():
            if m._forward_hooks or m._forward_pre_hooks:
                raise CompileError(f"nbgrad.compile cannot capture the forward hooks of {type(m).__name__} "
                                   f"{name!r} (they run Python on every call); remove them, or use fallback='eager'")


class CompiledFunction:
    """What nbgrad.compile returns: call it as the function; `.graph` is the captured graph."""

    def __init__(self, fn, fallback=None, max_variants=8):
        if fallback not in (None, "eager"):
            raise ValueError(f"fallback must be None or 'eager', got {fallback!r}")
        self.fn = fn
        self.fallback = fallback
        self.max_variants = max_variants
        self.variants = []
        self._eager_modes = set()      # grad modes in which the function proved uncapturable
        self._warned = False
        self.captures = 0
        self._active = False
        functools.update_wrapper(self, fn, updated=())

    @property
    def graph(self):
        """The graph of the variant that ran last (None before the first call)."""
        return self.variants[0].graph if self.variants else None

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __call__(self, *args, **kwargs):
        if self._active:        # a compiled function called inside its own capture
            return self.fn(*args, **kwargs)
        if self._eager_modes and grad_mode.is_grad_enabled() in self._eager_modes:
            return self.fn(*args, **kwargs)
        reason = None
        for i, v in enumerate(self.variants):
            reason = v.mismatch(args, kwargs)
            if reason is None:
                if i:
                    self.variants.insert(0, self.variants.pop(i))
                return v.run(args, kwargs)
        if len(self.variants) >= self.max_variants:
            if not self._warned:
                self._warned = True
                _warn_user(f"nbgrad.compile: {getattr(self.fn, '__qualname__', self.fn)!r} was captured "
                           f"{len(self.variants)} times (max_variants); the last change: {reason}. It runs "
                           "eagerly from now on.", stacklevel=2)
            return self.fn(*args, **kwargs)
        return self._capture(args, kwargs)

    # -- capture -------------------------------------------------------------
    def _capture(self, args, kwargs):
        rec = Recording()
        self.captures += 1
        fallback = self.fallback
        blocked = []

        def on_host_read(what, line):
            if fallback == "eager":
                blocked.append(f"{what} at {line}")
                return
            raise CompileError(f"nbgrad.compile cannot capture {what} at {line}: it reads tensor values into "
                               "Python, which a compiled call would not see again. Move it out of the compiled "
                               "function, or use nbgrad.compile(fn, fallback='eager') to run such a function eagerly.")
        st = discover(self.fn, args, kwargs)
        st.current[0], st.current[1] = args, kwargs
        before = [(slot, slot.get()) for slot in st.slots]
        _refuse_hooks(st, before)
        before_meta = [(slot, t, _meta(t) if isinstance(t, Tensor) else None) for slot, t in before]
        before_versions = {id(t): t._vc.value for _, t in before if isinstance(t, Tensor)}
        before_tensors = [t for _, t in before if isinstance(t, Tensor)]
        grad_enabled = grad_mode.is_grad_enabled()
        self._grad_enabled_at_capture = grad_enabled
        from ..autograd import engine
        runs = [0]
        orig_run = engine.run_backward

        def counting_run(*a, **k):
            runs[0] += 1
            return orig_run(*a, **k)
        self._active = True
        engine.run_backward = counting_run
        try:
            with _capturing(rec, fallback, on_host_read):
                result = self.fn(*args, **kwargs)
        finally:
            engine.run_backward = orig_run
            self._active = False
        st.current[0], st.current[1] = (), {}
        try:
            variant = self._build(rec, st, args, kwargs, before_meta, before_versions, before_tensors, result,
                                  grad_enabled, runs[0], blocked)
        except CompileError:
            grad_enabled = self._grad_enabled_at_capture
            if fallback == "eager":
                self._eager_modes.add(grad_enabled)
                return result
            raise
        if variant is not None:
            self.variants.insert(0, variant)
        return result

    def _build(self, rec, st, args, kwargs, before_meta, before_versions, before_tensors, result, grad_enabled,
               backward_runs, blocked):
        if blocked:
            raise CompileError("nbgrad.compile cannot capture " + "; ".join(blocked))
        if rec.host_reads:
            fn, line = rec.host_reads[0]
            raise CompileError(f"nbgrad.compile cannot capture the kernel `{fn}` reached from {line}: it reads "
                               "tensor values into Python (data-dependent shapes, Python numbers from tensors), "
                               "which a compiled call would not see again; use fallback='eager' to run such a "
                               "function eagerly.")
        st.current[0], st.current[1] = args, kwargs
        try:
            return self._build_variant(rec, st, args, kwargs, before_meta, before_versions, before_tensors, result,
                                       grad_enabled, backward_runs)
        finally:
            st.current[0], st.current[1] = (), {}

    def _build_variant(self, rec, st, args, kwargs, before_meta, before_versions, before_tensors, result,
                       grad_enabled, backward_runs):
        v = Variant()
        v.state = st
        v.grad_mode = grad_enabled
        v.n_args, v.kw_names = len(args), set(kwargs)
        v.arg_numbers = []
        # slots made during the capture: optimizer state entries a first step adds
        known = {s.desc for s in st.slots}
        extra = []
        for desc, get, opt in st.objects:
            from .state import _is_optimizer
            if _is_optimizer(opt):
                extra += [s for s in st.state_slots(opt, desc) if s.desc not in known]
        slots = [(s, t, m) for s, t, m in before_meta] + [(s, None, None) for s in extra]
        v.slot_guards = [(s, t, m) for s, t, m in slots]
        v.alias_pattern = None
        # which buffers of the recording belong to which slot (before the call)
        buffer_slot = {}
        for i, (slot, t, meta) in enumerate(slots):
            if isinstance(t, Tensor):
                buffer_slot.setdefault(id(t._storage.buffer), i)
        bind, inputs = {}, []
        from ..backends import get_backend
        for val in rec.values:
            if val.kind != "external":
                continue
            i = buffer_slot.get(id(val.array))
            if i is not None:
                bind[val.id] = ("slot", len(inputs), slots[i][0].desc)
                inputs.append(lambda slot=slots[i][0]: slot.get()._storage.buffer)
            elif val.id in rec.scalar_inputs:
                get, dtype, device = rec.scalar_inputs[val.id]
                bind[val.id] = ("slot", len(inputs), f"scalar_{val.id}")
                full = get_backend(device.type).full
                inputs.append(lambda get=get, full=full, np_dtype=dtype.np: full(1, np_dtype, get()))
            else:
                bind[val.id] = ("const", val.array)
        st.numbers = [n for n in st.numbers if st.number_sources.get(n[0]) not in rec.lifted]
        # writes to memory the graph does not own
        for ins in rec.instrs:
            for w in ins.writes:
                val = rec.values[w]
                base = rec.values[val.alias_of] if val.kind == "alias" else val
                if base.kind == "external" and id(base.array) not in buffer_slot:
                    raise CompileError(
                        f"nbgrad.compile cannot capture an in-place change of a tensor the graph does not own at "
                        f"{ins.line}: it was created outside the compiled function and is neither an argument nor "
                        "a captured parameter, buffer or optimizer state.")
        # effects: rebinding, versions
        by_buffer = {id(val.array): val.id for val in rec.values if val.kind != "alias" and val.array is not None}
        fixed = {}          # id(tensor before the call) -> its slot
        for s_, t_, m_ in slots:
            if isinstance(t_, Tensor):
                fixed.setdefault(id(t_), s_)
        specs, spec_index = [], {}

        def spec_of(t):
            k = spec_index.get(id(t))
            if k is not None:
                return k
            buf = t._storage.buffer
            vid = by_buffer.get(id(buf))
            ext = None
            if vid is None or rec.values[vid].kind == "external":
                # a new tensor over the memory of a tensor the step was given (a view of an
                # argument or a parameter): over that slot's tensor's memory in every call
                i = buffer_slot.get(id(buf))
                if i is None:
                    return None
                slot, tb = slots[i][0], slots[i][1]
                ext = (slot, t._storage is tb._storage, t._vc is tb._vc)
            base = None
            if t._base is not None:
                if id(t._base) in fixed:
                    base = ("slot", fixed[id(t._base)])
                else:
                    k = spec_of(t._base)
                    if k is None:
                        return None
                    base = ("spec", k)
            gfn = t._grad_fn
            spec = dict(value=vid, ext=ext, storage=id(t._storage), vc=id(t._vc), version=t._vc.value,
                        shape=t._shape, stride=t._stride, offset=t._offset, dtype=t._dtype,
                        device=t._storage.device, requires_grad=t._requires_grad,
                        grad_fn=None if gfn is None else gfn.name(), cls=type(t), base=base)
            specs.append(spec)
            spec_index[id(t)] = k = len(specs) - 1
            return k
        rebinds, bumps = [], {}
        for slot, t_before, meta in slots:
            t_after = slot.get()
            if t_after is t_before:
                if isinstance(t_after, Tensor):
                    if _meta(t_after)[:5] != meta[:5] or t_after._grad_fn is not None and meta[6]:
                        raise CompileError(f"nbgrad.compile cannot capture a change of {slot.desc}'s geometry "
                                           "or history inside the compiled function.")
                    delta = t_after._vc.value - before_versions.get(id(t_after), t_after._vc.value)
                    if delta and id(t_after._vc) not in bumps:
                        bumps[id(t_after._vc)] = (slot, delta)
                continue
            if slot.set is None:
                raise CompileError(f"nbgrad.compile cannot capture rebinding {slot.desc}")
            if t_after is None:
                rebinds.append((slot, None))
                continue
            k = spec_of(t_after)
            if k is None:
                raise CompileError(f"nbgrad.compile cannot capture {slot.desc} being set to a tensor made outside "
                                   "the compiled function's kernels")
            rebinds.append((slot, k))
        # tensors changed in place that are reachable only through another (a view's base)
        for t in before_tensors:
            delta = t._vc.value - before_versions[id(t)]
            if delta and id(t._vc) not in bumps:
                for slot, tb, meta in slots:
                    if tb is t:
                        bumps[id(t._vc)] = (slot, delta)
                        break
        # outputs
        out_tensors = _flatten(result, [])
        output_refs, output_slots = [], []
        for t in out_tensors:
            if t._grad_fn is not None and backward_runs == 0 and t._requires_grad:
                raise CompileError(
                    "nbgrad.compile: the function returns a tensor that requires grad and whose backward has not "
                    "run inside it; compile the whole step (forward, loss.backward() and optimizer.step()), or "
                    "call it under nbgrad.no_grad() for inference.")
            k = None if id(t) in fixed else spec_of(t)
            if id(t) in fixed:
                output_refs.append(("slot", len(output_slots)))
                output_slots.append(fixed[id(t)])
            elif k is not None:
                output_refs.append(("new", k))
            else:
                raise CompileError("nbgrad.compile: the function returns a tensor made outside its kernels "
                                   f"({list(t.shape)} {t.dtype}); return tensors the function computes")
        v.output_refs, v.output_slots = output_refs, output_slots
        v.result_spec = result
        v.tensor_specs = specs
        v.rebinds = rebinds
        v.bump_slots = [s for s, _ in bumps.values()]
        v.bump_deltas = [d for _, d in bumps.values()]
        v.inputs = inputs
        # numbers among the arguments are constants of the graph
        for i, a in enumerate(args):
            if isinstance(a, (bool, int, float)):
                v.arg_numbers.append((f"args[{i}]", lambda i=i, st=st: st.current[0][i], a))
        for k, a in kwargs.items():
            if isinstance(a, (bool, int, float)):
                v.arg_numbers.append((f"{k}=", lambda k=k, st=st: st.current[1][k], a))
        live = {s["value"] for s in specs if s["ext"] is None}
        title = getattr(self.fn, "__qualname__", type(self.fn).__name__)
        program = Program(rec, live, bind, title)
        source, consts, scratch = program.generate()
        v.module, v.fresh = load(source, title)
        v.source = source
        v.consts = consts
        v.scratch_specs = scratch
        v.scratch = [np.empty(n, d) for n, d in scratch]
        from ..backends import get_backend
        v.backends = {dev: get_backend(dev) for dev in {i.device for i in rec.instrs} | {"cpu"}}
        v.graph = program.graph()
        v.graph.fused_regions = source.count("@njit")
        v.alias_pattern = v._aliases()
        return v


def compile(fn=None, *, fallback=None, max_variants=8):
    """Capture `fn` (a training step, a forward) on its first call and run it as generated code after.

    Decorator or call: `step = nbgrad.compile(step)`, `@nbgrad.compile(fallback="eager")`.
    `nbgrad.compile(module)` compiles a module's forward for inference (under no_grad, or with
    inputs and parameters that do not require grad; a forward whose output needs its graph
    runs eagerly).
    """
    if fn is None:
        return lambda f: compile(f, fallback=fallback, max_variants=max_variants)
    from ..nn.modules.module import Module
    if isinstance(fn, Module):
        return CompiledModule(fn, fallback="eager" if fallback is None else fallback, max_variants=max_variants)
    if not callable(fn):
        raise TypeError(f"nbgrad.compile expects a function or an nn.Module, got {type(fn).__name__}")
    return CompiledFunction(fn, fallback=fallback, max_variants=max_variants)


class CompiledModule(CompiledFunction):
    """A module whose forward runs compiled; attribute access goes to the module."""

    def __init__(self, module, fallback, max_variants):
        super().__init__(module, fallback, max_variants)
        self.module = module

    def __getattr__(self, name):
        return getattr(self.__dict__["module"], name)
