"""out= as PyTorch's, in one place for every function that takes it: the result is computed
as without out, then written into `out` (resized to the result's shape, PyTorch's warning
when it had elements; cast where the op's dtype rule allows), whose version moves; `out`
itself is returned.  Autograd does not follow out= (PyTorch's refusal when an argument
requires grad under grad mode)."""
import math
import sys

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._size import Size
from .._tensor import Tensor, _strides_of
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ._dtype_rules import check_found_dtype, not_implemented

RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape {old}, which does not match the required "
    "output shape {new}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
    "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
    "elements with t.resize_(0).")


def _tensors_in(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, Tensor))


def _user_stacklevel():
    """The stacklevel of the first frame outside nbgrad, for a warning issued by our caller
    (so that it points at the user's line, as PyTorch's do)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("nbgrad."):
        frame, level = frame.f_back, level + 1
    return level


def check_no_grad(name, args, outs):
    """PyTorch's autograd refuses out= whenever an argument (out included) requires grad."""
    if _grad_asked(args, outs):
        raise _no_grad_error(name)


def _grad_asked(args, outs):
    return is_grad_enabled() and any(t.requires_grad for t in _tensors_in((*args, *outs)))


def _no_grad_error(name):
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                        "but one of the arguments requires grad.")


def _computed_unless_differentiable(name, fn, args, kwargs, outs):
    """check_no_grad for an op whose result may not be differentiable: PyTorch's autograd
    has no out= refusal for the ops without a derivative (comparisons, argmax, searchsorted,
    bucketize: integral or bool results), so the result is computed first, and only a floating
    one refuses.  Returns the result, or None when no argument asked for a gradient."""
    if not _grad_asked(args, outs):
        return None
    try:
        result = fn(*args, **kwargs)
    except Exception:       # (most such ops are differentiable: PyTorch's refusal comes before their work)
        raise _no_grad_error(name) from None
    if any(r._dtype.is_floating_point or r._dtype.is_complex for r in (result if isinstance(result, tuple) else (result,))):
        raise _no_grad_error(name)
    return result


def check_out_type(name, out):
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")


def resize_output(out, shape, warn=True):
    """out.resize_(shape) as ATen's resize_output: contiguous strides, the storage grown (old
    values kept; PyTorch's error for a storage that cannot grow: from_numpy's, shared memory)
    when too small; PyTorch's deprecation warning when out had elements."""
    shape = Size(shape)
    if out._shape == shape:
        return
    if warn and out.numel() != 0:
        _warn_user(RESIZE_WARNING.format(old=list(out._shape), new=list(shape)), UserWarning, stacklevel=_user_stacklevel())
    n = math.prod(shape)
    if n:
        # (before out's shape changes: a storage that cannot grow raises and leaves out as it
        # was, where PyTorch has already given out the new shape)
        from .inplace_views import grow_storage
        grow_storage(out, out._offset + n)
    out._shape = shape
    out._stride = _strides_of(shape)


def write(out, result):
    """out[...] = result (cast to out's dtype), one version bump; no history."""
    from .inplace import copy_
    with no_grad():
        copy_(out, result)
    return out


# -- dtype rules: what an out of another dtype than the result's does --------------------------
def _cast(name, result_dtype, out):
    if not D.can_cast(result_dtype, out._dtype):
        raise RuntimeError(f"result type {D.scalar_type_name(result_dtype)} can't be cast to the desired output "
                           f"type {D.scalar_type_name(out._dtype)}")


def _same_found(name, result_dtype, out):
    # unary ops that keep their input's dtype (neg, abs, floor, clamp, ...)
    check_found_dtype(result_dtype, out._dtype)


def _same_expected(name, result_dtype, out):
    # mm, bmm, matmul, arg*, max/min's values and indices
    if out._dtype is not result_dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.cpp_type_name(result_dtype)}, but got "
                           f"{D.cpp_type_name(out._dtype)} instead")


def _same_as_input(name, result_dtype, out):
    # amax, amin
    if out._dtype is not result_dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{D.scalar_type_name(result_dtype)} for input's dtype and "
                           f"{D.scalar_type_name(out._dtype)} for out's dtype.")


def _where(name, result_dtype, out):
    if out._dtype is not result_dtype:
        raise RuntimeError(f"Expected out type to be {D.scalar_type_name(result_dtype)} but got "
                           f"{D.scalar_type_name(out._dtype)}")


