"""The op table: each elementwise op is one row, and everything else is made from it.

A row says what PyTorch's `tools/autograd/derivatives.yaml` says of an op, plus what a
kernel needs: its inputs and scalar parameters, the forward as a formula, one derivative
formula per input (in terms of the inputs, the parameters, `out` and `grad`), the dtypes
it refuses, and whether a backend has a dedicated kernel for it.  From the rows,
nbgrad/ops/elementwise.py makes the op functions and one backward node class per row
(PyTorch's name), nbgrad/ops/__init__.py the Tensor methods and in-place forms, and
nbgrad/ops/fusion.py the derivative rules of nbgrad.fuse; the backends compile the
formulas into their own kernels (nbgrad/ops/_expr.py says how).

What a node saves is read off its derivatives (a formula that reads `x` saves the input
x, one that reads `out` saves the output), and so is what an in-place form needs: the
old value of the written tensor exactly when a derivative reads the first input.

Adding an op with its gradient on both devices is one row here (and its reference values
in tests/ops/test_optable.py).
"""
import functools
from dataclasses import dataclass, field

from .. import _dtype as D
from . import _expr
from ._dtype_rules import INTEGRAL


@dataclass(frozen=True)
class Row:
    name: str                       # PyTorch's function name
    forward: str                    # formula over inputs and params
    grads: tuple                    # per input: derivative formula (None: not differentiable)
    inputs: tuple = ("x",)
    params: tuple = ()              # ((name, default), ...) scalar parameters, in call order
    kernel: str = None              # the backend's dedicated unary/binary kernel, if any
    node: str = None                # the backward node's name (default: Name + "Backward0")
    refuses: tuple = ()             # (dtypes, PyTorch's kernel name): NotImplementedError, or
                                    # (dtypes, exception type, message) for an op's own check
    promotes: bool = True           # integer inputs compute in the default float dtype
    layout: tuple = None            # the operands (by name) whose layout the result takes; a
                                    # name that is no input ("contiguous": PyTorch allocates the
                                    # result row-major) takes none, so the result is row-major
    where: str = "torch"            # "torch" (nbgrad.<name>, a Tensor method) or "functional"
    inplace: bool = True            # has a `<name>_` form
    differentiable: bool = True
    recorded_grads: tuple = None    # the derivatives recorded under create_graph, where PyTorch's
                                    # differ from its backward kernel's (infinitely_differentiable_*)
    grad_layout: tuple = None       # the operands (grad, inputs, out by name) whose layout the
                                    # gradients take, in the order PyTorch's one backward kernel
                                    # iterates them (logit_backward(grad, self, eps): grad's);
                                    # default: the layout the composed formula gives
    grad_layouts: tuple = None      # the same per gradient (operand names, or None for the
                                    # composed formula's layout), where they differ (xlogy's)
    recorded_shared: tuple = ()     # ((name, formula), ...) the recorded derivatives read: values
                                    # computed once, in order, before them (FunctionsManual's
                                    # temporaries, which PyTorch records first and shares)
    half_opmath: bool = True        # float16 computes the forward in float32, rounded once, as
                                    # PyTorch's kernels do with their opmath type; False: op by op
                                    # in float16, as PyTorch's kernels for logit, xlogy, xlog1py,
                                    # entr round
    half_opmath_grads: bool = False  # the same for the gradient formulas: True where they stand
                                    # for one PyTorch backward kernel written inline (silu's,
                                    # mish's); others are derivatives.yaml's Tensor ops (grad *
                                    # cosh(x)), each rounding to float16, or call a backward row

    @functools.cached_property
    def node_name(self):
        if self.node:
            return self.node
        # PyTorch's codegen: upper case at the start and after an underscore or a digit
        # (log1p -> Log1PBackward0, leaky_relu -> LeakyReluBackward0)
        out, up = [], True
        for ch in self.name:
            if ch == "_":
                up = True
                continue
            out.append(ch.upper() if up else ch)
            up = ch.isdigit()
        return "".join(out) + "Backward0"

    def layout_of_grad(self, i):
        """The operands whose layout input i's gradient takes, or None (the composed formula's)."""
        return self.grad_layouts[i] if self.grad_layouts else self.grad_layout

    @functools.cached_property          # (read on every recorded call: computed once)
    def saves(self):
        """The names the backward reads: some of the inputs and 'out', in that order.  The
        operands of grad_layout count: PyTorch's kernel reads (and so saves) them, and a
        second backward or an in-place change of one then fails as it does there (angle's
        zeros_like(self))."""
        used = set(self.grad_layout or ())
        for names in self.grad_layouts or ():
            used |= set(names or ())
        for g in self.grads + (self.recorded_grads or ()):
            if g is not None:
                used |= self._reads(g)
        return tuple(n for n in self.inputs + ("out",) if n in used)

    def _reads(self, formula):
        """The names a derivative reads, through the shared values it reads too."""
        used = set(_expr.names(formula))
        for name, shared in reversed(self.recorded_shared):
            if name in used:
                used |= _expr.names(shared)
        return used

    @functools.cached_property
    def read_by(self):
        """For each saved name, the inputs whose derivative reads it."""
        both = tuple(zip(self.grads, self.recorded_grads or self.grads))
        return {name: tuple(i for i, gs in enumerate(both) if any(g is not None and name in self._reads(g) for g in gs))
                for name in self.saves}

    @functools.cached_property
    def save_guards(self):
        """Per saved name, the input whose need for a gradient decides whether the node saves
        it, or None (always saved): PyTorch's codegen (guard_for) guards a value read by
        exactly one input's derivative (hypot(x, y) with only x requiring grad keeps x and the
        result, not y), and saves everything else unguarded: a value two derivatives read,
        any value of an op with one differentiable input, and every value of a backward op
        (threshold_backward's self, even where only its own derivative, a constant, is
        wanted; a second backward through it then fails as freed)."""
        unguarded = self.n_differentiable <= 1 or "backward" in self.name
        return tuple(None if unguarded or len(self.read_by[n]) != 1 else self.read_by[n][0] for n in self.saves)

    @functools.cached_property
    def kernel_calls(self):
        """Per derivative: is it one call of a row with a dedicated kernel, on plain names
        (relu's threshold_backward(grad, out))?  Then that kernel is the fastest way."""
        return tuple(None if g is None else _expr.kernel_call(g, TABLE) for g in self.grads)

    @functools.cached_property
    def n_differentiable(self):
        return sum(g is not None for g in self.grads)

    @functools.cached_property
    def needs_old(self):
        """Does the in-place form have to keep the written tensor's old value?"""
        return self.inputs[0] in self.saves


