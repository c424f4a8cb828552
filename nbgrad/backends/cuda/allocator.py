"""The caching device allocator: size buckets, stream-ordered reuse and PyTorch's memory statistics.

`CachingAllocator` is plain Python over a driver given as callables, so its
bookkeeping is tested without a GPU (tests/cuda/test_cuda_allocator.py drives
it with a fake driver):

  alloc(nbytes) -> pointer          obtain device memory (cuMemAlloc)
  release(pointer)                  give it back (cuMemFree)
  record(stream) -> event           an event recorded on `stream` now; event.query()
                                    is True once the work queued before it is done
  sync()                            wait for the whole device (before releasing memory)

A request is rounded up to its bucket (a multiple of 512 bytes below 1 MiB,
else one of four steps per power of two), and a freed block goes to the free
list of its (bucket, stream).  The rule of reuse: a freed block may still be
read or written by kernels queued before the free, so it is handed out again
only on the stream it was used on (streams run their work in order), or on
another stream once that is known to be done: an event recorded at the free
has completed, or `synchronized()` (the device, or that stream, was waited
for) says so.  A block used on other streams as well (`record_stream`, as in
PyTorch) waits for an event on each of them before it is free at all.

free() may run from a garbage-collector finalizer in the middle of malloc()
on the same thread, so it only appends to a deque; every other method takes
the lock and first moves those blocks to their free lists.

Statistics, in bytes, as torch.cuda's: allocated (blocks handed out, at their
bucket size), its peak since the last reset, reserved (obtained from the
driver and not yet released: allocated + cached).  `empty_cache()` releases
every cached block that is idle.

`install()` makes an instance Numba's memory manager (an External Memory
Management plugin, numba.cuda.HostOnlyCUDAMemoryManager) on a real GPU;
NBGRAD_CUDA_ALLOCATOR picks it ("nbgrad", the default), RAPIDS RMM's pool
("rmm", where installed) or Numba's own allocator ("numba").  Numba binds a
memory manager to a context when the context is made, so a program that used
numba.cuda before nbgrad's CUDA backend loaded keeps Numba's allocator for
that context (the statistics then count nothing).  Under the simulator there
is no device memory and no plugin: `track_simulated` counts the live buffers
with a non-caching allocator so the statistics still answer.
"""
import collections
import os
import threading
import weakref

ROUND = 512                 # the smallest block and the step below LARGE
LARGE = 1 << 20             # from here, four buckets per power of two (at most 25% unused)
DEFAULT_STREAM = 0


