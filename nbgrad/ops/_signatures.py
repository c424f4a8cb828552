"""PyTorch's public signatures over the ops: its keyword names (`input=`, `other=`, `mat2=`,
`exponent=`...), the NumPy aliases its argument parser accepts (`axis=` for `dim=`,
`keepdims=` for `keepdim=`), `out=` on the functions that take it (ops/_out.py), and
argument errors that name the public function (`sum() got an unexpected keyword argument`),
never an internal helper (`_sum()`, `_compare.<locals>.compare()`)."""
import functools
import inspect
import re
import types

from ._out import call_with_out

# PyTorch's names of the leading positional parameters, where they are not ("input",)
_OTHER = ("input", "other")
TORCH_PARAMS = {name: _OTHER for name in (
    "add sub subtract mul multiply div divide true_divide remainder floor_divide atan2 maximum minimum xlogy "
    "hypot eq ne lt le gt ge greater less greater_equal less_equal not_equal logical_and logical_or logical_xor "
    "bitwise_and bitwise_or bitwise_xor matmul rsub").split()}
TORCH_PARAMS.update({
    "pow": ("input", "exponent"), "mm": ("input", "mat2"), "bmm": ("input", "mat2"), "mv": ("input", "vec"),
    "dot": ("input", "tensor"), "outer": ("input", "vec2"), "ger": ("input", "vec2"),
    "lerp": ("input", "end", "weight"), "masked_fill": ("input", "mask", "value"),
    "where": ("condition", "input", "other"), "cat": ("tensors",), "concat": ("tensors",),
    "concatenate": ("tensors",), "stack": ("tensors",), "hstack": ("tensors",), "vstack": ("tensors",),
    "index_select": ("input", "dim", "index"), "gather": ("input", "dim", "index"),
    "scatter_reduce": ("input", "dim", "index", "src", "reduce"),
    "index_copy": ("input", "dim", "index", "source"), "masked_scatter": ("input", "mask", "source"),
})

# ... where a method's differ (self is `input`), or its function takes *args (the in-place forms)
METHOD_PARAMS = {"where": ("input", "condition", "other"),
                 "addmm_": ("input", "mat1", "mat2"), "addbmm_": ("input", "batch1", "batch2"),
                 "baddbmm_": ("input", "batch1", "batch2"), "addmv_": ("input", "mat", "vec"),
                 "addr_": ("input", "vec1", "vec2"), "split": ("input", "split_size", "dim")}

# out=: the dtype rule of each function that takes it (see ops/_out.call_with_out)
_OUT_RULES = {}
for _names, _rule in (
        ("add sub subtract mul multiply div divide true_divide pow remainder floor_divide atan2 xlogy hypot "
         "maximum minimum eq ne lt le gt ge greater less logical_and logical_or logical_xor bitwise_and "
         "bitwise_or bitwise_xor exp exp2 log log2 log10 log1p expm1 sqrt rsqrt sin cos tan asin acos atan "
         "sinh cosh tanh sigmoid erf reciprocal logit square mean std var", "cast"), ("logsumexp", "floating"),
        ("neg negative abs absolute floor ceil round trunc sign sgn clamp clip clamp_min clamp_max", "found"),
        ("outer ger lerp logical_not", "cast"), ("bitwise_not", "found"),
        ("matmul mm bmm mv argmax argmin gather softmax log_softmax inverse", "expected"),
        ("sum prod", "dtype"), ("amax amin", "input"), ("any all", "bool"),
        ("max min sort topk", "tuple"), ("where", "where"),
        ("cat concat concatenate stack hstack vstack", "cat"), ("index_select masked_select", "self"),
        ("nonzero nonzero_static", "nonzero"), ("take", "take"), ("dot", "dot"), ("frobenius_norm", "expected"),
        ("zeros ones rand randn empty full arange range linspace logspace eye randint randperm", "creation"),
        ("fmax fmin gcd lcm ldexp nextafter bitwise_left_shift bitwise_right_shift greater_equal less_equal "
         "not_equal", "cast"), ("fix", "found"), ("cholesky cholesky_inverse cholesky_solve", "castable"),
        ("searchsorted bucketize", "searchsorted"),
        ("addcdiv addcmul addr copysign deg2rad rad2deg erfc erfinv fmod kron logaddexp logaddexp2 igamma igammac",
         "cast"), ("conj_physical frac hardshrink", "found"), ("cumsum cumprod nanmean nansum", "dtype"),
        ("asinh acosh atanh arcsin arccos arctan arcsinh arccosh arctanh arctan2 threshold", "cast"),
        ("index_add index_copy scatter_add scatter_reduce index_reduce msort argsort slice_scatter", "expected"),
        ("addmm addmv baddbmm cross scatter take_along_dim tril triu renorm isin lu_solve", "expected"),
        ("aminmax cummax cummin kthvalue median nanmedian mode frexp svd qr triangular_solve lu_unpack histogram "
         "slogdet", "tuple"),
        ("vdot", "dot"), ("quantile nanquantile", "quantile"), ("isneginf isposinf signbit", "not_boolean"),
        ("column_stack dstack row_stack", "cat"), ("inner", "tensordot"), ("bernoulli", "any_dtype"),
        *((name, name) for name in "logcumsumexp tensordot float_power heaviside histc nan_to_num narrow_copy addbmm "
                                   "mvlgamma diag matrix_power multinomial nuclear_norm".split()), ("diff", "cast")):
    _OUT_RULES.update(dict.fromkeys(_names.split(), _rule))
