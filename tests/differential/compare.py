"""Comparing two records of one program: the first statement where they differ, and how.

Tolerance: float64 programs at rtol 1e-6; a program that holds any float32 value is
compared at float32 tolerance (rtol 1e-4).  Discrete facts (a comparison, a rounding,
a max/argmax index, which side of a kink a gradient takes) may flip when their
inputs differ within that tolerance: before counting a difference, the comparer
checks the inputs of every decision statement up to it, and a program whose decision
had inputs that differ (not bitwise equal) close to the decision boundary is called
*inconclusive* from there on, not different.

Departures from PyTorch decided on purpose are in `IGNORED` (each with its reason);
the comparer ignores exactly those facts.
"""
import math

import numpy as np

# The facts compared, from the worst kind of difference to the mildest.
CLASSES = ("tester", "crash", "exception", "grad_values", "values", "grad_presence", "dtype", "shape", "requires_grad",
           "is_leaf", "grad_fn", "result", "layout", "offset", "version", "alias", "grad_meta")

# Facts deliberately not compared, and why (see the closing note of the equivalence issue).
IGNORED = {
    # nbgrad writes backward formulas with its ordinary (forward) ops, so a gradient made with
    # create_graph=True has forward names (MulBackward0) where PyTorch shows its generated
    # double-backward nodes (e.g. SelectBackwardBackward0).  Only the presence of a grad_fn is
    # compared for tensors made by autograd.grad(create_graph=True) / .grad after create_graph.
    "grad_fn_of_create_graph_results",
    # The _version of a .grad tensor counts the in-place steps PyTorch's kernels took to build
    # it (a zeros_ then an add_, ...), nothing a user did; whether accumulation reused the
    # same .grad object (in place) or made a new one is compared ("id").
    "version_of_grad",
    # Likewise the _version of a tensor that autograd.grad returned or that was read from
    # .grad, and of views of its memory: it counts PyTorch's internal in-place steps.
    "version_of_grad_results",
    # Strides of size-1 dimensions: they never change where an element is, and PyTorch's
    # own contiguity checks ignore them; whether PyTorch keeps a narrowed view or a copy
    # as a .grad (strides (2, 1, 1, 1) vs (1, 1, 1, 1) for shape (1, 1, 1, 1)) shows only there.
    "strides_of_size_1_dims",
    # Likewise the strides of a tensor without elements: no element's place depends on them
    # (PyTorch gives gradients of empty inputs 0 strides, nbgrad contiguous ones), nor the
    # offset of an empty view of such a gradient.
    "strides_of_empty_tensors",
    # The .grad fields after a backward that raised: PyTorch leaves the gradients its engine
    # had accumulated before the failing node, in its scheduling order (undocumented); the
    # exception is compared, and a difference in grads at that statement is inconclusive.
    "grads_after_a_failed_backward",
    # Autograd flags (requires_grad, is_leaf, grad_fn) of integer and bool tensors: PyTorch
    # gives an integer tensor written in place from a tensor that requires grad a history
    # (CopySlices, requires_grad=True) that can never carry a gradient; nbgrad keeps
    # integer tensors out of the graph, as PyTorch itself does for every out-of-place op.
    "autograd_flags_of_integer_tensors",
    # PyTorch's own failures: an "INTERNAL ASSERT FAILED ... please report a bug to PyTorch"
    # (a retained-grad tensor unsqueezed in place, then written through a mask) is a bug of
    # PyTorch's, not a behaviour to reproduce.
    "pytorchs_internal_asserts",
    # The values an in-place op writes when one of its operands reads memory it writes
    # through a broadcast (0) stride (`v.atan2_(v.as_strided(.., (1, 0)))`, `v /= v[:, 1]`): PyTorch's
    # overlap check calls that too hard to decide and lets it run, and the result depends
    # on its loop order and vectorisation (later elements read already written ones);
    # nbgrad reads every operand before it writes.  Values from there on are excused, no
    # flag, name or layout is.
    "values_of_inplace_ops_reading_what_they_write",
    # PyTorch's zero tensors: some of its backward formulas (sgn's, for abs under
    # create_graph) return an internal storage-less zero tensor (_efficientzerotensor),
    # which can become a .grad.  It shares memory with nothing, and a later backward that
    # accumulates into it in place raises "ZeroTensors are immutable".  nbgrad's zero
    # gradients are ordinary tensors: that exception and those tensors' memory identity
    # ("alias") are excused, and so is a nan nbgrad's zeros make where arithmetic on a zero
    # tensor short-cuts to zeros (0 / 0 in a division's backward: torch gives 0).
    "zero_tensors",
    # Second-order gradients through prod where its input holds a nan (and zeros): PyTorch
    # differentiates prod's zero-safe backward through cumprod's backward, which spreads
    # the nan to elements whose exact derivative is a finite product of the others (0 when
    # two zeros remain); nbgrad's products of the others give that finite value.  Only a
    # nan in the reference where nbgrad has a number, in a program with prod and
    # create_graph, is excused.
    "nan_spread_by_prods_second_order",
    # Where PyTorch's own loops disagree with each other: its vectorized loop and its scalar
    # loop (the last few elements, or a tensor of one or two) treat a nan differently in
    # hardtanh's and logit(eps)'s backward (the vector compare gives 0, the scalar one lets
    # the nan or the gradient through; logit(eps)'s at -0.0 is -inf or +inf), and float32 gelu of +inf (nan vectorized, inf
    # scalar) and of x < -3 (its vectorized erf loses up to 5e-4 of 1 + erf(x / sqrt 2)
    # there: gelu(-3.27) is -0.0017591 vectorized, -0.0017584 exactly and in its scalar
    # loop, and nbgrad's -0.0017584); float32 x ** number reads the exponent as a float in the vector loop and as a
    # double in the scalar one (a few ulps apart, which a later ill-conditioned op, cos of
    # 5e4, makes visible).  nbgrad gives one answer for every element (the vectorized
    # loop's for the backwards, inf for gelu, the float exponent).  Likewise min, max,
    # amin, amax, minimum and maximum among zeros of both signs: the vector loop keeps the
    # later zero of a tie, the scalar loop the first, so the sign depends on where the CPU's
    # vector width cuts the run; nbgrad keeps the first.  Values from such a
    # statement on are excused; no flag, name or layout is.
    "nan_of_pytorchs_scalar_vs_vector_loops",
    # The values a failed indexed write leaves: PyTorch's index_put_ checks each index as
    # its loop reaches it, so `t[tensor([-1, -2])] = v` on a tensor of one element writes
    # t[-1] before it raises the IndexError for -2; nbgrad checks every index first and
    # writes nothing (the project's rule: a failed in-place op writes nothing).  The
    # exception type is compared; the values at and after that statement are excused.
    "partial_writes_of_a_failed_indexed_write",
    # Exception messages are recorded for the reader; only their type is compared.
    "exception_message",
}

