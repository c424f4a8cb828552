"""LKJCholesky(dim, concentration=1.0) (torch.distributions.LKJCholesky, after NumPyro's): the
Lower Cholesky factor L of a correlation matrix whose density is proportional to
det(L L^T)^(concentration - 1); sampled by the onion method (Lewandowski, Kurowicka & Joe
2009, section 3.2), vectorized. No rsample, as in PyTorch.

Departs from PyTorch: PyTorch draws row i's squared off-diagonal norm from
Beta(i - 1/2, ...) where the onion method has Beta(i / 2, ...) (they agree for the second row
only), so its draws for dim >= 3 do not follow the density its own log_prob gives: the
correlations of later rows come out too spread (for dim 3, eta 1, variance 0.30 against the
LKJ law's 0.25, which the second row matches). Here every row uses the onion method's
parameters, so all off-diagonal correlations have the LKJ marginal 2 Beta(b, b) - 1,
b = eta - 1 + dim / 2."""
import math

import nbgrad

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        self.concentration, = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = nbgrad.Size((dim, dim))
        # the Beta draws of the onion method's section 3.2, one per row
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = nbgrad.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = nbgrad.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = 0.5 * offset + 0.5   # row i >= 1: i / 2 (PyTorch: offset + 0.5)
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = nbgrad.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=nbgrad.Size()):
        # row i of L is sqrt(y_i) times a uniform direction in its first i coordinates, and
        # the diagonal completes the row to unit norm
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = nbgrad.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # the first row is 0/0: no off-diagonal entries
        u_hypersphere[..., 0, :].fill_(0.0)
        w = nbgrad.sqrt(y) * u_hypersphere
        eps = nbgrad.finfo(w.dtype).tiny
        diag_elems = nbgrad.clamp(1 - nbgrad.sum(w ** 2, dim=-1), min=eps).sqrt()
        w += nbgrad.diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        # density of L: prod_i L_ii^(2 (concentration - 1) + D - i), i = 2..D (Stan's
        # cholesky LKJ correlation), normalized as on page 1999 of the reference
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = nbgrad.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = nbgrad.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = nbgrad.lgamma(alpha) * dm1
        numerator = nbgrad.mvlgamma(alpha - 0.5, dm1)
        # the reference's pi constant is D (D - 1) / 4 log(pi), multigammaln's (D - 1)(D - 2) / 4 log(pi)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
