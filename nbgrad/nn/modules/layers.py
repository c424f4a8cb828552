"""Layers: Linear, activations, Dropout, Flatten, Identity, LayerNorm, Embedding."""
import math

from ... import _creation as C
from ... import _dtype as D
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from ...ops.embedding import wrapped_padding_idx


def _factory(device, dtype):
    return {"device": device, "dtype": dtype if dtype is not None else D.get_default_dtype()}


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ weight.T + bias, initialised uniform in +-1/sqrt(in_features) as PyTorch."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(C.empty((out_features, in_features), **_factory(device, dtype)))
        if bias:
            self.bias = Parameter(C.empty(out_features, **_factory(device, dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


class _AlongDim(Module):
    """A module over a function of (input, dim): Softmax, LogSoftmax."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self).function(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    function = F.softmax


class LogSoftmax(_AlongDim):
    function = F.log_softmax


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """input.unflatten(dim, unflattened_size)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise TypeError("nbgrad has no named tensors: Unflatten's dim must be an int")
        if not isinstance(unflattened_size, (tuple, list)) or \
                not all(isinstance(n, int) for n in unflattened_size):
            raise TypeError(f"unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(C.ones(self.normalized_shape, **_factory(device, dtype)))
            if bias:
                self.bias = Parameter(C.zeros(self.normalized_shape, **_factory(device, dtype)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """y = x / sqrt(mean(x^2 over normalized_shape) + eps) * weight (weight initialised to ones)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(C.empty(self.normalized_shape, **_factory(device, dtype)))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = wrapped_padding_idx(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(C.empty((num_embeddings, embedding_dim), **_factory(device, dtype)),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, **kwargs):
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx, **kwargs)


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (F.embedding_bag), PyTorch's arguments,
    initialisation (normal, the padding row zero) and repr."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = wrapped_padding_idx(padding_idx, num_embeddings, "padding_idx")
        if _weight is None:
            self.weight = Parameter(C.empty((num_embeddings, embedding_dim), **_factory(device, dtype)))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
