"""The losses of nbgrad/ops/loss_more.py against float64 NumPy references, finite differences
(gradcheck, gradgradcheck), PyTorch 2.13's grad_fn names and its errors (recorded)."""
import warnings

import numpy as np
import pytest

import nbgrad
from ._cuda import requires_cuda
from ._float64 import REDUCTIONS, close, np_reduce, t
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def np_log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


# -- binary cross-entropy ------------------------------------------------------------------
def np_bce(x, y, w=None):
    loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    return loss if w is None else loss * w


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_values_gradients_and_node(rng, reduction, weighted):
    x, y = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2, (4,)) if weighted else None
    xt, yt = t(x, True), t(y, True)
    wt = None if w is None else t(w)
    out = F.binary_cross_entropy(xt, yt, wt, reduction=reduction)
    close(out, np_reduce(np_bce(x, y, w), reduction))
    assert out.grad_fn.name() == "BinaryCrossEntropyBackward0"
    assert nn.BCELoss(weight=wt, reduction=reduction)(xt, yt).grad_fn.name() == "BinaryCrossEntropyBackward0"
    fn = lambda a, b: F.binary_cross_entropy(a, b, wt, reduction=reduction)   # noqa: E731
    assert gradcheck(fn, (xt, yt))
    assert gradgradcheck(fn, (xt, yt))
    gx, = nbgrad.autograd.grad(out.sum(), xt, create_graph=True)
    assert gx.grad_fn.name() == "BinaryCrossEntropyBackwardBackward0"


def test_bce_clamps_log_at_minus_100_and_gradients_at_the_ends():
    # recorded from PyTorch 2.13: F.binary_cross_entropy(x, y, weight=w, reduction='none') and
    # the gradients of its sum
    x, y = t([0.0, 0.3, 1.0, 0.5], True), t([0.2, 0.7, 0.4, 1.0], True)
    out = F.binary_cross_entropy(x, y, t([1.0, 2.0, 3.0, 4.0]), reduction="none")
    np.testing.assert_allclose(out.detach().numpy(), [20.0, 1.89956689241955, 180.0, 2.772588722239781],
                               rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-200000000799.16058, -3.8095238095238093, 1800000007192.445, -8.0], rtol=1e-12)
    gy = y.grad.numpy()
    assert gy[0] == np.inf and gy[2] == -np.inf and np.isclose(gy[1], 1.6945957207744071, rtol=1e-12)
    assert gy[3] == 0 and np.signbit(gy[3])          # -logit(0.5) * 4: PyTorch's -0.0


def test_bce_weight_broadcasts_over_rows():
    x = np.array([[0.2, 0.9], [0.6, 0.4]])
    y = np.array([[0.0, 1.0], [1.0, 0.5]])
    out = F.binary_cross_entropy(t(x), t(y), t([1.0, 3.0]), reduction="sum")
    close(out, (np_bce(x, y) * np.array([1.0, 3.0])).sum())
    assert F.binary_cross_entropy(nbgrad.tensor([0.5]), nbgrad.tensor([1.0]), nbgrad.tensor([2.0])).dtype \
        is nbgrad.float32


def test_bce_errors():
    x, y = t([0.5, 0.2, 0.1, 0.9]), t([1.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"Using a target size \(.*\[3\]\)\) that is different to the input "
                       r"size \(.*\[4\]\)\) is deprecated. Please ensure they have the same size."):
        F.binary_cross_entropy(x, y[:3])
    for bad in (x * 2, x - 1, x * float("nan")):
        with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):
            F.binary_cross_entropy(bad, y)
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(x.float(), y)
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 3 at -1! "):
        F.binary_cross_entropy(x, y, weight=t([1.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"^output with shape \[1, 2\] doesn't match the broadcast shape "
                                           r"\[2, 2\]$"):
        F.binary_cross_entropy(t([[0.5, 0.2]]), t([[1.0, 0.0]]), weight=t([[2.0], [3.0]]))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.binary_cross_entropy(x, y, weight=t([1.0, 1.0, 1.0, 1.0], True))
    for name in ("weight", "pos_weight"):       # torch 2.13's messages
        with pytest.raises(RuntimeError, match=f"^The function 'binary_cross_entropy_with_logits' is not "
                                               f"differentiable with respect to argument '{name}'. This input "
                                               f"cannot have requires_grad True.$"):
            F.binary_cross_entropy_with_logits(x, y, **{name: t([1.0, 1.0, 1.0, 1.0], True)})
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.binary_cross_entropy(x, y, reduction="bad")


# -- smooth L1, Huber, soft margin -----------------------------------------------------------
def np_smooth_l1(x, y, beta):
    d = np.abs(x - y)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def np_huber(x, y, delta):
    d = np.abs(x - y)
    return np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kind, param, node", [("smooth_l1", 0.7, "SmoothL1LossBackward0"),
                                               ("huber", 0.8, "HuberLossBackward0")])
