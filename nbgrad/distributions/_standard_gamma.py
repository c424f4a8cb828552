"""The standard Gamma(alpha, 1) sampler with PyTorch's reparameterized gradient
(torch._standard_gamma and its backward, torch._standard_gamma_grad), private to the
distributions package; Gamma, Chi2, Beta, Dirichlet and StudentT draw through it.

Forward: Marsaglia & Tsang's squeeze-free rejection method (alpha < 1 boosted to alpha + 1 and
scaled by U^(1/alpha)), vectorized over the whole tensor: each round redraws only the
elements still rejected; draws are clamped at the dtype's smallest normal number, as
PyTorch's.  Values differ from PyTorch's (another generator); the law is the same.

Backward: d sample / d alpha = -(dF(x; alpha)/d alpha) / f(x; alpha) (implicit
reparameterization), approximated as PyTorch does it: a Taylor series of the incomplete gamma
function for x < 0.8, Rice's saddle-point expansion for alpha > 8, and a bivariate rational
fit elsewhere, evaluated in float64 and rounded to the input's dtype. Its own derivative is not
implemented (NotImplementedError, as PyTorch's).
"""
import math

import nbgrad

__all__ = []

# PyTorch's thresholds are float literals (0.8f, 0.9f, 1.1f) compared in double precision:
# their float32 roundings, not the decimal values
_F32_0_8 = 0.800000011920929    # float(numpy.float32(0.8))
_F32_0_9 = 0.8999999761581421   # float(numpy.float32(0.9))
_F32_1_1 = 1.100000023841858    # float(numpy.float32(1.1))


def _sample(alpha):
    """Gamma(alpha, 1) draws (no graph), computed in float64, returned in alpha's dtype."""
    with nbgrad.no_grad():
        a = alpha.detach().to(nbgrad.float64)
        small = a < 1
        a1 = nbgrad.where(small, a + 1, a)
        d = a1 - 1.0 / 3.0
        c = 1.0 / nbgrad.sqrt(9.0 * d)
        out = nbgrad.zeros_like(a)
        pending = nbgrad.ones_like(a, dtype=nbgrad.bool)
        while bool(pending.any()):
            x = nbgrad.randn(a.shape, dtype=nbgrad.float64, device=a.device)
            u = nbgrad.rand(a.shape, dtype=nbgrad.float64, device=a.device)
            v = (1 + c * x) ** 3
            ok_v = v > 0
            v_safe = nbgrad.where(ok_v, v, nbgrad.ones_like(v))
            accept = ok_v & (nbgrad.log(u) < 0.5 * x * x + d - d * v_safe + d * nbgrad.log(v_safe))
            take = pending & accept
            out = nbgrad.where(take, d * v_safe, out)
            pending = pending & ~accept
        # alpha < 1: Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha)
        u = nbgrad.rand(a.shape, dtype=nbgrad.float64, device=a.device)
        boost = nbgrad.where(small, u.pow(1.0 / a), nbgrad.ones_like(a))
        out = (out * boost).to(alpha.dtype)
        return out.clamp(min=nbgrad.finfo(alpha.dtype).tiny)


# the rational fit's coefficients for exp(p(u, v) / q(u, v)), u = log(x / alpha), v = log(alpha)
# (PyTorch's numbers, from aten/src/ATen/native/Distributions.h, BSD-3-Clause: needed for its values);
# row k multiplies u**k; columns 0-3 are p's powers of v, 4-7 q's
_RATIONAL = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
     -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07),
)


def _standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1), elementwise (PyTorch's _standard_gamma_grad)."""
    with nbgrad.no_grad():
        alpha, x = nbgrad.broadcast_tensors(alpha.detach(), x.detach())
        dtype = alpha.dtype
        a = alpha.to(nbgrad.float64)
        x = x.to(nbgrad.float64)

        # small x: the series of the lower incomplete gamma function and its alpha-derivative
        numer = nbgrad.ones_like(a)
        denom = a.clone()
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = x.pow(a)
        gamma_pdf = x.pow(a - 1) * nbgrad.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (nbgrad.log(x) - nbgrad.digamma(a)) * gamma_cdf - pow_x_alpha * series2
        taylor = -gamma_cdf_alpha / gamma_pdf
        taylor = nbgrad.where(nbgrad.isnan(taylor), nbgrad.zeros_like(taylor), taylor)

        # large alpha: Rice's saddle-point expansion (a polynomial near x = alpha, where the
        # general form is 0/0)
        near_numer1 = 1 + 24 * a * (1 + 12 * a)
        near_numer2 = 1440 * (a * a) + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
        near = near_numer1 * near_numer2 / (1244160 * (a * a) * (a * a))
        sq = nbgrad.sqrt(8 * a)
        term2 = sq / (a - x)
        term3 = (x - a - a * nbgrad.log(x / a)).pow(-1.5)
        term23 = nbgrad.where(x < a, term2 - term3, term2 + term3)
        term1 = nbgrad.log(x / a) * term23 - math.sqrt(2) * nbgrad.rsqrt(a) * (a + x) / ((a - x) * (a - x))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        far = -stirling * (x * term1) / sq
        saddle = nbgrad.where((_F32_0_9 * a <= x) & (x <= _F32_1_1 * a), near, far)

        # elsewhere: the rational fit
        u = nbgrad.log(x / a)
        v = nbgrad.log(a)
        coef = [r0 + u * (r1 + u * r2) for r0, r1, r2 in zip(*_RATIONAL)]
        p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
        q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
        rational = nbgrad.exp(p / q)

        # the branches are tested in PyTorch's order: x < 0.8 first, then alpha > 8
        result = nbgrad.where(x < _F32_0_8, taylor, nbgrad.where(a > 8.0, saddle, rational))
        return result.to(dtype)


class _GammaGradMul(nbgrad.autograd.Function):
    """grad * _standard_gamma_grad(alpha, x): the backward of _StandardGamma, itself
    differentiable in grad only (as PyTorch's)."""

    @staticmethod
    def forward(ctx, grad, alpha, x):
        dx_dalpha = _standard_gamma_grad(alpha, x)
        ctx.save_for_backward(dx_dalpha)
        return grad * dx_dalpha

    @staticmethod
    def backward(ctx, g):
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")
        dx_dalpha, = ctx.saved_tensors
        return g * dx_dalpha, None, None


class _StandardGamma(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _sample(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return _GammaGradMul.apply(grad, alpha, x)


def _standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape, differentiable with respect to alpha."""
    return _StandardGamma.apply(alpha)
