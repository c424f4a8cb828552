"""nbgrad.set_num_threads is the one owner of the kernel pool's thread count.

Observed, not timed: the pool is replaced by a recording wrapper (which thread ran
each piece handed to it) and `split` by one that records how many pieces each split
call made.  With one thread nothing reaches the pool and nothing is cut; with k
threads a large op is cut into at most k pieces, k - 1 of them run on pool threads.
The thresholds are pinned to their documented defaults so that the environment's
NBGRAD_PARALLEL_MIN_ELEMENTS* cannot change what is observed, and the native
splits through the team (tests/backends/test_native_split.py) are turned off,
so that the elementwise ops reach the pool.
"""
import threading

import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import _threads

LARGE = 1 << 20     # >= both thresholds: split whenever there is more than one thread


class Recorder:
    """Stands in for the pool: runs every submitted piece on the real pool and records
    the identity of the thread that ran it; also records split()'s piece counts."""

    def __init__(self, monkeypatch):
        self.worker_threads = []
        self.piece_counts = []
        real_executor, real_split = _threads._executor, _threads.split
        recorder = self

        class Pool:
            def submit(self, fn, *args):
                def run():
                    recorder.worker_threads.append(threading.get_ident())
                    return fn(*args)
                return real_executor().submit(run)

        def split(n, parts, align=64):
            pieces = real_split(n, parts, align)
            recorder.piece_counts.append(len(pieces))
            return pieces
        monkeypatch.setattr(_threads, "_executor", lambda: Pool())
        monkeypatch.setattr(_threads, "split", split)

    def clear(self):
        self.worker_threads.clear()
        self.piece_counts.clear()


@pytest.fixture
def recorder(monkeypatch):
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1 << 18)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", 1 << 20)
    monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS", 0)
    monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS_MEMORY", 0)
    before = nbgrad.get_num_threads()
    yield Recorder(monkeypatch)
    nbgrad.set_num_threads(before)


def _inputs():
    rng = np.random.default_rng(0)
    return (nbgrad.from_numpy(rng.standard_normal(LARGE).astype(np.float32)),
            nbgrad.from_numpy(rng.standard_normal(LARGE).astype(np.float32)))


def _ops(x, y):
    """A compute-bound unary, a memory-bound binary, a strided copy, a total reduction."""
    big = x.reshape(1024, 1024)
    return [x.tanh(), x * y, big.t().contiguous(), x.sum()]


def test_one_thread_runs_everything_in_the_calling_thread(recorder):
    x, y = _inputs()
    nbgrad.set_num_threads(2)
    split_results = _ops(x, y)
    assert recorder.worker_threads, "the ops are large enough to use the pool at 2 threads"
    assert max(recorder.piece_counts) == 2
    recorder.clear()

    nbgrad.set_num_threads(1)
    assert nbgrad.get_num_threads() == 1
    serial_results = _ops(x, y)
    assert recorder.worker_threads == []                 # nothing handed to another thread
    assert all(count == 1 for count in recorder.piece_counts)
    for serial, parallel in zip(serial_results[:3], split_results[:3]):
        np.testing.assert_array_equal(serial.numpy(), parallel.numpy())
    np.testing.assert_allclose(serial_results[3].item(), split_results[3].item(), rtol=1e-6)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_k_threads_cut_at_most_k_pieces(recorder, k):
    x, y = _inputs()
    nbgrad.set_num_threads(k)
    out = x.tanh()
    assert recorder.piece_counts == [k]
    assert len(recorder.worker_threads) == k - 1         # the caller runs the first piece
    assert threading.get_ident() not in recorder.worker_threads
    np.testing.assert_allclose(out.numpy(), np.tanh(x.numpy()), rtol=1e-6, atol=1e-7)


def test_the_pool_is_recreated_at_the_new_size():
    before = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(3)
        pool = _threads._executor()
        assert pool._max_workers == 2
        assert _threads._executor() is pool                  # kept while the count stays
        nbgrad.set_num_threads(5)
        assert _threads._executor()._max_workers == 4
        nbgrad.set_num_threads(1)
        assert not _threads.worth_splitting(1 << 30, compute_bound=True)
    finally:
        nbgrad.set_num_threads(before)


def test_default_is_numbas_thread_count():
    import numba
    assert _threads.DEFAULT_NUM_THREADS == numba.config.NUMBA_NUM_THREADS
