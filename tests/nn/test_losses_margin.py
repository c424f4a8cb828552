"""Triplet, multi-class and multi-label margin losses (nbgrad/ops/loss_more.py) against float64
NumPy loops written from PyTorch's definitions, finite differences (gradcheck), PyTorch 2.13's
grad_fn names, module reprs and its errors (recorded)."""
import numpy as np
import pytest

import nbgrad
from ._cuda import requires_cuda
from ._float64 import REDUCTIONS, close, np_reduce, t
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# -- triplet margin --------------------------------------------------------------------------
def np_pdist(a, b, p, eps):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


def np_triplet(a, pos, neg, margin, p, eps, swap):
    dp, dn = np_pdist(a, pos, p, eps), np_pdist(a, neg, p, eps)
    if swap:
        dn = np.minimum(dn, np_pdist(pos, neg, p, eps))
    return np.maximum(margin + dp - dn, 0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin,p,eps,swap", [(1.0, 2, 1e-6, False), (2.0, 1, 1e-6, True), (0.5, 3, 1e-3, True)])
def test_triplet_margin_loss(rng, reduction, margin, p, eps, swap):
    a, pos, neg = (rng.standard_normal((5, 4)) for _ in range(3))
    ts = [t(v, True) for v in (a, pos, neg)]
    out = F.triplet_margin_loss(*ts, margin=margin, p=p, eps=eps, swap=swap, reduction=reduction)
    close(out, np_reduce(np_triplet(a, pos, neg, margin, p, eps, swap), reduction))
    assert out.grad_fn.name() == {"none": "ClampMinBackward0", "mean": "MeanBackward0",
                                  "sum": "SumBackward0"}[reduction]
    mod = nn.TripletMarginLoss(margin=margin, p=p, eps=eps, swap=swap, reduction=reduction)
    close(mod(*ts), out.detach().numpy())
    assert gradcheck(lambda *x: F.triplet_margin_loss(*x, margin=margin, p=p, eps=eps, swap=swap,
                                                      reduction=reduction), ts)


def test_triplet_margin_loss_1d_and_swap_node(rng):
    a, pos, neg = (rng.standard_normal(4) for _ in range(3))
    out = F.triplet_margin_loss(t(a, True), t(pos), t(neg), swap=True, reduction="none")
    close(out, np_triplet(a, pos, neg, 1.0, 2, 1e-6, True))
    assert out.shape == ()
    # the swap is a minimum below the clamp
    assert out.grad_fn.next_functions[0][0].next_functions[1][0].name() == "MinimumBackward0"


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(rng, reduction, swap):
    a, pos, neg = (rng.standard_normal((6, 3)) for _ in range(3))
    ts = [t(v, True) for v in (a, pos, neg)]
    out = F.triplet_margin_with_distance_loss(*ts, swap=swap, reduction=reduction)
    close(out, np_reduce(np_triplet(a, pos, neg, 1.0, 2, 1e-6, swap), reduction))
    cos = lambda x, y: 1.0 - F.cosine_similarity(x, y)      # noqa: E731
    out = F.triplet_margin_with_distance_loss(*ts, distance_function=cos, margin=0.3, swap=swap,
                                              reduction=reduction)

    def np_cos(x, y):
        return 1 - (x * y).sum(-1) / np.maximum(np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1), 1e-8)
    dn = np_cos(a, neg)
    if swap:
        dn = np.minimum(dn, np_cos(pos, neg))
    close(out, np_reduce(np.maximum(0.3 + np_cos(a, pos) - dn, 0), reduction))
    mod = nn.TripletMarginWithDistanceLoss(distance_function=cos, margin=0.3, swap=swap, reduction=reduction)
    close(mod(*ts), out.detach().numpy())
    assert gradcheck(lambda *x: F.triplet_margin_with_distance_loss(*x, distance_function=cos, margin=0.3,
                                                                    swap=swap, reduction=reduction), ts)


