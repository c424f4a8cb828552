"""DLPack on CUDA under the simulator: nbgrad <-> nbgrad and numba device arrays, zero copy."""
import gc

import numpy as np
import pytest

import nbgrad
from nbgrad import _dlpack
from cuda_available import requires_cuda

pytestmark = requires_cuda


def test_cuda_round_trip_shares_memory_and_strides():
    t = nbgrad.arange(12.0, device="cuda").reshape(3, 4).t()[1:]
    assert t.__dlpack_device__() == (2, 0)
    u = nbgrad.from_dlpack(t)
    assert u.device.type == "cuda"
    assert u.data_ptr() == t.data_ptr() and u.stride() == t.stride() and u.shape == t.shape
    u[0, 0] = 7.0
    assert t[0, 0].item() == 7.0
    np.testing.assert_array_equal(u.cpu().numpy(), t.cpu().numpy())


def test_numba_device_array_through_dlpack():
    from numba import cuda
    d = cuda.to_device(np.arange(6, dtype=np.int32))
    x = nbgrad.as_tensor(d)
    y = nbgrad.from_dlpack(x)
    assert y.dtype is nbgrad.int32 and y.data_ptr() == d.__cuda_array_interface__["data"][0]
    y[1] = 50
    np.testing.assert_array_equal(d.copy_to_host(), [0, 50, 2, 3, 4, 5])


def test_cuda_export_keeps_the_buffer_alive():
    before = len(_dlpack._EXPORTS)
    t = nbgrad.full((4,), 3.0, device="cuda")
    u = nbgrad.from_dlpack(t)
    del t
    gc.collect()
    assert len(_dlpack._EXPORTS) == before + 1
    np.testing.assert_array_equal(u.cpu().numpy(), [3.0] * 4)
    del u
    gc.collect()
    assert len(_dlpack._EXPORTS) == before


def test_cuda_refusals():
    with pytest.raises(BufferError, match="require gradient"):
        nbgrad.ones(2, device="cuda", requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="device"):
        nbgrad.ones(2, device="cuda").__dlpack__(dl_device=(1, 0))
