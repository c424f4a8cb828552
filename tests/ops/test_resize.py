"""Tensor.resize_ / resize_as_ / is_set_to, the legacy Tensor.new, and the Python-callable
maps apply_ / map_ / map2_.  References: PyTorch's recorded behaviour (shapes, strides,
versions, messages); NumPy for values."""
import os

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"


def test_resize_shrinks_and_grows_keeping_the_old_elements():
    a = nbgrad.arange(6.0)
    assert a.resize_(2, 2) is a and a._version == 1
    assert a.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert a.untyped_storage().nbytes() == 24                  # shrinking keeps the storage
    a.resize_(3, 3)
    assert tuple(a.shape) == (3, 3) and a.stride() == (3, 1) and a._version == 2
    assert a.untyped_storage().nbytes() == 36
    assert a.flatten()[:6].tolist() == list(np.arange(6.0))


def test_a_storage_shared_with_a_numpy_array_does_not_grow():
    a = nbgrad.arange(4.0)
    arr = a.numpy()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        a.resize_(8)
    a.resize_(2)
    a[0] = 5.0
    assert arr[0] == 5.0


def test_resize_of_a_view_grows_the_shared_storage():
    b = nbgrad.arange(6.0)
    v = b[2:]
    v.resize_(5)
    assert tuple(v.shape) == (5,) and v.storage_offset() == 2 and b._version == 1
    assert b.untyped_storage().nbytes() == 28
    v[0] = 10.0
    assert b[2].item() == 10.0                                 # still one memory


def test_resize_to_the_same_shape_changes_nothing_and_memory_format_restrides():
    c = nbgrad.ones(2, 3).t()
    c.resize_(3, 2)
    assert c.stride() == (1, 3) and c._version == 0
    c.resize_(2, 3)
    assert c.stride() == (3, 1)
    d = nbgrad.ones(2, 3, 4, 5)
    d.resize_(2, 3, 4, 5, memory_format=nbgrad.channels_last)
    assert d.stride() == (60, 1, 15, 3)
    assert tuple(nbgrad.ones(2).resize_((3,)).shape) == (3,)
    assert tuple(nbgrad.ones(2).resize_([1, 2]).shape) == (1, 2)
    e = nbgrad.zeros(4)
    assert tuple(e.resize_as_(nbgrad.ones(2, 2)).shape) == (2, 2) and e._version == 1


def test_resize_refusals():
    x = nbgrad.ones(3, requires_grad=True)
    for t in (x, x * 2):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            t.resize_(4)
    n = nbgrad.from_numpy(np.arange(4.0))
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        n.resize_(8)
    np.testing.assert_array_equal(n.resize_(2).numpy(), [0.0, 1.0])   # shrinking the array's view is fine
    with pytest.raises(RuntimeError):
        nbgrad.ones(2).resize_(-1)


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch's view(dtype) shares one storage object, which may grow")
def test_resize_keeps_a_reinterpreted_buffer_aliased():
    a = nbgrad.zeros(4)
    b = a.view(nbgrad.int32)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        a.resize_(8)
    a[0] = 1.0
    assert b[0].item() == np.float32(1.0).view(np.int32)


def test_is_set_to():
    h = nbgrad.ones(3)
    i = nbgrad.ones(1)
    i.set_(h)
    assert i.is_set_to(h) and not h[:2].is_set_to(h) and not nbgrad.ones(3).is_set_to(nbgrad.ones(3))


def test_legacy_new():
    x = nbgrad.ones(2, dtype=nbgrad.float64)
    e = x.new(2, 3)
    assert tuple(e.shape) == (2, 3) and e.dtype == nbgrad.float64
    assert tuple(x.new(nbgrad.Size([2])).shape) == (2,) and tuple(x.new().shape) == (0,)
    np.testing.assert_array_equal(x.new([1, 2]).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(x.new((2, 3)).numpy(), [2.0, 3.0])        # a tuple is data
    y = nbgrad.ones(3, dtype=nbgrad.float64)
    assert x.new(y).data_ptr() == y.data_ptr()
    with pytest.raises(TypeError, match=r"expected .*DoubleTensor|expected TensorOptions\(dtype=double"):
        x.new(nbgrad.ones(3))


def test_apply_map_and_map2():
    a = nbgrad.arange(4.0)
    assert a.apply_(lambda v: v * 2) is a and a._version == 0
    np.testing.assert_array_equal(a.numpy(), [0.0, 2.0, 4.0, 6.0])
    b = nbgrad.arange(4.0)
    np.testing.assert_array_equal(b.map_(nbgrad.ones(4), lambda u, v: u + v + 0.5).numpy(), [1.5, 2.5, 3.5, 4.5])
    np.testing.assert_array_equal(nbgrad.arange(4.0).map_(nbgrad.ones(1), lambda u, v: u + v).numpy(),
                                  [1.0, 2.0, 3.0, 4.0])          # other broadcasts
    c = nbgrad.arange(3.0)
    np.testing.assert_array_equal(c.map2_(nbgrad.ones(3), nbgrad.ones(3) * 2, lambda u, v, w: u + v * w).numpy(),
                                  [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(nbgrad.arange(3).apply_(lambda v: v * 1.7).numpy(), [0, 1, 3])   # int()
    np.testing.assert_array_equal(nbgrad.tensor([True, False]).apply_(lambda v: not v).numpy(), [False, True])


@pytest.mark.parametrize("call, error, message", [
    (lambda: nbgrad.ones(2, requires_grad=True).apply_(lambda v: v), RuntimeError,
     r"Can't call apply_\(\) on Variable that requires grad. Use var.detach\(\).apply_\(\) instead."),
    (lambda: nbgrad.ones(2).apply_(lambda v: "a"), TypeError, "must be real number, not str"),
    (lambda: nbgrad.ones(3).map_(nbgrad.arange(3), lambda u, v: u), TypeError,
     r"map_: expected .*FloatTensor for 'other' \(got .*LongTensor\)"),
    (lambda: nbgrad.ones(3).map_(3, lambda u, v: u), TypeError,
     r"map_\(\): argument 'other' \(position 1\) must be Tensor, not int"),
    (lambda: nbgrad.ones(3).map2_(nbgrad.ones(3), nbgrad.ones(3, dtype=nbgrad.int64), lambda u, v, w: u), TypeError,
     r"map2_: expected .*FloatTensor for argument 'y' \(got .*LongTensor\)"),
    (lambda: nbgrad.ones(3).map_(nbgrad.ones(2), lambda u, v: u), RuntimeError,
     r"The expanded size of the tensor \(3\) must match the existing size \(2\) at non-singleton dimension 0"),
])
def test_map_refusals(call, error, message):
    with pytest.raises(error, match=message):
        call()
