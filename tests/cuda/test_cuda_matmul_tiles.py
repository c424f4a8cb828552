"""The CUDA matmul's tile configurations: every one against NumPy, choosing one (setter, env var,
shape rule) and measuring one (nbgrad.cuda.tune_matmul, persisted per device).  Tiny shapes."""
import json

import numpy as np
import pytest

import nbgrad
from cuda_available import CUDA_SKIP_REASON, requires_cuda

pytestmark = requires_cuda
RNG = np.random.default_rng(16)
TILE_NAMES = nbgrad.cuda.matmul_tiles() if CUDA_SKIP_REASON is None else []


def host(x):
    return x.cpu().numpy()


@pytest.fixture(autouse=True)
def fresh_choice(monkeypatch, tmp_path):
    """No choice carried in from the environment, the user's cache or another test."""
    from nbgrad.backends.cuda import matmul_tiles
    monkeypatch.setenv("NBGRAD_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NBGRAD_CUDA_MATMUL_TILE", raising=False)
    matmul_tiles.forget()
    yield matmul_tiles
    matmul_tiles.forget()


def launched():
    from nbgrad.backends.cuda import linalg
    return dict(linalg.LAUNCHES)


def ran(before):
    after = launched()
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


@pytest.mark.parametrize("name", TILE_NAMES)
def test_every_tile_matches_numpy(name):
    nbgrad.cuda.set_matmul_tile(name)
    assert nbgrad.cuda.get_matmul_tile() == name
    before = launched()
    for dtype, tol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        a = RNG.normal(size=(5, 7)).astype(dtype)      # n, k, m: not multiples of any tile
        b = RNG.normal(size=(7, 3)).astype(dtype)
        x, y = nbgrad.tensor(a, device="cuda"), nbgrad.tensor(b, device="cuda")
        np.testing.assert_allclose(host(x @ y), a @ b, rtol=tol, atol=tol)
        np.testing.assert_allclose(host(y.t() @ x.t()), b.T @ a.T, rtol=tol, atol=tol)   # transposed operands
        np.testing.assert_allclose(host(x[:, ::2] @ y[::2]), a[:, ::2] @ b[::2], rtol=tol, atol=tol)
    ai = RNG.integers(-5, 6, (3, 5))
    bi = RNG.integers(-5, 6, (5, 4))
    np.testing.assert_array_equal(host(nbgrad.tensor(ai, device="cuda") @ nbgrad.tensor(bi, device="cuda")), ai @ bi)
    a = RNG.normal(size=(2, 1, 3, 4))
    b = RNG.normal(size=(3, 4, 5))
    np.testing.assert_allclose(host(nbgrad.tensor(a, device="cuda") @ nbgrad.tensor(b, device="cuda")), a @ b,
                               rtol=1e-12)
    assert ran(before) == {name: 8}


def test_gradients_through_a_set_tile():
    nbgrad.cuda.set_matmul_tile(TILE_NAMES[-1])
    a, b = RNG.normal(size=(3, 5)), RNG.normal(size=(5, 2))
    x = nbgrad.tensor(a, device="cuda", requires_grad=True)
    y = nbgrad.tensor(b, device="cuda", requires_grad=True)
    (x @ y).sum().backward()
    np.testing.assert_allclose(host(x.grad), np.ones((3, 2)) @ b.T, rtol=1e-12)
    np.testing.assert_allclose(host(y.grad), a.T @ np.ones((3, 2)), rtol=1e-12)


def test_env_var_selects_and_setter_overrides(monkeypatch, fresh_choice):
    other = [n for n in TILE_NAMES if n != fresh_choice.DEFAULT][0]
    assert nbgrad.cuda.get_matmul_tile() == fresh_choice.DEFAULT
    monkeypatch.setenv("NBGRAD_CUDA_MATMUL_TILE", other)
    assert nbgrad.cuda.get_matmul_tile() == other
    before = launched()
    x = nbgrad.ones(3, 3, device="cuda")
    host(x @ x)
    assert ran(before) == {other: 1}
    nbgrad.cuda.set_matmul_tile(fresh_choice.DEFAULT)
    assert nbgrad.cuda.get_matmul_tile() == fresh_choice.DEFAULT
    nbgrad.cuda.set_matmul_tile(None)
    assert nbgrad.cuda.get_matmul_tile() == other


