"""The classes API fuzz seed 46 found (PyTorch 2.13's behaviour recorded): a factorization that
fails (LAPACK's info, read after PyTorch's kernel ran) comes after out='s dtype check, which
ATen makes before the kernel; torch.cholesky's failure names torch.cholesky; matrix_power(-1)
and pinv check that their result casts to out in their own words."""
import math
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


def test_an_int_device_is_the_accelerators_index():
    calls = [lambda: nbgrad.device(0), lambda: nbgrad.ones(2, device=0), lambda: nbgrad.ones(2).to(0),
             lambda: nbgrad.ones(2).new_tensor([1.0], device=0), lambda: nbgrad.ones(2).new_ones(2, device=0),
             lambda: nbgrad.ones(2).new_zeros(2, device=0), lambda: nbgrad.ones(2).new_full((2,), 1.0, device=0)]
    if not nbgrad.cuda.is_available():
        for call in calls:
            with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
                call()
    else:
        assert nbgrad.device(0) == nbgrad.device("cuda:0")
    with pytest.raises(RuntimeError, match="^Device index must not be negative$"):
        nbgrad.device(-1)


def test_adaptive_avg_pool2d_to_one_is_a_mean_of_any_input():
    F = nbgrad.nn.functional
    x = nbgrad.arange(6.0).reshape(3, 2).requires_grad_()
    out = F.adaptive_avg_pool2d(x, 1)
    assert out.shape == (1, 1) and out.item() == 2.5 and out.grad_fn.name() == "MeanBackward1"
    assert F.adaptive_avg_pool2d(nbgrad.ones(1, 1, 2, 3, 4), (1, 1)).shape == (1, 1, 2, 1, 1)
    empty = F.adaptive_avg_pool2d(nbgrad.ones(1, 2, 0, 3), 1)
    assert empty.shape == (1, 2, 1, 1) and empty.isnan().all().item()
    with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype"):
        F.adaptive_avg_pool2d(nbgrad.ones(1, 2, 3, 3, dtype=nbgrad.int64), 1)
    with pytest.raises(IndexError, match="^Dimension out of range"):
        F.adaptive_avg_pool2d(nbgrad.ones(3), 1)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.adaptive_avg_pool2d(nbgrad.ones(3, 2), 2)


def test_matrix_rank_and_pinv_need_eps_only_for_a_default_rtol():
    b, e = nbgrad.ones(2, 2, dtype=nbgrad.bool), nbgrad.ones(2, 0, dtype=nbgrad.bool)
    eps_error = "^This function doesn't handle types other than float and double$"
    for call in (lambda: nbgrad.linalg.matrix_rank(b), lambda: nbgrad.linalg.matrix_rank(e, atol=1.0),
                 lambda: nbgrad.linalg.pinv(b, atol=1.0)):
        with pytest.raises(RuntimeError, match=eps_error):
            call()
    # a given rtol needs no eps: an empty input has rank 0, a full one reaches svdvals' check
    assert nbgrad.linalg.matrix_rank(e, rtol=1.0).item() == 0 and nbgrad.linalg.matrix_rank(e, 0.5).item() == 0
    with pytest.raises(RuntimeError, match="^linalg.svd: Expected a floating point or complex tensor as input. "
                                           "Got Bool$"):
        nbgrad.linalg.matrix_rank(b, rtol=1.0)
    with pytest.raises(RuntimeError, match=r"^linalg.pinv\(Bool\{\[2, 2\]\}\): expected a tensor"):
        nbgrad.linalg.pinv(b)
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.linalg.pinv(nbgrad.ones(2, dtype=nbgrad.int64), atol=1.0)
    with pytest.raises(RuntimeError, match="^linalg.svd: The input tensor A must have at least 2 dimensions.$"):
        nbgrad.linalg.svdvals(nbgrad.ones(2))


def test_meshgrid_parses_indexing_before_it_counts_the_tensors():
    with pytest.raises(TypeError, match=r"^meshgrid\(\): argument 'indexing' must be str, not list$"):
        nbgrad.meshgrid(indexing=[nbgrad.ones(1)])
    with pytest.raises(RuntimeError, match="^meshgrid expects a non-empty TensorList$"):
        nbgrad.meshgrid(indexing="ij")


def test_a_copy_functions_out_that_requires_grad_is_refused_before_the_view():
    for call in (lambda o: nbgrad.diagonal_copy(nbgrad.ones(4, dtype=nbgrad.int64), out=o),
                 lambda o: nbgrad.slice_copy(nbgrad.ones(2, 3, 5), 4, out=o)):
        with pytest.raises(RuntimeError, match=r"^aten::\w+_copy\(\): functions with out=\.\.\. arguments don't "
                                               "support automatic differentiation"):
            call(nbgrad.ones(3, requires_grad=True))


