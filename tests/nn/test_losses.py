"""Losses against float64 NumPy references and finite differences: values, gradients, reductions,
weights, ignore_index, label smoothing, stability, and PyTorch's grad_fn names."""
import numpy as np
import pytest

import nbgrad
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def np_cross_entropy(x, t, weight=None, ignore_index=-100, reduction="mean", smoothing=0.0):
    """x: (M, C) float64, t: (M,) -> PyTorch's cross_entropy formula."""
    logp = np_log_softmax(x, 1)
    c = x.shape[1]
    w = np.ones(c) if weight is None else weight
    keep = t != ignore_index
    tt = np.where(keep, t, 0)
    nll = np.where(keep, -w[tt] * logp[np.arange(len(t)), tt], 0.0)
    smooth = np.where(keep, -(logp * w).sum(1), 0.0)
    if reduction == "none":
        return (1 - smoothing) * nll + smoothing / c * smooth
    if reduction == "sum":
        return (1 - smoothing) * nll.sum() + smoothing / c * smooth.sum()
    den = w[tt][keep].sum()        # both parts over the rows not ignored (PyTorch)
    return (1 - smoothing) * nll.sum() / den + smoothing / c * smooth.sum() / den


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_matches_numpy(rng, reduction, weighted, smoothing):
    x = rng.normal(size=(7, 5)) * 3
    t = np.array([0, 4, 2, -100, 1, 3, 4])
    w = rng.uniform(0.5, 2.0, size=5) if weighted else None
    xt = nbgrad.tensor(x, requires_grad=True)
    out = F.cross_entropy(xt, nbgrad.tensor(t), weight=None if w is None else nbgrad.tensor(w),
                          reduction=reduction, label_smoothing=smoothing)
    ref = np_cross_entropy(x, t, w, reduction=reduction, smoothing=smoothing)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12, atol=1e-12)

    # gradient against finite differences of the float64 reference
    g = rng.normal(size=np.shape(ref))
    (out * nbgrad.tensor(g)).sum().backward()
    eps = 1e-6
    num = np.zeros_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            xp, xm = x.copy(), x.copy()
            xp[i, j] += eps
            xm[i, j] -= eps
            num[i, j] = ((np_cross_entropy(xp, t, w, reduction=reduction, smoothing=smoothing) * g).sum()
                         - (np_cross_entropy(xm, t, w, reduction=reduction, smoothing=smoothing) * g).sum()) / (2 * eps)
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_cross_entropy_graph_is_pytorchs():
    x = nbgrad.randn(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.tensor([0, 1, 3]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    (ls, _), = loss.grad_fn.next_functions
    assert ls.name() == "LogSoftmaxBackward0"
    assert ls.next_functions[0][0].variable is x
    assert loss.dtype == nbgrad.float32 and loss.shape == ()


def test_cross_entropy_is_stable_for_huge_logits():
    x = nbgrad.tensor([[1e4, 0.0, -1e4], [0.0, 1e4, 1e4]], requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.tensor([1, 2]), reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [1e4, np.log(2)], rtol=1e-6)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, -1, 0], [0, 0.5, -0.5]], atol=1e-6)
    assert np.isfinite(x.grad.numpy()).all()


def test_cross_entropy_float32_matches_float64(rng):
    x = rng.normal(size=(16, 10)).astype(np.float32) * 5
    t = rng.integers(0, 10, size=16)
    out = F.cross_entropy(nbgrad.tensor(x), nbgrad.tensor(t))
    np.testing.assert_allclose(out.item(), np_cross_entropy(x.astype(np.float64), t), rtol=1e-6)


def test_cross_entropy_nd_input_class_dim_1(rng):
    x = rng.normal(size=(2, 3, 4, 5))       # (N, C, d1, d2)
    t = rng.integers(0, 3, size=(2, 4, 5))
    xt = nbgrad.tensor(x, requires_grad=True)
    out = F.cross_entropy(xt, nbgrad.tensor(t), reduction="none")
    moved = np.moveaxis(x, 1, -1).reshape(-1, 3)
    ref = np_cross_entropy(moved, t.reshape(-1), reduction="none").reshape(2, 4, 5)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert gradcheck(lambda a: F.cross_entropy(a, nbgrad.tensor(t)), (xt,))


