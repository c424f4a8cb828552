"""nbgrad.fuse: an elementwise function of tensors as one forward and one backward kernel.

    @nbgrad.fuse
    def f(x, w):
        return (x * w + 1).tanh() * x

    loss = f(x, w).sum()        # one fused pass forward
    loss.backward()             # one fused pass for both gradients

The first call with a given number of arguments *traces* the function
(tensors and Python numbers alike are its inputs): it runs on symbolic
stand-ins that record each operation into a program (see
nbgrad/backends/cpu/fused.py for the format).  Reverse-mode differentiation
of that program is done symbolically, once, into a backward program.  The
forward kernel also writes the transcendental values the backward needs
(tanh's output for tanh's derivative: one buffer written instead of tanh
computed twice); everything else the backward recomputes from the inputs.
Each program runs as one generated backend kernel.  Autograd sees one node,
FusedBackward0, which saves the inputs (with their versions: in-place
changes to them are caught as for any op).

Supported inside a fused function: + - * / with tensors or Python numbers,
unary minus, ** (number or argument exponents), square, relu, abs, and the methods of
the op table's one-input ops (exp, log, tanh, sigmoid, sqrt, sin, cos, erf, ...: their
derivatives are the table's formulas).  Anything else raises TypeError while tracing.  Tensor arguments are broadcast together and promoted to one
floating dtype (as the unfused ops would); a one-element tensor is read as
a scalar without being expanded.

Where fusion cannot run -- a backend without fused kernels, an empty
result, or create_graph=True in backward -- the same program is evaluated
with ordinary recorded ops, so the values and gradients are those of the
unfused function.
"""
import functools
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ..autograd.backward_path import FUSED, backward_path
from ._graph import (accelerated, backend_of, broadcast_shapes, check_same_device, needs_grad, new_strided,
                     new_tensor, output_layout, record, scalar_tensor)

from .optable import TABLE as _TABLE

# The op table's one-input, parameter-free ops (their derivatives come from the table),
# and relu and abs (whose derivatives are the step and sign instructions).
_UNARY_METHODS = tuple(name for name, row in _TABLE.items()
                       if row.inputs == ("x",) and not row.params and row.where == "torch") + ("relu", "abs")
# Forward values that the kernel path saves for backward rather than recomputes.
_RECOMPUTE_COSTLY = frozenset(_UNARY_METHODS) - {"relu", "abs"} | {"pow", "powt"}


# ----------------------------------------------------------------------------- programs
class _Program:
    """Instructions in topological order, each built once (hash-consing merges repeats)."""

    def __init__(self):
        self.instructions = []
        self._index = {}

    def add(self, *ins):
        if ins[0] == "const":
            ins = ("const", float(ins[1]))
        found = self._index.get(ins)
        if found is None:
            found = self._index[ins] = len(self.instructions)
            self.instructions.append(ins)
        return found

    def const(self, value):
        return self.add("const", value)

    def value_of(self, i):
        ins = self.instructions[i]
        return ins[1] if ins[0] == "const" else None

    # arithmetic with the obvious simplifications (x*1, x+0, 0*x), so that
    # derivative programs stay short
    def binary(self, op, a, b):
        va, vb = self.value_of(a), self.value_of(b)
        if op == "add":
            if va == 0.0:
                return b
            if vb == 0.0:
                return a
        elif op == "sub":
            if vb == 0.0:
                return a
        elif op == "mul":
            if va == 1.0:
                return b
            if vb == 1.0:
                return a
        elif op == "div" and vb == 1.0:
            return a
        return self.add(op, a, b)


class _Symbol:
    """A stand-in for a tensor while a fused function is traced."""

    __slots__ = ("program", "index")

    def __init__(self, program, index):
        self.program = program
        self.index = index

    def _operand(self, other):
        if isinstance(other, _Symbol):
            return other.index
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return self.program.const(other)
        raise TypeError(f"nbgrad.fuse: unsupported operand of type {type(other).__name__} "
                        "(fused functions take tensors and Python numbers)")

    def _new(self, index):
        return _Symbol(self.program, index)

    def __neg__(self):
        return self._new(self.program.add("neg", self.index))

    def __pos__(self):
        return self

    def __pow__(self, exponent):
        if isinstance(exponent, _Symbol):            # an exponent that is an input
            return self._new(self.program.add("powt", self.index, exponent.index))
        if not isinstance(exponent, (int, float)) or isinstance(exponent, bool):
            raise TypeError("nbgrad.fuse: ** takes a number or a tensor argument as exponent")
        return self._new(self.program.add("pow", self.index, float(exponent)))

    def __rpow__(self, base):
        return self._new(self.program.add("powt", self._operand(base), self.index))

    def square(self):
        return self * self

    def __abs__(self):
        return self._new(self.program.add("abs", self.index))

    def __getattr__(self, name):
        raise TypeError(f"nbgrad.fuse: '{name}' is not supported inside a fused function "
                        f"(supported: + - * / ** and {', '.join(_UNARY_METHODS)}, square)")

    def __bool__(self):
        raise TypeError("nbgrad.fuse: a fused function cannot branch on tensor values")


