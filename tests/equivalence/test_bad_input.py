"""Bad input refused as PyTorch 2.13 refuses it (exception type + message recorded
from PyTorch), and nothing is written when an in-place op fails."""
import os

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


# -- nbgrad.tensor(): self-referential, ragged, mixed, deep data -------------------------------
def _self_ref_lists():
    a = [1]; a.append(a)
    b = [1, 2]; b[1] = b
    c = [[1], [2]]; c[1] = c
    d = [[1]]; d[0].append(d)                 # a cycle through a deeper list (PyTorch segfaults)
    e = [[1, 2], [3, 4]]; e[1][1] = e
    f = [0]; f[0] = (f,)                     # through a tuple
    g = []; g.append(g)
    h = [[]]; h[0].append(h)
    k = [[[]]]; k[0][0].append(k[0])
    m = [(1, 2), (3, 4)]; m.append(m)
    return [a, b, c, d, e, f, g, h, k, m]


@pytest.mark.parametrize("i", range(10))
def test_tensor_of_self_referential_list_raises(i):
    if AGAINST_TORCH and i in (3, 4):
        pytest.skip("PyTorch 2.13 segfaults on a cycle through a deeper list")
    data = _self_ref_lists()[i]
    with pytest.raises((TypeError, ValueError)) as info:
        nbgrad.tensor(data)
    assert "self-referential" in str(info.value) or "too many dimensions" in str(info.value)


def test_tensor_of_self_referential_list_message_for_simple_case():
    a = [1, 2]; a[1] = a
    with pytest.raises(TypeError, match="new\\(\\): self-referential lists are incompatible"):
        nbgrad.tensor(a)
    g = []; g.append(g)
    with pytest.raises(ValueError, match="too many dimensions 'list'"):
        nbgrad.tensor(g)


@pytest.mark.parametrize("data,msg", [
    ([[1, 2], [3, 4, 5]], "expected sequence of length 2 at dim 1 (got 3)"),
    ([[1, 2], [3]], "expected sequence of length 2 at dim 1 (got 1)"),
    ([[[1]], [[2, 3]]], "expected sequence of length 1 at dim 2 (got 2)"),
    ([[1], []], "expected sequence of length 1 at dim 1 (got 0)"),
])
def test_tensor_ragged(data, msg):
    with pytest.raises(ValueError) as info:
        nbgrad.tensor(data)
    assert str(info.value) == msg


@pytest.mark.parametrize("data,dtype,exc,msg", [
    ([[1, 2], 3], None, TypeError, "not a sequence"),
    ([1, [2, 3]], None, TypeError, "'list' object cannot be interpreted as an integer"),
    ([1, (2,)], None, TypeError, "'tuple' object cannot be interpreted as an integer"),
    ([1.0, [2.0]], None, TypeError, "must be real number, not list"),
    ([1, "a"], None, TypeError, "new(): invalid data type 'str'"),
    ([1, None], None, RuntimeError, "Could not infer dtype of NoneType"),
])
def test_tensor_mixed_leaves(data, dtype, exc, msg):
    with pytest.raises(exc) as info:
        nbgrad.tensor(data, dtype=dtype)
    assert str(info.value) == msg


