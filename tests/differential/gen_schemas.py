"""Write nbgrad/ops/_schemas.py: the argument kinds of PyTorch's C-parsed functions and Tensor
methods that nbgrad also has, read from PyTorch's own type stubs (torch/_C/_VariableFunctions.pyi,
torch/_C/__init__.pyi's TensorBase) and, for torch.linalg, torch.special and the torch._C._nn
ops nn.functional calls, which have no stubs that say it, from aten's schemas.  FUNCTIONAL says,
for each nn.functional function, which op PyTorch's Python passes its arguments to and how
(read from torch/nn/functional.py's source).  nbgrad reads them to give the TypeError PyTorch's
argument parser raises before any work (ops/_signatures.py: once per kind of call, and after a
call failed).

    python -m tests.differential.gen_schemas      # needs torch; rewrites nbgrad/ops/_schemas.py

A development tool, as api_fuzz.py: nbgrad never imports torch.

Encoding, one string per function: overloads joined by ';', parameters by ',', each
`name:kinds` with `=` after it when it has a default, `*` before the keyword-only ones and
`name:*kinds` for a *args parameter.  Kinds (one letter each, several for a union): T Tensor,
i int, j SymInt (an integer tensor of one element too), f float, n Number, b bool, I ints,
J SymInts (whose unpacking refuses a bool tensor, where an int list reads its value),
F floats, N numbers, L tensors, s str, d dtype, D device (a torch.device, str or int), o None,
and ? for anything (not checked).
"""
import ast
from collections import Counter
import functools
import inspect
import pathlib
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "nbgrad" / "ops" / "_schemas.py"

_ATOMS = {
    "Tensor": "T", "_int": "i", "int": "i", "SymInt": "j", "_float": "f", "float": "f", "Number": "n",
    "_complex": "n", "_bool": "b", "bool": "b", "_size": "I", "str": "s", "_dtype": "d", "None": "o",
    "torch.SymInt": "j", "torch.SymFloat": "f",     # (add_'s other: Tensor | Number | ... | SymFloat)
    "DeviceLikeType": "D", "_device": "D", "memory_format": "M",
}


def _kinds(annotation):
    """The kind letters of one annotation (a union's members in order), '?' if unknown."""
    if annotation is None:
        return "?"
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left, right = _kinds(annotation.left), _kinds(annotation.right)
        kinds = "?" if "?" in (left + right) else "".join(dict.fromkeys(left + right))
        if "tuple[Tensor | None, ...]" in ast.unparse(annotation):
            kinds = kinds.replace("o", "")     # (aten's Tensor?[]: optional elements, the list itself not None)
        return kinds
    text = ast.unparse(annotation)
    if text in _ATOMS:
        return _ATOMS[text]
    if isinstance(annotation, ast.Subscript):
        outer = ast.unparse(annotation.value)
        inner = _kinds(annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice)
        if outer in ("Sequence", "list", "tuple"):
            if inner in ("ij", "j", "ji"):
                return "J"
            if inner == "i":
                return "I"
            if inner == "f":
                return "F"
            if inner == "n":
                return "N"
            if inner in ("T", "To", "oT"):
                return "L"
    return "?"


def _empty_list_default(param, default):
    """An int list whose default is empty, which PyTorch's parser also takes as None
    (avg_pool1d's stride, roll's dims), where the stubs say `= ()`."""
    kinds = _kinds(param.annotation)
    return kinds[-1:] in ("I", "J") and "o" not in kinds and isinstance(default, (ast.Tuple, ast.List)) and not default.elts


def _encode(fn, method):
    args = fn.args
    params = args.args[1:] if method else args.args
    defaults = [None] * (len(params) - len(args.defaults)) + list(args.defaults)
    out = [f"{p.arg}:{_kinds(p.annotation)}{'o' if _empty_list_default(p, d) else ''}{'=' if d is not None else ''}"
           for p, d in zip(params, defaults)]
    if args.vararg is not None:
        out.append(f"{args.vararg.arg}:*{_kinds(args.vararg.annotation)}")
    elif args.kwonlyargs:
        out.append("*")
    out += [f"{p.arg}:{_kinds(p.annotation)}{_factory_none(p, fn.name, method)}{'=' if d is not None else ''}"
            for p, d in zip(args.kwonlyargs, args.kw_defaults)]
    return ",".join(out)


