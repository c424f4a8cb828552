"""What nbgrad.distributed needs of MPI: mpi4py imported on first use, the MPI datatype
and reduction of each (dtype, ReduceOp), and a tensor's memory as a contiguous buffer.

Kept apart from the collectives so that `import nbgrad.distributed` never imports
mpi4py (importing mpi4py.MPI initializes MPI) and a missing mpi4py is one clear error.
"""
import os

import numpy as np

from .._layout import row_major_strides

_MISSING = ('nbgrad.distributed needs mpi4py and an MPI implementation; install them with '
            'pip install "nbgrad[distributed]" (mpi4py and MPICH wheels from PyPI; a system MPI works too)')


_MPI = None
_IN_PLACE = None


def IN_PLACE():
    """MPI.IN_PLACE (looked up once)."""
    global _IN_PLACE
    if _IN_PLACE is None:
        _IN_PLACE = mpi().IN_PLACE
    return _IN_PLACE


def mpi():
    """The mpi4py.MPI module, imported (and MPI initialized) on the first call."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError(_MISSING) from e
        _MPI = MPI
    return _MPI


def available():
    try:
        import mpi4py  # noqa: F401  (only the package: MPI itself is not initialized here)
    except ImportError:
        return False
    return True


class ReduceTypeError(TypeError, RuntimeError):
    """A reduction MPI cannot do on a dtype.  A TypeError, and a RuntimeError as the one
    PyTorch raises for it ('Cannot use ReduceOp.BAND with non-integral dtype')."""


# numpy dtype name -> the predefined MPI datatype's attribute name
_DATATYPES = {"float32": "FLOAT", "float64": "DOUBLE", "int8": "INT8_T", "int16": "INT16_T",
              "int32": "INT32_T", "int64": "INT64_T", "uint8": "UINT8_T", "bool": "C_BOOL",
              # float16: MPI defines no arithmetic on it, so it travels as 16-bit words and is
              # reduced by the user-defined operations below
              "float16": "UINT16_T"}


_datatypes = {}     # numpy dtype -> MPI datatype, filled on use (the per-call lookups add up)


def datatype(np_dtype):
    dt = _datatypes.get(np_dtype)
    if dt is None:
        name = _DATATYPES.get(np.dtype(np_dtype).name)
        if name is None:
            raise TypeError(f"nbgrad.distributed: no MPI datatype for {np_dtype}")
        dt = _datatypes[np_dtype] = getattr(mpi(), name)
    return dt


_half_ops = {}


def _half_op(name):
    """A commutative MPI operation over float16 words, computed by numpy in float16 (as
    PyTorch's CPU backends reduce half tensors)."""
    op = _half_ops.get(name)
    if op is None:
        ufunc = {"SUM": np.add, "PRODUCT": np.multiply, "MIN": np.minimum, "MAX": np.maximum}[name]

        def combine(inmem, inoutmem, _datatype):
            a = np.frombuffer(inmem, dtype=np.float16)
            b = np.frombuffer(inoutmem, dtype=np.float16)
            ufunc(a, b, out=b)

        op = _half_ops[name] = mpi().Op.Create(combine, commute=True)
    return op


_MPI_NAMES = {"PRODUCT": "PROD"}
_BITWISE = ("BAND", "BOR", "BXOR")
# bool: MAX is "any", MIN is "all", as PyTorch's backends reduce bool tensors; SUM and
# PRODUCT saturate the same way (True + True is True)
_BOOL = {"MAX": "LOR", "SUM": "LOR", "BOR": "LOR", "MIN": "LAND", "PRODUCT": "LAND", "BAND": "LAND",
         "BXOR": "LXOR"}


_reductions = {}


def reduction(op_name, dtype):
    """(MPI datatype, MPI op, average) for reducing `dtype` (an nbgrad dtype) with the
    ReduceOp named op_name; average: divide the sum by the group's size afterwards."""
    plan = _reductions.get((op_name, dtype))
    if plan is None:
        plan = _reductions[op_name, dtype] = _reduction(op_name, dtype)
    return plan


def _reduction(op_name, dtype):
    MPI = mpi()
    np_name = dtype.name if hasattr(dtype, "name") else np.dtype(dtype).name
    kind = "bool" if np_name == "bool" else ("float" if np_name.startswith("float") else "int")
    average = op_name == "AVG"
    if average:
        if kind != "float":
            raise ReduceTypeError(f"Cannot use ReduceOp.AVG with {_pretty(dtype)}: the average is defined for "
                                  "floating types only")
        op_name = "SUM"
    if op_name == "PREMUL_SUM":
        raise ReduceTypeError("ReduceOp.PREMUL_SUM is not supported by the MPI backend")
    if kind == "bool":
        return MPI.C_BOOL, getattr(MPI, _BOOL[op_name]), False
    if op_name in _BITWISE and kind == "float":
        raise ReduceTypeError(f"Cannot use ReduceOp.{op_name} with non-integral dtype {_pretty(dtype)}")
    if np_name == "float16":
        return MPI.UINT16_T, _half_op(op_name), average
    return datatype(np_name), getattr(MPI, _MPI_NAMES.get(op_name, op_name)), average


def _pretty(dtype):
    return repr(dtype) if hasattr(dtype, "is_floating_point") else str(dtype)


def cuda_aware():
    """Whether CUDA tensors go to MPI as device pointers.  MPI has no portable query for
    it: set NBGRAD_CUDA_AWARE_MPI=1 when your MPI build is CUDA-aware; else CUDA tensors
    are staged through host memory."""
    return os.environ.get("NBGRAD_CUDA_AWARE_MPI", "0") not in ("", "0")


class Buffer:
    """A tensor's elements as one contiguous 1-D buffer MPI can read and write.

    A dense CPU tensor lends its own memory (no copy); a strided one, or a CUDA tensor
    when MPI is not CUDA-aware, is staged: copied in (when `read`) and, after the
    operation, written back by finish() (when `write`).  Nothing here bumps a version
    counter: PyTorch's collectives do not either."""

    __slots__ = ("tensor", "array", "staged", "write")

    def __init__(self, tensor, read=True, write=True):
        self.tensor, self.write = tensor, write
        storage, off = tensor._storage, tensor._offset
        n = tensor.numel()
        if _dense(tensor._shape, tensor._stride) and (storage.device.type == "cpu" or cuda_aware()):
            self.array = storage.buffer[off:off + n]
            self.staged = False
            return
        self.staged = True
        if read:
            self.array = np.ascontiguousarray(tensor._host_array()).reshape(-1)
        else:
            self.array = np.empty(n, dtype=np.dtype(tensor.dtype.name))

    def spec(self, mpi_datatype):
        return [self.array, mpi_datatype]

    def finish(self):
        if self.staged and self.write:
            write_into(self.tensor, self.array)


def _dense(shape, strides):
    """Row-major and gap-free (size-1 dims may have any stride): the elements are
    buffer[offset:offset + numel], in order."""
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size == 0:
            return True
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def write_into(tensor, flat):
    """Write a contiguous host array's values into tensor's memory, whatever its strides
    or device, outside autograd."""
    shape = tensor.shape
    if tensor._storage.device.type == "cpu":
        np.copyto(tensor._host_array(), np.asarray(flat).reshape(shape))
        return
    backend = tensor._backend()
    src = backend.from_host(np.asarray(flat).reshape(shape))
    backend.copy((src, 0, tuple(shape), row_major_strides(tuple(shape))), tensor._view_tuple())