def test_tensor_valid_nested_data():
    assert nbgrad.tensor([[], [1]]).shape == (2, 0)          # as PyTorch: empty data is not checked
    assert nbgrad.tensor([(1, 2), [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert nbgrad.tensor([1, 2.5, True]).dtype is nbgrad.float32
    assert nbgrad.tensor([np.float64(1.5), 2]).dtype is nbgrad.float64
    assert nbgrad.tensor([np.int8(1)]).dtype is nbgrad.int8
    assert nbgrad.tensor([1, nbgrad.tensor(2.5)]).tolist() == [1.0, 2.5]
    assert nbgrad.tensor(range(3)).tolist() == [0, 1, 2]
    x = [1]
    for _ in range(30):
        x = [x]
    assert nbgrad.tensor(x).dim() == 31


@pytest.mark.parametrize("data", [[2 ** 63], 2 ** 63, -2 ** 63 - 1, [1, 2 ** 64], [2 ** 64 - 1]])
def test_tensor_int_past_int64(data):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        nbgrad.tensor(data)


@pytest.mark.parametrize("data,dtype", [
    ([1000], nbgrad.int8), (1000, nbgrad.int8), ([300], nbgrad.uint8), ([-256], nbgrad.uint8),
    ([2 ** 40], nbgrad.int32), ([1000.5], nbgrad.int8), ([256.0], nbgrad.uint8), ([-0.5], nbgrad.uint8),
    ([float("nan")], nbgrad.int64), ([float("inf")], nbgrad.int64), ([1e39], nbgrad.int64),
    ([[1, 2], [3, 1000]], nbgrad.int8), ([True, 1000], nbgrad.int8)])
def test_tensor_value_outside_integer_dtype(data, dtype):
    name = str(dtype).split(".")[-1]
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without overflow"):
        nbgrad.tensor(data, dtype=dtype)


def test_tensor_values_inside_dtype_and_float_overflow_still_convert():
    assert nbgrad.tensor([-255], dtype=nbgrad.uint8).tolist() == [1]       # two's complement, as PyTorch
    assert nbgrad.tensor([-1], dtype=nbgrad.uint8).tolist() == [255]
    assert nbgrad.tensor([2.5], dtype=nbgrad.int8).tolist() == [2]
    assert nbgrad.tensor([2 ** 63 - 1]).tolist() == [2 ** 63 - 1]
    assert nbgrad.tensor(-2 ** 63).item() == -2 ** 63
    assert nbgrad.tensor([1000], dtype=nbgrad.bool).tolist() == [True]
    assert nbgrad.tensor([1e39], dtype=nbgrad.float32).tolist() == [float("inf")]
    assert nbgrad.tensor([2 ** 70, 1.5]).tolist() == [float(2 ** 70), 1.5]
    assert nbgrad.tensor(np.array([1000]), dtype=nbgrad.int8).tolist() == [-24]   # arrays cast as numpy does


# -- Python numbers converted to an element type: PyTorch's range check --------------------------
def _int8(n=3):
    return nbgrad.zeros(n, dtype=nbgrad.int8)


@pytest.mark.parametrize("dtype,value,cname", [
    (nbgrad.int8, 1000, "int8_t"), (nbgrad.int8, -129, "int8_t"), (nbgrad.int8, 128, "int8_t"),
    (nbgrad.int8, 1000.0, "int8_t"), (nbgrad.uint8, 256, "uint8_t"), (nbgrad.uint8, 255.9, "uint8_t"),
    (nbgrad.uint8, -0.5, "uint8_t"), (nbgrad.uint8, -1.5, "uint8_t"), (nbgrad.int16, 2 ** 15, "int16_t"),
    (nbgrad.int32, 2 ** 31, "int"), (nbgrad.int32, 1e10, "int"), (nbgrad.int64, 2 ** 63, "int64_t"),
    (nbgrad.int64, float("nan"), "int64_t"), (nbgrad.int64, float("inf"), "int64_t"),
    (nbgrad.float32, 1e39, "float"), (nbgrad.float32, -1e300, "float"), (nbgrad.int8, np.int64(1000), "int8_t")])
def test_fill_value_outside_dtype_raises_and_writes_nothing(dtype, value, cname):
    x = nbgrad.arange(3).to(dtype)
    before = x.tolist()
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {cname} without overflow"):
        x.fill_(value)
    assert x.tolist() == before
    assert x._version == 0


@pytest.mark.parametrize("dtype,value,expected", [
    (nbgrad.int8, 127, 127), (nbgrad.uint8, -1, 255), (nbgrad.int64, 2 ** 63 - 1, 2 ** 63 - 1),
    (nbgrad.int64, -2 ** 63, -2 ** 63), (nbgrad.bool, 2, True), (nbgrad.bool, 0.5, True),
    (nbgrad.float32, float("inf"), float("inf")), (nbgrad.int8, True, 1), (nbgrad.int8, 2.5, 2)])
def test_fill_values_inside_dtype(dtype, value, expected):
    assert nbgrad.zeros(2, dtype=dtype).fill_(value).tolist() == [expected] * 2


def test_fill_with_tensor_is_a_copy_and_wraps():
    assert _int8().fill_(nbgrad.tensor(1000)).tolist() == [-24] * 3


def test_fill_python_int_past_uint64():
    with pytest.raises(OverflowError, match="int too big to convert"):
        nbgrad.zeros(3, dtype=nbgrad.float64).fill_(2 ** 70)


def test_full_checks_its_value():
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        nbgrad.full((3,), 300, dtype=nbgrad.uint8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        nbgrad.full((3,), 2 ** 63)
    with pytest.raises(RuntimeError, match="type float without overflow"):
        nbgrad.full((3,), 1e39)
    with pytest.raises(RuntimeError, match="type int8_t without overflow"):
        _int8().new_full((2,), 1000)
    with pytest.raises(RuntimeError, match="type int8_t without overflow"):
        nbgrad.full_like(_int8(), 1000)
    with pytest.raises(RuntimeError, match="type int8_t without overflow"):
        nbgrad.full((2,), nbgrad.tensor(1000), dtype=nbgrad.int8)
    assert nbgrad.full((3,), -1, dtype=nbgrad.uint8).tolist() == [255] * 3


@pytest.mark.parametrize("op", [
    lambda x: x.masked_fill_(nbgrad.tensor([True, False, False]), 1000),
    lambda x: x.masked_fill(nbgrad.tensor([True, False, False]), 1000),
    lambda x: x.masked_fill_(nbgrad.tensor([True, False, False]), nbgrad.tensor(1000)),
    lambda x: x.clamp(-1000, 1000),
    lambda x: x.clamp_(max=1000),
    lambda x: x.where(nbgrad.tensor([True, False, True]), 1000),
    lambda x: nbgrad.where(nbgrad.tensor([True, False, True]), x, 1000),
    lambda x: x.pow(1000),
    lambda x: x.__setitem__(0, 1000),
    lambda x: x.__setitem__(slice(None), 1000),
    lambda x: x.__setitem__(nbgrad.tensor([0]), 1000),
    lambda x: x.scatter_(0, nbgrad.tensor([0]), 1000),
    lambda x: x.index_add(0, nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.int8), alpha=1000),
])
def test_scalar_ops_check_range_and_write_nothing(op):
    x = _int8()
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        op(x)
    assert x.tolist() == [0, 0, 0]


def test_float_scalar_range_checked_where_pytorch_checks():
    x = nbgrad.zeros(3)
    with pytest.raises(RuntimeError, match="type float without overflow"):
        x.clamp(max=1e39)
    with pytest.raises(RuntimeError, match="type float without overflow"):
        nbgrad.where(nbgrad.tensor([True, False, True]), x, 1e39)
    with pytest.raises(RuntimeError, match="type float without overflow"):
        x.masked_fill(nbgrad.tensor([True, False, True]), nbgrad.tensor(1e39, dtype=nbgrad.float64))
    assert x.masked_fill(nbgrad.tensor([True, False, True]), float("-inf")).tolist() == [float("-inf"), 0.0, float("-inf")]
    assert x.pow(1e39).tolist() == [0.0] * 3              # not checked by PyTorch


def test_arithmetic_with_python_int_wraps_as_pytorch():
    # PyTorch does not range-check arithmetic operands: int8 + 1000 wraps
    assert (_int8() + 1000).tolist() == [-24] * 3
    assert (nbgrad.zeros(3, dtype=nbgrad.uint8) - 1).tolist() == [255] * 3
    assert (nbgrad.zeros(3, dtype=nbgrad.int64) + 2 ** 63).tolist() == [-2 ** 63] * 3
    assert (_int8() == 1000).tolist() == [False] * 3
    assert _int8().add_(1000).tolist() == [-24] * 3
    assert _int8().copy_(nbgrad.tensor([1000, 0, 0])).tolist() == [-24, 0, 0]
    assert nbgrad.zeros(3, dtype=nbgrad.uint8).clamp(-1, 255).tolist() == [255] * 3


def test_arithmetic_python_int_past_uint64():
    with pytest.raises(OverflowError, match="int too big to convert"):
        nbgrad.zeros(3, dtype=nbgrad.float32) + 2 ** 200
    with pytest.raises(OverflowError):
        nbgrad.zeros(3, dtype=nbgrad.int64) + 2 ** 70


# -- source dtype must equal self's in scatter / index_add / index_put ------------------------------
@pytest.mark.parametrize("op,msg", [
    (lambda x: x.scatter_(0, nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.float64)),
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda x: x.scatter(0, nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.float64)),
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda x: x.scatter_add_(0, nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.float64)),
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda x: x.index_add_(0, nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.float64)),
     "index_add_(): self (Float) and source (Double) must have the same scalar type"),
    (lambda x: x.index_add_(0, nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.int64)),
     "index_add_(): self (Float) and source (Long) must have the same scalar type"),
    (lambda x: x.index_put_((nbgrad.tensor([0]),), nbgrad.ones(1, dtype=nbgrad.float64)),
     "Index put requires the source and destination dtypes match, got Float for the destination and Double for the source."),
    (lambda x: x.__setitem__(nbgrad.tensor([0]), nbgrad.ones(1, dtype=nbgrad.float64)),
     "Index put requires the source and destination dtypes match, got Float for the destination and Double for the source."),
])
def test_source_dtype_mismatch_refused_and_nothing_written(op, msg):
    x = nbgrad.zeros(3)
    with pytest.raises(RuntimeError) as info:
        op(x)
    assert str(info.value) == msg
    assert x.tolist() == [0.0] * 3