def bucket(nbytes):
    """The block size a request of `nbytes` gets (0 for nothing)."""
    nbytes = int(nbytes)
    if nbytes <= 0:
        return 0
    if nbytes < LARGE:
        return -(-nbytes // ROUND) * ROUND
    step = 1 << (nbytes.bit_length() - 3)        # a quarter of the power of two below
    return -(-nbytes // step) * step


class Block:
    __slots__ = ("pointer", "size", "stream", "streams", "events", "requested", "freed")

    def __init__(self, pointer, size, stream):
        self.pointer = pointer
        self.size = size
        self.stream = stream          # the stream it was allocated for
        self.streams = set()          # other streams that used it (record_stream); after free: still busy
        self.events = {}              # after free: stream -> event recorded there at the free
        self.requested = 0
        self.freed = 0                # the allocator's count of frees when this one was sorted

    def __repr__(self):
        return f"Block(size={self.size}, stream={self.stream!r})"


class CachingAllocator:
    """Free lists per (bucket, stream); see the module's docstring for the rule of reuse.

    events_on_free: record an event on the block's stream at every free, so another stream can
    take it once the event completes (else only after `synchronized()`).  Off on the device by
    default: every nbgrad kernel runs on the default stream, and an event per free costs a
    driver call."""

    def __init__(self, alloc, release, record=None, sync=None, cache=True, events_on_free=False):
        self._alloc, self._release, self._record, self._sync = alloc, release, record, sync
        self.cache = cache
        self.events_on_free = events_on_free and record is not None
        self._lock = threading.RLock()
        self._returned = collections.deque()     # freed, not yet sorted (see free)
        self._free = {}                          # (size, stream) -> [Block]: reuse on that stream
        self._idle = {}                          # size -> [Block]: no queued work, any stream
        self._pending = []                       # freed blocks other streams still use
        self.allocated = self.peak = self.reserved = self.peak_reserved = 0
        self.num_allocs = self.num_driver_allocs = 0
        self._frees = 0

    # ------------------------------------------------------------------ #
    def malloc(self, nbytes, stream=DEFAULT_STREAM):
        size = bucket(nbytes)
        with self._lock:
            self._collect()
            block = self._take(size, stream) if size else Block(None, 0, stream)
            if block is None:
                block = self._new_block(size, stream)
            block.stream, block.streams, block.events = stream, set(), {}
            block.requested = int(nbytes)
            self.allocated += size
            self.peak = max(self.peak, self.allocated)
            self.num_allocs += 1
            return block

    def free(self, block):
        """Return a block (safe from a finalizer: takes no lock)."""
        self._returned.append(block)

    def record_stream(self, block, stream):
        """`block` is also used by work queued on `stream` (PyTorch's Tensor.record_stream)."""
        if stream != block.stream:
            block.streams.add(stream)

    def mark(self):
        """Taken just before waiting for the device: synchronized(mark=...) then idles only the
        blocks freed before it (another thread may free while the wait runs)."""
        with self._lock:
            self._collect()
            return self._frees

    def synchronized(self, stream=None, mark=None):
        """The device (stream None) or one stream was waited for: what was queued there is done."""
        with self._lock:
            self._collect()
            mark = self._frees if mark is None else mark
            for key in [k for k in self._free if stream is None or k[1] == stream]:
                keep = []
                for block in self._free.pop(key):
                    if block.freed > mark:
                        keep.append(block)
                        continue
                    block.events = {}
                    self._idle.setdefault(key[0], []).append(block)
                if keep:
                    self._free[key] = keep
            still = []
            for block in self._pending:
                if block.freed > mark:
                    still.append(block)
                    continue
                if stream is None:
                    block.streams.clear()
                else:
                    block.streams.discard(stream)
                if block.streams:
                    still.append(block)
                else:
                    self._settle(block, idle=stream is None)
            self._pending = still

    def empty_cache(self):
        """Release every cached block to the driver (after waiting for the device); returns the bytes released."""
        with self._lock:
            self._collect()
            blocks = [b for lst in self._free.values() for b in lst]
            blocks += [b for lst in self._idle.values() for b in lst] + self._pending
            if blocks and self._sync is not None:
                self._sync()
            self._free, self._idle, self._pending = {}, {}, []
            for block in blocks:
                self._give_back(block)
            return sum(b.size for b in blocks)

    def reset_peak(self):
        with self._lock:
            self._collect()
            self.peak = self.allocated
            self.peak_reserved = self.reserved

    def stats(self):
        with self._lock:
            self._collect()
            return {"allocated": self.allocated, "peak": self.peak, "reserved": self.reserved,
                    "peak_reserved": self.peak_reserved, "cached": self.reserved - self.allocated,
                    "num_allocs": self.num_allocs, "num_driver_allocs": self.num_driver_allocs}

    # ------------------------------------------------------------------ #
    def _collect(self):
        """Sort the blocks freed since the last call (under the lock)."""
        while self._returned:
            block = self._returned.popleft()
            self.allocated -= block.size
            self._frees += 1
            block.freed = self._frees
            if not block.size:
                continue
            if not self.cache:
                self._give_back(block)
            elif block.streams:                      # other streams may still use it
                if self._record is not None:
                    block.events = {s: self._record(s) for s in block.streams}
                self._pending.append(block)
            else:
                if self.events_on_free:
                    block.events = {block.stream: self._record(block.stream)}
                self._free.setdefault((block.size, block.stream), []).append(block)

    def _settle(self, block, idle):
        """A pending block no other stream uses any more: free on its own stream (idle after a device sync)."""
        block.events = {}
        if idle:
            self._idle.setdefault(block.size, []).append(block)
        else:
            self._free.setdefault((block.size, block.stream), []).append(block)

    def _take(self, size, stream):
        for _ in range(2):
            lst = self._free.get((size, stream))
            if lst:
                return lst.pop()
            lst = self._idle.get(size)
            if lst:
                return lst.pop()
            if not self._poll(size):
                return None
        return None

    def _poll(self, size):
        """Ask the events of blocks of `size`: pending blocks whose other streams are done become free on
        their own stream, free blocks whose own stream is done become idle.  True if any moved."""
        moved = False
        still = []
        for block in self._pending:
            if block.size == size and block.events:
                for s in [s for s, e in block.events.items() if e.query()]:
                    block.streams.discard(s)
                    del block.events[s]
            if block.size == size and not block.streams:
                self._settle(block, idle=False)
                moved = True
            else:
                still.append(block)
        self._pending = still
        for key in [k for k in self._free if k[0] == size]:
            lst = self._free[key]
            done = [b for b in lst if b.events and all(e.query() for e in b.events.values())]
            if done:
                self._free[key] = [b for b in lst if all(b is not d for d in done)]
                for b in done:
                    b.events = {}
                self._idle.setdefault(size, []).extend(done)
                moved = True
        return moved

    def _new_block(self, size, stream):
        try:
            pointer = self._alloc(size)
        except Exception as exc:
            # out of device memory: release what the cache holds and try once more
            if not _is_out_of_memory(exc) or not self.empty_cache():
                raise
            pointer = self._alloc(size)
        self.reserved += size
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        self.num_driver_allocs += 1
        return Block(pointer, size, stream)

    def _give_back(self, block):
        self.reserved -= block.size
        self._release(block.pointer)


def _is_out_of_memory(exc):
    return "OUT_OF_MEMORY" in str(exc).upper() or "OUT OF MEMORY" in str(exc).upper()


# --------------------------------------------------------------------------- #
# The process's allocator: a plugin on a GPU, a counter under the simulator

ALLOCATOR = None          # the CachingAllocator serving the CUDA backend, when nbgrad's is in use
KIND = None               # "nbgrad", "rmm", "numba" or "simulator"


def chosen():
    kind = os.environ.get("NBGRAD_CUDA_ALLOCATOR", "nbgrad").strip().lower() or "nbgrad"
    if kind not in ("nbgrad", "rmm", "numba"):
        raise ValueError(f"NBGRAD_CUDA_ALLOCATOR must be 'nbgrad', 'rmm' or 'numba', got {kind!r}")
    return kind


def track_simulated():
    """Under the simulator: a non-caching allocator that only counts the live buffers."""
    global ALLOCATOR, KIND
    ALLOCATOR = CachingAllocator(alloc=lambda size: None, release=lambda pointer: None, cache=False)
    KIND = "simulator"


def simulated_buffer(buf):
    """Count a simulator buffer (a FakeCUDAArray) as allocated until its memory dies."""
    owner = buf._ary
    while isinstance(getattr(owner, "base", None), type(owner)):
        owner = owner.base                      # the array that owns the memory; views keep it alive
    block = ALLOCATOR.malloc(owner.nbytes)
    weakref.finalize(owner, ALLOCATOR.free, block)
    return buf


def install(kind=None):
    """Make `kind`'s allocator Numba's memory manager (on a GPU, before the first context)."""
    global ALLOCATOR, KIND
    from numba import cuda
    kind = kind or chosen()
    if kind == "rmm":
        try:
            from rmm.allocators.numba import RMMNumbaManager
        except ImportError as exc:
            raise RuntimeError("NBGRAD_CUDA_ALLOCATOR=rmm needs RAPIDS RMM: pip install rmm-cu12 (or rmm-cu13) "
                               f"({exc})") from None
        cuda.set_memory_manager(RMMNumbaManager)
    elif kind == "nbgrad":
        ALLOCATOR = _device_allocator()
        cuda.set_memory_manager(_plugin_class(ALLOCATOR))
    KIND = kind


def _device_allocator():  # pragma: no cover - needs a GPU
    from numba import cuda
    from numba.cuda.cudadrv import driver

    def record(stream):
        event = cuda.event(timing=False)
        event.record(stream or 0)
        return event
    return CachingAllocator(alloc=driver.driver.cuMemAlloc, release=driver.driver.cuMemFree,
                            record=record, sync=cuda.synchronize)


def current_stream():
    """The stream nbgrad's kernels are queued on: the legacy default stream, or with
    NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1 the calling thread's own default stream."""
    from numba import config
    if config.CUDA_PER_THREAD_DEFAULT_STREAM:
        return ("per-thread", threading.get_ident())
    return DEFAULT_STREAM


def _plugin_class(allocator):  # pragma: no cover - needs a GPU
    """An EMM plugin whose device allocations come from `allocator`, on the stream nbgrad's
    kernels are launched on (numba's memalloc is told no stream)."""
    from numba import cuda
    from numba.cuda.cudadrv import driver

    class NbgradMemoryManager(driver.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        def initialize(self):
            # as Numba's own manager: pinned host allocations are flushed against the device's size
            if self.deallocations.memory_capacity == driver._SizeNotSet:
                self.deallocations.memory_capacity = self.get_memory_info().total

        def memalloc(self, size):
            block = allocator.malloc(size, current_stream())
            return driver.MemoryPointer(weakref.proxy(self.context), block.pointer, size,
                                        finalizer=lambda: allocator.free(block))

        def get_memory_info(self):
            free, total = driver.driver.cuMemGetInfo()
            return driver.MemoryInfo(free=free, total=total)

        def reset(self):
            super().reset()
            allocator.empty_cache()

        @property
        def interface_version(self):
            return 1

    return NbgradMemoryManager
