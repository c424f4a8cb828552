"""The small-op shortcuts (nbgrad/backends/__init__.py, SHORTCUTS) give the general entry
points' results bit for bit, and decline (None) what they do not serve; the op layer's
results and gradients are the same whichever path a call takes."""
import numpy as np
import pytest

import nbgrad
from nbgrad import _debug
from nbgrad.backends import get_backend
from nbgrad.backends._shared.geometry import as_index_array
from nbgrad.backends.cpu import _threads

cpu = get_backend("cpu")
RNG = np.random.default_rng(20261202)


def _values(n, dtype):
    if np.dtype(dtype).kind == "f":
        v = RNG.standard_normal(n + 3).astype(dtype)
        v[1] = np.nan if n > 4 else v[1]
        return v
    if np.dtype(dtype).kind == "b":
        return RNG.integers(0, 2, n + 3).astype(dtype)
    return RNG.integers(1, 9, n + 3).astype(dtype)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "lt", "eq", "pow", "atan2"])
def test_binary_dense_is_binary(op, dtype):
    if op in ("div", "atan2") and np.dtype(dtype).kind != "f":
        pytest.skip("(the op layer computes integer div/atan2 in floats)")
    n = 37
    a, b = _values(n, dtype), _values(n, dtype)
    out_dtype = np.dtype(np.bool_) if op in ("lt", "eq") else np.dtype(dtype)
    general = cpu.binary(op, (a, 2, (n,), (1,)), (b, 1, (n,), (1,)), (n,), out_dtype)
    _same(cpu.binary_dense(op, a, 2, b, 1, n, out_dtype), general)


def test_binary_dense_into_its_first_operand():
    a, b = _values(20, np.float32), _values(20, np.float32)
    expected = a[3:18] + b[0:15]
    out = a[3:18]
    assert cpu.binary_dense("add", a, 3, b, 0, 15, np.dtype(np.float32), out) is out
    _same(a[3:18], expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["tanh", "exp", "log", "sigmoid", "relu", "neg", "sqrt"])
