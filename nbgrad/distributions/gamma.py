"""Gamma(concentration, rate) (torch.distributions.Gamma); rsample is differentiable in both
parameters (the concentration through _standard_gamma's implicit reparameterization)."""
import nbgrad

from . import constraints
from ._standard_gamma import _standard_gamma
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = nbgrad.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = nbgrad.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=nbgrad.Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # a draw that underflowed to 0 would make log_prob -inf; keep it at the smallest normal
        value.detach().clamp_(min=nbgrad.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = nbgrad.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (nbgrad.xlogy(self.concentration, self.rate) + nbgrad.xlogy(self.concentration - 1, value)
                - self.rate * value - nbgrad.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - nbgrad.log(self.rate) + nbgrad.lgamma(self.concentration)
                + (1.0 - self.concentration) * nbgrad.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return nbgrad.lgamma(x + 1) + (x + 1) * nbgrad.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return nbgrad.special.gammainc(self.concentration, self.rate * value)
