"""Tensor.apply_, map_ and map2_: a Python callable applied element by element, in place, on
CPU tensors (PyTorch's TH-era methods: slow, for small tensors and tests).  As PyTorch's:
refused on a tensor that requires grad, the callable's result converted to the tensor's
dtype (int() for an integer tensor, float() for a floating one), and no version bump."""
import numbers

import numpy as np

from .._tensor import Tensor


def _target(t, name):
    if t.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if t.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    return t._host_array()


def _convert(t):
    """The callable's result as an element of t (a number, else PyTorch's TypeError)."""
    d = t._dtype
    cast = float if d.is_floating_point else bool if d.name == "bool" else int

    def convert(value):
        if not isinstance(value, (numbers.Number, np.number, np.bool_)) or isinstance(value, complex):
            raise TypeError(f"must be real number, not {type(value).__name__}")
        return cast(value)
    return convert


def _operand(t, other, name, arg, position, what):
    """other's values broadcast to t's shape (expand's rule and error), as a NumPy array."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not {type(other).__name__}")
    if other.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if other._dtype is not t._dtype:
        raise TypeError(f"{name}: expected {t.type()} for {what} (got {other.type()})")
    return other.detach().expand(tuple(t._shape))._host_array()


def apply_(self, callable):
    """self[i] = callable(self[i]) for every element."""
    arr = _target(self, "apply_")
    conv = _convert(self)
    for idx in np.ndindex(arr.shape):
        arr[idx] = conv(callable(arr[idx].item()))
    return self


def map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]), tensor broadcast to self's shape."""
    arr = _target(self, "map_")
    other = _operand(self, tensor, "map_", "other", 1, "'other'")
    conv = _convert(self)
    for idx in np.ndindex(arr.shape):
        arr[idx] = conv(callable(arr[idx].item(), other[idx].item()))
    return self


def map2_(self, x, y, callable):
    """self[i] = callable(self[i], x[i], y[i]), x and y broadcast to self's shape."""
    arr = _target(self, "map2_")
    a = _operand(self, x, "map2_", "x", 1, "argument 'x'")
    b = _operand(self, y, "map2_", "y", 2, "argument 'y'")
    conv = _convert(self)
    for idx in np.ndindex(arr.shape):
        arr[idx] = conv(callable(arr[idx].item(), a[idx].item(), b[idx].item()))
    return self