def _unary_method(op):
    def method(self):
        return self._new(self.program.add(op, self.index))
    method.__name__ = op
    return method


def _binary_method(op, reflected):
    def method(self, other):
        a, b = self.index, self._operand(other)
        return self._new(self.program.add(op, *((b, a) if reflected else (a, b))))
    return method


for _op in _UNARY_METHODS:
    setattr(_Symbol, _op, _unary_method(_op))
# + - * / and their reflected forms (2 - x is sub(2, x))
for _op, _dunder in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "truediv")):
    setattr(_Symbol, f"__{_dunder}__", _binary_method(_op, False))
    setattr(_Symbol, f"__r{_dunder}__", _binary_method(_op, True))


def _derivatives(program, n_inputs, out):
    """Extend program with the gradient of instruction `out` with respect to each input;
    the incoming gradient is input number n_inputs.  Returns [index or None] per input."""
    p = program
    adjoint = {out: p.add("input", n_inputs)}
    for idx in range(out, -1, -1):
        g = adjoint.get(idx)
        if g is None:
            continue
        ins = p.instructions[idx]
        op = ins[0]
        contributions = []
        if op in ("input", "const"):
            continue
        a = ins[1]
        if op == "add":
            contributions = [(a, g), (ins[2], g)]
        elif op == "sub":
            contributions = [(a, g), (ins[2], p.add("neg", g))]
        elif op == "mul":
            b = ins[2]
            contributions = [(a, p.binary("mul", g, b)), (b, p.binary("mul", g, a))]
        elif op == "div":
            b = ins[2]
            ga = p.binary("div", g, b)
            contributions = [(a, ga), (b, p.add("neg", p.binary("mul", ga, idx)))]   # -g*out/b
        elif op == "neg":
            contributions = [(a, p.add("neg", g))]
        elif op in _TABLE and op in _UNARY_METHODS:
            # the op table's derivative formula, written into the program
            from ._expr import compile_into
            contributions = [(a, compile_into(p, _TABLE[op].grads[0], {"x": a, "out": idx, "grad": g}, _TABLE))]
        elif op == "relu":
            contributions = [(a, p.binary("mul", g, p.add("step", a)))]
        elif op == "abs":
            contributions = [(a, p.binary("mul", g, p.add("sign", a)))]
        elif op == "pow":
            c = ins[2]
            if c == 0.0:
                contributions = []
            else:
                base = a if c == 2.0 else p.add("pow", a, c - 1.0)
                contributions = [(a, p.binary("mul", g, p.binary("mul", p.const(c), base)))]
        elif op == "powt":
            b = ins[2]
            base = p.add("powt", a, p.binary("sub", b, p.const(1.0)))
            contributions = [(a, p.binary("mul", g, p.binary("mul", b, base))),
                             (b, p.binary("mul", g, p.binary("mul", idx, p.add("log", a))))]
        else:  # pragma: no cover - every traced op is listed above
            raise AssertionError(op)
        for target, value in contributions:
            prev = adjoint.get(target)
            adjoint[target] = value if prev is None else p.binary("add", prev, value)
    inputs = {ins[1]: i for i, ins in enumerate(p.instructions) if ins[0] == "input"}
    return [adjoint.get(inputs[k]) if k in inputs else None for k in range(n_inputs)]


