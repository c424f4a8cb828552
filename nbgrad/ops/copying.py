"""Copies: clone, contiguous, dtype/device conversion — each recorded in the graph."""
import builtins

from .. import _dtype as D
from .._size import to_device
from .._layout import (contiguous_format, copy_strides, format_strides, is_contiguous_as, order_of_strides,
                       preserve_format, preserve_strides, suggest_memory_format)
from .._tensor import Tensor, contiguous_strides
from .._storage import Storage
from ..autograd.node import Node
from ..backends import get_backend
from ._graph import backend_of, cast, copy_raw, needs_grad, new_tensor, record
from ._signatures import _ParsedCalls, call_kind


class CloneBackward0(Node):
    def backward(self, g):
        return g


def clone(x, *, memory_format=None):
    """A copy in new memory laid out as PyTorch's preserve_format: a dense layout (a
    transpose) is kept exactly, any other gets dense strides in the same dims' order."""
    strides = copy_strides(x._shape, x._stride, memory_format)  # preserve: dense kept, else its order
    if strides == contiguous_strides(x._shape):
        out = copy_raw(x)
    else:
        be = backend_of(x)
        buf = be.empty(x.numel(), x._dtype.np)
        be.copy(x._view_tuple(), (buf, 0, x._shape, strides))
        out = Tensor._make(Storage(buf, x.device), x._shape, strides, 0, x._dtype)
    if needs_grad(x):
        record(CloneBackward0, (x,), (out,))
    return out


def contiguous(x, *positional, memory_format=None):
    if positional:          # (PyTorch's parser: memory_format is keyword-only)
        from .._checks import keyword_only
        raise keyword_only("contiguous", positional)
    if memory_format is None or memory_format is contiguous_format or memory_format is preserve_format:
        if x.is_contiguous():
            return x
        out = copy_raw(x)
    else:
        if is_contiguous_as(x._shape, x._stride, memory_format):
            return x
        out = copy_raw(x, format_strides(x._shape, memory_format))
    if needs_grad(x):
        record(CloneBackward0, (x,), (out,))
    return out


class ToCopyBackward0(Node):
    def backward(self, g):
        return g.to(dtype=self.dtype, device=self.device)


def _to_device_raw(x, device):
    """A copy of x's values on another device, staged through host memory, laid out as
    preserve_format lays out a copy (x's dense strides, else dense in x's dims' order)."""
    strides = preserve_strides(x._shape, x._stride)
    if strides == contiguous_strides(x._shape):
        buf = get_backend(device.type).from_host(x._host_raw())
        return new_tensor(buf, x._shape, x._dtype, device)
    order = order_of_strides(x._shape, strides)
    view = Tensor._make(x._storage, tuple(x._shape[d] for d in order), tuple(x._stride[d] for d in order),
                        x._offset, x._dtype)          # x's dims in memory order (a plain view)
    buf = get_backend(device.type).from_host(view._host_raw())
    return Tensor._make(Storage(buf, device), x._shape, strides, 0, x._dtype)


# (the module's float, int and bool below are x.float() and friends)
_PYTHON_TYPES = (builtins.float, builtins.int, builtins.bool)
_LEADING_VALUE_TYPES = (builtins.float, builtins.bool)      # to(1.5): float64; to(True): bool


def _to_argument_error(args, kwargs):
    from ._argument_check import argument_error
    return argument_error("to", args, kwargs, method=True)


# the parser check of to's calls of two arguments or more (PyTorch's parser refuses x.to(t, t2),
# x.to(t, 2, t2)... before any work): each kind of call checked once, a dictionary lookup after
_TO_CALLS = _ParsedCalls(_to_argument_error, lambda args, kwargs: True)


def to(x, *args, **kwargs):
    """Tensor.to(dtype) / to(device) / to(device, dtype) / to(other); copy=False returns x when nothing changes."""
    if len(args) + len(kwargs) > 1:
        key = call_kind(args, kwargs)
        if _TO_CALLS.known.get(key) is not True:
            _TO_CALLS.check(key, args, kwargs)      # (raises the parser's TypeError)
    dtype = kwargs_dtype = kwargs.pop("dtype", None)
    device = kwargs_device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", None)
    if fmt is preserve_format:
        fmt = None
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {list(kwargs)}")
    flags = 0
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, D.dtype) or a in _PYTHON_TYPES:
            dtype = a
        elif i == 0 and a.__class__ in _LEADING_VALUE_TYPES:
            dtype = a.__class__     # (PyTorch's parser reads a leading float or bool value as its type)
        elif a.__class__ is builtins.bool:
            # non_blocking, then copy (each overload's positional bools after its dtype/device/other)
            if flags == 1:
                copy = a
            flags += 1
        elif a is not None:
            device = a
    try:
        dtype = D.to_dtype(dtype) if dtype is not None else x._dtype
        device = to_device(device) if device is not None else x.device
    except (RuntimeError, TypeError, ValueError) as e:
        # (what this parser took for a device or a dtype: PyTorch's parser refuses the arguments first)
        from ._argument_check import argument_error
        given = {k: v for k, v in (("dtype", kwargs_dtype), ("device", kwargs_device)) if v is not None}
        error = argument_error("to", args, given, method=True)
        if error is None:
            raise
        raise error from e
    if dtype is x._dtype and device == x.device and not copy and (
            fmt is None or suggest_memory_format(x._shape, x._stride) is fmt):
        return x                                    # PyTorch's to_will_alias
    strides = None if fmt is None else format_strides(x._shape, fmt)
    out = x
    if device != x.device:
        out = _to_device_raw(x, device)
    if dtype is not out._dtype:
        out = cast(out, dtype)
    elif out is x:
        out = copy_raw(x, strides)
    if strides is not None and out._stride != strides:
        out = copy_raw(out, strides)                # an explicit memory_format
    if needs_grad(x) and dtype.is_floating_point:
        record(ToCopyBackward0, (x,), (out,), dtype=x._dtype, device=x.device)
    return out


def type_as(x, other):
    return to(x, other.dtype)


def _conversion(name, dtype):
    def convert(x):
        return to(x, dtype)
    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"x.{name}() is x.to({dtype})"
    return convert


# x.float(), x.double(), ...: the names shadow the builtins in this module only (cuda() below uses type(1))
float, double, half, long, int, short, bool, byte = (
    _conversion(name, dtype) for name, dtype in (
        ("float", D.float32), ("double", D.float64), ("half", D.float16), ("long", D.int64),
        ("int", D.int32), ("short", D.int16), ("bool", D.bool_), ("byte", D.uint8)))


def cpu(x):
    return to(x, "cpu")


def cuda(x, device=None):
    return to(x, "cuda" if device is None else (f"cuda:{device}" if isinstance(device, type(1)) else device))
