"""The op table's expression language: one formula, three uses.

An op table row (nbgrad/ops/optable.py) writes its forward and its derivatives as Python
expressions over its inputs, its parameters, `out` (the forward's result) and `grad` (the
incoming gradient):  "grad * (1 - out * out)".  The same parsed formula is

  * evaluated with Tensor ops (`evaluate`): recorded under create_graph, unrecorded as
    the composed fallback where no fused kernel runs;
  * compiled into a fused-elementwise program (`compile_into`): the instruction format of
    nbgrad/backends/cpu/fused.py, which each backend turns into one kernel with its own
    function names (the fast exp on the CPU, libdevice on a GPU, NumPy under the
    simulator), for the fused forward of table-only ops, their fused backward, and the
    derivative rules of nbgrad.fuse.

The language: numbers (and nan, inf), names, + - * / ** and unary minus, one comparison (< <= > >= ==
!=, giving a mask), `where(mask, a, b)`, `fma(a, b, c)` (a * b + c rounded once), and calls of a unary backend function (exp,
log, tanh, ... : the backends' UNARY_OPS that are floating functions) or of another
table op by name (its forward is inlined into programs, called as an op when evaluated).
"""
import ast
import functools
import math

# Backend unary functions a formula may call (each backend has a scalar function of
# this name, and the fused generators know it).
FUNCTIONS = frozenset({
    "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "abs", "sign", "sgn", "neg",
    "relu", "reciprocal", "floor", "ceil", "round", "trunc", "asinh", "acosh", "atanh", "erfc", "erfinv",
    # the special functions (polygamma(n, x) takes the order first, as PyTorch's)
    "lgamma", "digamma", "polygamma", "i0", "i0e", "i1", "i1e", "ndtri", "zeta", "erfcx", "log_ndtr",
    # torch.special's incomplete gamma, Bessel and Airy functions and orthogonal polynomials
    "igamma", "igammac", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"})

# a * b + c rounded once: where PyTorch's kernel fuses a multiply and an add (lerp), a
# formula says so, so that every path (kernel, fused program, compiled step) rounds once
TERNARY = frozenset({"fma"})

CONSTANTS = {"nan": math.nan, "inf": math.inf}
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


@functools.lru_cache(maxsize=None)
def parse(source):
    """The checked syntax tree of a formula (cached: each row's formulas parse once)."""
    tree = ast.parse(source, mode="eval").body
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call, ast.Compare, ast.Name, ast.Constant, ast.Load,
                               ast.USub, ast.UAdd, ast.cmpop, ast.operator))
        if not ok or (isinstance(node, ast.BinOp) and type(node.op) not in _BINOPS) or \
                (isinstance(node, ast.Compare) and len(node.ops) != 1) or \
                (isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.keywords)):
            raise SyntaxError(f"op table formula {source!r}: {ast.dump(node)[:60]} is not in the language")
    return tree


def names(source):
    """The free names a formula reads (its inputs, parameters, out, grad)."""
    tree = parse(source)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return frozenset(n.id for n in ast.walk(tree)
                     if isinstance(n, ast.Name) and n.id not in called and n.id not in CONSTANTS)


def kernel_call(source, table):
    """(row, argument names) when the formula is one call of a table row that has a
    dedicated kernel, on names only (relu's `threshold_backward(grad, out)`); else None."""
    node = parse(source)
    if (isinstance(node, ast.Call) and node.func.id in table and table[node.func.id].kernel is not None
            and all(isinstance(a, ast.Name) and a.id not in CONSTANTS for a in node.args)):
        return table[node.func.id], tuple(a.id for a in node.args)
    return None


