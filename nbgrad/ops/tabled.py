"""The op table's rows made into ops: one generic forward, one generic backward node.

For a row of nbgrad/ops/optable.py, `apply(row, inputs, params)` is the whole op:

  forward   the backend's dedicated kernel when the row names one (exp, tanh, ...);
            otherwise the row's forward formula as one generated fused kernel (the
            backend's fused_elementwise, parameters passed as scalar inputs so that a
            new value compiles nothing), or, without that acceleration (NBGRAD_FUSED=0,
            integer results), the formula evaluated with Tensor ops; float16 computes in
            float32 and rounds once, as PyTorch's kernels (opmath) do;
  backward  one node class per row, named as PyTorch names it, saving what the
            derivatives read; it runs the derivative formulas RECORDED (create_graph:
            Tensor ops), FUSED (one generated kernel for every needed gradient) or
            COMPOSED (Tensor ops, unrecorded) -- autograd.backward_path decides.
"""
import math
import struct

from .. import _dtype as D
from .._checks import as_number
from .._layout import layout_of
from .._tensor import Tensor, contiguous_strides
from ..amp import autocast_mode as _amp  # the autocast hook: one truth test while off
from ..autograd.backward_path import FUSED, backward_path
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node, _saved_input, _saved_output
from . import _expr
from . import elementwise as E
from .fusion import _Program, _as_kernel_input, _result
from ._graph import (accelerated, backend_of, broadcast_shapes, check_same_device, copy_raw, needs_grad, output_layout,
                     record, record_pair, record_unary)
from .optable import ROWS, TABLE
from ._dtype_rules import not_implemented

_KERNEL_DTYPES = (D.float32, D.float64)
_REDUCED = (D.float16, D.bfloat16)     # computed in float32 (opmath), rounded once
_LAYOUTS = {}       # (row, wanted, operand geometries) -> the gradients' strides, or False


def _row_major(shape):
    return contiguous_strides(tuple(shape))


def _strides_of_layout(shape, operands):
    """The strides of an elementwise result over operands ((shape, strides) or None)."""
    found = layout_of(shape, operands)
    return _row_major(shape) if found is None else found[1]


def _order_of(shape, strides):
    """The dims of a (dense) layout, outermost first."""
    return tuple(sorted(range(len(shape)), key=lambda d: (-strides[d], d)))


# -- what formulas may call, as Tensor ops -------------------------------------------------
def _where(cond, a, b):
    if isinstance(cond, bool):                  # a condition on parameters only
        return a if cond else b
    return E.where(cond, a, b)


def _call(fn, number_fn=None):
    def call(*args):
        if number_fn is not None and not any(isinstance(a, Tensor) for a in args):
            return number_fn(*args)
        return fn(*args)
    return call


