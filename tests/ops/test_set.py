"""Tensor.set_: a tensor takes another's memory and geometry (or a storage's, or a new
empty one) in place.  References: PyTorch's recorded behaviour (versions, flags,
messages); nbgrad refuses a geometry outside the storage, where PyTorch grows it."""
import os

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


def test_set_to_a_tensor_shares_its_memory_and_counts_a_change_of_its_own():
    a = nbgrad.zeros(3)
    b = nbgrad.arange(6.0).reshape(2, 3)
    a.set_(b)
    assert a._version == 1 and b._version == 0 and a._base is None
    assert tuple(a.shape) == (2, 3) and a.stride() == (3, 1) and a.data_ptr() == b.data_ptr()
    b.add_(1)
    assert a._version == 1 and b._version == 1          # separate counters, shared memory
    np.testing.assert_array_equal(a.numpy(), np.arange(6.0).reshape(2, 3) + 1)
    a.add_(1)
    np.testing.assert_array_equal(b.numpy(), np.arange(6.0).reshape(2, 3) + 2)


def test_set_to_a_storage_with_geometry_and_to_nothing():
    b = nbgrad.arange(6.0)
    e = nbgrad.zeros(2)
    assert e.set_(b.untyped_storage(), 1, (2,), (2,)) is e
    np.testing.assert_array_equal(e.numpy(), [1.0, 3.0])
    assert e._version == 1
    e.set_(b.untyped_storage(), 0, (2, 3))
    assert e.stride() == (3, 1)
    e.set_()
    assert tuple(e.shape) == (0,) and e._version == 3
    f = nbgrad.zeros(1).set_(b.untyped_storage())
    np.testing.assert_array_equal(f.numpy(), np.arange(6.0))
    np.testing.assert_array_equal(nbgrad.zeros(1).set_(nbgrad.zeros(3), 1, (2,)).numpy(), [0.0, 0.0])


def test_set_refuses_other_dtypes_geometries_outside_the_storage_and_bad_arguments():
    s = nbgrad.arange(6.0).untyped_storage()
    for a, b, msg in [(nbgrad.float32, nbgrad.float64, "Could not set tensor of type double to a tensor of type float"),
                      (nbgrad.int64, nbgrad.float32, "Could not set tensor of type float to a tensor of type long int"),
                      (nbgrad.float16, nbgrad.bool, "Could not set tensor of type bool to a tensor of type c10::Half")]:
        t = nbgrad.ones(2, dtype=a)
        with pytest.raises(RuntimeError, match=msg):
            t.set_(nbgrad.zeros(2, dtype=b))
        assert t._version == 0 and t.tolist() == [1, 1]
    t = nbgrad.ones(1)
    with pytest.raises(RuntimeError, match="Tensor: invalid storage offset -1"):
        t.set_(s, -1, (2,), (1,))
    if not AGAINST_TORCH:       # (PyTorch enlarges the storage here and reads what lies past it)
        with pytest.raises(RuntimeError, match=r"setStorage: sizes \[7\], strides \[1\], storage offset 0, and "
                                               r"itemsize 4 requiring a storage size of 28 are out of bounds for storage "
                                               r"of size 24"):
            t.set_(s, 0, (7,), (1,))
    with pytest.raises(TypeError, match=r"set_\(\) received an invalid combination of arguments"):
        t.set_(nbgrad.zeros(3), 1)
    assert t._version == 0 and t.tolist() == [1.0]


def test_set_and_autograd():
    c = nbgrad.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        c.set_(nbgrad.arange(6.0))
    x = nbgrad.ones(3, requires_grad=True) * 2
    d = nbgrad.zeros(3)
    d.set_(x)
    assert d.requires_grad and type(d.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for set_ is not implemented"):
        d.sum().backward()
    with nbgrad.no_grad():
        p = nbgrad.zeros(3, requires_grad=True)
        p.set_(x * 2)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    np.testing.assert_array_equal(p.detach().numpy(), [4.0, 4.0, 4.0])


def test_set_on_a_view_keeps_it_a_view_of_its_base():
    b = nbgrad.arange(6.0)
    v = b[1:3]
    v.set_(nbgrad.ones(5))
    assert v._base is b and v._version == 1 and b._version == 1
    np.testing.assert_array_equal(v.numpy(), np.ones(5))
    np.testing.assert_array_equal(b.numpy(), np.arange(6.0))
