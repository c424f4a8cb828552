"""The classes API fuzz seed 43 found (PyTorch 2.13's behaviour recorded): pinv's tolerances
that require grad are refused (their gradient would silently be missing); cholesky_inverse of
a factor with a zero on its diagonal is LAPACK's singular error; tensorinv's out= is a
composite's copy; trapz reads its float dx from a bool or a 0-dim tensor."""
import pytest

import nbgrad


@pytest.mark.parametrize("kwargs, argument", [({"rcond": 0.1}, "rtol"), ({"atol": 0.1}, "atol"),
                                               ({"rtol": 0.1}, "rtol")])
def test_pinv_refuses_tolerances_that_require_grad(kwargs, argument):
    x = nbgrad.tensor([[1.0, 2.0, 3.0], [0.5, 0.0, 1.0]], dtype=nbgrad.float64)
    given = {k: nbgrad.tensor(v, dtype=nbgrad.float64, requires_grad=True) for k, v in kwargs.items()}
    with pytest.raises(RuntimeError, match=f"^The function 'linalg_pinv' is not differentiable with respect to "
                                           f"argument '{argument}'. This input cannot have requires_grad True.$"):
        nbgrad.linalg.pinv(x, **given)
    with nbgrad.no_grad():
        assert nbgrad.linalg.pinv(x, **given).shape == (3, 2)


@pytest.mark.parametrize("factor, upper, message", [
    ([[1.0, 0.0], [1.0, 0.0]], False, "The diagonal element 2 is zero"),
    ([[[1.0, 0.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]]], False, "(Batch element 1): The diagonal element 2 is zero"),
    ([[0.0, 0.0], [1.0, 1.0]], True, "The diagonal element 1 is zero"),
])
def test_cholesky_inverse_of_a_singular_factor(factor, upper, message):
    with pytest.raises(nbgrad.linalg.LinAlgError) as info:
        nbgrad.cholesky_inverse(nbgrad.tensor(factor), upper=upper)
    assert str(info.value) == f"cholesky_inverse: {message}, the inversion could not be completed because the " \
                              "input matrix is singular."
    assert nbgrad.cholesky_inverse(nbgrad.tensor([[2.0, 0.0], [1.0, 1.0]])).tolist() == [[0.5, -0.5], [-0.5, 1.0]]


def test_tensorinv_out_is_a_composites_copy():
    x = nbgrad.ones(1, 1, 1, requires_grad=True)
    out = nbgrad.empty(0, dtype=nbgrad.float64)
    assert nbgrad.linalg.tensorinv(x, out=out) is out and out.dtype is nbgrad.float64
    assert out.grad_fn.name() == "torch::autograd::CopyBackwards"
    with pytest.raises(RuntimeError, match="^tensorinv: Expected result to be safely castable from Float dtype, but "
                                           "got result with dtype Long$"):
        nbgrad.linalg.tensorinv(x.detach(), out=nbgrad.empty(0, dtype=nbgrad.int64))


def test_trapz_reads_a_float_dx():
    assert nbgrad.trapz(nbgrad.ones(4, dtype=nbgrad.uint8), dx=nbgrad.tensor(True)).item() == 3.0
    assert nbgrad.trapz(nbgrad.ones(4), dx=nbgrad.tensor(2.0)).item() == 6.0