def test_smooth_l1_and_huber(rng, reduction, kind, param, node):
    x, y = rng.normal(size=(3, 4)) * 2, rng.normal(size=(3, 4))
    xt, yt = t(x, True), t(y, True)
    if kind == "smooth_l1":
        fn = lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=param)   # noqa: E731
        ref = np_smooth_l1(x, y, param)
        module = nn.SmoothL1Loss(reduction=reduction, beta=param)
    else:
        fn = lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=param)   # noqa: E731
        ref = np_huber(x, y, param)
        module = nn.HuberLoss(reduction=reduction, delta=param)
    out = fn(xt, yt)
    close(out, np_reduce(ref, reduction))
    close(module(xt, yt), np_reduce(ref, reduction))
    assert out.grad_fn.name() == node
    assert gradcheck(fn, (xt, yt))
    assert gradgradcheck(fn, (xt, yt))
    gx, = nbgrad.autograd.grad(out.sum(), xt, create_graph=True)
    assert gx.grad_fn.name() == node.replace("Backward0", "BackwardBackward0")


def test_smooth_l1_beta_zero_is_l1_and_broadcasting_warns(rng):
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = F.smooth_l1_loss(t(x, True), t(y), beta=0.0)
    close(out, np.abs(x - y).mean())
    assert out.grad_fn.name() == "MeanBackward0"           # PyTorch routes beta == 0 to l1_loss
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.smooth_l1_loss(t(x, True), t(y, True), reduction="sum", beta=0.5)
    close(out, np_smooth_l1(x, y, 0.5).sum())
    yt = t(y, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F.huber_loss(t(x), yt, reduction="sum").backward()
    d = x - y                                           # the target's gradient summed over rows
    np.testing.assert_allclose(yt.grad.numpy(), -np.clip(d, -1, 1).sum(0), rtol=1e-12)


def test_huber_weight(rng):
    x, y, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.uniform(size=(3, 4))
    for reduction, node in [("none", "MulBackward0"), ("mean", "MeanBackward0"), ("sum", "SumBackward0")]:
        out = F.huber_loss(t(x, True), t(y), reduction=reduction, weight=t(w))
        close(out, np_reduce(np_huber(x, y, 1.0) * w, reduction))
        assert out.grad_fn.name() == node
    with pytest.raises(ValueError, match="^Weights and input must have the same size.$"):
        F.huber_loss(t(x), t(y), weight=t(w[:2]))


def test_smooth_l1_huber_errors(rng):
    x, y = t(rng.normal(size=3)), t(rng.normal(size=3))
    with pytest.raises(RuntimeError, match="^smooth_l1_loss does not support negative values for beta.$"):
        F.smooth_l1_loss(x, y, beta=-1)
    with pytest.raises(RuntimeError, match="^huber_loss does not support non-positive values for delta.$"):
        F.huber_loss(x, y, delta=0)
    for fn in (F.smooth_l1_loss, F.huber_loss, F.soft_margin_loss):
        with pytest.raises(ValueError, match="^x is not a valid value for reduction$"):
            fn(x, y, reduction="x")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin(rng, reduction):
    x, y = rng.normal(size=(3, 4)) * 2, np.sign(rng.normal(size=(3, 4)))
    xt = t(x, True)
    fn = lambda a: F.soft_margin_loss(a, t(y), reduction=reduction)   # noqa: E731
    out = fn(xt)
    close(out, np_reduce(np.log1p(np.exp(-x * y)), reduction))
    close(nn.SoftMarginLoss(reduction=reduction)(xt, t(y)), np_reduce(np.log1p(np.exp(-x * y)), reduction))
    assert out.grad_fn.name() == "SoftMarginLossBackward0"
    assert gradcheck(fn, (xt,)) and gradgradcheck(fn, (xt,))
    gx, = nbgrad.autograd.grad(out.sum(), xt, create_graph=True)
    assert gx.grad_fn.name() == "SoftMarginLossBackwardBackward0"
    with pytest.raises(RuntimeError, match="^The function 'soft_margin_loss' is not differentiable with respect "
                                           "to argument 'target'. This input cannot have requires_grad True.$"):
        F.soft_margin_loss(xt, t(y, True))


# -- composed losses --------------------------------------------------------------------------
def np_xlogy(a, b):
    return np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1.0, b)))