_LN2 = "0.6931471805599453"
_LN10 = "2.302585092994046"
_2_SQRTPI = "1.1283791670955126"          # 2 / sqrt(pi)
_SQRT1_2 = "0.7071067811865476"           # 1 / sqrt(2)
_GELU_BETA = "0.7978845608028654"         # sqrt(2) * 2/sqrt(pi) * 0.5 = sqrt(2 / pi)
_GELU_PDF = "0.3989422804014327"          # 2/sqrt(pi) * sqrt(1/2) * 0.5 = 1 / sqrt(2 pi)
_FLOATS_ONLY = INTEGRAL
_BOOL = frozenset({D.bool_})
_HALF = frozenset({D.float16, D.bfloat16})   # (PyTorch refuses these kernels for both)
_ELU_PARAMS = (("alpha", 1.0), ("scale", 1.0), ("input_scale", 1.0))


def _unary(name, forward, grad, **kw):
    kw.setdefault("kernel", name)
    return Row(name, forward, (grad,), **kw)


def _math_rows(table):
    """Rows of the functions whose forward is the math function of the same name: a line
    a row, the name and then the derivative."""
    rows = []
    for line in table.strip().splitlines():
        name, grad = line.split(None, 1)
        rows.append(_unary(name, f"{name}(x)", grad.strip()))
    return rows


