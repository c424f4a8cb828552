"""Output buffers: large ones are recycled from a small pool instead of fresh pages.

Measured here (NUMBA_NOTES.md, benchmarks/compare.py W2/W6): a fresh 64 MiB
buffer is mmapped by glibc on every allocation (above its 32 MiB threshold)
and its first write page-faults -- a contiguous 4096^2 float32 copy took
36 ms into a fresh buffer and 13-18 ms into a reused one.  So buffers of
POOL_MIN_BYTES and more are carved from pooled blocks (1-D uint8 arrays) that
the pool keeps.  A block is handed out again only when nothing but the pool
references it: every array derived from a buffer (views, slices,
as_strided, memoryviews, tensors' storages) keeps a reference to the block,
because numpy points a view's `.base` at the array that owns the memory.
Blocks nobody uses beyond NBGRAD_BUFFER_POOL_MB (default 512) in total are
released; NBGRAD_BUFFER_POOL_MB=0 turns the pool off.  Plain Python: nothing
here is jitted.
"""
import os
import sys
import threading

import numpy as np

POOL_MIN_BYTES = 4 << 20
IDLE_LIMIT_BYTES = int(os.environ.get("NBGRAD_BUFFER_POOL_MB", 512)) << 20

_blocks = []                # pooled uint8 arrays, oldest first
_SMALL_ELEMENTS = 1 << 16   # fast path; tests lowering POOL_MIN_BYTES lower it too
_lock = threading.Lock()


def _idle(i):
    # references: the _blocks list and getrefcount's own argument
    return sys.getrefcount(_blocks[i]) == 2


def new_buffer(n, dtype):
    """An uninitialised 1-D array of n elements of dtype."""
    if n < _SMALL_ELEMENTS:                   # below POOL_MIN_BYTES for any dtype
        return np.empty(n, dtype=dtype)
    dtype = np.dtype(dtype)
    nbytes = n * dtype.itemsize
    if nbytes < POOL_MIN_BYTES or IDLE_LIMIT_BYTES <= 0:
        return np.empty(n, dtype=dtype)
    with _lock:
        chosen = None
        idle_bytes = 0
        for i in range(len(_blocks)):
            if _idle(i):
                if chosen is None and _blocks[i].size == nbytes:
                    chosen = i
                else:
                    idle_bytes += _blocks[i].size
        if chosen is not None:
            block = _blocks.pop(chosen)
            _blocks.append(block)            # most recently used last
        else:
            block = np.empty(nbytes, dtype=np.uint8)
            _blocks.append(block)
        # Release the oldest idle blocks beyond the limit.
        i = 0
        while idle_bytes > IDLE_LIMIT_BYTES and i < len(_blocks) - 1:
            if _idle(i):
                idle_bytes -= _blocks[i].size
                del _blocks[i]
            else:
                i += 1
        return block.view(dtype)


def pooled_bytes():
    """(bytes in use, bytes idle) held by the pool."""
    with _lock:
        idle = [_idle(i) for i in range(len(_blocks))]
        used = sum(b.size for b, f in zip(_blocks, idle) if not f)
        return used, sum(b.size for b, f in zip(_blocks, idle) if f)


def release_idle():
    """Drop every pooled block that nothing uses (returns their memory to the OS)."""
    with _lock:
        i = 0
        while i < len(_blocks):
            if _idle(i):
                del _blocks[i]
            else:
                i += 1
