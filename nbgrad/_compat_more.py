"""Small PyTorch names that real programs use: top-level functions and constants, the deprecated
torch.cuda.amp / torch.cpu.amp spellings, torch.cpu, torch.backends.cuda.matmul's switches,
nn.DataParallel, and Tensor.pin_memory / is_pinned / storage (functions attached to Tensor).

Departures from PyTorch:
- cond(pred: Tensor, ...) runs only the branch pred selects, eagerly: the result and its
  gradients are that branch's (grad_fn is the branch's last op, not CondAutogradOpBackward),
  and the checks PyTorch makes while compiling both branches with torch._dynamo (same output
  structure, dtypes and ranks in both, no aliasing of inputs, no input mutation) are not made.
- set/get_num_interop_threads store and report a count: nbgrad has no inter-op thread pool.
- backends.cuda.matmul's switches change no result (nbgrad's matmuls are its own kernels);
  allow_tf32 reads and writes float32_matmul_precision, as PyTorch's does.
- DataParallel with GPUs runs the whole batch on device_ids[0] (nbgrad uses one GPU): the
  outputs and gradients are those of PyTorch's split-and-gather, without the speed-up.
- pin_memory() with a GPU returns a contiguous copy that is_pinned() reports as pinned; its
  memory is ordinary host memory (nbgrad's host-to-GPU copies do not need pinning).
- Tensor.storage() is a TypedStorage over the tensor's storage (PyTorch's deprecated typed
  view): reading, writing elements and the sizes, not resizing, sharing or pickling it.
"""
import builtins
import ctypes
import math
import numbers
import os
import sys
import types
import weakref

import numpy as np

from ._warnings import warn_user as _warn_user
from . import _dtype as D
from ._size import CPU, Size, device as _device
from ._storage import Storage, fix
from ._tensor import Tensor
from ._warnings import warn_once
from .amp import autocast_mode as _autocast_mode
from .amp.grad_scaler import GradScaler as _GradScaler
from .backends import get_backend
from .func._vmap import vmap
from .nn.modules.module import Module

__all__ = ["vmap", "frombuffer", "cond", "is_storage", "get_num_interop_threads", "set_num_interop_threads",
           "pi", "e", "inf", "nan", "newaxis", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not",
           "get_autocast_gpu_dtype", "TypedStorage", "DataParallel", "cpu", "cuda_amp", "cuda_matmul",
           "pin_memory", "is_pinned", "storage"]

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


# --------------------------------------------------------------------------- #
# frombuffer

_NOT_WRITABLE = ("The given buffer is not writable, and PyTorch does not support non-writable tensors. This means "
                 "you can write to the underlying (supposedly non-writable) buffer using the tensor. You may want "
                 "to copy the buffer to protect its data or make it writable before converting it to a tensor. "
                 "This type of warning will be suppressed for the rest of this program.")


def _int_arg(fn, name, value):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}")
    return int(value)


