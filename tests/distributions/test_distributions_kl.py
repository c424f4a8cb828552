"""torch.distributions.kl: kl_divergence values of every registered pair nbgrad has, in float64,
against PyTorch 2.13's results (literals), their gradients against finite differences, the
dispatch (most specific registered pair; memoization cleared by register_kl; the ambiguity
warning; NotImplementedError for pairs with no rule), and the transforms' values, inverses,
log-det-Jacobians (against autograd), caching and reprs.

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math
import warnings

import numpy as np
import pytest

import nbgrad

D = nbgrad.distributions
inf = math.inf


def t(x, grad=False):
    return nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=grad)


def _dists():
    """Distributions of each family, batch shape (3,) where a family allows it."""
    return {
        "Bernoulli": D.Bernoulli(t([0.0, 0.3, 0.9])),
        "Bernoulli2": D.Bernoulli(t([0.5, 1.0, 0.2])),
        "Beta": D.Beta(t([0.5, 2.0, 3.0]), t([1.5, 0.7, 3.0])),
        "Beta2": D.Beta(t([1.5, 2.5, 1.0]), t([0.5, 2.0, 4.0])),
        "Binomial": D.Binomial(t([5.0, 6.0, 7.0]), t([0.3, 0.6, 0.5])),
        "Binomial2": D.Binomial(t([5.0, 5.0, 7.0]), t([0.5, 0.2, 0.9])),
        "Categorical": D.Categorical(t([[0.2, 0.3, 0.5], [0.0, 0.4, 0.6], [0.1, 0.1, 0.8]])),
        "Categorical2": D.Categorical(t([[0.5, 0.3, 0.2], [0.3, 0.3, 0.4], [0.0, 0.5, 0.5]])),
        "Cauchy": D.Cauchy(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Cauchy2": D.Cauchy(t([0.0, 1.0, 2.0]), t([1.0, 2.0, 0.5])),
        "Chi2": D.Chi2(t([1.5, 3.0, 6.0])),
        "Dirichlet": D.Dirichlet(t([[0.5, 3.0, 1.0], [2.0, 2.0, 2.0], [1.0, 0.3, 4.0]])),
        "Dirichlet2": D.Dirichlet(t([[1.5, 1.0, 2.0], [0.5, 2.0, 2.5], [3.0, 3.0, 1.0]])),
        "Exponential": D.Exponential(t([0.5, 2.0, 1.0])),
        "Exponential2": D.Exponential(t([1.5, 0.3, 1.0])),
        "Gamma": D.Gamma(t([0.5, 3.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Gamma2": D.Gamma(t([1.5, 2.0, 0.7]), t([0.5, 1.7, 2.0])),
        "Geometric": D.Geometric(t([0.3, 0.8, 0.5])),
        "Geometric2": D.Geometric(t([0.6, 0.2, 0.5])),
        "Gumbel": D.Gumbel(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Gumbel2": D.Gumbel(t([0.0, 1.0, 2.0]), t([1.0, 2.0, 0.5])),
        "Laplace": D.Laplace(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Laplace2": D.Laplace(t([0.0, 1.0, 2.0]), t([1.0, 2.0, 0.5])),
        "LogNormal": D.LogNormal(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "LogNormal2": D.LogNormal(t([0.0, 1.0, 2.0]), t([1.0, 2.0, 0.5])),
        "Normal": D.Normal(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Normal2": D.Normal(t([0.0, 1.0, 2.0]), t([1.0, 2.0, 0.5])),
        "OneHotCategorical": D.OneHotCategorical(t([[0.2, 0.3, 0.5], [0.0, 0.4, 0.6], [0.1, 0.1, 0.8]])),
        "OneHotCategorical2": D.OneHotCategorical(t([[0.5, 0.3, 0.2], [0.3, 0.3, 0.4], [0.0, 0.5, 0.5]])),
        "Poisson": D.Poisson(t([0.5, 4.0, 1.0])),
        "Poisson2": D.Poisson(t([1.5, 2.0, 3.0])),
        "Uniform": D.Uniform(t([0.1, 0.2, -1.0]), t([0.9, 0.5, 1.0])),
        "Uniform2": D.Uniform(t([0.0, 0.3, -2.0]), t([1.0, 1.0, 2.0])),
        "Independent": D.Independent(D.Normal(t([[0.3, -1.0, 2.0]]), t([[1.5, 0.7, 1.0]])), 1),
        "Independent2": D.Independent(D.Normal(t([[0.0, 1.0, 2.0]]), t([[1.0, 2.0, 0.5]])), 1),
        "MultivariateNormal": D.MultivariateNormal(t([[0.0, 1.0], [1.0, -1.0], [0.5, 0.5]]),
                                                   scale_tril=t([[1.0, 0.0], [0.5, 2.0]])),
        "MultivariateNormal2": D.MultivariateNormal(t([1.0, 0.0]), covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
        "LowRankMultivariateNormal": D.LowRankMultivariateNormal(
            t([[0.0, 1.0], [1.0, -1.0], [0.5, 0.5]]), t([[1.0, 0.2], [0.5, 0.1]]), t([1.0, 2.0])),
        "LowRankMultivariateNormal2": D.LowRankMultivariateNormal(t([1.0, 0.0]), t([[0.3], [-0.5]]), t([0.5, 1.5])),
    }


PAIRS = [
    ("Bernoulli", "Bernoulli2"), ("Beta", "Beta2"), ("Binomial", "Binomial2"), ("Categorical", "Categorical2"),
    ("Cauchy", "Cauchy2"), ("Chi2", "Gamma2"), ("Dirichlet", "Dirichlet2"), ("Exponential", "Exponential2"),
    ("Gamma", "Gamma2"), ("Geometric", "Geometric2"), ("Gumbel", "Gumbel2"), ("Laplace", "Laplace2"),
    ("LogNormal", "LogNormal2"), ("Normal", "Normal2"), ("OneHotCategorical", "OneHotCategorical2"),
    ("Poisson", "Poisson2"), ("Uniform", "Uniform2"), ("Independent", "Independent2"),
    ("MultivariateNormal", "MultivariateNormal2"), ("LowRankMultivariateNormal", "LowRankMultivariateNormal2"),
    ("MultivariateNormal", "LowRankMultivariateNormal2"), ("LowRankMultivariateNormal", "MultivariateNormal2"),
    ("Bernoulli", "Poisson"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"),
    ("Exponential", "Beta"), ("Exponential", "Uniform"), ("Exponential", "Gamma"), ("Exponential", "Gumbel"),
    ("Exponential", "Normal"), ("Gamma", "Beta"), ("Gamma", "Uniform"), ("Gamma", "Exponential"),
    ("Gamma", "Gumbel"), ("Gamma", "Normal"), ("Gumbel", "Beta"), ("Gumbel", "Exponential"), ("Gumbel", "Gamma"),
    ("Gumbel", "Uniform"), ("Gumbel", "Normal"), ("Laplace", "Beta"), ("Laplace", "Exponential"),
    ("Laplace", "Gamma"), ("Laplace", "Uniform"), ("Laplace", "Normal"), ("Normal", "Beta"),
    ("Normal", "Exponential"), ("Normal", "Gamma"), ("Normal", "Uniform"), ("Normal", "Gumbel"),
    ("Normal", "Laplace"), ("Poisson", "Bernoulli"), ("Poisson", "Binomial"), ("Uniform", "Beta"),
    ("Uniform", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"), ("Uniform", "Normal"),
    ("Chi2", "Exponential"), ("Bernoulli", "Bernoulli"), ("Normal", "Normal"),
]


def _kl(p, q):
    d = _dists()
    return D.kl_divergence(d[p], d[q]).tolist()


@pytest.mark.parametrize("p,q", PAIRS)
def test_kl_matches_pytorch(p, q):
    np.testing.assert_allclose(_kl(p, q), KL_REF[p, q], rtol=1e-10, atol=1e-13)


KL_REF = {
    ('Bernoulli', 'Bernoulli2'): [0.6931471805599451, inf, 1.145725502930663],
    ('Beta', 'Beta2'): [1.9999999999999991, 0.8137477631960497, 1.2315696872089321],
    ('Binomial', 'Binomial2'): [0.41141439252525946, inf, 3.5757793663619366],
    ('Categorical', 'Categorical2'): [0.2748872195622465, 0.358351893845611, inf],
    ('Cauchy', 'Cauchy2'): [0.05511929922107961, 0.7011507804204673, 0.11778303565638348],
    ('Chi2', 'Gamma2'): [0.4903324707733134, 1.2549863874017255, 9.719717983914272],
    ('Dirichlet', 'Dirichlet2'): [2.999999999999999, 1.183152392498386, 12.608420072931345],
    ('Exponential', 'Exponential2'): [0.9013877113318902, 1.0471199848858812, 0.0],
    ('Gamma', 'Gamma2'): [2.584947945130309, 2.740745050251002, 2.325283855767712],
    ('Geometric', 'Geometric2'): [0.612622991289374, 1.0397207708399179, 0.0],
    ('Gumbel', 'Gumbel2'): [0.16794230539381472, 1.0970327135724127, 0.8840684843415874],
    ('Laplace', 'Laplace2'): [0.12263102150880845, 1.069923541242344, 0.3068528194400546],
    ('LogNormal', 'LogNormal2'): [0.26453489189183554, 1.1110721244986779, 0.8068528194400547],
    ('Normal', 'Normal2'): [0.26453489189183554, 1.1110721244986779, 0.8068528194400547],
    ('OneHotCategorical', 'OneHotCategorical2'): [0.2748872195622465, 0.358351893845611, inf],
    ('Poisson', 'Poisson2'): [0.4506938556659452, 0.7725887222397811, 0.9013877113318902],
    ('Uniform', 'Uniform2'): [0.22314355131420976, inf, 0.6931471805599453],
    ('Independent', 'Independent2'): [2.182459835830568],
    ('MultivariateNormal', 'MultivariateNormal2'): [1.9811897807834606, 1.5623416132441936, 1.2743834980609479],
    ('LowRankMultivariateNormal', 'LowRankMultivariateNormal2'): [1.7855924468159716, 1.0677706646377536, 1.0281667042417144],
    ('MultivariateNormal', 'LowRankMultivariateNormal2'): [1.503659668034956, 0.7858378858567383, 0.7462339254606987],
    ('LowRankMultivariateNormal', 'MultivariateNormal2'): [1.1676249181773013, 0.7487767506380343, 0.4608186354547881],
    ('Bernoulli', 'Poisson'): [0.5, 2.9732473896091394, 0.6749170266085518],
    ('Beta', 'Exponential'): [1.36656447527049, 1.1933307909590232, 0.7678640483288222],
    ('Beta', 'Gamma'): [0.09990250302121761, 3.4346846887174953, 1.5511973816621554],
    ('Beta', 'Normal'): [1.8872653804678263, 4.112241795713715, 2.3296597243906376],
    ('Beta', 'Uniform'): [inf, inf, 0.9610112288887674],
    ('Exponential', 'Beta'): [inf, inf, inf],
    ('Exponential', 'Uniform'): [inf, inf, inf],
    ('Exponential', 'Gamma'): [1.7344509661398786, 4.347044883859044, 0.5772156649015328],
    ('Exponential', 'Gumbel'): [0.36910958580733966, 1.619125817402725, 1.6945280494653252],
    ('Exponential', 'Normal'): [1.162367571864003, 2.8064311779891513, 0.9189385332046727],
    ('Gamma', 'Beta'): [inf, inf, inf],
    ('Gamma', 'Uniform'): [inf, inf, inf],
    ('Gamma', 'Exponential'): [1.1746690254207877, 5.6740279365668815, 0.422784335098467],
    ('Gamma', 'Gumbel'): [1.7588110329567859, 4.998615328990387, 0.2700483598311296],
    ('Gamma', 'Normal'): [1.6888884491366425, 33.11436165516412, 0.3417228683031397],
    ('Gumbel', 'Beta'): [inf, inf, inf],
    ('Gumbel', 'Exponential'): [inf, inf, inf],
    ('Gumbel', 'Gamma'): [inf, inf, inf],
    ('Gumbel', 'Uniform'): [inf, inf, inf],
    ('Gumbel', 'Normal'): [0.33077886363111264, 0.33077886363111264, 0.3307788636311124],
    ('Laplace', 'Beta'): [inf, inf, inf],
    ('Laplace', 'Exponential'): [inf, inf, inf],
    ('Laplace', 'Gamma'): [inf, inf, inf],
    ('Laplace', 'Uniform'): [inf, inf, inf],
    ('Laplace', 'Normal'): [0.2257913526447275, 0.2257913526447275, 0.2257913526447275],
    ('Normal', 'Beta'): [inf, inf, inf],
    ('Normal', 'Exponential'): [inf, inf, inf],
    ('Normal', 'Gamma'): [inf, inf, inf],
    ('Normal', 'Uniform'): [inf, inf, inf],
    ('Normal', 'Gumbel'): [0.22978273749545552, 0.22978273749545552, 0.22978273749545552],
    ('Normal', 'Laplace'): [0.07209320815813802, 0.07209320815813802, 0.07209320815813802],
    ('Poisson', 'Bernoulli'): [inf, inf, inf],
    ('Poisson', 'Binomial'): [inf, inf, inf],
    ('Uniform', 'Beta'): [0.6747262566036648, 1.9803649390749447, inf],
    ('Uniform', 'Exponential'): [1.166290731874155, 1.2108256237659907, inf],
    ('Uniform', 'Gamma'): [0.9274222184394282, 5.376718201989763, inf],
    ('Uniform', 'Gumbel'): [1.647524678555864, 2.922339963083936, 5.990480366804366],
    ('Uniform', 'Normal'): [1.5682879333677875, 3.6335833323673867, 2.392458019311394],
    ('Chi2', 'Exponential'): [0.06818426851532233, 3.252732863504643, 3.4592743090770433],
    ('Bernoulli', 'Bernoulli'): [0.0, 0.0, 0.0],
    ('Normal', 'Normal'): [0.0, 0.0, 0.0],
}


def test_kl_gradients_match_finite_differences():
    # KL(Normal(m1, s1) || Gamma-free pairs) in their parameters, central differences in float64
    def kl_of(params, pair):
        a, b, c, e = (nbgrad.tensor(v, dtype=nbgrad.float64) if not isinstance(v, nbgrad.Tensor) else v
                      for v in params)
        if pair == "normal_laplace":
            return D.kl_divergence(D.Normal(a, b), D.Laplace(c, e))
        if pair == "gamma_gamma":
            return D.kl_divergence(D.Gamma(a, b), D.Gamma(c, e))
        if pair == "beta_beta":
            return D.kl_divergence(D.Beta(a, b), D.Beta(c, e))
        return D.kl_divergence(D.Gumbel(a, b), D.Normal(c, e))

    for pair, x0 in [("normal_laplace", [0.3, 1.5, -0.2, 0.8]), ("gamma_gamma", [1.5, 2.0, 0.7, 1.3]),
                     ("beta_beta", [1.5, 2.0, 0.7, 1.3]), ("gumbel_normal", [0.3, 1.5, -0.2, 0.8])]:
        leaves = [t(v, True) for v in x0]
        grads = nbgrad.autograd.grad(kl_of(leaves, pair), leaves)
        for i in range(4):
            h = 1e-6
            up = list(x0)
            dn = list(x0)
            up[i] += h
            dn[i] -= h
            fd = (float(kl_of(up, pair)) - float(kl_of(dn, pair))) / (2 * h)
            assert abs(float(grads[i]) - fd) < 1e-6 * max(1.0, abs(fd)), (pair, i)


def test_kl_of_a_distribution_with_itself_is_zero():
    d = _dists()
    for name in ("Normal", "Gamma", "Beta", "Dirichlet", "MultivariateNormal", "LowRankMultivariateNormal",
                 "Categorical", "Laplace", "Gumbel", "Uniform"):
        np.testing.assert_allclose(D.kl_divergence(d[name], d[name]).tolist(), [0.0, 0.0, 0.0], atol=1e-12)


def test_kl_no_rule_raises():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type "
                                                  "Cauchy"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Cauchy(0.0, 1.0))


def test_kl_exponential_family_fallback_and_cross_family_error():
    # Poisson || Poisson has its own rule; the Bregman fallback serves a subclass pair
    class MyPoisson(D.Poisson):
        pass

    p, q = MyPoisson(t([1.5, 2.0])), MyPoisson(t([2.5, 1.0]))
    np.testing.assert_allclose(D.kl_divergence(p, q).tolist(),
                               D.kl_divergence(D.Poisson(t([1.5, 2.0])), D.Poisson(t([2.5, 1.0]))).tolist(), rtol=1e-12)
    ef = D.kl._kl_expfamily_expfamily
    with pytest.raises(NotImplementedError, match="The cross KL-divergence between different exponential families"):
        ef(D.Normal(0.0, 1.0), D.Exponential(1.0))


def test_kl_dispatch_most_specific_and_register_clears_memo():
    class P(D.Normal):
        pass

    class Q(D.Normal):
        pass

    p, q = P(t([0.0]), t([1.0])), Q(t([1.0]), t([2.0]))
    base = D.kl_divergence(p, q).tolist()   # served by (Normal, Normal), then memoized
    np.testing.assert_allclose(base, D.kl_divergence(D.Normal(t([0.0]), t([1.0])), D.Normal(t([1.0]), t([2.0]))).tolist())

    @D.register_kl(P, D.Normal)
    def _kl_p_normal(a, b):
        return nbgrad.full_like(a.loc, 11.0)

    # the memo was cleared: the new, more specific rule wins
    assert D.kl_divergence(p, q).tolist() == [11.0]
    assert D.kl_divergence(p, D.Normal(t([0.0]), t([1.0]))).tolist() == [11.0]

    @D.register_kl(D.Normal, Q)
    def _kl_normal_q(a, b):
        return nbgrad.full_like(a.loc, 22.0)

    # (P, Normal) and (Normal, Q) both match (P, Q) and neither is more specific: p's wins, with a warning
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(P, Q\). Please register_kl\(P, Q\)"):
        assert D.kl_divergence(p, q).tolist() == [11.0]

    @D.register_kl(P, Q)
    def _kl_p_q(a, b):
        return nbgrad.full_like(a.loc, 33.0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.kl_divergence(p, q).tolist() == [33.0]


def test_kl_multivariate_normal_event_shape_mismatch():
    with pytest.raises(ValueError, match="KL-divergence between two Multivariate Normals with {26}different event "
                                         "shapes cannot be computed"):
        D.kl_divergence(D.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 0.0], [0.0, 1.0]])),
                        D.MultivariateNormal(t([0.0, 0.0, 0.0]), scale_tril=t([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]])))


def test_kl_binomial_total_count_rule():
    with pytest.raises(NotImplementedError, match="KL between Binomials where q.total_count > p.total_count is "
                                                  "not implemented"):
        D.kl_divergence(D.Binomial(t([3.0]), t([0.5])), D.Binomial(t([4.0]), t([0.5])))


def test_kl_transformed_needs_equal_transforms():
    a = D.TransformedDistribution(D.Normal(t([0.0]), t([1.0])), [D.AffineTransform(1.0, 2.0)])
    b = D.TransformedDistribution(D.Normal(t([1.0]), t([2.0])), [D.AffineTransform(1.0, 2.0)])
    c = D.TransformedDistribution(D.Normal(t([1.0]), t([2.0])), [D.AffineTransform(1.0, 3.0)])
    np.testing.assert_allclose(D.kl_divergence(a, b).tolist(),
                               D.kl_divergence(D.Normal(t([0.0]), t([1.0])), D.Normal(t([1.0]), t([2.0]))).tolist())
    with pytest.raises(NotImplementedError):
        D.kl_divergence(a, c)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Independent(D.Normal(t([[0.0]]), 1.0), 1), D.Independent(D.Normal(t([[0.0]]), 1.0), 2))


# ------------------------------------------------------------------ transforms

X = [-2.0, -0.3, 0.0, 0.7, 3.0]
POS = [0.1, 0.5, 1.0, 2.5, 7.0]


def _transforms():
    return {
        "Exp": (D.ExpTransform(), X),
        "Sigmoid": (D.SigmoidTransform(), X),
        "Tanh": (D.TanhTransform(), X),
        "Softplus": (D.SoftplusTransform(), X),
        "Affine": (D.AffineTransform(1.5, -2.0), X),
        "AffineTensor": (D.AffineTransform(t([1.0, 2.0, 3.0, 4.0, 5.0]), t([0.5, -1.0, 2.0, 3.0, -0.1])), X),
        "Power": (D.PowerTransform(t(2.5)), POS),
        "ExpInv": (D.ExpTransform().inv, POS),
        "Compose": (D.ComposeTransform([D.ExpTransform(), D.AffineTransform(1.0, 3.0), D.PowerTransform(t(0.5))]), X),
    }


@pytest.mark.parametrize("name", sorted(_transforms()))
def test_transform_inverse_and_log_det_jacobian(name):
    tr, xs = _transforms()[name]
    x = t(xs, True)
    y = tr(x)
    np.testing.assert_allclose(tr.inv(y).tolist(), xs, rtol=1e-10, atol=1e-12)
    # elementwise transforms: log|dy/dx| from autograd
    dydx, = nbgrad.autograd.grad(y.sum(), [x])
    np.testing.assert_allclose(tr.log_abs_det_jacobian(x, y).tolist(), np.log(np.abs(dydx.tolist())),
                               rtol=1e-9, atol=1e-12)
    # the inverse's log-det is the negative, at (y, x)
    np.testing.assert_allclose(tr.inv.log_abs_det_jacobian(y, x).tolist(),
                               (-tr.log_abs_det_jacobian(x, y)).tolist(), rtol=1e-12)


def test_stick_breaking_and_softmax():
    sb = D.StickBreakingTransform()
    x = t([[0.1, -0.5, 2.0], [0.0, 0.0, 0.0]], True)
    y = sb(x)
    assert tuple(y.shape) == (2, 4)
    np.testing.assert_allclose(y.sum(-1).tolist(), [1.0, 1.0], rtol=1e-12)
    # x = 0 breaks the stick evenly
    np.testing.assert_allclose(y[1].tolist(), [0.25] * 4, rtol=1e-12)
    np.testing.assert_allclose(sb.inv(y).tolist(), x.tolist(), rtol=1e-10, atol=1e-12)
    # log|det J| of x -> y[:-1] by autograd's Jacobian
    for row in range(2):
        xr = x[row].detach()
        jac = np.zeros((3, 3))
        for i in range(3):
            xi = xr.clone().requires_grad_()
            g, = nbgrad.autograd.grad(sb(xi)[i], [xi])
            jac[i] = g.tolist()
        np.testing.assert_allclose(float(sb.log_abs_det_jacobian(xr, sb(xr))), np.log(abs(np.linalg.det(jac))),
                                   rtol=1e-9)
    assert sb.forward_shape((5, 3)) == (5, 4) and sb.inverse_shape((5, 4)) == (5, 3)
    sm = D.SoftmaxTransform()
    z = sm(t([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(z.tolist(), np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum(), rtol=1e-12)
    np.testing.assert_allclose(sm.inv(z).tolist(), np.log(z.tolist()), rtol=1e-12)
    assert not sm.bijective and sb.bijective


def test_abs_and_lower_cholesky_transforms():
    a = D.AbsTransform()
    assert a(t([-2.0, 3.0])).tolist() == [2.0, 3.0]
    assert a.inv(t([2.0, 3.0])).tolist() == [2.0, 3.0]
    assert not a.bijective
    lc = D.LowerCholeskyTransform()
    m = lc(t([[0.0, 5.0], [2.0, math.log(3.0)]]))
    np.testing.assert_allclose(m.tolist(), [[1.0, 0.0], [2.0, 3.0]], rtol=1e-12)
    assert bool(D.constraints.lower_cholesky.check(m))


def test_transform_cache_and_identity():
    e = D.ExpTransform(cache_size=1)
    x = t([0.5])
    y = e(x)
    assert e(x) is y and e.inv(y) is x
    e0 = D.ExpTransform()
    assert e0(x) is not e0(x)
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        D.ExpTransform(cache_size=2)
    assert e0.with_cache(1)._cache_size == 1
    assert D.transforms.identity_transform(x) is x
    assert D.ComposeTransform([]).log_abs_det_jacobian(x, x).tolist() == [0.0]


def test_transform_equality_sign_and_inverse_identity():
    assert D.ExpTransform() == D.ExpTransform()
    assert D.ExpTransform().inv == D.ExpTransform().inv
    assert D.ExpTransform() != D.SigmoidTransform()
    e = D.ExpTransform()
    assert e.inv.inv is e
    assert D.AffineTransform(1.0, -2.0).sign == -1 and D.AffineTransform(1.0, 2.0).sign == 1
    assert D.ComposeTransform([D.ExpTransform(), D.AffineTransform(1.0, -2.0)]).sign == -1
    assert D.AffineTransform(1.0, 2.0) == D.AffineTransform(1.0, 2.0)
    assert D.AffineTransform(1.0, 2.0) != D.AffineTransform(1.0, 3.0)
    with pytest.raises(ValueError, match="Please use either .domain.event_dim or .codomain.event_dim"):
        D.ReshapeTransform((2,), (1, 2)).inv.event_dim  # noqa: B018


def test_transform_reprs_domains():
    c = D.ComposeTransform([D.ExpTransform(), D.AffineTransform(1.0, 2.0)])
    assert repr(c) == "ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)"
    assert repr(D.ExpTransform().inv) == "_InverseTransform(ExpTransform())"
    assert repr(D.IndependentTransform(D.ExpTransform(), 2)) == "IndependentTransform(ExpTransform(), 2)"
    s = D.ComposeTransform([D.ExpTransform(), D.SoftmaxTransform()])
    assert repr(s.domain) == "IndependentConstraint(Real(), 1)"
    assert repr(s.codomain) == "Simplex()"
    assert repr(D.TanhTransform().codomain) == "Interval(lower_bound=-1.0, upper_bound=1.0)"
    assert repr(D.AffineTransform(0.0, 1.0, event_dim=1).domain) == "IndependentConstraint(Real(), 1)"


def test_affine_event_dim_log_det_and_shapes():
    a = D.AffineTransform(t([1.0, 2.0]), t([[2.0, 3.0], [1.0, 4.0]]), event_dim=1)
    np.testing.assert_allclose(a.log_abs_det_jacobian(t([[0.0, 0.0], [1.0, 1.0]]), t([[0.0, 0.0], [1.0, 1.0]])).tolist(),
                               [math.log(6.0), math.log(4.0)], rtol=1e-12)
    assert a.forward_shape((3, 2, 2)) == (3, 2, 2)
    assert D.AffineTransform(t([1.0, 2.0]), 1.0).forward_shape((4, 1)) == (4, 2)
    r = D.ReshapeTransform((2, 3), (6,))
    y = r(t([[[1.0, 2, 3], [4, 5, 6]]]))
    assert tuple(y.shape) == (1, 6) and tuple(r.inv(y).shape) == (1, 2, 3)
    assert r.log_abs_det_jacobian(t([[[1.0, 2, 3], [4, 5, 6]]]), y).tolist() == [0.0]
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        D.ReshapeTransform((2, 3), (5,))


def test_transformed_distribution_shapes_support_and_errors():
    base = D.Normal(t([0.0, 1.0, 2.0]), 1.0)
    td = D.TransformedDistribution(base, D.StickBreakingTransform())
    assert tuple(td.batch_shape) == () and tuple(td.event_shape) == (4,)
    assert repr(td.support) == "Simplex()"
    assert isinstance(td.base_dist, D.Independent)
    td2 = D.TransformedDistribution(D.Normal(t([0.0, 1.0]), 1.0), [D.ExpTransform()])
    assert repr(td2.support) == "GreaterThan(lower_bound=0.0)"
    assert repr(td2) == "TransformedDistribution()"
    with pytest.raises(ValueError, match="transforms must be a Transform or list, but was 3"):
        D.TransformedDistribution(base, 3)
    with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
        D.TransformedDistribution(base, [3])
    with pytest.raises(ValueError, match=r"base_distribution needs to have shape with size at least 1, but got "
                                         r"(torch|nbgrad).Size\(\[\]\)."):
        D.TransformedDistribution(D.Normal(0.0, 1.0), D.StickBreakingTransform())
    # a decreasing chain flips the cdf
    u = D.TransformedDistribution(D.Uniform(0.0, 1.0), [D.AffineTransform(1.0, -2.0)])
    np.testing.assert_allclose(float(u.cdf(nbgrad.tensor(0.5))), 0.75, rtol=1e-6)
    np.testing.assert_allclose(float(u.icdf(nbgrad.tensor(0.25))), -0.5, rtol=1e-6)
    # expand through the transforms' shapes
    e = D.TransformedDistribution(D.Normal(t([0.0, 1.0]), 1.0), [D.AffineTransform(t([1.0, 2.0]), 2.0)]).expand((3, 2))
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.base_dist.batch_shape) == (3, 2)
