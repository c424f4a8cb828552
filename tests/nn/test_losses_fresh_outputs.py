"""A reduced loss is a new tensor every call, never a shared cached scalar: two equal
losses must not be one object (their grad_fns would overwrite each other), and a
later `x + value` must not pick up a loss's graph."""
import numpy as np
import pytest

import nbgrad
F = nbgrad.nn.functional


def _losses():
    x = nbgrad.zeros(4, 3, requires_grad=True)
    t = nbgrad.tensor([0, 1, 2, 0])
    y = nbgrad.full((2,), 0.5, requires_grad=True)
    p = nbgrad.full((2,), 0.5)
    return [
        (lambda: F.cross_entropy(x, t), x),
        (lambda: F.cross_entropy(x, t, reduction="sum"), x),
        (lambda: F.nll_loss(x, t), x),
        (lambda: F.mse_loss(y, p), y),
        (lambda: F.binary_cross_entropy_with_logits(y, p), y),
    ]


@pytest.mark.parametrize("case", range(5))
def test_equal_losses_are_distinct_tensors_with_their_own_graphs(case):
    make, leaf = _losses()[case]
    first, second = make(), make()
    assert first is not second
    assert first.grad_fn is not second.grad_fn
    first.backward()
    g = leaf.grad.clone()
    second.backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 2 * g.numpy())


def test_loss_value_does_not_leak_into_scalar_operands():
    y = nbgrad.ones(2, requires_grad=True)
    loss = F.mse_loss(y, nbgrad.ones(2))            # exactly 0.0
    assert loss.item() == 0.0
    z = nbgrad.zeros(2) + 0.0                        # a Python 0.0 operand
    assert not z.requires_grad and z.grad_fn is None
    w = nbgrad.zeros(2) * 0.0
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
