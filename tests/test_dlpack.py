"""DLPack and the NumPy array interface: zero-copy exchange, strides, dtypes, lifetime, refusals.

PyTorch's behaviour recorded for these (torch 2.13): __dlpack__ of a tensor that requires
grad raises BufferError("Can't export tensors that require gradient, use
tensor.detach()"); __dlpack_device__ of a CPU tensor is (kDLCPU=1, 0); np.asarray(t)
shares a CPU tensor's memory and raises RuntimeError for a tensor that requires grad.
"""
import gc

import numpy as np
import pytest

import nbgrad
from nbgrad import _dlpack

DTYPES = [nbgrad.bool, nbgrad.int8, nbgrad.int16, nbgrad.int32, nbgrad.int64, nbgrad.uint8,
          nbgrad.float16, nbgrad.float32, nbgrad.float64]


def _values(dtype, shape):
    a = np.arange(int(np.prod(shape))).reshape(shape) % 7
    return nbgrad.tensor(a.astype(dtype.np))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_numpy_from_dlpack_shares_memory_dtype_and_strides(dtype):
    base = _values(dtype, (3, 5))
    t = base.t()[1:, ::2]                      # strided, with an offset
    a = np.from_dlpack(t)
    assert a.dtype == dtype.np
    assert a.shape == tuple(t.shape)
    assert a.strides == tuple(s * dtype.itemsize for s in t.stride())
    assert a.__array_interface__["data"][0] == t.data_ptr()
    np.testing.assert_array_equal(a, base.numpy().T[1:, ::2])
    assert np.shares_memory(a, base.numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_from_dlpack_of_numpy_shares_memory(dtype):
    a = (np.arange(24).reshape(4, 6) % 5).astype(dtype.np)
    v = a[::2, 1::2]
    t = nbgrad.from_dlpack(v)
    assert t.dtype is dtype
    assert tuple(t.shape) == v.shape
    assert t.stride() == tuple(s // v.itemsize for s in v.strides)
    assert t.data_ptr() == v.__array_interface__["data"][0]
    np.testing.assert_array_equal(t.numpy(), v)


def test_writes_are_seen_both_ways():
    t = nbgrad.zeros(2, 3)
    a = np.from_dlpack(t)
    a[1, 2] = 5.0
    assert t[1, 2].item() == 5.0
    t.add_(1)
    np.testing.assert_array_equal(a, [[1, 1, 1], [1, 1, 6]])
    b = nbgrad.from_dlpack(a)
    b.mul_(2)
    assert a[1, 2] == 12.0 and t[1, 2].item() == 12.0


def test_round_trip_nbgrad_to_nbgrad_keeps_geometry():
    t = nbgrad.arange(12.0).reshape(3, 4).transpose(0, 1)[:, 1:]
    u = nbgrad.from_dlpack(t)
    assert u.data_ptr() == t.data_ptr()
    assert u.shape == t.shape and u.stride() == t.stride()
    assert u.requires_grad is False and u.grad_fn is None


def test_broadcast_zero_strides_are_exported():
    t = nbgrad.tensor([1.0, 2.0]).expand(3, 2)
    a = np.from_dlpack(t)
    assert a.strides == (0, 4)
    np.testing.assert_array_equal(a, [[1, 2]] * 3)


def test_empty_and_zero_dim():
    e = nbgrad.from_dlpack(np.zeros((0, 3), np.float32))
    assert tuple(e.shape) == (0, 3) and e.dtype is nbgrad.float32
    z = nbgrad.tensor(2.5, dtype=nbgrad.float64)
    a = np.from_dlpack(z)
    assert a.shape == () and a == 2.5
    assert nbgrad.from_dlpack(np.full((), 1.5)).item() == 1.5
    assert np.from_dlpack(nbgrad.zeros(0, 2)).shape == (0, 2)


def test_dlpack_device_and_capsule_kinds():
    t = nbgrad.ones(2)
    assert t.__dlpack_device__() == (1, 0)
    assert "dltensor" in repr(t.__dlpack__())
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" not in repr(t.__dlpack__(max_version=(0, 8)))
    # a legacy capsule is accepted directly, once
    cap = t.__dlpack__()
    u = nbgrad.from_dlpack(cap)
    assert u.data_ptr() == t.data_ptr()
    assert "used_dltensor" in repr(cap)
    with pytest.raises(ValueError, match="consumed"):
        nbgrad.from_dlpack(cap)


def test_refusals():
    with pytest.raises(BufferError, match=r"Can't export tensors that require gradient, use tensor.detach\(\)"):
        nbgrad.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError):
        np.from_dlpack(nbgrad.ones(2, requires_grad=True))
    with pytest.raises(TypeError, match="stream"):
        nbgrad.ones(2).__dlpack__(stream="s")
    with pytest.raises(BufferError, match="device"):
        nbgrad.ones(2).__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="uint16"):
        nbgrad.from_dlpack(np.zeros(3, np.uint16))
    with pytest.raises(TypeError, match="__dlpack__"):
        nbgrad.from_dlpack([1, 2])
    # detach() exports
    x = nbgrad.ones(2, requires_grad=True)
    assert np.from_dlpack(x.detach()).__array_interface__["data"][0] == x.data_ptr()