_DECISION_UNARY = {"relu", "relu_", "abs", "abs_", "sign", "floor", "ceil", "round", "trunc", "floor_", "clamp",
                   "clamp_", "long", "bool", "to", "sqrt", "sqrt_", "log", "log_", "reciprocal", "reciprocal_", "rsqrt",
                   "log2", "log10", "log1p", "pow", "pow_", "norm", "std", "var", "nonzero", "all", "any",
                   "masked_fill_", "max", "min", "amax", "amin", "argmax", "argmin", "sort", "topk", "median",
                   # ill-conditioned at integers (asin'(x) is infinite at +-1): a last-bit
                   # difference of the input there moves the result far beyond tolerance
                   "asin", "acos", "atanh"}
_DECISION_BINARY = {"lt", "le", "gt", "ge", "eq", "ne", "maximum", "minimum", "remainder", "floordiv", "mod",
                    "where", "truediv", "div_", "itruediv", "pow", "ipow", "atan2", "atan2_"}


# What a flipped decision can change downstream (a mask's shape, a value, an exception);
# flags, names and layouts do not depend on values, so a taint never excuses them.
_VALUE_DEPENDENT = {"values", "grad_values", "shape", "exception", "result", "grad_presence", "grad_meta"}


def tolerance(ref_obs):
    for rec in ref_obs:
        for f in rec["obs"].values():
            if f.get("dt") == "float32" or (f.get("grad") or {}).get("dt") == "float32":
                return 1e-4
    return 1e-6


