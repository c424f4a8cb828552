"""torch.distributions.kl for ContinuousBernoulli, HalfNormal and Pareto: kl_divergence values of
every pair PyTorch registers with them, in float64, against PyTorch 2.13's results (literals),
gradients against finite differences, infinite results where PyTorch gives them, dispatch past
TransformedDistribution's rule, and the registry's keys compared with PyTorch's.

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math

import numpy as np
import pytest

import nbgrad

D = nbgrad.distributions
inf = math.inf


def t(x, grad=False):
    return nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=grad)


def _dists():
    return {
        "ContinuousBernoulli": D.ContinuousBernoulli(t([0.3, 0.5002, 0.9])),
        "ContinuousBernoulli2": D.ContinuousBernoulli(logits=t([1.2, -0.4, 0.0003])),
        "HalfNormal": D.HalfNormal(t([1.5, 0.7, 1.0])),
        "HalfNormal2": D.HalfNormal(t([1.0, 2.0, 0.5])),
        "Pareto": D.Pareto(t([1.0, 0.8, 2.0]), t([0.7, 1.5, 3.0])),
        "Pareto2": D.Pareto(t([0.5, 1.0, 1.0]), t([2.0, 1.0, 4.0])),
        "Beta": D.Beta(t([0.5, 2.0, 3.0]), t([1.5, 0.7, 3.0])),
        "Exponential": D.Exponential(t([0.5, 2.0, 1.0])),
        "Gamma": D.Gamma(t([0.5, 3.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Gumbel": D.Gumbel(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Laplace": D.Laplace(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Normal": D.Normal(t([0.3, -1.0, 2.0]), t([1.5, 0.7, 1.0])),
        "Uniform": D.Uniform(t([0.1, 0.2, 0.0]), t([0.9, 0.5, 1.0])),
        "Uniform_wide": D.Uniform(t([-0.5, 0.0, 0.2]), t([2.0, 1.5, 0.8])),
        "Uniform_high": D.Uniform(t([1.5, 0.5, 2.0]), t([3.0, 1.0, 4.0])),
    }


PAIRS = [
    ("ContinuousBernoulli", "ContinuousBernoulli2"), ("ContinuousBernoulli2", "ContinuousBernoulli"),
    ("HalfNormal", "HalfNormal2"), ("Pareto", "Pareto2"), ("Pareto2", "Pareto"),
    ("Beta", "ContinuousBernoulli"), ("Beta", "Pareto"),
    ("ContinuousBernoulli", "Pareto"), ("ContinuousBernoulli", "Exponential"), ("ContinuousBernoulli", "Normal"),
    ("ContinuousBernoulli", "Uniform_wide"), ("ContinuousBernoulli", "Uniform"),
    ("Exponential", "ContinuousBernoulli"), ("Exponential", "Pareto"),
    ("Gamma", "ContinuousBernoulli"), ("Gamma", "Pareto"),
    ("Gumbel", "ContinuousBernoulli"), ("Gumbel", "Pareto"),
    ("Laplace", "ContinuousBernoulli"), ("Laplace", "Pareto"),
    ("Normal", "ContinuousBernoulli"), ("Normal", "Pareto"),
    ("Pareto", "Beta"), ("Pareto", "ContinuousBernoulli"), ("Pareto", "Uniform"),
    ("Pareto", "Exponential"), ("Pareto2", "Exponential"), ("Pareto", "Gamma"), ("Pareto2", "Gamma"),
    ("Pareto", "Normal"), ("Pareto2", "Normal"),
    ("Uniform", "ContinuousBernoulli"), ("Uniform_wide", "ContinuousBernoulli"),
    ("Uniform_high", "Pareto"), ("Uniform", "Pareto"),
    ("HalfNormal", "HalfNormal"), ("Pareto", "Pareto"), ("ContinuousBernoulli", "ContinuousBernoulli"),
]


@pytest.mark.parametrize("p,q", PAIRS)
def test_kl_matches_pytorch(p, q):
    d = _dists()
    got = D.kl_divergence(d[p], d[q])
    assert got.dtype == nbgrad.float64 and tuple(got.shape) == (3,)
    np.testing.assert_allclose(got.tolist(), KL_REF[p, q], rtol=1e-10, atol=1e-13)


def test_registry_has_pytorchs_pairs():
    # the pairs of the package's own families (other tests register pairs of local subclasses)
    names = {(a.__name__, b.__name__) for a, b in D.kl._KL_REGISTRY
             if getattr(D, a.__name__, None) is a and getattr(D, b.__name__, None) is b}
    assert names == REGISTRY_NAMES


def _fd_check(build, x0, h=1e-6):
    leaves = [t(v, True) for v in x0]
    kl = build(*leaves)
    grads = nbgrad.autograd.grad(kl.sum(), leaves)
    for i in range(len(x0)):
        for k in range(len(x0[i])):
            up = [list(v) for v in x0]
            dn = [list(v) for v in x0]
            up[i][k] += h
            dn[i][k] -= h
            fd = (float(build(*map(t, up)).sum()) - float(build(*map(t, dn)).sum())) / (2 * h)
            assert abs(grads[i][k].item() - fd) < 1e-6 * max(1.0, abs(fd)), (i, k, grads[i][k].item(), fd)


def test_kl_gradients_match_finite_differences():
    _fd_check(lambda a, b: D.kl_divergence(D.ContinuousBernoulli(a), D.ContinuousBernoulli(b)),
              [[0.3, 0.8, 0.55], [0.6, 0.2, 0.45]])
    _fd_check(lambda a, b: D.kl_divergence(D.HalfNormal(a), D.HalfNormal(b)), [[0.3, 1.8], [0.6, 1.2]])
    _fd_check(lambda a, b, c, e: D.kl_divergence(D.Pareto(a, b), D.Normal(c, e)),
              [[1.0, 0.5], [3.0, 4.5], [0.2, -1.0], [1.5, 0.7]])
    _fd_check(lambda a, b, c, e: D.kl_divergence(D.Pareto(a, b), D.Pareto(c, e)),
              [[1.0, 0.5], [3.0, 4.5], [0.7, 0.4], [1.5, 2.0]])
    _fd_check(lambda a, b, c: D.kl_divergence(D.ContinuousBernoulli(a), D.Normal(b, c)),
              [[0.3, 0.7], [0.2, -1.0], [1.5, 0.7]])
    _fd_check(lambda a, b, c: D.kl_divergence(D.Uniform(a, b), D.ContinuousBernoulli(c)),
              [[0.1, 0.3], [0.9, 0.6], [0.2, 0.7]])


def test_kl_of_a_distribution_with_itself_is_zero():
    d = _dists()
    for name in ("ContinuousBernoulli", "ContinuousBernoulli2", "HalfNormal", "Pareto"):
        np.testing.assert_allclose(D.kl_divergence(d[name], d[name]).tolist(), [0.0, 0.0, 0.0], atol=1e-12)


def test_kl_matches_monte_carlo():
    # E_p[log p - log q] over many draws of p, within 6 standard errors of the closed form
    nbgrad.manual_seed(0)
    n = 40000
    for p, q in [(D.ContinuousBernoulli(t([0.3, 0.9])), D.ContinuousBernoulli(t([0.6, 0.5001]))),
                 (D.HalfNormal(t([1.5, 0.7])), D.HalfNormal(t([1.0, 2.0]))),
                 (D.Pareto(t([1.0, 2.0]), t([3.0, 5.0])), D.Pareto(t([0.5, 1.0]), t([2.0, 4.0]))),
                 # tails light enough (alpha > 8) for the sample standard deviation of x^2 terms
                 (D.Pareto(t([1.0, 2.0]), t([9.0, 10.0])), D.Normal(t([1.0, 2.0]), t([2.0, 3.0]))),
                 (D.ContinuousBernoulli(t([0.3, 0.9])), D.Normal(t([0.4, 0.6]), t([0.5, 1.0])))]:
        x = p.sample((n,))
        lr = np.asarray((p.log_prob(x) - q.log_prob(x)).tolist())
        kl = np.asarray(D.kl_divergence(p, q).tolist())
        np.testing.assert_array_less(np.abs(lr.mean(0) - kl), 6 * lr.std(0) / math.sqrt(n) + 1e-12)


def test_pareto_and_halfnormal_rules_win_over_transformed_distribution():
    # both are TransformedDistributions: their own pair is more specific than
    # (TransformedDistribution, TransformedDistribution), which would raise for Pareto
    # (different transforms) and give the base Normals' KL for HalfNormal
    p, q = D.Pareto(t([1.0]), t([3.0])), D.Pareto(t([0.5]), t([2.0]))
    assert D.kl.kl_divergence(p, q).tolist() == pytest.approx([2.0 * math.log(2.0) - math.log(2 / 3) + 2 / 3 - 1])
    # a subclass still finds its parent's pair
    class MyHalfNormal(D.HalfNormal):
        pass
    a, b = MyHalfNormal(t([1.5])), D.HalfNormal(t([1.0]))
    np.testing.assert_allclose(D.kl_divergence(a, b).tolist(), D.kl_divergence(D.HalfNormal(t([1.5])), b).tolist())


KL_REF = {
    ('ContinuousBernoulli', 'ContinuousBernoulli2'): [0.17241522620514593, 0.006684493619700443, 0.17958015563404917],
    ('ContinuousBernoulli2', 'ContinuousBernoulli'): [0.17041898054423865, 0.006666734896131177, 0.1935793179707308],
    ('HalfNormal', 'HalfNormal2'): [0.21953489189183562, 0.6110721244986779, 0.8068528194400547],
    ('Pareto', 'Pareto2'): [2.19361509376407, inf, 2.818239983121334],
    ('Pareto2', 'Pareto'): [inf, 0.4292502188631504, inf],
    ('Beta', 'ContinuousBernoulli'): [0.3663289528656193, 0.40480392410129207, 0.4614982931639042],
    ('Beta', 'Pareto'): [inf, inf, inf],
    ('ContinuousBernoulli', 'Pareto'): [inf, inf, inf],
    ('ContinuousBernoulli', 'Exponential'): [0.9376446333639887, 0.3069861794457459, 0.8495115026866368],
    ('ContinuousBernoulli', 'Normal'): [1.3754305217694882, 2.9434200803404105, 2.0164331732765253],
    ('ContinuousBernoulli', 'Uniform_wide'): [0.9456769341062843, inf, inf],
    ('ContinuousBernoulli', 'Uniform'): [inf, inf, inf],
    ('Exponential', 'ContinuousBernoulli'): [inf, inf, inf],
    ('Exponential', 'Pareto'): [inf, inf, inf],
    ('Gamma', 'ContinuousBernoulli'): [inf, inf, inf],
    ('Gamma', 'Pareto'): [inf, inf, inf],
    ('Gumbel', 'ContinuousBernoulli'): [inf, inf, inf],
    ('Gumbel', 'Pareto'): [inf, inf, inf],
    ('Laplace', 'ContinuousBernoulli'): [inf, inf, inf],
    ('Laplace', 'Pareto'): [inf, inf, inf],
    ('Normal', 'ContinuousBernoulli'): [inf, inf, inf],
    ('Normal', 'Pareto'): [inf, inf, inf],
    ('Pareto', 'Beta'): [inf, inf, inf],
    ('Pareto', 'ContinuousBernoulli'): [inf, inf, inf],
    ('Pareto', 'Uniform'): [inf, inf, inf],
    ('Pareto', 'Exponential'): [inf, 3.0687948121957627, 2.072131774774831],
    ('Pareto2', 'Exponential'): [1.0794415416798357, inf, 1.4696276944532238],
    ('Pareto', 'Gamma'): [inf, 1.5180677744269362, 1.0456512608815522],
    ('Pareto2', 'Gamma'): [1.6593531597105358, inf, 1.2196276944532238],
    ('Pareto', 'Normal'): [inf, inf, 1.9910703079795038],
    ('Pareto2', 'Normal'): [inf, inf, 1.388566227657897],
    ('Uniform', 'ContinuousBernoulli'): [0.25287967456608507, 1.2040928309990058, inf],
    ('Uniform_wide', 'ContinuousBernoulli'): [inf, inf, 0.7044598686010726],
    ('Uniform_high', 'Pareto'): [1.2972009335182617, inf, 0.44656515581145184],
    ('Uniform', 'Pareto'): [inf, inf, inf],
    ('HalfNormal', 'HalfNormal'): [0.0, 0.0, 0.0],
    ('Pareto', 'Pareto'): [0.0, 0.0, 0.0],
    ('ContinuousBernoulli', 'ContinuousBernoulli'): [0.0, 0.0, 0.0],
}
REGISTRY_NAMES = {
    ('Bernoulli', 'Bernoulli'), ('Bernoulli', 'Poisson'), ('Beta', 'Beta'), ('Beta', 'ContinuousBernoulli'),
    ('Beta', 'Exponential'), ('Beta', 'Gamma'), ('Beta', 'Normal'), ('Beta', 'Pareto'),
    ('Beta', 'Uniform'), ('Binomial', 'Binomial'), ('Categorical', 'Categorical'), ('Cauchy', 'Cauchy'),
    ('ContinuousBernoulli', 'ContinuousBernoulli'), ('ContinuousBernoulli', 'Exponential'), ('ContinuousBernoulli', 'Normal'), ('ContinuousBernoulli', 'Pareto'),
    ('ContinuousBernoulli', 'Uniform'), ('Dirichlet', 'Dirichlet'), ('Exponential', 'Beta'), ('Exponential', 'ContinuousBernoulli'),
    ('Exponential', 'Exponential'), ('Exponential', 'Gamma'), ('Exponential', 'Gumbel'), ('Exponential', 'Normal'),
    ('Exponential', 'Pareto'), ('Exponential', 'Uniform'), ('ExponentialFamily', 'ExponentialFamily'), ('Gamma', 'Beta'),
    ('Gamma', 'ContinuousBernoulli'), ('Gamma', 'Exponential'), ('Gamma', 'Gamma'), ('Gamma', 'Gumbel'),
    ('Gamma', 'Normal'), ('Gamma', 'Pareto'), ('Gamma', 'Uniform'), ('Geometric', 'Geometric'),
    ('Gumbel', 'Beta'), ('Gumbel', 'ContinuousBernoulli'), ('Gumbel', 'Exponential'), ('Gumbel', 'Gamma'),
    ('Gumbel', 'Gumbel'), ('Gumbel', 'Normal'), ('Gumbel', 'Pareto'), ('Gumbel', 'Uniform'),
    ('HalfNormal', 'HalfNormal'), ('Independent', 'Independent'), ('Laplace', 'Beta'), ('Laplace', 'ContinuousBernoulli'),
    ('Laplace', 'Exponential'), ('Laplace', 'Gamma'), ('Laplace', 'Laplace'), ('Laplace', 'Normal'),
    ('Laplace', 'Pareto'), ('Laplace', 'Uniform'), ('LowRankMultivariateNormal', 'LowRankMultivariateNormal'), ('LowRankMultivariateNormal', 'MultivariateNormal'),
    ('MultivariateNormal', 'LowRankMultivariateNormal'), ('MultivariateNormal', 'MultivariateNormal'), ('Normal', 'Beta'), ('Normal', 'ContinuousBernoulli'),
    ('Normal', 'Exponential'), ('Normal', 'Gamma'), ('Normal', 'Gumbel'), ('Normal', 'Laplace'),
    ('Normal', 'Normal'), ('Normal', 'Pareto'), ('Normal', 'Uniform'), ('OneHotCategorical', 'OneHotCategorical'),
    ('Pareto', 'Beta'), ('Pareto', 'ContinuousBernoulli'), ('Pareto', 'Exponential'), ('Pareto', 'Gamma'),
    ('Pareto', 'Normal'), ('Pareto', 'Pareto'), ('Pareto', 'Uniform'), ('Poisson', 'Bernoulli'),
    ('Poisson', 'Binomial'), ('Poisson', 'Poisson'), ('TransformedDistribution', 'TransformedDistribution'), ('Uniform', 'Beta'),
    ('Uniform', 'ContinuousBernoulli'), ('Uniform', 'Exponential'), ('Uniform', 'Gamma'), ('Uniform', 'Gumbel'),
    ('Uniform', 'Normal'), ('Uniform', 'Pareto'), ('Uniform', 'Uniform'),
}
