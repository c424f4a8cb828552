"""nbgrad.library: PyTorch's torch.library over nbgrad's autograd, so that code declaring its own
ops (with its own kernels: Numba, NumPy, nbgrad ops) runs unchanged with `import nbgrad as torch`.

    @torch.library.custom_op("mylib::numpy_sin", mutates_args=())
    def numpy_sin(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.sin(x.numpy()))

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    y = torch.ops.mylib.numpy_sin(x)        # y.grad_fn: GeneratedBackwardFor_mylib_numpy_sin_defaultBackward

What it has: custom_op (a CustomOpDef: register_autograd, register_fake, register_kernel,
set_kernel_enabled), infer_schema (from type annotations, with PyTorch's errors), define
(a schema string, parsed here), impl, register_kernel, register_fake, register_autograd,
Library("ns", "DEF" | "FRAGMENT" | "IMPL") with .define and .impl, ops reached as
nbgrad.ops.<namespace>.<name> (an OpOverloadPacket; `.default` and named overloads are
OpOverloads), and opcheck.

How a call runs (PyTorch's dispatcher, reduced to what an eager program sees): the arguments
are bound to the schema (PyTorch's argument errors); an op with a kernel at the "Autograd" key
calls it (a call of the same op inside it goes below autograd, as PyTorch redispatches); else a
"CompositeImplicitAutograd" kernel runs with autograd on (its own ops record the graph); else
the backend kernel of the arguments' device ("CPU"/"CUDA", falling back to
"CompositeExplicitAutograd"/"default"). An op made by custom_op, or given register_autograd,
wraps that kernel in an autograd.Function named GeneratedBackwardFor_<ns>_<name>_<overload> (its
node: ...Backward) whenever grad mode is on and an argument requires grad: the kernel runs
under no_grad, setup_context(ctx, inputs, output) runs in the forward and backward(ctx, *grads)
in the backward, as PyTorch's; without register_autograd the outputs still require grad and
backward raises PyTorch's "no autograd formula" error. custom_op's kernels may not return an
input or a view of one (PyTorch's aliasing error), and the arguments named in mutates_args get
their version counter bumped once per call (besides the bumps of the in-place ops inside).

Departures from PyTorch:
- No fake tensors, torch.compile/export or FX tracing: register_fake stores the function
  (opcheck runs it on the real arguments and compares its outputs' shapes, dtypes and devices
  with the op's); register_vmap, register_autocast and register_torch_dispatch are absent.
- Schemas: the common syntax is parsed (Tensor, Tensor?, Tensor[], Tensor?[], alias
  annotations (a!), int/SymInt, float, bool, str, Scalar, ScalarType, Device, their lists and
  optionals, defaults, keyword-only `*`, named and tuple returns); the printed form follows
  PyTorch's. Overloads are chosen by name; calling a packet with several overloads tries them in
  order of definition (PyTorch matches the schema in C++).
- Dispatch keys accepted: CPU, CUDA, CompositeExplicitAutograd (= "default"),
  CompositeImplicitAutograd, Autograd (and AutogradCPU/AutogradCUDA), Meta (stored as the fake
  impl); device types "cpu", "cuda", "default". Others raise ValueError.
- A kernel receives every positional argument, defaults filled in (PyTorch's dispatcher drops
  trailing arguments equal to their defaults, so its kernels must declare the defaults too).
- An op defined with define/impl and no autograd registration runs its kernel with autograd on,
  so gradients flow through the nbgrad ops it uses; PyTorch does the same in its default
  autograd-fallback mode, and warns at backward time (nbgrad does not warn).
- opcheck: test_schema compares the argument values and aliasing before/after as PyTorch's
  SchemaCheckMode; test_autograd_registration is PyTorch's check; test_faketensor checks the
  stored fake impl's output metadata against the real outputs; test_aot_dispatch_dynamic/static
  (no compiler here) run the op forward and backward and, where every input that requires grad
  is float64, compare the registered backward's gradients with finite differences
  (nbgrad.autograd.gradcheck): so a wrong backward fails opcheck here, which PyTorch's opcheck
  does not detect (it compares compiled with eager gradients).
- `nbgrad.ops.<namespace>` exists once an op of that namespace is defined (PyTorch makes any
  namespace on access); a namespace named like a submodule of nbgrad.ops is shadowed by it.
- Library registrations are removed when the Library is garbage collected, as PyTorch's;
  overriding built-in ("aten") ops through Library("aten", "IMPL") is not supported.
"""
import contextlib
import inspect
import logging
import re
import sys
import threading
import typing
import weakref
from collections import abc as _abc

from . import _dtype as D
from ._size import device as _device
from ._tensor import Tensor
from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled, no_grad

__all__ = ["Library", "custom_op", "define", "impl", "register_kernel", "register_fake", "register_autograd",
           "infer_schema", "opcheck", "CustomOpDef", "OpOverload", "OpOverloadPacket", "OpCheckError"]

log = logging.getLogger(__name__)


# ==========================================================================================
# Schemas: parsing and printing "ns::name.overload(Tensor(a!) x, int[] dims=[], *, float a=1.) -> Tensor"
# ==========================================================================================

_NODEFAULT = object()
_SCALAR_BASES = ("int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Device", "Layout",
                 "MemoryFormat", "Generator", "Dimname", "Storage", "Stream", "Any", "SymFloat", "SymBool")


class _Type:
    """A schema type: a base (Tensor, int, ...) with its suffixes ("?", "[]", "[2]", "?[]", "[]?")."""

    def __init__(self, base, suffix=""):
        self.base, self.suffix = base, suffix

    @property
    def optional(self):
        return self.suffix.endswith("?")

    @property
    def is_list(self):
        return "[" in self.suffix

    @property
    def element_optional(self):
        return self.suffix.startswith("?[")

    @property
    def is_tensor(self):
        return self.base == "Tensor"

    @property
    def is_tensor_list(self):
        return self.base == "Tensor" and self.is_list

    def text(self, alias=None):
        head = self.base if alias is None else f"{self.base}({alias})"
        return head + self.suffix

    def python_name(self):
        """The name PyTorch's argument errors give the type: int, Optional[Tensor], List[int]."""
        base = {"SymInt": "int", "SymFloat": "float", "SymBool": "bool"}.get(self.base, self.base)
        name = base
        s = self.suffix
        if s.startswith("?"):
            name, s = f"Optional[{name}]", s[1:]
        if s.startswith("["):
            name, s = f"List[{name}]", s[s.index("]") + 1:]
        if s == "?":
            name = f"Optional[{name}]"
        return name


class Argument:
    """One argument or return of a schema (PyTorch's torch._C.Argument, the fields read most)."""

    def __init__(self, name, type_, default=_NODEFAULT, kwarg_only=False, alias=None):
        self.name = name
        self.type = type_
        self._default = default
        self.kwarg_only = kwarg_only
        self.alias = alias           # "a", "a!", "a0!", or None

    @property
    def has_default_value(self):
        return self._default is not _NODEFAULT

    @property
    def default_value(self):
        return None if self._default is _NODEFAULT else self._default

    @property
    def is_write(self):
        return self.alias is not None and self.alias.endswith("!")

    def __str__(self):
        text = self.type.text(self.alias)
        if self.name:
            text += " " + self.name
        if self.has_default_value:
            text += "=" + _default_text(self._default)
        return text

    __repr__ = __str__


def _default_text(value):
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        # c10's printing of a double default: 2. for 2.0, 0.5 for 0.5
        return f"{int(value)}." if value.is_integer() and abs(value) < 1e16 else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, D.dtype):
        return str(value).split(".")[-1]
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_default_text(v) for v in value) + "]"
    return str(value)


