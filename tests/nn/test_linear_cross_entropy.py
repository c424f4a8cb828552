"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions (new in
PyTorch 2.13): the reference path is linear then cross_entropy; the chunked path gives its
values and gradients (float64, against the reference), PyTorch's node names and its refusals
(messages recorded from PyTorch 2.13)."""
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad import nn

F = nn.functional
O = nn.LinearCrossEntropyOptions
CHUNKED = "GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_defaultBackward"
CHUNKED_NONE = "GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_defaultBackward"


def _leaves(seed, n=6, k=3, c=5, bias=True):
    rng = np.random.default_rng(seed)
    x = nbgrad.tensor(rng.standard_normal((n, k)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal((c, k)), requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal(c), requires_grad=True) if bias else None
    t = nbgrad.tensor(rng.integers(0, c, n))
    return x, w, b, t


def _grads(loss, leaves, g=None):
    loss.backward(g)
    return [None if v is None else v.grad.numpy().copy() for v in leaves]


def test_the_reference_path_is_linear_then_cross_entropy():
    x, w, b, t = _leaves(0)
    cw = nbgrad.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=nbgrad.float64)
    got = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, ignore_index=2, label_smoothing=0.1)
    want = F.cross_entropy(F.linear(x, w, b), t, weight=cw, ignore_index=2, label_smoothing=0.1)
    assert got.item() == want.item() and got.grad_fn.name() == want.grad_fn.name()
    # a K-dimensional loss: linear_weight (C, d1, in), the logits (N, C, d1)
    w3 = nbgrad.tensor(np.random.default_rng(1).standard_normal((5, 2, 3)), requires_grad=True)
    t3 = nbgrad.tensor([[0, 1], [4, 2], [3, 3], [1, 0], [2, 2], [0, 4]])
    got = F.linear_cross_entropy(x, w3, t3)
    want = F.cross_entropy(F.linear(x, w3.reshape(10, 3)).reshape(6, 5, 2), t3)
    assert got.item() == want.item()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("chunk", [1, 4, None])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_chunked_path_gives_the_references_values_and_gradients(reduction, chunk, weighted):
    x, w, b, t = _leaves(2)
    t = nbgrad.tensor([0, 4, -100, 2, 1, -100])                     # (ignored rows too)
    cw = nbgrad.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=nbgrad.float64) if weighted else None
    g = nbgrad.tensor(np.arange(1.0, 7.0)) if reduction == "none" else None
    ref = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, reduction=reduction)
    want = _grads(ref, (x, w, b), g)
    for v in (x, w, b):
        v.grad = None
    got = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, reduction=reduction,
                                 options=O(batch_chunk_size=chunk))
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert got.grad_fn.name() == (CHUNKED_NONE if reduction == "none" else CHUNKED)
    # one slot per tensor argument of PyTorch's op: input, linear_weight, target, linear_bias, weight
    assert len(got.grad_fn.next_functions) == 4 + weighted
    for a, e in zip(_grads(got, (x, w, b), g), want):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-13)


def test_the_chunked_gradients_are_consumed_by_one_backward():
    x, w, b, t = _leaves(3, bias=False)
    loss = F.linear_cross_entropy(x, w, t, options=O())
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match=r"^linear_cross_entropy chunked backward called twice; "
                                           r"retain_graph=True / double backward are not supported\.$"):
        loss.backward()
    first = x.grad.numpy().copy()
    loss = F.linear_cross_entropy(x, w, t, options=O(allow_retain_graph=True))
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * first, rtol=1e-12)
    assert len(loss.grad_fn.next_functions) == 3


def test_what_the_chunked_path_does_not_take_warns_and_takes_the_reference():
    x, w, b, t = _leaves(4)
    with pytest.warns(UserWarning, match=r"^linear_cross_entropy: ``options`` ignored; chunked path needs "):
        loss = F.linear_cross_entropy(x, w, t, label_smoothing=0.2, options=O())
    assert loss.item() == F.cross_entropy(F.linear(x, w), t, label_smoothing=0.2).item()
    with pytest.raises(RuntimeError, match="^index 5 is out of bounds for dimension 1 with size 5$"):
        F.linear_cross_entropy(x, w, nbgrad.tensor([0, 1, 2, 3, 4, 5]), options=O())
    with pytest.raises(IndexError, match="^index out of range in self$"):
        F.linear_cross_entropy(x, w, nbgrad.tensor([0, 1, 2, 3, 4, -3]), weight=nbgrad.ones(5, dtype=nbgrad.float64),
                               options=O())


@pytest.mark.parametrize("call, error, message", [
    (lambda x, w, t: F.linear_cross_entropy(x.unsqueeze(0), w, t), RuntimeError,
     "expected input with dimensionality 1 or 2, got 3"),
    (lambda x, w, t: F.linear_cross_entropy(x, w[0], t), RuntimeError,
     "expected linear_weight with dimensionality at least 2, got 1"),
    (lambda x, w, t: F.linear_cross_entropy(x, w[:, :2], t), RuntimeError,
     r"expected equal input and linear_weight last dimensions \(in_features\), got 3 and 2, respectively"),
    (lambda x, w, t: F.linear_cross_entropy(x, w, t, linear_bias=nbgrad.ones(4)), RuntimeError,
     r"expected linear_bias shape \(5,\), got \(4,\)"),
    (lambda x, w, t: F.linear_cross_entropy(x[0], w.reshape(5, 1, 3), t[0]), RuntimeError,
     r"K-dimensional loss defined by linear_weight shape \(5, 1, 3\) requires batched input, \(N, 3\), got "
     r"unbatched input with shape \(3,\)"),
    (lambda x, w, t: F.linear_cross_entropy(x, w, nbgrad.ones(6, 5), ignore_index=1), RuntimeError,
     "ignore_index cannot be specified when target contains probabilities"),
    (lambda x, w, t: O(acc_policy="x"), ValueError, "invalid acc_policy: 'x'"),
    (lambda x, w, t: O(chunking_method="aspect_ratio:0"), ValueError, "invalid chunking_method: 'aspect_ratio:0'"),
    (lambda x, w, t: O(batch_chunk_size=0), ValueError, "batch_chunk_size must be positive int or None, got 0"),
    (lambda x, w, t: F.linear_cross_entropy(x, w, t, options=O(batch_chunk_size=3, chunking_method="aspect_ratio")),
     ValueError, r"batch_chunk_size \(=3\) and chunking_method \('aspect_ratio'\) give different chunk sizes "
                 r"\(3 vs 4\); pass only one\."),
])
def test_refusals(call, error, message):
    x, w, b, t = _leaves(5)
    with pytest.raises(error, match="^" + message + "$"):
        call(x, w, t)


def test_the_module_reshapes_its_linear():
    torch_repr = ("LinearCrossEntropyLoss(\n  in_features=3, num_classes=5, out_features=(2,), bias=True, "
                  "reduction=mean, ignore_index=None, label_smoothing=0.0, options=None\n  (linear): "
                  "Linear(in_features=3, out_features=10, bias=True)\n)")
    m = nn.LinearCrossEntropyLoss(3, 5, out_features=(2,), bias=True, dtype=nbgrad.float64)
    assert repr(m) == torch_repr and [n for n, _ in m.named_parameters()] == ["linear.weight", "linear.bias"]
    x, _, _, _ = _leaves(6)
    t3 = nbgrad.tensor([[0, 1], [4, 2], [3, 3], [1, 0], [2, 2], [0, 4]])
    want = F.cross_entropy((x @ m.linear.weight.t() + m.linear.bias).reshape(6, 5, 2), t3)
    np.testing.assert_allclose(m(x, t3).item(), want.item(), rtol=1e-14)
    with pytest.raises(RuntimeError, match=r"^expected weight shape to be \(5,\), got \(4,\)$"):
        nn.LinearCrossEntropyLoss(3, 5, weight=nbgrad.ones(4))
    with pytest.raises(RuntimeError, match=r"^expected label_smoothing to be in range \[0, 1\], got 2.0$"):
        nn.LinearCrossEntropyLoss(3, 5, label_smoothing=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.LinearCrossEntropyLoss(3, 5, options=O(batch_chunk_size=2)).options.batch_chunk_size == 2
