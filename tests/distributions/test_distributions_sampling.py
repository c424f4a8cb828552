"""torch.distributions' sampling: shapes (sample_shape + batch_shape + event_shape), sample
without graph and rsample with one, rsample's gradients against the analytic ones given the
drawn values, the Gamma implicit-reparameterization gradient (PyTorch's _standard_gamma_grad,
recorded literals, and finite differences of the Gamma CDF), and statistics of many draws
(tolerances of many standard errors: a fixed seed cannot make them fail by chance, with
nbgrad's generator or PyTorch's).

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math
import warnings

import numpy as np
import pytest
import scipy.special

import nbgrad

D = nbgrad.distributions


def t(x, grad=False, dtype=None):
    return nbgrad.tensor(x, dtype=dtype or nbgrad.float64, requires_grad=grad)


@pytest.fixture(autouse=True)
def _seed():
    nbgrad.manual_seed(1234)


def _family_builders():
    return {
        "Normal": lambda: D.Normal(t([0.3, -1.0]), t([1.5, 0.7])),
        "Uniform": lambda: D.Uniform(t([0.0, -1.0]), t([2.0, 3.0])),
        "Bernoulli": lambda: D.Bernoulli(t([0.3, 0.8])),
        "Categorical": lambda: D.Categorical(t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "OneHotCategorical": lambda: D.OneHotCategorical(t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "Exponential": lambda: D.Exponential(t([0.5, 2.0])),
        "Laplace": lambda: D.Laplace(t([0.3, -1.0]), t([1.5, 0.7])),
        "Poisson": lambda: D.Poisson(t([0.5, 4.0])),
        "Binomial": lambda: D.Binomial(t([5.0, 10.0]), t([0.3, 0.7])),
        "Geometric": lambda: D.Geometric(t([0.3, 0.8])),
        "Gumbel": lambda: D.Gumbel(t([0.3, -1.0]), t([1.5, 0.7])),
        "Cauchy": lambda: D.Cauchy(t([0.3, -1.0]), t([1.5, 0.7])),
        "LogNormal": lambda: D.LogNormal(t([0.3, -1.0]), t([0.5, 0.7])),
        "Gamma": lambda: D.Gamma(t([0.5, 3.0]), t([1.5, 0.7])),
        "Chi2": lambda: D.Chi2(t([1.5, 3.0])),
        "Beta": lambda: D.Beta(t([0.5, 3.0]), t([1.5, 0.7])),
        "Dirichlet": lambda: D.Dirichlet(t([[0.5, 3.0, 1.0], [2.0, 2.0, 2.0]])),
        "StudentT": lambda: D.StudentT(t([5.0, 9.0]), t([0.3, -1.0]), t([1.5, 0.7])),
        "MultivariateNormal": lambda: D.MultivariateNormal(t([[0.0, 1.0], [1.0, -1.0]]),
                                                           scale_tril=t([[1.0, 0.0], [0.5, 2.0]])),
        "LowRankMultivariateNormal": lambda: D.LowRankMultivariateNormal(
            t([[0.0, 1.0, 2.0]]), t([[1.0, 0.2], [0.5, 0.1], [0.2, -1.0]]), t([1.0, 2.0, 3.0])),
        "RelaxedBernoulli": lambda: D.RelaxedBernoulli(t(0.7), t([0.3, 0.8])),
        "RelaxedOneHotCategorical": lambda: D.RelaxedOneHotCategorical(t(0.7), t([[0.2, 0.3, 0.5],
                                                                                   [0.1, 0.1, 0.8]])),
        "MixtureSameFamily": lambda: D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])),
                                                         D.Normal(t([0.0, 5.0]), t([1.0, 0.5]))),
        "Independent": lambda: D.Independent(D.Normal(t([[0.3, -1.0]]), t([[1.5, 0.7]])), 1),
    }


FAMILIES = sorted(_family_builders())


@pytest.mark.parametrize("name", FAMILIES)
def test_sample_shape_is_sample_batch_event(name):
    d = _family_builders()[name]()
    for sample_shape in [(), (4,), (3, 2)]:
        s = d.sample(sample_shape)
        assert tuple(s.shape) == tuple(sample_shape) + tuple(d.batch_shape) + tuple(d.event_shape)
        assert bool(d.support.check(s).all()), name
        if d.has_rsample:
            r = d.rsample(sample_shape)
            assert tuple(r.shape) == tuple(s.shape)
            assert bool(d.support.check(r).all()), name
    assert tuple(d.sample(nbgrad.Size([2])).shape) == (2,) + tuple(d.batch_shape) + tuple(d.event_shape)
    # log_prob of its own draws is finite
    assert bool(nbgrad.isfinite(d.log_prob(d.sample((5,)))).all())


@pytest.mark.parametrize("name", FAMILIES)
def test_expand_then_sample(name):
    d = _family_builders()[name]()
    e = d.expand((3,) + tuple(d.batch_shape))
    assert tuple(e.batch_shape) == (3,) + tuple(d.batch_shape)
    assert tuple(e.event_shape) == tuple(d.event_shape)
    s = e.sample((2,))
    assert tuple(s.shape) == (2, 3) + tuple(d.batch_shape) + tuple(d.event_shape)
    # the expanded distribution scores a value like the original, repeated over the new dim
    v = d.sample()
    np.testing.assert_allclose(e.log_prob(v).tolist(), [d.log_prob(v).tolist()] * 3, rtol=1e-12)
    assert e._validate_args == d._validate_args


def test_sample_n_warns_and_draws_n():
    d = D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated. Use `sample\(\(n,\)\)` instead."):
        s = d.sample_n(5)
    assert tuple(s.shape) == (5, 2)


@pytest.mark.parametrize("name", FAMILIES)
def test_sample_carries_no_graph_and_rsample_does(name):
    # every parameter tensor a grad leaf
    leaf_d = _with_grad_leaves(name)
    s = leaf_d.sample((3,))
    assert not s.requires_grad and s.grad_fn is None
    if leaf_d.has_rsample:
        r = leaf_d.rsample((3,))
        assert r.requires_grad
    else:
        with pytest.raises(NotImplementedError):
            leaf_d.rsample((3,))


def _with_grad_leaves(name):
    g = lambda x: t(x, grad=True)  # noqa: E731
    return {
        "Normal": lambda: D.Normal(g([0.3, -1.0]), g([1.5, 0.7])),
        "Uniform": lambda: D.Uniform(g([0.0, -1.0]), g([2.0, 3.0])),
        "Bernoulli": lambda: D.Bernoulli(g([0.3, 0.8])),
        "Categorical": lambda: D.Categorical(g([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "OneHotCategorical": lambda: D.OneHotCategorical(g([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "Exponential": lambda: D.Exponential(g([0.5, 2.0])),
        "Laplace": lambda: D.Laplace(g([0.3, -1.0]), g([1.5, 0.7])),
        "Poisson": lambda: D.Poisson(g([0.5, 4.0])),
        "Binomial": lambda: D.Binomial(t([5.0, 10.0]), g([0.3, 0.7])),
        "Geometric": lambda: D.Geometric(g([0.3, 0.8])),
        "Gumbel": lambda: D.Gumbel(g([0.3, -1.0]), g([1.5, 0.7])),
        "Cauchy": lambda: D.Cauchy(g([0.3, -1.0]), g([1.5, 0.7])),
        "LogNormal": lambda: D.LogNormal(g([0.3, -1.0]), g([0.5, 0.7])),
        "Gamma": lambda: D.Gamma(g([0.5, 3.0]), g([1.5, 0.7])),
        "Chi2": lambda: D.Chi2(g([1.5, 3.0])),
        "Beta": lambda: D.Beta(g([0.5, 3.0]), g([1.5, 0.7])),
        "Dirichlet": lambda: D.Dirichlet(g([[0.5, 3.0, 1.0], [2.0, 2.0, 2.0]])),
        "StudentT": lambda: D.StudentT(g([5.0, 9.0]), g([0.3, -1.0]), g([1.5, 0.7])),
        "MultivariateNormal": lambda: D.MultivariateNormal(g([[0.0, 1.0], [1.0, -1.0]]),
                                                           scale_tril=g([[1.0, 0.0], [0.5, 2.0]])),
        "LowRankMultivariateNormal": lambda: D.LowRankMultivariateNormal(
            g([[0.0, 1.0, 2.0]]), g([[1.0, 0.2], [0.5, 0.1], [0.2, -1.0]]), g([1.0, 2.0, 3.0])),
        "RelaxedBernoulli": lambda: D.RelaxedBernoulli(t(0.7), g([0.3, 0.8])),
        "RelaxedOneHotCategorical": lambda: D.RelaxedOneHotCategorical(t(0.7), g([[0.2, 0.3, 0.5],
                                                                                   [0.1, 0.1, 0.8]])),
        "MixtureSameFamily": lambda: D.MixtureSameFamily(D.Categorical(g([0.3, 0.7])),
                                                         D.Normal(g([0.0, 5.0]), g([1.0, 0.5]))),
        "Independent": lambda: D.Independent(D.Normal(g([[0.3, -1.0]]), g([[1.5, 0.7]])), 1),
    }[name]()


# ------------------------------------------------------------------ rsample gradients

def _grads(x, *params):
    return nbgrad.autograd.grad(x.sum(), list(params))


def test_normal_rsample_gradient_is_the_drawn_noise():
    loc, scale = t([0.3, -1.0], True), t([1.5, 0.7], True)
    x = D.Normal(loc, scale).rsample((1000,))
    g_loc, g_scale = _grads(x, loc, scale)
    eps = ((x - loc) / scale).detach()
    np.testing.assert_allclose(g_loc.tolist(), [1000.0, 1000.0], rtol=1e-12)
    np.testing.assert_allclose(g_scale.tolist(), eps.sum(0).tolist(), rtol=1e-10, atol=1e-10)


def test_laplace_cauchy_rsample_gradients_are_location_scale():
    for cls in (D.Laplace, D.Cauchy):
        loc, scale = t([0.3, -1.0], True), t([1.5, 0.7], True)
        x = cls(loc, scale).rsample((500,))
        g_loc, g_scale = _grads(x, loc, scale)
        np.testing.assert_allclose(g_loc.tolist(), [500.0, 500.0], rtol=1e-12)
        np.testing.assert_allclose(g_scale.tolist(), ((x - loc) / scale).detach().sum(0).tolist(), rtol=1e-9)


def test_uniform_rsample_gradient():
    low, high = t([0.0, -1.0], True), t([2.0, 3.0], True)
    x = D.Uniform(low, high).rsample((500,))
    g_low, g_high = _grads(x, low, high)
    u = ((x - low) / (high - low)).detach()
    np.testing.assert_allclose(g_low.tolist(), (1 - u).sum(0).tolist(), rtol=1e-10)
    np.testing.assert_allclose(g_high.tolist(), u.sum(0).tolist(), rtol=1e-10)


def test_exponential_rsample_gradient():
    rate = t([0.5, 2.0], True)
    x = D.Exponential(rate).rsample((500,))
    g_rate, = _grads(x, rate)
    np.testing.assert_allclose(g_rate.tolist(), (-x / rate).detach().sum(0).tolist(), rtol=1e-10)


def test_lognormal_rsample_gradient():
    loc, scale = t([0.3, -1.0], True), t([0.5, 0.7], True)
    x = D.LogNormal(loc, scale).rsample((500,))
    g_loc, g_scale = _grads(x, loc, scale)
    xd = x.detach()
    np.testing.assert_allclose(g_loc.tolist(), xd.sum(0).tolist(), rtol=1e-10)
    np.testing.assert_allclose(g_scale.tolist(), (xd * (xd.log() - loc.detach()) / scale.detach()).sum(0).tolist(),
                               rtol=1e-9)


def test_gumbel_rsample_gradient():
    loc, scale = t([0.3, -1.0], True), t([1.5, 0.7], True)
    x = D.Gumbel(loc, scale).rsample((500,))
    g_loc, g_scale = _grads(x, loc, scale)
    np.testing.assert_allclose(g_loc.tolist(), [500.0, 500.0], rtol=1e-12)
    np.testing.assert_allclose(g_scale.tolist(), ((x - loc) / scale).detach().sum(0).tolist(), rtol=1e-9)


def test_multivariate_normal_rsample_gradient():
    loc = t([0.0, 1.0], True)
    L = t([[1.0, 0.0], [0.5, 2.0]], True)
    x = D.MultivariateNormal(loc, scale_tril=L).rsample((400,))
    g_loc, g_L = _grads(x, loc, L)
    eps = nbgrad.linalg.solve_triangular(L.detach(), (x - loc).detach().unsqueeze(-1), upper=False).squeeze(-1)
    np.testing.assert_allclose(g_loc.tolist(), [400.0, 400.0], rtol=1e-12)
    # d sum(x) / d L[i, j] = sum over draws of eps_j (for every row i)
    col = eps.sum(0).tolist()
    np.testing.assert_allclose(g_L.tolist(), [col, col], rtol=1e-9)


def test_gamma_rsample_rate_gradient():
    conc, rate = t([0.5, 3.0], True), t([1.5, 0.7], True)
    x = D.Gamma(conc, rate).rsample((500,))
    _, g_rate = _grads(x, conc, rate)
    np.testing.assert_allclose(g_rate.tolist(), (-x / rate).detach().sum(0).tolist(), rtol=1e-10)


@pytest.mark.parametrize("alpha", [0.05, 0.3, 0.9, 2.0, 5.0, 9.0, 20.0, 60.0])
def test_gamma_rsample_concentration_gradient_is_the_implicit_one(alpha):
    # dx/dalpha = -(dF(x; alpha)/dalpha) / f(x; alpha): F by scipy's regularized incomplete
    # gamma function, its alpha-derivative by central differences; PyTorch's approximation is
    # within 1e-3 of it
    a = t([alpha] * 400, True)
    x = D.Gamma(a, 1.0).rsample()
    g, = nbgrad.autograd.grad(x.sum(), [a])
    xs = np.asarray(x.tolist())
    h = 1e-6 * max(alpha, 1.0)
    dF = (scipy.special.gammainc(alpha + h, xs) - scipy.special.gammainc(alpha - h, xs)) / (2 * h)
    log_pdf = (alpha - 1) * np.log(xs) - xs - scipy.special.gammaln(alpha)
    expected = -dF / np.exp(log_pdf)
    ok = np.isfinite(expected) & (log_pdf > -600)
    assert ok.sum() > 300
    np.testing.assert_allclose(np.asarray(g.tolist())[ok], expected[ok], rtol=2e-3, atol=1e-12)


def _standard_gamma_grad():
    # PyTorch's op, or nbgrad's private twin of it (the distributions package's own)
    fn = getattr(nbgrad, "_standard_gamma_grad", None)
    return fn if fn is not None else nbgrad.distributions._standard_gamma._standard_gamma_grad


# (alpha, x) across every branch of PyTorch's approximation: x < 0.8f (Taylor series, and the
# 0.8f boundary itself), alpha > 8 near x = alpha and away from it on both sides, the rational fit
SGG_ALPHA = [0.3, 1.0, 2.0, 5.0, 9.0, 10.0, 10.0, 10.0, 20.0, 0.05, 3.0, 7.9, 8.5, 100.0, 100.0, 1e-3, 0.5, 2.5, 50.0]
SGG_X = [0.1, 0.5, 0.9, 1.5, 3.0, 9.0, 10.0, 11.0, 30.0, 1e-4, 0.79, 12.0, 8.5, 80.0, 150.0, 1e-30, 4.0, 0.8, 52.0]
SGG_REF64 = [
    0.7894044031433252, 0.8069784920049818, 0.7071625249266352, 0.5324898718907353, 0.5593420120424198,
    0.9642181074379501, 1.0167711226851852, 1.0659325666714892, 1.2265978621587852, 0.017426831784515023,
    0.5019105797375483, 1.2493893978177706, 1.0197524896156078, 0.894058555437897, 1.2184307323755545,
    6.850198085801084e-26, 3.2070898163018775, 0.5704836822369299, 1.0231381425476853,
]
SGG_REF32 = [
    0.7894043922424316, 0.8069784641265869, 0.7071624994277954, 0.5324898958206177, 0.5593420267105103,
    0.9642180800437927, 1.0167710781097412, 1.0659325122833252, 1.2265979051589966, 0.017426831647753716,
    0.5019105672836304, 1.249389410018921, 1.0197525024414062, 0.8940585851669312, 1.218430757522583,
    6.850197546300679e-26, 3.207089900970459, 0.5705636739730835, 1.023138165473938,
]


def test_standard_gamma_grad_matches_pytorch_float64():
    got = _standard_gamma_grad()(t(SGG_ALPHA), t(SGG_X))
    np.testing.assert_allclose(got.tolist(), SGG_REF64, rtol=1e-13)


def test_standard_gamma_grad_matches_pytorch_float32():
    got = _standard_gamma_grad()(t(SGG_ALPHA, dtype=nbgrad.float32), t(SGG_X, dtype=nbgrad.float32))
    assert got.dtype == nbgrad.float32
    # float32 x = 0.8 is not below 0.8f: the rational fit, unlike float64 0.8 (Taylor series)
    np.testing.assert_allclose(got.tolist(), SGG_REF32, rtol=1e-6)


def test_gamma_rsample_gradient_has_no_second_derivative_in_alpha():
    a = t([2.0, 3.0], True)
    x = D.Gamma(a, 1.0).rsample()
    g, = nbgrad.autograd.grad(x.sum(), [a], create_graph=True)
    with pytest.raises(NotImplementedError, match="the derivative for '_standard_gamma_grad' is not implemented."):
        nbgrad.autograd.grad(g.sum(), [a])


def test_gamma_rsample_float32_and_tiny_clamp():
    d = D.Gamma(nbgrad.tensor([1e-3, 1.0]), nbgrad.tensor([1.0, 1.0]))
    x = d.rsample((2000,))
    assert x.dtype == nbgrad.float32
    # tiny concentrations underflow; PyTorch clamps the draws at the smallest normal number
    assert float(x.min()) >= nbgrad.finfo(nbgrad.float32).tiny


def _dirichlet_grad():
    # PyTorch's op, or nbgrad's private twin of it (the distributions package's own)
    fn = getattr(nbgrad, "_dirichlet_grad", None)
    return fn if fn is not None else nbgrad.distributions._dirichlet._dirichlet_grad


# (x, alpha, total) across the branches: x near 0 and near 1 (Taylor series), both Beta
# parameters above 6 (saddle point, near the mean and away from it), the rational correction
DG_X = [0.05, 0.3, 0.6, 0.95, 0.5, 0.4, 0.2, 0.7, 0.45, 0.999, 1e-5, 0.5, 0.3, 0.5, 0.52]
DG_ALPHA = [0.5, 2.0, 3.0, 4.0, 10.0, 8.0, 1.0, 2.5, 30.0, 5.0, 0.1, 0.5, 4.0, 1.0, 10.0]
DG_TOTAL = [1.5, 3.0, 5.0, 4.5, 20.0, 21.0, 9.0, 3.5, 65.0, 5.2, 3.0, 1.0, 20.0, 12.0, 19.0]
DG_REF64 = [
    0.3153402393214728, 0.2579941723555577, 0.22614624971071287, 0.25861058373387413, 0.051680569963116645,
    0.050612100097709216, 0.18043490744282625, 0.3328966224543616, 0.015352960412294106, 0.21647087639676765,
    0.0010166679162715848, 1.831936739277412, 0.06458375585781007, 0.21863370596736115, 0.054122788558554666,
]
DG_REF32 = [
    0.3153402805328369, 0.2579942047595978, 0.22614626586437225, 0.2586105763912201, 0.05168056860566139,
    0.05061209946870804, 0.1804349571466446, 0.3328965902328491, 0.015352959744632244, 0.2164705991744995,
    0.0010166680440306664, 1.8319367170333862, 0.06458375602960587, 0.2186337113380432, 0.05412278696894646,
]


def test_dirichlet_grad_matches_pytorch():
    got = _dirichlet_grad()(t(DG_X), t(DG_ALPHA), t(DG_TOTAL))
    np.testing.assert_allclose(got.tolist(), DG_REF64, rtol=1e-13)
    f32 = nbgrad.float32
    got32 = _dirichlet_grad()(t(DG_X, dtype=f32), t(DG_ALPHA, dtype=f32), t(DG_TOTAL, dtype=f32))
    assert got32.dtype == f32
    # PyTorch runs the Taylor branches in float32 arithmetic; nbgrad in float64, then rounds
    np.testing.assert_allclose(got32.tolist(), DG_REF32, rtol=2e-6)


def test_dirichlet_rsample_gradient_formula_and_once_differentiable():
    alpha = t([[2.0, 3.0, 1.5], [0.5, 0.5, 4.0]], True)
    x = D.Dirichlet(alpha).rsample((50,))
    w = t([1.0, -2.0, 0.5])
    g, = nbgrad.autograd.grad((x * w).sum(), [alpha], create_graph=True)
    # PyTorch's backward: _dirichlet_grad(x, alpha, total) * (w - sum(x * w))
    xd = x.detach()
    total = alpha.detach().sum(-1, True).expand_as(xd)
    dg = _dirichlet_grad()(xd, alpha.detach().expand_as(xd), total)
    expected = (dg * (w - (xd * w).sum(-1, True))).sum(0)
    np.testing.assert_allclose(g.tolist(), expected.tolist(), rtol=1e-10, atol=1e-12)
    # the draws stay on the simplex: d sum(x) / d alpha = 0
    g1, = nbgrad.autograd.grad(D.Dirichlet(alpha).rsample((50,)).sum(), [alpha])
    np.testing.assert_allclose(g1.tolist(), np.zeros((2, 3)), atol=1e-10)
    # once differentiable: no graph even with create_graph=True
    assert not g.requires_grad


def test_dirichlet_draws_are_clamped_inside_the_open_simplex():
    x = D.Dirichlet(nbgrad.tensor([1e-3, 1e-3, 5.0])).sample((500,))
    assert x.dtype == nbgrad.float32
    assert float(x.min()) >= nbgrad.finfo(nbgrad.float32).tiny
    assert float(x.max()) < 1.0


def test_dirichlet_and_beta_rsample_gradients_are_unbiased():
    # d/d alpha of E[x] (exact: alpha / sum(alpha)) against the mean of the pathwise gradients
    alpha = t([[1.5, 3.0, 0.7]] * 20000, True)
    x = D.Dirichlet(alpha).rsample()
    g, = nbgrad.autograd.grad(x[:, 0].sum(), [alpha])
    mean_g = np.asarray(g.tolist()).mean(0)
    a = np.array([1.5, 3.0, 0.7])
    s = a.sum()
    exact = np.array([(s - a[0]) / s ** 2, -a[0] / s ** 2, -a[0] / s ** 2])
    np.testing.assert_allclose(mean_g, exact, atol=0.012)
    c1, c0 = t([2.0] * 20000, True), t([3.0] * 20000, True)
    y = D.Beta(c1, c0).rsample()
    g1, g0 = nbgrad.autograd.grad(y.sum(), [c1, c0])
    # E[y] = c1 / (c1 + c0): derivatives 3/25 and -2/25
    assert abs(np.mean(g1.tolist()) - 0.12) < 0.01
    assert abs(np.mean(g0.tolist()) + 0.08) < 0.01


def test_student_t_and_chi2_rsample_are_differentiable_in_df():
    df = t([3.0, 7.0], True)
    x = D.StudentT(df).rsample((10,))
    g, = nbgrad.autograd.grad(x.sum(), [df])
    assert bool(nbgrad.isfinite(g).all())
    df2 = t([3.0], True)
    y = D.Chi2(df2).rsample((100,))
    g2, = nbgrad.autograd.grad(y.sum(), [df2])
    # Chi2(df) = 2 Gamma(df/2): d/d df = dGamma/dalpha, positive
    assert float(g2) > 0


def test_relaxed_rsample_gradients_flow_to_probs():
    p = t([0.3, 0.8], True)
    x = D.RelaxedBernoulli(t(0.5), probs=p).rsample((50,))
    g, = nbgrad.autograd.grad(x.sum(), [p])
    assert bool((g > 0).all())   # a larger p pushes every relaxed draw up
    q = t([0.2, 0.3, 0.5], True)
    y = D.RelaxedOneHotCategorical(t(0.5), probs=q).rsample((50,))
    np.testing.assert_allclose(y.sum(-1).tolist(), [1.0] * 50, rtol=1e-12)
    g2, = nbgrad.autograd.grad(y[:, 0].sum(), [q])
    assert float(g2[0]) > 0


def test_one_hot_straight_through_rsample():
    p = t([0.2, 0.3, 0.5], True)
    d = D.OneHotCategoricalStraightThrough(probs=p)
    r = d.rsample((4,))
    assert sorted(set(r.detach().reshape(-1).tolist())) == [0.0, 1.0]
    g, = nbgrad.autograd.grad((r * t([1.0, 2.0, 3.0])).sum(), [p])
    # the gradient of probs = p / p.sum(): the straight-through path only
    s = 1.0
    w = np.array([1.0, 2.0, 3.0]) * 4
    pv = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(g.tolist(), w / s - (w * pv).sum() / s, rtol=1e-10)


# ------------------------------------------------------------------ statistics of many draws

N_DRAWS = 40000


@pytest.mark.parametrize("name", [
    "Normal", "Uniform", "Bernoulli", "Exponential", "Laplace", "Poisson", "Binomial", "Geometric",
    "Gumbel", "LogNormal", "Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "MultivariateNormal",
    "LowRankMultivariateNormal", "OneHotCategorical", "MixtureSameFamily",
])
def test_sample_moments(name):
    d = _family_builders()[name]()
    x = np.asarray(d.sample((N_DRAWS,)).tolist(), dtype=np.float64)
    mean = np.asarray(d.mean.tolist())
    var = np.asarray(d.variance.tolist())
    # 6 standard errors of the sample mean
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 6 * np.sqrt(var / N_DRAWS) + 1e-12)
    # the sample variance within 10% (heavy tails included: StudentT with df >= 5)
    np.testing.assert_allclose(x.var(0), var, rtol=0.1)


def test_categorical_sample_frequencies():
    probs = [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]
    x = np.asarray(D.Categorical(t(probs)).sample((N_DRAWS,)).tolist())
    for b in range(2):
        freq = np.bincount(x[:, b], minlength=3) / N_DRAWS
        p = np.array(probs[b])
        np.testing.assert_array_less(np.abs(freq - p), 6 * np.sqrt(p * (1 - p) / N_DRAWS))


def test_cauchy_sample_quartiles():
    x = np.asarray(D.Cauchy(t([0.3]), t([1.5])).sample((N_DRAWS,)).tolist())[:, 0]
    q1, q2, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    # quartiles of Cauchy(0.3, 1.5): 0.3 -+ 1.5; the sample quantiles' standard error is ~0.012 here
    assert abs(q2 - 0.3) < 0.08 and abs(q1 - (0.3 - 1.5)) < 0.1 and abs(q3 - (0.3 + 1.5)) < 0.1


def test_gamma_small_concentration_moments():
    # the boosted branch (alpha < 1): mean alpha, variance alpha (rate 1)
    for alpha in (0.1, 0.5):
        x = np.asarray(D.Gamma(t([alpha]), t([1.0])).sample((N_DRAWS,)).tolist())[:, 0]
        assert abs(x.mean() - alpha) < 6 * math.sqrt(alpha / N_DRAWS)
        assert abs(x.var() / alpha - 1) < 0.15


def test_sampling_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in FAMILIES:
            _family_builders()[name]().sample((2,))
