"""nbgrad.distributions: PyTorch's torch.distributions over nbgrad tensors.

Parameterizable probability distributions and sampling functions with PyTorch's API and
semantics: batch/event shapes, broadcasting of parameters, expand, sample/rsample (rsample is
differentiable with respect to the parameters), log_prob/cdf/icdf/entropy, the moments,
validation (on by default, with PyTorch's ValueError messages), enumerate_support, the
KL-divergence registry and the transforms.

Draws come from nbgrad's own generator, so sampled values differ from PyTorch's; their laws
are the same. Every family of torch.distributions is here, with constraint_registry
(biject_to / transform_to).
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .geometric import Geometric
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .log_normal import LogNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform, CorrCholeskyTransform,
                         CumulativeDistributionTransform, ExpTransform, IndependentTransform,
                         LowerCholeskyTransform, PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
                         SigmoidTransform, SoftmaxTransform, SoftplusTransform, StackTransform,
                         StickBreakingTransform, TanhTransform, Transform, identity_transform)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
    "ExponentialFamily", "Exponential", "Gamma", "Geometric", "Gumbel",
    "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal",
    "MixtureSameFamily", "MultivariateNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "StudentT", "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl",
    "transforms",
    "ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "HalfCauchy", "HalfNormal", "InverseGamma",
    "Kumaraswamy", "LKJCholesky", "LogisticNormal", "Multinomial", "NegativeBinomial", "Pareto", "VonMises",
    "Weibull", "Wishart", "biject_to", "transform_to",
    # the transforms, as torch.distributions re-exports them
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "IndependentTransform",
    "LowerCholeskyTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "SoftplusTransform", "StickBreakingTransform", "TanhTransform", "Transform",
    "identity_transform", "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
    "PositiveDefiniteTransform", "StackTransform",
]
