"""Issue 14's functions and methods: PyTorch's aliases, in-place comparisons and logical
ops, and composed functions (ops/more.py).  Values against NumPy, gradients against
finite differences (float64), PyTorch's node names and errors (PyTorch 2.13's
behaviour, recorded here)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck

RNG = np.random.default_rng(1414)


def leaf(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# -- aliases --------------------------------------------------------------------------------
def test_arc_aliases_match_numpy_and_nodes():
    a = RNG.uniform(-0.9, 0.9, (4,))
    b = RNG.uniform(0.5, 2.0, (4,))
    x, y = nbgrad.tensor(a), nbgrad.tensor(b)
    np.testing.assert_allclose(nbgrad.arccos(x).numpy(), np.arccos(a))
    np.testing.assert_allclose(x.arcsin().numpy(), np.arcsin(a))
    np.testing.assert_allclose(nbgrad.arctan(x).numpy(), np.arctan(a))
    np.testing.assert_allclose(nbgrad.arctan2(x, y).numpy(), np.arctan2(a, b))
    np.testing.assert_allclose(x.arctan2(y).numpy(), np.arctan2(a, b))
    assert nbgrad.arccos(leaf(a)).grad_fn.name() == "AcosBackward0"
    z = x.clone()
    z.arcsin_()
    np.testing.assert_allclose(z.numpy(), np.arcsin(a))
    z = x.clone()
    z.arctan2_(y)
    np.testing.assert_allclose(z.numpy(), np.arctan2(a, b))


@pytest.mark.parametrize("name,ref", [("absolute_", lambda a, b: np.abs(a)), ("negative_", lambda a, b: -a),
                                      ("divide_", np.divide), ("multiply_", np.multiply),
                                      ("subtract_", np.subtract), ("true_divide_", np.divide)])
def test_inplace_aliases(name, ref):
    a, b = RNG.standard_normal(5), RNG.uniform(1, 2, 5)
    x = nbgrad.tensor(a)
    args = () if name in ("absolute_", "negative_") else (nbgrad.tensor(b),)
    assert getattr(x, name)(*args) is x
    np.testing.assert_allclose(x.numpy(), ref(a, b))


@pytest.mark.parametrize("name,ref", [("eq_", np.equal), ("ne_", np.not_equal), ("lt_", np.less),
                                      ("le_", np.less_equal), ("gt_", np.greater), ("ge_", np.greater_equal),
                                      ("greater_", np.greater), ("less_", np.less),
                                      ("greater_equal_", np.greater_equal), ("less_equal_", np.less_equal),
                                      ("not_equal_", np.not_equal)])
def test_inplace_comparisons_keep_dtype(name, ref):
    a = RNG.integers(0, 3, 8).astype(np.float32)
    b = RNG.integers(0, 3, 8).astype(np.float32)
    x = nbgrad.tensor(a)
    assert getattr(x, name)(nbgrad.tensor(b)) is x
    assert x.dtype == nbgrad.float32
    np.testing.assert_array_equal(x.numpy(), ref(a, b).astype(np.float32))
    i = nbgrad.tensor(a.astype(np.int64))
    getattr(i, name)(1)
    assert i.dtype == nbgrad.int64
    np.testing.assert_array_equal(i.numpy(), ref(a, 1).astype(np.int64))


def test_inplace_comparison_nodes_and_zero_gradient():
    x = leaf(RNG.standard_normal(4))
    y = x * 1
    y.lt_(0.5)
    assert y.grad_fn.name() == "LtBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))
    z = x * 1
    z.eq_(x * 0.5)
    assert z.grad_fn.name() == "EqBackward1"


@pytest.mark.parametrize("name,ref", [("logical_and_", np.logical_and), ("logical_or_", np.logical_or),
                                      ("logical_xor_", np.logical_xor)])
def test_inplace_logical(name, ref):
    a = RNG.integers(0, 2, 6).astype(np.float64) * RNG.standard_normal(6)
    b = RNG.integers(0, 2, 6).astype(np.float64)
    x = nbgrad.tensor(a)
    getattr(x, name)(nbgrad.tensor(b))
    np.testing.assert_array_equal(x.numpy(), ref(a, b).astype(np.float64))


def test_bitwise_inplace():
    a, b = RNG.integers(-5, 5, 6), RNG.integers(-5, 5, 6)
    x = nbgrad.tensor(a)
    x.bitwise_xor_(nbgrad.tensor(b))
    np.testing.assert_array_equal(x.numpy(), a ^ b)
    x.bitwise_not_()
    np.testing.assert_array_equal(x.numpy(), ~(a ^ b))
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.bitwise_xor_(2.5)
    np.testing.assert_array_equal(x.numpy(), ~(a ^ b))


def test_moveaxis_ravel_flips_positive():
    a = RNG.standard_normal((2, 3, 4))
    x = nbgrad.tensor(a)
    np.testing.assert_array_equal(nbgrad.moveaxis(x, 0, 2).numpy(), np.moveaxis(a, 0, 2))
    np.testing.assert_array_equal(x.moveaxis(1, 0).numpy(), np.moveaxis(a, 1, 0))
    np.testing.assert_array_equal(nbgrad.ravel(x.transpose(0, 2)).numpy(), np.ravel(a.transpose(2, 1, 0)))
    np.testing.assert_array_equal(x.ravel().numpy(), a.ravel())
    np.testing.assert_array_equal(nbgrad.fliplr(x).numpy(), np.fliplr(a))
    np.testing.assert_array_equal(x.flipud().numpy(), np.flipud(a))
    np.testing.assert_array_equal(nbgrad.positive(x).numpy(), a)
    g = leaf(a)
    assert g.fliplr().grad_fn.name() == "FlipBackward0"
    assert g.ravel().grad_fn.name() == "ViewBackward0"
    assert gradcheck(lambda t: t.flipud().ravel(), (g,))
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        nbgrad.fliplr(nbgrad.ones(3))
    with pytest.raises(RuntimeError, match="Input must be >= 1-d."):
        nbgrad.flipud(nbgrad.tensor(1.0))
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        nbgrad.positive(nbgrad.tensor([True]))


# -- composites: values against NumPy, gradients, PyTorch 2.13's node names ----------------------
def _r(*shape):
    return RNG.standard_normal(shape)


def _fmod_np(a, b):
    return np.fmod(a, b)


def _logcumsumexp_np(a, axis):
    return np.logaddexp.accumulate(a, axis=axis)


COMPOSITES = [
    # (name, arrays, nbgrad call, numpy reference, node name)
    ("addmm", [_r(2, 3), _r(2, 4), _r(4, 3)], lambda i, a, b: nbgrad.addmm(i, a, b, beta=0.5, alpha=2),
     lambda i, a, b: 0.5 * i + 2 * a @ b, "AddmmBackward0"),
    ("addmm_beta0", [_r(3), _r(2, 4), _r(4, 3)], lambda i, a, b: i.addmm(a, b, beta=0),
     lambda i, a, b: a @ b, "AddmmBackward0"),
    ("addmv", [_r(2), _r(2, 4), _r(4)], lambda i, a, b: nbgrad.addmv(i, a, b, alpha=3),
     lambda i, a, b: i + 3 * a @ b, "AddmvBackward0"),
    ("addr", [_r(2, 3), _r(2), _r(3)], lambda i, a, b: i.addr(a, b, beta=2),
     lambda i, a, b: 2 * i + np.outer(a, b), "AddrBackward0"),
    ("baddbmm", [_r(2, 2, 3), _r(2, 2, 4), _r(2, 4, 3)], nbgrad.baddbmm, lambda i, a, b: i + a @ b, "BaddbmmBackward0"),
    ("addbmm", [_r(2, 3), _r(5, 2, 4), _r(5, 4, 3)], nbgrad.addbmm, lambda i, a, b: i + (a @ b).sum(0),
     "AddbmmBackward0"),
    ("addcmul", [_r(3), _r(2, 3), _r(3)], lambda i, a, b: nbgrad.addcmul(i, a, b, value=3),
     lambda i, a, b: i + 3 * a * b, "AddcmulBackward0"),
    ("addcdiv", [_r(3), _r(2, 3), RNG.uniform(1, 2, 3)], lambda i, a, b: i.addcdiv(a, b, value=-2),
     lambda i, a, b: i - 2 * a / b, "AddcdivBackward0"),
    ("diag_vec", [_r(3)], lambda v: nbgrad.diag(v, 1), lambda v: np.diag(v, 1), "DiagEmbedBackward0"),
    ("diag_vec_neg", [_r(3)], lambda v: v.diag(-2), lambda v: np.diag(v, -2), "DiagEmbedBackward0"),
    ("diag_mat", [_r(3, 4)], lambda m: nbgrad.diag(m, 1), lambda m: np.diag(m, 1), "DiagonalBackward0_copy"),
    ("diag_embed", [_r(2, 3)], lambda v: nbgrad.diag_embed(v, 1, 0, 2),
     lambda v: np.moveaxis(np.stack([np.diag(r, 1) for r in v]), 0, 1), "DiagEmbedBackward0"),
    ("diagflat", [_r(2, 3)], lambda v: v.diagflat(-1), lambda v: np.diagflat(v, -1), "DiagEmbedBackward0"),
    ("trace", [_r(3, 4)], nbgrad.trace, np.trace, "TraceBackward0"),
    ("diff", [_r(3, 5)], lambda v: nbgrad.diff(v, 2, dim=1), lambda v: np.diff(v, 2, axis=1), "SubBackward0"),
    ("diff_pend", [_r(3, 5), _r(3, 1)], lambda v, p: v.diff(dim=1, prepend=p, append=p),
     lambda v, p: np.diff(v, axis=1, prepend=p, append=p), "SubBackward0"),
    ("rot90", [_r(2, 3, 4)], lambda v: nbgrad.rot90(v, 1, [2, 0]), lambda v: np.rot90(v, 1, (2, 0)), "Rot90Backward0"),
    ("rot90_3", [_r(2, 3)], lambda v: v.rot90(3), lambda v: np.rot90(v, 3), "Rot90Backward0"),
    ("rot90_neg", [_r(2, 3)], lambda v: v.rot90(-2), lambda v: np.rot90(v, -2), "Rot90Backward0"),
    ("kron", [_r(2, 3), _r(3, 2, 2)], nbgrad.kron, np.kron, "UnsafeViewBackward0"),
    ("inner", [_r(2, 3), _r(4, 3)], nbgrad.inner, np.inner, "ViewBackward0"),
    ("take_along_dim", [_r(3, 4)], lambda x: nbgrad.take_along_dim(x, nbgrad.tensor([[0, 2], [1, 1], [3, 0]]), 1),
     lambda x: np.take_along_axis(x, np.array([[0, 2], [1, 1], [3, 0]]), 1), "GatherBackward0"),
    ("take_along_none", [_r(3, 4)], lambda x: x.take_along_dim(nbgrad.tensor([5, 0, 11])),
     lambda x: x.ravel()[[5, 0, 11]], "GatherBackward0"),
    ("copysign", [_r(2, 3), _r(3)], nbgrad.copysign, np.copysign, "CopysignBackward0"),
    ("copysign_num", [_r(2, 3)], lambda a: a.copysign(-2.0), lambda a: np.copysign(a, -2.0), "CopysignBackward1"),
    ("deg2rad", [_r(4)], nbgrad.deg2rad, np.deg2rad, "Deg2RadBackward0"),
    ("rad2deg", [_r(4)], lambda a: a.rad2deg(), np.rad2deg, "Rad2DegBackward0"),
    ("frac", [_r(5) * 3], nbgrad.frac, lambda a: a - np.trunc(a), "FracBackward0"),
    ("fmod", [_r(2, 3) * 5, RNG.uniform(0.7, 2, 3) * np.array([1, -1, 1])], nbgrad.fmod, _fmod_np,
     "FmodBackward1"),
    ("fmod_num", [_r(6) * 5], lambda a: a.fmod(-1.5), lambda a: np.fmod(a, -1.5), "FmodBackward0"),
    ("logaddexp", [_r(2, 3), _r(3)], nbgrad.logaddexp, np.logaddexp, "LogaddexpBackward0"),
    ("logaddexp2", [_r(2, 3), _r(3)], lambda a, b: a.logaddexp2(b), np.logaddexp2, "Logaddexp2Backward0"),
    ("matrix_power3", [_r(2, 3, 3)], lambda a: nbgrad.matrix_power(a, 3), lambda a: np.linalg.matrix_power(a, 3),
     "UnsafeViewBackward0"),
    ("matrix_power-2", [_r(3, 3) + 3 * np.eye(3)], lambda a: a.matrix_power(-2),
     lambda a: np.linalg.matrix_power(a, -2), "MmBackward0"),
    ("matrix_power-1", [_r(3, 3) + 3 * np.eye(3)], lambda a: a.matrix_power(-1), np.linalg.inv,
     "LinalgInvExBackward0"),
    ("matrix_power0", [_r(3, 3)], lambda a: a.matrix_power(0), lambda a: np.eye(3), "torch::autograd::CopyBackwards"),
    ("cummax", [_r(3, 5)], lambda a: nbgrad.cummax(a, 1).values, lambda a: np.maximum.accumulate(a, 1),
     "CummaxBackward0"),
    ("cummin", [_r(3, 5)], lambda a: a.cummin(0)[0], lambda a: np.minimum.accumulate(a, 0), "CumminBackward0"),
    ("logcumsumexp", [_r(4, 3)], lambda a: nbgrad.logcumsumexp(a, 0), lambda a: _logcumsumexp_np(a, 0),
     "LogcumsumexpBackward0"),
    ("nansum", [_r(3, 4)], lambda a: nbgrad.nansum(a, 1), lambda a: np.nansum(a, 1), "NansumBackward0"),
    ("nanmean", [_r(3, 4)], lambda a: a.nanmean(), np.nanmean, "DivBackward0"),
    ("nan_to_num", [_r(3, 4)], lambda a: nbgrad.nan_to_num(a, nan=1.0), lambda a: np.nan_to_num(a, nan=1.0),
     "NanToNumBackward0"),
]


@pytest.mark.parametrize("case", COMPOSITES, ids=[c[0] for c in COMPOSITES])
def test_composites_values_gradients_nodes(case):
    name, arrays, fn, ref, node = case
    tensors = [leaf(a) for a in arrays]
    out = fn(*tensors)
    np.testing.assert_allclose(out.detach().numpy(), ref(*arrays), rtol=1e-10, atol=1e-12)
    assert out.dtype == nbgrad.float64
    assert out.grad_fn.name() == node
    assert gradcheck(fn, tuple(tensors))


def test_inplace_composites():
    i, a, b = _r(2, 3), _r(2, 4), _r(4, 3)
    x = nbgrad.tensor(i)
    assert x.addmm_(nbgrad.tensor(a), nbgrad.tensor(b), alpha=2) is x
    np.testing.assert_allclose(x.numpy(), i + 2 * a @ b)
    y = nbgrad.tensor(i)
    y.addcdiv_(nbgrad.tensor(a[:, :3]), nbgrad.tensor(b[:2] + 5), value=0.5)
    np.testing.assert_allclose(y.numpy(), i + 0.5 * a[:, :3] / (b[:2] + 5))
    z = nbgrad.tensor([1.5, -2.25, float("nan"), float("inf")])
    z.nan_to_num_(posinf=7.0)
    np.testing.assert_array_equal(z.numpy(), [1.5, -2.25, 0.0, 7.0])
    z.frac_()
    np.testing.assert_array_equal(z.numpy(), [0.5, -0.25, 0.0, 0.0])
    w = nbgrad.ones(2, 2)
    with pytest.raises(RuntimeError):           # the result (3, 3) does not fit w
        w.addmm_(nbgrad.ones(3, 4), nbgrad.ones(4, 3))
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 2)))
    g = leaf(i) * 1
    g.addcmul_(leaf(a[:, :3]), leaf(b[:2]), value=2)
    assert g.grad_fn.name() == "AddcmulBackward0"


def test_special_values_and_dtypes():
    x = np.array([-0.0, 0.0, -1, 1, np.inf, -np.inf, np.nan])
    t = nbgrad.tensor(x)
    np.testing.assert_array_equal(nbgrad.signbit(t).numpy(), np.signbit(x[:6]).tolist() + [False])
    assert nbgrad.signbit(t).dtype == nbgrad.bool
    np.testing.assert_array_equal(nbgrad.heaviside(t, nbgrad.tensor(7.0, dtype=nbgrad.float64)).numpy(),
                                  [7, 7, 0, 1, 1, 0, 0])
    with pytest.raises(RuntimeError, match="different dtypes"):
        nbgrad.heaviside(t, nbgrad.tensor(7.0))
    np.testing.assert_array_equal(nbgrad.nan_to_num(t.float()).numpy(),
                                  np.nan_to_num(x.astype(np.float32)))
    assert nbgrad.count_nonzero(t).item() == 5 and nbgrad.count_nonzero(t).dtype == nbgrad.int64
    np.testing.assert_array_equal(nbgrad.count_nonzero(nbgrad.tensor([[0, 1], [2, 3]]), dim=0).numpy(), [1, 2])
    np.testing.assert_array_equal(nbgrad.fmod(nbgrad.tensor([-7, 7, -7]), nbgrad.tensor([3, -3, 2])).numpy(),
                                  np.fmod([-7, 7, -7], [3, -3, 2]))
    assert nbgrad.deg2rad(nbgrad.tensor([180])).dtype == nbgrad.float32
    np.testing.assert_allclose(nbgrad.logaddexp(nbgrad.tensor([np.inf, -np.inf]), nbgrad.tensor([np.inf, -np.inf]))
                               .numpy(), [np.inf, -np.inf])
    lc = nbgrad.logcumsumexp(nbgrad.tensor([-1000.0, 0.0, -np.inf, 5.0], dtype=nbgrad.float64), 0)
    np.testing.assert_allclose(lc.numpy(), np.logaddexp.accumulate([-1000.0, 0.0, -np.inf, 5.0]))
    np.testing.assert_allclose(nbgrad.nansum(t.nan_to_num(posinf=1.0, neginf=1.0)).item(), 2.0)
    np.testing.assert_allclose(nbgrad.nanmean(nbgrad.tensor([1.0, np.nan, 3.0])).item(), 2.0)


def test_cummax_cummin_indices_ties_and_nan():
    a = np.array([3.0, 1, 3, np.nan, 2, 3])
    r = nbgrad.cummax(nbgrad.tensor(a), 0)
    np.testing.assert_array_equal(r.indices.numpy(), [0, 0, 2, 3, 3, 3])     # PyTorch: last tie, NaN sticks
    np.testing.assert_array_equal(r.values.numpy(), [3, 3, 3, np.nan, np.nan, np.nan])
    b = np.array([[2, 1, 1, 5], [0, 0, 3, -1]])
    m = nbgrad.cummin(nbgrad.tensor(b), 1)
    np.testing.assert_array_equal(m.values.numpy(), np.minimum.accumulate(b, 1))
    np.testing.assert_array_equal(m.indices.numpy(), [[0, 1, 2, 2], [0, 1, 1, 3]])
    assert m.indices.dtype == nbgrad.int64


def test_splits():
    a = _r(2, 6, 4)
    x = nbgrad.tensor(a)
    for ours, theirs in ((nbgrad.hsplit(x, 3), np.hsplit(a, 3)), (x.vsplit([1]), np.vsplit(a, [1])),
                         (nbgrad.dsplit(x, [1, 3]), np.dsplit(a, [1, 3]))):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            np.testing.assert_array_equal(o.numpy(), t)
    np.testing.assert_array_equal(nbgrad.hsplit(nbgrad.tensor(a[0, :, 0]), 2)[1].numpy(), a[0, 3:, 0])
    with pytest.raises(RuntimeError, match="not divisible by the split_size 4"):
        nbgrad.hsplit(x, 4)
    with pytest.raises(RuntimeError, match="requires a tensor with at least 3 dimension"):
        nbgrad.dsplit(x[0], 2)


def test_composite_errors():
    with pytest.raises(RuntimeError, match=r"diag\(\): Supports 1D or 2D tensors. Got 3D"):
        nbgrad.diag(nbgrad.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        nbgrad.trace(nbgrad.ones(3))
    with pytest.raises(RuntimeError, match="the last dimension must match"):
        nbgrad.inner(nbgrad.ones(3), nbgrad.ones(4))
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        nbgrad.addcdiv(nbgrad.ones(2), nbgrad.tensor([1, 2]), nbgrad.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        nbgrad.frac(nbgrad.tensor([1]))
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        nbgrad.matrix_power(nbgrad.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        nbgrad.rot90(nbgrad.ones(2, 2), 1, [0, 0])
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        nbgrad.diff(nbgrad.tensor(1.0))


# -- unfold, order statistics, sampling --------------------------------------------------------
def test_unfold_view_values_gradient():
    a = _r(3, 10)
    x = leaf(a)
    u = x.unfold(1, 3, 2)
    assert u.shape == (3, 4, 3) and u.grad_fn.name() == "UnfoldBackward0"
    np.testing.assert_array_equal(u.detach().numpy(),
                                  np.lib.stride_tricks.sliding_window_view(a, 3, axis=1)[:, ::2])
    assert gradcheck(lambda t: t.unfold(1, 3, 2), (x,))        # overlapping windows sum back
    assert gradcheck(lambda t: t.unfold(0, 2, 1), (x,))
    v = nbgrad.arange(6.0)
    w = v.unfold(0, 2, 2)
    v[0] = 9.0                                                  # a view of v
    assert w[0, 0].item() == 9.0
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 0 is 6 but size is 7"):
        v.unfold(0, 7, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        v.unfold(0, 2, 0)


def test_median_all_evenly_distributes_gradient():
    x = leaf([1.0, 3, 2, 2, 5, 2])
    m = nbgrad.median(x)
    assert m.item() == 2.0 and m.grad_fn.name() == "MedianBackward0"
    m.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0, 0, 1 / 3, 1 / 3, 0, 1 / 3])
    assert np.isnan(nbgrad.tensor([1.0, np.nan, 0.0]).median().item())
    y = nbgrad.tensor([1.0, np.nan, 0.0, 4.0])
    assert y.nanmedian().item() == 1.0 and y.nanmedian().dtype == nbgrad.float32


def test_median_kthvalue_with_dim():
    a = _r(3, 5)
    x = leaf(a)
    r = nbgrad.median(x, 1)
    np.testing.assert_array_equal(r.values.detach().numpy(), np.median(a, 1))       # odd length: exact
    np.testing.assert_array_equal(r.indices.numpy(), np.argsort(a, 1)[:, 2])
    assert r.values.grad_fn.name() == "MedianBackward1"
    assert gradcheck(lambda t: t.median(0, keepdim=True).values, (x,))
    k = x.kthvalue(2, 0)
    np.testing.assert_array_equal(k.values.detach().numpy(), np.sort(a, 0)[1])
    np.testing.assert_array_equal(k.indices.numpy(), np.argsort(a, 0)[1])
    assert k.values.grad_fn.name() == "KthvalueBackward0"
    assert gradcheck(lambda t: nbgrad.kthvalue(t, 4).values, (x,))
    b = nbgrad.tensor([[1.0, np.nan, 0.0], [2.0, 1.0, 3.0]])
    np.testing.assert_array_equal(b.median(1).indices.numpy(), [1, 0])           # PyTorch: NaN wins
    np.testing.assert_array_equal(b.nanmedian(1).values.numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(b.nanmedian(1).indices.numpy(), [2, 0])
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        x.kthvalue(6, 1)


def test_mode():
    c = nbgrad.tensor([[3, 1, 3, 1, 2], [5, 5, 4, 4, 4]])
    r = c.mode(1)
    np.testing.assert_array_equal(r.values.numpy(), [1, 4])     # smallest of the most frequent
    np.testing.assert_array_equal(r.indices.numpy(), [3, 4])    # its last occurrence
    x = leaf([[1.0, 2.0, 2.0], [0.5, 0.5, 3.0]])
    m = nbgrad.mode(x)
    assert m.values.grad_fn.name() == "ModeBackward0"
    m.values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 1], [0, 1, 0]])


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), (None, True)])
def test_quantile_matches_numpy(interpolation, dim, keepdim):
    a = _r(3, 5)
    q = np.array([0.0, 0.3, 0.5, 1.0])
    ours = nbgrad.quantile(nbgrad.tensor(a), nbgrad.tensor(q), dim, keepdim, interpolation=interpolation)
    ref = np.quantile(a, q, axis=dim, keepdims=keepdim, method=interpolation)
    assert tuple(ours.shape) == ref.shape
    np.testing.assert_allclose(ours.numpy(), ref)
    one = nbgrad.tensor(a).quantile(0.3, dim, keepdim, interpolation=interpolation)
    np.testing.assert_allclose(one.numpy(), np.quantile(a, 0.3, axis=dim, keepdims=keepdim, method=interpolation))


def test_quantile_nan_gradient_errors():
    a = _r(3, 5)
    a[0, 1] = np.nan
    a[1, :] = np.nan
    np.testing.assert_allclose(nbgrad.nanquantile(nbgrad.tensor(a), 0.4, 1).numpy(), np.nanquantile(a, 0.4, 1))
    np.testing.assert_allclose(nbgrad.quantile(nbgrad.tensor(a), 0.4, 1).numpy(), np.quantile(a, 0.4, 1))
    x = leaf(_r(3, 5))
    assert x.quantile(0.3, 1).grad_fn.name() == "SqueezeBackward4"
    assert gradcheck(lambda t: nbgrad.quantile(t, nbgrad.tensor([0.2, 0.7], dtype=nbgrad.float64), 1), (x,))
    with pytest.raises(RuntimeError, match=r"q must be in the range \[0, 1\] but got 1.5"):
        x.quantile(1.5)
    with pytest.raises(RuntimeError, match="input tensor must be either float or double dtype"):
        nbgrad.quantile(nbgrad.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match="interpolation must be one of"):
        x.quantile(0.5, interpolation="foo")


def test_bernoulli_and_multinomial_reproducible():
    p = nbgrad.full((4000,), 0.3)
    nbgrad.manual_seed(7)
    a = nbgrad.bernoulli(p)
    nbgrad.manual_seed(7)
    b = p.bernoulli()
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.dtype == nbgrad.float32 and set(np.unique(a.numpy())) <= {0.0, 1.0}
    assert abs(a.mean().item() - 0.3) < 0.05
    assert nbgrad.bernoulli(leaf([0.2, 0.9])).grad_fn.name() == "BernoulliBackward0"
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        nbgrad.bernoulli(nbgrad.tensor([1.5]))
    w = nbgrad.tensor([[0.1, 0.0, 0.9], [1.0, 1.0, 1.0]])
    nbgrad.manual_seed(3)
    s1 = nbgrad.multinomial(w, 2)
    nbgrad.manual_seed(3)
    s2 = w.multinomial(2)
    np.testing.assert_array_equal(s1.numpy(), s2.numpy())
    assert s1.dtype == nbgrad.int64 and s1.shape == (2, 2)
    assert set(s1[0].tolist()) == {0, 2}                 # without replacement, never the zero weight
    assert len(set(s1[1].tolist())) == 2
    counts = np.bincount(nbgrad.multinomial(nbgrad.tensor([0.2, 0.0, 0.8]), 4000, True).numpy(), minlength=3)
    assert counts[1] == 0 and abs(counts[0] / 4000 - 0.2) < 0.05
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        nbgrad.multinomial(w, 4)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        nbgrad.multinomial(nbgrad.tensor([0.0, 0.0]), 1, True)
    with pytest.raises(RuntimeError, match="element < 0"):
        nbgrad.multinomial(nbgrad.tensor([-1.0, 2.0]), 1)


def test_inverse_hyperbolic_and_erfc_rows():
    a = RNG.uniform(-0.9, 0.9, 5)
    x = nbgrad.tensor(a)
    np.testing.assert_allclose(nbgrad.arcsinh(x).numpy(), np.arcsinh(a))
    np.testing.assert_allclose(x.arctanh().numpy(), np.arctanh(a))
    np.testing.assert_allclose(nbgrad.acosh(x.abs() + 1).numpy(), np.arccosh(np.abs(a) + 1))
    np.testing.assert_allclose(x.erfc().numpy(), [1 - __import__("math").erf(v) for v in a], rtol=1e-12)
    assert nbgrad.arccosh(nbgrad.tensor([2])).dtype == nbgrad.float32
    y = x.clone()
    y.arcsinh_()
    np.testing.assert_allclose(y.numpy(), np.arcsinh(a))
    g = leaf(a)
    assert g.atanh().grad_fn.name() == "AtanhBackward0" and nbgrad.erfc(g).grad_fn.name() == "ErfcBackward0"
    assert gradcheck(lambda t: nbgrad.asinh(t) + nbgrad.atanh(t) + t.erfc(), (g,))


def test_logaddexp_refuses_integers():
    with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        nbgrad.logaddexp(nbgrad.tensor([1, 2]), nbgrad.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'Long'"):
        nbgrad.logaddexp2(nbgrad.tensor([1, 2]), nbgrad.tensor([1, 2]))
    mixed = nbgrad.logaddexp(nbgrad.tensor([1, 2]), nbgrad.tensor([1.0, 2.0]))
    assert mixed.dtype == nbgrad.float32
    np.testing.assert_allclose(mixed.numpy(), np.logaddexp([1, 2], [1, 2]), rtol=1e-6)


def test_erfinv_row():
    y = np.concatenate([np.linspace(-0.999, 0.999, 41), [1 - 1e-12, -1 + 1e-15, 1e-300, 0.5]])
    got = nbgrad.erfinv(nbgrad.tensor(y)).numpy()
    # erfinv is erf's inverse: erf(got) recovers y (and the tails keep 1 - |y|)
    np.testing.assert_allclose([__import__("math").erf(v) for v in got], y, rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose([__import__("math").erfc(abs(v)) for v in got[-4:-2]], [1 - y[-4], 1 + y[-3]], rtol=1e-9)
    special = nbgrad.tensor([1.0, -1.0, 1.5, np.nan]).erfinv().numpy()
    assert special[0] == np.inf and special[1] == -np.inf and np.isnan(special[2:]).all()
    assert nbgrad.erfinv(nbgrad.tensor([0])).dtype == nbgrad.float32
    g = leaf([0.3, -0.7, 0.95])
    assert g.erfinv().grad_fn.name() == "ErfinvBackward0"
    assert gradcheck(nbgrad.erfinv, (g,))


@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "correction": 0, "keepdim": True},
                                    {"unbiased": False}, {"dim": (0, 1)}])
def test_std_mean_var_mean(kwargs):
    a = _r(3, 4)
    x = leaf(a)
    axis = kwargs.get("dim")
    ddof = 0 if kwargs.get("correction") == 0 or kwargs.get("unbiased") is False else 1
    keep = kwargs.get("keepdim", False)
    s, m = nbgrad.std_mean(x, **kwargs)
    v, m2 = nbgrad.var_mean(x, **kwargs)
    np.testing.assert_allclose(s.detach().numpy(), np.std(a, axis=axis, ddof=ddof, keepdims=keep))
    np.testing.assert_allclose(v.detach().numpy(), np.var(a, axis=axis, ddof=ddof, keepdims=keep))
    np.testing.assert_allclose(m.detach().numpy(), np.mean(a, axis=axis, keepdims=keep))
    np.testing.assert_allclose(m2.detach().numpy(), m.detach().numpy())
    assert s.grad_fn.name() == m.grad_fn.name() == "StdMeanBackward0"
    assert v.grad_fn.name() == "VarMeanBackward0"
    assert gradcheck(lambda t: nbgrad.std_mean(t, **kwargs)[0] + nbgrad.var_mean(t, **kwargs)[1], (x,))


def test_inplace_logical_keeps_history_as_pytorch():
    # PyTorch 2.13 records nothing for logical_and_ on a float tensor: the old node stays
    x = leaf([1.0, 0.0, 2.0])
    y = x * 3
    y.logical_and_(nbgrad.tensor([1.0, 1.0, 0.0], dtype=nbgrad.float64))
    np.testing.assert_array_equal(y.detach().numpy(), [1.0, 0.0, 0.0])
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_fmod_keeps_the_sign_of_a_signed_zero_input_as_c_does(dtype):
    # C's fmod (NumPy's, PyTorch's): the result has the sign of the input, -0.0 included
    vals = np.array([-0.0, 0.0, -5.0, 5.0, -3.75, 3.75, np.inf, 1e-40, -1e-40])
    for divisor in (2.5, -2.5, np.inf, 1.5):
        with np.errstate(invalid="ignore"):     # (fmod(inf, y) is nan)
            want = np.fmod(vals.astype(dtype.np), dtype.np.type(divisor))
        for got in (nbgrad.fmod(nbgrad.tensor(vals, dtype=dtype), divisor),
                    nbgrad.fmod(nbgrad.tensor(vals, dtype=dtype), nbgrad.full((len(vals),), divisor, dtype=dtype))):
            got = got.numpy()
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