# the special functions (ops/special_functions.py): polygamma takes its order first
_OUT_RULES.update(dict.fromkeys("lgamma digamma polygamma i0 sinc angle".split(), "cast"))
TORCH_PARAMS["polygamma"] = ("n", "input")
OUT_RULES = _OUT_RULES

# torch.linalg: (the rule, the name PyTorch's autograd refusal gives: its ATen op)
LINALG_OUT = {"inv": ("expected", "linalg_inv_ex"), "det": ("expected", "_linalg_det"),
              "solve": ("expected", "_linalg_solve_ex"), "cholesky": ("expected", "linalg_cholesky_ex"),
              "svdvals": ("expected", "_linalg_svd"), "eigvalsh": ("expected", "_linalg_eigh"),
              "cross": ("expected", "linalg_cross"), "vector_norm": ("expected", "linalg_vector_norm"),
              "matrix_norm": ("linalg_norm", None), "norm": ("linalg_norm", None),
              "qr": ("tuple", "linalg_qr"), "eigh": ("tuple", "_linalg_eigh"), "svd": ("tuple", "_linalg_svd"),
              "slogdet": ("tuple", "_linalg_slogdet")}
# ... and those of ops/linalg_more.py
LINALG_OUT.update({"solve_triangular": ("found", "linalg_solve_triangular"), "pinv": ("pinv", "linalg_pinv"),
                   # (PyTorch's composites: the op that writes out refuses, or nothing does)
                   "matrix_power": ("expected", "matmul"), "lu_solve": ("expected", "linalg_lu_solve"),
                   "multi_dot": ("multi_dot", "mm"), "vecdot": ("vecdot", "sum"),
                   "cond": ("composite_cast", None), "matrix_rank": ("composite_cast", "sum"),
                   "tensorinv": ("composite_cast", None), "tensorsolve": ("composite_cast", None),
                   "lu_factor": ("tuple", "linalg_lu_factor_ex"), "lu_factor_ex": ("tuple", "linalg_lu_factor_ex"),
                   "lu": ("tuple", "linalg_lu"), "inv_ex": ("tuple", "linalg_inv_ex"),
                   "cholesky_ex": ("tuple", "linalg_cholesky_ex"), "solve_ex": ("tuple", "_linalg_solve_ex")})

# the public functions given PyTorch's keywords (those not listed keep their own signature)
KEYWORD_FUNCTIONS = set(TORCH_PARAMS) | set(_OUT_RULES) | set(
    "neg negative abs absolute exp sum prod mean std var amax amin argmax argmin any all max min logsumexp "
    "softmax log_softmax norm sort argsort topk flatten unflatten squeeze unsqueeze transpose swapaxes swapdims "
    "permute movedim narrow select unbind split chunk tensor_split diagonal reshape clone masked_select take "
    "nonzero argwhere isnan isinf isfinite logical_not bitwise_not relu sigmoid tanh det slogdet".split())


def named(fn, name):
    """fn whose code is named `name`, so that Python's own argument errors name the public
    function; a copy when fn's code has another name (fn may serve several names)."""
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_name == name and \
            getattr(fn.__code__, "co_qualname", name) == name:
        return fn
    code = fn.__code__.replace(co_name=name, **({"co_qualname": name} if hasattr(fn.__code__, "co_qualname") else {}))
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__dict__.update(fn.__dict__)
    copy.__doc__ = fn.__doc__
    copy.__module__ = fn.__module__
    copy.__qualname__ = name
    return copy


def _parameters(fn):
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _positional_keywords(fn, name, method):
    """PyTorch's names of the leading parameters of a function that takes them as *args
    (the op table's functions): given as keywords, they are passed by position."""
    params = _parameters(fn)
    if not params or params[0].kind is not params[0].VAR_POSITIONAL:
        return ()
    torch_names = (METHOD_PARAMS if method else TORCH_PARAMS).get(name) or TORCH_PARAMS.get(name, ("input",))
    return torch_names[1:] if method else torch_names


