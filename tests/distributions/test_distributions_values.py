"""torch.distributions' values and gradients, in float64: log_prob, cdf, icdf, entropy, mean,
variance, mode, stddev, perplexity and enumerate_support of every family nbgrad.distributions
has, at fixed parameters, against PyTorch 2.13's results (recorded here as literals), and the
gradients of log_prob + entropy (+ cdf) with respect to every parameter; the quantities
PyTorch does not implement raise NotImplementedError in both.

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math

import numpy as np
import pytest

import nbgrad

inf, nan = math.inf, math.nan
D = nbgrad.distributions


def t(x, grad=False):
    return nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=grad)


def _relaxed_b():
    return nbgrad.distributions.relaxed_bernoulli


def _relaxed_c():
    return nbgrad.distributions.relaxed_categorical


# name -> (factory(make) building the distribution from `make`d parameters, value for
# log_prob/cdf); `make` turns a list into a float64 tensor (a grad leaf in the gradient test)
SPECS = {
    "Normal": (lambda m: D.Normal(m([0.3, -1.0]), m([1.5, 0.7])), [0.2, -0.4]),
    "Uniform": (lambda m: D.Uniform(m([0.0, -1.0]), m([2.0, 3.0])), [0.5, 1.0]),
    "Bernoulli_probs": (lambda m: D.Bernoulli(probs=m([0.3, 0.8])), [1.0, 0.0]),
    "Bernoulli_logits": (lambda m: D.Bernoulli(logits=m([0.3, -2.0])), [1.0, 0.0]),
    "Categorical_probs": (lambda m: D.Categorical(probs=m([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])), [2.0, 0.0]),
    "Categorical_logits": (lambda m: D.Categorical(logits=m([[0.2, 0.3, 0.5], [1.1, -0.1, 0.8]])), [2.0, 1.0]),
    "OneHotCategorical": (lambda m: D.OneHotCategorical(probs=m([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
                          [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "Exponential": (lambda m: D.Exponential(m([0.5, 2.0])), [0.3, 1.2]),
    "Laplace": (lambda m: D.Laplace(m([0.3, -1.0]), m([1.5, 0.7])), [0.2, -0.4]),
    "Poisson": (lambda m: D.Poisson(m([0.5, 4.0])), [0.0, 3.0]),
    "Binomial_probs": (lambda m: D.Binomial(t([5.0, 5.0]), m([0.3, 0.7])), [2.0, 5.0]),
    "Binomial_logits": (lambda m: D.Binomial(t([5.0, 5.0]), logits=m([0.3, -0.7])), [2.0, 5.0]),
    "Geometric": (lambda m: D.Geometric(m([0.3, 0.8])), [0.0, 3.0]),
    "Gumbel": (lambda m: D.Gumbel(m([0.3, -1.0]), m([1.5, 0.7])), [0.2, -0.4]),
    "Cauchy": (lambda m: D.Cauchy(m([0.3, -1.0]), m([1.5, 0.7])), [0.2, -0.4]),
    "LogNormal": (lambda m: D.LogNormal(m([0.3, -1.0]), m([1.5, 0.7])), [0.2, 1.4]),
    "Gamma": (lambda m: D.Gamma(m([0.5, 3.0]), m([1.5, 0.7])), [0.2, 4.0]),
    "Chi2": (lambda m: D.Chi2(m([1.5, 3.0])), [0.2, 4.0]),
    "Beta": (lambda m: D.Beta(m([0.5, 3.0]), m([1.5, 0.7])), [0.2, 0.9]),
    "Dirichlet": (lambda m: D.Dirichlet(m([[0.5, 3.0, 1.0], [2.0, 2.0, 2.0]])), [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]),
    "StudentT": (lambda m: D.StudentT(m([0.5, 3.0]), m([0.3, -1.0]), m([1.5, 0.7])), [0.2, 4.0]),
    "MultivariateNormal_scale_tril": (
        lambda m: D.MultivariateNormal(m([0.0, 1.0]), scale_tril=m([[1.0, 0.0], [0.5, 2.0]])),
        [[0.3, 0.2], [1.0, -1.0]]),
    "MultivariateNormal_covariance": (
        lambda m: D.MultivariateNormal(m([0.0, 1.0]), covariance_matrix=m([[2.0, 0.3], [0.3, 1.0]])),
        [[0.3, 0.2], [1.0, -1.0]]),
    "MultivariateNormal_precision": (
        lambda m: D.MultivariateNormal(m([0.0, 1.0]), precision_matrix=m([[2.0, 0.3], [0.3, 1.0]])),
        [[0.3, 0.2], [1.0, -1.0]]),
    "MultivariateNormal_batched": (
        lambda m: D.MultivariateNormal(m([[0.0, 1.0], [1.0, -1.0]]), scale_tril=m([[1.0, 0.0], [0.5, 2.0]])),
        [[[0.3, 0.2], [1.0, -1.0]], [[0.0, 0.0], [2.0, 2.0]]]),
    "LowRankMultivariateNormal": (
        lambda m: D.LowRankMultivariateNormal(m([0.0, 1.0, 2.0]), m([[1.0, 0.2], [0.5, 0.1], [0.2, -1.0]]),
                                              m([1.0, 2.0, 3.0])),
        [[0.3, 0.2, 0.1], [1.0, -1.0, 0.0]]),
    "RelaxedBernoulli": (lambda m: D.RelaxedBernoulli(t(0.7), probs=m([0.3, 0.8])), [0.2, 0.9]),
    "LogitRelaxedBernoulli": (lambda m: _relaxed_b().LogitRelaxedBernoulli(t(0.7), probs=m([0.3, 0.8])),
                              [0.2, -0.9]),
    "RelaxedOneHotCategorical": (lambda m: D.RelaxedOneHotCategorical(t(0.7), probs=m([0.2, 0.3, 0.5])),
                                 [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
    "ExpRelaxedCategorical": (lambda m: _relaxed_c().ExpRelaxedCategorical(t(0.7), probs=m([0.2, 0.3, 0.5])),
                              [[-1.2, -0.3, -0.5], [-0.1, -2.1, -0.8]]),
    "Independent_Normal": (lambda m: D.Independent(D.Normal(m([[0.3, -1.0]]), m([[1.5, 0.7]])), 1),
                           [[0.2, -0.4], [1.0, 2.0]]),
    "MixtureSameFamily": (
        lambda m: D.MixtureSameFamily(D.Categorical(probs=m([0.3, 0.7])), D.Normal(m([0.0, 2.0]), m([1.0, 0.5]))),
        [0.5, 1.8]),
    "TransformedDistribution_sigmoid_affine": (
        lambda m: D.TransformedDistribution(D.Normal(m([0.3, -1.0]), m([1.5, 0.7])),
                                            [D.SigmoidTransform(), D.AffineTransform(1.0, -2.0)]),
        [0.2, -0.4]),
    "TransformedDistribution_stickbreaking": (
        lambda m: D.TransformedDistribution(D.Normal(m([0.3, -1.0, 0.5]), m([1.5, 0.7, 1.0])),
                                            D.StickBreakingTransform()),
        [[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]]),
    "TransformedDistribution_tanh": (
        lambda m: D.TransformedDistribution(D.Normal(m([0.3, -1.0]), m([1.5, 0.7])), [D.TanhTransform()]),
        [0.2, -0.4]),
}

ICDF_AT = [0.3, 0.8]
QUANTITIES = ("log_prob", "cdf", "icdf", "entropy", "mean", "variance", "mode", "stddev", "perplexity",
              "enumerate_support")


def _quantity(d, name, value):
    if name in ("log_prob", "cdf"):
        return getattr(d, name)(t(value))
    if name == "icdf":
        return d.icdf(t(ICDF_AT))
    if name in ("entropy", "perplexity", "enumerate_support"):
        return getattr(d, name)()
    return getattr(d, name)


def _record(name):
    """What the spec gives: {quantity: list or an exception's name}."""
    factory, value = SPECS[name]
    d = factory(t)
    out = {}
    for q in QUANTITIES:
        try:
            out[q] = _quantity(d, q, value).detach().tolist()
        except (NotImplementedError, ValueError, AttributeError) as e:
            out[q] = type(e).__name__
    return out


def _gradients(name):
    """Gradients of log_prob + entropy + cdf (the ones implemented) w.r.t. each parameter."""
    factory, value = SPECS[name]
    leaves = []

    def make(x):
        leaf = t(x, grad=True)
        leaves.append(leaf)
        return leaf

    d = factory(make)
    total = d.log_prob(t(value)).sum()
    # Gamma's cdf (gammainc) has no derivative in the concentration: left out of the sum
    for q in ("entropy",) if name in ("Gamma", "Chi2") else ("entropy", "cdf"):
        try:
            total = total + _quantity(d, q, value).sum()
        except NotImplementedError:
            pass
    grads = nbgrad.autograd.grad(total, leaves, allow_unused=True)
    return [None if g is None else g.tolist() for g in grads]


def _close(actual, expected):
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    assert a.shape == e.shape
    np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_values_match_pytorch(name):
    got = _record(name)
    for q, expected in REF[name].items():
        if isinstance(expected, str):
            assert got[q] == expected, (q, got[q])
        else:
            assert not isinstance(got[q], str), (q, got[q])
            _close(got[q], expected)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_gradients_match_pytorch(name):
    got = _gradients(name)
    expected = GRAD_REF[name]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (g is None) == (e is None)
        if e is not None:
            _close(g, e)


def test_float32_parameters_give_float32_results():
    # numbers take the tensor parameter's dtype; results keep it
    d = D.Normal(nbgrad.tensor([0.5, 1.0]), 2.0)
    assert d.scale.dtype == nbgrad.float32
    lp = d.log_prob(nbgrad.tensor([0.0, 3.0]))
    assert lp.dtype == nbgrad.float32
    np.testing.assert_allclose(lp.tolist(), [-1.6433357000350952, -2.112085819244385], rtol=1e-6)
    assert D.Normal(0.0, 1.0).loc.dtype == nbgrad.get_default_dtype()
    assert D.Gamma(nbgrad.tensor([2.0], dtype=nbgrad.float64), 3.0).rate.dtype == nbgrad.float64
    assert D.Categorical(nbgrad.tensor([0.3, 0.7])).sample((2,)).dtype == nbgrad.int64
    assert D.Bernoulli(0.3).sample().dtype == nbgrad.float32


REF = {
    'Normal': {
        'log_prob': [-1.3266258635350594, -0.9296105280414504],
        'cdf': [0.4734235356996349, 0.804317030846224],
        'icdf': [-0.48660076906206123, -0.41086513649895995],
        'entropy': [1.824403641312837, 1.0622635892659402],
        'mean': [0.3, -1.0],
        'variance': [2.25, 0.48999999999999994],
        'mode': [0.3, -1.0],
        'stddev': [1.5, 0.7],
        'perplexity': [6.199097031183739, 2.892911947885745],
        'enumerate_support': 'NotImplementedError',
    },
    'Uniform': {
        'log_prob': [-0.6931471805599453, -1.3862943611198906],
        'cdf': [0.25, 0.5],
        'icdf': [0.6, 2.2],
        'entropy': [0.6931471805599453, 1.3862943611198906],
        'mean': [1.0, 1.0],
        'variance': [0.3333333333333333, 1.3333333333333333],
        'mode': [nan, nan],
        'stddev': [0.5773502691896258, 1.1547005383792517],
        'perplexity': [2.0, 4.0],
        'enumerate_support': 'NotImplementedError',
    },
    'Bernoulli_probs': {
        'log_prob': [-1.2039728043259361, -1.6094379124341005],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [0.6108643020548935, 0.5004024235381879],
        'mean': [0.3, 0.8],
        'variance': [0.21, 0.15999999999999998],
        'mode': [0.0, 1.0],
        'stddev': [0.458257569495584, 0.39999999999999997],
        'perplexity': [1.8420227750373133, 1.6493848884661177],
        'enumerate_support': [[0.0, 0.0], [1.0, 1.0]],
    },
    'Bernoulli_logits': {
        'log_prob': [-0.5543552444685271, -0.1269280110429727],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [0.6820224894250294, 0.36533385508720784],
        'mean': [0.574442516811659, 0.11920292202211755],
        'variance': [0.24445831169074586, 0.1049935854035065],
        'mode': [1.0, 0.0],
        'stddev': [0.49442725621748024, 0.3240271368319427],
        'perplexity': [1.9778739188305665, 1.4409950113672498],
        'enumerate_support': [[0.0, 0.0], [1.0, 1.0]],
    },
    'Categorical_probs': {
        'log_prob': [-0.6931471805599453, -2.3025850929940455],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [1.0296530140645737, 0.639031859650177],
        'mean': [nan, nan],
        'variance': [nan, nan],
        'mode': [2, 2],
        'stddev': [nan, nan],
        'perplexity': [2.8000940728538315, 1.8946457081379977],
        'enumerate_support': [[0, 0], [1, 1], [2, 2]],
    },
    'Categorical_logits': {
        'log_prob': [-0.93983106084446, -1.9139358081636653],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [1.0906356052299233, 0.9997707576393278],
        'mean': [nan, nan],
        'variance': [nan, nan],
        'mode': [2, 0],
        'stddev': [nan, nan],
        'perplexity': [2.9761651376405736, 2.717658754535914],
        'enumerate_support': [[0, 0], [1, 1], [2, 2]],
    },
    'OneHotCategorical': {
        'log_prob': [-0.6931471805599453, -2.3025850929940455],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [1.0296530140645737, 0.639031859650177],
        'mean': [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]],
        'variance': [[0.16000000000000003, 0.21, 0.25], [0.09000000000000001, 0.09000000000000001, 0.15999999999999998]],
        'mode': [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]],
        'stddev': [[0.4, 0.458257569495584, 0.5], [0.30000000000000004, 0.30000000000000004, 0.39999999999999997]],
        'perplexity': [2.8000940728538315, 1.8946457081379977],
        'enumerate_support': [[[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]],
    },
    'Exponential': {
        'log_prob': [-0.8431471805599453, -1.7068528194400545],
        'cdf': [0.1392920235749422, 0.9092820467105875],
        'icdf': [0.7133498878774647, 0.8047189562170503],
        'entropy': [1.6931471805599454, 0.3068528194400547],
        'mean': [2.0, 0.5],
        'variance': [4.0, 0.25],
        'mode': [0.0, 0.0],
        'stddev': [2.0, 0.5],
        'perplexity': [5.436563656918091, 1.3591409142295225],
        'enumerate_support': 'NotImplementedError',
    },
    'Laplace': {
        'log_prob': [-1.1652789553347764, -1.1936150937640702],
        'cdf': [0.4677534925158089, 0.7878135771615251],
        'icdf': [-0.4662384356489861, -0.35859648768809127],
        'entropy': [2.09861228866811, 1.336472236621213],
        'mean': [0.3, -1.0],
        'variance': [4.5, 0.9799999999999999],
        'mode': [0.3, -1.0],
        'stddev': [2.121320343559643, 0.9899494936611666],
        'perplexity': [8.154845485377137, 3.8055945598426635],
        'enumerate_support': 'NotImplementedError',
    },
    'Poisson': {
        'log_prob': [-0.5, -1.6328763858683835],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': [0.5, 4.0],
        'variance': [0.5, 4.0],
        'mode': [0.0, 4.0],
        'stddev': [0.7071067811865476, 2.0],
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'Binomial_probs': {
        'log_prob': [-1.1753853474740237, -1.7833747196936622],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [1.4136148552834449, 1.413614855283445],
        'mean': [1.5, 3.5],
        'variance': [1.0499999999999998, 1.0500000000000003],
        'mode': [1.0, 4.0],
        'stddev': [1.0246950765959597, 1.02469507659596],
        'perplexity': [4.110788483670212, 4.110788483670213],
        'enumerate_support': [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [5.0, 5.0]],
    },
    'Binomial_logits': {
        'log_prob': [-1.3691911293485903, -5.515930244427288],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [1.5095852167006503, 1.4479524115219602],
        'mean': [2.8722125840582953, 1.6590611391591694],
        'variance': [1.2222915584537293, 1.1085643664655453],
        'mode': [3.0, 1.0],
        'stddev': [1.1055729548309914, 1.0528838333194908],
        'perplexity': [4.524853571327404, 4.254394341717033],
        'enumerate_support': [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [5.0, 5.0]],
    },
    'Geometric': {
        'log_prob': [-1.2039728043259361, -5.051457288616511],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [2.0362143401829784, 0.6255030294227348],
        'mean': [2.3333333333333335, 0.25],
        'variance': [7.777777777777779, 0.3125],
        'mode': [0.0, 0.0],
        'stddev': [2.7888667551135855, 0.5590169943749475],
        'perplexity': [7.661550207099363, 1.8691859765265257],
        'enumerate_support': 'NotImplementedError',
    },
    'Gumbel': {
        'log_prob': [-1.407737547188744, -0.9248407588810748],
        'cdf': [0.34337260627922317, 0.6541799282749511],
        'icdf': [0.021559861706451355, 0.049957990731660074],
        'entropy': [1.9826807730096971, 1.2205407209628003],
        'mean': [1.1658234973522994, -0.595949034568927],
        'variance': [3.7011016504085092, 0.8060176927556308],
        'mode': [0.3, -1.0],
        'stddev': [1.9238247452427961, 0.8977848811133048],
        'perplexity': [7.262185183488552, 3.389019752294657],
        'enumerate_support': 'NotImplementedError',
    },
    'Cauchy': {
        'log_prob': [-1.5546295910254302, -1.3388859002903577],
        'cdf': [0.4788106953650536, 0.7255627480278026],
        'icdf': [-0.7898137920080412, -0.03653265567017838],
        'entropy': [2.9364893550774553, 2.1743493030305583],
        'mean': [nan, nan],
        'variance': [inf, inf],
        'mode': [0.3, -1.0],
        'stddev': [inf, inf],
        'perplexity': [18.849555921538762, 8.79645943005142],
        'enumerate_support': 'NotImplementedError',
    },
    'LogNormal': {
        'log_prob': [-0.5251775380877801, -2.7213460700293037],
        'cdf': [0.10151636507779688, 0.9718848209892336],
        'icdf': [0.614712396169562, 0.6630763503689954],
        'entropy': [2.124403641312837, 0.06226358926594022],
        'mean': [4.157857842756007, 0.47001061473053796],
        'variance': [146.7341254593341, 0.13968496221370008],
        'mode': [0.1422740715865136, 0.22537265553943872],
        'stddev': [12.11338620945168, 0.37374451462690406],
        'perplexity': [8.367905726561624, 1.0642428307463965],
        'enumerate_support': 'NotImplementedError',
    },
    'Gamma': {
        'log_prob': [0.1350865673464322, -1.7905832901363614],
        'cdf': [0.5614219739190003, 0.5305463165333175],
        'icdf': 'NotImplementedError',
        'entropy': [-0.31485517819417574, 2.204253454301744],
        'mean': [0.3333333333333333, 4.285714285714286],
        'variance': [0.2222222222222222, 6.122448979591837],
        'mode': [0.0, 2.857142857142857],
        'stddev': [0.4714045207910317, 2.4743582965269675],
        'perplexity': [0.7298945712651291, 9.06348273750129],
        'enumerate_support': 'NotImplementedError',
    },
    'Chi2': {
        'log_prob': [-0.4207818587427292, -2.2257913526447273],
        'cdf': [0.18545356674668445, 0.7385358700508888],
        'icdf': 'NotImplementedError',
        'entropy': [1.374962912044623, 2.0541199559354117],
        'mean': [1.5, 3.0],
        'variance': [3.0, 6.0],
        'mode': [0.0, 1.0],
        'stddev': [1.7320508075688772, 2.449489742783178],
        'perplexity': [3.9549300399316674, 7.799970533526611],
        'enumerate_support': 'NotImplementedError',
    },
    'Beta': {
        'log_prob': [0.2415644752704904, 0.9541123961563376],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [-0.5484172947105447, -0.7014726189655216],
        'mean': [0.25, 0.8108108108108107],
        'variance': [0.0625, 0.032637582953856666],
        'mode': [0.0, 1.0],
        'stddev': [0.25, 0.18065874723870048],
        'perplexity': [0.5778636748954611, 0.49585456103992215],
        'enumerate_support': 'NotImplementedError',
    },
    'Dirichlet': {
        'log_prob': [0.6066490424549564, -0.04082199452025481],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [-1.9322417410261492, -0.9374917427820464],
        'mean': [[0.1111111111111111, 0.6666666666666666, 0.2222222222222222], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]],
        'variance': [[0.017957351290684626, 0.04040404040404041, 0.031425364758698095], [0.031746031746031744, 0.031746031746031744, 0.031746031746031744]],
        'mode': [[0.0, 1.0, 0.0], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]],
        'stddev': [[0.13400504203456162, 0.20100756305184242, 0.17727200782610347], [0.1781741612749496, 0.1781741612749496, 0.1781741612749496]],
        'perplexity': [0.1448231782539161, 0.3916088602631605],
        'enumerate_support': 'NotImplementedError',
    },
    'StudentT': {
        'log_prob': [-1.7226352454774108, -6.425713136581508],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [4.072192524212019, 1.4168026279245594],
        'mean': [nan, -1.0],
        'variance': [nan, 1.4699999999999998],
        'mode': [0.3, -1.0],
        'stddev': [nan, 1.212435565298214],
        'perplexity': [58.6854909994921, 4.123913651642838],
        'enumerate_support': 'NotImplementedError',
    },
    'MultivariateNormal_scale_tril': {
        'log_prob': [-2.6888367469692906, -3.8122742469692907],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 3.5310242469692907,
        'mean': [0.0, 1.0],
        'variance': [1.0, 4.25],
        'mode': [0.0, 1.0],
        'stddev': [1.0, 2.0615528128088303],
        'perplexity': 34.158936890694264,
        'enumerate_support': 'NotImplementedError',
    },
    'MultivariateNormal_covariance': {
        'log_prob': [-2.557763765972646, -4.831585755501441],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 3.161428687438615,
        'mean': [0.0, 1.0],
        'variance': [2.0000000000000004, 1.0],
        'mode': [0.0, 1.0],
        'stddev': [1.4142135623730951, 1.0],
        'perplexity': 23.60429501038767,
        'enumerate_support': 'NotImplementedError',
    },
    'MultivariateNormal_precision': {
        'log_prob': [-1.8523254453800762, -3.9143254453800758],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 2.5143254453800763,
        'mean': [0.0, 1.0],
        'variance': [0.5235602094240839, 1.0471204188481675],
        'mode': [0.0, 1.0],
        'stddev': [0.7235746052924217, 1.0232890201933018],
        'perplexity': 12.358269638946423,
        'enumerate_support': 'NotImplementedError',
    },
    'MultivariateNormal_batched': {
        'log_prob': [[-2.6888367469692906, -2.5310242469692907], [-2.6560242469692907, -3.8122742469692907]],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [3.5310242469692907, 3.5310242469692907],
        'mean': [[0.0, 1.0], [1.0, -1.0]],
        'variance': [[1.0, 4.25], [1.0, 4.25]],
        'mode': [[0.0, 1.0], [1.0, -1.0]],
        'stddev': [[1.0, 2.0615528128088303], [1.0, 2.0615528128088303]],
        'perplexity': [34.158936890694264, 34.158936890694264],
        'enumerate_support': 'NotImplementedError',
    },
    'LowRankMultivariateNormal': {
        'log_prob': [-4.83826098451047, -6.1240167905058165],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 5.6888751196567044,
        'mean': [0.0, 1.0, 2.0],
        'variance': [2.04, 2.26, 4.04],
        'mode': [0.0, 1.0, 2.0],
        'stddev': [1.42828568570857, 1.5033296378372907, 2.009975124224178],
        'perplexity': 295.5609628580967,
        'enumerate_support': 'NotImplementedError',
    },
    'RelaxedBernoulli': {
        'log_prob': [0.08582564215194544, 0.6592238307351634],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'LogitRelaxedBernoulli': {
        'log_prob': [-1.9773602265421113, -2.622968417592886],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'RelaxedOneHotCategorical': {
        'log_prob': [0.17147534096008332, 1.2964066480640186],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'ExpRelaxedCategorical': {
        'log_prob': [-3.427772478473074, -4.046419771177106],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'Independent_Normal': {
        'log_prob': [-2.25623639157651, -11.179229588855423],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [2.8866672305787775],
        'mean': [[0.3, -1.0]],
        'variance': [[2.25, 0.48999999999999994]],
        'mode': [[0.3, -1.0]],
        'stddev': [[1.5, 0.7]],
        'perplexity': [17.93344186761449],
        'enumerate_support': 'NotImplementedError',
    },
    'MixtureSameFamily': {
        'log_prob': [-2.1908274106554995, -0.6175514341351446],
        'cdf': [0.208383667004345, 0.5304256851388953],
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': 1.4,
        'variance': 1.315,
        'mode': 'NotImplementedError',
        'stddev': 1.1467344941179716,
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'TransformedDistribution_sigmoid_affine': {
        'log_prob': [-0.7010302481788732, -3.176915455225646],
        'cdf': [0.6809332487417145, 0.004157586530898483],
        'icdf': [-0.4954821679586876, 0.6609886992116041],
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'TransformedDistribution_stickbreaking': {
        'log_prob': [2.2838705577525955, 2.711411802813605],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'TransformedDistribution_tanh': {
        'log_prob': [-1.2856840814683244, -0.7268699528017537],
        'cdf': [0.47414872034751304, 0.7948479709072738],
        'icdf': [-0.4515143442264907, -0.3892070111021696],
        'entropy': 'NotImplementedError',
        'mean': 'NotImplementedError',
        'variance': 'NotImplementedError',
        'mode': 'NotImplementedError',
        'stddev': 'NotImplementedError',
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
}

GRAD_REF = {
    'Normal': [[-0.30981559532041253, 0.8297823880119379], [0.02065437302136088, 0.7112420468673752]],
    'Uniform': [[-0.375, -0.125], [-0.125, -0.125]],
    'Bernoulli_probs': [[4.180631193720537, -6.386294361119892]],
    'Bernoulli_logits': [[0.35221998968111723, 0.09078424878489547]],
    'Categorical_probs': [[[-0.4202151016304734, -0.8256802097386375, 0.6634941664953717], [10.663553233343869, 0.6635532333438685, -1.4158883083359672]]],
    'Categorical_logits': [[[-0.24625100561905983, -0.30413675559065984, 0.5503877612097197], [-0.6296900689494319, 0.9873394551623736, -0.3576493862129418]]],
    'OneHotCategorical': [[[-0.4202151016304734, -0.8256802097386375, 0.6634941664953717], [10.663553233343869, 0.6635532333438685, -1.4158883083359672]]],
    'Exponential': [[-0.041787607072482746, -1.0911384560527049]],
    'Laplace': [[-0.9785023283438725, 1.1254479673736073], [0.0652334885562581, 0.9646696863202353]],
    'Poisson': [[-1.0, -0.25]],
    'Binomial_probs': [[3.586006441124134, 5.937803082685387]],
    'Binomial_logits': [[-0.9658669220169989, 3.5536812285534616]],
    'Geometric': [[-0.6297215993192498, -16.264746738178285]],
    'Gumbel': [[-0.29065567496097366, 0.4257299379660944], [0.01937704499739824, 0.3649113753995096]],
    'Cauchy': [[-0.2997631987945513, 1.1496271525545254], [0.019984213252970062, 0.9853947021895932]],
    'LogNormal': [[0.03307085779088603, 3.635393761586501], [1.2308607751809775, 5.031615135607289]],
    'Gamma': [[4.226938322732326, 0.31696694821879956], [-0.5333333333333334, -1.1428571428571432]],
    'Chi2': [[0.20937284949173302, 0.5946280530477666]],
    'Beta': [[3.2442575497226285, -0.12379508714680915], [-0.30425029068015474, 1.4618711055358569]],
    'Dirichlet': [[[4.583431795573791, -0.6438410685726742, 1.1352014415252263], [-1.1202169595184746, -1.1202169595184746, 0.9592245821613612]]],
    'StudentT': [[-3.9162061860566593, -0.9124521393376069], [-0.13215859030837, 0.7555723460521345], [0.008810572687224663, 5.3969453289438185]],
    'MultivariateNormal_scale_tril': [[1.73125, -0.8625], [[0.4381249999999999, 0.0], [-0.69625, 0.3940625]]],
    'MultivariateNormal_covariance': [[1.120418848167539, -3.136125654450262], [[0.1290534798936431, -0.9895013842822288], [-0.9895013842822288, 2.4020860173789096]]],
    'MultivariateNormal_precision': [[1.7599999999999998, -2.41], [[-0.28321989528795816, 1.0414659685863874], [1.0414659685863874, -1.7964397905759162]]],
    'MultivariateNormal_batched': [[[0.54375, -0.48750000000000004], [0.6875, 0.625]], [[-1.1868750000000001, 0.0], [0.55375, 0.019062499999999982]]],
    'LowRankMultivariateNormal': [[1.012442396313364, -1.471889400921659, -0.9653465346534653], [[-0.3730069707898819, 0.44016705042841764], [-0.234718982739447, -0.7941427745102019], [-0.09199366918486801, -0.2458764321018495]], [0.060482172057168326, 0.4115436726199325, 0.10936427801195969]],
    'RelaxedBernoulli': [[-0.2927451091847481, 0.4733507167290354]],
    'LogitRelaxedBernoulli': [[2.1767035134526473, -4.781216177219556]],
    'RelaxedOneHotCategorical': [[0.7816238790354433, -1.476021118082302, 0.5729631192352038]],
    'ExpRelaxedCategorical': [[4.152455387509197, -1.1808532463619832, -0.952470207186489]],
    'Independent_Normal': [[[0.2666666666666666, 7.346938775510206]], [[-0.5185185185185185, 25.860058309037907]]],
    'MixtureSameFamily': [[2.2115091876235926, -0.9477896518386826], [0.42201077456347424, -1.6195571102797057], [-0.7054456649414287, -0.49360420459405896]],
    'TransformedDistribution_sigmoid_affine': [[-0.07542454670247067, 3.787515566351324], [-0.6311937426710215, 8.566670574148613]],
    'TransformedDistribution_stickbreaking': [[0.10991016017209065, 2.9395596164583218, -1.2876820724517812], [0.04892934897088308, 0.6237266887339312, -1.129556952738067]],
    'TransformedDistribution_tanh': [[-0.30863291691499023, 0.77015408213544], [-0.6466533762912268, -0.7944583869221067]],
}


@pytest.mark.parametrize("name", ["Normal", "Exponential", "Gamma", "Bernoulli_probs", "Bernoulli_logits",
                                  "Chi2"])
def test_exponential_family_entropy_by_autograd(name):
    # ExponentialFamily.entropy (the Bregman form through the log-normalizer's gradient) equals
    # each family's closed form
    factory, _ = SPECS[name]
    d = factory(t)
    assert isinstance(d, D.ExponentialFamily)
    _close(D.ExponentialFamily.entropy(d).tolist(), d.entropy().tolist())
