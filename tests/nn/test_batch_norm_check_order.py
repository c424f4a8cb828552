"""F.batch_norm and F.instance_norm refuse bad input as PyTorch does, in its order: their Python
first (batch_norm's `if training: _verify_batch_size`, its eps checks; instance_norm's spatial
check), then the argument parser, then ATen's checks (an empty input is returned before any of
them), the dtype last.  Expected errors recorded from PyTorch 2.13."""
import pytest

import nbgrad

F = nbgrad.nn.functional


def _x():
    return nbgrad.ones(2, 3, 4)


CASES = [
    (lambda: F.batch_norm(_x(), nbgrad.zeros(3), nbgrad.ones(3), training=True, eps=0.0), ValueError,
     "batch_norm eps must be positive during training, but got 0.0"),
    (lambda: F.batch_norm(_x(), nbgrad.zeros(3), nbgrad.ones(3), eps=-1.0), ValueError,
     "batch_norm eps must be non-negative, but got -1.0"),
    (lambda: F.batch_norm(nbgrad.tensor(1.0), None, None, training=True), IndexError, "tuple index out of range"),
    (lambda: F.batch_norm(_x().long(), nbgrad.zeros(9), nbgrad.zeros(9)), RuntimeError,
     "running_mean should contain 3 elements not 9"),
    (lambda: F.batch_norm(_x(), None, nbgrad.zeros(3), nbgrad.ones(5)), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda: F.batch_norm(nbgrad.ones(3), None, None, training=True), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: F.batch_norm(nbgrad.ones(3), nbgrad.zeros(1), nbgrad.ones(1)), RuntimeError,
     "running_mean should contain 0 elements not 1"),
    (lambda: F.batch_norm(_x(), nbgrad.zeros(9), nbgrad.zeros(9), (1, 2)), TypeError,
     "batch_norm(): argument 'weight' (position 2) must be Tensor, not tuple"),
    (lambda: F.batch_norm(_x(), nbgrad.zeros(3), nbgrad.ones(3), training=nbgrad.ones(2)), RuntimeError,
     "Boolean value of Tensor with more than one value is ambiguous"),
    (lambda: F.instance_norm(nbgrad.ones(3, 1, dtype=nbgrad.int64)), ValueError,
     "Expected more than 1 spatial element when training, got input size"),
    (lambda: F.instance_norm(_x(), use_input_stats=False), RuntimeError,
     "Expected running_mean and running_var to be defined when use_input_stats is false"),
    (lambda: F.instance_norm(_x(), use_input_stats=nbgrad.ones(2)), RuntimeError,
     "Boolean value of Tensor with more than one value is ambiguous"),
]


@pytest.mark.parametrize("call,error,message", CASES)
def test_normalisation_refuses_in_pytorchs_order(call, error, message):
    with pytest.raises(error) as e:
        call()
    assert str(e.value).startswith(message)


def test_an_empty_batch_is_returned_before_any_check():
    # (nbgrad refused the integral dtype and the running statistics' sizes first)
    for training in (False, True):
        out = F.batch_norm(nbgrad.ones(0, 3, dtype=nbgrad.int64), nbgrad.zeros(5), nbgrad.zeros(5), training=training)
        assert out.shape == (0, 3) and out.dtype == nbgrad.int64


def test_instance_norm_has_no_eps_check():
    # (F.batch_norm's eps checks are its Python's; instance_norm calls ATen's batch_norm)
    y = F.instance_norm(nbgrad.arange(8.0).reshape(1, 2, 4), eps=0.0)
    assert y.shape == (1, 2, 4)
