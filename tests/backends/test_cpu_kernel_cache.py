"""Factory-made kernels and Numba's on-disk cache.

Kernels made by one factory (make_binary(add), make_binary(sub), ...) share
their source and differ only in a closure variable.  These tests run two
fresh processes over an empty NUMBA_CACHE_DIR: the first compiles and saves,
the second must load each op's *own* kernel (a cache hit) and still compute
the right thing.  abs and exp2 are both made by elementwise._calling (one
source, the called function in the closure), maximum and minimum are the
shared reduction steps (nbgrad/backends/_shared/reduce.py).
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
               for op in ("add", "sub", "mul", "maximum", "minimum")}
    results.update({op: B.unary(op, va, np.dtype(np.float64)).tolist()
                    for op in ("neg", "square", "abs", "exp2")})
    hits = {}
    for op in ("add", "sub", "mul", "maximum", "minimum"):
        hits[op] = sum(E._binary_kernels[op][0].stats.cache_hits.values())
    for op in ("neg", "square", "abs", "exp2"):
        hits[op] = sum(E._unary_kernels[op][0].stats.cache_hits.values())
    print(json.dumps({"results": results, "hits": hits}))
""")

EXPECTED = {
    "add": [7.0, 10.0, 2.0], "sub": [3.0, 4.0, -6.0], "mul": [10.0, 21.0, -8.0],
    "maximum": [5.0, 7.0, 4.0], "minimum": [2.0, 3.0, -2.0], "neg": [-5.0, -7.0, 2.0],
    "square": [25.0, 49.0, 4.0], "abs": [5.0, 7.0, 2.0], "exp2": [32.0, 128.0, 0.25],
}


def run_fresh_process(cache_dir, script=SCRIPT):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("NUMBA_DISABLE_JIT", None)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=root,
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


# Kernels that call the shared helpers (nbgrad/backends/_shared) are keyed by their digest
# as well: an unchanged tree must still load them from disk in a fresh process.
SHARED_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    from nbgrad.backends import cpu as B
    from nbgrad.backends.cpu import loss_kernels as L, optim_kernels as O, reduction as R, strided_copy as C

    p = np.array([1.0, 2.0, 3.0]); g = np.array([0.5, -1.0, 2.0]); buf = np.zeros(3)
    B.sgd_step((p, 0, (3,), (1,)), (g, 0, (3,), (1,)), (buf, 0, (3,), (1,)), False, 0.1, 0.0, 0.9, 0.0,
               False, False)
    x = np.array([1.0, 2.0, 0.5, -1.0]); t = np.array([1, 0], dtype=np.int64)
    row, lse, sums = B.cross_entropy_forward(x, 2, 2, t, None, -100, 0.0)
    a = np.arange(12.0)
    # (an integer sum: float sums take cascade.py's PyTorch order, not this columns kernel)
    colsum = B.reduce("sum", (np.arange(12), 0, (3, 4), (4, 1)), (0,), np.int64)
    out = np.empty(12)
    B.copy((a, 0, (3, 4), (1, 3)), (out, 0, (3, 4), (4, 1)))
    kernels = {"sgd": O._sgd, "ce": L._ce_forward, "sum columns": R._kernels_for("sum")[1],
               "copy strided": C._COPIES[C.as_is][2]}
    print(json.dumps({"results": [p.tolist(), row.tolist(), colsum.tolist(), out.tolist()],
                      "hits": {k: sum(v.stats.cache_hits.values()) for k, v in kernels.items()},
                      "misses": {k: sum(v.stats.cache_misses.values()) for k, v in kernels.items()}}))
""")


@pytest.mark.requires_jit
def test_kernels_of_shared_helpers_load_from_the_disk_cache(tmp_path):
    import numpy as np
    cold = run_fresh_process(tmp_path, SHARED_SCRIPT)
    x = np.array([[1.0, 2.0], [0.5, -1.0]])
    lse = np.log(np.exp(x).sum(1))
    expected = [[0.95, 2.1, 2.8], (lse - x[[0, 1], [1, 0]]).tolist(), [12.0, 15.0, 18.0, 21.0],
                np.arange(12.0).reshape(4, 3).T.ravel().tolist()]
    assert np.allclose(cold["results"][0], expected[0]) and np.allclose(cold["results"][1], expected[1])
    assert cold["results"][2:] == expected[2:]
    assert all(h == 0 for h in cold["hits"].values()), cold["hits"]
    warm = run_fresh_process(tmp_path, SHARED_SCRIPT)
    assert warm["results"] == cold["results"]
    assert all(h >= 1 for h in warm["hits"].values()), warm["hits"]
    assert all(m == 0 for m in warm["misses"].values()), warm["misses"]