class FunctionSchema:
    """A parsed schema: name, overload_name, arguments, returns (PyTorch's torch._C.FunctionSchema)."""

    def __init__(self, name, overload_name, arguments, returns):
        self.name = name
        self.overload_name = overload_name
        self.arguments = arguments
        self.returns = returns

    @property
    def is_mutable(self):
        return any(a.is_write for a in self.arguments)

    def _is_view_op(self):
        return any(r.alias is not None and not r.is_write for r in self.returns)

    def __str__(self):
        head = self.name + (f".{self.overload_name}" if self.overload_name else "")
        args, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(a))
        if len(self.returns) == 1 and not self.returns[0].name:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{head}({', '.join(args)}) -> {rets}"

    __repr__ = __str__


def _split_top(text, sep=","):
    """Split on `sep` outside brackets, parentheses and quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


_TYPE_RE = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*)(?:\(([A-Za-z_0-9]+!?)\))?((?:\?|\[[0-9]*\])*)$")


def _schema_error(schema, what):
    return RuntimeError(f"{what}:\n{schema}")


def _parse_type(text, schema):
    m = _TYPE_RE.match(text.strip())
    if m is None or (m.group(1) != "Tensor" and m.group(1) not in _SCALAR_BASES):
        raise _schema_error(schema, f"unknown type specifier '{text.strip()}'")
    return _Type(m.group(1), m.group(3)), m.group(2)


def _parse_default(text, type_, schema):
    text = text.strip()
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "\"'" and text[-1:] == text[:1] and len(text) >= 2:
        return text[1:-1]
    if text.startswith("["):
        inner = text[1:-1].strip()
        return [] if not inner else [_parse_default(p, _Type(type_.base), schema) for p in _split_top(inner)]
    try:
        value = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            # an identifier: a dtype (float32, long), a layout, a memory format
            found = getattr(D, text, None)
            return found if isinstance(found, D.dtype) else text
        return value
    if type_.base in ("float", "SymFloat") or (type_.base == "Scalar" and "." in text):
        return float(value)
    if type_.is_list and not isinstance(value, list):
        return value        # int[2] x=1: one value for every element, as PyTorch reads it
    return value


def _parse_argument(text, schema, kwarg_only, is_return=False):
    text = text.strip()
    default = _NODEFAULT
    if not is_return:
        pieces = _split_top(text, "=")
        if len(pieces) > 2:
            raise _schema_error(schema, f"could not parse argument '{text}'")
        if len(pieces) == 2:
            text, default_text = pieces[0].strip(), pieces[1]
    words = text.rsplit(None, 1)
    if len(words) == 2 and not words[1].startswith(("(", "[", "?")) and _TYPE_RE.match(words[0]):
        type_text, name = words
    elif is_return:
        type_text, name = text, ""
    else:
        raise _schema_error(schema, f"expected an argument name in '{text}'")
    type_, alias = _parse_type(type_text, schema)
    if default is _NODEFAULT and not is_return and len(pieces) == 2:
        default = _parse_default(default_text, type_, schema)
    return Argument(name, type_, default, kwarg_only, alias)


def parse_schema(schema):
    """A FunctionSchema from its text, with or without the name: "ns::foo(Tensor x) -> Tensor"."""
    if not isinstance(schema, str):
        raise TypeError(f"schema must be a str, got {type(schema).__name__}")
    text = schema.strip()
    open_at = text.find("(")
    if open_at < 0:
        raise _schema_error(schema, "expected '(' in the schema")
    head = text[:open_at].strip()
    depth, close_at = 0, -1
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                close_at = i
                break
    if close_at < 0:
        raise _schema_error(schema, "unbalanced parentheses in the schema")
    rest = text[close_at + 1:].strip()
    if not rest.startswith("->"):
        raise _schema_error(schema, "expected '->' after the arguments")
    name, overload = (head.split(".", 1) + [""])[:2] if head else ("", "")
    arguments, kwarg_only, seen = [], False, set()
    inner = text[open_at + 1:close_at].strip()
    for piece in (_split_top(inner) if inner else []):
        if piece.strip() == "*":
            kwarg_only = True
            continue
        arg = _parse_argument(piece, schema, kwarg_only)
        if arg.name in seen:
            raise _schema_error(schema, f"argument name '{arg.name}' appears twice")
        seen.add(arg.name)
        arguments.append(arg)
    ret_text = rest[2:].strip()
    if ret_text.startswith("(") and ret_text.endswith(")"):
        inner = ret_text[1:-1].strip()
        returns = [_parse_argument(p, schema, False, True) for p in _split_top(inner)] if inner else []
    else:
        returns = [_parse_argument(ret_text, schema, False, True)]
    return FunctionSchema(name, overload, arguments, returns)


# ==========================================================================================
# infer_schema: the schema of a function from its type annotations (PyTorch's rules and errors)
# ==========================================================================================

def _number_type():
    return typing.Union[int, float, bool]


def _derived(base, cpp, list_base, optional_base_list, optional_list_base):
    result = [(base, cpp), (typing.Optional[base], f"{cpp}?")]

    def seqs(t):
        return (typing.Sequence[t], typing.List[t], _abc.Sequence[t], list[t])   # noqa: UP006
    if list_base:
        result += [(s, f"{cpp}[]") for s in seqs(base)]
    if optional_base_list:
        result += [(s, f"{cpp}?[]") for s in seqs(typing.Optional[base])]
    if optional_list_base:
        result += [(typing.Optional[s], f"{cpp}[]?") for s in seqs(base)]
    return result


def _supported_param_types():
    data = [(Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
            (float, "float", True, False, True), (bool, "bool", True, False, True), (str, "str", False, False, False),
            (_number_type(), "Scalar", True, False, False), (D.dtype, "ScalarType", False, False, False),
            (_device, "Device", False, False, False)]
    result = {}
    for line in data:
        result.update(_derived(*line))
    return result


_PARAM_TYPES = None
_RETURN_TYPES = None


def _param_types():
    global _PARAM_TYPES, _RETURN_TYPES
    if _PARAM_TYPES is None:
        _PARAM_TYPES = _supported_param_types()
        _RETURN_TYPES = {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]", list[Tensor]: "Tensor[]",  # noqa: UP006
                         int: "SymInt", float: "float", bool: "bool", _number_type(): "Scalar"}
    return _PARAM_TYPES


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The schema of a function from its type annotations, as PyTorch's torch.library.infer_schema."""
    param_types = _param_types()
    sig = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(annotation):
        if isinstance(annotation, str):
            try:
                return eval(annotation, prototype_function.__globals__)    # noqa: S307 (as PyTorch)
            except Exception as e:   # noqa: BLE001
                error_fn(f"Unsupported type annotation {annotation}. It is not a type. ({type(e).__name__}: {e})")
        return annotation

    params, seen, saw_kwarg_only = [], set(), False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not saw_kwarg_only:
            params.append("*")
            saw_kwarg_only = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation = resolve(param.annotation)
        try:
            schema_type = param_types.get(annotation)
        except TypeError:           # an unhashable annotation
            schema_type = None
        if schema_type is None:
            if typing.get_origin(annotation) is tuple:
                error_fn(f"Parameter {name} has unsupported type {param.annotation}. We do not support Tuple "
                         f"inputs in schema. As a workaround, please try to use List instead. "
                         f"The valid types are: {param_types.keys()}.")
            error_fn(f"Parameter {name} has unsupported type {param.annotation}. "
                     f"The valid types are: {param_types.keys()}.")
        if type(mutates_args) is str:
            if mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the arguments that are "
                                 "mutated or the string 'unknown'. ")
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can "
                         "be mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            if param.default is None or isinstance(param.default, (int, float, bool)):
                default_repr = str(param.default)
            elif isinstance(param.default, (str, _device)):
                default_repr = f'"{param.default}"'
            elif isinstance(param.default, D.dtype):
                default_repr = str(param.default).split(".")[-1]
            else:
                error_fn(f"Parameter {name} has an unsupported default value type {type(param.default)}. "
                         "Please file an issue on GitHub so we can prioritize this.")
            params.append(f"{schema_type} {name}={default_repr}")
    if mutates_args != "unknown":
        not_seen = set(mutates_args) - seen
        if not_seen:
            error_fn(f"{not_seen} in mutates_args were not found in the custom op's signature. mutates_args "
                     "should contain the names of all args that the custom op mutates, or just the string "
                     "'unknown' if you don't know.")
    ret = _parse_return(resolve(sig.return_annotation), error_fn)
    if op_name is not None:
        return f"{op_name}({', '.join(params)}) -> {ret}"
    return f"({', '.join(params)}) -> {ret}"


