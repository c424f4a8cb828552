"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve: LAPACK's Bunch-Kaufman LDL^T
factorization of symmetric matrices (?sytrf, lower triangle) and the solve with it (?sytrs).

LD holds L's multipliers below its diagonal and D's 1x1 and 2x2 blocks on and beside it,
A's other triangle zero, laid out batched column-major; pivots are LAPACK's 1-based int32
(a 2x2 block at k, k+1 has pivots[k] = pivots[k+1] = -(the row swapped with k+1)).  The
numerical work is the CPU backend's (nbgrad/backends/cpu/linalg_ldl.py: MKL's bits for
the factorization up to order 65, for the solve up to order 9 in float64); a CUDA tensor
is staged through host memory, as nbgrad/backends/cuda/linalg_lapack.py stages the other
factorizations.  `hermitian` changes nothing for real matrices (nbgrad has no complex ones).

As PyTorch (2.13):
- the checks and messages are its own, in its order, under the name
  torch.linalg.ldl_factor_ex for both factorizations; its positional parameter is `input`;
- a zero pivot (info > 0) is an error of ldl_factor and of ldl_factor_ex(check_errors=True),
  a RuntimeError whose text ends as PyTorch's ("torch.linalg.ldl_factor: Unknown error
  code: 1."; PyTorch's starts with an internal-assert banner, as it has no message for it);
- neither op has a derivative: each records a NotImplemented node whose backward raises
  "derivative for aten::linalg_ldl_factor_ex is not implemented" (..._ldl_solve); there
  is no gradient for ldl_solve's B either;
- out= takes tuples of 2 (3) tensors for the factorizations and a tensor for the solve,
  of the result's dtypes exactly; an out of the result's shape keeps its own layout, any
  other is resized (with the warning when it had elements) to the column-major layout.
  An input that requires grad does not refuse out= (the outs get the NotImplemented
  node), an out that requires grad does.
Departures: where info > 0 makes ldl_factor raise, the outs given are left unchanged
(PyTorch has written them); ldl_solve broadcasts LD's batch against B's in every case
(PyTorch crashes on some, e.g. LD (2, 1, n, n) with B (4, n, k)).
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..return_types import return_type
from ._graph import NotImplementedNode, backend_of, broadcast_shapes, broadcast_view, needs_grad, new_strided, record
from ._dtype_rules import not_implemented
from ._signatures import named
from .linalg_householder import _column_major_strides

ldl_factor_result = return_type("linalg_ldl_factor", ["LD", "pivots"])
ldl_factor_ex_result = return_type("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
ldl_factor_out_result = return_type("linalg_ldl_factor_out", ["LD", "pivots"])
ldl_factor_ex_out_result = return_type("linalg_ldl_factor_ex_out", ["LD", "pivots", "info"])

_FACTOR = "torch.linalg.ldl_factor_ex"
_SOLVE = "torch.linalg.ldl_solve"


# -- helpers ---------------------------------------------------------------------------
def _need_tensor(fn, name, position, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}")


def _need_bool(fn, name, x):
    if not isinstance(x, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(x).__name__}")


def _check_square_float(op, A):
    """PyTorch's squareCheckInputs and checkFloatingOrComplex (its CPU kernel's dispatch,
    which refuses float16 and bfloat16, comes later: _check_kernel)."""
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    if not A._dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{D.scalar_type_name(A._dtype)}")


def _check_kernel(kernel, dtype):
    if dtype is not D.float32 and dtype is not D.float64:
        raise not_implemented(kernel, dtype)


def _column_major(buf, shape, dtype, device):
    return new_strided(buf, tuple(shape), _column_major_strides(shape), dtype, device)


def _record_not_implemented(op_name, inputs, outputs):
    """PyTorch's NotImplemented node: edges to the inputs that require grad only."""
    record(NotImplementedNode, tuple(t for t in inputs if needs_grad(t)), outputs, op_name=op_name)


def _check_out_tuple(fn, out, count, position):
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if len(out) != count:
        raise TypeError(f"expected tuple of {count} elements but got {len(out)}")
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got {type(o).__name__}")


def _check_out_grad(aten_name, outs):
    if is_grad_enabled() and any(o.requires_grad for o in outs):
        raise RuntimeError(f"aten::{aten_name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _check_out_dtype(out, dtype):
    if out._dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.cpp_type_name(dtype)}, but got "
                           f"{D.cpp_type_name(out._dtype)} instead")


