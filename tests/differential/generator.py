"""A seeded generator of random programs over the public API, as a new user writes them.

The generator proposes one statement at a time and runs it at once on the reference
library (PyTorch) through the interpreter, so that it knows the shapes and dtypes of
what exists and the program stays mostly meaningful.  Statements that raise are kept:
exceptions are observations too.  `generate(seed)` returns (program, observations);
the observations are the reference's record of the program.

Values are chosen to hit the edges on purpose: zeros, ties, small integers, size-1
and 0-dim tensors, occasionally inf and nan.
"""
import random

from .program import Interpreter, Lib

from nbgrad.ops.optable import ROWS

FLOAT = ("float64", "float32")

# the elementwise ops outside the op table, then the table's unary Tensor ops (exp, log, ...)
UNARY = ("neg", "abs", "relu", "square", "sign", "floor", "ceil", "round", "trunc") + tuple(
    row.name for row in ROWS if row.where == "torch" and len(row.inputs) == 1 and not row.params)
# the table's ops with parameters or several inputs, as PyTorch users call them: the
# activations of nn.functional (parameters to vary, `inplace=` where PyTorch has it), and
# logit/xlogy/hypot/lerp (functions, methods and in-place methods)
ACTIVATIONS = tuple(row.name for row in ROWS if row.where == "functional")
ACTIVATION_PARAMS = {"softplus": {"beta": [0.5, 2.0, -1.0], "threshold": [1.0, 0.5, 20.0]},
                     "leaky_relu": {"negative_slope": [0.2, -0.3, 0.0]}, "elu": {"alpha": [0.5, 2.0, -1.0]},
                     "gelu": {"approximate": ["tanh", "none"]},
                     "hardtanh": {"min_val": [-0.5, 0.0, -2.0], "max_val": [0.5, 2.0]},
                     "celu": {"alpha": [0.5, 2.0, -1.0]}, "softshrink": {"lambd": [0.0, 0.3, 1.0]},
                     "hardshrink": {"lambd": [0.0, 0.3, -0.5]},
                     "threshold": {"threshold": [0.0, 0.3, -1.0], "value": [0.0, 2.0, -0.5]}}
ACTIVATION_INPLACE = ("leaky_relu", "elu", "silu", "mish", "hardtanh", "hardswish", "hardsigmoid", "celu", "threshold")
TABLE_MULTI = tuple(row.name for row in ROWS if row.where == "torch" and (len(row.inputs) > 1 or row.params)) + ("logit",)
BINARY = ("add", "sub", "mul", "truediv", "pow", "maximum", "minimum", "atan2", "remainder", "floordiv")
COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")
INPLACE_UNARY = ("relu_", "exp_", "sigmoid_", "tanh_", "neg_", "abs_", "sqrt_", "zero_", "square_", "sin_",
                 "log_", "reciprocal_", "floor_", "clamp_")
INPLACE_BINARY = ("add_", "sub_", "mul_", "div_", "pow_", "copy_", "atan2_")
IOPS = ("iadd", "isub", "imul", "itruediv")
REDUCE = ("sum", "mean", "prod", "amax", "amin", "max", "min", "std", "var", "logsumexp", "softmax",
          "log_softmax", "norm", "argmax", "argmin", "all", "any")
SHAPES = [(), (1,), (2,), (3,), (4,), (1, 1), (2, 3), (3, 1), (1, 3), (2, 2), (3, 2), (2, 1, 3), (2, 2, 2),
          (1, 2, 1), (3, 1, 2), (1, 2, 1, 3), (2, 1, 2, 2), (0,), (2, 0), (1, 1, 1, 1)]


