"""The BLAS team (nbgrad/backends/cpu/_team.py): matrix products split into pieces that
spinning workers and the caller claim.  Its products (split, and in pairs) against one whole
gemm, which products it takes, a parked worker, several threads at once, a forked child, and
stopping it."""
import multiprocessing
import threading
import time

import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import _blas_threads, _team, linalg
from nbgrad.ops import _graph

pytestmark = pytest.mark.skipif(not _team.available(), reason="NumPy's OpenBLAS cblas symbols were not found")


# linear layers reach linalg.linear_backward only through the linear_backward acceleration
uses_linear_backward = pytest.mark.skipif(not _graph.ACCELERATIONS_ON,
                                          reason="NBGRAD_FUSED=0: the layer's gradients are two mm ops")


def _one_thread_dot(a, b):
    """np.dot on NumPy's OpenBLAS at one thread: the reference gemm."""
    ctl = _blas_threads.controls("numpy")
    before = ctl[0]() if ctl else 0
    if ctl:
        ctl[1](1)
    try:
        return np.dot(a, b)
    finally:
        if ctl:
            ctl[1](before)


def _operands(rng, m, k, n, dtype, fa, fb):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    return (np.asfortranarray(a) if fa else a), (np.asfortranarray(b) if fb else b)


LAYOUTS = [(False, False), (False, True), (True, False), (True, True)]


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("m, k, n", [(128, 784, 256), (256, 128, 784), (300, 90, 100), (129, 257, 131)])
@pytest.mark.parametrize("fa, fb", LAYOUTS)
def test_a_split_float32_product_has_one_gemms_bits(m, k, n, fa, fb, threads):
    # rows or columns as _team._split_rows chooses (both occur here); both layouts of both operands
    rng = np.random.default_rng(m * k + n)
    a, b = _operands(rng, m, k, n, np.float32, fa, fb)
    out = np.full((m, n), np.nan, np.float32)
    assert _team.gemm(a, b, out, threads)
    np.testing.assert_array_equal(out, _one_thread_dot(a, b))


def _planned(m, k, n, steps, threads=2):
    """(axis, bounds) of the plan for an (m, k) @ (k, n) float32 product cut with these steps
    (b F-ordered, as a linear layer's weight transposed)."""
    rng = np.random.default_rng(0)
    a, b = _operands(rng, m, k, n, np.float32, False, True)
    task = np.zeros(_team._TASK_SIZE, np.int64)
    pieces = _team._plan(task, 0, False, *_team._row_major(a), *_team._row_major(b), np.empty((m, n), np.float32),
                         threads, *steps)
    if pieces < 2:
        return None
    return int(task[_team._T_AXIS]), [int(x) for x in task[_team._T_BOUNDS:_team._T_BOUNDS + pieces + 1]]


def test_products_are_cut_only_where_the_blas_keeps_its_bits():
    # columns where _split_rows would take them, unless the kernel's bits forbid column cuts
    # (NumPy's OpenBLAS Haswell sgemm: rows on multiples of 12, no columns)
    assert _planned(128, 784, 256, (16, 16)) == (1, [0, 128, 256])
    assert _planned(128, 784, 256, (12, 0)) == (0, [0, 60, 128])      # (60 of 64 the nearest)
    assert _planned(256, 128, 784, (12, 0)) == (0, [0, 132, 256])
    assert _planned(256, 128, 784, (16, 16)) == (0, [0, 128, 256])
    assert _planned(128, 784, 256, (0, 0)) is None        # neither dim may be cut: one gemm
    assert _planned(128, 784, 256, (0, 16)) == (1, [0, 128, 256])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_probed_steps_keep_the_bits_of_products_other_than_the_probes(dtype):
    # every cut _plan could make on a probed step (pieces above OpenBLAS's small-matrix size)
    rows, cols = _team.cut_steps(np.dtype(dtype))
    rng = np.random.default_rng(5)
    for m, k, n in [(101, 290, 347), (150, 270, 230), (130, 257, 200)]:
        a, b = _operands(rng, m, k, n, dtype, False, True)
        whole = _one_thread_dot(a, b)
        for step, axis, per_line in ((rows, 0, k * n), (cols, 1, m * k)):
            length = whole.shape[axis]
            for cut in range(step, length, step) if step else ():
                if min(cut, length - cut) * per_line <= _team._SMALL_KERNEL_MAX:
                    continue
                if axis == 0:
                    pieces = np.vstack([_one_thread_dot(a[:cut], b), _one_thread_dot(a[cut:], b)])
                else:
                    pieces = np.hstack([_one_thread_dot(a, b[:, :cut]), _one_thread_dot(a, b[:, cut:])])
                np.testing.assert_array_equal(pieces, whole)


