"""Guard against Numba's stale-cache trap: no cached kernel may use a jitted helper of another file.

Numba's on-disk cache keys a kernel by its own file only (its stamp and the
bytecode of the function).  A cached kernel that calls a helper defined in
another file keeps the helper's *old* machine code after that file is
edited (reproduced here: NUMBA_NOTES.md).  So the rule of this package is:
every jitted function a kernel calls lives in the kernel's own file.

`cross_file_jit_uses(package)` finds breaches of that rule in every module of
a package (nbgrad.backends.cpu by default) and returns them as readable
strings; tests/backends/test_stale_cache_guard.py asserts there are none.
A breach is any name a module imports from a sibling module -- `from .x
import f`, or `x.f` through an imported module -- where f is jit-visible:
a Numba dispatcher (njit), an intrinsic, or a function known to Numba's
typing registry (register_jitable, @overload stubs).  Plain Python wrappers
(e.g. strided_copy.copy called from another module's wrapper) are fine.
Plain Python: nothing here is jitted.
"""
import ast
import importlib
import pkgutil

from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic
from numba.core.typing.templates import builtin_registry


def is_jit_visible(obj):
    """True for objects Numba compiles into a caller: dispatchers, intrinsics, registered functions."""
    if isinstance(obj, (Dispatcher, _Intrinsic)):
        return True
    return any(f is obj for f, _ in builtin_registry.globals)


def _sibling(module_name, node, package):
    """The sibling module named by an ImportFrom node, or None."""
    if node.level == 1:
        base = package
    elif node.level == 0 and node.module and node.module.startswith(package + "."):
        return node.module
    elif node.level == 0 and node.module == package:
        return package
    else:
        return None
    return base + "." + node.module if node.module else base


def cross_file_jit_uses(package="nbgrad.backends.cpu"):
    """['module: uses jitted other_module.name', ...] for every breach in the package."""
    pkg = importlib.import_module(package)
    breaches = []
    for info in pkgutil.iter_modules(pkg.__path__):
        name = f"{package}.{info.name}"
        module = importlib.import_module(name)
        with open(module.__file__, encoding="utf-8") as f:
            tree = ast.parse(f.read(), module.__file__)
        module_aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _sibling(name, node, package)
                if source is None:
                    continue
                for alias in node.names:
                    if source == package:                       # from . import x
                        module_aliases[alias.asname or alias.name] = f"{package}.{alias.name}"
                        continue
                    src = importlib.import_module(source)
                    obj = getattr(src, alias.name, None)
                    if obj is not None and is_jit_visible(obj):
                        breaches.append(f"{name}: imports jitted {source}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(package + "."):
                        module_aliases[alias.asname or alias.name] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in module_aliases):
                src = importlib.import_module(module_aliases[node.value.id])
                obj = getattr(src, node.attr, None)
                if obj is not None and is_jit_visible(obj):
                    breaches.append(f"{name}: uses jitted {src.__name__}.{node.attr}")
    return breaches
