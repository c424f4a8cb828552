"""The caching device allocator (nbgrad/backends/cuda/allocator.py) over a fake driver, and nbgrad.cuda's memory statistics.

The fake driver hands out increasing integer "pointers" and records what was
released; a fake stream queues work, and an event recorded on it completes
once the work queued before it has run (FakeStream.run_all).  No GPU, no
simulator: the allocator is plain Python.
"""
import gc

import numpy as np
import pytest

from cuda_available import requires_cuda
from nbgrad.backends.cuda.allocator import LARGE, ROUND, CachingAllocator, bucket


class FakeEvent:
    def __init__(self, stream):
        self.stream, self.ticket = stream, stream.queued

    def query(self):
        return self.stream.done >= self.ticket


class FakeStream:
    def __init__(self, name):
        self.name, self.queued, self.done = name, 0, 0

    def launch(self):           # a kernel queued on this stream
        self.queued += 1

    def run_all(self):          # the GPU catches up with this stream
        self.done = self.queued

    def __repr__(self):
        return f"FakeStream({self.name})"


class FakeDriver:
    def __init__(self, capacity=None):
        self.next, self.live, self.released, self.syncs = 0x1000, {}, [], 0
        self.capacity = capacity

    def alloc(self, size):
        if self.capacity is not None and sum(self.live.values()) + size > self.capacity:
            raise RuntimeError("[2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY")
        ptr, self.next = self.next, self.next + size
        self.live[ptr] = size
        return ptr

    def release(self, ptr):
        self.released.append(ptr)
        del self.live[ptr]

    def sync(self):
        self.syncs += 1


def make(events_on_free=False, capacity=None):
    drv = FakeDriver(capacity)
    return CachingAllocator(drv.alloc, drv.release, record=FakeEvent, sync=drv.sync,
                            events_on_free=events_on_free), drv


def test_buckets():
    assert bucket(0) == 0 and bucket(1) == ROUND and bucket(ROUND) == ROUND and bucket(ROUND + 1) == 2 * ROUND
    assert bucket(LARGE - 1) == LARGE
    assert bucket(LARGE) == LARGE and bucket(LARGE + 1) == LARGE + LARGE // 4
    assert bucket(3 * LARGE) == 3 * LARGE and bucket(3 * LARGE + 1) == 3 * LARGE + LARGE // 2
    for n in (1, 700, 5000, LARGE + 3, 7 * LARGE + 12345, 1 << 30):
        assert n <= bucket(n) <= max(ROUND, n * 1.25 + ROUND)


def test_a_freed_block_is_reused_for_the_same_bucket_on_the_same_stream():
    a, drv = make()
    s = FakeStream("s")
    b1 = a.malloc(1000, s)
    ptr = b1.pointer
    s.launch()                                  # a kernel still queued that uses b1
    a.free(b1)
    b2 = a.malloc(1020, s)                      # same bucket, same stream: stream order makes it safe
    assert b2.pointer == ptr and len(drv.live) == 1
    b3 = a.malloc(5000, s)                      # another bucket: new memory
    assert b3.pointer != ptr and len(drv.live) == 2


def test_no_reuse_on_another_stream_while_its_kernels_are_queued():
    a, drv = make()
    s, t = FakeStream("s"), FakeStream("t")
    b1 = a.malloc(4096, s)
    s.launch()
    a.free(b1)
    b2 = a.malloc(4096, t)
    assert b2.pointer != b1.pointer             # s's kernel may still read b1
    a.free(b2)
    a.synchronized(s)                           # s was waited for: b1 is idle, any stream may take it
    b3 = a.malloc(4096, FakeStream("u"))
    assert b3.pointer == b1.pointer
    b4 = a.malloc(4096, t)                      # b2 was freed on t, so t takes it
    assert b4.pointer == b2.pointer and len(drv.live) == 2


