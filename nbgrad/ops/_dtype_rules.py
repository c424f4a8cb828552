"""Which dtypes each op refuses: PyTorch 2.13 CPU's rules, in one table.

PyTorch dispatches each op's kernel over a fixed list of dtypes; for a dtype outside
it the dispatcher raises NotImplementedError('"<kernel>" not implemented for '<Type>'')
(a subclass of RuntimeError).  A few ops refuse a dtype earlier with their own
RuntimeError (relu, argmax, mean, var, ...).  nbgrad's kernels would compute all of
these, so the op layer asks `check(op, dtype)` before dispatch, with the dtype the
kernel would run in (the promoted dtype of a binary op), at the point of PyTorch's
order of checks where the dispatch comes.  Ops not listed accept every dtype.  An op
whose kernel's name depends on the call (a loss's reduction, a norm's layout) asks
`refuse(kernel, dtype, refused)` with one of the sets below.  The table was probed from
torch over bool, uint8, int8, int16, int32, int64, float16, float32 and float64;
tests/equivalence/test_exceptions.py, tests/ops/test_errors.py and the tests of each op
record the results.
"""
from .. import _dtype as D

BOOL = frozenset({D.bool_})
INTEGRAL = frozenset({D.bool_, D.uint8, D.int8, D.int16, D.int32, D.int64})
FLOATING = frozenset({D.float16, D.bfloat16, D.float32, D.float64})
HALF = frozenset({D.float16, D.bfloat16})      # (PyTorch 2.13 refuses the same kernels for both)


_SETS = {"bool": BOOL, "integral": INTEGRAL, "floating": FLOATING, "half": HALF}

# op, the dtypes it refuses (sets joined by +), the name of PyTorch's kernel in its
# NotImplementedError (binary ops are checked on the promoted dtype)
_NOT_IMPLEMENTED = """
    floor               bool        floor_vml_cpu
    ceil                bool        ceil_vml_cpu
    round               bool        round_vml_cpu
    round_decimals      integral    round_cpu
    trunc               bool        trunc_vml_cpu
    bitwise_not         floating    bitwise_not_cpu
    pow                 bool        pow
    remainder           bool        remainder_cpu
    floor_divide        bool        div_floor_cpu
    div_trunc           bool        div_trunc_cpu
    bitwise_and         floating    bitwise_and_cpu
    bitwise_or          floating    bitwise_or_cpu
    bitwise_xor         floating    bitwise_xor_cpu
    clamp               bool        clamp_scalar_cpu
    clamp_min           bool        clamp_min_scalar_cpu
    clamp_max           bool        clamp_max_scalar_cpu
    clamp_tensor        bool        clamp_cpu
    softmax             integral    softmax_kernel_impl
    softmax_lastdim     integral    softmax_lastdim_kernel_impl
    log_softmax         integral    log_softmax_kernel_impl
    log_softmax_lastdim integral    log_softmax_lastdim_kernel_impl
    mm                  bool        addmm_impl_cpu_
    mv                  bool        addmv_impl_cpu
    dot                 bool        dot
    bmm                 bool        bmm
    cross               bool        cross
    trace               bool        trace
    addcmul             bool        addcmul_cpu_out
    fmod                bool        fmod_cpu
    frac                integral    frac_cpu
    logcumsumexp        integral    logcumsumexp_out_cpu
    median              bool        median_cpu
    searchsorted        bool        searchsorted_out_cpu
    index_add           bool        index_func_
    bincount            bool+floating bincount_cpu
    glu                 integral    glu_cpu
    max_pool1d          integral    max_pool1d_impl
    conv_transpose2d    bool        slow_conv_transpose2d_out_cpu
    conv_transpose3d    bool        slow_conv_transpose3d_out_cpu
    grid_sampler_2d     integral    grid_sampler_2d_cpu_kernel_impl
    cdist               half        cdist
    binary_cross_entropy integral   binary_cross_entropy
    rms_norm            integral    rms_norm
    bernoulli_p         integral    bernoulli_tensor_cpu_p_
    geometric_          bool        geometric_cpu
    log_normal_         integral    log_normal_cpu
    poisson             integral    poisson_cpu
    binomial            half        binomial_cpu
    arange              bool        arange_cpu
    linspace            bool        linspace_cpu
    logspace            bool        logspace_cpu
    randperm            bool        randperm
"""

_RULES = {
    op: (frozenset().union(*(_SETS[name] for name in dtypes.split("+"))), NotImplementedError,
         f"\"{kernel}\" not implemented for '{{dtype}}'")
    for op, dtypes, kernel in (line.split() for line in _NOT_IMPLEMENTED.strip().splitlines())
}
# the ops that refuse a dtype with their own RuntimeError, before any kernel
_RULES.update({
    "argmax": (BOOL, RuntimeError, "argmax(): does not support bool input"),
    "argmin": (BOOL, RuntimeError, "argmin(): does not support bool input"),
    "topk": (BOOL, RuntimeError, "topk does not support bool dtypes on CPU"),
    "mean": (INTEGRAL, RuntimeError, "mean(): could not infer output dtype. Input dtype must be either "
                                     "a floating point or complex dtype. Got: {dtype}"),
    "var": (INTEGRAL, RuntimeError, "std and var only support floating point and complex dtypes"),
    "norm": (INTEGRAL, RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as "
                                     "input. Got {dtype}"),
})


def not_implemented(kernel, dtype):
    """PyTorch's dispatcher error: kernel has no version for dtype."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{D.scalar_type_name(dtype)}'")


def check_found_dtype(expected, found):
    """PyTorch's TensorIterator check of an operand that must have the common dtype
    (binary_cross_entropy's target, binomial's prob, a unary op's out)."""
    if found is not expected:
        raise RuntimeError(f"Found dtype {D.scalar_type_name(found)} but expected {D.scalar_type_name(expected)}")


def check_same_dtype(expected, found):
    """PyTorch's kernel-side check that an operand has the dtype of the first one."""
    if found is not expected:
        raise RuntimeError(f"expected scalar type {D.scalar_type_name(expected)} but found "
                           f"{D.scalar_type_name(found)}")


def refuse(kernel, dtype, refused):
    """Raise not_implemented(kernel, dtype) when dtype is in `refused` (BOOL, INTEGRAL, ...):
    the check of an op whose kernel's name the call decides."""
    if dtype in refused:
        raise not_implemented(kernel, dtype)


def refuses(op, dtype):
    """Does PyTorch refuse op on dtype?"""
    rule = _RULES.get(op)
    return rule is not None and dtype in rule[0]


def check(op, dtype):
    """Raise PyTorch's exception if it refuses op on dtype; else return None."""
    rule = _RULES.get(op)
    if rule is not None and dtype in rule[0]:
        raise rule[1](rule[2].format(dtype=D.scalar_type_name(dtype)))


def _is_bool(v):
    dt = getattr(v, "dtype", None)
    return dt is D.bool_ if dt is not None else isinstance(v, bool)


def check_sub(a, b):
    """PyTorch's sub_check: no bool operand (tensor or Python bool) in a subtraction."""
    a_bool, b_bool = _is_bool(a), _is_bool(b)
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
