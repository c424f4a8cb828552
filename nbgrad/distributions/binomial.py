"""Binomial(total_count=1, probs=None, logits=None) (torch.distributions.Binomial)."""
import nbgrad

from . import constraints
from .distribution import Distribution
from .utils import _CountAndProbs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2 (as PyTorch's)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_CountAndProbs, Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _CountAndProbs.__init__(self, total_count, probs, logits, validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=nbgrad.Size()):
        shape = self._extended_shape(sample_shape)
        with nbgrad.no_grad():
            return nbgrad.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = nbgrad.lgamma(self.total_count + 1)
        log_factorial_k = nbgrad.lgamma(value + 1)
        log_factorial_nmk = nbgrad.lgamma(self.total_count - value + 1)
        # n * log(1 + exp(logits)) written so that it cannot overflow:
        # n * max(logits, 0) + n * log1p(exp(-|logits|))
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * nbgrad.log1p(nbgrad.exp(-nbgrad.abs(self.logits)))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(nbgrad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = nbgrad.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
