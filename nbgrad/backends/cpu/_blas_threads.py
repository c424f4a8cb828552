"""Small matrix products run on one BLAS thread (plain Python, nothing jitted).

Two BLAS libraries may serve matmul (nbgrad/backends/cpu/linalg.py): the one
behind scipy.linalg.cython_blas, which Numba's np.dot calls inside kernels
("numba"), and NumPy's own, which a single 2-D product calls through np.dot
from Python ("numpy"; with the wheels, SciPy's and NumPy's are two copies of
OpenBLAS).  OpenBLAS splits a product across its threads
(OPENBLAS_NUM_THREADS, the core count by default) and the threads wait for
each other, spinning, at every panel of the product; a worker keeps a core
spinning for ~0.1 s after each call as well.  On a machine whose cores are
shared with other processes a worker is often not running when it is waited
for, and each wait can last a scheduler time slice.  Measured here (2 cores
shared with other jobs; benchmarks/compare.py W4, an MLP 784-256-256-10
training step whose largest products are 128x784x256, median of 7-9 samples
of ~0.1 s, BLAS threads 2 vs 1 in the same process):
  quiet moments:  3.69 vs 3.74 ms, 3.85 vs 4.16 ms (2 threads 1-8% faster);
  busy moments:   32.2 vs 3.67 ms, 47.3 vs 8.7 ms, 49.7 vs 5.5 ms, 56.2 vs 4.6 ms
                  (2 threads 4-12x slower).
Single products on a quiet machine, 2 threads / 1 thread: 128x256x256 0.83x,
128x784x256 0.76x, 1024^3 0.62x; under load the first two were 3-10x slower on
2 threads.  So a product of fewer than SERIAL_BELOW multiply-adds (m*n*k summed
over the batch, 2**26: ~1 ms on one core) runs with its library's thread
count set to 1 for the call and restored after it; larger ones keep the
BLAS's own threading.  NBGRAD_BLAS_SERIAL_BELOW overrides the line (0: never
serial).  OpenBLAS's results may differ in the last bit between thread counts
(as PyTorch's do): 30 W4 steps on one thread against two ended with 12,552 of
269,322 parameters 1 ulp apart (max 7.5e-9), the losses identical.

Single 2-D products of _team.MIN_MULTIPLY_ADDS or more on NumPy's route do not reach
this line while nbgrad has more than one thread: the BLAS team (_team.py) splits them
into one-thread gemms that its spinning workers claim, which keeps two threads' speed
without OpenBLAS's waits (W4's 128x784x256: 0.60x the one-thread time here, as
OpenBLAS's two threads on a quiet machine).

Each library is found once, on first use, among the loaded libraries
(/proc/self/maps, Linux) by the names it exports: "numba" an OpenBLAS with the
plain LP64 names (scipy_openblas_set_num_threads in SciPy's wheel,
openblas_set_num_threads in a system or conda OpenBLAS), "numpy" the OpenBLAS
of NumPy's wheel (numpy.libs/, 64_-suffixed names).  Where one is not found
(another BLAS, another OS) its thread count is left alone, and matmul does not
take the NumPy route at all (controls("numpy") is empty).
"""
import ctypes
import os

SERIAL_BELOW = int(os.environ.get("NBGRAD_BLAS_SERIAL_BELOW", 1 << 26))

_NAMES = {
    "numba": (("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
              ("openblas_get_num_threads", "openblas_set_num_threads")),
    "numpy": (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),),
}

_controls = {}          # role -> (get, set) ctypes functions, () when its OpenBLAS was not found


def _loaded_openblas():
    """Paths of loaded shared libraries whose name mentions OpenBLAS (Linux only)."""
    try:
        with open("/proc/self/maps") as maps:
            fields = [line.split(None, 5) for line in maps]
    except OSError:
        return []
    paths = {f[5].strip() for f in fields if len(f) == 6}
    return sorted(p for p in paths if "openblas" in os.path.basename(p).lower() and ".so" in p)


def numpy_openblas_paths():
    """The loaded OpenBLAS libraries of NumPy's wheel (numpy.libs/): what NumPy's np.dot calls."""
    import numpy
    libs = os.path.dirname(os.path.abspath(numpy.__file__)) + ".libs"   # the wheel's own libraries
    return [p for p in _loaded_openblas() if os.path.dirname(p) == libs]


def _find(role):
    if role == "numba":
        import scipy.linalg.cython_blas  # noqa: F401  (loads the BLAS Numba's np.dot calls)
        paths = _loaded_openblas()
    else:
        paths = numpy_openblas_paths()
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _NAMES[role]:
            get, set_ = getattr(lib, get_name, None), getattr(lib, set_name, None)
            if get is not None and set_ is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                set_.restype, set_.argtypes = None, [ctypes.c_int]
                return get, set_
    return ()


def controls(role="numba"):
    """(get_num_threads, set_num_threads) of the role's BLAS ("numba": the one np.dot calls in
    kernels, "numpy": NumPy's), or ()."""
    ctl = _controls.get(role)
    if ctl is None:
        try:
            ctl = _find(role)
        except Exception:      # no such BLAS to find, an unreadable library: leave BLAS as it is
            ctl = ()
        _controls[role] = ctl
    return ctl


def serial_begin(multiply_adds, role="numba"):
    """Before a product of that many multiply-adds by the role's BLAS: the thread count to
    restore after it (serial_end), or 0 when nothing was changed."""
    if multiply_adds >= SERIAL_BELOW:
        return 0
    ctl = _controls.get(role)
    if ctl is None:
        ctl = controls(role)
    if not ctl:
        return 0
    before = ctl[0]()
    if before <= 1:
        return 0
    ctl[1](1)
    return before


def serial_end(before, role="numba"):
    if before:
        _controls[role][1](before)
