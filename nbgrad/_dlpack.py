"""DLPack: zero-copy exchange of tensors with NumPy, PyTorch, CuPy, JAX... (no C compiler).

The capsules are built and read with ctypes, after the DLPack 1.x header (dlpack.h):

    Tensor.__dlpack__(stream=None, max_version=None, dl_device=None, copy=None)
        -> a PyCapsule "dltensor_versioned" (DLManagedTensorVersioned) when the consumer
           says it reads DLPack >= 1.0, else the legacy "dltensor" (DLManagedTensor);
    Tensor.__dlpack_device__() -> (DLDeviceType, device index);
    nbgrad.from_dlpack(obj) -> a Tensor sharing obj's memory (obj has __dlpack__, or is a
           legacy capsule).

Lifetime.  An exported capsule holds a strong reference to the tensor's Storage (in
`_EXPORTS`, keyed by the address of its DLManagedTensor) until the consumer calls the
deleter, or the capsule is collected unconsumed; so the buffer is neither freed nor
handed to a new tensor by any allocator while a consumer holds it.  An imported
tensor's storage keeps an `_Imported` owner alive whose finalizer calls the producer's
deleter once nbgrad no longer holds the memory.

Strides are exported as they are (broadcast 0 strides included); PyTorch's refusals
apply: a tensor that requires grad raises BufferError.
"""
import ctypes
import enum

import numpy as np

from . import _dtype as D


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLCUDAManaged = 13


# DLDataTypeCode
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6
SUPPORTED_VERSION = (1, 1)
_FLAG_READ_ONLY = 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# the CPython capsule API (pythonapi holds the GIL across these calls)
_api = ctypes.pythonapi
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = (ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor)
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
_api.PyErr_Fetch.restype = None
_api.PyErr_Fetch.argtypes = None       # (byref arguments pass through: nothing to convert)
_api.PyErr_Restore.restype = None
_api.PyErr_Restore.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_PyErr_Fetch = _api.PyErr_Fetch
_PENDING = (ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p())
_PENDING_REFS = tuple(ctypes.byref(p) for p in _PENDING)

# capsule names (module constants: the capsule keeps a pointer to them)
_LEGACY, _VERSIONED = b"dltensor", b"dltensor_versioned"
_USED_LEGACY, _USED_VERSIONED = b"used_dltensor", b"used_dltensor_versioned"

# address of an exported DLManagedTensor[Versioned] -> (struct, storage, shape, strides)
_EXPORTS = {}


@_Deleter
def _deleter(address):
    # the consumer is done with the memory: drop our references (the storage may go)
    _EXPORTS.pop(address, None)


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # A capsule collected before any consumer took it (its name unchanged) frees itself.
    # A consumer that refused the capsule drops it with its exception set: it is put
    # aside while this runs and set again at the end, which, in a ctypes callback, prints
    # it as unraisable (the consumer then reports a SystemError): no C compiler, no
    # better way to hand it back.
    # (the first statement may make no new object: with an exception set, that fails)
    _PyErr_Fetch(*_PENDING_REFS)
    exc = tuple(p.value for p in _PENDING)
    try:
        for name in (_LEGACY, _VERSIONED):
            if _api.PyCapsule_IsValid(capsule, name):
                _EXPORTS.pop(_api.PyCapsule_GetPointer(capsule, name), None)
                break
    finally:
        _api.PyErr_Restore(*exc)


# ----------------------------------------------------------------------------- dtypes
def _dl_dtype(np_dtype):
    if np_dtype == np.bool_:
        return _BOOL, 8
    code = {"i": _INT, "u": _UINT, "f": _FLOAT}[np_dtype.kind]
    return code, np_dtype.itemsize * 8


def _np_dtype(code, bits, lanes):
    if lanes != 1:
        raise BufferError(f"DLPack: vector dtypes (lanes={lanes}) are not supported")
    try:
        return np.dtype({(_BOOL, 8): "bool", (_INT, 8): "int8", (_INT, 16): "int16", (_INT, 32): "int32",
                         (_INT, 64): "int64", (_UINT, 8): "uint8", (_UINT, 16): "uint16",
                         (_UINT, 32): "uint32", (_UINT, 64): "uint64", (_FLOAT, 16): "float16",
                         (_FLOAT, 32): "float32", (_FLOAT, 64): "float64"}[(code, bits)])
    except KeyError:
        raise BufferError(f"DLPack: unsupported data type (code {code}, bits {bits})") from None


# ----------------------------------------------------------------------------- export
def dlpack_device(t):
    dev = t._storage.device
    if dev.type == "cpu":
        return (DLDeviceType.kDLCPU, 0)
    return (DLDeviceType.kDLCUDA, dev.index or 0)


