"""Programs of the differential tester: their format, an interpreter, and the observer.

A program is a list of statements (plain JSON data, so that a corpus can be stored).
The same interpreter runs it against `nbgrad` or against `torch`; after each statement
the observer records what a user can see: values, gradients, flags, grad_fn names,
geometry, versions, aliasing, and the exception raised, if any.

Statement: {"k": kind, "op": name, "t": target var, "a": [args], "kw": {kwargs},
"ng": true when run under no_grad}.  Kinds:

    leaf      a = [data, dtype, requires_grad]        -> tensor(data, dtype=, requires_grad=)
    call      lib.<op>(*a, **kw)   (op may be dotted: "autograd.grad", "nn.functional.relu")
    meth      vars[t].<op>(*a, **kw)
    binop     operator.<op>(a[0], a[1])                (add, mul, truediv, pow, lt, matmul, ...)
    iop       vars[t] = operator.<op>(vars[t], a[0])   (iadd, imul, ...: the identity is observed)
    getitem   vars[t][a[0]]
    setitem   vars[t][a[0]] = a[1]
    attr      getattr(vars[t], op)                     (data, grad, T, mT)
    backward  vars[t].backward(**kw)
    setgrad   vars[t].grad = a[0]                      (None, or a var)

Encoded arguments: {"v": i} a variable, {"dt": name} a dtype, {"sl": [start, stop, step]}
a slice, {"el": 1} Ellipsis, {"tup": [...]} a tuple, {"ten": [data, dtype]} a fresh
tensor literal (index tensors); JSON lists stay lists, null is None.

Every tensor a statement returns becomes a new variable, in order (tuples are flattened);
a returned object that already is a variable is recorded as such (`x.add_(1) is x`).
"""
import contextlib
import math
import operator
import warnings

import numpy as np

# -- libraries --------------------------------------------------------------------------


class Lib:
    """What the interpreter and the observer need from a library."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            import torch
            self.m = torch
            torch.set_num_threads(1)
        else:
            import nbgrad
            self.m = nbgrad
        self.Tensor = self.m.Tensor

    def dtype(self, name):
        return getattr(self.m, name)

    def storage_key(self, t):
        """An identity of t's memory (None for empty storage)."""
        if self.name == "torch":
            try:
                s = t.untyped_storage()
                return None if s.nbytes() == 0 else s.data_ptr()
            except RuntimeError:     # a ZeroTensor has no storage, an invalidated one no pointer
                return None
        s = t._storage
        return None if len(s.buffer) == 0 else id(s)

    def no_grad(self):
        return self.m.no_grad()

    def resolve(self, dotted):
        obj = self.m
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj


# -- decoding arguments -------------------------------------------------------------------


def decode(x, lib, vars):
    if isinstance(x, dict):
        if "v" in x:
            return vars[x["v"]]
        if "dt" in x:
            return lib.dtype(x["dt"])
        if "sl" in x:
            return slice(*x["sl"])
        if "el" in x:
            return Ellipsis
        if "tup" in x:
            return tuple(decode(y, lib, vars) for y in x["tup"])
        if "ten" in x:
            data, dt = x["ten"]
            return lib.m.tensor(data, dtype=lib.dtype(dt))
        raise ValueError(f"bad argument {x!r}")
    if isinstance(x, list):
        return [decode(y, lib, vars) for y in x]
    return x


# -- observing ----------------------------------------------------------------------------


def _flat_values(t):
    """t's values as a flat list of Python numbers, row-major over its logical shape."""
    try:
        a = np.asarray(t.detach().cpu().numpy())
    except RuntimeError:        # PyTorch's ZeroTensor (an unmaterialised zero gradient)
        a = np.asarray(t.detach().numpy(force=True))
    if a.dtype == np.float32:
        # the shortest repr that rounds back to the same float32 (keeps corpora small)
        # (str, not repr: numpy 2's repr is "np.float32(1.5)")
        return [float(str(np.float32(v))) if math.isfinite(v) else float(v) for v in a.ravel().tolist()]
    return a.ravel().tolist()


def _attempt(fn):
    try:
        return fn()
    except Exception as e:
        return "raises " + type(e).__name__


