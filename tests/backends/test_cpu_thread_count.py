"""nbgrad.set_num_threads is the one owner of the kernel pool's thread count.

Observed, not timed: the team's run_pieces and the pool are wrapped to record which
thread ran each piece handed to them, and `split` by one that records how many pieces
each split call made.  With one thread nothing is handed over and nothing is cut; with
k threads a large op is cut into at most k pieces, each run once, by the caller or a
team worker (which of them takes which piece depends on who is first: a worker that
is late takes none).
The thresholds are pinned to their documented defaults so that the environment's
NBGRAD_PARALLEL_MIN_ELEMENTS* cannot change what is observed.
"""
import threading

import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import _team, _threads

LARGE = 1 << 20     # >= both thresholds: split whenever there is more than one thread


class Recorder:
    """Stands in for the pool: runs every submitted piece on the real pool and records
    the identity of the thread that ran it; also records split()'s piece counts."""

    def __init__(self, monkeypatch):
        self.ran = []               # the thread of every piece handed over
        self.piece_counts = []
        real_executor, real_split, real_run = _threads._executor, _threads.split, _team._Team.run_pieces
        recorder = self

        class Pool:
            def submit(self, fn, *args):
                def run():
                    recorder.ran.append(threading.get_ident())
                    return fn(*args)
                return real_executor().submit(run)

        def run_pieces(team, fn, pieces):
            def run(start, stop):
                recorder.ran.append(threading.get_ident())
                return fn(start, stop)
            return real_run(team, run, pieces)
        monkeypatch.setattr(_team._Team, "run_pieces", run_pieces)

        def split(n, parts, align=64):
            pieces = real_split(n, parts, align)
            recorder.piece_counts.append(len(pieces))
            return pieces
        monkeypatch.setattr(_threads, "_executor", lambda: Pool())
        monkeypatch.setattr(_threads, "split", split)

    def clear(self):
        self.ran.clear()
        self.piece_counts.clear()

    def helpers(self):
        """The threads other than the caller's that ran pieces."""
        return {t for t in self.ran if t != threading.get_ident()}


@pytest.fixture
def recorder(monkeypatch):
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1 << 18)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", 1 << 20)
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
    assert max(recorder.piece_counts) == 2, "the ops are large enough to be cut at 2 threads"
    assert len(recorder.ran) == sum(c for c in recorder.piece_counts if c > 1)   # each piece once
    recorder.clear()

    nbgrad.set_num_threads(1)
    assert nbgrad.get_num_threads() == 1
    serial_results = _ops(x, y)
    assert recorder.ran == []                             # nothing handed over
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
    assert len(recorder.ran) == k                         # each piece once
    workers = {w.ident for w in _team._team.workers}
    assert len(workers) == k - 1
    assert recorder.helpers() <= workers                  # the caller, or the team's workers
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


def test_a_team_worker_takes_pieces_while_the_caller_runs_one():
    # the caller's piece waits (5 s at most) until another piece has begun: only a worker can
    # begin it meanwhile, so the worker's thread is seen running a piece
    before = nbgrad.get_num_threads()
    nbgrad.set_num_threads(2)
    try:
        started, threads = threading.Event(), {}

        def piece(start, stop):
            threads[start] = threading.get_ident()
            if threading.get_ident() == caller:
                started.wait(5)
            else:
                started.set()
        caller = threading.get_ident()
        team = _team.team(2)
        assert team.run_pieces(piece, [(0, 10), (10, 20)])
        assert set(threads) == {0, 10}
        assert started.is_set()
        assert set(threads.values()) == {caller, team.workers[0].ident}
    finally:
        nbgrad.set_num_threads(before)


def test_an_error_in_a_piece_is_raised_after_every_piece_ran():
    before = nbgrad.get_num_threads()
    nbgrad.set_num_threads(2)
    try:
        ran = []

        def piece(start, stop):
            ran.append(start)
            if start == 0:
                raise ValueError("piece failed")
        with pytest.raises(ValueError, match="piece failed"):
            _threads.run_split(piece, 4096, 64)
        assert sorted(ran) == [0, 2048]
    finally:
        nbgrad.set_num_threads(before)
