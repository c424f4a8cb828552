"""The recorder behind nbgrad.profiler and nbgrad.autograd.profiler: where the time goes.

While a profile records, and only then, nbgrad's interception points are swapped, as
nbgrad.compile's capture swaps them (both through nbgrad/backends/_standin.py):

- every backend in the registry (`nbgrad.backends._BACKENDS`) is a `ProfilingBackend`
  stand-in that times each kernel call (perf_counter_ns) as an event `nbgrad::<function>`
  (`nbgrad::binary.mul` when the call's first argument is an op string), with its
  arguments' shapes under record_shapes (a view (buf, offset, shape, strides) has shape's);
- the small-op shortcut tables (`nbgrad.ops._graph.SHORTCUT_TABLES`) are emptied, so that
  they fill from the stand-ins (`nbgrad::binary_dense.add`; a shortcut that declines a call,
  returning None, records nothing: the general entry point it falls back to records it);
- `Node.__call__` records PyTorch's `autograd::engine::evaluate_function: MulBackward0` range
  around a `MulBackward0` range, and the engine's leaf accumulation the same two ranges for
  `torch::autograd::AccumulateGrad`;
- every Optimizer class's `step` and `zero_grad` record `Optimizer.step#SGD.step` and
  `Optimizer.zero_grad#SGD.zero_grad`, as PyTorch's optimizers do;
- a compiled function's call (nbgrad.compile) records `nbgrad.compile: <function name>`.

Stopping puts every one of them back (the same objects, even when the profiled code
raised), and the shortcut tables get their entries back.  With no profile recording nothing
of this is in place: the per-op cost does not change.  One profile records at a time in the
process (the swap is process-wide): a second one is refused with RuntimeError, where
PyTorch 2.13 lets the inner one silently take the outer one's events.

Departures from PyTorch (the public modules, nbgrad.profiler and nbgrad.autograd.profiler, list them too):
- events are nbgrad's kernel calls (`nbgrad::matmul`, `nbgrad::linear_backward`), not ATen
  ops (`aten::addmm`): nbgrad has no dispatcher layer above its kernels;
- `evaluate_function` ranges cover the node's own call only, not the routing of its
  gradients that follows in PyTorch's engine (those kernels show at the top level);
- a compiled function's calls run the generated code over the backends it captured, which
  the registry swap does not reach: a compiled call is one range without kernel events
  (its capture, the first call, is eager and shows its kernels).  A function compiled while
  a profile records works after the profile as any other (its backends are the real ones);
- nothing records CUDA activity, memory, FLOPs, stacks or module ranges.
"""
import functools
import threading
import time

from .._warnings import warn_user as _warn_user
from ..backends import _standin
from ..backends._standin import BackendStandIn
from ._util import EventList, FunctionEvent

_perf_ns = time.perf_counter_ns
_get_ident = threading.get_ident

_ACTIVE = [None]          # the _Recorder now recording (process-wide), else None
_LOCK = threading.Lock()
_MISSING = object()