def _factory_none(param, name, method):
    """A factory's requires_grad/pin_memory, which PyTorch's parser takes None for (its
    TensorOptions arguments: torch.arange(3, requires_grad=None)) where the stubs say bool;
    not those of range and frombuffer, whose bindings are written by hand."""
    kinds = _kinds(param.annotation)
    return "o" if not method and name not in ("range", "frombuffer") and param.arg in ("requires_grad", "pin_memory") and kinds == "b" \
        else ""


def _collect(body, method):
    found = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(_encode(node, method))
    return found


# aten's argument types as the argument parser reads them (an Optional adds None)
_ATEN = {"Tensor": "T", "int": "i", "float": "f", "number": "n", "Scalar": "n", "bool": "b", "str": "s", "Dimname": "s",
         "ScalarType": "d", "Device": "D", "List[int]": "I", "List[float]": "F", "List[Tensor]": "L",
         "List[Optional[Tensor]]": "L", "MemoryFormat": "M"}


def _symint_arguments(schema):
    """The names of a schema's SymInt and SymInt[] arguments, which its real_type calls int:
    read from its text, "aten::pad(Tensor self, SymInt[] pad, str mode=...)"."""
    text = str(schema)
    names, depth, item = set(), 0, ""
    for ch in text[text.index("(") + 1:]:
        depth += (ch in "([") - (ch in ")]")
        if depth < 0 or (ch == "," and depth == 0):
            kind, _, rest = item.strip().partition(" ")
            if kind.startswith("SymInt"):
                names.add(rest.split("=")[0].strip())
            if depth < 0:
                break
            item = ""
        else:
            item += ch
    return names


def _aten_kinds(argument, symint=False):
    text = str(argument.real_type)        # (.type says int for a ScalarType)
    optional = text.startswith("Optional[")
    kinds = _ATEN.get(text[9:-1] if optional else text, "?")
    if symint:
        kinds = {"i": "j", "I": "J"}.get(kinds, kinds)
    if kinds in ("I", "J") and argument.N:
        kinds = "i" + kinds     # (an int[2] takes one int for both)
    # (an int list whose default is empty takes None: the parser's stride=None, dims=None)
    optional = optional or (kinds[-1:] in ("I", "J") and argument.has_default_value() and argument.default_value == [])
    return kinds if kinds == "?" else kinds + ("o" if optional else "")


def _aten_encode(name):
    """The argument parser's overloads of aten::<name> in this file's encoding, or None: the
    schemas without the out= ones, each with the `out` keyword the parser merges them into
    (tuple of Tensors for several outputs); aten's `self` is the parser's `input`."""
    import torch
    schemas = torch._C._jit_get_schemas_for_operator("aten::" + name)
    writes = [[a for a in s.arguments if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write]
              for s in schemas]
    outs = max((len(w) for w in writes), default=0)
    overloads = []
    for schema, written in zip(schemas, writes):
        if written:
            continue
        out, keyword = [], False
        symints = _symint_arguments(schema)
        for a in schema.arguments:
            if a.kwarg_only and not keyword:
                out.append("*")
                keyword = True
            param = "input" if a.name == "self" else a.name
            out.append(f"{param}:{_aten_kinds(a, a.name in symints)}{'=' if a.has_default_value() else ''}")
        if outs:
            out += ([] if keyword else ["*"]) + [f"out:{'To' if outs == 1 else 'Lo'}="]
        overloads.append(",".join(out))
    return ";".join(overloads) or None


def _op_of(call):
    """The table key ("torch.<op>" or "nn.<op>") of a call to one of PyTorch's C-parsed
    functions (torch.x, torch._C._nn.x, _VF.x), or None."""
    text = ast.unparse(call.func)
    for prefix, key in (("torch._C._nn.", "nn."), ("torch._C._VariableFunctions.", "torch."), ("_VF.", "torch."),
                        ("torch.", "torch.")):
        if text.startswith(prefix) and "." not in text[len(prefix):]:
            return key + text[len(prefix):]
    return None


