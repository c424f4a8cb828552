"""Which CUDA kernels cache on disk, and their cache keys: a script for tests/cuda/test_cuda_kernel_cache.py.

Run WITHOUT NUMBA_ENABLE_CUDASIM and with NBGRAD_CUDA_COMPILE_ONLY=1 (no GPU needed:
numba-cuda builds a kernel's disk cache when it is decorated).  Prints one JSON object:
  kernels   {"module.name#i": index key (repr) or null when the kernel is not cached}
  closures  names of kernels that close over something (factory kernels), with whether cached
  breaches  the cache rule's breaches over nbgrad.backends.cuda, with the real caches in place
"""
import importlib
import json
import pkgutil

from numba.core import types
from numba.cuda.dispatcher import CUDADispatcher

import nbgrad.backends.cuda as pkg
from nbgrad.backends.cpu._cache_guard import cache_rule_breaches


class Codegen:
    def magic_tuple(self):
        return ("sm_90",)


def dispatchers(module):
    """(label, dispatcher) for the module's kernels, also those held in dicts and tuples."""
    for name, obj in vars(module).items():
        items = [(f"{name}[{getattr(k, '__name__', k)}]", v) for k, v in obj.items()] if isinstance(obj, dict) \
            else [(name, obj)]
        for label, value in items:
            for i, d in enumerate(value if isinstance(value, tuple) else (value,)):
                if isinstance(d, CUDADispatcher) and not d.targetoptions.get("device"):
                    yield f"{module.__name__.rsplit('.', 1)[1]}.{label}#{i}", d


def main():
    kernels, closures = {}, {}
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for label, d in dispatchers(module):
            cached = d._cache.__class__.__name__ != "NullCache"
            kernels[label] = repr(d._cache._index_key((types.int64[::1],), Codegen())) if cached else None
            if d.py_func.__closure__ is not None:
                closures[label] = cached
    from nbgrad.backends.cuda._device import jit

    def made_in_a_factory(scale):
        def kernel(a):
            a[0] = a[0] * scale
        return jit(kernel)
    closures["factory"] = made_in_a_factory(2)._cache.__class__.__name__ != "NullCache"
    print(json.dumps({"kernels": kernels, "closures": closures, "breaches": cache_rule_breaches("nbgrad.backends.cuda")}))


if __name__ == "__main__":
    main()