def close(a, b, dt, rtol):
    """Values equal (ints, bools) or within rtol (floats; nan == nan, infs exact)."""
    if len(a) != len(b):
        return False
    if dt not in ("float32", "float64", "float16"):
        return a == b
    if not a:
        return True
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    nx, ny = np.isnan(x), np.isnan(y)
    if (nx != ny).any():
        return False
    x, y = x[~nx], y[~ny]
    fx, fy = np.isfinite(x), np.isfinite(y)
    if (fx != fy).any() or (x[~fx] != y[~fy]).any():
        return False
    x, y = x[fx], y[fy]
    scale = max(1.0, float(np.abs(y).max())) if y.size else 1.0
    return bool(np.all(np.abs(x - y) <= rtol * np.maximum(np.abs(y), 0) + rtol * scale))


def bitwise_equal(a, b, dt):
    if len(a) != len(b):
        return False
    if dt not in ("float32", "float64"):
        return a == b
    x = np.asarray(a, dtype=dt)
    y = np.asarray(b, dtype=dt)
    return bool(np.all((x == y) | (np.isnan(x) & np.isnan(y))))


def _near_boundary(vals, rtol):
    """Could a decision on these values flip under a perturbation of relative size rtol?
    Checks closeness to 0, to integers and halves (roundings), and ties between values."""
    x = np.asarray([v for v in vals if isinstance(v, (int, float)) and math.isfinite(v)], dtype=np.float64)
    if x.size == 0:
        return False
    eps = rtol * np.maximum(1.0, np.abs(x)) * 4
    if (np.abs(x) <= eps).any():
        return True
    frac = np.abs(x * 2 - np.round(x * 2))      # integers and halves
    if (frac <= 2 * eps).any():
        return True
    s = np.sort(x)
    if s.size > 1 and (np.diff(s) <= eps[:-1] + 1e-300).any():
        return True
    return False


_RATIO_OPS = {"remainder", "floordiv", "mod", "floor_divide", "fmod"}
_PAIR_OPS = {"lt", "le", "gt", "ge", "eq", "ne", "maximum", "minimum"}


def _operand(x, ref_vals, shapes):
    if isinstance(x, dict) and "v" in x:
        v = x["v"]
        if v not in ref_vals or ref_vals[v] is None:
            return None
        try:
            return np.asarray(ref_vals[v], dtype=np.float64).reshape(shapes[v])
        except (ValueError, TypeError):
            return None
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return np.float64(x)
    return None


def _pair_near_boundary(st, ref_vals, shapes, rtol):
    """Two-operand decisions: a ratio near an integer (remainder, floor division flip there)
    or two operands within tolerance of each other (comparisons, maximum, minimum)."""
    op = st.get("op")
    if op not in _RATIO_OPS and op not in _PAIR_OPS:
        return False
    args = list(st.get("a", []))
    if st["k"] == "meth":
        args = [{"v": st["t"]}] + args
    if len(args) < 2:
        return False
    a, b = _operand(args[0], ref_vals, shapes), _operand(args[1], ref_vals, shapes)
    if a is None or b is None:
        return False
    try:
        with np.errstate(all="ignore"):
            a, b = np.broadcast_arrays(a, b)
            if op in _RATIO_OPS:
                q = a / b
                ok = np.isfinite(q)
                return bool((np.abs(q[ok] - np.round(q[ok])) <= 8 * rtol * np.maximum(1.0, np.abs(q[ok]))).any())
            ok = np.isfinite(a) & np.isfinite(b)
            return bool((np.abs(a[ok] - b[ok]) <= 4 * rtol * np.maximum(1.0, np.abs(b[ok]))).any())
    except ValueError:
        return False


class Difference:
    def __init__(self, stmt, cls, detail, var=None):
        self.stmt, self.cls, self.detail, self.var = stmt, cls, detail, var

    def __repr__(self):
        where = f" v{self.var}" if self.var is not None else ""
        return f"<{self.cls} at statement {self.stmt}{where}: {self.detail}>"

    def as_dict(self):
        return {"stmt": self.stmt, "cls": self.cls, "detail": self.detail, "var": self.var}


