"""normal(mean, std) with tensor arguments and bincount with weights record what PyTorch 2.13
records (nbgrad's results did not require grad, so mean.grad stayed None where PyTorch gives
zeros and bincount's backward passed where PyTorch's refuses)."""
import pytest

import nbgrad


@pytest.mark.parametrize("which, name", [("both", "NormalBackward3"), ("mean", "NormalBackward1"),
                                         ("std", "NormalBackward2")])
def test_normal_of_tensors_gives_zero_gradients(which, name):
    mean = nbgrad.zeros(2, 3, requires_grad=True)
    std = nbgrad.ones(2, 3, dtype=nbgrad.float64, requires_grad=True)
    args = {"both": (mean, std), "mean": (mean, 2.0), "std": (0.5, std)}[which]
    out = nbgrad.normal(*args)
    assert out.requires_grad and out.grad_fn.name() == name
    out.sum().backward()
    for t in (mean, std):
        if t is args[0] or t is args[1]:
            assert t.grad is not None and t.grad.shape == t.shape and t.grad.dtype == t.dtype
            assert not t.grad.any().item()
        else:
            assert t.grad is None


def test_normal_of_tensors_records_nothing_without_grad():
    mean = nbgrad.zeros(3, requires_grad=True)
    with nbgrad.no_grad():
        assert not nbgrad.normal(mean, 1.0).requires_grad
    assert not nbgrad.normal(mean.detach(), nbgrad.ones(3)).requires_grad


def test_bincount_of_weights_that_require_grad_refuses_backward():
    w = nbgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    out = nbgrad.bincount(nbgrad.tensor([0, 1, 1]), weights=w)
    assert out.requires_grad and out.grad_fn.name() == "torch::autograd::NotImplemented"
    assert out.tolist() == [0.5, 3.0]
    with pytest.raises(RuntimeError, match="^derivative for aten::bincount is not implemented$"):
        out.sum().backward()
    assert not nbgrad.bincount(nbgrad.tensor([0, 1, 1]), weights=w.detach()).requires_grad
