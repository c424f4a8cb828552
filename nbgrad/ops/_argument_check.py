"""PyTorch's argument-parser TypeError for a call.

PyTorch checks every argument of a C-parsed function against its schemas before any work:
`torch.index_add(x, 5, idx, 4)` is "index_add(): argument 'source' (position 4) must be Tensor,
not int" however wrong the dim is.  nbgrad's ops read their arguments as they go; ops/_signatures.py
asks `argument_error` once for each kind of call (its _ParsedCalls), and again when a call failed,
whether PyTorch's parser would refuse the arguments, and raises its TypeError in that case, in its
words (parameters read in order, the keywords listed in the order its unordered_map gives them).
The schemas are PyTorch's (ops/_schemas.py, generated from its type stubs and aten's schemas).
An nn.functional function is checked against the op PyTorch's Python passes its arguments to
(_schemas.FUNCTIONAL); where that Python reads an argument's attribute first, a non-tensor
keeps PyTorch's AttributeError (_schemas.PYTHON_READ).
"""

import inspect
import numbers

import numpy as np

from .._checks import is_bool_tensor_of_one, is_float, is_int, is_int_list_element, is_integer_tensor, is_number, \
    symint_of_bool_error

_PARSED = {}

# an argument PyTorch's Python function passes on transformed (a reduction's enum): not checked
_ANY = object()

# PyTorch's words for the kinds in its messages
_WORDS = {"T": "Tensor", "i": "int", "j": "int", "f": "float", "n": "Number", "b": "bool", "I": "tuple of ints",
          "J": "tuple of ints", "F": "tuple of floats", "N": "tuple of Numbers", "L": "tuple of Tensors", "s": "str",
          "d": "torch.dtype", "D": "torch.device", "y": "torch.layout", "M": "torch.memory_format"}


# the deprecated Number-first overloads of methods that PyTorch's parser still takes (its
# deprecated.yaml; the type stubs list only torch.<name>'s): x.addcmul(0.5, t1, t2)
_DEPRECATED = {"Tensor.add": "alpha:n,other:T", "Tensor.sub": "alpha:n,other:T",
               "Tensor.addcmul": "value:n,tensor1:T,tensor2:T", "Tensor.addcdiv": "value:n,tensor1:T,tensor2:T"}
