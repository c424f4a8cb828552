"""From a recording to a generated module: passes, fusion, memory plan, code.

Passes over the recorded kernel calls (the graph):
- dead code: a call none of whose results is used later or seen by the user (an output,
  a rebound `.grad`, optimizer state) and that writes nothing and draws no random numbers
  is dropped;
- common subexpressions: a call identical to an earlier one (same kernel, same constant
  arguments, same buffers, none of them written in between) reuses its results;
- constant folding: a call that reads no external buffer and draws nothing (a `full`, an
  `arange`, arithmetic on them) whose results never escape and are never written runs
  once, when the module is built; its buffers are constants of the module;
- elementwise fusion: consecutive elementwise calls (unary, binary, add with alpha, where,
  mul's backward) over one output shape become one loop nest in one `@njit` function:
  values used only inside the region stay scalars, the others are written once;
- memory plan: a fused region's buffers that never escape the step are allocated once, for
  the variant, and reused by every call (and by later regions once dead);
- BLAS: matmul calls run the backend's kernel, which hands whole GEMMs to BLAS.

The module -- a Python driver calling the backend for what is not fused, and the fused
regions as `@njit(cache=True)` functions -- is written under nbgrad's cache directory
(nbgrad/_cachedir.py) with a name hashed from its source and the backend's kernel
sources, so a fresh process loads the compiled machine code and an upgraded kernel
source never meets stale machine code.
"""
import hashlib
import importlib.util
import math
import re
import os
import sys
import threading

import numpy as np

from .capture import KEEP, PURE, RANDOM, Ref, is_buffer
from .graph import Graph, GraphNode, GraphTensor, dtype_name

# the fused regions' scalar forms, as in the backends (nbgrad/backends/cpu/elementwise.py)
_INLINE_BINARY = {"add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})", "div": "({0} / {1})",
                  "eq": "({0} == {1})", "ne": "({0} != {1})", "lt": "({0} < {1})", "le": "({0} <= {1})",
                  "gt": "({0} > {1})", "ge": "({0} >= {1})"}
_INLINE_UNARY = {"neg": "(-{0})"}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_BOOL = np.dtype(np.bool_)
# ops exact on integers and booleans (the backend's scalar functions), and those dtypes
_EXACT_OPS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                        "bitwise_and", "bitwise_or", "bitwise_xor"})
_EXACT_DTYPES = tuple(np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8))
_ELEMENTWISE = frozenset({"unary", "binary", "binary_scaled", "where", "mul_backward", "fused_elementwise"})
# ops cheap enough that a region of only them is memory-bound (threads from a larger size)
_CHEAP = frozenset({"add", "sub", "mul", "div", "neg", "copy", "where", "mul_backward", "eq", "ne", "lt", "le",
                    "gt", "ge", "relu", "maximum", "minimum"})


def _walk_refs(obj, out):
    if isinstance(obj, Ref):
        out.append(obj.vid)
    elif type(obj) in (tuple, list):
        for o in obj:
            _walk_refs(o, out)
    return out


def reads(instr):
    refs = _walk_refs(instr.args, [])
    for v in instr.kwargs.values():
        _walk_refs(v, refs)
    return refs


def results(instr):
    return _walk_refs(instr.outs, [])


