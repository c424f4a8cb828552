"""Sampling of the remaining torch.distributions families: shapes (sample_shape + batch_shape +
event_shape) inside the support, sample without graph and rsample with one, rsample's
gradients (location-scale identities, unbiasedness of reparameterized gradients of a mean),
and statistics of many draws against the analytic moments (bounds of many standard errors: a
fixed seed cannot make them fail by chance, with nbgrad's generator or PyTorch's).

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math
import os
import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats

import nbgrad

D = nbgrad.distributions
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
N_DRAWS = 40000


def t(x, grad=False):
    return nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=grad)


@pytest.fixture(autouse=True)
def _seed():
    nbgrad.manual_seed(1234)


def _builders(g=t):
    return {
        "HalfNormal": lambda: D.HalfNormal(g([1.5, 0.7])),
        "HalfCauchy": lambda: D.HalfCauchy(g([1.5, 0.7])),
        "Pareto": lambda: D.Pareto(g([1.0, 0.5]), g([5.0, 6.0])),
        "Weibull": lambda: D.Weibull(g([1.5, 0.7]), g([0.8, 2.0])),
        "Kumaraswamy": lambda: D.Kumaraswamy(g([0.5, 2.0]), g([1.5, 3.0])),
        "InverseGamma": lambda: D.InverseGamma(g([6.0, 9.0]), g([0.7, 2.0])),
        "FisherSnedecor": lambda: D.FisherSnedecor(g([3.0, 10.0]), g([20.0, 30.0])),
        "NegativeBinomial": lambda: D.NegativeBinomial(g([3.0, 5.5]), g([0.3, 0.6])),
        "Multinomial": lambda: D.Multinomial(5, g([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "ContinuousBernoulli": lambda: D.ContinuousBernoulli(g([0.2, 0.5, 0.9])),
        "VonMises": lambda: D.VonMises(g([0.3, -3.0, 2.0]), g([0.5, 5.0, 1e-6])),
        "LogisticNormal": lambda: D.LogisticNormal(g([0.3, -1.0, 0.5]), g([1.5, 0.7, 1.0])),
        "GeneralizedPareto": lambda: D.GeneralizedPareto(g([0.1, 0.0, -1.0]), g([2.0, 1.0, 0.5]), g([0.1, 0.0, -0.3])),
        "LKJCholesky": lambda: D.LKJCholesky(3, g([0.5, 2.0])),
        "Wishart": lambda: D.Wishart(g([4.0, 6.5]), covariance_matrix=g([[2.0, 0.3], [0.3, 1.0]])),
    }


FAMILIES = sorted(_builders())
_GPD_SKIP = pytest.mark.skipif(
    AGAINST_TORCH, reason="PyTorch's GeneralizedPareto.log_prob compares float64 parameters with a float32 zero and raises")
FAMILY_PARAMS = [pytest.param(n, marks=[_GPD_SKIP] if n == "GeneralizedPareto" else []) for n in FAMILIES]


@pytest.mark.parametrize("name", FAMILY_PARAMS)
def test_sample_shape_support_and_finite_log_prob(name):
    d = _builders()[name]()
    for sample_shape in [(), (4,), (3, 2)]:
        s = d.sample(sample_shape)
        assert tuple(s.shape) == tuple(sample_shape) + tuple(d.batch_shape) + tuple(d.event_shape)
        assert s.dtype == nbgrad.float64
        assert bool(d.support.check(s).all()), name
        if d.has_rsample:
            r = d.rsample(sample_shape)
            assert tuple(r.shape) == tuple(s.shape)
            assert bool(d.support.check(r).all()), name
    assert bool(nbgrad.isfinite(d.log_prob(d.sample((5,)))).all())


@pytest.mark.parametrize("name", FAMILY_PARAMS)
def test_expand_then_sample(name):
    d = _builders()[name]()
    e = d.expand((3,) + tuple(d.batch_shape))
    s = e.sample((2,))
    assert tuple(s.shape) == (2, 3) + tuple(d.batch_shape) + tuple(d.event_shape)
    v = d.sample()
    np.testing.assert_allclose(e.log_prob(v).tolist(), [d.log_prob(v).tolist()] * 3, rtol=1e-12)


@pytest.mark.parametrize("name", FAMILIES)
def test_sample_carries_no_graph_and_rsample_does(name):
    d = _builders(lambda x: t(x, grad=True))[name]()
    s = d.sample((3,))
    assert not s.requires_grad and s.grad_fn is None
    if d.has_rsample:
        assert d.rsample((3,)).requires_grad
    else:
        with pytest.raises(NotImplementedError):
            d.rsample((3,))


def test_float32_parameters_sample_float32():
    for d in [D.VonMises(nbgrad.tensor([0.3]), nbgrad.tensor([2.0])), D.HalfNormal(nbgrad.tensor([1.0])),
              D.ContinuousBernoulli(nbgrad.tensor([0.3])), D.LKJCholesky(3, nbgrad.tensor(1.0)),
              D.Wishart(nbgrad.tensor(3.0), nbgrad.eye(2)), D.GeneralizedPareto(0.0, nbgrad.tensor([1.0]), 0.2)]:
        assert d.sample((2,)).dtype == nbgrad.float32, type(d).__name__


# ------------------------------------------------------------------ rsample gradients

def test_scale_family_rsample_gradients_are_x_over_scale():
    # for x = scale * z with z free of scale, dx/dscale = x / scale
    for make in (lambda s: D.HalfNormal(s), lambda s: D.HalfCauchy(s), lambda s: D.Pareto(s, t([3.0])),
                 lambda s: D.Weibull(s, t([1.7]))):
        scale = t([1.3], grad=True)
        x = make(scale).rsample((50,))
        g, = nbgrad.autograd.grad(x.sum(), [scale])
        np.testing.assert_allclose(g.item(), (x.detach() / 1.3).sum().item(), rtol=1e-10)


def test_weibull_and_kumaraswamy_rsample_concentration_gradient_given_the_draw():
    # Weibull: x = scale * E^(1/k) -> dx/dk = -x log(x / scale) / k
    k = t([1.7], grad=True)
    x = D.Weibull(t([1.3]), k).rsample((50,))
    g, = nbgrad.autograd.grad(x.sum(), [k])
    xv = np.asarray(x.detach().tolist())
    np.testing.assert_allclose(g.item(), (-xv * np.log(xv / 1.3) / 1.7).sum(), rtol=1e-9)
    # Kumaraswamy: x = (1 - U^(1/b))^(1/a) -> dx/da = -x log(x) / a
    a = t([0.8], grad=True)
    x = D.Kumaraswamy(a, t([2.0])).rsample((50,))
    g, = nbgrad.autograd.grad(x.sum(), [a])
    xv = np.asarray(x.detach().tolist())
    np.testing.assert_allclose(g.item(), (-xv * np.log(xv) / 0.8).sum(), rtol=1e-9)


def test_generalized_pareto_and_continuous_bernoulli_rsample_are_inverse_cdfs():
    # d x / d loc = 1 for the GPD; the ContinuousBernoulli draw's cdf is uniform-distributed
    loc = t([0.2, -0.5], grad=True)
    d = D.GeneralizedPareto(loc, t([1.0, 2.0]), t([0.3, -0.2]))
    x = d.rsample((100,))
    g, = nbgrad.autograd.grad(x.sum(), [loc])
    assert g.tolist() == [100.0, 100.0]
    cb = D.ContinuousBernoulli(t([0.2, 0.8]))
    u = np.asarray(cb.cdf(cb.rsample((N_DRAWS,))).tolist())
    for b in range(2):
        assert scipy.stats.kstest(u[:, b], "uniform").pvalue > 1e-6


def _group_means(fn, groups=20):
    vals = np.array([fn() for _ in range(groups)])
    return vals.mean(0), vals.std(0, ddof=1) / math.sqrt(groups)


def test_reparameterized_gradients_are_unbiased():
    # d/dtheta E[x] by averaging rsample gradients over groups of draws: within 6 standard
    # errors (estimated across groups) of the analytic derivative of the mean
    def fisher():
        df2 = t([12.0], grad=True)
        x = D.FisherSnedecor(t([3.0]), df2).rsample((2000,))
        return nbgrad.autograd.grad(x.mean(), [df2])[0].item()
    m, se = _group_means(fisher)
    assert abs(m - (-2 / (12.0 - 2) ** 2)) < 6 * se + 1e-12, (m, se)

    def inv_gamma():
        a = t([4.0], grad=True)
        x = D.InverseGamma(a, t([2.0])).rsample((2000,))
        return nbgrad.autograd.grad(x.mean(), [a])[0].item()
    m, se = _group_means(inv_gamma)
    assert abs(m - (-2.0 / 3.0 ** 2)) < 6 * se + 1e-12, (m, se)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's Wishart.rsample always takes its singular-sample branch, whose "
                                          "in-place updates of the mask make backward raise RuntimeError")
def test_wishart_reparameterized_gradients_are_unbiased():
    def wishart():
        df = t(5.0, grad=True)
        tril = t([[1.0, 0.0], [0.5, 2.0]], grad=True)
        x = D.Wishart(df, scale_tril=tril).rsample((2000,))
        gdf, gtril = nbgrad.autograd.grad(x.mean(0).sum(), [df, tril])
        return [gdf.item()] + gtril.reshape(-1).tolist()
    m, se = _group_means(wishart)
    # E[W] = df L L^T: d sum / d df = sum(L L^T), d sum / d L = df * 2 * (1 1^T) L
    L = np.array([[1.0, 0.0], [0.5, 2.0]])
    expected = [float((L @ L.T).sum())] + (5.0 * 2 * np.ones((2, 2)) @ L).reshape(-1).tolist()
    np.testing.assert_array_less(np.abs(m - expected), 6 * se + 1e-9)


# ------------------------------------------------------------------ statistics of many draws

@pytest.mark.parametrize("name", ["HalfNormal", "Pareto", "Weibull", "Kumaraswamy", "InverseGamma",
                                  "FisherSnedecor", "NegativeBinomial", "Multinomial", "ContinuousBernoulli",
                                  "GeneralizedPareto", "Wishart"])
def test_sample_moments(name):
    d = _builders()[name]()
    x = np.asarray(d.sample((N_DRAWS,)).tolist(), dtype=np.float64)
    mean = np.asarray(d.mean.tolist())
    var = np.asarray(d.variance.tolist())
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 6 * np.sqrt(var / N_DRAWS) + 1e-12)
    np.testing.assert_allclose(x.var(0), var, rtol=0.1)


def test_half_cauchy_median():
    x = np.asarray(D.HalfCauchy(t([1.5])).sample((N_DRAWS,)).tolist())[:, 0]
    # median 1.5; the sample median's standard error is about 0.012 here
    assert abs(np.median(x) - 1.5) < 0.08


def test_von_mises_circular_moments():
    d = _builders()["VonMises"]()
    x = np.asarray(d.sample((N_DRAWS,)).tolist())
    loc = np.array([0.3, -3.0, 2.0])
    kappa = np.array([0.5, 5.0, 1e-6])
    assert np.all((x >= -math.pi) & (x < math.pi))
    r = scipy.special.i1(kappa) / scipy.special.i0(kappa)
    c, s = np.cos(x - loc), np.sin(x - loc)
    # E cos(x - loc) = I1/I0, E sin(x - loc) = 0; each term is bounded by 1 in absolute value
    np.testing.assert_array_less(np.abs(c.mean(0) - r), 6 / math.sqrt(N_DRAWS))
    np.testing.assert_array_less(np.abs(s.mean(0)), 6 / math.sqrt(N_DRAWS))
    # the circular variance PyTorch defines is 1 - I1/I0
    np.testing.assert_allclose(d.variance.tolist(), 1 - r, rtol=1e-6)
    # kappa -> 0 is uniform on the circle: its quartiles
    q = np.quantile(x[:, 2], [0.25, 0.5, 0.75])
    np.testing.assert_allclose(q, [-math.pi / 2, 0.0, math.pi / 2], atol=0.1)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's LKJCholesky sampler gives rows >= 3 Beta(i - 1/2, .) "
                                          "where the onion method has Beta(i / 2, .): its later rows are too spread")
def test_lkj_cholesky_marginals():
    # off-diagonal correlations of L L^T: (r + 1) / 2 ~ Beta(b, b) with b = eta - 1 + dim / 2,
    # the same for every pair (the LKJ density depends on det(L L^T) only)
    d = _builders()["LKJCholesky"]()
    L = np.asarray(d.sample((N_DRAWS,)).tolist())
    C = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(C, axis1=-2, axis2=-1), 1.0, atol=1e-12)
    d4 = D.LKJCholesky(4, t(1.0))
    L4 = np.asarray(d4.sample((N_DRAWS,)).tolist())
    C4 = L4 @ np.swapaxes(L4, -1, -2)
    var4 = 1 / (2 * (1.0 - 1 + 4 / 2) + 1)
    for i, j in [(1, 0), (2, 0), (3, 1), (3, 2)]:
        assert abs(C4[:, i, j].var() / var4 - 1) < 0.05
    for bi, eta in enumerate([0.5, 2.0]):
        b = eta - 1 + 3 / 2
        var = 1 / (2 * b + 1)
        for i, j in [(1, 0), (2, 0), (2, 1)]:
            r = C[:, bi, i, j]
            assert abs(r.mean()) < 6 * math.sqrt(var / N_DRAWS)
            assert abs(r.var() / var - 1) < 0.05


def test_logistic_normal_draws_map_back_to_the_normal():
    d = _builders()["LogisticNormal"]()
    x = d.sample((N_DRAWS,))
    np.testing.assert_allclose(x.sum(-1).tolist(), np.ones(N_DRAWS), rtol=1e-12)
    z = np.asarray(D.StickBreakingTransform().inv(x).tolist())
    loc, scale = np.array([0.3, -1.0, 0.5]), np.array([1.5, 0.7, 1.0])
    np.testing.assert_array_less(np.abs(z.mean(0) - loc), 6 * scale / math.sqrt(N_DRAWS))
    np.testing.assert_allclose(z.std(0), scale, rtol=0.03)


def test_multinomial_counts_sum_to_total_count():
    x = D.Multinomial(7, t([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])).sample((200,))
    assert x.sum(-1).eq(7).all()
    assert x[..., 1, 0].eq(0).all()


def test_negative_binomial_zero_total_count_draws_zero():
    x = D.NegativeBinomial(t([0.0, 2.0]), t([0.5, 0.5])).sample((100,))
    assert x[:, 0].eq(0).all()


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's Wishart.rsample warns 'Singular sample detected.' on every "
                                          "call (it reads support.check's True as 'singular')")
def test_wishart_rsample_warns_only_for_singular_samples():
    d = D.Wishart(t([4.0, 6.5]), covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d.rsample((10,))
    # ndim - 1 < df < ndim: draws are singular often; the warning says so, and draws stay finite
    with pytest.warns(UserWarning):
        low = D.Wishart(t(1.05), covariance_matrix=t([[1.0, 0.999999], [0.999999, 1.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = low.rsample((200,))
    assert tuple(s.shape) == (200, 2, 2) and bool(nbgrad.isfinite(s).all())


def test_sampling_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in FAMILIES:
            if name == "Wishart" and AGAINST_TORCH:
                continue
            _builders()[name]().sample((2,))
