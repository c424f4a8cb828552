"""NegativeBinomial(total_count, probs=None, logits=None) (torch.distributions.NegativeBinomial):
the number of successes before `total_count` failures; sampled as a Gamma-Poisson mixture."""
import nbgrad

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _CountAndProbs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


def _F():
    return nbgrad.nn.functional


class NegativeBinomial(_CountAndProbs, Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _CountAndProbs.__init__(self, total_count, probs, logits, validate_args)

    @property
    def mean(self):
        return self.total_count * nbgrad.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / nbgrad.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # not validated: total_count may be 0
        return Gamma(concentration=self.total_count, rate=nbgrad.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=nbgrad.Size()):
        with nbgrad.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return nbgrad.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * _F().logsigmoid(-self.logits)
                                 + value * _F().logsigmoid(self.logits))
        log_normalization = (-nbgrad.lgamma(self.total_count + value) + nbgrad.lgamma(1.0 + value)
                             + nbgrad.lgamma(self.total_count))
        # total_count == 0 and value == 0 has probability 1, where lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
