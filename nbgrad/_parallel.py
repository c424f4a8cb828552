"""nbgrad.set_num_threads / get_num_threads: PyTorch's argument rules in front of the one
owner of the thread count, the CPU backend's kernel pool (nbgrad/backends/cpu/_threads.py,
whose docstring says what the count governs and what it leaves alone)."""
import numbers

from .backends.cpu import _threads

_INT32_MAX = (1 << 31) - 1
_INT64_MAX = (1 << 63) - 1


def _type_name(value):
    # PyTorch names the type as CPython's tp_name does: bare for builtins and Python
    # classes, "module.name" for other C types (numpy.float64)
    cls = type(value)
    if cls.__module__ == "builtins" or cls.__flags__ & (1 << 9):     # Py_TPFLAGS_HEAPTYPE
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def set_num_threads(n):
    """Use at most n threads for the CPU kernels (n = 1: every kernel runs in the calling
    thread).  As torch.set_num_threads: a Python or NumPy integer (not a bool) >= 1."""
    python_int = isinstance(n, int) and not isinstance(n, bool)
    numpy_int = isinstance(n, numbers.Integral) and type(n).__module__ == "numpy"
    if not (python_int or numpy_int):
        raise RuntimeError(f"set_num_threads expects an int, but got {_type_name(n)}")
    n = int(n)
    if not -_INT64_MAX - 1 <= n <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    if not -_INT32_MAX - 1 <= n <= _INT32_MAX:          # PyTorch then narrows to a C int
        raise ValueError("Overflow when unpacking long")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads.set_num_threads(n)


def get_num_threads():
    """The number of threads the CPU kernels may use (set_num_threads' value; by default
    NUMBA_NUM_THREADS, the core count)."""
    return _threads.num_threads()


def set_flush_denormal(mode):
    """Flush denormal floats to zero on the CPU (PyTorch's torch.set_flush_denormal): results
    too small for a normal float become 0 and denormal inputs read as 0, in every operation
    this thread runs afterwards, until it is set to False again.  True where the CPU has the
    mode (x86-64: SSE's flush-to-zero and denormals-are-zero), else False and nothing
    changes.  Only the calling thread's register, as in PyTorch: nbgrad's worker threads keep
    IEEE denormals.  Each operation on a denormal costs the CPU a microcode assist (~100
    cycles): W5's gradients decay through 500 multiplications into them, and its compiled
    call takes 46 us with IEEE denormals, 12 us flushed (the fused loop alone 35 -> 2.2)."""
    if type(mode) is not bool:
        raise RuntimeError(f"flush_denormal expects a bool, but got {_type_name(mode)}")
    from .backends.cpu import _fpenv
    return _fpenv.set_flush_denormal(mode)