def _compare_facts(ref, got, rtol, create_graph_var, grad_made=False):
    """The differing facts of one variable, as [(class, detail)]."""
    out = []
    if "observe_exc" in ref:
        # observing a tensor must work: a failure here is the tester's own bug, never "equal"
        out.append(("tester", f"observing the reference failed: {ref['observe_exc']}"))
        return out
    if "observe_exc" in got:
        out.append(("exception", f"observing nbgrad's tensor raised {got['observe_exc']}"))
        return out
    if ref["dt"] != got["dt"]:
        out.append(("dtype", f"{ref['dt']} vs {got['dt']}"))
    if ref["shape"] != got["shape"]:
        out.append(("shape", f"{ref['shape']} vs {got['shape']}"))
        return out
    if not close(ref["vals"], got["vals"], ref["dt"], rtol):
        out.append(("values", f"{ref['vals'][:8]} vs {got['vals'][:8]}"))
    integral = ref["dt"] not in ("float32", "float64", "float16")
    for key, cls in (("rg", "requires_grad"), ("leaf", "is_leaf")):
        if ref[key] != got[key] and not integral:
            out.append((cls, f"{ref[key]} vs {got[key]}"))
    if ref["gfn"] != got["gfn"] and not integral:
        if not (create_graph_var and (ref["gfn"] is None) == (got["gfn"] is None)):
            out.append(("grad_fn", f"{ref['gfn']} vs {got['gfn']}"))
    if not _same_strides(ref["shape"], ref["stride"], got["stride"]) or ref["contig"] != got["contig"]:
        out.append(("layout", f"strides {ref['stride']} vs {got['stride']}, contiguous {ref['contig']} vs {got['contig']}"))
    if ref["off"] != got["off"] and not (grad_made and 0 in ref["shape"]):
        # (an empty view of a gradient: its offset follows the gradient's strides, see IGNORED)
        out.append(("offset", f"{ref['off']} vs {got['off']}"))
    if ref["ver"] != got["ver"] and not grad_made:
        out.append(("version", f"{ref['ver']} vs {got['ver']}"))
    if ref["alias"] != got["alias"] and not ref.get("zt"):
        out.append(("alias", f"shares memory with v{ref['alias']} vs v{got['alias']}"))
    rg, gg = ref["grad"], got["grad"]
    if (rg is None) != (gg is None):
        out.append(("grad_presence", f"grad {'None' if rg is None else 'set'} vs {'None' if gg is None else 'set'}"))
    elif rg is not None:
        if rg["shape"] != gg["shape"] or rg["dt"] != gg["dt"]:
            out.append(("grad_meta", f"grad {rg['dt']}{rg['shape']} vs {gg['dt']}{gg['shape']}"))
        elif not close(rg["vals"], gg["vals"], rg["dt"], rtol):
            out.append(("grad_values", f"grad {rg['vals'][:8]} vs {gg['vals'][:8]}"))
        else:
            for key in ("id", "stride", "rg"):      # not "ver": see IGNORED
                if key == "stride" and _same_strides(rg["shape"], rg["stride"], gg["stride"]):
                    continue
                if rg[key] != gg[key]:
                    out.append(("grad_meta", f"grad {key} {rg[key]} vs {gg[key]}"))
    return out


def _integer_tensor_joins_graph(rec, v):
    f = rec["obs"].get(str(v))
    return bool(f) and f.get("dt") not in (None, "float32", "float64", "float16") and f.get("rg") is True


def _same_strides(shape, a, b):
    """Equal strides, except in size-1 dimensions and of tensors without elements (see
    IGNORED)."""
    if 0 in shape:
        return len(a) == len(b)
    return len(a) == len(b) and all(x == y or n == 1 for n, x, y in zip(shape, a, b))


