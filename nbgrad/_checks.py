"""Validation of user numbers before they become geometry or element values.

Every public path that builds a (sizes, strides, offset) from user numbers, or turns a
Python number into an element of a dtype, checks here first, with PyTorch's error
types and messages.  The invariant this protects: every tensor's elements lie inside
its storage, so no kernel ever reads or writes outside a buffer.
"""
import collections.abc
import math
import numbers
import operator

import numpy as np

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -2 ** 63


def _fits_int64(n):
    return INT64_MIN <= n <= INT64_MAX


def as_int(n, fn, arg, pos=None, what="tuple of ints"):
    """n as a Python int, refusing floats/bools as PyTorch's argument parser does."""
    from ._tensor import Tensor
    if isinstance(n, Tensor):
        if n.dtype.is_floating_point or n.numel() != 1:
            raise TypeError(f"{fn}(): argument '{arg}' must be {what}, but found element of type Tensor"
                            + (f" at pos {pos}" if pos is not None else ""))
        n = n.item()
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer)):
        if pos is None:
            raise TypeError(f"{fn}(): argument '{arg}' must be int, not {type(n).__name__}")
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be {what}, but found element of "
                        f"type {type(n).__name__} at pos {pos - 1 if pos else 0}")
    n = int(n)
    if not _fits_int64(n):
        raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {(pos or 0) + 1} with "
                        f"error \"Overflow when unpacking long long\"")
    return n


# -- what PyTorch's argument parser takes for an int, a SymInt, a float and a Scalar: the one set
# of predicates for the conversions below and for ops/_argument_check's schema check
def is_int(value):
    """A Python or NumPy integer, or any object with __index__ (not a bool, a float or a tensor)."""
    from ._tensor import Tensor
    return not isinstance(value, (bool, np.bool_, Tensor, float, np.floating)) and (
        isinstance(value, (int, np.integer)) or hasattr(type(value), "__index__"))


def is_integer_tensor(value, any_dim=False):
    """An integer (not bool) tensor that PyTorch's parser reads as an int: 0-dim for an `int`
    parameter, of one element for a SymInt one (any_dim)."""
    from ._tensor import Tensor
    return (isinstance(value, Tensor) and value._dtype.np.kind in "iu" and not value._dtype.is_floating_point
            and (value.numel() == 1 if any_dim else value.dim() == 0))


def is_int_list_element(value, first=False):
    """Whether PyTorch's parser takes `value` as an element of an int list (IntArrayRef, SymInt[]):
    its type check reads the first element only (an int, not a bool, or an integral or bool tensor
    of one element); the others are unpacked as Python ints, which a Python bool is:
    torch.zeros(2, True) has shape (2, 1), torch.zeros(True, 2) is refused, and so is a NumPy bool
    anywhere.  (A bool tensor is an int list's 0 or 1, and a SymInt list's error: symint_value.)"""
    return is_int(value) or is_integer_tensor(value, any_dim=True) or is_bool_tensor_of_one(value) or \
        (not first and type(value) is bool)


def is_bool_tensor_of_one(value):
    from ._tensor import Tensor
    return isinstance(value, Tensor) and value._dtype.name == "bool" and value.numel() == 1


def symint_value(value):
    """An element of a SymInt list (a size) or a SymInt argument that the parser's type check took,
    as its unpacking reads it: an int (a bool tensor is PyTorch's error there: its SymInt caster
    asserts the scalar is integral, bool excluded; an int list reads its 0 or 1)."""
    if is_bool_tensor_of_one(value):
        raise symint_of_bool_error()
    return int(value.item()) if hasattr(value, "item") and not isinstance(value, (int, np.integer)) else \
        operator.index(value)


def symint_of_bool_error():
    return RuntimeError("Expected scalar.isIntegral( false) to be true, but got false: a bool tensor is not an "
                        "integer for a SymInt")


def is_float(value):
    """A `float` argument: a real Python or NumPy number (a bool too), or a 0-dim tensor that
    does not require grad (PyTorch's parser: a gradient could not flow through the number)."""
    from ._tensor import Tensor
    return (isinstance(value, (numbers.Real, np.number, np.bool_)) and not isinstance(value, np.complexfloating)) \
        or (isinstance(value, Tensor) and value.dim() == 0 and not value.requires_grad)


