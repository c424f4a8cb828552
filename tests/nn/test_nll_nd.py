"""nll_loss and cross_entropy of more than 2 dims are ATen's nll_loss_nd: a 4-D input goes to
nll_loss2d (NllLoss2DBackward0), a 3-D or 5+-D one is viewed as (n, c, 1, -1) first (its
ViewBackward0, CloneBackward0 before it when not contiguous) and a 'none' loss viewed back; a
weight that requires grad is refused as PyTorch's autograd refuses it; class-probability
targets are ATen's cross_entropy_loss_prob_target op for op.  Node chains and errors recorded
from PyTorch 2.13; values against NumPy, gradients against float64 finite differences."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


def chain(fn):
    """The node names from fn down its first non-leaf input."""
    names = []
    while fn is not None:
        names.append(fn.name())
        nexts = [f for f, _ in fn.next_functions if f is not None and f.name() != "torch::autograd::AccumulateGrad"]
        fn = nexts[0] if nexts else None
    return names


def _target(rng, x_shape, c):
    shape = (x_shape[0],) + tuple(x_shape[2:]) if len(x_shape) > 1 else ()
    return nbgrad.tensor(rng.integers(0, c, shape))


# (function, input shape, reduction) -> PyTorch 2.13's chain
CHAINS = [
    ("cross_entropy", (4, 5), "mean", ["NllLossBackward0", "LogSoftmaxBackward0"]),
    ("cross_entropy", (2, 5, 3), "mean", ["NllLoss2DBackward0", "ViewBackward0", "LogSoftmaxBackward0"]),
    ("cross_entropy", (2, 5, 3), "none",
     ["ViewBackward0", "NllLoss2DBackward0", "ViewBackward0", "LogSoftmaxBackward0"]),
    ("cross_entropy", (2, 5, 3, 2), "none", ["NllLoss2DBackward0", "LogSoftmaxBackward0"]),
    ("cross_entropy", (2, 5, 3, 2, 2), "sum", ["NllLoss2DBackward0", "ViewBackward0", "LogSoftmaxBackward0"]),
    ("cross_entropy", (2, 3, 0, 2), "none", ["NllLoss2DBackward0", "LogSoftmaxBackward0"]),
    ("nll_loss", (2, 3, 4, 2, 2), "none", ["ViewBackward0", "NllLoss2DBackward0", "ViewBackward0"]),
    ("nll_loss", (2, 3, 4, 2, 2), "sum", ["NllLoss2DBackward0", "ViewBackward0"]),
    ("nll_loss", (2, 3, 4, 2), "mean", ["NllLoss2DBackward0"]),
]


@pytest.mark.parametrize("fn, shape, reduction, expected", CHAINS)
def test_node_chain_is_pytorchs(fn, shape, reduction, expected):
    rng = np.random.default_rng(0)
    x = nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)
    loss = getattr(F, fn)(x, _target(rng, shape, shape[1]), reduction=reduction)
    assert chain(loss.grad_fn) == expected


def test_a_non_contiguous_input_is_cloned_then_viewed():
    x = nbgrad.randn(3, 5, 2, requires_grad=True)
    loss = F.nll_loss(x.transpose(0, 2), nbgrad.zeros(2, 3, dtype=nbgrad.int64), reduction="none")
    assert chain(loss.grad_fn) == ["ViewBackward0", "NllLoss2DBackward0", "ViewBackward0", "CloneBackward0",
                                   "TransposeBackward0"]
    assert tuple(loss.shape) == (2, 3)
    view = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert view._saved_self_sym_sizes == (2, 5, 3)


def test_the_fused_view_saves_the_input_sizes():
    x = nbgrad.randn(2, 5, 3, requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.zeros(2, 3, dtype=nbgrad.int64))
    view = loss.grad_fn.next_functions[0][0]
    assert view.name() == "ViewBackward0" and view._saved_self_sym_sizes == (2, 5, 3)
    assert view.next_functions[0][0].name() == "LogSoftmaxBackward0"


def _np_nll(logp, t, w, reduction, ignore_index=-100):
    """nll over dim 1 of a (n, c, ...) array."""
    moved = np.moveaxis(logp, 1, -1).reshape(-1, logp.shape[1])
    tf = t.reshape(-1)
    keep = tf != ignore_index
    wt = np.where(keep, (w if w is not None else np.ones(logp.shape[1]))[np.where(keep, tf, 0)], 0.0)
    rows = -wt * moved[np.arange(len(tf)), np.where(keep, tf, 0)]
    if reduction == "none":
        return rows.reshape(t.shape)
    return rows.sum() if reduction == "sum" else rows.sum() / wt.sum()


@pytest.mark.parametrize("shape", [(2, 4, 3), (2, 4, 3, 2), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
def test_values_and_gradients(fn, shape, reduction):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    t = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    t.reshape(-1)[1] = -100
    w = rng.uniform(0.5, 2.0, shape[1])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True)) if fn == "cross_entropy" else x
    got = getattr(F, fn)(nbgrad.tensor(x), nbgrad.tensor(t), weight=nbgrad.tensor(w), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), _np_nll(logp, t, w, reduction), rtol=1e-12, atol=1e-12)
    assert tuple(got.shape) == (tuple(t.shape) if reduction == "none" else ())
    xt = nbgrad.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: getattr(F, fn)(a, nbgrad.tensor(t), weight=nbgrad.tensor(w), reduction=reduction),
                     (xt,))


def test_an_empty_class_dim_is_nll_loss2ds_size_mismatch():
    with pytest.raises(RuntimeError, match=r"^size mismatch \(got input: \[2, 0, 0, 0\] , target: \[2, 1, 3\]$"):
        F.nll_loss(nbgrad.zeros(2, 0, 3), nbgrad.zeros(2, 3, dtype=nbgrad.int64))


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("shape, name", [((3, 4), "nll_loss_forward"), ((3, 4, 2), "nll_loss2d_forward"),
                                         ((3, 4, 2, 2), "nll_loss2d_forward")])
def test_a_weight_that_requires_grad_is_refused(fn, shape, name):
    x = nbgrad.randn(*shape)            # (the input need not require grad)
    t = nbgrad.zeros((shape[0],) + shape[2:], dtype=nbgrad.int64)
    w = nbgrad.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"^The function '{name}' is not differentiable with respect to "
                                           "argument 'weight'. This input cannot have requires_grad True.$"):
        getattr(F, fn)(x, t, weight=w)
    with nbgrad.no_grad():
        assert getattr(F, fn)(x, t, weight=w).item() == getattr(F, fn)(x, t).item()


# class-probability targets: (input shape, reduction, weighted) -> PyTorch 2.13's chain
PROB_CHAINS = [
    ((4, 5), "mean", False, ["DivBackward1", "NegBackward0", "SumBackward0", "MulBackward0", "LogSoftmaxBackward0"]),
    ((3, 4, 2), "mean", True, ["DivBackward1", "NegBackward0", "SumBackward0", "MulBackward0", "MulBackward0",
                               "LogSoftmaxBackward0"]),
    ((4,), "sum", False, ["NegBackward0", "SumBackward0", "MulBackward0", "LogSoftmaxBackward0"]),
    ((3, 4, 2), "none", False, ["NegBackward0", "SumBackward1", "MulBackward0", "LogSoftmaxBackward0"]),
    ((0, 4), "mean", False, ["NegBackward0", "FillBackward2", "SumBackward0", "MulBackward0", "LogSoftmaxBackward0"]),
]


@pytest.mark.parametrize("shape, reduction, weighted, expected", PROB_CHAINS)
def test_probability_targets_are_atens_ops(shape, reduction, weighted, expected):
    rng = np.random.default_rng(1)
    c = shape[0] if len(shape) == 1 else shape[1]
    x = nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)
    p = nbgrad.tensor(rng.random(shape))
    w = nbgrad.tensor(rng.uniform(0.5, 2.0, c)) if weighted else None
    loss = F.cross_entropy(x, p, weight=w, reduction=reduction, label_smoothing=0.1)
    assert chain(loss.grad_fn) == expected
    if x.numel() == 0:
        assert np.isnan(loss.item())
        return
    xn, pn = x.detach().numpy(), p.numpy()
    dim = 0 if len(shape) == 1 else 1
    logp = xn - np.log(np.exp(xn).sum(dim, keepdims=True))
    pn = pn * 0.9 + 0.1 / c
    wb = 1.0 if w is None else w.numpy().reshape([c if d == dim else 1 for d in range(len(shape))])
    terms = -(logp * pn * wb).sum(dim)
    want = terms if reduction == "none" else terms.sum() if reduction == "sum" else terms.sum() / (xn.size // c)
    np.testing.assert_allclose(loss.detach().numpy(), want, rtol=1e-12, atol=1e-14)
    assert gradcheck(lambda a, b: F.cross_entropy(a, b, weight=w, reduction=reduction, label_smoothing=0.1),
                     (x, p.clone().requires_grad_()))