def _nan_where_finite(ref_obs, got_obs, diff, swapped=False):
    """A values/grad_values difference where every differing element is a nan in the
    reference and a finite number in nbgrad (swapped: a finite number in the reference and
    a nan in nbgrad) (see IGNORED)."""
    if swapped:
        ref_obs, got_obs = got_obs, ref_obs
    cls, _, v = diff
    if cls not in ("values", "grad_values") or v is None:
        return False
    rf, gf = ref_obs.get(str(v)), got_obs.get(str(v))
    if cls == "grad_values":
        rf, gf = rf and rf.get("grad"), gf and gf.get("grad")
    if not rf or not gf:
        return False
    a, b = np.asarray(rf["vals"], dtype=float), np.asarray(gf["vals"], dtype=float)
    same = (a == b) | (np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=1e-4, atol=0)
    return bool((~same).any() and (np.isnan(a[~same]) & np.isfinite(b[~same])).all())


def _nan_or_negative_zero(x):
    return math.isnan(x) or (x == 0 and math.copysign(1.0, x) < 0)


# logit(eps)'s backward at -0.0: grad / (x * (1 - x)) is -inf in the vector loop, +inf in
# the scalar one (recorded from torch 2.13 on 16 and 1 elements); nbgrad gives -inf; logit
# with eps > 0.5 (its clamp's bounds crossed): hi in the vector loop, lo in the scalar one
# hardshrink/softshrink/relu6 (hardtanh) backwards at NaN: the vector loop's mask gives 0,
# the scalar loop's comparisons the gradient (torch 2.13 on 8 and 1 elements); elu/celu/selu's
# at NaN: NaN or the positive branch's slope, depending on the other values in its vector
# (torch 2.13: 1.0 for [nan] * 8, NaN beside finite values); softshrink of a negative x within
# lambd (-0.0 included): the vector loop's blend gives +0.0, the scalar loop's x * 0 gives -0.0
# (torch 2.13: +0.0 for the first 16 of 20 float32 -0.0s, -0.0 for the last 4); nbgrad -0.0;
# hardswish's backward at NaN: the vector loop's blends give NaN, the scalar loop's
# comparisons (neither x < -3 nor x <= 3) the gradient itself (torch 2.13, float64: 1.0 for
# [nan] * 3, NaN for [nan] * 8; seed 79005446, a last dim of 4 after a sum's expand); nbgrad NaN
_LOOP_DEPENDENT_NAN = {"nn.functional.hardtanh": math.isnan, "hardtanh_": math.isnan,
                       "nn.functional.hardshrink": math.isnan, "nn.functional.softshrink": math.isnan,
                       "nn.functional.relu6": math.isnan, "nn.functional.elu": math.isnan,
                       "nn.functional.celu": math.isnan, "nn.functional.selu": math.isnan,
                       "nn.functional.hardswish": math.isnan,
                       "logit": _nan_or_negative_zero,
                       "logit_": _nan_or_negative_zero, "nn.functional.gelu": lambda x: x == math.inf or x < -3}


# ops whose backward under create_graph makes PyTorch's zero tensors (sgn's derivative)
_ZERO_TENSOR_OPS = frozenset({"abs", "abs_", "sgn", "sign", "sign_"})

_POW_EXACT_EXPONENTS = {2, 3, 0.5, -0.5, -1, -2, 1, 0}     # PyTorch's special-cased exponents


# min/max among zeros of both signs: PyTorch's vector loops keep the later operand of a tie
# (x86's min/max instructions), its scalar loops (std::min, std::max) the first, so which zero
# comes out depends on where the vector width cuts the run (torch 2.13, AVX512, float32
# maximum(+0, -0) over 17 elements: -0.0 for the first 16, +0.0 for the last; min() of
# [0, 0, -0, -0] -0.0) and differs between CPUs; nbgrad keeps the first (the scalar rule)
_SIGNED_ZERO_TIES = frozenset({"max", "min", "amax", "amin", "maximum", "minimum"})