class Gen:
    def __init__(self, seed, lib=None):
        self.r = random.Random(seed)
        self.seed = seed
        self.interp = Interpreter(lib or Lib("torch"))
        self.program, self.observations = [], []
        self.uses_f32 = False

    # -- state -------------------------------------------------------------------------
    @property
    def vars(self):
        return self.interp.vars

    def pick(self, pred=lambda t: True):
        cands = [i for i, t in enumerate(self.vars) if pred(t)]
        if not cands:
            return None
        # prefer recent variables: programs then chain ops rather than fan out
        weights = [1 + j for j in range(len(cands))]
        return self.r.choices(cands, weights)[0]

    def is_float(self, t):
        return t.dtype.is_floating_point

    def emit(self, st):
        if self.r.random() < 0.1 and st["k"] not in ("leaf", "backward"):
            st["ng"] = True
        self.program.append(st)
        if self.on_statement:
            self.on_statement(self.program)
        self.observations.append(self.interp.step(st))
        return self.observations[-1]

    on_statement = None

    # -- values ------------------------------------------------------------------------
    def number(self, dtype):
        r = self.r
        if dtype == "bool":
            return r.random() < 0.5
        if dtype == "int64":
            return r.choice([0, 0, 1, 2, -1, 3, -2, 5])
        x = r.random()
        if x < 0.3:
            return float(r.choice([0, 1, -1, 2, 0.5, -0.5, 0, 1]))
        if x < 0.97:
            return round(r.gauss(0, 1.5), 2)
        return r.choice([float("inf"), float("-inf"), float("nan"), -0.0])

    def data(self, shape, dtype):
        if not shape:
            return self.number(dtype)
        return [self.data(shape[1:], dtype) for _ in range(shape[0])]

    def leaf(self, shape=None, dtype=None, rg=None):
        r = self.r
        shape = shape if shape is not None else r.choice(SHAPES)
        if dtype is None:
            dtype = r.choices(("float64", "float32", "int64", "bool"), (5, 3, 2, 1))[0]
        if rg is None:
            rg = r.random() < 0.7
        rg = rg and dtype in FLOAT
        if dtype == "float32":
            self.uses_f32 = True
        self.emit({"k": "leaf", "a": [self.data(tuple(shape), dtype), dtype, rg]})
        return len(self.vars) - 1

    # -- shapes ------------------------------------------------------------------------
    def broadcastable(self, shape):
        """A shape that broadcasts with `shape` (sometimes equal, sometimes smaller)."""
        r = self.r
        shape = list(shape)
        x = r.random()
        if x < 0.4:
            return tuple(shape)
        if x < 0.6 and shape:
            return tuple(shape[r.randrange(len(shape)):])
        return tuple(1 if r.random() < 0.4 else n for n in shape)

    def operand(self, t, dtype=None):
        """A variable index broadcast-compatible with tensor t (existing or a new leaf)."""
        shape = tuple(t.shape)
        cands = [i for i, v in enumerate(self.vars) if _broadcasts(tuple(v.shape), shape)
                 and (dtype is None or str(v.dtype).split(".")[-1] == dtype)]
        if cands and self.r.random() < 0.6:
            return self.r.choice(cands)
        return self.leaf(self.broadcastable(shape), dtype or (str(t.dtype).split(".")[-1]
                                                            if self.r.random() < 0.8 else None))

    def scalar_or_var(self, t):
        if self.r.random() < 0.35:
            return self.number(self.r.choice(("float64", "int64", "float64")))
        return {"v": self.operand(t)}

    def dim(self, t, allow_none=False):
        n = t.dim()
        if allow_none and self.r.random() < 0.3:
            return None
        if n == 0:
            return self.r.choice([0, -1])
        return self.r.randrange(-n, n)

    # -- statements --------------------------------------------------------------------
    def s_unary(self):
        i = self.pick()
        op = self.r.choice(UNARY)
        how = self.r.random()
        if how < 0.6:
            self.emit({"k": "meth", "t": i, "op": op})
        elif op == "neg" or how < 0.7:
            self.emit({"k": "call", "op": op if op != "neg" else "neg", "a": [{"v": i}]})
        else:
            self.emit({"k": "meth", "t": i, "op": "clamp",
                       "kw": self.r.choice([{"min": 0.0}, {"max": 0.5}, {"min": -1, "max": 1}, {"min": 0.5, "max": 0.5}])})

    def s_table(self):
        """One of the op table's ops with parameters or several inputs."""
        r = self.r
        i = self.pick()
        t = self.vars[i]
        if r.random() < 0.6:
            op = r.choice(ACTIVATIONS)
            kw = {k: r.choice(v) for k, v in ACTIVATION_PARAMS.get(op, {}).items() if r.random() < 0.6}
            if op in ACTIVATION_INPLACE and r.random() < 0.3:
                kw["inplace"] = True
            self.emit({"k": "call", "op": "nn.functional." + op, "a": [{"v": i}], "kw": kw})
            return
        op = r.choice(TABLE_MULTI)
        if op == "logit":
            args = [] if r.random() < 0.5 else [r.choice([0.0, 0.1, 0.25, 0.6])]
        elif op == "lerp":
            w = {"v": self.operand(t)} if r.random() < 0.4 else r.choice([0.0, 0.3, 0.5, 0.75, 1.0, -1.5])
            args = [{"v": self.operand(t)}, w]
        elif op == "xlogy" and r.random() < 0.3:
            args = [self.number("float64")]
        else:
            args = [{"v": self.operand(t)}]
        how = r.random()
        if how < 0.4:
            self.emit({"k": "call", "op": op, "a": [{"v": i}] + args})
        elif how < 0.75:
            self.emit({"k": "meth", "t": i, "op": op, "a": args})
        else:
            self.emit({"k": "meth", "t": i, "op": op + "_", "a": args})

    def s_binary(self):
        i = self.pick()
        t = self.vars[i]
        op = self.r.choice(BINARY + COMPARE)
        other = self.scalar_or_var(t)
        a = [{"v": i}, other]
        if self.r.random() < 0.3:
            a.reverse()
        if op in ("maximum", "minimum", "atan2", "remainder"):
            if not isinstance(other, dict):
                other = {"v": self.operand(t)}
            self.emit({"k": "call", "op": op, "a": [{"v": i}, other]})
        else:
            self.emit({"k": "binop", "op": op, "a": a})

    def s_where(self):
        i = self.pick(self.is_float) 
        if i is None:
            return
        t = self.vars[i]
        c = self.operand(t, "bool") if self.r.random() < 0.5 else None
        if c is None:
            self.emit({"k": "binop", "op": "gt", "a": [{"v": i}, 0.0]})
            c = len(self.vars) - 1
        self.emit({"k": "call", "op": "where", "a": [{"v": c}, {"v": i}, self.scalar_or_var(t)]})

    def s_reduce(self):
        i = self.pick()
        t = self.vars[i]
        op = self.r.choice(REDUCE)
        r = self.r
        kw = {}
        if op in ("softmax", "log_softmax", "logsumexp"):
            args = [self.dim(t)]
        elif op in ("max", "min", "argmax", "argmin", "prod", "all", "any"):
            args = [] if r.random() < 0.4 else [self.dim(t)]
            if args and r.random() < 0.4:
                kw["keepdim"] = True
        elif op in ("std", "var"):
            args = [] if r.random() < 0.5 else [self.dim(t)]
            if r.random() < 0.3:
                kw["correction" if r.random() < 0.5 else "unbiased"] = r.choice([0, 1])
            if args and r.random() < 0.4:
                kw["keepdim"] = True
        else:
            args = [] if r.random() < 0.4 else [self.dim(t) if r.random() < 0.7 or t.dim() < 2
                                                 else {"tup": [0, -1]}]
            if args and r.random() < 0.4:
                kw["keepdim"] = True
            if op == "norm" and args:       # norm's first positional parameter is p
                kw["dim"] = args.pop()
        self.emit({"k": "meth", "t": i, "op": op, "a": args, "kw": kw})

    def s_matmul(self):
        i = self.pick(lambda v: self.is_float(v) and 1 <= v.dim() <= 3)
        if i is None:
            return
        t = self.vars[i]
        dt = str(t.dtype).split(".")[-1]
        k = t.shape[-1]
        n = self.r.choice([1, 2, 3])
        shape = (k,) if self.r.random() < 0.3 else (k, n)
        if t.dim() == 3 and self.r.random() < 0.5:
            shape = (t.shape[0], k, n)
        j = self.leaf(shape, dt)
        if self.r.random() < 0.5:
            self.emit({"k": "binop", "op": "matmul", "a": [{"v": i}, {"v": j}]})
        else:
            op = "mm" if t.dim() == 2 and len(shape) == 2 else "matmul"
            self.emit({"k": "call", "op": op, "a": [{"v": i}, {"v": j}]})

    def s_view(self):
        i = self.pick()
        t = self.vars[i]
        r = self.r
        n = t.dim()
        shape = list(t.shape)
        choice = r.choice(("view", "reshape", "t", "transpose", "permute", "expand", "narrow", "select",
                           "squeeze", "unsqueeze", "flatten", "diagonal", "split", "unbind", "chunk",
                           "contiguous", "clone", "detach", "data", "T", "movedim", "as_strided", "tensor_split"))
        if choice in ("view", "reshape"):
            numel = t.numel()
            opts = [[numel], [-1], [1, numel], [numel, 1], list(reversed(shape)), shape + [1]]
            if numel % 2 == 0 and numel:
                opts += [[2, numel // 2], [-1, 2]]
            self.emit({"k": "meth", "t": i, "op": choice, "a": r.choice(opts)})
        elif choice == "t":
            self.emit({"k": "meth", "t": i, "op": "t"})
        elif choice in ("transpose", "movedim"):
            self.emit({"k": "meth", "t": i, "op": choice, "a": [self.dim(t), self.dim(t)]})
        elif choice == "permute":
            p = list(range(n))
            r.shuffle(p)
            self.emit({"k": "meth", "t": i, "op": "permute", "a": p})
        elif choice == "expand":
            new = [r.choice([2, 3]) if s == 1 and r.random() < 0.7 else (-1 if r.random() < 0.3 else s)
                   for s in shape]
            if r.random() < 0.4:
                new = [r.choice([1, 2])] + new
            self.emit({"k": "meth", "t": i, "op": "expand", "a": new})
        elif choice == "narrow" and n:
            d = self.dim(t)
            size = shape[d]
            start = r.randrange(0, size + 1) if size else 0
            self.emit({"k": "meth", "t": i, "op": "narrow", "a": [d, start, r.randrange(0, size - start + 1)]})
        elif choice == "select" and n:
            d = self.dim(t)
            size = shape[d]
            if size:
                self.emit({"k": "meth", "t": i, "op": "select", "a": [d, r.randrange(-size, size)]})
        elif choice == "squeeze":
            self.emit({"k": "meth", "t": i, "op": "squeeze", "a": [] if r.random() < 0.4 else [self.dim(t)]})
        elif choice == "unsqueeze":
            self.emit({"k": "meth", "t": i, "op": "unsqueeze", "a": [r.randrange(-n - 1, n + 1)]})
        elif choice == "flatten":
            self.emit({"k": "meth", "t": i, "op": "flatten", "a": [] if r.random() < 0.5 else [0, -1]})
        elif choice == "diagonal" and n >= 2:
            self.emit({"k": "meth", "t": i, "op": "diagonal", "a": [r.choice([0, 1, -1])]})
        elif choice in ("split", "chunk", "tensor_split") and n:
            self.emit({"k": "meth", "t": i, "op": choice, "a": [r.choice([1, 2]), self.dim(t)]})
        elif choice == "unbind" and n:
            self.emit({"k": "meth", "t": i, "op": "unbind", "a": [self.dim(t)]})
        elif choice in ("contiguous", "clone", "detach"):
            self.emit({"k": "meth", "t": i, "op": choice})
        elif choice in ("data", "T"):
            if choice == "T" and n != 2:
                return
            self.emit({"k": "attr", "t": i, "op": choice})
        elif choice == "as_strided" and r.random() < 0.25:
            # geometry a user should be refused: negative strides, sizes or offsets, out of bounds
            size, stride, off = r.choice([([2], [-1], 1), ([2], [-2 ** 40], 0), ([-1], [1], 0), ([2], [1], -1),
                                          ([2, 2], [3, -3], 3), ([3], [t.numel()], 0), ([1], [1], t.numel())])
            self.emit({"k": "meth", "t": i, "op": "as_strided", "a": [size, stride, off]})
        elif choice == "as_strided":
            numel = t.numel()
            if numel >= 2:
                self.emit({"k": "meth", "t": i, "op": "as_strided",
                           "a": [r.choice([[2], [2, 1], [1, 2]]), r.choice([[1], [1, 1], [0, 1], [1, 0]])[:1 + (r.random() < 0.5)],
                                 ]})
                st = self.program[-1]
                st["a"][1] = (st["a"][1] * 2)[:len(st["a"][0])]

    def s_index(self):
        i = self.pick()
        t = self.vars[i]
        self.emit({"k": "getitem", "t": i, "a": [self.index(t)]})

    def index(self, t):
        r = self.r
        shape = list(t.shape)
        parts = []
        d = 0
        x = r.random()
        if x < 0.15 and shape:
            size = shape[0]
            vals = [r.randrange(-size, size) for _ in range(r.choice([1, 2, 3, 4]))] if size else []
            return {"ten": [vals, "int64"]}
        if x < 0.22:
            mask = self.data(tuple(shape), "bool")
            return {"ten": [mask, "bool"]}
        while d < len(shape) and r.random() < 0.7:
            size = shape[d]
            y = r.random()
            if y < 0.35 and size:
                parts.append(r.randrange(-size, size))
            elif y < 0.75:
                parts.append({"sl": [r.choice([None, 0, 1, -1]), r.choice([None, size, -1, 2]), r.choice([None, 1, 2])]})
            elif y < 0.85:
                parts.append(None)
                continue
            else:
                parts.append({"el": 1})
                break
            d += 1
        if not parts and r.random() < 0.5:
            parts.append({"el": 1})
        return {"tup": parts} if len(parts) != 1 or r.random() < 0.5 else parts[0]

    def s_setitem(self):
        i = self.pick()
        t = self.vars[i]
        idx = self.index(t)
        val = self.number(self.r.choice(("float64", "int64"))) if self.r.random() < 0.6 else {"v": self.pick()}
        self.emit({"k": "setitem", "t": i, "a": [idx, val]})

    def s_inplace(self):
        i = self.pick()
        t = self.vars[i]
        r = self.r
        x = r.random()
        if x < 0.4:
            op = r.choice(INPLACE_UNARY)
            a = [] if op != "clamp_" else [r.choice([0.0, -0.5]), r.choice([None, 1.0])]
            self.emit({"k": "meth", "t": i, "op": op, "a": a})
        elif x < 0.7:
            op = r.choice(INPLACE_BINARY)
            other = {"v": self.operand(t)} if op in ("copy_", "atan2_") or r.random() < 0.6 \
                else self.number("float64")
            self.emit({"k": "meth", "t": i, "op": op, "a": [other]})
        elif x < 0.85:
            self.emit({"k": "iop", "t": i, "op": r.choice(IOPS), "a": [self.scalar_or_var(t)]})
        elif x < 0.93:
            self.emit({"k": "meth", "t": i, "op": "fill_", "a": [self.number("float64")]})
        else:
            m = self.operand(t, "bool")
            self.emit({"k": "meth", "t": i, "op": "masked_fill_", "a": [{"v": m}, self.number("float64")]})

    def s_cat(self):
        i = self.pick(lambda v: v.dim() >= 1)
        if i is None:
            return
        t = self.vars[i]
        j = self.operand(t) if self.r.random() < 0.5 else i
        op = self.r.choice(("cat", "stack"))
        d = self.dim(t)
        self.emit({"k": "call", "op": op, "a": [[{"v": i}, {"v": j}], d]})

    def s_convert(self):
        i = self.pick()
        op = self.r.choice(("float", "double", "long", "bool", "to"))
        if op == "to":
            self.emit({"k": "meth", "t": i, "op": "to", "a": [{"dt": self.r.choice(("float32", "float64", "int64"))}]})
        else:
            self.emit({"k": "meth", "t": i, "op": op})

    def s_library(self):
        """Issue 14's functions as users call them: scans, flips and rolls, triangles,
        repeats, comparisons of whole tensors, unique, the in-place view methods, and
        nbgrad.linalg on well-conditioned matrices (a random matrix plus a dominant
        diagonal: the two libraries' LAPACKs agree there to the tester's tolerance)."""
        r = self.r
        kind = r.choice(("scan", "scan", "flip", "roll", "tri", "repeat", "tile", "close", "unique",
                         "view_", "linalg", "linalg", "cross"))
        if kind == "linalg":
            self.s_linalg()
            return
        i = self.pick()
        t = self.vars[i]
        n = t.dim()
        call = r.random() < 0.4          # nbgrad.f(t, ...) rather than t.f(...)

        def emit(op, args=(), kw=None, method_only=False):
            if call and not method_only:
                self.emit({"k": "call", "op": op, "a": [{"v": i}] + list(args), "kw": kw or {}})
            else:
                self.emit({"k": "meth", "t": i, "op": op, "a": list(args), "kw": kw or {}})

        if kind == "scan":
            op = r.choice(("cumsum", "cumprod"))
            kw = {"dtype": {"dt": "float64"}} if r.random() < 0.15 else {}
            if r.random() < 0.2 and not call:
                op += "_"
            emit(op, [self.dim(t)], kw)
        elif kind == "flip":
            dims = r.sample(range(n), r.randint(0, n)) if n else []
            emit("flip", [dims if r.random() < 0.5 else {"tup": dims}])
        elif kind == "roll":
            if n and r.random() < 0.6:
                dims = r.sample(range(n), r.randint(1, n))
                emit("roll", [{"tup": [r.randint(-3, 3) for _ in dims]}, {"tup": dims}])
            else:
                emit("roll", [r.randint(-3, 3)])
        elif kind == "tri":
            op = r.choice(("tril", "triu"))
            if r.random() < 0.2 and not call:
                op += "_"
            emit(op, [] if r.random() < 0.4 else [r.randint(-2, 2)])
        elif kind == "repeat":
            kw = {} if r.random() < 0.4 or not n else {"dim": self.dim(t)}
            emit("repeat_interleave", [r.randint(0, 3)], kw)
        elif kind == "tile":
            emit("tile", [{"tup": [r.randint(1, 2) for _ in range(r.randint(1, n + 1))]}])
        elif kind == "close":
            j = self.operand(t)
            op = r.choice(("isclose", "allclose", "equal"))
            kw = {} if op == "equal" or r.random() < 0.5 else r.choice(
                [{"rtol": 0.1}, {"atol": 0.5}, {"equal_nan": True}])
            emit(op, [{"v": j}], kw)
        elif kind == "unique":
            kw = {k: True for k in ("return_inverse", "return_counts") if r.random() < 0.4}
            if r.random() < 0.3:
                kw["sorted"] = True
            emit("unique", [], kw)
        elif kind == "view_":
            op = r.choice(("unsqueeze_", "squeeze_", "t_", "transpose_"))
            if op == "unsqueeze_":
                self.emit({"k": "meth", "t": i, "op": op, "a": [r.randrange(-n - 1, n + 1)]})
            elif op == "squeeze_":
                self.emit({"k": "meth", "t": i, "op": op, "a": [] if r.random() < 0.4 or not n else [self.dim(t)]})
            elif op == "t_":
                self.emit({"k": "meth", "t": i, "op": op})
            else:
                self.emit({"k": "meth", "t": i, "op": op, "a": [self.dim(t), self.dim(t)]})
        elif kind == "cross":
            k = self.leaf(r.choice([(3,), (2, 3), (3, 3), (3, 2)]), "float64")
            j = self.leaf(tuple(self.vars[k].shape), "float64")
            dim = [d for d, size in enumerate(self.vars[k].shape) if size == 3][-1]
            self.emit({"k": "call", "op": r.choice(("cross", "linalg.cross")), "a": [{"v": k}, {"v": j}],
                       "kw": {"dim": dim}})

    def s_linalg(self):
        r = self.r
        k = r.choice([1, 2, 3])
        batch = r.choice([(), (), (2,)])
        dtype = "float64" if r.random() < 0.85 else "float32"
        if dtype == "float32":
            self.uses_f32 = True

        def matrix():
            return [[round(r.gauss(0, 0.5), 2) + (k + 1.0 if a == b else 0.0) for b in range(k)] for a in range(k)]
        data = matrix() if not batch else [matrix() for _ in range(batch[0])]
        self.emit({"k": "leaf", "a": [data, dtype, r.random() < 0.8]})
        i = len(self.vars) - 1
        op = r.choice(("det", "inv", "slogdet", "solve", "matrix_norm", "vector_norm", "svdvals", "eigvalsh",
                       "cholesky", "norm"))
        if op == "solve":
            # a finite right-hand side: how an inf or nan spreads through the LU solve is
            # each LAPACK's own (MKL's and OpenBLAS's differ)
            shape = batch + (k,) if r.random() < 0.4 else batch + (k, r.choice([1, 2]))

            def finite(shape):
                return round(r.gauss(0, 1.5), 2) if not shape else [finite(shape[1:]) for _ in range(shape[0])]
            self.emit({"k": "leaf", "a": [finite(shape), dtype, r.random() < 0.7]})
            self.emit({"k": "call", "op": "linalg.solve", "a": [{"v": i}, {"v": len(self.vars) - 1}]})
        elif op in ("eigvalsh", "cholesky"):
            # A + A^T: symmetric, and with the dominant diagonal positive definite
            self.emit({"k": "meth", "t": i, "op": "transpose", "a": [-2, -1]})
            self.emit({"k": "binop", "op": "add", "a": [{"v": i}, {"v": len(self.vars) - 1}]})
            self.emit({"k": "call", "op": "linalg." + op, "a": [{"v": len(self.vars) - 1}]})
        elif op == "matrix_norm":
            self.emit({"k": "call", "op": "linalg.matrix_norm", "a": [{"v": i}],
                       "kw": {"ord": r.choice(["fro", "nuc", 1, -1, 2, float("inf")])}})
        elif op == "vector_norm":
            self.emit({"k": "call", "op": "linalg.vector_norm", "a": [{"v": i}],
                       "kw": {"ord": r.choice([2, 1, 3, float("inf"), 0.5]), "dim": r.choice([None, -1])}})
        elif op == "norm":
            self.emit({"k": "meth", "t": i, "op": "norm", "a": [r.choice([2, 1, "fro"])]})
        elif op in ("det", "inv") and r.random() < 0.4:
            self.emit({"k": "meth", "t": i, "op": "det" if op == "det" else "inverse"})
        else:
            self.emit({"k": "call", "op": "linalg." + op, "a": [{"v": i}]})

    def s_flags(self):
        i = self.pick()
        r = self.r
        x = r.random()
        if x < 0.35:
            self.emit({"k": "meth", "t": i, "op": "requires_grad_", "a": [r.random() < 0.8]})
        elif x < 0.6:
            self.emit({"k": "meth", "t": i, "op": "retain_grad"})
        elif x < 0.85:
            self.emit({"k": "attr", "t": i, "op": "grad"})
        else:
            self.emit({"k": "setgrad", "t": i, "a": [None]})

    def scalar_of(self, i):
        t = self.vars[i]
        if t.dim() == 0 and t.numel() == 1:
            return i
        op = self.r.choice(("sum", "sum", "mean"))
        self.emit({"k": "meth", "t": i, "op": op})
        return len(self.vars) - 1

    def s_backward(self):
        i = self.pick(lambda v: v.requires_grad)
        if i is None:
            return
        j = self.scalar_of(i)
        kw = {}
        if self.r.random() < 0.5:
            kw["retain_graph"] = True
        if self.r.random() < 0.15:
            kw["create_graph"] = True
        self.emit({"k": "backward", "t": j, "kw": kw})

    def s_grad(self):
        i = self.pick(lambda v: v.requires_grad)
        if i is None:
            return
        j = self.scalar_of(i)
        leaves = [k for k, v in enumerate(self.vars) if v.requires_grad and k != j]
        if not leaves:
            return
        ins = self.r.sample(leaves, min(len(leaves), self.r.choice([1, 1, 2])))
        kw = {"allow_unused": True}
        if self.r.random() < 0.6:
            kw["create_graph"] = True
        if self.r.random() < 0.5:
            kw["retain_graph"] = True
        self.emit({"k": "call", "op": "autograd.grad", "a": [{"v": j}, [{"v": k} for k in ins]], "kw": kw})

    def generate(self, n_statements=None):
        r = self.r
        n = n_statements or r.randint(4, 16)
        for _ in range(r.choice([1, 2])):
            self.leaf(rg=True if r.random() < 0.8 else None)
        kinds = [(self.s_unary, 12), (self.s_binary, 14), (self.s_reduce, 10), (self.s_view, 14),
                 (self.s_index, 8), (self.s_setitem, 5), (self.s_inplace, 10), (self.s_matmul, 3),
                 (self.s_where, 2), (self.s_cat, 3), (self.s_convert, 2), (self.s_flags, 4),
                 (self.s_backward, 7), (self.s_grad, 5), (lambda: self.leaf(), 3), (self.s_table, 5),
                 (self.s_library, 5)]
        fns, weights = zip(*kinds)
        while len(self.program) < n:
            r.choices(fns, weights)[0]()
        # most programs end by differentiating something
        if r.random() < 0.7:
            (self.s_backward if r.random() < 0.6 else self.s_grad)()
        return self.program, self.observations


def _broadcasts(a, b):
    """Does shape a broadcast to shape b (without changing b)?"""
    if len(a) > len(b):
        return False
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1:
            return False
    return True


def generate(seed, on_statement=None):
    g = Gen(seed)
    g.on_statement = on_statement
    program, _ = g.generate()
    # re-run from scratch: the final statement then observes every variable, exactly as
    # a replay does (the generator's incremental run could not know which one is last)
    obs = Interpreter(Lib("torch")).run(program)
    return program, obs