# The formulas keep PyTorch's operation order (derivatives.yaml / FunctionsManual.cpp), so
# that composed gradients round as PyTorch's do.
ROWS = (
    *_math_rows(f"""
        exp         grad * out
        exp2        grad * out * {_LN2}
        log         grad / x
        log2        grad / (x * {_LN2})
        log10       grad / (x * {_LN10})
        log1p       grad / (x + 1)
        expm1       grad * (out + 1)
        sqrt        grad / (out * 2)
        rsqrt       grad * -0.5 * out ** 3
        sin         grad * cos(x)
        cos         grad * -sin(x)
        tan         grad * (1 + out ** 2)
        asin        grad * rsqrt(1 - x * x)
        acos        grad * -rsqrt(1 - x * x)
        atan        grad / (x * x + 1)
        sinh        grad * cosh(x)
        cosh        grad * sinh(x)
        erf         {_2_SQRTPI} * exp(-(x ** 2)) * grad
        reciprocal  -grad * (out * out)
        asinh       grad * rsqrt(x ** 2 + 1)
        acosh       grad * rsqrt(x * x - 1)
        atanh       grad * 1 / (1 - x ** 2)
        erfc        -1.1283791670955126 * exp(-(x ** 2)) * grad
        erfinv      0.886226925452758 * exp(erfinv(x) ** 2) * grad
    """),
    # neg, abs and relu keep integer dtypes (promotes=False) and refuse bool as PyTorch does
    Row("neg", "-x", ("-grad",), kernel="neg", promotes=False,
        refuses=(_BOOL, RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you "
                                      "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")),
    Row("abs", "abs(x)", ("grad * sgn(x)",), kernel="abs", promotes=False,      # PyTorch: grad * self.sgn()
        refuses=(_BOOL, "abs_cpu")),
    Row("relu", "relu(x)", ("threshold_backward(grad, out)",), kernel="relu", promotes=False,
        refuses=(_BOOL, RuntimeError, "Boolean inputs not supported for relu")),
    # PyTorch's atan2_backward: 1 / (x^2 + y^2), taken as 0 where that is 0 (at 0, 0); it
    # computes that reciprocal first and once for both derivatives (a masked_fill_ of it),
    # which under create_graph decides its nodes and the engine's order
    Row("atan2", "atan2(x, y)",
        ("grad * y * where(x * x + y * y == 0, 0, reciprocal(x * x + y * y))",
         "grad * -x * where(x * x + y * y == 0, 0, reciprocal(x * x + y * y))"),
        inputs=("x", "y"), kernel="atan2",
        recorded_grads=("grad * y * recip", "grad * -x * recip"),
        recorded_shared=(("denom", "x * x + y * y"), ("recip", "masked_fill(reciprocal(denom), denom == 0, 0)"))),
    # tanh, sigmoid and relu differentiate through backward ops of their own (PyTorch's
    # tanh_backward, sigmoid_backward, threshold_backward), which are rows themselves
    _unary("tanh", "tanh(x)", "tanh_backward(grad, out)"),
    _unary("sigmoid", "sigmoid(x)", "sigmoid_backward(grad, out)"),
    Row("tanh_backward", "g * (1 - y * y)", ("tanh_backward(grad, y)", "grad * (-2.0 * y * g)"),
        inputs=("g", "y"), kernel="tanh_backward", node="TanhBackwardBackward0", where="internal",
        inplace=False),
    Row("sigmoid_backward", "g * y * (1 - y)", ("sigmoid_backward(grad, y)", "grad * g * (1.0 - 2.0 * y)"),
        inputs=("g", "y"), kernel="sigmoid_backward", node="SigmoidBackwardBackward0", where="internal",
        inplace=False),
    Row("threshold_backward", "where(y <= 0, 0, g)", ("threshold_backward(grad, y)", "0"),
        inputs=("g", "y"), kernel="relu_backward", node="ThresholdBackwardBackward0", layout=("y", "g"),
        where="internal", inplace=False),
    # -- the activations: table ops only (their kernels are generated from the formulas)
    # PyTorch's softplus_backward (its result laid out as grad, its first operand) and
    # softplus_double_backward: sigmoid_backward(grad * g, sigmoid(x * beta)), masked by
    # x * beta < threshold, times beta
    Row("softplus", "where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)",
        ("softplus_backward(grad, x, beta, threshold)",),
        params=(("beta", 1.0), ("threshold", 20.0)), refuses=(_FLOATS_ONLY, "softplus_cpu"),
        where="functional", inplace=False),
    Row("softplus_backward", "where(x * beta > threshold, g, g * exp(x * beta) / (exp(x * beta) + 1))",
        ("softplus_backward(grad, x, beta, threshold)",
         "sigmoid_backward(grad * g, sigmoid(x * beta)) * where(x * beta < threshold, 1, 0) * beta"),
        inputs=("g", "x"), params=(("beta", 1.0), ("threshold", 20.0)), node="SoftplusBackwardBackward0",
        where="internal", inplace=False),
    Row("leaky_relu", "where(x > 0, x, x * negative_slope)",
        ("leaky_relu_backward(grad, x, negative_slope)",),
        params=(("negative_slope", 0.01),), refuses=(_FLOATS_ONLY, "leaky_relu_cpu"), where="functional"),
    # (PyTorch's leaky_relu_backward iterates over (self, grad): the result takes x's layout)
    Row("leaky_relu_backward", "where(x > 0, g, g * negative_slope)",
        ("leaky_relu_backward(grad, x, negative_slope)", "0"), inputs=("g", "x"), layout=("x", "g"),
        params=(("negative_slope", 0.01),), node="LeakyReluBackwardBackward0", where="internal", inplace=False),
    # (elu(+-0) is +-0 whatever alpha's sign: PyTorch's forward takes zero as positive, its
    # derivative as negative)
    Row("elu", "where(x < 0, expm1(x * input_scale) * (alpha * scale), x * scale)",
        ("elu_backward(grad, x, alpha, scale, input_scale)",),
        params=_ELU_PARAMS, refuses=(_FLOATS_ONLY, "elu_cpu"), where="functional"),
    # PyTorch's elu_backward and its elu_double_backward: the second derivative is masked
    # by x < 0 (so 0 at x == 0, where the first takes the negative side), as a product by
    # the mask (nan * 0 stays nan; MulBackward0 under create_graph)
    Row("elu_backward", "where(x <= 0, g * (input_scale * (alpha * scale)) * exp(x * input_scale), g * scale)",
        ("elu_backward(grad, x, alpha, scale, input_scale)",
         "elu_backward(grad * g * input_scale, x, alpha, scale, input_scale) * where(x < 0, 1, 0)"),
        inputs=("g", "x"), params=_ELU_PARAMS, node="EluBackwardBackward0", where="internal", inplace=False),
    Row("elu_backward_result", "where(y <= 0, g * input_scale * (y + alpha * scale), g * scale)",
        ("elu_backward_result(grad, y, alpha, scale, input_scale)",
         "grad * g * input_scale * where(y < 0, 1, 0)"),
        inputs=("g", "y"), params=_ELU_PARAMS, node="EluBackwardBackward0", where="internal", inplace=False),
    # the in-place activations differentiate through their result (PyTorch's elu_ and
    # leaky_relu_ entries, is_result=true): nothing of the overwritten input is kept
    Row("elu_", "where(x < 0, expm1(x * input_scale) * (alpha * scale), x * scale)",
        ("elu_backward_result(grad, out, alpha, scale, input_scale)",),
        params=_ELU_PARAMS, refuses=(_FLOATS_ONLY, "elu_cpu"),
        node="EluBackward1", where="internal", inplace=False),
    Row("leaky_relu_", "where(x > 0, x, x * negative_slope)", ("leaky_relu_backward(grad, out, negative_slope)",),
        params=(("negative_slope", 0.01),), refuses=(_FLOATS_ONLY, "leaky_relu_cpu"), node="LeakyReluBackward1",
        where="internal", inplace=False),
    # gelu differentiates through PyTorch's gelu_backward (GeluBackwardBackward0 under
    # create_graph), whose own derivative is FunctionsManual's gelu_double_backward
    Row("gelu", f"x * 0.5 * (1 + erf(x * {_SQRT1_2}))", ("gelu_backward(grad, x)",),
        refuses=(_FLOATS_ONLY, "GeluKernelImpl"), where="functional", inplace=False),
    Row("gelu_backward",
        f"g * (0.5 * (1 + erf(x * {_SQRT1_2})) + x * (exp(-0.5 * x * x) * {_2_SQRTPI} * {_SQRT1_2} * 0.5))",
        ("gelu_backward(grad, x)",
         f"grad * g * (2 * ({_GELU_PDF} * exp(-0.5 * (x * x))) - x * x * ({_GELU_PDF} * exp(-0.5 * (x * x))))"),
        inputs=("g", "x"), node="GeluBackwardBackward0", where="internal", inplace=False),
    Row("gelu_tanh", f"0.5 * x * (1 + tanh({_GELU_BETA} * (x + 0.044715 * (x * x * x))))",
        ("gelu_tanh_backward(grad, x)",),
        node="GeluBackward0", refuses=(_FLOATS_ONLY, "GeluKernelImpl"), where="internal", inplace=False),
    Row("gelu_tanh_backward",
        (f"g * (0.5 * (1 + tanh({_GELU_BETA} * (x + 0.044715 * (x * x * x))))"
         f" + 0.5 * x * (1 - tanh({_GELU_BETA} * (x + 0.044715 * (x * x * x))) ** 2)"
         f" * {_GELU_BETA} * (1 + 3 * 0.044715 * (x * x)))"),
        ("gelu_tanh_backward(grad, x)",
         # f' g h + (f' g h + g' f h + h' f g), with f = x / 2, g = 1 - tanh(inner)^2,
         # h = beta * (1 + 3 kappa x^2), g' = 2 sech(inner) * (-sech(inner) tanh(inner)) * h
         f"grad * g * (0.5 * (1 - tanh({_GELU_BETA} * (x + 0.044715 * x ** 3)) * tanh({_GELU_BETA} * (x + 0.044715 * x ** 3)))"
         f" * ({_GELU_BETA} * (1 + 3 * 0.044715 * x * x))"
         f" + 0.5 * (1 - tanh({_GELU_BETA} * (x + 0.044715 * x ** 3)) * tanh({_GELU_BETA} * (x + 0.044715 * x ** 3)))"
         f" * ({_GELU_BETA} * (1 + 3 * 0.044715 * x * x))"
         f" + 0.5 * x * ({_GELU_BETA} * (1 + 3 * 0.044715 * x * x))"
         f" * (2 * (1 / cosh({_GELU_BETA} * (x + 0.044715 * x ** 3))) * (-(1 / cosh({_GELU_BETA} * (x + 0.044715 * x ** 3)))"
         f" * tanh({_GELU_BETA} * (x + 0.044715 * x ** 3))) * ({_GELU_BETA} * (1 + 3 * 0.044715 * x * x)))"
         f" + 0.5 * x * (1 - tanh({_GELU_BETA} * (x + 0.044715 * x ** 3)) * tanh({_GELU_BETA} * (x + 0.044715 * x ** 3)))"
         f" * (6 * 0.044715 * x * {_GELU_BETA}))"),
        inputs=("g", "x"), node="GeluBackwardBackward0", where="internal", inplace=False),
    Row("silu", "x * sigmoid(x)", ("grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))",),
        refuses=(_FLOATS_ONLY, "silu_cpu"), where="functional", half_opmath_grads=True),
    Row("mish", "x * tanh(log1p(exp(x)))",
        ("grad * (tanh(log1p(exp(x))) + x * sigmoid(x) * (1 - tanh(log1p(exp(x))) ** 2))",),
        refuses=(_FLOATS_ONLY, "mish_cpu"), where="functional", half_opmath_grads=True),
    # (clamp's min(max(x, min_val), max_val): max_val throughout when min_val > max_val)
    Row("hardtanh", "where(x < min_val, where(min_val > max_val, max_val, min_val), where(x > max_val, max_val, x))",
        ("hardtanh_backward(grad, x, min_val, max_val)",),
        params=(("min_val", -1.0), ("max_val", 1.0)), promotes=False, where="functional",
        refuses=(_BOOL, RuntimeError, "Bool inputs not supported for hardtanh")),
    Row("hardtanh_backward", "where(x > min_val, where(x < max_val, g, 0), 0)",
        ("hardtanh_backward(grad, x, min_val, max_val)", "0"), inputs=("g", "x"),
        params=(("min_val", -1.0), ("max_val", 1.0)), node="HardtanhBackwardBackward0", where="internal",
        inplace=False),
    # PyTorch's logit_backward kernel is grad * inf at x == 0 (also -0.0); under create_graph
    # it records infinitely_differentiable_logit_backward (no such case) instead
    # -- hardswish, hardsigmoid, the shrinks, threshold, log_sigmoid, celu, rrelu, prelu: each
    # backward kernel a row of its own (create_graph records PyTorch's ...BackwardBackward0)
    Row("hardswish", "x * where(x + 3 < 0, 0, where(x + 3 > 6, 6, x + 3)) / 6", ("hardswish_backward(grad, x)",),
        refuses=(_FLOATS_ONLY, "hardswish_cpu"), where="functional"),
    # (PyTorch's CPU kernel: 0 up to -3, grad from 3 on, nan passes grad)
    Row("hardswish_backward", "where(x <= -3, 0, where(x < 3, g * (x / 3 + 0.5), g))",
        ("hardswish_backward(grad, x)", "where(x > -3, where(x < 3, grad * g / 3.0, 0), 0)"),
        inputs=("g", "x"), node="HardswishBackwardBackward0", where="internal", inplace=False),
    Row("hardsigmoid", "where(x + 3 < 0, 0, where(x + 3 > 6, 6, x + 3)) / 6", ("hardsigmoid_backward(grad, x)",),
        refuses=(_FLOATS_ONLY, "hardsigmoid_cpu"), where="functional"),
    # (the kernel's one_sixth is the float 1.0f / 6.0f, in double too; PyTorch has no
    # derivative of hardsigmoid_backward: its node is NotImplemented, see tabled.py)
    Row("hardsigmoid_backward", "where(x > -3, where(x < 3, g * 0.1666666716337204, 0), 0)",
        (None, None), inputs=("g", "x"), where="internal", inplace=False),
    Row("softshrink", "where(x > lambd, x - lambd, where(x < -lambd, x + lambd, x * 0))",
        ("softshrink_backward(grad, x, lambd)",), params=(("lambd", 0.5),),
        refuses=(_FLOATS_ONLY, "softshrink_check"), where="functional", inplace=False),
    Row("softshrink_backward", "where(x >= -lambd, where(x <= lambd, 0, g), g)",
        ("softshrink_backward(grad, x, lambd)", "0"), inputs=("g", "x"), params=(("lambd", 0.5),),
        node="SoftshrinkBackwardBackward0", where="internal", inplace=False),
    Row("hardshrink", "where(x >= -lambd, where(x <= lambd, 0, x), x)",
        ("hardshrink_backward(grad, x, lambd)",), params=(("lambd", 0.5),),
        refuses=(_FLOATS_ONLY, "hardshrink_cpu"), where="functional", inplace=False),
    Row("hardshrink_backward", "where(x >= -lambd, where(x <= lambd, 0, g), g)",
        ("hardshrink_backward(grad, x, lambd)", "0"), inputs=("g", "x"), params=(("lambd", 0.5),),
        node="HardshrinkBackwardBackward0", where="internal", inplace=False),
    # threshold keeps integer dtypes; its in-place form differentiates through the old input
    # (PyTorch's threshold_ saves self: ThresholdBackward1)
    Row("threshold", "where(x <= threshold, value, x)", ("threshold_backward_scalar(grad, x, threshold)",),
        params=(("threshold", 0.0), ("value", 0.0)), promotes=False, refuses=(_BOOL, "threshold_cpu"),
        where="functional"),
    Row("threshold_", "where(x <= threshold, value, x)", ("threshold_backward_scalar(grad, x, threshold)",),
        params=(("threshold", 0.0), ("value", 0.0)), promotes=False, refuses=(_BOOL, "threshold_cpu"),
        node="ThresholdBackward1", where="internal", inplace=False),
    Row("threshold_backward_scalar", "where(x <= threshold, 0, g)",
        ("threshold_backward_scalar(grad, x, threshold)", "0"), inputs=("g", "x"), layout=("x", "g"),
        params=(("threshold", 0.0),), node="ThresholdBackwardBackward0", where="internal", inplace=False),
    # log_sigmoid (F.logsigmoid): PyTorch's CPU forward writes a row-major result; its backward kernel
    # (with the buffer exp(-|x|), recomputed here) writes into empty_like(grad)
    Row("log_sigmoid", "where(x < 0, x, 0) - log1p(exp(-abs(x)))", ("log_sigmoid_backward(grad, x)",),
        refuses=(_FLOATS_ONLY, "log_sigmoid_cpu"), layout=("contiguous",), where="internal", inplace=False),
    Row("log_sigmoid_backward",
        "(where(x < 0, 1, 0) - where(x < 0, 1, -1) * (exp(-abs(x)) / (1 + exp(-abs(x))))) * g",
        ("log_sigmoid_backward(grad, x)", "grad * g * (sigmoid(x) - 1) * sigmoid(x)"),
        inputs=("g", "x"), layout=("g",), node="LogSigmoidBackwardBackward0", where="internal", inplace=False),
    # celu is elu with input_scale 1 / alpha, under nodes of its own name; its derivative's
    # input scale is 1.0 / alpha.toFloat() (alpha rounded to float32: derivatives.yaml)
    Row("celu", "where(x < 0, expm1(x * input_scale) * (alpha * scale), x * scale)",
        ("elu_backward(grad, x, alpha, scale, grad_input_scale)",),
        params=_ELU_PARAMS + (("grad_input_scale", 1.0),), refuses=(_FLOATS_ONLY, "elu_cpu"), where="functional"),
    Row("celu_", "where(x < 0, expm1(x * input_scale) * (alpha * scale), x * scale)",
        ("elu_backward_result(grad, out, alpha, scale, grad_input_scale)",),
        params=_ELU_PARAMS + (("grad_input_scale", 1.0),), refuses=(_FLOATS_ONLY, "elu_cpu"),
        node="CeluBackward1", where="internal", inplace=False),
    # rrelu outside training: leaky_relu with slope (lower + upper) / 2 into a row-major
    # result (PyTorch's rrelu_with_noise: empty_like(self, LEGACY_CONTIGUOUS)); in training
    # x * noise, the noise drawn uniform in [lower, upper) where x <= 0, else 1
    Row("rrelu_with_noise", "where(x > 0, x, x * negative_slope)",
        ("rrelu_with_noise_backward(grad, x, negative_slope)",), params=(("negative_slope", 0.0),),
        refuses=(_FLOATS_ONLY, "leaky_relu_cpu"), layout=("contiguous",), where="internal", inplace=False),
    Row("rrelu_with_noise_", "where(x > 0, x, x * negative_slope)",
        ("rrelu_with_noise_backward(grad, out, negative_slope)",), params=(("negative_slope", 0.0),),
        refuses=(_FLOATS_ONLY, "leaky_relu_cpu"), node="RreluWithNoiseBackward1", where="internal", inplace=False),
    Row("rrelu_with_noise_backward", "where(x > 0, g, g * negative_slope)",
        ("rrelu_with_noise_backward(grad, x, negative_slope)", "0"), inputs=("g", "x"), layout=("x", "g"),
        params=(("negative_slope", 0.0),), node="RreluWithNoiseBackwardBackward0", where="internal",
        inplace=False),
    # (x is an operand of the backward, as of PyTorch's rrelu_with_noise_backward: under
    # create_graph its node is recorded when x requires grad, with derivative 0 for x)
    Row("rrelu_with_noise_train", "x * noise", ("rrelu_with_noise_train_backward(grad, x, noise)", None),
        inputs=("x", "noise"), refuses=(_FLOATS_ONLY, "rrelu_with_noise_out_cpu"), node="RreluWithNoiseBackward0",
        where="internal", inplace=False),
    Row("rrelu_with_noise_train_", "x * noise", ("rrelu_with_noise_train_backward(grad, out, noise)", None),
        inputs=("x", "noise"), refuses=(_FLOATS_ONLY, "rrelu_with_noise_out_cpu"), node="RreluWithNoiseBackward1",
        where="internal", inplace=False),
    Row("rrelu_with_noise_train_backward", "g * noise",
        ("rrelu_with_noise_train_backward(grad, x, noise)", "0", None), inputs=("g", "x", "noise"),
        node="RreluWithNoiseBackwardBackward0", where="internal", inplace=False),
    # prelu's kernel on x and the weight reshaped to broadcast over dim 1 (PyTorch's
    # _prelu_kernel).  Its backward kernel has two results, here one row each under
    # PyTorch's node name; their derivatives add up to _prelu_kernel_backward's (which
    # masks by x >= 0 where the kernel masks by x > 0)
    Row("_prelu_kernel", "where(x > 0, x, w * x)",
        ("_prelu_kernel_backward_input(grad, x, w)", "_prelu_kernel_backward_weight(grad, x)"),
        inputs=("x", "w"), node="PreluKernelBackward0", where="internal", inplace=False),
    Row("_prelu_kernel_backward_input", "where(x > 0, g, w * g)",
        ("where(x >= 0, grad, grad * w)", "0", "where(x >= 0, 0, g * grad)"), inputs=("g", "x", "w"),
        layout=("x", "w", "g"), node="PreluKernelBackwardBackward0", where="internal", inplace=False),
    Row("_prelu_kernel_backward_weight", "where(x > 0, 0, x * g)",
        ("where(x >= 0, 0, grad * x)", "where(x >= 0, 0, g * grad)"), inputs=("g", "x"),
        layout=("x", "g"), node="PreluKernelBackwardBackward0", where="internal", inplace=False),
    Row("logit", "log(x / (1 - x))",
        ("where(x < 0, nan, where(x > 1, nan, where(x == 0, grad * inf, grad / (x * (1 - x)))))",),
        recorded_grads=("where(x >= 0, where(x <= 1, grad / (x * (1 - x)), nan), nan)",), grad_layout=("grad", "x"),
        half_opmath=False),
    Row("logit_eps", "log(where(x < eps, eps, where(x > 1 - eps, 1 - eps, x))"
                     " / (1 - where(x < eps, eps, where(x > 1 - eps, 1 - eps, x))))",
        # (PyTorch's (x < lo || x > hi) ? 0 : ...: a NaN eps or x takes the formula)
        ("where(x < eps, 0, where(x > 1 - eps, 0, grad / (x * (1 - x))))",),
        params=(("eps", 0.0),), node="LogitBackward0", where="internal", inplace=False, grad_layout=("grad", "x"),
        half_opmath=False),
    # (recorded as PyTorch's: xlogy(grad, other).masked_fill((self == 0) & (other <= 0), 0))
    Row("xlogy", "where(y != y, y, where(x == 0, 0, x * log(y)))",
        ("where(x == 0, where(y <= 0, 0, xlogy(grad, y)), xlogy(grad, y))", "grad * x / y"), inputs=("x", "y"),
        recorded_grads=("masked_fill(xlogy(grad, y), logical_and(x == 0, y <= 0), 0)", "grad * x / y"),
        grad_layouts=((), None), half_opmath=False),   # (x's row-major: masked_fill clones its operand Contiguous)
    # xlogy.Scalar_Other's derivative masks x == 0 unless other > 0: a NaN other gives 0 there
    # (the Tensor overload's mask, other <= 0, lets the NaN through)
    Row("xlogy_number_other", "where(y != y, y, where(x == 0, 0, x * log(y)))",
        ("where(x == 0, where(y > 0, xlogy(grad, y), 0), xlogy(grad, y))", "grad * x / y"), inputs=("x", "y"),
        node="XlogyBackward2", where="internal", inplace=False, grad_layout=("grad",),   # xlogy(grad, other)
        half_opmath=False),
    Row("hypot", "hypot(x, y)", ("grad * x / out", "grad * y / out"), inputs=("x", "y"), kernel="hypot",
        refuses=(_FLOATS_ONLY, "hypot_cpu")),
    # PyTorch's lerp_vec: fmadd(weight, end - self, self), or fmadd(weight - 1, end - self, end)
    Row("lerp", "where(abs(weight) < 0.5, fma(weight, y - x, x), fma(weight - 1, y - x, y))",
        ("grad * (1 - weight)", "grad * weight"), inputs=("x", "y"), params=(("weight", 0.5),),
        refuses=(_FLOATS_ONLY, "lerp_kernel_scalar")),
    Row("lerp_tensor", "where(abs(w) < 0.5, fma(w, y - x, x), fma(w - 1, y - x, y))",
        ("grad * (1 - w)", "grad * w", "grad * (y - x)"), inputs=("x", "y", "w"), node="LerpBackward1",
        refuses=(_FLOATS_ONLY, "lerp_kernel_tensor"), where="internal", inplace=False),
    # -- the special functions (scalar functions in backends/_shared/special.py), with
    # PyTorch's derivatives.yaml formulas.  polygamma's order n is a parameter (n = 0 is
    # digamma, 1 trigamma); i1/i1e's derivatives (FunctionsManual's i1_backward,
    # i1e_backward) take 0.5 where |x| <= eps, the dtype's epsilon (a parameter the public
    # functions set); polygamma's public forms take the order first (special_functions.py);
    # sinc's (sinc_backward) is 0 where x * x * pi == 0
    _unary("lgamma", "lgamma(x)", "grad * digamma(x)"),
    _unary("digamma", "digamma(x)", "grad * polygamma(1, x)"),
    Row("polygamma", "polygamma(n, x)", ("grad * polygamma(n + 1, x)",), params=(("n", 0),), where="internal",
        inplace=False),
    _unary("i0", "i0(x)", "grad * i1(x)"),
    Row("i0e", "i0e(x)", ("grad * (i1e(x) - sgn(x) * out)",), kernel="i0e", node="SpecialI0EBackward0",
        where="internal", inplace=False),
    Row("i1", "i1(x)",
        ("grad * where(abs(x) > eps, i0(where(abs(x) > eps, x, eps)) - out * reciprocal(where(abs(x) > eps, x, eps)),"
         " 0.5)",), params=(("eps", 2.220446049250313e-16),), kernel="i1", node="SpecialI1Backward0",
        where="internal", inplace=False),
    Row("i1e", "i1e(x)",
        ("grad * where(abs(x) > eps, i0e(where(abs(x) > eps, x, eps)) - out * (sgn(where(abs(x) > eps, x, eps))"
         " + reciprocal(where(abs(x) > eps, x, eps))), 0.5)",), params=(("eps", 2.220446049250313e-16),),
        kernel="i1e", node="SpecialI1EBackward0", where="internal", inplace=False),
    # (sinc's kernel computes float16 in float32, rounded once, as PyTorch's opmath)
    # angle of a real number: pi for a negative one, 0 otherwise (-0.0 too), NaN kept; its
    # gradient is zeros_like(self) (PyTorch's angle_backward for a real input).  (sign(x) * 0
    # gives pi x's dtype in the composed evaluation: a where of two numbers is the default dtype)
    Row("angle", "where(x != x, x, where(x < 0, sign(x) * 0 + 3.141592653589793, 0))", ("0",), inplace=False,
        grad_layout=("x",)),
    Row("sinc", "where(x == 0, 1, sin(3.141592653589793 * x) / (3.141592653589793 * x))",
        ("where(x * x * 3.141592653589793 == 0, 0, grad * ((x * 3.141592653589793 * cos(x * 3.141592653589793)"
         " - sin(x * 3.141592653589793)) / (x * x * 3.141592653589793)))",), kernel="sinc"),
    # torch.special's own: zeta's first argument has no derivative (PyTorch raises when it is
    # wanted: see special_functions.py); xlog1py masks as xlogy (x == 0 and y <= -1: 0)
    Row("zeta", "zeta(x, q)", ("0", "grad * -x * zeta(x + 1, q)"), inputs=("x", "q"), kernel="zeta",
        refuses=(_HALF, "zeta_cpu"), node="SpecialZetaBackward0", where="internal", inplace=False),
    Row("xlog1py", "where(y != y, y, where(x == 0, 0, x * log1p(y)))",
        ("where(x == 0, where(y <= -1, 0, xlog1py(grad, y)), xlog1py(grad, y))", "grad * x / (y + 1)"),
        inputs=("x", "y"), node="SpecialXlog1PyBackward0", where="internal", inplace=False,
        recorded_grads=("masked_fill(xlog1py(grad, y), logical_and(x == 0, y <= -1), 0)", "grad * x / (y + 1)"),
        half_opmath=False),
    Row("entr", "where(x != x, x, where(x > 0, -x * log(x), where(x == 0, 0, -inf)))", ("grad * -(1 + log(x))",),
        node="SpecialEntrBackward0", where="internal", inplace=False, half_opmath=False),
    Row("erfcx", "erfcx(x)", ("(2.0 * x * out - 1.1283791670955126) * grad",), kernel="erfcx",
        refuses=(_HALF, "erfcx_cpu"), node="SpecialErfcxBackward0", where="internal", inplace=False),
    Row("log_ndtr", "log_ndtr(x)", ("grad / 2.5066282746310002 * exp(-(out + x ** 2 / 2))",), kernel="log_ndtr",
        refuses=(_HALF, "log_ndtr_cpu"), node="SpecialLogNdtrBackward0", where="internal", inplace=False),
    Row("ndtri", "ndtri(x)", ("grad * 2.5066282746310002 * exp(out ** 2 / 2)",), kernel="ndtri",
        refuses=(_HALF, "ndtri_cpu"), node="SpecialNdtriBackward0", where="internal", inplace=False),
    # torch.special.gammainc / gammaincc (torch.igamma / igammac): differentiable in x only
    # (PyTorch's not_implemented("igamma: input") for a: special_functions_more.py); an integer
    # operand takes the other's float dtype, two integers are refused (no promotion)
    Row("igamma", "igamma(a, x)", ("0", "grad * exp((a - 1) * log(x) - x - lgamma(a))"), inputs=("a", "x"),
        kernel="igamma", refuses=(INTEGRAL, "igamma_cpu"), promotes=False, where="internal", inplace=False),
    Row("igammac", "igammac(a, x)", ("0", "-grad * exp((a - 1) * log(x) - x - lgamma(a))"), inputs=("a", "x"),
        kernel="igammac", refuses=(INTEGRAL, "igammac_cpu"), promotes=False, where="internal", inplace=False),
    # torch.special's Bessel and Airy functions and orthogonal polynomials (x, n): no derivative
    # in PyTorch (their results never require grad); float32 and float64 only
    *(Row(name, f"{name}(x)", (None,), kernel=name, refuses=(_HALF, name + "_cpu"), differentiable=False,
          where="internal", inplace=False)
      for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
                   "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                   "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai")),
    *(Row(name, f"{name}(x, n)", (None, None), inputs=("x", "n"), kernel=name, refuses=(_HALF, name + "_cpu"),
          differentiable=False, where="internal", inplace=False)
      for name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                   "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                   "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                   "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")),
)

TABLE = {row.name: row for row in ROWS}
