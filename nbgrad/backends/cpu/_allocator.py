"""Output buffers: all but small ones are recycled from a pool instead of fresh pages.

glibc serves an allocation of 128 KiB or more (its default mmap threshold,
raised dynamically only by some free patterns) with fresh mmapped pages, and
the first write to each page faults.  Measured here: a W4 training step
(benchmarks/compare.py) took ~580 minor faults, ~1 ms of its ~3 ms, in its
128 KiB - 800 KiB outputs (NumPy's hand-written step: none); a fresh 64 MiB
buffer made a 4096^2 float32 copy 36 ms instead of 13-18.  So buffers of
POOL_MIN_BYTES and more are carved from pooled blocks (1-D uint8 arrays),
kept in buckets by exact size, in the order they were last handed out: the
idle block handed out most recently goes first, its memory the likeliest
still in cache (a short-lived temporary's; first-made-first: a 64K-element
`(a*b+c).tanh().sum().backward()` took 254 us a step, this way 237).
A block is handed out again only when
nothing but the pool references it: every array derived from a buffer
(views, slices, as_strided, memoryviews, tensors' storages) keeps a
reference to the block, because numpy points a view's `.base` at the array
that owns the memory.  When the pool holds more than NBGRAD_BUFFER_POOL_MB
(default 512) in all, idle blocks are released until the idle ones fit in
it; NBGRAD_BUFFER_POOL_MB=0 turns the pool off.  Plain Python: nothing here
is jitted.
"""
import os
import threading
from sys import getrefcount

import numpy as np

POOL_MIN_BYTES = 128 << 10
IDLE_LIMIT_BYTES = int(os.environ.get("NBGRAD_BUFFER_POOL_MB", 512)) << 20

_buckets = {}               # nbytes -> [pooled uint8 arrays of that size]
_pooled = [0]               # bytes in all pooled blocks
_SMALL_ELEMENTS = 1 << 14   # fast path: below POOL_MIN_BYTES for any dtype (8-byte items)
_lock = threading.Lock()
# Blocks looked at per allocation: a long chain of live same-size buffers
# must not make each allocation walk all of them (a training step reuses a
# handful per size).  Idle blocks past it are dropped by _release_idle.
_SCAN_LIMIT = 32


def new_buffer(n, dtype):
    """An uninitialised 1-D array of n elements of dtype (PyTorch's RuntimeError when the
    memory cannot be had)."""
    if n < _SMALL_ELEMENTS:
        return np.empty(n, dtype=dtype)
    try:
        return _large_buffer(n, np.dtype(dtype))
    except MemoryError:
        raise out_of_memory(n * np.dtype(dtype).itemsize) from None


def out_of_memory(nbytes):
    """PyTorch's error (a RuntimeError) for an allocation of nbytes that failed."""
    return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. "
                        "Error code 12 (Cannot allocate memory)")


def _large_buffer(n, dtype):
    nbytes = n * dtype.itemsize
    if nbytes < POOL_MIN_BYTES or IDLE_LIMIT_BYTES <= 0:
        return np.empty(n, dtype=dtype)
    with _lock:
        bucket = _buckets.get(nbytes, ())
        last = len(bucket) - 1
        for i in range(last, max(-1, last - _SCAN_LIMIT), -1):
            block = bucket[i]
            # references: the bucket, the name `block`, getrefcount's argument
            if getrefcount(block) == 3:
                if i != last:
                    del bucket[i]
                    bucket.append(block)
                return block.view(dtype)
        if _pooled[0] + nbytes > IDLE_LIMIT_BYTES:
            _release_idle(IDLE_LIMIT_BYTES)
        block = np.empty(nbytes, dtype=np.uint8)
        _buckets.setdefault(nbytes, []).append(block)
        _pooled[0] += nbytes
        return block.view(dtype)


def _release_idle(keep_bytes):
    """Drop idle blocks until at most keep_bytes of idle ones remain (lock held)."""
    idle = 0
    for bucket in _buckets.values():
        for block in bucket:
            if getrefcount(block) == 3:
                idle += block.size
    for size, bucket in list(_buckets.items()):
        i = 0
        while idle > keep_bytes and i < len(bucket):
            if getrefcount(bucket[i]) == 2:      # the bucket and the argument
                idle -= size
                _pooled[0] -= size
                del bucket[i]
            else:
                i += 1
        if not bucket:
            del _buckets[size]


def pooled_bytes():
    """(bytes in use, bytes idle) held by the pool."""
    with _lock:
        used = idle = 0
        for bucket in _buckets.values():
            for block in bucket:
                if getrefcount(block) == 3:
                    idle += block.size
                else:
                    used += block.size
        return used, idle


def release_idle():
    """Drop every pooled block that nothing uses (returns their memory to the OS)."""
    with _lock:
        _release_idle(0)
