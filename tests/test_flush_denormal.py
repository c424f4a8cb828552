"""nbgrad.set_flush_denormal: PyTorch's torch.set_flush_denormal (SSE's flush-to-zero and
denormals-are-zero on the calling thread's register), its argument rule and its effect on
the CPU kernels, Python floats included, until it is turned off again."""
import platform
import threading

import numpy as np
import pytest

import nbgrad

X86 = platform.machine().lower() in ("x86_64", "amd64")


@pytest.fixture
def flushing():
    try:
        yield nbgrad.set_flush_denormal(True)
    finally:
        nbgrad.set_flush_denormal(False)


@pytest.mark.parametrize("mode", [1, 0, None, 1.0, "yes", np.bool_(True)])
def test_mode_must_be_a_bool(mode):
    with pytest.raises(RuntimeError, match="flush_denormal expects a bool, but got"):
        nbgrad.set_flush_denormal(mode)


def test_without_it_denormals_are_ieee():
    x = nbgrad.tensor([1e-310, 3e-320], dtype=nbgrad.float64)
    np.testing.assert_array_equal((x * 1.0).numpy(), [1e-310, 3e-320])
    y = nbgrad.tensor([1e-40], dtype=nbgrad.float32)
    assert (y * 1.0).numpy()[0] == np.float32(1e-40)


@pytest.mark.skipif(not X86, reason="SSE's MXCSR modes")
def test_flushed_results_and_inputs_are_zero(flushing):
    assert flushing is True
    x = nbgrad.tensor([1e-310, 1.0, -2e-309], dtype=nbgrad.float64)
    np.testing.assert_array_equal((x * 1.0).numpy(), [0.0, 1.0, -0.0])
    assert np.signbit((x * 1.0).numpy()[2])
    y = nbgrad.tensor([1e-40, 2.0], dtype=nbgrad.float32)
    np.testing.assert_array_equal((y + 0.0).numpy(), [0.0, 2.0])
    # a result that would be denormal becomes zero: 1e-30 * 1e-10 in float32
    np.testing.assert_array_equal((nbgrad.tensor([1e-30]) * 1e-10).numpy(), [0.0])
    # a gradient that decays through products
    w = nbgrad.tensor([0.5], requires_grad=True)
    y = w
    for _ in range(160):
        y = y * 0.5
    y.sum().backward()
    assert w.grad.item() == 0.0          # 0.5**160 is below float32's normals
    assert 2.5e-320 * 1.0 == 0.0         # the thread's Python floats too, as in PyTorch


@pytest.mark.skipif(not X86, reason="SSE's MXCSR modes")
def test_turning_it_off_restores_ieee_and_other_threads_keep_theirs(flushing):
    seen = []
    t = threading.Thread(target=lambda: seen.append((nbgrad.tensor([1e-310], dtype=nbgrad.float64) * 1.0).item()))
    t.start()
    t.join()
    assert seen == [1e-310]              # a thread started before or after: its own register
    assert nbgrad.set_flush_denormal(False) is True
    assert (nbgrad.tensor([1e-310], dtype=nbgrad.float64) * 1.0).item() == 1e-310
    w = nbgrad.tensor([0.5], requires_grad=True)
    y = w
    for _ in range(130):
        y = y * 0.5
    y.sum().backward()
    assert w.grad.item() == np.float32(0.5 ** 130) and w.grad.item() > 0
