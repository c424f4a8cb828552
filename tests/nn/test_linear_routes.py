"""F.linear as ATen's linear chooses its route (PyTorch 2.13 recorded): a bias with a 2-D input,
or a 1-D bias with a contiguous input, is addmm (the bias's dtype must be the weight's, then
the input's; a bias that does not expand to the product is expand's error); any other input
is matmul with the bias added in place (it broadcasts, and the product keeps its dtype).  A
bias that is not 1-D gets its gradient summed down to its shape (it was an engine error)."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional


def _summed_to(g, shape):
    """g summed down to a shape it was broadcast from."""
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1)
    return g.sum(axis=dims, keepdims=True).reshape(shape)


@pytest.mark.parametrize("x", [nbgrad.ones(2, 3), nbgrad.ones(5, 2, 3), nbgrad.ones(3), nbgrad.ones(1, 5, 2, 3)])
@pytest.mark.parametrize("bias_dtype, shown", [(nbgrad.int64, "Long"), (nbgrad.bool, "Bool"),
                                               (nbgrad.float64, "Double")])
def test_addmm_route_refuses_a_bias_of_another_dtype(x, bias_dtype, shown):
    with pytest.raises(RuntimeError, match=f"^self and mat2 must have the same dtype, but got {shown} and Float$"):
        F.linear(x, nbgrad.ones(4, 3), nbgrad.ones(4, dtype=bias_dtype))


def test_addmm_route_checks_bias_then_input_dtype_then_shapes():
    w = nbgrad.ones(4, 3)
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Double and Float$"):
        F.linear(nbgrad.ones(5, 2, 3, dtype=nbgrad.float64), w, nbgrad.ones(4))
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(4\) must match the existing size "
                                           r"\(5\) at non-singleton dimension 1"):
        F.linear(nbgrad.ones(2, 3), w, nbgrad.ones(5))
    with pytest.raises(RuntimeError, match="^expected m1 and m2 to have the same dtype, but got: double != float$"):
        F.linear(nbgrad.ones(2, 3, dtype=nbgrad.float64), w)


def test_matmul_route_adds_a_broadcast_bias_in_place():
    w = nbgrad.ones(4, 3)
    out = F.linear(nbgrad.ones(5, 2, 3), w, nbgrad.ones(2, 4, dtype=nbgrad.float64))
    assert out.shape == (5, 2, 4) and out.dtype == nbgrad.float32 and out.tolist()[0][0] == [4.0] * 4
    strided = nbgrad.ones(2, 5, 3).transpose(0, 1)
    assert F.linear(strided, w, nbgrad.ones(4, dtype=nbgrad.int64)).dtype == nbgrad.float32
    x = nbgrad.ones(5, 2, 3, requires_grad=True)
    assert F.linear(x, w, nbgrad.ones(2, 4)).grad_fn.name() == "AddBackward0"
    assert F.linear(x, w, nbgrad.ones(4)).grad_fn.name() == "ViewBackward0"


@pytest.mark.parametrize("bias_shape", [(), (1, 4), (2, 4), (2, 1)])
def test_a_bias_that_is_not_1d_gets_its_gradient_at_its_shape(bias_shape):
    rng = np.random.default_rng(0)
    xv, wv, bv = rng.standard_normal((2, 3)), rng.standard_normal((4, 3)), rng.standard_normal(bias_shape)
    x, w = nbgrad.tensor(xv, requires_grad=True), nbgrad.tensor(wv, requires_grad=True)
    b = nbgrad.tensor(bv, requires_grad=True)
    g = np.arange(8.0).reshape(2, 4)
    out = F.linear(x, w, b)
    assert out.grad_fn.name() == "AddmmBackward0"
    np.testing.assert_allclose(out.detach().numpy(), xv @ wv.T + bv, rtol=1e-12)
    out.backward(nbgrad.tensor(g))
    np.testing.assert_allclose(b.grad.numpy(), _summed_to(g, bias_shape), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), g @ wv, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), g.T @ xv, rtol=1e-12)
