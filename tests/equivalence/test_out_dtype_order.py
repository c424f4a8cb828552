"""out= and the API's surface, as a dtype fuzzer over binary ops found them (PyTorch 2.13's
behaviour recorded): TensorIterator checks out's dtype before its kernel's dtype dispatch (the
common dtype castable to out's, or equal to the input's for the same-dtype ops); clamp with tensor
bounds is a promoting TensorIterator op whose out takes any castable dtype; nbgrad offers no
methods or functions PyTorch lacks (Tensor.maximum_, minimum_, rsub; torch.fill_diagonal_)."""
import pytest

import nbgrad


def test_out_dtype_is_checked_before_the_kernels_dtype_dispatch():
    i32 = nbgrad.ones(2, 3, dtype=nbgrad.int32)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        nbgrad.bitwise_and(i32, nbgrad.ones(2, 3), out=nbgrad.zeros(2, 3, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        nbgrad.hypot(i32, nbgrad.ones(2, 3), out=nbgrad.zeros(2, 3, dtype=nbgrad.int64))
    with pytest.raises(NotImplementedError, match="bitwise_and_cpu"):     # (out of the float dtype: the kernel's)
        nbgrad.bitwise_and(i32, nbgrad.ones(2, 3), out=nbgrad.zeros(2, 3))
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Bool$"):
        nbgrad.clamp_min(nbgrad.ones(2, 3, dtype=nbgrad.bool), True, out=nbgrad.zeros(2, 3))


def test_clamp_with_tensor_bounds_promotes_into_any_castable_out():
    out = nbgrad.zeros(2, 3)
    nbgrad.clamp_min(nbgrad.ones(2, 3, dtype=nbgrad.int32), nbgrad.full((2, 3), 2, dtype=nbgrad.int8), out=out)
    assert out.tolist() == [[2.0] * 3] * 2
    out = nbgrad.zeros(2, 3, dtype=nbgrad.int64)
    nbgrad.clamp_min(nbgrad.ones(2, 3, dtype=nbgrad.bool), nbgrad.ones(2, 3, dtype=nbgrad.bool), out=out)
    assert out.tolist() == [[1] * 3] * 2
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        nbgrad.clamp_max(nbgrad.ones(2, 3, dtype=nbgrad.int32), nbgrad.ones(2, 3),
                         out=nbgrad.zeros(2, 3, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Int$"):     # (a number bound: same dtype)
        nbgrad.clamp(nbgrad.ones(2, 3, dtype=nbgrad.int32), 1, out=nbgrad.zeros(2, 3, dtype=nbgrad.int64))


def test_no_methods_or_functions_pytorch_lacks():
    for name in ("maximum_", "minimum_", "rsub"):
        assert not hasattr(nbgrad.Tensor, name)
    assert not hasattr(nbgrad, "fill_diagonal_")
    assert nbgrad.zeros(2, 2).fill_diagonal_(1).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert nbgrad.rsub(nbgrad.ones(2), 3).tolist() == [2.0, 2.0]


def test_out_for_every_function_whose_schema_takes_it():
    x = nbgrad.ones(3)
    for fn in (nbgrad.asinh, nbgrad.arcsin, nbgrad.arccos, nbgrad.arcsinh, nbgrad.arctan):
        out = nbgrad.zeros(3)
        assert fn(x * 0.5, out=out) is out and out.tolist() == fn(x * 0.5).tolist()
    out = nbgrad.zeros(3)
    assert nbgrad.arctan2(x, x, out=out) is out
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        nbgrad.threshold(x, 0.5, 2.0, out=nbgrad.zeros(3, dtype=nbgrad.int64))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        nbgrad.hardshrink(x, out=nbgrad.zeros(3, dtype=nbgrad.float64))
    i = nbgrad.tensor([0])
    for call in (lambda o: nbgrad.index_add(x, 0, i, nbgrad.ones(1), out=o),
                 lambda o: nbgrad.scatter_add(x, 0, i, nbgrad.ones(1), out=o),
                 lambda o: nbgrad.scatter_reduce(x, 0, i, nbgrad.ones(1), "sum", out=o)):
        out = nbgrad.zeros(3)
        assert call(out) is out and out.tolist() == [2.0, 1.0, 1.0]
        with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
            call(nbgrad.zeros(3, dtype=nbgrad.float64))
    assert nbgrad.argsort(nbgrad.tensor([3.0, 1.0]), stable=True, out=nbgrad.zeros(2, dtype=nbgrad.int64)).tolist() \
        == [1, 0]
    with pytest.raises(RuntimeError, match="^sort\\(\\): functions with out=... arguments don't support automatic "
                                           "differentiation"):
        nbgrad.msort(nbgrad.ones(3, requires_grad=True), out=nbgrad.zeros(3))
    assert nbgrad.nansum(nbgrad.tensor([1.0, float("nan")]), out=nbgrad.zeros(())).item() == 1.0
    with pytest.raises(NotImplementedError, match="nansum_cpu"):
        nbgrad.nansum(x, out=nbgrad.zeros((), dtype=nbgrad.int64))
    assert nbgrad.nansum(nbgrad.ones(3, dtype=nbgrad.int64), out=nbgrad.zeros((), dtype=nbgrad.int64)).item() == 3
    sign, logabsdet = nbgrad.zeros(()), nbgrad.zeros(())
    result = nbgrad.slogdet(nbgrad.eye(2) * 2, out=(sign, logabsdet))
    assert type(result).__name__ == "slogdet_out" and result.sign is sign and round(logabsdet.item(), 5) == 1.38629
    assert type(nbgrad.slogdet(nbgrad.eye(2))).__name__ == "slogdet"
    assert type(nbgrad.linalg.slogdet(nbgrad.eye(2))).__name__ == "linalg_slogdet"
