"""F.linear is one op with a fused backward: its gradients, names and shapes as PyTorch's."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


def _t(shape, seed, transpose=False):
    a = np.random.RandomState(seed).randn(*shape)
    t = nbgrad.tensor(a.T.copy() if transpose else a, dtype=nbgrad.float64)
    return (t.t() if transpose else t).requires_grad_()


@pytest.mark.parametrize("x_shape", [(4, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("w_transposed", [False, True])
def test_linear_gradients(x_shape, bias, w_transposed):
    x = _t(x_shape, 1)
    w = _t((5, 3), 2, transpose=w_transposed)
    args = (x, w, _t((5,), 3)) if bias else (x, w)
    assert gradcheck(F.linear, args)
    assert gradgradcheck(F.linear, args)


def test_linear_values_and_names():
    x, w, b = _t((4, 3), 4), _t((5, 3), 5), _t((5,), 6)
    out = F.linear(x, w, b)
    expected = x.detach().numpy() @ w.detach().numpy().T + b.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    assert out.grad_fn.name() == "AddmmBackward0"
    assert F.linear(x, w).grad_fn.name() == "MmBackward0"
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        F.linear(_t((4, 2), 7), w)
