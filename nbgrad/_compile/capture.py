"""Capture: one eager call of the user's function, with every backend call recorded.

The op layer reaches the numerical work only through `get_backend(device)` (the backend
contract, nbgrad/backends/__init__.py), so a recording stand-in put in the backend
registry for the duration of the call sees every kernel the call runs -- the forward
ops, the backward engine's ops and the optimizer's in-place updates -- in the order
they ran, with the buffers they read and wrote.  A buffer becomes a *value*: made by a
recorded call (internal), or found already existing (external: a parameter's storage,
an argument's, a constant).  Calls made by a backend function itself are not recorded
(only the outermost call is the op layer's).

What the recording cannot follow is a tensor's values read into Python: a host read
(`.item()`, `.numpy()`, printing, `if t:`, a kernel returning Python numbers) makes
Python decide with data the compiled graph would not see again.  Such a read raises
`CompileError` naming the user's line that led to it.
"""
import linecache
import os
import sys
import weakref

import numpy as np

from ..backends._standin import BackendStandIn

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_USER_DIRS = (os.path.join(_PACKAGE, "examples"),)


class CompileError(RuntimeError):
    """What `nbgrad.compile` cannot capture (a host read of tensor values, an in-place change
    of a tensor the graph does not own, ...): the message names the user's line."""


