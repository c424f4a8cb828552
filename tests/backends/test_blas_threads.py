"""Small matrix products run on one BLAS thread (nbgrad/backends/cpu/_blas_threads.py): the
thread count seen inside the product, restored after it, and unchanged results."""
import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import _blas_threads, linalg


def _threads_inside(monkeypatch, n, k, m, batch=()):
    """The BLAS thread count during an (n, k) @ (k, m) product, and the product."""
    get = _blas_threads.controls()[0]
    seen = []
    kernel = linalg._dot_batches
    monkeypatch.setattr(linalg, "_dot_batches", lambda *a: seen.append(get()) or kernel(*a))
    rng = np.random.default_rng(0)
    a = rng.standard_normal(batch + (n, k)).astype(np.float32)
    b = rng.standard_normal(batch + (k, m)).astype(np.float32)
    out = (nbgrad.tensor(a) @ nbgrad.tensor(b)).numpy()
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)
    return seen


@pytest.fixture
def blas():
    nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)          # loads the BLAS
    ctl = _blas_threads.controls()
    if not ctl:
        pytest.skip("no OpenBLAS with a thread count to set was found")
    get, set_ = ctl
    before = get()
    set_(2)
    yield get
    set_(before)


def test_a_small_product_runs_on_one_thread_and_the_count_is_restored(monkeypatch, blas):
    assert _threads_inside(monkeypatch, 32, 40, 24) == [1]
    assert blas() == 2
    assert _threads_inside(monkeypatch, 8, 16, 8, batch=(3,)) == [1]     # the batch counts too
    assert blas() == 2


def test_a_product_at_the_line_keeps_the_blas_threads(monkeypatch, blas):
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 32 * 40 * 24)
    assert _threads_inside(monkeypatch, 32, 40, 24) == [2]
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 32 * 40 * 24 + 1)
    assert _threads_inside(monkeypatch, 32, 40, 24) == [1]
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 0)              # NBGRAD_BLAS_SERIAL_BELOW=0: never
    assert _threads_inside(monkeypatch, 2, 2, 2) == [2]
    assert blas() == 2


def test_the_count_is_restored_when_the_product_fails(monkeypatch, blas):
    def fail(*args):
        raise ValueError("kernel failed")
    monkeypatch.setattr(linalg, "_dot_batches", fail)
    with pytest.raises(ValueError, match="kernel failed"):
        nbgrad.ones(4, 4) @ nbgrad.ones(4, 4)
    assert blas() == 2


def test_a_single_threaded_blas_is_left_alone(monkeypatch, blas):
    _blas_threads.controls()[1](1)
    assert _threads_inside(monkeypatch, 16, 16, 16) == [1]
    assert blas() == 1