def _write(out, result, column_major):
    """out takes result's values: in its own layout when it has result's shape, else resized
    (resize_output: the warning when it had elements) and, for a matrix, restrided
    column-major, as PyTorch's structured out= does."""
    from ._out import resize_output, write
    if out._shape != result._shape:
        resize_output(out, result._shape)
        if column_major:
            out._stride = _column_major_strides(tuple(result._shape))
    write(out, result)


# -- ldl_factor ------------------------------------------------------------------------
def _factor(fn, input, hermitian, check_errors, raise_as):
    """(LD, pivots, info as a host list), checked as PyTorch checks; not recorded.
    raise_as: the op named in the error for info > 0 (None: no check)."""
    _need_tensor(fn, "input", 1, input)
    _need_bool(fn, "hermitian", hermitian)
    if check_errors is not None:
        _need_bool(fn, "check_errors", check_errors)
    _check_square_float(_FACTOR, input)
    _check_kernel("ldl_factor_kernel_cpu", input._dtype)
    buf, pbuf, info = backend_of(input).linalg_ldl_factor(input._view_tuple())
    shape = tuple(input._shape)
    LD = _column_major(buf, shape, input._dtype, input.device)
    pivots = new_strided(pbuf, shape[:-1], _contiguous(shape[:-1]), D.int32, input.device)
    info = [int(x) for x in info]
    if raise_as is not None:
        for code in info:
            if code:
                # PyTorch has no message for sytrf's info > 0: its internal assert's text
                raise RuntimeError(f"{raise_as}: Unknown error code: {code}.")
    return LD, pivots, info


def _contiguous(shape):
    from .._layout import row_major_strides
    return row_major_strides(tuple(shape))


def _info_tensor(info, shape, device):
    import numpy as np
    from .._creation import tensor
    return tensor(np.asarray(info, dtype=np.int32).reshape(tuple(shape)), device=device)


def _ldl_factor(input, *, hermitian=False, out=None):
    """torch.linalg.ldl_factor: (LD, pivots) of each symmetric matrix of input (..., n, n)
    (its lower triangle read); a zero pivot is an error."""
    fn = "linalg_ldl_factor"
    if out is not None:
        _check_out_tuple(fn, out, 2, 2)
        _check_out_grad("linalg_ldl_factor_ex", out)
    LD, pivots, _info = _factor(fn, input, hermitian, None, "torch.linalg.ldl_factor")
    if out is None:
        if needs_grad(input):
            _record_not_implemented("linalg_ldl_factor_ex", (input,), (LD, pivots))
        return ldl_factor_result(LD, pivots)
    out_ld, out_piv = out
    _check_out_dtype(out_ld, LD._dtype)
    _check_out_dtype(out_piv, D.int32)
    _write(out_ld, LD, True)
    _write(out_piv, pivots, False)
    if needs_grad(input):
        _record_not_implemented("linalg_ldl_factor_ex", (input,), (out_ld, out_piv))
    return ldl_factor_out_result(out_ld, out_piv)