def test_triplet_errors_and_reprs():
    x, y = t(np.ones(4)), t(np.ones((2, 2)))
    msg = ("The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
           "but got: anchor 1D, positive 2D, and negative 1D inputs")
    with pytest.raises(RuntimeError, match=msg):
        F.triplet_margin_loss(x, y, x)
    with pytest.raises(RuntimeError, match=msg):
        F.triplet_margin_with_distance_loss(x, y, x)
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_loss(x, x, x, margin=0)
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.triplet_margin_with_distance_loss(x, x, x, reduction="foo")
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0, got -1 instead"):
        nn.TripletMarginLoss(margin=-1)
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=0)
    assert repr(nn.TripletMarginLoss(margin=2.0, p=1, swap=True)) == "TripletMarginLoss()"
    assert repr(nn.TripletMarginWithDistanceLoss()) == ("TripletMarginWithDistanceLoss(\n"
                                                       "  (distance_function): PairwiseDistance()\n)")
    assert repr(nn.TripletMarginWithDistanceLoss(distance_function=nn.CosineSimilarity())) == (
        "TripletMarginWithDistanceLoss(\n  (distance_function): CosineSimilarity()\n)")
    assert repr(nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: a)) == \
        "TripletMarginWithDistanceLoss()"


# -- multi margin ------------------------------------------------------------------------------
def np_multi_margin(x, y, p, margin, w):
    x = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    y = np.asarray(y).reshape(-1)
    out = np.zeros(x.shape[0])
    for n in range(x.shape[0]):
        for i in range(x.shape[1]):
            if i == y[n]:
                continue
            z = margin - x[n, y[n]] + x[n, i]
            if z > 0:
                out[n] += (z if p == 1 else z * z) * (1.0 if w is None else w[y[n]])
    return out / x.shape[1]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 1.0, False), (1, 0.5, True), (2, 2.0, True)])
def test_multi_margin_loss(rng, reduction, p, margin, weighted):
    x, y = rng.standard_normal((6, 5)), np.array([0, 4, 2, 2, 1, 3])
    w = rng.uniform(0.5, 2, 5) if weighted else None
    xt, yt, wt = t(x, True), nbgrad.tensor(y), None if w is None else t(w)
    out = F.multi_margin_loss(xt, yt, p=p, margin=margin, weight=wt, reduction=reduction)
    close(out, np_reduce(np_multi_margin(x, y, p, margin, w), reduction))
    assert out.grad_fn.name() == "MultiMarginLossBackward0"
    close(nn.MultiMarginLoss(p=p, margin=margin, weight=wt, reduction=reduction)(xt, yt), out.detach().numpy())
    assert gradcheck(lambda a: F.multi_margin_loss(a, yt, p=p, margin=margin, weight=wt, reduction=reduction),
                     (xt,))


def test_multi_margin_loss_shapes_and_no_double_backward(rng):
    x = rng.standard_normal(4)
    # 'none' keeps the target's dims: 0-d target -> 0-d loss, 1-d target of one -> [1]
    assert F.multi_margin_loss(t(x), nbgrad.tensor(1), reduction="none").shape == ()
    assert F.multi_margin_loss(t(x), nbgrad.tensor([1]), reduction="none").shape == (1,)
    assert F.multi_margin_loss(t(x[0]), nbgrad.tensor(0), reduction="none").shape == ()
    close(F.multi_margin_loss(t(x), nbgrad.tensor([2]), p=2), np_multi_margin(x, [2], 2, 1.0, None).mean())
    xt = t(x.reshape(2, 2), True)
    gx, = nbgrad.autograd.grad(F.multi_margin_loss(xt, nbgrad.tensor([0, 1])), xt, create_graph=True)
    assert gx.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::multi_margin_loss_backward is not implemented"):
        gx.sum().backward()