def test_a_device_synchronize_frees_every_stream():
    a, drv = make()
    s, t = FakeStream("s"), FakeStream("t")
    b1 = a.malloc(100, s)
    a.free(b1)
    a.synchronized()
    assert a.malloc(100, t).pointer == b1.pointer and len(drv.live) == 1


def test_an_event_recorded_at_the_free_lets_another_stream_reuse_once_done():
    a, drv = make(events_on_free=True)
    s, t = FakeStream("s"), FakeStream("t")
    b1 = a.malloc(2048, s)
    s.launch()
    a.free(b1)                                  # event recorded on s after the queued kernel
    assert a.malloc(2048, t).pointer != b1.pointer
    s.launch()                                  # later work on s does not matter to the event
    s.done = 1                                  # the kernel queued before the free has run
    assert a.malloc(2048, t).pointer == b1.pointer
    assert len(drv.live) == 2


def test_record_stream_keeps_a_block_until_the_other_stream_is_done():
    a, drv = make()
    s, t = FakeStream("s"), FakeStream("t")
    b1 = a.malloc(512, s)
    t.launch()                                  # a kernel on t reads b1
    a.record_stream(b1, t)
    a.free(b1)
    b2 = a.malloc(512, s)                       # not even its own stream: t may still read it
    assert b2.pointer != b1.pointer
    t.run_all()                                 # the event recorded on t at the free completes
    b3 = a.malloc(512, s)
    assert b3.pointer == b1.pointer and len(drv.live) == 2


def test_record_stream_then_stream_synchronize():
    a, drv = make()
    s, t = FakeStream("s"), FakeStream("t")
    b1 = a.malloc(512, s)
    t.launch()
    a.record_stream(b1, t)
    a.free(b1)
    a.synchronized(s)                           # s alone is not enough
    assert a.malloc(512, s).pointer != b1.pointer
    a.synchronized(t)
    assert a.malloc(512, s).pointer == b1.pointer


def test_statistics_peak_reserved_and_empty_cache():
    a, drv = make()
    s = FakeStream("s")
    x = a.malloc(1, s)
    y = a.malloc(3000, s)
    assert a.stats()["allocated"] == ROUND + 3072 == a.stats()["reserved"] == a.stats()["peak"]
    a.free(y)
    st = a.stats()
    assert (st["allocated"], st["peak"], st["reserved"], st["cached"]) == (ROUND, ROUND + 3072, ROUND + 3072, 3072)
    a.reset_peak()
    assert a.stats()["peak"] == ROUND
    assert a.empty_cache() == 3072              # the idle block goes back to the driver; x stays
    assert drv.syncs == 1 and list(drv.live) == [x.pointer]
    st = a.stats()
    assert (st["allocated"], st["reserved"], st["cached"]) == (ROUND, ROUND, 0)
    a.free(x)
    assert a.empty_cache() == ROUND and not drv.live and a.stats()["reserved"] == 0
    assert a.empty_cache() == 0 and drv.syncs == 2      # nothing cached: no device wait


def test_a_free_from_a_finalizer_inside_malloc_is_sorted_later():
    a, drv = make()
    s = FakeStream("s")
    blocks = [a.malloc(600, s) for _ in range(3)]
    for b in blocks:
        a.free(b)                               # only appended; the lock is not taken
    assert len(a._returned) == 3
    assert a.stats()["allocated"] == 0 and a.stats()["cached"] == 3 * 1024


def test_out_of_memory_releases_the_cache_and_retries():
    a, drv = make(capacity=4096)
    s = FakeStream("s")
    a.free(a.malloc(3000, s))                   # 3072 cached
    b = a.malloc(2000, s)                       # 2048 more does not fit beside the cache
    assert drv.live == {b.pointer: 2048} and a.stats()["reserved"] == 2048
    with pytest.raises(RuntimeError, match="OUT_OF_MEMORY"):
        a.malloc(4000, s)                       # nothing left to release