def test_unary_dense_is_unary(op, dtype):
    n = 29
    x = _values(n, dtype)
    _same(cpu.unary_dense(op, x, 3, n, np.dtype(dtype)), cpu.unary(op, (x, 3, (n,), (1,)), np.dtype(dtype)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mul_backward_dense_is_mul_backward(dtype):
    n = 33
    g, a, b = _values(n, dtype), _values(n, dtype), _values(n, dtype)
    fast = cpu.mul_backward_dense(g, 1, a, 2, b, 3, n)
    general = cpu.mul_backward((g, 1, (n,), (1,)), (a, 2, (n,), (1,)), (b, 3, (n,), (1,)))
    _same(fast[0], general[0])
    _same(fast[1], general[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min", "amax", "amin"])
@pytest.mark.parametrize("n", [1, 7, 63, 64, 1000])
@pytest.mark.parametrize("values", ["normal", "zeros", "nan"])
def test_total_dense_is_reduce(op, dtype, n, values):
    x = RNG.standard_normal(n + 2).astype(dtype)
    if values == "zeros":           # the extremum is a zero of either sign: the first one's
        x = np.where(RNG.random(n + 2) < 0.5, -0.0, 0.0).astype(dtype)
        x[-1] = -1.0
    elif values == "nan":
        x[2 + n // 2] = np.nan
    general = cpu.reduce(op, (x, 2, (n,), (1,)), (0,), np.dtype(dtype))
    _same(cpu.total_dense(op, x, 2, n, np.dtype(dtype)), general)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000, 32767])
@pytest.mark.parametrize("correction", [0, 1, 3])
def test_var_dense_is_reduce_then_sqrt_and_cast(dtype, n, correction):
    # x.var() / x.std() of a row-major tensor: reduce("var") to one float64 value (PyTorch's
    # std_var_all_cpu), std's float64 sqrt, each rounded once to the dtype
    x = (RNG.standard_normal(n + 2) * 3 + 1).astype(dtype)
    if n == 7:
        x[5] = np.nan
    view = (x, 2, (n,), (1,))
    with np.errstate(all="ignore"):
        v = cpu.reduce("var", view, (0,), np.dtype(np.float64), correction=correction)
        _same(cpu.var_dense(x, 2, n, correction, False, np.dtype(dtype)), v.astype(dtype))
        _same(cpu.var_dense(x, 2, n, correction, True, np.dtype(dtype)), np.sqrt(v).astype(dtype))


def test_var_dense_serves_the_ops_one_value_calls(monkeypatch):
    calls = []
    real = cpu.var_dense
    spy = lambda *a: calls.append(a[2:5]) or real(*a)          # noqa: E731
    monkeypatch.setattr(cpu, "var_dense", spy)
    # (the op layer reads the shortcut from its table, filled by whichever test ran it first)
    monkeypatch.setitem(nbgrad.ops.reduction._VAR_DENSE, "cpu", spy)
    a = RNG.standard_normal((3, 5)).astype(np.float32)
    x = nbgrad.from_numpy(a).requires_grad_()
    s = x.std(keepdim=True)
    assert calls == [(15, 1, True)] and s.shape == (1, 1)
    assert x.var(correction=0).shape == () and calls[-1] == (15, 0, False)
    assert x.std(dim=(0, 1)).shape == () and len(calls) == 3
    s.sum().backward()
    assert s.grad_fn.name() == "StdBackward0"
    np.testing.assert_allclose(x.grad.numpy(), (a - a.mean()) / (14 * a.std(ddof=1)), rtol=1e-5)
    calls.clear()
    x.detach().t().std()                           # a transposed tensor, one dim, std_mean: composed
    x.detach().std(1)
    nbgrad.std_mean(x.detach())
    nbgrad.from_numpy(a).half().var()
    assert calls == []


def test_shortcuts_decline_what_they_do_not_serve(monkeypatch):
    f32, f16 = np.dtype(np.float32), np.dtype(np.float16)
    big = _threads.SPLIT_FLOOR
    a = np.ones(big, np.float32)
    monkeypatch.setattr(_threads, "_count", 2)
    monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS_MEMORY", 0)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", big)
    assert cpu.binary_dense("add", a, 0, a, 0, big, f32) is None          # the pool would split it
    monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS", 0)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", big)
    assert cpu.unary_dense("tanh", a, 0, big, f32) is None                # compute-bound: its own line
    assert cpu.binary_dense("add", a, 0, a, 0, 0, f32) is None            # empty
    h = np.ones(4, np.float16)
    assert cpu.binary_dense("add", h, 0, h, 0, 4, f16) is None            # float16: _half.py's
    assert cpu.unary_dense("exp", h, 0, 4, f16) is None
    assert cpu.unary_dense("neg", np.ones(4, np.int64), 0, 4, np.dtype(np.int64)) is None
    assert cpu.total_dense("prod", a, 0, 4, f32) is None                  # sums, means and extrema only
    assert cpu.total_dense("sum", np.ones(4, np.int64), 0, 4, np.dtype(np.int64)) is None
    assert cpu.var_dense(np.ones(1 << 15, np.float32), 0, 1 << 15, 1, True, f32) is None   # a split mean
    assert cpu.var_dense(h, 0, 4, 1, True, f16) is None
    monkeypatch.setattr(_debug, "ENABLED", True)                          # NBGRAD_DEBUG logs the general path
    assert cpu.binary_dense("add", a, 0, a, 0, 4, f32) is None
    assert cpu.mul_backward_dense(a, 0, a, 0, a, 0, 4) is None


@pytest.mark.parametrize("threads", [1, 2])
def test_large_dense_calls_no_threshold_splits_take_the_shortcut(monkeypatch, threads):
    # above SPLIT_FLOOR but below every split threshold (or with one thread) the shortcuts
    # serve the call, with the general entry point's bits
    n = _threads.SPLIT_FLOOR * 4 + 3
    monkeypatch.setattr(_threads, "_count", threads)
    for name in ("TEAM_MIN_ELEMENTS", "TEAM_MIN_ELEMENTS_MEMORY", "PARALLEL_MIN_ELEMENTS",
                 "PARALLEL_MIN_ELEMENTS_MEMORY"):
        monkeypatch.setattr(_threads, name, n + 1)
    f32 = np.dtype(np.float32)
    g, a, b = (_values(n + 2, np.float32) for _ in range(3))
    out = cpu.binary_dense("mul", a, 1, b, 2, n, f32)
    assert out is not None
    _same(out, cpu.binary("mul", (a, 1, (n,), (1,)), (b, 2, (n,), (1,)), (n,), f32))
    out = cpu.unary_dense("tanh", a, 2, n, f32)
    assert out is not None
    _same(out, cpu.unary("tanh", (a, 2, (n,), (1,)), f32))
    fast = cpu.mul_backward_dense(g, 0, a, 1, b, 2, n)
    general = cpu.mul_backward((g, 0, (n,), (1,)), (a, 1, (n,), (1,)), (b, 2, (n,), (1,)))
    _same(fast[0], general[0])
    _same(fast[1], general[1])


def _grads(shape, dtype, offset_views):
    """Values and gradients of a small program of shortcut-eligible ops (and, with
    offset_views, the same program on row-major views at an offset, which the shortcuts
    also take) in float64 against finite differences of NumPy's forward."""
    rng = np.random.default_rng(7)
    n = int(np.prod(shape))
    raw = [rng.uniform(0.5, 1.5, n + 2) for _ in range(3)]

    def leaf(v):
        t = nbgrad.tensor(v, dtype=dtype)
        if offset_views:
            t = t[2:].reshape(shape).detach()
        else:
            t = t[:n].reshape(shape).detach()
        return t.requires_grad_()
    a, b, c = (leaf(v) for v in raw)
    y = (a * b + c).tanh() * a - b / c
    loss = y.sum() + y.mean()
    loss.backward()
    return [t.grad.numpy() for t in (a, b, c)], [r[2:] if offset_views else r[:n] for r in raw]


@pytest.mark.parametrize("offset_views", [False, True])
def test_gradients_through_the_shortcuts_match_finite_differences(offset_views):
    shape = (3, 5)
    grads, raw = _grads(shape, nbgrad.float64, offset_views)

    def f(a, b, c):
        y = np.tanh(a * b + c) * a - b / c
        return y.sum() + y.mean()
    eps = 1e-6
    for k in range(3):
        fd = np.empty(raw[k].size)
        for i in range(raw[k].size):
            plus = [r.copy() for r in raw]
            minus = [r.copy() for r in raw]
            plus[k][i] += eps
            minus[k][i] -= eps
            fd[i] = (f(*plus) - f(*minus)) / (2 * eps)
        np.testing.assert_allclose(grads[k].ravel(), fd, rtol=1e-7, atol=1e-9)


def test_small_and_large_calls_agree_bit_for_bit():
    # the same values through the shortcut (16 elements) and through the general path
    # (the same 16 elements inside a tensor too large for the shortcut)
    big = _threads.SPLIT_FLOOR * 2
    rng = np.random.default_rng(3)
    av, bv = rng.standard_normal(big).astype(np.float32), rng.standard_normal(big).astype(np.float32)
    small = (nbgrad.from_numpy(av[:16].copy()) * nbgrad.from_numpy(bv[:16].copy())).tanh()
    large = (nbgrad.from_numpy(av) * nbgrad.from_numpy(bv)).tanh()
    _same(small.numpy(), large.numpy()[:16])


@pytest.mark.parametrize("n", [1, 2, 19])
@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "pow", "gt"])
def test_binary_dense_with_a_scalar_operand_is_binary(op, n):
    a = _values(n, np.float64)
    b = np.array([0.75])
    out_dtype = np.dtype(np.bool_) if op == "gt" else np.dtype(np.float64)
    general = cpu.binary(op, (a, 3, (n,), (1,)), (b, 0, (n,), (0,)), (n,), out_dtype)
    _same(cpu.binary_dense(op, a, 3, b, 0, n, out_dtype, None, True), general)