def user_frame():
    """'file:line: source' of the innermost frame outside nbgrad (examples count as user code).
    A walk up the frames, not a whole extracted stack: it runs for every recorded call."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        path = os.path.abspath(filename)
        if not path.startswith(_PACKAGE + os.sep) or path.startswith(_USER_DIRS):
            line = linecache.getline(filename, frame.f_lineno).strip()
            return f"{filename}:{frame.f_lineno}: {line}"
        frame = frame.f_back
    return "<unknown line>"


# Every backend function is in one of these classes (tests/compile/test_compile.py checks
# the backends' exports); a call of one that is not stops the capture (CompileError), so
# that a function added later cannot be replayed wrongly.
#
# Backend functions whose results are read on the host by the op layer (LAPACK info codes,
# index counts, the fused losses' sums) or that hand memory to Python: data-dependent Python follows.
HOST_READS = frozenset({"to_numpy", "to_host", "nonzero", "linalg_inv", "linalg_solve", "linalg_cholesky",
                        "linalg_lu_factor", "linalg_ldl_factor",
                        "cuda_array_interface", "tensor_from_cuda_array", "from_numpy", "synchronize",
                        "cross_entropy_forward", "nll_forward", "mse_forward", "bce_logits_forward",
                        "get_rng_state"})
# Arguments written in place, by function: positions (and keyword names).
WRITES = {
    "copy": (1,), "fill": (0,), "put": (0,), "put_reduce": (0,), "sgd_step": (0, 2), "adam_step": (0, 2, 3, 4),
    "binary": (5, "out"), "run_user_kernel": (),          # (its last n_outputs views: see _written)
    "sgd_step_many": (0, 2),                              # (lists of views)
}
# Random draws: replayed by calling the backend, which advances its generator as eager did.
RANDOM = frozenset({"uniform", "normal", "randint", "randperm", "manual_seed", "set_rng_state"})
# Functions that only read their arguments and return new buffers.
PURE = frozenset({
    "arange", "empty", "full", "from_host", "unary", "binary_scaled", "fma", "where", "reduce", "max_with_index",
    "softmax", "sort", "cumulative", "matmul", "take", "max_pool2d", "max_pool2d_backward", "avg_pool2d",
    "avg_pool2d_backward", "linalg_det", "linalg_slogdet", "linalg_svd", "linalg_qr", "linalg_eigh",
    "linalg_solve_triangular", "linalg_geqrf", "linalg_householder_product", "linalg_ldl_solve", "mul_backward",
    "linear_backward", "fused_elementwise", "cross_entropy_stats", "cross_entropy_backward", "nll_stats",
    "nll_backward",
    "bce_logits_backward", "conv2d_forward", "conv2d_backward", "interp_pass",
    "interp_pass_backward", "user_reduce", "grid_sampler_2d", "grid_sampler_2d_backward", "softmax_backward",
    "layer_norm_forward", "layer_norm_backward", "vector_norm2",
    "ctc_loss_forward", "ctc_loss_backward",      # (the op reads its lengths and targets on the host first)
    "fractional_max_pool"})                       # (its window starts: from the samples buffer, each call)
CLASSIFIED = HOST_READS | frozenset(WRITES) | RANDOM | PURE


def _written(name, args, kwargs):
    """The buffers a call writes in place."""
    if name == "run_user_kernel":
        views, n_out = args[1], args[3]
        outs = [v for v in views if isinstance(v, tuple)][-n_out:] if n_out else []
        return [v[0] for v in outs]
    found = []
    for w in WRITES.get(name, ()):
        a = args[w] if isinstance(w, int) and w < len(args) else kwargs.get(w) if isinstance(w, str) else None
        if a is None:
            continue
        if isinstance(a, list):           # a list of views
            found.extend(v[0] for v in a if isinstance(v, tuple))
        else:
            found.append(a[0] if isinstance(a, tuple) else a)
    return found
# Calls kept whatever their results: random draws, and the op layer's checks.
KEEP = RANDOM | {"_check"}


def is_buffer(obj):
    """A backend buffer: a NumPy array (CPU) or a device array (CUDA, also the simulator's)."""
    return isinstance(obj, np.ndarray) or hasattr(type(obj), "__cuda_array_interface__")


def _root(arr):
    if not isinstance(arr, np.ndarray):
        return arr
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _address(arr):
    if isinstance(arr, np.ndarray):
        return arr.__array_interface__["data"][0]
    return arr.__cuda_array_interface__["data"][0]


class Instr:
    __slots__ = ("index", "fn", "args", "kwargs", "outs", "scope", "name", "writes", "line", "device", "producer")

    def __init__(self, index, fn, args, kwargs, scope, line, device="cpu"):
        self.index, self.fn, self.args, self.kwargs = index, fn, args, kwargs
        self.device = device
        self.producer = False     # a copy that fills a fresh buffer (codegen's materializations)
        self.outs = None
        self.scope = scope
        self.name = None
        self.writes = ()
        self.line = line


class Value:
    """A buffer of the captured call.  kind: 'internal' (made by a recorded call),
    'external' (existed before), 'alias' (an array aliasing another value's memory).
    Only external arrays are held (weakly the others: the engine's and the allocator's
    reference counts must see what they see in an eager call)."""
    __slots__ = ("id", "kind", "_array", "_ref", "dtype", "size", "alias_of", "alias_spec")

    def __init__(self, vid, kind, array):
        self.id, self.kind = vid, kind
        self._array = array if kind == "external" else None
        self._ref = weakref.ref(array)
        self.dtype = array.dtype
        self.size = array.size
        self.alias_of = None
        self.alias_spec = None

    @property
    def array(self):
        return self._array if self._array is not None else self._ref()


class Ref:
    """A value in an instruction's arguments or results."""
    __slots__ = ("vid",)

    def __init__(self, vid):
        self.vid = vid

    def __repr__(self):
        return f"%{self.vid}"


class Recording:
    """The instructions and values of one captured call."""

    def __init__(self):
        self.instrs = []
        self.values = []
        self._by_id = {}          # id(array) -> Value (checked to be alive: ids are reused)
        self._roots = {}          # id(root array) -> [Value]
        self.scopes = [""]
        self.scope_counts = {}
        self.name_counts = {}
        self.host_reads = []
        self.depth = 0
        self.scalar_inputs = {}   # vid -> (getter, dtype, device): Python numbers read each call
        self.lifted = set()       # (id(container), key) of numbers that are inputs, not guards

    # -- values --------------------------------------------------------
    def _new_value(self, arr, kind):
        v = Value(len(self.values), kind, arr)
        self.values.append(v)
        self._by_id[id(arr)] = v
        self._roots.setdefault(id(_root(arr)), []).append(v)
        return v

    def known(self, arr):
        v = self._by_id.get(id(arr))
        return v if v is not None and v.array is arr else None

    def value_of(self, arr):
        v = self.known(arr)
        if v is not None:
            return v
        # an array aliasing a known value's memory (a slice of a buffer): remembered as
        # (value, byte offset, dtype, shape, byte strides) and rebuilt over that value
        if isinstance(arr, np.ndarray):
            candidates = reversed(self._roots.get(id(_root(arr)), ()))
        else:       # device arrays: the live value whose memory holds arr's first element
            addr = _address(arr)
            candidates = [b for b in reversed(self.values) if b.kind != "alias" and b.array is not None
                          and not isinstance(b.array, np.ndarray)
                          and 0 <= addr - _address(b.array) < max(b.array.nbytes, 1)]
        for base in candidates:
            if base.kind == "alias" or base.array is None:
                continue
            off = _address(arr) - _address(base.array)
            v = self._new_value(arr, "alias")
            v.alias_of = base.id
            v.alias_spec = (off, arr.dtype, arr.shape, arr.strides)
            if not isinstance(arr, np.ndarray) and not (
                    arr.ndim == 1 and arr.dtype == base.dtype and off % arr.dtype.itemsize == 0
                    and tuple(arr.strides) == (arr.dtype.itemsize,)):
                self.host_reads.append(("a strided alias of a device buffer", user_frame()))
            return v
        return self._new_value(arr, "external")

    def encode(self, obj):
        if is_buffer(obj):
            return Ref(self.value_of(obj).id)
        t = type(obj)
        if t is tuple or t is list:
            items = [self.encode(o) for o in obj]
            return tuple(items) if t is tuple else items
        return obj

    def encode_result(self, obj, instr):
        if is_buffer(obj):
            known = self.known(obj)
            if known is not None:          # an argument handed back (binary(..., out=))
                return Ref(known.id)
            return Ref(self._new_value(obj, "internal").id)
        t = type(obj)
        if t is tuple or t is list:
            items = [self.encode_result(o, instr) for o in obj]
            return tuple(items) if t is tuple else items
        if obj is None:
            return None
        if isinstance(obj, (bool, int, float, complex, np.generic)):
            self.host_reads.append((instr.fn, instr.line))
            return obj
        return obj

    # -- checks ----------------------------------------------------------
    def check(self, cond, make_error, *extra):
        """A check of the op layer's that would read a value into Python (a target out of
        range): evaluated now, and again by every compiled call (the driver reads the one
        bool and raises make_error(*extra arrays))."""
        from .._tensor import Tensor
        self.depth += 1
        try:
            bad = bool(cond._host_array().reshape(-1)[0])
            arrays = [e._host_array() for e in extra]
        finally:
            self.depth -= 1
        if bad:
            raise make_error(*arrays)
        assert isinstance(cond, Tensor)
        views = [self.encode(t._view_tuple()) for t in (cond,) + extra]
        instr = Instr(len(self.instrs), "_check", (views[0], make_error, tuple(views[1:])), {},
                      self.scopes[-1], user_frame(), cond._storage.device.type)
        instr.outs = None
        instr.name = self.unique_name(instr.scope, "check")
        self.instrs.append(instr)

    # -- Python numbers read every call ------------------------------------
    def scalar_input(self, get, dtype, device, source=None):
        """A 0-dim tensor holding get()'s value now, and in every compiled call the value
        get() returns then (a learning rate a scheduler changes, an optimizer's step count):
        an input of the graph instead of a constant guarded by value.  source: (container,
        key) of the number, whose value guard this input replaces."""
        from .._tensor import Tensor
        from ..backends import get_backend
        self.depth += 1
        try:
            buf = get_backend(device.type).full(1, dtype.np, get())
        finally:
            self.depth -= 1
        t = Tensor._from_buffer(buf, (), dtype, device)
        v = self.value_of(buf)
        self.scalar_inputs[v.id] = (get, dtype, device)
        if source is not None:
            self.lifted.add((id(source[0]), source[1]))
        return t

    # -- names -----------------------------------------------------------
    def push_scope(self, base):
        parent = self.scopes[-1]
        full = f"{parent}/{base}" if parent else base
        n = self.scope_counts.get(full, 0)
        self.scope_counts[full] = n + 1
        if n:
            full = f"{full}_{n}"
        self.scopes.append(full)

    def pop_scope(self):
        self.scopes.pop()

    def unique_name(self, scope, op):
        base = f"{scope}/{op}" if scope else op
        n = self.name_counts.get(base, 0)
        self.name_counts[base] = n + 1
        return base if n == 0 else f"{base}_{n}"


def op_label(fn, args):
    """The op name a recorded call is shown under: binary('mul') is `mul`, matmul is `matmul`."""
    if fn in ("unary", "binary", "binary_scaled", "reduce", "cumulative") and args and isinstance(args[0], str):
        return args[0]
    return fn


class RecordingBackend(BackendStandIn):
    """Stands in for a backend module in the registry while a call is captured."""

    def __init__(self, backend, recording, device):
        super().__init__(backend, device)
        object.__setattr__(self, "_recording", recording)

    def _wrap(self, name, fn):
        rec = self._recording
        device = self._device

        def call(*args, **kwargs):
            if rec.depth:
                return fn(*args, **kwargs)
            line = user_frame()
            if name in HOST_READS:
                rec.host_reads.append((name, line))
            elif name not in CLASSIFIED:
                rec.host_reads.append((f"{name} (a backend function nbgrad.compile does not know)", line))
            instr = Instr(len(rec.instrs), name, rec.encode(args),
                          {k: rec.encode(v) for k, v in kwargs.items()}, rec.scopes[-1], line, device)
            rec.depth += 1
            try:
                result = fn(*args, **kwargs)
            finally:
                rec.depth -= 1
            instr.outs = rec.encode_result(result, instr)
            instr.name = rec.unique_name(instr.scope, op_label(name, args))
            instr.writes = tuple(rec.value_of(b).id for b in _written(name, args, kwargs) if is_buffer(b))
            rec.instrs.append(instr)
            return result
        call.__name__ = name
        return call
