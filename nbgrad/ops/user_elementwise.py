"""nbgrad.elementwise: a plain Python scalar function as an op over tensors, with its gradient.

    @nbgrad.elementwise
    def softclip(x, a):
        return a * math.tanh(x / a)

    y = softclip(x, 2.0)            # broadcasting, dtype promotion, CPU or CUDA
    y.grad_fn                       # <SoftclipBackward ...>
    y.sum().backward()              # d/dx derived symbolically

The function is traced once per number of arguments, as nbgrad.fuse traces: its
arguments are symbolic stand-ins and `math.tanh(...)` (and the other `math` functions
the op table has: exp, log, log1p, expm1, sqrt, sin, cos, tan, asin, acos, atan, sinh,
cosh, erf, fabs, pow) and `abs(...)` record the backend's own scalar functions (the
fast vectorisable exp/tanh on the CPU, libdevice on a GPU).  The gradient is the
symbolic reverse-mode derivative nbgrad.fuse computes, unless `derivative=` gives one:

    @nbgrad.elementwise(derivative={"x": lambda x, a: 1 - math.tanh(x / a) ** 2})

(the partial derivative of the result with respect to that input, a scalar function of
the same arguments; the incoming gradient multiplies it).

The op is one generated kernel forward and one backward (nbgrad/ops/fusion.py's
machinery), recorded as one node named after the function (`SoftclipBackward`) that
saves the inputs with their versions.  Under create_graph the backward is the same
derivative program evaluated with recorded Tensor ops, so it is differentiable again.
Called inside an `nbgrad.fuse` function, the user function is inlined into the fused
program (a function with `derivative=` overrides refuses: fuse would differentiate it
symbolically).
"""
import functools
import inspect
import math
import types

from .._tensor import Tensor
from .fusion import FusedBackward0, _Symbol, _Traced, _apply, _derivatives

# math's functions that have a symbolic counterpart (a one-input op of the table)
_MATH_UNARY = {"exp": "exp", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
               "expm1": "expm1", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan",
               "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
               "tanh": "tanh", "erf": "erf", "fabs": "abs"}


def _symbolic_unary(name, method):
    real = getattr(math, name)

    def fn(x):
        if isinstance(x, _Symbol):
            return getattr(x, method)()
        return real(x)
    fn.__name__ = name
    return fn


def _symbolic_pow(x, y):
    if isinstance(x, _Symbol) or isinstance(y, _Symbol):
        return x ** y
    return math.pow(x, y)


class _SymbolicMath(types.ModuleType):
    """`math` as a traced function sees it: symbolic where the argument is a stand-in."""

    def __getattr__(self, name):
        return getattr(math, name)      # constants (pi, e, inf) and the rest


_MATH = _SymbolicMath("math")
for _name, _method in _MATH_UNARY.items():
    setattr(_MATH, _name, _symbolic_unary(_name, _method))
_MATH.pow = _symbolic_pow
_BY_REAL = {getattr(math, name): getattr(_MATH, name) for name in list(_MATH_UNARY) + ["pow"]}


def _traceable(fn, _memo=None):
    """fn with the `math` it reads (the module, or functions imported from it) made
    symbolic: the same code over other globals.  Plain Python helpers of the same module
    that fn calls are made traceable too."""
    if not isinstance(fn, types.FunctionType):
        return fn
    memo = {} if _memo is None else _memo
    if fn in memo:
        return memo[fn]
    def symbolic(value):
        if value is math:
            return _MATH
        if isinstance(value, types.BuiltinFunctionType) and _BY_REAL.get(value) is not None:
            return _BY_REAL[value]
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            return _traceable(value, memo)
        return value

    env = dict(fn.__globals__)
    closure = fn.__closure__
    if closure:                 # (a `math` or helper the function reads from an enclosing scope)
        cells = []
        for cell in closure:
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                cells.append(cell)
                continue
            new_value = value if value is fn else symbolic(value)
            cells.append(cell if new_value is value else types.CellType(new_value))
        closure = tuple(cells)
    new = memo[fn] = types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, closure)
    for key in fn.__code__.co_names:
        if key in env:
            env[key] = symbolic(env[key])
    return new


