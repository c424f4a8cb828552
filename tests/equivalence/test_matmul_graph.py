"""Batched matmul builds PyTorch's graph: expand + reshape + bmm + _unsafe_view.

PyTorch's _matmul_impl makes a batched product of its operands expanded to the broadcast
batch and reshaped to 3-D, so the graph a user walks (next_functions) is UnsafeViewBackward0,
BmmBackward0, then per operand ViewBackward0 (or UnsafeViewBackward0 and CloneBackward0 for
an expanded batch that had to be copied) and ExpandBackward0.  The engine's order follows
those nodes: where a failing backward stops (seed 51006725).  Every expected value was
recorded from torch 2.13.
"""
import numpy as np
import pytest

import nbgrad as T

ACC = "torch::autograd::AccumulateGrad"


def _names(fn, out=None):
    out = [] if out is None else out
    if fn is not None:
        out.append(fn.name())
        for nxt, _ in fn.next_functions:
            _names(nxt, out)
    return out


def _operand(shape, scale, shift, requires_grad):
    values = np.arange(np.prod(shape), dtype=float).reshape(shape) / scale - shift
    return T.tensor(values, dtype=T.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("sa, sb, ra, rb, names, y_sum, grads", [
    ((2, 3, 4), (2, 4, 5), True, True,
     ["UnsafeViewBackward0", "BmmBackward0", "ViewBackward0", "ExpandBackward0", ACC, "ViewBackward0",
      "ExpandBackward0", ACC], 373.71428571428567, [((12, 4, 1), 504.0), ((20, 5, 1), 154.28571428571428)]),
    # an expanded batch is copied by reshape: UnsafeViewBackward0 over CloneBackward0
    ((2, 1, 3, 4), (5, 4, 2), True, False,
     ["UnsafeViewBackward0", "BmmBackward0", "UnsafeViewBackward0", "CloneBackward0", "ExpandBackward0", ACC],
     310.2857142857143, [((12, 12, 4, 1), 240.0), None]),
    ((3, 4), (2, 4, 5), False, True,
     ["UnsafeViewBackward0", "BmmBackward0", "ViewBackward0", "ExpandBackward0", ACC],
     -27.42857142857143, [None, ((20, 5, 1), -51.42857142857143)]),
    # a vector first, the batch not foldable without a copy: batched too
    ((4,), (2, 4, 3), False, True,
     ["UnsafeViewBackward0", "BmmBackward0", "ViewBackward0", "ExpandBackward0", ACC],
     -3.0857142857142845, [None, ((12, 3, 1), -18.857142857142858)]),
])
def test_batched_matmul_graph_values_and_gradients(sa, sb, ra, rb, names, y_sum, grads):
    a, b = _operand(sa, 7, 1, ra), _operand(sb, 5, 2, rb)
    y = T.matmul(a, b)
    assert _names(y.grad_fn) == names
    assert y.sum().item() == pytest.approx(y_sum, rel=1e-14)
    y.backward(T.ones_like(y) * T.arange(y.shape[-1], dtype=T.float64))
    for t, want in zip((a, b), grads):
        if want is None:
            assert t.grad is None
        else:
            assert t.grad.stride() == want[0] and t.grad.sum().item() == pytest.approx(want[1], rel=1e-14)


def test_a_failing_backward_through_bmm_sets_the_later_operand_grad_first():
    # seed 51006725: bmm's operands' chains run newest first, so the second operand's leaf
    # gets its gradient before the first operand's error node raises
    v0 = T.tensor([[[-1.0], [-0.5]]], requires_grad=True)
    v2 = v0.squeeze(1) // -1
    v6 = T.tensor([[[-0.26]]], requires_grad=True)
    v7 = T.matmul(v2, v6)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        v7.sum().backward()
    assert v6.grad.tolist() == [[[1.0]]]


def test_batched_matmul_without_recording_gives_the_same_values():
    a, b = _operand((2, 1, 3, 4), 7, 1, False), _operand((5, 4, 2), 5, 2, False)
    with T.no_grad():
        y = T.matmul(a, b)
    assert y.grad_fn is None and y.shape == (2, 5, 3, 2) and y.stride() == (30, 6, 2, 1)
    assert y.sum().item() == pytest.approx(310.2857142857143, rel=1e-14)
    v = _operand((4,), 3, 1, False)
    bt = _operand((3, 2, 4), 5, 2, False).transpose(1, 2)
    np.testing.assert_allclose(T.matmul(v, bt).numpy(), np.matmul(v.numpy(), bt.numpy()), rtol=1e-14)


@pytest.mark.parametrize("sa, sb, requires_grad, message", [
    ((5,), (2, 4, 3), False, r"Expected size for first two dimensions of batch2 tensor to be: \[2, 5\] but got: \[2, 4\]\."),
    # a vector that requires grad is folded: mv's message
    ((5,), (2, 4, 3), True, r"size mismatch, got input \(6\), mat \(6x4\), vec \(5\)"),
    ((3,), (2, 2, 4, 5), False, r"Expected size for first two dimensions of batch2 tensor to be: \[4, 3\] but got: \[4, 4\]\."),
    ((3,), (2, 2, 4, 5), True, r"size mismatch, got input \(20\), mat \(20x4\), vec \(3\)"),
    ((2, 3, 4), (5,), False, r"size mismatch, got input \(6\), mat \(6x4\), vec \(5\)"),
])
def test_batched_matmul_size_errors(sa, sb, requires_grad, message):
    with pytest.raises(RuntimeError, match=message):
        T.matmul(T.ones(sa, requires_grad=requires_grad), T.ones(sb))