def test_cross_entropy_1d_input_and_probability_targets(rng):
    x = rng.normal(size=5)
    out = F.cross_entropy(nbgrad.tensor(x), nbgrad.tensor(3))
    np.testing.assert_allclose(out.item(), -np_log_softmax(x, 0)[3], rtol=1e-12)
    p = rng.dirichlet(np.ones(5), size=4)
    x2 = rng.normal(size=(4, 5))
    out = F.cross_entropy(nbgrad.tensor(x2), nbgrad.tensor(p))
    np.testing.assert_allclose(out.item(), -(np_log_softmax(x2, 1) * p).sum(1).mean(), rtol=1e-12)


def test_cross_entropy_double_backward(rng):
    x = nbgrad.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    t = nbgrad.tensor([1, 0, 3])
    w = nbgrad.tensor([1.0, 2.0, 0.5, 1.5], dtype=nbgrad.float64)
    assert gradgradcheck(lambda a: F.cross_entropy(a, t, weight=w, label_smoothing=0.1), (x,))
    assert gradgradcheck(lambda a: F.nll_loss(a, t, reduction="sum"), (x,))


def test_cross_entropy_errors():
    x = nbgrad.randn(3, 4)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(x, nbgrad.tensor([0, 4, 1]))
    with pytest.raises(ValueError, match="Expected input batch_size"):
        F.cross_entropy(x, nbgrad.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 2], dtype=nbgrad.int32))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 2]), reduction="avg")


def test_cross_entropy_all_ignored_mean_is_nan():
    out = F.cross_entropy(nbgrad.randn(2, 3), nbgrad.tensor([-100, -100]))
    assert np.isnan(out.item())


def test_nll_loss_matches_numpy_and_module(rng):
    logp = np_log_softmax(rng.normal(size=(6, 4)), 1)
    t = np.array([0, 3, 1, 1, 2, -100])
    w = np.array([1.0, 0.5, 2.0, 1.5])
    xt = nbgrad.tensor(logp, requires_grad=True)
    out = nn.NLLLoss(weight=nbgrad.tensor(w))(xt, nbgrad.tensor(t))
    keep = t != -100
    ref = -(w[t[keep]] * logp[np.arange(6)[keep], t[keep]]).sum() / w[t[keep]].sum()
    np.testing.assert_allclose(out.item(), ref, rtol=1e-12)
    assert out.grad_fn.name() == "NllLossBackward0"
    out.backward()
    expected = np.zeros_like(logp)
    expected[np.arange(6)[keep], t[keep]] = -w[t[keep]] / w[t[keep]].sum()
    np.testing.assert_allclose(xt.grad.numpy(), expected, rtol=1e-12)


def test_cross_entropy_equals_log_softmax_then_nll(rng):
    x = nbgrad.tensor(rng.normal(size=(5, 3)).astype(np.float32))
    t = nbgrad.tensor([2, 0, 1, 1, 0])
    a = nn.CrossEntropyLoss()(x, t)
    b = nn.NLLLoss()(nn.LogSoftmax(dim=1)(x), t)
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1(rng, reduction):
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    xt = nbgrad.tensor(x, requires_grad=True)
    yt = nbgrad.tensor(y, requires_grad=True)
    out = nn.MSELoss(reduction=reduction)(xt, yt)
    d = (x - y) ** 2
    ref = {"mean": d.mean(), "sum": d.sum(), "none": d}[reduction]
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    if reduction != "none":
        assert out.grad_fn.name() == "MseLossBackward0"
        out.backward()
        scale = 1 / d.size if reduction == "mean" else 1
        np.testing.assert_allclose(xt.grad.numpy(), 2 * (x - y) * scale, rtol=1e-12)
        np.testing.assert_allclose(yt.grad.numpy(), -2 * (x - y) * scale, rtol=1e-12)
    a = np.abs(x - y)
    l1 = nn.L1Loss(reduction=reduction)(nbgrad.tensor(x), nbgrad.tensor(y))
    np.testing.assert_allclose(l1.numpy(), {"mean": a.mean(), "sum": a.sum(), "none": a}[reduction], rtol=1e-12)