def _node_name(fn_name):
    return "".join(part[:1].upper() + part[1:] for part in fn_name.split("_") if part) + "Backward"


class _UserTraced(_Traced):
    """A traced user function; the derivatives of some inputs given by the user."""

    def __init__(self, fn, n_args, derivatives, label):
        def constant_as_symbol(*args):
            # a function that returns a number (a constant derivative, say) is a constant op
            out = fn(*args)
            if isinstance(out, (int, float)) and not isinstance(out, bool) and args:
                program = args[0].program
                return _Symbol(program, program.const(float(out)))
            return out
        try:
            super().__init__(constant_as_symbol, n_args)
        except TypeError as exc:
            raise TypeError(f"nbgrad.elementwise: {label}: {exc}") from None
        self.derivatives = derivatives
        self.label = label

    def backward_program(self):
        if "recompute" not in self._backward:
            p = self._program
            grads = _derivatives(p, self.n_inputs, self.output)
            if self.derivatives:
                g = p.add("input", self.n_inputs)
                args = [_Symbol(p, p.add("input", k)) for k in range(self.n_inputs)]
                for k, dfn in self.derivatives.items():
                    if k >= self.n_inputs:
                        continue
                    d = dfn(*args)
                    if isinstance(d, _Symbol):
                        grads[k] = p.binary("mul", g, d.index)
                    elif isinstance(d, (int, float)) and not isinstance(d, bool):
                        grads[k] = None if d == 0 else p.binary("mul", g, p.const(float(d)))
                    else:
                        raise TypeError(f"nbgrad.elementwise: {self.label}: derivative for input {k} "
                                        f"returned {type(d).__name__}, not a number or an expression")
            self._backward["recompute"] = (tuple(p.instructions), grads)
        return self._backward["recompute"]


def elementwise(fn=None, *, derivative=None, name=None):
    """Decorator: a Python scalar function `fn(x, y, ...)` as an elementwise tensor op
    with a symbolic gradient.  derivative: {argument name or position: scalar function
    of the same arguments giving d fn / d argument}.  name: the op's name (default
    fn.__name__); its node is `<Name>Backward`."""
    if fn is None:
        return lambda f: elementwise(f, derivative=derivative, name=name)
    label = name or fn.__name__
    params = list(inspect.signature(fn).parameters)
    overrides = {}
    for key, dfn in (derivative or {}).items():
        index = params.index(key) if isinstance(key, str) and key in params else key
        if not isinstance(index, int) or not 0 <= index < len(params):
            raise ValueError(f"nbgrad.elementwise: {label}: derivative= names no argument {key!r} "
                             f"(arguments: {', '.join(params)})")
        overrides[index] = _traceable(dfn)
    symbolic = _traceable(fn)
    node_cls = type(_node_name(label), (FusedBackward0,), {"__module__": __name__})
    traces = {}

    @functools.wraps(fn)
    def op(*args):
        has_tensor = False
        for a in args:
            if isinstance(a, Tensor):
                has_tensor = True
            elif isinstance(a, _Symbol):            # inside nbgrad.fuse: inline the function
                if overrides:
                    raise TypeError(f"nbgrad.elementwise: {label} has derivative= overrides, which "
                                    "nbgrad.fuse cannot inline; call it outside the fused function")
                return symbolic(*args)
            elif not isinstance(a, (int, float)) or isinstance(a, bool):
                raise TypeError(f"{label}(): arguments must be tensors or Python numbers, "
                                f"got {type(a).__name__}")
        if not has_tensor:
            return fn(*args)                        # plain numbers: the plain function
        traced = traces.get(len(args))
        if traced is None:
            traced = traces[len(args)] = _UserTraced(symbolic, len(args), overrides, label)
        return _apply(traced, args, node_cls)

    op.traces = traces
    op.node_class = node_cls
    return op
