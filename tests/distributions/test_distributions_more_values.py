"""torch.distributions' remaining families, values and gradients in float64: log_prob, cdf,
icdf, entropy, mean, variance, mode, stddev, perplexity and enumerate_support of HalfNormal,
HalfCauchy, Pareto, Weibull, Kumaraswamy, InverseGamma, FisherSnedecor, NegativeBinomial,
Multinomial, ContinuousBernoulli (both sides of its Taylor region), VonMises (both branches of
the Bessel approximation), LogisticNormal, GeneralizedPareto (concentration > 0, = 0, < 0),
LKJCholesky and Wishart, at fixed parameters against PyTorch 2.13's results (literals), and the
gradients of log_prob + entropy (+ cdf) with respect to every parameter.

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute), except
GeneralizedPareto in float64, where PyTorch raises (see generalized_pareto.py)."""
import math
import os

import numpy as np
import pytest

import nbgrad

inf, nan = math.inf, math.nan
D = nbgrad.distributions
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


def t(x, grad=False):
    return nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=grad)


_LKJ_VALUE = [[1.0, 0.0, 0.0], [0.3, 0.9539392014169457, 0.0], [-0.2, 0.4822110248920824, 0.8529200006287386]]

# name -> (factory(make), value for log_prob/cdf); `make` turns a list into a float64 tensor
# (a grad leaf in the gradient test)
SPECS = {
    "HalfNormal": (lambda m: D.HalfNormal(m([1.5, 0.7])), [0.2, 1.4]),
    "HalfCauchy": (lambda m: D.HalfCauchy(m([1.5, 0.7])), [0.2, 1.4]),
    "Pareto": (lambda m: D.Pareto(m([1.0, 0.5]), m([3.0, 1.5])), [1.5, 2.0]),
    "Pareto_alpha_below_1": (lambda m: D.Pareto(m([1.0]), m([0.7])), [1.5]),
    "Weibull": (lambda m: D.Weibull(m([1.5, 0.7]), m([0.5, 2.0])), [0.2, 1.4]),
    "Kumaraswamy": (lambda m: D.Kumaraswamy(m([0.5, 2.0]), m([1.5, 3.0])), [0.2, 0.7]),
    "InverseGamma": (lambda m: D.InverseGamma(m([1.5, 3.0]), m([0.7, 2.0])), [0.5, 1.4]),
    "FisherSnedecor": (lambda m: D.FisherSnedecor(m([3.0, 1.5]), m([5.0, 6.0])), [0.5, 1.4]),
    "FisherSnedecor_small_df": (lambda m: D.FisherSnedecor(m([3.0, 1.5]), m([1.5, 3.0])), [0.5, 1.4]),
    "NegativeBinomial_probs": (lambda m: D.NegativeBinomial(m([3.0, 5.5]), m([0.3, 0.6])), [2.0, 0.0]),
    "NegativeBinomial_logits": (lambda m: D.NegativeBinomial(m([3.0, 5.5]), logits=m([0.3, -1.2])), [2.0, 7.0]),
    "Multinomial_probs": (lambda m: D.Multinomial(4, m([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
                          [[1.0, 1.0, 2.0], [0.0, 0.0, 4.0]]),
    "Multinomial_logits": (lambda m: D.Multinomial(3, logits=m([[0.2, -0.3, 0.5], [1.1, 0.1, -0.8]])),
                           [[1.0, 0.0, 2.0], [3.0, 0.0, 0.0]]),
    "ContinuousBernoulli_probs": (lambda m: D.ContinuousBernoulli(m([0.3, 0.5004, 0.9])), [0.2, 0.7, 1.0]),
    "ContinuousBernoulli_logits": (lambda m: D.ContinuousBernoulli(logits=m([0.3, -2.0, 0.001])), [0.2, 0.7, 0.0]),
    "VonMises": (lambda m: D.VonMises(m([0.3, -1.0, 2.0]), m([0.5, 5.0, 3.0])), [0.2, 2.5, -3.0]),
    "LogisticNormal": (lambda m: D.LogisticNormal(m([0.3, -1.0, 0.5]), m([1.5, 0.7, 1.0])),
                       [[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]]),
    "GeneralizedPareto": (lambda m: D.GeneralizedPareto(m([0.1, 0.0, -1.0]), m([2.0, 1.0, 0.5]), m([0.4, 0.0, -0.3])),
                          [1.0, 0.5, -0.5]),
    "LKJCholesky": (lambda m: D.LKJCholesky(3, m([0.5, 2.0])), _LKJ_VALUE),
    "Wishart_covariance": (lambda m: D.Wishart(m([4.0, 5.5]), covariance_matrix=m([[2.0, 0.3], [0.3, 1.0]])),
                           [[1.5, 0.2], [0.2, 0.8]]),
    "Wishart_scale_tril": (lambda m: D.Wishart(m([2.5]), scale_tril=m([[[1.0, 0.0], [0.5, 2.0]],
                                                                        [[0.7, 0.0], [-0.2, 1.1]]])),
                           [[1.5, 0.2], [0.2, 0.8]]),
    "Wishart_precision": (lambda m: D.Wishart(m(3.0), precision_matrix=m([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1],
                                                                          [0.0, 0.1, 1.5]])),
                          [[1.5, 0.2, 0.1], [0.2, 0.8, 0.0], [0.1, 0.0, 1.0]]),
}

ICDF_AT = [0.3, 0.8]
QUANTITIES = ("log_prob", "cdf", "icdf", "entropy", "mean", "variance", "mode", "stddev", "perplexity",
              "enumerate_support")
# cdfs without a derivative in some parameter (gammainc in the concentration)
NO_CDF_GRAD = {"InverseGamma"}
GPD_F64_SKIP = pytest.mark.skipif(
    AGAINST_TORCH, reason="PyTorch's GeneralizedPareto compares float64 parameters with a float32 zero and raises")


def _icdf_at(d):
    n = d.batch_shape[-1] if len(d.batch_shape) else 1
    return t((ICDF_AT * 2)[:n])


def _quantity(d, name, value):
    if name in ("log_prob", "cdf"):
        return getattr(d, name)(t(value))
    if name == "icdf":
        return d.icdf(_icdf_at(d))
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
    for q in ("entropy",) if name in NO_CDF_GRAD else ("entropy", "cdf"):
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


def _marks(name):
    return [GPD_F64_SKIP] if name.startswith("GeneralizedPareto") else []


NAMES = [pytest.param(n, marks=_marks(n)) for n in sorted(SPECS)]


@pytest.mark.parametrize("name", NAMES)
def test_values_match_pytorch(name):
    got = _record(name)
    assert set(got) == set(REF[name])
    for q, expected in REF[name].items():
        if isinstance(expected, str):
            assert got[q] == expected, (q, got[q])
        else:
            assert not isinstance(got[q], str), (q, got[q])
            _close(got[q], expected)


@pytest.mark.parametrize("name", NAMES)
def test_gradients_match_pytorch(name):
    got = _gradients(name)
    expected = GRAD_REF[name]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (g is None) == (e is None)
        if e is not None:
            _close(g, e)


def test_gradients_match_finite_differences():
    # an independent check of a few of the recorded gradients: central differences in float64
    cases = [("VonMises", 1), ("ContinuousBernoulli_probs", 0), ("Kumaraswamy", 0), ("Wishart_covariance", 0),
             ("Wishart_covariance", 1), ("LKJCholesky", 0), ("NegativeBinomial_probs", 0), ("FisherSnedecor", 1)]
    for name, which in cases:
        factory, value = SPECS[name]
        params = []

        def grab(x):
            params.append(x)
            return t(x)

        factory(grab)
        base = [np.asarray(p, dtype=np.float64) for p in params]

        def f(arrs):
            it = iter(arrs)
            d = factory(lambda x: t(next(it).tolist()))
            return float(d.log_prob(t(value)).sum())

        analytic = np.asarray(_gradients_logprob_only(name)[which]).reshape(-1)
        n = base[which].size
        directions = list(np.eye(n))
        if name == "Wishart_covariance" and which == 1:
            # a symmetric matrix: perturb symmetrically, so the off-diagonal direction sees
            # the sum of the two entries' gradients
            directions = [np.array([1.0, 0, 0, 0]), np.array([0, 0, 0, 1.0]), np.array([0, 1.0, 1.0, 0])]
        h = 1e-6
        for e in directions:
            up = [b.copy() for b in base]
            dn = [b.copy() for b in base]
            up[which] = up[which] + h * e.reshape(up[which].shape)
            dn[which] = dn[which] - h * e.reshape(dn[which].shape)
            fd = (f(up) - f(dn)) / (2 * h)
            np.testing.assert_allclose(analytic @ e, fd, rtol=1e-6, atol=1e-7, err_msg=name)


def _gradients_logprob_only(name):
    factory, value = SPECS[name]
    leaves = []

    def make(x):
        leaf = t(x, grad=True)
        leaves.append(leaf)
        return leaf

    d = factory(make)
    return [g.tolist() for g in nbgrad.autograd.grad(d.log_prob(t(value)).sum(), leaves)]


def test_generalized_pareto_float32_matches_pytorch():
    # float32 parameters: PyTorch's own code runs (its zero is float32), so the values compare
    d = D.GeneralizedPareto(nbgrad.tensor([0.1, 0.0, -1.0]), nbgrad.tensor([2.0, 1.0, 0.5]),
                            nbgrad.tensor([0.4, 0.0, -0.3]))
    v = nbgrad.tensor([1.0, 0.5, -0.5])
    assert d.log_prob(v).dtype == nbgrad.float32
    np.testing.assert_allclose(d.log_prob(v).tolist(), GPD_F32["log_prob"], rtol=1e-6)
    np.testing.assert_allclose(d.cdf(v).tolist(), GPD_F32["cdf"], rtol=1e-6)
    np.testing.assert_allclose(d.icdf(nbgrad.tensor([0.3, 0.8, 0.5])).tolist(), GPD_F32["icdf"], rtol=1e-6)


def test_generalized_pareto_support_and_entropy_shape():
    d = D.GeneralizedPareto(0.0, 1.0, t([-0.5, 0.5]))
    s = d.support
    assert s.lower_bound.tolist() == [0.0, 0.0] and s.upper_bound.tolist() == [2.0, inf]
    assert tuple(d.entropy().shape) == (2,)
    assert tuple(D.GeneralizedPareto(0.0, 1.0, 0.5).entropy().shape) == ()


def test_von_mises_log_bessel_matches_pytorch():
    fn = D.von_mises._log_modified_bessel_fn
    x = t([0.01, 0.5, 3.7, 3.75, 3.8, 10.0, 100.0])
    _close(fn(x, 0).tolist(), LOG_BESSEL_REF[0])
    _close(fn(x, 1).tolist(), LOG_BESSEL_REF[1])
    # an approximation of I_n to better than 1e-6 relative (Abramowitz & Stegun)
    import scipy.special
    xs = np.asarray(x.tolist())
    np.testing.assert_allclose(np.exp(fn(x, 0).tolist()) / scipy.special.i0e(xs) / np.exp(xs), 1, rtol=1e-6)
    np.testing.assert_allclose(np.exp(fn(x, 1).tolist()) / scipy.special.i1e(xs) / np.exp(xs), 1, rtol=1e-6)
    with pytest.raises(AssertionError, match="order must be 0 or 1, got 2"):
        fn(x, 2)


REF = {
    'ContinuousBernoulli_logits': {
        'log_prob': [-0.09374719151108946, -0.5614393615711958, -0.0005000416666663954],
        'cdf': [0.17674714829617688, 0.8713239033026946, 0.0],
        'icdf': [0.33269000483400185, 0.5883925047211545, 0.3],
        'entropy': [-0.00374158254193524, -0.15159592392813556, -4.1666665562267724e-08],
        'mean': [0.5249625801767488, 0.3434823572503344, 0.5000833333319444],
        'variance': [0.0829596684125935, 0.06898458475842237, 0.08333332916666789],
        'mode': 'NotImplementedError',
        'stddev': [0.2880272008206751, 0.26264916668137817, 0.28867512737793655],
        'perplexity': [0.9962654084561737, 0.8593354474875469, 0.9999999583333353],
        'enumerate_support': 'NotImplementedError',
    },
    'ContinuousBernoulli_probs': {
        'log_prob': [0.2244532348642858, 0.0003198934015566923, 0.9049780438330277],
        'cdf': [0.27278846027280756, 0.7, 1.0],
        'icdf': [0.22194347501007775, 0.8, 0.5569642012223194],
        'entropy': [-0.02938620223212912, -1.066667053573056e-07, -0.17963111600005544],
        'mean': [0.43022250114382865, 0.5001333333560889, 0.6698803866865813],
        'variance': [0.08042515220619428, 0.08333332266667012, 0.0665088624225558],
        'mode': 'NotImplementedError',
        'stddev': [0.28359328660282895, 0.28867511611960966, 0.25789312209238113],
        'perplexity': [0.9710413736948096, 0.9999998933333003, 0.8355783860647468],
        'enumerate_support': 'NotImplementedError',
    },
    'FisherSnedecor': {
        'log_prob': [-0.5344102474085419, -1.6588436050818127],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': [1.6666666666666667, 1.5],
        'variance': [11.11111111111111, 8.25],
        'mode': [0.23809523809523808, nan],
        'stddev': [3.3333333333333335, 2.8722813232690143],
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'FisherSnedecor_small_df': {
        'log_prob': [-0.8240609746035853, -1.755519008368799],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': [nan, 3.0],
        'variance': [nan, nan],
        'mode': [0.14285714285714285, nan],
        'stddev': [nan, nan],
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'GeneralizedPareto': {
        'log_prob': [-1.2724477152314524, -0.5, -0.1390943552970969],
        'cdf': [0.3388576429917242, 0.3934693402873666, 0.6954489274022879],
        'icdf': [0.8667455389092656, 1.6094379124341005, -0.8308724029843996],
        'entropy': [2.0931471805599453, 1.0, 0.00685281944005478],
        'mean': [3.4333333333333336, 1.0, -0.6153846153846154],
        'variance': [55.55555555555557, 1.0, 0.09245562130177512],
        'mode': [0.1, 0.0, -1.0],
        'stddev': [7.4535599249993, 1.0, 0.3040651596315749],
        'perplexity': [8.110399933689349, 2.718281828459045, 1.0068763537352383],
        'enumerate_support': 'NotImplementedError',
    },
    'HalfCauchy': {
        'log_prob': [-0.8746694147474389, -1.7043456737848226],
        'cdf': [0.0843849263176828, 0.7048327646991335],
        'icdf': [0.7642881742416434, 2.1543784760226767],
        'entropy': [2.24334217451751, 1.481202122470613],
        'mean': [inf, inf],
        'variance': [inf, inf],
        'mode': [0.0, 0.0],
        'stddev': [inf, inf],
        'perplexity': [9.424777960769381, 4.3982297150257095],
        'enumerate_support': 'NotImplementedError',
    },
    'HalfNormal': {
        'log_prob': [-0.6401453496417807, -1.8691164087059948],
        'cdf': [0.10607023324722809, 0.9544997361036416],
        'icdf': [0.5779806996113515, 0.8970860958812205],
        'entropy': [1.1312564607528919, 0.36911640870599494],
        'mean': [1.1968268412042982, 0.5585191925620058],
        'variance': [0.8176055121729419, 0.1780563115398851],
        'mode': [0.0, 0.0],
        'stddev': [0.9042154124836304, 0.42196719249236087],
        'perplexity': [3.09954851559187, 1.4464559739428724],
        'enumerate_support': 'NotImplementedError',
    },
    'InverseGamma': {
        'log_prob': [-0.0813622268729901, -1.3881660139363898],
        'cdf': [0.4234999170554594, 0.8265515338502064],
        'icdf': 'NotImplementedError',
        'entropy': [0.9313178834795819, 0.6951570207260227],
        'mean': [1.4, 1.0],
        'variance': [inf, 1.0],
        'mode': [0.27999999999999997, 0.5],
        'stddev': [inf, 1.0],
        'perplexity': [2.53785156734823, 2.0040237224972297],
        'enumerate_support': 'NotImplementedError',
    },
    'Kumaraswamy': {
        'log_prob': [0.22064508340691513, 0.08839541876179158],
        'cdf': [0.5890054813015937, 0.8673489999999999],
        'icdf': [0.04478576859877196, 0.6443573948962074],
        'entropy': [-0.6593568997616617, -0.2084261358947218],
        'mean': [0.2285714285714285, 0.457142857142857],
        'variance': [0.05857761286332713, 0.04102040816326541],
        'mode': [nan, nan],
        'stddev': [0.24202812411644878, 0.20253495541082633],
        'perplexity': [0.5171838286101604, 0.8118609998742456],
        'enumerate_support': 'NotImplementedError',
    },
    'LKJCholesky': {
        'log_prob': [-2.371934725182347, -1.0751284009078783],
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
    'LogisticNormal': {
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
    'Multinomial_logits': {
        'log_prob': [-1.5532939590543617, -1.2510900488335006],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [2.0749042311537162, 1.707231875291752],
        'mean': [[1.0147512813159085, 0.615477764100778, 1.3697709545833137], [1.9770034166579036, 0.7272989121141418, 0.29569767122795443]],
        'variance': [[0.6715112270051492, 0.4892068047332804, 0.7443467985766196], [0.6741559134988954, 0.5509776762600037, 0.26655196697140926]],
        'mode': 'NotImplementedError',
        'stddev': [[0.8194578860473241, 0.6994332024813237, 0.8627553526792051], [0.8210699808779367, 0.742278705244872, 0.5162867100472462]],
        'perplexity': [7.963783740132154, 5.513677786088219],
        'enumerate_support': 'NotImplementedError',
    },
    'Multinomial_probs': {
        'log_prob': [-1.7147984280919268, -0.8925742052568388],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [2.349083956126462, 1.601086702039988],
        'mean': [[0.8, 1.2, 2.0], [0.4, 0.4, 3.2]],
        'variance': [[0.6400000000000001, 0.84, 1.0], [0.36000000000000004, 0.36000000000000004, 0.6399999999999999]],
        'mode': 'NotImplementedError',
        'stddev': [[0.8, 0.916515138991168, 1.0], [0.6000000000000001, 0.6000000000000001, 0.7999999999999999]],
        'perplexity': [10.475968880889138, 4.958417820465302],
        'enumerate_support': 'NotImplementedError',
    },
    'NegativeBinomial_logits': {
        'log_prob': [-1.8800167531145808, -5.439658658473076],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': [4.049576422728009, 1.6565681655171118],
        'variance': [9.515932823899535, 2.155516908608881],
        'mode': [2.0, 1.0],
        'stddev': [3.084790564025301, 1.468167874804813],
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'NegativeBinomial_probs': {
        'log_prob': [-1.6862109712400142, -5.039599025307853],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': [1.2857142857142856, 8.249999999999998],
        'variance': [1.8367346938775506, 20.624999999999993],
        'mode': [0.0, 6.0],
        'stddev': [1.3552618543578767, 4.5414755311462365],
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'Pareto': {
        'log_prob': [-0.5232481437645478, -2.3671236141316165],
        'cdf': [0.7037037037037037, 0.875],
        'icdf': [1.126247880443606, 1.462008869106433],
        'entropy': [0.23472104466522348, 0.5680543779985567],
        'mean': [1.5, 1.5],
        'variance': [0.75, inf],
        'mode': [1.0, 0.5],
        'stddev': [0.8660254037844386, inf],
        'perplexity': [1.2645559648943923, 1.7648300168233426],
        'enumerate_support': 'NotImplementedError',
    },
    'Pareto_alpha_below_1': {
        'log_prob': [-1.045965627722612],
        'cdf': [0.24710204302876304],
        'icdf': [1.664518070185139],
        'entropy': [2.7852463725101613],
        'mean': [inf],
        'variance': [inf],
        'mode': [1.0],
        'stddev': [inf],
        'perplexity': [16.203809558257213],
        'enumerate_support': 'NotImplementedError',
    },
    'VonMises': {
        'log_prob': [-1.4019246778057106, -9.82484228128464, -2.5721981275649832],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 'NotImplementedError',
        'mean': [0.3, -1.0, 2.0],
        'variance': [0.7575003832967004, 0.10661687617139548, 0.19001470263960085],
        'mode': [0.3, -1.0, 2.0],
        'stddev': [0.8703449794746336, 0.3265223976565704, 0.4359067591120845],
        'perplexity': 'NotImplementedError',
        'enumerate_support': 'NotImplementedError',
    },
    'Weibull': {
        'log_prob': [-0.4563091500670881, -2.2570306949413768],
        'cdf': [0.30590634059779964, 0.9816843611112658],
        'icdf': [0.1908255234505468, 0.8880453688256638],
        'entropy': [1.5213966237665768, 0.23878570795208853],
        'mean': [3.0, 0.6203588478169306],
        'variance': [45.00000000000001, 0.10515489993525033],
        'mode': [1.5, 0.4949747468305833],
        'stddev': [6.708203932499369, 0.32427596262327296],
        'perplexity': [4.5786153347875915, 1.2697064194397398],
        'enumerate_support': 'NotImplementedError',
    },
    'Wishart_covariance': {
        'log_prob': [-5.224272621129061, -7.358874439116757],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [7.272041955518578, 7.98323836500072],
        'mean': [[[8.0, 1.2], [1.2, 4.0]], [[11.0, 1.65], [1.65, 5.5]]],
        'variance': [[[32.0, 8.36], [8.36, 8.0]], [[44.0, 11.495], [11.495, 11.0]]],
        'mode': [[[2.0, 0.3], [0.3, 1.0]], [[5.0, 0.75], [0.75, 2.5]]],
        'stddev': [[[5.656854249492381, 2.891366458960192], [2.891366458960192, 2.8284271247461903]], [[6.6332495807108, 3.390427701632937], [3.390427701632937, 3.3166247903554]]],
        'perplexity': [1439.4868221091256, 2931.4086810828585],
        'enumerate_support': 'NotImplementedError',
    },
    'Wishart_precision': {
        'log_prob': -6.500245026352717,
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': 7.484316623794449,
        'mean': [[1.571177504393673, -0.47451669595782076, 0.03163444639718806], [-0.47451669595782076, 3.1634446397188047, -0.21089630931458705], [0.03163444639718806, -0.21089630931458705, 2.014059753954306]],
        'variance': [[1.645732500208487, 1.7318330496878869, 1.0551487053721729], [1.7318330496878869, 6.671587992377093, 2.138614595334213], [1.0551487053721729, 2.138614595334213, 2.7042911283323203]],
        'mode': [[nan, nan, nan], [nan, nan, nan], [nan, nan, nan]],
        'stddev': [[1.2828610603679913, 1.3159912802476645, 1.0272043153005992], [1.3159912802476645, 2.5829417322845463, 1.462400285603847], [1.0272043153005992, 1.462400285603847, 1.6444729028878282]],
        'perplexity': 1779.9074077131286,
        'enumerate_support': 'NotImplementedError',
    },
    'Wishart_scale_tril': {
        'log_prob': [-5.052089962013477, -3.7529501112406582],
        'cdf': 'NotImplementedError',
        'icdf': 'NotImplementedError',
        'entropy': [7.00792853800317, 4.144392703920111],
        'mean': [[[2.5, 1.25], [1.25, 10.625]], [[1.2249999999999999, -0.35], [-0.35, 3.1250000000000004]]],
        'variance': [[[5.0, 11.25], [11.25, 90.3125]], [[1.2004999999999997, 1.58025], [1.58025, 7.8125000000000036]]],
        'mode': [[[nan, nan], [nan, nan]], [[nan, nan], [nan, nan]]],
        'stddev': [[[2.23606797749979, 3.3541019662496847], [3.3541019662496847, 9.503288904374106]], [[1.095673308974897, 1.257079949724758], [1.257079949724758, 2.7950849718747377]]],
        'perplexity': [1105.3624154958359, 63.079302454195066],
        'enumerate_support': 'NotImplementedError',
    },
}
GRAD_REF = {
    'ContinuousBernoulli_logits': [[-0.4247846683349751, 0.4312287580700058, -0.5001666666611111]],
    'ContinuousBernoulli_probs': [[-1.204425735709703, 0.7989338445144604, 2.044274513198955]],
    'FisherSnedecor': [[0.06895300513759078, 0.311087627576478], [0.02991376627491768, 0.01686126756853238]],
    'FisherSnedecor_small_df': [[0.0464546560426064, 0.2679050168811224], [0.2326300829251305, 0.061537650203258534]],
    'GeneralizedPareto': [[0.3130752724541204, 0.3934693402873666, 1.1298540782922517], [0.1408838726043542, 0.1967346701436833, 1.1298540782922517], [0.646117090125787, 1.0, 0.12698782833750122]],
    'HalfCauchy': [[-0.03231031490837688, 1.9219315586470966]],
    'HalfNormal': [[-0.05844358652784901, 5.405765905638926]],
    'InverseGamma': [[-1.037023239786543, -1.1458456588875174], [1.5714285714285714, 1.2857142857142856]],
    'Kumaraswamy': [[3.3603717197227594, 0.6506601770749637], [-0.3950661018432127, -0.33100213593280503]],
    'LKJCholesky': [[2.201215915834979, 0.30713797140809507]],
    'LogisticNormal': [[0.10991016017209065, 2.9395596164583218, -1.2876820724517812], [0.04892934897088308, 0.6237266887339312, -1.129556952738067]],
    'Multinomial_logits': [[[-0.009239841380524663, -0.4051481973869053, 0.4143880387674299], [0.5260647444992056, -0.5242480020558391, -0.0018167424433664424]]],
    'Multinomial_probs': [[[2.19257379515013, -0.42387360395187557, -0.622705355688927], [-0.5416538507668207, -0.5416538507668207, 0.13541346269170518]]],
    'NegativeBinomial_logits': [[-0.2710219111351939, 0.6108200353551301], [-0.8722125840582947, 4.10655979373772]],
    'NegativeBinomial_probs': [[0.22665838939460092, -0.916290731874155], [2.380952380952381, -13.749999999999998]],
    'Pareto': [[3.111111111111111, 4.625], [-0.396438409409449, -1.6574520104243486]],
    'Pareto_alpha_below_1': [[1.1729714301201342], [-2.1410075831210182]],
    'VonMises': [[-0.049916708323414063, -1.7539161384480992, 2.8767728239894153], [0.7525046120041516, -1.8298398654903743, -0.5263230375971006]],
    'Weibull': [[0.37056706738428286, 9.790678412700181], [0.5190267286798442, -1.8843558916309318]],
    'Wishart_covariance': [[-0.5670600205835651, -1.260025302608431], [[-0.518214961212686, 0.13452207998684246], [0.13452207998684246, -0.9840739014829638]]],
    'Wishart_precision': [4.184563020229191, [[-1.011862917398945, -0.020913884007030023, -0.055272407732864674], [-0.02091388400703, -0.9272407732864673, 0.03514938488576451], [-0.05527240773286468, 0.03514938488576451, -0.8356766256590512]]],
    'Wishart_scale_tril': [[2.5784598416978532], [[[2.0687499999999996, -0.3359375], [-0.1375, 0.37187499999999996]], [[5.299496421945403, 1.3887276494798844], [0.7421150278293136, 1.2334595746638248]]]],
}
GPD_F32 = {'log_prob': [-1.2724477052688599, -0.5, -0.13909441232681274], 'cdf': [0.33885765075683594, 0.39346933364868164, 0.6954489350318909], 'icdf': [0.8667455911636353, 1.6094379425048828, -0.6870872974395752]}
LOG_BESSEL_REF = {0: [2.4999828820573614e-05, 0.06154969403537819, 2.16775201027359, 2.210354226551163, 2.253067903425833, 7.942972096024077, 96.77973221711501], 1: [-5.298304866578487, -1.3552054551754205, 2.006298887182965, 2.0515582856634618, 2.096842350876475, 7.89020384041573, 96.77470800475336]}