@pytest.mark.parametrize("reduction, node", [("none", "SubBackward0"), ("mean", "MeanBackward0"),
                                             ("sum", "SumBackward0"), ("batchmean", "DivBackward0")])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(rng, reduction, node, log_target):
    x = np.log(rng.dirichlet(np.ones(4), 3))
    q = rng.dirichlet(np.ones(4), 3)
    q[0, 0] = 0.0 if not log_target else q[0, 0]
    y = np.log(q) if log_target else q
    ref = np.exp(y) * (y - x) if log_target else np_xlogy(y, y) - y * x
    expected = ref.sum() / 3 if reduction == "batchmean" else np_reduce(ref, reduction)
    xt, yt = t(x, True), t(y, True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = F.kl_div(xt, yt, reduction=reduction, log_target=log_target)
    assert any("'batchmean' divides only by the batch size" in str(w.message) for w in caught) == \
        (reduction == "mean")
    close(out, expected)
    if reduction == "none" and log_target:
        node = "MulBackward0"
    assert out.grad_fn.name() == node
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(nn.KLDivLoss(reduction=reduction, log_target=log_target)(xt, yt), expected)
    if log_target:
        assert gradcheck(lambda a, b: F.kl_div(a, b, reduction="sum", log_target=True), (xt, yt))
    else:
        assert gradcheck(lambda a: F.kl_div(a, t(y), reduction="batchmean"), (xt,))
        yp = t(q + 0.1, True)                       # the target's gradient away from 0
        assert gradcheck(lambda a, b: F.kl_div(a, b, reduction="sum"), (xt, yp))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_and_hinge_embedding(rng, reduction):
    a, b = rng.normal(size=6), rng.normal(size=6)
    y = np.array([1.0, -1, 1, -1, 1, -1])
    at, bt = t(a, True), t(b, True)
    out = F.margin_ranking_loss(at, bt, t(y), margin=0.3, reduction=reduction)
    close(out, np_reduce(np.maximum(0, -y * (a - b) + 0.3), reduction))
    assert out.grad_fn.name() == {"none": "ClampMinBackward0", "mean": "MeanBackward0",
                                  "sum": "SumBackward0"}[reduction]
    close(nn.MarginRankingLoss(0.3, reduction=reduction)(at, bt, t(y)), out.detach().numpy())
    assert gradcheck(lambda p, q: F.margin_ranking_loss(p, q, t(y), 0.3, reduction=reduction), (at, bt))

    out = F.hinge_embedding_loss(at, t(y), margin=0.5, reduction=reduction)
    ref = np.where(y == 1, a, np.maximum(0, 0.5 - a))
    close(out, np_reduce(ref, reduction))
    assert out.grad_fn.name() == {"none": "AddBackward0", "mean": "MeanBackward0",
                                  "sum": "SumBackward0"}[reduction]
    close(nn.HingeEmbeddingLoss(0.5, reduction=reduction)(at, t(y)), out.detach().numpy())
    assert gradcheck(lambda p: F.hinge_embedding_loss(p, t(y), 0.5, reduction=reduction), (at,))


def test_margin_ranking_dimension_error():
    with pytest.raises(RuntimeError, match="^margin_ranking_loss : All input tensors should have same dimension "
                                           "but got sizes: input1: "):
        F.margin_ranking_loss(t(np.ones((3, 4))), t(np.ones((3, 4))), t(np.ones(3)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding(rng, reduction):
    a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    y = np.array([1.0, -1, 1, -1, -1])
    eps = float(np.float32(1e-12))                  # PyTorch's EPSILON is a float
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + eps) * ((b * b).sum(1) + eps))
    ref = np.where(y == 1, 1 - cos, np.maximum(0, cos - 0.1))
    at, bt = t(a, True), t(b, True)
    out = F.cosine_embedding_loss(at, bt, t(y), margin=0.1, reduction=reduction)
    close(out, np_reduce(ref, reduction))
    assert out.grad_fn.name() == {"none": "AddBackward0", "mean": "MeanBackward0",
                                  "sum": "SumBackward0"}[reduction]
    close(nn.CosineEmbeddingLoss(0.1, reduction=reduction)(at, bt, t(y)), out.detach().numpy())
    assert gradcheck(lambda p, q: F.cosine_embedding_loss(p, q, t(y), 0.1, reduction=reduction), (at, bt))
    one = F.cosine_embedding_loss(t(a[0]), t(b[0]), t(-1.0), margin=-0.5)      # 0-D target, 1-D inputs
    close(one, max(0.0, cos[0] + 0.5))


def test_cosine_embedding_epsilon_recorded():
    # PyTorch 2.13: F.cosine_embedding_loss([[1e-7, 0]], [[1, 0]], [1.]) (float64)
    out = F.cosine_embedding_loss(t([[1e-7, 0.0]]), t([[1.0, 0.0]]), t([1.0]))
    assert abs(out.item() - 0.9004962807822205) < 1e-15


def test_cosine_embedding_errors():
    x = t(np.ones((3, 4)))
    with pytest.raises(RuntimeError, match="^0D or 1D target tensor expected, multi-target not supported$"):
        F.cosine_embedding_loss(x, x, t(np.ones((3, 1))))
    with pytest.raises(RuntimeError, match=r"^0D target tensor expects 1D input tensors, but found inputs with "
                                           r"sizes \[3, 4\] and \[3, 4\].$"):
        F.cosine_embedding_loss(x, x, t(1.0))
    with pytest.raises(RuntimeError, match=r"^1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(t(np.ones(4)), t(np.ones(4)), t(np.ones(3)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_poisson_nll(rng, reduction):
    x = rng.normal(size=(3, 4))
    c = rng.integers(0, 5, (3, 4)).astype(float)
    xt = t(x, True)
    out = F.poisson_nll_loss(xt, t(c), reduction=reduction)
    close(out, np_reduce(np.exp(x) - c * x, reduction))
    assert out.grad_fn.name() == {"none": "SubBackward0", "mean": "MeanBackward0",
                                  "sum": "SumBackward0"}[reduction]
    assert gradcheck(lambda p: F.poisson_nll_loss(p, t(c), reduction=reduction), (xt,))
    rate = np.exp(x)
    out = nn.PoissonNLLLoss(log_input=False, full=True, reduction=reduction)(t(rate, True), t(c))
    safe = np.where(c > 1, c, 2.0)
    stirling = np.where(c > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0.0)
    close(out, np_reduce(rate - c * np.log(rate + 1e-8) + stirling, reduction))
    assert gradcheck(lambda p: F.poisson_nll_loss(p, t(c), log_input=False, full=True, reduction=reduction),
                     (t(rate, True),))
    with pytest.raises(ValueError, match="^x is not a valid value for reduction$"):
        F.poisson_nll_loss(xt, t(c), reduction="x")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll(rng, reduction, full):
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    v = rng.uniform(0.1, 2, (3, 4))
    v[0, 0] = 1e-8                                   # clamped at eps in the value, not in the gradient
    ref = 0.5 * (np.log(np.maximum(v, 1e-6)) + (x - y) ** 2 / np.maximum(v, 1e-6))
    if full:
        ref = ref + 0.5 * np.log(2 * np.pi)
    xt, yt, vt = t(x, True), t(y, True), t(v, True)
    out = F.gaussian_nll_loss(xt, yt, vt, full=full, reduction=reduction)
    close(out, np_reduce(ref, reduction))
    close(nn.GaussianNLLLoss(full=full, reduction=reduction)(xt, yt, vt), np_reduce(ref, reduction))
    if reduction == "none":
        assert out.grad_fn.name() == ("AddBackward0" if full else "MulBackward0")
    out.sum().backward()
    clamped = np.maximum(v, 1e-6)
    scale = 1 / 12 if reduction == "mean" else 1.0
    np.testing.assert_allclose(vt.grad.numpy(), scale * 0.5 * (1 / clamped - (x - y) ** 2 / clamped ** 2),
                               rtol=1e-10)
    # homoscedastic: var one dim short, or a single broadcast dim
    vs = rng.uniform(0.5, 2, 3)
    close(F.gaussian_nll_loss(t(x), t(y), t(vs), reduction="sum"),
          (0.5 * (np.log(vs)[:, None] + (x - y) ** 2 / vs[:, None])).sum())
    close(F.gaussian_nll_loss(t(x), t(y), 0.5, reduction="sum"), (0.5 * (np.log(0.5) + (x - y) ** 2 / 0.5)).sum())


def test_gaussian_nll_errors():
    x = t(np.ones((3, 4)))
    with pytest.raises(ValueError, match="^var has negative entry/entries$"):
        F.gaussian_nll_loss(x, x, -x)
    with pytest.raises(ValueError, match="^var has negative entry/entries$"):
        F.gaussian_nll_loss(x, x, -1.0)
    with pytest.raises(ValueError, match="^var is of incorrect size$"):
        F.gaussian_nll_loss(x, x, t(np.ones((2, 4))))
    with pytest.raises(ValueError, match="^x is not valid$"):
        F.gaussian_nll_loss(x, x, x, reduction="x")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin(rng, reduction, weighted):
    x = rng.normal(size=(3, 4)) * 10                # large logits: log-sigmoid stays finite
    y = (rng.uniform(size=(3, 4)) > 0.5).astype(float)
    w = rng.uniform(0.5, 2, 4) if weighted else None
    ref = -(y * np_log_sigmoid(x) + (1 - y) * np_log_sigmoid(-x))
    if w is not None:
        ref = ref * w
    ref = ref.sum(1) / 4
    xt = t(x, True)
    wt = None if w is None else t(w)
    out = F.multilabel_soft_margin_loss(xt, t(y), wt, reduction=reduction)
    close(out, np_reduce(ref, reduction))
    close(nn.MultiLabelSoftMarginLoss(wt, reduction=reduction)(xt, t(y)), np_reduce(ref, reduction))
    assert out.grad_fn.name() == {"none": "DivBackward0", "mean": "MeanBackward0",
                                  "sum": "SumBackward0"}[reduction]
    assert gradcheck(lambda p: F.multilabel_soft_margin_loss(p, t(y), wt, reduction=reduction), (xt,))
    with pytest.raises(ValueError, match="^x is not valid$"):
        F.multilabel_soft_margin_loss(xt, t(y), reduction="x")


def test_loss_modules_repr_and_legacy_reduction():
    assert repr(nn.BCELoss()) == "BCELoss()"
    assert repr(nn.KLDivLoss(reduction="batchmean")) == "KLDivLoss()"
    assert nn.KLDivLoss(reduction="batchmean").reduction == "batchmean"
    assert nn.SmoothL1Loss(size_average=False).reduction == "sum"
    assert nn.BCELoss(reduce=False).reduction == "none"


@requires_cuda
@pytest.mark.parametrize("fn", [F.binary_cross_entropy, F.smooth_l1_loss, F.huber_loss, F.soft_margin_loss,
                                lambda a, b: F.kl_div(a, b, reduction="batchmean"), F.poisson_nll_loss,
                                F.multilabel_soft_margin_loss])
def test_on_cuda_as_on_cpu(rng, fn):
    x, y = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4))
    results = []
    for device in ("cpu", "cuda"):
        a = nbgrad.tensor(x, device=device, requires_grad=True)
        out = fn(a, nbgrad.tensor(y, device=device))
        out.backward()
        assert out.device.type == device
        results.append((out.detach().cpu().numpy(), a.grad.cpu().numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
