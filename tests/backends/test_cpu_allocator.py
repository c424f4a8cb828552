"""The pool of large output buffers: reused only when nothing references them."""
import gc

import numpy as np
import pytest

from nbgrad.backends import cpu as B
from nbgrad.backends.cpu import _allocator as A


@pytest.fixture(autouse=True)
def small_pool(monkeypatch):
    monkeypatch.setattr(A, "POOL_MIN_BYTES", 1024)
    monkeypatch.setattr(A, "IDLE_LIMIT_BYTES", 64 * 1024)
    monkeypatch.setattr(A, "_buckets", {})
    monkeypatch.setattr(A, "_pooled", [0])
    monkeypatch.setattr(A, "_SMALL_ELEMENTS", 0)
    yield


def ptr(a):
    return a.__array_interface__["data"][0]


def test_released_buffer_is_reused():
    a = A.new_buffer(1000, np.float32)
    p = ptr(a)
    del a
    b = A.new_buffer(1000, np.float32)
    assert ptr(b) == p


@pytest.mark.parametrize("keep", ["slice", "as_strided", "memoryview", "dtype_view", "to_numpy"])
def test_buffer_with_a_live_derivative_is_not_reused(keep):
    a = A.new_buffer(1000, np.float32)
    a[:] = 7
    holder = {
        "slice": lambda: a[10:20],
        "as_strided": lambda: np.lib.stride_tricks.as_strided(a[5:], (3, 3), (8, 4)),
        "memoryview": lambda: memoryview(a),
        "dtype_view": lambda: a.view(np.int32),
        "to_numpy": lambda: B.to_numpy((a, 3, (2, 2), (1, 2))),
    }[keep]()
    p = ptr(a)
    del a
    gc.collect()
    b = A.new_buffer(1000, np.float32)
    assert ptr(b) != p
    b[:] = 0
    assert (np.asarray(holder) != 0).any()   # the old memory still holds the sevens
    del holder, b


def test_small_buffers_bypass_the_pool():
    a = A.new_buffer(10, np.float64)
    assert a.base is None and A._buckets == {}


def test_idle_blocks_beyond_the_limit_are_released():
    bufs = [A.new_buffer(4096 * (k + 1), np.uint8) for k in range(6)]   # 4K..24K
    assert sum(len(b) for b in A._buckets.values()) == 6
    del bufs
    keep = A.new_buffer(100_000, np.uint8)   # 84K idle > 64K: the oldest idle blocks go
    used, idle = A.pooled_bytes()
    assert idle <= 64 * 1024 and used == keep.size
    A.release_idle()
    assert A.pooled_bytes()[1] == 0


def test_backend_outputs_use_the_pool_and_stay_correct():
    x = np.arange(5000, dtype=np.float32)
    v = (x, 0, (5000,), (1,))
    first = B.binary("add", v, v, (5000,), np.dtype(np.float32))
    p = ptr(first)
    np.testing.assert_array_equal(first, 2 * x)
    second = B.unary("neg", v, np.dtype(np.float32))    # first is alive: a new block
    assert ptr(second) != p
    np.testing.assert_array_equal(first, 2 * x)
    del first
    third = B.full(5000, np.float32, 1.5)
    assert ptr(third) == p and (third == 1.5).all()
    np.testing.assert_array_equal(second, -x)


def test_many_live_buffers_of_one_size_are_never_handed_out_twice():
    live = [A.new_buffer(2048, np.uint8) for _ in range(A._SCAN_LIMIT + 8)]
    for i, b in enumerate(live):
        b[:] = i % 256
    del live[3]                                  # idle, within the scanned front
    again = A.new_buffer(2048, np.uint8)
    again[:] = 255
    for i, b in enumerate(live):
        assert (b == (i + (i >= 3)) % 256).all()
    ptrs = {ptr(b) for b in live}
    assert ptr(again) not in ptrs


def test_the_idle_block_handed_out_last_is_reused_first():
    # most recently used first: the block a short-lived temporary just left is still in cache
    # (a 64K-element step of (a*b+c).tanh().sum().backward(): 254 -> 237 us)
    blocks = [A.new_buffer(1000, np.float32) for _ in range(4)]
    addresses = [ptr(b) for b in blocks]
    del blocks[2], blocks[0]        # idle: the first and the third made
    again = A.new_buffer(1000, np.float32)
    assert ptr(again) == addresses[2]
    newest = A.new_buffer(1000, np.float32)
    assert ptr(newest) == addresses[0]
    del again
    assert ptr(A.new_buffer(1000, np.float32)) == addresses[2]
