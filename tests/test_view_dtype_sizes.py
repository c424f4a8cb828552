"""Tensor.view(dtype) of another element size, as ATen's view_dtype (PyTorch 2.13 recorded):
the last dim at stride 1 holds proportionally more (a smaller type) or fewer (a larger one)
elements, the other strides and the offset scaled; the memory, and its version counter,
shared.  Its refusals name the size, stride or offset that stops it."""
import numpy as np
import pytest

import nbgrad


def test_a_smaller_type_splits_each_element():
    x = nbgrad.arange(6, dtype=nbgrad.int64).reshape(2, 3)
    v = x.view(nbgrad.int32)
    assert v.shape == (2, 6) and v.stride() == (6, 1)
    assert v.tolist() == np.arange(6, dtype=np.int64).reshape(2, 3).view(np.int32).tolist()
    assert x.view(nbgrad.uint8).shape == (2, 24)
    assert nbgrad.view_copy(x, nbgrad.int32).tolist() == v.tolist()
    w = nbgrad.tensor([1.5, -2.0]).view(nbgrad.int32)
    assert w.tolist() == np.array([1.5, -2.0], dtype=np.float32).view(np.int32).tolist()


def test_a_larger_type_joins_elements_and_shares_memory():
    x = nbgrad.arange(16, dtype=nbgrad.int16).reshape(4, 4)
    v = x[:, :2].view(nbgrad.int32)
    assert v.shape == (4, 1) and v.stride() == (2, 1)
    assert v.tolist() == np.arange(16, dtype=np.int16).reshape(4, 4)[:, :2].copy().view(np.int32).tolist()
    back = x.view(nbgrad.int32).view(nbgrad.int16)
    assert back.tolist() == x.tolist()
    y = nbgrad.zeros(4, dtype=nbgrad.int32)
    y.view(nbgrad.int16)[0] = 7
    assert y.tolist() == [7, 0, 0, 0] and y._version == 1


@pytest.mark.parametrize("call, message", [
    (lambda: nbgrad.ones(3, dtype=nbgrad.int16).view(nbgrad.int64), r"self\.size\(-1\) must be divisible by 4 to "
     r"view Short as Long \(different element sizes\), but got 3"),
    (lambda: nbgrad.arange(8, dtype=nbgrad.int16)[1:5].view(nbgrad.int32), r"self\.storage_offset\(\) must be "
     r"divisible by 2 to view Short as Int \(different element sizes\), but got 1"),
    (lambda: nbgrad.arange(12, dtype=nbgrad.int16).reshape(4, 3)[:, :2].view(nbgrad.int32), r"self\.stride\(0\) "
     r"must be divisible by 2 to view Short as Int \(different element sizes\), but got 3"),
    (lambda: nbgrad.arange(6, dtype=nbgrad.int64).reshape(2, 3).t().view(nbgrad.int32), r"self\.stride\(-1\) must "
     r"be 1 to view Long as Int \(different element sizes\), but got 3"),
    (lambda: nbgrad.tensor(1.0).view(nbgrad.int16), r"self\.dim\(\) cannot be 0 to view Float as Short \(different "
     r"element sizes\)"),
])
def test_refusals_name_what_stops_the_view(call, message):
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        call()