# what a function may do before its op without reading its arguments' values
_HARMLESS_CALLS = ("has_torch_function", "handle_torch_function", "torch.jit.is_scripting", "_Reduction.")


def _harmless_call(node):
    return isinstance(node, ast.Call) and ast.unparse(node.func).startswith(_HARMLESS_CALLS)


def _dispatch_test(node):
    """An `if` whose test is the __torch_function__ dispatch (or is_scripting): its body is not
    the function's own work."""
    return isinstance(node, ast.If) and any(_harmless_call(c) for c in ast.walk(node.test))


def _none_test(node):
    """`x is None` / `x is not None`: reads no value that could fail."""
    return isinstance(node, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)


def _false_by_default(test):
    """A test that is False under PyTorch's default settings before it reads anything."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        test = test.values[0]
    return isinstance(test, ast.Call) and ast.unparse(test.func) == "torch.are_deterministic_algorithms_enabled"


def _reads(node, params, ops=()):
    """Whether a statement reads one of the parameters' values: a test `x is None`, the
    __torch_function__ dispatch, the legacy reduction arguments' reading and a call of one of
    `ops` (the op itself, in its other branch) do not count."""
    if _dispatch_test(node):
        # (`if has_torch_function(...)`: its orelse is the work; `if not torch.jit.is_scripting():`
        # its body, with the test's own reads: max_pool3d_with_indices' input.is_cuda)
        if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
            return any(_reads(st, params, ops) for st in node.body + node.orelse)
        return any(_reads(st, params, ops) for st in node.orelse)
    if _harmless_call(node) or (isinstance(node, ast.Call) and _op_of(node) in ops) or _none_test(node):
        return False
    if isinstance(node, ast.If) and _false_by_default(node.test):
        # (`if torch.are_deterministic_algorithms_enabled() and input.is_cuda:` reads nothing
        # by default; F.pad's)
        return any(_reads(st, params, ops) for st in node.orelse)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return False        # (the docstring)
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
        return False        # (`ret = input` binds a name, reads nothing that could fail)
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in params:
        return True
    return any(_reads(c, params, ops) for c in ast.iter_child_nodes(node))


def _reads_before(body, call, params, ops):
    """Whether the statements of `body` before `call` (and within the ones around it, their
    tests) read one of the parameters other than by calling one of `ops`."""
    statement = next(st for st in body if any(c is call for c in ast.walk(st)))
    if any(_reads(st, params, ops) for st in body[:body.index(statement)]):
        return True
    if isinstance(statement, ast.If):
        inner = statement.body if any(c is call for st in statement.body for c in ast.walk(st)) else statement.orelse
        return _reads(statement.test, params, ops) or _reads_before(inner, call, params, ops)
    return False


# nn.functional functions whose Python checks before its op (batch_norm's `if training:
# _verify_batch_size(...)`, its eps; max_pool3d_with_indices' input.is_cuda, max_pool3d's in its
# return_indices branch; triplet_margin_loss' reduction and margin; group_norm's;
# margin_ranking_loss' equal ranks; multi_margin_loss' p and weight.dim(); glu's scalar input;
# binary_cross_entropy_with_logits' equal sizes) nbgrad's runs first, in PyTorch's order: a later
# failure's parser check is then PyTorch's next word, as for a function without such a preamble
PREAMBLE_MIRRORED = frozenset(("batch_norm", "instance_norm", "max_pool3d_with_indices", "triplet_margin_loss",
                               "group_norm", "margin_ranking_loss", "multi_margin_loss", "glu",
                               "binary_cross_entropy_with_logits", "max_pool3d"))


@functools.cache
def _functional_defs():
    """{name: ast.FunctionDef} of torch/nn/functional.py's top-level functions."""
    import torch.nn.functional as F
    return {n.name: n for n in ast.parse(inspect.getsource(F)).body if isinstance(n, ast.FunctionDef)}