def _renames(fn, name, method):
    """{PyTorch's keyword: fn's parameter} for the leading parameters and the NumPy aliases."""
    params = _parameters(fn)
    if params is None:
        return {}
    ours = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    torch_names = (METHOD_PARAMS if method else TORCH_PARAMS).get(name) or TORCH_PARAMS.get(name, ("input",))
    renames = {}
    for i, torch_name in enumerate(torch_names):
        if method and i == 0 and torch_name == "input":
            continue                    # self
        if i < len(ours) and ours[i] != torch_name and torch_name not in ours:
            renames[torch_name] = ours[i]
    names = {p.name for p in params}
    if "dim" in names:
        renames["axis"] = "dim"
    if "keepdim" in names:
        renames["keepdims"] = "keepdim"
    return renames


def _wrap(fn, name, renames, out_rule, positional=(), grad_name=None):
    inner = named(fn, name)
    # (a function marked passes_out reads its out= itself, as PyTorch's Python does: torch.norm hands
    # it to linalg.vector_norm, tensordot reads its dims first)
    passes_out = getattr(fn, "passes_out", False)
    takes_out = out_rule is not None and not passes_out
    # an op table function names its row in its errors: under another name (absolute,
    # negative) its keywords are checked here
    keywords = getattr(fn, "keywords", None) if getattr(fn, "__name__", name) != name else None
    # an op whose own `out=None` parameter is not read (nbgrad.det: PyTorch's det takes no out)
    refuses_out = not takes_out and _has(fn, "out") and not passes_out
    if not renames and not takes_out and not positional and keywords is None and not refuses_out:
        return inner

    def public(*args, **kwargs):
        if not kwargs:
            return inner(*args)
        if keywords is not None:
            for k in kwargs:
                if k not in keywords and k not in positional and k not in renames and not (takes_out and k == "out"):
                    raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        for i, keyword in enumerate(positional):
            if keyword in kwargs:
                if len(args) != i:
                    raise TypeError(f"{name}() got multiple values for argument '{keyword}'" if len(args) > i
                                    else f"{name}() missing required argument '{positional[len(args)]}'")
                args += (kwargs.pop(keyword),)
        for alias in renames.keys() & kwargs.keys():
            target = renames[alias]
            if target in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{target}'")
            kwargs[target] = kwargs.pop(alias)
        if refuses_out and "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        if takes_out and "out" in kwargs:
            out = kwargs.pop("out")
            if out is not None:
                return call_with_out(name, inner, out_rule, args, kwargs, out, grad_name)
        return inner(*args, **kwargs)
    public = functools.update_wrapper(public, fn)
    public.__wrapped__ = fn
    return named(public, name)


# the ATen op named by PyTorch's out= refusal under autograd, where it is not the function's
_OUT_GRAD_NAMES = {"frobenius_norm": "norm", "outer": "mul", "ger": "mul", "kron": "mul", "cross": "linalg_cross",
                   "column_stack": "cat", "hstack": "cat", "vstack": "cat", "dstack": "cat", "row_stack": "cat",
                   "chain_matmul": "mm", "nanmean": "nansum", "take_along_dim": "gather", "inverse": "linalg_inv_ex",
                   "fix": "trunc", "square": "pow", "true_divide": "div", "float_power": "pow", "diff": "sub",
                   "slogdet": "_linalg_slogdet", "msort": "sort"}


def public_function(fn, name):
    """The function nbgrad.<name>: PyTorch's keywords and out=."""
    return _wrap(fn, name, _renames(fn, name, method=False), OUT_RULES.get(name),
                 _positional_keywords(fn, name, method=False), _OUT_GRAD_NAMES.get(name))


def public_method(fn, name):
    """The method Tensor.<name>: PyTorch's keywords (no out=, as PyTorch's methods)."""
    return _wrap(fn, name, _renames(fn, name, method=True), None, _positional_keywords(fn, name, method=True))


# PyTorch's deprecated overloads that take their Number first (its deprecated.yaml): old
# optimizer code's p.data.add_(-lr, grad), exp_avg_sq.addcmul_(1 - beta2, grad, grad)
_NUMBER_FIRST = {"add": ("alpha", "other"), "sub": ("alpha", "other"),
                 "addcmul": ("value", "tensor1", "tensor2"), "addcdiv": ("value", "tensor1", "tensor2")}
_NUMBER_FIRST_WARNED = []


def number_first(name, number, tensors):
    """The number (a Python one: a 0-dim tensor's value) when (number, *tensors) are the
    arguments of the deprecated Number-first overload of `name` (add, sub, addcmul, addcdiv
    or their in-place forms, a method's: after self), having given PyTorch's warning: once
    per process for all of them, as PyTorch's parser.  None when they are not."""
    from .._checks import is_number
    from .._tensor import Tensor
    if not is_number(number) or not all(isinstance(t, Tensor) for t in tensors):
        return None
    number_name, *tensor_names = _NUMBER_FIRST[name.rstrip("_")]
    tensor_params = ", ".join(f"Tensor {n}" for n in tensor_names)
    warn_deprecated_overload(name, f"{name}(Number {number_name}, {tensor_params})",
                             f"{name}({tensor_params}, *, Number {number_name} = 1)")
    return number.item() if isinstance(number, Tensor) else number