for _name, (_t1, _t2) in {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
                          "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}.items():
    _DEPRECATED["Tensor." + _name] = f"beta:n,{_t1}:T,{_t2}:T;beta:n,alpha:n,{_t1}:T,{_t2}:T"
_DEPRECATED.update({key + "_": value for key, value in _DEPRECATED.items()})


def _overloads(key):
    found = _PARSED.get(key)
    if found is None:
        from ._schemas import SCHEMAS
        text = SCHEMAS.get(key)
        if text is not None and key in _DEPRECATED:
            text += ";" + _DEPRECATED[key]
        parsed = [] if text is None else [_parse(o) for o in text.split(";")]
        # (the stubs list some overloads twice, their keywords in another order, optional or not,
        # a list of ints or of SymInts: the first kept, as a SymInt one where there is one, the
        # parser's own)
        unique = {}
        for p, v, k in parsed:
            same = (tuple((name, kinds.replace("J", "I"), d) for name, kinds, d in p), v,
                    frozenset((name, kinds.replace("o", "")) for name, kinds, _ in k))
            if same not in unique:
                unique[same] = (p, v, k)
            elif any("J" in kinds for _, kinds, _ in p):    # (the SymInt one's kinds, the first one's order)
                unique[same] = (p,) + unique[same][1:]
        found = _PARSED[key] = _varargs_merged(tuple(unique.values()))
    return found


def _varargs_merged(overloads):
    """The stubs' `flip(dims: _size)` and `flip(*dims: _int)` are one signature of PyTorch's
    parser, `flip(IntArrayRef dims)`, whose first parameter also takes the positional
    arguments as its elements when the first is an int: one overload, its var marked (name, "*")."""
    merged = []
    for p, v, k in overloads:
        if v is not None and not p and any(q and q[0][0] == v[0] and _listed(q[0][1]) and w is None
                                           and [n for n, _, _ in kw] == [n for n, _, _ in k] for q, w, kw in overloads):
            continue
        if len(p) == 1 and v is None and _listed(p[0][1]):
            var = next((w for q, w, _ in overloads if not q and w is not None and w[0] == p[0][0]), None)
            if var is not None:
                v = (p[0][0], "*" + var[1])      # (its kinds: "j", a SymInt list)
        merged.append((p, v, k))
    return tuple(merged)


def _listed(kinds):
    """Whether kinds take an int list (I) or a SymInt list (J)."""
    return "I" in kinds or "J" in kinds


def var_keyword(key):
    """The keyword of schema key's var-args list ("Tensor.view": "size"), or None: PyTorch's
    parser takes `x.view(size=(2, 3))` as `x.view(2, 3)`."""
    for _, var, _ in _overloads(key):
        if var is not None:
            return var[0]
    return None


def given_by_keyword(name, args, kwargs, method=True):
    """The var-args of torch.<name> (method: Tensor.<name>) given by their keyword (kwargs:
    {"size": (2, 3)}), as positional ones; PyTorch's parser's refusal where it refuses them
    (with positional arguments too, or not a list)."""
    error = argument_error(name, args, kwargs, method)
    if error is not None:
        raise error
    return tuple(kwargs.values())


def _parse(overload):
    """(positional, the *args parameter or None, keyword-only); each parameter is
    (name, kinds, has a default)."""
    positional, keyword, var = [], [], None
    keyword_only = False
    for item in overload.split(",") if overload else ():
        if item == "*":
            keyword_only = True
            continue
        name, kinds = item.split(":")
        if kinds.startswith("*"):
            var, keyword_only = (name, kinds[1:]), True
            continue
        if name == "layout" and kinds.startswith("?"):
            kinds = "yo" + kinds[1:]        # (the stubs' _layout: a torch.layout or None)
        (keyword if keyword_only else positional).append((name, kinds.rstrip("="), kinds.endswith("=")))
    return tuple(positional), var, tuple(keyword)


def _fits_one(kind, v):
    from .._tensor import Tensor
    from .._dtype import dtype as _dtype_cls
    if kind == "T":
        return isinstance(v, Tensor)
    if kind == "i":
        return is_int(v) or is_integer_tensor(v)
    if kind == "j":         # (a bool tensor passes the type check: symint_of_bool_error when unpacked)
        return is_int(v) or is_integer_tensor(v, any_dim=True) or is_bool_tensor_of_one(v)
    if kind == "f":
        return is_float(v)
    if kind == "n":
        return is_number(v)
    if kind == "b":
        return isinstance(v, (bool, np.bool_))
    if kind == "g":         # (an element of a float list: a Python or NumPy number, never a tensor)
        return isinstance(v, (numbers.Real, np.number)) and not isinstance(v, Tensor)
    if kind in "IJFNL":
        if not isinstance(v, (tuple, list)):
            return False
        if kind in "IJ":
            return all(is_int_list_element(e, i == 0) for i, e in enumerate(v))
        element = {"F": "g", "N": "n", "L": "T"}[kind]
        return all(_fits_one(element, e) for e in v)
    if kind == "s":
        return isinstance(v, str)
    if kind == "d":         # (a Python type too: dtype=float is float64)
        return isinstance(v, _dtype_cls) or (isinstance(v, type) and v in (float, int, bool, complex))
    if kind == "o":
        return v is None
    if kind == "y":
        from .torch_level import layout
        return isinstance(v, layout)
    if kind == "M":
        from .._layout import memory_format
        return isinstance(v, memory_format)
    if kind == "D":
        from .._size import device as _device_cls
        return isinstance(v, (str, _device_cls)) or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))
    return True         # ("?": a kind not checked here)


# the ops whose Tensor parameters PyTorch's parser also fills with a Python number
# (python_arg_parser.cpp's should_allow_numbers_as_tensors): torch.subtract(2, x)
_NUMBERS_AS_TENSORS = frozenset("""add add_ div div_ divide divide_ mul mul_ multiply multiply_ sub sub_ subtract
    subtract_ true_divide true_divide_ to copy_ floor_divide floor_divide_""".split())


