"""dtypes and PyTorch's type-promotion rules (categories, 0-dim tensors, Python scalars)."""
import builtins

import numpy as np


class dtype:
    """A tensor element type: `nbgrad.float32` and friends (PyTorch's torch.dtype)."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_rank", "_tensor_type")

    def __init__(self, name, np_dtype, rank, tensor_type, floating=None):
        self.name = name
        self.np = np.dtype(np_dtype)        # the storage's numpy dtype (bfloat16: uint16 words)
        self.itemsize = self.np.itemsize
        self.is_floating_point = self.np.kind == "f" if floating is None else floating
        self.is_signed = self.np.kind in "fi" or self.is_floating_point
        self._rank = rank  # order within a category, for promotion
        self._tensor_type = tensor_type

    @property
    def is_complex(self):
        return False

    def __repr__(self):
        return f"nbgrad.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int8 = dtype("int8", np.int8, 2, "CharTensor")
int16 = dtype("int16", np.int16, 3, "ShortTensor")
int32 = dtype("int32", np.int32, 4, "IntTensor")
int64 = dtype("int64", np.int64, 5, "LongTensor")
float16 = dtype("float16", np.float16, 6, "HalfTensor")
float32 = dtype("float32", np.float32, 7, "FloatTensor")
float64 = dtype("float64", np.float64, 8, "DoubleTensor")
# bfloat16 is stored as its 16-bit words in uint16 buffers (NumPy has no bfloat16 type):
# nbgrad/backends/_bfloat16.py.  Its rank is float16's: the two promote to float32.
bfloat16 = dtype("bfloat16", np.uint16, 6, "BFloat16Tensor", floating=True)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# (NumPy arrays never convert to bfloat16: uint16 arrays are refused as PyTorch's own
# uint16 is not nbgrad's; from_buffer_dtype maps backend buffers, uint16 ones included)
_BY_NP = {d.np: d for d in ALL_DTYPES if d is not bfloat16}


def _dtype_by_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def from_buffer_dtype(np_dtype):
    """The nbgrad dtype a backend buffer of this numpy dtype holds (uint16: bfloat16)."""
    d = np.dtype(np_dtype)
    return bfloat16 if d == bfloat16.np else from_numpy_dtype(d)


def to_dtype(obj):
    """Accept an nbgrad dtype, a numpy dtype, or a Python type (float/int/bool: float64, int64
    and bool, as PyTorch's parser maps them whatever the default dtype)."""
    if isinstance(obj, dtype):
        return obj
    if obj is float:
        return float64
    if obj is int:
        return int64
    if obj is bool:
        return bool_
    if isinstance(obj, str):
        name = obj.replace("torch.", "").replace("nbgrad.", "")
        if name in _ALIASES:
            return _ALIASES[name]
    try:
        return from_numpy_dtype(obj)
    except TypeError:
        raise TypeError(f"invalid dtype: {obj!r}") from None


_ALIASES = dict(_BY_NAME, float=float32, double=float64, half=float16, int=int32, long=int64,
                short=int16, bool=bool_)

_default_dtype = [float32]


def get_default_dtype():
    return _default_dtype[0]


def set_default_dtype(d):
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype[0] = d


def _category(d):
    if d is None:
        return -1
    if d is bool_:
        return 0
    return 2 if d.is_floating_point else 1


def promote_types(a, b):
    """PyTorch's promote_types for two dtypes."""
    a, b = to_dtype(a), to_dtype(b)
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        if a._rank == b._rank:          # float16 and bfloat16: neither holds the other
            return float32
        return a if a._rank > b._rank else b
    return _BY_NP[np.promote_types(a.np, b.np)]


def _promote_skip_none(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return promote_types(a, b)


def _combine_categories(higher, lower):
    # PyTorch's combine_categories (c10/core/ScalarType / TensorIterator result_type).
    if higher is not None and higher.is_floating_point:
        return higher
    if higher is bool_ or (lower is not None and lower.is_floating_point):
        return _promote_skip_none(higher, lower)
    if higher is not None:
        return higher
    return lower


def scalar_dtype(value):
    """The dtype a Python number takes part in promotion as (a 'wrapped number')."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default_dtype[0]
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def result_type_of(operands):
    """Promotion over tensors and Python scalars, following PyTorch's three tiers:
    dimensioned tensors > zero-dim tensors > Python scalars."""
    dim_result = zero_result = wrapped_result = None
    for op in operands:
        d = getattr(op, "dtype", None)
        if isinstance(d, dtype) and not isinstance(op, np.generic):
            if op.dim() > 0:
                dim_result = _promote_skip_none(dim_result, d)
            else:
                zero_result = _promote_skip_none(zero_result, d)
        else:
            wrapped_result = _promote_skip_none(wrapped_result, scalar_dtype(op))
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


def can_cast(src, dst):
    """PyTorch's can_cast: no float -> int, no number -> bool category demotion."""
    return _category(src) <= _category(dst)


def public_can_cast(from_, to):
    """nbgrad.can_cast: its arguments are dtypes (a tensor is PyTorch's TypeError)."""
    for name, position, d in (("from_", 1, from_), ("to", 2, to)):
        if not isinstance(d, dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, not "
                            f"{type(d).__name__}")
    return can_cast(from_, to)


_SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                      "int64": "Long", "int32": "Int",
                      "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def scalar_type_name(d):
    """PyTorch's ScalarType name of d ('Float', 'Long', 'Bool', ...), as its messages spell it."""
    return _SCALAR_TYPE_NAMES[d.name]


_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int",
                   "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                   "bool": "bool"}


def cpp_type_name(d):
    """The C++ type name of d ('float', 'long int', ...), as PyTorch's dtype-mismatch messages
    spell it ("expected m1 and m2 to have the same dtype, but got: float != double")."""
    return _CPP_TYPE_NAMES.get(d.name, d.name)


def round_scalar(value, d):
    """A Python float value as floating dtype d stores it (float16: via float32, as PyTorch's
    conversion of a double to Half rounds twice)."""
    if d is bfloat16:
        from .backends._bfloat16 import value as bfloat16_value
        return bfloat16_value(value)
    with np.errstate(over="ignore", invalid="ignore"):
        if d is float16:
            return float(np.array(float(value), dtype=np.float32).astype(d.np))
        return float(d.np.type(value))


class finfo:
    """The numerical properties of a floating-point dtype (PyTorch's torch.finfo): bits, eps,
    max, min, tiny (= smallest_normal), resolution, and dtype's name.  finfo() is the
    default dtype's."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        d = get_default_dtype() if type is None else type
        if not isinstance(d, dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be nbgrad.dtype, not {builtins.type(d).__name__}")
        if not d.is_floating_point:
            raise TypeError("nbgrad.finfo() requires a floating point input type. Use nbgrad.iinfo to handle "
                            "'nbgrad.finfo'")
        self.bits = d.itemsize * 8
        self.dtype = d.name
        if d is bfloat16:
            # (no NumPy finfo: 8 significand bits, float32's exponent; max 0x7F7F)
            self.eps, self.max = 2.0 ** -7, (2.0 - 2.0 ** -7) * 2.0 ** 127
            self.min, self.tiny = -self.max, 2.0 ** -126
            self.smallest_normal, self.resolution = self.tiny, 0.01
            return
        info = np.finfo(d.np)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """The limits of an integer dtype (PyTorch's torch.iinfo): bits, max, min, dtype's name."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):
        if not isinstance(type, dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be nbgrad.dtype, not {builtins.type(type).__name__}")
        if type is bool_:
            raise TypeError("nbgrad.bool is not supported by nbgrad.iinfo")
        if type.is_floating_point:
            raise TypeError("nbgrad.iinfo() requires an integer input type. Use nbgrad.finfo to handle "
                            "'nbgrad.iinfo'")
        info = np.iinfo(type.np)
        self.bits = type.itemsize * 8
        self.max, self.min = int(info.max), int(info.min)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"

    __str__ = __repr__

