"""ONE NAME, ONE BODY (nbgrad/backends/_shared/__init__.py): kernels a factory makes for
different ops or dtypes compile to functions of different names, in every process.

Numba emits a kernel's callees as linkonce_odr functions named by qualname, a counter of the
compiling process and the argument types; a process that loads two cached libraries defining
one name binds every call to the first.  Before the rule, make_binary's `contiguous` of every
op had one qualname, so did every native entry point: two processes compiling the entry
points of sub and of mul gave them the same name, and a third that loaded both computed
x * y as x - y.  The last test replays that."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from nbgrad.backends.cpu import elementwise as E
from nbgrad.backends.cpu import reduction as R

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.requires_jit


def test_factory_kernels_have_one_name_per_body():
    names = [k.py_func.__qualname__ for op in sorted(E.BINARY_OPS) for k in E._binary_kernels[op]]
    names += [k.py_func.__qualname__ for op in sorted(E.UNARY_OPS) for k in E._unary_kernels[op]]
    names += [R._kernels_for(op)[0].py_func.__qualname__ for op in ("sum", "mean", "max", "min", "prod")]
    assert len(set(names)) == len(names)


def test_names_are_the_same_in_every_process():
    # (a name that changed from process to process would miss the disk cache every time)
    code = "from nbgrad.backends.cpu import elementwise as E; print(E._binary_kernels['mul'][0].py_func.__qualname__)"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONPATH=ROOT, PYTHONHASHSEED=str(seed))).stdout
            for seed in (1, 2)}
    assert len(runs) == 1 and "__v" in runs.pop()


COMPILE = """
import sys, numpy as np
from nbgrad.backends.cpu import elementwise as E
op = sys.argv[1]
E._native_binary(E._binary_kernels[op][0].py_func, 1, 1, np.float32, np.float32, np.float32)
"""

RUN = """
import ctypes, json, numpy as np
from nbgrad.backends.cpu import elementwise as E
a = np.arange(1, 9, dtype=np.float32); b = np.full(8, 3, np.float32)
out = {}
for op in ("sub", "mul"):                      # both entry points from the disk cache, sub's first
    address = E._native_binary(E._binary_kernels[op][0].py_func, 1, 1, np.float32, np.float32, np.float32)
    o = np.zeros(8, np.float32)
    block = np.array([a.ctypes.data, b.ctypes.data, o.ctypes.data], np.int64)
    ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(address)(block.ctypes.data, 0, 8)
    out[op] = o.tolist()
print(json.dumps(out))
"""


def test_entry_points_compiled_in_two_processes_keep_their_own_code(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    for op in ("sub", "mul"):                  # each compiled alone in a fresh process: the same counters
        subprocess.run([sys.executable, "-c", COMPILE, op], env=env, check=True, timeout=300)
    got = json.loads(subprocess.run([sys.executable, "-c", RUN], env=env, check=True, capture_output=True,
                                    text=True, timeout=300).stdout)
    a = np.arange(1, 9, dtype=np.float32)
    assert got == {"sub": (a - 3).tolist(), "mul": (a * 3).tolist()}
