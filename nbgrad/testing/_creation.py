"""make_tensor: PyTorch's torch.testing.make_tensor over nbgrad's random functions.

Values are drawn uniformly from [low, high) with PyTorch's default ranges per dtype
(bool [0, 2), unsigned [0, 10), signed integers [-9, 10), floats [-9, 9)), bounds clamped
to the dtype's finite range.  The draws come from nbgrad's generator, so the values differ
from PyTorch's for the same seed; ranges, shapes, strides and flags are PyTorch's.
nbgrad has no complex, bfloat16 or float8 dtypes (nor uint16/32/64): those branches are absent.
"""
import collections.abc
import math

from .._warnings import warn_user as _warn_user
from .. import _dtype as D

_INTEGRAL_TYPES = [D.uint8, D.int8, D.int16, D.int32, D.int64]
_FLOATING_TYPES = [D.float16, D.float32, D.float64]
_BOOLEAN_OR_INTEGRAL_TYPES = [D.bool_, *_INTEGRAL_TYPES]
_FLOATING_OR_COMPLEX_TYPES = _FLOATING_TYPES


def _uniform_random_(t, low, high):
    # uniform_ wants high - low within the dtype's range: draw over half the range, double
    if high - low >= D.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` (integers, or one sequence), `dtype` and `device` with values drawn
    uniformly from [low, high).  noncontiguous=True: a strided view (when it has two or
    more elements); memory_format: that layout (not with noncontiguous); exclude_zero: zeros
    become 1 (bool, integers) or the dtype's tiny (floats); requires_grad only for floats."""

    def modify_low_high(low, high, *, lowest_inclusive, highest_exclusive, default_low, default_high):
        def clamp(a, lo, hi):
            return min(max(a, lo), hi)

        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if any(isinstance(value, float) and math.isnan(value) for value in [low, high]):
            raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
        elif low == high and dtype in _FLOATING_OR_COMPLEX_TYPES:
            _warn_user("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
                       "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                       FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                             f"but {dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
        low = clamp(low, lowest_inclusive, highest_exclusive)
        high = clamp(high, lowest_inclusive, highest_exclusive)
        if dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
            # low ceiled: no value below it; high ceiled too, as randint's high is exclusive
            return math.ceil(low), math.ceil(high)
        return low, high

    from .. import _creation
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        # twice the last dim, every other element taken: distinct values, not a copy of one
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is D.bool_:
        low, high = modify_low_high(low, high, lowest_inclusive=0, highest_exclusive=2, default_low=0,
                                    default_high=2)
        result = _creation.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        info = D.iinfo(dtype)
        # (randint cannot draw int64's maximum: its bounds are int64)
        low, high = modify_low_high(low, high, lowest_inclusive=info.min,
                                    highest_exclusive=info.max + (1 if dtype is not D.int64 else 0),
                                    default_low=-9, default_high=10)
        result = _creation.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_TYPES:
        info = D.finfo(dtype)
        low, high = modify_low_high(low, high, lowest_inclusive=info.min, highest_exclusive=info.max,
                                    default_low=-9, default_high=9)
        result = _creation.empty(shape, device=device, dtype=dtype)
        _uniform_random_(result, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]          # (offset by one: catches offset bugs too)
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL_TYPES else D.finfo(dtype).tiny
    if dtype in _FLOATING_TYPES:
        result.requires_grad = requires_grad
    return result