def test_multi_margin_loss_errors():
    x = t(np.ones(4))
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, nbgrad.tensor(5))
    with pytest.raises(RuntimeError, match=r"multi_margin_loss: target tensor should be 1-D with size equal to the "
                       r"number of input samples \(batch size\). Expected target size \[2\], but got \[3\]. "
                       r"Input has shape \[2, 2\]."):
        F.multi_margin_loss(x.view(2, 2), nbgrad.tensor([0, 1, 1]))
    with pytest.raises(RuntimeError, match=r"inconsistent weight size, expected 4 but got \[3\]"):
        F.multi_margin_loss(x, nbgrad.tensor(1), weight=t(np.ones(3)))
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(x, nbgrad.tensor(1), p=3)
    with pytest.raises(ValueError, match="weight must be one-dimensional"):
        F.multi_margin_loss(x, nbgrad.tensor(1), weight=t(np.ones((2, 2))))
    with pytest.raises(RuntimeError, match=r"Expected non-empty vector or matrix with optional 0-dim batch size, "
                       r"but got: \[2, 0\]"):
        F.multi_margin_loss(nbgrad.zeros(2, 0), nbgrad.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.multi_margin_loss(x, nbgrad.tensor(1.0))
    with pytest.raises(ValueError, match="MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"):
        nn.MultiMarginLoss(weight=t(np.ones((2, 2))))
    assert repr(nn.MultiMarginLoss(p=2, margin=0.5)) == "MultiMarginLoss()"


# -- multi-label margin ------------------------------------------------------------------------
def np_multilabel_margin(x, y):
    dim = x.shape[-1] if x.ndim else 1
    x, y = x.reshape(-1, dim), np.asarray(y).reshape(-1, dim)
    out = np.zeros(x.shape[0])
    for n in range(x.shape[0]):
        labels = []
        for j in y[n]:
            if j == -1:
                break
            labels.append(j)
        for j in labels:
            for i in range(dim):
                if i not in labels:
                    out[n] += max(0.0, 1 - (x[n, j] - x[n, i]))
    return out / dim


Y = np.array([[3, 0, -1, 1, 1], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0], [2, 2, -1, 4, 4], [4, -1, 0, 0, 0],
              [1, 3, 0, -1, 2]])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(rng, reduction):
    x = rng.standard_normal((6, 5)) * 0.7
    xt, yt = t(x, True), nbgrad.tensor(Y)
    out = F.multilabel_margin_loss(xt, yt, reduction=reduction)
    close(out, np_reduce(np_multilabel_margin(x, Y), reduction))
    assert out.grad_fn.name() == "MultilabelMarginLossBackward0"
    close(nn.MultiLabelMarginLoss(reduction=reduction)(xt, yt), out.detach().numpy())
    assert gradcheck(lambda a: F.multilabel_margin_loss(a, yt, reduction=reduction), (xt,))
    # one sample: a 1-d input and target, a 0-d loss even unreduced
    out1 = F.multilabel_margin_loss(t(x[0], True), nbgrad.tensor(Y[0]), reduction=reduction)
    assert out1.shape == ()
    close(out1, np_multilabel_margin(x[0], Y[0])[0])


def test_multilabel_margin_loss_no_double_backward_and_errors(rng):
    xt = t(rng.standard_normal((2, 3)), True)
    gx, = nbgrad.autograd.grad(F.multilabel_margin_loss(xt, nbgrad.tensor([[0, -1, 2], [1, 2, -1]])), xt,
                               create_graph=True)
    assert gx.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::multilabel_margin_loss_backward is not implemented"):
        gx.sum().backward()
    x = t(np.ones(4))
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(x, nbgrad.tensor([5, 0, 0, 0]))
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(x, nbgrad.tensor([-2, 0, 0, 0]))
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[3\] for input of size: \[4\]"):
        F.multilabel_margin_loss(x, nbgrad.tensor([1, 0, 0]))
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[2\] for input of size: \[2, 2\]"):
        F.multilabel_margin_loss(x.view(2, 2), nbgrad.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.multilabel_margin_loss(x, nbgrad.tensor([1.0, 0, 0, 0]))
    assert repr(nn.MultiLabelMarginLoss()) == "MultiLabelMarginLoss()"


@requires_cuda
@pytest.mark.parametrize("name", ["triplet", "multi_margin", "multilabel_margin"])
def test_on_cuda_as_on_cpu(rng, name):
    x = rng.standard_normal((3, 4))
    others = [rng.standard_normal((3, 4)) for _ in range(2)]
    results = []
    for device in ("cpu", "cuda"):
        a = nbgrad.tensor(x, device=device, requires_grad=True)
        if name == "triplet":
            out = F.triplet_margin_loss(a, *(nbgrad.tensor(o, device=device) for o in others), swap=True)
        elif name == "multi_margin":
            out = F.multi_margin_loss(a, nbgrad.tensor([0, 3, 1], device=device), p=2,
                                      weight=nbgrad.tensor(np.arange(1.0, 5.0), device=device))
        else:
            out = F.multilabel_margin_loss(a, nbgrad.tensor([[0, 2, -1, 1], [3, -1, 0, 0], [1, 0, 2, 3]],
                                                            device=device))
        out.backward()
        assert out.device.type == device
        results.append((out.detach().cpu().numpy(), a.grad.cpu().numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