class _Recorder:
    """The raw events of one recording: [name, start_ns, end_ns, thread ident, parent event,
    input shapes, is a user annotation], in the order they began; each thread's open events
    form a stack, so an event knows its parent when it begins."""

    def __init__(self, record_shapes=False):
        self.record_shapes = record_shapes
        self.events = []
        self.stacks = {}
        self.on = False
        self.owner = _get_ident()
        self.start_ns = self.stop_ns = 0
        self._patched = []
        self._busy = set()

    # -- events ----------------------------------------------------------
    def begin(self, name, shapes=None, user=False):
        tid = _get_ident()
        stack = self.stacks.get(tid)
        if stack is None:
            stack = self.stacks[tid] = []
        ev = [name, 0, 0, tid, stack[-1] if stack else None, shapes, user]
        self.events.append(ev)
        stack.append(ev)
        ev[1] = _perf_ns()
        return ev

    def end(self, ev):
        ev[2] = _perf_ns()
        stack = self.stacks.get(ev[3])
        if stack:
            if stack[-1] is ev:
                stack.pop()
            else:           # closed out of order (a range ended in another order than it began)
                for i in range(len(stack) - 1, -1, -1):
                    if stack[i] is ev:
                        del stack[i]
                        break

    # -- install / remove ------------------------------------------------
    def install(self):
        from ..ops import _graph
        with _LOCK:
            current = _ACTIVE[0]
            if current is not None:
                if current.owner == _get_ident():
                    raise RuntimeError("Profiler is already enabled on this thread")
                raise RuntimeError("Profiler is already enabled on another thread (nbgrad's profiler records "
                                   "the whole process, one profile at a time)")
            if _graph.CAPTURE[0] is not None:
                raise RuntimeError("nbgrad.profiler cannot start while nbgrad.compile captures a call; "
                                   "profile the call of the compiled function instead")
            _ACTIVE[0] = self
        try:
            self._patch()
        except BaseException:
            self._unpatch()
            _ACTIVE[0] = None
            raise
        self.start_ns = _perf_ns()
        self.on = True

    def uninstall(self):
        from ..ops import _graph
        if _ACTIVE[0] is not self:
            return
        if _graph.CAPTURE[0] is not None:
            raise RuntimeError("nbgrad.profiler cannot stop while nbgrad.compile captures a call")
        self.on = False
        self.stop_ns = _perf_ns()
        try:
            self._unpatch()
        finally:
            _ACTIVE[0] = None

    def _patch(self):
        # (the small-op shortcuts fill from the registry again, so from the stand-ins)
        self._saved = _standin.install(lambda be, device: ProfilingBackend(be, self, device))
        self._patch_nodes()
        self._patch_optimizers()
        self._patch_compile()

    def _set(self, cls, attr, value):
        self._patched.append((cls, attr, cls.__dict__.get(attr, _MISSING)))
        setattr(cls, attr, value)

    def _unpatch(self):
        while self._patched:
            cls, attr, old = self._patched.pop()
            if old is _MISSING:
                delattr(cls, attr)
            else:
                setattr(cls, attr, old)
        saved = getattr(self, "_saved", None)
        if saved is not None:
            _standin.restore(saved, lambda now: isinstance(now, ProfilingBackend) and now._recorder is self)
            self._saved = None

    def _patch_nodes(self):
        from ..autograd.engine import _Walk
        from ..autograd.node import Node
        rec = self
        node_call = Node.__call__

        def __call__(self, *grads):
            if not rec.on:
                return node_call(self, *grads)
            name = self.name()
            outer = rec.begin("autograd::engine::evaluate_function: " + name)
            inner = rec.begin(name)
            try:
                return node_call(self, *grads)
            finally:
                rec.end(inner)
                rec.end(outer)
        self._set(Node, "__call__", functools.wraps(node_call)(__call__))

        accumulate_leaf = _Walk._accumulate_leaf

        def _accumulate_leaf(self, node, g):
            if not rec.on:
                return accumulate_leaf(self, node, g)
            name = node.name()
            outer = rec.begin("autograd::engine::evaluate_function: " + name)
            inner = rec.begin(name)
            try:
                return accumulate_leaf(self, node, g)
            finally:
                rec.end(inner)
                rec.end(outer)
        self._set(_Walk, "_accumulate_leaf", functools.wraps(accumulate_leaf)(_accumulate_leaf))

    def _patch_optimizers(self):
        from ..optim.optimizer import Optimizer
        classes, todo = [], [Optimizer]
        while todo:
            cls = todo.pop()
            if cls not in classes:
                classes.append(cls)
                todo.extend(cls.__subclasses__())
        for cls in classes:
            for kind in ("step", "zero_grad"):
                if kind in cls.__dict__:
                    self._set(cls, kind, self._optimizer_method(cls.__dict__[kind], kind))

    def _optimizer_method(self, orig, kind):
        rec = self

        def method(self, *args, **kwargs):
            # one range per call of the optimizer's method, also when a subclass's step calls
            # super().step() (PyTorch wraps the instance class's method once)
            key = (_get_ident(), id(self), kind)
            if not rec.on or key in rec._busy:
                return orig(self, *args, **kwargs)
            rec._busy.add(key)
            ev = rec.begin(f"Optimizer.{kind}#{type(self).__name__}.{kind}", None, True)
            try:
                return orig(self, *args, **kwargs)
            finally:
                rec.end(ev)
                rec._busy.discard(key)
        return functools.wraps(orig)(method)

    def _patch_compile(self):
        from .._compile.function import CompiledFunction
        rec = self
        call, capture = CompiledFunction.__call__, CompiledFunction._capture

        def __call__(self, *args, **kwargs):
            if not rec.on:
                return call(self, *args, **kwargs)
            ev = rec.begin("nbgrad.compile: " + getattr(self.fn, "__qualname__", type(self.fn).__name__), None, True)
            try:
                return call(self, *args, **kwargs)
            finally:
                rec.end(ev)

        def _capture(self, args, kwargs):
            # a variant captured now took the registry's stand-ins as its backends: it gets
            # the real ones, which its calls use after the profile as before it
            try:
                return capture(self, args, kwargs)
            finally:
                for v in self.variants:
                    backends = getattr(v, "backends", None)
                    for dev, be in list((backends or {}).items()):
                        if isinstance(be, ProfilingBackend):
                            backends[dev] = be._backend
        self._set(CompiledFunction, "__call__", functools.wraps(call)(__call__))
        self._set(CompiledFunction, "_capture", functools.wraps(capture)(_capture))

    # -- results ---------------------------------------------------------
    def function_events(self):
        """The finished events as FunctionEvents (microseconds from the start), their parents
        and children linked; a parent that does not contain a child's interval (ranges closed
        out of order) gives it to the nearest ancestor that does."""
        start = self.start_ns
        threads = {}
        made = {}
        out = []
        for ev in self.events:
            name, t0, t1, tid, parent, shapes, user = ev
            if t1 <= 0 or t0 < start:
                continue            # unfinished, declined (a shortcut's None) or begun before the start
            thread = threads.setdefault(tid, len(threads) + 1)
            trace_name = name
            if name.startswith("ProfilerStep#"):
                name = "ProfilerStep*"      # (PyTorch's events and tables group the steps)
            fe = FunctionEvent(len(out), name, thread, (t0 - start) / 1000, (t1 - start) / 1000,
                               input_shapes=shapes if shapes is not None else [], trace_name=trace_name,
                               is_user_annotation=user)
            made[id(ev)] = (fe, ev)
            while parent is not None:
                p = made.get(id(parent))
                if p is not None and p[1][1] <= t0 and t1 <= p[1][2]:
                    fe.set_cpu_parent(p[0])
                    p[0].append_cpu_child(fe)
                    break
                parent = parent[4]
            out.append(fe)
        return out


