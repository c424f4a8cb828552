"""The classes API fuzz seed 44 found (PyTorch 2.13's behaviour recorded): smooth_l1_loss with
beta 0 is PyTorch's Python's l1_loss (|input - target| of the broadcast pair, uncast: a bool
input is the subtraction's error); a 16-bit histogram of no data is counted."""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_smooth_l1_with_beta_zero_is_l1_loss():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with a bool tensor is not supported"):
            F.smooth_l1_loss(nbgrad.ones(0, dtype=nbgrad.bool), nbgrad.tensor(1.0), beta=0.0)
    i = nbgrad.ones(3, dtype=nbgrad.int64)
    assert F.smooth_l1_loss(i, nbgrad.zeros(3, dtype=nbgrad.int64), beta=0.0, reduction="sum").item() == 3
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    loss = F.smooth_l1_loss(x, nbgrad.tensor([0.5, 4.0]), beta=0.0)
    assert loss.item() == 1.25 and loss.grad_fn.name() == "MeanBackward0"


def test_a_16_bit_histogram_of_no_data():
    hist, edges = nbgrad.histogram(nbgrad.ones(0, dtype=nbgrad.bfloat16))
    assert hist.shape == (100,) and not hist.any().item()
    with pytest.raises(NotImplementedError):
        nbgrad.histogram(nbgrad.ones(2, dtype=nbgrad.bfloat16))