def _writable_bytes(view):
    """A writable uint8 array over the memory of a read-only buffer (PyTorch writes through
    such buffers too; its warning says so).  The array keeps the buffer alive."""
    readonly = np.frombuffer(view, dtype=np.uint8)
    raw = (ctypes.c_uint8 * view.nbytes).from_address(readonly.ctypes.data)
    raw._nbgrad_owner = view            # (ctypes arrays take attributes: the owner stays alive)
    return np.ctypeslib.as_array(raw)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D CPU tensor over an object's buffer (bytes, bytearray, array.array, memoryview,
    numpy arrays...), sharing its memory as PyTorch's torch.frombuffer does: `count`
    elements of `dtype` from byte `offset` (count=-1: all the rest)."""
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    count = _int_arg("frombuffer", "count", count)
    offset = _int_arg("frombuffer", "offset", offset)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.c_contiguous:
        raise RuntimeError("could not retrieve buffer from object")
    view = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    length, elsize = view.nbytes, dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0 and (length - offset) % elsize != 0:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                         f"multiple of element size ({elsize})")
    if count < 0:
        count = (length - offset) // elsize
    if offset + count * elsize > length:
        raise ValueError(f"requested buffer length ({count} * {elsize} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    if view.readonly:
        warn_once("frombuffer_not_writable", _NOT_WRITABLE, UserWarning, stacklevel=3)
        raw = _writable_bytes(view)
    else:
        raw = np.frombuffer(view, dtype=np.uint8)
    array = raw[offset:offset + count * elsize].view(dtype.np)
    buf, start, strides = get_backend("cpu").from_numpy(array)
    # (the buffer's memory: a resize_ may not move the tensor off it)
    out = Tensor._make(fix(Storage(buf, CPU)), Size([count]), tuple(strides), start, dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


# --------------------------------------------------------------------------- #
# cond


def _tree_leaves_are_tensors(value):
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return all(_tree_leaves_are_tensors(v) for v in value)
    if isinstance(value, dict):
        return all(_tree_leaves_are_tensors(v) for v in value.values())
    return False


def cond(pred, true_fn, false_fn, operands=()):
    """torch.cond, eagerly: true_fn(*operands) if pred else false_fn(*operands).  A Python
    bool/int/float pred just picks the branch (as PyTorch); a tensor pred must hold one
    element, both branches be callable and operands a tuple/list of (nested) tensors."""
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not _tree_leaves_are_tensors(operands):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists "
                           f"of tensor leaves, but got {operands}.")
    return (true_fn if bool(pred.item()) else false_fn)(*operands)


# --------------------------------------------------------------------------- #
# small functions


def is_storage(obj):
    """True for what untyped_storage() and storage() return."""
    return isinstance(obj, (Storage, TypedStorage))


_interop = {"threads": None}


def _default_interop_threads():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def get_num_interop_threads():
    """The inter-op thread count set (by default the CPUs this process may use).  nbgrad has
    no inter-op pool: the count is kept and reported, and changes nothing."""
    n = _interop["threads"]
    return _default_interop_threads() if n is None else n


def set_num_interop_threads(n):
    """PyTorch's rules: a positive int, settable once."""
    from ._parallel import _type_name
    python_int = isinstance(n, int) and not isinstance(n, bool)
    numpy_int = isinstance(n, numbers.Integral) and type(n).__module__ == "numpy"
    if not (python_int or numpy_int):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {_type_name(n)}")
    if int(n) <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop["threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop["threads"] = int(n)


def sym_int(a):
    return builtins.int(a)


def sym_float(a):
    return builtins.float(a)


_ALL_NUMBER_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


def _sym_minmax(a, b, pick):
    for v in (a, b):
        if not isinstance(v, _ALL_NUMBER_TYPES):
            raise AssertionError(f"expected {_ALL_NUMBER_TYPES}, got {type(v)}")
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(pick(a, b))
    return pick(a, b)


def sym_max(a, b):
    """max of two numbers, a float if either is one (unlike builtins.max)."""
    return _sym_minmax(a, b, builtins.max)


def sym_min(a, b):
    return _sym_minmax(a, b, builtins.min)


def sym_not(a):
    return not a


def get_autocast_gpu_dtype():
    warn_once("get_autocast_gpu_dtype", "torch.get_autocast_gpu_dtype() is deprecated. Please use "
              "torch.get_autocast_dtype('cuda') instead.", DeprecationWarning, stacklevel=3)
    return _autocast_mode.get_autocast_dtype("cuda")


# --------------------------------------------------------------------------- #
# module objects: torch.cpu (and torch.cpu.amp), torch.cuda.amp


def _module(name, doc, attrs):
    """A module object named `name` holding attrs, importable by name (`import nbgrad.cpu.amp`)
    once this file has run; a real module of that name, if one is ever loaded first, wins."""
    module = types.ModuleType(name, doc)
    for key, value in attrs.items():
        if getattr(value, "__module__", None) == __name__ and isinstance(value, (type, types.FunctionType)):
            value.__module__ = name
        setattr(module, key, value)
    module.__all__ = [k for k in attrs if not k.startswith("_")]
    return sys.modules.setdefault(name, module)


def _deprecated_amp(device_type, name, new):
    _warn_user(f"`torch.{device_type}.amp.{name}(args...)` is deprecated. Please use `{new}` instead.",
               FutureWarning, stacklevel=3)


def _autocast_class(device_type, default_dtype):
    class autocast(_autocast_mode.autocast):
        """The deprecated spelling of nbgrad.autocast(device_type, ...): same behaviour, and
        PyTorch's FutureWarning saying so."""

        def __init__(self, enabled=True, dtype=default_dtype, cache_enabled=True):
            _deprecated_amp(device_type, "autocast", f"torch.amp.autocast('{device_type}', args...)")
            super().__init__(device_type, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
    autocast.__qualname__ = "autocast"
    return autocast


def _grad_scaler_class(device_type):
    class GradScaler(_GradScaler):
        """The deprecated spelling of nbgrad.amp.GradScaler(device_type, ...)."""

        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            _deprecated_amp(device_type, "GradScaler", f"torch.amp.GradScaler('{device_type}', args...)")
            super().__init__(device_type, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)
    GradScaler.__qualname__ = "GradScaler"
    return GradScaler


def _cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    _deprecated_amp("cuda", "custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def _cuda_custom_bwd(bwd):
    _deprecated_amp("cuda", "custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _autocast_mode.custom_bwd(bwd, device_type="cuda")


def _amp_definitely_not_available():
    from . import cuda
    return not cuda.is_available()


cuda_amp = _module("nbgrad.cuda.amp", "torch.cuda.amp: the deprecated spellings of nbgrad.amp for CUDA.", {
    "autocast": _autocast_class("cuda", D.float16), "GradScaler": _grad_scaler_class("cuda"),
    "custom_fwd": _cuda_custom_fwd, "custom_bwd": _cuda_custom_bwd,
    "amp_definitely_not_available": _amp_definitely_not_available})
cuda_amp.custom_fwd.__name__, cuda_amp.custom_bwd.__name__ = "custom_fwd", "custom_bwd"

_cpu_amp = _module("nbgrad.cpu.amp", "torch.cpu.amp: the deprecated spellings of nbgrad.amp for the CPU.", {
    "autocast": _autocast_class("cpu", D.bfloat16), "GradScaler": _grad_scaler_class("cpu")})


class Stream:
    """torch.cpu.Stream: exists for device-agnostic code; every operation is a no-op."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_current_cpu_stream = Stream()


class _StreamContext:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def _cpu_is_available():
    return True


def _cpu_synchronize(device=None):
    """Nothing to wait for: CPU kernels have returned when the call returns."""


def _cpu_current_stream(device=None):
    return _current_cpu_stream


def _cpu_stream(stream):
    return _StreamContext(stream)


def _cpu_device_count():
    return 1


def _cpu_set_device(device):
    pass


def _cpu_current_device():
    return "cpu"


def _cpu_is_initialized():
    return True


_CPU_FUNCTIONS = {"is_available": _cpu_is_available, "synchronize": _cpu_synchronize,
                  "current_stream": _cpu_current_stream, "stream": _cpu_stream, "device_count": _cpu_device_count,
                  "set_device": _cpu_set_device, "current_device": _cpu_current_device,
                  "is_initialized": _cpu_is_initialized}
for _name, _fn in _CPU_FUNCTIONS.items():
    _fn.__name__ = _fn.__qualname__ = _name
cpu = _module("nbgrad.cpu", "torch.cpu: the CPU as a device module (device-agnostic code calls these).",
              dict(_CPU_FUNCTIONS, Stream=Stream, Event=Event, StreamContext=_StreamContext, amp=_cpu_amp))


# --------------------------------------------------------------------------- #
# torch.backends.cuda.matmul


class cuBLASModule:
    """torch.backends.cuda.matmul: the cuBLAS switches scripts set.  nbgrad's GPU matmuls are
    its own kernels, so they change no result; allow_tf32 is float32_matmul_precision
    != "highest", as in PyTorch."""

    _reduced = {"allow_fp16_reduced_precision_reduction": [True, True],
                "allow_bf16_reduced_precision_reduction": [True, True]}
    _fp16_accumulation = [False]

    @staticmethod
    def _parse_reduction_setting(value, attr_name):
        def ensure_bool(obj, which):
            if isinstance(obj, bool):
                return obj
            raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(obj)!r}")
        if isinstance(value, bool):
            return value, True
        if isinstance(value, (list, tuple)):
            if not value:
                raise TypeError(f"{attr_name} expects at least one boolean argument")
            if len(value) > 2:
                raise TypeError(f"{attr_name} expects at most two boolean arguments")
            allow = ensure_bool(value[0], "allow_reduced_precision")
            return allow, (True if len(value) == 1 else ensure_bool(value[1], "allow_splitk"))
        raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, but got {type(value)!r}")

    def __getattr__(self, name):
        from . import _settings
        if name == "allow_tf32":
            return _settings.get_float32_matmul_precision() != "highest"
        if name in self._reduced:
            return self._reduced[name][0]
        if name.endswith("_split_k") and name[:-len("_split_k")] in self._reduced:
            return self._reduced[name[:-len("_split_k")]][1]
        if name == "allow_fp16_accumulation":
            return self._fp16_accumulation[0]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        from . import _settings
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            _settings.set_float32_matmul_precision("high" if value else "highest")
            return
        if name in self._reduced:
            allow, splitk = self._parse_reduction_setting(value, name)
            if allow and not splitk:
                raise RuntimeError("allow_splitk=False is not supported when reduced precision reductions are "
                                   "enabled")
            self._reduced[name][:] = allow, splitk
            return
        if name == "allow_fp16_accumulation":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_fp16_accumulation_cublas expects a bool, but got "
                                   f"{type(value).__name__}")
            self._fp16_accumulation[0] = value
            return
        raise AttributeError("Unknown attribute " + name)


cuda_matmul = cuBLASModule()


def _cuda_is_built():
    return False


_cuda_is_built.__name__ = _cuda_is_built.__qualname__ = "is_built"
# torch.backends.cuda where nbgrad's CUDA backend package cannot be imported (no GPU): the
# switches scripts set at the top, so that they run on CPU-only machines.  Not put in
# sys.modules: "nbgrad.backends.cuda" is the backend package's name.
backends_cuda = types.ModuleType("nbgrad.backends.cuda", "torch.backends.cuda without nbgrad's CUDA backend.")
backends_cuda.matmul, backends_cuda.is_built = cuda_matmul, _cuda_is_built


# --------------------------------------------------------------------------- #
# nn.DataParallel


def _device_index(d):
    if isinstance(d, _device):
        return 0 if d.index is None else d.index
    if isinstance(d, str):
        return _device_index(_device(d))
    return int(d)


def _to_device(value, dev):
    if isinstance(value, Tensor):
        return value.to(dev)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_to_device(v, dev) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(v, dev) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _to_device(v, dev)) for k, v in value.items())
    return value


class DataParallel(Module):
    """nn.DataParallel: without a GPU (PyTorch's rule) it holds `module` and calls it
    (device_ids == []); state_dict keys get the "module." prefix.  With GPUs, the module
    runs on device_ids[0] over the whole batch and the outputs go to output_device."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        from . import cuda
        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(x) for x in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of them on device: "
                                   f"{t.device}")
        out = self.module(*_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj))
        return _to_device(out, _device("cuda", self.output_device))


# --------------------------------------------------------------------------- #
# Tensor.pin_memory / is_pinned / storage

_PINNED = weakref.WeakSet()     # storages pin_memory() made


def _deprecated_device_arg(method):
    _warn_user(f"The argument 'device' of Tensor.{method}() is deprecated. Please do not pass this argument.",
               DeprecationWarning, stacklevel=3)


def is_pinned(self, device=None):
    """Whether pin_memory() made this tensor's memory (False without a GPU, as PyTorch)."""
    if device is not None:
        _deprecated_device_arg("is_pinned")
    return self._storage in _PINNED


def pin_memory(self, device=None):
    """Without an accelerator PyTorch has no pinned memory and raises; with a GPU, a
    contiguous host copy that is_pinned() reports as pinned (the tensor itself if it is)."""
    if device is not None:
        _deprecated_device_arg("pin_memory")
        _deprecated_device_arg("is_pinned")
        if isinstance(device, (str, _device)) and _device(device).type == "cpu":
            raise RuntimeError("CPU device type not an accelerator.")
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if self._storage in _PINNED:
        return self
    out = self.contiguous()
    if out is self:
        out = self.clone()
    _PINNED.add(out._storage)
    return out


_TYPED_STORAGE = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                  "only storage class. This should only matter to you if you are using storages directly.  To "
                  "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")


class TypedStorage:
    """PyTorch's deprecated typed view of a storage (what Tensor.storage() returns): the
    storage's elements as `dtype`, from its first element."""

    is_sparse = False

    def __init__(self, *args, **kwargs):
        raise RuntimeError("nbgrad.TypedStorage is made by Tensor.storage() only")

    @classmethod
    def _over(cls, untyped, dtype):
        self = object.__new__(cls)
        self._untyped_storage = untyped
        self.dtype = dtype
        return self

    def _as_tensor(self):
        """A 1-D tensor over every element of the storage."""
        return Tensor._make(self._untyped_storage, Size([self.size()]), (1,), 0, self.dtype)

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def untyped(self):
        return self._untyped_storage

    def size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def element_size(self):
        return self.dtype.itemsize

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def tolist(self):
        return self._as_tensor().tolist()

    def _index(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, (int, np.integer)) or isinstance(idx, bool):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        n = self.size()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return int(idx) % n

    def __getitem__(self, idx):
        return self._as_tensor()[self._index(idx)].item()

    def __setitem__(self, idx, value):
        self._as_tensor()[self._index(idx)] = value

    def __iter__(self):
        return iter(self.tolist())

    def clone(self):
        return TypedStorage._over(self._as_tensor().clone()._storage, self.dtype)

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return self._untyped_storage in _PINNED

    def __str__(self):
        info = f"[nbgrad.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __repr__ = __str__


def storage(self):
    """The tensor's storage as a TypedStorage of its dtype (with PyTorch's deprecation
    warning, given once a process)."""
    warn_once("typed_storage", _TYPED_STORAGE, UserWarning, stacklevel=3)
    return TypedStorage._over(self.untyped_storage(), self._dtype)

