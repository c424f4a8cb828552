"""The Dirichlet sampler with PyTorch's reparameterized gradient (torch._sample_dirichlet and
its backward through torch._dirichlet_grad), private to the distributions package; Dirichlet
and Beta draw through it.

Forward: independent Gamma(alpha_i, 1) draws (_standard_gamma's sampler) normalized over the
last dim, each coordinate clamped into [smallest normal, largest number below 1], as PyTorch's.

Backward: for coordinate i, x_i ~ Beta(alpha_i, total - alpha_i), and
d x_i / d alpha_i = -(dF/d alpha)(x_i) / f(x_i) is approximated as PyTorch does it
(dirichlet_grad_one in ATen's Distributions.h): Taylor series near x = 0 and near x = 1, Rice's
saddle-point expansion when both Beta parameters exceed 6, elsewhere a rational correction of an
analytic approximation; the scaled gradient (divided by 1 - x) then carries the simplex
constraint: grad_alpha = g * (grad_x - sum(x * grad_x)). Evaluated in float64, returned in the
input's dtype. Once differentiable (as PyTorch's): the gradient carries no graph.
"""
import nbgrad

from ._standard_gamma import _sample as _sample_gamma

__all__ = []


def _sample_dirichlet(concentration):
    with nbgrad.no_grad():
        gammas = _sample_gamma(concentration).to(nbgrad.float64)
        x = (gammas / gammas.sum(-1, True)).to(concentration.dtype)
        finfo = nbgrad.finfo(concentration.dtype)
        # the largest number below 1: 1 - eps/2
        return x.clamp(min=finfo.tiny, max=1.0 - finfo.eps / 2)


def _grad_alpha_small(x, a, b):
    """Beta(a, b)'s reparameterized d x / d a for x near 0: a Taylor series."""
    factor = nbgrad.digamma(a) - nbgrad.digamma(a + b) - nbgrad.log(x)
    numer = nbgrad.ones_like(x)
    series = numer / a * (factor + 1 / a)
    for i in range(1, 11):
        numer = numer * ((i - b) * x / i)
        denom = a + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * (1 - x).pow(-b) * series
    return nbgrad.where(nbgrad.isnan(result), nbgrad.zeros_like(result), result)


def _grad_beta_small(x, a, b):
    """Beta(a, b)'s reparameterized d x / d b for x near 0: a Taylor series."""
    factor = nbgrad.digamma(a + b) - nbgrad.digamma(b)
    numer = nbgrad.ones_like(x)
    betas = nbgrad.ones_like(x)
    dbetas = nbgrad.zeros_like(x)
    series = factor / a
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (b - i) + betas
        betas = betas * (b - i)
        series = series + numer / (a + i) * (dbetas + factor * betas)
    result = -(1 - x).pow(1 - b) * series
    return nbgrad.where(nbgrad.isnan(result), nbgrad.zeros_like(result), result)


def _grad_alpha_mid(x, a, b):
    """Beta(a, b)'s d x / d a for large a and b: Rice's saddle-point expansion (a polynomial
    within a tenth of a standard deviation of the mean, where the general form is 0/0)."""
    total = a + b
    mean = a / total
    std = nbgrad.sqrt(a * b / (total + 1)) / total
    poly = 47 * x * (b * b) * (b * b) + a * (
        (43 + 20 * (16 + 27 * b) * x) * (b * b) * b + a * (
            3 * (59 + 180 * b - 90 * x) * (b * b) + a * (
                (453 + 1620 * b * (1 - x) - 455 * x) * b + a * (
                    8 * (1 - x) * (135 * b - 11)))))
    prefactor_num = (1 + 12 * a) * (1 + 12 * b) / (total * total)
    prefactor_den = 12960 * a * a * a * b * b * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den

    prefactor = -x / nbgrad.sqrt(2 * a * b / total)
    stirling = ((1 + 1 / (12 * a) + 1 / (288 * a * a)) * (1 + 1 / (12 * b) + 1 / (288 * b * b))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (a * a) * (x - 1) + a * b * (x - 1) - x * (b * b)
    axbx = a * (x - 1) + b * x
    term1_den = nbgrad.sqrt(2 * a / b) * total.pow(1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * nbgrad.log(a / (total * x))
    term3 = nbgrad.sqrt(8 * a * b / total) / (b * x + a * (x - 1))
    term4 = (b * nbgrad.log(b / (total * (1 - x))) + a * nbgrad.log(a / (total * x))).pow(-1.5)
    term1234 = term1 + term2 * (term3 + nbgrad.where(x < mean, term4, -term4))
    far = stirling * prefactor * term1234
    return nbgrad.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


# the rational correction p/q, each sum over i, j < 3 of u^i a^j (c0 + b (c1 + b (c2 + b c3)))
# with u = log x, a = log(alpha) - u, b = log(total) - a; _RATIONAL[k][i][j] for p (k=0), q (k=1)
_RATIONAL = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1.0, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _grad_rational(x, alpha, total):
    beta = total - alpha
    u = nbgrad.log(x)
    a = nbgrad.log(alpha) - u
    b = nbgrad.log(total) - a
    pow_u = (nbgrad.ones_like(u), u, u * u)
    pow_a = (nbgrad.ones_like(a), a, a * a)
    pq = []
    for table in _RATIONAL:
        acc = nbgrad.zeros_like(x)
        for i in range(3):
            for j in range(3):
                c = table[i][j]
                acc = acc + pow_u[i] * pow_a[j] * (c[0] + b * (c[1] + b * (c[2] + b * c[3])))
        pq.append(acc)
    approx = x * (nbgrad.digamma(total) - nbgrad.digamma(alpha)) / beta
    return pq[0] / pq[1] * approx


def _dirichlet_grad(x, alpha, total):
    """PyTorch's _dirichlet_grad: -(d/d alpha cdf(x; alpha, total - alpha)) / pdf / (1 - x),
    elementwise."""
    with nbgrad.no_grad():
        x, alpha, total = nbgrad.broadcast_tensors(x.detach(), alpha.detach(), total.detach())
        dtype = x.dtype
        x, alpha, total = (v.to(nbgrad.float64) for v in (x, alpha, total))
        beta = total - alpha
        boundary = total * x * (1 - x)
        result = nbgrad.where(
            (x <= 0.5) & (boundary < 2.5), _grad_alpha_small(x, alpha, beta),
            nbgrad.where(
                (x >= 0.5) & (boundary < 0.75), -_grad_beta_small(1 - x, beta, alpha),
                nbgrad.where((alpha > 6) & (beta > 6), _grad_alpha_mid(x, alpha, beta),
                             _grad_rational(x, alpha, total))))
        return result.to(dtype)


class _Dirichlet(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, concentration):
        x = _sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        # once differentiable, as PyTorch's: no graph even under create_graph=True
        with nbgrad.no_grad():
            x, concentration = ctx.saved_tensors
            total = concentration.sum(-1, True).expand_as(concentration)
            g = _dirichlet_grad(x, concentration, total)
            return g * (grad_output - (x * grad_output).sum(-1, True))


def _rsample_dirichlet(concentration):
    """Dirichlet draws of concentration's shape, differentiable with respect to it."""
    return _Dirichlet.apply(concentration)
