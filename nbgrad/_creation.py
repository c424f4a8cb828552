"""Creation functions: tensor, from_numpy, zeros/ones/full/empty, arange/linspace/eye, random draws."""
import math
import numbers

import numpy as np

from . import _dtype as D, _settings
from ._checks import as_symint, check_new_sizes, symint_value
from ._size import Size, to_device, CPU
from ._storage import Storage, fix
from ._layout import contiguous_format, copy_strides, format_strides, order_of_strides, preserve_strides
from ._tensor import Tensor, contiguous_strides
from .backends import _BACKENDS as _LOADED_BACKENDS, get_backend
from .ops._dtype_rules import check as check_dtype, refuse, INTEGRAL


def _size_args(size, itemsize=1):
    """The shape of a new tensor: ints, none negative, whose strides and byte count fit
    in int64 (PyTorch's errors: a shape past that is RuntimeError, not MemoryError)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    shape = _small_shape(size)
    if shape is not None:
        return shape
    out = []
    for i, n in enumerate(size):
        if isinstance(n, Tensor) or (i and type(n) is bool):     # (is_int_list_element)
            n = symint_value(n)
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"expected a sequence of integers for the size, but got {type(n).__name__}")
        if not -2 ** 63 <= n < 2 ** 63:
            raise TypeError(f"argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"Overflow when unpacking long long\"")
        out.append(int(n))
    for n in out:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {out}")
    check_new_sizes(out, itemsize)
    return Size(out)


_SMALL_DIM = 1 << 14    # four dims under it: at most 2**56 elements of 8 bytes, within int64


def _small_shape(size):
    """size (a tuple or list of dims) as a Size when it is a few small ints: nothing can
    overflow or be refused (the common call; a loop, not all() over a generator: 0.7 ->
    0.3 us); else None."""
    if len(size) > 4:
        return None
    for n in size:
        if type(n) is not int or not 0 <= n < _SMALL_DIM:
            return None
    return Size(size)


def _finish(t, requires_grad):
    if requires_grad:
        if not t._dtype.is_floating_point:     # (the factories' own words, capitalised as PyTorch's)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _flag_first(name, requires_grad, args):
    """The parser's refusal of a requires_grad that is not a bool, before a factory whose size
    one number decides (arange(2**31)) writes any memory."""
    if requires_grad is not False and requires_grad is not True and requires_grad is not None:
        from .ops._argument_check import argument_error
        raise argument_error(name, args, {"requires_grad": requires_grad}) or \
            TypeError(f"{name}(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")


def _new(buf, shape, dtype, device, requires_grad=False):
    return _finish(Tensor._from_buffer(buf, shape, dtype, device), requires_grad)


# -- from data ----------------------------------------------------------------------------
_MAX_DIMS = 128     # PyTorch's limit for nested sequences ("too many dimensions 'list'")


def _is_ndarray(x):
    return isinstance(x, np.ndarray) and x.ndim > 0


# _walk_data's bad leaf for a tensor of more than one element inside a sequence
MULTI_ELEMENT_TENSOR = "Tensor of more than one element"


def _leaf_dtype(x):
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(x.dtype)
    if isinstance(x, bool):
        return D.bool_
    if isinstance(x, numbers.Integral):
        return D.int64
    if isinstance(x, numbers.Real):
        return D.get_default_dtype()
    if isinstance(x, str):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _walk_data(data, dtype_given=False):
    """(shape, flat leaf values in C order, set of leaf dtypes, first non-number leaf) of
    nested Python data, as PyTorch reads it: the shape from the first element at each
    depth (at most 128 dims), then every sequence checked against it.  Bounded by that
    depth, so self-referential lists end in an error instead of looping.  dtype_given: no
    dtype is inferred (torch.tensor(None, dtype=...)), so a leaf of no dtype is a non-number
    leaf, which the dtype's conversion refuses, not "Could not infer dtype"."""
    sizes = []
    x = data
    # (a tensor in a sequence is no sequence to PyTorch's compute_sizes: a scalar, its one
    # element's value; a NumPy array is one)
    while isinstance(x, (list, tuple)) or _is_ndarray(x):
        if _is_ndarray(x):
            sizes.extend(int(n) for n in x.shape)
            break
        if len(sizes) == _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(x).__name__}'")
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    ndim = len(sizes)
    flat, kinds = [], set()
    if math.prod(sizes) == 0 and ndim:
        return tuple(sizes), flat, kinds, None
    bad_leaf = []
    on_path = set()

    def leaf(v):
        if isinstance(v, Tensor):
            kinds.add(v.dtype)
            if v.numel() == 1:
                flat.append(v.item())
            else:           # (its error, which the result's dtype words, comes after the dtype's inference)
                bad_leaf.append(MULTI_ELEMENT_TENSOR)
                flat.append(0)
            return
        if isinstance(v, (list, tuple)) or _is_ndarray(v):
            bad_leaf.append(type(v).__name__)
            return
        try:
            kinds.add(_leaf_dtype(v))
        except RuntimeError:
            if not dtype_given:
                raise
            bad_leaf.append(type(v).__name__)
        flat.append(v.item() if isinstance(v, (np.generic, np.ndarray)) else v)

    def visit(seq, dim):
        if isinstance(seq, Tensor):         # (where a sequence is due, PyTorch iterates a tensor)
            if seq.dim() == 0:
                raise TypeError("not a sequence")
            if len(seq) != sizes[dim]:
                raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
            if tuple(seq.shape) == tuple(sizes[dim:]):
                kinds.add(seq.dtype)
                flat.extend(seq._host_array().reshape(-1).tolist())
                return
            seq = list(seq.detach().unbind(0))
        if _is_ndarray(seq):
            if tuple(seq.shape) != tuple(sizes[dim:]):
                raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {seq.shape[0]})")
            kinds.add(_leaf_dtype(seq))
            flat.extend(seq.reshape(-1).tolist())
            return
        if not isinstance(seq, (list, tuple)):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        if id(seq) in on_path:
            raise TypeError("new(): self-referential lists are incompatible")
        on_path.add(id(seq))
        if dim == ndim - 1:
            for v in seq:
                t = type(v)
                if t is float or t is int:
                    kinds.add(D.int64 if t is int else D.get_default_dtype())
                    flat.append(v)
                else:
                    if v is seq or (isinstance(v, (list, tuple)) and id(v) in on_path):
                        raise TypeError("new(): self-referential lists are incompatible")
                    leaf(v)
        else:
            for v in seq:
                if v is seq or (isinstance(v, (list, tuple)) and id(v) in on_path):
                    raise TypeError("new(): self-referential lists are incompatible")
                visit(v, dim + 1)
        on_path.discard(id(seq))

    if ndim == 0:
        leaf(data)
    else:
        visit(data, 0)
    return tuple(sizes), flat, kinds, (bad_leaf[0] if bad_leaf else None)


