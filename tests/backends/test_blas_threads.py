"""matmul's BLAS routes (nbgrad/backends/cpu/linalg.py) and the one-thread rule for small
products (nbgrad/backends/cpu/_blas_threads.py): which BLAS ran, its thread count seen inside
the product and restored after it, and the same bits from either route."""
import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu import _blas_threads, linalg

# the kernel each route ends in, and the BLAS it calls
ROUTES = {"numpy": "_numpy_dot", "numba": "_dot_batches"}


def _watching(fn, record):
    """fn() with each route's kernel replaced by one that calls record(role) first."""
    kernels = {name: getattr(linalg, name) for name in ROUTES.values()}
    for role, name in ROUTES.items():
        setattr(linalg, name, lambda *a, _r=role, _k=kernels[name], **kw: record(_r) or _k(*a, **kw))
    try:
        return fn()
    finally:
        for name, kernel in kernels.items():
            setattr(linalg, name, kernel)


def _product(monkeypatch, n, k, m, batch=(), dtype=np.float32):
    """Run an (n, k) @ (k, m) product: {route: [thread count of that route's BLAS when it ran]}."""
    seen = {}

    def record(role):
        ctl = _blas_threads.controls(role)
        seen.setdefault(role, []).append(ctl[0]() if ctl else None)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(batch + (n, k)).astype(dtype)
    b = rng.standard_normal(batch + (k, m)).astype(dtype)
    out = _watching(lambda: (nbgrad.tensor(a) @ nbgrad.tensor(b)).numpy(), record)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)
    return seen


@pytest.fixture
def blas():
    """Both BLAS libraries at 2 threads for the test, as they were after it; skips without them."""
    nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)
    ctls = {role: _blas_threads.controls(role) for role in ROUTES}
    if not all(ctls.values()):
        pytest.skip("NumPy's and SciPy's OpenBLAS with a thread count to set were not both found")
    before = {role: get() for role, (get, _) in ctls.items()}
    for _, set_ in ctls.values():
        set_(2)
    yield {role: get for role, (get, _) in ctls.items()}
    for role, (_, set_) in ctls.items():
        set_(before[role])


def test_a_small_2d_product_runs_in_numpys_blas_on_one_thread(monkeypatch, blas):
    assert _product(monkeypatch, 32, 40, 24) == {"numpy": [1]}
    assert blas["numpy"]() == 2 and blas["numba"]() == 2


def test_a_small_batched_product_runs_in_the_kernel_on_one_thread(monkeypatch, blas):
    assert _product(monkeypatch, 8, 16, 8, batch=(3,)) == {"numba": [1]}      # the batch counts too
    assert blas["numpy"]() == 2 and blas["numba"]() == 2


def test_a_product_at_the_line_keeps_the_blas_threads(monkeypatch, blas):
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 32 * 40 * 24)
    assert _product(monkeypatch, 32, 40, 24) == {"numpy": [2]}
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 4 * 8 * 16 * 8)
    assert _product(monkeypatch, 8, 16, 8, batch=(4,)) == {"numba": [2]}
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 32 * 40 * 24 + 1)
    assert _product(monkeypatch, 32, 40, 24) == {"numpy": [1]}
    monkeypatch.setattr(_blas_threads, "SERIAL_BELOW", 0)              # NBGRAD_BLAS_SERIAL_BELOW=0: never
    assert _product(monkeypatch, 2, 2, 2) == {"numpy": [2]}
    assert blas["numpy"]() == 2 and blas["numba"]() == 2


@pytest.mark.parametrize("name", ROUTES.values())
def test_the_count_is_restored_when_the_product_fails(monkeypatch, blas, name):
    def fail(*args, **kw):
        raise ValueError("kernel failed")
    monkeypatch.setattr(linalg, name, fail)
    with pytest.raises(ValueError, match="kernel failed"):
        nbgrad.ones(4, 4) @ nbgrad.ones(4, 4)
        nbgrad.ones(2, 4, 4) @ nbgrad.ones(2, 4, 4)
    assert blas["numpy"]() == 2 and blas["numba"]() == 2


def test_a_single_threaded_blas_is_left_alone(monkeypatch, blas):
    _blas_threads.controls("numpy")[1](1)
    assert _product(monkeypatch, 16, 16, 16) == {"numpy": [1]}
    assert blas["numpy"]() == 1 and blas["numba"]() == 2


def _operand(rng, rows, cols, transposed, dtype):
    a = rng.standard_normal((cols, rows) if transposed else (rows, cols)).astype(dtype)
    return nbgrad.from_numpy(a).t() if transposed else nbgrad.from_numpy(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, k, m", [(2, 2, 2), (5, 3, 7), (10, 128, 256), (128, 256, 10), (33, 65, 17)])
def test_both_routes_give_the_same_bits(monkeypatch, n, k, m, dtype):
    rng = np.random.default_rng(n * k * m)
    for ta in (False, True):
        for tb in (False, True):
            a, b = _operand(rng, n, k, ta, dtype), _operand(rng, k, m, tb, dtype)
            assert _product_calls(monkeypatch, lambda: a @ b) == ["numpy"]
            numpy_route = (a @ b).numpy()
            monkeypatch.setattr(linalg, "_NUMPY_ROUTE", [False])
            assert _product_calls(monkeypatch, lambda: a @ b) == ["numba"]
            kernel_route = (a @ b).numpy()
            monkeypatch.setattr(linalg, "_NUMPY_ROUTE", [True])
            np.testing.assert_array_equal(numpy_route, kernel_route)


def test_a_matrix_times_its_own_transpose_stays_in_the_kernel(monkeypatch):
    # np.dot would compute it with BLAS's syrk, not gemm as every other product
    x = nbgrad.randn(6, 5)
    seen = _product_calls(monkeypatch, lambda: x @ x.t())
    assert seen == ["numba"]
    assert _product_calls(monkeypatch, lambda: x @ x.t().contiguous()) == ["numpy"]


def _product_calls(monkeypatch, fn):
    calls = []
    _watching(fn, calls.append)
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_numpy_route_has_one_thread_np_dots_bits(blas, dtype):
    # the route calls NumPy's cblas gemm itself (_team.whole_gemm): the call np.dot makes
    rng = np.random.default_rng(3)
    get, set_ = _blas_threads.controls("numpy")
    for n, k, m in [(2, 3, 2), (128, 256, 10), (10, 128, 256), (37, 91, 53)]:
        for ta in (False, True):
            for tb in (False, True):
                a, b = _operand(rng, n, k, ta, dtype), _operand(rng, k, m, tb, dtype)
                got = (a @ b).numpy()
                set_(1)
                try:
                    want = np.dot(a.numpy(), b.numpy())
                finally:
                    set_(2)
                np.testing.assert_array_equal(got, want)


def test_nan_and_inf_products_warn_nothing(recwarn):
    # PyTorch's CPU matmul warns of nothing; NumPy's np.dot would (invalid value, overflow)
    a = nbgrad.tensor([[np.inf, 1.0, 2.0], [1e30, 1e30, 0.0]], dtype=nbgrad.float32)
    b = nbgrad.tensor([[0.0, 1.0], [np.nan, 1e30], [1.0, 1.0]], dtype=nbgrad.float32)
    with np.errstate(all="raise"):
        out = (a @ b).numpy()
    assert np.isnan(out[0, 0]) and np.isinf(out[1, 1])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