@pytest.mark.parametrize("m, k, n", [(128, 784, 256), (300, 90, 100)])
@pytest.mark.parametrize("fa, fb", LAYOUTS)
def test_a_split_float64_product_matches_one_gemm(m, k, n, fa, fb):
    # float64: the pieces may differ from the whole in the last bits, as OpenBLAS's own threads do
    rng = np.random.default_rng(m + k + n)
    a, b = _operands(rng, m, k, n, np.float64, fa, fb)
    out = np.full((m, n), np.nan)
    assert _team.gemm(a, b, out, 2)
    np.testing.assert_allclose(out, _one_thread_dot(a, b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fa, fb", LAYOUTS)
@pytest.mark.parametrize("shapes", [((128, 256, 256), (256, 128, 256)), ((128, 10, 256), (10, 128, 256)),
                                    ((37, 5, 300), (64, 64, 3))])
def test_a_pair_of_products_has_each_ones_one_gemm_bits(shapes, fa, fb, dtype):
    # each product whole on one thread (the caller or a worker): one np.dot's bits each
    rng = np.random.default_rng(sum(shapes[0]) + 7 * fa + 3 * fb)
    (m1, k1, n1), (m2, k2, n2) = shapes
    a1, b1 = _operands(rng, m1, k1, n1, dtype, fa, fb)
    a2, b2 = _operands(rng, m2, k2, n2, dtype, fb, fa)
    out1, out2 = np.full((m1, n1), np.nan, dtype), np.full((m2, n2), np.nan, dtype)
    assert _team.gemm_pair(a1, b1, out1, a2, b2, out2, 2)
    np.testing.assert_array_equal(out1, _one_thread_dot(a1, b1))
    np.testing.assert_array_equal(out2, _one_thread_dot(a2, b2))


@uses_linear_backward
def test_a_linear_layers_two_gradients_pair_up(monkeypatch):
    rng = np.random.default_rng(5)
    pairs = []
    real = _team.gemm_pair

    def watch(*args):
        pairs.append((args[0].shape, args[1].shape, args[3].shape, args[4].shape))
        return real(*args)
    monkeypatch.setattr(_team, "gemm_pair", watch)
    x = nbgrad.from_numpy(rng.standard_normal((128, 64)).astype(np.float32)).requires_grad_()
    lin = nbgrad.nn.Linear(64, 32)
    lin(x).tanh().sum().backward()
    g = (1 - np.tanh(x.detach().numpy() @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()) ** 2)
    g = g.astype(np.float32)
    if nbgrad.get_num_threads() > 1:
        assert pairs == [((128, 32), (32, 64), (32, 128), (128, 64))]
    else:
        assert pairs == []
    np.testing.assert_allclose(x.grad.numpy(), g @ lin.weight.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(lin.weight.grad.numpy(), g.T @ x.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.sum(0), rtol=1e-4, atol=1e-5)
    # the same bits as the two products one after the other (each a whole or split gemm)
    from nbgrad.backends._shared import linalg as shared
    from nbgrad.backends.cpu.reduction import reduce
    views = [(t.reshape(-1), 0, t.shape, (t.shape[1], 1))
             for t in (g, x.detach().numpy(), lin.weight.detach().numpy())]
    paired = linalg.linear_backward(*views)
    one_by_one = shared.linear_backward(linalg.matmul, reduce, *views)
    for p, o in zip(paired, one_by_one):
        np.testing.assert_array_equal(p, o)


def test_a_pair_the_team_cannot_take_runs_one_after_the_other():
    rng = np.random.default_rng(6)
    g, x, w = (rng.standard_normal(s).astype(np.float32) for s in ((128, 32), (128, 64), (32, 64)))
    views = [(t.reshape(-1), 0, t.shape, (t.shape[1], 1)) for t in (g, x, w)]
    t = _team.team(max(nbgrad.get_num_threads(), 2))
    with t.lock:                       # another thread's product holds the block
        busy = linalg.linear_backward(*views)
    free = linalg.linear_backward(*views)
    for a, b in zip(busy, free):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(busy[0].reshape(128, 64), _one_thread_dot(g, w))


@uses_linear_backward
def test_a_small_pair_and_one_thread_stay_one_after_the_other(monkeypatch):
    calls = []
    monkeypatch.setattr(_team, "gemm_pair", lambda *a: calls.append(a) or False)
    x = nbgrad.randn(8, 6, requires_grad=True)
    nbgrad.nn.Linear(6, 4)(x).sum().backward()          # 8*4*6 multiply-adds: below the line
    assert calls == []
    before = nbgrad.get_num_threads()
    nbgrad.set_num_threads(1)
    try:
        x = nbgrad.randn(128, 64, requires_grad=True)
        nbgrad.nn.Linear(64, 32)(x).sum().backward()
    finally:
        nbgrad.set_num_threads(before)
    assert calls == []
    # more than 2 threads: products the team splits stay split (in as many pieces as threads);
    # smaller ones, which each would run on one thread, still pair
    nbgrad.set_num_threads(3)
    try:
        x = nbgrad.randn(128, 256, requires_grad=True)
        nbgrad.nn.Linear(256, 256)(x).tanh().sum().backward()      # 128*256*256 multiply-adds each
        assert calls == []
        x = nbgrad.randn(128, 64, requires_grad=True)
        nbgrad.nn.Linear(64, 32)(x).tanh().sum().backward()        # (a dense gradient: a C matrix)
        assert len(calls) == 1
    finally:
        nbgrad.set_num_threads(before)


def test_the_team_leaves_the_blas_thread_count_as_it_was():
    ctl = _blas_threads.controls("numpy")
    if not ctl:
        pytest.skip("NumPy's OpenBLAS thread count is not controllable")
    before = ctl[0]()
    ctl[1](2)
    try:
        a, b = _operands(np.random.default_rng(0), 128, 256, 256, np.float32, False, False)
        assert _team.gemm(a, b, np.empty((128, 256), np.float32), 2)
        assert ctl[0]() == 2
    finally:
        ctl[1](before)


def _team_calls(monkeypatch, fn):
    calls = []
    real = _team.gemm

    def watch(a, b, out, threads):
        calls.append((a.shape, b.shape, threads))
        return real(a, b, out, threads)
    monkeypatch.setattr(_team, "gemm", watch)
    fn()
    return calls


def test_matmul_hands_large_2d_products_to_the_team(monkeypatch):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((128, 784)).astype(np.float32)
    w = rng.standard_normal((256, 784)).astype(np.float32)
    x, wt = nbgrad.from_numpy(a), nbgrad.from_numpy(w).t()          # an F operand, as in nn.Linear
    got = []
    threads = nbgrad.get_num_threads()
    calls = _team_calls(monkeypatch, lambda: got.append((x @ wt).numpy()))
    if threads > 1:
        assert calls == [((128, 784), (784, 256), threads)]
    else:
        assert calls == []
    np.testing.assert_array_equal(got[0], _one_thread_dot(a, w.T))
    # below the line: the caller's own gemm
    small = []
    assert _team_calls(monkeypatch, lambda: small.append(nbgrad.from_numpy(a[:8, :64]) @ nbgrad.from_numpy(w[:8, :64]).t())) == []
    np.testing.assert_array_equal(small[0].numpy(), _one_thread_dot(a[:8, :64], w[:8, :64].T))


def test_one_nbgrad_thread_means_no_team(monkeypatch):
    before = nbgrad.get_num_threads()
    nbgrad.set_num_threads(1)
    try:
        x = nbgrad.randn(128, 512)
        y = nbgrad.randn(512, 256)
        assert _team_calls(monkeypatch, lambda: x @ y) == []
    finally:
        nbgrad.set_num_threads(before)


def test_gradients_through_split_products_match_float64():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((96, 300))
    b = rng.standard_normal((300, 160))
    x = nbgrad.tensor(a, dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor(b, dtype=nbgrad.float64, requires_grad=True)
    z = (x @ y).tanh().sum()
    z.backward()
    g = 1 - np.tanh(a @ b) ** 2
    np.testing.assert_allclose(x.grad.numpy(), g @ b.T, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), a.T @ g, rtol=1e-10, atol=1e-10)


@pytest.fixture
def fresh_team(monkeypatch):
    """A team of its own for the test, with a short spin, stopped after it."""
    monkeypatch.setattr(_team, "_team", None)
    yield
    t = _team._team
    if t is not None:
        t.stop()
        assert not any(w.is_alive() for w in t.workers)


def test_a_parked_worker_wakes_for_the_next_product(monkeypatch, fresh_team):
    monkeypatch.setattr(_team, "SPIN_US", 50.0)
    t = _team.team(2)
    deadline = time.monotonic() + 10
    while not t.ctl[_team._PARKED] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert t.ctl[_team._PARKED] == 1          # spun 50 us with nothing to do, then parked
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = _operands(rng, 128, 300, 256, np.float32, False, True)
        out = np.empty((128, 256), np.float32)
        assert _team.gemm(a, b, out, 2)
        np.testing.assert_array_equal(out, _one_thread_dot(a, b))
        time.sleep(0.002)                     # longer than the spin: parked again each time


def test_products_from_several_threads_at_once(fresh_team):
    # one product at a time holds the control block; the others run their own gemm (False)
    rng = np.random.default_rng(4)
    pairs = [_operands(rng, 128, 400, 192, np.float32, i % 2 == 1, False) for i in range(4)]
    want = [_one_thread_dot(a, b) for a, b in pairs]
    errors = []

    def work(i):
        a, b = pairs[i]
        for _ in range(15):
            got = (nbgrad.from_numpy(a) @ nbgrad.from_numpy(b)).numpy()
            if not np.allclose(got, want[i], rtol=1e-5, atol=1e-4):
                errors.append(i)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads)
    assert errors == []


def _child_product(queue):
    rng = np.random.default_rng(5)
    a, b = _operands(rng, 128, 400, 256, np.float32, False, False)
    out = (nbgrad.from_numpy(a) @ nbgrad.from_numpy(b)).numpy()
    queue.put((out, a, b))


def test_a_forked_child_makes_its_own_team():
    a, b = _operands(np.random.default_rng(6), 128, 400, 256, np.float32, False, False)
    nbgrad.from_numpy(a) @ nbgrad.from_numpy(b)       # the parent's team exists and spins
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=_child_product, args=(queue,))
    p.start()
    out, ca, cb = queue.get(timeout=120)
    p.join(timeout=30)
    assert p.exitcode == 0
    np.testing.assert_array_equal(out, _one_thread_dot(ca, cb))


def test_another_thread_count_makes_another_team(fresh_team):
    t2 = _team.team(2)
    t3 = _team.team(3)
    assert t3 is not t2 and len(t3.workers) == 2
    assert not any(w.is_alive() for w in t2.workers)      # the old team was stopped
    assert _team.team(3) is t3


def test_the_pool_sends_spinning_workers_to_park(monkeypatch, fresh_team):
    # nbgrad's thread pool is about to use the cores: the team's workers stop spinning
    from nbgrad.backends.cpu import _threads
    monkeypatch.setattr(_team, "SPIN_US", 5e6)           # they would spin for 5 s
    a, b = _operands(np.random.default_rng(7), 128, 400, 256, np.float32, False, False)
    out = np.empty((128, 256), np.float32)
    assert _team.gemm(a, b, out, 2)
    t = _team._team
    assert t.ctl[_team._PARKED] == 0
    _threads.run_split(lambda s, e: None, 1 << 20, 64) if _threads.num_threads() > 1 else _team.release()
    deadline = time.monotonic() + 10
    while not t.ctl[_team._PARKED] and time.monotonic() < deadline:
        time.sleep(0.001)
    assert t.ctl[_team._PARKED] == 1
    assert _team.gemm(a, b, out, 2)                        # the next product wakes them
    assert t.ctl[_team._YIELD] == 0
    np.testing.assert_array_equal(out, _one_thread_dot(a, b))
