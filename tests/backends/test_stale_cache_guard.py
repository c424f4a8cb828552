"""The cache rule (nbgrad/backends/_shared): shared helpers, and never a stale one from the disk cache.

The first tests are the guard itself over both backends; then the guard is
shown to catch each way of breaking the rule, on throwaway packages; last, a
helper is edited between fresh processes sharing one NUMBA_CACHE_DIR: the
kernel made by _shared.cpu_kernel recompiles and gives the new result, while a
plain njit(cache=True) kernel beside it keeps the old machine code (the trap
the rule exists for, so the test can tell the two apart).
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from nbgrad.backends.cpu._cache_guard import cache_rule_breaches

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Under NUMBA_DISABLE_JIT=1 njit returns the plain function: there is no cache to go stale,
# and the guard cannot tell a jitted helper from a Python one.
pytestmark = pytest.mark.requires_jit


def test_no_cpu_kernel_can_run_a_stale_helper():
    assert cache_rule_breaches("nbgrad.backends.cpu") == []


def test_no_cuda_kernel_can_run_a_stale_helper():
    pytest.importorskip("numba_cuda")
    assert cache_rule_breaches("nbgrad.backends.cuda") == []


@pytest.mark.requires_jit
def test_real_kernels_that_use_shared_helpers_are_digest_keyed():
    from nbgrad.backends import _shared
    from nbgrad.backends.cpu import loss_kernels, optim_kernels
    for kernel in (optim_kernels._sgd, optim_kernels._adam, loss_kernels._ce_forward):
        assert _shared.is_digest_keyed(kernel)
        assert type(kernel._cache).helper_digest == _shared.DIGEST


HELPERS = textwrap.dedent("""
    import numpy as np
    from numba import njit
    from numba.extending import register_jitable, overload

    @register_jitable
    def helper(x):
        return x + 1

    @njit(cache=True)
    def jitted(x):
        return x * 2

    def stub(x):
        pass

    @overload(stub)
    def _stub_impl(x):
        return lambda x: x - 1

    def python_wrapper(a):
        return a.sum()
""")


@pytest.fixture
def make_package(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    created = []

    def make(name, kernels_source):
        pkg = tmp_path / name
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "helpers.py").write_text(HELPERS)
        (pkg / "shared").mkdir()
        (pkg / "shared" / "__init__.py").write_text("")
        (pkg / "shared" / "math.py").write_text(HELPERS)
        (pkg / "kernels.py").write_text(textwrap.dedent(kernels_source))
        created.append(name)
        return name
    yield make
    for name in created:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


@pytest.mark.parametrize("source, culprit", [
    ("from .helpers import helper\n", "helpers.helper"),
    ("from .helpers import jitted as j\n", "helpers.jitted"),
    ("from .helpers import stub\n", "helpers.stub"),
    ("from . import helpers\nK = lambda x: helpers.helper(x)\n", "helpers.helper"),
])
def test_guard_reports_each_kind_of_cross_file_jit_use(make_package, source, culprit):
    name = make_package(f"guard_bad_{abs(hash(source)) % 10**8}", source)
    breaches = cache_rule_breaches(name, shared=f"{name}.shared", root=name)
    assert len(breaches) == 1 and culprit in breaches[0], breaches


def test_guard_reports_a_shared_helper_behind_a_plain_njit(make_package):
    name = make_package("guard_plain_njit", """
        from numba import njit
        from .shared.math import helper

        @njit(cache=True)
        def kernel(x):
            return helper(x)
    """)
    breaches = cache_rule_breaches(name, shared=f"{name}.shared", root=name)
    assert any("numba's jit itself" in b for b in breaches), breaches
    assert any("kernels.kernel: a cached kernel not keyed" in b for b in breaches), breaches


def test_guard_allows_shared_helpers_behind_cpu_kernel_and_own_helpers(make_package):
    name = make_package("guard_good", """
        from numba.extending import register_jitable
        from nbgrad.backends._shared import cpu_kernel
        from .helpers import python_wrapper
        from .shared.math import helper

        @register_jitable
        def own(x):
            return x + 1

        @cpu_kernel()
        def kernel(x):
            return own(helper(x))
    """)
    assert cache_rule_breaches(name, shared=f"{name}.shared", root=name) == []


# --------------------------------------------------------------------------- #
# An edited helper recompiles (fresh processes, one NUMBA_CACHE_DIR)

SHARED_HELPER = """
from numba.extending import register_jitable


