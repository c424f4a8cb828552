"""The stale-cache guard: no cached CPU kernel may call a jitted helper from another file.

See nbgrad/backends/cpu/_cache_guard.py for why (Numba's cache key hashes
only the kernel's own file).  The first test is the guard itself; the others
show it catches each way of breaking the rule, on a throwaway package.
"""
import sys
import textwrap

import pytest

from nbgrad.backends.cpu._cache_guard import cross_file_jit_uses

# Under NUMBA_DISABLE_JIT=1 njit returns the plain function: there is no cache to go stale,
# and the guard cannot tell a jitted helper from a Python one.
pytestmark = pytest.mark.requires_jit


def test_no_cpu_kernel_uses_a_jitted_helper_from_another_file():
    assert cross_file_jit_uses("nbgrad.backends.cpu") == []


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
    breaches = cross_file_jit_uses(name)
    assert len(breaches) == 1 and culprit in breaches[0], breaches


def test_guard_allows_python_wrappers_and_own_helpers(make_package):
    name = make_package("guard_good", """
        from numba import njit
        from numba.extending import register_jitable
        from .helpers import python_wrapper

        @register_jitable
        def own(x):
            return x + 1

        @njit(cache=True)
        def kernel(x):
            return own(x)
    """)
    assert cross_file_jit_uses(name) == []
