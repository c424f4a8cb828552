"""Keeping Python's cyclic garbage collector off the objects that live as long as the process.

Every autograd op makes a few objects the collector tracks (a Tensor, its Storage and
VersionCounter, a Node, its edges' tuple).  A graph that outlives a few hundred
allocations is promoted to the oldest generation, and CPython runs a full collection each
time the promoted objects reach a quarter of that generation.  A full collection walks
every tracked object in the process, and ~138,000 of them are nbgrad's and Numba's own:
its modules, and Numba's typing and target contexts (~58,000 objects that Numba builds on
the first kernel a process loads, in ~0.3 s).  Walking them took 60-80 ms a time on our
2-vCPU machine: 0.3 -> 3.4 ms of a 10 ms W5 step (1000 small ops and their backward) in the
stretches where one fell, and W8's 100,000-op chain 1,000 -> 700 ms (gc.callbacks timings,
the note of stop 32).  PyTorch's graph is C++ and costs its collector nothing.

So at the end of `import nbgrad` the Numba contexts the first kernel would build are built
now (the first op is that much faster: the time to a first gradient does not change), the
garbage there is collected, and what lives is moved to the collector's permanent
generation (`gc.freeze()`), where full collections no longer walk it.  Objects still free
themselves by reference counting as before; what a frozen object can no longer be is
collected as part of a reference cycle, so the collection before freezing is what keeps
garbage that already exists from staying.  `NBGRAD_GC_FREEZE=0` turns this off;
`gc.unfreeze()` undoes it.
"""
import gc
import os

ENABLED = os.environ.get("NBGRAD_GC_FREEZE", "1") not in ("", "0")


def freeze_static_heap():
    """Build Numba's CPU contexts, collect, and freeze what lives (see the module's doc).
    Returns whether it froze."""
    if not ENABLED:
        return False
    from numba.core.registry import cpu_target
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    gc.collect()
    gc.freeze()
    return True
