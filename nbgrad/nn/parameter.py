"""Parameter: a Tensor subclass that a Module registers as one of its learnable weights."""
import sys

from .._storage import Storage
from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad (by default) and that Module.__setattr__ registers.

    `Parameter(t)` shares t's memory and version counter, as PyTorch's does.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        p = object.__new__(cls)
        Tensor._init_from(p, data._storage, data._shape, data._stride, data._offset, data._dtype, data._vc)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__ (Tensor.__init__ is the legacy constructor)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach().clone(), self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = Parameter(Tensor.__deepcopy__(self.detach(), memo), self._requires_grad)
        memo[id(self)] = new
        if self._grad is not None:
            import copy
            new._grad = copy.deepcopy(self._grad, memo)
        return new


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


def zero_grads(params, set_to_none=True):
    """Module.zero_grad and Optimizer.zero_grad: each parameter's .grad set to None, or
    zeroed in place after it leaves any graph (detached if it has a history, else no
    longer requiring grad), as PyTorch's do."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if g.grad_fn is not None:
            g.detach_()
        else:
            g.requires_grad_(False)
        g.zero_()


_UNINITIALIZED = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                  "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                  "`forward` to initialize the parameters before accessing their attributes.")


class _BufferMeta(type):
    # isinstance(t, Buffer) holds for the plain tensors Buffer() returns (marked _is_buffer)
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """PyTorch's nn.Buffer: `module.name = Buffer(t, persistent=...)` registers a buffer, as
    register_buffer does.  Buffer(t) is t detached (its requires_grad kept), a plain Tensor
    marked as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def _uninitialized_use(cls_name, what):
    return ValueError(f"Attempted to use an uninitialized parameter in {what}. This error happens when you are "
                      f"using a `LazyModule` or explicitly manipulating `nbgrad.nn.parameter.{cls_name}` objects. "
                      "When using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
                      "calling torch functions")


class _NoData(Storage):
    """The storage of an uninitialized tensor: it has a device but no memory, and an op that
    reaches for its buffer (a function given the tensor: nbgrad.relu(p), F.linear(x, p))
    refuses with PyTorch's ValueError, naming the nbgrad function the user called."""

    __slots__ = ("owner",)

    def __init__(self, device, owner):
        self.device = device
        self.root = None
        self.owner = owner

    @property
    def buffer(self):
        frame, name = sys._getframe(1), "an nbgrad function"
        while frame is not None:        # the outermost nbgrad frame: the function the user called
            if frame.f_globals.get("__name__", "").startswith("nbgrad."):
                name = f"<function {frame.f_code.co_name}>"
            frame = frame.f_back
        raise _uninitialized_use(self.owner, name)


# What PyTorch lets an uninitialized tensor do (UninitializedTensorMixin._allowed_methods), and
# what nbgrad's own machinery calls on one (repr, pickling, copying, materialize); every other
# method and operator of Tensor refuses with ValueError.
_ALLOWED = frozenset({"__hash__", "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
                      "char", "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize",
                      "__repr__", "__str__", "__reduce_ex__", "__deepcopy__", "detach", "__init__", "__new__",
                      "__class__", "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__sizeof__",
                      "__reduce__", "__init_subclass__", "__subclasshook__", "__format__", "__getstate__",
                      "__setstate__", "__weakref__", "__dict__", "__module__", "__doc__", "__slots__",
                      "__class_getitem__", "__array_priority__", "__torch_function__"})
# conversions: the placeholder of the new dtype/device, as PyTorch's give a 0-element tensor
_CONVERSIONS = ("half", "float", "double", "char", "short", "int", "long", "cuda", "cpu", "to")


class _UninitializedTensor:
    """What UninitializedParameter and UninitializedBuffer share: no elements, questions about
    the shape refused, every op refused (ValueError), and `materialize(shape)` turning the
    same object into cls_to_become of that shape, with its dtype and device."""

    __slots__ = ()
    cls_to_become = None

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED)

    @property
    def data(self):
        return _placeholder(self.device, self.dtype)

    @data.setter
    def data(self, other):
        # (Module._apply: a lazy module's .double() or .to(device) sets the placeholder it
        # gets back: the tensor takes its dtype and device and stays without memory)
        self._dtype = other.dtype
        self._storage = _NoData(other.device, type(self).__name__)

    def materialize(self, shape, device=None, dtype=None):
        from .._creation import empty
        t = empty(tuple(shape), device=device if device is not None else self.device,
                  dtype=dtype if dtype is not None else self.dtype)
        requires_grad = self._requires_grad
        Tensor._init_from(self, t._storage, t._shape, t._stride, t._offset, t._dtype)
        self._requires_grad = requires_grad
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad, None, self.dtype))


def _refusing(name):
    def refuse(self, *args, **kwargs):
        raise _uninitialized_use(type(self).__name__, f"<method '{name}' of 'nbgrad.Tensor' objects>")
    refuse.__name__ = name
    return refuse


def _converting(name):
    def convert(self, *args, **kwargs):
        return getattr(_placeholder(self.device, self.dtype), name)(*args, **kwargs)
    convert.__name__ = name
    return convert


def _install_refusals():
    """Every method and operator Tensor has (its op-table methods included: they are set on
    Tensor before nbgrad.nn is imported) refuses on an uninitialized tensor, but _ALLOWED."""
    for name in dir(Tensor):
        if name in _ALLOWED or name in _UninitializedTensor.__dict__:
            continue
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue            # (nbgrad's private helpers: the machinery's own)
        attr = getattr(Tensor, name)
        if callable(attr) and not isinstance(attr, type):
            setattr(_UninitializedTensor, name, _refusing(name))
    for name in _CONVERSIONS:
        setattr(_UninitializedTensor, name, _converting(name))


_install_refusals()


def _uninitialized(cls, requires_grad, device, dtype):
    """A new uninitialized tensor of cls: a 0-element tensor over a _NoData storage."""
    data = _placeholder(device, dtype)
    t = object.__new__(cls)
    Tensor._init_from(t, _NoData(data.device, cls.__name__), data._shape, data._stride, 0, data._dtype)
    t._requires_grad = bool(requires_grad)
    return t


def _placeholder(device, dtype):
    from .._creation import empty
    from .. import _dtype as D
    return empty(0, device=device, dtype=dtype if dtype is not None else D.get_default_dtype())


class UninitializedParameter(_UninitializedTensor, Parameter):
    """A parameter whose shape is not known yet (a lazy module's before its first call); it
    becomes a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def detach(self):
        return self     # a state dict shows the placeholder itself, as PyTorch's

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self._requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(_UninitializedTensor, Tensor):
    """A buffer whose shape is not known yet (a lazy norm's running statistics); it becomes a
    plain Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _uninitialized(cls, requires_grad, device, dtype)
        t.persistent = persistent
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        # (PyTorch's UninitializedBuffer refuses every function, deepcopy included; its
        # UninitializedParameter has a __deepcopy__ of its own)
        raise _uninitialized_use("UninitializedBuffer", "<function Tensor.__deepcopy__>")


def is_lazy(param):
    return isinstance(param, _UninitializedTensor)