def warn_deprecated_overload(name, deprecated, *instead):
    """PyTorch's parser's warning for a call matching one of deprecated.yaml's signatures: once
    per process for all of them."""
    if not _NUMBER_FIRST_WARNED:
        _NUMBER_FIRST_WARNED.append(name)
        from .._warnings import warn_user
        warn_user(f"This overload of {name} is deprecated:\n\t{deprecated}\nConsider using one of the following "
                  "signatures instead:" + "".join(f"\n\t{s}" for s in instead), UserWarning)


def with_out(fn, name, rule, grad_name):
    """fn taking out= under the dtype rule `rule` (torch.special's functions: special_<name>)."""
    return _wrap(fn, name, {}, rule, (), grad_name)


def linalg_functions(namespace):
    """{name: public form} of torch.linalg's functions: out= (which the ops' own `out=None`
    parameters do not read), errors under PyTorch's names (linalg_inv())."""
    found = {}
    for name, (rule, grad_name) in LINALG_OUT.items():
        fn = namespace.get(name)
        if isinstance(fn, types.FunctionType):
            public = "linalg_" + name
            found[name] = _wrap(fn, public, {"input": "A"} if _has(fn, "A") else {}, rule, (), grad_name)
    return found


def _has(fn, parameter):
    return any(p.name == parameter for p in (_parameters(fn) or ()))


def public_functions(namespace):
    """{name: public form} for the names of KEYWORD_FUNCTIONS found in namespace, and every
    other public function of the namespace under its own name (asarray, not as_tensor); each
    refuses an argument that is not a tensor where it reads one as PyTorch does (TypeError)."""
    found = {}
    for name, fn in namespace.items():
        if not isinstance(fn, types.FunctionType) or name.startswith("_"):
            continue
        found[name] = tensor_arguments(public_function(fn, name) if name in KEYWORD_FUNCTIONS else named(fn, name),
                                       name, "nbgrad")
    return found


def with_tensor_arguments(namespace, module, prefix=""):
    """{name: tensor_arguments(fn)} for every public function of a module's namespace
    (nbgrad.nn.functional, nbgrad.linalg, nbgrad.special); errors name prefix + name
    (PyTorch's linalg_cross())."""
    return {name: tensor_arguments(fn, prefix + name, module, name) for name, fn in namespace.items()
            if isinstance(fn, types.FunctionType) and not name.startswith("_")}


_NO_ATTRIBUTE = re.compile(r"^'(\w+)' object has no attribute '(\w+)'$")


# Tensor methods left unwrapped by tensor_methods(): the calls of a training step and of small-op
# code, where the wrapper's ~0.1 us would show (W5, W8, the size sweep); PyTorch's TypeError for a
# non-tensor argument is theirs only where they check it themselves
HOT_METHODS = frozenset("""
    add sub mul div neg pow exp log tanh sigmoid relu sqrt rsqrt abs square sum mean max min amax amin argmax
    view reshape expand contiguous unsqueeze squeeze t transpose permute flatten select narrow
    long float double half int bool to type detach detach_ clone size dim numel item tolist
    add_ sub_ mul_ div_ zero_ fill_ copy_ clamp clamp_ clamp_min_ addcmul_ addcdiv_ lerp_ sqrt_ uniform_ normal_
    _accumulate_ masked_fill masked_fill_ matmul mm bmm requires_grad_ backward retain_grad
    register_hook data_ptr stride storage_offset is_contiguous""".split())


def tensor_methods(methods):
    """{name: method} with every method but the HOT_METHODS and the operators wrapped as
    tensor_arguments wraps functions (positions counted after self, as PyTorch's methods count
    them: "addmm_(): argument 'mat1' (position 1) must be Tensor, not int")."""
    return {name: fn if name in HOT_METHODS or name.startswith("__") else
            tensor_arguments(fn, name, "nbgrad", "Tensor." + name, method=True)
            for name, fn in methods.items()}


