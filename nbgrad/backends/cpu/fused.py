"""Fused elementwise kernels: one loop that evaluates a whole expression program.

The op layer (nbgrad/ops/fusion.py) traces an elementwise function into a
*program*: a tuple of instructions in topological order, each
    ("input", k) | ("const", value) | (op, i) | (op, i, j) | ("pow", i, exponent value)
where i, j index earlier instructions.  `fused_elementwise` evaluates the
instructions named by `outputs` for every element in one pass: no
intermediate buffers, one read of each input, one write of each output.

Code generation: the program becomes the source of a small module (one
`@njit(cache=True, nogil=True)` kernel, and its native entry point for the
team's workers, backends/_shared/native.py, compiled on its first split) written to a directory of generated
sources (NBGRAD_FUSED_DIR; else nbgrad's one cache directory, nbgrad/_cachedir.py:
NBGRAD_CACHE_DIR/fused, <NUMBA_CACHE_DIR>/nbgrad/fused or ~/.cache/nbgrad/fused) and imported from there, so Numba's on-disk cache
serves it to later processes.  The kernel calls the fast transcendentals of
elementwise.py -- a jitted helper from another file, Numba's stale-cache trap
(docs/ARCHITECTURE.md, "The on-disk kernel cache") -- so the generated file's *name* carries a hash of
elementwise.py's source and of the shared helpers (nbgrad/backends/_shared's
DIGEST): editing those helpers yields new files and fresh compiles, never
stale machine code.  Plain Python: this file defines no
kernel itself.
"""
import hashlib
import importlib.util
import os
import pathlib
import sys
import threading

import numpy as np

from ... import _debug
from ._allocator import new_buffer
from .elementwise import _same_run
from ._threads import native_function, run_native, run_split, worth_native, worth_splitting

# Each op as a Python/Numba expression over its operands' names ({0}, {1});
# _Z, _O are zero and one of the kernel's dtype.  Shared with the CUDA backend,
# which swaps the function names.
EXPRESSIONS = {
    "add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "div": "{0} / {1}",
    "neg": "-{0}", "abs": "abs({0})",
    "exp": "{exp}({0})", "log": "{log}({0})", "tanh": "{tanh}({0})", "sigmoid": "{sigmoid}({0})",
    "sqrt": "{sqrt}({0})", "sin": "{sin}({0})", "cos": "{cos}({0})",
    # relu keeps NaN (PyTorch's clamp_min); step is relu's derivative (PyTorch's
    # threshold_backward: 0 where x <= 0, so 1 at NaN);
    # sign is 0 at 0 and NaN, as nbgrad's sign.
    "relu": "(_Z if {0} < _Z else {0})",
    "step": "(_Z if {0} <= _Z else _O)",
    "sign": "(_O if {0} > _Z else (-_O if {0} < _Z else _Z))",
    "sgn": "(_O if {0} > _Z else (-_O if {0} < _Z else _Z))",     # (sign, as PyTorch's sgn of a real)
    "pow": "{0} ** {1}", "powt": "{0} ** {1}",
    # the op table's formulas (nbgrad/ops/_expr.py): a mask, and where over it
    "lt": "({0} < {1})", "le": "({0} <= {1})", "gt": "({0} > {1})", "ge": "({0} >= {1})",
    "eq": "({0} == {1})", "ne": "({0} != {1})", "where": "({1} if {0} else {2})",
}
# Every other op of a program is a call of the backend's scalar function of that name
# (the unary functions of nbgrad/ops/_expr.FUNCTIONS, and hypot): `functions` maps it.
CHEAP = frozenset({"input", "const", "add", "sub", "mul", "div", "neg", "abs", "relu", "step", "sign", "sgn",
                   "lt", "le", "gt", "ge", "eq", "ne", "where"})

# The CPU's scalar functions are elementwise.py's `_<name>` (exp is the fast exp, ...).
_CPU_FUNCTIONS = {"exp": "_exp", "log": "_log", "tanh": "_tanh", "sigmoid": "_sigmoid", "sqrt": "_sqrt",
                  "sin": "_sin", "cos": "_cos"}


def call_text(op, args, functions):
    """The source of one instruction: a formula of EXPRESSIONS, else a function call."""
    form = EXPRESSIONS.get(op)
    if form is not None and "{" + op + "}" not in form:
        return form.format(*args)
    return f"{functions[op]}({', '.join(args)})"


def _literal(value):
    v = float(value)
    return repr(v) if v == v and abs(v) != float("inf") else f"float('{v}')"


