"""nn.utils.parametrize: a module's parameter or buffer computed, on every access, by modules
applied to tensors kept in its place (PyTorch's torch.nn.utils.parametrize).

register_parametrization(module, "weight", P) moves `weight` into
module.parametrizations.weight.original (a ParametrizationList holding P), swaps the
module's class for a subclass "Parametrized<Class>" that has a property `weight`, and from
then on `module.weight` is P(original) and `module.weight = X` stores
P.right_inverse(X) into original.  The original keeps its identity through registration
and removal (its storage is swapped with Tensor.set_), so an optimizer built before still
holds the tensor that trains.
"""
import copyreg
from collections.abc import Sequence
from contextlib import contextmanager
from copy import deepcopy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within it, each parametrized tensor is computed once (on first access) and reused:
    a parametrization used in several places of one forward runs once."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest, src):
    """dest takes src's memory and geometry in place (PyTorch's set_): dest stays the same
    object, so whatever holds it (an optimizer) holds the new value."""
    with no_grad():
        dest.set_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to `original` (or to original0,
    original1, ... when the first one's right_inverse returns several tensors)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass        # (right_inverse is then taken as the identity)
        if not isinstance(new, Tensor) and not isinstance(new, Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            # the original object itself becomes `original`, holding right_inverse's value
            _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     "(list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            # forward(right_inverse(original)) must live where original did
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                                 "unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                                 "unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value):
        """Store value: the parametrizations' right_inverses, last to first, then into the
        original(s) in place."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                                       "right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                                     f"while `original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                     f"{self.ntensors}. Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError(f"`right_inverse` must return a sequence of tensors. "
                                         f"Got element {i} of type {type(tensor).__name__}")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                                         f"while `original{i}` has dtype {original_i.dtype}")
                    _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        i = 1
        while str(i) in self._modules:
            x = self[i](x)
            i += 1
        return x


def _inject_new_class(module):
    """module's class becomes Parametrized<Class>, a subclass that may carry properties of
    its own; such a module deep-copies but refuses pickling (as PyTorch's: its class is made
    at run time), so state_dict() is how it is saved."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    dct = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module, tensor_name):
    """The property `tensor_name` of module's (parametrized) class."""
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = _cache[key] = parametrization()
            return tensor
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make module.<tensor_name> parametrization(original); a second registration on the same
    name chains: the newest applies last."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                                 "unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if X.shape != Y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                                 "unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {Y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                                         f"{type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"dtype as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                         f"returned dtype: {Z.dtype}")
                    if Z.shape != Y.shape:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"shape as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.shape: {Y.shape}\n"
                                         f"returned shape: {Z.shape}")
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # made first: its checks may refuse, and the module is then left as it was
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization: tensor_name becomes a parameter or buffer again,
    holding the parametrized value (leave_parametrized=True) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            _maybe_set(original, t)      # (the same object: optimizers need no update)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered on it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give to_module from_module's parametrizations of tensor_name (all of them when None)
    and the very tensors they parametrize (shared, not copied), registering the
    parametrized names on to_module first where it has none."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        src = from_module.parametrizations[name]
        dst = to_module.parametrizations[name]
        if hasattr(src, "original"):
            dst.original = src.original
        else:
            i = 0
            while hasattr(src, f"original{i}"):
                setattr(dst, f"original{i}", getattr(src, f"original{i}"))
                i += 1
    return to_module