class Observer:
    """Turns tensors into JSON-able facts; numbers objects (grads) by first appearance."""

    def __init__(self, lib):
        self.lib = lib
        self.grad_ids = {}
        self.root_ids = {}       # view roots (t._base or t), numbered apart from grads
        self._keep = []          # keeps numbered objects alive, so id()s stay unique

    def _root_id(self, t):
        root = t._base if t._base is not None else t
        key = id(root)
        if key not in self.root_ids:
            self.root_ids[key] = len(self.root_ids)
            self._keep.append(root)
        return self.root_ids[key]

    def _obj_id(self, obj):
        key = id(obj)
        if key not in self.grad_ids:
            self.grad_ids[key] = len(self.grad_ids)
            self._keep.append(obj)
        return self.grad_ids[key]

    def facts(self, t, alias_rep):
        lib = self.lib
        # PyTorch refuses grad_fn and is_leaf of a view whose base changed in place in some
        # ways: that refusal is the observation
        gfn = _attempt(lambda: None if t.grad_fn is None else type(t.grad_fn).__name__)
        leaf = _attempt(lambda: t.is_leaf)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = t.grad if leaf is True or getattr(t, "retains_grad", False) else None
        grad = None
        if g is not None:
            grad = {"dt": str(g.dtype).split(".")[-1], "shape": list(g.shape), "stride": list(g.stride()),
                    "vals": _flat_values(g), "id": self._obj_id(g), "ver": g._version,
                    "rg": g.requires_grad}
        return {
            "dt": str(t.dtype).split(".")[-1],
            "shape": list(t.shape),
            "stride": list(t.stride()),
            "off": t.storage_offset(),
            "contig": t.is_contiguous(),
            "rg": t.requires_grad,
            "leaf": leaf,
            "gfn": gfn,
            "ver": t._version,
            "alias": alias_rep,
            "vroot": self._root_id(t),      # not compared: tells which tensors share a version counter
            "zt": bool(getattr(t, "_is_zerotensor", lambda: False)()),   # PyTorch's storage-less zeros
            "vals": _flat_values(t),
            "grad": grad,
        }


# -- the interpreter --------------------------------------------------------------------

_BINOPS = {name: getattr(operator, name) for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lt", "le", "gt", "ge", "eq", "ne",
    "and_", "or_", "xor", "iadd", "isub", "imul", "itruediv", "ipow", "iand", "ior")}


def exc_info(e):
    msg = str(e).split("\n")[0][:200]
    return [type(e).__name__, msg]


class Interpreter:
    def __init__(self, lib):
        self.lib = lib
        self.vars = []
        self.obs = Observer(lib)

    # one statement: returns the result description and the new variables' indices
    def _execute(self, st):
        lib, vars = self.lib, self.vars
        k = st["k"]
        a = [decode(x, lib, vars) for x in st.get("a", [])]
        kw = {key: decode(v, lib, vars) for key, v in st.get("kw", {}).items()}
        if k == "leaf":
            data, dt, rg = st["a"]
            return lib.m.tensor(data, dtype=lib.dtype(dt), requires_grad=rg)
        if k == "call":
            return lib.resolve(st["op"])(*a, **kw)
        if k == "meth":
            return getattr(vars[st["t"]], st["op"])(*a, **kw)
        if k == "binop":
            return _BINOPS[st["op"]](a[0], a[1])
        if k == "iop":
            out = _BINOPS[st["op"]](vars[st["t"]], a[0])
            same = out is vars[st["t"]]
            vars[st["t"]] = out
            return ("iop", same)
        if k == "getitem":
            return vars[st["t"]][a[0]]
        if k == "setitem":
            vars[st["t"]][a[0]] = a[1]
            return None
        if k == "attr":
            return getattr(vars[st["t"]], st["op"])
        if k == "backward":
            return vars[st["t"]].backward(**kw)
        if k == "setgrad":
            vars[st["t"]].grad = a[0]
            return None
        raise ValueError(f"unknown statement kind {k!r}")

    def _describe(self, r, new, before=None):
        """Describe result r; append its tensors to vars (indices to `new`).  A tensor that
        was a variable before the statement is reported as such ("same"); within one
        result, repeats are new variables (autograd.grad may return one object twice)."""
        T = self.lib.Tensor
        before = len(self.vars) if before is None else before
        if isinstance(r, T):
            for i, v in enumerate(self.vars[:before]):
                if v is r:
                    return ["same", i]
            self.vars.append(r)
            new.append(len(self.vars) - 1)
            return ["T", len(self.vars) - 1]
        if r is None:
            return None
        if isinstance(r, tuple) and len(r) == 2 and r[0] == "iop":
            return ["iop", r[1]]
        if isinstance(r, (tuple, list)):
            return ["seq", [self._describe(x, new, before) for x in r]]
        if isinstance(r, bool):
            return ["b", r]
        if isinstance(r, (int, float)):
            return ["n", r]
        return ["other", type(r).__name__]

    def _alias_reps(self):
        reps, first = [], {}
        for i, v in enumerate(self.vars):
            key = self.lib.storage_key(v)
            if key is None:
                reps.append(None)
            else:
                reps.append(first.setdefault(key, i))
        return reps

    def step(self, st, observe_all=False):
        """Run one statement; return its observation."""
        rec = {"exc": None, "res": None, "obs": {}}
        new = []
        ctx = self.lib.no_grad() if st.get("ng") else contextlib.nullcontext()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with ctx:
                    r = self._execute(st)
                rec["res"] = self._describe(r, new)
        except Exception as e:     # the type is an observation; KeyboardInterrupt is not caught
            rec["exc"] = exc_info(e)
        k = st["k"]
        mutating = (k in ("iop", "setitem", "backward", "setgrad") or rec["exc"] is not None
                    or (k == "meth" and st["op"].endswith("_")) or (k == "call" and st["op"] == "autograd.grad"))
        which = range(len(self.vars)) if (mutating or observe_all) else new
        reps = self._alias_reps()
        for i in which:
            try:
                rec["obs"][str(i)] = self.obs.facts(self.vars[i], reps[i])
            except Exception as e:
                rec["obs"][str(i)] = {"observe_exc": exc_info(e)}
        return rec

    def run(self, program):
        out = []
        for n, st in enumerate(program):
            out.append(self.step(st, observe_all=(n == len(program) - 1)))
        return out


