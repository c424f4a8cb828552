"""Elementwise kernels split through their native entry points (the team's workers, no GIL).

The native split thresholds are forced down so that small inputs take that
route, and every result is compared bit for bit with the same call run by
one thread: an elementwise piece computes each element as the whole call
does.  Offsets into a buffer, both scalar paths, a bool output, uneven piece
counts, a busy team and a parked worker are covered; so is the check that
keeps a native call inside its buffers.
"""
import math
import threading

import numpy as np
import pytest

import nbgrad
from nbgrad.backends import cpu as B
from nbgrad.backends.cpu import _team, _threads
from nbgrad.backends.cpu import elementwise as E
from nbgrad.ops import _graph

N = 5003        # not a multiple of the pieces' 64-element alignment: the last piece is ragged


def view(a, base=None, off=0):
    buf, o, st = B.from_numpy(a)
    return buf, o, a.shape, st


def rand(n, dtype=np.float32, seed=0, positive=False):
    x = np.random.default_rng(seed).standard_normal(n).astype(dtype)
    return np.abs(x) + 0.5 if positive else x


@pytest.fixture
def native(monkeypatch):
    """Split every elementwise call of 2 or more elements natively, with `threads` threads."""
    def use(threads):
        monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS", 1)
        monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS_MEMORY", 1)
        monkeypatch.setattr(_threads, "SPLIT_FLOOR", 1)
        monkeypatch.setattr(_threads, "_count", threads)
    return use


def serial(fn):
    """fn() with one thread (nothing split)."""
    saved = _threads._count
    _threads._count = 1
    try:
        return fn()
    finally:
        _threads._count = saved


def logged_splits(fn):
    """fn()'s result and the pieces of each native call that ran while it did ([] for none;
    a call the team refused is not counted)."""
    calls = []
    real = _team.call

    def counting(fn_, n, pieces, align, arrays, offsets):
        ran = real(fn_, n, pieces, align, arrays, offsets)
        if ran:
            calls.append({"parts": pieces, "n": n})
        return ran
    saved = _threads._team_call
    _threads._team_call = counting
    try:
        out = fn()
    finally:
        _threads._team_call = saved
    return out, calls


UNARY = ["tanh", "exp", "sigmoid", "neg", "sqrt", "relu", "log"]


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", UNARY)
def test_unary_split_natively_has_the_serial_bits(native, op, dtype, threads):
    native(threads)
    x = rand(N + 7, dtype, positive=op in ("sqrt", "log"))
    v = (x, 7, (N,), (1,))                   # 7 elements into the buffer
    got, splits = logged_splits(lambda: B.unary(op, v, np.dtype(dtype)))
    assert splits and splits[0]["parts"] == threads
    want = serial(lambda: B.unary(op, v, np.dtype(dtype)))
    np.testing.assert_array_equal(got, want)