def body(program, outputs, kinds, functions, load="a{k}[i]", cast="_T"):
    """(hoisted lines, loop lines, output names) of a kernel evaluating program.

    kinds[k] is 'v' (input k is a vector, element i read as `load`), 'o' (a vector that is
    output 0's own run, read the same way: _source binds it to out0) or 's' (one value,
    b{k}[o{k}], read once).  functions maps the transcendental names of
    EXPRESSIONS to callables' names.
    """
    hoisted, loop = [], []
    varying = set()
    for idx, ins in enumerate(program):
        name = f"v{idx}"
        op = ins[0]
        if op == "input":
            k = ins[1]
            if kinds[k] != "s":
                loop.append(f"{name} = " + load.format(k=k))
                varying.add(idx)
            else:
                hoisted.append(f"{name} = b{k}[o{k}]")
            continue
        if op == "const":
            hoisted.append(f"{name} = {cast}({_literal(ins[1])})")
            continue
        if op == "pow":
            args = [f"v{ins[1]}", f"{cast}({_literal(ins[2])})"]
            deps = (ins[1],)
        else:
            deps = ins[1:]
            args = [f"v{j}" for j in deps]
        text = f"{name} = " + call_text(op, args, functions)
        if any(j in varying for j in deps):
            loop.append(text)
            varying.add(idx)
        else:
            hoisted.append(text)
    return hoisted, loop, [f"v{j}" for j in outputs]


def _helpers_hash():
    """A hash of the scalar functions' sources: elementwise.py's and the shared helpers' it
    takes some of them from (maximum/minimum are nbgrad/backends/_shared's reduction steps)."""
    from . import elementwise
    from .._shared import DIGEST
    source = pathlib.Path(elementwise.__file__).read_bytes() + DIGEST.encode()
    return hashlib.sha1(source).hexdigest()[:12]


# ops whose scalar functions are elementwise.py's polynomials (elementwise._WIDE_VECTOR_FNS)
_WIDE_OPS = frozenset({"exp", "log", "tanh", "sigmoid"})


def _source(program, outputs, kinds, dtype):
    used = sorted({ins[0] for ins in program if ins[0] not in EXPRESSIONS or ins[0] in _CPU_FUNCTIONS}
                  - {"input", "const"})
    functions = {op: f"_{op}" for op in used}
    hoisted, loop, outs = body(program, outputs, kinds, functions)
    params = [p for k in range(len(kinds)) for p in (f"b{k}", f"o{k}")]
    params += [f"out{j}" for j in range(len(outputs))]
    lines = [
        "# Generated by nbgrad/backends/cpu/fused.py: a fused elementwise kernel.",
        f"# program: {program!r}",
        f"# outputs: {outputs!r}; input kinds: {kinds!r}; dtype: {dtype}",
        "import numpy as np",
        "from numba import carray, cfunc, njit",
        "from numba.extending import register_jitable",
        "from nbgrad.backends._shared.native import SIGNATURE, address_as",
        "from nbgrad.backends.cpu.elementwise import _wide_vectors, " + (", ".join(functions.values()) or "_exp"),
        "",
        f"_T = np.{dtype}",
        "",
        "",
        '@register_jitable(error_model="numpy")       # also the body of the native entry point below',
        f"def _body({', '.join(params)}):",
        "    n = out0.size",
    ] + (["    _wide_vectors()     # the polynomial transcendentals in the CPU's widest vectors"]
         if _WIDE_OPS.intersection(used) else []) + [
        "    _Z = _T(0.0)",
        "    _O = _T(1.0)",
    ]
    for k, kind in enumerate(kinds):
        if kind == "v":
            lines.append(f"    a{k} = b{k}[o{k}:o{k} + n]")
        elif kind == "o":
            # output 0's own run (an in-place op): the same array, so LLVM sees the loop read
            # and write one place, and needs no overlap check (which such a pair fails, sending
            # the loop to its scalar version: an in-place fma over 64K 26 -> 15 us)
            lines.append(f"    a{k} = out0")
    lines += [f"    {h}" for h in hoisted]
    lines.append("    for i in range(n):")
    lines += [f"        {s}" for s in loop]
    lines += [f"        out{j}[i] = {name}" for j, name in enumerate(outs)]
    lines += ["", "", 'kernel = njit(cache=True, error_model="numpy", nogil=True)(_body)']
    # the native entry point (backends/_shared/native.py): the kernel's body on elements
    # [lo, hi), for the team's workers (_threads.run_native); compiled on its first use
    count = len(kinds) + len(outputs)
    call = [a for k, kind in enumerate(kinds) for a in (f"b{k}", "0" if kind == "s" else "lo")]
    call += [f"out{j}[lo:hi]" for j in range(len(outputs))]
    lines += ["", "", "def _native(args, lo, hi):",
              f"    block = carray(address_as(args, np.int64), {count})"]
    lines += [f"    b{k} = carray(address_as(block[{k}], _T), {'1' if kind == 's' else 'hi'})"
              for k, kind in enumerate(kinds)]
    lines += [f"    out{j} = carray(address_as(block[{len(kinds) + j}], _T), hi)" for j in range(len(outputs))]
    lines += [f"    _body({', '.join(call)})", "", "",
              "def native_address():",
              '    return cfunc(SIGNATURE, cache=True, error_model="numpy")(_native).address']
    return "\n".join(lines) + "\n"