def _promote_all(kinds):
    out = None
    for k in kinds:
        out = k if out is None else D.promote_types(out, k)
    return out if out is not None else D.get_default_dtype()


def _infer_dtype(data):
    """dtype of nested Python data as PyTorch infers it."""
    return _promote_all(_walk_data(data)[2])


def _values_as(flat, shape, dtype):
    """A host array of dtype from Python numbers, with torch.tensor()'s range checks:
    an int past int64 is ValueError, a value outside an integer dtype RuntimeError."""
    from ._checks import scalar_overflows
    kind = "f" if dtype.is_floating_point else dtype.np.kind
    if kind == "b":
        return np.array([bool(v) for v in flat], dtype=np.bool_).reshape(shape)
    if kind == "f":
        try:
            with np.errstate(over="ignore"):   # past the dtype's range is inf, as PyTorch
                # (bfloat16: float32 values here, rounded to its words by tensor())
                np_dtype = np.float32 if dtype is D.bfloat16 else dtype.np
                return np.array(flat, dtype=np.float64).astype(np_dtype).reshape(shape)
        except OverflowError:
            raise OverflowError("int too big to convert") from None
    # integer dtypes
    if any(type(v) is float or isinstance(v, np.floating) for v in flat):
        vals = []
        for v in flat:
            if isinstance(v, (float, np.floating)):
                if scalar_overflows(float(v), dtype):
                    raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
                v = math.trunc(v)
            vals.append(int(v))
        flat = vals
    try:
        arr = np.array(flat, dtype=np.int64)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    if arr.size and dtype is not D.int64:
        lo, hi = int(arr.min()), int(arr.max())
        if scalar_overflows(lo, dtype) or scalar_overflows(hi, dtype):
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return arr.astype(dtype.np).reshape(shape)