def _fits(kinds, v, numbers_as_tensors=False):
    if v is _ANY or any(_fits_one(k, v) for k in kinds):
        return True
    if numbers_as_tensors and "T" in kinds and isinstance(v, (numbers.Number, np.number)):
        return True
    # an int list of a fixed size (int[1] dim, which also takes one int: "iI") takes a tensor of
    # one integer element, as the parser takes any object with __index__; an int[] (flip's
    # dims, tile's) does not
    from .._tensor import Tensor
    return ("i" in kinds or "j" in kinds) and _listed(kinds) and isinstance(v, Tensor) and v.numel() == 1 \
        and not v._dtype.is_floating_point


# the NumPy names PyTorch's parser takes for its own (python_arg_parser.cpp's numpy_compatibility)
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}


def _mismatch(overload, args, kwargs, numbers_as_tensors=False):
    """None when the overload takes (args, kwargs), else the first reason it does not, as
    PyTorch's message for a function of one overload words it (without the name).  Its parser
    reads the parameters in order (a positional argument, else the keyword, else its NumPy
    name), each refused or missing where it stands, then refuses the keywords it did not read.
    A list's type check reads its first element only: a later element it refuses, or a bool
    tensor for a SymInt, is refused as the arguments are unpacked, once every parameter passed."""
    positional, var, keyword = overload
    unpacked = []           # (the unpacking's refusals, in order: the first is the error once all parse)
    if var is not None and var[1][:1] == "*":
        # (flip(IntArrayRef dims): an int first takes all the positional arguments as the list)
        if args and _is_index(args[0]):
            # (the later ones are unpacked as ints: a Python bool is one, x.view(6, True))
            if all(_is_index(a) or type(a) is bool for a in args[1:]):
                if "j" in var[1] and any(map(is_bool_tensor_of_one, args)):
                    unpacked.append(_UnpackedBool())
                args = (_ANY,)
            else:
                args = (tuple(args),)
        var = None
    if var is None and len(args) > len(positional):
        n = len(positional)
        return f"() takes {n} positional argument{'' if n == 1 else 's'} but {len(args)} were given"
    read = set()
    params = positional + keyword

    def judged(i):
        """The reason the i-th parameter is refused or missing, or None."""
        name, kinds, default = params[i]
        positionally = i < len(positional) and i < len(args)
        if positionally:
            v = args[i]
        else:
            k = name if name in kwargs else next((a for a, n in _NUMPY_NAMES.items() if n == name and a in kwargs), None)
            if k is None:
                return None if default else _missing(params, i)
            read.add(k)
            v = kwargs[k]
        if _fits(kinds, v, numbers_as_tensors):
            # (an int[1] given one tensor, roll's shifts, reads its value)
            if "T" not in kinds and (("j" in kinds and not _listed(kinds) and is_bool_tensor_of_one(v)) or (
                    "J" in kinds and isinstance(v, (tuple, list)) and any(map(is_bool_tensor_of_one, v)))):
                unpacked.append(_UnpackedBool())
            return None
        reason = _refused(kinds, v, name, i if positionally else None, i)
        if isinstance(reason, (_Unpacked, _UnpackedBool)):
            unpacked.append(reason)
            return None
        return reason

    for i in range(len(positional)):
        if (reason := judged(i)) is not None:
            return reason
    if var is not None:         # (the *args, after the positional parameters)
        for j, a in enumerate(args[len(positional):], len(positional)):
            # (a vararg int takes an integral tensor of one element, as __index__ does)
            if not _fits(var[1].replace("i", "j"), a):
                return _refused(var[1], a, var[0], j)
    for i in range(len(positional), len(params)):
        if (reason := judged(i)) is not None:
            return reason
    names = [p[0] for p in params]
    for k in kwargs:
        if k not in read:
            if k in names[:len(args)]:
                return f"() got multiple values for argument '{k}'"
            return f"() got an unexpected keyword argument '{k}'"
    return unpacked[0] if unpacked else None


class _UnpackedBool(str):
    """The overload parses, and its SymInt's unpacking then refuses a bool tensor: a RuntimeError."""