def _row_major(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def _view_kind(view, shape):
    """'c' (contiguous over the output's shape), 's' (one value broadcast), 'g' (strided)."""
    _, _, vshape, vstrides = view
    if tuple(vshape) != tuple(shape):
        return None
    if all(n == 1 for n in vshape):
        return "c"      # one element (a 0-dim value): contiguous, so a region's own result reads on in it
    if all(s == 0 or n == 1 for n, s in zip(vshape, vstrides)):
        return "s"
    rm = _row_major(vshape)
    if all(n == 1 or s == r for n, s, r in zip(vshape, vstrides, rm)):
        return "c"
    return "g"


def _is_view(obj):
    return (type(obj) is tuple and len(obj) == 4 and isinstance(obj[0], Ref) and isinstance(obj[1], int))


class Lowering:
    """Whether one recorded call joins a fused region, and its scalar form there."""

    def __init__(self, program, instr):
        self.ok = False
        fn, a = instr.fn, instr.args
        self.inplace = None
        self.reduction = False
        self.device = instr.device
        if instr.device not in ("cpu", "cuda"):
            return
        if fn == "copy" and instr.producer:
            src, dst = a
            sd, dd = program.values[src[0].vid].dtype, program.values[dst[0].vid].dtype
            shape = tuple(dst[2])
            kind = _view_kind(src, shape)
            if (sd not in _FLOATS and sd not in _EXACT_DTYPES) or dd not in _FLOATS or kind is None or len(shape) > 6:
                return
            self.op, self.views, self.kinds, self.shape, self.dtype = "copy", [src], [kind], shape, dd
            self.in_dtype = sd
            self.outs = [dst[0].vid]
            self.instr = instr
            self.flat = kind in "cs"
            self.numel = int(np.prod(shape)) if shape else 1
            self.ok = True
            return
        if fn == "binary" and (len(a) == 6 or set(instr.kwargs) == {"out"}) and len(a) >= 5:
            # the engine's in-place accumulation: out is exactly a's elements
            out = a[5] if len(a) == 6 else instr.kwargs["out"]
            if not (isinstance(out, Ref) and _is_view(a[1]) and out.vid == a[1][0].vid and a[1][1] == 0):
                return
            self.inplace = out.vid
            a = a[:5]
        elif fn not in _ELEMENTWISE | {"reduce"} or instr.kwargs or instr.writes:
            return
        vals = program.values
        if fn == "unary":
            if len(a) != 3 or not _is_view(a[1]):
                return
            op, views, dtype = a[0], [a[1]], np.dtype(a[2])
            shape = tuple(a[1][2])
            if op not in program.unary_ops:
                return
        elif fn == "binary":
            if len(a) != 5 or not (_is_view(a[1]) and _is_view(a[2])):
                return
            op, views, shape, dtype = a[0], [a[1], a[2]], tuple(a[3]), np.dtype(a[4])
            if op not in program.binary_ops:
                return
        elif fn == "binary_scaled":
            if len(a) != 6 or not (_is_view(a[1]) and _is_view(a[2])) or a[0] not in ("add", "sub"):
                return
            op, views, shape, dtype = a[0], [a[1], a[2]], tuple(a[4]), np.dtype(a[5])
            if not isinstance(a[3], (int, float)):
                return
        elif fn == "where":
            if len(a) != 5 or not all(_is_view(v) for v in a[:3]):
                return
            op, views, shape, dtype = "where", list(a[:3]), tuple(a[3]), np.dtype(a[4])
        elif fn == "reduce":
            # a sum over every dim: the region's epilogue (a float64 accumulator per piece)
            if (instr.device != "cpu" or instr.kwargs or len(a) < 4 or a[0] != "sum" or not _is_view(a[1])
                    or tuple(a[2]) != tuple(range(len(a[1][2]))) or not a[1][2]):
                return
            op, views, shape, dtype = "sum_all", [a[1]], tuple(a[1][2]), np.dtype(a[3])
            self.reduction = True
        elif fn == "fused_elementwise":
            # a program of nbgrad.fuse, of the op table's formulas or of a user's
            # @nbgrad.elementwise: its instructions join the region (backends/cpu/fused.py)
            if len(a) != 5 or instr.kwargs:
                return
            program, prog_outputs, inputs, n, dtype = a
            if not all(type(i) is tuple and len(i) == 3 and isinstance(i[0], Ref) and i[2] in ("v", "s")
                       for i in inputs):
                return
            op, shape, dtype = "fused", (int(n),), np.dtype(dtype)
            views = [(i[0], i[1], shape, (1,) if i[2] == "v" else (0,)) for i in inputs]
            self.program, self.prog_outputs, self.prog_kinds = program, prog_outputs, tuple(i[2] for i in inputs)
        else:       # mul_backward(g, a, b, need_a, need_b)
            if len(a) < 3 or not all(_is_view(v) for v in a[:3]):
                return
            op, views, shape = "mul_backward", list(a[:3]), tuple(a[0][2])
            dtype = vals[a[0][0].vid].dtype
        in_dtypes = [vals[v[0].vid].dtype for v in views]
        if fn == "where":
            if in_dtypes[0] != _BOOL or in_dtypes[1] not in _FLOATS or in_dtypes[2] != in_dtypes[1]:
                return
        elif len(set(in_dtypes)) != 1:
            return
        elif in_dtypes[0] not in _FLOATS:
            # integers and booleans: comparisons and logical/bitwise ops (a mask, a check)
            if fn != "binary" or op not in _EXACT_OPS or in_dtypes[0] not in _EXACT_DTYPES:
                return
        if dtype not in _FLOATS and not (dtype == _BOOL and op in _EXACT_OPS) \
                and not (dtype == in_dtypes[0] and op in _EXACT_OPS and dtype in _EXACT_DTYPES):
            return
        kinds = [_view_kind(v, shape) for v in views]
        if None in kinds or len(shape) > 6 or (self.inplace is not None and kinds[0] != "c"):
            return
        outs = results(instr)
        expected = (len(self.prog_outputs) if fn == "fused_elementwise" else
                    sum(o is not None for o in instr.outs) if fn == "mul_backward" else 1)
        if len(outs) != expected:
            return
        if fn == "fused_elementwise" and (any(k not in "cs" for k in kinds) or dtype not in _FLOATS):
            return
        self.flat = all(k in "cs" for k in kinds)
        self.numel = int(np.prod(shape)) if shape else 1
        if self.reduction and kinds != ["c"]:
            return
        self.ok = True
        self.op, self.views, self.kinds, self.shape, self.dtype = op, views, kinds, shape, dtype
        self.in_dtype = in_dtypes[-1]
        self.outs = outs
        self.instr = instr


class Program:
    """A recording after the passes, and its generated module."""

    def __init__(self, rec, live_out, external_bind, title):
        from ..backends.cpu import elementwise as ew
        self.rec = rec
        self.values = rec.values
        self.instrs = list(rec.instrs)
        self.live_out = set(live_out)           # values the user sees after the call
        self.bind = external_bind               # vid -> ('slot', i) | ('const', array)
        self.title = title
        self.unary_ops = frozenset(ew._UNARY_FNS)
        self.binary_ops = frozenset(ew._BINARY_FNS)
        self.removed = 0
        self.folded = []
        self._passes()

    # -- passes ------------------------------------------------------------
    def _escaping(self):
        """Values whose memory the user may hold: live-out ones and anything aliasing them."""
        esc = set(self.live_out)
        for v in self.values:
            if v.kind == "alias" and (v.id in esc or v.alias_of in esc):
                esc.add(v.id)
                esc.add(v.alias_of)
        return esc

    def _passes(self):
        self._cse()
        self._dce()
        self._fold()
        self._materializations()

    def _materializations(self):
        """`empty` then a `copy` that fills the whole buffer (a broadcast gradient made
        contiguous, a dtype cast) is one elementwise producer of that buffer: it can join a
        fused region (the copy is then marked `producer`, and the empty dropped)."""
        first_use = {}
        for ins in self.instrs:
            for r in reads(ins) + list(ins.writes):
                first_use.setdefault(self._base(r), ins)
        drop = set()
        for ins in self.instrs:
            if ins.fn != "empty" or ins.device != "cpu":
                continue
            outs = results(ins)
            if len(outs) != 1:
                continue
            e = outs[0]
            cp = first_use.get(e)
            if cp is None or cp.fn != "copy" or cp.kwargs or len(cp.args) != 2 or cp.device != "cpu":
                continue
            src, dst = cp.args
            if not (_is_view(src) and _is_view(dst)) or dst[0].vid != e or dst[1] != 0:
                continue
            shape = tuple(dst[2])
            n = int(np.prod(shape)) if shape else 1
            if n != self.values[e].size or _view_kind(dst, shape) not in ("c", "s") or src[0].vid == e:
                continue
            if any(v.kind == "alias" and v.alias_of == e for v in self.values):
                continue
            cp.producer = True
            if not Lowering(self, cp).ok:       # (an integer or bool cast stays a backend copy)
                cp.producer = False
                continue
            drop.add(id(ins))
        if drop:
            self.instrs = [i for i in self.instrs if id(i) not in drop]

    def _base(self, vid):
        v = self.values[vid]
        return v.alias_of if v.kind == "alias" else vid

    def _cse(self):
        """An instruction identical to an earlier one whose inputs were not written since, and
        whose results were not written since either, reuses those results."""
        seen, written_at, replace, kept = {}, {}, {}, []
        producer_key = {}       # base vid -> CSE key of the instruction that made it
        for ins in self.instrs:
            if replace:
                ins.args = _substitute(ins.args, replace)
                ins.kwargs = {k: _substitute(v, replace) for k, v in ins.kwargs.items()}
            key = None
            if not ins.writes and ins.fn not in RANDOM and ins.fn in _ELEMENTWISE | {"reduce", "matmul", "full"}:
                try:
                    key = (ins.fn, _key(ins.args), _key(ins.kwargs),
                           tuple(written_at.get(self._base(r), -1) for r in reads(ins)))
                    hash(key)
                except TypeError:
                    key = None
            prev = seen.get(key) if key is not None else None
            outs = results(ins)
            if prev is not None and not (set(outs) & self.live_out) and len(results(prev)) == len(outs):
                for a, b in zip(outs, results(prev)):
                    replace[a] = b
                self.removed += 1
                continue
            if key is not None:
                seen[key] = ins
                for o in outs:
                    producer_key[self._base(o)] = key
            for w in ins.writes:
                b = self._base(w)
                written_at[b] = ins.index
                stale = producer_key.pop(b, None)      # its maker's results are not these any more
                if stale is not None:
                    seen.pop(stale, None)
            kept.append(ins)
        self.instrs = kept
        self.live_out = {replace.get(v, v) for v in self.live_out}

    def _dce(self):
        needed = self._escaping()      # (escaping aliases' bases included)
        kept = []
        for ins in reversed(self.instrs):
            outs = results(ins)
            if ins.writes or ins.fn in KEEP or any(o in needed for o in outs) or not outs:
                kept.append(ins)
                rs = reads(ins)             # what it reads is needed, through an alias its base too
                needed.update(rs)
                needed.update(self._base(r) for r in rs)
            else:
                self.removed += 1
        kept.reverse()
        self.instrs = kept

    def _fold(self):
        esc = self._escaping()
        written = {w for ins in self.instrs for w in ins.writes}
        constant = set()
        kept = []
        for ins in self.instrs:
            rs = reads(ins)
            outs = results(ins)
            if (ins.fn not in RANDOM and not ins.writes and outs and ins.fn in {"full", "arange"} | _ELEMENTWISE
                    and all(r in constant for r in rs) and not (set(outs) & (esc | written))):
                constant.update(outs)
                self.folded.append(ins)
                continue
            kept.append(ins)
        self.instrs = kept

    def fold_values(self):
        """The folded calls run once, now: their results are the module's constants."""
        if getattr(self, "_folded_values", None) is None:
            from ..backends import get_backend
            vals = {}
            for ins in self.folded:
                be = get_backend(ins.device)
                args = _materialize(ins.args, vals)
                kwargs = {k: _materialize(v, vals) for k, v in ins.kwargs.items()}
                res = getattr(be, ins.fn)(*args, **kwargs)
                for ref, arr in zip(_walk_refs(ins.outs, []), _flatten_arrays(res)):
                    vals[ref] = arr
            self._folded_values = vals
        return self._folded_values

    # -- fusion and code -----------------------------------------------------
    def regions(self):
        """[(kind, [items])]: 'call' (one backend call) or 'fused' (a region's Lowerings).

        A call that writes nothing and draws nothing (a reduction of a region's value, a
        matmul) does not end a region: it is scheduled after it, and the region goes on
        with the elementwise calls that do not read its results (the loss' sum between a
        forward and its backward)."""
        out, cur, pending = [], [], []
        state = {"shape": None, "flat": True, "produced": set(), "pending_out": set(), "pending_reads": set()}

        def close():
            if cur:
                # one call alone runs as the backend's own kernel, unless it is a copy whose
                # destination's allocation was dropped (_materializations)
                alone = len(cur) == 1 and not cur[0].instr.producer
                out.append(("call", [cur[0].instr]) if alone else ("fused", list(cur), state["shape"]))
            out.extend(("call", [p]) for p in pending)
            cur.clear()
            pending.clear()
            state.update(shape=None, flat=True, produced=set(), pending_out=set(), pending_reads=set())
            for key in ("device", "reduction", "reduced"):
                state.pop(key, None)

        for ins in self.instrs:
            low = Lowering(self, ins)
            if low.ok:
                rs = {v[0].vid for v in low.views}
                # one loop nest over one shape; contiguous and broadcast-scalar operands only
                # (flat) also over one element count, whatever the shapes
                shape = state["shape"]
                same = shape is None or shape == low.shape
                flat_join = (shape is not None and not same and state["flat"] and low.flat
                             and int(np.prod(shape)) == low.numel)
                joins = ((same or flat_join) and state.get("device", low.device) == low.device
                         and not (low.reduction and state.get("reduction"))
                         and not (rs & state.get("reduced", set()))
                         and all(v[0].vid not in state["produced"] or (k == "c" and v[1] == 0)
                                 for v, k in zip(low.views, low.kinds))
                         and not (rs & state["pending_out"])
                         and (low.inplace is None or low.inplace not in state["pending_reads"]))
                if not joins:
                    close()
                    flat_join = False
                cur.append(low)
                state["device"] = low.device
                if low.reduction:
                    state["reduction"] = True
                    state["reduced"] = set(low.outs)
                state["shape"] = (low.numel,) if flat_join else low.shape
                state["flat"] = state["flat"] and low.flat
                state["produced"].update(low.outs)
                continue
            if cur and not ins.writes and ins.fn in PURE | {"binary"}:
                pending.append(ins)
                state["pending_out"].update(results(ins))
                state["pending_reads"].update(reads(ins))
                continue
            close()
            out.append(("call", [ins]))
        close()
        return out

    def generate(self):
        """(source, constants) of the module."""
        gen = _Source(self)
        return gen.build()

    def graph(self):
        nodes = []
        names = {}
        first_shapes = _first_shapes(self)
        for v in self.values:
            if v.kind == "external":
                names[v.id] = self.bind_name(v.id)
        for ins in self.instrs:
            outs = []
            for k, vid in enumerate(results(ins)):
                v = self.values[vid]
                shape = first_shapes.get(vid) or (v.size,)
                names.setdefault(vid, f"{ins.name}:{k}")
                outs.append(GraphTensor(f"{ins.name}:{k}", shape, dtype_name(v.dtype)))
            ins_names = []
            for r in reads(ins):
                v = self.values[r]
                base = v.alias_of if v.kind == "alias" else r
                ins_names.append(names.get(base, f"%{base}"))
            attrs = [a for a in ins.args if not isinstance(a, (Ref, tuple, list))]
            nodes.append(GraphNode(ins.name, ins.fn if ins.fn not in ("unary", "binary") else ins.args[0],
                                   ins_names, outs, attrs))
        inputs = [self.bind_name(v.id) for v in self.values if v.kind == "external" and v.id in self.bind]
        return Graph(nodes, inputs, removed=self.removed)

    def bind_name(self, vid):
        b = self.bind.get(vid)
        if b is None:
            return f"%{vid}"
        return b[2] if b[0] == "slot" else f"const_{vid}"


def _first_shapes(program):
    """vid -> the shape it is first seen with: a view of it, or the shape its maker was given."""
    shapes = {}
    for ins in program.instrs:
        for a in list(ins.args) + list(ins.kwargs.values()):
            if _is_view(a):
                shapes.setdefault(a[0].vid, tuple(a[2]))
        outs = results(ins)
        if ins.fn in ("binary", "where") and len(ins.args) > 3:
            shape = tuple(ins.args[3])
        elif ins.fn == "unary" and _is_view(ins.args[1]):
            shape = tuple(ins.args[1][2])
        else:
            continue
        for vid in outs:
            shapes.setdefault(vid, shape)
    return shapes


def _map_refs(obj, fn):
    """obj (nested tuples and lists of arguments) with each Ref r replaced by fn(r)."""
    if isinstance(obj, Ref):
        return fn(obj)
    t = type(obj)
    if t is tuple or t is list:
        items = [_map_refs(o, fn) for o in obj]
        return tuple(items) if t is tuple else items
    return obj


def _materialize(obj, vals):
    return _map_refs(obj, lambda r: vals[r.vid])


def _flatten_arrays(obj):
    if is_buffer(obj):
        return [obj]
    if type(obj) in (tuple, list):
        return [a for o in obj for a in _flatten_arrays(o)]
    return []


def _key(obj):
    if isinstance(obj, Ref):
        return ("%", obj.vid)
    if type(obj) in (tuple, list):
        return tuple(_key(o) for o in obj)
    if isinstance(obj, dict):
        return tuple(sorted((k, _key(v)) for k, v in obj.items()))
    if is_buffer(obj):
        raise TypeError
    if isinstance(obj, float) and obj != obj:
        return ("nan",)
    return (type(obj).__name__, obj)


def _substitute(obj, replace):
    return _map_refs(obj, lambda r: r if r.vid not in replace else Ref(replace[r.vid]))


def _literal(obj):
    """Python source for a constant, or None when it must be passed in."""
    t = type(obj)
    if obj is None or t is bool or t is int or t is str:
        return repr(obj)
    if t is float:
        return repr(obj) if math.isfinite(obj) else None
    if t is tuple:
        items = [_literal(o) for o in obj]
        if None in items and any(o is not None for o, i in zip(obj, items) if i is None):
            return None
        return "(" + "".join(f"{i}, " for i in items) + ")"
    return None


class _Source:
    def __init__(self, program):
        self.p = program
        self.consts = []
        self._const_ids = {}
        self.kernels = []          # source blocks of njit functions
        self.lines = []
        self.scratch = []          # (size, dtype) of planned buffers
        self.fused = 0
        self._used_fns = set()
        self._used_elementwise = set()
        self.cuda = False

    def const(self, obj):
        key = id(obj)
        k = self._const_ids.get(key)
        if k is None:
            k = self._const_ids[key] = len(self.consts)
            self.consts.append(obj)
        return f"C[{k}]"

    def expr(self, obj):
        if isinstance(obj, Ref):
            return f"v{obj.vid}"
        t = type(obj)
        if t is tuple or t is list:
            if t is tuple and _literal(obj) is not None:
                return _literal(obj)
            inner = "".join(f"{self.expr(o)}, " for o in obj)
            return f"({inner})" if t is tuple else f"[{inner}]"
        lit = _literal(obj)
        return lit if lit is not None else self.const(obj)

    def build(self):
        p = self.p
        L = self.lines
        L.append("def run(X, C, S, B):")
        for dev in sorted({ins.device for ins in p.instrs} | {"cpu"}):
            L.append(f"    be_{dev} = B[{dev!r}]")
        # externals and aliases
        for v in p.values:
            if v.kind == "external" and v.id in p.bind:
                b = p.bind[v.id]
                L.append(f"    v{v.id} = X[{b[1]}]" if b[0] == "slot" else f"    v{v.id} = {self.const(b[1])}")
        emitted_alias = set()

        def alias_lines(vids):
            for r in vids:
                v = p.values[r]
                if v.kind == "alias" and r not in emitted_alias:
                    emitted_alias.add(r)
                    off, dt, shape, strides = v.alias_spec
                    L.append(f"    v{r} = _alias(v{v.alias_of}, {off}, {self.const(dt)}, {shape!r}, {strides!r})")
        for vid, arr in p.fold_values().items():
            L.append(f"    v{vid} = {self.const(arr)}")
        regions = p.regions()
        # values read after each point: for the memory plan
        last_use = {}
        for i, (kind, items, *_) in enumerate(regions):
            instrs = [x.instr for x in items] if kind == "fused" else items
            for ins in instrs:
                for r in reads(ins) + list(ins.writes):
                    last_use[r] = i
                    last_use[p._base(r)] = i      # a slice's reader keeps its base's buffer in use
        esc = p._escaping()
        free = {}      # (size, dtype) -> [scratch index]
        in_use = {}    # vid -> scratch index
        for i, (kind, items, *rest) in enumerate(regions):
            if kind == "call" and items[0].fn == "_check":
                ins = items[0]
                alias_lines(reads(ins))
                cond, make_error, extra = ins.args
                be = f"be_{ins.device}"
                arrays = "".join(f"_view({be}, {self.expr(e)}), " for e in extra)
                L.append(f"    if _flag({be}, {self.expr(cond)}):  # {ins.name}")
                L.append(f"        raise {self.const(make_error)}({arrays})")
            elif kind == "call":
                ins = items[0]
                alias_lines(reads(ins))
                args = ", ".join(self.expr(a) for a in ins.args)
                kw = "".join(f", {k}={self.expr(v)}" for k, v in ins.kwargs.items())
                if kw and not args:
                    kw = kw[2:]
                target = self._unpack(ins.outs)
                L.append(f"    {target}be_{ins.device}.{ins.fn}({args}{kw})  # {ins.name}")
            else:
                alias_lines([r for x in items for r in reads(x.instr)])
                self._fused(items, rest[0], i, last_use, esc, free, in_use)
            # buffers of the plan whose last reader has run are free again
            for vid, s in list(in_use.items()):
                if last_use.get(vid, -1) <= i and vid not in esc:
                    free.setdefault((p.values[vid].size, p.values[vid].dtype.str), []).append(s)
                    del in_use[vid]
        outs = sorted(v for v in p.live_out)
        for vid in outs:
            if p.values[vid].kind == "alias":
                alias_lines([vid])
        L.append("    return {" + ", ".join(f"{vid}: v{vid}" for vid in outs) + "}")
        header = [
            f"# Generated by nbgrad.compile for {p.title}",
            "import numpy as np",
            "from numba import njit",
            "from nbgrad.backends.cpu.elementwise import _UNARY_FNS as _U, _BINARY_FNS as _B, _wide_vectors",
            "from nbgrad.backends.cpu._threads import run_split as _run_split, worth_splitting as _worth_splitting",
            "from nbgrad.backends.cpu._threads import run_native as _run_native, worth_native as _worth_native",
            "from nbgrad.backends.cpu._threads import run_native_partials as _run_native_partials",
            "from numba import carray, cfunc",
            "from numba.extending import register_jitable",
            "from nbgrad.backends._shared.native import SIGNATURE as _SIGNATURE, address_as",
            "",
            "# flat regions with a native entry point (its C function made on the first split): kernel ->",
            "# [entry point, input kinds, input count, dtypes of its arrays, address, ends in a sum]",
            "_NATIVE = {}",
            "",
            "",
            "def _native_split(native, n, args):",
            "    # the region's pieces taken by the team's workers (nbgrad/backends/cpu/_threads.py):",
            "    # (True, its sum or None), or (False, None) when its arrays are not the ones its entry",
            "    # point reads, or the team is busy.  A sum's pieces each write their float64 partial",
            "    # (_run_native_partials); they are added here in order.",
            "    entry, kinds, count, dtypes, address, sums = native",
            "    arrays = args[0:2 * count:2] + args[2 * count:]",
            "    offsets = args[1:2 * count:2] + (0,) * (len(args) - 2 * count)",
            "    if tuple(a.dtype for a in arrays) != dtypes:",
            "        return False, None",
            "    for k, kind in enumerate(kinds):",
            "        if not (0 <= offsets[k] and offsets[k] + (n if kind == 'c' else 1) <= arrays[k].size):",
            "            return False, None",
            "    if any(a.size < n for a in arrays[count:]):",
            "        return False, None",
            "    if address is None:",
            "        address = native[4] = cfunc(_SIGNATURE, cache=True, error_model='numpy')(entry).address",
            "    if not sums:",
            "        return _run_native(address, n, arrays, offsets), None",
            "    partial = _run_native_partials(address, n, arrays, offsets)",
            "    if partial is None:",
            "        return False, None",
            "    total = 0.0",
            "    for value in partial:",
            "        total += value",
            "    return True, total",
            "",
            "",
            "def _view(be, view):",
            "    return be.to_numpy(view) if hasattr(be, 'to_numpy') and isinstance(view[0], np.ndarray) "
            "else be.to_host(view)",
            "",
            "",
            "def _flag(be, view):",
            "    # a check's condition (one element): read in place from a host buffer",
            "    buf, off, shape = view[0], view[1], view[2]",
            "    if isinstance(buf, np.ndarray) and all(d == 1 for d in shape):",
            "        return bool(buf[off])",
            "    return bool(_view(be, view).reshape(-1)[0])",
            "",
            "",
            "def _run(kernel, n, heavy, *args):",
            "    # a flat region over n elements: split across the team's workers (a region with a",
            "    # native entry point) or nbgrad's thread pool when it pays; a region ending in a sum",
            "    # returns it (the pieces' float64 sums added in order)",
            "    native = _NATIVE.get(kernel)",
            "    if native is not None and _worth_native(n, heavy):",
            "        done, total = _native_split(native, n, args)",
            "        if done:",
            "            return total",
            "    if _worth_splitting(n, heavy):",
            "        parts = {}",
            "        def piece(a, b):",
            "            parts[a] = kernel(a, b, *args)",
            "        _run_split(piece, n)",
            "        return None if parts.get(0) is None else sum(parts[k] for k in sorted(parts))",
            "    return kernel(0, n, *args)",
            "",
            "",
            "def _total(dtype, value):",
            "    out = np.empty(1, dtype)",
            "    out[0] = value",
            "    return out",
            "",
            "",
            "def _alias(base, off, dtype, shape, strides):",
            "    if isinstance(base, np.ndarray):",
            "        return np.ndarray(shape, dtype, buffer=base, offset=off, strides=strides)",
            "    start = off // dtype.itemsize   # a device buffer: a 1-D slice (checked at capture)",
            "    return base[start:start + shape[0]]",
            "",
        ]
        if self.cuda:
            header += ["from numba import cuda",
                       "from nbgrad.backends.cuda import elementwise as _cuew",
                       "from nbgrad.backends.cuda._device import (jit as _cu_jit, device_fn as _cu_device_fn,",
                       "                                          device_array as _cu_empty, launch as _cu_launch)"]
        for dev, table, name in sorted(self._used_fns):
            if dev == "cpu":
                header.append(f"_{table.lower()}_{name} = _{table}[{name!r}]")
            else:
                header.append(f"_cu_{table.lower()}_{name} = _cu_device_fn(_cuew._{'UNARY' if table == 'U' else 'BINARY'}"
                              f"_FNS[{name!r}])")
        for dev, op in sorted(self._used_elementwise):
            if dev == "cpu":
                header.append(f"from nbgrad.backends.cpu.elementwise import _{op} as _e_{op}")
            else:
                header.append(f"_cu_e_{op} = _cu_device_fn(_cuew._UNARY_FNS.get({op!r}) or "
                              f"_cuew._BINARY_FNS.get({op!r}) or _cuew._TERNARY_FNS[{op!r}])")
        return "\n".join(header + [""] + self.kernels + [""] + L) + "\n", self.consts, self.scratch

    def _unpack(self, outs):
        if outs is None:
            return ""
        if isinstance(outs, Ref):
            return f"v{outs.vid} = "
        if type(outs) in (tuple, list):
            names = []
            for o in outs:
                names.append(f"v{o.vid}" if isinstance(o, Ref) else "_")
            if not names:
                return ""
            return "(" + "".join(n + ", " for n in names) + ") = "
        return "_ = "

    def _fused(self, items, shape, region, last_use, esc, free, in_use):
        p = self.p
        self.fused += 1
        produced = {}
        inputs = []             # (vid, offset, kind, strides)
        input_index = {}
        body = []
        outputs = []            # vids written by the kernel
        region_vids = {o for x in items for o in x.outs}
        inplace = {x.inplace for x in items if x.inplace is not None}
        fresh, seen = set(), set()  # buffers this region makes (the others it writes exist already)
        for x in items:
            for o in x.outs:
                if o not in seen and o != x.inplace:
                    fresh.add(o)
                seen.add(o)
        later = {r for r, last in last_use.items() if last > region}
        reduced = None
        loads, hoists = {}, {}
        flat_region = all(x.flat for x in items) and len(shape) == 1
        for x in items:
            args = []
            for view, kind in zip(x.views, x.kinds):
                vid, off, vshape, vstrides = view[0].vid, view[1], view[2], view[3]
                if vid in produced and kind == "c" and off == 0:
                    args.append(produced[vid])
                    continue
                key = (vid, off, kind, tuple(vstrides))
                k = input_index.get(key)
                if k is None:
                    k = input_index[key] = len(inputs)
                    inputs.append(key)
                # each input read once per element (contiguous) or once per call (a broadcast
                # scalar): small generated code, and Numba types each read once
                if kind == "c":
                    loads.setdefault(k, f"l{k} = B{k}[f]")
                    args.append(f"l{k}")
                elif kind == "s":
                    hoists.setdefault(k, f"s{k} = b{k}[o{k}]")
                    args.append(f"s{k}")
                else:
                    terms = [(d, s) for d, s in enumerate(vstrides) if s and vshape[d] != 1]
                    idx = " + ".join(f"i{d} * {s}" for d, s in terms) or "0"
                    if not flat_region and all(s > 0 for _, s in terms):
                        # from the slice at its offset: an index known non-negative lets LLVM
                        # drop Numba's wraparound select and vectorise the loop (W4's bias +
                        # relu region, (128, 256) float32 with the bias read by column:
                        # 19.5 -> 3.7 us here)
                        args.append(f"B{k}[{idx}]")
                    else:
                        # (from the buffer itself: a flip's negative strides index below the offset)
                        args.append(f"b{k}[o{k} + {idx}]")
            names = []
            for j, vid in enumerate(x.outs):
                name = f"t{vid}"
                names.append(name)
                produced[vid] = name
            T = _np_name(x.dtype)
            if x.reduction:
                reduced = (x.outs[0], x.dtype)
                body.append(f"acc += np.float64({args[0]})")
                continue
            if x.op == "fused":
                prelude, texts = self._program(x, args, T, region)
                body += prelude
            else:
                texts = self._scalar(x, args, T)
            for name, text in zip(names, texts):
                body.append(f"{name} = {text}")
        for vid in sorted(region_vids):
            if reduced is not None and vid == reduced[0]:
                continue
            if vid in later or vid in esc or vid in p.live_out or vid in inplace:
                outputs.append(vid)
        kname = f"_region{region}"
        body = list(loads.values()) + body
        if items[0].device == "cuda":
            # B{k}[i] is input k's element i past its offset
            body = [re.sub(r"\bB(\d+)\[", lambda m: f"b{m.group(1)}[o{m.group(1)} + ", line) for line in body]
            return self._cuda_region(items, shape, kname, inputs, outputs, fresh, list(hoists.values()) + body)
        # the inputs as slices from their offsets (and, split, from the piece's start): indices
        # known non-negative let LLVM drop Numba's wraparound checks (2x on W1's region)
        used = sorted({int(m) for line in body for m in re.findall(r"\bB(\d+)\[", line)})
        if flat_region:
            views = [f"B{k} = b{k}[o{k} + start:o{k} + stop]" for k in used]
            views += [f"R{vid} = r{vid}[start:stop]" for vid in outputs]
        else:
            views = [f"B{k} = b{k}[o{k}:]" for k in used]
        params = [f"b{k}, o{k}" for k in range(len(inputs))] + [f"r{vid}" for vid in outputs]
        if flat_region:     # one loop over a range: large regions split across the thread pool
            params = ["start", "stop"] + params
        # a flat region also gets a native entry point: its body on elements [lo, hi), for the
        # team's workers (_threads.run_native; a sum's partial into its slot)
        native = bool(flat_region and shape and all(key[2] in ("c", "s") for key in inputs))
        if native:
            src = ['@register_jitable(error_model="numpy")', f"def {kname}_body({', '.join(params)}):"]
        else:
            src = ['@njit(cache=True, nogil=True, error_model="numpy")', f"def {kname}({', '.join(params)}):"]
        indent = "    "
        if any(_WIDE_CALL.search(line) for line in body):
            src.append("    _wide_vectors()     # the polynomial transcendentals in the CPU's widest vectors")
        elif len(body) >= _WIDE_OPS_PER_ELEMENT * (len(loads) + len(outputs) + 1):
            # compute-bound arithmetic: half the vector instructions, and on Intel half the
            # microcode assists where values pass through denormals (W5's 1000-op chain and
            # its backward on 16 float32 elements: 57 -> 36 us in the region)
            src.append("    _wide_vectors()     # many operations per element moved: the CPU's widest vectors")
        if reduced is not None:
            src.append("    acc = 0.0")
        src += ["    " + h for h in hoists.values()]
        src += ["    " + v for v in views]
        if flat_region and reduced is not None:
            # A float64 sum added element after element keeps the whole loop scalar (no
            # reassociation allowed): blocks of _LANES elements add into _LANES partial sums
            # instead, a loop LLVM vectorises with the rest of the body (W1's step returning
            # its loss, 1M float32: 6.2 -> 2.4 ms, eager 2.8); acc is the lanes added in order,
            # then the tail's elements.
            lane_body = [re.sub(r"^acc \+= ", "lanes[j] += ", line) for line in body]
            src += [f"    lanes = np.zeros({_LANES})",
                    f"    whole = (stop - start) // {_LANES} * {_LANES}",
                    f"    for f0 in range(0, whole, {_LANES}):",
                    f"        for j in range({_LANES}):",
                    "            f = f0 + j"]
            src += ["            " + line for line in lane_body]
            src += [f"            R{vid}[f] = t{vid}" for vid in outputs]
            src += [f"    for j in range({_LANES}):", "        acc += lanes[j]"]
            src.append(f"{indent}for f in range(whole, stop - start):")
            indent += "    "
        elif flat_region:
            src.append(f"{indent}for f in range(stop - start):")
            indent += "    "
        else:
            for d, n in enumerate(shape):
                src.append(f"{indent}for i{d} in range({n}):")
                indent += "    "
            flat = " + ".join(f"i{d} * {s}" for d, s in enumerate(_row_major(shape)) if shape[d] != 1) or "0"
            src.append(f"{indent}f = {flat}")
        src += [indent + line for line in body]
        out = "R" if flat_region else "r"
        src += [f"{indent}{out}{vid}[f] = t{vid}" for vid in outputs]
        if not shape:
            src = (src[:2] + ["    " + h for h in hoists.values()] + ["    " + v for v in views] + ["    f = 0"]
                   + ["    " + line for line in body] + [f"    r{vid}[f] = t{vid}" for vid in outputs])
            flat_region = False
        if reduced is not None:
            src.append("    return acc")
        if native:
            src += self._native_entry(kname, inputs, outputs, reduced is not None)
        self.kernels.append("\n".join(src) + "\n\n")
        numel = int(np.prod(shape)) if shape else 1
        for vid in outputs:
            v = p.values[vid]
            if vid not in fresh:
                continue
            if vid in esc:
                self.lines.append(f"    v{vid} = np.empty({numel}, {self.const(v.dtype)})")
            else:
                key = (v.size, v.dtype.str)
                pool = free.get(key)
                if pool:
                    s = pool.pop()
                else:
                    s = len(self.scratch)
                    self.scratch.append((v.size, v.dtype))
                in_use[vid] = s
                self.lines.append(f"    v{vid} = S[{s}]")
        call = ", ".join([f"v{vid}, {off}" for vid, off, _, _ in inputs] + [f"v{vid}" for vid in outputs])
        names = ", ".join(x.instr.name for x in items[:3]) + (", ..." if len(items) > 3 else "")
        target = "" if reduced is None else f"v{reduced[0]} = _total({self.const(reduced[1])}, "
        close = "" if reduced is None else ")"
        if flat_region:
            heavy = any(x.op not in _CHEAP for x in items)
            self.lines.append(f"    {target}_run({kname}, {numel}, {heavy}, {call}){close}  # fused: {names}")
        else:
            self.lines.append(f"    {target}{kname}({call}){close}  # fused: {names}")

    def _native_entry(self, kname, inputs, outputs, sums):
        """Source lines after a flat region's body: its kernel, and its native entry point (the
        body on [lo, hi) from the addresses in the argument block: each input at its offset,
        each output; for a sum, the partials' array and the chunk whose multiple lo is)."""
        p = self.p
        count = len(inputs)
        dtypes = [p.values[key[0]].dtype for key in inputs] + [p.values[vid].dtype for vid in outputs]
        kinds = tuple(key[2] for key in inputs)
        size = count + len(outputs) + (2 if sums else 0)
        lines = ["", "", f'{kname} = njit(cache=True, nogil=True, error_model="numpy")({kname}_body)', "", "",
                 f"def {kname}_native(args, lo, hi):",
                 f"    block = carray(address_as(args, np.int64), {size})"]
        lines += [f"    b{k} = carray(address_as(block[{k}], {_np_name(dtypes[k])}), {'hi' if kinds[k] == 'c' else 1})"
                  for k in range(count)]
        lines += [f"    r{vid} = carray(address_as(block[{count + j}], {_np_name(dtypes[count + j])}), hi)"
                  for j, vid in enumerate(outputs)]
        args = [f"b{k}, 0" for k in range(count)] + [f"r{vid}" for vid in outputs]
        call = f"{kname}_body(lo, hi, {', '.join(args)})"
        if sums:
            at = count + len(outputs)
            lines += [f"    chunk = carray(address_as(block[{at + 1}], np.int64), 1)[0]",
                      f"    partial = carray(address_as(block[{at}], np.float64), lo // chunk + 1)",
                      f"    partial[lo // chunk] = {call}"]
        else:
            lines.append(f"    {call}")
        lines += ["", "", f"_NATIVE[{kname}] = [{kname}_native, {kinds!r}, {count}, "
                          f"({''.join(f'np.dtype({_np_name(d)}), ' for d in dtypes)}), None, {sums}]"]
        return lines

    def _cuda_region(self, items, shape, kname, inputs, outputs, fresh, body):
        """A region of CUDA calls: one grid-stride `cuda.jit` kernel (nbgrad's CUDA jit: its
        cache rule), the scalar functions the CUDA backend's device twins, the buffers new
        device arrays each call (no plan: the allocator is the GPU issue's)."""
        self.cuda = True
        numel = int(np.prod(shape)) if shape else 1
        params = ["n"] + [f"b{k}, o{k}" for k in range(len(inputs))] + [f"r{vid}" for vid in outputs]
        src = [f"def {kname}_kernel({', '.join(params)}):",
               "    for f in range(cuda.grid(1), n, cuda.gridsize(1)):"]
        if not all(x.flat for x in items):
            # strided operands: the element's index in each dim, from its row-major position
            src.append("        rest = f")
            for d, stride in enumerate(_row_major(shape)):
                src.append(f"        i{d} = rest // {stride}")
                src.append(f"        rest -= i{d} * {stride}")
        src += ["        " + line for line in body]
        src += [f"        r{vid}[f] = t{vid}" for vid in outputs]
        src.append(f"{kname} = _cu_jit({kname}_kernel)")
        self.kernels.append("\n".join(src) + "\n\n")
        for vid in outputs:
            if vid in fresh:
                self.lines.append(f"    v{vid} = _cu_empty({numel}, {self.const(self.p.values[vid].dtype)})")
        call = ", ".join([f"v{vid}, {off}" for vid, off, _, _ in inputs] + [f"v{vid}" for vid in outputs])
        names = ", ".join(x.instr.name for x in items[:3]) + (", ..." if len(items) > 3 else "")
        self.lines.append(f"    _bl, _th = _cu_launch({numel})")
        self.lines.append(f"    {kname}[_bl, _th]({numel}, {call})  # fused on the GPU: {names}")

    def _program(self, x, args, T, region):
        """(lines, output expressions) of a fused_elementwise program inside a region: the
        same text backends/cpu/fused.py generates, its names made unique, its loads ours."""
        from ..backends.cpu import fused as F
        program = x.program
        used = sorted({ins[0] for ins in program if ins[0] not in F.EXPRESSIONS or ins[0] in F._CPU_FUNCTIONS}
                      - {"input", "const"})
        functions = {op: f"{_pre(x)}_e_{op}" for op in used}
        self._used_elementwise.update((x.device, op) for op in used)
        hoisted, loop, outs = F.body(program, x.prog_outputs, x.prog_kinds, functions, load="@IN{k}@", cast=T)
        uid = f"q{region}_{x.instr.index}_"
        lines = []
        for line in hoisted + loop:
            line = re.sub(r"\bb(\d+)\[o\1\]", lambda m: f"@IN{m.group(1)}@", line)
            line = re.sub(r"\bv(\d+)\b", lambda m: uid + m.group(1), line)
            line = re.sub(r"\b_Z\b", f"{T}(0.0)", line)
            line = re.sub(r"\b_O\b", f"{T}(1.0)", line)
            line = re.sub(r"@IN(\d+)@", lambda m: args[int(m.group(1))], line)
            lines.append(line)
        return lines, [re.sub(r"\bv(\d+)\b", lambda m: uid + m.group(1), o) for o in outs]

    def _scalar(self, x, args, T):
        op = x.op
        if op == "copy":
            return [f"{T}({args[0]})"]
        if x.instr.fn == "mul_backward":        # (float32 * float32 is float32 in Numba: no cast)
            g, a, b = args
            need = [o is not None for o in x.instr.outs]
            texts = []
            if need[0]:
                texts.append(f"({g} * {b})")
            if need[1]:
                texts.append(f"({g} * {a})")
            return texts
        if x.instr.fn == "where":
            return [f"({args[1]} if {args[0]} else {args[2]})"]
        if x.instr.fn == "binary_scaled":
            # the backend's: one fused multiply-add in the dtype, alpha rounded to it
            alpha = float(x.instr.args[3])
            value = alpha if op == "add" else -alpha
            self._used_elementwise.add((x.device, "fma"))
            return [f"{_pre(x)}_e_fma({T}({args[1]}), {T}({value!r}), {T}({args[0]}))"]
        if x.instr.fn == "unary":
            form = _INLINE_UNARY.get(op)
            if form is not None:
                return [f"{T}({form.format(*args)})"]
            self._used_fns.add((x.device, "U", op))
            return [f"{T}({_pre(x)}_u_{op}({args[0]}))"]
        form = _INLINE_BINARY.get(op)
        if form is not None:
            same = x.dtype == x.in_dtype or x.dtype == _BOOL
            return [form.format(*args) if same else f"{T}({form.format(*args)})"]
        self._used_fns.add((x.device, "B", op))
        return [f"{T}({_pre(x)}_b_{op}({args[0]}, {args[1]}))"]


def _pre(x):
    """The prefix of a region member's scalar function names: the CUDA twins are `_cu_...`."""
    return "_cu" if x.device == "cuda" else ""


# a region calling elementwise.py's polynomial transcendentals (elementwise._WIDE_VECTOR_FNS)
_WIDE_CALL = re.compile(r"\b_[ue]_(?:exp|log|tanh|sigmoid)\(")
_WIDE_OPS_PER_ELEMENT = 16     # operations per element read or written that make a region compute-bound
_LANES = 16         # the partial sums of a flat region's sum (a 512-bit vector of float32)


def _np_name(dtype):
    return "np." + ("bool_" if np.dtype(dtype) == _BOOL else np.dtype(dtype).name)


# -- the module on disk ---------------------------------------------------------
_lock = threading.Lock()


def _kernel_sources_hash():
    """A digest of the backend sources generated code calls into: the CPU's scalar functions
    and the shared helpers (fused.py's digest), and the CUDA backend's scalar twins (whose
    kernels the on-disk CUDA cache may keep): an edit gives a new module, never stale code."""
    import pathlib
    from ..backends.cpu.fused import _helpers_hash
    cuda_scalars = pathlib.Path(__file__).resolve().parents[1] / "backends" / "cuda" / "elementwise.py"
    extra = hashlib.sha1(cuda_scalars.read_bytes()).hexdigest()[:12] if cuda_scalars.exists() else ""
    return _helpers_hash() + extra


def load(source, title):
    from .._cachedir import generated_dir
    digest = hashlib.sha1((source + _kernel_sources_hash()).encode()).hexdigest()[:20]
    name = f"nbgrad_compiled_{digest}"
    module = sys.modules.get(name)
    if module is not None:
        return module, False
    directory = generated_dir("compiled")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    with _lock:
        fresh = not path.exists()
        if fresh or path.read_text() != source:
            tmp = directory / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
            tmp.write_text(source)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module, fresh
