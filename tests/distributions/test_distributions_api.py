"""torch.distributions' API around the numbers: argument and sample validation (ValueError with
PyTorch's messages, recorded here as literals), the reprs of distributions and constraints,
constraint checks, expand, lazy probs/logits, enumerate_support, moments that PyTorch defines
by masks (StudentT, Dirichlet's mode...), set_default_validate_args, and the utils.

Messages are compared after writing `torch.` as `nbgrad.` (torch.Size, dtype names).
Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import warnings

import numpy as np
import pytest

import nbgrad

D = nbgrad.distributions
C = nbgrad.distributions.constraints
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


CASES = {
    "normal_bad_scale": lambda: D.Normal(tt([0.0, 1.0]), tt([1.0, -1.0])),
    "normal_zero_scale_numbers": lambda: D.Normal(0.0, 0.0),
    "normal_nan_loc": lambda: D.Normal(tt([float("nan")]), tt([1.0])),
    "bernoulli_bad_probs": lambda: D.Bernoulli(probs=tt([1.5, 0.5])),
    "bernoulli_neither": lambda: D.Bernoulli(),
    "bernoulli_both": lambda: D.Bernoulli(probs=0.3, logits=0.1),
    "categorical_0d": lambda: D.Categorical(probs=tt(0.5)),
    "categorical_0d_logits": lambda: D.Categorical(logits=tt(0.5)),
    "categorical_negative": lambda: D.Categorical(probs=tt([0.5, -0.1])),
    "categorical_nan_logits": lambda: D.Categorical(logits=tt([0.5, float("nan")])),
    "categorical_out_of_support": lambda: D.Categorical(probs=tt([0.5, 0.5])).log_prob(tt(2)),
    "categorical_log_prob_broadcast": lambda: D.Categorical(probs=tt([0.5, 0.5])).log_prob(tt([0, 1, 1])),
    "normal_value_not_broadcastable": lambda: D.Normal(nbgrad.zeros(3), 1.0).log_prob(nbgrad.zeros(2)),
    "normal_value_not_tensor": lambda: D.Normal(nbgrad.zeros(3), 1.0).log_prob([0.0]),
    "normal_value_nan": lambda: D.Normal(nbgrad.zeros(1), 1.0).log_prob(tt([float("nan")])),
    "exponential_negative_value": lambda: D.Exponential(tt([1.0])).log_prob(tt([-1.0])),
    "uniform_low_above_high": lambda: D.Uniform(1.0, 0.0),
    "uniform_out_of_support": lambda: D.Uniform(0.0, 1.0).log_prob(tt(2.0)),
    "uniform_log_prob_at_high_unvalidated": lambda: D.Uniform(0.0, 1.0, validate_args=False).log_prob(tt([1.0, 0.0])),
    "poisson_fraction": lambda: D.Poisson(tt([1.0])).log_prob(tt([1.5])),
    "binomial_above_total": lambda: D.Binomial(tt([3.0]), tt([0.5])).log_prob(tt([4.0])),
    "binomial_fraction_total": lambda: D.Binomial(tt([2.5]), tt([0.5])),
    "geometric_zero_probs": lambda: D.Geometric(tt([0.0, 0.5])),
    "dirichlet_negative": lambda: D.Dirichlet(tt([1.0, -1.0])),
    "dirichlet_0d": lambda: D.Dirichlet(tt(1.0)),
    "dirichlet_off_simplex": lambda: D.Dirichlet(tt([1.0, 2.0])).log_prob(tt([0.5, 0.6])),
    "beta_negative": lambda: D.Beta(tt([1.0]), tt([-1.0])),
    "gamma_zero_concentration": lambda: D.Gamma(tt([0.0, 1.0]), 1.0),
    "gamma_negative_value": lambda: D.Gamma(tt([2.0]), tt([1.0])).log_prob(tt([-1.0])),
    "mvn_not_pd": lambda: D.MultivariateNormal(nbgrad.zeros(2), covariance_matrix=tt([[1.0, 2.0], [2.0, 1.0]])),
    "mvn_not_lower_cholesky": lambda: D.MultivariateNormal(nbgrad.zeros(2), scale_tril=tt([[1.0, 0.0], [2.0, -1.0]])),
    "mvn_no_matrix": lambda: D.MultivariateNormal(nbgrad.zeros(2)),
    "mvn_0d_loc": lambda: D.MultivariateNormal(tt(0.0), nbgrad.eye(1)),
    "mvn_1d_cov": lambda: D.MultivariateNormal(nbgrad.zeros(2), covariance_matrix=nbgrad.ones(2)),
    "mvn_wrong_event": lambda: D.MultivariateNormal(nbgrad.zeros(2), nbgrad.eye(2)).log_prob(nbgrad.zeros(3)),
    "lowrank_bad_factor": lambda: D.LowRankMultivariateNormal(nbgrad.zeros(2), nbgrad.ones(3, 1), nbgrad.ones(2)),
    "lowrank_bad_diag": lambda: D.LowRankMultivariateNormal(nbgrad.zeros(2), nbgrad.ones(2, 1), nbgrad.ones(3)),
    "lowrank_batch_mismatch": lambda: D.LowRankMultivariateNormal(nbgrad.zeros(3, 2), nbgrad.ones(4, 2, 1),
                                                                  nbgrad.ones(2)),
    "independent_too_many": lambda: D.Independent(D.Normal(nbgrad.zeros(2), 1.0), 2),
    "independent_log_prob": lambda: D.Independent(D.Normal(nbgrad.zeros(2, 3), 1.0), 1).log_prob(nbgrad.zeros(2, 3)),
    "mixture_not_categorical": lambda: D.MixtureSameFamily(tt([0.5, 0.5]), D.Normal(nbgrad.zeros(2), 1.0)),
    "mixture_component_count": lambda: D.MixtureSameFamily(D.Categorical(tt([0.5, 0.5])),
                                                           D.Normal(nbgrad.zeros(3), 1.0)),
    "mixture_batch_mismatch": lambda: D.MixtureSameFamily(D.Categorical(tt([[0.5, 0.5]] * 3)),
                                                          D.Normal(nbgrad.zeros(2, 2), 1.0)),
    "student_t_bad_df": lambda: D.StudentT(tt([-1.0])),
    "laplace_bad_scale": lambda: D.Laplace(tt([0.0]), tt([0.0])),
    "cauchy_bad_scale": lambda: D.Cauchy(tt([0.0]), tt([-1.0])),
    "gumbel_bad_scale": lambda: D.Gumbel(tt([0.0]), tt([-1.0])),
    "lognormal_bad_value": lambda: D.LogNormal(tt([0.0]), tt([1.0])).log_prob(tt([-1.0])),
    "relaxed_bernoulli_bad_probs": lambda: D.RelaxedBernoulli(tt(0.5), probs=tt([1.5])),
    "onehot_bad_value": lambda: D.OneHotCategorical(tt([0.5, 0.5])).log_prob(tt([1.0, 1.0])),
    "broadcast_all_bad_type": lambda: D.Normal("a", 1.0),
    "set_default_validate_args_not_bool": lambda: D.Distribution.set_default_validate_args(3),
    "expand_bad_shape": lambda: D.Normal(tt([0.0, 1.0]), 1.0).expand([3, 3]),
    # reprs
    "repr_normal_numbers": lambda: D.Normal(0.0, 1.0),
    "repr_normal_one_element": lambda: D.Normal(tt([0.5]), tt([2.0])),
    "repr_normal_batched": lambda: D.Normal(nbgrad.zeros(2, 3), 1.0),
    "repr_bernoulli_logits": lambda: D.Bernoulli(logits=tt([0.3])),
    "repr_bernoulli_logits_after_probs": lambda: (lambda d: (d.probs, d)[1])(D.Bernoulli(logits=tt([0.3]))),
    "repr_categorical": lambda: D.Categorical(tt([0.3, 0.7])),
    "repr_independent": lambda: D.Independent(D.Normal(nbgrad.zeros(2), 1.0), 1),
    "repr_mixture": lambda: D.MixtureSameFamily(D.Categorical(tt([0.5, 0.5])), D.Normal(nbgrad.zeros(2), 1.0)),
    "repr_mvn": lambda: D.MultivariateNormal(nbgrad.zeros(2), nbgrad.eye(2)),
    "repr_uniform": lambda: D.Uniform(0.0, 1.0),
    "repr_gamma": lambda: D.Gamma(tt(2.0), tt(3.0)),
    "repr_beta": lambda: D.Beta(2.0, 3.0),
    "repr_lognormal": lambda: D.LogNormal(0.0, 1.0),
    "repr_chi2": lambda: D.Chi2(tt([3.0])),
    "repr_binomial": lambda: D.Binomial(10, tt(0.3)),
    "repr_student_t": lambda: D.StudentT(tt(3.0)),
    "repr_lowrank": lambda: D.LowRankMultivariateNormal(nbgrad.zeros(2), nbgrad.ones(2, 1), nbgrad.ones(2)),
    "repr_dirichlet": lambda: D.Dirichlet(tt([1.0, 2.0])),
    # supports and constraints
    "support_uniform": lambda: D.Uniform(tt([0.0, 1.0]), 2.0).support,
    "support_binomial": lambda: D.Binomial(tt([3.0, 4.0]), tt([0.5, 0.5])).support,
    "support_categorical": lambda: D.Categorical(tt([0.3, 0.7])).support,
    "support_independent": lambda: D.Independent(D.Normal(nbgrad.zeros(2, 3), 1.0), 2).support,
    "support_mixture": lambda: D.MixtureSameFamily(D.Categorical(tt([0.5, 0.5])), D.Normal(nbgrad.zeros(2), 1.0)).support,
    "support_lognormal": lambda: D.LogNormal(0.0, 1.0).support,
    "support_relaxed_categorical": lambda: D.RelaxedOneHotCategorical(tt(0.5), tt([0.3, 0.7])).support,
    "arg_constraints_normal": lambda: D.Normal.arg_constraints,
    "arg_constraints_mvn": lambda: D.MultivariateNormal.arg_constraints,
    "arg_constraints_uniform": lambda: D.Uniform(0.0, 1.0).arg_constraints,
    "constraint_independent": lambda: C.independent(C.positive, 1),
    "constraint_integer_interval": lambda: C.integer_interval(0, 3),
    "constraint_half_open": lambda: C.half_open_interval(-1.0, 2),
    "constraint_reprs": lambda: [C.real, C.positive, C.nonnegative, C.unit_interval, C.simplex, C.boolean,
                                 C.one_hot, C.lower_cholesky, C.lower_triangular, C.positive_definite,
                                 C.positive_semidefinite, C.real_vector, C.nonnegative_integer,
                                 C.positive_integer, C.square, C.symmetric, C.corr_cholesky, C.greater_than_eq(2),
                                 C.less_than(3.0), C.dependent, C.interval(0, 1)],
    "check_simplex": lambda: C.simplex.check(tt([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])),
    "check_positive_definite": lambda: C.positive_definite.check(tt([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    "check_positive_definite_asymmetric": lambda: C.positive_definite.check(tt([[1.0, 0.5], [0.0, 1.0]])),
    "check_lower_cholesky": lambda: C.lower_cholesky.check(
        tt([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [2.0, -1.0]], [[1.0, 1.0], [0.0, 1.0]]])),
    "check_lower_triangular": lambda: C.lower_triangular.check(tt([[[1.0, 0.0], [2.0, -1.0]], [[1.0, 1.0], [0.0, 1.0]]])),
    "check_positive_semidefinite": lambda: C.positive_semidefinite.check(
        tt([[[1.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    "check_dependent": lambda: C.dependent.check(tt(1.0)),
    "check_real_vector": lambda: C.real_vector.check(tt([[1.0, float("nan")], [1.0, 2.0]])),
    "check_independent_too_few_dims": lambda: C.independent(C.real, 2).check(tt([1.0])),
    "check_one_hot": lambda: C.one_hot.check(tt([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])),
    "check_boolean": lambda: C.boolean.check(tt([0.0, 1.0, 0.5])),
    "check_corr_cholesky": lambda: C.corr_cholesky.check(tt([[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.7]]])),
    "check_integer_interval": lambda: C.integer_interval(0, 3).check(tt([-1.0, 0.0, 1.5, 3.0, 4.0])),
    "check_nonnegative_integer": lambda: C.nonnegative_integer.check(tt([-1.0, 0.0, 2.0, 2.5])),
    "check_interval": lambda: C.interval(0.0, 1.0).check(tt([-0.1, 0.0, 1.0, 1.1])),
    "check_half_open_interval": lambda: C.half_open_interval(0.0, 1.0).check(tt([0.0, 1.0])),
    "check_square": lambda: C.square.check(nbgrad.zeros(2, 2, 3)),
    "check_symmetric": lambda: C.symmetric.check(tt([[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [3.0, 1.0]]])),
    "check_multinomial": lambda: C.multinomial(3).check(tt([[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]])),
    "check_cat": lambda: C.cat([C.positive, C.real], dim=0, lengths=[1, 2]).check(tt([-1.0, -2.0, 3.0])),
    "check_stack": lambda: C.stack([C.positive, C.real], dim=0).check(tt([[-1.0, 1.0], [-2.0, 3.0]])),
    "dependent_event_dim": lambda: C.dependent.event_dim,
    "dependent_property_on_class": lambda: D.Uniform.support,
    "is_dependent": lambda: [C.is_dependent(D.Uniform.support), C.is_dependent(C.real)],
    # moments defined by masks, and modes
    "student_t_mean": lambda: D.StudentT(tt([0.5, 1.5, 3.0])).mean,
    "student_t_variance": lambda: D.StudentT(tt([0.5, 1.5, 3.0])).variance,
    "dirichlet_mode": lambda: D.Dirichlet(tt([[0.5, 0.5, 0.3], [2.0, 3.0, 4.0]])).mode,
    "beta_mode": lambda: D.Beta(tt([0.5, 2.0]), tt([0.7, 3.0])).mode,
    "bernoulli_mode": lambda: D.Bernoulli(tt([0.5, 0.2, 0.7])).mode,
    "binomial_mode": lambda: D.Binomial(tt([5.0, 4.0]), tt([1.0, 0.3])).mode,
    "onehot_mode": lambda: D.OneHotCategorical(tt([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])).mode,
    "categorical_mode": lambda: D.Categorical(tt([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])).mode,
    "cauchy_mean_variance": lambda: (D.Cauchy(tt([0.0, 1.0]), 1.0).mean, D.Cauchy(tt([0.0, 1.0]), 1.0).variance),
    "categorical_mean": lambda: D.Categorical(tt([[0.2, 0.5, 0.3]])).mean,
    "gamma_mode": lambda: D.Gamma(tt([0.5, 3.0]), tt([1.0, 2.0])).mode,
    "mixture_mean_variance": lambda: (lambda m: (m.mean, m.variance))(
        D.MixtureSameFamily(D.Categorical(tt([0.3, 0.7])), D.Normal(tt([0.0, 5.0]), tt([1.0, 0.5])))),
    "binomial_entropy_inhomogeneous": lambda: D.Binomial(tt([3.0, 4.0]), tt([0.5, 0.5])).entropy(),
    "poisson_entropy": lambda: D.Poisson(tt([1.0])).entropy(),
    # enumerate_support
    "enum_bernoulli": lambda: D.Bernoulli(tt([[0.5, 0.4]])).enumerate_support(),
    "enum_bernoulli_no_expand": lambda: D.Bernoulli(tt([[0.5, 0.4]])).enumerate_support(False),
    "enum_categorical": lambda: D.Categorical(tt([[0.2, 0.8], [0.5, 0.5]])).enumerate_support(),
    "enum_onehot": lambda: D.OneHotCategorical(tt([[0.2, 0.8], [0.5, 0.5]])).enumerate_support(False),
    "enum_binomial": lambda: D.Binomial(tt([2.0, 2.0]), tt([0.2, 0.5])).enumerate_support(),
    "enum_independent": lambda: D.Independent(D.Bernoulli(tt([[0.5]])), 1).enumerate_support(),
    "has_enumerate_support": lambda: [D.Bernoulli.has_enumerate_support, D.Normal.has_enumerate_support,
                                      D.Independent(D.Bernoulli(tt([[0.5]])), 1).has_enumerate_support,
                                      D.Independent(D.Bernoulli(tt([[0.5]])), 0).has_enumerate_support],
    "has_rsample": lambda: [D.Normal.has_rsample, D.Bernoulli.has_rsample, D.Gamma.has_rsample,
                            D.Dirichlet.has_rsample, D.Poisson.has_rsample, D.MixtureSameFamily.has_rsample,
                            D.LogNormal(0.0, 1.0).has_rsample, D.Gumbel(0.0, 1.0).has_rsample,
                            D.Independent(D.Normal(nbgrad.zeros(2), 1.0), 1).has_rsample],
    "perplexity": lambda: D.Categorical(tt([0.25, 0.25, 0.25, 0.25])).perplexity(),
    "normal_cdf_icdf_float32": lambda: (D.Normal(tt([0.0]), tt([2.0])).cdf(tt([1.0])),
                                        D.Normal(tt([0.0]), tt([2.0])).icdf(tt([0.9]))),
    "base_mode_not_implemented": lambda: D.Distribution().mode,
    # utils
    "probs_to_logits": lambda: D.utils.probs_to_logits(tt([0.0, 0.25, 1.0])),
    "probs_to_logits_binary": lambda: D.utils.probs_to_logits(tt([0.0, 0.25, 1.0]), is_binary=True),
    "logits_to_probs": lambda: D.utils.logits_to_probs(tt([0.0, 1.0, 2.0])),
    "logits_to_probs_binary": lambda: D.utils.logits_to_probs(tt([0.0, 1.0, 2.0]), is_binary=True),
    "clamp_probs": lambda: D.utils.clamp_probs(tt([0.0, 0.5, 1.0])),
    "broadcast_all": lambda: D.utils.broadcast_all(tt([1.0, 2.0]), 3, tt([[1.0], [2.0]], dtype=nbgrad.float64)),
    "broadcast_all_numbers": lambda: D.utils.broadcast_all(1, 2.5),
    "tril_matrix_to_vec": lambda: D.utils.tril_matrix_to_vec(tt([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]), -1),
    "vec_to_tril_matrix": lambda: D.utils.vec_to_tril_matrix(tt([1.0, 2.0, 3.0])),
    "vec_to_tril_matrix_bad": lambda: D.utils.vec_to_tril_matrix(tt([1.0, 2.0])),
    "tril_matrix_to_vec_bad_diag": lambda: D.utils.tril_matrix_to_vec(nbgrad.zeros(2, 2), 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    assert _outcome(CASES[name]) == EXPECTED[name]


EXPECTED = {
    'normal_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc: nbgrad.Size([2]), scale: nbgrad.Size([2])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([ 1., -1.])'),
    'normal_zero_scale_numbers': ('ValueError', 'Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, scale: 0.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n0.0'),
    'normal_nan_loc': ('ValueError', 'Expected parameter loc (Tensor of shape (1,)) of distribution Normal(loc: tensor([nan]), scale: tensor([1.])) to satisfy the constraint Real(), but found invalid values:\ntensor([nan])'),
    'bernoulli_bad_probs': ('ValueError', 'Expected parameter probs (Tensor of shape (2,)) of distribution Bernoulli(probs: nbgrad.Size([2])) to satisfy the constraint Interval(lower_bound=0.0, upper_bound=1.0), but found invalid values:\ntensor([1.5000, 0.5000])'),
    'bernoulli_neither': ('ValueError', 'Either `probs` or `logits` must be specified, but not both.'),
    'bernoulli_both': ('ValueError', 'Either `probs` or `logits` must be specified, but not both.'),
    'categorical_0d': ('ValueError', '`probs` parameter must be at least one-dimensional.'),
    'categorical_0d_logits': ('ValueError', '`logits` parameter must be at least one-dimensional.'),
    'categorical_negative': ('ValueError', 'Expected parameter probs (Tensor of shape (2,)) of distribution Categorical(probs: nbgrad.Size([2])) to satisfy the constraint Simplex(), but found invalid values:\ntensor([ 1.2500, -0.2500])'),
    'categorical_nan_logits': ('ValueError', 'Expected parameter logits (Tensor of shape (2,)) of distribution Categorical(logits: nbgrad.Size([2])) to satisfy the constraint IndependentConstraint(Real(), 1), but found invalid values:\ntensor([nan, nan])'),
    'categorical_out_of_support': ('ValueError', 'Expected value argument (Tensor of shape ()) to be within the support (IntegerInterval(lower_bound=0, upper_bound=1)) of the distribution Categorical(probs: nbgrad.Size([2])), but found invalid values:\n2'),
    'categorical_log_prob_broadcast': ('ok', 'tensor([-0.6931, -0.6931, -0.6931])'),
    'normal_value_not_broadcastable': ('ValueError', 'Value is not broadcastable with batch_shape+event_shape: nbgrad.Size([2]) vs nbgrad.Size([3]).'),
    'normal_value_not_tensor': ('ValueError', 'The value argument to log_prob must be a Tensor'),
    'normal_value_nan': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (Real()) of the distribution Normal(loc: tensor([0.]), scale: tensor([1.])), but found invalid values:\ntensor([nan])'),
    'exponential_negative_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=0.0)) of the distribution Exponential(rate: tensor([1.])), but found invalid values:\ntensor([-1.])'),
    'uniform_low_above_high': ('ValueError', 'Expected parameter low (Tensor of shape ()) of distribution Uniform(low: 1.0, high: 0.0) to satisfy the constraint LessThan(upper_bound=0.0), but found invalid values:\n1.0'),
    'uniform_out_of_support': ('ValueError', 'Expected value argument (Tensor of shape ()) to be within the support (Interval(lower_bound=0.0, upper_bound=1.0)) of the distribution Uniform(low: 0.0, high: 1.0), but found invalid values:\n2.0'),
    'uniform_log_prob_at_high_unvalidated': ('ok', 'tensor([-inf, 0.])'),
    'poisson_fraction': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (IntegerGreaterThan(lower_bound=0)) of the distribution Poisson(rate: tensor([1.])), but found invalid values:\ntensor([1.5000])'),
    'binomial_above_total': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (IntegerInterval(lower_bound=0, upper_bound=tensor([3.]))) of the distribution Binomial(total_count: tensor([3.]), probs: tensor([0.5000])), but found invalid values:\ntensor([4.])'),
    'binomial_fraction_total': ('ValueError', 'Expected parameter total_count (Tensor of shape (1,)) of distribution Binomial(total_count: tensor([2.5000]), probs: tensor([0.5000])) to satisfy the constraint IntegerGreaterThan(lower_bound=0), but found invalid values:\ntensor([2.5000])'),
    'geometric_zero_probs': ('ValueError', 'Expected parameter probs (Tensor of shape (2,)) of distribution Geometric(probs: nbgrad.Size([2])) to be positive but found invalid values:\ntensor([0.])'),
    'dirichlet_negative': ('ValueError', 'Expected parameter concentration (Tensor of shape (2,)) of distribution Dirichlet(concentration: nbgrad.Size([2])) to satisfy the constraint IndependentConstraint(GreaterThan(lower_bound=0.0), 1), but found invalid values:\ntensor([ 1., -1.])'),
    'dirichlet_0d': ('ValueError', '`concentration` parameter must be at least one-dimensional.'),
    'dirichlet_off_simplex': ('ValueError', 'Expected value argument (Tensor of shape (2,)) to be within the support (Simplex()) of the distribution Dirichlet(concentration: nbgrad.Size([2])), but found invalid values:\ntensor([0.5000, 0.6000])'),
    'beta_negative': ('ValueError', 'Expected parameter concentration (Tensor of shape (1, 2)) of distribution Dirichlet(concentration: nbgrad.Size([1, 2])) to satisfy the constraint IndependentConstraint(GreaterThan(lower_bound=0.0), 1), but found invalid values:\ntensor([[ 1., -1.]])'),
    'gamma_zero_concentration': ('ValueError', 'Expected parameter concentration (Tensor of shape (2,)) of distribution Gamma(concentration: nbgrad.Size([2]), rate: nbgrad.Size([2])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([0., 1.])'),
    'gamma_negative_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=0.0)) of the distribution Gamma(concentration: tensor([2.]), rate: tensor([1.])), but found invalid values:\ntensor([-1.])'),
    'mvn_not_pd': ('ValueError', 'Expected parameter covariance_matrix (Tensor of shape (2, 2)) of distribution MultivariateNormal(loc: nbgrad.Size([2]), covariance_matrix: nbgrad.Size([2, 2])) to satisfy the constraint PositiveDefinite(), but found invalid values:\ntensor([[1., 2.],\n        [2., 1.]])'),
    'mvn_not_lower_cholesky': ('ValueError', 'Expected parameter scale_tril (Tensor of shape (2, 2)) of distribution MultivariateNormal(loc: nbgrad.Size([2]), scale_tril: nbgrad.Size([2, 2])) to satisfy the constraint LowerCholesky(), but found invalid values:\ntensor([[ 1.,  0.],\n        [ 2., -1.]])'),
    'mvn_no_matrix': ('ValueError', 'Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.'),
    'mvn_0d_loc': ('ValueError', 'loc must be at least one-dimensional.'),
    'mvn_1d_cov': ('ValueError', 'covariance_matrix must be at least two-dimensional, with optional leading batch dimensions'),
    'mvn_wrong_event': ('ValueError', 'The right-most size of value must match event_shape: nbgrad.Size([3]) vs nbgrad.Size([2]).'),
    'lowrank_bad_factor': ('ValueError', 'cov_factor must be a batch of matrices with shape 2 x m'),
    'lowrank_bad_diag': ('ValueError', 'cov_diag must be a batch of vectors with shape nbgrad.Size([2])'),
    'lowrank_batch_mismatch': ('ValueError', 'Incompatible batch shapes: loc nbgrad.Size([3, 2]), cov_factor nbgrad.Size([4, 2, 1]), cov_diag nbgrad.Size([2])'),
    'independent_too_many': ('ValueError', 'Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual 2 vs 1'),
    'independent_log_prob': ('ok', 'tensor([-2.7568, -2.7568])'),
    'mixture_not_categorical': ('ValueError', ' The Mixture distribution needs to be an  instance of nbgrad.distributions.Categorical'),
    'mixture_component_count': ('ValueError', '`mixture_distribution component` (2) does not equal `component_distribution.batch_shape[-1]` (3)'),
    'mixture_batch_mismatch': ('ValueError', '`mixture_distribution.batch_shape` (nbgrad.Size([3])) is not compatible with `component_distribution.batch_shape`(nbgrad.Size([2]))'),
    'student_t_bad_df': ('ValueError', 'Expected parameter df (Tensor of shape (1,)) of distribution Chi2() to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'laplace_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (1,)) of distribution Laplace(loc: tensor([0.]), scale: tensor([0.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([0.])'),
    'cauchy_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (1,)) of distribution Cauchy(loc: tensor([0.]), scale: tensor([-1.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'gumbel_bad_scale': ('ValueError', 'Expected parameter scale (Tensor of shape (1,)) of distribution Gumbel(loc: tensor([0.]), scale: tensor([-1.])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1.])'),
    'lognormal_bad_value': ('ValueError', 'Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThan(lower_bound=0.0)) of the distribution LogNormal(), but found invalid values:\ntensor([-1.])'),
    'relaxed_bernoulli_bad_probs': ('ValueError', 'Expected parameter probs (Tensor of shape (1,)) of distribution LogitRelaxedBernoulli(probs: tensor([1.5000])) to satisfy the constraint Interval(lower_bound=0.0, upper_bound=1.0), but found invalid values:\ntensor([1.5000])'),
    'onehot_bad_value': ('ValueError', 'Expected value argument (Tensor of shape (2,)) to be within the support (OneHot()) of the distribution OneHotCategorical(), but found invalid values:\ntensor([1., 1.])'),
    'broadcast_all_bad_type': ('ValueError', 'Input arguments must all be instances of Number, nbgrad.Tensor or objects implementing __torch_function__.'),
    'set_default_validate_args_not_bool': ('ValueError', ''),
    'expand_bad_shape': ('RuntimeError', 'The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 1.  Target sizes: [3, 3].  Tensor sizes: [2]'),
    'repr_normal_numbers': ('ok', 'Normal(loc: 0.0, scale: 1.0)'),
    'repr_normal_one_element': ('ok', 'Normal(loc: tensor([0.5000]), scale: tensor([2.]))'),
    'repr_normal_batched': ('ok', 'Normal(loc: nbgrad.Size([2, 3]), scale: nbgrad.Size([2, 3]))'),
    'repr_bernoulli_logits': ('ok', 'Bernoulli(logits: tensor([0.3000]))'),
    'repr_bernoulli_logits_after_probs': ('ok', 'Bernoulli(probs: tensor([0.5744]), logits: tensor([0.3000]))'),
    'repr_categorical': ('ok', 'Categorical(probs: nbgrad.Size([2]))'),
    'repr_independent': ('ok', 'Independent(Normal(loc: nbgrad.Size([2]), scale: nbgrad.Size([2])), 1)'),
    'repr_mixture': ('ok', 'MixtureSameFamily(\n  Categorical(probs: nbgrad.Size([2]), logits: nbgrad.Size([2])),\n  Normal(loc: nbgrad.Size([2]), scale: nbgrad.Size([2])))'),
    'repr_mvn': ('ok', 'MultivariateNormal(loc: nbgrad.Size([2]), covariance_matrix: nbgrad.Size([2, 2]))'),
    'repr_uniform': ('ok', 'Uniform(low: 0.0, high: 1.0)'),
    'repr_gamma': ('ok', 'Gamma(concentration: 2.0, rate: 3.0)'),
    'repr_beta': ('ok', 'Beta()'),
    'repr_lognormal': ('ok', 'LogNormal()'),
    'repr_chi2': ('ok', 'Chi2()'),
    'repr_binomial': ('ok', 'Binomial(total_count: 10.0, probs: 0.30000001192092896)'),
    'repr_student_t': ('ok', 'StudentT(df: 3.0, loc: 0.0, scale: 1.0)'),
    'repr_lowrank': ('ok', 'LowRankMultivariateNormal(loc: nbgrad.Size([2]), cov_factor: nbgrad.Size([2, 1]), cov_diag: nbgrad.Size([2]))'),
    'repr_dirichlet': ('ok', 'Dirichlet(concentration: nbgrad.Size([2]))'),
    'support_uniform': ('ok', 'Interval(lower_bound=tensor([0., 1.]), upper_bound=tensor([2., 2.]))'),
    'support_binomial': ('ok', 'IntegerInterval(lower_bound=0, upper_bound=tensor([3., 4.]))'),
    'support_categorical': ('ok', 'IntegerInterval(lower_bound=0, upper_bound=1)'),
    'support_independent': ('ok', 'IndependentConstraint(Real(), 2)'),
    'support_mixture': ('ok', 'MixtureSameFamilyConstraint(Real())'),
    'support_lognormal': ('ok', 'GreaterThan(lower_bound=0.0)'),
    'support_relaxed_categorical': ('ok', 'Simplex()'),
    'arg_constraints_normal': ('ok', "{'loc': Real(), 'scale': GreaterThan(lower_bound=0.0)}"),
    'arg_constraints_mvn': ('ok', "{'loc': IndependentConstraint(Real(), 1), 'covariance_matrix': PositiveDefinite(), 'precision_matrix': PositiveDefinite(), 'scale_tril': LowerCholesky()}"),
    'arg_constraints_uniform': ('ok', "{'low': LessThan(upper_bound=1.0), 'high': GreaterThan(lower_bound=0.0)}"),
    'constraint_independent': ('ok', 'IndependentConstraint(GreaterThan(lower_bound=0.0), 1)'),
    'constraint_integer_interval': ('ok', 'IntegerInterval(lower_bound=0, upper_bound=3)'),
    'constraint_half_open': ('ok', 'HalfOpenInterval(lower_bound=-1.0, upper_bound=2)'),
    'constraint_reprs': ('ok', '[Real(), GreaterThan(lower_bound=0.0), GreaterThanEq(lower_bound=0.0), Interval(lower_bound=0.0, upper_bound=1.0), Simplex(), Boolean(), OneHot(), LowerCholesky(), LowerTriangular(), PositiveDefinite(), PositiveSemidefinite(), IndependentConstraint(Real(), 1), IntegerGreaterThan(lower_bound=0), IntegerGreaterThan(lower_bound=1), Square(), Symmetric(), CorrCholesky(), GreaterThanEq(lower_bound=2), LessThan(upper_bound=3.0), Dependent(), Interval(lower_bound=0, upper_bound=1)]'),
    'check_simplex': ('ok', 'tensor([ True, False, False])'),
    'check_positive_definite': ('ok', 'tensor([ True, False])'),
    'check_positive_definite_asymmetric': ('ok', 'tensor(False)'),
    'check_lower_cholesky': ('ok', 'tensor([ True, False, False])'),
    'check_lower_triangular': ('ok', 'tensor([ True, False])'),
    'check_positive_semidefinite': ('ok', 'tensor([ True, False])'),
    'check_dependent': ('ValueError', 'Cannot determine validity of dependent constraint'),
    'check_real_vector': ('ok', 'tensor([False,  True])'),
    'check_independent_too_few_dims': ('ValueError', 'Expected value.dim() >= 2 but got 1'),
    'check_one_hot': ('ok', 'tensor([ True, False, False])'),
    'check_boolean': ('ok', 'tensor([ True,  True, False])'),
    'check_corr_cholesky': ('ok', 'tensor([ True, False])'),
    'check_integer_interval': ('ok', 'tensor([False,  True, False,  True, False])'),
    'check_nonnegative_integer': ('ok', 'tensor([False,  True,  True, False])'),
    'check_interval': ('ok', 'tensor([False,  True,  True, False])'),
    'check_half_open_interval': ('ok', 'tensor([ True, False])'),
    'check_square': ('ok', 'tensor([False, False])'),
    'check_symmetric': ('ok', 'tensor([ True, False])'),
    'check_multinomial': ('ok', 'tensor([ True, False, False])'),
    'check_cat': ('ok', 'tensor([False,  True,  True])'),
    'check_stack': ('ok', 'tensor([[False,  True],\n        [ True,  True]])'),
    'dependent_event_dim': ('NotImplementedError', '.event_dim cannot be determined statically'),
    'dependent_property_on_class': ('ok', 'DependentProperty()'),
    'is_dependent': ('ok', '[True, False]'),
    'student_t_mean': ('ok', 'tensor([nan, 0., 0.])'),
    'student_t_variance': ('ok', 'tensor([nan, inf, 3.])'),
    'dirichlet_mode': ('ok', 'tensor([[1.0000, 0.0000, 0.0000],\n        [0.1667, 0.3333, 0.5000]])'),
    'beta_mode': ('ok', 'tensor([1.0000, 0.3333])'),
    'bernoulli_mode': ('ok', 'tensor([nan, 0., 1.])'),
    'binomial_mode': ('ok', 'tensor([5., 1.])'),
    'onehot_mode': ('ok', 'tensor([[0., 1., 0.],\n        [1., 0., 0.]])'),
    'categorical_mode': ('ok', 'tensor([1, 0])'),
    'cauchy_mean_variance': ('ok', '(tensor([nan, nan]), tensor([inf, inf]))'),
    'categorical_mean': ('ok', 'tensor([nan])'),
    'gamma_mode': ('ok', 'tensor([0., 1.])'),
    'mixture_mean_variance': ('ok', '(tensor(3.5000), tensor(5.7250))'),
    'binomial_entropy_inhomogeneous': ('NotImplementedError', 'Inhomogeneous total count not supported by `entropy`.'),
    'poisson_entropy': ('NotImplementedError', ''),
    'enum_bernoulli': ('ok', 'tensor([[[0., 0.]],\n\n        [[1., 1.]]])'),
    'enum_bernoulli_no_expand': ('ok', 'tensor([[[0.]],\n\n        [[1.]]])'),
    'enum_categorical': ('ok', 'tensor([[0, 0],\n        [1, 1]])'),
    'enum_onehot': ('ok', 'tensor([[[1., 0.]],\n\n        [[0., 1.]]])'),
    'enum_binomial': ('ok', 'tensor([[0., 0.],\n        [1., 1.],\n        [2., 2.]])'),
    'enum_independent': ('NotImplementedError', 'Enumeration over cartesian product is not implemented'),
    'has_enumerate_support': ('ok', '[True, False, False, True]'),
    'has_rsample': ('ok', '[True, False, True, True, False, False, True, True, True]'),
    'perplexity': ('ok', 'tensor(4.)'),
    'normal_cdf_icdf_float32': ('ok', '(tensor([0.6915]), tensor([2.5631]))'),
    'base_mode_not_implemented': ('NotImplementedError', "<class 'nbgrad.distributions.distribution.Distribution'> does not implement mode"),
    'probs_to_logits': ('ok', 'tensor([-1.5942e+01, -1.3863e+00, -1.1921e-07])'),
    'probs_to_logits_binary': ('ok', 'tensor([-15.9424,  -1.0986,  15.9424])'),
    'logits_to_probs': ('ok', 'tensor([0.0900, 0.2447, 0.6652])'),
    'logits_to_probs_binary': ('ok', 'tensor([0.5000, 0.7311, 0.8808])'),
    'clamp_probs': ('ok', 'tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])'),
    'broadcast_all': ('ok', '(tensor([[1., 2.],\n        [1., 2.]]), tensor([[3., 3.],\n        [3., 3.]]), tensor([[1., 1.],\n        [2., 2.]], dtype=nbgrad.float64))'),
    'broadcast_all_numbers': ('ok', '(tensor(1.), tensor(2.5000))'),
    'tril_matrix_to_vec': ('ok', 'tensor([4., 7., 8.])'),
    'vec_to_tril_matrix': ('ok', 'tensor([[1., 0.],\n        [2., 3.]])'),
    'vec_to_tril_matrix_bad': ('ValueError', 'The size of last dimension is 2 which cannot be expressed as the lower triangular part of a square D x D matrix.'),
    'tril_matrix_to_vec_bad_diag': ('ValueError', 'diag (2) provided is outside [-2, 1].'),
}


@pytest.fixture
def _restore_validation():
    before = D.Distribution._validate_args
    yield
    D.Distribution.set_default_validate_args(before)


def test_validation_is_on_by_default_and_can_be_switched(_restore_validation):
    assert D.Distribution._validate_args is True
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    # per instance
    d = D.Normal(0.0, -1.0, validate_args=False)
    assert d._validate_args is False
    assert d.log_prob(tt(float("nan"))).isnan().item()
    # globally
    D.Distribution.set_default_validate_args(False)
    d = D.Normal(tt([0.0]), tt([-1.0]))
    assert d.scale.tolist() == [-1.0]
    D.Exponential(tt([1.0])).log_prob(tt([-1.0]))   # no check of the support either
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0, validate_args=True)
    D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Exponential(tt([1.0])).log_prob(tt([-1.0]))


def test_expand_makes_views_without_revalidating():
    loc = tt([0.0, 1.0])
    d = D.Normal(loc, tt([1.0, 2.0]))
    e = d.expand([3, 2])
    assert tuple(e.loc.shape) == (3, 2) and e.loc.stride() == (0, 1)
    assert e.loc.data_ptr() == loc.data_ptr()
    assert type(e) is D.Normal and e is not d
    assert e._validate_args is True
    # invalid parameters expanded without validation, then caught on use
    bad = D.Normal(0.0, -1.0, validate_args=False)
    assert tuple(bad.expand([2]).batch_shape) == (2,)


def test_subclass_with_custom_init_must_define_expand():
    class MyNormal(D.Normal):
        def __init__(self, scale):
            super().__init__(0.0, scale)

    with pytest.raises(NotImplementedError, match="Subclass MyNormal of Normal that defines a custom __init__ method "
                                                  "must also define a custom .expand\\(\\) method."):
        MyNormal(1.0).expand([2])


def test_lazy_probs_and_logits():
    logits = tt([0.3, -2.0], requires_grad=True)
    d = D.Bernoulli(logits=logits)
    assert "probs" not in vars(d)
    with nbgrad.no_grad():
        p = d.probs      # built under grad mode even inside no_grad: it keeps its graph
    assert p.requires_grad and "probs" in vars(d)
    g, = nbgrad.autograd.grad(p.sum(), [logits])
    s = 1 / (1 + np.exp(-np.array([0.3, -2.0])))
    np.testing.assert_allclose(g.tolist(), s * (1 - s), rtol=1e-6)
    assert d.probs is p
    c = D.Categorical(probs=tt([1.0, 3.0]))
    np.testing.assert_allclose(c.probs.tolist(), [0.25, 0.75])   # normalized
    np.testing.assert_allclose(c.logits.tolist(), np.log([0.25, 0.75]), rtol=1e-6)
    c2 = D.Categorical(logits=tt([1.0, 3.0]))
    np.testing.assert_allclose(c2.logits.exp().sum().item(), 1.0, rtol=1e-6)   # normalized log-probabilities
    assert isinstance(D.Bernoulli.probs, property)


def test_missing_arg_constraints_warns():
    class Bare(D.Distribution):
        pass

    with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        Bare()
    b = Bare(validate_args=False)
    assert tuple(b.batch_shape) == () and tuple(b.event_shape) == ()
    assert tuple(b._extended_shape((2, 3))) == (2, 3)
