"""Lazy modules: parameters whose input size is read off the first input (LazyLinear), after
which the module becomes its ordinary class (PyTorch's LazyModuleMixin, cls_to_become)."""
from ..parameter import UninitializedParameter, is_lazy
from .layers import Linear
from .module import Module


class LazyLinear(Linear):
    """A Linear whose in_features is the last dim of its first input.  Until then its weight and
    bias are UninitializedParameters (in_features=0); the first call materializes them, runs
    PyTorch's initialization and turns the module into a Linear.  Loading a state dict first
    takes the shapes from the state dict (the module stays lazy until its first call)."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self):
        return any(is_lazy(p) for p in self._parameters.values() if p is not None)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()

    def __call__(self, *args, **kwargs):
        if type(self) is LazyLinear:
            if not args:
                raise TypeError("LazyLinear expects its input as the first positional argument")
            self.initialize_parameters(args[0])
            if self.has_uninitialized_params():
                raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
            self.in_features = self.weight.shape[1]
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)

    def _load_from_state_dict(self, state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs):
        # PyTorch's _lazy_load_hook: a placeholder takes the saved tensor's shape
        for name, param in self._parameters.items():
            key = prefix + name
            if is_lazy(param) and key in state_dict and not is_lazy(state_dict[key]):
                from ...autograd.grad_mode import no_grad
                with no_grad():
                    param.materialize(tuple(state_dict[key].shape))
        super()._load_from_state_dict(state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs)
