"""The on-disk CUDA kernel cache: on by default, off with NBGRAD_CUDA_CACHE=0, module-level kernels only.

Checked without a GPU: tests/cuda/cuda_kernel_cache.py imports the backend in a
process without the simulator (NBGRAD_CUDA_COMPILE_ONLY=1), where numba-cuda
builds each kernel's disk cache at decoration, and reports every kernel's
cache index key.  The keys must carry the shared helpers' digest (the cache
rule, tests/backends/test_stale_cache_guard.py) and be the same in two fresh
processes, so a second process finds the first one's machine code.
"""
import json
import os
import subprocess
import sys

import pytest

from nbgrad.backends._shared import DIGEST

pytestmark = pytest.mark.requires_jit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _report(tmp_path, **env_extra):
    pytest.importorskip("numba_cuda")
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_JIT", "NBGRAD_CUDA_CACHE")}
    env.update(NBGRAD_CUDA_COMPILE_ONLY="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT, **env_extra)
    proc = subprocess.run([sys.executable, os.path.join(HERE, "cuda_kernel_cache.py")], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_module_level_kernels_cache_on_disk_keyed_by_the_helpers_digest(tmp_path):
    out = _report(tmp_path)
    kernels, closures = out["kernels"], out["closures"]
    assert out["breaches"] == []                       # the guard, with real caches in place
    assert closures["factory"] is False                # a factory's kernel stays uncached
    assert closures and not any(closures.values())
    cached = {k: v for k, v in kernels.items() if v is not None}
    assert set(kernels) - set(cached) == set(closures) - {"factory"}
    assert len(cached) >= 40                           # every module-level kernel
    for key in cached.values():
        assert key.endswith(f"('nbgrad helpers', '{DIGEST}'))")
    assert _report(tmp_path)["kernels"] == kernels     # a fresh process computes the same keys


def test_nbgrad_cuda_cache_0_turns_the_disk_cache_off(tmp_path):
    out = _report(tmp_path, NBGRAD_CUDA_CACHE="0")
    assert out["kernels"] and all(v is None for v in out["kernels"].values())


def test_which_kernels_are_cacheable():
    pytest.importorskip("numba_cuda")
    from nbgrad.backends.cuda._device import cacheable

    def factory(k):
        def kernel(a):
            a[0] = k
        return kernel
    namespace = {}
    exec("def generated(a):\n    a[0] = 1\n", namespace)
    assert cacheable(_module_level)
    assert not cacheable(factory(1))                   # closes over a cell
    assert not cacheable(namespace["generated"])       # no source file (fused.py's kernels)


def _module_level(a):
    a[0] = 1