def _binary_operator(op):
    return {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
            "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
            "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
            "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}[op]


OPS = {op: _binary_operator(op) for op in ("add", "sub", "mul", "div", "pow", "lt", "le", "gt", "ge", "eq", "ne")}
OPS["where"] = _where
OPS["fma"] = lambda a, b, c: E.fma_raw(a, b, c)
OPS["masked_fill"] = lambda a, mask, value: a.masked_fill(mask, value)     # (recorded formulas only)
OPS["logical_and"] = lambda a, b: a & b
for _name in _expr.FUNCTIONS:
    OPS[_name] = _call(lambda *a, _n=_name: getattr(E, _n)(*a),
                       {"abs": abs, "exp": math.exp, "sqrt": math.sqrt}.get(_name))
OPS.update(add_scalar=E.add_scalar, sub_scalar=E.sub_scalar, mul_scalar=E.mul_scalar, div_scalar=E.div_scalar)
OPS["sgn"] = lambda x: E.sgn(x)
OPS["neg"] = lambda x: -x


# -- forward --------------------------------------------------------------------------------
def computed_dtype(row, dt):
    """The dtype the row computes in for operands of (promoted) dtype dt: integers promote
    to the default float dtype where the row says so; a refused dtype stays as it is (the
    error names it)."""
    if row.promotes and not dt.is_floating_point and not (row.refuses and dt in row.refuses[0]):
        return D.get_default_dtype()
    return dt


def _dtype(row, inputs):
    dt = D.result_type_of(tuple(inputs)) if len(inputs) > 1 else inputs[0]._dtype
    if row.refuses and dt in row.refuses[0]:
        if len(row.refuses) == 3:
            raise row.refuses[1](row.refuses[2])
        raise not_implemented(row.refuses[1], dt)
    return computed_dtype(row, dt)


def _layout_operands(row, inputs):
    """The operands whose layout the row's result takes (all, unless the row names some)."""
    if not row.layout:
        return tuple(inputs)
    return tuple(inputs[row.inputs.index(n)] for n in row.layout if n in row.inputs)    # (none: row-major)


_forward_programs = {}


def _forward_program(row):
    """(instructions, output index): inputs 0.. are the row's inputs, then its params."""
    found = _forward_programs.get(row.name)
    if found is None:
        p = _Program()
        env = {name: p.add("input", k) for k, name in enumerate(row.inputs + tuple(n for n, _ in row.params))}
        out = _expr.compile_into(p, row.forward, env, TABLE)
        found = _forward_programs[row.name] = (tuple(p.instructions), out)
    return found


def _forward(row, inputs, params, dt, like):
    if row.kernel is not None:
        if len(inputs) == 1:
            x = inputs[0]
            return E._unary_raw(row.kernel, x if x._dtype is dt else E.cast(x, dt), like=x)
        return E._binary_raw(row.kernel, inputs[0], inputs[1], dt, like=like)
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    device = check_same_device(*tensors)
    shape = broadcast_shapes(*(t._shape for t in tensors))
    n = math.prod(shape)
    # float16: PyTorch's kernels compute in float32 (their opmath type; number operands
    # become float32 straight from double) and round once, at the end
    compute = D.float32 if dt in _REDUCED and row.half_opmath else dt
    if compute in _KERNEL_DTYPES and n and accelerated(tensors[0], "fused_elementwise"):
        program, out = _forward_program(row)
        layout = output_layout(shape, like)
        order = None if layout is None else layout[0]
        values = [E.as_operand(v, compute, device) for v in inputs] + \
                 [E.as_operand(float(params[name]), compute, device) for name, _ in row.params]
        buf, = backend_of(tensors[0]).fused_elementwise(program, (out,), [_as_kernel_input(v, shape, order)
                                                                          for v in values], n, compute.np)
        result = _result(buf, shape, layout, compute, device)
        return result if compute is dt else E.cast(result, dt)
    # (a number operand becomes a 0-dim tensor, as PyTorch wraps it)
    env = dict(zip(row.inputs, [E.cast(v, compute) if isinstance(v, Tensor) else E.as_operand(v, compute, device)
                                for v in inputs]))
    env.update(params)
    with no_grad():
        out = _expr.evaluate(row.forward, env, OPS)
    if not isinstance(out, Tensor) or out._shape != shape:
        from .._creation import full
        out = full(shape, out, dtype=dt, device=device) if not isinstance(out, Tensor) else out.expand(shape).clone()
    out = out if out._dtype is dt else E.cast(out, dt)
    # the layout the fused kernel gives (PyTorch's kernel's: TensorIterator over the operands,
    # or the row's named layout, log_sigmoid's row-major), which the composed ops need not
    # (xlogy(x, y.mT) composed followed x)
    layout = output_layout(shape, like)
    strides = contiguous_strides(tuple(shape)) if layout is None else tuple(layout[1])
    if tuple(out._stride) != strides:
        out = copy_raw(out, strides)
    return out


def _number_params(row, n_in, params):
    """The row's parameters as PyTorch's parser reads Scalars (a bool, a NumPy number, a 0-dim
    tensor's value), or its TypeError naming the parameter: "elu(): argument 'alpha'
    (position 2) must be Number, not NoneType"."""
    names = [name for name, _ in row.params]
    return {name: as_number(v, row.name.rstrip("_"), name, n_in + 1 + names.index(name) if name in names else 0)
            for name, v in params.items()}


def apply(row, inputs, params, node_cls=None):
    """The row's op on `inputs` (tensors or Python numbers) with `params` (a dict of all
    the row's parameters); records the row's node when a tensor input requires grad."""
    for v in params.values():
        if type(v) is not float and type(v) is not int:
            params = _number_params(row, len(inputs), params)
            break
    if row.refuses and len(inputs) > 1:     # PyTorch's TensorIterator: shapes before the kernel's dtypes
        broadcast_shapes(*(t._shape for t in inputs if isinstance(t, Tensor)))
    dt = _dtype(row, inputs)
    like = _layout_operands(row, inputs)
    out = _forward(row, inputs, params, dt, like)
    if row.differentiable and out._dtype.is_floating_point and needs_grad(*inputs):
        cls = node_cls or NODES[row.name]
        n_in = len(inputs)
        node = record_unary(cls, inputs[0], out) if n_in == 1 else \
            record_pair(cls, inputs[0], inputs[1], out) if n_in == 2 else record(cls, tuple(inputs), (out,))
        node.params = params
        saved, consts = [], {}
        for name, guard in zip(row.saves, row.save_guards):
            v = out if name == "out" else inputs[row.inputs.index(name)]
            if guard is not None and not node.needs_input_grad(guard):
                saved.append(None)
            elif isinstance(v, Tensor):
                saved.append(v)
            else:
                consts[name] = v
                saved.append(None)
        if consts:
            node.consts = consts
        if len(saved) == 1:         # (node.save's meaning, without its frame and list: per op)
            v = saved[0]
            node._saved = (None if v is None else _saved_output(v) if v is out else _saved_input(v),)
        else:
            node.save(*saved, outputs=(out,))
    return out


# -- backward ---------------------------------------------------------------------------------
class TableBackward(Node):
    """The backward node of a table row (subclassed per row, with the row's name)."""

    row = None
    params = None
    consts = None

    def backward(self, grad):
        row = self.row
        saved = self.saved_tensors
        env = {n: v for n, v in zip(row.saves, saved) if v is not None}     # (what the wanted gradients read)
        if self.consts:         # number operands: wrapped as PyTorch wraps them (in the fused path too)
            env.update({k: E.as_operand(v, grad._dtype, grad.device) for k, v in self.consts.items()})
        env.update(self.params)
        env["grad"] = grad
        wanted = [i for i, f in enumerate(row.grads) if f is not None and self.needs_input_grad(i)]
        result = [None] * len(row.inputs)
        if not wanted:
            return tuple(result)
        tensors = [v for v in saved if v is not None]
        direct = all(row.kernel_calls[i] for i in wanted)        # one dedicated kernel each: no fusing
        if direct and not is_grad_enabled() and all(t._dtype is grad._dtype for t in tensors):
            # (relu's, tanh's, sigmoid's backward: the kernel called straight, nothing recorded)
            for i in wanted:
                callee, names = row.kernel_calls[i]
                args = [env[n] for n in names]
                result[i] = _forward(callee, args, _NO_PARAMS, grad._dtype, _layout_operands(callee, args))
            return tuple(result)
        if grad._dtype in _REDUCED and row.half_opmath_grads and not is_grad_enabled() and grad.numel() \
                and all(t._dtype is grad._dtype for t in tensors):
            return self._in_float32(env, wanted, result)
        if not direct and backward_path(lambda: self._fusable(grad, tensors), grad, *tensors) is FUSED:
            like = self._layout_operands(env, wanted)
            if like is not None:
                for i, v in zip(wanted, self._fused(grad, env, wanted, like)):
                    result[i] = v
                return tuple(result)
        # under create_graph (grad mode on), PyTorch's infinitely differentiable form, if it has one
        recording = is_grad_enabled()
        formulas = row.recorded_grads if row.recorded_grads and recording else row.grads
        if recording:
            for name, shared in row.recorded_shared:
                env[name] = _expr.evaluate(shared, env, OPS)
        # PyTorch computes these gradients with one kernel each (softshrink_backward(grad, x),
        # ...), whose TensorIterator lays the result out from its operands in order; the
        # composed formula's ops may lay it out otherwise (x's layout winning over grad's):
        # the layout the fused kernel takes is given to the composed result too (NBGRAD_FUSED=0,
        # dtypes the kernels do not read).  Under create_graph the composition is PyTorch's too.
        layouts = None if recording else self._gradient_strides(env, wanted)
        for k, i in enumerate(wanted):
            v = _expr.evaluate(formulas[i], env, OPS)
            if not isinstance(v, Tensor):               # a gradient that is a number
                from .._creation import full
                v = full(grad._shape, v, dtype=grad._dtype, device=grad.device)
                # PyTorch's zeros_like(self) (angle's): laid out as the row's operands under
                # create_graph too, where the composed formulas keep their own layouts
                strides = (layouts or self._gradient_strides(env, wanted))[k]
                if v._stride != strides:
                    v = copy_raw(v, strides)
            elif layouts is not None and v._stride != layouts[k] and v._shape == grad._shape:
                v = copy_raw(v, layouts[k])
            result[i] = v
        return tuple(result)

    def _in_float32(self, env, wanted, result):
        """float16 gradients as PyTorch's backward kernels make them: computed in float32 (one
        fused kernel, or the formulas composed without it), each rounded once to float16, laid
        out as the float16 operands lay them out."""
        strides = self._gradient_strides(env, wanted)
        env32 = {n: E.cast(v, D.float32) if isinstance(v, Tensor) else v for n, v in env.items()}
        grad32 = env32["grad"]
        if self.consts:         # number operands: float32 straight from the number, as opmath takes them
            env32.update({k: E.as_operand(v, D.float32, grad32.device) for k, v in self.consts.items()})
        if len(set(strides)) == 1 and accelerated(grad32, "fused_elementwise"):
            values = self._fused(grad32, env32, wanted, strides[0])
        else:
            values = []
            for i in wanted:
                v = _expr.evaluate(self.row.grads[i], env32, OPS)
                if not isinstance(v, Tensor):
                    from .._creation import full
                    v = full(grad32._shape, v, dtype=D.float32, device=grad32.device)
                values.append(v)
        for k, (i, v) in enumerate(zip(wanted, values)):
            v = E.cast(v, env["grad"]._dtype)
            result[i] = v if v._stride == strides[k] else copy_raw(v, strides[k])
        return tuple(result)

    @staticmethod
    def _fusable(grad, tensors):
        return (grad._dtype in _KERNEL_DTYPES and grad.numel() != 0 and accelerated(grad, "fused_elementwise")
                and all(t._dtype is grad._dtype and t.device == grad.device for t in tensors))

    def _gradient_strides(self, env, wanted):
        """Per wanted gradient, the strides PyTorch's kernel gives it: its operands' layout where
        the row names them (grad_layout, grad_layouts), else the composed formula's."""
        geoms = {n: (v._shape, v._stride) for n, v in env.items() if isinstance(v, Tensor)}
        key = (self.row.name, tuple(wanted), tuple(sorted(geoms.items())))
        found = _LAYOUTS.get(key)
        if found is None:
            shape = env["grad"]._shape
            operands = {n: geoms.get(n) for n in env}
            strides = []
            for i in wanted:
                names = self.row.layout_of_grad(i)
                if names is not None:
                    strides.append(_strides_of_layout(shape, [geoms.get(n) for n in names]))
                else:
                    geom = _expr.geometry(self.row.grads[i], operands, _strides_of_layout, TABLE)
                    strides.append(_row_major(shape) if geom is None else tuple(geom[1]))   # (a constant: full())
            found = _LAYOUTS[key] = tuple(strides)
        return found

    def _layout_operands(self, env, wanted):
        """The strides the wanted gradients share (one fused kernel writes them all), or None
        when they differ (then composed, each laid out as its own)."""
        strides = self._gradient_strides(env, wanted)
        return strides[0] if len(set(strides)) == 1 else None

    def _fused(self, grad, env, wanted, strides):
        """Every wanted gradient in one generated kernel over grad's shape, laid out with
        `strides`."""
        row = self.row
        names = [n for n in row.saves if isinstance(env.get(n), Tensor)] + ["grad"]
        numbers = [n for n in list(row.saves) + [p for p, _ in row.params] if n in env and n not in names]
        key = (tuple(wanted), tuple(names), tuple(numbers))
        programs = self._programs()
        found = programs.get(key)
        if found is None:
            p = _Program()
            penv = {n: p.add("input", k) for k, n in enumerate(names + numbers)}
            outs = tuple(_expr.compile_into(p, row.grads[i], penv, TABLE) for i in wanted)
            found = programs[key] = (tuple(p.instructions), outs)
        program, outs = found
        shape = grad._shape
        layout = None if strides == _row_major(shape) else (_order_of(shape, strides), strides)
        order = None if layout is None else layout[0]
        values = [env[n] for n in names] + [E.as_operand(float(env[n]), grad._dtype, grad.device) for n in numbers]
        inputs = [_as_kernel_input(v, shape, order) for v in values]
        bufs = backend_of(grad).fused_elementwise(program, outs, inputs, math.prod(shape), grad._dtype.np)
        return [_result(b, shape, layout, grad._dtype, grad.device) for b in bufs]

    @classmethod
    def _programs(cls):
        if "_cache" not in cls.__dict__:
            cls._cache = {}
        return cls._cache


NODES = {row.name: type(row.node_name, (TableBackward,), {"row": row}) for row in ROWS}


def _result_backward_needs_positive(name, param, what):
    """PyTorch's in-place elu_/leaky_relu_ differentiate through the result, which loses
    the input's sign when the slope is negative: their backward refuses that."""
    node_cls = NODES[name]

    def backward(self, grad):
        if self.params[param] < 0:
            raise RuntimeError(f"In-place {what} backward calculation is triggered with a negative slope which is "
                               "not supported. This is caused by calling in-place forward function with a negative "
                               "slope, please call out-of-place version instead."
                               + (" File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                                  "in-place leakRelu backward calculation with negative slope" if what == "leakyReLu"
                                  else ""))
        return node_cls.backward(self, grad)
    NODES[name] = type(node_cls.__name__, (node_cls,), {"backward": backward})


_result_backward_needs_positive("elu_", "alpha", "elu")
_result_backward_needs_positive("leaky_relu_", "negative_slope", "leakyReLu")
_result_backward_needs_positive("celu_", "alpha", "elu")
_result_backward_needs_positive("rrelu_with_noise_", "negative_slope", "leakyReLu")


def _not_implemented(name, what):
    """PyTorch records a NotImplemented node where derivatives.yaml has no formula: the
    forward runs, differentiating it raises."""
    def backward(self, grad):
        raise RuntimeError(f"derivative for {what} is not implemented")
    NODES[name] = type("NotImplemented", (NODES[name],), {"backward": backward})


_not_implemented("hardsigmoid_backward", "aten::hardsigmoid_backward")


# -- the op functions ----------------------------------------------------------------------------
_NO_PARAMS = {}      # (shared by every call of a row without parameters: nothing writes it)


def _op_function(row):
    n_in = len(row.inputs)
    unary_plain = n_in == 1 and not row.params

    def op(*args, **kwargs):
        if unary_plain and len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
            return apply(row, args, _NO_PARAMS)         # x.exp(), x.relu(): the common call
        if len(args) < n_in:
            raise TypeError(f"{row.name}() missing required argument '{row.inputs[len(args)]}'")
        inputs = args[:n_in]
        for k, v in enumerate(inputs):
            if not isinstance(v, Tensor) and (k == 0 or not isinstance(v, (int, float))):
                raise TypeError(f"{row.name}(): argument '{'input' if k == 0 else row.inputs[k]}' "
                                f"must be Tensor, not {type(v).__name__}")
        if len(args) > n_in + len(row.params):
            n = n_in + len(row.params)
            raise TypeError(f"{row.name}() takes {n} positional argument{'' if n == 1 else 's'} but "
                            f"{len(args)} were given")
        params = dict(row.params)
        for (name, _), v in zip(row.params, args[n_in:]):
            params[name] = v
        for name, v in kwargs.items():
            if name not in params:
                raise TypeError(f"{row.name}() got an unexpected keyword argument '{name}'")
            params[name] = v
        return apply(row, inputs, params)
    op.__name__ = row.name
    op.keywords = frozenset(name for name, _ in row.params)     # (the in-place forms' argument errors)
    op.__doc__ = f"{row.name}: the op table's row (forward {row.forward!r})."
    return op


FUNCTIONS = {row.name: _op_function(row) for row in ROWS}
# formulas call table ops by name (a math function of the language keeps its own entry,
# which also takes Python numbers: abs(weight))
OPS.update({name: fn for name, fn in FUNCTIONS.items() if name not in OPS})


# the special functions' calls in formulas: polygamma takes its order first (PyTorch's
# polygamma(n, x)), i1/i1e their dtype's epsilon; unrecorded (no grad mode: a composed
# forward or backward), polygamma is the backend's kernel straight
def _eps(x):
    return {D.float16: 0.0009765625, D.bfloat16: 0.0078125, D.float32: 1.1920928955078125e-07}.get(
        x._dtype, 2.220446049250313e-16)


def _polygamma_call(n, x):
    if not is_grad_enabled() and isinstance(x, Tensor) and x._dtype.is_floating_point:
        return E._binary_raw("polygamma", float(n), x, x._dtype)
    return apply(TABLE["polygamma"], (x,), {"n": n})


OPS["polygamma"] = _polygamma_call
OPS["i1"] = lambda x: apply(TABLE["i1"], (x,), {"eps": _eps(x)})
OPS["i1e"] = lambda x: apply(TABLE["i1e"], (x,), {"eps": _eps(x)})


# -- PyTorch's signatures for the table-only ops -------------------------------------------
def _inplace_or_not(row, x, params, inplace):
    if not inplace:
        return apply(row, (x,), params)
    from .inplace import apply_inplace
    row = TABLE.get(row.name + "_", row)         # an in-place form of its own (elu_, leaky_relu_)
    # PyTorch's threshold builds its iterator without the memory-overlap check ("threshold is
    # idempotent, so overlap is okay"): threshold_ may write an expanded tensor
    overlap = None if row.name in ("threshold", "threshold_") else "partial"
    return apply_inplace(x, lambda old: apply(row, (old,), params), needs_old=row.needs_old, overlap=overlap)


def softplus(input, beta=1.0, threshold=20.0):
    return apply(TABLE["softplus"], (_tensor_arg("softplus", input),), {"beta": beta, "threshold": threshold})


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _inplace_or_not(TABLE["leaky_relu"], _tensor_arg("leaky_relu", input),
                           {"negative_slope": negative_slope}, inplace)


def elu(input, alpha=1.0, inplace=False):
    return _inplace_or_not(TABLE["elu"], _tensor_arg("elu", input),
                           {"alpha": alpha, "scale": 1.0, "input_scale": 1.0}, inplace)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    row = TABLE["gelu" if approximate == "none" else "gelu_tanh"]
    return apply(row, (_tensor_arg("gelu", input),), {})


def silu(input, inplace=False):
    return _inplace_or_not(TABLE["silu"], _tensor_arg("silu", input), {}, inplace)


def mish(input, inplace=False):
    return _inplace_or_not(TABLE["mish"], _tensor_arg("mish", input), {}, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:       # (F.hardtanh's Python; F.hardtanh_, ATen's op, has no such check)
        raise ValueError("min_val cannot be greater than max_val")
    # (`if inplace:` then, before the op parses its arguments: a tensor there is bool()'s error)
    return hardtanh_op(input, min_val, max_val, True if inplace else False)


def hardtanh_op(input, min_val, max_val, inplace):
    """ATen's hardtanh: clamp(input, min_val, max_val), so that min_val > max_val gives max_val."""
    if min_val.__class__ is not float or max_val.__class__ is not float:
        # (read as the parser reads Scalars, first: a tensor of one element not 0-dim, or one that
        # requires grad, is its TypeError)
        min_val = as_number(min_val, "hardtanh", "min_val", 2)
        max_val = as_number(max_val, "hardtanh", "max_val", 3)
    if isinstance(input, Tensor) and not input._dtype.is_floating_point:
        # PyTorch's hardtanh_out: no bool; integer limits truncated, none negative for uint8
        if input._dtype is D.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        from .._checks import checked_scalar     # (its limits read as int64: NaN or inf overflow)
        checked_scalar(min_val, D.int64)
        checked_scalar(max_val, D.int64)
        min_val, max_val = int(min_val), int(max_val)
        if input._dtype is D.uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _inplace_or_not(TABLE["hardtanh"], _tensor_arg("hardtanh", input),
                           {"min_val": min_val, "max_val": max_val}, inplace)


def hardswish(input, inplace=False):
    return _inplace_or_not(TABLE["hardswish"], _tensor_arg("hardswish", input), _NO_PARAMS, inplace)


def hardsigmoid(input, inplace=False):
    return _inplace_or_not(TABLE["hardsigmoid"], _tensor_arg("hardsigmoid", input), _NO_PARAMS, inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """elu with PyTorch's selu constants (its nodes: EluBackward0, in place EluBackward1)."""
    return _inplace_or_not(TABLE["elu"], _tensor_arg("selu", input),
                           {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1.0}, inplace)


def celu(input, alpha=1.0, inplace=False):
    x = _tensor_arg("celu", input)
    alpha = as_number(alpha, "celu", "alpha", 2)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    alpha_float = struct.unpack("f", struct.pack("f", alpha))[0]
    return _inplace_or_not(TABLE["celu"], x, {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha,
                                              "grad_input_scale": 1.0 / alpha_float}, inplace)


def logsigmoid(input):
    return apply(TABLE["log_sigmoid"], (_tensor_arg("logsigmoid", input),), _NO_PARAMS)


# the largest finite value of each floating dtype, and as PyTorch prints it (C++ ostream, 6 digits)
_FLOAT_MAX = {D.float16: (65504.0, "65504"), D.bfloat16: (3.3895313892515355e38, "3.38953e+38"),
              D.float32: (3.4028234663852886e38, "3.40282e+38"), D.float64: (1.7976931348623157e308, "1.79769e+308")}


def softshrink(input, lambd=0.5):
    x = _tensor_arg("softshrink", input)
    row = TABLE["softshrink"]
    if x._dtype in row.refuses[0]:
        _dtype(row, (x,))                       # (PyTorch's dispatch names softshrink_check)
    top, shown = _FLOAT_MAX.get(x._dtype, _FLOAT_MAX[D.float32])
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {shown}] for "
                           f"input dtype {D.scalar_type_name(x._dtype)}, but found {lambd}")
    return apply(row, (x,), {"lambd": lambd})


def hardshrink(input, lambd=0.5):
    return apply(TABLE["hardshrink"], (_tensor_arg("hardshrink", input),), {"lambd": lambd})


def threshold(input, threshold, value, inplace=False):
    x = _tensor_arg("threshold", input)
    from .._checks import as_number     # (Scalars: a 0-dim tensor is its number, then truncated below)
    threshold, value = as_number(threshold, "threshold", "threshold", 2), as_number(value, "threshold", "value", 3)
    from .._checks import checked_scalar
    # the kernel reads value as the tensor's element type and threshold as the one it
    # compares in (float32 for the 16-bit floats: threshold(half, 1e30, 0) is accepted)
    checked_scalar(threshold, D.float32 if x._dtype in (D.float16, D.bfloat16) else x._dtype)
    checked_scalar(value, x._dtype)
    if not x._dtype.is_floating_point:
        # PyTorch's kernel reads both numbers as the tensor's integer type (toward zero):
        # threshold(-1, -1.5, 7) compares -1 > -1, not -1 > -1.5
        threshold, value = (math.trunc(v) if isinstance(v, float) and math.isfinite(v) else v
                            for v in (threshold, value))
    return _inplace_or_not(TABLE["threshold"], x, {"threshold": threshold, "value": value}, inplace)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Outside training leaky_relu with slope (lower + upper) / 2; in training each x <= 0
    takes its own slope, drawn uniform in [lower, upper) with nbgrad's generator."""
    x = _tensor_arg("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return _inplace_or_not(TABLE["rrelu_with_noise"], x, {"negative_slope": (lower + upper) / 2}, inplace)
    row = TABLE["rrelu_with_noise_train"]
    if x._dtype in row.refuses[0]:
        _dtype(row, (x,))                       # (the kernel's name, before any noise is drawn)
    with no_grad():
        noise = E.where(x <= 0, x.detach().new_empty(x.shape).uniform_(lower, upper), 1.0).to(x.dtype)
    if not inplace:
        return apply(row, (x, noise), _NO_PARAMS)
    from .inplace import apply_inplace
    row = TABLE["rrelu_with_noise_train_"]
    return apply_inplace(x, lambda old: apply(row, (old, noise), _NO_PARAMS), needs_old=row.needs_old)


def prelu(input, weight):
    """where(x > 0, x, weight * x), weight (one value or one per channel, dim 1) reshaped to
    broadcast over x as PyTorch's prelu does before its _prelu_kernel."""
    if _amp.ON: input, weight = _amp.cast_lower(input, weight)
    x, w = _tensor_arg("prelu", input), _tensor_arg("prelu", weight, "weight")
    if x._dtype is not w._dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {D.scalar_type_name(x._dtype)} and "
                           f"{D.scalar_type_name(w._dtype)}")
    if w.numel() != 1:
        if x.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if x.dim() > 1 else 1
        if channels != w.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{w.numel()} and channel size = {channels}.")
    if w.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.dim()}")
    if x.dim() != w.dim():
        shape = [1] * x.dim()
        if x.dim() > 1:
            shape[1] = w.numel()
        w = w.reshape(shape)
    if not x._dtype.is_floating_point:      # (_prelu_kernel's dispatch: floating types only)
        raise not_implemented("prelu_cpu", x._dtype)
    return apply(TABLE["_prelu_kernel"], (x, w), _NO_PARAMS)