@pytest.mark.parametrize("n", [1, 2, 19])
@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "pow", "gt", "tanh_backward"])
def test_binary_dense_with_a_first_scalar_operand_is_binary(op, n):
    a = np.array([0.0, 0.75])
    b = _values(n + 3, np.float64)
    out_dtype = np.dtype(np.bool_) if op == "gt" else np.dtype(np.float64)
    general = cpu.binary(op, (a, 1, (n,), (0,)), (b, 3, (n,), (1,)), (n,), out_dtype)
    _same(cpu.binary_dense(op, a, 1, b, 3, n, out_dtype, None, False, True), general)


@pytest.mark.parametrize("shape", [(5,), (2, 3), (1, 4)])
def test_an_expanded_element_with_a_row_major_operand_takes_the_shortcut(shape, monkeypatch):
    # sum's gradient (one element expanded) meeting the next backward formula: the values
    # and the row-major result of the general path, through binary_dense
    from nbgrad.ops import elementwise as E
    seen = []
    real = E._BINARY_DENSE["cpu"]
    monkeypatch.setitem(E._BINARY_DENSE, "cpu", lambda *a: seen.append((a[0], a[-1])) or real(*a))
    n = int(np.prod(shape))
    y = nbgrad.tensor(RNG.standard_normal(n)).reshape(shape)
    g = nbgrad.tensor(1.5, dtype=nbgrad.float64).expand(*shape)
    out = g * y
    assert seen == [("mul", True)]
    assert out.stride() == y.stride() and out.is_contiguous()
    np.testing.assert_array_equal(out.numpy(), 1.5 * y.numpy())
    x = nbgrad.tensor(RNG.standard_normal(n)).reshape(shape).requires_grad_()
    x.tanh().sum().backward()
    assert ("tanh_backward", True) in seen
    y = x.detach().tanh().numpy().ravel()
    general = cpu.binary("tanh_backward", (np.ones(1), 0, (n,), (0,)), (y, 0, (n,), (1,)), (n,), np.dtype(np.float64))
    _same(x.grad.numpy().ravel(), general)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["max", "min"])