def test_index_put_int_dtype_names():
    x = nbgrad.zeros(3, dtype=nbgrad.int8)
    with pytest.raises(RuntimeError, match="got Char for the destination and Long for the source"):
        x.index_put_((nbgrad.tensor([0]),), nbgrad.tensor(100))


def test_alpha_range_checked():
    x = nbgrad.zeros(3, dtype=nbgrad.int8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        x.add(nbgrad.ones(3, dtype=nbgrad.int8), alpha=1000)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        x.sub(1, alpha=1000)
    assert x.sub(1000, alpha=1).tolist() == [24] * 3          # the operand itself wraps, as PyTorch


@pytest.mark.parametrize("draw,msg", [
    (lambda: nbgrad.zeros(3, dtype=nbgrad.int8).random_(0, 1000), "to - 1 is out of bounds for signed char"),
    (lambda: nbgrad.zeros(3, dtype=nbgrad.uint8).random_(-1, 10), "from is out of bounds for unsigned char"),
    (lambda: nbgrad.randint(0, 1000, (3,), dtype=nbgrad.int8), "to - 1 is out of bounds for signed char"),
    (lambda: nbgrad.randint(-5, 10, (3,), dtype=nbgrad.uint8), "from is out of bounds for unsigned char"),
    (lambda: nbgrad.randint(0, 2 ** 40, (3,), dtype=nbgrad.int32), "to - 1 is out of bounds for int")])
def test_random_bounds_checked_for_the_dtype(draw, msg):
    with pytest.raises(RuntimeError) as info:
        draw()
    assert str(info.value) == msg


def test_random_without_bounds_stays_in_the_dtype():
    v = nbgrad.zeros(2000, dtype=nbgrad.int8).random_()
    assert 0 <= v.min().item() and v.max().item() <= 127
    u = nbgrad.zeros(2000, dtype=nbgrad.uint8).random_()
    assert u.max().item() > 200


# -- index dtypes ------------------------------------------------------------------------------
def test_index_dtypes_as_pytorch():
    x = nbgrad.arange(4.0)
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        nbgrad.zeros(3).masked_select(nbgrad.tensor([1, 0, 1]))
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor for index, but got Int"):
        x.take(nbgrad.tensor([1], dtype=nbgrad.int32))
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor for index, but got Float"):
        x.take(nbgrad.tensor([1.0]))
    for dt in (nbgrad.int8, nbgrad.int16):
        with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
            x[nbgrad.tensor([1], dtype=dt)]
    with pytest.raises(RuntimeError, match="Long, Int; but got .*ShortTensor instead"):
        nbgrad.nn.functional.embedding(nbgrad.tensor([1], dtype=nbgrad.int16), nbgrad.ones(3, 2))
    # int32 indices are accepted where PyTorch accepts them
    assert x.scatter(0, nbgrad.tensor([1], dtype=nbgrad.int32), 5.0).tolist() == [0.0, 5.0, 2.0, 3.0]
    assert x.gather(0, nbgrad.tensor([2], dtype=nbgrad.int32)).tolist() == [2.0]
    assert x[nbgrad.tensor([3], dtype=nbgrad.int32)].tolist() == [3.0]


def test_scatter_src_too_small_message():
    x = nbgrad.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"Expected index \[1, 2\] to be no larger than self \[2, 3\] apart from "
                                           r"dimension 1 and to be no larger size than src \[1, 1\]"):
        x.scatter_(1, nbgrad.tensor([[1, 2]]), nbgrad.ones(1, 1))
    assert x.tolist() == [[0.0] * 3] * 2
