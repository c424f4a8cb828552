"""Device-neutral kernel helpers, written once and compiled for both backends, and the cache rule that makes sharing them safe.

The files of this package hold plain Python: scalar math (reduction steps,
loss terms, optimizer updates), the index walks of strided kernels and the
geometry planning around them.  A CPU kernel calls a helper as it is (each
is `register_jitable`, so Numba compiles it into the kernel); a CUDA kernel
calls `device_fn(helper)` of the same function (nbgrad/backends/cuda/_device.py);
under the CUDA simulator, or with NUMBA_DISABLE_JIT=1, they run as Python.

THE CACHE RULE.  Numba's on-disk cache keys a kernel by its own file only
(stamp and bytecode; docs/ARCHITECTURE.md, "The on-disk kernel cache"): a cached kernel
that calls a helper of another file would keep the helper's old machine code
after the helper is edited.  So every cached kernel that may call a helper of
this package is made by `cpu_kernel(...)` (CUDA: `cached(dispatcher)`,
through _device.jit), whose cache index key carries DIGEST, a hash of every
source file of this package: editing any helper changes DIGEST, every such
kernel misses its old cache entry and is compiled afresh from the new helper,
while an unchanged tree keeps loading from the cache (a warm process compiles
nothing).  Kernels may call jitted helpers only of their own file or of this
package; backends/cpu/_cache_guard.py checks both halves of the rule and
tests/backends/test_stale_cache_guard.py proves an edited helper recompiles.

ONE NAME, ONE BODY.  Numba names a compiled function by its qualname, a number counted up
in the compiling process, and its argument types, and emits the functions a kernel calls
as `linkonce_odr`: when two cached libraries loaded into one process define the same name,
every call binds to the first.  Kernels made by a factory (make_binary's `contiguous` for
each op, the native entry points of each kernel and dtype) share a qualname; compiled in
two processes, two of them could get the same number, and a process that loaded both ran
one op's code for the other (x * noise gave x - noise after a subtraction's entry point had
loaded: tests/backends/test_kernel_names.py).  So cpu_kernel and cpu_cfunc give a function
with a closure a qualname that carries a digest of what it closes over (`distinct_name`):
distinct bodies, distinct names, the same in every process (so its cache still hits).
"""
import hashlib
import pathlib


def source_digest(directory):
    """A hash of the .py files directly in `directory` (names and bytes, in name order)."""
    h = hashlib.sha256()
    for path in sorted(pathlib.Path(directory).glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


DIGEST = source_digest(pathlib.Path(__file__).parent)

_digest_classes = {}


def _digest_cache_class(base, digest):
    """`base` (Numba's FunctionCache, numba-cuda's CUDACache) with `digest` in every index key."""
    cls = _digest_classes.get((base, digest))
    if cls is None:
        def _index_key(self, sig, codegen):
            return base._index_key(self, sig, codegen) + (("nbgrad helpers", digest),)
        cls = _digest_classes[(base, digest)] = type(f"HelperDigest{base.__name__}", (base,),
                                                     {"_index_key": _index_key, "helper_digest": digest,
                                                      "__module__": __name__})
    return cls


def cached(dispatcher, digest=None):
    """Give a dispatcher that caches on disk an index key that also carries `digest` (DIGEST by
    default); a dispatcher without a disk cache (NUMBA_DISABLE_JIT, the CUDA simulator, caching
    off) is returned as it is."""
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or not hasattr(cache, "_index_key"):
        return dispatcher
    base = type(cache)
    if hasattr(base, "helper_digest"):
        base = base.__mro__[1]
    dispatcher._cache = _digest_cache_class(base, digest or DIGEST)(dispatcher.py_func)
    return dispatcher


def _describe(value, depth=0):
    """A text that tells closed-over values apart, the same in every process: functions by
    module, qualname and (a few levels of) their own closures; sets sorted."""
    if hasattr(value, "py_func"):                   # a dispatcher: its Python function
        value = value.py_func
    if hasattr(value, "__code__"):
        cells = value.__closure__ or ()
        inner = ",".join(_describe(c.cell_contents, depth + 1) for c in cells) if depth < 4 else "..."
        return f"{value.__module__}.{value.__qualname__}({inner})"
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(_describe(v, depth + 1) for v in value)) + "}"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_describe(v, depth + 1) for v in value) + ")"
    return repr(value)


def distinct_name(fn):
    """fn with a qualname that also names what it closes over (ONE NAME, ONE BODY above); a
    function without a closure, or one renamed already, as it is."""
    if fn.__closure__ and "__v" not in fn.__qualname__.rsplit(".", 1)[-1]:
        tag = hashlib.sha256(_describe(fn).encode()).hexdigest()[:12]
        fn.__qualname__ = f"{fn.__qualname__}__v{tag}"
    return fn


def cpu_kernel(digest=None, **options):
    """The decorator of cached CPU kernels: njit(cache=True, error_model="numpy", **options), keyed by
    the helpers' digest as well (the rule above)."""
    from numba import njit                      # here: importing this package must not load numba
    from numba.core.dispatcher import Dispatcher
    options = {"error_model": "numpy", **options, "cache": True}

    def decorate(fn):
        kernel = njit(**options)(distinct_name(fn))
        return cached(kernel, digest) if isinstance(kernel, Dispatcher) else kernel
    return decorate


def cpu_cfunc(fn, digest=None, **options):
    """fn compiled as a C function of native.SIGNATURE (void(int64 args, int64 lo, int64 hi): what
    the CPU team's workers call, native.py), cached on disk with the helpers' digest in its key
    as cpu_kernel's kernels are.  Its `.address` is the function's address."""
    from numba.core.caching import FunctionCache
    from numba.core.ccallback import CFunc
    from .native import SIGNATURE
    from numba.core import sigutils
    compiled = CFunc(distinct_name(fn), sigutils.normalize_signature(SIGNATURE), locals={},
                     options={"error_model": "numpy", **options})
    compiled._cache = _digest_cache_class(FunctionCache, digest or DIGEST)(fn)
    compiled.compile()
    return compiled


def is_digest_keyed(dispatcher):
    """True when a dispatcher's disk cache is keyed by the helpers' digest (for the guard)."""
    return hasattr(type(getattr(dispatcher, "_cache", None)), "helper_digest")