def test_extremum_keys_give_the_serial_loops_answer(op, dtype):
    # max/min of unit-stride float rows of 64 and more compare order keys (the float bits as
    # integers); the answer must stay the serial step loop's: its first NaN (its bits: sign
    # and payload), else the first element equal to the extremum (so the sign of a zero).
    # The serial rows kernel is the reference, bit for bit.
    from nbgrad.backends.cpu import reduction
    serial = reduction._kernels_for(op)[0]
    rng = np.random.default_rng(5)
    init = reduction.init_value(op, np.dtype(dtype), np.dtype(dtype))
    ints = np.int32 if dtype == np.float32 else np.int64
    for trial in range(600):
        rows, n = int(rng.integers(1, 4)), int(rng.integers(1, 300))
        x = rng.standard_normal(rows * n + 3).astype(dtype)
        kind = trial % 6
        if kind == 1:
            x = np.where(rng.random(x.size) < 0.5, -0.0, 0.0).astype(dtype)
            x[rng.random(x.size) < 0.1] = -1.0 if op == "max" else 1.0
        elif kind == 2:
            x[rng.random(x.size) < 0.02] = np.nan
        elif kind == 3:
            x[rng.random(x.size) < 0.1] = np.inf if trial % 12 < 6 else -np.inf
        elif kind == 4:
            # NaNs of either sign and of several payloads (a negative NaN's key lies below
            # -inf's, a positive one's above +inf's), beside infinities
            bits = x.view(ints)
            nan_at = np.flatnonzero(rng.random(x.size) < 0.01)
            payload = rng.integers(1, 2 ** np.finfo(dtype).nmant, nan_at.size).astype(ints)
            sign = np.where(rng.random(nan_at.size) < 0.5, np.iinfo(ints).min, 0).astype(ints)
            bits[nan_at] = np.array(np.inf, dtype).view(ints) | payload | sign
            x[rng.random(x.size) < 0.05] = -np.inf if op == "min" else np.inf
        elif kind == 5:
            # denormals and the smallest normals of both signs around the zeros
            tiny = np.finfo(dtype).tiny
            x = (rng.standard_normal(x.size) * tiny * 4).astype(dtype)
            x[rng.random(x.size) < 0.05] = -0.0
        kshape, kst = as_index_array([rows]), as_index_array([n])
        want = np.empty(rows, dtype)
        serial(x, 3, kshape, kst, n, 1, init, want)
        got = cpu.reduce(op, (x, 3, (rows, n), (n, 1)), (1,), np.dtype(dtype))
        _same(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 17, 5000])