def tensor_arguments(fn, name, module, attribute=None, method=False):
    """fn, whose AttributeError from reading a tensor's attribute on an argument that is not
    a tensor (an int's .dim, a tuple's ._dtype) is PyTorch's argument parser's TypeError
    naming the argument: "diff(): argument 'input' (position 1) must be Tensor, not int".
    A try costs nothing until something raises: the wrapper's cost is its call (~0.1 us).
    (Its frame is not where warnings point: nbgrad._warnings.warn_user skips nbgrad's frames.)
    `module`: the namespace the wrapper is public in, where pickle finds it (as `attribute`,
    by default `name`)."""
    if not isinstance(fn, types.FunctionType) or getattr(fn, "_tensor_arguments", False):
        return fn
    # ops/_schemas.py has the schemas of torch.<name>, Tensor.<name>, torch.linalg's and
    # torch.special's functions, and of the op each nn.functional function passes its arguments
    # to (a number read from a tensor: PyTorch's Python reads it first)
    checked = module in ("nbgrad", "nbgrad.linalg", "nbgrad.special")
    functional = module == "nbgrad.nn.functional"

    def parser_error(args, kwargs):
        from ._argument_check import argument_error, functional_argument_error
        if functional:
            return functional_argument_error(name, fn, args, kwargs)
        return argument_error(name, args[1:] if method else args, kwargs, method)
    # PyTorch's parser refuses before any work, also a call that nbgrad's op computes
    # (torch.max(x, keepdim=True), torch.add(x, y, 2), x.rot90(t), F.pad(x, t)): such a call
    # is refused (_ParsedCalls); PyTorch's Python-level functions read their arguments
    # themselves (an nn.functional function is checked only where its Python passes them to
    # one op, _schemas.FUNCTIONAL), and the in-place methods of ops/__init__._inplace_method
    # parse theirs before any write
    if functional:
        from ._schemas import FUNCTIONAL, PREAMBLE_MIRRORED
        prechecked = name in FUNCTIONAL and name not in PYTHON_LEVEL["nbgrad.nn.functional"]
        written_in_python = not prechecked or name in PREAMBLE_MIRRORED
    else:
        written_in_python = name in PYTHON_LEVEL["Tensor" if method else "nbgrad"]
        prechecked = checked and not written_in_python and \
            name not in _NOT_PRECHECKED and not getattr(fn, "_parses_first", False)
    parsed = _ParsedCalls(parser_error, _writes(name, fn, functional)) if prechecked else None
    known = parsed.known if parsed is not None else None

    def public(*args, **kwargs):
        refused = None
        if known is not None:
            key = call_kind(args, kwargs, functional)
            if known.get(key) is not True:
                refused = parsed.check(key, args, kwargs)
        try:
            result = fn(*args, **kwargs)
        except AttributeError as e:
            if functional:
                _dispatch_flag_first(name, fn, args, kwargs)
            if functional and _read_by_python(e, fn, name, args, kwargs):
                raise       # (PyTorch's Python reads input.dim() of an int too)
            if written_in_python and _read_in_own_body(e, ("F." if functional else "torch.") + name, fn, args,
                                                       kwargs):
                raise       # (nbgrad's copy of PyTorch's Python read it: lp_pool1d's input.pow(p))
            if refused is not None:
                raise refused from None
            error = _not_a_tensor(e, fn, name, args, kwargs, method)
            if error is None and (checked or functional):
                # an attribute read on a value made from an argument PyTorch's parser refuses
                error = parser_error(args, kwargs)
            if error is None:
                raise
            raise error from e
        except (RuntimeError, ValueError, IndexError, NotImplementedError, TypeError, ArithmeticError) as e:
            # (ArithmeticError: a number PyTorch's parser refuses, then divided by or overflowed)
            if getattr(e, "python_level", False):
                raise       # (raised where PyTorch's Python raises it, before its parser)
            if checked and type(e) is TypeError and "unexpected keyword argument" in str(e) \
                    and (var_keyword := _var_keyword(fn, name, method)) in kwargs \
                    and str(e).endswith(f"unexpected keyword argument '{var_keyword}'"):
                # (x.new_zeros(size=(2,)): the var-args by their keyword, before any work)
                from ._argument_check import given_by_keyword
                rest = dict(kwargs)
                given = {var_keyword: rest.pop(var_keyword)}
                head = args[:1] if method else ()
                return public(*head, *given_by_keyword(name, args[len(head):], given, method), **rest)
            if functional:
                _dispatch_flag_first(name, fn, args, kwargs)
            if refused is not None:
                raise refused from None     # (PyTorch's parser refuses before any work, whatever the op says)
            error = _tensor_for_a_scalar(e, fn, name, module, args, kwargs, method)
            if error is None and not isinstance(e, TypeError) and \
                    (checked or (functional and getattr(e, "scalar_of", None) is None)):
                # would PyTorch's parser have refused the arguments before any work?
                error = parser_error(args, kwargs)
            if error is None:
                raise
            raise error from e
        if refused is not None:
            raise refused           # (what nbgrad's op computed, PyTorch's parser refuses)
        return result
    public = functools.update_wrapper(public, fn)
    public._tensor_arguments = True
    # (pickled by reference as module.name: the namespace that holds the wrapper)
    public = named(public, name if method else attribute or name)
    public.__module__, public.__qualname__ = module, attribute or name
    return public


def _var_keyword(fn, name, method):
    """PyTorch's keyword for fn's var-args (torch.zeros' size), where fn takes var-args."""
    params = _parameters(fn) or ()
    if not any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    from ._argument_check import var_keyword
    return var_keyword(("Tensor." if method else "torch.") + name)


