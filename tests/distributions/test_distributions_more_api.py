"""The remaining torch.distributions families' API around the numbers: argument and sample
validation (PyTorch's exception types and messages, recorded as literals), reprs, supports,
expand, and the flags (has_rsample, support, event shapes) of HalfNormal, HalfCauchy, Pareto,
Weibull, Kumaraswamy, InverseGamma, FisherSnedecor, NegativeBinomial, Multinomial,
ContinuousBernoulli, VonMises, LogisticNormal, GeneralizedPareto, LKJCholesky and Wishart.

Messages are compared after writing `torch.` as `nbgrad.`.
Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import warnings

import pytest

import nbgrad

D = nbgrad.distributions
tt = nbgrad.tensor


def _norm(text):
    return text.replace("torch.", "nbgrad.")


def _outcome(case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = case()
    except Exception as e:  # the exception's type and message are what is compared
        return type(e).__name__, _norm(str(e))
    return "ok", _norm(repr(result))


_L = [[1.0, 0.0], [0.6, 0.8]]

CASES = {
    "half_normal_bad_scale": lambda: D.HalfNormal(tt([1.0, -1.0])),
    "half_normal_negative_value": lambda: D.HalfNormal(tt([1.0])).log_prob(tt([-1.0])),
    "half_normal_unvalidated_negative": lambda: D.HalfNormal(tt([1.0]), validate_args=False).log_prob(tt([-1.0])),
    "half_cauchy_bad_scale": lambda: D.HalfCauchy(tt([0.0])),
    "half_cauchy_negative_value": lambda: D.HalfCauchy(tt([1.0])).log_prob(tt([-1.0])),
    "pareto_bad_alpha": lambda: D.Pareto(tt([1.0]), tt([-1.0])),
    "pareto_below_scale": lambda: D.Pareto(tt([2.0]), tt([1.0])).log_prob(tt([1.5])),
    "weibull_bad_concentration": lambda: D.Weibull(tt([1.0]), tt([0.0])),
    "weibull_negative_value": lambda: D.Weibull(tt([1.0]), tt([2.0])).log_prob(tt([-1.0])),
    "kumaraswamy_bad": lambda: D.Kumaraswamy(tt([-1.0]), tt([2.0])),
    "kumaraswamy_out_of_support": lambda: D.Kumaraswamy(tt([1.0]), tt([2.0])).log_prob(tt([1.5])),
    "inverse_gamma_bad_rate": lambda: D.InverseGamma(tt([1.0]), tt([-2.0])),
    "inverse_gamma_zero_value": lambda: D.InverseGamma(tt([1.0]), tt([2.0])).log_prob(tt([0.0])),
    "fisher_bad_df": lambda: D.FisherSnedecor(tt([1.0]), tt([-2.0])),
    "fisher_negative_value": lambda: D.FisherSnedecor(tt([1.0]), tt([2.0])).log_prob(tt([-2.0])),
    "negbin_neither": lambda: D.NegativeBinomial(3.0),
    "negbin_both": lambda: D.NegativeBinomial(3.0, probs=tt([0.5]), logits=tt([0.5])),
    "negbin_probs_one": lambda: D.NegativeBinomial(tt([3.0]), tt([1.0])),
    "negbin_negative_total": lambda: D.NegativeBinomial(tt([-1.0]), tt([0.5])),
    "negbin_fraction_value": lambda: D.NegativeBinomial(tt([3.0]), tt([0.5])).log_prob(tt([1.5])),
    "negbin_zero_total_zero_value": lambda: D.NegativeBinomial(tt([0.0, 2.0]), tt([0.5, 0.5])).log_prob(tt([0.0, 0.0])),
    "multinomial_tensor_total": lambda: D.Multinomial(tt(3), tt([0.5, 0.5])),
    "multinomial_bad_probs": lambda: D.Multinomial(3, tt([-0.5, 0.5])),
    "multinomial_too_many": lambda: D.Multinomial(3, tt([0.5, 0.5])).log_prob(tt([3.0, 1.0])),
    "multinomial_negative_count": lambda: D.Multinomial(3, tt([0.5, 0.5])).log_prob(tt([-1.0, 1.0])),
    "multinomial_zero_prob_zero_count": lambda: D.Multinomial(2, logits=tt([0.0, float("-inf")])).log_prob(
        tt([2.0, 0.0])),
    "multinomial_neither": lambda: D.Multinomial(3),
    "cb_neither": lambda: D.ContinuousBernoulli(),
    "cb_bad_probs_validate_false": lambda: D.ContinuousBernoulli(tt([1.5]), validate_args=False),
    "cb_bad_probs_validate_true": lambda: D.ContinuousBernoulli(tt([1.5]), validate_args=True),
    "cb_bad_probs_default_clamped": lambda: D.ContinuousBernoulli(tt([1.5])).probs,
    "cb_out_of_support": lambda: D.ContinuousBernoulli(tt([0.3])).log_prob(tt([1.5])),
    "von_mises_bad_concentration": lambda: D.VonMises(tt([0.0]), tt([-1.0])),
    "von_mises_nan_value": lambda: D.VonMises(tt([0.0]), tt([1.0])).log_prob(tt([float("nan")])),
    "logistic_normal_bad_scale": lambda: D.LogisticNormal(tt([0.0, 1.0]), tt([1.0, 0.0])),
    "logistic_normal_off_simplex": lambda: D.LogisticNormal(tt([0.0, 1.0]), tt([1.0, 1.0])).log_prob(
        tt([0.5, 0.5, 0.5])),
    "gpd_bad_scale": lambda: D.GeneralizedPareto(tt([0.0]), tt([0.0]), tt([0.1])),
    "gpd_below_loc": lambda: D.GeneralizedPareto(tt([1.0]), tt([1.0]), tt([0.1])).log_prob(tt([0.5])),
    "gpd_above_upper": lambda: D.GeneralizedPareto(tt([0.0]), tt([1.0]), tt([-0.5])).log_prob(tt([2.5])),
    "lkj_dim_1": lambda: D.LKJCholesky(1),
    "lkj_bad_concentration": lambda: D.LKJCholesky(2, tt([0.0])),
    "lkj_not_corr_cholesky": lambda: D.LKJCholesky(2, tt(1.0)).log_prob(tt([[1.0, 0.0], [0.5, 0.5]])),
    "wishart_two_params": lambda: D.Wishart(tt(3.0), covariance_matrix=nbgrad.eye(2), scale_tril=nbgrad.eye(2)),
    "wishart_no_param": lambda: D.Wishart(tt(3.0)),
    "wishart_1d": lambda: D.Wishart(tt(3.0), covariance_matrix=tt([1.0, 2.0])),
    "wishart_low_df": lambda: D.Wishart(tt(0.5), covariance_matrix=nbgrad.eye(2)),
    "wishart_low_df_number": lambda: D.Wishart(1, scale_tril=nbgrad.eye(2)),
    "wishart_not_pd": lambda: D.Wishart(tt(3.0), covariance_matrix=tt([[1.0, 2.0], [2.0, 1.0]])),
    "wishart_not_lower": lambda: D.Wishart(tt(3.0), scale_tril=tt([[1.0, 1.0], [0.0, 1.0]])),
    "wishart_value_not_pd": lambda: D.Wishart(tt(3.0), scale_tril=nbgrad.eye(2)).log_prob(tt([[1.0, 2.0], [2.0, 1.0]])),
    # reprs, supports, shapes
    "repr_half_normal": lambda: D.HalfNormal(tt([1.0])),
    "repr_pareto": lambda: D.Pareto(tt(1.0), tt(2.0)),
    "repr_weibull": lambda: D.Weibull(tt([1.0, 2.0]), tt(1.0)),
    "repr_negbin": lambda: D.NegativeBinomial(tt(3.0), logits=tt(0.5)),
    "repr_multinomial": lambda: D.Multinomial(3, tt([0.5, 0.5])),
    "repr_cb": lambda: D.ContinuousBernoulli(tt([0.3])),
    "repr_von_mises": lambda: D.VonMises(tt(0.0), tt(1.0)),
    "repr_gpd": lambda: D.GeneralizedPareto(tt(0.0), tt(1.0), tt(0.1)),
    "repr_lkj": lambda: D.LKJCholesky(3, tt(2.0)),
    "repr_wishart": lambda: D.Wishart(tt(3.0), covariance_matrix=nbgrad.eye(2)),
    "repr_logistic_normal": lambda: D.LogisticNormal(tt([0.0, 1.0]), tt([1.0, 1.0])),
    "support_pareto": lambda: D.Pareto(tt([1.0, 2.0]), tt(1.0)).support,
    "support_multinomial": lambda: D.Multinomial(3, tt([0.5, 0.5])).support,
    "support_gpd": lambda: D.GeneralizedPareto(tt([0.0, 1.0]), tt(1.0), tt([-0.5, 0.5])).support,
    "supports": lambda: [D.HalfNormal(1.0).support, D.HalfCauchy(1.0).support, D.Weibull(1.0, 1.0).support,
                         D.Kumaraswamy(1.0, 1.0).support, D.InverseGamma(1.0, 1.0).support,
                         D.FisherSnedecor(1.0, 1.0).support, D.NegativeBinomial(1.0, tt(0.5)).support,
                         D.ContinuousBernoulli(0.5).support, D.VonMises(tt(0.0), tt(1.0)).support,
                         D.LogisticNormal(tt([0.0]), tt([1.0])).support, D.LKJCholesky(2).support,
                         D.Wishart(tt(3.0), nbgrad.eye(2)).support],
    "has_rsample": lambda: [D.HalfNormal(1.0).has_rsample, D.HalfCauchy(1.0).has_rsample,
                            D.Pareto(1.0, 1.0).has_rsample, D.Weibull(1.0, 1.0).has_rsample,
                            D.Kumaraswamy(1.0, 1.0).has_rsample, D.InverseGamma(1.0, 1.0).has_rsample,
                            D.FisherSnedecor(1.0, 1.0).has_rsample, D.NegativeBinomial(1.0, tt(0.5)).has_rsample,
                            D.Multinomial(2, tt([0.5, 0.5])).has_rsample, D.ContinuousBernoulli(0.5).has_rsample,
                            D.VonMises(tt(0.0), tt(1.0)).has_rsample, D.LogisticNormal(tt([0.0]), tt([1.0])).has_rsample,
                            D.GeneralizedPareto(0.0, 1.0, 0.1).has_rsample, D.LKJCholesky(2).has_rsample,
                            D.Wishart(tt(3.0), nbgrad.eye(2)).has_rsample],
    "shapes": lambda: [(tuple(d.batch_shape), tuple(d.event_shape)) for d in [
        D.HalfNormal(1.0), D.Pareto(tt([1.0, 2.0]), 1.0), D.Multinomial(3, tt([[0.5, 0.5]] * 4)),
        D.ContinuousBernoulli(0.5), D.ContinuousBernoulli(tt([0.5])), D.VonMises(0.0, 1.0),
        D.LogisticNormal(0.0, 1.0), D.LogisticNormal(tt([[0.0, 1.0]] * 2), 1.0), D.GeneralizedPareto(0.0, 1.0, 0.1),
        D.LKJCholesky(3, tt([1.0, 2.0])), D.Wishart(tt([3.0, 4.0]), nbgrad.eye(2)), D.Wishart(3, nbgrad.eye(2))]],
    "expand_shapes": lambda: [(tuple(e.batch_shape), tuple(e.event_shape)) for e in [
        D.HalfNormal(tt([1.0])).expand([3]), D.Pareto(tt([1.0]), 2.0).expand([2, 1]),
        D.Weibull(tt([1.0]), 2.0).expand([3]), D.Kumaraswamy(tt([1.0]), 2.0).expand([3]),
        D.InverseGamma(tt([1.0]), 2.0).expand([3]), D.FisherSnedecor(tt([1.0]), 2.0).expand([3]),
        D.NegativeBinomial(tt([1.0]), tt([0.5])).expand([3]), D.Multinomial(3, tt([0.5, 0.5])).expand([3]),
        D.ContinuousBernoulli(tt([0.5])).expand([3]), D.VonMises(tt([0.0]), tt([1.0])).expand([3]),
        D.LogisticNormal(tt([0.0, 1.0]), 1.0).expand([3]), D.GeneralizedPareto(tt([0.0]), 1.0, 0.1).expand([3]),
        D.LKJCholesky(3, tt(1.0)).expand([2]), D.Wishart(tt(3.0), nbgrad.eye(2)).expand([4])]],
    "wishart_arg_constraints": lambda: D.Wishart(tt(3.0), nbgrad.eye(3)).arg_constraints,
    "wishart_lazy_matrices": lambda: [D.Wishart(tt(3.0), scale_tril=tt([[2.0, 0.0], [1.0, 1.0]])).covariance_matrix,
                                      D.Wishart(tt(3.0), scale_tril=tt([[2.0, 0.0], [1.0, 1.0]])).precision_matrix,
                                      D.Wishart(tt(3.0), covariance_matrix=tt([[4.0, 2.0], [2.0, 2.0]])).scale_tril],
    "wishart_mode_low_df": lambda: D.Wishart(tt([2.5, 4.0]), nbgrad.eye(2)).mode,
    "lkj_float32_log_prob": lambda: D.LKJCholesky(2, 1.5).log_prob(tt(_L)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    assert _outcome(CASES[name]) == EXPECTED[name]


def test_wishart_low_df_warns():
    with pytest.warns(UserWarning, match="Low df values detected. Singular samples are highly likely to occur "
                                         r"for ndim - 1 < df < ndim."):
        D.Wishart(tt(1.5), covariance_matrix=nbgrad.eye(2))


def test_continuous_bernoulli_check_skipped_by_default_and_probs_clamped():
    # without validate_args the probs are clamped into [eps, 1 - eps] before any check
    d = D.ContinuousBernoulli(tt([0.0, 1.0], dtype=nbgrad.float64))
    eps = nbgrad.finfo(nbgrad.float64).eps
    assert d.probs.tolist() == [eps, 1 - eps]


def test_expand_keeps_values_and_validation_flag():
    cases = [
        (D.HalfNormal(tt([1.5])), tt([0.3])), (D.Pareto(tt([1.0]), tt([2.0])), tt([1.5])),
        (D.Weibull(tt([1.0]), tt([2.0])), tt([1.5])), (D.Kumaraswamy(tt([1.0]), tt([2.0])), tt([0.5])),
        (D.InverseGamma(tt([2.0]), tt([1.0])), tt([0.5])), (D.FisherSnedecor(tt([2.0]), tt([3.0])), tt([0.5])),
        (D.NegativeBinomial(tt([2.0]), tt([0.3])), tt([2.0])), (D.ContinuousBernoulli(tt([0.3])), tt([0.4])),
        (D.VonMises(tt([0.3]), tt([2.0])), tt([0.5])), (D.GeneralizedPareto(tt([0.0]), tt([1.0]), tt([0.2])), tt([0.5])),
        (D.HalfCauchy(tt([1.5])), tt([0.3])),
    ]
    for d, v in cases:
        e = d.expand([3])
        assert tuple(e.batch_shape) == (3,)
        assert e.log_prob(v).tolist() == [d.log_prob(v).item()] * 3, type(d).__name__
        assert e._validate_args == d._validate_args
    m = D.Multinomial(3, tt([0.2, 0.8]))
    assert m.expand([2]).log_prob(tt([1.0, 2.0])).tolist() == [m.log_prob(tt([1.0, 2.0])).item()] * 2
    w = D.Wishart(tt(3.0), covariance_matrix=tt([[2.0, 0.3], [0.3, 1.0]]))
    v = tt([[1.5, 0.2], [0.2, 0.8]])
    we = w.expand([2])
    assert we.log_prob(v).tolist() == [w.log_prob(v).item()] * 2
    assert tuple(we.covariance_matrix.shape) == (2, 2, 2)
    lkj = D.LKJCholesky(2, tt(1.5))
    assert lkj.expand([2]).log_prob(tt(_L)).tolist() == [lkj.log_prob(tt(_L)).item()] * 2


EXPECTED = {
    'cb_bad_probs_default_clamped': ('ok', 'tensor([1.0000])'),
    'cb_bad_probs_validate_false': ('ValueError', 'The parameter probs has invalid values'),
    'cb_bad_probs_validate_true': ('ValueError', 'The parameter probs has invalid values'),
    'cb_neither': ('ValueError', 'Either `probs` or `logits` must be specified, but not both.'),
    'cb_out_of_support': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (Interval(lower_bound=0.0, upper_bound=1.0)) of the distribution ContinuousBernoulli(probs: tensor([0.3000])), but found invalid values:\ntensor([1.5000])'),
    'expand_shapes': ('ok', '[((3,), ()), ((2, 1), ()), ((3,), ()), ((3,), ()), ((3,), ()), ((3,), ()), ((3,), ()), ((3,), (2,)), ((3,), ()), ((3,), ()), ((3,), (3,)), ((3,), ()), ((2,), (3, 3)), ((4,), (2, 2))]'),
    'fisher_bad_df': ('ValueError', 'Expected parameter concentration (Tensor of shape (1,)) of distribution Gamma(concentration: tensor([-1.]), rate: tensor([-2.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'fisher_negative_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThan(lower_bound=0.0)) of the distribution FisherSnedecor(df1: tensor([1.]), df2: tensor([2.])), but found invalid values:\ntensor([-2.])'),
    'gpd_above_upper': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (Interval(lower_bound=tensor([0.]), upper_bound=tensor([2.]))) of the distribution GeneralizedPareto(loc: tensor([0.]), scale: tensor([1.]), concentration: tensor([-0.5000])), but found invalid values:\ntensor([2.5000])'),
    'gpd_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (1,)) of distribution GeneralizedPareto(loc: tensor([0.]), scale: tensor([0.]), concentration: tensor([0.1000])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([0.])'),
    'gpd_below_loc': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (Interval(lower_bound=tensor([1.]), upper_bound=tensor([inf]))) of the distribution GeneralizedPareto(loc: tensor([1.]), scale: tensor([1.]), concentration: tensor([0.1000])), but found invalid values:\ntensor([0.5000])'),
    'half_cauchy_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (1,)) of distribution HalfCauchy() to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([0.])'),
    'half_cauchy_negative_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=0.0)) of the distribution HalfCauchy(), but found invalid values:\ntensor([-1.])'),
    'half_normal_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (2,)) of distribution HalfNormal() to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([ 1., -1.])'),
    'half_normal_negative_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=0.0)) of the distribution HalfNormal(), but found invalid values:\ntensor([-1.])'),
    'half_normal_unvalidated_negative': ('ok', 'tensor([-inf])'),
    'has_rsample': ('ok', '[True, True, True, True, True, True, True, False, False, True, False, True, True, False, True]'),
    'inverse_gamma_bad_rate': ('ValueError', 'Expected parameter rate (Tensor of shape (1,)) of distribution Gamma(concentration: tensor([1.]), rate: tensor([-2.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-2.])'),
    'inverse_gamma_zero_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThan(lower_bound=0.0)) of the distribution InverseGamma(), but found invalid values:\ntensor([0.])'),
    'kumaraswamy_bad': ('ValueError', 'Expected parameter concentration1 (Tensor of shape (1,)) of distribution Kumaraswamy(concentration1: tensor([-1.]), concentration0: tensor([2.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'kumaraswamy_out_of_support': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (Interval(lower_bound=0.0, upper_bound=1.0)) of the distribution Kumaraswamy(concentration1: tensor([1.]), concentration0: tensor([2.])), but found invalid values:\ntensor([1.5000])'),
    'lkj_bad_concentration': ('ValueError', 'Expected parameter concentration (Tensor of shape (1, 2, 2)) of distribution Dirichlet(concentration: nbgrad.Size([1, 2, 2])) to satisfy the constraint IndependentConstraint(GreaterThan(lower_bound=0.0), 1), but found invalid values:\ntensor([[[0.5000, 0.0000],\n         [0.5000, 0.0000]]])'),
    'lkj_dim_1': ('ValueError', 'Expected dim to be an integer greater than or equal to 2. Found dim=1.'),
    'lkj_float32_log_prob': ('ok', 'tensor(-0.6747)'),
    'lkj_not_corr_cholesky': ('ValueError', 'Expected value argument (Tensor of shape (2, 2)) to be within the support (CorrCholesky()) of the distribution LKJCholesky(concentration: 1.0), but found invalid values:\ntensor([[1.0000, 0.0000],\n        [0.5000, 0.5000]])'),
    'logistic_normal_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc: nbgrad.Size([2]), scale: nbgrad.Size([2])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([1., 0.])'),
    'logistic_normal_off_simplex': ('ValueError', 'Expected value argument (Tensor of shape (3,)) to be within the support (Simplex()) of the distribution LogisticNormal(), but found invalid values:\ntensor([0.5000, 0.5000, 0.5000])'),
    'multinomial_bad_probs': ('ValueError', 'Expected parameter probs (Tensor of shape (2,)) of distribution Categorical(probs: nbgrad.Size([2])) to satisfy the constraint Simplex(), but found invalid values:\ntensor([-inf, inf])'),
    'multinomial_negative_count': ('ValueError', 'Expected value argument (Tensor of shape (2,)) to be within the support (Multinomial()) of the distribution Multinomial(), but found invalid values:\ntensor([-1.,  1.])'),
    'multinomial_neither': ('ValueError', 'Either `probs` or `logits` must be specified, but not both.'),
    'multinomial_tensor_total': ('NotImplementedError', 'inhomogeneous total_count is not supported'),
    'multinomial_too_many': ('ValueError', 'Expected value argument (Tensor of shape (2,)) to be within the support (Multinomial()) of the distribution Multinomial(), but found invalid values:\ntensor([3., 1.])'),
    'multinomial_zero_prob_zero_count': ('ok', 'tensor(0.)'),
    'negbin_both': ('ValueError', 'Either `probs` or `logits` must be specified, but not both.'),
    'negbin_fraction_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (IntegerGreaterThan(lower_bound=0)) of the distribution NegativeBinomial(total_count: tensor([3.]), probs: tensor([0.5000])), but found invalid values:\ntensor([1.5000])'),
    'negbin_negative_total': ('ValueError', 'Expected parameter total_count (Tensor of shape (1,)) of distribution NegativeBinomial(total_count: tensor([-1.]), probs: tensor([0.5000])) to satisfy the constraint GreaterThanEq(lower_bound=0), but found invalid values:\ntensor([-1.])'),
    'negbin_neither': ('ValueError', 'Either `probs` or `logits` must be specified, but not both.'),
    'negbin_probs_one': ('ValueError', 'Expected parameter probs (Tensor of shape (1,)) of distribution NegativeBinomial(total_count: tensor([3.]), probs: tensor([1.])) to satisfy the constraint HalfOpenInterval(lower_bound=0.0, upper_bound=1.0), but found invalid values:\ntensor([1.])'),
    'negbin_zero_total_zero_value': ('ok', 'tensor([-0.0000, -1.3863])'),
    'pareto_bad_alpha': ('ValueError', 'Expected parameter rate (Tensor of shape (1,)) of distribution Exponential(rate: tensor([-1.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'pareto_below_scale': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=tensor([2.]))) of the distribution Pareto(alpha: tensor([1.]), scale: tensor([2.])), but found invalid values:\ntensor([1.5000])'),
    'repr_cb': ('ok', 'ContinuousBernoulli(probs: tensor([0.3000]))'),
    'repr_gpd': ('ok', 'GeneralizedPareto(loc: 0.0, scale: 1.0, concentration: 0.10000000149011612)'),
    'repr_half_normal': ('ok', 'HalfNormal()'),
    'repr_lkj': ('ok', 'LKJCholesky(concentration: 2.0)'),
    'repr_logistic_normal': ('ok', 'LogisticNormal()'),
    'repr_multinomial': ('ok', 'Multinomial()'),
    'repr_negbin': ('ok', 'NegativeBinomial(total_count: 3.0, logits: 0.5)'),
    'repr_pareto': ('ok', 'Pareto(alpha: 2.0, scale: 1.0)'),
    'repr_von_mises': ('ok', 'VonMises(loc: 0.0, concentration: 1.0)'),
    'repr_weibull': ('ok', 'Weibull(scale: nbgrad.Size([2]), concentration: nbgrad.Size([2]))'),
    'repr_wishart': ('ok', 'Wishart(covariance_matrix: nbgrad.Size([2, 2]), df: 3.0)'),
    'shapes': ('ok', '[((), ()), ((2,), ()), ((4,), (2,)), ((), ()), ((1,), ()), ((), ()), ((), (2,)), ((2,), (3,)), ((), ()), ((2,), (3, 3)), ((2,), (2, 2)), ((), (2, 2))]'),
    'support_gpd': ('ok', 'Interval(lower_bound=tensor([0., 1.]), upper_bound=tensor([2., inf]))'),
    'support_multinomial': ('ok', 'Multinomial()'),
    'support_pareto': ('ok', 'GreaterThanEq(lower_bound=tensor([1., 2.]))'),
    'supports': ('ok', '[GreaterThanEq(lower_bound=0.0), GreaterThanEq(lower_bound=0.0), GreaterThan(lower_bound=0.0), Interval(lower_bound=0.0, upper_bound=1.0), GreaterThan(lower_bound=0.0), GreaterThan(lower_bound=0.0), IntegerGreaterThan(lower_bound=0), Interval(lower_bound=0.0, upper_bound=1.0), Real(), Simplex(), CorrCholesky(), PositiveDefinite()]'),
    'von_mises_bad_concentration': ('ValueError', 'Expected parameter concentration (Tensor of shape (1,)) of distribution VonMises(loc: tensor([0.]), concentration: tensor([-1.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'von_mises_nan_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (Real()) of the distribution VonMises(loc: tensor([0.]), concentration: tensor([1.])), but found invalid values:\ntensor([nan])'),
    'weibull_bad_concentration': ('ValueError', 'Expected parameter concentration (Tensor of shape (1,)) of distribution Weibull(scale: tensor([1.]), concentration: tensor([0.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([0.])'),
    'weibull_negative_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThan(lower_bound=0.0)) of the distribution Weibull(scale: tensor([1.]), concentration: tensor([2.])), but found invalid values:\ntensor([-1.])'),
    'wishart_1d': ('ValueError', 'scale_tril must be at least two-dimensional, with optional leading batch dimensions'),
    'wishart_arg_constraints': ('ok', "{'covariance_matrix': PositiveDefinite(), 'precision_matrix': PositiveDefinite(), 'scale_tril': LowerCholesky(), 'df': GreaterThan(lower_bound=2)}"),
    'wishart_lazy_matrices': ('ok', '[tensor([[4., 2.],\n        [2., 2.]]), tensor([[ 0.5000, -0.5000],\n        [-0.5000,  1.0000]]), tensor([[2., 0.],\n        [1., 1.]])]'),
    'wishart_low_df': ('ValueError', 'Value of df=0.5 expected to be greater than ndim - 1 = 1.'),
    'wishart_low_df_number': ('ValueError', 'Value of df=1 expected to be greater than ndim - 1 = 1.'),
    'wishart_mode_low_df': ('ok', 'tensor([[[nan, nan],\n         [nan, nan]],\n\n        [[1., 0.],\n         [0., 1.]]])'),
    'wishart_no_param': ('AssertionError', 'Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.'),
    'wishart_not_lower': ('ValueError', 'Expected parameter scale_tril (Tensor of shape (2, 2)) of distribution Wishart(scale_tril: nbgrad.Size([2, 2]), df: 3.0) to satisfy the constraint LowerCholesky(), but found invalid values:\ntensor([[1., 1.],\n        [0., 1.]])'),
    'wishart_not_pd': ('ValueError', 'Expected parameter covariance_matrix (Tensor of shape (2, 2)) of distribution Wishart(covariance_matrix: nbgrad.Size([2, 2]), df: 3.0) to satisfy the constraint PositiveDefinite(), but found invalid values:\ntensor([[1., 2.],\n        [2., 1.]])'),
    'wishart_two_params': ('AssertionError', 'Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.'),
    'wishart_value_not_pd': ('ValueError', 'Expected value argument (Tensor of shape (2, 2)) to be within the support (PositiveDefinite()) of the distribution Wishart(scale_tril: nbgrad.Size([2, 2]), df: 3.0), but found invalid values:\ntensor([[1., 2.],\n        [2., 1.]])'),
}