@pytest.mark.parametrize("bounds", [(-0.5, 0.5), (1.0, -1.0), (np.nan, 0.5), (-0.0, 0.0)])
@pytest.mark.parametrize("in_place", [False, True])
def test_clamp_dense_is_maximum_then_minimum(dtype, n, bounds, in_place):
    x = RNG.standard_normal(n + 3).astype(dtype)
    x[::5] = np.nan
    x[1::7] = -0.0
    dt = np.dtype(dtype)
    lo, hi = (np.array([b], dtype) for b in bounds)
    general = cpu.binary("minimum", (cpu.binary("maximum", (x, 3, (n,), (1,)), (lo, 0, (n,), (0,)), (n,), dt), 0,
                                     (n,), (1,)), (hi, 0, (n,), (0,)), (n,), dt)
    if in_place:
        y = x.copy()
        out = cpu.clamp_dense(y, 3, n, np.array(bounds, dtype), y[3:], out_is_a=True)
        assert out is not None and np.shares_memory(out, y)
        np.testing.assert_array_equal(y[:3].view(np.uint8), x[:3].view(np.uint8))   # only the run is written
    else:
        out = cpu.clamp_dense(x, 3, n, np.array(bounds, dtype))
    _same(out, general)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("rows, n", [(1, 1), (1, 37), (128, 10), (5, 64)])
@pytest.mark.parametrize("values", ["normal", "ties", "nan"])
def test_arg_dense_is_reduce(op, dtype, rows, n, values):
    x = RNG.standard_normal(rows * n + 2).astype(dtype)
    if values == "ties":                    # the first index of the extremum
        x = RNG.integers(-2, 2, rows * n + 2).astype(dtype)
    elif values == "nan":                   # the first NaN wins
        x[2::7] = np.nan
    general = cpu.reduce(op, (x, 2, (rows, n), (n, 1)), (1,), np.dtype(np.int64))
    _same(cpu.arg_dense(op, x, 2, rows, n), general)
    assert cpu.arg_dense(op, x.astype(np.float16), 2, rows, n) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_calls_the_team_splits_go_from_the_shortcuts_to_its_native_entry_points(monkeypatch, dtype):
    # above the team's lines the shortcuts hand the call to the team (_binary_dense_split and
    # kin): the general entry point's bits, new buffers or in place; an integer dtype (no
    # native entry point) or a call the pool would split goes the general way (None)
    n = _threads.SPLIT_FLOOR * 2 + 5
    monkeypatch.setattr(_threads, "_count", 2)
    for name in ("TEAM_MIN_ELEMENTS", "TEAM_MIN_ELEMENTS_MEMORY"):
        monkeypatch.setattr(_threads, name, _threads.SPLIT_FLOOR)
    dt = np.dtype(dtype)
    g, a, b = (_values(n + 3, dtype) for _ in range(3))
    for op in ("mul", "add", "pow"):
        _same(cpu.binary_dense(op, a, 1, b, 3, n, dt), cpu.binary(op, (a, 1, (n,), (1,)), (b, 3, (n,), (1,)), (n,), dt))
        _same(cpu.binary_dense(op, a, 2, b, 1, n, dt, None, True),
              cpu.binary(op, (a, 2, (n,), (1,)), (b, 1, (n,), (0,)), (n,), dt))
    for op in ("tanh", "exp", "neg"):
        _same(cpu.unary_dense(op, a, 2, n, dt), cpu.unary(op, (a, 2, (n,), (1,)), dt))
    want = cpu.mul_backward((g, 0, (n,), (1,)), (a, 1, (n,), (1,)), (b, 2, (n,), (1,)))
    got = cpu.mul_backward_dense(g, 0, a, 1, b, 2, n)
    _same(got[0], want[0])
    _same(got[1], want[1])
    # in place: out is a's own run
    x = a.copy()
    want = cpu.binary("mul", (a, 0, (n,), (1,)), (b, 0, (n,), (1,)), (n,), dt)
    assert cpu.binary_dense("mul", x, 0, b, 0, n, dt, x[:n], False, False, True) is not None
    _same(x[:n], want)
    assert np.array_equal(x[n:], a[n:])
    x = a.copy()
    assert cpu.unary_dense("tanh", x, 0, n, dt, x[:n], True) is not None
    _same(x[:n], cpu.unary("tanh", (a, 0, (n,), (1,)), dt))
    i64 = np.arange(n, dtype=np.int64)
    assert cpu.binary_dense("add", i64, 0, i64, 0, n, np.dtype(np.int64)) is None
    monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS_MEMORY", 0)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", _threads.SPLIT_FLOOR)
    assert cpu.binary_dense("add", a, 0, b, 0, n, dt) is None
