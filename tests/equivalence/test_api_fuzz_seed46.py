"""The classes API fuzz seed 46 found (PyTorch 2.13's behaviour recorded): a factorization that
fails (LAPACK's info, read after PyTorch's kernel ran) comes after out='s dtype check, which
ATen makes before the kernel; torch.cholesky's failure names torch.cholesky; matrix_power(-1)
and pinv check that their result casts to out in their own words."""
import warnings

import pytest

import nbgrad

SINGULAR = nbgrad.ones(3, 3, dtype=nbgrad.float64)


@pytest.mark.parametrize("call", [
    lambda out: nbgrad.linalg.cholesky(SINGULAR, out=out),
    lambda out: nbgrad.linalg.inv(SINGULAR, out=out),
    lambda out: nbgrad.linalg.solve(SINGULAR, nbgrad.ones(3, 1, dtype=nbgrad.float64), out=out),
    lambda out: nbgrad.linalg.lu_factor(SINGULAR, out=(out, nbgrad.empty(3, dtype=nbgrad.int32))),
])
def test_a_failed_factorization_comes_after_outs_dtype_check(call):
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        call(nbgrad.empty(0))
    with pytest.raises(RuntimeError) as caught:
        call(nbgrad.empty(0, dtype=nbgrad.float64))
    assert "Expected out tensor" not in str(caught.value)


def test_torch_cholesky_names_itself_and_checks_its_out_first():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(nbgrad.linalg.LinAlgError, match=r"^cholesky: \(Batch element 0\): The factorization could "
                                                            "not be completed"):
            nbgrad.cholesky(nbgrad.ones(2, 3, 3, dtype=nbgrad.float64))
        with pytest.raises(RuntimeError, match="^cholesky: Expected result to be safely castable from Double dtype, "
                                               "but got result with dtype Long$"):
            nbgrad.cholesky(SINGULAR, out=nbgrad.empty(0, dtype=nbgrad.int64))
    with pytest.raises(nbgrad.linalg.LinAlgError, match="^linalg.cholesky: The factorization could not be completed"):
        nbgrad.linalg.cholesky(SINGULAR)


def test_matrix_power_minus_one_and_pinv_check_their_out_casts():
    with pytest.raises(RuntimeError, match="^matrix_power: Expected result to be safely castable from Double dtype, "
                                           "but got result with dtype Bool$"):
        nbgrad.linalg.matrix_power(SINGULAR, -1, out=nbgrad.empty(0, dtype=nbgrad.bool))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        nbgrad.linalg.matrix_power(SINGULAR, -1, out=nbgrad.empty(0))
    with pytest.raises(RuntimeError, match="^linalg.pinv: Expected result to be safely castable from Double dtype, "
                                           "but got result with dtype Long$"):
        nbgrad.linalg.pinv(SINGULAR, out=nbgrad.empty(0, dtype=nbgrad.int64))
    out = nbgrad.empty(0)
    nbgrad.linalg.pinv(nbgrad.eye(2, dtype=nbgrad.float64) * 2, out=out)
    assert out.dtype == nbgrad.float32 and out.tolist() == [[0.5, 0.0], [0.0, 0.5]]
