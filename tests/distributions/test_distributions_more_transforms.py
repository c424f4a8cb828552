"""torch.distributions' remaining transforms and its constraint registry: CatTransform,
StackTransform, CumulativeDistributionTransform, CorrCholeskyTransform,
PositiveDefiniteTransform, and biject_to / transform_to for every constraint PyTorch registers:
the transform each gives, round trips x -> y -> x, y inside the constraint, the values of y and
log_abs_det_jacobian and their gradients against PyTorch 2.13's (literals), log|det J| against
autograd's Jacobians, and the errors (types and messages).

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math

import numpy as np
import pytest

import nbgrad

D = nbgrad.distributions
C = nbgrad.distributions.constraints
inf = math.inf


def t(x, grad=False):
    return nbgrad.tensor(x, dtype=nbgrad.float64, requires_grad=grad)


_X1 = [0.3, -1.2, 2.0, 0.1]
_X23 = [[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]]

# name -> (registry name, constraint factory, unconstrained input)
CASES = {
    "real": ("biject_to", lambda: C.real, _X1),
    "positive": ("biject_to", lambda: C.positive, _X1),
    "nonnegative": ("biject_to", lambda: C.nonnegative, _X1),
    "greater_than": ("biject_to", lambda: C.greater_than(t([1.0, -2.0, 0.0, 3.0])), _X1),
    "greater_than_eq": ("biject_to", lambda: C.greater_than_eq(2.0), _X1),
    "less_than": ("biject_to", lambda: C.less_than(t([3.0, 0.0, 1.0, -1.0])), _X1),
    "unit_interval": ("biject_to", lambda: C.unit_interval, _X1),
    "interval_numbers": ("biject_to", lambda: C.interval(-1.0, 3.0), _X1),
    "interval_tensors": ("biject_to", lambda: C.interval(t([-1.0, 0.0, 0.0, 2.0]), t([2.0, 5.0, 1.0, 2.5])), _X1),
    "half_open_interval": ("biject_to", lambda: C.half_open_interval(-1.0, 3.0), _X1),
    "simplex": ("biject_to", lambda: C.simplex, _X23),
    "independent_positive": ("biject_to", lambda: C.independent(C.positive, 1), _X23),
    "real_vector": ("biject_to", lambda: C.real_vector, _X23),
    "corr_cholesky": ("biject_to", lambda: C.corr_cholesky, _X23),
    "corr_cholesky_2x2": ("biject_to", lambda: C.corr_cholesky, [[0.4], [-2.5]]),
    "corr_cholesky_4x4": ("biject_to", lambda: C.corr_cholesky, [0.3, -1.2, 0.7, 2.0, 0.1, -0.4]),
    "cat": ("biject_to", lambda: C.cat([C.positive, C.real, C.unit_interval], 0, [2, 1, 1]), _X1),
    "cat_dim1": ("biject_to", lambda: C.cat([C.positive, C.interval(-2.0, 2.0)], 1, [1, 2]), _X23),
    "stack": ("biject_to", lambda: C.stack([C.positive, C.real, C.less_than(1.0)], -1), _X23),
    "stack_dim0": ("biject_to", lambda: C.stack([C.greater_than(-1.0), C.unit_interval], 0), _X23),
    "to_real": ("transform_to", lambda: C.real, _X1),
    "to_positive": ("transform_to", lambda: C.positive, _X1),
    "to_interval": ("transform_to", lambda: C.interval(-1.0, 3.0), _X1),
    "to_simplex": ("transform_to", lambda: C.simplex, _X23),
    "to_independent": ("transform_to", lambda: C.independent(C.greater_than(1.0), 1), _X23),
    "to_lower_cholesky": ("transform_to", lambda: C.lower_cholesky, [[0.3, -1.2], [0.7, 2.0]]),
    "to_positive_definite": ("transform_to", lambda: C.positive_definite,
                             [[[0.3, -1.2], [0.7, 2.0]], [[-0.5, 0.0], [1.5, 0.1]]]),
    "to_positive_semidefinite": ("transform_to", lambda: C.positive_semidefinite, [[0.3, -1.2], [0.7, 2.0]]),
    "to_corr_cholesky": ("transform_to", lambda: C.corr_cholesky, _X23),
    "to_cat": ("transform_to", lambda: C.cat([C.less_than(0.5), C.interval(0.0, 2.0)], -1, [3, 1]), _X1),
    "to_stack": ("transform_to", lambda: C.stack([C.positive, C.unit_interval], 0), [[0.3, -1.2], [0.7, 2.0]]),
}


def _names(tr):
    if type(tr).__name__ == "ComposeTransform":
        return ["ComposeTransform", [_names(p) for p in tr.parts]]
    if type(tr).__name__ in ("CatTransform", "StackTransform"):
        return [type(tr).__name__, [_names(p) for p in tr.transforms]]
    if type(tr).__name__ == "IndependentTransform":
        return ["IndependentTransform", _names(tr.base_transform), tr.reinterpreted_batch_ndims]
    return type(tr).__name__


def _run(name, grad=False):
    registry, factory, x0 = CASES[name]
    c = factory()
    tr = getattr(D.constraint_registry, registry)(c)
    x = t(x0, grad=grad)
    y = tr(x)
    out = {"transform": _names(tr), "y": y, "x_back": tr.inv(y), "in_support": bool(c.check(y).all()),
           "bijective": bool(tr.bijective)}
    try:
        out["ladj"] = tr.log_abs_det_jacobian(x, y)
    except NotImplementedError:
        out["ladj"] = "NotImplementedError"
    return x, out


def _record(name):
    x, out = _run(name)
    return {k: (v.detach().tolist() if isinstance(v, nbgrad.Tensor) else v) for k, v in out.items()}


def _gradient(name):
    x, out = _run(name, grad=True)
    total = out["y"].sum()
    if not isinstance(out["ladj"], str):
        total = total + out["ladj"].sum()
    if not total.requires_grad:   # the identity transform
        return None
    return nbgrad.autograd.grad(total, [x])[0].tolist()


def _close(a, e):
    a = np.asarray(a, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    assert a.shape == e.shape
    np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_registry_matches_pytorch(name):
    got = _record(name)
    ref = REF[name]
    assert set(got) == set(ref)
    for k, e in ref.items():
        if k in ("transform", "in_support", "bijective") or isinstance(e, str):
            assert got[k] == e, (k, got[k])
        else:
            _close(got[k], e)
    assert got["in_support"]
    if got["bijective"]:
        _close(got["x_back"], CASES[name][2])


@pytest.mark.parametrize("name", sorted(CASES))
def test_registry_gradients_match_pytorch(name):
    g = _gradient(name)
    e = GRAD_REF[name]
    assert (g is None) == (e is None)
    if e is not None:
        _close(g, e)


@pytest.mark.parametrize("name", ["positive", "greater_than", "less_than", "unit_interval", "interval_tensors",
                                  "cat", "stack", "stack_dim0", "cat_dim1"])
def test_elementwise_log_abs_det_jacobian_is_log_dy_dx(name):
    # elementwise transforms: log|det J| is log|dy_i/dx_i| element by element
    x, out = _run(name, grad=True)
    dydx, = nbgrad.autograd.grad(out["y"].sum(), [x])
    _close(out["ladj"].tolist(), np.log(np.abs(np.asarray(dydx.tolist()))))


@pytest.mark.parametrize("n,dim", [(1, 2), (3, 3), (6, 4)])
def test_corr_cholesky_log_abs_det_jacobian_is_autograds(n, dim):
    # the log|det| of x -> the strict lower triangle of y, from autograd's full Jacobian
    x0 = [0.3, -1.2, 0.7, 2.0, 0.1, -0.4][:n]
    tr = D.CorrCholeskyTransform()

    def f(x):
        y = tr(x)
        rows, cols = np.tril_indices(dim, -1)
        return y[rows.tolist(), cols.tolist()]

    jac = nbgrad.autograd.functional.jacobian(f, t(x0))
    sign, logdet = np.linalg.slogdet(np.asarray(jac.tolist()))
    x = t(x0)
    assert tr.log_abs_det_jacobian(x, tr(x)).item() == pytest.approx(logdet, rel=1e-10, abs=1e-12)
    # rows of unit norm, positive diagonal
    y = np.asarray(tr(x).tolist())
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), 1.0, rtol=1e-14)
    assert (np.diag(y) > 0).all()


def test_corr_cholesky_shapes_and_errors():
    tr = D.CorrCholeskyTransform()
    assert tuple(tr.forward_shape((5, 6))) == (5, 4, 4)
    assert tuple(tr.inverse_shape((5, 4, 4))) == (5, 6)
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        tr.forward_shape((5,))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        tr.forward_shape(())
    with pytest.raises(ValueError, match="Input is not square"):
        tr.inverse_shape((3, 4))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        tr.inverse_shape((3,))
    # PyTorch defines no __eq__ for it: equality is identity (PositiveDefiniteTransform's is by type)
    assert tr == tr and tr != D.CorrCholeskyTransform()
    assert tr.domain.event_dim == 1 and tr.codomain.event_dim == 2


def test_positive_definite_transform():
    tr = D.PositiveDefiniteTransform()
    x = t([[0.3, -1.2], [0.7, 2.0]])
    y = tr(x)
    _close(y.tolist(), PD_REF)
    # not bijective: back to the lower-triangular representative
    _close(tr.inv(y).tolist(), x.tril().tolist())
    assert tr == D.PositiveDefiniteTransform()
    assert not tr.bijective
    with pytest.raises(NotImplementedError):
        tr.log_abs_det_jacobian(x, y)


def test_cat_transform_errors_and_log_det_layouts():
    tr = D.CatTransform([D.ExpTransform(), D.AffineTransform(1.0, 3.0)], dim=0, lengths=[2, 2])
    with pytest.raises(AssertionError, match=r"x.size\(0\) = 3 must equal length 4"):
        tr(t([1.0, 2.0, 3.0]))
    with pytest.raises(AssertionError, match=r"y.size\(0\) = 3 must equal length 4"):
        tr.inv(t([1.0, 2.0, 3.0]))
    with pytest.raises(AssertionError, match="dim 0 out of range for tensor with 0 dimensions"):
        tr(t(1.0))
    with pytest.raises(AssertionError, match="dim 0 out of range for x with 0 dimensions"):
        tr.log_abs_det_jacobian(t(1.0), t(1.0))
    with pytest.raises(AssertionError, match=r"lengths \(1\) must match transforms \(2\)"):
        D.CatTransform([D.ExpTransform(), D.ExpTransform()], lengths=[2])
    with pytest.raises(AssertionError, match="All elements of tseq must be Transform instances"):
        D.CatTransform([D.ExpTransform(), 3])
    assert tr.length == 4 and tr.event_dim == 0 and tr.bijective
    # a batch dim: the per-slice log-dets are joined
    x = t([0.5, -1.0, 2.0, 0.0])
    _close(tr.log_abs_det_jacobian(x, tr(x)).tolist(), [0.5, -1.0, math.log(3.0), math.log(3.0)])
    # an event dim (the slices are vectors): the log-dets are summed
    sb = D.CatTransform([D.IndependentTransform(D.SigmoidTransform(), 1), D.IndependentTransform(D.ExpTransform(), 1)],
                        dim=-1, lengths=[2, 2])
    assert sb.event_dim == 1
    xv = t([[0.5, -1.0, 2.0, 0.0]])
    ld = sb.log_abs_det_jacobian(xv, sb(xv))
    assert tuple(ld.shape) == (1,)
    sig = D.SigmoidTransform()
    head = xv[:, :2]
    _close(ld.tolist(), (sig.log_abs_det_jacobian(head, sig(head)).sum(-1) + 2.0).tolist())
    assert tuple(sb(xv).shape) == (1, 4)
    assert sb.with_cache(1)._cache_size == 1 and all(p._cache_size == 1 for p in sb.with_cache(1).transforms)


def test_stack_transform_errors():
    tr = D.StackTransform([D.ExpTransform(), D.SigmoidTransform()], dim=1)
    with pytest.raises(AssertionError, match=r"x.size\(1\) = 3 must equal len\(transforms\) 2"):
        tr(nbgrad.zeros(2, 3, dtype=nbgrad.float64))
    with pytest.raises(AssertionError, match="dim 1 out of range for tensor with 1 dimensions"):
        tr.inv(nbgrad.zeros(2, dtype=nbgrad.float64))
    with pytest.raises(AssertionError, match=r"y.size\(1\) = 1 must equal len\(transforms\) 2"):
        tr.log_abs_det_jacobian(nbgrad.zeros(2, 2, dtype=nbgrad.float64), nbgrad.zeros(2, 1, dtype=nbgrad.float64))
    assert tr.bijective and not D.StackTransform([D.AbsTransform()]).bijective
    assert tr.domain.cseq == [C.real, C.real] and tr.domain.dim == 1
    assert tr.codomain.cseq[0] is C.positive and tr.codomain.cseq[1] is C.unit_interval
    x = t([[0.5, -1.0], [2.0, 0.0]])
    _close(tr(x).tolist(), [[math.exp(0.5), 1 / (1 + math.exp(1.0))], [math.exp(2.0), 0.5]])


def test_cumulative_distribution_transform_gaussian_copula():
    tr = D.CumulativeDistributionTransform(D.Normal(t(0.0), t(1.0)))
    x = t([-1.0, 0.2, 1.5])
    y = tr(x)
    _close(y.tolist(), CDF_REF["y"])
    _close(tr.inv(y).tolist(), x.tolist())
    _close(tr.log_abs_det_jacobian(x, y).tolist(), CDF_REF["ladj"])
    assert tr.sign == 1 and tr.bijective and tr.domain is C.real
    assert repr(tr.codomain) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert tr.with_cache(1)._cache_size == 1 and tr.with_cache(1).distribution is tr.distribution
    base = D.MultivariateNormal(t([0.0, 0.0]), covariance_matrix=t([[1.0, 0.5], [0.5, 1.0]]))
    copula = D.TransformedDistribution(base, [tr])
    u = t([[0.3, 0.6], [0.9, 0.2]])
    _close(copula.log_prob(u).tolist(), CDF_REF["copula_log_prob"])
    assert tuple(copula.event_shape) == (2,)


def test_registry_errors_and_custom_registration():
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        D.biject_to(C.lower_cholesky)
    with pytest.raises(NotImplementedError, match="Cannot transform _PositiveDefinite constraints"):
        D.biject_to(C.positive_definite)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        D.transform_to(C.boolean)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance, "
                                        "but got 3"):
        D.transform_to.register(3, lambda c: None)
    registry = D.constraint_registry.ConstraintRegistry()

    class MyConstraint(C.Constraint):
        pass

    @registry.register(MyConstraint())
    def _factory(constraint):
        return D.ExpTransform()

    assert isinstance(registry(MyConstraint()), D.ExpTransform)
    with pytest.raises(NotImplementedError):
        D.biject_to(MyConstraint())


def test_biject_to_parameters_for_unconstrained_optimization():
    # the use PyTorch documents: optimize an unconstrained tensor, read the constrained value
    c = D.Normal.arg_constraints["scale"]
    u = t([-0.5, 0.5], grad=True)
    scale = D.transform_to(c)(u)
    loss = -D.Normal(t([0.0, 0.0]), scale).log_prob(t([1.0, 2.0])).sum()
    g, = nbgrad.autograd.grad(loss, [u])
    s = np.exp([-0.5, 0.5])
    # d/du of log(s) + x^2 / (2 s^2) with s = e^u: 1 - x^2 / s^2
    _close(g.tolist(), 1 - np.array([1.0, 4.0]) / s ** 2)


REF = {
    'real': {'transform': ['ComposeTransform', []], 'y': [0.3, -1.2, 2.0, 0.1], 'x_back': [0.3, -1.2, 2.0, 0.1], 'in_support': True, 'bijective': True, 'ladj': [0.0, 0.0, 0.0, 0.0]},
    'positive': {'transform': ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'y': [1.3498588075760032, 0.30119421191220214, 7.38905609893065, 1.1051709180756477], 'x_back': [0.30000000000000004, -1.2, 2.0, 0.10000000000000007], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, 0.1]},
    'nonnegative': {'transform': ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'y': [1.3498588075760032, 0.30119421191220214, 7.38905609893065, 1.1051709180756477], 'x_back': [0.30000000000000004, -1.2, 2.0, 0.10000000000000007], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, 0.1]},
    'greater_than': {'transform': ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'y': [2.349858807576003, -1.6988057880877978, 7.38905609893065, 4.105170918075648], 'x_back': [0.30000000000000004, -1.1999999999999997, 2.0, 0.10000000000000007], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, 0.1]},
    'greater_than_eq': {'transform': ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'y': [3.349858807576003, 2.301194211912202, 9.38905609893065, 3.1051709180756477], 'x_back': [0.30000000000000004, -1.1999999999999997, 2.0, 0.10000000000000007], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, 0.1]},
    'less_than': {'transform': ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'y': [1.6501411924239968, -0.30119421191220214, -6.38905609893065, -2.1051709180756477], 'x_back': [0.30000000000000004, -1.2, 2.0, 0.10000000000000007], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, 0.1]},
    'unit_interval': {'transform': 'SigmoidTransform', 'y': [0.574442516811659, 0.23147521650098238, 0.8807970779778823, 0.52497918747894], 'x_back': [0.30000000000000016, -1.2, 1.9999999999999987, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [-1.4087104889370543, -1.7265649346760623, -2.2538560220859454, -1.3887933201471419]},
    'interval_numbers': {'transform': ['ComposeTransform', ['SigmoidTransform', 'AffineTransform']], 'y': [1.2977700672466361, -0.07409913399607049, 2.5231883119115293, 1.09991674991576], 'x_back': [0.30000000000000016, -1.2, 1.9999999999999987, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [-0.022416127817163733, -0.34027057355617174, -0.8675616609660548, -0.0024989590272512796]},
    'interval_tensors': {'transform': ['ComposeTransform', ['SigmoidTransform', 'AffineTransform']], 'y': [0.723327550434977, 1.157376082504912, 0.8807970779778823, 2.26248959373947], 'x_back': [0.30000000000000016, -1.1999999999999997, 1.9999999999999987, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [-0.3100982002689445, -0.11712702224196203, -2.2538560220859454, -2.0819405007070872]},
    'half_open_interval': {'transform': ['ComposeTransform', ['SigmoidTransform', 'AffineTransform']], 'y': [1.2977700672466361, -0.07409913399607049, 2.5231883119115293, 1.09991674991576], 'x_back': [0.30000000000000016, -1.2, 1.9999999999999987, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [-0.022416127817163733, -0.34027057355617174, -0.8675616609660548, -0.0024989590272512796]},
    'simplex': {'transform': 'StickBreakingTransform', 'y': [[0.3103224420123704, 0.09026916871088567, 0.4005173562497364, 0.1988910330270075], [0.7112345942275939, 0.10277538242685623, 0.07464009146454229, 0.11134993188100756]], 'x_back': [[0.30000000000000004, -1.1999999999999997, 0.7000000000000002], [2.0000000000000004, 0.1000000000000002, -0.39999999999999947]], 'in_support': True, 'bijective': True, 'ladj': [-6.105099049096641, -7.406117373176938]},
    'independent_positive': {'transform': ['IndependentTransform', ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 1], 'y': [[1.3498588075760032, 0.30119421191220214, 2.0137527074704766], [7.38905609893065, 1.1051709180756477, 0.6703200460356393]], 'x_back': [[0.30000000000000004, -1.2, 0.7000000000000001], [2.0, 0.10000000000000007, -0.39999999999999997]], 'in_support': True, 'bijective': True, 'ladj': [-0.19999999999999996, 1.7000000000000002]},
    'real_vector': {'transform': ['IndependentTransform', ['ComposeTransform', []], 1], 'y': [[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]], 'x_back': [[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]], 'in_support': True, 'bijective': True, 'ladj': [0.0, 0.0]},
    'corr_cholesky': {'transform': 'CorrCholeskyTransform', 'y': [[[1.0, 0.0, 0.0], [0.2913126124515909, 0.9566279119002483, 0.0], [-0.8336546070121552, 0.3337839553937055, 0.4400093945919131]], [[1.0, 0.0, 0.0], [0.9640275800758169, 0.2658022288340796, 0.0], [0.09966799462495582, -0.378057100987195, 0.92040160758258]]], 'x_back': [[0.3, -1.1999999999999997, 0.7000000000000001], [2.0000000000000004, 0.1, -0.4]], 'in_support': True, 'bijective': True, 'ladj': [-2.324288913350905, -2.820887531956333]},
    'corr_cholesky_2x2': {'transform': 'CorrCholeskyTransform', 'y': [[[1.0, 0.0], [0.3799489622552249, 0.9250074519057551]], [[1.0, 0.0], [-0.9866142981514303, 0.16307123192997752]]], 'x_back': [[0.4], [-2.500000000000001]], 'in_support': True, 'bijective': True, 'ladj': [-0.15590697077566484, -3.6271363358583457]},
    'corr_cholesky_4x4': {'transform': 'CorrCholeskyTransform', 'y': [[1.0, 0.0, 0.0, 0.0], [0.2913126124515909, 0.9566279119002483, 0.0, 0.0], [-0.8336546070121552, 0.3337839553937055, 0.4400093945919131, 0.0], [0.9640275800758169, 0.026491975114736322, -0.10048842006894716, 0.24464479871791966]], 'x_back': [0.3, -1.1999999999999997, 0.7000000000000001, 2.0000000000000004, 0.1, -0.4000000000000001], 'in_support': True, 'bijective': True, 'ladj': -7.795181940022968},
    'cat': {'transform': ['CatTransform', [['ComposeTransform', ['ExpTransform', 'AffineTransform']], ['ComposeTransform', []], 'SigmoidTransform']], 'y': [1.3498588075760032, 0.30119421191220214, 2.0, 0.52497918747894], 'x_back': [0.30000000000000004, -1.2, 2.0, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 0.0, -1.3887933201471419]},
    'cat_dim1': {'transform': ['CatTransform', [['ComposeTransform', ['ExpTransform', 'AffineTransform']], ['ComposeTransform', ['SigmoidTransform', 'AffineTransform']]]], 'y': [[1.3498588075760032, -1.0740991339960706, 0.6727510886726646], [7.38905609893065, 0.09991674991576005, -0.394750640449808]], 'x_back': [[0.30000000000000004, -1.2, 0.7000000000000003], [2.0, 0.10000000000000009, -0.4]], 'in_support': True, 'bijective': True, 'ladj': [[0.3, -0.34027057355617174, -0.12007773665102528], [2.0, -0.0024989590272512796, -0.03973614368001477]]},
    'stack': {'transform': ['StackTransform', [['ComposeTransform', ['ExpTransform', 'AffineTransform']], ['ComposeTransform', []], ['ComposeTransform', ['ExpTransform', 'AffineTransform']]]], 'y': [[1.3498588075760032, -1.2, -1.0137527074704766], [7.38905609893065, 0.1, 0.3296799539643607]], 'x_back': [[0.30000000000000004, -1.2, 0.7000000000000001], [2.0, 0.1, -0.39999999999999997]], 'in_support': True, 'bijective': True, 'ladj': [[0.3, 0.0, 0.7], [2.0, 0.0, -0.4]]},
    'stack_dim0': {'transform': ['StackTransform', [['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'SigmoidTransform']], 'y': [[0.3498588075760032, -0.6988057880877978, 1.0137527074704766], [0.8807970779778823, 0.52497918747894, 0.401312339887548]], 'x_back': [[0.30000000000000004, -1.1999999999999997, 0.7000000000000001], [1.9999999999999987, 0.10000000000000009, -0.4]], 'in_support': True, 'bijective': True, 'ladj': [[0.3, -1.2, 0.7], [-2.2538560220859454, -1.3887933201471419, -1.4260305047999053]]},
    'to_real': {'transform': ['ComposeTransform', []], 'y': [0.3, -1.2, 2.0, 0.1], 'x_back': [0.3, -1.2, 2.0, 0.1], 'in_support': True, 'bijective': True, 'ladj': [0.0, 0.0, 0.0, 0.0]},
    'to_positive': {'transform': ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'y': [1.3498588075760032, 0.30119421191220214, 7.38905609893065, 1.1051709180756477], 'x_back': [0.30000000000000004, -1.2, 2.0, 0.10000000000000007], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, 0.1]},
    'to_interval': {'transform': ['ComposeTransform', ['SigmoidTransform', 'AffineTransform']], 'y': [1.2977700672466361, -0.07409913399607049, 2.5231883119115293, 1.09991674991576], 'x_back': [0.30000000000000016, -1.2, 1.9999999999999987, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [-0.022416127817163733, -0.34027057355617174, -0.8675616609660548, -0.0024989590272512796]},
    'to_simplex': {'transform': 'SoftmaxTransform', 'y': [[0.3683302494444126, 0.0821855875460429, 0.5494841630095445], [0.80626527946249, 0.12059198457635663, 0.0731427359611533]], 'x_back': [[-0.9987753262825495, -2.4987753262825496, -0.5987753262825496], [-0.2153424597804224, -2.1153424597804222, -2.6153424597804222]], 'in_support': True, 'bijective': False, 'ladj': 'NotImplementedError'},
    'to_independent': {'transform': ['IndependentTransform', ['ComposeTransform', ['ExpTransform', 'AffineTransform']], 1], 'y': [[2.349858807576003, 1.3011942119122022, 3.0137527074704766], [8.38905609893065, 2.1051709180756477, 1.6703200460356393]], 'x_back': [[0.30000000000000004, -1.1999999999999997, 0.7000000000000001], [2.0, 0.10000000000000007, -0.39999999999999997]], 'in_support': True, 'bijective': True, 'ladj': [-0.19999999999999996, 1.7000000000000002]},
    'to_lower_cholesky': {'transform': 'LowerCholeskyTransform', 'y': [[1.3498588075760032, 0.0], [0.7, 7.38905609893065]], 'x_back': [[0.30000000000000004, 0.0], [0.7, 2.0]], 'in_support': True, 'bijective': False, 'ladj': 'NotImplementedError'},
    'to_positive_definite': {'transform': 'PositiveDefiniteTransform', 'y': [[[1.822118800390509, 0.9449011653032021], [0.9449011653032021, 55.088150033144245]], [[0.36787944117144233, 0.9097959895689501], [0.9097959895689501, 3.47140275816017]]], 'x_back': [[[0.30000000000000004, 0.0], [0.7, 2.0]], [[-0.5, 0.0], [1.5, 0.10000000000000007]]], 'in_support': True, 'bijective': False, 'ladj': 'NotImplementedError'},
    'to_positive_semidefinite': {'transform': 'PositiveDefiniteTransform', 'y': [[1.822118800390509, 0.9449011653032021], [0.9449011653032021, 55.088150033144245]], 'x_back': [[0.30000000000000004, 0.0], [0.7, 2.0]], 'in_support': True, 'bijective': False, 'ladj': 'NotImplementedError'},
    'to_corr_cholesky': {'transform': 'CorrCholeskyTransform', 'y': [[[1.0, 0.0, 0.0], [0.2913126124515909, 0.9566279119002483, 0.0], [-0.8336546070121552, 0.3337839553937055, 0.4400093945919131]], [[1.0, 0.0, 0.0], [0.9640275800758169, 0.2658022288340796, 0.0], [0.09966799462495582, -0.378057100987195, 0.92040160758258]]], 'x_back': [[0.3, -1.1999999999999997, 0.7000000000000001], [2.0000000000000004, 0.1, -0.4]], 'in_support': True, 'bijective': True, 'ladj': [-2.324288913350905, -2.820887531956333]},
    'to_cat': {'transform': ['CatTransform', [['ComposeTransform', ['ExpTransform', 'AffineTransform']], ['ComposeTransform', ['SigmoidTransform', 'AffineTransform']]]], 'y': [-0.8498588075760032, 0.19880578808779786, -6.88905609893065, 1.04995837495788], 'x_back': [0.30000000000000004, -1.2, 2.0, 0.10000000000000009], 'in_support': True, 'bijective': True, 'ladj': [0.3, -1.2, 2.0, -0.6956461395871966]},
    'to_stack': {'transform': ['StackTransform', [['ComposeTransform', ['ExpTransform', 'AffineTransform']], 'SigmoidTransform']], 'y': [[1.3498588075760032, 0.30119421191220214], [0.6681877721681662, 0.8807970779778823]], 'x_back': [[0.30000000000000004, -1.2], [0.7000000000000003, 1.9999999999999987]], 'in_support': True, 'bijective': True, 'ladj': [[0.3, -1.2], [-1.5063720977709159, -2.2538560220859454]]},
}
GRAD_REF = {
    'real': [1.0, 1.0, 1.0, 1.0],
    'positive': [2.349858807576003, 1.3011942119122022, 8.38905609893065, 2.1051709180756477],
    'nonnegative': [2.349858807576003, 1.3011942119122022, 8.38905609893065, 2.1051709180756477],
    'greater_than': [2.349858807576003, 1.3011942119122022, 8.38905609893065, 2.1051709180756477],
    'greater_than_eq': [2.349858807576003, 1.3011942119122022, 8.38905609893065, 2.1051709180756477],
    'less_than': [-0.3498588075760032, 0.6988057880877978, -6.38905609893065, -0.10517091807564771],
    'unit_interval': [0.09557327806742785, 0.714944007644841, -0.6566005705522582, 0.19941766523501195],
    'interval_numbers': [0.8289482131396655, 1.2486273295852581, -0.3416198143417384, 0.9475457858136879],
    'interval_tensors': [0.5844899014489195, 1.426521770232064, -0.6566005705522582, 0.07472964513856596],
    'half_open_interval': [0.8289482131396655, 1.2486273295852581, -0.3416198143417384, 0.9475457858136879],
    'simplex': [[-0.24128976804948193, 0.6073418614303897, -0.33637554433633216], [-1.8449383769103753, -0.06773921362166097, 0.197375320224904]],
    'independent_positive': [[2.349858807576003, 1.3011942119122022, 3.0137527074704766], [8.38905609893065, 2.1051709180756477, 1.6703200460356393]],
    'real_vector': [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
    'corr_cholesky': [[0.053833960763675526, 3.451060208334755, -1.1241051668349737], [-2.1136450147401455, 0.6370079176043493, 1.9609819059294151]],
    'corr_cholesky_2x2': [[-0.25571475985921355], [2.1607092320253054]],
    'corr_cholesky_4x4': [0.053833960763675526, 3.451060208334755, -1.1241051668349737, -3.949969214972854, -0.05020993424646672, 1.0791487237885211],
    'cat': [2.349858807576003, 1.3011942119122022, 1.0, 0.19941766523501195],
    'cat_dim1': [[2.349858807576003, 1.2486273295852581, 0.550475948836104], [8.38905609893065, 0.9475457858136879, 1.1584183031910205]],
    'stack': [[2.349858807576003, 1.0, -1.0137527074704766], [8.38905609893065, 1.0, 0.3296799539643607]],
    'stack_dim0': [[2.349858807576003, 1.3011942119122022, 3.0137527074704766], [-0.6566005705522582, 0.19941766523501195, 0.4376360659664331]],
    'to_real': [1.0, 1.0, 1.0, 1.0],
    'to_positive': [2.349858807576003, 1.3011942119122022, 8.38905609893065, 2.1051709180756477],
    'to_interval': [0.8289482131396655, 1.2486273295852581, -0.3416198143417384, 0.9475457858136879],
    'to_simplex': [[0.0, 0.0, 0.0], [2.6677168531113743e-17, -1.6605452482236223e-17, -1.0071716048877523e-17]],
    'to_independent': [[2.349858807576003, 1.3011942119122022, 3.0137527074704766], [8.38905609893065, 2.1051709180756477, 1.6703200460356393]],
    'to_lower_cholesky': [[1.3498588075760032, 0.0], [1.0, 7.38905609893065]],
    'to_positive_definite': [[[5.534039931387422, 0.0], [4.099717615152006, 109.19630006628849]], [[2.5553508614807847, 0.0], [4.213061319425266, 2.44280551632034]]],
    'to_positive_semidefinite': [[5.534039931387422, 0.0], [4.099717615152006, 109.19630006628849]],
    'to_corr_cholesky': [[0.053833960763675526, 3.451060208334755, -1.1241051668349737], [-2.1136450147401455, 0.6370079176043493, 1.9609819059294151]],
    'to_cat': [-0.3498588075760032, 0.6988057880877978, -6.38905609893065, 0.4487937054279039],
    'to_stack': [[2.349858807576003, 1.3011942119122022], [-0.11466267104322317, -0.6566005705522582]],
}
PD_REF = [[1.822118800390509, 0.9449011653032021], [0.9449011653032021, 55.088150033144245]]
CDF_REF = {'y': [0.15865525393145707, 0.579259709439103, 0.9331927987311419], 'ladj': [-1.4189385332046727, -0.9389385332046727, -2.0439385332046727], 'copula_log_prob': [-0.0012593063584094288, -0.966996422753176]}