def _loop_dependent_nan(st, ref_vals, dts):
    """A statement whose result PyTorch's vector and scalar loops disagree on (see IGNORED)."""
    if st.get("op") in _SIGNED_ZERO_TIES and st["k"] in ("call", "meth"):
        signs = {math.copysign(1.0, x) for v in _statement_inputs(st) if v in ref_vals
                 for x in _flat(ref_vals[v]) if isinstance(x, float) and x == 0}
        return len(signs) == 2
    if st.get("op") in ("pow", "pow_", "ipow") and st["k"] in ("binop", "meth", "iop"):
        args = ([{"v": st["t"]}] if "t" in st else []) + list(st.get("a") or [])
        base, exponent = (args + [None, None])[:2]
        return (isinstance(base, dict) and dts.get(base.get("v")) == "float32"
                and isinstance(exponent, float) and exponent not in _POW_EXACT_EXPONENTS)
    test = _LOOP_DEPENDENT_NAN.get(st.get("op"))
    if test is None or st["k"] not in ("call", "meth"):
        return False
    args = st.get("a") or []
    if st["op"].startswith("logit"):
        eps = (st.get("kw") or {}).get("eps", args[st["k"] == "call"] if len(args) > (st["k"] == "call") else None)
        if eps is None:
            # without eps the loops agree but at -0.0: the scalar loop's grad * inf at x == 0
            # gives +inf, the vector loop's grad / (x * (1 - x)) -inf (torch 2.13: 1 element
            # +inf, 8 or more -inf; seed 83000569); nbgrad +inf
            test = lambda x: x == 0 and math.copysign(1.0, x) < 0         # noqa: E731
        if isinstance(eps, float) and eps > 0.5:        # lo > hi: the vector loop's clamp (min of
            return True                                 # max) gives hi, the scalar loop lo (seed 32006861)
    v = st["t"] if st["k"] == "meth" else (st["a"][0] or {}).get("v")
    if v not in ref_vals or (st["op"].endswith("gelu") and dts.get(v) != "float32"):
        return False
    if st["op"] == "nn.functional.softshrink":
        lambd = (st.get("kw") or {}).get("lambd", args[1] if len(args) > 1 else 0.5)
        test = lambda x: math.isnan(x) or (math.copysign(1.0, x) < 0 and x >= -lambd)     # noqa: E731
    return any(isinstance(x, float) and test(x) for x in _flat(ref_vals[v]))


def _flat(vals):
    for x in vals:
        if isinstance(x, list):
            yield from _flat(x)
        else:
            yield x


def _reads_what_it_writes(st, last):
    """An in-place statement with an operand that shares the written tensor's memory in
    another geometry, where one of the two has a 0 stride (see IGNORED)."""
    k = st["k"]
    if not (k in ("iop", "setitem") or (k == "meth" and st["op"].endswith("_"))) or st.get("t") not in last:
        return False
    t = last[st["t"]]

    def broadcast(f):
        return any(s == 0 and n > 1 for n, s in zip(f["shape"], f["stride"]))
    for v in _statement_inputs(st):
        a = last.get(v)
        if a is None or v == st["t"] or a.get("alias") is None or a.get("alias") != t.get("alias"):
            continue
        same_geometry = (a["shape"], a["stride"], a["off"]) == (t["shape"], t["stride"], t["off"])
        # (an operand of another shape is broadcast by the op itself)
        if not same_geometry and (broadcast(a) or broadcast(t) or a["shape"] != t["shape"]):
            return True
    return False


def _statement_inputs(st):
    """The variables a statement reads."""
    found = []

    def walk(x):
        if isinstance(x, dict):
            if "v" in x:
                found.append(x["v"])
            for v in x.values():
                if isinstance(v, (list, dict)):
                    walk(v)
        elif isinstance(x, list):
            for y in x:
                walk(y)
    if "t" in st:
        found.append(st["t"])
    walk(st.get("a", []))
    walk(st.get("kw", {}))
    return found


def _decision(st):
    op = st.get("op")
    return op in _DECISION_UNARY or op in _DECISION_BINARY or st["k"] in ("getitem", "setitem")


def _gradient_vars(program, ref_obs):
    """Variables that are gradients: those autograd.grad returned with create_graph (their
    grad_fn names are ignored), those read from .grad, and all that autograd.grad returned
    or .grad gave (their versions are ignored)."""
    made_with_graph, read, returned = set(), set(), set()
    for st, rec in zip(program, ref_obs):
        res = rec.get("res") or []
        if st["k"] == "call" and st["op"] == "autograd.grad" and res and res[0] == "seq":
            made = {r[1] for r in res[1] if r and r[0] == "T"}
            returned |= made
            if st.get("kw", {}).get("create_graph"):
                made_with_graph |= made
        if st["k"] == "attr" and st["op"] == "grad" and res and res[0] == "T":
            read.add(res[1])
        # a view, detach or .data of a gradient shares its version counter: the same fact
        # (empty tensors have no memory for the alias rule to tell it by)
        if st.get("t") in returned | read and (st["k"] == "getitem" or (st["k"], st.get("op")) == ("attr", "data")
                                               or (st["k"] == "meth" and st.get("op") in _SHARING_METHODS)):
            returned |= _result_vars(res)
    return made_with_graph, read, returned | read


