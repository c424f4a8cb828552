"""Small matrix products run on one BLAS thread (plain Python, nothing jitted).

Numba's np.dot calls the BLAS behind scipy.linalg.cython_blas (with SciPy's
wheels, its own OpenBLAS, a library apart from NumPy's).  OpenBLAS splits a
product across its threads (OPENBLAS_NUM_THREADS, the core count by default)
and the threads wait for each other, spinning, at every panel of the product;
a worker keeps a core spinning for ~0.1 s after each call as well.  On a
machine whose cores are shared with other processes a worker is often not
running when it is waited for, and each wait can last a scheduler time slice.
Measured here (2 cores shared with other jobs; benchmarks/compare.py W4, an MLP
784-256-256-10 training step whose largest products are 128x784x256, median of
9 samples of ~0.1 s, BLAS threads 2 vs 1 in the same process):
  quiet moments:  3.69 vs 3.74 ms, 3.85 vs 4.16 ms (2 threads 1-8% faster);
  busy moments:   32.2 vs 3.67 ms, 47.3 vs 8.7 ms (2 threads 4-9x slower).
Single products on a quiet machine, 2 threads / 1 thread: 128x256x256 0.83x,
128x784x256 0.76x, 1024^3 0.62x; under load the first two were 3-10x slower on
2 threads.  So a product of fewer than SERIAL_BELOW multiply-adds (m*n*k summed
over the batch, 2**26: ~1 ms on one core) runs with the BLAS's thread count set
to 1 for the call and restored after it; larger ones keep the BLAS's own
threading.  NBGRAD_BLAS_SERIAL_BELOW overrides the line (0: never serial).

The BLAS is found once, on the first product, among the loaded libraries
(/proc/self/maps, Linux): an OpenBLAS exporting the plain LP64 names
(scipy_openblas_set_num_threads in SciPy's wheels, openblas_set_num_threads
in a system or conda OpenBLAS; NumPy's wheel exports only 64_-suffixed ones).
Without one (another BLAS, another OS) nothing is changed.
"""
import ctypes
import os

SERIAL_BELOW = int(os.environ.get("NBGRAD_BLAS_SERIAL_BELOW", 1 << 26))

_NAMES = (("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
          ("openblas_get_num_threads", "openblas_set_num_threads"))

_controls = None        # (get, set) ctypes functions, () when no OpenBLAS was found


def _loaded_openblas():
    """Paths of loaded shared libraries whose name mentions OpenBLAS (Linux only)."""
    try:
        with open("/proc/self/maps") as maps:
            fields = [line.split(None, 5) for line in maps]
    except OSError:
        return []
    paths = {f[5].strip() for f in fields if len(f) == 6}
    return sorted(p for p in paths if "openblas" in os.path.basename(p).lower() and ".so" in p)


def _find():
    import scipy.linalg.cython_blas  # noqa: F401  (loads the BLAS Numba's np.dot calls)
    for path in _loaded_openblas():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _NAMES:
            get, set_ = getattr(lib, get_name, None), getattr(lib, set_name, None)
            if get is not None and set_ is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                set_.restype, set_.argtypes = None, [ctypes.c_int]
                return get, set_
    return ()


def controls():
    """(get_num_threads, set_num_threads) of the BLAS np.dot uses in kernels, or ()."""
    global _controls
    if _controls is None:
        try:
            _controls = _find()
        except Exception:      # no SciPy BLAS to find, an unreadable library: leave BLAS as it is
            _controls = ()
    return _controls


def serial_begin(multiply_adds):
    """Before a product of that many multiply-adds: the BLAS thread count to restore after it
    (serial_end), or 0 when nothing was changed."""
    if multiply_adds >= SERIAL_BELOW:
        return 0
    ctl = _controls if _controls is not None else controls()
    if not ctl:
        return 0
    before = ctl[0]()
    if before <= 1:
        return 0
    ctl[1](1)
    return before


def serial_end(before):
    if before:
        _controls[1](before)
