"""nbgrad.multiprocessing: PyTorch's torch.multiprocessing, the standard library's
multiprocessing with tensors that cross processes by shared memory.

Everything of `multiprocessing` is here (Process, Queue, SimpleQueue, Pipe, Pool, Manager,
get_context, set_start_method, ...: the standard library's own objects), and importing this
module registers reducers on multiprocessing's ForkingPickler (reductions.py) so that every
one of them, in every context, sends an nbgrad tensor by handle: its storage is moved into
shared memory (Tensor.share_memory_, if it is not there yet) and the receiver maps the same
memory.  So a tensor given to a spawned Process, or put on a Queue, arrives aliasing the
sender's: in-place writes on either side (`p.data.add_(...)`, an optimizer step) are seen by
the other.  A forked child inherits its parent's shared mappings and sees them the same way;
a tensor that is not shared is only copied into a forked child (copy-on-write), as in PyTorch.

  * Hogwild: `model.share_memory()`, then processes that train the same parameters.
  * spawn(fn, args, nprocs) / start_processes: run fn(i, *args) in nprocs processes and raise
    ProcessRaisedException (the child's traceback) or ProcessExitedException in the parent
    when one fails (spawn.py).

Shared memory is a descriptor-passed file with no name (memfd_create; _shm.py says why):
freed by the kernel when the last process lets go, never left in /dev/shm, unknown to the
resource tracker.  Departures from PyTorch:
  * Sharing strategy: get/set_sharing_strategy accept PyTorch's names ("file_descriptor",
    "file_system") and remember the choice, but nbgrad always shares as "file_descriptor"
    does (a descriptor per shared storage, sent over a Unix socket): "file_system"'s named
    /dev/shm files and its torch_shm_manager daemon are not implemented.  As under
    file_descriptor, a process must still be alive when a tensor it put on a queue is taken
    off it, and each shared storage holds one descriptor in each process (`ulimit -n`).
  * CUDA: Tensor.share_memory_ is a no-op and is_shared() True for a CUDA tensor (as
    PyTorch), but sending one raises RuntimeError: CUDA IPC is not supported.
  * Growing a shared storage (resize_) raises PyTorch's "Trying to resize storage that is
    not resizable" (PyTorch 2.13 crashes with a segmentation fault); shrinking works.
  * The reducers are registered when this module is imported or a tensor is first shared
    (PyTorch registers them at `import torch`): before that, a tensor given to a spawned
    child through the plain multiprocessing module is copied.
  * Fork: nbgrad's kernel thread pool and BLAS team are dropped in a forked child, which
    makes its own (os.register_at_fork in backends/cpu/_threads.py and _team.py), so a child
    forked after the parent ran threaded kernels can run kernels too.  Numba itself starts no
    threads (nbgrad has no parallel=True kernels), and NumPy's OpenBLAS shuts its threads
    down around fork.
"""
import multiprocessing
import sys

from . import spawn as _spawn
from .reductions import init_reductions

# the standard library's API, its own objects (PyTorch: `from multiprocessing import *`)
globals().update((_name, getattr(multiprocessing, _name)) for _name in multiprocessing.__all__)

ProcessContext = _spawn.ProcessContext
ProcessExitedException = _spawn.ProcessExitedException
ProcessRaisedException = _spawn.ProcessRaisedException
SpawnContext = _spawn.SpawnContext
start_processes = _spawn.start_processes
spawn = _spawn.spawn            # (the function, over the submodule's name: PyTorch's too)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Record the strategy for sharing CPU tensors (one of get_all_sharing_strategies()).
    nbgrad shares by descriptor whatever is set (see the module docstring)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The strategy set for sharing CPU tensors (PyTorch's names; see set_sharing_strategy)."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The sharing strategies PyTorch offers on this system."""
    return _all_sharing_strategies


init_reductions()