def _parse_return(annotation, error_fn):
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in _RETURN_TYPES:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {_RETURN_TYPES}.")
        return _RETURN_TYPES[annotation]
    args = typing.get_args(annotation)
    for arg in args:
        if arg not in _RETURN_TYPES:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: {_RETURN_TYPES}.")
    out = ", ".join(_RETURN_TYPES[a] for a in args)
    return "((" + out + "))" if len(args) == 1 else "(" + out + ")"


# ==========================================================================================
# The registry: definitions, kernels per dispatch key, fake impls, autograd formulas
# ==========================================================================================

class _Entry:
    """Everything registered for one operator overload ("ns::name.overload")."""

    def __init__(self, ns, name, overload, schema, where):
        self.ns, self.name, self.overload = ns, name, overload
        self.schema = schema
        self.where = where
        self.kernels = {}
        self.fake = None
        self.autograd = None        # an object with _backward_fn and _setup_context_fn, or None
        self.opdef = None           # the CustomOpDef that made it, if any
        self.generated = None       # the autograd.Function class, made on first use


class _Info:
    def __init__(self, backward, setup_context):
        self._backward_fn = backward
        self._setup_context_fn = setup_context


_lock = threading.RLock()
_DEFS = {}               # "ns::name" -> {overload: _Entry}  (overload "" is "default")
_PENDING = {}            # "ns::name.overload" -> {key: fn}: kernels registered before the definition
_PACKETS = {}            # "ns::name" -> OpOverloadPacket
_NAMESPACES = {}         # ns -> _OpNamespace
_DEF_LIBRARIES = {}      # ns -> where its "DEF" Library was made
_OPDEFS = {}             # "ns::name" -> CustomOpDef
_keep_alive = []
_state = threading.local()

_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "default": "CompositeExplicitAutograd"}
_KEYS = frozenset({"CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd", "Autograd",
                   "AutogradCPU", "AutogradCUDA", "Meta"})


def _caller():
    """file:line of the first frame outside this module (PyTorch names the registering line)."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename == __file__:
        f = f.f_back
    return "<unknown>" if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"


def parse_namespace(qualname):
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got {qualname}. '
                         "The qualname passed to the torch.library APIs must consist of a namespace and a "
                         "name, e.g. aten::sin")
    return splits[0], splits[1]


def _split_overload(name):
    base, _, overload = name.partition(".")
    return base, ("" if overload == "default" else overload)


def _lookup(qualname):
    """The _Entry of "ns::name" or "ns::name.overload", or None."""
    ns, name = parse_namespace(qualname)
    base, overload = _split_overload(name)
    return _DEFS.get(f"{ns}::{base}", {}).get(overload)


def _dispatch_key(typ):
    if typ in _KEYS:
        return typ
    key = _DEVICE_KEYS.get(typ)
    if key is None:
        raise ValueError(f"nbgrad.library: unsupported device type or dispatch key {typ!r} "
                         f"(supported: {', '.join(sorted(_DEVICE_KEYS))}, {', '.join(sorted(_KEYS))})")
    return key


def _set_kernel(qualname, key, fn):
    """Register fn at key for the op "ns::name[.overload]" (kept until it is defined)."""
    entry = _lookup(qualname)
    if key == "Meta":
        if entry is not None:
            entry.fake = fn
        else:
            _PENDING.setdefault(_full_name(qualname), {})[key] = fn
        return
    if entry is None:
        _PENDING.setdefault(_full_name(qualname), {})[key] = fn
    else:
        entry.kernels[key] = fn


def _full_name(qualname):
    ns, name = parse_namespace(qualname)
    base, overload = _split_overload(name)
    return f"{ns}::{base}" + (f".{overload}" if overload else "")


def _define(ns, schema_text, where):
    schema = parse_schema(schema_text)
    if not schema.name or "::" in schema.name:
        raise RuntimeError(f"expected an operator name in the schema, got \"{schema_text}\"")
    qual = f"{ns}::{schema.name}"
    schema.name = qual
    with _lock:
        overloads = _DEFS.setdefault(qual, {})
        old = overloads.get(schema.overload_name)
        if old is not None:
            raise RuntimeError(
                f"Tried to register an operator ({schema}) with the same name and overload name multiple times. "
                "Each overload's schema should only be registered with a single call to def(). Duplicate "
                f"registration: registered at {where}. Original registration: registered at {old.where}")
        entry = _Entry(ns, schema.name.split("::")[1], schema.overload_name, schema, where)
        overloads[schema.overload_name] = entry
        full = qual + (f".{schema.overload_name}" if schema.overload_name else "")
        for key, fn in _PENDING.pop(full, {}).items():
            if key == "Meta":
                entry.fake = fn
            else:
                entry.kernels[key] = fn
        packet = _PACKETS.get(qual)
        if packet is not None:
            packet._overloads.pop(schema.overload_name or "default", None)
        _NAMESPACES.setdefault(ns, _OpNamespace(ns))
    return entry


def _undefine(qual, overload, entry):
    with _lock:
        overloads = _DEFS.get(qual)
        if overloads is not None and overloads.get(overload) is entry:
            del overloads[overload]
            if not overloads:
                del _DEFS[qual]
                _PACKETS.pop(qual, None)
            elif qual in _PACKETS:
                _PACKETS[qual]._overloads.pop(overload or "default", None)


# ==========================================================================================
# nbgrad.ops.<ns>.<name>: namespaces, packets and overloads
# ==========================================================================================

class _OpNamespace:
    """nbgrad.ops.<ns>: its ops as attributes (OpOverloadPackets)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<module 'nbgrad.ops.{self.name}' from 'nbgrad.ops'>"

    def __getattr__(self, opname):
        if opname.startswith("__"):
            raise AttributeError(opname)
        qual = f"{self.name}::{opname}"
        with _lock:
            packet = _PACKETS.get(qual)
            if packet is None:
                if qual not in _DEFS:
                    raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{opname}'")
                packet = _PACKETS[qual] = OpOverloadPacket(qual)
        return packet

    def __dir__(self):
        return sorted(q.split("::")[1] for q in _DEFS if q.split("::")[0] == self.name)


