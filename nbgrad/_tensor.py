"""Tensor: storage + shape + strides + offset, and the autograd fields.

The class owns *meaning*: geometry, aliasing, versions, the grad fields.
Every computation is an op in nbgrad/ops, reached through the methods below.
"""
import math
import sys
import weakref

import numpy as np

from ._warnings import warn_user as _warn_user
from . import _dtype as D
from ._size import Size, device as _device_cls
from ._storage import Storage, VersionCounter, fix
from .autograd.grad_mode import is_grad_enabled
from .backends import get_backend
from .backends._shared.geometry import contiguous_strides  # plain Python, no numba


# Row-major strides by shape, for shapes without size-0 dims only: the ops' layout
# fast path (ops/_graph.py) relies on a hit meaning "row-major and not empty".
_STRIDES_CACHE = {}
row_major_of = _STRIDES_CACHE.get
_new = object.__new__


def row_major(shape):
    """The row-major strides of shape, or None for a shape with a 0 in it (whose layout
    PyTorch decides differently): row_major_of's cached answer, filled in on a miss (a
    tensor from from_numpy or a view has a shape no op has cached yet)."""
    if 0 in shape:
        return None
    return _strides_of(shape)


def _strides_of(shape):
    strides = _STRIDES_CACHE.get(shape)
    if strides is None:
        strides = contiguous_strides(shape)
        if len(_STRIDES_CACHE) < 4096 and 0 not in shape:
            _STRIDES_CACHE[shape] = strides
    return strides


def dense_strides(shape, strides):
    """strides when (shape, strides) is dense and non-overlapping (a permuted contiguous
    layout), else None.  PyTorch's preserve_format keeps such layouts in copies."""
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: -strides[d])
    expected = 1
    for d in reversed(dims):
        if strides[d] != expected:
            return None
        expected *= shape[d]
    return tuple(strides)


def is_non_overlapping(shape, strides):
    """No two elements share memory (broadcast 0-strides and as_strided overlaps do)."""
    dims = sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: strides[d])
    extent = 1
    for d in dims:
        if strides[d] < extent:
            return False
        extent = strides[d] * (shape[d] - 1) + extent
    return True


def _autograd():
    """nbgrad.autograd (which imports this module, so it is looked up on first use, once: a
    function-level import costs ~0.5 us on every call, several per backward())."""
    return sys.modules["nbgrad.autograd"]


def _autograd_node():
    return sys.modules["nbgrad.autograd.node"]


_WARNED_FLOAT_OF_GRAD = [False]     # float(t) of a tensor that requires grad warns once a process

def _capture():
    """nbgrad.compile's capture state (ops._graph.CAPTURE: [recording or None]), imported on
    first use (the op layer imports this module)."""
    global _capture
    from .ops._graph import CAPTURE
    _capture = lambda: CAPTURE       # noqa: E731  (later calls: one closure call)
    return CAPTURE