# the factories: what they would allocate is the refused arguments' (hann_window(2 ** 31,
# layout=t) took 8 GB before its refusal), so their refusal comes first, as an in-place one's
_ALLOCATING = frozenset("""zeros ones empty full rand randn randint randperm arange range linspace logspace eye
    empty_strided tril_indices triu_indices hann_window hamming_window blackman_window bartlett_window
    kaiser_window zeros_like ones_like empty_like full_like rand_like randn_like randint_like""".split())


# (its schemas do not say all PyTorch takes: set_'s defaults)
_NOT_PRECHECKED = frozenset(("set_",))
# the argument types whose values a functional call's verdict depends on (its flags, its reduction)
_BY_VALUE = (bool, str)


def _writes(name, fn, functional):
    """(args, kwargs) -> whether a call writes into a tensor it was given (an in-place function,
    out=, nn.functional's inplace=True) or allocates what it was asked for (a factory): a
    refusal of the parser comes before the work then."""
    if name.endswith("_") or name in _ALLOCATING:
        return lambda args, kwargs: True
    params = [p.name for p in _parameters(fn) or ()] if functional else []
    position = params.index("inplace") if "inplace" in params else None

    def writes(args, kwargs):
        if kwargs.get("out") is not None:
            return True
        if position is None:
            return False
        flag = kwargs["inplace"] if "inplace" in kwargs else args[position] if position < len(args) else False
        try:
            return bool(flag)
        except (RuntimeError, ValueError, TypeError):
            return False
    return writes


def call_kind(args, kwargs, by_value=False):
    """The key _ParsedCalls remembers a call's verdict by: its arguments' types (a list's, its
    elements' too: (0, 1.5) does not parse as (0, 1) does) and its keywords' names; by_value (an
    nn.functional call, whose op a flag's value chooses, inplace=, and whose reduction= is a
    value): the bools and strings themselves."""
    if by_value:
        key = tuple(a if type(a) in _BY_VALUE else type(a) for a in args)
        if kwargs:
            key += (*kwargs, *(v if type(v) in _BY_VALUE else type(v) for v in kwargs.values()))
    else:
        key = (*map(type, args), *kwargs, *map(type, kwargs.values())) if kwargs else tuple(map(type, args))
    if tuple in key or list in key:
        key += tuple(tuple(map(type, a)) for a in (*args, *kwargs.values()) if type(a) in (tuple, list))
    return key


class _ParsedCalls:
    """PyTorch's argument-parser check of a public function's calls, at the cost of a
    dictionary lookup (~0.2 us): the full check (argument_check.argument_error, 10-50 us) runs
    once for each kind of call (the types of its arguments, of a list's elements, and the names
    of its keywords: the caller's key), which is then known to parse, unless a tensor given there
    parses by its value (a 0-dim tensor for a Number: such calls are checked each time).  A call
    the parser refuses still runs, so that what PyTorch's own Python raises first (nbgrad's copy
    of it: errors tagged python_level, a dispatch flag's truth test, an attribute PyTorch's Python
    reads) stays first; any other outcome, a result or another error, gives way to the parser's
    TypeError.  A call that writes into a tensor or allocates is refused before it runs.
    A keyword starting with "_" is nbgrad's own (an internal caller's): not checked."""
    __slots__ = ("error", "known", "writes")
    _LIMIT = 512            # (kinds of call remembered per function)

    def __init__(self, error, writes):
        self.error, self.known, self.writes = error, {}, writes

    def check(self, key, args, kwargs):
        """The parser's TypeError for the call, or None; raised now for a call that writes
        into a tensor or allocates (`writes`: a refused call writes nothing, as PyTorch's
        parser refuses before any work)."""
        if kwargs and any(k[:1] == "_" for k in kwargs):
            return None
        error = self.error(args, kwargs)
        if error is not None:
            if self.writes(args, kwargs):
                raise error
            return error
        if key not in self.known and len(self.known) < self._LIMIT:
            self.known[key] = not _holds_tensor(args, kwargs) or all(
                self.error(*_with_tensors(args, kwargs, probe)) is None for probe in _probes())
        return None


def _holds_tensor(args, kwargs):
    from .._tensor import Tensor
    return any(isinstance(a, Tensor) or (type(a) in (list, tuple) and any(isinstance(e, Tensor) for e in a))
               for a in (*args, *kwargs.values()))


def _with_tensors(args, kwargs, probe):
    """(args, kwargs) with every tensor (an element of a list too) replaced by probe."""
    from .._tensor import Tensor

    def swap(v):
        if isinstance(v, Tensor):
            return probe
        return type(v)(swap(e) for e in v) if type(v) in (list, tuple) else v
    return tuple(swap(a) for a in args), {k: swap(v) for k, v in kwargs.items()}


_PROBES = []


