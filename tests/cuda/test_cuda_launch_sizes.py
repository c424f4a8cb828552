"""Launch sizes from a device's properties (backends/cuda/_device.py), with fake properties."""
import pytest

from cuda_available import requires_cuda

pytestmark = requires_cuda


def test_launch_sizes_follow_the_device_properties():
    from nbgrad.backends.cuda import _device
    h200 = _device.launch_sizes(sm_count=132, max_threads_per_block=1024)
    assert (h200.threads, h200.max_blocks, h200.sm_count) == (256, 132 * _device.BLOCKS_PER_SM, 132)
    assert h200.reduce_threads == _device.REDUCE_THREADS
    small = _device.launch_sizes(sm_count=2, max_threads_per_block=max(_device.REDUCE_THREADS, 192))
    assert small.max_blocks == 2 * _device.BLOCKS_PER_SM
    assert small.threads == (128 if _device.REDUCE_THREADS <= 128 else 256)   # a power of two, <= the maximum
    with pytest.raises(ValueError, match="bad device properties"):
        _device.launch_sizes(sm_count=0, max_threads_per_block=1024)


def test_a_device_too_small_for_the_reduction_blocks_is_refused():
    from nbgrad.backends.cuda import _device
    with pytest.raises(RuntimeError, match=f"need {_device.REDUCE_THREADS}"):
        _device.launch_sizes(sm_count=4, max_threads_per_block=_device.REDUCE_THREADS // 2)


def test_launch_is_a_grid_stride_cover(monkeypatch):
    from nbgrad.backends.cuda import _device
    monkeypatch.setattr(_device, "_SIZES", _device.launch_sizes(sm_count=3, max_threads_per_block=1024))
    assert _device.launch(1) == (1, 256)
    assert _device.launch(257) == (2, 256)
    assert _device.launch(10 ** 9) == (3 * _device.BLOCKS_PER_SM, 256)