class Tensor:
    """An n-dimensional strided view over a Storage, with PyTorch's autograd fields."""

    # Fields every tensor sets live in slots; rarely-set ones are class-level defaults
    # that an instance overrides in its __dict__ only when it needs to (cheap creation).
    __slots__ = ("_storage", "_shape", "_stride", "_offset", "_dtype", "_vc",
                 "_requires_grad", "_grad_fn", "_output_nr", "__weakref__", "__dict__")
    _grad = None
    _base = None            # the root tensor a view aliases
    _view_version = 0       # version when a view's grad_fn was last set
    _creation_meta = "DEFAULT"  # a view's CreationMeta (see ops/views.py make_view)
    _grad_acc = None        # weakref to the AccumulateGrad node of a leaf
    _leaf_hooks = None
    _post_accumulate_hooks = None
    # (grad_fn, output_nr, shape, dtype) when an in-place view op under no_grad changed a
    # non-leaf's shape after its grad_fn made it: the shape its gradient must have
    _producer_meta = None
    _retains_grad = False
    # (node, output_nr, grad_fn) after an in-place view op (unsqueeze_, t_, ...) gave the
    # tensor a new grad_fn while its hooks were registered on the old one: PyTorch sets that
    # history without moving the tensor's hooks, so while grad_fn is still that one, later
    # hooks join the earlier ones on the old node (ops/inplace_views.py)
    _hooks_at = None
    _retained_at = None     # (node, output_nr) holding retain_grad when an in-place view op left it there

    # -- construction ------------------------------------------------------
    def __init__(self, *args, device=None, **kwargs):
        # `nbgrad.Tensor(data)` / `Tensor(2, 3)` / `Tensor(t)` as PyTorch's legacy constructor:
        # the default dtype's legacy type's rules (_legacy.legacy_new), whose result this
        # tensor becomes (an alias of t: its storage, version counter and AliasBackward0)
        from ._legacy import legacy_new
        src = legacy_new(D.get_default_dtype(), "cpu", args, device, kwargs, any_tensor=True)
        for name in _SLOTS:
            try:
                object.__setattr__(self, name, object.__getattribute__(src, name))
            except AttributeError:
                pass

    def _init_from(self, storage, shape, stride, offset, dtype, vc=None):
        self._storage = storage
        self._shape = shape
        self._stride = stride
        self._offset = offset
        self._dtype = dtype
        self._vc = vc if vc is not None else VersionCounter()
        self._requires_grad = False
        self._grad_fn = None
        self._output_nr = 0

    @classmethod
    def _make(cls, storage, shape, stride, offset, dtype, vc=None):
        t = object.__new__(Tensor)
        t._init_from(storage, shape, stride, offset, dtype, vc)
        return t

    @classmethod
    def _from_buffer(cls, buffer, shape, dtype, device):
        """A new contiguous tensor owning a buffer the backend returned (the hot path of
        every op: kept to plain attribute stores)."""
        if type(shape) is not Size:
            shape = Size(shape)
        t = _new(Tensor)
        # (Storage and VersionCounter made without their __init__ frames: this runs per op)
        t._storage = storage = _new(Storage)
        storage.buffer = buffer
        storage.device = device
        storage.root = None
        t._shape = shape
        strides = _STRIDES_CACHE.get(shape)
        t._stride = strides if strides is not None else _strides_of(shape)
        t._offset = 0
        t._dtype = dtype
        t._vc = vc = _new(VersionCounter)
        vc.value = 0
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        return t

    def _view_tuple(self):
        """The (buffer, offset, shape, strides) view the backend contract speaks of."""
        return (self._storage.buffer, self._offset, self._shape, self._stride)

    def _backend(self):
        return get_backend(self._storage.device.type)

    def _shallow_alias(self, share_version=True):
        """A new detached Tensor object over the same memory.  (Spelled out, no _make and
        _init_from frames: every op that saves its output for backward makes one.)"""
        t = _new(Tensor)
        t._storage = self._storage
        t._shape = self._shape
        t._stride = self._stride
        t._offset = self._offset
        t._dtype = self._dtype
        t._vc = self._vc if share_version else VersionCounter()
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        return t

    # -- geometry ----------------------------------------------------------
    @property
    def shape(self):
        return self._shape

    def size(self, dim=None):
        if dim is None:
            return self._shape
        return self._shape[self._wrap_dim_of_shape(dim)]

    def stride(self, dim=None):
        if dim is None:
            return self._stride
        return self._stride[self._wrap_dim_of_shape(dim)]

    def storage_offset(self):
        return self._offset

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return math.prod(self._shape)

    nelement = numel

    def element_size(self):
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self._dtype.itemsize

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self):
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._storage.device.type == "cpu"

    def get_device(self):
        d = self._storage.device
        return -1 if d.type == "cpu" else d.index

    def data_ptr(self):
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    def untyped_storage(self):
        return self._storage

    def share_memory_(self):
        """Move the storage into shared memory, in place (every view of it sees the new memory),
        so that other processes it is sent to map the same memory (nbgrad.multiprocessing);
        a no-op when already shared and for a CUDA tensor.  Returns self."""
        self._storage.share_memory_()
        return self

    def is_shared(self):
        """True when the storage is in shared memory (always for a CUDA tensor, as PyTorch)."""
        return self._storage.is_shared()

    def _wrap_dim_of_shape(self, dim):
        """size(dim) / stride(dim): a 0-dim tensor has no dimension to name."""
        if not self._shape and isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._wrap_dim(dim)

    def _wrap_dim(self, dim, ndim=None):
        ndim = len(self._shape) if ndim is None else ndim
        lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            from ._checks import is_integer_tensor
            if not is_integer_tensor(dim):
                raise TypeError(f"dim must be an int, got {type(dim).__name__}")
            dim = dim.item()        # (a 0-dim integer tensor: PyTorch's parser reads its value)
        if dim < lo or dim > hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
        return int(dim) % max(ndim, 1)

    def is_contiguous(self, *positional, memory_format=None):
        if positional:      # (PyTorch's parser: memory_format is keyword-only)
            from ._checks import keyword_only
            raise keyword_only("is_contiguous", positional)
        if memory_format is not None:       # (None: PyTorch's default, contiguous_format; given, it must be one)
            from ._layout import is_contiguous_as, memory_format as _format
            if not isinstance(memory_format, _format):
                raise TypeError(f"is_contiguous(): argument 'memory_format' must be torch.memory_format, not "
                                f"{type(memory_format).__name__}")
            return is_contiguous_as(self._shape, self._stride, memory_format)
        shape = tuple(self._shape)      # (reversed() of a Size would go through its __getitem__)
        if 0 in shape:
            return True
        expected = 1
        for size, st in zip(reversed(shape), reversed(self._stride)):
            if size != 1:
                if st != expected:
                    return False
                expected *= size
        return True

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def is_complex(self):
        return False

    def is_signed(self):
        return self._dtype.is_signed

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return f"nbgrad.{self._dtype._tensor_type}"
        if isinstance(dtype, str) and dtype.endswith("Tensor"):
            dtype = {d._tensor_type: d for d in D.ALL_DTYPES}[dtype.split(".")[-1]]
        if isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), D.dtype):
            dtype = dtype.dtype         # a legacy type: nbgrad.DoubleTensor
        return self.to(D.to_dtype(dtype))

    def _is_view(self):
        return self._base is not None

    @property
    def _version(self):
        return self._vc.value

    # -- autograd fields -------------------------------------------------
    @property
    def requires_grad(self):
        # a view requires grad whenever its base does (also one made before the base did)
        base = self._base
        return self._requires_grad or (base is not None and base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if value and not self._dtype.is_floating_point:     # (the setter's own words)
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if requires_grad is not True and requires_grad is not False:     # (PyTorch's parser: a bool only)
            raise TypeError(f"requires_grad_(): argument 'requires_grad' must be bool, not "
                            f"{type(requires_grad).__name__}")
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if not requires_grad and self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad_fn(self):
        base = self._base
        if base is not None and self._view_version != self._vc.value:
            if self._creation_meta != "DEFAULT":
                if self._grad_fn is not None or base._requires_grad:
                    # no_grad / multi-output views may not have their history rewritten
                    from .ops.views import view_rebase_error
                    raise view_rebase_error(self, indirect=True)
            elif self._grad_fn is not None or base._requires_grad:
                # The base (or another view of it) changed in place since this view was
                # made: its history is now "a strided window of the base's new history"
                # (also when the base no longer requires grad: PyTorch regenerates then too).
                from .ops.inplace import regenerate_view_grad_fn
                regenerate_view_grad_fn(self)
        return self._grad_fn

    @property
    def output_nr(self):
        return self._output_nr

    def _grad_accumulator(self):
        acc = self._grad_acc() if self._grad_acc is not None else None
        if acc is None:
            acc = _autograd_node().AccumulateGrad(self)
            self._grad_acc = weakref.ref(acc)
        return acc

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            from ._warnings import warn         # (PyTorch's TensorBody.h: a non-leaf's .grad)
            warn("non_leaf_grad")
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                                   f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                                   "the same size")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{D.cpp_type_name(value.dtype)}' to a tensor with "
                    f"grad_dtype '{D.scalar_type_name(self.dtype)}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        if not self.requires_grad:          # (a view follows its base)
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return          # (PyTorch tests is_leaf on the stored grad_fn: no view regeneration here)
        self.grad_fn._retain(self._output_nr, self)
        self._retains_grad = True

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        fn = self.grad_fn
        from .autograd.node import RemovableHandle
        if fn is None:
            if self._leaf_hooks is None:
                self._leaf_hooks = []
            self._leaf_hooks.append(hook)
            return RemovableHandle(self._leaf_hooks, hook)
        at = self._hooks_at
        if at is not None and at[2] is fn:
            return at[0]._add_tensor_pre_hook(at[1], hook)
        return fn._add_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after this leaf's .grad has been accumulated in a backward pass
        (DistributedDataParallel starts a bucket's all-reduce from it)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        from .autograd.node import RemovableHandle
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        self._post_accumulate_hooks.append(hook)
        return RemovableHandle(self._post_accumulate_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        _autograd().backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        return self._shallow_alias(share_version=True)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self):
        return self._shallow_alias(share_version=False)

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"Tensor.data must be a Tensor, got {type(other).__name__}")
        self._storage = other._storage
        self._shape = other._shape
        self._stride = other._stride
        self._offset = other._offset
        self._dtype = other._dtype

    # -- conversion --------------------------------------------------------
    def numpy(self, *, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._storage.device.type != "cpu":
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                    "copy the tensor to host memory first.")
            return self.cpu().numpy()
        if self._dtype is D.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")     # (NumPy has no bfloat16)
        fix(self._storage)      # (an array now shares the buffer: resize_ may not replace it, as PyTorch's)
        return self._backend().to_numpy(self._view_tuple())

    def _host_array(self):
        """A numpy array of the values (an alias on the CPU, a host copy for device
        tensors), ignoring requires_grad.  bfloat16: a float32 copy of the values."""
        arr = self._host_raw()
        if self._dtype is D.bfloat16:
            from .backends._bfloat16 import widen_host
            return widen_host(arr.reshape(-1)).reshape(arr.shape)
        return arr

    def _host_raw(self):
        """_host_array's elements as the storage holds them (bfloat16: its uint16 words):
        what a copy between devices moves."""
        if self._storage.device.type == "cpu":
            return self._backend().to_numpy(self._view_tuple())
        return self._backend().to_host(self._view_tuple())

    @property
    def __cuda_array_interface__(self):
        if self._storage.device.type != "cuda":
            raise AttributeError("Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                                 f"{self.type()} If CUDA data is required use tensor.cuda() to copy tensor to device memory.")
        if self._requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. "
                               "If gradients aren't required, use var.detach() to get Variable that doesn't require grad.")
        return self._backend().cuda_array_interface(self._view_tuple())

    # numpy's operators defer to the Tensor's (np.float64(2) * t is a Tensor, as in PyTorch)
    __array_priority__ = 1000

    def __array__(self, dtype=None, copy=None):
        # np.asarray(t) shares a CPU tensor's memory (as PyTorch's); copy=True copies
        arr = self.numpy()
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    @property
    def __array_interface__(self):
        # NumPy's array interface over a CPU tensor's own memory (its strides, its offset)
        if self._storage.device.type != "cpu":
            raise AttributeError("__array_interface__ is only defined for CPU tensors")
        return self.numpy().__array_interface__

    # -- DLPack (nbgrad/_dlpack.py) --
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from ._dlpack import to_dlpack
        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        from ._dlpack import dlpack_device
        return dlpack_device(self)

    def item(self):
        n = self.numel()
        if n != 1:
            raise _not_a_scalar(RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar"), self,
                                "Number")
        if self._storage.device.type == "cpu" and _capture()[0] is None and self._dtype is not D.bfloat16:
            # one element: at the offset, whatever the strides (loss.item() each step: 3.5 -> 0.5 us);
            # while nbgrad.compile captures, the backend's to_numpy, which it sees as a host read
            return self._storage.buffer[self._offset].item()
        return self._host_array().reshape(-1)[0].item()

    def tolist(self):
        return self._host_array().tolist()

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise _not_a_scalar(RuntimeError(
                f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} is ambiguous"), self, "bool")
        return bool(self.item())

    def _python_scalar(self, kind):
        """The one element for float()/int()/complex(): PyTorch's Python-level conversions refuse
        more or fewer with a ValueError (item()'s own refusal is a RuntimeError)."""
        if self.numel() != 1:
            raise _not_a_scalar(ValueError("only one element tensors can be converted to Python scalars"), self, kind)
        return self.item()

    def __float__(self):
        if self._requires_grad and not _WARNED_FLOAT_OF_GRAD[0]:
            # PyTorch's TORCH_WARN_ONCE in float(tensor) (not int(), not item())
            _WARNED_FLOAT_OF_GRAD[0] = True
            _warn_user("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                       "Consider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self._python_scalar("float"))

    def __int__(self):
        return int(self._python_scalar("int"))

    def __index__(self):
        if self._dtype.is_floating_point or self.numel() != 1:
            raise _not_a_scalar(TypeError("only integer tensors of a single element can be converted to an index"),
                                self, "int")
        return int(self.item())

    def __complex__(self):
        return complex(self._python_scalar("complex"))

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        if isinstance(element, Tensor) or isinstance(element, (int, float, bool)):
            return bool((self == element).any())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def __repr__(self):
        from ._format import format_tensor
        return format_tensor(self)

    __str__ = __repr__

    def __format__(self, spec):
        # PyTorch's: a plain 0-dim tensor formats as its number (f"{loss}" -> 0.25); anything
        # else (a Parameter too) as object.__format__ does: str() for an empty spec, else TypeError
        if self.dim() == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __reduce_ex__(self, protocol):
        arr = self._host_array().copy()
        if self._dtype is D.bfloat16:       # (its values as float32, exactly; rebuilt as bfloat16)
            return (_rebuild, (arr, self._requires_grad, str(self.device), self._dtype.name))
        return (_rebuild, (arr, self._requires_grad, str(self.device)))

    def __copy__(self):
        t = Tensor._make(self._storage, self._shape, self._stride, self._offset, self._dtype, self._vc)
        t._requires_grad = self._requires_grad
        t._grad_fn = self._grad_fn
        t._output_nr = self._output_nr
        t._base = self._base
        t._view_version = self._view_version
        if self._creation_meta != "DEFAULT":
            t._creation_meta = self._creation_meta
        t._grad = self._grad
        return t

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.  If you were attempting to deepcopy "
                               "a module, this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        # Tensors deep-copied together keep sharing: one new storage per old storage.
        skey = ("nbgrad.storage", id(self._storage))
        storage = memo.get(skey)
        if storage is None:
            be = self._backend()
            old = self._storage.buffer
            new_buf = be.empty(len(old), old.dtype)
            be.copy((old, 0, (len(old),), (1,)), (new_buf, 0, (len(old),), (1,)))
            storage = Storage(new_buf, self._storage.device)
            memo[skey] = storage
            memo.setdefault("nbgrad.keep", []).append(self._storage)  # keep id() stable
        new = type(self).__new__(type(self))
        Tensor._init_from(new, storage, self._shape, self._stride, self._offset, self._dtype)
        new._requires_grad = self._requires_grad
        memo[id(self)] = new
        # The memo is keyed by id(): keep self alive as long as the memo (copy._keep_alive's rule).
        # A caller may pass a temporary (Parameter passes self.detach()); freed, its id would
        # be reused by the next object and answer for it: a module's deep copy got one
        # parameter's copy in another's place.
        memo.setdefault("nbgrad.keep", []).append(self)
        if self._grad is not None:
            import copy as _copy
            new._grad = _copy.deepcopy(self._grad, memo)
        if self.__dict__:
            import copy as _copy
            new.__dict__.update(_copy.deepcopy(self.__dict__, memo))
        return new


# every slot a tensor's state lives in (Tensor's and its bases'), for Tensor.__init__
_SLOTS = tuple(dict.fromkeys(name for cls in Tensor.__mro__ for name in getattr(cls, "__slots__", ())))


def _not_a_scalar(error, tensor, kind):
    """error, carrying the tensor that could not become a Python `kind` ("int", "float", "bool",
    "Number"): where that tensor was an argument of a public function, ops/_signatures makes it
    PyTorch's argument-parser TypeError ("argument 'dim' (position 2) must be int, not Tensor")."""
    error.scalar_of = (tensor, kind)
    return error


def _rebuild(arr, requires_grad, device, dtype=None):
    from ._creation import tensor
    return tensor(arr, dtype=dtype, requires_grad=requires_grad, device=device)


def _install_methods():
    """Bind the op layer's functions as Tensor methods and operators."""
    from . import ops
    for name, fn in ops.TENSOR_METHODS.items():
        setattr(Tensor, name, fn)
    for name, prop in ops.TENSOR_PROPERTIES.items():
        setattr(Tensor, name, property(prop))
