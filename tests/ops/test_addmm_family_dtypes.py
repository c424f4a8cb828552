"""addmm, addmv, addr, baddbmm and addbmm: PyTorch's dtype rules.  beta and alpha take no part
in type promotion (an integral result truncates them), the matrix ops ask for one dtype, addr
promotes its three tensors and refuses a float or bool scalar its result cannot hold.  Values
from NumPy; messages recorded from PyTorch 2.13."""
import numpy as np
import pytest

import nbgrad

L, F, H, B = nbgrad.int64, nbgrad.float32, nbgrad.float16, nbgrad.bool


def ones(shape, dtype):
    return nbgrad.ones(shape, dtype=dtype)


@pytest.mark.parametrize("name, args, message", [
    ("addmm", ((2, 3), (2, 2), (2, 3)), "self and mat2 must have the same dtype, but got Long and Float"),
    ("addbmm", ((2, 3), (1, 2, 2), (1, 2, 3)), "self and mat2 must have the same dtype, but got Long and Float"),
    ("addmv", ((2,), (2, 3), (3,)), "addmv input tensors must have the same dtype, but got Long, Float, and Float"),
    ("baddbmm", ((1, 2, 3), (1, 2, 2), (1, 2, 3)),
     "Input dtypes must be the same, got: input long int, batch1: float, batch2: float"),
])
def test_matrix_add_ops_ask_for_one_dtype(name, args, message):
    # (an integral input beside float matrices was promoted to a float result)
    shapes = args
    with pytest.raises(RuntimeError, match=message):
        getattr(nbgrad, name)(ones(shapes[0], L), ones(shapes[1], F), ones(shapes[2], F))


def test_mat1_and_mat2_are_checked_after_self():
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Float and Long$"):
        nbgrad.addmm(ones((2, 3), L), ones((2, 2), F), ones((2, 3), L))
    with pytest.raises(RuntimeError, match="^self and mat2 must have the same dtype, but got Long and Bool$"):
        nbgrad.addbmm(ones((2, 3), L), ones((1, 2, 2), L), ones((1, 2, 3), B))
    with pytest.raises(NotImplementedError, match="\"baddbmm\" not implemented for 'Bool'"):
        nbgrad.baddbmm(ones((1, 2, 3), B), ones((1, 2, 2), B), ones((1, 2, 3), L))


@pytest.mark.parametrize("name, shapes", [
    ("addmm", ((2, 5), (2, 3), (3, 5))),
    ("addmv", ((2,), (2, 3), (3,))),
    ("baddbmm", ((1, 2, 5), (1, 2, 3), (1, 3, 5))),
    ("addbmm", ((2, 5), (1, 2, 3), (1, 3, 5))),
])
def test_an_integral_result_truncates_float_beta_and_alpha(name, shapes):
    # beta 2.7 is 2 and alpha -1.5 is -1 in int64: 2 * 1 - 1 * 3 (was a float32 result, 2.7 - 4.5)
    out = getattr(nbgrad, name)(*(ones(s, L) for s in shapes), beta=2.7, alpha=-1.5)
    assert out.dtype == L
    np.testing.assert_array_equal(out.numpy(), np.full(out.shape, -1))
    inplace = ones(shapes[0], L)
    getattr(inplace, name + "_")(*(ones(s, L) for s in shapes[1:]), beta=2.7, alpha=-1.5)
    np.testing.assert_array_equal(inplace.numpy(), np.full(inplace.shape, -1))


@pytest.mark.parametrize("dtype, kw, message", [
    (L, dict(beta=2.5), "For integral input tensors, argument beta must not be a floating point number."),
    (L, dict(alpha=0.5), "For integral input tensors, argument alpha must not be a floating point number."),
    (L, dict(beta=True, alpha=2.5), "Boolean beta only supported for Boolean results."),
    (L, dict(beta=2.5, alpha=True), "For integral input tensors, argument beta must not be a floating point number."),
    (L, dict(alpha=True), "Boolean alpha only supported for Boolean results."),
    (B, dict(alpha=2.5), "For integral input tensors, argument alpha must not be a floating point number."),
])
def test_addr_refuses_a_scalar_its_result_cannot_hold(dtype, kw, message):
    with pytest.raises(RuntimeError, match="^" + message.replace(".", r"\.") + "$"):
        nbgrad.addr(ones((2, 3), dtype), ones(2, dtype), ones(3, dtype), **kw)


