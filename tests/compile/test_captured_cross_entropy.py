"""cross_entropy while nbgrad.compile captures (nbgrad/ops/loss.py, _captured_fused_cross_entropy):
the backend's capture form (cross_entropy_stats) keeps the sums on the device and the loss and
the gradient's scales are Tensor ops on them.  Compiled calls give the eager call's values and
gradients bit for bit, also when what the sums depend on (which rows are ignored, which targets
pick which weights) changes from call to call, and a target out of range still raises."""
import os

import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.backends import get_backend
from nbgrad.ops import _graph

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="generated njit code")
# with NBGRAD_FUSED=0 the loss is composed, also while capturing: no capture form to test
# (tests/compile/test_compile.py compares those compiled calls with eager ones)
uses_the_capture_form = pytest.mark.skipif(not _graph.ACCELERATIONS_ON, reason="NBGRAD_FUSED=0: no fused kernels")

F = nn.functional


def _mean_loss_step(x, t):
    loss = F.cross_entropy(x, t)
    loss.backward()
    return loss


def _inputs(rng, shape, dtype, c, ignored):
    x = rng.standard_normal(shape).astype(dtype)
    t_shape = (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ()
    t = rng.integers(0, c, t_shape)
    if ignored and t.ndim:
        t.reshape(-1)[: ignored] = -100
    return x, t


def _loss_and_grad(fn, x, t, g):
    xt = nbgrad.from_numpy(x.copy()).requires_grad_()
    loss = fn(xt, nbgrad.from_numpy(t.copy()), nbgrad.from_numpy(g.copy()))
    return loss.detach().numpy().copy(), xt.grad.numpy().copy(), loss


@uses_the_capture_form
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("shape", [(8, 5), (4, 3, 2)])
def test_compiled_cross_entropy_has_the_eager_bits(dtype, reduction, weighted, smoothing, shape):
    rng = np.random.default_rng(len(shape) * 100 + int(weighted) * 10 + int(smoothing * 10))
    c = shape[1]
    weight = nbgrad.from_numpy(rng.uniform(0.5, 2.0, c).astype(dtype)) if weighted else None

    def f(x, t, g):
        loss = F.cross_entropy(x, t, weight=weight, reduction=reduction, label_smoothing=smoothing)
        loss.backward(g)
        return loss

    step = nbgrad.compile(f)
    # the second call onwards replays; each call ignores another number of rows, so the
    # sums of weights (the mean's denominator, the gradient's scale) differ from the capture's
    for ignored in (0, 2, 1, 3):
        x, t = _inputs(rng, shape, dtype, c, ignored)
        g_shape = tuple(t.shape) if reduction == "none" else ()
        g = rng.uniform(0.5, 1.5, g_shape).astype(dtype)
        le, ge, eager = _loss_and_grad(f, x, t, g)
        lc, gc, compiled = _loss_and_grad(step, x, t, g)
        np.testing.assert_array_equal(lc, le)
        np.testing.assert_array_equal(gc, ge)
        assert compiled.dtype == eager.dtype and tuple(compiled.shape) == tuple(eager.shape)
        # (more than 2 dims: nll_loss_nd's NllLoss2DBackward0, its 'none' loss viewed back)
        name = "NllLossBackward0" if len(shape) <= 2 else "ViewBackward0" if reduction == "none" else \
            "NllLoss2DBackward0"
        assert compiled.grad_fn.name() == eager.grad_fn.name() == name
    assert step.captures == 1


@uses_the_capture_form
def test_every_row_ignored_gives_eager_nan_and_zero_gradient():
    def f(x, t, g):
        loss = F.cross_entropy(x, t)
        loss.backward(g)
        return loss

    step = nbgrad.compile(f)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    g = np.ones((), np.float32)
    for t in (rng.integers(0, 4, 6), np.full(6, -100)):
        le, ge, _ = _loss_and_grad(f, x, t, g)
        lc, gc, _ = _loss_and_grad(step, x, t, g)
        np.testing.assert_array_equal(lc, le)
        np.testing.assert_array_equal(gc, ge)
    assert np.isnan(lc) and not gc.any()


@uses_the_capture_form
def test_one_sample_1d_input():
    def f(x, t, g):
        loss = F.cross_entropy(x, t, label_smoothing=0.2)
        loss.backward(g)
        return loss

    step = nbgrad.compile(f)
    rng = np.random.default_rng(2)
    for k in range(3):
        x = rng.standard_normal(7)
        t = np.array(k + 2)
        g = np.array(0.5 + k)
        le, ge, _ = _loss_and_grad(f, x, t, g)
        lc, gc, _ = _loss_and_grad(step, x, t, g)
        np.testing.assert_array_equal(lc, le)
        np.testing.assert_array_equal(gc, ge)


@uses_the_capture_form
def test_the_capture_form_replaces_the_composed_loss():
    # two kernels and a check where the composed capture takes a dozen calls
    step = nbgrad.compile(_mean_loss_step)
    x = nbgrad.randn(8, 5, requires_grad=True)
    step(x, nbgrad.randint(0, 5, (8,)))
    names = [n.name for n in step.graph]
    assert any("cross_entropy_stats" in n for n in names), names
    assert any("cross_entropy_backward" in n for n in names), names
    assert not any("softmax" in n for n in names), names


def test_a_target_out_of_range_raises_in_a_compiled_call_and_writes_no_gradient():
    step = nbgrad.compile(_mean_loss_step)
    x = nbgrad.randn(8, 5, requires_grad=True)
    t = nbgrad.randint(0, 5, (8,))
    step(x, t)
    step(x, t)
    x.grad = None
    bad = t.clone()
    bad[6] = 5
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        step(x, bad)
    assert x.grad is None


def test_the_capture_form_is_cross_entropy_forward_without_host_reads():
    cpu = get_backend("cpu")
    rng = np.random.default_rng(3)
    x = rng.standard_normal(24).astype(np.float32)
    target = np.array([0, 3, -100, 1, 2, 5], np.int64)
    weight = rng.uniform(0.5, 2, 4).astype(np.float32)
    row_loss, lse, sums, bad = cpu.cross_entropy_stats(x, 6, 4, target, weight, -100, 0.1)
    assert bad.dtype == np.bool_ and bad.shape == (1,) and bad[0]      # 5 is out of [0, 4)
    target[5] = 3
    row_loss, lse, sums, bad = cpu.cross_entropy_stats(x, 6, 4, target, weight, -100, 0.1)
    ref_rows, ref_lse, ref_sums = cpu.cross_entropy_forward(x, 6, 4, target, weight, -100, 0.1)
    assert not bad[0]
    np.testing.assert_array_equal(row_loss, ref_rows)
    np.testing.assert_array_equal(lse, ref_lse)
    assert sums.dtype == np.float64 and tuple(sums) == ref_sums
    # cross_entropy_backward takes one coefficient for every row alike
    one = cpu.cross_entropy_backward(x, 6, 4, lse, target, weight, -100, 0.1, np.array([0.25]), np.array([0.5]))
    full = cpu.cross_entropy_backward(x, 6, 4, lse, target, weight, -100, 0.1, np.full(6, 0.25), np.full(6, 0.5))
    np.testing.assert_array_equal(one, full)


# -- CUDA (the simulator in CI): the same capture form, its sums left on the device ------------
from tests.nn._cuda import requires_cuda  # noqa: E402


def _on_cuda(a):
    return nbgrad.from_numpy(np.array(a)).to("cuda")      # (np.array keeps a 0-dim value 0-dim)


@requires_cuda
@uses_the_capture_form
@pytest.mark.parametrize("reduction, weighted, smoothing", [("mean", False, 0.0), ("mean", True, 0.1),
                                                            ("sum", True, 0.0), ("none", False, 0.1)])
def test_cuda_compiled_cross_entropy_matches_eager(reduction, weighted, smoothing):
    rng = np.random.default_rng(7)
    c = 4
    weight = _on_cuda(rng.uniform(0.5, 2.0, c)) if weighted else None

    def f(x, t, g):
        loss = F.cross_entropy(x, t, weight=weight, reduction=reduction, label_smoothing=smoothing)
        loss.backward(g)
        return loss

    step = nbgrad.compile(f)
    for ignored in (0, 2, 1):          # the sums the scales depend on change from call to call
        x, t = _inputs(rng, (5, c), np.float64, c, ignored)
        g = rng.uniform(0.5, 1.5, (5,) if reduction == "none" else ())
        got = []
        for fn in (f, step):
            xt = _on_cuda(x).requires_grad_()
            loss = fn(xt, _on_cuda(t), _on_cuda(g))
            assert loss.device.type == "cuda" and xt.grad.device.type == "cuda"
            got.append((loss.detach().cpu().numpy(), xt.grad.cpu().numpy()))
        (le, ge), (lc, gc) = got
        np.testing.assert_allclose(lc, le, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(gc, ge, rtol=1e-12, atol=1e-15)
    assert step.captures == 1
    names = [n.name for n in step.graph]
    assert any("cross_entropy_stats" in n for n in names), names
    assert not any("softmax" in n for n in names), names


@requires_cuda
def test_cuda_capture_form_and_its_one_coefficient_backward():
    cuda = get_backend("cuda")
    rng = np.random.default_rng(4)
    x = rng.standard_normal(24).astype(np.float32)
    target = np.array([0, 3, -100, 1, 2, 5], np.int64)
    weight = rng.uniform(0.5, 2, 4).astype(np.float32)
    def buf(a):         # a device buffer holding a copy of a host array
        return nbgrad.tensor(a, device="cuda")._storage.buffer

    dev = [buf(a) for a in (x, target, weight)]
    row_loss, lse, sums, bad = cuda.cross_entropy_stats(dev[0], 6, 4, dev[1], dev[2], -100, 0.1)
    assert bool(bad.copy_to_host()[0])      # 5 is out of [0, 4): flagged, nothing raised
    target[5] = 3
    dev[1] = buf(target)
    row_loss, lse, sums, bad = cuda.cross_entropy_stats(dev[0], 6, 4, dev[1], dev[2], -100, 0.1)
    ref_rows, ref_lse, ref_sums = cuda.cross_entropy_forward(dev[0], 6, 4, dev[1], dev[2], -100, 0.1)
    assert not bool(bad.copy_to_host()[0])
    np.testing.assert_array_equal(row_loss.copy_to_host(), ref_rows.copy_to_host())
    np.testing.assert_array_equal(lse.copy_to_host(), ref_lse.copy_to_host())
    assert tuple(sums.copy_to_host()) == ref_sums
    _, _, empty_sums, empty_bad = cuda.cross_entropy_stats(dev[0], 0, 4, dev[1], dev[2], -100, 0.1)
    assert tuple(empty_sums.copy_to_host()) == (0.0, 0.0, 0.0) and not bool(empty_bad.copy_to_host()[0])
    one = cuda.cross_entropy_backward(dev[0], 6, 4, lse, dev[1], dev[2], -100, 0.1,
                                      buf(np.array([0.25])), buf(np.array([0.5])))
    full = cuda.cross_entropy_backward(dev[0], 6, 4, lse, dev[1], dev[2], -100, 0.1,
                                       buf(np.full(6, 0.25)), buf(np.full(6, 0.5)))
    np.testing.assert_array_equal(one.copy_to_host(), full.copy_to_host())


@requires_cuda
def test_cuda_target_out_of_range_raises_in_a_compiled_call():
    step = nbgrad.compile(_mean_loss_step)
    rng = np.random.default_rng(5)
    x = _on_cuda(rng.standard_normal((6, 4))).requires_grad_()
    t = rng.integers(0, 4, 6)
    step(x, _on_cuda(t))
    step(x, _on_cuda(t))
    x.grad = None
    t[2] = 4
    with pytest.raises(IndexError, match="Target 4 is out of bounds."):
        step(x, _on_cuda(t))
    assert x.grad is None