def _probes():
    """Tensors that parse differently where a tensor's value matters: of many elements and
    requiring grad (refused for a Number, an int), 0-dim integral, one integral element."""
    if not _PROBES:
        from .. import _dtype as D
        from .._creation import zeros
        _PROBES.extend((zeros(2, 2, requires_grad=True), zeros((), dtype=D.int64), zeros(1, dtype=D.int64)))
    return _PROBES


# {namespace: PyTorch's functions written in Python}, which read a tensor given for a number
# themselves (float(t): ValueError; bool(t): RuntimeError) rather than through the argument parser
PYTHON_LEVEL = {
    "nbgrad": frozenset("""
        sym_int sym_float sym_not sym_max sym_min sym_ite einsum unique unique_consecutive atleast_1d atleast_2d
        atleast_3d broadcast_shapes broadcast_tensors block_diag cartesian_prod cdist chain_matmul meshgrid norm split
        stft istft tensordot unravel_index lu pca_lowrank svd_lowrank lobpcg""".split()),
    "nbgrad.nn.functional": frozenset("""
        dropout alpha_dropout feature_alpha_dropout dropout1d dropout2d dropout3d interpolate upsample upsample_nearest
        upsample_bilinear adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d
        adaptive_max_pool1d_with_indices adaptive_max_pool2d_with_indices adaptive_max_pool3d_with_indices
        max_unpool1d max_unpool2d max_unpool3d softmin""".split()),
    "Tensor": frozenset("unique unique_consecutive split norm lu stft istft unflatten tile".split()),
}
# ... and the parameters F's Python reads itself wherever they appear (if inplace:, the legacy
# size_average/reduce pair)
PYTHON_LEVEL_PARAMETERS = frozenset(("inplace", "size_average", "reduce"))


# The kinds PyTorch's parser gives parameters that are never tensors, by name across its API:
# the word of its TypeError, and where a failed conversion was of a tensor made from an argument
# (`row < 0` is a new tensor), the argument it blames
NUMBER_PARAMETERS = dict.fromkeys(
    "row col offset chunks sections dim dim0 dim1 diagonal n k bins groups num_groups num_classes steps".split(),
    "int")
NUMBER_PARAMETERS.update(dict.fromkeys(
    "kernel_size stride padding dilation output_size output_padding normalized_shape pad size shape sizes "
    "split_size_or_sections".split(), "tuple of ints"))
NUMBER_PARAMETERS.update(dict.fromkeys("start end step base".split(), "Number"))
NUMBER_PARAMETERS.update(eps="float")
NUMBER_PARAMETERS.update(dict.fromkeys(
    "keepdim unbiased largest sorted descending stable return_inverse return_counts upper left".split(), "bool"))


def _where(param, position):
    """An argument as PyTorch's messages name it: 'dim' (position 2), or its position alone."""
    return f"'{param}' (position {position})" if param else f"{position}"


def _argument_name(fn, name, i, method):
    """(PyTorch's name for positional argument i, its position as PyTorch counts it)."""
    params = _parameters(inspect.unwrap(fn)) or []
    ours = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    theirs = (METHOD_PARAMS.get(name) if method else None) or TORCH_PARAMS.get(name, ())
    # listed, or ours (a leading x, a or t is PyTorch's input)
    param = theirs[i] if i < len(theirs) else \
        ("input" if i == 0 and ours[0] in ("x", "a", "t", "self") else ours[i]) if i < len(ours) else None
    return param, (i if method else i + 1)


def _tensor_for_a_scalar(error, fn, name, module, args, kwargs, method):
    """PyTorch's argument-parser TypeError for a tensor given where a number is read (the
    error carries the tensor that could not become one: Tensor.item, __bool__, __index__...),
    when that tensor is an argument or an element of one; else None."""
    found = getattr(error, "scalar_of", None)
    if found is None or name in PYTHON_LEVEL.get("Tensor" if method else module, ()):
        return None
    from .._tensor import Tensor
    tensor, kind = found
    # (keyword or None, the argument, PyTorch's name for it, its position) of each argument
    arguments = [(None, a) + _argument_name(fn, name, i, method) for i, a in enumerate(args) if not (method and i == 0)]
    arguments += [(k, a, k, None) for k, a in kwargs.items()]
    # the tensor itself, or a tuple argument holding it; else (a tensor made from an argument)
    # the first tensor given for a parameter that is never one
    blamed = next(((k, p, pos, None) for k, a, p, pos in arguments if a is tensor), None) or \
        next(((k, p, pos, [e is tensor for e in a].index(True)) for k, a, p, pos in arguments
              if isinstance(a, (tuple, list)) and any(e is tensor for e in a)), None) or \
        next(((k, p, pos, None) for k, a, p, pos in arguments if isinstance(a, Tensor) and p in NUMBER_PARAMETERS), None)
    if blamed is None or blamed[1] in PYTHON_LEVEL_PARAMETERS:
        return None
    k, param, position, element = blamed
    kind = NUMBER_PARAMETERS.get(param, kind)
    where = f"'{k}'" if k is not None else _where(param, position)
    if element is None:
        return TypeError(f"{name}(): argument {where} must be {kind}, not Tensor")
    return TypeError(f"{name}(): argument {where} must be tuple of ints, but found element of type Tensor at "
                     f"pos {element}")


