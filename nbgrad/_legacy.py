"""PyTorch's legacy tensor types: FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor,
LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor.

Each is a constructor (`FloatTensor([1, 2])` copies data, `FloatTensor(2, 3)` or
`FloatTensor(Size)` makes an uninitialised tensor of those sizes, `FloatTensor(t)` of
a float32 t is an alias of t) and a type test: `isinstance(t, FloatTensor)` is True for
a float32 tensor on the CPU, as in PyTorch.  They are not subclasses of Tensor (neither
are PyTorch's)."""
import sys

from ._warnings import warn_user as _warn_user
from . import _dtype as D
from ._size import Size


class _LegacyTensorType(type):
    def __instancecheck__(cls, obj):
        from ._tensor import Tensor
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype and obj.device.type == cls.device_type

    def __call__(cls, *args, device=None, **kwargs):
        return legacy_new(cls.dtype, cls.device_type, args, device, kwargs)


def legacy_new(dtype, device_type, args, device=None, kwargs=None, any_tensor=False):
    """PyTorch's legacy constructor of the type of (dtype, device_type): nbgrad.FloatTensor(...),
    and nbgrad.Tensor(...) of the default dtype's type, whose one tensor argument may have any
    dtype (any_tensor: an alias of it)."""
    from ._creation import empty, tensor
    from ._tensor import Tensor
    if kwargs:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one "
                        "of: (*, device), (Tensor other), (tuple of ints size, *, device), (object data, *, device)")
    if device is None:
        device = device_type
    if not args:
        return empty(0, dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, Tensor):
            if not any_tensor and (data._dtype is not dtype or data.device.type != device_type):
                raise TypeError(f"expected TensorOptions(dtype={_c_name(dtype)}, device={device_type}) "
                                f"(got TensorOptions(dtype={_c_name(data._dtype)}, device={data.device.type}))")
            from .ops.views import alias
            return alias(data)
        if isinstance(data, Size):
            return _sized(tuple(data), dtype, device)
        if isinstance(data, (int,)) and not isinstance(data, bool):
            return _sized((data,), dtype, device)
        if isinstance(data, (float, complex, bool)) or not hasattr(data, "__len__"):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return tensor(data, dtype=dtype, device=device)
    for i, a in enumerate(args):
        if (isinstance(a, bool) and not i) or not isinstance(a, int):
            raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(a).__name__} at pos {i}")
    return _sized(args, dtype, device)


def _sized(sizes, dtype, device):
    from ._creation import empty
    for n in sizes:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(sizes)}")
    return empty(*sizes, dtype=dtype, device=device) if sizes else empty(0, dtype=dtype, device=device)


_c_name = D.cpp_type_name       # (one table of C++ type names: _dtype.py)


def _legacy(dtype, device_type="cpu"):
    name = dtype._tensor_type
    module = "nbgrad" if device_type == "cpu" else "nbgrad.cuda"
    return _LegacyTensorType(name, (), {"dtype": dtype, "device_type": device_type, "__module__": module,
                                        "__qualname__": name,
                                        "__doc__": f"The legacy {module}.{name} type: {dtype} tensors on the "
                                                   f"{device_type.upper()}."})


def cuda_types():
    """nbgrad.cuda.FloatTensor, ...: the same legacy types for CUDA tensors."""
    return {d._tensor_type: _legacy(d, "cuda") for d in D.ALL_DTYPES}


FloatTensor = _legacy(D.float32)
DoubleTensor = _legacy(D.float64)
HalfTensor = _legacy(D.float16)
BFloat16Tensor = _legacy(D.bfloat16)
LongTensor = _legacy(D.int64)
IntTensor = _legacy(D.int32)
ShortTensor = _legacy(D.int16)
CharTensor = _legacy(D.int8)
ByteTensor = _legacy(D.uint8)
BoolTensor = _legacy(D.bool_)


def set_default_tensor_type(t):
    """PyTorch's deprecated default-type setter: a floating legacy type (or its name) sets the
    default dtype."""
    _warn_user("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
               stacklevel=2)
    if isinstance(t, str):
        # (PyTorch's _import_dotted_name: the first component imported, the rest its attributes;
        # "torch" is nbgrad here)
        components = t.split(".")
        obj = sys.modules["nbgrad"] if components[0] == "torch" else __import__(components[0])
        for component in components[1:]:
            obj = getattr(obj, component)
        t = obj
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(t.dtype)
