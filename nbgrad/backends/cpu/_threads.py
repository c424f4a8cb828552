"""Splitting one large kernel call across threads (plain Python, nothing jitted).

Large work runs as the *serial* kernels called on disjoint slices from a small
thread pool; the kernels are compiled with `nogil=True`, so the slices run
at the same time.  Compared with a `parallel=True` twin of every kernel this
compiles nothing more (a prange kernel costs ~4 s to compile here, per op and
dtype), reuses the cached serial kernels, and serves every template (unary,
binary, copy, reductions) with one mechanism.  Below PARALLEL_MIN_ELEMENTS the
caller runs the kernel directly: a thread hand-off costs ~20-50 us.

The thread count has one owner, this module: `nbgrad.set_num_threads(n)` sets
it (1: nothing is split, the calling thread runs everything; k: at most k
pieces, the caller's plus k - 1 pool threads) and `nbgrad.get_num_threads()`
reads it.  Its default is NUMBA_NUM_THREADS (the core count unless that
variable is set), read once at import.  Separate, and not changed by it:
Numba's own `numba.set_num_threads` (it governs only `parallel=True` kernels,
and nbgrad has none) and the BLAS library's threads used by matmul
(OPENBLAS_NUM_THREADS / OMP_NUM_THREADS, read by BLAS when it loads; conv2d's
shifted products set OpenBLAS single-threaded while the pool runs them,
backends/cpu/conv.py).
Two thresholds, measured on this 2-core machine (serial vs split, medians
of 41 calls, /tmp/thr.py-style loop over sizes, `benchmarks/compare.py W1`):
  * compute-bound kernels (transcendental unary ops): tanh over 256K float32
    0.74x the serial time, over 1M 0.64x; over 64K 1.4x (hand-off cost);
  * memory-bound kernels (arithmetic, copies, fills, reductions): split from
    1M elements.  float32 mul over 1M: 0.67x the serial time, 4M 0.54x; clone
    4M 0.58x; transpose 2048^2 0.55x; sum over 1M 0.99x, 4M 0.73x; at 256K
    mul is 0.76x but sum 2.8x and clone 1.2x, so the line sits at 1M.  (An
    earlier measurement on a machine busy with other jobs saw no gain at any
    size; on a quiet one the second core doubles the bandwidth we get:
    W1's forward + backward went 38 -> 20 ms.)
NBGRAD_PARALLEL_MIN_ELEMENTS and NBGRAD_PARALLEL_MIN_ELEMENTS_MEMORY override
them (0: never split).

Kernels that have a native entry point (a C function of the range [lo, hi),
backends/_shared/native.py: the contiguous elementwise kernels, the fused
ones, contiguous copies and fills, float totals, the multi-tensor SGD step;
docs/ARCHITECTURE.md lists them) split far lower, through `run_native`: their pieces go to the BLAS team's spinning
workers (_team.py), which take a piece within ~1 us and need no GIL, instead
of the pool.  Each kernel alone, serial against two threads (float32, medians
of 301, /work/prof/native.py), us: tanh over 8K 5.5 -> 4.3, 64K 42 -> 23;
mul over 64K 7.4 -> 5.6, 256K 98 -> 19 (each core's L2 holds its half), 1M
427 -> 218.  But a chain of ops gains less than its kernels: the output of a
split op lies half in the other core's cache, so the next op run serially
(or by a Python-level reduction) reads it from there, and a spinning worker
slows the caller's Python by ~9% (the cores' shared clock).  Measured on
`(a*b + c).tanh().sum().backward()` (/work/prof/thresh.py, all thresholds
interleaved in one run), us per step, serial -> split:
  16K 143 -> 173 (split from 8K) / 144 (from 64K);  64K 248 -> 250-255;
  128K 466 -> 309;  256K 1058 -> 660;  1M 2745 -> 2000.
In compare.py's regime (0.25 s pause, then 0.1 s of steps: /work/prof/s64reg.py)
tanh split from 64K cost the 64K step 20 us more than from 128K.  So both
kinds split from 128K elements (NBGRAD_TEAM_MIN_ELEMENTS for compute-bound
kernels, NBGRAD_TEAM_MIN_ELEMENTS_MEMORY for memory-bound ones; 0: never).
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import config

from ... import _debug

PARALLEL_MIN_ELEMENTS = int(os.environ.get("NBGRAD_PARALLEL_MIN_ELEMENTS", 1 << 18))
PARALLEL_MIN_ELEMENTS_MEMORY = int(os.environ.get("NBGRAD_PARALLEL_MIN_ELEMENTS_MEMORY", 1 << 20))

_pool = None
_pool_lock = threading.Lock()


def _forget_pool_after_fork():
    # a forked child (a DataLoader worker) has none of the parent's threads: a pool inherited
    # from the parent would take work that no thread runs, so the child makes its own
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


DEFAULT_NUM_THREADS = max(1, int(config.NUMBA_NUM_THREADS))
_count = DEFAULT_NUM_THREADS


def num_threads():
    """How many threads a split call may use (the caller's included)."""
    return _count


def set_num_threads(n):
    """Use at most n threads (n >= 1, already checked) from now on.  The pool is recreated
    lazily with n - 1 workers; the old one's idle workers exit once no call still holds it
    (a call in flight on another thread keeps its pool and finishes normally)."""
    global _count, _pool
    with _pool_lock:
        _count = n
        _pool = None


# Below this many elements no call is split, whatever the thresholds: lets
# the small-op path skip the check.  Tests that force splitting lower it.
SPLIT_FLOOR = 1 << 12


def worth_splitting(n, compute_bound=False):
    """True when work over n elements should be split across threads."""
    limit = PARALLEL_MIN_ELEMENTS if compute_bound else PARALLEL_MIN_ELEMENTS_MEMORY
    return 0 < limit <= n and _count > 1


TEAM_MIN_ELEMENTS = int(os.environ.get("NBGRAD_TEAM_MIN_ELEMENTS", 1 << 17))
TEAM_MIN_ELEMENTS_MEMORY = int(os.environ.get("NBGRAD_TEAM_MIN_ELEMENTS_MEMORY", 1 << 17))
# a native entry point is compiled code: plain Python mode (NUMBA_DISABLE_JIT) has none
_NATIVE = not config.DISABLE_JIT


def worth_native(n, compute_bound=False):
    """True when work over n elements with a native entry point should be split (run_native)."""
    limit = TEAM_MIN_ELEMENTS if compute_bound else TEAM_MIN_ELEMENTS_MEMORY
    return 0 < limit <= n and _count > 1 and _NATIVE


def may_split(n, compute_bound=False):
    """True when a call over n elements could be split now (natively or on the pool): the
    small-op shortcuts (elementwise.binary_dense and its kin) serve every other dense call,
    whatever its size, with none of the general entry point's planning."""
    return n >= SPLIT_FLOOR and (worth_native(n, compute_bound) or worth_splitting(n, compute_bound))


def run_native(fn, n, arrays, offsets, align=64):
    """The native function fn (an address: void fn(int64 args, int64 lo, int64 hi)) over pieces
    [lo, hi) of [0, n), cut on multiples of align, taken by this thread and the team's spinning
    workers (_team.call); args is the address of a block holding the address of element
    offsets[i] of arrays[i], for each i.  False when the team is busy with another thread's
    call (nothing ran: the caller runs the work itself)."""
    # one piece per thread; from 1M elements four, so that a worker that comes late still
    # finds some (a claim costs ~0.1 us, nothing beside a piece that size)
    pieces = min(_count * (4 if n >= 1 << 20 else 1), -(-n // align))
    if _debug.ENABLED:
        _debug.log("split", parts=pieces, n=n, threads=_count, native=True)
    return pieces > 1 and _team_call(fn, n, pieces, align, arrays, offsets)


def _executor():
    pool = _pool
    if pool is None:
        pool = _new_executor()
    return pool


def _new_executor():
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, _count - 1), thread_name_prefix="nbgrad-kernel")
        return _pool


def split(n, parts, align=64):
    """[(start, stop), ...]: [0, n) cut into `parts` near-equal pieces, cuts on multiples of align."""
    parts = min(parts, -(-n // align))          # never more pieces than aligned blocks
    bounds = [0]
    for p in range(1, parts):
        cut = (n * p // parts) // align * align
        bounds.append(max(cut, bounds[-1]))
    bounds.append(n)
    return [(s, e) for s, e in zip(bounds[:-1], bounds[1:]) if e > s]


_native_functions = {}      # key -> the address of a native entry point


def native_function(key, make, *args):
    """The address make(*args) gives (a native entry point, compiled or loaded from the disk
    cache on first use), kept under `key` (its kernel and dtypes; unique across modules)."""
    fn = _native_functions.get(key)
    if fn is None:
        fn = _native_functions[key] = make(*args)
    return fn


def run_native_partials(fn, n, arrays, offsets):
    """run_native for a reduction: fn also reads, after `arrays`, a float64 array of partials
    and a one-element int64 array holding `chunk`; the piece [lo, hi) writes its partial to slot
    lo // chunk (pieces are cut on multiples of chunk).  The partials in piece order (slots no
    piece wrote hold 0), or None when the team is busy."""
    chunk = -(-n // (4 * _count * 64)) * 64
    partial = np.zeros(-(-n // chunk) + 1, np.float64)
    if not run_native(fn, n, arrays + (partial, np.array([chunk], np.int64)), offsets + (0, 0), chunk):
        return None
    return partial


def _team_call(*args):
    global _team_call
    from ._team import call
    _team_call = call           # bound on first use: _team imports this module
    return call(*args)


def _release_team():
    """The BLAS team's workers spin for a while after a product (_team.py); the pool's threads
    need those cores now, so a spinning worker parks at once (measured here: tanh over 1M
    float32 split on the pool right after a team product, 760 us with the worker spinning,
    560 us without it)."""
    from . import _team
    _team.release()


def run_split(fn, n, align=64):
    """Call fn(start, stop) over pieces of [0, n): the first piece here, the rest on the pool."""
    pieces = split(n, _count, align)
    if _debug.ENABLED:
        _debug.log("split", parts=len(pieces), n=n, threads=_count)
    if len(pieces) == 1:
        fn(0, n)
        return
    _release_team()
    pool = _executor()
    futures = [pool.submit(fn, s, e) for s, e in pieces[1:]]
    error = None
    try:
        fn(*pieces[0])
    except BaseException as exc:  # still wait for the others: they write into our buffers
        error = exc
    for f in futures:
        f.result()
    if error is not None:
        raise error


def run_dynamic(fn, n_items):
    """Call fn(item, worker) for every item of range(n_items), each thread of the pool (the
    caller's included, worker 0) taking the next item as it finishes one: on a machine whose
    cores other processes share, a thread that gets less time does less of the work (a
    static split waits for its slowest piece).  fn's worker index picks its own buffers."""
    workers = min(_count, n_items)
    if _debug.ENABLED:
        _debug.log("split", parts=n_items, n=n_items, threads=workers)
    items = iter(range(n_items))
    lock = threading.Lock()

    def work(worker):
        while True:
            with lock:
                item = next(items, None)
            if item is None:
                return
            fn(item, worker)
    if workers <= 1:
        work(0)
        return
    _release_team()
    pool = _executor()
    futures = [pool.submit(work, i) for i in range(1, workers)]
    error = None
    try:
        work(0)
    except BaseException as exc:  # still wait for the others: they write into our buffers
        error = exc
        with lock:                # and stop them taking more
            items = iter(())
    for f in futures:
        f.result()
    if error is not None:
        raise error
