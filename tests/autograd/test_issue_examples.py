"""The examples of the autograd issue, reproduced exactly."""
import numpy as np

import nbgrad
from nbgrad import no_grad, ones, tensor


def test_mean_of_squares_then_accumulate_then_zero():
    x = ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 4.5, dtype=np.float32))
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 5.5, dtype=np.float32))
    x.grad.data.zero_()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 2), dtype=np.float32))
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 2), dtype=np.float32))


def test_graph_of_mean_example():
    x = ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert y.grad_fn.name() == "AddBackward0"
    assert z.grad_fn.name() == "MulBackward0"
    assert out.grad_fn.name() == "MeanBackward0"
    assert float(out.detach()) == 27.0


def test_no_grad_part_is_not_differentiated():
    x = tensor(1.0, requires_grad=True)
    y1 = x ** 2
    with no_grad():
        y2 = x ** 3
    (y1 + y2).backward()
    assert float(x.grad) == 2.0
    assert (x.grad == 2).item() is True
    assert y2.requires_grad is False
    assert y1.requires_grad is True


def test_data_change_is_invisible_to_autograd():
    x = ones(1, requires_grad=True)
    y = 2 * x
    x.data *= 100
    y.backward()
    assert x.grad.tolist() == [2.0]
    assert (x == 100).all().item() is True
    assert x.detach().tolist() == [100.0]


def test_detached_value_used_as_constant():
    x = ones(1, requires_grad=True)
    y = 2 * x
    x.data *= 100
    y.backward()
    x.grad = None
    u = y.detach()
    (u * x).sum().backward()
    assert (x.grad == u).all().item() is True
    assert x.grad.tolist() == [2.0]


def test_detached_value_on_larger_tensor():
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    u = y.detach()
    (u * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), u.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), np.array([1.0, 4.0, 9.0], dtype=np.float32))


def test_sub_node_name():
    x = ones(2, requires_grad=True)
    y = (x * 1 + 2) - 3
    assert type(y.grad_fn).__name__ == "SubBackward0"
    assert y.grad_fn.name() == "SubBackward0"