def _functional_branch(fn):
    """(op key, its in-place op key or None, the argument spec) of a PyTorch nn.functional
    function written in Python whose work is one C-parsed op called with its parameters, or
    None.  Each spec item is the parameter passed at that position (`k=param` for a keyword),
    `pair:param` for _pair(param), `none:param` for a parameter replaced only where it is None,
    `?int`/`?bool`/`?float` for a value of that type PyTorch's Python computes (a reduction's
    enum) and `?` for anything else (a parameter the function reassigns first)."""
    node = _functional_defs().get(fn.__name__)
    if node is None:
        return None
    params = {a.arg for a in node.args.args + node.args.kwonlyargs}
    # {name: how many statements assign it}
    assignments = Counter(t.id for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                          for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name))
    assigned = set(assignments)
    calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and _op_of(c)
             and any(isinstance(a, ast.Name) and a.id in params for a in c.args + [k.value for k in c.keywords])]
    ops = sorted({_op_of(c) for c in calls})
    if not ops or len(ops) > 2 or (len(ops) == 2 and (ops[1] != ops[0] + "_" or "inplace" not in params)):
        return None
    call = next(c for c in calls if _op_of(c) == ops[0])

    # parameters given a value only where they are None (`if stride is None: stride = []`):
    # any other value reaches the op as given
    defaulted = {t.id for n in ast.walk(node) if isinstance(n, ast.If) and _none_test(n.test)
                 and isinstance(n.test.left, ast.Name) and isinstance(n.test.ops[0], ast.Is)
                 for st in n.body if isinstance(st, ast.Assign) for t in st.targets
                 if isinstance(t, ast.Name) and t.id == n.test.left.id}
    defaulted = {p for p in defaulted if assignments[p] == 1}

    # names given a reduction's enum (`reduction_enum = _Reduction.get_enum(reduction)`) in every branch
    enum_assigned = Counter(t.id for n in ast.walk(node) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                            and ast.unparse(n.value.func).startswith("_Reduction.") for t in n.targets
                            if isinstance(t, ast.Name))
    enums = {name for name, n in enum_assigned.items() if n == assignments[name] and name not in params}

    def item(expr):
        if isinstance(expr, ast.Name) and expr.id in params and expr.id not in assigned:
            return expr.id
        if isinstance(expr, ast.Name) and expr.id in params and expr.id in defaulted:
            return "none:" + expr.id
        if isinstance(expr, ast.Call) and ast.unparse(expr.func) == "_pair" and len(expr.args) == 1 and \
                isinstance(expr.args[0], ast.Name) and expr.args[0].id in params and expr.args[0].id not in assigned:
            return "pair:" + expr.args[0].id
        # (what PyTorch's Python computes: `_Reduction.get_enum(reduction)` an int, a constant,
        # `torch.backends.cudnn.enabled` a bool; the kind is what its message names)
        if isinstance(expr, ast.Name) and expr.id in enums:
            return "?int"
        if isinstance(expr, ast.Call) and ast.unparse(expr.func) == "_Reduction.get_enum":
            return "?int"
        if isinstance(expr, ast.Constant) and type(expr.value) in (int, float, bool):
            return "?" + type(expr.value).__name__
        if ast.unparse(expr) == "torch.backends.cudnn.enabled":
            return "?bool"
        return "?"
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    # the function's own Python before the statement that calls the op: if it reads a
    # parameter (input.dim() < 2, if min_val > max_val, if training: ...) it may raise first,
    # and the op's check is not PyTorch's first word
    # (inplace: the branch taken; reduction and the legacy size_average/reduce: read by
    # _argument_check.functional_argument_error as PyTorch's _Reduction reads them)
    if _reads_before(node.body, call, params - {"inplace", "reduction", "size_average", "reduce"}, set(ops)) and \
            fn.__name__ not in PREAMBLE_MIRRORED:
        return None
    spec = [item(a) for a in call.args] + [f"{k.arg}={item(k.value)}" for k in call.keywords]
    if all("?" in s for s in spec):
        return None
    return ops[0], (ops[1] if len(ops) == 2 else None), ",".join(spec)