def test_copy_true_exports_a_copy():
    t = nbgrad.arange(4.0)
    a = np.from_dlpack(t, copy=True)
    a[0] = 9
    assert t[0].item() == 0.0
    b = np.from_dlpack(t, copy=False)
    assert b.__array_interface__["data"][0] == t.data_ptr()


def test_exported_memory_outlives_the_tensor():
    t = nbgrad.arange(1000.0) * 2
    before = len(_dlpack._EXPORTS)
    a = np.from_dlpack(t)
    assert len(_dlpack._EXPORTS) == before + 1
    del t
    gc.collect()
    np.testing.assert_array_equal(a[:3], [0, 2, 4])     # the storage lives while numpy holds it
    del a
    gc.collect()
    assert len(_dlpack._EXPORTS) == before              # the consumer's deleter released it
    # a capsule dropped unconsumed releases its reference too
    cap = nbgrad.ones(3).__dlpack__(max_version=(1, 0))
    assert len(_dlpack._EXPORTS) == before + 1
    del cap
    gc.collect()
    assert len(_dlpack._EXPORTS) == before


def test_imported_memory_outlives_the_producer():
    a = np.arange(6.0) * 3
    t = nbgrad.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(t.numpy(), [0, 3, 6, 9, 12, 15])
    v = t[1::2]
    del t
    gc.collect()
    np.testing.assert_array_equal(v.numpy(), [3, 9, 15])


def test_array_interface_and_asarray_share_memory():
    t = nbgrad.arange(12.0).reshape(3, 4).t()
    a = np.asarray(t)
    assert a.__array_interface__["data"][0] == t.data_ptr()
    assert a.strides == (4, 16)
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4).T)
    assert t.__array_interface__["strides"] == (4, 16)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    c = np.array(t, copy=True)
    assert not np.shares_memory(c, a)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.asarray(nbgrad.ones(2, requires_grad=True))
    with pytest.raises(ValueError, match="copy"):
        nbgrad.ones(2).__array__(dtype=np.float64, copy=False)


def test_torch_round_trip():
    torch = pytest.importorskip("torch")
    t = nbgrad.arange(12.0).reshape(3, 4).t()
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr() and tt.stride() == t.stride()
    tt[0, 0] = 42
    assert t[0, 0].item() == 42
    src = torch.arange(6, dtype=torch.int16).reshape(2, 3).t()
    u = nbgrad.from_dlpack(src)
    assert u.data_ptr() == src.data_ptr() and u.stride() == src.stride() and u.dtype is nbgrad.int16
    for dt in DTYPES:
        x = _values(dt, (2, 3))[:, 1:]
        assert torch.from_dlpack(x).numpy().tolist() == x.tolist()


def test_read_only_exports_are_copied():
    # nbgrad has no read-only tensors (its kernels write storages): a producer's read-only
    # flag makes from_dlpack copy (PyTorch shares and leaves writes undefined)
    a = np.arange(3.0)
    a.flags.writeable = False
    t = nbgrad.from_dlpack(a)
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert t.data_ptr() != a.__array_interface__["data"][0]
    t.add_(1)
    assert a.tolist() == [0.0, 1.0, 2.0]