BINARY = ["add", "mul", "div", "pow", "maximum", "tanh_backward", "atan2"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", BINARY)
def test_binary_split_natively_has_the_serial_bits(native, op, dtype):
    native(2)
    a, b = rand(N + 3, dtype, positive=op == "pow"), rand(N + 5, dtype, seed=1)
    av, bv = (a, 3, (N,), (1,)), (b, 5, (N,), (1,))
    got, splits = logged_splits(lambda: B.binary(op, av, bv, (N,), np.dtype(dtype)))
    assert splits
    np.testing.assert_array_equal(got, serial(lambda: B.binary(op, av, bv, (N,), np.dtype(dtype))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_scalar_paths_and_a_bool_output(native, dtype):
    native(2)
    a = rand(N, dtype)
    s = np.array([0.0, 0.25, 7.0], dtype)
    one = (s, 1, (N,), (0,))                 # element 1 of a buffer, read for all N
    dt = np.dtype(dtype)
    for args in [(view(a), one), (one, view(a))]:
        got, splits = logged_splits(lambda: B.binary("sub", *args, (N,), dt))
        assert splits
        np.testing.assert_array_equal(got, serial(lambda: B.binary("sub", *args, (N,), dt)))
    np.testing.assert_array_equal(B.binary("sub", view(a), one, (N,), dt), a - dtype(0.25))
    lt = B.binary("lt", view(a), one, (N,), np.dtype(bool))
    np.testing.assert_array_equal(lt, a < 0.25)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mul_backward_split_natively(native, dtype):
    native(2)
    g, a, b = rand(N, dtype), rand(N + 1, dtype, seed=1), rand(N, dtype, seed=2)
    (ga, gb), splits = logged_splits(lambda: B.mul_backward(view(g), (a, 1, (N,), (1,)), view(b)))
    assert splits
    np.testing.assert_array_equal(ga, g * b)
    np.testing.assert_array_equal(gb, g * a[1:])


def test_integers_and_one_thread_stay_off_the_team(native):
    native(2)
    i = np.arange(N, dtype=np.int64)
    out, splits = logged_splits(lambda: B.binary("add", view(i), view(i), (N,), np.dtype(np.int64)))
    assert not splits
    np.testing.assert_array_equal(out, 2 * i)
    _threads._count = 1
    x = rand(N)
    out, splits = logged_splits(lambda: B.unary("exp", view(x), np.dtype(np.float32)))
    assert not splits
    np.testing.assert_array_equal(out, serial(lambda: B.unary("exp", view(x), np.dtype(np.float32))))


def test_an_operand_short_of_its_elements_is_never_read_natively(native):
    native(2)
    a = rand(N)
    short = np.zeros(N - 1, np.float32)
    assert not E._native_split_unary("exp", E._unary_kernels["exp"][0], a, 2, short, N)
    assert not E._native_split_unary("exp", E._unary_kernels["exp"][0], a, 2, np.empty(N, np.float32), N)
    assert not E._native_split_binary("add", 0, E._binary_kernels["add"][0], a, 0, short, 0,
                                      np.empty(N, np.float32), N)
    ok = np.empty(N, np.float32)
    assert E._native_split_binary("add", 0, E._binary_kernels["add"][0], a, 0, a, 0, ok, N)
    np.testing.assert_array_equal(ok, a + a)


def test_a_busy_team_leaves_the_call_to_its_caller(native):
    native(2)
    x = rand(N)
    t = _team.team(2)
    with t.lock:                              # another thread's product holds the block
        out, splits = logged_splits(lambda: B.unary("tanh", view(x), np.dtype(np.float32)))
    assert not splits                         # refused, and run here instead
    np.testing.assert_array_equal(out, serial(lambda: B.unary("tanh", view(x), np.dtype(np.float32))))


def test_a_parked_worker_and_calls_from_several_threads(native):
    native(2)
    x = rand(200_000)
    want = serial(lambda: B.unary("tanh", view(x), np.dtype(np.float32)))
    _team.team(2)
    _team.release()                           # the worker parks; the next call wakes it
    np.testing.assert_array_equal(B.unary("tanh", view(x), np.dtype(np.float32)), want)
    errors = []

    def work():
        try:
            for _ in range(20):
                np.testing.assert_array_equal(B.unary("tanh", view(x), np.dtype(np.float32)), want)
        except BaseException as exc:          # pragma: no cover - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors


def test_a_tensor_program_through_native_splits_matches_float64(native):
    native(2)
    rng = np.random.default_rng(3)
    an, bn, cn = (rng.standard_normal(3000).astype(np.float32) for _ in range(3))
    a, b, c = (nbgrad.tensor(v, requires_grad=True) for v in (an, bn, cn))
    (a * b + c).tanh().sum().backward()
    t = np.tanh(an.astype(np.float64) * bn + cn)
    np.testing.assert_allclose(a.grad.numpy(), (1 - t * t) * bn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), (1 - t * t) * an, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.grad.numpy(), 1 - t * t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_and_means_to_one_value_split_natively(native, dtype, threads):
    native(threads)
    n = 40_003          # a mean takes PyTorch's cascade below its GRAIN_SIZE, 32768
    x = rand(n + 11, dtype)
    v = (x, 11, (n,), (1,))
    exact = math.fsum(x[11:].astype(np.float64))
    for op, want in (("sum", exact), ("mean", exact / n)):
        got, splits = logged_splits(lambda: B.reduce(op, v, (0,), np.dtype(dtype)))
        assert splits and got.dtype == dtype
        if dtype == np.float32:                     # float64 partials, rounded once
            assert got[0] == np.float32(want)
        else:
            assert abs(got[0] - want) <= 1e-13 * abs(x).sum()
        with _team.team(threads).lock:              # a busy team: the serial kernel, same value
            again, splits = logged_splits(lambda: B.reduce(op, v, (0,), np.dtype(dtype)))
        assert not splits
        np.testing.assert_allclose(again, got, rtol=0 if dtype == np.float32 else 1e-14)


def test_a_tensor_sum_through_the_native_route(native):
    native(2)
    n = 8 * N       # (from GRAIN_SIZE elements: below, a total takes PyTorch's cascade order)
    a = rand(n)
    t = nbgrad.tensor(a, requires_grad=True)
    s = t[5:].sum()
    assert s.item() == np.float32(math.fsum(a[5:].astype(np.float64)))
    s.backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.r_[np.zeros(5), np.ones(n - 5)].astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_fused_kernel_split_natively_has_the_serial_bits(native, dtype):
    from nbgrad.backends.cpu import fused
    native(2)
    # out0 = tanh(x * w + s), out1 = out0 * x: a vector at an offset, a vector, a scalar input
    program = (("input", 0), ("input", 1), ("input", 2), ("mul", 0, 1), ("add", 3, 2), ("tanh", 4),
               ("mul", 5, 0))
    x, w = rand(N + 2, dtype), rand(N, dtype, seed=1)
    s = np.array([9.0, 0.5], dtype)
    inputs = [(x, 2, "v"), (w, 0, "v"), (s, 1, "s")]
    got, splits = logged_splits(lambda: fused.fused_elementwise(program, (5, 6), inputs, N, dtype))
    assert splits and splits[0]["n"] == N
    want = serial(lambda: fused.fused_elementwise(program, (5, 6), inputs, N, dtype))
    for g, w_ in zip(got, want):
        np.testing.assert_array_equal(g, w_)
    np.testing.assert_allclose(got[0], np.tanh(x[2:] * w + dtype(0.5)), rtol=1e-6)
    # an input short of the elements it would be read for is never handed to the team
    short = [(x, 4, "v"), (w, 0, "v"), (s, 1, "s")]
    kernel = fused._kernels.get((program, (5, 6), ("v", "v", "s"), np.dtype(dtype).name), fused._build)
    assert not fused._native_split(kernel, short, [np.empty(N, dtype)] * 2, N, True)


def test_nbgrad_fuse_gradients_through_native_splits(native):
    native(2)

    @nbgrad.fuse
    def f(x, w):
        return (x * w + 1).tanh() * x
    rng = np.random.default_rng(4)
    xn, wn = rng.standard_normal(N), rng.standard_normal(N)
    x, w = nbgrad.tensor(xn, requires_grad=True), nbgrad.tensor(wn, requires_grad=True)
    f(x, w).sum().backward()
    t = np.tanh(xn * wn + 1)
    np.testing.assert_allclose(x.grad.numpy(), t + xn * wn * (1 - t * t), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(w.grad.numpy(), xn * xn * (1 - t * t), rtol=1e-13, atol=1e-14)


def _child_tanh(queue):
    x = rand(300_000)
    out = B.unary("tanh", view(x), np.dtype(np.float32))
    queue.put((out, _team._team is not None))


def test_a_forked_child_splits_natively_with_its_own_team():
    import multiprocessing
    x = rand(300_000)
    B.unary("tanh", view(x), np.dtype(np.float32))       # the parent's team exists and spins
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=_child_tanh, args=(queue,))
    p.start()
    out, made_team = queue.get(timeout=120)
    p.join(timeout=30)
    assert p.exitcode == 0
    np.testing.assert_array_equal(out, serial(lambda: B.unary("tanh", view(x), np.dtype(np.float32))))
    assert made_team or _threads.num_threads() == 1


@pytest.mark.skipif(not _graph.ACCELERATIONS_ON, reason="NBGRAD_FUSED=0: SGD updates each parameter with Tensor "
                    "ops, there is no multi-tensor kernel to split")
@pytest.mark.parametrize("momentum, nesterov, dtype", [(0.0, False, np.float32), (0.9, False, np.float32),
                                                       (0.9, True, np.float64)])
def test_a_multi_tensor_sgd_step_split_natively_has_the_serial_bits(native, momentum, nesterov, dtype):
    native(2)
    shapes = [(37, 11), (5,), (64, 3), (1,), (9, 9), (17,), (3, 3, 3), (40,), (6, 7), (2,), (300,)]   # > SGD_GROUP

    def train(split):
        rng = np.random.default_rng(7)
        ps = [nbgrad.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in shapes]
        opt = nbgrad.optim.SGD(ps, lr=0.1, momentum=momentum, nesterov=nesterov, weight_decay=0.01)
        calls = []
        for _ in range(3):
            for p in ps:
                p.grad = nbgrad.tensor(rng.standard_normal(p.shape).astype(dtype))
            if split:
                calls += logged_splits(opt.step)[1]
            else:
                serial(opt.step)
        return [p.detach().numpy() for p in ps], calls
    got, calls = train(True)
    want, _ = train(False)
    assert len(calls) == 3 and calls[0]["n"] == sum(int(np.prod(s)) for s in shapes)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("src, dst", [(np.float32, np.float32), (np.float32, np.float64), (np.float64, np.int32),
                                      (np.int64, np.float32), (np.bool_, np.float64)])
def test_contiguous_copies_split_natively(native, src, dst):
    native(2)
    x = (rand(N + 4, np.float64) * 100).astype(src)
    out = np.zeros(N + 9, dst)
    want = out.copy()
    got, splits = logged_splits(lambda: B.copy((x, 4, (N,), (1,)), (out, 9, (N,), (1,))))
    assert splits
    serial(lambda: B.copy((x, 4, (N,), (1,)), (want, 9, (N,), (1,))))
    np.testing.assert_array_equal(out, want)
    assert not out[:9].any()                      # nothing written before the view


@pytest.mark.parametrize("dtype, value", [(np.float32, 2.5), (np.int64, -7), (np.bool_, True)])
def test_contiguous_fills_split_natively(native, dtype, value):
    native(2)
    out = np.zeros(N + 3, dtype)
    _, splits = logged_splits(lambda: B.fill((out, 1, (N + 1,), (1,)), value))
    assert splits
    assert out[0] == 0 and out[-1] == 0 and (out[1:N + 2] == value).all()


@pytest.mark.parametrize("returns_loss", [False, True])
def test_compiled_regions_split_natively_as_eager_computes(native, returns_loss):
    native(2)
    rng = np.random.default_rng(8)
    xn, wn = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    x, w = nbgrad.tensor(xn, requires_grad=True), nbgrad.tensor(wn, requires_grad=True)

    def step():
        x.grad = w.grad = None
        loss = ((x * w + 1).tanh() * x).sum()
        loss.backward()
        return loss if returns_loss else None
    compiled = nbgrad.compile(step)
    compiled()
    compiled()
    _, calls = logged_splits(compiled)
    assert calls and all(c["n"] == N for c in calls)         # the regions' pieces on the team
    gx, gw = x.grad.numpy().copy(), w.grad.numpy().copy()
    loss = serial(step)                                       # eager, one thread
    np.testing.assert_allclose(gx, x.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, w.grad.numpy(), rtol=1e-5, atol=1e-6)
    if returns_loss:
        np.testing.assert_allclose(compiled().item(), loss.item(), rtol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_fused_kernel_writing_over_one_of_its_inputs_has_the_bits_of_a_separate_output(native, threads, dtype):
    # an output that is an input's own run is read through the output ('o' kinds: no overlap
    # check sends the loop to its scalar version), alone, twice, or with a shifted input
    from nbgrad.backends.cpu import fused
    native(threads)
    program = (("input", 0), ("input", 1), ("mul", 0, 1), ("input", 2), ("input", 3), ("fma", 2, 3, 4))
    n = fused._IN_PLACE_MIN * 4 + 3
    a, b, c = rand(n + 5, dtype, 1), rand(n + 5, dtype, 2), rand(n + 5, dtype, 3)
    value = np.array([0.3], dtype)
    for picks in ((0, 1, 4), (0, 0, 0), (2, 0, 4), (2, 2, 2)):      # offsets of a, b, c into one buffer
        for in_place in ("c", "a", "all"):
            buf = c.copy()
            ops = {"a": (a, 1), "c": (buf, picks[2])}
            if in_place == "a":
                ops["a"] = (buf, picks[2])
            if in_place == "all":
                ops["a"] = ops["c"]
            inputs = [(*ops["a"], "v"), (value, 0, "s"), (b, picks[1], "v"), (*ops["c"], "v")]
            want = fused.fused_elementwise(program, (5,), [(x.copy(), o, k) for x, o, k in inputs], n, dtype)[0]
            out = buf[picks[2]:picks[2] + n]
            assert fused._in_place_kinds(inputs, ("v", "s", "v", "v"), out).count("o") == (2 if in_place != "c" else 1)
            fused.fused_elementwise(program, (5,), inputs, n, dtype, out=out)
            np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))
    # an input shifted against the output is no 'o' (and the overlap check keeps it right)
    buf = c.copy()
    shifted = [(buf, 1, "v"), (value, 0, "s"), (b, 0, "v"), (buf, 0, "v")]
    assert fused._in_place_kinds(shifted, ("v", "s", "v", "v"), buf[:n]) == ("v", "s", "v", "o")


@pytest.mark.parametrize("threads", [2, 3])
def test_softmax_and_cross_entropy_rows_split_natively_have_the_serial_bits(native, threads):
    # rows are the pieces: softmax and log_softmax forward and backward over dense float rows,
    # cross-entropy's forward (its row losses, then their cascade in order) and backward
    native(threads)
    rng = np.random.default_rng(3)
    for m, c in [(7, 16), (5, 300), (33, 10)]:
        x = (rng.standard_normal(m * c) * 3).astype(np.float32)
        x[c + 2] = np.nan
        g = rng.standard_normal(m * c).astype(np.float32)
        v = (x, 0, (m, c), (c, 1))
        target = rng.integers(0, c, m)
        target[1] = -100
        weight = rng.uniform(0.5, 2, c).astype(np.float32)
        coef = np.full(m, 0.25)
        for log in (False, True):
            (got, n), want = logged_splits(lambda: B.softmax(v, 1, log)), serial(lambda: B.softmax(v, 1, log))
            assert [s['parts'] for s in n] == [min(threads, m)]
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
            y = want
            for dt in (np.float32,) + (() if log else (np.float64,)):
                gd, yd = g.astype(dt), y.astype(dt)
                args = ((gd, 0, (m, c), (c, 1)), (yd, 0, (m, c), (c, 1)), 1, log)
                (got, n), want = logged_splits(lambda: B.softmax_backward(*args)), serial(lambda: B.softmax_backward(*args))
                assert [s['parts'] for s in n] == [min(threads, m)]
                np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
        for w in (None, weight):
            args = (x, m, c, target, w, -100, 0.0)
            (got, n), want = logged_splits(lambda: B.cross_entropy_forward(*args)), \
                serial(lambda: B.cross_entropy_forward(*args))
            assert [s['parts'] for s in n] == [min(threads, m)]
            for a, b in zip(got[:2], want[:2]):
                np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
            assert got[2] == want[2]
            bargs = (x, m, c, want[1], target, w, -100, 0.0, coef, np.zeros(1))
            (got, n), want = logged_splits(lambda: B.cross_entropy_backward(*bargs)), \
                serial(lambda: B.cross_entropy_backward(*bargs))
            assert [s['parts'] for s in n] == [min(threads, m)]
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