def _ldl_factor_ex(input, *, hermitian=False, check_errors=False, out=None):
    """torch.linalg.ldl_factor_ex: (LD, pivots, info), info the int32 ?sytrf code of each
    matrix (k > 0: D[k-1, k-1] is zero); an error for info > 0 only if check_errors."""
    fn = "linalg_ldl_factor_ex"
    if out is not None:
        _check_out_tuple(fn, out, 3, 3)
        _check_out_grad(fn, out)
    LD, pivots, info = _factor(fn, input, hermitian, check_errors, _FACTOR if check_errors else None)
    info_t = _info_tensor(info, input._shape[:-2], input.device)
    if out is None:
        if needs_grad(input):
            _record_not_implemented(fn, (input,), (LD, pivots, info_t))
        return ldl_factor_ex_result(LD, pivots, info_t)
    out_ld, out_piv, out_info = out
    _check_out_dtype(out_ld, LD._dtype)
    _check_out_dtype(out_piv, D.int32)
    _check_out_dtype(out_info, D.int32)
    _write(out_ld, LD, True)
    _write(out_piv, pivots, False)
    _write(out_info, info_t, False)
    if needs_grad(input):
        _record_not_implemented(fn, (input,), (out_ld, out_piv, out_info))
    return ldl_factor_ex_out_result(out_ld, out_piv, out_info)


# -- ldl_solve -------------------------------------------------------------------------
def _check_solve(fn, LD, pivots, B, hermitian):
    """PyTorch's checks, in its order (linalg_ldl_solve_out); returns the batch shape."""
    _need_tensor(fn, "LD", 1, LD)
    _need_tensor(fn, "pivots", 2, pivots)
    _need_tensor(fn, "B", 3, B)
    _need_bool(fn, "hermitian", hermitian)
    _check_square_float(_SOLVE, LD)
    # linearSolveCheckInputs(B, LD)
    if B._dtype is not LD._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{D.scalar_type_name(B._dtype)} and A of type {D.scalar_type_name(LD._dtype)} instead.")
    if B.dim() == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    if B.dim() == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    n = LD._shape[-1]
    if B._shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {_SOLVE}: each A matrix is {n} by {n} but each b "
                           f"matrix is {B._shape[-2]} by {B._shape[-1]}")
    if tuple(LD._shape[:-1]) != tuple(pivots._shape):
        raise RuntimeError(f"{_SOLVE}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots._shape)} instead")
    if pivots._dtype.is_floating_point or pivots._dtype is D.bool_:
        raise RuntimeError(f"{_SOLVE}: Expected pivots to be integers. Got {D.scalar_type_name(pivots._dtype)}")
    batch = tuple(broadcast_shapes(tuple(B._shape[:-2]), tuple(LD._shape[:-2])))
    if pivots.numel():
        with no_grad():
            magnitude = pivots.abs()
            lo, hi = int(magnitude.min().item()), int(magnitude.max().item())
        if lo < 1:
            raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass "
                               "the result of ldl_factor?")
        if hi > n:
            raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you "
                               "properly pass the result of ldl_factor?")
    _check_kernel("ldl_solve_kernel_cpu", LD._dtype)
    return batch


def _solve(LD, pivots, B, batch):
    n, k = LD._shape[-1], B._shape[-1]
    buf = backend_of(B).linalg_ldl_solve(broadcast_view(LD, batch + (n, n)), broadcast_view(pivots, batch + (n,)),
                                         broadcast_view(B, batch + (n, k)))
    return _column_major(buf, batch + (n, k), LD._dtype, B.device)


def _ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """torch.linalg.ldl_solve: X of A X = B for A = ldl_factor's (LD, pivots), batches
    broadcast; no derivative."""
    fn = "linalg_ldl_solve"
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
        _check_out_grad(fn, (out,))
    batch = _check_solve(fn, LD, pivots, B, hermitian)
    if LD.device != B.device or pivots.device != B.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{LD.device} and {B.device}!")
    X = _solve(LD, pivots, B, batch)
    if out is not None:
        _check_out_dtype(out, X._dtype)
        _write(out, X, True)
        X = out
    if needs_grad(LD, B):
        _record_not_implemented(fn, (LD, B), (X,))
    return X


# the public functions under PyTorch's names (Python's own argument errors name them)
ldl_factor = named(_ldl_factor, "linalg_ldl_factor")
ldl_factor_ex = named(_ldl_factor_ex, "linalg_ldl_factor_ex")
ldl_solve = named(_ldl_solve, "linalg_ldl_solve")