def run_program(libname, program):
    return Interpreter(Lib(libname)).run(program)


# -- rendering a program as a standalone script ----------------------------------------------


def _src(x):
    if isinstance(x, dict):
        if "v" in x:
            return f"v{x['v']}"
        if "dt" in x:
            return f"torch.{x['dt']}"
        if "sl" in x:
            s = x["sl"]
            return ":".join("" if v is None else str(v) for v in s[:2]) + ("" if s[2] is None else f":{s[2]}")
        if "el" in x:
            return "..."
        if "tup" in x:
            items = [_src(y) for y in x["tup"]]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if "ten" in x:
            return f"torch.tensor({x['ten'][0]!r}, dtype=torch.{x['ten'][1]})"
    if isinstance(x, list):
        return "[" + ", ".join(_src(y) for y in x) + "]"
    if isinstance(x, float) and not math.isfinite(x):
        return f"float('{x}')"
    return repr(x)


def _index_src(x):
    """An index inside [...]: slices written with colons, a top-level tuple without parens."""
    if isinstance(x, dict) and "tup" in x:
        return ", ".join(_index_src(y) for y in x["tup"]) or "()"
    return _src(x)


_OPS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
        "matmul": "@", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "and_": "&",
        "or_": "|", "xor": "^", "iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ipow": "**=",
        "iand": "&=", "ior": "|="}


def statement_source(st, result_names):
    k = st["k"]
    args = [_src(x) for x in st.get("a", [])]
    args += [f"{key}={_src(v)}" for key, v in st.get("kw", {}).items()]
    t = f"v{st['t']}" if "t" in st else None
    if k == "leaf":
        data, dt, rg = st["a"]
        expr = f"torch.tensor({_src(data)}, dtype=torch.{dt}, requires_grad={rg})"
    elif k == "call":
        expr = f"torch.{st['op']}({', '.join(args)})"
    elif k == "meth":
        expr = f"{t}.{st['op']}({', '.join(args)})"
    elif k == "binop":
        expr = f"{args[0]} {_OPS[st['op']]} {args[1]}"
    elif k == "iop":
        expr = None
        line = f"{t} {_OPS[st['op']]} {args[0]}"
    elif k == "getitem":
        expr = f"{t}[{_index_src(st['a'][0])}]"
    elif k == "setitem":
        expr = None
        line = f"{t}[{_index_src(st['a'][0])}] = {args[1]}"
    elif k == "attr":
        expr = f"{t}.{st['op']}"
    elif k == "backward":
        expr = f"{t}.backward({', '.join(args)})"
    elif k == "setgrad":
        expr = None
        line = f"{t}.grad = {args[0]}"
    if expr is not None:
        line = (", ".join(result_names) + (", = " if len(result_names) == 1 and k != "leaf"
                                            and st.get("op") in ("split", "chunk", "unbind", "tensor_split",
                                                                 "autograd.grad") else " = ")
                + expr) if result_names else expr
    if st.get("ng"):
        line = "with torch.no_grad():\n    " + line
    return line


def program_source(program, observations=None, lib="torch"):
    """A standalone script for `program` (names from the observations' results)."""
    head = "import torch" if lib == "torch" else "import nbgrad as torch"
    lines = [head]
    for i, st in enumerate(program):
        names = []
        if observations is not None and i < len(observations):
            names = _result_names(observations[i]["res"])
        line = statement_source(st, names)
        if observations is not None and i < len(observations) and observations[i]["exc"]:
            e = observations[i]["exc"]
            line = "try:\n    " + line.replace("\n", "\n    ") + f"\nexcept {e[0]} as e:  # {e[1][:80]}\n    print(e)"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _result_names(res):
    if not res:
        return []
    if res[0] == "T":
        return [f"v{res[1]}"]
    if res[0] == "seq":
        names = [f"v{r[1]}" if r and r[0] == "T" else "_" for r in res[1]]
        return names if any(n != "_" for n in names) else []
    return []