class _Traced:
    """A traced function: the forward program and, per set of needed inputs, the backward."""

    def __init__(self, fn, n_args):
        program = _Program()
        args = [_Symbol(program, program.add("input", k)) for k in range(n_args)]
        result = fn(*args)
        if not isinstance(result, _Symbol):
            raise TypeError("nbgrad.fuse: a fused function must return one tensor computed from its "
                            f"tensor arguments, not {type(result).__name__}")
        self.n_inputs = n_args
        self.forward = tuple(program.instructions)
        self.output = result.index
        self._program = program
        self._backward = {}

    def backward_program(self):
        """(program, per-input gradient index or None) recomputing everything from the
        inputs; its inputs are the forward's, then the incoming gradient."""
        if "recompute" not in self._backward:
            grads = _derivatives(self._program, self.n_inputs, self.output)
            self._backward["recompute"] = (tuple(self._program.instructions), grads)
        return self._backward["recompute"]

    def saving_program(self):
        """(forward outputs, backward program, gradient indices) for the kernel path, where
        the forward also writes the transcendental values the backward needs (tanh's
        output for tanh's derivative, say: a write of one buffer instead of computing
        tanh again) and the backward reads them as inputs n_inputs + 1, + 2, ..."""
        if "saving" not in self._backward:
            program, grads = self.backward_program()
            n_forward = len(self.forward)
            needed = set()
            for ins in program[n_forward:]:
                needed.update(j for j in ins[1:3] if isinstance(j, int) and j < n_forward)
            needed.update(g for g in grads if g is not None and g < n_forward)
            saved = tuple(sorted(j for j in needed if j != self.output
                                 and self.forward[j][0] in _RECOMPUTE_COSTLY))
            substitute = {j: ("input", self.n_inputs + 1 + k) for k, j in enumerate(saved)}
            rebuilt = _Program()
            new_index = {}

            def copy(j):                       # j's instruction (and what it needs), pruned
                if j in new_index:
                    return new_index[j]
                ins = substitute.get(j, program[j])
                op = ins[0]
                if op in ("input", "const"):
                    k = rebuilt.add(*ins)
                elif op == "pow":
                    k = rebuilt.add(op, copy(ins[1]), ins[2])
                else:
                    k = rebuilt.add(op, *[copy(a) for a in ins[1:]])
                new_index[j] = k
                return k
            new_grads = [None if g is None else copy(g) for g in grads]
            self._backward["saving"] = ((self.output,) + saved, tuple(rebuilt.instructions), new_grads)
        return self._backward["saving"]


# ----------------------------------------------------------------------------- evaluation
def _evaluate(program, outputs, values):
    """The program evaluated with ordinary (recorded) tensor ops; values: one per input."""
    from . import elementwise as E
    results = []
    for ins in program:
        op = ins[0]
        if op == "input":
            results.append(values[ins[1]])
        elif op == "const":
            results.append(ins[1])
        elif op in ("add", "sub", "mul", "div"):
            a, b = results[ins[1]], results[ins[2]]
            if not isinstance(a, Tensor) and not isinstance(b, Tensor):
                results.append({"add": a + b, "sub": a - b, "mul": a * b,
                                "div": a / b if b else math.copysign(math.inf, a) if a else math.nan}[op])
                continue
            results.append(getattr(E, op)(a, b))
        elif op == "pow":
            results.append(E.pow(results[ins[1]], ins[2]))
        elif op == "powt":
            results.append(E.pow(results[ins[1]], results[ins[2]]))
        elif op == "step":
            x = results[ins[1]]
            results.append((x <= 0).logical_not().to(x.dtype))
        elif op == "relu":
            results.append(E.relu(results[ins[1]]))
        elif op == "fma":
            # recorded, so composed: the product rounds before the add (the fused kernel's
            # one rounding is what runs wherever a kernel does)
            results.append(results[ins[1]] * results[ins[2]] + results[ins[3]])
        else:
            results.append(getattr(results[ins[1]], op)())
    return [results[i] for i in outputs]


def _as_kernel_input(t, shape, order=None):
    """(buffer, offset, kind) of t's data for a fused kernel over shape: a one-element
    tensor is read as a scalar; anything else is broadcast to shape and made contiguous
    (data only, not recorded: the node's inputs are the tensors themselves, and the engine
    reduces full-shape gradients to each input's shape).  With `order` (the result's
    layout, outermost dim first) the data is laid out in that dims' order instead."""
    if t.numel() == 1:
        return (t._storage.buffer, t._offset, "s")
    if order is not None:
        with no_grad():
            t = t.expand(shape).permute(*order)
            if not t.is_contiguous():
                t = t.contiguous()
    elif t._shape != shape or not t.is_contiguous():
        with no_grad():
            t = t.expand(shape).contiguous()
    return (t._storage.buffer, t._offset, "v")


def _result(buf, shape, layout, dtype, device):
    """A fused kernel's flat output as a tensor of shape in `layout` (None: row-major)."""
    if layout is None:
        return new_tensor(buf, shape, dtype, device)
    return new_strided(buf, shape, layout[1], dtype, device)