def geometry(source, env, layout, table=None):
    """The (shape, strides) the formula's result has when evaluated with Tensor ops, from
    its operands' geometries alone.  env: name -> (shape, strides), or None for a number;
    layout(shape, [geometry or None, ...]) -> strides is the op layer's TensorIterator
    rule, applied at every node as the composed evaluation would apply it."""
    def broadcast(shapes):
        out = ()
        for sh in shapes:
            if len(sh) > len(out):
                out = (1,) * (len(sh) - len(out)) + out
            sh = (1,) * (len(out) - len(sh)) + tuple(sh)
            out = tuple(a if b == 1 else b for a, b in zip(out, sh))
        return out

    def node_of(args):
        geoms = [a for a in args if a is not None]
        if not geoms:
            return None
        shape = broadcast([g[0] for g in geoms])
        return shape, layout(shape, list(args))

    def walk(node):
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.Name):
            return None if node.id in CONSTANTS else env[node.id]
        if isinstance(node, ast.UnaryOp):
            g = walk(node.operand)
            return g if isinstance(node.op, ast.UAdd) or g is None else node_of([g])
        if isinstance(node, ast.BinOp):
            return node_of([walk(node.left), walk(node.right)])
        if isinstance(node, ast.Compare):
            return node_of([walk(node.left), walk(node.comparators[0])])
        args = [walk(a) for a in node.args]
        row = table.get(node.func.id) if table else None
        if row is not None and row.layout:      # a table op whose result takes some operands' layout
            args = [args[row.inputs.index(n)] for n in row.layout if n in row.inputs]
        return node_of(args)
    return walk(parse(source))


def _number(op, a, b):
    try:
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        if op == "div":
            return a / b
        return a ** b
    except ZeroDivisionError:
        return math.copysign(math.inf, a) if op == "div" and a else math.nan


# ----------------------------------------------------------------------------- evaluation
def evaluate(source, env, ops):
    """The formula's value with Tensor ops.  env: name -> Tensor or number; ops: name ->
    callable for the functions and table ops a formula may call (the op layer's)."""
    return _eval(parse(source), env, ops)


def _eval(node, env, ops):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id] if node.id not in CONSTANTS else CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env, ops)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, env, ops), _eval(node.right, env, ops)
        op = _BINOPS[type(node.op)]
        a_number, b_number = isinstance(a, (int, float)), isinstance(b, (int, float))
        if a_number and b_number:
            return _number(op, a, b)
        # PyTorch's formulas are C++: a tensor and a number call the Scalar overload
        # (mul.Scalar: MulBackward1); number + tensor and number * tensor are y.add(x),
        # y.mul(x) there (number - tensor and number / tensor fill a tensor first)
        scalar = ops.get(op + "_scalar")
        if scalar is not None:
            if b_number:
                return scalar(a, b)
            if a_number and op in ("add", "mul"):
                return scalar(b, a)
        return ops[op](a, b)
    if isinstance(node, ast.Compare):
        return ops[_COMPARE[type(node.ops[0])]](_eval(node.left, env, ops), _eval(node.comparators[0], env, ops))
    return ops[node.func.id](*[_eval(a, env, ops) for a in node.args])


# ----------------------------------------------------------------------------- programs
def compile_into(program, source, env, table):
    """Append the formula to a fused program (nbgrad/ops/fusion.py's _Program); return the
    index of its value.  env: name -> instruction index (put a constant in with
    program.const); table: name -> row, for calls of other table ops (their forward inlined)."""
    return _compile(program, parse(source), env, table)


def _compile(p, node, env, table):
    if isinstance(node, ast.Constant):
        return p.const(node.value)
    if isinstance(node, ast.Name):
        return env[node.id] if node.id not in CONSTANTS else p.const(CONSTANTS[node.id])
    if isinstance(node, ast.UnaryOp):
        v = _compile(p, node.operand, env, table)
        if isinstance(node.op, ast.UAdd):
            return v
        c = p.value_of(v)
        return p.const(-c) if c is not None else p.add("neg", v)
    if isinstance(node, ast.BinOp):
        op = _BINOPS[type(node.op)]
        a, b = _compile(p, node.left, env, table), _compile(p, node.right, env, table)
        if op == "pow":             # a constant exponent is part of the instruction
            c = p.value_of(b)
            return p.add("powt", a, b) if c is None else p.add("pow", a, float(c))
        return p.binary(op, a, b)
    if isinstance(node, ast.Compare):
        return p.add(_COMPARE[type(node.ops[0])], _compile(p, node.left, env, table),
                     _compile(p, node.comparators[0], env, table))
    name = node.func.id
    args = [_compile(p, a, env, table) for a in node.args]
    if name == "where":
        return p.add("where", *args)
    if name in FUNCTIONS or name in TERNARY:
        return p.add(name, *args)
    row = table[name]               # another table op: its forward, inlined
    n = len(row.inputs)
    inner = dict(zip(row.inputs, args[:n]))
    # parameters follow the inputs in a call, as in the op's own signature; defaults else
    inner.update({k: args[n + j] if n + j < len(args) else p.const(v) for j, (k, v) in enumerate(row.params)})
    return compile_into(p, row.forward, inner, table)