def _to_host_array(data, dtype=None):
    """(host array, dtype) holding data's values."""
    if isinstance(data, Tensor):
        arr = data._host_array()
        return arr, dtype or data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return np.asarray(data), dtype or D.from_numpy_dtype(data.dtype)
    if isinstance(data, range):
        data = list(data)
    shape, flat, kinds, bad_leaf = _walk_data(data, dtype is not None)
    dtype = dtype or _promote_all(kinds)
    if bad_leaf is MULTI_ELEMENT_TENSOR:        # (PyTorch stores it as a number of the result's dtype)
        if dtype.is_floating_point:
            raise ValueError("only one element tensors can be converted to Python scalars")
        raise TypeError("only integer tensors of a single element can be converted to an index")
    if bad_leaf is not None:
        if dtype.is_floating_point:
            raise TypeError(f"must be real number, not {bad_leaf}")
        raise TypeError(f"'{bad_leaf}' object cannot be interpreted as an integer")
    return _values_as(flat, shape, dtype), dtype


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of data (numbers, nested lists, arrays or tensors)."""
    if isinstance(data, Tensor):
        from ._warnings import warn
        warn("tensor_of_tensor")
        if pin_memory:
            raise RuntimeError("Can't pin tensor constructed from a variable")
    if dtype is not None:
        dtype = D.to_dtype(dtype)
    if device is None and isinstance(data, Tensor):
        device = data.device
    device = to_device(device)
    arr, dtype = _to_host_array(data, dtype)
    if dtype is D.bfloat16:
        # the values (float32 through PyTorch's conversions) rounded to bfloat16's words,
        # laid out as the source
        from .backends._bfloat16 import narrow_host
        words = np.empty_like(arr, dtype=np.uint16)
        words[...] = narrow_host(arr).reshape(arr.shape)
        arr = words
    elif arr.dtype != dtype.np:
        if dtype.np.kind in "iu" and arr.dtype.kind == "f":
            arr = np.trunc(arr)         # (toward zero; to bool a float is x != 0: 0.5 is True)
        arr = np.asarray(arr, dtype=dtype.np)
    if arr.ndim >= 2 and not arr.flags.c_contiguous and min(arr.strides) >= 0:
        # PyTorch copies a tensor's or array's layout (preserve_format): a transposed
        # source gives a transposed copy
        shape = arr.shape
        strides = preserve_strides(shape, tuple(st // arr.itemsize for st in arr.strides))
        if strides != contiguous_strides(shape):
            order = order_of_strides(shape, strides)
            buf = get_backend(device.type).from_host(np.ascontiguousarray(arr.transpose(order)))
            return _finish(Tensor._make(Storage(buf, device), Size(shape), strides, 0, dtype), requires_grad)
    buf = get_backend(device.type).from_host(arr)
    return _new(buf, arr.shape, dtype, device, requires_grad)


def from_numpy(array):
    """A tensor sharing memory with a numpy array (writes show both ways)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = D.from_numpy_dtype(array.dtype)
    buf, offset, strides = get_backend("cpu").from_numpy(array)
    # (the array's memory: a resize_ may not move the tensor off it)
    return Tensor._make(fix(Storage(buf, CPU)), Size(array.shape), tuple(strides), offset, dtype)


def as_tensor(data, *, dtype=None, device=None):
    """Share memory with data when dtype and device allow, else copy (as PyTorch)."""
    dtype = D.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        out = data
        if dtype is not None or device is not None:
            out = data.to(dtype=dtype, device=device)
        return out
    if isinstance(data, np.ndarray) and (dtype is None or dtype.np == data.dtype) and \
            to_device(device).type == "cpu":
        try:
            return from_numpy(data)
        except (TypeError, ValueError):
            pass
    if hasattr(data, "__cuda_array_interface__"):
        from .backends import get_backend as gb
        return gb("cuda").tensor_from_cuda_array(data, dtype)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """torch.asarray (PyTorch's tensor_new.cpp rules): a tensor, a NumPy array or a buffer is
    shared where dtype and device allow, copied where they differ (copy=None) or always
    (copy=True), and copy=False that cannot share is a ValueError naming why; a sequence is
    always copied.  requires_grad left unset is obj.requires_grad (with PyTorch's warning,
    once); an explicit False detaches a non-leaf result and clears the flag of a leaf one:
    of obj itself when obj is returned, as in PyTorch."""
    for name, value, allowed in (("copy", copy, (None, True, False)), ("requires_grad", requires_grad, (True, False, None))):
        if not any(value is a for a in allowed):        # (PyTorch's parser: bools)
            raise TypeError(f"asarray(): argument '{name}' must be bool, not {type(value).__name__}")
    source = obj if isinstance(obj, Tensor) else None
    return_requires_grad = (source is not None and source.requires_grad) if requires_grad is None else requires_grad
    if return_requires_grad and requires_grad is None:
        from ._warnings import warn_once
        warn_once("asarray_requires_grad", "torch.asarray: unspecified requires_grad now defaults to "
                  "obj.requires_grad instead of False. Pass requires_grad=False explicitly to get the old "
                  "behavior and silence this warning.")
    if copy is False and isinstance(obj, np.generic):
        raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
    aliasable = source is not None or isinstance(obj, np.ndarray)
    if copy is False and aliasable:
        _check_aliasable(obj, dtype, device)
    out = as_tensor(obj, dtype=dtype, device=device)
    shares = (source is not None and out._storage is obj._storage) or \
        (isinstance(obj, np.ndarray) and out.device.type == "cpu" and np.shares_memory(out._host_raw(), obj))
    if copy and shares:
        out = out.clone()
    elif copy is False and not shares:
        what = "tensor" if aliasable else "arbitrary sequence"
        raise ValueError(f"can't alias {what} into a tensor.")
    if not out.is_leaf and not return_requires_grad:
        return out.detach()     # (a non-leaf's flag cannot be cleared)
    if return_requires_grad and not out._dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    if return_requires_grad != out.requires_grad:
        out.requires_grad_(return_requires_grad)
    return out