def generated_dir():
    explicit = os.environ.get("NBGRAD_FUSED_DIR")
    if explicit:
        return pathlib.Path(explicit)
    from ..._cachedir import generated_dir as under_cache_root
    return under_cache_root("fused")


class KernelCache:
    """Kernels built once per key, also when threads ask at the same time (shared with
    the CUDA backend's generator)."""

    def __init__(self):
        self._kernels = {}
        self._lock = threading.Lock()

    def get(self, key, build):
        kernel = self._kernels.get(key)
        if kernel is None:
            with self._lock:
                kernel = self._kernels.get(key)
                if kernel is None:
                    kernel = self._kernels[key] = build(*key)
        return kernel


def _build(program, outputs, kinds, dtype):
    source = _source(program, outputs, kinds, dtype)
    digest = hashlib.sha1((source + _helpers_hash()).encode()).hexdigest()[:20]
    name = f"nbgrad_fused_{digest}"
    directory = generated_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    if not path.exists() or path.read_text() != source:
        tmp = directory / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_text(source)
        os.replace(tmp, path)            # atomic: concurrent processes write the same text
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _modules[module.kernel] = module
    return module.kernel


_modules = {}                   # kernel -> its generated module


def _native_split(kernel, inputs, outs, n, compute_bound):
    """Run the kernel over n elements split through its native entry point; False when not
    (too small, too many operands for the argument block, the team busy)."""
    if not worth_native(n, compute_bound) or len(inputs) + len(outs) > 16:
        return False
    for buf, off, kind in inputs:
        if not (0 <= off and off + (1 if kind == "s" else n) <= buf.size):
            return False
    fn = native_function(("fused", kernel), _modules[kernel].native_address)
    return run_native(fn, n, tuple(buf for buf, _, _ in inputs) + tuple(outs),
                      tuple(off for _, off, _ in inputs) + (0,) * len(outs))


_kernels = KernelCache()

_IN_PLACE_MIN = 1024        # (below it the overlap check's cost is small beside the address reads)


def _in_place_kinds(inputs, kinds, out):
    """kinds with 'o' for each vector input that is out's own run (body's docstring)."""
    found = None
    for k, (buf, off, kind) in enumerate(inputs):
        if kind == "v" and _same_run(out, buf, off):
            found = list(kinds) if found is None else found
            found[k] = "o"
    return kinds if found is None else tuple(found)


_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}   # (dtype.name is a slow property)


def fused_elementwise(program, outputs, inputs, n, dtype, out=None):
    """Evaluate program over n elements; return one new buffer per entry of outputs (or,
    for a program of one output, `out`: n elements written from its start).

    program/outputs: as the module docstring says (tuples, hashable).  inputs:
    [(buffer, offset, kind)] with kind 'v' (n contiguous elements from offset)
    or 's' (the one element at offset, used for every i).  All buffers have
    dtype (float32 or float64), as do the outputs.
    """
    dtype = np.dtype(dtype)
    kinds = tuple(kind for _, _, kind in inputs)
    if out is not None and n >= _IN_PLACE_MIN and len(outputs) == 1:
        kinds = _in_place_kinds(inputs, kinds, out)
    kernel = _kernels.get((tuple(program), tuple(outputs), kinds, _NAMES.get(dtype) or dtype.name), _build)
    outs = [out] if out is not None else [new_buffer(n, dtype) for _ in outputs]
    if n == 0:
        return outs
    compute_bound = any(ins[0] not in CHEAP for ins in program)
    if _debug.ENABLED: before = _debug.kernel_state(kernel)
    if _native_split(kernel, inputs, outs, n, compute_bound):
        pass
    elif worth_splitting(n, compute_bound):
        def part(start, stop):
            args = []
            for buf, off, kind in inputs:
                args += [buf, off if kind == "s" else off + start]
            kernel(*args, *[o[start:stop] for o in outs])
        run_split(part, n)
    else:
        args = []
        for buf, off, _ in inputs:
            args += [buf, off]
        kernel(*args, *outs)
    if _debug.ENABLED: _debug.log("fused_elementwise", n=n, dtype=dtype, cache=_debug.cache_source(kernel, before))
    return outs
