"""nll_loss while nbgrad.compile captures (nbgrad/ops/loss.py, _captured_nll_loss): the backend's
capture form (nll_stats) keeps the sums on the device and the loss and the gradient's scale are
the eager path's operations as Tensor ops on them.  F.nll_loss of log_softmax, PyTorch's own
MNIST example, raised CompileError before (its kernel read the sums into Python).  Compiled
calls give the eager call's values and gradients bit for bit, also when the sums change from
call to call; a backend or dtype without the form composes the loss (within rounding)."""
import os

import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.backends import get_backend
from nbgrad.ops import _graph

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="generated njit code")
uses_the_capture_form = pytest.mark.skipif(not _graph.ACCELERATIONS_ON, reason="NBGRAD_FUSED=0: no fused kernels")

F = nn.functional


def _inputs(rng, shape, dtype, ignored):
    c = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape).astype(dtype)
    t = rng.integers(0, c, (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ())
    if ignored and t.ndim:
        t.reshape(-1)[:ignored] = 1         # (ignore_index=1 below: inside [0, c))
    return x, t


def _run(fn, x, t, g):
    xt = nbgrad.from_numpy(x.copy()).requires_grad_()
    loss = fn(xt, nbgrad.from_numpy(t.copy()), nbgrad.from_numpy(g.copy()))
    return loss.detach().numpy().copy(), xt.grad.numpy().copy(), loss


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(8, 5), (5,), (4, 3, 2), (2, 3, 2, 2)])
def test_compiled_nll_loss_has_the_eager_bits(dtype, reduction, weighted, shape):
    rng = np.random.default_rng(len(shape) * 10 + int(weighted))
    c = shape[1] if len(shape) > 1 else shape[0]
    weight = nbgrad.from_numpy(rng.uniform(0.5, 2.0, c).astype(dtype)) if weighted else None

    def f(x, t, g):
        loss = F.nll_loss(F.log_softmax(x, 1 if x.dim() > 1 else 0), t, weight=weight, reduction=reduction,
                          ignore_index=1)
        loss.backward(g)
        return loss

    step = nbgrad.compile(f)
    for ignored in (0, 2, 1, 3):        # the mean's denominator differs from the capture's
        x, t = _inputs(rng, shape, dtype, ignored)
        g = rng.uniform(0.5, 1.5, tuple(t.shape) if reduction == "none" else ()).astype(dtype)
        le, ge, eager = _run(f, x, t, g)
        lc, gc, compiled = _run(step, x, t, g)
        exact = _graph.ACCELERATIONS_ON
        if exact:
            np.testing.assert_array_equal(lc, le)
            np.testing.assert_array_equal(gc, ge)
        else:               # (NBGRAD_FUSED=0: the composed capture)
            tol = 1e-5 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(lc, le, rtol=tol, atol=tol)
            np.testing.assert_allclose(gc, ge, rtol=tol, atol=tol)
        assert compiled.grad_fn.name() == eager.grad_fn.name()
    assert step.captures == 1


@uses_the_capture_form
def test_the_capture_form_is_in_the_graph_and_a_bad_target_still_raises():
    def f(x, t):
        loss = F.nll_loss(x, t)
        loss.backward()
        return loss

    step = nbgrad.compile(f)
    x = nbgrad.randn(6, 4, requires_grad=True)
    t = nbgrad.tensor([0, 1, 2, 3, 0, 1])
    step(x, t)
    names = [n.name for n in step.graph]
    assert any("nll_stats" in n for n in names) and any("nll_backward" in n for n in names), names
    step(x, t)
    x.grad = None
    bad = t.clone()
    bad[4] = 4
    with pytest.raises(IndexError, match="^Target 4 is out of bounds.$"):
        step(x, bad)
    assert x.grad is None
    every_row_ignored = nbgrad.full((6,), -100)
    le = f(x.detach().requires_grad_(), every_row_ignored)
    lc = step(x, every_row_ignored)
    assert np.isnan(lc.item()) and np.isnan(le.item()) and not x.grad.any().item()


def test_a_half_input_composes_the_loss_within_rounding():
    def f(x, t):
        loss = F.nll_loss(x, t)
        loss.backward()
        return loss

    step = nbgrad.compile(f)
    rng = np.random.default_rng(5)
    for _ in range(2):
        x = rng.standard_normal((6, 4)).astype(np.float16)
        t = rng.integers(0, 4, 6)
        le, ge, _ = _run(lambda a, b, g: f(a, b), x, t, np.ones((), np.float16))
        lc, gc, _ = _run(lambda a, b, g: step(a, b), x, t, np.ones((), np.float16))
        np.testing.assert_allclose(lc.astype(np.float32), le.astype(np.float32), rtol=2e-3)
        np.testing.assert_allclose(gc.astype(np.float32), ge.astype(np.float32), rtol=2e-3, atol=1e-4)


def test_the_capture_form_is_nll_forward_without_host_reads():
    cpu = get_backend("cpu")
    rng = np.random.default_rng(3)
    x = rng.standard_normal(24).astype(np.float32)
    target = np.array([0, 3, -100, 1, 2, 5], np.int64)
    weight = rng.uniform(0.5, 2, 4).astype(np.float32)
    row_loss, sums, bad = cpu.nll_stats(x, 6, 4, target, weight, -100)
    assert bad.dtype == np.bool_ and bad.shape == (1,) and bad[0]      # 5 is out of [0, 4)
    target[5] = 3
    row_loss, sums, bad = cpu.nll_stats(x, 6, 4, target, weight, -100)
    ref_rows, ref_sums = cpu.nll_forward(x, 6, 4, target, weight, -100)
    assert not bad[0]
    np.testing.assert_array_equal(row_loss, ref_rows)
    assert sums.dtype == np.float64 and tuple(sums) == ref_sums


from tests.nn._cuda import requires_cuda  # noqa: E402


@requires_cuda
def test_cuda_capture_form():
    cuda = get_backend("cuda")
    rng = np.random.default_rng(4)
    x = rng.standard_normal(24)
    target = np.array([0, 3, -100, 1, 2, 5], np.int64)
    weight = rng.uniform(0.5, 2, 4)

    def buf(a):
        return nbgrad.tensor(a, device="cuda")._storage.buffer

    dev = [buf(a) for a in (x, target, weight)]
    _, _, bad = cuda.nll_stats(dev[0], 6, 4, dev[1], dev[2], -100)
    assert bool(bad.copy_to_host()[0])
    target[5] = 3
    dev[1] = buf(target)
    row_loss, sums, bad = cuda.nll_stats(dev[0], 6, 4, dev[1], dev[2], -100)
    ref_rows, ref_sums = cuda.nll_forward(dev[0], 6, 4, dev[1], dev[2], -100)
    assert not bool(bad.copy_to_host()[0])
    np.testing.assert_array_equal(row_loss.copy_to_host(), ref_rows.copy_to_host())
    np.testing.assert_allclose(sums.copy_to_host(), ref_sums, rtol=1e-15)
    _, empty_sums, empty_bad = cuda.nll_stats(dev[0], 0, 4, dev[1], dev[2], -100)
    assert tuple(empty_sums.copy_to_host()) == (0.0, 0.0) and not bool(empty_bad.copy_to_host()[0])