def _functional(table, functions):
    """{F name: branches} for nbgrad.nn.functional's functions whose PyTorch counterpart parses
    its arguments through one C-parsed op (itself, or called from Python): each branch is
    (parameter, value, op key, spec); the first whose parameter has that value (None: always)
    is the one PyTorch's function takes.  The ops' schemas are added to `table`."""
    import torch
    import torch.nn.functional as F
    import nbgrad
    found = {}
    for name in dir(F):
        fn = getattr(F, name)
        if name.startswith("_") or not callable(fn) or not hasattr(nbgrad.nn.functional, name):
            continue
        branches = []
        if not inspect.isfunction(fn):
            op = next((key + fn.__name__ for key, ns in (("nn.", torch._C._nn), ("torch.", torch._C._VariableFunctions))
                       if getattr(ns, fn.__name__, None) is fn), None)
            branches = [(None, None, op, "*")] if op else []
        else:
            closure = inspect.getclosurevars(fn).nonlocals
            if "if_true" in closure:         # boolean_dispatch: return_indices picks the function
                taken = [(closure["arg_name"], True, closure["if_true"]), (None, None, closure["if_false"])]
            else:
                taken = [(None, None, fn)]
            for param, value, target in taken:
                branch = _functional_branch(target)
                if branch is None:
                    continue
                op, inplace, spec = branch
                if inplace:
                    branches.append(("inplace", True, inplace, spec))
                branches.append((param, value, op, spec))
        for _, _, op, _ in branches:
            if op not in table:
                short = op.split(".", 1)[1]
                encoded = ";".join(functions[short]) if op.startswith("torch.") and short in functions \
                    else _aten_encode(short)
                if encoded is not None:
                    table[op] = encoded
        branches = [b for b in branches if b[2] in table]
        if branches:
            found[name] = tuple(branches)
    return found


def _attributes_read_first(body, params, defs, seen=()):
    """(the parameters whose attribute PyTorch's Python reads before it does anything else
    with its arguments that could fail, whether something else came before the end): through
    `body`'s statements in order, past the __torch_function__ dispatch and `x is None` tests; a
    test's branches count for what both of them read, and stop the walk where either could
    fail; through the module's own helpers (_mha_shape_check(query, ...)).  The first thing
    nn.functional.softmax does is input.softmax: an int there is "'int' object has no attribute
    'softmax'"."""
    read = []
    for statement in body:
        if isinstance(statement, ast.If):
            if _dispatch_test(statement):
                continue
            found, stopped = _attributes_read_in(statement.test, params, defs, seen)
            read += found
            if stopped:
                return read, True
            in_body, body_stopped = _attributes_read_first(statement.body, params, defs, seen)
            in_else, else_stopped = _attributes_read_first(statement.orelse, params, defs, seen)
            # a branch that raises at once is PyTorch's own check of what the test read, which
            # nbgrad makes in the same place: past it, the walk goes on through the other branch
            if _raises(statement.body) or _raises(statement.orelse):
                other, other_stopped = (in_else, else_stopped) if _raises(statement.body) else (in_body, body_stopped)
                read += other
                if other_stopped:
                    return read, True
                continue
            read += [p for p in in_body if p in in_else]
            # `if x is not None:` runs its body for anything else than None: x's reads there count
            tested = _not_none_tested(statement.test)
            if tested is not None:
                read += [p for p in (in_body if tested[1] else in_else) if p == tested[0]]
            if body_stopped or else_stopped:
                return read, True
            continue
        if isinstance(statement, ast.Raise):
            return read, True
        found, stopped = _attributes_read_in(statement, params, defs, seen)
        read += found
        if stopped:
            return read, True
    return read, False


# calls that read nothing of an argument that could fail: the type test, a warning, and
# nn.functional's _single/_pair/_triple (a number repeated, a sequence made a tuple)
_READS_NOTHING = ("isinstance", "warnings.warn", "_single", "_pair", "_triple")