def _dispatch_flag_first(name, fn, args, kwargs):
    """F.max_pool2d & co. are PyTorch's boolean_dispatch: `if return_indices` runs before either
    function (_schemas.DISPATCH_FLAGS), and F.celu & co. test `if inplace:` before their op
    parses anything (the flag of their FUNCTIONAL branches), so a tensor of many elements there
    is bool()'s RuntimeError first."""
    from ._schemas import DISPATCH_FLAGS, FUNCTIONAL
    flag = DISPATCH_FLAGS.get(name)
    if flag is not None:
        # (boolean_dispatch reads its flag by keyword, else by position, before any binding: too
        # many arguments are the flag's error first)
        names = [p.name for p in _parameters(inspect.unwrap(fn)) or ()]
        if flag in kwargs:
            bool(kwargs[flag])
        elif flag in names and names.index(flag) < len(args):
            bool(args[names.index(flag)])
        return
    flag = FUNCTIONAL.get(name, ((None,),))[0][0]
    if flag is not None:
        from ._argument_check import _bound
        bound = _bound(fn, args, kwargs)
        if bound is not None and flag in bound[1]:
            bool(bound[1][flag])


# the code of helpers that are part of a function's copy of PyTorch's Python (python_body)
_PYTHON_BODY_CODES = set()


def python_body(fn):
    """Mark fn, a helper a public function calls, as part of that function's copy of PyTorch's
    Python: an AttributeError it raises on an argument is the one PyTorch's Python raises
    (F.embedding_bag's checks read offsets.dim())."""
    _PYTHON_BODY_CODES.add(fn.__code__)
    return fn


def _read_in_own_body(error, key, fn, args, kwargs):
    """Whether an AttributeError on an argument's type was raised in the body of the function
    the wrapper called (or a helper marked python_body; not in an op it called), for an attribute
    PyTorch's Python reads of its parameters (_schemas.PYTHON_ATTRIBUTES): that body is nbgrad's
    copy of PyTorch's Python, which raised the same there (lp_pool1d's input.pow of an int)."""
    from ._schemas import PYTHON_ATTRIBUTES
    from ._argument_check import _bound
    m = _NO_ATTRIBUTE.match(str(error))
    read = PYTHON_ATTRIBUTES.get(key)
    bound = _bound(fn, args, kwargs) if m is not None and read is not None else None
    if bound is None or not any(type(bound[1].get(param)).__name__ == m.group(1) for param, _, attribute in
                                (pair.partition(".") for pair in read.split(",")) if attribute == m.group(2)):
        return False
    tb = error.__traceback__.tb_next        # (the called function's frame, past keyword wrappers)
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    while tb is not None and tb.tb_next is not None and tb.tb_next.tb_frame.f_code in _PYTHON_BODY_CODES:
        tb = tb.tb_next
    return tb is not None and tb.tb_next is None


def _read_by_python(error, fn, name, args, kwargs):
    m = _NO_ATTRIBUTE.match(str(error))
    if m is None:
        return False
    from ._argument_check import read_by_python
    return read_by_python(name, fn, m.group(1), args, kwargs)


def _not_a_tensor(error, fn, name, args, kwargs, method=False):
    """The TypeError for an AttributeError raised on an argument of another type than Tensor
    (the first of the type the error names), or None when no argument is of that type.
    method: args[0] is self, and PyTorch counts positions after it."""
    from .._tensor import Tensor
    m = _NO_ATTRIBUTE.match(str(error))
    if m is None:
        return None
    kind = m.group(1)
    params = _parameters(fn)
    if not method and params and params[0].kind is params[0].VAR_POSITIONAL and name in PYTHON_LEVEL["nbgrad"]:
        # (PyTorch's Python passes *tensors to its op as one list: block_diag, cartesian_prod)
        i = next((i for i, a in enumerate(args) if not isinstance(a, Tensor) and type(a).__name__ == kind), None)
        return None if i is None else TypeError(f"expected Tensor as element {i} in argument 0, but got {kind}")
    # (the first of that type, passing over the parameters that are never tensors: index_select's
    # dim is an int beside an int index)
    for i, a in enumerate(args):
        if not isinstance(a, Tensor) and type(a).__name__ == kind:
            param, position = _argument_name(fn, name, i, method)
            if param in NUMBER_PARAMETERS:
                continue
            return TypeError(f"{name}(): argument {_where(param, position)} must be Tensor, not {kind}")
    for k, a in kwargs.items():
        if not isinstance(a, Tensor) and type(a).__name__ == kind and k not in NUMBER_PARAMETERS:
            return TypeError(f"{name}(): argument '{k}' must be Tensor, not {kind}")
    return None