def _check_aliasable(obj, dtype, device):
    """asarray's copy=False: the ValueError PyTorch gives when obj's device or dtype is not the
    one asked for (a NumPy array's as from_numpy reads it)."""
    have_device = obj.device if isinstance(obj, Tensor) else to_device("cpu")
    if device is not None and to_device(device) != have_device:    # (the device as given: 'cuda', not cuda:0)
        raise ValueError(f"can't alias tensor from device '{have_device}' to '{device}'.")
    if dtype is None:
        return
    have = obj._dtype if isinstance(obj, Tensor) else D.from_numpy_dtype(obj.dtype)
    want = D.to_dtype(dtype)
    if have is not None and want is not have:
        raise ValueError(f"can't alias tensor with dtype '{D.scalar_type_name(have)}' into dtype "
                         f"'{D.scalar_type_name(want)}'.")


# -- filled ----------------------------------------------------------------------------------
def _filled(size, value, dtype, device, requires_grad):
    shape = _size_args(size, dtype.itemsize)
    device = to_device(device)
    buf = get_backend(device.type).full(math.prod(shape), dtype.np, value)
    return _new(buf, shape, dtype, device, requires_grad)


def _dt(dtype):
    return D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()


def _size_given(name, size):
    """PyTorch's parser: a factory called with no size at all ('zeros()') has no default one;
    zeros(()) is a 0-dim tensor."""
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')


def _pinned():
    """The factories' pin_memory=True, which needs a GPU (their layout= needs nothing: every
    nbgrad tensor is strided, and a value that is not a layout is the parser's TypeError,
    ops/_signatures).  Called only when pin_memory is true: the common call pays one test."""
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
                           "allocator is available on this system.")


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    _size_given("zeros", size)
    dims = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list, Size)) else size
    if _small_shape(dims) is None and any(isinstance(n, (int, np.integer)) and n < 0 for n in dims):
        raise RuntimeError("zeros: Dimension size must be non-negative.")   # zeros' own check, as PyTorch
    return _filled(size, 0, _dt(dtype), device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    _size_given("ones", size)
    return _filled(size, 1, _dt(dtype), device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None, pin_memory=False, layout=None):
    if pin_memory:
        _pinned()
    _size_given("empty", size)
    dtype = _dt(dtype)
    shape = _size_args(size, dtype.itemsize)
    device = to_device(device)
    buf = get_backend(device.type).empty(math.prod(shape), dtype.np)
    t = _new(buf, shape, dtype, device, requires_grad)
    if memory_format is not None and memory_format is not contiguous_format:
        t._stride = format_strides(tuple(shape), memory_format)   # channels_last...; Preserve raises
    return _settings.fill_uninitialized(t)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False, layout=None):
    """An uninitialised tensor with the given strides, in new memory just large enough."""
    if pin_memory:
        _pinned()
    shape, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(shape) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(n < 0 for n in shape) or any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided: sizes and strides must be non-negative, got sizes {list(shape)} "
                           f"and strides {list(stride)}")
    device = to_device(device)
    dtype = _dt(dtype)
    span = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    buf = get_backend(device.type).empty(span, dtype.np)
    return _settings.fill_uninitialized(_finish(Tensor._make(Storage(buf, device), Size(shape), stride, 0, dtype),
                                                requires_grad))


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    from ._checks import as_number, checked_scalar
    if isinstance(fill_value, Tensor):
        fill_value = as_number(fill_value, "full", "fill_value", 2)
    if dtype is None:
        dtype = D.scalar_dtype(fill_value)
    dtype = D.to_dtype(dtype)
    checked_scalar(fill_value, dtype)
    if not dtype.is_floating_point and dtype.np.kind in "iu" and isinstance(fill_value, float):
        fill_value = math.trunc(fill_value)
    return _filled((size,) if isinstance(size, int) else tuple(size), fill_value, dtype, device, requires_grad)