def is_number(value):
    """A Scalar: a Python or NumPy number (a bool too: True is 1), or a 0-dim tensor that does
    not require grad."""
    from ._tensor import Tensor
    return isinstance(value, (numbers.Number, np.number, np.bool_)) or \
        (isinstance(value, Tensor) and value.dim() == 0 and not value.requires_grad)


def as_symint(n, fn, arg, position, any_dim=True):
    """An int argument as PyTorch's parser reads a SymInt (eye's n): an integer (is_int), or
    an integer tensor of one element (its value); else its TypeError naming the argument.
    any_dim=False: a plain `int` parameter (mvlgamma's p), which takes a 0-dim tensor only."""
    if is_integer_tensor(n, any_dim):
        return int(n.item())
    if any_dim and is_bool_tensor_of_one(n):
        raise symint_of_bool_error()
    if not is_int(n):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be int, not {type(n).__name__}")
    return operator.index(n)


def ntuple(value, n):
    """torch.nn.modules.utils' _ntuple(n) (_single, _pair, _triple): an iterable as its tuple (a
    tensor's rows; a 0-dim tensor is iteration's TypeError), anything else repeated n times."""
    return tuple(value) if isinstance(value, collections.abc.Iterable) else (value,) * n


def keyword_only(fn, positional):
    """PyTorch's parser's TypeError for arguments given by position to a method whose
    parameters are keyword-only (x.contiguous(fmt))."""
    n = len(positional)
    return TypeError(f"{fn}() takes 0 positional arguments but {n} {'was' if n == 1 else 'were'} given")


def as_number(value, fn, arg, position):
    """A Scalar argument as PyTorch's argument parser reads one (is_number): its value; anything
    else is its TypeError, "dist(): argument 'p' (position 3) must be Number, not Tensor"."""
    from ._tensor import Tensor
    if not is_number(value):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Number, not "
                        f"{type(value).__name__}")
    return value.item() if isinstance(value, Tensor) else value


def int_tuple(seq, fn, arg, position):
    """A tuple of Python ints from a sequence (PyTorch's IntArrayRef argument)."""
    if isinstance(seq, tuple):          # the common call (a shape): plain ints in int64's range
        for n in seq:
            if type(n) is not int or not INT64_MIN <= n <= INT64_MAX:
                break
        else:
            return tuple(seq)
    from ._tensor import Tensor
    if isinstance(seq, (numbers.Integral, np.integer)) and not isinstance(seq, bool):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be tuple of ints, not "
                        f"{type(seq).__name__}")
    if isinstance(seq, Tensor):
        seq = seq.tolist()
    out = []
    for i, n in enumerate(seq):
        if i and type(n) is bool:       # (is_int_list_element: a later element's bool is its int)
            n = int(n)
        elif is_bool_tensor_of_one(n):  # (the lists read here are SymInt lists: sizes, strides)
            raise symint_of_bool_error()
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer, Tensor)):
            if i:       # (the parser's type check read the first element; the others fail unpacking)
                raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(n).__name__}\"")
            raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be tuple of ints, but found "
                            f"element of type {type(n).__name__} at pos {i}")
        out.append(as_int(n, fn, arg, i))
    return tuple(out)


def storage_extent(sizes, strides, offset):
    """Elements of storage a geometry needs (offset + last element + 1; 0 when empty), with
    PyTorch's overflow check done in 64-bit arithmetic."""
    if any(n == 0 for n in sizes):
        return 0
    extent = 1
    for n, s in zip(sizes, strides):
        extent += (n - 1) * s
        if not _fits_int64(extent) or not _fits_int64((n - 1) * s):
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}")
    if not _fits_int64(extent + offset):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}")
    return extent


def check_strided_geometry(sizes, strides, offset, itemsize, storage_numel):
    """as_strided / set_ checks, in PyTorch's order: equal lengths, no negative stride,
    no negative offset, no overflow, and every element inside the storage."""
    if len(sizes) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(strides)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}")
    extent = storage_extent(sizes, strides, offset)
    nbytes = extent * itemsize
    if not _fits_int64(nbytes) or not _fits_int64((offset + extent) * itemsize):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} and strides={list(strides)}")
    if extent and offset + extent > storage_numel:
        raise RuntimeError(
            f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {(offset + extent) * itemsize} are out of bounds for storage "
            f"of size {storage_numel * itemsize}")
    check_numel(sizes)


