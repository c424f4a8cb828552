"""Memory safety: every public path that builds a geometry from user numbers refuses
one reaching outside the storage (PyTorch 2.13's errors), before touching memory.

Expected messages were recorded from PyTorch 2.13."""
import numpy as np
import pytest

import nbgrad


def _arange(n):
    return nbgrad.arange(float(n))


# -- as_strided --------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda x, *a, **k: x.as_strided(*a, **k),
    lambda x, *a, **k: nbgrad.as_strided(x, *a, **k),
])
def test_as_strided_negative_stride_refused_before_reading(call):
    # used to segfault (a read 2**40 elements before the buffer)
    x = _arange(4)
    with pytest.raises(RuntimeError, match=r"as_strided: Negative strides are not supported at the moment, "
                                           r"got strides: \[-1099511627776\]"):
        call(x, (2,), (-2 ** 40,), 0)


def test_as_strided_negative_stride_write_refused_and_buffer_unchanged():
    base = _arange(1000)
    before = base.numpy().copy()
    with pytest.raises(RuntimeError, match=r"got strides: \[-600\]"):
        base[500:].as_strided((2,), (-600,), 0).fill_(-1.0)
    np.testing.assert_array_equal(base.numpy(), before)


def test_as_strided_strides_of_opposite_signs_do_not_cancel():
    with pytest.raises(RuntimeError, match=r"got strides: \[5, -4\]"):
        _arange(4).as_strided((2, 2), (5, -4), 0)


def test_as_strided_negative_stride_refused_even_when_empty():
    with pytest.raises(RuntimeError, match="Negative strides"):
        _arange(4).as_strided((0,), (-1,), 0)


@pytest.mark.parametrize("kw", [False, True])
def test_as_strided_negative_storage_offset(kw):
    x = _arange(4)
    with pytest.raises(RuntimeError, match="Tensor: invalid storage offset -1"):
        x.as_strided((2,), (1,), storage_offset=-1) if kw else x.as_strided((2,), (1,), -1)


def test_as_strided_negative_size():
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[-2\] and strides=\[1\]"):
        _arange(4).as_strided((-2,), (1,), 0)


def test_as_strided_check_order_is_pytorchs():
    with pytest.raises(RuntimeError, match="Negative strides"):
        _arange(4).as_strided((-2,), (-1,), -1)
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        _arange(4).as_strided((-2,), (1,), -1)


@pytest.mark.parametrize("size,stride,offset", [
    ((2 ** 62, 2 ** 62), (1, 1), 0), ((2,), (2 ** 62,), 0), ((2, 2), (2 ** 61, 2 ** 61), 0),
    ((2,), (2 ** 61,), 0), ((2,), (1,), 2 ** 62), ((2,), (1,), 2 ** 63 - 1)])
def test_as_strided_overflow(size, stride, offset):
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        _arange(4).as_strided(size, stride, offset)


def test_as_strided_out_of_bounds_message():
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[4\], strides \[1\], storage offset 1, and "
                                           r"itemsize 4 requiring a storage size of 20 are out of bounds for "
                                           r"storage of size 16"):
        _arange(4)[1:].as_strided((4,), (1,))


def test_as_strided_in_bounds_still_works():
    x = _arange(4)
    assert x[1:].as_strided((3,), (1,)).tolist() == [1.0, 2.0, 3.0]
    assert x[1:].as_strided((2,), (1,), 0).tolist() == [0.0, 1.0]
    assert nbgrad.as_strided(x, size=(2,), stride=(1,), storage_offset=2).tolist() == [2.0, 3.0]
    assert x.as_strided((), (), 3).item() == 3.0
    assert x.as_strided((0,), (1,), 100).shape == (0,)
    assert x.as_strided((2, 0), (2 ** 62, 1), 0).shape == (2, 0)


@pytest.mark.parametrize("size,stride,offset,kind", [
    ((2.0,), (1,), 0, "size"), ((2,), (1.5,), 0, "stride"), ((True,), (1,), 0, "size")])
def test_as_strided_non_int_arguments(size, stride, offset, kind):
    with pytest.raises(TypeError, match=f"as_strided\\(\\): argument '{kind}'"):
        _arange(4).as_strided(size, stride, offset)


def test_as_strided_bool_offset_refused():
    with pytest.raises(TypeError, match="argument 'storage_offset'"):
        _arange(4).as_strided((2,), (1,), True)


# -- expand --------------------------------------------------------------------------------
def test_expand_negative_size_of_singleton_dim():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        nbgrad.tensor([1.0]).expand(-2)


def test_expand_negative_leading_size():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        _arange(3).expand(-2, 3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(-1\) isn't allowed in a leading"):
        _arange(3).expand(-1, 3)


def test_expand_numel_overflow():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        nbgrad.tensor(1.0).expand(2 ** 62, 2 ** 62)
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        nbgrad.tensor([1.0]).expand(2 ** 64)


def test_expand_valid_sizes_still_work():
    assert nbgrad.tensor([1.0]).expand(0).shape == (0,)
    assert _arange(3).expand(2, -1).shape == (2, 3)


# -- gather / scatter kernels refuse offsets outside the buffer ----------------------------
def test_backend_take_put_refuse_out_of_range_offsets():
    from nbgrad.backends import get_backend
    be = get_backend("cpu")
    buf = np.arange(4.0)
    for bad in ([4], [-1], [2 ** 40]):
        with pytest.raises(IndexError):
            be.take(buf, np.array(bad, dtype=np.int64))
        with pytest.raises(IndexError):
            be.put(buf, np.array([0] + bad, dtype=np.int64), np.ones(2), False)
        with pytest.raises(IndexError):
            be.put(buf, np.array([0] + bad, dtype=np.int64), np.ones(2), True)
    np.testing.assert_array_equal(buf, np.arange(4.0))   # nothing written, not even offset 0