def to_dlpack(t, stream=None, max_version=None, dl_device=None, copy=None):
    """Tensor.__dlpack__: a capsule over t's own memory (a copy only with copy=True)."""
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    device = dlpack_device(t)
    if dl_device is not None and (int(dl_device[0]), int(dl_device[1])) != (int(device[0]), device[1]):
        raise BufferError(f"DLPack: can't export a tensor on {t.device} to device {tuple(dl_device)}")
    if device[0] == DLDeviceType.kDLCPU:
        if stream is not None and stream != -1:
            raise AssertionError("stream should be None on cpu.")
    elif stream != -1:
        # nbgrad's kernels run on the default stream: make their writes visible to any
        # stream the consumer reads on
        t._backend().synchronize()
    if copy:
        t = t.clone()
    storage = t._storage
    ndim = len(t._shape)
    shape = (ctypes.c_int64 * max(ndim, 1))(*t._shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*t._stride)
    versioned = max_version is not None and max_version[0] >= 1
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    dl = managed.dl_tensor
    dl.data = storage.data_ptr() or None
    dl.byte_offset = t._offset * t._dtype.itemsize
    dl.device = DLDevice(int(device[0]), device[1])
    dl.ndim = ndim
    dl.dtype = DLDataType(*_dl_dtype(np.dtype(t._dtype.np)), 1)
    dl.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    dl.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    managed.deleter = _deleter
    if versioned:
        managed.version = DLPackVersion(*min(SUPPORTED_VERSION, (1, 0) if max_version[0] == 1 and
                                             max_version[1] < 1 else SUPPORTED_VERSION))
        managed.flags = 2 if copy else 0            # DLPACK_FLAG_BITMASK_IS_COPIED
    address = ctypes.addressof(managed)
    _EXPORTS[address] = (managed, storage, shape, strides)
    return _api.PyCapsule_New(address, _VERSIONED if versioned else _LEGACY, _capsule_destructor)


# ----------------------------------------------------------------------------- import
class _Imported:
    """Owner of memory received through DLPack: calls the producer's deleter when the
    last nbgrad array over it is gone."""

    def __init__(self, address, deleter, interface_name, interface):
        self._address = address
        self._deleter = deleter
        setattr(self, interface_name, interface)

    def __del__(self):
        deleter, self._deleter = self._deleter, None
        if deleter:
            deleter(self._address)


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _capsule_of(obj, device):
    """obj's capsule, asking for the newest DLPack we read (older producers: fewer args)."""
    stream = None if device[0] in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost) else 1
    try:
        return obj.__dlpack__(stream=stream, max_version=SUPPORTED_VERSION)
    except TypeError:
        pass
    try:
        return obj.__dlpack__(stream=stream)
    except TypeError:
        return obj.__dlpack__()


def from_dlpack(ext_tensor):
    """A Tensor sharing the memory of `ext_tensor`: any object with __dlpack__ (a NumPy
    array, a PyTorch/CuPy/JAX tensor, an nbgrad tensor) or a legacy DLPack capsule."""
    from ._tensor import Tensor
    if hasattr(ext_tensor, "__dlpack__"):
        device = ext_tensor.__dlpack_device__()
        capsule = _capsule_of(ext_tensor, (int(device[0]), int(device[1])))
    elif _is_capsule(ext_tensor):
        capsule = ext_tensor
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(ext_tensor).__name__}")
    cap = ctypes.c_void_p(id(capsule))
    if _api.PyCapsule_IsValid(cap, _VERSIONED):
        address = _api.PyCapsule_GetPointer(cap, _VERSIONED)
        managed = DLManagedTensorVersioned.from_address(address)
        if managed.version.major > SUPPORTED_VERSION[0]:
            raise BufferError(f"DLPack: version {managed.version.major}.{managed.version.minor} is newer "
                              f"than the {SUPPORTED_VERSION[0]}.x nbgrad reads")
        used = _USED_VERSIONED
    elif _api.PyCapsule_IsValid(cap, _LEGACY):
        address = _api.PyCapsule_GetPointer(cap, _LEGACY)
        managed = DLManagedTensor.from_address(address)
        used = _USED_LEGACY
    else:
        raise ValueError("from_dlpack: the capsule was already consumed (or is not a DLPack capsule)")
    dl = managed.dl_tensor
    np_dtype = _np_dtype(dl.dtype.code, dl.dtype.bits, dl.dtype.lanes)
    if np_dtype.kind == "u" and np_dtype != np.uint8:
        raise TypeError(f"from_dlpack: nbgrad has no {np_dtype} dtype")
    ndim = dl.ndim
    shape = tuple(dl.shape[i] for i in range(ndim))
    if dl.strides:
        strides = tuple(dl.strides[i] * np_dtype.itemsize for i in range(ndim))
    else:
        strides = None
    ptr = (dl.data or 0) + dl.byte_offset
    device_type = dl.device.device_type
    # from here on the memory is ours to release: the capsule must not free it again
    _api.PyCapsule_SetName(cap, used)
    deleter = managed.deleter if managed.deleter else None
    if device_type in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
        interface = {"shape": shape, "strides": strides, "typestr": np_dtype.str,
                     "data": (ptr, bool(getattr(managed, "flags", 0) & _FLAG_READ_ONLY)), "version": 3}
        owner = _Imported(address, deleter, "__array_interface__", interface)
        from ._creation import from_numpy
        if 0 in shape:
            arr = np.empty(shape, dtype=np_dtype)
        else:
            arr = np.asarray(owner)
            if not arr.flags.writeable:       # a read-only export: nbgrad has no read-only tensors
                arr = arr.copy()
        return from_numpy(arr)
    if device_type in (DLDeviceType.kDLCUDA, DLDeviceType.kDLCUDAManaged):
        interface = {"shape": shape, "strides": strides, "typestr": np_dtype.str,
                     "data": (ptr if 0 not in shape else 0, False), "version": 3}
        owner = _Imported(address, deleter, "__cuda_array_interface__", interface)
        from .backends import get_backend
        return get_backend("cuda").tensor_from_cuda_array(owner)
    if deleter:
        deleter(address)
    raise BufferError(f"from_dlpack: unsupported device type {device_type}")

