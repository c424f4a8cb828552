"""ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))
(torch.distributions.ContinuousBernoulli; Loaiza-Ganem & Cunningham, NeurIPS 2019): a density on
[0, 1] proportional to probs^x (1 - probs)^(1 - x). Near probs = 1/2, where the closed forms
are 0/0, the normalizer and moments are Taylor expansions, as in PyTorch."""
import math

import nbgrad

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, probs_or_logits, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        batch_shape = probs_or_logits(self, probs, logits)
        if probs is not None:
            # checked here, before the clamping below would hide bad values (PyTorch checks
            # whenever validate_args is given, True or False)
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = nbgrad.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return nbgrad.max(nbgrad.le(self.probs, self._lims[0]), nbgrad.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return nbgrad.where(self._outside_unstable_region(), self.probs,
                            self._lims[0] * nbgrad.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normalizing constant as a function of probs."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = nbgrad.where(nbgrad.le(cut_probs, 0.5), cut_probs, nbgrad.zeros_like(cut_probs))
        cut_probs_above_half = nbgrad.where(nbgrad.ge(cut_probs, 0.5), cut_probs, nbgrad.ones_like(cut_probs))
        log_norm = nbgrad.log(nbgrad.abs(nbgrad.log1p(-cut_probs) - nbgrad.log(cut_probs))) - nbgrad.where(
            nbgrad.le(cut_probs, 0.5), nbgrad.log1p(-2.0 * cut_probs_below_half),
            nbgrad.log(2.0 * cut_probs_above_half - 1.0))
        x = nbgrad.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return nbgrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (nbgrad.log1p(-cut_probs) - nbgrad.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * nbgrad.pow(x, 2)) * x
        return nbgrad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return nbgrad.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        vars_ = (cut_probs * (cut_probs - 1.0) / nbgrad.pow(1.0 - 2.0 * cut_probs, 2)
                 + 1.0 / nbgrad.pow(nbgrad.log1p(-cut_probs) - nbgrad.log(cut_probs), 2))
        x = nbgrad.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return nbgrad.where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=nbgrad.Size()):
        shape = self._extended_shape(sample_shape)
        u = nbgrad.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with nbgrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=nbgrad.Size()):
        shape = self._extended_shape(sample_shape)
        u = nbgrad.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = nbgrad.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = ((nbgrad.pow(cut_probs, value) * nbgrad.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0)
                / (2.0 * cut_probs - 1.0))
        unbounded_cdfs = nbgrad.where(self._outside_unstable_region(), cdfs, value)
        return nbgrad.where(nbgrad.le(value, 0.0), nbgrad.zeros_like(value),
                            nbgrad.where(nbgrad.ge(value, 1.0), nbgrad.ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return nbgrad.where(
            self._outside_unstable_region(),
            (nbgrad.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - nbgrad.log1p(-cut_probs))
            / (nbgrad.log(cut_probs) - nbgrad.log1p(-cut_probs)),
            value)

    def entropy(self):
        log_probs0 = nbgrad.log1p(-self.probs)
        log_probs1 = nbgrad.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalizing constant as a function of the natural parameter."""
        out_unst_reg = nbgrad.max(nbgrad.le(x, self._lims[0] - 0.5), nbgrad.gt(x, self._lims[1] - 0.5))
        cut_nat_params = nbgrad.where(out_unst_reg, x, (self._lims[0] - 0.5) * nbgrad.ones_like(x))
        log_norm = nbgrad.log(nbgrad.abs(nbgrad.special.expm1(cut_nat_params))) - nbgrad.log(nbgrad.abs(cut_nat_params))
        taylor = 0.5 * x + nbgrad.pow(x, 2) / 24.0 - nbgrad.pow(x, 4) / 2880.0
        return nbgrad.where(out_unst_reg, log_norm, taylor)
