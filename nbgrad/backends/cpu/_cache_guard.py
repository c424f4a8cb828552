"""Guard of the cache rule (nbgrad/backends/_shared/__init__.py): no cached kernel can run a stale helper.

Numba's on-disk cache keys a kernel by its own file only, so a cached kernel
that calls a jitted helper of another file keeps the helper's old machine code
after that file is edited (docs/ARCHITECTURE.md, "The on-disk kernel cache").  The rule of this package:
  1. a kernel calls jitted helpers only of its own file or of the shared
     package nbgrad.backends._shared;
  2. a module whose kernels call shared helpers makes its cached kernels with
     _shared.cpu_kernel (or, on CUDA, _device.jit): their cache key carries the
     digest of the shared sources, so an edited helper means a fresh compile.

`cache_rule_breaches(package)` finds breaches of both in every module of a
package and returns them as readable strings; tests/backends/test_stale_cache_guard.py
asserts there are none.  A use of a helper is any name a module imports from
another module of nbgrad -- `from .x import f`, or `x.f` through an imported
module -- where f is jit-visible: a Numba dispatcher (njit), an intrinsic, or a
function known to Numba's typing registry (register_jitable, @overload stubs).
Plain Python wrappers (e.g. strided_copy.copy called from another module's
wrapper) are fine.  Plain Python: nothing here is jitted.
"""
import ast
import importlib
import importlib.util
import pkgutil

from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic
from numba.core.typing.templates import builtin_registry

from .._shared import is_digest_keyed

SHARED = "nbgrad.backends._shared"


def is_jit_visible(obj):
    """True for objects Numba compiles into a caller: dispatchers, intrinsics, registered functions."""
    if isinstance(obj, (Dispatcher, _Intrinsic)):
        return True
    return any(f is obj for f, _ in builtin_registry.globals)


def _imported_module(node, module_name, root):
    """The module named by an ImportFrom node (relative ones resolved), if it lies under root."""
    if node.level:
        base = module_name.rsplit(".", 1)[0]
        name = importlib.util.resolve_name("." * node.level + (node.module or ""), base)
    else:
        name = node.module or ""
    return name if name == root or name.startswith(root + ".") else None


def _is_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _jit_uses(module_name, tree, root):
    """[(source module, name)] of the jit-visible objects a module takes from other modules under root."""
    uses = []
    module_aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _imported_module(node, module_name, root)
            if source is None:
                continue
            for alias in node.names:
                if _is_module(f"{source}.{alias.name}"):        # from . import x
                    module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    continue
                obj = getattr(importlib.import_module(source), alias.name, None)
                if obj is not None and is_jit_visible(obj):
                    uses.append((source, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(root + ".") and alias.asname:
                    module_aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases):
            src = importlib.import_module(module_aliases[node.value.id])
            obj = getattr(src, node.attr, None)
            if obj is not None and is_jit_visible(obj):
                uses.append((src.__name__, node.attr))
    return uses


def _direct_jit_calls(tree):
    """Line numbers where a module calls numba's njit / jit itself (device functions aside)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            # njit(...), numba.jit(...), cuda.jit(...), cfunc(...); a bare jit(...) in the CUDA files
            # is _device.jit
            direct = (isinstance(f, ast.Name) and f.id in ("njit", "cfunc")) or (
                isinstance(f, ast.Attribute) and f.attr in ("njit", "jit", "cfunc"))
            if direct and not any(k.arg == "device" for k in node.keywords):
                lines.append(node.lineno)
    return lines


def cache_rule_breaches(package="nbgrad.backends.cpu", shared=SHARED, root="nbgrad"):
    """['module: what breaks the rule', ...] for every module of the package."""
    pkg = importlib.import_module(package)
    breaches = []
    for info in pkgutil.iter_modules(pkg.__path__):
        name = f"{package}.{info.name}"
        module = importlib.import_module(name)
        with open(module.__file__, encoding="utf-8") as f:
            tree = ast.parse(f.read(), module.__file__)
        uses_shared = False
        for source, attr in _jit_uses(name, tree, root):
            if source == shared or source.startswith(shared + "."):
                uses_shared = True
            elif source != name:
                breaches.append(f"{name}: uses jitted {source}.{attr} (only its own file or {shared} may serve)")
        if not uses_shared:
            continue
        for line in _direct_jit_calls(tree):
            breaches.append(f"{name}:{line}: makes a kernel with numba's jit itself, not keyed by the helpers' "
                            f"digest (use {shared}.cpu_kernel or cpu_cfunc)")
        for attr, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj._cache.__class__.__name__ != "NullCache" \
                    and not is_digest_keyed(obj):
                breaches.append(f"{name}.{attr}: a cached kernel not keyed by the helpers' digest")
    return sorted(set(breaches))
