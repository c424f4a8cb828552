"""Whole-tensor comparisons: equal, isclose, allclose (PyTorch's formulas as Tensor ops).

None of them is differentiable: isclose's result is bool, equal and allclose return
Python bools.  equal is one unrecorded comparison, as PyTorch's kernel; isclose runs its
Tensor ops as PyTorch's composite does.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._graph import check_same_device


def _tensor_arg(op, value, name, pos):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(value).__name__}")


def equal(input, other):
    """True when both have the same shape and the same values (NaN is never equal)."""
    _tensor_arg("equal", input, "input", 1)
    _tensor_arg("equal", other, "other", 2)
    check_same_device(input, other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    with no_grad():
        return bool((input == other).all().item())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """PyTorch's isclose: a == b, or (with equal_nan) both NaN, or a finite |a - b| within
    atol + |rtol * b| (bools computed in the default float dtype)."""
    _tensor_arg("isclose", input, "input", 1)
    _tensor_arg("isclose", other, "other", 2)
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{D.scalar_type_name(input._dtype)} did not match {D.scalar_type_name(other._dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    # PyTorch composes isclose of autograd-visible ops (its subtraction is recorded when an
    # input requires grad: a view whose history may not be rewritten is refused here too)
    # (PyTorch ors into `close` in place: its version counts the steps, as here)
    close = input == other
    if equal_nan and input._dtype.is_floating_point:
        close.bitwise_or_(input.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    # PyTorch casts an integer or bool `other` to the default dtype first (a bool `input` too),
    # so the difference is taken in floats: it neither wraps (int64's minimum minus 0 stayed
    # negative, seed 46034098) nor underflows a uint8
    a, b = input, other
    if not a._dtype.is_floating_point:
        b = b.to(D.get_default_dtype())
        if a._dtype is D.bool_:
            a = a.to(D.get_default_dtype())
    allowed = atol + (rtol * b).abs()
    actual = (a - b).abs()
    return close.bitwise_or_(actual.isfinite() & (actual <= allowed))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    # (PyTorch's allclose runs isclose below autograd: nothing recorded, no view refused)
    with no_grad():
        return bool(isclose(input, other, rtol, atol, equal_nan).all().item())