def _is_index(v):
    """What PyTorch's parser takes for an index (THPUtils_checkIndex): an int, not a bool, or an
    object with __index__ (an integral or bool tensor of one element)."""
    from .._tensor import Tensor
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, Tensor) and v.numel() == 1 and not v._dtype.is_floating_point


def _missing(params, i):
    """PyTorch's words for a required i-th parameter not given: its parser names every required
    parameter from there on, given or not, and says "arguments" for one."""
    names = [name for name, _, default in params[i:] if not default]
    return (f"() missing {len(names)} required positional argument{'s' if len(names) == 1 else ''}: "
            + ", ".join(f'"{n}"' for n in names))


def kwargs_in_parser_order(kwargs):
    """The keywords of a call in the order PyTorch's parser lists them in its "got (...)": it
    copies them into a std::unordered_map<std::string, ...> and prints its iteration order,
    which libstdc++ makes from std::hash's MurmurHash (_Hash_bytes, seed 0xc70f6907) in 13
    buckets (what the first insertion allocates; up to 13 keys): a key whose bucket is empty goes
    to the front of the list, else before the first key of its bucket."""
    order, buckets = [], []
    for key in kwargs:
        b = _std_hash(key.encode()) % 13
        at = next((i for i, other in enumerate(buckets) if other == b), None)
        at = 0 if at is None else at
        order.insert(at, key)
        buckets.insert(at, b)
    return order


_MASK = (1 << 64) - 1
_MURMUR = 0xc6a4a7935bd1e995


def _std_hash(data, seed=0xc70f6907):
    """libstdc++'s std::_Hash_bytes for a 64-bit size_t."""
    def shift_mix(v):
        return v ^ (v >> 47)
    n = len(data)
    whole = n & ~7
    h = (seed ^ (n * _MURMUR)) & _MASK
    for p in range(0, whole, 8):
        h ^= (shift_mix((int.from_bytes(data[p:p + 8], "little") * _MURMUR) & _MASK) * _MURMUR) & _MASK
        h = (h * _MURMUR) & _MASK
    if n & 7:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * _MURMUR) & _MASK
    return shift_mix((shift_mix(h) * _MURMUR) & _MASK)


def described_call(args, kwargs):
    """PyTorch's "(Tensor, int, dim=str)" of a call: the keywords in its parser's order, and
    each followed by ", " where there is no positional argument."""
    keywords = [f"{k}={_type_name(kwargs[k])}" for k in kwargs_in_parser_order(kwargs)]
    if args:
        return "(" + ", ".join([_type_name(a) for a in args] + keywords) + ")"
    return "(" + "".join(k + ", " for k in keywords) + ")"


class _WholeMessage(str):
    """A reason that is the whole message, not words after the function's name."""


class _Thrown(_WholeMessage):
    """A reason PyTorch's parser throws while it tries the overloads in turn (a tensor list's
    non-tensor element): the first one met is the error, whatever the overloads after it."""


class _Unpacked(str):
    """A list's later element refused as the list is unpacked: after the parser took the
    overload (x.hsplit(1, "a")), so the error whatever the overloads after it."""