class OpOverloadPacket:
    """nbgrad.ops.<ns>.<name>: its overloads as attributes (.default, .out, ...); calling it calls
    the default overload (or the first overload whose schema takes the arguments)."""

    def __init__(self, qualname):
        self._qualified_op_name = qualname
        self._ns, self.__name__ = qualname.split("::")
        self._overloads = {}

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self.__name__}')>"

    def __str__(self):
        return f"{self._ns}.{self.__name__}"

    def overloads(self):
        return ["default" if o == "" else o for o in _DEFS.get(self._qualified_op_name, {})]

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        overload = "" if key == "default" else key
        found = self._overloads.get(key)
        if found is not None:
            return found
        entry = _DEFS.get(self._qualified_op_name, {}).get(overload)
        if entry is None:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{key}'")
        op = self._overloads[key] = OpOverload(self, entry)
        return op

    @property
    def _schemas(self):
        return {("default" if o == "" else o): e.schema for o, e in _DEFS.get(self._qualified_op_name, {}).items()}

    def __call__(self, *args, **kwargs):
        names = self.overloads()
        if "default" in names or len(names) == 1:
            return getattr(self, "default" if "default" in names else names[0])(*args, **kwargs)
        for name in names:
            op = getattr(self, name)
            try:
                bound = _bind(op._entry.schema, args, kwargs)
            except RuntimeError:
                continue
            return _call(op, *bound)
        raise RuntimeError(f"{self._qualified_op_name}() Expected one of the schemas: "
                           + "; ".join(str(s) for s in self._schemas.values()))


class OpOverload:
    """One overload of an op (nbgrad.ops.<ns>.<name>.default): callable, with its _schema."""

    def __init__(self, packet, entry):
        self._overloadpacket = packet
        self._entry = entry
        self._namespace = entry.ns
        self._opname = entry.name
        self._overloadname = entry.overload or "default"
        self._name = f"{entry.ns}::{entry.name}" + (f".{entry.overload}" if entry.overload else "")
        self.__name__ = f"{entry.name}.{self._overloadname}"

    @property
    def _schema(self):
        return self._entry.schema

    def name(self):
        return self._name

    def __repr__(self):
        return f"<OpOverload(op='{self._namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        return _call(self, *_bind(self._entry.schema, args, kwargs))


def _overload_of(entry):
    packet = getattr(_NAMESPACES[entry.ns], entry.name)
    return getattr(packet, entry.overload or "default")


# ==========================================================================================
# A call: binding, dispatch, the generated autograd.Function
# ==========================================================================================

def _type_error(schema, arg, position, value):
    shown = repr(value)
    return RuntimeError(
        f"{schema.name}() Expected a value of type '{arg.type.python_name()}' for argument '{arg.name}' but "
        f"instead found type '{type(value).__name__}'.\nPosition: {position}\nValue: {shown}\n"
        f"Declaration: {schema}\nCast error details: Unable to cast {value} to {arg.type.base}")


def _is_int(v):
    return isinstance(v, int) or (isinstance(v, Tensor) and v.dim() == 0 and not v.dtype.is_floating_point)


def _convert_scalar(base, value):
    """A Python value as the schema's scalar type takes it; _NODEFAULT where it does not fit."""
    if base in ("int", "SymInt"):
        if isinstance(value, int):
            return value
        if isinstance(value, Tensor) and value.dim() == 0 and not value.dtype.is_floating_point:
            return int(value.item())
        return _NODEFAULT
    if base in ("float", "SymFloat"):
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, Tensor) and value.dim() == 0:
            return float(value.item())
        return _NODEFAULT
    if base in ("bool", "SymBool"):
        return value if isinstance(value, bool) else _NODEFAULT
    if base == "str":
        return value if isinstance(value, str) else _NODEFAULT
    if base == "Scalar":
        if isinstance(value, (int, float, bool, complex)):
            return value
        if isinstance(value, Tensor) and value.dim() == 0:
            return value.item()
        return _NODEFAULT
    if base == "ScalarType":
        return value if isinstance(value, D.dtype) else _NODEFAULT
    if base == "Device":
        if isinstance(value, (_device, str, int)):
            try:
                return _device(value)
            except (RuntimeError, TypeError, ValueError):
                return _NODEFAULT
        return _NODEFAULT
    return value        # Layout, MemoryFormat, Generator...: passed as they are


def _convert(arg, value):
    t = arg.type
    if value is None and (t.optional or (arg.has_default_value and arg.default_value is None)):
        return None
    if t.is_list:
        if t.is_tensor and isinstance(value, Tensor):
            return _NODEFAULT
        if not isinstance(value, (list, tuple)):
            if t.base in ("int", "SymInt") and isinstance(value, int) and re.search(r"\[\d+\]", t.suffix):
                return [value] * int(re.search(r"\[(\d+)\]", t.suffix).group(1))
            return _NODEFAULT
        out = []
        for v in value:
            if v is None and t.element_optional:
                out.append(None)
            elif t.is_tensor:
                if not isinstance(v, Tensor):
                    return _NODEFAULT
                out.append(v)
            else:
                c = _convert_scalar(t.base, v)
                if c is _NODEFAULT:
                    return _NODEFAULT
                out.append(c)
        return out
    if t.is_tensor:
        return value if isinstance(value, Tensor) else _NODEFAULT
    return _convert_scalar(t.base, value)


def _bind(schema, args, kwargs):
    """The call's arguments as the schema reads them: every positional argument (defaults filled)
    and a dict of the keyword-only ones; PyTorch's errors for a bad call."""
    positional = [a for a in schema.arguments if not a.kwarg_only]
    total = len(args) + len(kwargs)
    if len(args) > len(positional) or total > len(schema.arguments):
        most = len(positional) if len(args) > len(positional) else len(schema.arguments)
        raise RuntimeError(f"{schema.name}() expected at most {most} argument(s) but received "
                           f"{total} argument(s). Declaration: {schema}")
    pos, kwonly = [], {}
    for i, arg in enumerate(schema.arguments):
        if i < len(args) and not arg.kwarg_only:
            value = args[i]
            if arg.name in kwargs:
                raise RuntimeError(f"{schema.name}() got multiple values for argument '{arg.name}'. "
                                   f"Declaration: {schema}")
        elif arg.name in kwargs:
            value = kwargs[arg.name]
        elif arg.has_default_value:
            value = arg.default_value
            if isinstance(value, list):
                value = list(value)
        else:
            raise RuntimeError(f"{schema.name}() is missing value for argument '{arg.name}'. Declaration: {schema}")
        converted = _convert(arg, value)
        if converted is _NODEFAULT:
            raise _type_error(schema, arg, i, value)
        if arg.kwarg_only:
            kwonly[arg.name] = converted
        else:
            pos.append(converted)
    names = {a.name for a in schema.arguments}
    for k in kwargs:
        if k not in names:
            raise RuntimeError(f"Unknown keyword argument '{k}' for operator '{schema.name}'. Schema: {schema}")
    return pos, kwonly


def _tensors_in(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, Tensor):
                    yield w


@contextlib.contextmanager
def _below_autograd(entry):
    below = getattr(_state, "below", None)
    if below is None:
        below = _state.below = []
    below.append(entry)
    try:
        yield
    finally:
        below.pop()


def _is_below(entry):
    below = getattr(_state, "below", None)
    return bool(below) and below[-1] is entry


def _device_type(entry, pos, kwonly):
    for t in _tensors_in(list(pos) + list(kwonly.values())):
        return t.device.type
    for a, v in zip([a for a in entry.schema.arguments if not a.kwarg_only], pos):
        if a.type.base == "Device" and v is not None:
            return v.type
    for a in entry.schema.arguments:
        if a.kwarg_only and a.type.base == "Device" and kwonly.get(a.name) is not None:
            return kwonly[a.name].type
    return "cpu"