@pytest.mark.parametrize("index, shown", [(nbgrad.float64, "torch.dtype"), (1.5, "float"), ((0, 1.0), "float"),
                                          ({1}, "set"), (complex(1), "complex")])
def test_an_index_that_is_not_an_index_kind_is_an_index_error(index, shown):
    x = nbgrad.arange(6.0).reshape(2, 3)
    message = (r"^only integers, slices \(`:`\), ellipsis \(`\.\.\.`\), None and long or byte Variables are valid "
               rf"indices \(got {shown}\)$")
    with pytest.raises(IndexError, match=message):
        x[index]
    with pytest.raises(IndexError, match=message):
        x[index] = 0.0
    assert x._version == 0


def test_a_numpy_array_indexes_as_a_sequence():
    import numpy as np
    x = nbgrad.arange(6.0).reshape(2, 3)
    assert x[np.array([1, 0])].tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert x[0, np.array([2, 1])].tolist() == [2.0, 1.0]
    x[np.array([True, False])] = 7.0
    assert x.tolist() == [[7.0, 7.0, 7.0], [3.0, 4.0, 5.0]]
    assert x[np.int64(1)].tolist() == [3.0, 4.0, 5.0]


def test_linspace_and_logspace_take_0_dim_tensor_ends():
    assert nbgrad.linspace(nbgrad.tensor(2), nbgrad.tensor(8.0), 4).tolist() == [2.0, 4.0, 6.0, 8.0]
    assert nbgrad.logspace(nbgrad.tensor(1), 2.0, 2).tolist() == [10.0, 100.0]
    with pytest.raises(RuntimeError, match=r"^linspace only supports 0-dimensional start and end tensors, but got "
                                           r"start with 0 dimension\(s\) and end with 3 dimension\(s\)\.$"):
        nbgrad.linspace(nbgrad.tensor(True), nbgrad.ones(2, 1, 3, dtype=nbgrad.bool), 3)
    with pytest.raises(RuntimeError, match=r"^logspace only supports 0-dimensional start and end tensors, but got "
                                           r"end with 1 dimension\(s\)\.$"):
        nbgrad.logspace(0, nbgrad.ones(2), 3)
    with pytest.raises(RuntimeError, match=r"but got start with 1 dimension\(s\)\.$"):
        nbgrad.linspace(nbgrad.ones(1), 3.0, -1)


def test_tensor_squeeze_takes_several_dims_by_position():
    x = nbgrad.ones(1, 1, 2, requires_grad=True)
    y = x.squeeze(0, 1)
    assert y.shape == (2,) and y.grad_fn.name() == "SqueezeBackward2"
    z = x.clone().squeeze_(0, 1)
    assert z.shape == (2,) and z.grad_fn.name() == "SqueezeBackward5"
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got "
                                         r"2147483648\)$"):
        nbgrad.ones(1).squeeze(2 ** 31, 3)
    with pytest.raises(TypeError, match=r"^squeeze\(\) received an invalid combination of arguments"):
        nbgrad.squeeze(x, 0, 1)


def test_elu_in_place_takes_scale_and_input_scale_and_grid_sample_names_a_bad_mode():
    F = nbgrad.nn.functional
    x = nbgrad.tensor([-1.0, 0.5], requires_grad=True)
    y = x * 1
    F.elu_(y, 1.5, 2.0, 3.0)
    assert y.tolist() == pytest.approx([1.5 * 2.0 * math.expm1(-3.0), 1.0], rel=1e-6)
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([1.5 * 2.0 * 3.0 * math.exp(-3.0), 2.0], rel=1e-6)
    with pytest.raises(NotImplementedError, match='^"elu_cpu" not implemented for \'Long\'$'):
        F.elu_(nbgrad.ones(2, dtype=nbgrad.int64), 1.0, 1e-30)
    with pytest.raises(ValueError, match=r"expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '\[1\]'$"):
        F.grid_sample(nbgrad.ones(1, 1, 2, 2), nbgrad.ones(1, 2, 2, 2), [1])


@pytest.mark.parametrize("dtype, shown", [(nbgrad.float16, "Half"), (nbgrad.bfloat16, "BFloat16")])
def test_a_16_bit_power_refuses_an_exponent_its_type_cannot_hold(dtype, shown):
    big = 70000 if dtype is nbgrad.float16 else 1e39
    for call in (lambda x: x.pow(big), lambda x: x.pow_(big), lambda x: x ** -big):
        x = nbgrad.ones(2, dtype=dtype)
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type c10::{shown} without overflow$"):
            call(x)
        assert x.tolist() == [1.0, 1.0] and x._version == 0
    assert nbgrad.ones(2, dtype=dtype).pow(2.5).tolist() == [1.0, 1.0]
    assert (2.0 ** nbgrad.ones(2, dtype=dtype)).tolist() == [2.0, 2.0]