@register_jitable
def bump(x):
    return x + {step}
"""

KERNELS = """
import pathlib
from numba import njit
from nbgrad.backends._shared import cpu_kernel, source_digest
from .shared.helpers import bump

DIGEST = source_digest(pathlib.Path(__file__).parent / "shared")


@cpu_kernel(digest=DIGEST)
def keyed(x):
    return bump(x)


@njit(cache=True)
def plain(x):
    return bump(x)
"""

RUN = """
import json
from stalepkg import kernels
out = {"keyed": kernels.keyed(1.0), "plain": kernels.plain(1.0)}
out["hits"] = {k: sum(getattr(kernels, k).stats.cache_hits.values()) for k in ("keyed", "plain")}
print(json.dumps(out))
"""


def _run(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path / "src"), ROOT]))
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", RUN], env=env, cwd=str(tmp_path), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.requires_jit
def test_an_edited_shared_helper_recompiles_its_kernel(tmp_path):
    pkg = tmp_path / "src" / "stalepkg"
    (pkg / "shared").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "shared" / "__init__.py").write_text("")
    helper = pkg / "shared" / "helpers.py"
    helper.write_text(SHARED_HELPER.format(step=1))
    (pkg / "kernels.py").write_text(KERNELS)

    cold = _run(tmp_path)
    assert (cold["keyed"], cold["plain"], cold["hits"]) == (2.0, 2.0, {"keyed": 0, "plain": 0})
    warm = _run(tmp_path)                   # unchanged sources: both load from the disk cache
    assert (warm["keyed"], warm["plain"], warm["hits"]) == (2.0, 2.0, {"keyed": 1, "plain": 1})

    helper.write_text(SHARED_HELPER.format(step=100))   # kernels.py untouched
    edited = _run(tmp_path)
    assert edited["keyed"] == 101.0 and edited["hits"]["keyed"] == 0     # recompiled, new helper
    assert edited["plain"] == 2.0 and edited["hits"]["plain"] == 1       # Numba's trap: stale code
    again = _run(tmp_path)
    assert again["keyed"] == 101.0 and again["hits"]["keyed"] == 1       # and cached again


CUDA_KEY = """
import json
import numba_cuda  # noqa: F401
from numba import cuda
from numba.core import types
from nbgrad.backends._shared import DIGEST, cached, is_digest_keyed


def kernel(a):
    a[0] = 1


class Codegen:
    def magic_tuple(self):
        return ("target",)


plain = cuda.jit(cache=True)(kernel)
plain_key = plain._cache._index_key((types.int64[::1],), Codegen())
keyed = cached(cuda.jit(cache=True)(kernel))
key = keyed._cache._index_key((types.int64[::1],), Codegen())
print(json.dumps({"keyed": is_digest_keyed(keyed), "plain": is_digest_keyed(plain),
                  "extends": list(map(str, key[:len(plain_key)])) == list(map(str, plain_key)),
                  "last": list(key[-1]), "digest": DIGEST}))
"""


def test_cuda_kernels_with_a_disk_cache_are_keyed_by_the_digest(tmp_path):
    """NBGRAD_CUDA_CACHE=1 on a GPU: _device.jit's kernels get the same digest key (checked
    without a GPU or the simulator: numba-cuda builds the cache when the kernel is decorated)."""
    pytest.importorskip("numba_cuda")
    script = tmp_path / "cuda_key.py"        # a kernel with a source file, which caching needs
    script.write_text(CUDA_KEY)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_JIT")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, str(script)], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["keyed"] and not out["plain"] and out["extends"]
    assert out["last"] == ["nbgrad helpers", out["digest"]]
