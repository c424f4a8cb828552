"""nll_loss and cross_entropy refuse bad input with PyTorch's error, in ATen's order: nll_loss_nd's
checks (input rank, batch sizes, the target's size for 3-D and 5-D inputs), then nll_loss's (1-D
and 2-D inputs) or nll_loss2d's (the rest), then the kernel's dtype; cross_entropy first asks the
class-probability question, the smoothing, and log_softmax's dim and dtype.  Before, the
target's dtype was checked first and 716 of 1,512 combinations of input and target shapes and
dtypes and weights raised another error type than PyTorch 2.13.  Expected errors recorded from
PyTorch 2.13."""
import pytest

import nbgrad

F = nbgrad.nn.functional

CASES = [
    ('nll_loss', (), 'float32', (), 'int64', None, ValueError, 'Expected 1 or more dimensions (got 0)'),
    ('nll_loss', (2, 3), 'float32', (3,), 'float32', None, ValueError, 'Expected input batch_size (2) to match target batch_size (3).'),
    ('nll_loss', (2, 3, 4), 'float32', (), 'int64', None, ValueError, 'Expected input batch_size (2) to match target batch_size (0).'),
    ('nll_loss', (0, 3), 'int64', (), 'float32', None, RuntimeError, 'expected target dtype to be Long or Byte, but got Float'),
    ('nll_loss', (0, 3), 'float32', (), 'int64', None, IndexError, 'Dimension specified as 0 but tensor has no dimensions'),
    ('nll_loss', (3,), 'float32', (2,), 'int64', (4,), ValueError, 'For 1D input, 1D target must have size 1, but got target size: 2'),
    ('nll_loss', (3,), 'float32', (2,), 'float32', None, RuntimeError, 'expected target dtype to be Long or Byte, but got Float'),
    ('nll_loss', (3,), 'float32', (1, 2), 'float32', None, RuntimeError, '0D or 1D target tensor expected, multi-target not supported'),
    ('nll_loss', (2, 3), 'float32', (2,), 'float32', (4,), RuntimeError, 'expected target dtype to be Long or Byte, but got Float'),
    ('nll_loss', (2, 3), 'int64', (2,), 'int64', (4,), RuntimeError, 'weight tensor should be defined either for all 3 classes or no classes'),
    ('nll_loss', (2, 3), 'int64', (2,), 'int64', None, NotImplementedError, '"nll_loss_out_frame" not implemented for \'Long\''),
    ('nll_loss', (2, 3, 4, 5), 'float32', (2, 4), 'float32', None, RuntimeError, 'only batches of spatial targets supported (3D tensors) but got targets'),
    ('nll_loss', (2, 3, 4, 5), 'float32', (2, 4, 6), 'int64', (4,), RuntimeError, 'weight tensor should be defined either for all or no classes'),
    ('nll_loss', (2, 3, 4, 5), 'float32', (2, 4, 6), 'int64', None, RuntimeError, 'size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 6]'),
    ('nll_loss', (2, 3, 4), 'float32', (2, 5), 'int64', None, RuntimeError, 'Expected target size [2, 4], got [2, 5]'),
    ('nll_loss', (2, 3, 4), 'float32', (2, 4), 'int64', (4,), RuntimeError, 'weight tensor should be defined either for all or no classes'),
    ('nll_loss', (2, 3, 4), 'int64', (2, 4), 'int64', None, NotImplementedError, '"nll_loss2d_forward_out_frame" not implemented for \'Long\''),
    ('cross_entropy', (), 'float32', (), 'int64', None, RuntimeError, 'Expected floating point type for target with class probabilities, got '),
    ('cross_entropy', (2, 3, 4), 'int64', (2, 4), 'int64', None, NotImplementedError, '"log_softmax_kernel_impl" not implemented for \'Long\''),
    ('cross_entropy', (3,), 'int64', (3,), 'float32', (4,), RuntimeError, 'cross_entropy: weight tensor should be defined either for all 3 classe'),
    ('cross_entropy', (0, 3), 'int64', (), 'int64', None, IndexError, 'Dimension specified as 0 but tensor has no dimensions'),
    ('cross_entropy', (2, 3), 'float32', (), 'int64', None, ValueError, 'Expected input batch_size (2) to match target batch_size (0).'),
    ('cross_entropy', (2, 3), 'int64', (2, 3), 'int64', None, RuntimeError, 'Expected floating point type for target with class probabilities, got '),
]


@pytest.mark.parametrize("fn,x_shape,x_dtype,t_shape,t_dtype,w_shape,error,message", CASES)
def test_nll_and_cross_entropy_refuse_in_atens_order(fn, x_shape, x_dtype, t_shape, t_dtype, w_shape, error, message):
    x = nbgrad.zeros(x_shape, dtype=getattr(nbgrad, x_dtype))
    t = nbgrad.zeros(t_shape, dtype=getattr(nbgrad, t_dtype))
    w = None if w_shape is None else nbgrad.ones(w_shape)
    with pytest.raises(error) as e:
        getattr(F, fn)(x, t, w)
    assert str(e.value).startswith(message)


def test_a_1d_input_takes_a_1d_target_of_one_element():
    x = nbgrad.tensor([0.5, -1.0, 2.0])
    for t in (nbgrad.tensor([2]), nbgrad.tensor(2)):
        loss = F.nll_loss(x, t, reduction="none")
        assert loss.shape == () and loss.item() == -2.0       # (PyTorch's output is 0-dim either way)


def test_cross_entropy_negative_smoothing_is_none_and_above_one_a_runtime_error():
    x = nbgrad.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, 0.0]])
    t = nbgrad.tensor([2, 0])
    # (PyTorch's branch is label_smoothing > 0: a negative one is ignored; nbgrad raised ValueError)
    assert F.cross_entropy(x, t, label_smoothing=-0.5).item() == F.cross_entropy(x, t).item()
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(x, t, label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(x, nbgrad.softmax(x, 1), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        F.cross_entropy(x, nbgrad.softmax(x, 1), ignore_index=1)