def _backend_kernel(entry, pos, kwonly):
    dev = _device_type(entry, pos, kwonly)
    key = _DEVICE_KEYS.get(dev, dev.upper())
    fn = entry.kernels.get(key) or entry.kernels.get("CompositeExplicitAutograd")
    if fn is None:
        qual = entry.schema.name
        have = [k for k in entry.kernels if k in ("CPU", "CUDA")]
        raise NotImplementedError(
            f"Could not run '{qual}' with arguments from the '{key}' backend. This could be because the operator "
            "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
            f"custom build). '{qual}' is only available for these backends: [{', '.join(have + ['Meta'])}].")
    return fn


def _check_returns(entry, result):
    """The kernel's result against the schema's returns (PyTorch's boxing of the result)."""
    returns = entry.schema.returns
    if not returns:
        return None
    if len(returns) == 1:
        ret = returns[0]
        if ret.type.is_tensor and not ret.type.is_list:
            if not isinstance(result, Tensor) and not (result is None and ret.type.optional):
                raise RuntimeError(f"Unable to cast {result} to Tensor")
        elif ret.type.is_tensor_list:
            if not isinstance(result, (list, tuple)) or not all(isinstance(t, Tensor) for t in result):
                raise RuntimeError(f"Unable to cast {result} to Tensor[]")
            result = list(result)
        return result
    if not isinstance(result, (tuple, list)):
        raise TypeError(f"Object of type '{type(result).__name__}' is not an instance of 'sequence'")
    if len(result) != len(returns):
        raise RuntimeError(f"{entry.schema.name}: expected {len(returns)} return values from the kernel, "
                           f"got {len(result)}")
    for r, v in zip(returns, result):
        if r.type.is_tensor and not r.type.is_list and not isinstance(v, Tensor) \
                and not (v is None and r.type.optional):
            raise RuntimeError(f"Unable to cast {v} to Tensor")
    return tuple(result)


def _run_backend(entry, pos, kwonly):
    """The backend kernel of the arguments' device, its result checked (below autograd)."""
    fn = _backend_kernel(entry, pos, kwonly)
    return _check_returns(entry, fn(*pos, **kwonly))


def _call(op, pos, kwonly):
    entry = op._entry
    below = _is_below(entry)
    if not below:
        dev = None
        for key in ("AutogradCPU", "AutogradCUDA"):
            if key in entry.kernels:
                dev = dev or _device_type(entry, pos, kwonly)
                if _DEVICE_KEYS.get(dev) == key[len("Autograd"):]:
                    with _below_autograd(entry):
                        return entry.kernels[key](*pos, **kwonly)
        if "Autograd" in entry.kernels:
            with _below_autograd(entry):
                return entry.kernels["Autograd"](*pos, **kwonly)
        if "CompositeImplicitAutograd" in entry.kernels and entry.autograd is None:
            return _check_returns(entry, entry.kernels["CompositeImplicitAutograd"](*pos, **kwonly))
    if entry.opdef is not None:
        entry.opdef._bump_mutated(pos, kwonly)
    if below:
        return _run_backend(entry, pos, kwonly)
    if entry.autograd is None:
        # no autograd formula: the kernel's own nbgrad ops record the graph (PyTorch's fallback)
        if "CompositeImplicitAutograd" in entry.kernels and not any(
                k in entry.kernels for k in ("CPU", "CUDA", "CompositeExplicitAutograd")):
            return _check_returns(entry, entry.kernels["CompositeImplicitAutograd"](*pos, **kwonly))
        return _run_backend(entry, pos, kwonly)
    if is_grad_enabled() and any(t.requires_grad for t in _tensors_in(pos)) and entry.schema.returns:
        return _apply_generated(entry, pos, kwonly)
    with no_grad():
        return _run_backend(entry, pos, kwonly)



def _regroup(flat, lengths):
    """A flat sequence back into its arguments: per length, one item (None) or a list of n."""
    out, i = [], 0
    for n in lengths:
        if n is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(list(flat[i:i + n]))
            i += n
    return out

class _CallSpec:
    """How one call's arguments and results are flattened for the autograd.Function (tensor
    lists become one argument per tensor, as PyTorch's supports_tensorlist)."""

    def __init__(self, entry, pos, kwonly):
        self.entry = entry
        self.kwonly = kwonly
        self.lengths = []       # per positional argument: None (one value) or its list's length
        flat = []
        for v in pos:
            if isinstance(v, list):
                self.lengths.append(len(v))
                flat.extend(v)
            else:
                self.lengths.append(None)
                flat.append(v)
        self.flat = flat
        self.out_lengths = None

    def unflatten(self, flat):
        return _regroup(flat, self.lengths)

    def flatten_grads(self, grads):
        if not isinstance(grads, tuple):
            grads = (grads,)
        flat = []
        for n, g in zip(self.lengths, list(grads) + [None] * (len(self.lengths) - len(grads))):
            if n is None:
                flat.append(g)
            elif g is None:
                flat.extend([None] * n)
            else:
                if not isinstance(g, (list, tuple)) or len(g) != n:
                    raise RuntimeError("Expected the return from backward to be of the same structure as the "
                                       f"inputs: a list of {n} gradients for a list argument, got {g!r}")
                flat.extend(g)
        return tuple(flat)


def _generated(entry):
    if entry.generated is not None:
        return entry.generated
    overload = entry.overload or "default"
    name = f"GeneratedBackwardFor_{entry.ns}_{entry.name}_{overload}"
    multi = len(entry.schema.returns) != 1 or entry.schema.returns[0].type.is_list
    has_kwonly = any(a.kwarg_only for a in entry.schema.arguments)

    def forward(ctx, *flat, _spec):
        pos = _spec.unflatten(flat)
        result = _run_backend(entry, pos, _spec.kwonly)
        info = entry.autograd
        if info is not None and info._setup_context_fn is not None:
            if has_kwonly:
                info._setup_context_fn(ctx=ctx, inputs=tuple(pos), keyword_only_inputs=dict(_spec.kwonly),
                                       output=result)
            else:
                info._setup_context_fn(ctx=ctx, inputs=tuple(pos), output=result)
        ctx._pt_spec = _spec
        if not multi:
            return (result,)
        outs, lengths = [], []
        for r in (result if isinstance(result, tuple) else (result,)):
            if isinstance(r, list):
                lengths.append(len(r))
                outs.extend(r)
            else:
                lengths.append(None)
                outs.append(r)
        _spec.out_lengths = lengths
        _spec.result_is_tuple = isinstance(result, tuple)
        return tuple(outs)

    def backward(ctx, *grads):
        info = entry.autograd
        if info is None or info._backward_fn is None:
            raise RuntimeError(f"Trying to backward through {_overload_of(entry)} but no autograd formula was "
                               "registered. Please use register_autograd to add one.")
        spec = ctx._pt_spec
        if multi:
            grads = _regroup(grads, spec.out_lengths)
        prev = ctx._needs_input_grad
        ctx._needs_input_grad = tuple(spec.unflatten(prev))
        try:
            result = info._backward_fn(ctx, *grads)
        finally:
            ctx._needs_input_grad = prev
        return spec.flatten_grads(result)

    entry.generated = type(name, (Function,), {"forward": staticmethod(forward),
                                               "backward": staticmethod(backward), "__module__": __name__})
    return entry.generated


def _apply_generated(entry, pos, kwonly):
    spec = _CallSpec(entry, pos, kwonly)
    outs = _generated(entry).apply(*spec.flat, _spec=spec)
    multi = len(entry.schema.returns) != 1 or entry.schema.returns[0].type.is_list
    if not multi:
        return outs[0]
    result = _regroup(outs, spec.out_lengths)
    return tuple(result) if spec.result_is_tuple else result[0]