def check_numel(sizes):
    """A view's element count must fit in int64 (PyTorch's safe_compute_numel)."""
    n = 1
    for s in sizes:
        n *= s
        if s < 0 or not _fits_int64(n):
            raise RuntimeError("numel: integer multiplication overflow")
    return n


def check_new_sizes(sizes, itemsize):
    """A new contiguous tensor's byte count, then its strides, as at::empty computes them: the
    bytes in unsigned 64-bit arithmetic (computeStorageNbytesContiguous: an overflow anywhere in
    the running product counts, a later 0 too), each stride in int64."""
    product, overflowed = 1, False
    for s in list(sizes) + [itemsize]:
        product *= s
        if product >= 1 << 64:
            overflowed, product = True, product % (1 << 64)
    if overflowed or not _fits_int64(product):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}")
    acc = 1
    for n in reversed(sizes[1:]):
        acc *= max(n, 1)
        if not _fits_int64(acc):
            raise RuntimeError("Stride calculation overflowed")


# -- Python numbers as elements of a dtype ---------------------------------------------------
_C_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}


_LIMITS = {}


def _kind(dtype):
    """The dtype's NumPy kind letter ('f' for bfloat16, whose storage is uint16 words)."""
    return "f" if dtype.is_floating_point else dtype.np.kind


def _limits(dtype):
    lim = _LIMITS.get(dtype.name)
    if lim is None:
        if _kind(dtype) in "iu":
            info = np.iinfo(dtype.np)
            lim = int(info.min), int(info.max)
        else:
            from ._dtype import finfo
            info = finfo(dtype)     # (bfloat16 too: NumPy has no finfo for it)
            lim = float(info.min), float(info.max)
        _LIMITS[dtype.name] = lim
    return lim


def scalar_type_name(dtype):
    """PyTorch's ScalarType name (Float, Double, Long, Char, Byte, ...)."""
    return dtype._tensor_type[:-len("Tensor")]


def scalar_overflows(value, dtype):
    """PyTorch's c10::overflows<To>(value) for a Python number (the rule behind
    'value cannot be converted to type ... without overflow')."""
    if _kind(dtype) == "b" or isinstance(value, (bool, np.bool_)):
        return False
    lo, hi = _limits(dtype)
    if isinstance(value, (numbers.Integral, np.integer)):
        value = int(value)
        if _kind(dtype) == "u":
            # negative numbers wrap as two's complement (a - b is a + 255 * b for uint8)
            return value > hi or (value < 0 and -value > hi)
        return value < lo or value > hi
    value = float(value)
    if math.isinf(value):
        return _kind(dtype) in "iu"
    if math.isnan(value):
        return _kind(dtype) in "iu"
    return value < lo or value > hi


def check_python_int(value):
    """A Python int argument PyTorch's parser unpacks into a Scalar (int64 or uint64)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
        if value < INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if value > 2 ** 64 - 1:
            raise OverflowError("int too big to convert")


def checked_scalar(value, dtype, style="kernel"):
    """value (a Python number) unchanged, after PyTorch's range check for dtype: the one
    place fill_/full/masked_fill/clamp/where/pow/scatter(value)/setitem convert a Python
    number to an element type.  Arithmetic (a + 1000 on int8) does not come here: PyTorch
    lets those wrap.  style 'tensor' gives torch.tensor()'s wording (dtype names)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        check_python_int(value)
    if scalar_overflows(value, dtype):
        name = dtype.name if style == "tensor" else _C_NAMES[dtype.name]
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value


_RANDOM_C_NAMES = {"int8": "signed char", "uint8": "unsigned char", "int16": "short", "int32": "int",
                   "int64": "long"}


def check_random_range(low, high, dtype):
    """random_(from, to) / randint bounds for an integer (or bool: [0, 1]) dtype, as PyTorch checks them."""
    if _kind(dtype) == "b":
        lo, hi, name = 0, 1, "bool"
    elif _kind(dtype) not in "iu":
        return
    else:
        lo, hi = _limits(dtype)
        name = _RANDOM_C_NAMES[dtype.name]
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