def _shape_of(a):
    if isinstance(a, tuple):
        if len(a) == 4 and hasattr(a[0], "shape") and isinstance(a[2], (tuple, list)):
            return list(a[2])       # a view: (buffer, offset, shape, strides)
        return []
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return list(a.shape)        # a buffer
    return []


def _shapes(args):
    return [_shape_of(a) for a in args]


class ProfilingBackend(BackendStandIn):
    """Stands in for a backend module in the registry while a profile records: each function
    call is an event named after the function (and its op string)."""

    def __init__(self, backend, recorder, device):
        super().__init__(backend, device)
        object.__setattr__(self, "_recorder", recorder)

    def _wrap(self, name, fn):
        from ..ops import _graph
        rec = self._recorder
        label = "nbgrad::" + name
        # a shortcut returns None for a call it does not serve (the op layer then calls the
        # general entry point, which records the call)
        declines = name in {table.name for table in _graph.SHORTCUT_TABLES}

        def call(*args, **kwargs):
            if not rec.on:
                return fn(*args, **kwargs)
            op = args[0] if args and type(args[0]) is str else None
            ev = rec.begin(label if op is None else f"{label}.{op}",
                           _shapes(args) if rec.record_shapes else None)
            try:
                result = fn(*args, **kwargs)
            finally:
                rec.end(ev)
            if declines and result is None:
                ev[2] = -1
            return result
        call.__name__ = name
        return call