def selu_(input):
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def threshold_(input, threshold, value):
    return _threshold(input, threshold, value, inplace=True)


_threshold = threshold


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def logit(input, eps=None):
    x = _tensor_arg("logit", input)
    if eps is None or float(eps) < 0:
        # (PyTorch's kernels take a negative eps for none: no clamp, and a NaN gradient
        # outside [0, 1] rather than the clamp's zero)
        return apply(TABLE["logit"], (x,), {})
    return apply(TABLE["logit_eps"], (x,), {"eps": float(eps)})


_XLOGY_NUMBER_SELF = type("XlogyBackward1", (NODES["xlogy"],), {})


def xlogy(input, other):
    """x * log(y), 0 where x == 0 (unless y is nan); either operand may be a number (a number
    y: PyTorch's Scalar_Other overload, its own derivative)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy(): expected a Tensor")
    if not isinstance(other, Tensor):
        return apply(TABLE["xlogy_number_other"], (input, other), {})
    return apply(TABLE["xlogy"], (input, other), {}, None if isinstance(input, Tensor) else _XLOGY_NUMBER_SELF)


def atan2(input, other):
    E._require_tensors("atan2", input, other)
    return apply(TABLE["atan2"], (input, other), {})


def hypot(input, other):
    return apply(TABLE["hypot"], (_tensor_arg("hypot", input), _tensor_arg("hypot", other, "other")), {})


def check_lerp_dtypes(x, end, weight):
    """lerp does not promote; a 0-dim weight counts as a number, as in PyTorch."""
    for name, v in (("end", end), ("weight", weight)):
        if isinstance(v, Tensor) and v._dtype is not x._dtype and (name == "end" or v.dim() > 0):
            raise RuntimeError(f"expected dtype {D.cpp_type_name(x._dtype)} for `{name}` but got dtype "
                               f"{D.cpp_type_name(v._dtype)}")


def lerp(input, end, weight):
    x, y = _tensor_arg("lerp", input), _tensor_arg("lerp", end, "end")
    check_lerp_dtypes(x, y, weight)
    if isinstance(weight, Tensor):
        return apply(TABLE["lerp_tensor"], (x, y, weight), {})
    return apply(TABLE["lerp"], (x, y), {"weight": weight})


def _tensor_arg(op, v, name="input"):
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {1 if name == 'input' else 2}) must be Tensor, "
                        f"not {type(v).__name__}")
    return v


PUBLIC = {"softplus": softplus, "leaky_relu": leaky_relu, "elu": elu, "gelu": gelu, "silu": silu, "mish": mish,
          "hardtanh": hardtanh, "hardswish": hardswish, "hardsigmoid": hardsigmoid, "selu": selu, "celu": celu,
          "logsigmoid": logsigmoid, "softshrink": softshrink, "hardshrink": hardshrink, "threshold": threshold,
          "rrelu": rrelu, "prelu": prelu, "selu_": selu_, "celu_": celu_, "threshold_": threshold_, "rrelu_": rrelu_, "logit": logit, "xlogy": xlogy, "hypot": hypot, "lerp": lerp, "atan2": atan2}