# methods whose results share their input's version counter (views, detach)
_SHARING_METHODS = {"detach", "view", "reshape", "t", "transpose", "permute", "squeeze", "unsqueeze", "expand",
                    "narrow", "select", "split", "chunk", "tensor_split", "unbind", "diagonal", "movedim",
                    "flatten", "as_strided", "view_as", "expand_as", "unflatten", "swapaxes", "mT", "T"}


def _result_vars(res):
    if res and res[0] == "T":
        return {res[1]}
    if res and res[0] == "seq":
        return {r[1] for r in res[1] if r and r[0] == "T"}
    return set()


def compare(program, ref_obs, got_obs):
    """The first Difference between two records of `program`, or None.  An inconclusive
    program (a decision flipped within tolerance) returns a Difference of class
    'inconclusive'."""
    rtol = tolerance(ref_obs)
    cg_vars, grads_read, grad_made = _gradient_vars(program, ref_obs)
    grad_memory = set()          # alias representatives of gradients' memory
    any_create_graph = any(st.get("kw", {}).get("create_graph") for st in program)
    ref_vals, got_vals, dts, shapes = {}, {}, {}, {}
    tainted = order_dependent = loop_dependent = None
    last = {}                    # each variable's latest reference facts
    for n, st in enumerate(program):
        if n >= len(got_obs):
            return Difference(n, "crash", "the run stopped here (crash)")
        if n >= len(ref_obs):
            return None
        r, g = ref_obs[n], got_obs[n]
        if r.get("crash") or g.get("crash"):
            if r.get("crash") and g.get("crash"):
                return None
            if r.get("crash"):
                # the reference crashed; the other must raise a clear error instead
                return None if g["exc"] else Difference(n, "exception", "reference crashed; nbgrad raised nothing")
            return Difference(n, "crash", "crashed")
        # the inputs of a decision: equal bits, or far from any boundary?
        if tainted is None and _decision(st):
            inputs = _statement_inputs(st)
            differing = [v for v in inputs if v in ref_vals and v in got_vals
                         and not bitwise_equal(ref_vals[v], got_vals[v], dts[v])]
            for v in differing:
                if dts[v] not in ("float32", "float64") or _near_boundary(got_vals[v], rtol) \
                        or _near_boundary(ref_vals[v], rtol):
                    tainted = n
            if differing and tainted is None and _pair_near_boundary(st, ref_vals, shapes, rtol):
                tainted = n
        if order_dependent is None and r["exc"] is None and _reads_what_it_writes(st, last):
            order_dependent = n
        if loop_dependent is None and _loop_dependent_nan(st, ref_vals, dts):
            loop_dependent = n
        if "t" in st and _integer_tensor_joins_graph(r, st["t"]):
            # see IGNORED["autograd_flags_of_integer_tensors"]: PyTorch's later ops on this
            # tensor raise "Autograd not support dtype"; nbgrad's keep working
            return Difference(n, "departure", "an integer tensor was given a history (PyTorch's "
                                              "fill_/setitem from a tensor that requires grad)")
        diffs = []
        re_, ge_ = r["exc"], g["exc"]
        if re_ is not None and ge_ is None and "ZeroTensors are immutable" in re_[1]:
            return Difference(n, "departure", "PyTorch's zero-tensor .grad is immutable (see IGNORED)")
        if re_ is not None and "INTERNAL ASSERT FAILED" in re_[1]:
            return Difference(n, "departure", "PyTorch failed an internal assert (see IGNORED)")
        if (re_ is None) != (ge_ is None) or (re_ and re_[0] != ge_[0]):
            diffs.append(("exception", f"{re_} vs {ge_}", None))
        elif r["res"] != g["res"]:
            if not _same_result(r["res"], g["res"], rtol):
                diffs.append(("result", f"{r['res']} vs {g['res']}", None))
        for key, rf in r["obs"].items():
            gf = g["obs"].get(key)
            v = int(key)
            if gf is None:
                diffs.append(("result", "variable missing", v))
                continue
            made_by_backward = v in cg_vars or (any_create_graph and rf.get("gfn") is not None
                                                and gf.get("gfn") is not None and v in grads_read)
            if v in grad_made:
                grad_memory |= {("alias", rf.get("alias")), ("vroot", rf.get("vroot"))}
            # (a view of a gradient shares its version counter: the same fact, see IGNORED;
            # empty tensors share no memory, so their view root tells)
            ignore_version = v in grad_made or any(
                rf.get(k) is not None and (k, rf[k]) in grad_memory for k in ("alias", "vroot"))
            for cls, detail in _compare_facts(rf, gf, rtol, made_by_backward, ignore_version):
                diffs.append((cls, detail, v))
            if "vals" in rf:
                ref_vals[v], dts[v], shapes[v] = rf["vals"], rf["dt"], rf["shape"]
            if "vals" in gf:
                got_vals[v] = gf["vals"]
            if "shape" in rf:
                last[v] = rf
        if diffs and re_ is not None and ge_ is not None and (st["k"] == "backward" or st.get("op") == "autograd.grad") \
                and all(d[0] in ("grad_presence", "grad_values", "grad_meta") for d in diffs):
            return Difference(n, "inconclusive", f"grads after a backward that raised: {diffs[0][1]}")
        if diffs and any_create_graph and any(st_.get("op") == "prod" for st_ in program[:n + 1]) \
                and all(_nan_where_finite(r["obs"], g["obs"], d) for d in diffs):
            return Difference(n, "departure", f"prod's second order spreads a nan (see IGNORED): {diffs[0][1]}")
        if diffs and any_create_graph and any(st_.get("op") in _ZERO_TENSOR_OPS for st_ in program[:n + 1]) \
                and all(_nan_where_finite(r["obs"], g["obs"], d, swapped=True) for d in diffs):
            return Difference(n, "departure", f"PyTorch's zero tensor skips a nan (see IGNORED): {diffs[0][1]}")
        if diffs and st["k"] == "setitem" and re_ is not None and ge_ is not None and re_[0] == ge_[0] == "IndexError" \
                and all(d[0] in ("values", "grad_values") for d in diffs):
            return Difference(n, "departure", f"PyTorch wrote part of a failed indexed write (see IGNORED): "
                                              f"{diffs[0][1]}")
        if diffs:
            if order_dependent is not None and all(d[0] in _VALUE_DEPENDENT for d in diffs):
                return Difference(n, "departure", f"in-place op at statement {order_dependent} read memory it "
                                                  f"wrote through a 0 stride; then {diffs[0][0]}: {diffs[0][1]}")
            if loop_dependent is not None and all(d[0] in _VALUE_DEPENDENT for d in diffs):
                return Difference(n, "departure", f"PyTorch's vector and scalar loops disagree at statement "
                                                  f"{loop_dependent} (see IGNORED); then {diffs[0][0]}: {diffs[0][1]}")
            if tainted is not None and all(d[0] in _VALUE_DEPENDENT for d in diffs):
                return Difference(n, "inconclusive", f"decision at statement {tainted} had inputs that differ "
                                                     f"within tolerance; then {diffs[0][0]}: {diffs[0][1]}")
            diffs.sort(key=lambda d: CLASSES.index(d[0]))
            cls, detail, v = diffs[0]
            return Difference(n, cls, detail, v)
    return None


def _same_result(a, b, rtol):
    if a == b:
        return True
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 2 and a[0] == b[0] == "n":
        return close([a[1]], [b[1]], "float64", rtol)
    if isinstance(a, list) and isinstance(b, list) and a and b and a[0] == b[0] == "seq" and len(a[1]) == len(b[1]):
        return all(_same_result(x, y, rtol) for x, y in zip(a[1], b[1]))
    return False
