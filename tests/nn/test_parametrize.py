"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm,
orthogonal), and the deprecated hook forms nn.utils.weight_norm / spectral_norm.

References: NumPy (values, singular values), finite differences in float64 (gradcheck),
and PyTorch's recorded behaviour (class names, state-dict keys, grad_fn names, messages).
Modules are reached by attribute (nbgrad.nn.utils.parametrize), so the suite also runs
with NBGRAD_TESTS_AGAINST_TORCH=1.
"""
import copy
import os
import pickle
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn

P = nbgrad.nn.utils.parametrize
PP = nbgrad.nn.utils.parametrizations
gradcheck = nbgrad.autograd.gradcheck
gradgradcheck = nbgrad.autograd.gradgradcheck
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


def _t(a, requires_grad=False):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _linear(i=3, o=3, seed=0):
    m = nn.Linear(i, o).double()
    rng = np.random.default_rng(seed)
    with nbgrad.no_grad():
        m.weight.copy_(_t(rng.standard_normal((o, i))))
        m.bias.copy_(_t(rng.standard_normal(o)))
    return m


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT


class SymmetricInv(Symmetric):
    def right_inverse(self, A):
        return A.triu()


class Scale(nn.Module):
    calls = 0

    def forward(self, X):
        Scale.calls += 1
        return 2 * X

    def right_inverse(self, A):
        return A / 2


# ---------------------------------------------------------------- register / remove
def test_register_swaps_class_keeps_the_parameter_object_and_computes_on_access():
    m = _linear()
    w = m.weight
    w0 = w.detach().numpy().copy()
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m, nn.Linear) and P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert m.parametrizations.weight.original is w          # the optimizer's tensor trains on
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.triu(w0) + np.triu(w0, 1).T)
    assert type(m.weight.grad_fn).__name__ == "AddBackward0"
    # the gradient reaches the original through the parametrization
    c = np.arange(9.0).reshape(3, 3)
    (m.weight * _t(c)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.triu(c) + np.tril(c, -1).T)
    # a forward uses it too
    x = np.ones((2, 3))
    np.testing.assert_allclose(m(_t(x)).detach().numpy(),
                               x @ (np.triu(w0) + np.triu(w0, 1).T).T + m.bias.detach().numpy())


def test_repr_shows_the_parametrization_list():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
                       "  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n"
                       "      (0): Symmetric()\n    )\n  )\n)")


def test_right_inverse_at_registration_and_on_assignment_writes_the_same_object():
    m = _linear()
    w = m.weight
    w0 = w.detach().numpy().copy()
    P.register_parametrization(m, "weight", SymmetricInv())
    np.testing.assert_array_equal(w.detach().numpy(), np.triu(w0))        # right_inverse(original)
    s = np.array([[1.0, 2, 3], [2, 4, 5], [3, 5, 6]])
    v = w._version
    m.weight = _t(s)
    assert m.parametrizations.weight.original is w and w._version > v
    np.testing.assert_array_equal(w.detach().numpy(), np.triu(s))
    np.testing.assert_array_equal(m.weight.detach().numpy(), s)


def test_assignment_without_right_inverse_refuses():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    with pytest.raises(RuntimeError, match="parametrization Symmetric does not implement right_inverse."):
        m.weight = _t(np.eye(3))


def test_chained_parametrizations_apply_in_order_and_cached_computes_once():
    m = _linear()
    w0 = m.weight.detach().numpy().copy()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale())
    assert len(m.parametrizations.weight) == 2
    np.testing.assert_array_equal(m.weight.detach().numpy(), 2 * (np.triu(w0) + np.triu(w0, 1).T))
    Scale.calls = 0
    with P.cached():
        a = m.weight
        b = m.weight
    assert a is b and Scale.calls == 1
    c = m.weight
    assert c is not a and Scale.calls == 2


def test_buffers_can_be_parametrized():
    m = nn.Module()
    m.register_buffer("b", _t(np.arange(4.0)))
    P.register_parametrization(m, "b", Scale())
    assert list(m.state_dict()) == ["parametrizations.b.original"]
    np.testing.assert_array_equal(m.b.numpy(), 2 * np.arange(4.0) / 2)   # right_inverse halves first


def test_registration_errors_leave_the_module_as_it_was():
    class Bad(nn.Module):
        def forward(self, X):
            return X[0]

    class Cast(nn.Module):
        def forward(self, X):
            return X.float()

    m = _linear()
    w = m.weight
    with pytest.raises(ValueError, match=r"may not change the shape of the tensor, unless `unsafe` flag is enabled.\n"
                                         r"unparametrized shape: .*\[3, 3\]\)\nparametrized shape: .*\[3\]\)"):
        P.register_parametrization(m, "weight", Bad())
    with pytest.raises(ValueError, match="may not change the dtype of the tensor"):
        P.register_parametrization(m, "weight", Cast())
    assert type(m) is nn.Linear and m.weight is w and not P.is_parametrized(m)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name "
                                         "'nothing'"):
        P.register_parametrization(m, "nothing", Symmetric())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(m, "weight")
    # unsafe=True allows the change
    P.register_parametrization(m, "weight", Bad(), unsafe=True)
    assert tuple(m.weight.shape) == (3,)


def test_remove_leaves_the_parametrized_value_in_the_same_object_and_restores_the_class():
    m = _linear()
    w = m.weight
    w0 = w.detach().numpy().copy()
    P.register_parametrization(m, "weight", Symmetric())
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and m.weight is w and not hasattr(m, "parametrizations")
    assert isinstance(m.weight, nn.Parameter) and list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.triu(w0) + np.triu(w0, 1).T)
    m2 = _linear()
    w2 = m2.weight.detach().numpy().copy()
    P.register_parametrization(m2, "weight", Symmetric())
    P.remove_parametrizations(m2, "weight", leave_parametrized=False)
    np.testing.assert_array_equal(m2.weight.detach().numpy(), w2)


def test_a_second_parametrized_name_keeps_the_class_until_the_last_is_removed():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "bias", Scale())
    cls = type(m)
    P.remove_parametrizations(m, "weight")
    assert type(m) is cls and P.is_parametrized(m, "bias") and not P.is_parametrized(m, "weight")
    P.remove_parametrizations(m, "bias")
    assert type(m) is nn.Linear


def test_deepcopy_works_and_pickling_refuses():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    m2 = copy.deepcopy(m)
    assert type(m2).__name__ == "ParametrizedLinear"
    assert m2.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through "
                                           r"state_dict\(\)"):
        pickle.dumps(m)


def test_state_dict_round_trip_between_parametrized_modules():
    a, b = _linear(seed=1), _linear(seed=2)
    P.register_parametrization(a, "weight", Symmetric())
    P.register_parametrization(b, "weight", Symmetric())
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())


def test_transfer_parametrizations_shares_the_originals():
    a, b = _linear(seed=1), _linear(seed=2)
    P.register_parametrization(a, "weight", Symmetric())
    P.transfer_parametrizations_and_params(a, b)
    assert P.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())


def test_an_optimizer_made_before_registration_trains_the_original():
    m = _linear()
    opt = nbgrad.optim.SGD(m.parameters(), lr=0.1)
    P.register_parametrization(m, "weight", Symmetric())
    before = m.weight.detach().numpy().copy()
    m(_t(np.ones((2, 3)))).sum().backward()
    opt.step()
    after = m.weight.detach().numpy()
    assert not np.array_equal(before, after)
    np.testing.assert_allclose(after, after.T)          # still symmetric: the original moved


# ---------------------------------------------------------------- weight_norm
def _weight_norm_ref(v, g, dim):
    if dim is None or dim == -1:
        return v * (g / np.linalg.norm(v))
    axes = tuple(i for i in range(v.ndim) if i != dim)
    return v * (g / np.sqrt((v * v).sum(axis=axes, keepdims=True)))


@pytest.mark.parametrize("dim, gshape, node", [(0, (4, 1, 1), "WeightNormInterfaceBackward0"),
                                                (2, (1, 1, 5), "WeightNormInterfaceBackward0"),
                                                (1, (1, 3, 1), "MulBackward0"),
                                                (-1, (), "MulBackward0")])
def test_weight_norm_op_values_nodes_and_gradients(dim, gshape, node):
    rng = np.random.default_rng(3)
    v = rng.standard_normal((4, 3, 5))
    g = rng.standard_normal(gshape)
    vt, gt = _t(v, True), _t(g, True)
    w = nbgrad._weight_norm(vt, gt, dim)
    assert type(w.grad_fn).__name__ == node
    np.testing.assert_allclose(w.detach().numpy(), _weight_norm_ref(v, g, dim), rtol=1e-13)
    assert gradcheck(lambda a, b: nbgrad._weight_norm(a, b, dim), (vt, gt))
    # second derivatives too (PyTorch's fused node treats the norms as constants there
    # and fails this check: nbgrad departs on purpose)
    if not (AGAINST_TORCH and node == "WeightNormInterfaceBackward0"):
        assert gradgradcheck(lambda a, b: nbgrad._weight_norm(a, b, dim), (vt, gt))


def test_norm_except_dim_shapes():
    v = _t(np.random.default_rng(0).standard_normal((2, 3, 4)))
    assert tuple(nbgrad.norm_except_dim(v, 2, 0).shape) == (2, 1, 1)
    assert tuple(nbgrad.norm_except_dim(v, 2, 2).shape) == (1, 1, 4)
    assert tuple(nbgrad.norm_except_dim(v, 2, 1).shape) == (1, 3, 1)
    assert tuple(nbgrad.norm_except_dim(v, 2, -1).shape) == ()
    np.testing.assert_allclose(nbgrad.norm_except_dim(v, 3, 1).numpy().ravel(),
                               (np.abs(v.numpy()) ** 3).sum(axis=(0, 2)) ** (1 / 3), rtol=1e-13)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization(dim):
    m = _linear(5, 4)
    w0 = m.weight.detach().numpy().copy()
    PP.weight_norm(m, dim=dim)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                    "parametrizations.weight.original1"]
    g = m.parametrizations.weight.original0
    v = m.parametrizations.weight.original1
    assert isinstance(g, nn.Parameter) and isinstance(v, nn.Parameter)
    shapes = {0: (4, 1), 1: (1, 5), None: ()}
    assert tuple(g.shape) == shapes[dim]
    np.testing.assert_array_equal(v.detach().numpy(), w0)
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-13)    # g = ||w||: w unchanged
    assert type(m.weight.grad_fn).__name__ == ("MulBackward0" if dim is None else "WeightNormInterfaceBackward0")
    x = np.random.default_rng(1).standard_normal((3, 5))
    m(_t(x)).square().sum().backward()
    assert g.grad is not None and v.grad is not None
    # gradient of g: finite differences through the whole module
    gv = g.detach().numpy().copy()

    def loss(gval):
        w = _weight_norm_ref(w0, gval, dim)
        return ((x @ w.T + m.bias.detach().numpy()) ** 2).sum()
    eps = 1e-6
    num = np.zeros_like(gv)
    for idx in np.ndindex(gv.shape):
        d = np.zeros_like(gv)
        d[idx] = eps
        num[idx] = (loss(gv + d) - loss(gv - d)) / (2 * eps)
    np.testing.assert_allclose(g.grad.numpy(), num, rtol=1e-6, atol=1e-6)


def test_weight_norm_loads_the_deprecated_forms_state_dict():
    old = _linear(5, 4, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        nn.utils.weight_norm(old)
    sd = old.state_dict()
    assert set(sd) == {"bias", "weight_g", "weight_v"}
    new = _linear(5, 4, seed=6)
    PP.weight_norm(new)
    new.load_state_dict(sd)
    np.testing.assert_allclose(new.weight.detach().numpy(), old.weight.detach().numpy(), rtol=1e-13)
    assert set(sd) == {"bias", "weight_g", "weight_v"}            # the caller's dict is not changed


def test_deprecated_weight_norm_hook_form():
    m = _linear(5, 4)
    w0 = m.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        nn.utils.weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_g", "weight_v"]
    assert not isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-13)
    with nbgrad.no_grad():
        m.weight_g.mul_(2)
    m(_t(np.ones((1, 5))))                                        # the pre-hook recomputes it
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * w0, rtol=1e-13)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            nn.utils.weight_norm(m)
    nn.utils.remove_weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * w0, rtol=1e-13)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(m)


# ---------------------------------------------------------------- spectral_norm
def _set_uv(m, u, v):
    sn = m.parametrizations.weight[0]
    with nbgrad.no_grad():
        sn._u.copy_(_t(u))
        sn._v.copy_(_t(v))


def test_spectral_norm_eval_divides_by_u_W_v_and_training_iterates():
    m = _linear(5, 4, seed=7)
    w0 = m.weight.detach().numpy().copy()
    PP.spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    rng = np.random.default_rng(8)
    u = rng.standard_normal(4)
    v = rng.standard_normal(5)
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    _set_uv(m, u, v)
    m.eval()
    w = m.weight
    assert type(w.grad_fn).__name__ == "DivBackward0"
    np.testing.assert_allclose(w.detach().numpy(), w0 / (u @ w0 @ v), rtol=1e-12)
    # training mode: one power-iteration step updates the buffers in place first
    m.train()
    sn = m.parametrizations.weight[0]
    u_buf = sn._u
    w = m.weight
    u1 = w0 @ v
    u1 /= np.linalg.norm(u1)
    v1 = w0.T @ u1
    v1 /= np.linalg.norm(v1)
    assert sn._u is u_buf
    np.testing.assert_allclose(sn._u.numpy(), u1, rtol=1e-12)
    np.testing.assert_allclose(sn._v.numpy(), v1, rtol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), w0 / (u1 @ w0 @ v1), rtol=1e-12)
    # and after many, sigma is the largest singular value
    for _ in range(200):
        w = m.weight
    sigma = np.linalg.svd(w0, compute_uv=False)[0]
    np.testing.assert_allclose(w.detach().numpy(), w0 / sigma, rtol=1e-9)


def test_spectral_norm_gradient_matches_finite_differences():
    m = _linear(4, 3, seed=9)
    PP.spectral_norm(m)
    m.eval()
    sn = m.parametrizations.weight[0]
    u, v = sn._u.numpy().copy(), sn._v.numpy().copy()
    orig = m.parametrizations.weight.original
    m.weight.square().sum().backward()
    w = orig.detach().numpy().copy()

    def loss(wv):
        return ((wv / (u @ wv @ v)) ** 2).sum()
    eps = 1e-6
    num = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[idx] = eps
        num[idx] = (loss(w + d) - loss(w - d)) / (2 * eps)
    np.testing.assert_allclose(orig.grad.numpy(), num, rtol=1e-6, atol=1e-7)


def test_spectral_norm_dims_and_errors():
    ct = nn.ConvTranspose2d(3, 5, 2).double()
    PP.spectral_norm(ct)
    assert tuple(ct.parametrizations.weight[0]._u.shape) == (5,)       # dim 1 for ConvTranspose
    c = nn.Conv2d(3, 5, 2).double()
    PP.spectral_norm(c)
    assert tuple(c.parametrizations.weight[0]._u.shape) == (5,)
    assert tuple(c.parametrizations.weight[0]._v.shape) == (12,)
    b = nn.Module()
    b.register_parameter("weight", nn.Parameter(_t([3.0, 4.0])))
    PP.spectral_norm(b)
    np.testing.assert_allclose(b.weight.detach().numpy(), [0.6, 0.8], rtol=1e-15)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        PP.spectral_norm(_linear(), n_power_iterations=0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)"):
        PP.spectral_norm(_linear(), dim=2)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nothing'"):
        PP.spectral_norm(_linear(), name="nothing")


def test_deprecated_spectral_norm_hook_form():
    m = _linear(5, 4, seed=11)
    w0 = m.weight.detach().numpy().copy()
    nn.utils.spectral_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_u", "weight_v"]
    m.eval()
    m(_t(np.ones((1, 5))))
    u, v = m.weight_u.numpy(), m.weight_v.numpy()
    np.testing.assert_allclose(m.weight.detach().numpy(), w0 / (u @ w0 @ v), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(m)
    nn.utils.remove_spectral_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"] and not list(m.named_buffers())
    np.testing.assert_allclose(m.weight.detach().numpy(), w0 / (u @ w0 @ v), rtol=1e-12)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nn.utils.remove_spectral_norm(m)


# ---------------------------------------------------------------- orthogonal
@pytest.mark.parametrize("shape, orth_map", [((4, 4), None), ((4, 4), "cayley"), ((6, 3), None),
                                             ((3, 6), None), ((5, 3), "matrix_exp"), ((4, 4), "householder")])
def test_orthogonal_weights_are_orthogonal_and_train(shape, orth_map):
    o, i = shape
    m = _linear(i, o, seed=12)
    PP.orthogonal(m, orthogonal_map=orth_map)
    w = m.weight.detach().numpy()
    k = min(shape)
    gram = w.T @ w if o >= i else w @ w.T
    np.testing.assert_allclose(gram, np.eye(k), atol=1e-12)
    x = _t(np.random.default_rng(2).standard_normal((2, i)))
    m(x).sum().backward()
    g = m.parametrizations.weight.original.grad
    assert g is not None and np.isfinite(g.numpy()).all()


def test_orthogonal_assignment_of_an_orthogonal_matrix_gives_it_back():
    m = _linear(4, 4, seed=13)
    PP.orthogonal(m)
    q = np.linalg.qr(np.random.default_rng(3).standard_normal((4, 4)))[0]
    m.weight = _t(q)
    np.testing.assert_allclose(m.weight.detach().numpy(), q, atol=1e-12)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0.base"]


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        PP.orthogonal(_linear(), name="bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                                         "Got: qr"):
        PP.orthogonal(_linear(), orthogonal_map="qr")
    m = _linear()
    PP.orthogonal(m, use_trivialization=False)
    with pytest.raises(NotImplementedError, match="It is not possible to assign to the matrix exponential"):
        m.weight = _t(np.eye(3))
