"""Helpers shared by the distributions (torch.distributions.utils): broadcast_all,
logits/probs conversions, lazy_property, the tril <-> vector maps.

Departs from PyTorch: broadcast_all accepts nbgrad tensors and Python numbers only (there is
no __torch_function__ protocol in nbgrad).
"""
from functools import update_wrapper
import nbgrad

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060   # Euler-Mascheroni constant

# torch.types._Number: the Python numbers a parameter may be given as
_Number = (bool, int, float)


def broadcast_all(*values):
    """Broadcast tensors and numbers together. Numbers become tensors of the first tensor's
    dtype and device, or of the default dtype when every value is a number."""
    if not all(isinstance(v, (nbgrad.Tensor,) + _Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, nbgrad.Tensor) for v in values):
        options = dict(dtype=nbgrad.get_default_dtype())
        for v in values:
            if isinstance(v, nbgrad.Tensor):
                options = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if isinstance(v, nbgrad.Tensor) else nbgrad.tensor(v, **options) for v in values]
    return nbgrad.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return nbgrad.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dims of `value`."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Logits to probabilities: sigmoid for a binary variable, else softmax over the last dim."""
    if is_binary:
        return nbgrad.sigmoid(logits)
    return nbgrad.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp probabilities into [eps, 1 - eps] of their dtype."""
    eps = nbgrad.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Probabilities to logits (log-odds for binary; log-probabilities otherwise), clamped."""
    ps = clamp_probs(probs)
    if is_binary:
        return nbgrad.log(ps) - nbgrad.log1p(-ps)
    return nbgrad.log(ps)


class lazy_property:
    """A property computed once (under grad mode, so that it can carry a graph even when first
    read inside no_grad) and then stored on the instance, replacing the descriptor."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with nbgrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property reads as on the class: also a property, for documentation tools."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    arange = nbgrad.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular part (from diagonal `diag`) of the last two dims, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: a square matrix with zeros above diagonal `diag`."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = nbgrad.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + nbgrad.Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


class _CountAndProbs:
    """Binomial's and NegativeBinomial's shared parameters (PyTorch writes them out in both):
    total_count broadcast with probs or logits (exactly one), expand, and _new."""

    def __init__(self, total_count, probs, logits, validate_args):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super(_CountAndProbs, self).__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        # (the family -- Binomial, not a user's subclass of it -- for PyTorch's check that a
        # subclass with its own __init__ defines its own expand)
        family = next(c for c in type(self).__mro__ if _CountAndProbs in c.__bases__)
        new = self._get_checked_instance(family, _instance)
        batch_shape = nbgrad.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(_CountAndProbs, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)


def probs_or_logits(dist, probs, logits):
    """Bernoulli-like parameters as PyTorch's constructors set them: exactly one of probs and
    logits (ValueError otherwise), broadcast to a tensor, kept as `dist.probs` or `dist.logits`
    and as `dist._param`; returns the batch shape (empty for a Python number)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    value = probs if probs is not None else logits
    param, = broadcast_all(value)
    setattr(dist, "probs" if probs is not None else "logits", param)
    dist._param = param
    return nbgrad.Size() if isinstance(value, _Number) else param.size()