def test_without_cache_every_free_is_released():
    drv = FakeDriver()
    a = CachingAllocator(drv.alloc, drv.release, cache=False)
    b = a.malloc(10)
    a.free(b)
    assert a.stats() ["reserved"] == 0 and drv.released == [b.pointer]


# --------------------------------------------------------------------------- #
# nbgrad.cuda's statistics (under the simulator: live buffers, nothing cached)

@requires_cuda
def test_nbgrad_cuda_memory_statistics_count_live_tensors():
    import nbgrad
    gc.collect()
    nbgrad.cuda.reset_peak_memory_stats()
    before = nbgrad.cuda.memory_allocated()
    assert isinstance(before, int) and isinstance(nbgrad.cuda.memory_reserved(), int)
    x = nbgrad.zeros(1000, device="cuda")               # 4000 bytes: one 4096-byte block
    assert nbgrad.cuda.memory_allocated() - before == 4096
    view = x[10:20]
    del x
    gc.collect()
    assert nbgrad.cuda.memory_allocated() - before == 4096     # the view keeps the memory
    del view
    gc.collect()
    assert nbgrad.cuda.memory_allocated() == before
    assert nbgrad.cuda.max_memory_allocated() >= before + 4096
    nbgrad.cuda.empty_cache()
    if nbgrad.cuda.is_simulated():
        assert nbgrad.cuda.memory_reserved() == nbgrad.cuda.memory_allocated()
    else:
        assert nbgrad.cuda.memory_reserved() >= nbgrad.cuda.memory_allocated()
    nbgrad.cuda.reset_peak_memory_stats()
    assert nbgrad.cuda.max_memory_allocated() == nbgrad.cuda.memory_allocated()
    stats = nbgrad.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == nbgrad.cuda.memory_allocated()


@requires_cuda
def test_host_copies_to_the_device_are_counted():
    import nbgrad
    gc.collect()
    before = nbgrad.cuda.memory_allocated()
    t = nbgrad.tensor(np.arange(300, dtype=np.float64), device="cuda")     # 2400 bytes
    assert nbgrad.cuda.memory_allocated() - before == 2560
    del t
    gc.collect()
    assert nbgrad.cuda.memory_allocated() == before


def test_the_emm_plugin_is_installed_only_on_a_gpu():
    import nbgrad
    if not nbgrad.cuda.is_simulated():
        pytest.skip("not under the simulator")
    from nbgrad.backends.cuda import allocator
    pytest.importorskip("numba_cuda")
    from nbgrad.backends import get_backend
    get_backend("cuda")
    assert allocator.KIND == "simulator"        # the simulator has no memory manager to plug into


@requires_cuda
def test_the_emm_plugin_serves_numbas_device_arrays():
    import nbgrad
    if nbgrad.cuda.is_simulated():
        pytest.skip("the CUDA simulator has no device memory and uses no EMM plugin: the plugin runs on a GPU only")
    from numba import cuda
    from nbgrad.backends.cuda import allocator
    if allocator.KIND != "nbgrad":
        pytest.skip(f"NBGRAD_CUDA_ALLOCATOR={allocator.KIND}")
    assert type(cuda.current_context().memory_manager).__name__ == "NbgradMemoryManager"
    gc.collect()
    before = nbgrad.cuda.memory_allocated()
    arr = cuda.device_array(1000, dtype=np.float32)
    ptr = arr.__cuda_array_interface__["data"][0]
    assert nbgrad.cuda.memory_allocated() - before == 4096
    del arr
    gc.collect()
    assert nbgrad.cuda.memory_allocated() == before
    again = cuda.device_array(1000, dtype=np.float32)           # same bucket, same stream: reused
    assert again.__cuda_array_interface__["data"][0] == ptr