def test_addr_promotes_its_tensors_and_computes_in_the_result_dtype():
    out = nbgrad.addr(ones((2, 3), L), ones(2, H), ones(3, B), alpha=2.5)
    assert out.dtype == H
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 3.5, np.float16))
    assert nbgrad.addr(ones((2, 3), B), ones(2, B), ones(3, B), beta=2).dtype == B
    # float32 input, float16 vectors: the outer product in float32, not rounded to float16 first
    v1 = nbgrad.tensor([1.001, 3.0009], dtype=H)
    v2 = nbgrad.tensor([1.001, 7.0007], dtype=H)
    out = nbgrad.addr(ones((2, 2), F), v1, v2)
    a, b = v1.numpy().astype(np.float32), v2.numpy().astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), np.float32(1) + np.outer(a, b))
    # beta and alpha do not promote: an int64 and float16 operand with beta -1.5 stays float16
    assert nbgrad.addr(ones((2, 3), L), ones(2, L), ones(3, H), beta=-1.5).dtype == H


def test_input_shape_errors_speak_as_pytorchs():
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(5\) must match the existing size \(7\) "
                                           r"at non-singleton dimension 1\.  Target sizes: \[2, 5\]\.  Tensor sizes: "
                                           r"\[3, 7\]$"):
        nbgrad.addmm(ones((3, 7), F), ones((2, 3), F), ones((3, 5), F))
    with pytest.raises(RuntimeError, match=r"^size mismatch, got input \(5\), mat \(2x3\), vec \(3\)$"):
        nbgrad.addmv(ones(5, F), ones((2, 3), F), ones(3, F))
    with pytest.raises(RuntimeError, match=r"^size mismatch, got input \(2\), mat \(2x3\), vec \(4\)$"):
        nbgrad.addmv(ones(2, L), ones((2, 3), F), ones(4, F))        # (the shapes before the dtypes)


def test_addr_checks_ranks_then_shape_then_scalars():
    with pytest.raises(RuntimeError, match="^addr: Expected 1-D argument vec1, but got 2-D$"):
        nbgrad.addr(ones((2, 3), L), ones((2, 2), L), ones(3, L), beta=2.5)
    with pytest.raises(RuntimeError, match="^addr: Expected 1-D argument vec2, but got 2-D$"):
        nbgrad.addr(ones((2, 3), L), ones(2, L), ones((3, 3), L))
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(2\) must match the existing size \(5\)"):
        nbgrad.addr(ones((5, 3), L), ones(2, L), ones(3, L), beta=2.5)


@pytest.mark.parametrize("name, shapes, error, message", [
    # input is expanded to sizes read from the batches first: a batch of too few dims is
    # size()'s IndexError, as in PyTorch
    ("baddbmm", ((2, 2), (3,), (1, 2, 2)), IndexError, r"Dimension out of range \(expected to be in range of "
                                                        r"\[-1, 0\], but got 1\)"),
    ("addbmm", ((2, 2), (), (1, 2, 2)), IndexError, "Dimension specified as 1 but tensor has no dimensions"),
    ("addbmm", ((2, 2), (1, 2, 2), (2, 2)), IndexError, r"Dimension out of range \(expected to be in range of "
                                                        r"\[-2, 1\], but got 2\)"),
    ("baddbmm", ((5,), (1, 2, 3), (1, 4, 2)), RuntimeError, r"The expanded size of the tensor \(2\) must match"),
    ("addbmm", ((2, 2), (1, 2, 3), (2, 3, 2)), RuntimeError, "batch1 and batch2 must have same number of batches, "
                                                             "got 1 and 2"),
    ("addbmm", ((2, 2), (1, 2, 3), (1, 4, 2)), RuntimeError, r"Incompatible matrix sizes for bmm \(2x3 and 4x2\)"),
])
def test_batched_add_ops_check_shapes_in_pytorchs_order(name, shapes, error, message):
    with pytest.raises(error, match=message):
        getattr(nbgrad, name)(*(ones(s, F) for s in shapes))
