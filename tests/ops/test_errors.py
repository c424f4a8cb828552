"""Bad input: PyTorch's exception types and messages, and failing in-place ops that leave no trace."""
import os
import re

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


# --- shape mismatch -----------------------------------------------------------------

def test_broadcast_mismatch_message_names_both_sizes():
    with pytest.raises(RuntimeError, match=re.escape(
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1")):
        nbgrad.ones(2, 3) + nbgrad.ones(2, 4)


def test_broadcast_mismatch_counts_dims_from_the_aligned_right():
    with pytest.raises(RuntimeError, match=re.escape(
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")):
        nbgrad.ones(3) * nbgrad.ones(4)
    with pytest.raises(RuntimeError, match=re.escape(
            "The size of tensor a (2) must match the size of tensor b (5) at non-singleton dimension 1")):
        nbgrad.ones(7, 2, 1) - nbgrad.ones(5, 3)


@pytest.mark.parametrize("op", [
    lambda a, b: a / b, lambda a, b: a ** b, lambda a, b: a < b, lambda a, b: nbgrad.maximum(a, b),
    lambda a, b: nbgrad.where(a > 0, a, b), lambda a, b: a.add(b),
], ids=["div", "pow", "lt", "maximum", "where", "add"])
def test_every_binary_op_checks_broadcasting(op):
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        op(nbgrad.ones(2, 3), nbgrad.ones(2, 4))


def test_broadcast_shapes():
    assert nbgrad.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert nbgrad.broadcast_shapes((1,), ()) == (1,)
    with pytest.raises(RuntimeError):
        nbgrad.broadcast_shapes((2, 3), (4,))


def test_expand_mismatch():
    with pytest.raises(RuntimeError, match=re.escape("The expanded size of the tensor (2) must match the existing "
                                                     "size (3) at non-singleton dimension 1")):
        nbgrad.ones(3).expand(2, 2)


# --- invalid views ----------------------------------------------------------------------

def test_view_with_wrong_numel_message():
    with pytest.raises(RuntimeError, match=re.escape("shape '[4, 4]' is invalid for input of size 15")):
        nbgrad.ones(5, 3).view(4, 4)
    with pytest.raises(RuntimeError, match=re.escape("shape '[2, 2]' is invalid for input of size 3")):
        nbgrad.ones(3).reshape(2, 2)


def test_view_incompatible_strides_raises():
    x = nbgrad.ones(3, 4)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        x[:, :2].view(6)
    with pytest.raises(RuntimeError):
        x.t().view(-1)


def test_view_two_inferred_dims_raises():
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        nbgrad.ones(2, 3).view(-1, -1)


def test_dim_out_of_range_is_indexerror():
    x = nbgrad.ones(2, 3)
    for call in (lambda: x.transpose(0, 2), lambda: x.squeeze(2), lambda: x.unsqueeze(3), lambda: x.sum(2),
                 lambda: x.softmax(2), lambda: x.size(-3), lambda: nbgrad.cat([x, x], dim=2)):
        with pytest.raises(IndexError, match="Dimension out of range"):
            call()


def test_permute_duplicate_dims_raises():
    with pytest.raises(RuntimeError):
        nbgrad.ones(2, 3).permute(0, 0)
    with pytest.raises(RuntimeError):
        nbgrad.ones(2, 3).permute(0)


def test_narrow_and_select_out_of_range():
    with pytest.raises(RuntimeError, match=re.escape("start (2) + length (2) exceeds dimension size (3)")):
        nbgrad.ones(3).narrow(0, 2, 2)
    with pytest.raises(IndexError):
        nbgrad.ones(3).select(0, 3)


def test_split_and_chunk_need_positive_sizes():
    with pytest.raises(RuntimeError):
        nbgrad.ones(3).chunk(0)
    with pytest.raises(RuntimeError):
        nbgrad.ones(4).split([1, 2])  # sizes must sum to the dim


# --- out-of-range indices --------------------------------------------------------------

@pytest.mark.parametrize("index", [3, -4, (0, 5), (slice(None), -6), [0, 3], (slice(None), [1, 5])],
                         ids=repr)
def test_out_of_range_index_is_indexerror(index):
    x = nbgrad.ones(3, 5)
    with pytest.raises(IndexError):
        x[index]


def test_out_of_range_message():
    with pytest.raises(IndexError, match=re.escape("index 3 is out of bounds for dimension 0 with size 3")):
        nbgrad.ones(3, 5)[3]
    with pytest.raises(IndexError, match=re.escape("index -7 is out of bounds for dimension 0 with size 6")):
        nbgrad.ones(6)[nbgrad.tensor([-7])]


def test_too_many_indices_is_indexerror():
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        nbgrad.ones(2, 3)[0, 0, 0]


def test_mask_shape_mismatch_is_indexerror():
    with pytest.raises(IndexError, match="The shape of the mask"):
        nbgrad.ones(6)[nbgrad.tensor([True, False])]


def test_float_index_tensor_is_indexerror():
    with pytest.raises(IndexError, match="tensors used as indices must be long, int"):
        nbgrad.ones(3)[nbgrad.tensor([1.0])]


def test_index_select_and_gather_out_of_range():
    with pytest.raises(IndexError):
        nbgrad.ones(2, 3).index_select(0, nbgrad.tensor([2]))
    with pytest.raises(RuntimeError):
        nbgrad.ones(2, 3).gather(1, nbgrad.tensor([[3]]))


def test_item_of_many_elements():
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        nbgrad.ones(2).item()


# --- failing in-place ops leave no trace ---------------------------------------------------

def _assert_untouched(x, values):
    assert x.tolist() == values
    assert x._version == 0


@pytest.mark.parametrize("call", [
    lambda x: x.add_(nbgrad.ones(4)),
    lambda x: x.mul_(nbgrad.ones(2, 2, 3)),
    lambda x: x.copy_(nbgrad.ones(4)),
    lambda x: x.clamp_(min=nbgrad.ones(4)),
    lambda x: x.__iadd__(nbgrad.ones(3, 3)),
    lambda x: x.__setitem__(slice(None), nbgrad.ones(2)),
    lambda x: x.__setitem__((0, slice(0, 2)), nbgrad.ones(3)),
    lambda x: x.__setitem__(2, 1.0),
    lambda x: x.__setitem__((slice(None), 5), 1.0),
    lambda x: x.__setitem__(nbgrad.tensor([True, False, True]), 1.0),
    lambda x: x.masked_fill_(nbgrad.tensor([True, False, True, False]), 0.0),
], ids=["add_", "mul_", "copy_", "clamp_", "iadd", "setitem_all", "setitem_row", "setitem_row_oob",
        "setitem_col_oob", "setitem_bad_mask", "masked_fill_"])
def test_failing_inplace_op_writes_nothing(call):
    x = nbgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises((RuntimeError, IndexError)):
        call(x)
    _assert_untouched(x, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def test_failing_cast_in_place_writes_nothing():
    x = nbgrad.tensor([1, 2, 3])
    with pytest.raises(RuntimeError):
        x.mul_(nbgrad.tensor([0.5, 0.5, 0.5]))
    _assert_untouched(x, [1, 2, 3])


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch writes the in-range elements before it finds the bad index; "
                                          "nbgrad promises to write nothing")
def test_advanced_setitem_with_an_out_of_range_index_writes_nothing():
    x = nbgrad.zeros(6)
    with pytest.raises(IndexError, match=re.escape("index 9 is out of bounds for dimension 0 with size 6")):
        x[nbgrad.tensor([0, 5, 9])] = 1.0
    _assert_untouched(x, [0.0] * 6)
    with pytest.raises(RuntimeError):
        x.scatter_(0, nbgrad.tensor([0, 9]), 1.0)
    _assert_untouched(x, [0.0] * 6)


def test_failing_inplace_on_a_view_leaves_the_base_alone():
    base = nbgrad.zeros(3, 4)
    v = base.t()
    with pytest.raises(RuntimeError):
        v.add_(nbgrad.ones(3, 4))
    assert base.tolist() == [[0.0] * 4] * 3
    assert base._version == 0 and v._version == 0


def test_integer_division_by_zero_raises_but_float_division_gives_inf():
    a = nbgrad.tensor([5, 3])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a % nbgrad.tensor([0, 1])
    assert (nbgrad.tensor([5.0]) // 0).tolist() == [float("inf")]
    assert (nbgrad.tensor([-5.0]) / 0).tolist() == [float("-inf")]


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's int32 tensor // tensor traps on MIN // -1 (SIGFPE)")
@pytest.mark.parametrize("dtype, low", [(nbgrad.int8, -2 ** 7), (nbgrad.int16, -2 ** 15), (nbgrad.int32, -2 ** 31),
                                        (nbgrad.int64, -2 ** 63)])
@pytest.mark.parametrize("n", [1, 64, 5000])
def test_the_overflowing_integer_quotient_wraps_in_every_dtype(dtype, low, n):
    # MIN // -1 wraps to MIN as two's complement negation does (PyTorch's int64 CPU result
    # for t // -1; int64 alone gave 0 here), neither trapping nor differing by dtype
    a = nbgrad.full((n,), low, dtype=dtype)
    minus_one = nbgrad.full((n,), -1, dtype=dtype)
    for q in (a // -1, a // minus_one, a.div(minus_one, rounding_mode="trunc")):
        assert q.tolist() == [low] * n
    assert (a % minus_one).tolist() == [0] * n


# Broadcasting errors name the last mismatching dim, as TensorIterator's infer_size (it walks
# from the last dim); torch.broadcast_shapes has messages of its own.  Recorded in PyTorch 2.13.
@pytest.mark.parametrize("a, b, message", [
    ((3, 2), (2, 3), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
    ((4, 2, 3), (5, 2, 4), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2"),
    ((2, 3), (4, 3), "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0"),
])
def test_broadcast_error_names_the_last_mismatching_dim(a, b, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        nbgrad.ones(*a) + nbgrad.ones(*b)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        nbgrad.broadcast_tensors(nbgrad.ones(*a), nbgrad.ones(*b))
    with pytest.raises(RuntimeError, match=re.escape(message)):
        nbgrad.empty(*a).copy_(nbgrad.ones(*b))


@pytest.mark.parametrize("shapes, result", [
    (((3, 2), (2, 3)), "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 "
                       "had (2, 3); but expected shape should be broadcastable to [3, 2]"),
    (((2, 3), (3,), (4, 3)), "Attempting to broadcast a dimension of length 4 at -2! Mismatching argument at "
                             "index 2 had (4, 3); but expected shape should be broadcastable to [2, 3]"),
    (((2,), 3), "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 had (3,); "
                "but expected shape should be broadcastable to [2]"),
    (((2, 1), [1, 4], None), [2, 4]),
    ((), []),
    (((0,), (1,)), [0]),
    (((5, 1, 3), (4, 1)), [5, 4, 3]),
])
def test_broadcast_shapes_is_pytorchs(shapes, result):
    if isinstance(result, str):
        with pytest.raises(RuntimeError, match=re.escape(result)):
            nbgrad.broadcast_shapes(*shapes)
    else:
        assert nbgrad.broadcast_shapes(*shapes) == nbgrad.Size(result)


def test_broadcast_shapes_bad_input_errors_are_pytorchs():
    with pytest.raises(ValueError, match="Attempting to broadcast a dimension with negative length!"):
        nbgrad.broadcast_shapes((-1,))
    with pytest.raises(RuntimeError, match="Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                                           "got 2.0"):
        nbgrad.broadcast_shapes((2, 3), 2.0)


# --- check order: PyTorch's meta checks come before the kernel's index checks -------------

@pytest.mark.parametrize("write", [
    lambda x, v: x.__setitem__(nbgrad.tensor([5]), v),
    lambda x, v: x.index_put_((nbgrad.tensor([5]),), v),
    lambda x, v: x.index_put((nbgrad.tensor([5]),), v),
], ids=["setitem", "index_put_", "index_put"])
def test_index_put_dtype_mismatch_is_raised_before_the_out_of_range_index(write):
    # recorded from PyTorch 2.13: the dtype check is index_put's meta, the range the kernel's
    x = nbgrad.zeros(3, dtype=nbgrad.bool)
    with pytest.raises(RuntimeError, match=re.escape(
            "Index put requires the source and destination dtypes match, got Bool for the destination "
            "and Double for the source.")):
        write(x, nbgrad.tensor(1.0, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match=re.escape(
            "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1]")):
        write(x, nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float64))
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        write(x, nbgrad.tensor(True))
    assert x.tolist() == [False, False, False]


@pytest.mark.parametrize("tensors, dim, position", [
    (lambda: [nbgrad.ones(2, 3), nbgrad.tensor(1.0)], -3, 1),   # a dim the first cannot wrap
    (lambda: [nbgrad.ones(2, 3), nbgrad.tensor(1.0)], 0, 1),
    (lambda: [nbgrad.tensor(1.0), nbgrad.ones(2)], 5, 0),
    (lambda: [nbgrad.ones(0), nbgrad.tensor(1.0)], 0, 1),       # after a skipped empty one
])
def test_cat_names_the_zero_dim_tensor_before_wrapping_the_dim(tensors, dim, position):
    with pytest.raises(RuntimeError, match=re.escape(
            f"zero-dimensional tensor (at position {position}) cannot be concatenated")):
        nbgrad.cat(tensors(), dim)


@pytest.mark.parametrize("shape, dim, index, error, message", [
    # recorded from PyTorch 2.13: dim 1 of a matrix or more is its index_select_out_cpu_dim1_
    # kernel, which names the first index out of range; every other dim says IndexError
    ((3, 4), 1, [2, -1, 7], RuntimeError, "INDICES element is out of DATA bounds, id=-1 axis_dim=4"),
    ((2, 3, 4), 1, [9, 8], RuntimeError, "INDICES element is out of DATA bounds, id=9 axis_dim=3"),
    ((3, 4), -1, [5], RuntimeError, "INDICES element is out of DATA bounds, id=5 axis_dim=4"),
    ((0, 4), 1, [5], RuntimeError, "INDICES element is out of DATA bounds, id=5 axis_dim=4"),
    ((3, 4), 0, [2, -1, 7], IndexError, "index out of range in self"),
    ((2, 3, 4), 2, [9], IndexError, "index out of range in self"),
    ((5,), 0, [7], IndexError, "index out of range in self"),
])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided index"])
def test_index_select_out_of_range_as_pytorch(shape, dim, index, error, message, strided):
    x = nbgrad.zeros(shape)
    idx = nbgrad.tensor([v for k in index for v in (k, 0)])[::2] if strided else nbgrad.tensor(index)
    with pytest.raises(error, match=re.escape(message)):
        x.index_select(dim, idx)


def test_integer_truncating_division_is_exact_beyond_float64():
    # (it went through float64: -2**63 // 3 truncated came out as -3074457345618258432)
    v = [-2 ** 63, 2 ** 62 + 1, 2 ** 53 + 1, -(2 ** 53 + 1), 7, -7]
    want = [-3074457345618258602, 1537228672809129301, 3002399751580331, -3002399751580331, 2, -2]
    a = nbgrad.tensor(v)
    assert a.div(3, rounding_mode="trunc").tolist() == want
    assert a.div(nbgrad.tensor(3), rounding_mode="trunc").tolist() == want
    assert a.div(-3, rounding_mode="trunc").tolist()[1:] == [-w for w in want[1:]]
    if not AGAINST_TORCH:       # (PyTorch's kernel traps there: SIGFPE)
        assert nbgrad.tensor([-2 ** 63]).div(-1, rounding_mode="trunc").tolist() == [-2 ** 63]


@pytest.mark.parametrize("dtype, low", [(nbgrad.int8, -2 ** 7), (nbgrad.int16, -2 ** 15), (nbgrad.int32, -2 ** 31),
                                        (nbgrad.int64, -2 ** 63)])
def test_integer_fmod_and_gcd_with_the_minimum_as_c(dtype, low):
    # recorded from PyTorch 2.13 (C's truncating remainder; |MIN| is MIN): the magnitudes'
    # remainder gave fmod(100, -128) = -28 in int8, and gcd took that sign
    a = nbgrad.tensor([100, 64, 126, low, -7, low, 7], dtype=dtype)
    b = nbgrad.tensor([low, low, low, -1, 3, low, -3], dtype=dtype)
    assert nbgrad.fmod(a, b).tolist() == [100, 64, 126, 0, -1, 0, 1]
    gcd_first = -4 if dtype is nbgrad.int16 else 4          # (C++'s int promotion of int16 operands)
    assert nbgrad.gcd(a, b).tolist() == [gcd_first, 64, -2, 1, 1, low, 1]


@pytest.mark.parametrize("make", [
    lambda: nbgrad.empty(2 ** 47), lambda: nbgrad.zeros(2 ** 47), lambda: nbgrad.randn(2 ** 47),
    lambda: nbgrad.randint(0, 5, (2 ** 46,)), lambda: nbgrad.arange(2 ** 46),
], ids=["empty", "zeros", "randn", "randint", "arange"])
def test_an_allocation_that_cannot_be_had_is_pytorchs_runtime_error(make):
    # (512 TiB: beyond any x86-64 address space, so it fails whatever the overcommit policy)
    with pytest.raises(RuntimeError, match=r"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                                           r"\d+ bytes"):
        make()


@pytest.mark.parametrize("call, message", [
    (lambda b: b.median(), "\"median_cpu\" not implemented for 'Bool'"),
    (lambda b: b.nanmedian(), "\"median_cpu\" not implemented for 'Bool'"),
    (lambda b: b.median(0), "\"median_out\" not implemented for 'Bool'"),
    (lambda b: b.nanmedian(0), "\"median_out\" not implemented for 'Bool'"),
    (lambda b: b.kthvalue(1), "\"kthvalue_cpu\" not implemented for 'Bool'"),
])
def test_bool_order_statistics_are_not_implemented_as_in_pytorch(call, message):
    with pytest.raises(NotImplementedError, match=re.escape(message)):
        call(nbgrad.tensor([True, False]))


def test_order_statistics_name_the_wrapped_dim_and_empty_medians_cast_nan():
    with pytest.raises(RuntimeError, match=re.escape("kthvalue(): selected number k out of range for dimension 1")):
        nbgrad.ones(2, 3).kthvalue(9)
    with pytest.raises(IndexError, match=re.escape("median(): Expected reduction dim 0 to have non-zero size.")):
        nbgrad.zeros(0, 2).nanmedian(0)
    # recorded from PyTorch 2.13: NaN cast as its CPU cast does
    assert nbgrad.zeros(0, dtype=nbgrad.int64).median().item() == -2 ** 63
    assert nbgrad.zeros(0, dtype=nbgrad.int8).median().item() == 0
    assert nbgrad.zeros(0, dtype=nbgrad.bool).median().item() is True


@pytest.mark.parametrize("call, error, message", [
    # recorded from PyTorch 2.13
    (lambda: nbgrad.nn.functional.hardtanh(nbgrad.tensor([1, 0], dtype=nbgrad.uint8)), RuntimeError,
     "cannot do hardtanh on an unsigned type with negative limits"),
    (lambda: nbgrad.nn.functional.hardtanh(nbgrad.tensor([True])), RuntimeError, "Bool inputs not supported for hardtanh"),
    (lambda: nbgrad.tensor([[True]]).trace(), NotImplementedError, "\"trace\" not implemented for 'Bool'"),
    (lambda: nbgrad.tensor([True]).histc(), NotImplementedError, "\"linspace_cpu\" not implemented for 'Bool'"),
    (lambda: nbgrad.tensor([1]).histc(), NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'"),
    (lambda: nbgrad.var_mean(nbgrad.tensor([1, 2])), RuntimeError, "var_mean only support floating point and complex dtypes"),
    (lambda: nbgrad.std_mean(nbgrad.tensor([True])), RuntimeError, "std_mean only support floating point and complex dtypes"),
    (lambda: nbgrad.tensor([1.0, 2.0]).nanquantile(1.5), RuntimeError, "quantile() q must be in the range [0, 1] but got 1.5"),
    (lambda: nbgrad.tensor([1, 2]).nanquantile(0.5), RuntimeError, "quantile() input tensor must be either float or double dtype"),
    (lambda: nbgrad.linalg.solve(nbgrad.eye(2, dtype=nbgrad.float16), nbgrad.ones(2, dtype=nbgrad.float16)),
     NotImplementedError, "\"lu_cpu\" not implemented for 'Half'"),
])
def test_dtype_refusals_as_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_integer_hardtanh_truncates_its_limits_as_pytorch():
    F = nbgrad.nn.functional
    assert F.hardtanh(nbgrad.tensor([-3, 0, 3], dtype=nbgrad.int8), -1.5, 1.5).tolist() == [-1, 0, 1]
    assert F.hardtanh(nbgrad.tensor([1, 0, 3], dtype=nbgrad.uint8), -0.5, 1.5).tolist() == [1, 0, 1]


_F = nbgrad.nn.functional
_B = lambda: nbgrad.tensor([True, False])               # noqa: E731
_I8 = lambda: nbgrad.tensor([1, 0], dtype=nbgrad.int8)  # noqa: E731
_F32 = lambda: nbgrad.tensor([1.0, 0.0])                # noqa: E731


@pytest.mark.parametrize("call, error, message", [
    # recorded from PyTorch 2.13 (a sweep of binary ops over bool, int8, uint8, int64, float16, float32)
    (lambda: _F.mse_loss(_I8(), _I8()), NotImplementedError, "\"mse_cpu\" not implemented for 'Char'"),
    (lambda: _F.mse_loss(_B(), _B()), NotImplementedError, "\"mse_cpu\" not implemented for 'Bool'"),
    (lambda: _F.smooth_l1_loss(_I8(), _B()), NotImplementedError, "\"smooth_l1_cpu\" not implemented for 'Char'"),
    (lambda: _F.huber_loss(_I8(), _B()), NotImplementedError, "\"huber_cpu\" not implemented for 'Char'"),
    (lambda: _F.huber_loss(_B(), _F32()), RuntimeError, "result type Float can't be cast to the desired output type Bool"),
    (lambda: _F.kl_div(_F32(), _I8(), reduction="sum"), RuntimeError, "kl_div: Integral inputs not supported."),
    (lambda: _F.binary_cross_entropy(_I8(), _I8()), NotImplementedError,
     "\"binary_cross_entropy\" not implemented for 'Char'"),
    (lambda: _F.binary_cross_entropy(nbgrad.tensor([0.5, 2.0]), nbgrad.tensor([2.0, 0.5])), RuntimeError,
     "all elements of target should be between 0 and 1"),
    (lambda: nbgrad.fmod(_B(), _B()), NotImplementedError, "\"fmod_cpu\" not implemented for 'Bool'"),
    (lambda: nbgrad.addcmul(_B(), _B(), _B()), NotImplementedError, "\"addcmul_cpu_out\" not implemented for 'Bool'"),
    (lambda: nbgrad.searchsorted(_B(), _B()), NotImplementedError, "\"searchsorted_out_cpu\" not implemented for 'Bool'"),
    (lambda: nbgrad.dot(_B(), _F32()), RuntimeError, "dot : expected both vectors to have same dtype, but found Bool and Float"),
    (lambda: nbgrad.dot(_B(), _B()), NotImplementedError, "\"dot\" not implemented for 'Bool'"),
    (lambda: nbgrad.trapezoid(_F32(), _B()), RuntimeError,
     "trapezoid: received a bool input for `x` or `y`, but bool is not supported"),
    (lambda: nbgrad.cdist(nbgrad.ones(2, 2, dtype=nbgrad.float16), nbgrad.ones(2, 2)), NotImplementedError,
     "\"cdist\" not implemented for 'Half'"),
    (lambda: nbgrad.ldexp(_F32(), _B()), NotImplementedError, "\"ldexp_cpu_exp\" not implemented for 'Bool'"),
])
def test_binary_dtype_refusals_as_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_bool_operands_that_pytorch_promotes():
    # recorded from PyTorch 2.13: these compute in the promoted dtype
    assert nbgrad.fmod(_B(), nbgrad.tensor([2, 2], dtype=nbgrad.int8)).tolist() == [1, 0]
    assert nbgrad.fmod(_F32(), _B()).tolist()[0] == 0.0 and nbgrad.fmod(_B(), 2.5).dtype == nbgrad.float32
    np.testing.assert_allclose(nbgrad.logaddexp(_B(), _F32()).numpy(), np.logaddexp([1.0, 0.0], [1.0, 0.0]), rtol=1e-6)
    x = nbgrad.tensor([1.0, 0.0], requires_grad=True)
    loss = _F.smooth_l1_loss(x, _B())
    assert loss.dtype == nbgrad.float32 and loss.item() == 0.0
    loss.backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert _F.huber_loss(nbgrad.ones(2, dtype=nbgrad.float16), nbgrad.zeros(2)).dtype == nbgrad.float16
    assert nbgrad.ldexp(_I8(), _B()).tolist() == [2.0, 0.0]


@pytest.mark.parametrize("call, error, message", [
    # recorded from PyTorch 2.13: draws of floats refuse other dtypes (a uniform draw of bools
    # looped forever: its redraw of values that round to `high`)
    (lambda: nbgrad.rand_like(nbgrad.ones(3, dtype=nbgrad.bool)), NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Bool'"),
    (lambda: nbgrad.rand(3, dtype=nbgrad.int64), NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda: nbgrad.ones(3, dtype=nbgrad.int8).uniform_(), NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Char'"),
    (lambda: nbgrad.randn_like(nbgrad.ones(3, dtype=nbgrad.int8)), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Char'"),
    (lambda: nbgrad.ones(3, dtype=nbgrad.bool).normal_(), NotImplementedError, "\"normal_kernel_cpu\" not implemented for 'Bool'"),
    (lambda: nbgrad.bernoulli(nbgrad.ones(2, dtype=nbgrad.int8)), NotImplementedError,
     "\"bernoulli_tensor_cpu_p_\" not implemented for 'Char'"),
    (lambda: nbgrad.ones(2, dtype=nbgrad.bool).geometric_(0.5), NotImplementedError, "\"geometric_cpu\" not implemented for 'Bool'"),
    (lambda: nbgrad.ones(2, dtype=nbgrad.int8).cauchy_(), RuntimeError,
     "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified "
     "signed char"),
])
def test_random_draws_refuse_dtypes_as_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.parametrize("call, error, message", [
    # recorded from PyTorch 2.13
    (lambda: _F.layer_norm(nbgrad.ones(2, 4, dtype=nbgrad.int64), (4,)), NotImplementedError,
     "\"LayerNormKernelImpl\" not implemented for 'Long'"),
    (lambda: _F.layer_norm(nbgrad.ones(2, 4, dtype=nbgrad.int64), (4,), weight=nbgrad.ones(4)), RuntimeError,
     "mixed dtype (CPU): all inputs must share same datatype."),
    (lambda: _F.batch_norm(nbgrad.ones(2, 2, 4, dtype=nbgrad.bool), None, None, training=True), NotImplementedError,
     "\"batch_norm\" not implemented for 'Bool'"),
    (lambda: _F.group_norm(nbgrad.ones(2, 2, 4, dtype=nbgrad.int64), 1), NotImplementedError,
     "\"GroupNormKernelImpl\" not implemented for 'Long'"),
    (lambda: _F.instance_norm(nbgrad.ones(2, 2, 4, dtype=nbgrad.int64)), NotImplementedError,
     "\"batch_norm\" not implemented for 'Long'"),
    (lambda: _F.rms_norm(nbgrad.ones(2, 4, dtype=nbgrad.int64), (4,)), NotImplementedError,
     "\"rms_norm\" not implemented for 'Long'"),
    (lambda: _F.max_pool1d(nbgrad.ones(1, 1, 4, dtype=nbgrad.int64), 2), NotImplementedError,
     "\"max_pool1d_impl\" not implemented for 'Long'"),
    (lambda: _F.cross_entropy(nbgrad.ones(4, 5), nbgrad.ones(4)), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    (lambda: _F.cross_entropy(nbgrad.ones(4, 5), nbgrad.ones(4, 5, dtype=nbgrad.int64)), RuntimeError,
     "Expected floating point type for target with class probabilities, got Long"),
])
def test_layer_dtype_refusals_as_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_bincount_weights_dtype_as_pytorch():
    # recorded from PyTorch 2.13: float32 weights count in float32, every other dtype in float64
    index = nbgrad.tensor([0, 1, 1])
    for dtype, want in ((nbgrad.float16, nbgrad.float64), (nbgrad.float32, nbgrad.float32),
                        (nbgrad.float64, nbgrad.float64), (nbgrad.int64, nbgrad.float64)):
        out = nbgrad.bincount(index, weights=nbgrad.ones(3, dtype=dtype))
        assert out.dtype == want and out.tolist() == [1.0, 2.0]


def test_creation_of_bool_and_int64_ranges_as_pytorch():
    # recorded from PyTorch 2.13
    for call, kernel in ((lambda: nbgrad.arange(5, dtype=nbgrad.bool), "arange_cpu"),
                         (lambda: nbgrad.linspace(0, 3, 4, dtype=nbgrad.bool), "linspace_cpu"),
                         (lambda: nbgrad.logspace(0, 2, 3, dtype=nbgrad.bool), "logspace_cpu"),
                         (lambda: nbgrad.randperm(3, dtype=nbgrad.bool), "randperm")):
        with pytest.raises(NotImplementedError, match=re.escape(f"\"{kernel}\" not implemented for 'Bool'")):
            call()
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for bool"):
        nbgrad.randint(0, 3, (2,), dtype=nbgrad.bool)
    assert nbgrad.randint(0, 2, (2,), dtype=nbgrad.bool).dtype == nbgrad.bool
    # an int64 range is sized in int64 (bounds and step truncated first), int32's in double
    assert nbgrad.arange(0.5, 3.7, 1, dtype=nbgrad.int64).tolist() == [0, 1, 2]
    assert nbgrad.arange(0.5, 3.7, 1, dtype=nbgrad.int32).tolist() == [0, 1, 2, 3]
    assert nbgrad.arange(0.7, 5.9, 2.5, dtype=nbgrad.int64).tolist() == [0, 2, 4]
    with pytest.raises(ValueError, match="step must be nonzero"):
        nbgrad.arange(0, 2.5, 0.5, dtype=nbgrad.int64)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        nbgrad.arange(0, 5, 0)
