"""Lazy modules: parameters whose input size is read off the first input (LazyLinear,
LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d),
after which the module becomes its ordinary class (PyTorch's LazyModuleMixin, cls_to_become)."""
from ... import _creation as C
from ... import _dtype as D
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                        _BatchNorm)
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, _ConvNd
from .layers import Linear
from .module import Module


class _LazyMixin:
    """PyTorch's LazyModuleMixin: until the first call the module holds placeholders; that
    call reads the sizes off its input (initialize_parameters), and the module becomes
    cls_to_become.  A state dict loaded first gives the placeholders its shapes."""

    cls_to_become = None

    def has_uninitialized_params(self):
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors if t is not None)

    def __call__(self, *args, **kwargs):
        if type(self) in _LAZY_CLASSES:
            if not args:
                raise TypeError(f"{type(self).__name__} expects its input as the first positional argument")
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.initialize_parameters(*args, **kwargs)
            if self.has_uninitialized_params():
                raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # PyTorch's _lazy_load_hook: a placeholder takes the saved tensor's shape
        from ...autograd.grad_mode import no_grad
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if is_lazy(t) and key in state_dict and not is_lazy(state_dict[key]):
                with no_grad():
                    t.materialize(tuple(state_dict[key].shape))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class LazyLinear(_LazyMixin, Linear):
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

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
        if not self.has_uninitialized_params():
            self.in_features = self.weight.shape[1]     # (also where a state dict gave the shapes)


class _LazyConvNd(_LazyMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        # the base with 0 channels and no bias, then the placeholders (PyTorch's _LazyConvXdMixin)
        _ConvNd.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device,
                         dtype, output_padding)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        n = self._n + 1
        if input.dim() not in (n, n + 1):
            raise RuntimeError(f"Expected {n}D (unbatched) or {n + 1}D (batched) input to {type(self).__name__}, "
                               f"but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups) + self.kernel_size)
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups) + self.kernel_size)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConvTransposeNd(_LazyConvNd):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device,
                         dtype, output_padding)


class _LazyNorm(_LazyMixin):
    """PyTorch's _LazyNormBase (its lazy instance norms too take affine and running statistics
    by default)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        _BatchNorm.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = C.tensor(0, dtype=D.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for name in ("weight", "bias", "running_mean", "running_var"):
                t = getattr(self, name, None)
                if t is not None and is_lazy(t):
                    t.materialize((self.num_features,))
            self.reset_parameters()


def _lazy(name, base, cls):
    lazy = type(name, (base, cls), {"cls_to_become": cls, "__module__": __name__})
    _LAZY_CLASSES.add(lazy)
    return lazy


_LAZY_CLASSES = {LazyLinear}
LazyConv1d = _lazy("LazyConv1d", _LazyConvNd, Conv1d)
LazyConv2d = _lazy("LazyConv2d", _LazyConvNd, Conv2d)
LazyConv3d = _lazy("LazyConv3d", _LazyConvNd, Conv3d)
LazyConvTranspose1d = _lazy("LazyConvTranspose1d", _LazyConvTransposeNd, ConvTranspose1d)
LazyConvTranspose2d = _lazy("LazyConvTranspose2d", _LazyConvTransposeNd, ConvTranspose2d)
LazyConvTranspose3d = _lazy("LazyConvTranspose3d", _LazyConvTransposeNd, ConvTranspose3d)
LazyBatchNorm1d = _lazy("LazyBatchNorm1d", _LazyNorm, BatchNorm1d)
LazyBatchNorm2d = _lazy("LazyBatchNorm2d", _LazyNorm, BatchNorm2d)
LazyBatchNorm3d = _lazy("LazyBatchNorm3d", _LazyNorm, BatchNorm3d)
LazyInstanceNorm1d = _lazy("LazyInstanceNorm1d", _LazyNorm, InstanceNorm1d)
LazyInstanceNorm2d = _lazy("LazyInstanceNorm2d", _LazyNorm, InstanceNorm2d)
LazyInstanceNorm3d = _lazy("LazyInstanceNorm3d", _LazyNorm, InstanceNorm3d)