def test_choosing_the_allocator(monkeypatch):
    import nbgrad
    from nbgrad.backends.cuda import allocator
    monkeypatch.setenv("NBGRAD_CUDA_ALLOCATOR", "RMM")
    assert allocator.chosen() == "rmm"
    monkeypatch.setenv("NBGRAD_CUDA_ALLOCATOR", "cupy")
    with pytest.raises(ValueError, match="'nbgrad', 'rmm' or 'numba'"):
        allocator.chosen()
    with pytest.raises(ValueError, match="'nbgrad', 'rmm' or 'numba'"):
        nbgrad.cuda.set_allocator("cupy")


@requires_cuda
def test_the_allocator_cannot_change_once_the_backend_is_loaded():
    import nbgrad
    from nbgrad.backends import get_backend
    from nbgrad.backends.cuda import allocator
    get_backend("cuda")
    other = "numba" if allocator.KIND != "numba" else "nbgrad"
    with pytest.raises(RuntimeError, match="already uses"):
        nbgrad.cuda.set_allocator(other)
    if allocator.KIND != "simulator":
        nbgrad.cuda.set_allocator(allocator.KIND)       # the one in use: nothing to do


def test_rmm_missing_says_how_to_install_it(monkeypatch):
    import sys
    pytest.importorskip("numba_cuda")
    from nbgrad.backends.cuda import allocator
    monkeypatch.setitem(sys.modules, "rmm.allocators.numba", None)     # as if RMM were not installed
    kind = allocator.KIND
    with pytest.raises(RuntimeError, match="needs RAPIDS RMM: pip install rmm"):
        allocator.install("rmm")
    assert allocator.KIND == kind


PLUGIN = """
import gc, json
from numba import cuda
from numba.cuda.cudadrv import driver as drv
from nbgrad.backends.cuda import allocator as A

released, pointers = [], iter(range(0x10000, 1 << 40, 1 << 20))
alloc = A.CachingAllocator(alloc=lambda size: next(pointers), release=released.append)
cls = A._plugin_class(alloc)
cuda.set_memory_manager(cls)                    # checks the plugin's interface version
assert drv._memory_manager is cls


class Context:                                  # what a plugin sees of Numba's context
    pass


ctx = Context()
mm = cls(context=ctx)
a = mm.memalloc(1000)
first = int(a.device_pointer)
allocated = alloc.stats()["allocated"]
del a
gc.collect()
b = mm.memalloc(900)                            # same bucket, same stream: the block comes back
print(json.dumps({"allocated": allocated, "reused": int(b.device_pointer) == first, "size": b.size,
                  "after": alloc.stats()["allocated"], "driver_allocs": alloc.stats()["num_driver_allocs"],
                  "version": mm.interface_version, "base": isinstance(mm, cuda.HostOnlyCUDAMemoryManager)}))
"""


def test_the_emm_plugin_layer_over_a_fake_driver(tmp_path):
    """The plugin class itself, in a process without the simulator and without a GPU (numba-cuda's
    MemoryPointer and set_memory_manager need neither): memalloc serves blocks from the allocator
    and the MemoryPointer's finalizer gives them back."""
    import json
    import os
    import subprocess
    import sys
    pytest.importorskip("numba_cuda")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_JIT")}
    env.update(PYTHONPATH=root, NBGRAD_CUDA_COMPILE_ONLY="1")
    proc = subprocess.run([sys.executable, "-c", PLUGIN], env=env, cwd=root, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"allocated": 1024, "reused": True, "size": 900, "after": 1024, "driver_allocs": 1,
                   "version": 1, "base": True}


def test_a_block_freed_during_the_device_wait_stays_on_its_stream():
    a, drv = make()
    s, t = FakeStream("s"), FakeStream("t")
    early, late = a.malloc(512, s), a.malloc(512, s)
    a.free(early)
    mark = a.mark()                             # taken just before the device wait
    a.free(late)                                # another thread frees while the wait runs
    a.synchronized(mark=mark)
    assert a.malloc(512, t).pointer == early.pointer
    assert a.malloc(512, t).pointer not in (early.pointer, late.pointer)
    assert a.malloc(512, s).pointer == late.pointer