def test_bad_tile_name_raises_naming_the_choices(monkeypatch):
    with pytest.raises(ValueError, match="unknown matmul tile 'huge': choose one of " + ", ".join(TILE_NAMES)):
        nbgrad.cuda.set_matmul_tile("huge")
    assert nbgrad.cuda.get_matmul_tile() == nbgrad.cuda.get_matmul_tile(nbgrad.float64)
    monkeypatch.setenv("NBGRAD_CUDA_MATMUL_TILE", "huge")
    x = nbgrad.ones(2, 2, device="cuda")
    with pytest.raises(ValueError, match="unknown matmul tile 'huge'"):
        x @ x


def test_small_problems_get_small_tiles(monkeypatch, fresh_choice):
    from nbgrad.backends.cuda import _device
    monkeypatch.setattr(_device, "_SIZES", _device.launch_sizes(sm_count=100, max_threads_per_block=1024))
    big = fresh_choice.TILES[fresh_choice.DEFAULT]
    assert fresh_choice.choose(big.bm, big.bn, 1, np.float32).name == fresh_choice.SMALL        # 1 block < 100 SMs
    assert fresh_choice.choose(big.bm * 10, big.bn * 10, 1, np.float32).name == fresh_choice.DEFAULT  # 100 blocks
    assert fresh_choice.choose(big.bm, big.bn, 100, np.float32).name == fresh_choice.DEFAULT         # batched
    fresh_choice.set_tile(fresh_choice.DEFAULT)
    assert fresh_choice.choose(1, 1, 1, np.float32).name == fresh_choice.DEFAULT                    # set wins


def test_tune_times_every_tile_and_persists_the_choice(tmp_path, monkeypatch, fresh_choice):
    from nbgrad.backends.cuda import _device
    # one multiprocessor: no product is too small for the measured tile (the shape rule stays out)
    monkeypatch.setattr(_device, "_SIZES", _device.launch_sizes(sm_count=1, max_threads_per_block=1024))
    times = nbgrad.cuda.tune_matmul(n=6, dtype=nbgrad.float64, reps=1)
    assert sorted(times) == sorted(TILE_NAMES)
    assert all(t > 0 for t in times.values())
    best = min(times, key=times.get)
    assert nbgrad.cuda.get_matmul_tile(nbgrad.float64) == best
    assert nbgrad.cuda.get_matmul_tile(nbgrad.float32) == fresh_choice.DEFAULT     # per dtype
    saved = json.loads((tmp_path / "cuda_matmul_tiles.json").read_text())
    assert saved == {nbgrad.cuda.get_device_name(): {"float64": best}}
    before = launched()
    x = nbgrad.ones(4, 4, device="cuda", dtype=nbgrad.float64)
    host(x @ x)
    assert ran(before) == {best: 1}
    fresh_choice.forget()                              # as a later process would start
    assert nbgrad.cuda.get_matmul_tile(nbgrad.float64) == best


def test_tune_within_a_budget_times_at_least_one_tile(tmp_path):
    times = nbgrad.cuda.tune_matmul(n=4, dtype=nbgrad.float32, reps=1, budget_s=0, persist=False)
    assert list(times) == TILE_NAMES[:1]
    assert nbgrad.cuda.get_matmul_tile(nbgrad.float32) == TILE_NAMES[0]
    assert not (tmp_path / "cuda_matmul_tiles.json").exists()


def test_an_unwritable_cache_dir_warns_and_keeps_the_choice(tmp_path, monkeypatch):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    monkeypatch.setenv("NBGRAD_CACHE_DIR", str(blocker / "sub"))
    with pytest.warns(RuntimeWarning, match="could not save the measured matmul tile"):
        times = nbgrad.cuda.tune_matmul(n=4, dtype=nbgrad.float64, reps=1, budget_s=0)
    assert nbgrad.cuda.get_matmul_tile(nbgrad.float64) == list(times)[0]