def _cat(name, result_dtype, out):
    if not D.can_cast(result_dtype, out._dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{D.scalar_type_name(out._dtype)}")


def _bool_result(name, result_dtype, out):
    # any, all
    if out._dtype is not D.bool_ and out._dtype is not D.uint8:
        raise RuntimeError(f"{name} only supports bool tensor for result, got: {D.scalar_type_name(out._dtype)}")


def _same_as_self(name, result_dtype, out):
    # index_select, masked_select
    if out._dtype is not result_dtype:
        raise RuntimeError(f"{name}(): self and result must have the same scalar type")


def _nonzero(name, result_dtype, out):
    if out._dtype is not D.int64:
        raise RuntimeError(f"{name}: Expected out tensor to have scalar type Long but got scalar type"
                           f"{D.scalar_type_name(out._dtype)}")


def _take(name, result_dtype, out):
    if out._dtype is not result_dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{D.scalar_type_name(result_dtype)} and out.dtype = {D.scalar_type_name(out._dtype)}")


def _dot(name, result_dtype, out):
    if out._dtype is not result_dtype:
        raise RuntimeError(f"result dtype {D.scalar_type_name(out._dtype)} does not match input dtype "
                           f"{D.scalar_type_name(result_dtype)}")


def _floating_result(name, result_dtype, out):
    # logsumexp
    if not out._dtype.is_floating_point:
        raise RuntimeError(f"{name}(): Expected floating point type for result tensor, but got: "
                           f"{D.scalar_type_name(out._dtype)}")
    _cast(name, result_dtype, out)


def _linalg_norm(name, result_dtype, out):
    # linalg.norm, linalg.matrix_norm (composite in PyTorch: their own check)
    if out._dtype is not result_dtype:
        raise RuntimeError(f"{name.replace('_', '.', 1)} expected out tensor dtype {D.scalar_type_name(result_dtype)} "
                           f"but got: {D.scalar_type_name(out._dtype)}")


def linalg_castable(op, what, dtype, out):
    """PyTorch's checkLinalgCompatibleDtype: out's dtype must be one the result casts to."""
    if not D.can_cast(dtype, out._dtype):
        raise RuntimeError(f"{op}: Expected {what} to be safely castable from {D.scalar_type_name(dtype)} dtype, "
                           f"but got {what} with dtype {D.scalar_type_name(out._dtype)}")


def _castable(name, result_dtype, out):
    # cholesky, cholesky_inverse, cholesky_solve (geqrf and householder_product call it themselves)
    linalg_castable(name, "result", result_dtype, out)


def _searchsorted(name, result_dtype, out):
    if out._dtype is not result_dtype:
        raise RuntimeError("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
                           f"dtype {D.scalar_type_name(out._dtype)} and out_int32 flag is {result_dtype is D.int32}")


class _Spelled:
    """A dtype as PyTorch's messages spell it: {e.scalar} 'Float', {e.cpp} 'float', {e.legacy}
    'torch.FloatTensor' (e: the dtype expected, f: the dtype found, in the templates below)."""

    def __init__(self, dtype):
        self.scalar = D.scalar_type_name(dtype)
        self.cpp = D.cpp_type_name(dtype)
        self.legacy = {"bool": "CPUBoolType", "bfloat16": "CPUBFloat16Type"}.get(dtype.name,
                                                                                 "torch." + dtype._tensor_type)


def same_dtype(template):
    """The rule of an op whose out must have its result's dtype, refused in its own words."""
    def rule(name, result_dtype, out):
        if out._dtype is not result_dtype:
            raise RuntimeError(template.format(name=name, e=_Spelled(result_dtype), f=_Spelled(out._dtype)))
    return rule


def castable_then(template, then=_same_expected):
    """The rule of an op that first asks that its result cast to out's dtype (in its own words),
    then applies `then` (diag, matrix_power: the same dtype)."""
    def rule(name, result_dtype, out):
        if not D.can_cast(result_dtype, out._dtype):
            raise RuntimeError(template.format(name=name, e=_Spelled(result_dtype), f=_Spelled(out._dtype)))
        then(name, result_dtype, out)
    return rule


def _no_check(name, result_dtype, out):
    return None


_SCALAR_TYPE = "expected scalar_type {e.scalar} but found {f.scalar}"
_TENSORDOT = "tensordot: Expected the output tensor to have dtype {e.scalar}, but got an output tensor with dtype {f.scalar}"
_QUANTILE = "quantile() out tensor must be same dtype as the input tensor"
_NOT_BOOLEAN = "{name} does not support non-boolean outputs."
_MEDIAN = ("Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type {f.legacy} "
           "does not equal {e.legacy} (while checking arguments for median)",
           "Expected tensor for argument #1 'indices' to have scalar type Long; but got {f.legacy} instead (while "
           "checking arguments for median)")

_COMPOSITE_LABELS = {"linalg_cond": "linalg.cond", "linalg_tensorsolve": "tensorsolve",
                     "linalg_matrix_rank": "torch.linalg.matrix_rank", "matrix_power": "matrix_power",
                     "linalg_matrix_power": "matrix_power", "linalg_tensorinv": "tensorinv"}

RULES = {"cast": _cast, "found": _same_found, "expected": _same_expected, "input": _same_as_input,
         "where": _where, "cat": _cat, "bool": _bool_result, "self": _same_as_self, "nonzero": _nonzero,
         "take": _take, "dot": _dot, "floating": _floating_result, "linalg_norm": _linalg_norm,
         "castable": _castable, "searchsorted": _searchsorted,
         # single-output ops that refuse another dtype in their own words
         "logcumsumexp": same_dtype(_SCALAR_TYPE),
         "tensordot": same_dtype(_TENSORDOT),
         "quantile": same_dtype(_QUANTILE),
         "not_boolean": same_dtype(_NOT_BOOLEAN),
         "float_power": same_dtype("the output given to float_power has dtype {f.scalar} but the operation's result "
                                   "requires dtype {e.scalar}"),
         "heaviside": same_dtype("heaviside is not yet implemented for tensors with different dtypes."),
         "histc": same_dtype("torch.histogram: input tensor and hist tensor should have the same dtype, but got "
                             "input {e.cpp} and hist {f.cpp}"),
         "nan_to_num": same_dtype("nan_to_num: dtype of out: {f.scalar} should be same as input: {e.scalar}"),
         "narrow_copy": same_dtype("Expected self.dtype() == output.dtype() to be true, but got false.  (Could this "
                                   "error message be improved?  If so, please report an enhancement request to "
                                   "PyTorch.)"),
         "multinomial": same_dtype("multinomial expects Long tensor out, got: {f.scalar}"),
         "nuclear_norm": same_dtype("linalg.matrix_norm expected out tensor dtype {e.scalar} but got: {f.scalar}"),
         "multi_dot": same_dtype("multi_dot(): expected out tensor to have dtype {e.cpp} but got {f.cpp}"),
         "vecdot": same_dtype("linalg.vecdot: Expected out of dtype{e.scalar} but found {f.scalar}"),
         # composite functions whose result is copied into any out it casts to
         "composite_cast": lambda name, dtype, out: linalg_castable(_COMPOSITE_LABELS[name], "result", dtype, out),
         # linalg_pinv_out: checkLinalgCompatibleDtype, then its result copied in
         "pinv": lambda name, dtype, out: linalg_castable("linalg.pinv", "result", dtype, out),
         "any_dtype": _no_check,         # bernoulli: draws written in out's dtype, whatever it is
         "addbmm": same_dtype("self and mat2 must have the same dtype, but got {f.scalar} and {e.scalar}"),
         # (PyTorch's message names the result's type twice)
         "mvlgamma": castable_then("mvlgamma: result type {e.scalar} can't be cast to the desired output type "
                                   "{e.scalar}", _no_check),
         "diag": castable_then("diag: result type {e.scalar} can't be cast to the desired out= type {f.scalar}"),
         "matrix_power": castable_then("matrix_power: Expected result to be safely castable from {e.scalar} dtype, "
                                       "but got result with dtype {f.scalar}")}

# tuple outs whose ops refuse another dtype in their own words: one template per output
# (those not listed: "Expected out tensor to have dtype float, but got double instead")
TUPLE_TEMPLATES = {
    "cummax": (_SCALAR_TYPE, _SCALAR_TYPE), "cummin": (_SCALAR_TYPE, _SCALAR_TYPE),
    "kthvalue": ("output values must be of same type as input", "output indices must be of scalar type Long"),
    "median": _MEDIAN, "nanmedian": _MEDIAN,
    "mode": ("expected scalar type '{e.scalar}' but got '{f.scalar}' for values output",
             "expected scalar type '{e.scalar}' but got '{f.scalar}' for indices output"),
    "frexp": ("torch.frexp() expects mantissa to have dtype {e.cpp} but got {f.cpp}",
              "torch.frexp() expects exponent to have int dtype but got {f.cpp}"),
    "histogram": ("torch.histogram: input tensor and hist tensor should have the same dtype, but got input {e.cpp} "
                  "and hist {f.cpp}",
                  "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got input "
                  "{e.cpp} and bin_edges {f.cpp} for dimension 0")}


def call_with_out(name, fn, rule, args, kwargs, out, grad_name=None):
    """fn(*args, **kwargs) written into `out` under the dtype rule `rule`:
    one of RULES, "dtype" (sum, prod: out's dtype is the computation's dtype unless dtype=
    names another), "tuple" (max/min along a dim, sort, qr, ...: a tuple of outs, each of
    its result's dtype), "creation" (factories: out's dtype and device, silent resize).
    grad_name: the name PyTorch's autograd refusal gives (its ATen op: linalg_inv_ex)."""
    if name in ("matrix_power", "linalg_matrix_power"):
        rule, grad_name = _matrix_power_rule(args, kwargs)
    if name in _CLAMPS and any(isinstance(a, Tensor) for a in (*args[1:], *kwargs.values())):
        rule = "cast"       # (clamp.Tensor & co.: a TensorIterator op over all three, promoted)
    if rule == "tuple":
        return _call_tuple(name, fn, args, kwargs, out, grad_name or name)
    if rule == "creation":
        return _call_creation(name, fn, args, kwargs, out)
    check_out_type(name, out)
    if rule in _CASTABLE_FIRST_RULES or (rule == "composite_cast" and name in _CASTABLE_FIRST):
        _castable_first(name, rule, args, out)
    computed = None
    if rule in _DTYPE_FIRST:
        # PyTorch's Python-level out checks its dtype before the op it calls refuses autograd
        with no_grad():
            computed = fn(*args, **kwargs)
        RULES[rule](name, computed._dtype, out)
        check_no_grad(grad_name or name, (*args, *kwargs.values()), (out,))
    elif rule == "dtype":       # (sum, prod: computed in out's dtype below)
        check_no_grad(grad_name or name, (*args, *kwargs.values()), (out,))
    elif rule not in _COMPOSITE and name not in _NOT_DIFFERENTIABLE:
        # (a composite's out that requires grad: refused after the work)
        computed = _computed_unless_differentiable(grad_name or name, fn, args, kwargs, (out,))
    dtype = kwargs.get("dtype")
    if dtype is not None and D.to_dtype(dtype) is not out._dtype:
        _same_expected(name, D.to_dtype(dtype), out)
    if rule == "dtype":
        floating_input = bool(args) and isinstance(args[0], Tensor) and args[0]._dtype.is_floating_point
        if (name == "nanmean" or (name == "nansum" and floating_input)) and not out._dtype.is_floating_point:
            # (nanmean's out= is nansum's, then a division; nansum of an integral input is sum's)
            raise not_implemented("nansum_cpu", out._dtype)
        kwargs = dict(kwargs, dtype=out._dtype)
    result = _linalg_out_first(name, rule, fn, args, kwargs, out) if computed is None else computed
    if rule in _COMPOSITE:
        _refused_composite_out(out, grad_name)
    if rule != "dtype":
        RULES[rule](name, result._dtype, out)
    if rule in _OVERLAP_CHECKED and name not in _REDUCTIONS:
        # PyTorch's TensorIterator and cat/index ops refuse an out with internal overlap (an
        # expanded one, whatever its shape: checked before its resize) or, of the result's shape,
        # one that partly overlaps an input
        from .inplace import check_overlap
        check_overlap(out, tuple(_tensors_in((*args, *kwargs.values()))) if out._shape == result._shape else ())
    resize_output(out, result._shape)
    if rule in _COMPOSITE:
        # (PyTorch's composite copies its result into out with autograd on: out's history is
        # CopyBackwards, a gradient flows through it to the inputs)
        from .inplace import copy_
        return copy_(out, result)
    return write(out, result)


def _linalg_out_first(name, rule, fn, args, kwargs, out):
    """fn's result; where a factorization fails (an error tagged after_kernel: LAPACK's info,
    which PyTorch reads after its kernel ran), out's dtype check first, as ATen checks out
    before the kernel (the input's dtype is the result's, or the first result's, for these
    ops).  `rule` None: a tuple of outs."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        # (TensorIterator checks out's dtype before the kernel's dtype dispatch: the common dtype
        # must cast to it (bitwise_and of an int and a float tensor into an int64 out), or be it
        # (clamp_min of a bool tensor and a number into a float out))
        if rule == "cast":
            operands = [a for a in args if isinstance(a, (Tensor, bool, int, float))]
            if operands:
                _cast(name, D.result_type_of(operands), out)
        elif rule == "found" and args and isinstance(args[0], Tensor):
            _same_found(name, args[0]._dtype, out)
        raise
    except RuntimeError as e:
        x = next((a for a in args if isinstance(a, Tensor)), None)
        if getattr(e, "after_kernel", False) and x is not None and rule != "dtype":
            if rule is None and out:
                check = same_dtype(TUPLE_TEMPLATES[name][0]) if name in TUPLE_TEMPLATES else _same_expected
                check(name, x._dtype, out[0])
            elif rule is not None:
                RULES[rule](name, x._dtype, out)
        raise


# (tensordot's and inner's out= is ATen's tensordot_out, nuclear_norm's linalg_matrix_norm's:
# composites that compute the result with autograd on, then copy it into out)
_COMPOSITE = frozenset({"linalg_norm", "composite_cast", "tensordot", "nuclear_norm"})
# out= checked for its dtype (with the input's) before any work: pinv's and matrix_power's n
# other than 0 and 1 (checkLinalgCompatibleDtype, matmul_out's), and these composites'
# (matrix_rank and matrix_power of n 0 or 1 check their input first)
_CASTABLE_FIRST_RULES = frozenset({"pinv", "matrix_power"})
_CASTABLE_FIRST = frozenset({"linalg_tensorsolve", "linalg_tensorinv", "linalg_cond"})


def _castable_first(name, rule, args, out):
    if args and isinstance(args[0], Tensor):
        RULES[rule](name, args[0]._dtype, out)


def _refused_composite_out(out, grad_name):
    """A composite's out that requires grad: refused when its result is written (after the
    work), by the op that writes it (grad_name) or by the in-place copy."""
    if is_grad_enabled() and out.requires_grad:
        if grad_name is not None:
            raise _no_grad_error(grad_name)
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
_DTYPE_FIRST = frozenset({"multi_dot", "vecdot"})
# ops whose float result has no gradient (derivatives.yaml's output_differentiability False):
# their out= takes inputs that require grad, and out gets no history
_NOT_DIFFERENTIABLE = frozenset({"histc"})
_OVERLAP_CHECKED = frozenset({"cast", "found", "where", "cat", "self", "take"})
_REDUCTIONS = frozenset({"mean", "std", "var", "logsumexp"})


_CLAMPS = frozenset(("clamp", "clip", "clamp_min", "clamp_max"))


def _matrix_power_rule(args, kwargs):
    """(rule, grad name) of ATen's linalg_matrix_power_out for its n: 0 and 1 copy into any out
    the result casts to (with autograd, as a composite), -1 is linalg_inv's out= and the rest
    matmul's (each the result castable, then of out's dtype)."""
    from .._checks import is_int
    n = args[1] if len(args) > 1 else kwargs.get("n")
    n = int(n) if is_int(n) or (isinstance(n, Tensor) and n.numel() == 1 and not n._dtype.is_floating_point) \
        else None
    if n in (0, 1):
        return "composite_cast", None
    if n == -1:         # (castable to out, as each n's, then linalg_inv's out: the same dtype)
        return "matrix_power", "linalg_inv_ex"
    return "matrix_power", "matmul"


# the tuple ops with an overload of one result, whose out may be one tensor (max(x), min(x))
_ONE_OUT_TOO = frozenset({"max", "min"})


def _check_out_count_first(fn, args, kwargs, out):
    """PyTorch's parser's count of a tuple of outs, before autograd's refusal: the op's result
    under no_grad says how many it has (an op that fails there leaves its errors to their turn)."""
    try:
        with no_grad():
            count = len(fn(*args, **kwargs))
    except Exception:
        return
    if count != len(out):
        raise TypeError(f"expected tuple of {count} elements but got {len(out)}")


def _call_tuple(name, fn, args, kwargs, out, grad_name):
    if isinstance(out, Tensor) and name not in _ONE_OUT_TOO:
        # (the parser's refusal, before any work: sort, qr, triangular_solve... have no such overload)
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not Tensor")
    if isinstance(out, Tensor):
        # max(x) and max(x, y) take one out; max(x, dim), qr, ... refuse it
        check_no_grad(grad_name, (*args, *kwargs.values()), (out,))
        result = fn(*args, **kwargs)
        if isinstance(result, tuple):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not Tensor")
        _same_expected(name, result._dtype, out)
        resize_output(out, result._shape)
        return write(out, result)
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    for o in out:
        check_out_type(name, o)
    if _grad_asked(args, out):
        _check_out_count_first(fn, args, kwargs, out)
    result = _computed_unless_differentiable(grad_name, fn, args, kwargs, out)
    if result is None:
        result = _linalg_out_first(name, None, fn, args, kwargs, out)
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    checks = [same_dtype(t) for t in TUPLE_TEMPLATES[name]] if name in TUPLE_TEMPLATES else None
    for i, (o, r) in enumerate(zip(out, result)):
        (checks[i] if checks else _same_expected)(name, r._dtype, o)
    for o, r in zip(out, result):
        resize_output(o, r._shape)
        write(o, r)
    # PyTorch's out variants are their own return types: torch.return_types.max_out, linalg_qr_out
    from .reduction import ReductionResult
    from ..return_types import return_type
    if isinstance(result, ReductionResult):
        return ReductionResult(*out, name=f"{result._name}_out" if result._name else None)
    if hasattr(result, "_fields"):
        return return_type(f"{type(result).__name__}_out", result._fields)(*out)
    return tuple(out)


_RANDOM_KERNELS = {"rand": "check_uniform_bounds", "randn": "normal_kernel_cpu", "normal": "normal_kernel_cpu"}
_NOT_FOR_BOOL = {"randperm": "randperm", "logspace": "logspace_cpu", "linspace": "linspace_cpu",
                 "arange": "arange_cpu"}
_CREATION_NO_GRAD_NAMES = {"randn": None, "empty": None}   # these refuse while resizing


def _call_creation(name, fn, args, kwargs, out):
    check_out_type(name, out)
    if is_grad_enabled() and out.requires_grad:
        if name in _CREATION_NO_GRAD_NAMES:
            raise RuntimeError("cannot resize variables that require grad")
        raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    dtype = kwargs.get("dtype")
    if dtype is not None and D.to_dtype(dtype) is not out._dtype:
        raise RuntimeError(f"dtype {D.scalar_type_name(D.to_dtype(dtype))} does not match dtype of out parameter "
                           f"({D.scalar_type_name(out._dtype)})")
    if name in _RANDOM_KERNELS and not out._dtype.is_floating_point:
        raise not_implemented(_RANDOM_KERNELS[name], out._dtype)
    if name in _NOT_FOR_BOOL and out._dtype is D.bool_:
        raise not_implemented(_NOT_FOR_BOOL[name], D.bool_)
    if name == "randint" and out._dtype is D.bool_:
        raise RuntimeError("to - 1 is out of bounds for bool")
    requires_grad = kwargs.pop("requires_grad", False)
    kwargs = dict(kwargs, dtype=out._dtype, device=out.device)
    result = fn(*args, **kwargs)
    if name == "arange" and out.numel() != result.numel() and out.numel() > 0:
        _warn_user(f"The number of elements in the out tensor of shape {list(out._shape)} is {out.numel()} which "
                   f"does not match the computed number of elements {result.numel()}. Note that this may occur "
                   "as a result of rounding error. The out tensor will be resized to a tensor of shape "
                   f"({result.numel()},).", UserWarning, stacklevel=_user_stacklevel())
    resize_output(out, result._shape, warn=False)
    write(out, result)
    if requires_grad:
        out.requires_grad_(True)
    return out
