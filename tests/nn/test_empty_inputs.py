"""Layers on inputs with an empty dim, as PyTorch 2.13 treats them: norms of an empty batch
(batch_norm clones it, times weight[0], plus bias[0]), feature dropout of nothing returns the
input, and PyTorch's messages where pooling and reflection/replication padding take an
empty batch only (these raised ZeroDivisionError, a reshape error or IndexError, or gave a
result PyTorch refuses)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.nn import functional as F


def _z(*shape):
    return nbgrad.zeros(*shape, requires_grad=True)


@pytest.mark.parametrize("shape", [(0, 3, 4, 4), (2, 0, 4, 4), (0, 3, 0, 4)])
def test_norms_of_empty_inputs(shape):
    x = _z(*shape)
    c = shape[1]
    w, b = nbgrad.ones(c, requires_grad=True), nbgrad.zeros(c, requires_grad=True)
    y = F.batch_norm(x, None, None, training=True)
    assert y.shape == shape and type(y.grad_fn).__name__ == "CloneBackward0"
    if c:
        assert type(F.batch_norm(x, None, None, w, training=True).grad_fn).__name__ == "MulBackward0"
        assert type(F.batch_norm(x, None, None, w, b, training=True).grad_fn).__name__ == "AddBackward0"
    y = F.instance_norm(x)
    assert y.shape == shape and type(y.grad_fn).__name__ == "ViewBackward0"
    y.sum().backward()
    assert x.grad.shape == shape
    if shape[1]:
        y = F.group_norm(x, 1)
        assert y.shape == shape and type(y.grad_fn).__name__ == "NativeGroupNormBackward0"


def test_feature_dropout_of_nothing_is_the_input():
    x = _z(0, 3, 4, 4)
    assert F.dropout2d(x, 0.5) is x
    assert F.dropout3d(_z(2, 0, 2, 2, 2), 0.5).grad_fn is None


@pytest.mark.parametrize("call, message", [
    (lambda: F.max_pool2d(_z(2, 0, 4, 4), 2),
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 4, 4]"),
    (lambda: F.max_pool2d(_z(0, 4, 4), 2),
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[0, 4, 4]"),
    (lambda: F.avg_pool2d(_z(2, 3, 0, 4), 2),
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 3, 0, 4]"),
    (lambda: F.max_pool1d(_z(2, 0, 4), 2),
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
     "got:[2, 0, 4]"),
    (lambda: F.pad(_z(2, 0, 4, 4), (1, 1, 1, 1), mode="reflect"),
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     "but got: [2, 0, 4, 4]"),
    (lambda: F.pad(_z(2, 3, 0, 4), (1, 1, 1, 1), mode="replicate"),
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     "but got: [2, 3, 0, 4]"),
    (lambda: F.pad(_z(2, 0, 4), (1, 1), mode="reflect"),
     "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     "but got: [2, 0, 4]"),
])
def test_pooling_and_padding_take_an_empty_batch_only(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_empty_batches_pool_and_pad():
    x = _z(0, 3, 4, 4)
    assert F.max_pool2d(x, 2).shape == (0, 3, 2, 2)
    assert F.pad(x, (1, 1, 1, 1), mode="reflect").shape == (0, 3, 6, 6)
    y = F.adaptive_avg_pool2d(_z(2, 0, 4, 4), 2)         # 0 channels pass, as on PyTorch's CPU
    assert y.shape == (2, 0, 2, 2) and type(y.grad_fn).__name__ == "AdaptiveAvgPool2DBackward0"
    np.testing.assert_array_equal(F.batch_norm(nbgrad.zeros(0, 2), nbgrad.zeros(2), nbgrad.ones(2)).numpy(),
                                  np.zeros((0, 2)))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_transposed_convolution_of_an_empty_batch_with_an_empty_first_dim(n):
    # the output's first spatial size is the kernel's extent past nothing (1 here), which a
    # forward convolution with the same kernel would refuse; the gradients are zeros
    x = nbgrad.zeros((0, 2, 0) + (3,) * (n - 1), requires_grad=True)
    w = nbgrad.ones((2, 3) + (2,) * n, requires_grad=True)
    b = nbgrad.ones(3, requires_grad=True)
    y = getattr(F, f"conv_transpose{n}d")(x, w, b)
    assert tuple(y.shape) == (0, 3, 1) + (4,) * (n - 1)
    y.sum().backward()
    assert tuple(x.grad.shape) == tuple(x.shape)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros(w.shape))
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(3))