def _not_none_tested(test):
    """(x, whether the body is the branch x is not None takes) of a test `x is not None` or
    `x is None`, else None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) and \
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None and \
            isinstance(test.ops[0], (ast.Is, ast.IsNot)):
        return test.left.id, isinstance(test.ops[0], ast.IsNot)
    return None


def _raises(body):
    """Whether a branch raises before anything else (`if x.dim() < 2: raise ValueError(...)`)."""
    return bool(body) and isinstance(body[0], ast.Raise)


def _attributes_read_in(node, params, defs, seen):
    """_attributes_read_first for one statement or expression, its parameters' uses in source
    order (a conditional expression's branches: not counted)."""
    parents = {c: n for n in ast.walk(node) for c in ast.iter_child_nodes(n)}
    skipped = set()
    for n in ast.walk(node):
        if _none_test(n):
            skipped.update(id(c) for c in ast.walk(n))
        elif isinstance(n, (ast.IfExp, ast.Lambda)):
            skipped.update(id(c) for part in ([n.body, n.orelse] if isinstance(n, ast.IfExp) else [n.body])
                           for c in ast.walk(part))
    # (the private parameters, _stacklevel, are PyTorch's own)
    uses = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                   and n.id in params and not n.id.startswith("_") and id(n) not in skipped),
                  key=lambda n: (n.lineno, n.col_offset))
    read = []
    stop_at = None          # (where a call that may fail ends: its arguments are evaluated first)
    for n in uses:
        if stop_at is not None and (n.lineno, n.col_offset) >= stop_at:
            return read, True
        parent = parents.get(n)
        if isinstance(parent, ast.Attribute) and parent.value is n:
            read.append(n.id)
            continue
        if isinstance(parent, (ast.BinOp, ast.Compare, ast.Tuple, ast.List)) or _harmless_call(parent) or (
                isinstance(parent, ast.Assign) and parent.value is n) or (
                isinstance(parent, ast.Call) and ast.unparse(parent.func) in _READS_NOTHING):
            continue        # (an operand is read by its own attribute first; a tuple holds what it is
            #             given, a name what it is assigned; these read nothing that fails)
        callee = defs.get(ast.unparse(parent.func)) if isinstance(parent, ast.Call) else None
        if callee is not None and callee.name not in seen and n in parent.args:
            names = [a.arg for a in callee.args.args]
            mapping = {names[i]: a.id for i, a in enumerate(parent.args)
                       if i < len(names) and isinstance(a, ast.Name) and a.id in params}
            inner, stopped = _attributes_read_first(callee.body, set(mapping), defs, seen + (callee.name,))
            read += [mapping[p] for p in inner]
            if stopped:
                return read, True
            continue
        call = parents.get(parent) if isinstance(parent, ast.keyword) else parent
        if isinstance(call, ast.Call) and call is not None and call.func is not n:
            # an argument of a call that may fail: the call runs after all its arguments,
            # whose attribute reads (input.size() beside output_size) come first
            end = (call.end_lineno, call.end_col_offset)
            stop_at = end if stop_at is None else min(stop_at, end)
            continue
        return read, True
    return read, stop_at is not None


def _dispatch_flags():
    """{nn.functional name: the argument its boolean_dispatch tests (return_indices)} for the
    functions nbgrad has: `if return_indices` runs before either function, so a tensor of many
    elements there is bool()'s RuntimeError before anything the function itself would say."""
    import torch.nn.functional as F
    import nbgrad
    found = {}
    for name in dir(F):
        fn = getattr(F, name)
        if name.startswith("_") or not inspect.isfunction(fn) or not hasattr(nbgrad.nn.functional, name):
            continue
        closure = inspect.getclosurevars(fn).nonlocals
        if "if_true" in closure:
            found[name] = closure["arg_name"]
        elif name in PREAMBLE_MIRRORED:
            # (its first statement after the dispatch: `if training:`, a truth test)
            node = _functional_defs()[name]
            params = {a.arg for a in node.args.args + node.args.kwonlyargs}
            first = next(st for st in node.body if not (_dispatch_test(st) or (
                isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))))
            if isinstance(first, ast.If) and isinstance(first.test, ast.Name) and first.test.id in params:
                found[name] = first.test.id
    return found


