"""nbgrad.distributions: PyTorch's torch.distributions over nbgrad tensors.

Parameterizable probability distributions and sampling functions with PyTorch's API and
semantics: batch/event shapes, broadcasting of parameters, expand, sample/rsample (rsample is
differentiable with respect to the parameters), log_prob/cdf/icdf/entropy, the moments,
validation (on by default, with PyTorch's ValueError messages), enumerate_support, the
KL-divergence registry and the transforms.

Draws come from nbgrad's own generator, so sampled values differ from PyTorch's; their laws
are the same. Families PyTorch has and this package lacks:
ContinuousBernoulli, FisherSnedecor, GeneralizedPareto, HalfCauchy, HalfNormal, InverseGamma,
Kumaraswamy, LKJCholesky, LogisticNormal, Multinomial, NegativeBinomial, Pareto, VonMises,
Weibull, Wishart; also constraint_registry (biject_to / transform_to).
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gamma import Gamma
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform,
                         IndependentTransform, LowerCholeskyTransform, PowerTransform, ReshapeTransform,
                         SigmoidTransform, SoftmaxTransform, SoftplusTransform, StickBreakingTransform,
                         TanhTransform, Transform, identity_transform)
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
    "ExponentialFamily", "Exponential", "Gamma", "Geometric", "Gumbel",
    "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal",
    "MixtureSameFamily", "MultivariateNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "StudentT", "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl",
    "transforms",
    # the transforms, as torch.distributions re-exports them
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "IndependentTransform",
    "LowerCholeskyTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "SoftplusTransform", "StickBreakingTransform", "TanhTransform", "Transform",
    "identity_transform",
]