@pytest.mark.filterwarnings("ignore:Using a target size")
def test_mse_broadcast_warns_and_reduces_gradients(rng):
    x = nbgrad.tensor(rng.normal(size=(4, 1)), requires_grad=True)
    y = nbgrad.tensor(rng.normal(size=(4, 3)))
    with pytest.warns(UserWarning, match="different to the input size"):
        out = F.mse_loss(x, y)
    assert gradcheck(lambda a: F.mse_loss(a, y), (x,))
    assert gradgradcheck(lambda a: F.mse_loss(a, y), (x,))
    out.backward()
    assert x.grad.shape == (4, 1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(rng, reduction):
    x = rng.normal(size=(5, 3)) * 4
    x[0, 0], x[1, 1] = 60.0, -60.0
    y = rng.uniform(size=(5, 3))
    w = rng.uniform(0.5, 1.5, size=(3,))
    pw = rng.uniform(0.5, 3.0, size=(3,))
    sp = np.logaddexp(0, -x)       # softplus(-x)
    full = ((1 - y) * x + (1 + (pw - 1) * y) * sp) * w
    ref = {"mean": full.mean(), "sum": full.sum(), "none": full}[reduction]
    xt = nbgrad.tensor(x, requires_grad=True)
    yt = nbgrad.tensor(y, requires_grad=True)
    loss = nn.BCEWithLogitsLoss(weight=nbgrad.tensor(w), pos_weight=nbgrad.tensor(pw), reduction=reduction)
    out = loss(xt, yt)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert out.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    assert gradcheck(lambda a, b: loss(a, b), (xt, yt))
    plain = F.binary_cross_entropy_with_logits(xt, yt)
    np.testing.assert_allclose(plain.item(), (np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))).mean(),
                               rtol=1e-12)
    assert gradgradcheck(lambda a: F.binary_cross_entropy_with_logits(a, yt.detach()), (xt,))


def test_losses_agree_with_torch_if_installed(rng):
    torch = pytest.importorskip("torch", reason="PyTorch not installed")
    tF = torch.nn.functional
    x = rng.normal(size=(6, 5)).astype(np.float32)
    t = np.array([0, 4, 2, -100, 1, 3])
    w = rng.uniform(0.5, 2, size=5).astype(np.float32)
    for kw in [{}, {"label_smoothing": 0.3}, {"reduction": "sum"}]:
        xt = nbgrad.tensor(x, requires_grad=True)
        tt = torch.tensor(x, requires_grad=True)
        a = F.cross_entropy(xt, nbgrad.tensor(t), weight=nbgrad.tensor(w), **kw)
        b = tF.cross_entropy(tt, torch.tensor(t), weight=torch.tensor(w), **kw)
        a.backward()
        b.backward()
        np.testing.assert_allclose(a.item(), b.item(), rtol=1e-5)
        np.testing.assert_allclose(xt.grad.numpy(), tt.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_cross_entropy_on_strided_and_1d_inputs(rng):
    x = rng.normal(size=(5, 4))
    base = nbgrad.tensor(x.T.copy(), requires_grad=True)
    xt = base.t()                                   # non-contiguous (4 classes along dim 1)
    t = np.array([3, 0, 2, 1, 1])
    out = F.cross_entropy(xt, nbgrad.tensor(t), reduction="sum")
    np.testing.assert_allclose(out.item(), np_cross_entropy(x, t, reduction="sum"), rtol=1e-12)
    out.backward()
    p = np.exp(np_log_softmax(x, 1))
    p[np.arange(5), t] -= 1
    np.testing.assert_allclose(base.grad.numpy(), p.T, rtol=1e-10, atol=1e-12)
    v = nbgrad.tensor(x[0], requires_grad=True)
    F.cross_entropy(v, nbgrad.tensor(2)).backward()
    q = np.exp(np_log_softmax(x[0], 0))
    q[2] -= 1
    np.testing.assert_allclose(v.grad.numpy(), q, rtol=1e-10, atol=1e-12)
