"""GeneralizedPareto(loc, scale, concentration) (torch.distributions.GeneralizedPareto, after
TensorFlow Probability's): Exponential at concentration 0, Pareto for concentration > 0,
bounded support for concentration < 0; rsample by the inverse cdf.

Departs from PyTorch: PyTorch's log_prob, log_survival_function, log_cdf and cdf compare the
concentration with a float32 zero (`isclose(concentration, tensor(0.0))`), which raises
RuntimeError("Double did not match Float") for float64 parameters; here the zero takes the
concentration's dtype, so float64 works (float32 results are the same as PyTorch's)."""
import math

import nbgrad

from . import constraints
from .distribution import Distribution
from .utils import _Number, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if isinstance(loc, _Number) and isinstance(scale, _Number) and isinstance(concentration, _Number):
            batch_shape = nbgrad.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = nbgrad.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=nbgrad.Size()):
        shape = self._extended_shape(sample_shape)
        u = nbgrad.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _eq_zero_and_safe(self):
        conc = self.concentration
        eq_zero = nbgrad.isclose(conc, nbgrad.zeros_like(conc))
        return eq_zero, nbgrad.where(eq_zero, nbgrad.ones_like(conc), conc)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._eq_zero_and_safe()
        y = 1 / safe_conc + nbgrad.ones_like(z)
        where_nonzero = nbgrad.where(y == 0, y, y * nbgrad.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, _Number) else self.scale.log()
        return -log_scale - nbgrad.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._eq_zero_and_safe()
        where_nonzero = -nbgrad.log1p(safe_conc * z) / safe_conc
        return nbgrad.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return nbgrad.log1p(-nbgrad.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return nbgrad.exp(self.log_cdf(value))

    def icdf(self, value):
        loc, scale, concentration = self.loc, self.scale, self.concentration
        eq_zero = nbgrad.isclose(concentration, nbgrad.zeros_like(concentration))
        safe_conc = nbgrad.where(eq_zero, nbgrad.ones_like(concentration), concentration)
        logu = nbgrad.log1p(-value)
        where_nonzero = loc + scale / safe_conc * nbgrad.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return nbgrad.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        concentration = self.concentration
        valid = concentration < 1
        safe_conc = nbgrad.where(valid, concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return nbgrad.where(valid, result, math.nan)

    @property
    def variance(self):
        concentration = self.concentration
        valid = concentration < 0.5
        safe_conc = nbgrad.where(valid, concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return nbgrad.where(valid, result, math.nan)

    def entropy(self):
        ans = nbgrad.log(self.scale) + self.concentration + 1
        return nbgrad.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = nbgrad.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