class FusedBackward0(Node):
    kernel_saved = True     # the forward ran the kernel and saved its values (else: composed)

    def backward(self, g):
        saved = self.saved_tensors
        traced = self.traced
        program, grads = traced.backward_program()
        wanted = [i for i in range(traced.n_inputs) if self.needs_input_grad(i) and grads[i] is not None]
        result = [None] * traced.n_inputs
        if not wanted:
            return tuple(result)
        be = backend_of(g)
        shape = self.shape
        if backward_path(lambda: accelerated(g, "fused_elementwise") and g._dtype is self.dtype
                         and math.prod(shape) != 0 and self.kernel_saved, g, *saved) is not FUSED:
            values = _evaluate(program, [grads[i] for i in wanted], list(saved[:traced.n_inputs]) + [g])
        else:
            _, program, grads = traced.saving_program()
            n_in = traced.n_inputs
            layout = self.layout
            order = None if layout is None else layout[0]
            inputs = [_as_kernel_input(t, shape, order) for t in saved[:n_in]]
            if all(st == 0 for st in g._stride):
                inputs.append((g._storage.buffer, g._offset, "s"))      # a broadcast gradient (sum)
            else:
                gc = g.contiguous() if order is None else g.permute(*order).contiguous()
                inputs.append((gc._storage.buffer, gc._offset, "v"))
            inputs += [(t._storage.buffer, t._offset, "v") for t in saved[n_in:]]   # forward's values
            bufs = be.fused_elementwise(program, tuple(grads[i] for i in wanted), inputs,
                                        math.prod(shape), self.dtype.np)
            values = [_result(b, shape, layout, self.dtype, g.device) for b in bufs]
        for i, v in zip(wanted, values):
            if not isinstance(v, Tensor):           # a constant gradient
                from .._creation import full
                v = full(shape, v, dtype=self.dtype, device=g.device)
            result[i] = v
        return tuple(result)


def _apply(traced, args, node_cls=None):
    """The traced function on args.  node_cls: the node of a user op
    (nbgrad.elementwise), recorded whichever path runs; None (nbgrad.fuse): FusedBackward0
    on the kernel path, the traced ops' own nodes on the composed one."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    device = check_same_device(*tensors)
    dtype = D.result_type_of(tuple(args))
    if not dtype.is_floating_point:
        dtype = D.get_default_dtype()
    # Python numbers are program inputs too (read once as scalars), so a new value
    # reuses the compiled kernels instead of tracing and compiling again.
    values = [(a if a._dtype is dtype else a.to(dtype)) if isinstance(a, Tensor)
              else scalar_tensor(float(a), dtype, device) for a in args]
    shape = broadcast_shapes(*(v._shape for v in values))
    be = backend_of(values[0])
    n = math.prod(shape)
    if not accelerated(values[0], "fused_elementwise") or n == 0 or dtype not in (D.float32, D.float64):
        if node_cls is None:
            out = _evaluate(traced.forward, (traced.output,), values)[0]
        else:
            with no_grad():
                out = _evaluate(traced.forward, (traced.output,), values)[0]
                if isinstance(out, Tensor) and (any(out is v for v in values) or out._shape != shape):
                    out = out.expand(shape).clone()      # a new tensor, never an input
        if not isinstance(out, Tensor):
            from .._creation import full
            out = full(shape, out, dtype=dtype, device=device)
        if node_cls is not None and needs_grad(*values):
            node = record(node_cls, values, (out,), traced=traced, shape=shape, dtype=dtype, layout=None)
            node.kernel_saved = False
            node.save(*values)
        return out
    # the result is laid out as the unfused ops would lay it out: by the arguments' strides
    layout = output_layout(shape, args)
    order = None if layout is None else layout[0]
    kernel_inputs = [_as_kernel_input(v, shape, order) for v in values]
    grad = needs_grad(*values)
    outputs = traced.saving_program()[0] if grad else (traced.output,)
    bufs = be.fused_elementwise(traced.forward, outputs, kernel_inputs, n, dtype.np)
    out = _result(bufs[0], shape, layout, dtype, device)
    if grad:
        node = record(node_cls or FusedBackward0, values, (out,), traced=traced, shape=shape, dtype=dtype,
                      layout=layout)
        # the inputs (version-checked as any op's) and the forward values backward reads
        node.save(*values, *[_result(b, shape, layout, dtype, device) for b in bufs[1:]])
    return out


def fuse(fn):
    """Decorator: run an elementwise function of tensors as one fused kernel (and its
    gradient as another).  See this module's docstring for what it accepts."""
    traces = {}

    @functools.wraps(fn)
    def fused(*args):
        has_tensor = False
        for a in args:
            if isinstance(a, Tensor):
                has_tensor = True
            elif not isinstance(a, (int, float)) or isinstance(a, bool):
                raise TypeError(f"nbgrad.fuse: {fn.__name__}() takes tensors and Python numbers, "
                                f"got {type(a).__name__}")
        if not has_tensor:
            raise TypeError(f"nbgrad.fuse: {fn.__name__}() needs at least one tensor argument")
        traced = traces.get(len(args))
        if traced is None:
            traced = traces[len(args)] = _Traced(fn, len(args))
        return _apply(traced, args)

    fused.traces = traces
    return fused