def _refused(kinds, v, name, position, index=None):
    """PyTorch's words (after the function's name) for an argument no kind takes; a sequence
    for a list parameter is judged by its first refused element, as the parser unpacks it.
    position: the argument's, counted from 0, for a positional one; index: the parameter's."""
    where = f"'{name}'" if position is None else f"'{name}' (position {position + 1})"
    listed = next((k for k in kinds if k in "IJL"), None)
    if isinstance(v, (tuple, list)) and listed:
        i, e = next((i, e) for i, e in enumerate(v)
                    if not (is_int_list_element(e, i == 0) if listed in "IJ" else _fits_one("T", e)))
        if listed == "L":       # (the parser's tensor-list check names no function, and throws)
            return _Thrown(f"expected Tensor as element {i} in argument {index or 0}, but got {_type_name(e)}")
        # (its check reads the first element only; a later one fails when the list is unpacked)
        if i == 0 and position is None:
            return f"(): argument {where} must be {_word(kinds)}, not {_type_name(v)}"
        if i == 0:
            return f"(): argument {where} must be tuple of ints, but found element of type {_type_name(e)} at pos 0"
        if listed == "J" and any(map(is_bool_tensor_of_one, v[:i])):
            return _UnpackedBool()      # (unpacked in order: a bool tensor before the refused element)
        return _Unpacked(f"(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                         f'"type must be tuple of ints,but got {_type_name(e)}"')
    return f"(): argument {where} must be {_word(kinds)}, not {_type_name(v)}"


def _word(kinds):
    if _listed(kinds) and "T" not in kinds:
        return _WORDS["I"]      # (an int[2] that also takes one int is a "tuple of ints")
    return next((_WORDS[k] for k in kinds if k in _WORDS), "object")


def _type_name(v):
    """Python's tp_name of v's type, as PyTorch's messages print it: a class written in Python
    by its name, a C type by its dotted name (numpy.ndarray, numpy.int64)."""
    from .._tensor import Tensor
    from .._dtype import dtype as _dtype_cls
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, _dtype_cls):
        return "torch.dtype"
    kind = type(v)
    if kind.__flags__ & _HEAP_TYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


_HEAP_TYPE = 1 << 9     # (Py_TPFLAGS_HEAPTYPE: a class made by a class statement)


def _signature(overload):
    positional, var, keyword = overload
    def default(k, d):      # (an optional parameter's default is None, as PyTorch prints it)
        return (" = None" if "o" in k else " = ...") if d else ""
    parts = [f"{_word(k)} {n}{default(k, d)}" for n, k, d in positional]
    if var is not None and var[1][:1] != "*":
        parts.append(f"{_word(var[1])}... {var[0]}")
    elif keyword:
        parts.append("*")
    parts += [f"{_word(k)} {n}{default(k, d)}" for n, k, d in keyword]
    return "(" + ", ".join(parts) + ")"


def argument_error(name, args, kwargs, method=False, key=None):
    """PyTorch's TypeError when no schema of torch.<name> (method: Tensor.<name>, args
    without self; key: another table entry, "nn.<name>") takes these arguments; None when one
    does or none is known."""
    overloads = _overloads(key or ("Tensor." if method else "torch.") + name)
    if not overloads:
        return None
    wrap = name in _NUMBERS_AS_TENSORS
    reasons = []
    for o in overloads:
        reason = _mismatch(o, args, kwargs, wrap)
        if reason is None:
            return None
        if isinstance(reason, _UnpackedBool):
            return symint_of_bool_error()
        if isinstance(reason, _Thrown):
            return TypeError(reason)
        if isinstance(reason, _Unpacked):
            return TypeError(name + reason)
        reasons.append(reason)
    # PyTorch's wording: a deprecated overload is hidden, and the one overload that could take
    # this many arguments (or the only one) gives its own reason
    shown = [i for i, o in enumerate(overloads) if not _hidden(o)] or list(range(len(overloads)))
    n = len(args) + len(kwargs)
    plausible = [i for i in shown if _min_args(overloads[i]) <= n <= _max_args(overloads[i])]
    if len(shown) == 1 or len(plausible) == 1:
        reason = reasons[shown[0] if len(shown) == 1 else plausible[0]]
        return TypeError(reason if isinstance(reason, _WholeMessage) else name + reason)
    return TypeError(f"{name}() received an invalid combination of arguments - got {described_call(args, kwargs)}, "
                     "but expected one of:\n"
                     + "".join(f" * {_signature(overloads[i])}\n" for i in shown))


def _hidden(overload):
    """A deprecated Number-first overload (add(Tensor self, Number alpha, Tensor other)):
    PyTorch's parser takes it, and leaves it out of its messages."""
    positional = overload[0]
    names = [p[0] for p in positional]
    return any(k == "n" and name in ("alpha", "value", "beta") and any(q[1] == "T" for q in positional[i + 1:])
               for i, (name, k, _) in enumerate(positional)) and (names[0] in ("self", "alpha", "value", "beta"))


def _min_args(overload):
    positional, _, keyword = overload
    return sum(1 for p in positional + keyword if not p[2])


