"""PyTorch's argument-parser TypeError for a call that failed.

PyTorch checks every argument of a C-parsed function against its schemas before any work:
`torch.index_add(x, 5, idx, 4)` is "index_add(): argument 'source' (position 4) must be Tensor,
not int" however wrong the dim is.  nbgrad's ops read their arguments as they go, so a bad one
surfaces as whatever check meets it first (an IndexError for the dim).  Checking every call up
front would cost every call; instead, when a public function or method has failed with another
error than TypeError, ops/_signatures.py asks `argument_error` whether PyTorch's parser would
have refused the arguments, and raises its TypeError in that case.  The schemas are PyTorch's
(ops/_schemas.py, generated from its type stubs), read on the first failure.
"""

import numpy as np

from .._checks import is_float, is_int, is_integer_tensor, is_number

_PARSED = {}

# PyTorch's words for the kinds in its messages
_WORDS = {"T": "Tensor", "i": "int", "j": "int", "f": "float", "n": "Number", "b": "bool", "I": "tuple of ints",
          "F": "tuple of floats", "N": "tuple of Numbers", "L": "tuple of Tensors", "s": "str", "d": "torch.dtype"}


def _overloads(key):
    found = _PARSED.get(key)
    if found is None:
        from ._schemas import SCHEMAS
        text = SCHEMAS.get(key)
        found = _PARSED[key] = () if text is None else tuple(_parse(o) for o in text.split(";"))
    return found


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
        (keyword if keyword_only else positional).append((name, kinds.rstrip("="), kinds.endswith("=")))
    return positional, var, keyword


def _fits_one(kind, v):
    from .._tensor import Tensor
    from .._dtype import dtype as _dtype_cls
    if kind == "T":
        return isinstance(v, Tensor)
    if kind == "i":
        return is_int(v) or is_integer_tensor(v)
    if kind == "j":
        return is_int(v) or is_integer_tensor(v, any_dim=True)
    if kind == "f":
        return is_float(v)
    if kind == "n":
        return is_number(v)
    if kind == "b":
        return isinstance(v, (bool, np.bool_))
    if kind in "IFNL":
        if kind == "I" and isinstance(v, Tensor) and v.numel() == 1 and not v._dtype.is_floating_point:
            return True     # (an int list of one: PyTorch's parser takes any object with __index__)
        if not isinstance(v, (tuple, list)):
            return False
        element = {"I": "j", "F": "f", "N": "n", "L": "T"}[kind]
        return all(_fits_one(element, e) for e in v)
    if kind == "s":
        return isinstance(v, str)
    if kind == "d":
        return isinstance(v, _dtype_cls)
    if kind == "o":
        return v is None
    return True         # ("?": a kind not checked here)


def _fits(kinds, v):
    return any(_fits_one(k, v) for k in kinds)


def _mismatch(overload, args, kwargs):
    """None when the overload takes (args, kwargs), else the first reason it does not, as
    PyTorch's message for a function of one overload words it (without the name)."""
    positional, var, keyword = overload
    if var is None and len(args) > len(positional):
        n = len(positional)
        return f"() takes {n} positional argument{'' if n == 1 else 's'} but {len(args)} were given"
    for i, ((name, kinds, _), a) in enumerate(zip(positional, args)):
        if not _fits(kinds, a):
            return f"(): argument '{name}' (position {i + 1}) must be {_word(kinds)}, not {_type_name(a)}"
    if var is not None:
        for i, a in enumerate(args[len(positional):], len(positional)):
            if not _fits(var[1], a):
                return f"(): argument '{var[0]}' (position {i + 1}) must be {_word(var[1])}, not {_type_name(a)}"
    named = {p[0]: p for p in list(positional[len(args):]) + list(keyword)}
    for k, v in kwargs.items():
        p = named.get({"axis": "dim", "keepdims": "keepdim"}.get(k, k)) or named.get(k)
        if p is None:
            return f"() got an unexpected keyword argument '{k}'"
        if not _fits(p[1], v):
            return f"(): argument '{k}' must be {_word(p[1])}, not {_type_name(v)}"
    given = set(kwargs) | {"dim" for k in kwargs if k == "axis"} | {"keepdim" for k in kwargs if k == "keepdims"}
    for i, (name, _, default) in enumerate(positional[len(args):], len(args)):
        if not default and name not in given:
            return f"() missing required argument '{name}' (pos {i + 1})"
    for name, _, default in keyword:
        if not default and name not in given:
            return f"() missing required argument '{name}'"
    return None


def _word(kinds):
    return next((_WORDS[k] for k in kinds if k in _WORDS), "object")


def _type_name(v):
    from .._tensor import Tensor
    from .._dtype import dtype as _dtype_cls
    return "Tensor" if isinstance(v, Tensor) else "torch.dtype" if isinstance(v, _dtype_cls) else type(v).__name__


def _signature(overload):
    positional, var, keyword = overload
    parts = [f"{_word(k)} {n}{' = ...' if d else ''}" for n, k, d in positional]
    if var is not None:
        parts.append(f"{_word(var[1])}... {var[0]}")
    elif keyword:
        parts.append("*")
    parts += [f"{_word(k)} {n}{' = ...' if d else ''}" for n, k, d in keyword]
    return "(" + ", ".join(parts) + ")"


def argument_error(name, args, kwargs, method=False):
    """PyTorch's TypeError when no schema of torch.<name> (method: Tensor.<name>, args
    without self) takes these arguments; None when one does or none is known."""
    overloads = _overloads(("Tensor." if method else "torch.") + name)
    if not overloads:
        return None
    reasons = [_mismatch(o, args, kwargs) for o in overloads]
    if any(r is None for r in reasons):
        return None
    if len(overloads) == 1:
        return TypeError(name + reasons[0])
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + "".join(f" * {_signature(o)}\n" for o in overloads))