def _like(x, dtype, device):
    return (D.to_dtype(dtype) if dtype is not None else x.dtype), (device if device is not None else x.device)


def _like_layout(t, x, memory_format=None):
    """Re-lay t's values (uniform, or i.i.d. random) as x.clone(memory_format) would be laid
    out; preserve_format (the default): x's strides when x is dense, else dense strides in
    x's dims' order."""
    strides = copy_strides(tuple(x.shape), tuple(x.stride()), memory_format)
    if strides == t.stride():
        return t
    t._stride = tuple(strides)
    return t


def zeros_like(x, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    dtype, device = _like(x, dtype, device)
    return _like_layout(_filled(x.shape, 0, dtype, device, requires_grad), x, memory_format)


def ones_like(x, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    if not x._shape and dtype is None and device is None and not requires_grad and memory_format is None:
        # a 0-dim x (backward()'s implicit gradient of a loss): no size or layout to work out
        dev = x._storage.device
        return Tensor._from_buffer(get_backend(dev.type).full(1, x._dtype.np, 1), x._shape, x._dtype, dev)
    dtype, device = _like(x, dtype, device)
    return _like_layout(_filled(x.shape, 1, dtype, device, requires_grad), x, memory_format)


def empty_like(x, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    dtype, device = _like(x, dtype, device)
    return _like_layout(empty(x.shape, dtype=dtype, device=device, requires_grad=requires_grad), x, memory_format)


def full_like(x, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
              pin_memory=False):
    if pin_memory:
        _pinned()
    dtype, device = _like(x, dtype, device)
    return _like_layout(full(x.shape, fill_value, dtype=dtype, device=device, requires_grad=requires_grad), x, memory_format)


def rand_like(x, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    dtype, device = _like(x, dtype, device)
    return _like_layout(rand(x.shape, dtype=dtype, device=device, requires_grad=requires_grad), x, memory_format)


def randn_like(x, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    dtype, device = _like(x, dtype, device)
    return _like_layout(randn(x.shape, dtype=dtype, device=device, requires_grad=requires_grad), x, memory_format)


def randint_like(x, low=0, high=None, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    if high is None:
        low, high = 0, low
    dtype, device = _like(x, dtype, device)
    return _like_layout(randint(low, high, x.shape, dtype=dtype, device=device), x)


# -- ranges ------------------------------------------------------------------------------------
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    _flag_first("arange", requires_grad, (start,) if end is None else (start, end) if step == 1 else (start, end, step))
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in vals) else D.int64
    dtype = D.to_dtype(dtype)
    check_dtype("arange", dtype)
    if dtype is D.int64:
        # PyTorch sizes an int64 range in int64: bounds and step truncated first (arange(0.5,
        # 3.7, 1, dtype=int64) is [0, 1, 2]; a step truncated to 0, its ValueError).  Other
        # integer dtypes it sizes in double, as below ([0, 1, 2, 3] in int32)
        start, end, step = (int(v) for v in (start, end, step))
        if step == 0:
            raise ValueError("step must be nonzero")
    n = max(0, math.ceil((end - start) / step))
    _size_args((n,), dtype.itemsize)
    device = to_device(device)
    buf = get_backend(device.type).arange(n, start, step, dtype.np)
    return _new(buf, (n,), dtype, device, requires_grad)


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).")


def range_(start, end, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """torch.range (nbgrad.range; deprecated by PyTorch, with its warning at every call): the
    int((end - start) / step) + 1 values start + i * step, end included, of the default dtype
    unless dtype says otherwise.  As ATen's range kernel: computed in its accumulate type
    (double for float32/float64, float for the half types, int64 for an integer dtype, whose
    bounds and step are truncated first) and rounded once into the dtype."""
    from ._warnings import warn_user
    if pin_memory:
        _pinned()
    _flag_first("range", requires_grad, (start, end, step))
    warn_user(_RANGE_WARNING, UserWarning)
    dtype = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    if dtype is D.bool_:
        raise NotImplementedError('"range_cpu" not implemented for \'Bool\'')
    check_dtype("range", dtype)
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    acc = np.float64 if dtype in (D.float32, D.float64) else np.float32 if dtype.is_floating_point else np.int64
    start, end, step = (acc(v) if dtype.is_floating_point else int(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {float(start):g} -> {float(end):g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int((end - start) / step + 1)
    _size_args((n,), dtype.itemsize)
    values = start + np.arange(n, dtype=acc) * acc(step)
    return _finish(tensor(values, dtype=dtype, device=device), requires_grad)


def _scalar_ends(name, start, end):
    """(start, end) as numbers: linspace's and logspace's Tensor overloads take 0-dim tensors
    (their values) and refuse others, before any other check."""
    s, e = isinstance(start, Tensor), isinstance(end, Tensor)
    if not (s or e):
        return start, end
    if (s and start.dim()) or (e and end.dim()):
        if s and e:
            got = f"start with {start.dim()} dimension(s) and end with {end.dim()} dimension(s)"
        else:
            got = f"start with {start.dim()} dimension(s)" if s else f"end with {end.dim()} dimension(s)"
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {got}.")
    return (start.item() if s else start), (end.item() if e else end)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    start, end = _scalar_ends("linspace", start, end)
    if pin_memory:
        _pinned()
    _flag_first("linspace", requires_grad, (start, end, steps))
    dtype = _dt(dtype)
    check_dtype("linspace", dtype)
    device = to_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    from .autograd.grad_mode import no_grad
    with no_grad():
        return _finish(_linspace(start, end, int(steps), dtype, device), requires_grad)


def _linspace(start, end, steps, dtype, device):
    """PyTorch's linspace kernel, value for value: start and end in the dtype (an integer
    dtype truncates them), step = (end - start) / (steps - 1) in the dtype (in double for an
    integer dtype), the first steps // 2 values start + step * i and the others
    end - step * (steps - 1 - i), each one fused multiply-add (GCC contracts PyTorch's
    expressions: one rounding), an integer dtype truncating the double.  float16 is
    PyTorch's Half arithmetic instead: every operation rounded to half."""
    from .ops.elementwise import fma_raw
    from .ops.indexing import cat
    if steps <= 1:
        t = empty(steps, dtype=dtype, device=device)
        return t.fill_(start) if steps else t
    half = steps // 2
    if dtype in (D.float16, D.bfloat16):
        return _linspace_half(start, end, steps, half, device, dtype)
    compute = dtype if dtype.is_floating_point else D.float64
    T = compute.np.type
    if dtype.is_floating_point:
        s, e = T(D.round_scalar(float(start), dtype)), T(D.round_scalar(float(end), dtype))
    else:
        s, e = T(int(start)), T(int(end))
    step = (e - s) / T(steps - 1)           # (in the dtype's own arithmetic: NumPy scalars)
    first = fma_raw(arange(half, dtype=compute, device=device), float(step), float(s), compute)
    rest = arange(steps - half - 1, -1, -1, dtype=compute, device=device)
    out = cat([first, fma_raw(rest, float(-step), float(e), compute)])
    return out if dtype is compute else out.to(dtype)


def _linspace_half(start, end, steps, half, device, dtype=D.float16):
    """float16's linspace as c10::Half computes it: each operation in float32, rounded to
    half (the index too); bfloat16's likewise, rounded to c10::BFloat16."""
    from .ops.indexing import cat
    if dtype is D.float16:
        h = np.float16
    else:
        def h(v):
            return np.float32(D.round_scalar(float(v), dtype))
    s, e = h(D.round_scalar(float(start), dtype)), h(D.round_scalar(float(end), dtype))
    with np.errstate(over="ignore", invalid="ignore"):       # (overflow to inf, as Half's)
        step = h(np.float32(h(np.float32(e) - np.float32(s))) / np.float32(h(steps - 1)))

    def rounded(t):
        return t.to(dtype).to(D.float32)
    idx = rounded(arange(steps, dtype=D.float32, device=device))
    first = rounded(rounded(idx[:half] * float(step)) + float(s))
    rest = rounded(idx[:steps - half].flip(0) * float(step))
    return cat([first, rounded(float(e) - rest)]).to(dtype)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    """PyTorch's logspace, value for value: base ** x in double for exponents x spaced as
    linspace spaces them (start and end in the dtype, the step in double, the second half
    counted back from end; plain multiply and add: PyTorch's loop here is not contracted),
    rounded to the dtype (an integer one truncates)."""
    start, end = _scalar_ends("logspace", start, end)
    if pin_memory:
        _pinned()
    _flag_first("logspace", requires_grad, (start, end, steps))
    dtype = _dt(dtype)
    check_dtype("logspace", dtype)
    device = to_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    from .autograd.grad_mode import no_grad
    from .ops.indexing import cat
    steps = int(steps)
    with no_grad():
        if steps <= 1:
            t = empty(steps, dtype=dtype, device=device)
            if steps:
                with np.errstate(all="ignore"):         # (C's pow: NaN for a negative base's fraction)
                    t.fill_(float(np.power(np.float64(base), np.float64(start))))
            return _finish(t, requires_grad)
        if dtype.is_floating_point:
            s, e = D.round_scalar(float(start), dtype), D.round_scalar(float(end), dtype)
            diff = D.round_scalar(e - s, dtype)          # (end - start in the dtype)
        else:
            s, e = float(int(start)), float(int(end))
            diff = e - s
            base = float(np.float32(base))          # (PyTorch's integer branch: a float base)
        step = diff / (steps - 1)
        half = steps // 2
        first = arange(half, dtype=D.float64, device=device) * step + s
        rest = e - arange(steps - half - 1, -1, -1, dtype=D.float64, device=device) * step
        out = float(base) ** cat([first, rest])
    return _finish(out.to(dtype), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    n = as_symint(n, "eye", "n", 1)
    m = n if m is None else as_symint(m, "eye", "m", 2)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    t = zeros(n, m, dtype=dtype, device=device)
    k = min(n, m)
    if k:
        get_backend(t.device.type).fill((t._storage.buffer, 0, (k,), (m + 1,)), 1)
    return _finish(t, requires_grad)


# -- random ---------------------------------------------------------------------------------------
class Generator:
    """The default generator: seeding goes to each backend's kernel-side state."""

    def __init__(self):
        self._seed = None

    def manual_seed(self, seed):
        self._seed = int(seed)
        get_backend("cpu").manual_seed(self._seed)
        if "cuda" in _LOADED_BACKENDS:  # not loaded yet: it seeds itself from here on import
            _LOADED_BACKENDS["cuda"].manual_seed(self._seed)
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        import random as _random
        return self.manual_seed(_random.getrandbits(63))._seed


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def _floating_draw(kernel, dtype):
    """PyTorch's refusal of a uniform or normal draw of an integer or bool dtype (the draws
    are of floats: a bool uniform's redraw of values that round to `high` never ended)."""
    refuse(kernel, dtype, INTEGRAL)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    _size_given("rand", size)
    dtype, device = _dt(dtype), to_device(device)
    shape = _size_args(size, dtype.itemsize)
    _floating_draw("check_uniform_bounds", dtype)
    buf = get_backend(device.type).uniform(math.prod(shape), dtype.np, 0.0, 1.0)
    return _new(buf, shape, dtype, device, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    _size_given("randn", size)
    dtype, device = _dt(dtype), to_device(device)
    shape = _size_args(size, dtype.itemsize)
    _floating_draw("normal_kernel_cpu", dtype)
    buf = get_backend(device.type).normal(math.prod(shape), dtype.np, 0.0, 1.0)
    return _new(buf, shape, dtype, device, requires_grad)


def randint(low, high=None, size=None, *, dtype=None, device=None, requires_grad=False, generator=None, layout=None,
            pin_memory=False):
    if pin_memory:
        _pinned()
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dtype = D.to_dtype(dtype) if dtype is not None else D.int64
    shape = _size_args((size,) if isinstance(size, int) else tuple(size), dtype.itemsize)
    from ._checks import check_random_range
    check_random_range(int(low), int(high), dtype)
    device = to_device(device)
    buf = get_backend(device.type).randint(math.prod(shape), dtype.np, int(low), int(high))
    return _new(buf, shape, dtype, device)


def randperm(n, *, dtype=None, device=None, requires_grad=False, generator=None, layout=None, pin_memory=False):
    if pin_memory:
        _pinned()
    _flag_first("randperm", requires_grad, (n,))
    if dtype is not None:
        check_dtype("randperm", D.to_dtype(dtype))
    device = to_device(device)
    _size_args((n,), 8)
    buf = get_backend(device.type).randperm(int(n))
    t = _new(buf, (int(n),), D.int64, device)
    return t if dtype is None or D.to_dtype(dtype) is D.int64 else t.to(dtype)


def uniform_(t, a=0.0, b=1.0, generator=None):
    from .ops.inplace import write_random, UniformBackward0
    _floating_draw("check_uniform_bounds", t.dtype)
    return write_random(t, get_backend(t.device.type).uniform(t.numel(), t.dtype.np, float(a), float(b)),
                        UniformBackward0)


def normal_(t, mean=0.0, std=1.0, generator=None):
    from .ops.inplace import write_random, NormalBackward0
    _floating_draw("normal_kernel_cpu", t.dtype)
    return write_random(t, get_backend(t.device.type).normal(t.numel(), t.dtype.np, float(mean), float(std)),
                        NormalBackward0)


def random_(t, low=0, high=None, generator=None):
    from .ops import inplace
    node_cls = inplace.RandomBackward0
    if high is None:
        node_cls = inplace.RandomBackward1 if low else inplace.RandomBackward2
        low, high = 0, (low if low else 2 ** 24)
        if not low and not t.dtype.is_floating_point and t.dtype.np.kind in "iu" and t.dtype is not D.int64:
            high = int(np.iinfo(t.dtype.np).max) + 1   # random_() draws over the dtype's range
    from ._checks import check_random_range
    check_random_range(int(low), int(high), t.dtype)
    return inplace.write_random(t, get_backend(t.device.type).randint(t.numel(), t.dtype.np, int(low), int(high)),
                                node_cls)


def bernoulli_(t, p=0.5, generator=None):
    from .ops.inplace import write_random, BernoulliBackward2
    from .autograd.grad_mode import no_grad
    with no_grad():
        draws = rand(t.shape, dtype=D.float64, device=t.device)
        buf = (draws < p).to(t.dtype)._storage.buffer
    return write_random(t, buf, BernoulliBackward2)


def exponential_(t, lambd=1.0, generator=None):
    """Draws from Exp(lambd): -log1p(-u) / lambd of uniform draws u in [0, 1) (float64, then
    t's dtype); PyTorch's checks (a floating dtype, lambd > 0)."""
    from .ops.inplace import write_random, ExponentialBackward0
    from .autograd.grad_mode import no_grad
    if not t.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {D.scalar_type_name(t.dtype)}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={float(lambd):g}")
    with no_grad():
        draws = rand(t.shape, dtype=D.float64, device=t.device)
        buf = (draws.neg().log1p().neg() / float(lambd)).to(t.dtype)._storage.buffer
    return write_random(t, buf, ExponentialBackward0)


def normal(mean, std, size=None, *, dtype=None, device=None, generator=None, requires_grad=False, out=None):
    """Draws from N(mean, std); mean/std may be tensors (then the result has their shape).
    out=: drawn in out's dtype, as PyTorch's normal_out (N(0, 1) draws, then * std + mean)."""
    from .autograd.grad_mode import no_grad
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = mean if isinstance(mean, Tensor) else std
        if out is not None:
            from .ops import _out
            from .ops._graph import broadcast_shapes
            _out.check_out_type("normal", out)
            _out.check_no_grad("normal", (mean, std), (out,))
            _floating_draw("normal_kernel_cpu", out.dtype)
            shape = broadcast_shapes(*(v.shape for v in (mean, std) if isinstance(v, Tensor)))
            with no_grad():
                result = randn(shape, dtype=out.dtype, device=out.device) * std + mean
            _out.resize_output(out, shape)
            return _out.write(out, result)
        from .ops.inplace import record_drawn_from
        with no_grad():
            result = randn(ref.shape, dtype=ref.dtype, device=ref.device) * std + mean
        return record_drawn_from(_finish(result, requires_grad), mean, std)
    if out is not None:
        from .ops._out import call_with_out
        return call_with_out("normal", normal, "creation", (mean, std, size),
                             {"dtype": dtype, "requires_grad": requires_grad}, out)
    return _finish(normal_(empty(size, dtype=dtype, device=device), mean, std), requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A 0-dim tensor holding the number s, of the default dtype unless dtype says."""
    from ._checks import as_number
    s = as_number(s, "scalar_tensor", "s", 1)
    return full((), s, dtype=_dt(dtype), device=device, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False, layout=None,
                   pin_memory=False):
    """An uninitialised tensor of `size` whose memory holds its dims in the order
    physical_layout lists them (outermost first): empty(size permuted) permuted back."""
    size, order = tuple(int(n) for n in size), tuple(int(d) for d in physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               f"index {i}).  NB: negative dims not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    strides = [0] * len(size)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(size[d], 1)
    return empty_strided(size, strides, dtype=dtype, device=device, requires_grad=requires_grad)