def _attributes_read(fn, depth=2):
    """{"param.attr"} of fn's parameters that its Python reads: of the parameter itself, of its
    negation (softmin's (-input).softmax, an int's too), and, `depth` calls deep, what a helper of
    its module reads of a parameter passed to it by name (F.embedding's weight.detach() in
    _no_grad_embedding_renorm_, torch.unravel_index's indices.is_complex() in _unravel_index)."""
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError):
        return set()
    params = {a.arg for a in node.args.args + node.args.kwonlyargs}
    read = {f"{n.value.id}.{n.attr}" for n in ast.walk(node) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id in params and isinstance(n.ctx, ast.Load)}
    read |= {f"{n.value.operand.id}.{n.attr}" for n in ast.walk(node) if isinstance(n, ast.Attribute)
             and isinstance(n.value, ast.UnaryOp) and isinstance(n.value.operand, ast.Name)
             and n.value.operand.id in params}
    if depth:
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
            helper = fn.__globals__.get(call.func.id)
            if not inspect.isfunction(helper) or helper.__module__ != fn.__module__:
                continue
            theirs = list(inspect.signature(helper).parameters)
            passed = {theirs[i]: a.id for i, a in enumerate(call.args[:len(theirs)])
                      if isinstance(a, ast.Name) and a.id in params}
            passed.update({k.arg: k.value.id for k in call.keywords if isinstance(k.value, ast.Name)
                           and k.value.id in params and k.arg in theirs})
            for item in _attributes_read(helper, depth - 1):
                name, _, attribute = item.partition(".")
                if name in passed:
                    read.add(f"{passed[name]}.{attribute}")
    return read


def _python_attributes(functional):
    """{"F.<name>" / "torch.<name>": the attributes PyTorch's Python reads of its parameters
    anywhere in its body ("input.abs,input.pow"; _attributes_read)}, for the functions nbgrad has
    that PyTorch writes in Python (nn.functional's outside FUNCTIONAL or of PREAMBLE_MIRRORED,
    torch's of _signatures.PYTHON_LEVEL): where nbgrad's copy of that Python raises an
    AttributeError for one of them, PyTorch's raised it."""
    import torch
    import torch.nn.functional as F
    import nbgrad
    from nbgrad.ops._signatures import PYTHON_LEVEL
    found = {}
    candidates = [("F." + name, getattr(F, name)) for name in dir(F)
                  if not name.startswith("_") and hasattr(nbgrad.nn.functional, name)
                  and (name not in functional or name in PREAMBLE_MIRRORED)]
    candidates += [("torch." + name, getattr(torch, name, None)) for name in PYTHON_LEVEL["nbgrad"]]
    for key, fn in candidates:
        if not inspect.isfunction(fn):
            continue
        closure = inspect.getclosurevars(fn).nonlocals
        for fn in (closure["if_true"], closure["if_false"]) if "if_true" in closure else (fn,):
            read = _attributes_read(fn)
            if read:
                found[key] = ",".join(sorted(read | set(found.get(key, "").split(",")) - {""}))
    return found


def _python_read(functional):
    """{nn.functional name: its parameters that PyTorch's Python reads an attribute of before
    anything else it does with its arguments}, for the functions nbgrad has that PyTorch writes
    in Python and that FUNCTIONAL does not already check (an int there: "'int' object has no
    attribute 'dim'")."""
    import torch.nn.functional as F
    import nbgrad
    defs = _functional_defs()
    found = {}
    for name in dir(F):
        fn = getattr(F, name)
        if name.startswith("_") or (name in functional and name not in PREAMBLE_MIRRORED) or \
                not inspect.isfunction(fn) or not hasattr(nbgrad.nn.functional, name):
            continue
        fn = inspect.getclosurevars(fn).nonlocals.get("if_false", fn)      # (boolean_dispatch: the default)
        node = defs.get(fn.__name__)
        if node is None:
            continue
        params = {a.arg for a in node.args.args + node.args.kwonlyargs}
        read = sorted(set(_attributes_read_first(node.body, params, defs)[0]))
        if read:
            found[name] = ",".join(read)
    return found