# ==========================================================================================
# custom_op and CustomOpDef
# ==========================================================================================

def _alias_error(opdef):
    module = sys.modules[__name__]      # (PyTorch names the module of its kernel wrapper, custom_ops)
    return RuntimeError(
        f"{opdef._name} (with implementation in {module}): The output of this custom operator (1) must not also "
        "be an input to this custom operator and (2) may not alias any inputs to this custom operator or other "
        "returns. The most common way to trigger this error is if we have y = custom_op(x) and y and x are the "
        "same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. return x.clone()) or "
        "refactor the custom operator to not return y.")


class CustomOpDef:
    """What custom_op returns: callable, with register_autograd, register_fake, register_kernel and
    set_kernel_enabled (PyTorch's torch._library.custom_ops.CustomOpDef)."""

    def __init__(self, namespace, name, schema, fn, tags=()):
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._tags = tuple(tags) if isinstance(tags, (list, tuple)) else ((tags,) if tags else ())
        self._init_fn = fn
        self._backend_fns = {}
        self._abstract_fn = None
        self._setup_context_fn = None
        self._backward_fn = None
        self._disabled_kernel = set()
        self._lib = _library_allowing_overwrite(namespace, name)
        self._lib.define(name + schema)
        self._entry = _lookup(self._qualname)
        self._entry.opdef = self
        self._entry.autograd = self
        self._opoverload = _overload_of(self._entry)
        schema_obj = self._entry.schema
        if any(a.kwarg_only and a.type.is_tensor for a in schema_obj.arguments):
            self._lib._destroy()
            raise NotImplementedError("custom_op with kwarg-only Tensor args. Please make your tensors not "
                                      f"kwarg-only. Got: {name}{schema}")
        self._mutated = [(i, a) for i, a in enumerate([a for a in schema_obj.arguments if not a.kwarg_only])
                         if a.is_write]
        self._mutated_kw = [a.name for a in schema_obj.arguments if a.kwarg_only and a.is_write]
        _OPDEFS[self._qualname] = self

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def _bump_mutated(self, pos, kwonly):
        # PyTorch's ADInplaceOrView kernel for a mutable custom op: one version bump per mutated argument
        for i, _ in self._mutated:
            for t in _tensors_in([pos[i]]):
                t._vc.value += 1
        for name in self._mutated_kw:
            for t in _tensors_in([kwonly.get(name)]):
                t._vc.value += 1

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """Turn the kernel registered for device_type off (the op's own function runs) or on again,
        inside the with block."""
        action = "enable" if enabled else "disable"
        originally_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this device type.",
                        action, device_type)
        if not enabled:
            if originally_disabled:
                log.warning("Attempted to disable kernel for %s but it was already disabled.", device_type)
            else:
                self._disabled_kernel.add(device_type)
        else:
            if not originally_disabled:
                log.warning("Attempted to enable kernel for  %s but it was already enabled.", device_type)
            else:
                self._disabled_kernel.remove(device_type)
        try:
            yield
        finally:
            if originally_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)

    def register_kernel(self, device_types, fn=None, /):
        """The implementation for the device types given ("cpu", "cuda"; None: all devices)."""
        def inner(fn):
            types = [device_types] if device_types is None or isinstance(device_types, str) else list(device_types)
            for device_type in types:
                key = "CompositeExplicitAutograd" if device_type is None else _dispatch_key(device_type)
                if device_type not in self._backend_fns:
                    self._lib.impl(self._name, self._backend_impl(device_type), key)
                self._backend_fns[device_type] = fn
            return fn

        schema = self._entry.schema
        if device_types is not None and not any(a.type.is_tensor for a in schema.arguments) \
                and not any(a.type.base == "Device" for a in schema.arguments):
            raise ValueError("Functions without tensor inputs are required to have a `device: torch.device` "
                             "argument")
        if fn is None:
            return inner
        return inner(fn)

    def _backend_impl(self, device_type):
        def backend_impl(*args, **kwargs):
            fn = self._backend_fns[device_type]
            if device_type in self._disabled_kernel:
                fn = self._init_fn
            result = fn(*args, **kwargs)
            if not self._entry.schema._is_view_op():
                self._check_aliasing(args, kwargs, result)
            return result
        return backend_impl

    def _check_aliasing(self, args, kwargs, result):
        """PyTorch's rule for a custom op's outputs: none is an input, a view of one, or another output."""
        storages = {id(t._storage) for t in _tensors_in(list(args) + list(kwargs.values()))}
        outs = result if isinstance(result, (tuple, list)) else (result,)
        for t in _tensors_in(outs):
            key = id(t._storage)
            if key in storages:
                raise _alias_error(self)
            storages.add(key)

    def register_fake(self, fn, /):
        """Stored (nbgrad has no fake tensors): opcheck's test_faketensor compares its outputs' shapes,
        dtypes and devices with the op's."""
        self._abstract_fn = fn
        self._entry.fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """backward(ctx, *grads) -> one gradient per input; setup_context(ctx, inputs, output) runs in the
        forward to save what backward needs (ctx is an autograd.Function's ctx)."""
        schema = self._entry.schema
        if schema.is_mutable:
            raise RuntimeError(f"Cannot register autograd formula for non-functional operator {self} with schema "
                               f"{schema}. Please create a functional operator and register an autograd formula "
                               "for that.")
        self._backward_fn = backward
        self._setup_context_fn = setup_context


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """A Python function as an operator "namespace::name" (PyTorch's torch.library.custom_op); as a
    decorator or called with the function. Its schema is inferred from the type annotations
    (infer_schema) unless given."""
    def inner(fn):
        if schema is None:
            schema_str = infer_schema(fn, mutates_args=mutates_args, tags=tags)
        else:
            schema_str = schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn, tags or ())
        if schema is not None:
            expected = {a.name for a in result._entry.schema.arguments if a.is_write}
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and `schema={schema}. The "
                    f"schema suggests that the op mutates {expected}which is different from what was provided to "
                    "us in `mutates_args`. Please make these consistent.")
        result.register_kernel(device_types)(fn)
        return result

    if fn is None:
        return inner
    return inner(fn)


def _library_allowing_overwrite(namespace, name):
    """A fragment Library for a custom op, first destroying the one of a custom op of the same name
    (PyTorch lets custom_op redefine an op that custom_op defined)."""
    qual = f"{namespace}::{name}"
    old = _OPDEFS.pop(qual, None)
    if old is not None:
        old._lib._destroy()
    return Library(namespace, "FRAGMENT")


# ==========================================================================================
# Library, define, impl, register_*
# ==========================================================================================

_RESERVED = ("prim",)


def _del_library(defs, impls, ns, kind, token):
    for qual, overload, entry in defs:
        _undefine(qual, overload, entry)
    for qualname, key, fn in impls:
        entry = _lookup(qualname)
        if entry is not None:
            if key == "Meta" and entry.fake is fn:
                entry.fake = None
            elif entry.kernels.get(key) is fn:
                del entry.kernels[key]
        else:
            pending = _PENDING.get(_full_name(qualname))
            if pending is not None and pending.get(key) is fn:
                del pending[key]
    if kind == "DEF" and _DEF_LIBRARIES.get(ns, (None,))[0] is token:
        del _DEF_LIBRARIES[ns]


class Library:
    """Library(ns, "DEF" | "FRAGMENT" | "IMPL", dispatch_key=""): defines ops in namespace ns (.define)
    and registers their kernels (.impl), as PyTorch's torch.library.Library. Its registrations go away
    with it."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _RESERVED and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        where = _caller()
        self._token = object()
        if kind == "DEF":
            previous = _DEF_LIBRARIES.get(ns)
            if previous is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of your "
                    "definitions in a single TORCH_LIBRARY block.  If you were trying to specify implementations, "
                    "consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to define "
                    "operators for a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to "
                    "explicitly indicate this.  Previous registration of TORCH_LIBRARY was registered at "
                    f"{previous[1]}; latest registration was registered at {where}")
            _DEF_LIBRARIES[ns] = (self._token, where)
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._defs = []       # (qualname, overload, entry)
        self._impls = []      # (qualname, key, fn)
        self._destroyed = False
        self._finalizer = weakref.finalize(self, _del_library, self._defs, self._impls, ns, kind, self._token)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Define an op from its schema ("foo(Tensor x) -> Tensor"); returns its name."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")
        entry = _define(self.ns, schema, _caller())
        self._defs.append((f"{self.ns}::{entry.name}", entry.overload, entry))
        return entry.name + (f".{entry.overload}" if entry.overload else "")

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        """Register fn as the kernel of op_name ("foo" or "foo.overload", or an OpOverload) at
        dispatch_key (CPU, CUDA, CompositeImplicitAutograd, CompositeExplicitAutograd, Autograd, Meta)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        if isinstance(op_name, OpOverload):
            name = op_name._name
        elif isinstance(op_name, str):
            name = op_name
        else:
            raise RuntimeError("impl should be passed either a name or an OpOverload object as the first argument, "
                               f"got {type(op_name)}")
        if with_keyset:
            raise NotImplementedError("nbgrad.library: with_keyset=True (dispatch key sets) is not supported")
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")
        qualname = name if "::" in name else f"{self.ns}::{name}"
        key = _dispatch_key(dispatch_key if dispatch_key != "" else "CompositeImplicitAutograd")
        if not allow_override:
            entry = _lookup(qualname)
            if entry is not None and key in entry.kernels:
                raise RuntimeError(
                    "This is not allowed since there's already a kernel registered from python overriding "
                    f"{name.split('::')[-1]}'s behavior for {dispatch_key} dispatch key and {self.ns} namespace.")
        _set_kernel(qualname, key, fn)
        self._impls.append((qualname, key, fn))

    def _destroy(self):
        self._destroyed = True
        self._finalizer()


def define(qualname, schema, *, lib=None, tags=()):
    """Define an op: define("mylib::foo", "(Tensor x) -> Tensor"); then give it kernels with impl or
    register_kernel (and autograd with register_autograd)."""
    if isinstance(qualname, Library):       # the older define(lib, schema): a decorator
        lib_, schema_text = qualname, schema

        def wrap(f):
            name = lib_.define(schema_text)
            lib_.impl(name, f)
            return f
        return wrap
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}")
    namespace, name = parse_namespace(qualname)
    if lib is None:
        lib = Library(namespace, "FRAGMENT")
        _keep_alive.append(lib)
    if not re.fullmatch(r"\(.*\) -> .*", schema):
        raise ValueError('define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" '
                         f'but got "{schema}"')
    lib.define(name + schema, alias_analysis="", tags=tags)


def _impl(qualname, types, func, lib):
    if isinstance(types, str):
        types = (types,)
    keys = {_dispatch_key(t) for t in types}

    def register_(func):
        namespace, _ = parse_namespace(qualname)
        use_lib = lib
        if use_lib is None:
            use_lib = Library(namespace, "FRAGMENT")
            _keep_alive.append(use_lib)
        for key in keys:
            use_lib.impl(qualname, func, key)

    if func is None:
        return register_
    register_(func)
    return None


def impl(qualname, types, func=None, *, lib=None):
    """Register an implementation of "ns::name" for device types ("cpu", "cuda", "default") or
    dispatch keys; a decorator without func. The older impl(lib, name, dispatch_key) form too."""
    if isinstance(qualname, Library):
        lib_, name, key = qualname, types, func or ""

        def wrap(f):
            lib_.impl(name, f, key)
            return f
        return wrap
    return _impl(qualname, types, func, lib)


def _resolve_op(op, registration_name):
    if not isinstance(op, (str, OpOverload, CustomOpDef)):
        raise ValueError(f"{registration_name}({op}): got unexpected type for op: {type(op)}")
    if isinstance(op, OpOverload):
        op = op._name
    if isinstance(op, str):
        return _OPDEFS.get(op, op)
    return op


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register the implementation of op for device types ("cpu", "cuda"; None: all of them)."""
    op = _resolve_op(op, "register_kernel")
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    return _impl(op, device_types, func, lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Store the op's fake ("meta") implementation: see this module's docstring."""
    op = _resolve_op(op, "register_fake")
    if isinstance(op, CustomOpDef):
        return op.register_fake if func is None else op.register_fake(func)

    def register(func):
        entry = _lookup(op)
        if entry is None:
            raise RuntimeError(f"operator {op} does not exist")
        namespace, _ = parse_namespace(op)
        use_lib = lib
        if use_lib is None:
            use_lib = Library(namespace, "FRAGMENT")
            _keep_alive.append(use_lib)
        use_lib.impl(op, func, "Meta")
        return func

    return register if func is None else register(func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Register the backward formula of op (see CustomOpDef.register_autograd)."""
    op = _resolve_op(op, "register_autograd")
    if isinstance(op, CustomOpDef):
        op.register_autograd(backward, setup_context=setup_context)
        return
    ns, name = parse_namespace(op)
    base, overload = _split_overload(name)
    namespace = _NAMESPACES.get(ns) or _OpNamespace(ns)
    packet = getattr(namespace, base)
    overload_op = getattr(packet, overload or "default")
    entry = overload_op._entry
    schema = entry.schema
    if schema.is_mutable or any(r.alias is not None for r in schema.returns):
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator {overload_op} with schema "
                           f"{schema}. Please create a functional operator and register an autograd formula for that.")
    if any(a.kwarg_only and a.type.is_tensor for a in schema.arguments):
        raise NotImplementedError("register_autograd with kwarg-only Tensor args. In the original definition of the "
                                  f"op, please make your tensors not kwarg-only. Got: {schema}")
    entry.autograd = _Info(backward, setup_context)


# ==========================================================================================
# opcheck
# ==========================================================================================

class OpCheckError(Exception):
    pass


class MetadataMismatchError(RuntimeError):
    pass


_ALL_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_static",
                   "test_aot_dispatch_dynamic")
_DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def _copy_args(args, kwargs):
    def copy(v):
        if isinstance(v, Tensor):
            c = v.detach().clone()
            return c.requires_grad_(v.requires_grad) if v.dtype.is_floating_point else c
        if isinstance(v, list):
            return [copy(w) for w in v]
        if isinstance(v, tuple):
            return tuple(copy(w) for w in v)
        return v
    return copy(args), {k: copy(v) for k, v in kwargs.items()}


def _same_values(a, b):
    import numpy as np
    x, y = a.detach().cpu().numpy(), b.detach().cpu().numpy()
    return x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")


def _flat_outputs(result):
    if isinstance(result, (tuple, list)):
        out = []
        for r in result:
            out.extend(_flat_outputs(r))
        return out
    return [result] if isinstance(result, Tensor) else []


def _check_schema(op, args, kwargs):
    """PyTorch's SchemaCheckMode for one call: no argument changed unless the schema marks it
    mutable, no output aliases an argument unless the schema says so, no two outputs alias."""
    args, kwargs = _copy_args(args, kwargs)
    schema = op._entry.schema
    pos, kwonly = _bind(schema, args, kwargs)
    named = list(zip([a for a in schema.arguments if not a.kwarg_only], pos))
    named += [(a, kwonly[a.name]) for a in schema.arguments if a.kwarg_only]
    before = [(a, t, t.detach().clone()) for a, v in named for t in _tensors_in([v])]
    result = op(*args, **kwargs)
    for a, t, old in before:
        if not a.is_write and not _same_values(t, old):
            name = a.name if a.name != "self" else "input"
            raise RuntimeError(f"Argument {name} is not defined as mutable but was mutated")
    outs = _flat_outputs(result)
    for a, t, _ in before:
        if a.alias is None and any(o._storage is t._storage for o in outs):
            raise RuntimeError(f"Argument {a.name} is not defined to alias output but was aliasing")
    for i in range(len(outs)):
        for j in range(i + 1, len(outs)):
            if outs[i]._storage is outs[j]._storage:
                raise RuntimeError(f"Outputs {i} and {j} alias unexpectedly")


def _has_autograd(entry):
    return entry.autograd is not None or any(
        k in entry.kernels for k in ("Autograd", "AutogradCPU", "AutogradCUDA", "CompositeImplicitAutograd"))


def _check_autograd_registration(op, args, kwargs):
    if not any(t.requires_grad for t in _tensors_in(list(args) + list(kwargs.values()))):
        return
    args, kwargs = _copy_args(args, kwargs)
    entry = op._entry
    if _has_autograd(entry):
        return
    outs = _flat_outputs(op(*args, **kwargs))
    if any(o.requires_grad for o in outs):
        raise AssertionError(
            f"{op.name()}: at least one output of this operator has requires_grad=True but the operator does not "
            "have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). This could mean that "
            "you have incorrectly registered an autograd kernel to a non-Autograd DispatchKey, which may lead to "
            "silently incorrect results. If your operator consists of regular PyTorch operations, consider not "
            "using an operator at all or registering your operator as CompositeImplicitAutograd. If you have an "
            "autograd.Function registered to a backend (CPU/CUDA/XPU) key, the correct location for it is the "
            "Autograd key.")


def _fake_impl(op):
    entry = op._entry
    if entry.fake is not None:
        return entry.fake
    if "CompositeImplicitAutograd" in entry.kernels:
        return entry.kernels["CompositeImplicitAutograd"]
    if not entry.schema.returns:
        return lambda *a, **k: None         # PyTorch's trivial fake impl of an op returning nothing
    if entry.opdef is not None:
        raise RuntimeError(
            f"There was no fake impl registered for {entry.opdef}. This is necessary for torch.compile/export/fx "
            f"tracing to work. Please use `{entry.opdef._init_fn.__name__}.register_fake` to add an fake impl.")
    raise RuntimeError(f"{op.name()}: there is no fake (Meta) implementation registered for this operator; "
                       "use torch.library.register_fake to add one.")


def _check_fake(op, args, kwargs):
    args, kwargs = _copy_args(args, kwargs)
    fake = _fake_impl(op)
    real = _flat_outputs(op(*args, **kwargs))
    with no_grad():
        pos, kwonly = _bind(op._entry.schema, args, kwargs)
        faked = _flat_outputs(fake(*pos, **kwonly))
    if len(real) != len(faked):
        raise MetadataMismatchError(f"When comparing the output of {op} on FakeTensor and concrete Tensors, found "
                                    f"mismatched number of outputs: {len(faked)} and {len(real)}")
    for r, f in zip(real, faked):
        for what, a, b in (("Shapes", r.shape, f.shape), ("Dtypes", r.dtype, f.dtype),
                           ("Devices", r.device, f.device)):
            if a != b:
                raise MetadataMismatchError(f"When comparing the output of {op} on FakeTensor and concrete Tensors, "
                                            f"found mismatched tensor metadata: {what} {a} and {b} are not equal!")


def _check_gradients(op, args, kwargs, rtol, atol):
    """What the compiled-vs-eager check becomes here: the op forward and backward, and where the
    inputs that require grad are float64, its gradients against finite differences."""
    from .autograd import grad as autograd_grad
    from .autograd.gradcheck import gradcheck
    args, kwargs = _copy_args(args, kwargs)
    inputs = list(_tensors_in(list(args) + list(kwargs.values())))
    diff = [t for t in inputs if t.requires_grad]
    outs = [o for o in _flat_outputs(op(*args, **kwargs)) if o.requires_grad]
    if diff and outs:
        autograd_grad(sum(o.sum() for o in outs), diff, allow_unused=True)
    _fake_impl(op)      # (PyTorch's compiled run needs the fake impl: the same failure)
    if not diff or not outs or not all(t.dtype == D.float64 for t in diff):
        return
    # the op as a function of the differentiable tensors (lists rebuilt around them)
    def rebuild(values, it):
        out = []
        for v in values:
            if isinstance(v, Tensor) and v.requires_grad:
                out.append(next(it))
            elif isinstance(v, list):
                out.append(rebuild(v, it))
            else:
                out.append(v)
        return out

    def fn(*xs):
        it = iter(xs)
        a = rebuild(list(args), it)
        k = dict(zip(kwargs, rebuild(list(kwargs.values()), it)))
        res = op(*a, **k)
        flat = [o for o in _flat_outputs(res) if o.dtype.is_floating_point]
        return flat[0] if len(flat) == 1 else tuple(flat)

    gradcheck(fn, tuple(diff), atol=1e-5 if atol is None else atol, rtol=1e-3 if rtol is None else rtol)


_TESTERS = {"test_schema": lambda op, a, k, r, t: _check_schema(op, a, k),
            "test_autograd_registration": lambda op, a, k, r, t: _check_autograd_registration(op, a, k),
            "test_faketensor": lambda op, a, k, r, t: _check_fake(op, a, k),
            "test_aot_dispatch_static": _check_gradients,
            "test_aot_dispatch_dynamic": _check_gradients}


def opcheck(op, args, kwargs=None, *, test_utils=_DEFAULT_TEST_UTILS, raise_exception=True, atol=None, rtol=None):
    """Check an op's registration on sample arguments: {test name: "SUCCESS" or the exception}. See
    this module's docstring for what each test checks here."""
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    if kwargs is None:
        kwargs = {}
    if isinstance(op, CustomOpDef):
        op = op._opoverload
    if isinstance(op, OpOverloadPacket):
        names = op.overloads()
        if len(names) != 1:
            raise RuntimeError(f"opcheck(op, ...): {op} has multiple overloads ({names}); please pass one of "
                               "them (an OpOverload)")
        op = getattr(op, names[0])
    if not isinstance(op, OpOverload):
        raise ValueError("opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
                         f"torch.ops.aten.sin.default, got {type(op)}")
    if test_utils == "ALL":
        test_utils = _ALL_TEST_UTILS
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils).issubset(_ALL_TEST_UTILS):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
                         f"{_ALL_TEST_UTILS} but it was not")
    results = {}
    for name in test_utils:
        try:
            _TESTERS[name](op, args, kwargs, rtol, atol)
            results[name] = "SUCCESS"
        except Exception as ex:   # noqa: BLE001  (as PyTorch's: every failure is reported)
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") from ex
            results[name] = ex
    return results


# ==========================================================================================
# nbgrad.ops.<namespace>
# ==========================================================================================

def _namespace(name):
    """The namespace object for nbgrad.ops.<name>, or None when no op of it is defined."""
    with _lock:
        if name in _NAMESPACES and any(q.split("::")[0] == name for q in _DEFS):
            return _NAMESPACES[name]
    return None