def _max_args(overload):
    # (a list parameter that also takes var-args counts once, as PyTorch's max_args; only a
    # stub's own *args is unbounded)
    positional, var, keyword = overload
    if var is not None and not any(p[0] == var[0] for p in positional):
        return 1 << 30
    return len(positional) + len(keyword)


def functional_argument_error(name, fn, args, kwargs):
    """The TypeError of the C-parsed op that PyTorch's nn.functional.<name> passes its
    arguments to (F.max_pool2d's: "max_pool2d(): argument 'kernel_size' (position 2) must be
    tuple of ints, not bool"), or None.  ops/_schemas.FUNCTIONAL says which op, in which
    branch (inplace=True, return_indices=True) and which parameter goes where; only the
    arguments the caller gave are checked, bound to `fn`'s parameters (PyTorch's names)."""
    from ._schemas import FUNCTIONAL
    branches = FUNCTIONAL.get(name)
    bound = _bound(fn, args, kwargs) if branches else None
    if bound is None:
        return None
    signature, given = bound

    def value(param, missing=None):
        """The argument given for param, else its default, else `missing`."""
        if param in given:
            return given[param]
        default = signature.parameters[param].default if param in signature.parameters else missing
        return missing if default is inspect.Parameter.empty else default
    legacy = given.get("size_average"), given.get("reduce")
    if legacy != (None, None):
        try:            # (PyTorch's _Reduction.legacy_get_string tests both first: a tensor's bool())
            bool(legacy[0] is None or legacy[0])
            bool(legacy[1] is None or legacy[1])
        except (RuntimeError, ValueError, TypeError):
            return None
    elif given.get("reduction", "mean") not in ("none", "mean", "sum"):
        return None     # (PyTorch's _Reduction.get_enum refuses it first, with a ValueError)
    try:
        branch = next((b for b in branches if b[0] is None or bool(value(b[0])) is b[1]), None)
    except (RuntimeError, ValueError):    # (a tensor for inplace=: PyTorch's `if inplace:` raised that)
        return None
    if branch is None:
        return None
    _, _, op, spec = branch
    short = op.split(".", 1)[1]
    if spec == "*":
        return argument_error(short, args, kwargs, key=op)
    op_args, op_kwargs = [], {}
    for item in spec.split(","):
        keyword, _, expr = item.rpartition("=")
        how, _, param = expr.rpartition(":")
        pair = how == "pair"
        # (a value PyTorch's Python computed, a reduction's enum; else what it passes, the default too)
        v = _COMPUTED.get(param[1:], _ANY) if param.startswith("?") else value(param, _ANY)
        if how == "none" and v is None:
            v = _ANY        # (PyTorch's Python replaced it: `if stride is None: stride = []`)
        if pair and v is not _ANY:      # nn.functional's _pair: an iterable's items (a 0-d tensor's
            import collections.abc      # TypeError), else the value twice
            v = tuple(v) if isinstance(v, collections.abc.Iterable) else (v, v)
        if keyword:
            if v is not _ANY:
                op_kwargs[keyword] = v
        else:
            op_args.append(v)
    return argument_error(short, op_args, op_kwargs, key=op)


# a value of each kind for what PyTorch's Python computes and passes to its op (ops/_schemas'
# FUNCTIONAL: "?int" for a reduction's enum)
_COMPUTED = {"int": 1, "bool": True, "float": 1.0}


def read_by_python(name, fn, kind, args, kwargs):
    """Whether PyTorch's nn.functional.<name>, written in Python, reads an attribute of an
    argument of type `kind` (an AttributeError's "'int' object") before any op parses it: its
    error is then that AttributeError, not the parser's TypeError (_schemas.PYTHON_READ)."""
    from ._schemas import PYTHON_READ
    read = PYTHON_READ.get(name)
    bound = _bound(fn, args, kwargs) if read is not None else None
    if bound is None:
        return False
    read = read.split(",")
    return any(type(v).__name__ == kind for p, v in bound[1].items() if p in read)


def _bound(fn, args, kwargs):
    """(fn's signature, {parameter: the value given}) of a call, or None where it does not bind."""
    try:
        signature = inspect.signature(inspect.unwrap(fn))
        return signature, signature.bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return None
