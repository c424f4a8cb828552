"""The matmul kernel's tile configurations, which one a product uses, and choosing one by measurement.

A configuration is (BM, BN, BK, TM, TN): a block computes a BM x BN output tile,
stepping BK along k, each thread a TM x TN register block (linalg.py builds one
kernel per dtype and configuration).  Which one a product uses, first match wins:
  1. set_tile(name) in this process, else NBGRAD_CUDA_MATMUL_TILE=<name>;
  2. SMALL when the large choice would launch fewer blocks than the device has
     multiprocessors (small problems get small tiles);
  3. the measured choice for the dtype: tune() times every configuration on this
     device and keeps the fastest, also in <nbgrad cache dir>/cuda_matmul_tiles.json
     keyed by device name, which later processes read;
  4. DEFAULT.
Under the simulator the configurations are tiny (its syncthreads kernels are slow).
"""
import json
import math
import os
import statistics
import time
from collections import namedtuple

import numpy as np

from ..._warnings import warn_user as _warn_user
from ..._cachedir import cache_root
from ._device import SIMULATOR, device_name, sizes


class Tile(namedtuple("Tile", "name bm bn bk tm tn")):
    @property
    def threads(self):
        return (self.bm // self.tm) * (self.bn // self.tn)


if SIMULATOR:
    _TILES = [Tile("4x4x2_2x2", 4, 4, 2, 2, 2), Tile("8x4x2_4x2", 8, 4, 2, 4, 2), Tile("2x2x2_1x1", 2, 2, 2, 1, 1)]
    DEFAULT, SMALL = "4x4x2_2x2", "2x2x2_1x1"
else:
    _TILES = [Tile("64x64x16_4x4", 64, 64, 16, 4, 4), Tile("128x128x8_8x8", 128, 128, 8, 8, 8),
              Tile("128x64x16_8x4", 128, 64, 16, 8, 4), Tile("32x32x16_2x2", 32, 32, 16, 2, 2)]
    DEFAULT, SMALL = "64x64x16_4x4", "32x32x16_2x2"
TILES = {t.name: t for t in _TILES}

ENV = "NBGRAD_CUDA_MATMUL_TILE"
CACHE_FILE = "cuda_matmul_tiles.json"

_forced = [None]     # set_tile's choice
_tuned = {}          # dtype name -> tile name, measured here or read from the cache file
_loaded_from = [None]


def check_name(name):
    if name not in TILES:
        raise ValueError(f"unknown matmul tile {name!r}: choose one of {', '.join(TILES)}")
    return name


def set_tile(name):
    """Use tile `name` for every matmul of this process; None: choose automatically again."""
    _forced[0] = None if name is None else check_name(str(name))


def forced():
    """The tile chosen by set_tile or NBGRAD_CUDA_MATMUL_TILE, or None."""
    if _forced[0] is not None:
        return _forced[0]
    env = os.environ.get(ENV)
    return check_name(env) if env else None


def _cache_path():
    return cache_root() / CACHE_FILE


def _load():
    """The measured choices of this device from the cache file (once per cache file)."""
    path = _cache_path()
    if _loaded_from[0] == path:
        return
    _loaded_from[0] = path
    try:
        saved = json.loads(path.read_text()).get(device_name(), {})
    except (OSError, ValueError, AttributeError):
        return
    for dtype_name, name in saved.items():
        if name in TILES:
            _tuned.setdefault(dtype_name, name)


def _save(dtype_name, name):
    path = _cache_path()
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data.setdefault(device_name(), {})[dtype_name] = name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError as exc:   # a read-only cache dir: the choice still holds in this process
        _warn_user(f"nbgrad: could not save the measured matmul tile to {path}: {exc}", RuntimeWarning)


def large_choice(dtype):
    """The tile of a large matmul of this dtype: forced, else measured, else DEFAULT."""
    f = forced()
    if f is not None:
        return f
    _load()
    return _tuned.get(np.dtype(dtype).name, DEFAULT)


def choose(n, m, batch, dtype):
    """The Tile for a (batch of) n x k @ k x m product."""
    f = forced()
    if f is not None:
        return TILES[f]
    tile = TILES[large_choice(dtype)]
    if batch * math.ceil(n / tile.bm) * math.ceil(m / tile.bn) < sizes().sm_count:
        return TILES[SMALL]
    return tile


def forget():
    """Drop this process's measured choices and set_tile's choice (the cache file stays)."""
    _forced[0] = None
    _tuned.clear()
    _loaded_from[0] = None


def tune(n=1024, dtype=np.float32, reps=3, tiles=None, budget_s=None, persist=True):
    """Time an n x n @ n x n product of dtype with every tile (or those named), median of reps
    runs after one warm-up run (which compiles); keep the fastest as the dtype's choice, here and
    (persist) in the cache file.  budget_s: stop starting new configurations once that many seconds have
    passed (the ones not timed are missing from the result).  Returns {tile name: seconds}."""
    from numba import cuda
    from .linalg import matmul_with_tile
    from ._device import synchronize, to_device
    dt = np.dtype(dtype)
    names = [check_name(t) for t in (tiles or TILES)]
    rng = np.random.default_rng(0)
    if dt.kind == "f":
        a_host, b_host = (rng.standard_normal((n, n)).astype(dt) for _ in range(2))
    else:
        a_host, b_host = (rng.integers(-3, 4, (n, n)).astype(dt) for _ in range(2))
    views = [(to_device(h.ravel()), 0, (n, n), (n, 1)) for h in (a_host, b_host)]
    start_all = time.perf_counter()
    results = {}
    for name in names:
        if budget_s is not None and results and time.perf_counter() - start_all > budget_s:
            break

        def run():
            return matmul_with_tile(views[0], views[1], dt, TILES[name])
        run()
        synchronize()
        times = []
        for _ in range(max(1, int(reps))):
            if SIMULATOR:  # the simulator's events record no time
                t0 = time.perf_counter()
                run()
                times.append(time.perf_counter() - t0)
                continue
            start, stop = cuda.event(timing=True), cuda.event(timing=True)  # pragma: no cover - needs a GPU
            start.record()
            run()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        results[name] = statistics.median(times)
    best = min(results, key=results.get)
    _load()
    _tuned[dt.name] = best
    if persist:
        _save(dt.name, best)
    return results
