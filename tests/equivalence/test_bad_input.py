"""Bad input refused as PyTorch 2.13 refuses it (exception type + message recorded
from PyTorch), and nothing is written when an in-place op fails."""
import numpy as np
import pytest

import nbgrad


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
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dtype.name} without overflow"):
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