class record_function:
    """A named range in the profile: `with record_function("forward"): ...` or as a decorator
    (PyTorch's torch.autograd.profiler.record_function).  Without a profile recording it
    records nothing."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._ev = None
        self._rec = None

    def __enter__(self):
        rec = _ACTIVE[0]
        if rec is not None and rec.on:
            self._rec = rec
            self._ev = rec.begin(self.name, None, True)
        return self

    def __exit__(self, exc_type, exc_value, tb):
        rec, ev = self._rec, self._ev
        self._rec = self._ev = None
        if ev is not None and rec.on:
            rec.end(ev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


def _cuda_available():
    try:
        from .. import cuda
        return bool(cuda.is_available())
    except Exception:       # (no numba.cuda: no CUDA)
        return False


_UNSUPPORTED = ("profile_memory", "with_stack", "with_flops")


def _warn_unsupported(**flags):
    for name in _UNSUPPORTED:
        if flags.get(name):
            _warn_user(f"nbgrad's profiler does not support {name}=True; it is ignored", stacklevel=3)


class profile:
    """PyTorch's torch.autograd.profiler.profile: records while the `with` block runs; then
    `key_averages()`, `table()`, `total_average()`, `self_cpu_time_total`,
    `function_events` and `export_chrome_trace(path)` read the results."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        if use_cuda:
            _warn_user("The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` "
                       "instead.", FutureWarning, stacklevel=2)
            use_device = "cuda"
        if use_device is not None and use_device not in ("cuda", "xpu", "mtia", "hpu"):
            _warn_user(f"The {use_device} is not a valid device option.", stacklevel=2)
            use_device = None
        if use_device == "cuda" and not _cuda_available():
            _warn_user("CUDA is not available, disabling CUDA profiling", stacklevel=2)
            self.use_cuda = False
            use_device = None
        self.use_device = use_device
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        _warn_unsupported(profile_memory=profile_memory, with_stack=with_stack, with_flops=with_flops)
        self.entered = False
        self._recorder = None
        self._function_events = None
        self._old_function_events = None

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start_trace()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop_trace()
        return False

    def _start_trace(self):
        rec = _Recorder(self.record_shapes)
        rec.install()
        self.entered = True
        self._recorder = rec
        self.profiling_start_time_ns = rec.start_ns

    def _stop_trace(self):
        rec = self._recorder
        if rec is None:
            return
        rec.uninstall()
        self.profiling_end_time_ns = rec.stop_ns
        old = self._function_events if self.acc_events else None
        self._function_events = EventList(rec.function_events(), use_device=self.use_device,
                                          profile_memory=self.profile_memory, with_flops=self.with_flops)
        self._function_events._tree_built = True
        rec.events, rec.stacks = [], {}       # (the raw events: not kept alive beside the results)
        if old:
            self._function_events.extend(old)

    def _results(self):
        if self._function_events is None:
            rec = self._recorder
            if rec is not None and rec.on:
                return EventList()          # (still recording: PyTorch's lists are empty then too)
            raise RuntimeError("Profiler didn't finish running")
        return self._function_events

    @property
    def function_events(self):
        return self._results()

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return self._results().table(sort_by=sort_by, row_limit=row_limit,
                                     max_src_column_width=max_src_column_width,
                                     max_name_column_width=max_name_column_width,
                                     max_shapes_column_width=max_shapes_column_width, header=header,
                                     top_level_events_only=top_level_events_only)

    def __str__(self):
        return str(self._results())

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._results().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        return self._results().total_average()

    @property
    def self_cpu_time_total(self):
        return self._results().self_cpu_time_total

    def export_chrome_trace(self, path):
        """The trace as torch.profiler writes it (a JSON object whose traceEvents are "X"
        events with ts and dur in microseconds)."""
        import os
        from ._util import write_trace
        rec = self._recorder
        write_trace(self._results(), path, rec.start_ns if rec is not None else 0, os.getpid(), self.record_shapes)