def main():
    import torch
    import nbgrad
    stubs = pathlib.Path(torch.__file__).parent / "_C"
    functions = _collect(ast.parse((stubs / "_VariableFunctions.pyi").read_text()).body, False)
    tree = ast.parse((stubs / "__init__.pyi").read_text())
    base = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TensorBase")
    methods = _collect(base.body, True)
    table = {}
    for name, overloads in functions.items():
        # torch.<name> parsed by the argument parser (_VariableFunctions'): PyTorch's Python functions
        # read their arguments themselves, and its other builtins (set_num_threads) their own way
        if hasattr(nbgrad, name) and getattr(torch, name, None) is getattr(torch._C._VariableFunctions, name, 0):
            table[f"torch.{name}"] = ";".join(overloads)
    for name, overloads in methods.items():
        attr = inspect.getattr_static(torch.Tensor, name, None)
        if hasattr(nbgrad.Tensor, name) and not name.startswith("__") and \
                type(attr).__name__ in ("method_descriptor", "builtin_function_or_method"):
            table[f"Tensor.{name}"] = ";".join(overloads)
    # torch.linalg's and torch.special's C-parsed functions (linalg_solve, special_erf), which
    # have no stubs: aten's schemas
    for module, ours, prefix in ((torch.linalg, nbgrad.linalg, "linalg_"), (torch.special, nbgrad.special, "special_")):
        for name in dir(module):
            fn = getattr(module, name)
            if not name.startswith("_") and hasattr(ours, name) and not inspect.isfunction(fn) and \
                    getattr(fn, "__name__", None) == prefix + name:
                encoded = _aten_encode(prefix + name)
                if encoded is not None:
                    table[f"torch.{prefix}{name}"] = encoded
    functional = _functional(table, functions)
    # the C-parsed ops nn.functional's Python calls (interpolate's upsample_nearest2d & co. by
    # rank and mode, fractional_max_pool2d, torch.embedding_bag): nbgrad's copies of that Python
    # parse their arguments as those ops parse them, at the point PyTorch's Python calls them
    for name, node in _functional_defs().items():
        if not hasattr(nbgrad.nn.functional, name):
            continue
        for call in ast.walk(node):
            key = _op_of(call) if isinstance(call, ast.Call) else None
            if key is None or key in table:
                continue
            short = key.split(".", 1)[1]
            encoded = _aten_encode(short) if key.startswith("nn.") else \
                ";".join(functions[short]) if short in functions else None
            if encoded is not None:
                table[key] = encoded
    python_read = _python_read(functional)
    python_attributes = _python_attributes(functional)
    dispatch_flags = _dispatch_flags()
    lines = ['"""Generated by `python -m tests.differential.gen_schemas` from PyTorch '
             f'{torch.__version__.split("+")[0]}\'s type stubs: the',
             "argument kinds of its C-parsed functions and methods (see that script for the encoding).",
             'Read by ops/_signatures.py (its parser check); do not edit."""', "SCHEMAS = {"]
    lines += [f"    {key!r}: {value!r}," for key, value in sorted(table.items())]
    lines.append("}")
    lines.append("# nn.functional's functions: the C-parsed op that PyTorch's reads its arguments through")
    lines.append("FUNCTIONAL = {")
    lines += [f"    {key!r}: {value!r}," for key, value in sorted(functional.items())]
    lines.append("}")
    lines.append("# nn.functional's functions whose Python reads an argument's attributes before an op parses them")
    lines.append("PYTHON_READ = {")
    lines += [f"    {key!r}: {value!r}," for key, value in sorted(python_read.items())]
    lines.append("}")
    lines.append("# nn.functional's boolean_dispatch functions (and those of PREAMBLE_MIRRORED): the flag PyTorch's")
    lines.append("# Python tests before anything else")
    lines.append("DISPATCH_FLAGS = {")
    lines += [f"    {key!r}: {value!r}," for key, value in sorted(dispatch_flags.items())]
    lines.append("}")
    lines.append("# PyTorch's functions written in Python: the attributes of their parameters they read")
    lines.append("PYTHON_ATTRIBUTES = {")
    lines += [f"    {key!r}: {value!r}," for key, value in sorted(python_attributes.items())]
    lines.append("}")
    lines.append("# nn.functional's functions of FUNCTIONAL whose Python checks before its op, as nbgrad's does")
    lines.append(f"PREAMBLE_MIRRORED = frozenset({sorted(PREAMBLE_MIRRORED)!r})")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{OUT}: {len(table)} functions and methods, {len(functional)} of nn.functional")


if __name__ == "__main__":
    main()
