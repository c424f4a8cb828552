"""Factory-made kernels and Numba's on-disk cache.

Kernels made by one factory (make_binary(add), make_binary(sub), ...) share
their source and differ only in a closure variable.  These tests run two
fresh processes over an empty NUMBA_CACHE_DIR: the first compiles and saves,
the second must load each op's *own* kernel (a cache hit) and still compute
the right thing.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    from nbgrad.backends import cpu as B
    from nbgrad.backends.cpu import elementwise as E

    a = np.array([5.0, 7.0, -2.0], dtype=np.float64)
    b = np.array([2.0, 3.0, 4.0], dtype=np.float64)
    va, vb = (a, 0, (3,), (1,)), (b, 0, (3,), (1,))
    results = {op: B.binary(op, va, vb, (3,), np.dtype(np.float64)).tolist()
               for op in ("add", "sub", "mul", "maximum")}
    results.update({op: B.unary(op, va, np.dtype(np.float64)).tolist()
                    for op in ("neg", "square")})
    hits = {}
    for op in ("add", "sub", "mul", "maximum"):
        hits[op] = sum(E._binary_kernels[op][0].stats.cache_hits.values())
    for op in ("neg", "square"):
        hits[op] = sum(E._unary_kernels[op][0].stats.cache_hits.values())
    print(json.dumps({"results": results, "hits": hits}))
""")

EXPECTED = {
    "add": [7.0, 10.0, 2.0], "sub": [3.0, 4.0, -6.0], "mul": [10.0, 21.0, -8.0],
    "maximum": [5.0, 7.0, 4.0], "neg": [-5.0, -7.0, 2.0], "square": [25.0, 49.0, 4.0],
}


def run_fresh_process(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("NUMBA_DISABLE_JIT", None)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.requires_jit
def test_same_factory_ops_get_their_own_cached_kernels(tmp_path):
    cold = run_fresh_process(tmp_path)
    assert cold["results"] == EXPECTED
    assert all(h == 0 for h in cold["hits"].values()), cold["hits"]
    warm = run_fresh_process(tmp_path)
    assert warm["results"] == EXPECTED
    assert all(h >= 1 for h in warm["hits"].values()), warm["hits"]
