"""The public API called with odd arguments, in nbgrad and in PyTorch side by side.

    python -m tests.differential.api_fuzz --calls 3000 --seed 1 [--jobs 2] [--only NAME,...]
    ... --save-calls calls.jsonl      then, on another tree:  ... --replay calls.jsonl

Where the differential tester (tests/differential) runs well-formed programs, this one
aims at the edges a user reaches by mistake or by curiosity: empty and 0-dim tensors,
transposed, expanded and strided ones, integer and bool dtypes, negative and out-of-range
dims, None, NaN and infinity, wrong types.  Each call picks a public function or Tensor
method that both libraries have (nbgrad's signature says how many arguments to pass and
names the keywords), builds the same arguments in both, and compares what happened:

  crash        nbgrad's process died (a signal): the worst outcome after a wrong value
  hang         no answer within the time limit
  internal     nbgrad raised an exception type PyTorch never raises for bad input
               (AttributeError, KeyError, ZeroDivisionError, a Numba typing error, ...)
  values       both returned, with different values, shapes, dtypes or flags
  grads        both returned, and backward() gave different gradients
  inputs       the arguments differ after the call (in-place semantics, or a failed
               in-place call that wrote something)
  exc type     both raised, different exception types
  refuses      PyTorch returned, nbgrad raised (missing support, usually)
  accepts      PyTorch raised, nbgrad returned (missing validation, usually)

A worker process runs the calls, so that a crash is an observation.  Needs PyTorch
(`pip install torch==2.13.0`); a development tool, not part of the test suite.
"""
import argparse
import collections
import inspect
import json
import math
import os
import random
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# calls that change process state, read files, sleep, or are about the environment
SKIP = {
    "manual_seed", "seed", "initial_seed", "set_num_threads", "set_num_interop_threads", "set_default_dtype",
    "set_default_device", "set_printoptions", "set_flush_denormal", "use_deterministic_algorithms",
    "set_deterministic_debug_mode", "set_grad_enabled", "set_rng_state", "get_rng_state", "save", "load",
    "compile", "from_file", "set_anomaly_enabled", "set_autocast_enabled", "set_warn_always", "vmap",
    "cond", "set_float32_matmul_precision", "from_dlpack", "frombuffer", "share_memory_", "pin_memory",
    "set_", "resize_", "resize_as_", "storage", "untyped_storage", "data_ptr", "numpy", "tolist", "item",
    "register_hook", "register_post_accumulate_grad_hook", "backward", "apply_", "map_", "map2_",
    "new_empty", "new_empty_strided", "empty", "empty_like", "empty_strided", "to_dense", "cuda", "cpu",
    "is_pinned", "is_shared", "element_size", "get_device", "type", "dim_order", "module_load",
    "__repr__", "__str__", "__format__", "__reduce_ex__", "__setstate__", "__deepcopy__", "__dlpack__",
    "__dlpack_device__", "__array__", "__array_wrap__", "__iter__", "__len__", "__hash__", "__contains__",
    "random_", "uniform_", "normal_", "bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_",
    "bernoulli", "multinomial", "normal", "poisson", "rand", "rand_like", "randint", "randint_like",
    "randn", "randn_like", "randperm", "dropout", "dropout_", "alpha_dropout", "feature_alpha_dropout",
    "dropout1d", "dropout2d", "dropout3d", "rrelu", "rrelu_", "gumbel_softmax", "fractional_max_pool2d",
    "fractional_max_pool3d", "native_dropout",
    "is_nonzero", "__bool__",      # (raise the same; values are fine, and covered elsewhere)
    "lobpcg", "svd_lowrank", "pca_lowrank",      # random
    "new", "typename", "svd", "eig", "qr",       # uninitialised memory, a name, signs of singular vectors
    "eigh", "eigvals", "eigvalsh", "svdvals", "lu", "lu_factor", "lu_factor_ex", "ldl_factor", "ldl_factor_ex",
    "householder_product", "matrix_exp", "set_autocast_cache_enabled", "set_autocast_dtype",
    "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "set_autocast_cpu_enabled", "set_autocast_gpu_enabled",
    "adaptive_max_pool1d", "adaptive_avg_pool1d",      # (huge sizes: PyTorch itself runs for minutes)
    "stft", "istft",                 # complex
}
OK_EXCEPTIONS = ("RuntimeError", "TypeError", "IndexError", "ValueError", "NotImplementedError",
                 "OverflowError", "UserWarning")


def _targets():
    """(kind, name) of every public callable both libraries have, and its nbgrad signature."""
    import torch
    import nbgrad
    import nbgrad.nn.functional as NF
    import torch.nn.functional as TF
    out = []
    for kind, nb_ns, th_ns in (("torch", nbgrad, torch), ("F", NF, TF), ("Tensor", nbgrad.Tensor, torch.Tensor),
                               ("linalg", nbgrad.linalg, torch.linalg), ("special", nbgrad.special, torch.special)):
        for name in sorted(dir(nb_ns)):
            if name in SKIP or (name.startswith("_") and not (kind == "Tensor" and name.startswith("__")
                                                              and name.endswith("__"))):
                continue
            if kind == "Tensor" and name.startswith("__") and name not in _DUNDERS:
                continue
            try:
                nb, th = getattr(nb_ns, name), getattr(th_ns, name, None)
            except Exception:
                continue
            if th is None or not callable(nb) or isinstance(nb, type) or not callable(th):
                continue
            if kind != "Tensor" and inspect.ismodule(nb):
                continue
            out.append((kind, name))
    return out


_DUNDERS = {"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
            "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
            "__rmatmul__", "__and__", "__or__", "__xor__", "__lshift__", "__rshift__", "__neg__", "__pos__",
            "__abs__", "__invert__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__getitem__",
            "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__", "__float__",
            "__int__", "__index__"}


# -- arguments --------------------------------------------------------------------------------
DTYPES = ("float32", "float64", "int64", "bool", "float16", "int32", "uint8", "bfloat16")
SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 1), (1, 3), (2, 0), (0, 3), (2, 3, 4), (2, 1, 3), (1, 1, 1),
          (3, 3), (2, 2, 2, 2), (1, 2, 3, 4), (2, 3, 5)]
INTS = (-3, -2, -1, 0, 1, 2, 3, 4, 5, 2 ** 31, -(2 ** 40))
FLOATS = (0.5, -1.5, 0.0, -0.0, 2.0, float("nan"), float("inf"), float("-inf"), 1e-30, 1e30)
STRINGS = ("sum", "mean", "none", "floor", "trunc", "linear", "constant", "reflect", "fro", "nuc", "ij", "xy",
           "bilinear", "nearest", "reduced", "complete", "")


def random_arg(rng, depth=0):
    r = rng.random()
    if r < 0.5:
        return random_tensor(rng)
    if r < 0.65:
        return ["i", rng.choice(INTS)]
    if r < 0.75:
        return ["f", rng.choice(FLOATS)]
    if r < 0.8:
        return ["n"]
    if r < 0.84:
        return ["b", rng.random() < 0.5]
    if r < 0.9:
        return ["tup", [rng.choice(INTS[:9]) for _ in range(rng.randint(0, 3))]]
    if r < 0.94:
        return ["s", rng.choice(STRINGS)]
    if r < 0.97:
        return ["dt", rng.choice(DTYPES)]
    if depth == 0:
        return ["list", [random_tensor(rng) for _ in range(rng.randint(0, 3))]]
    return ["n"]


_BOOL_PARAMS = ("keepdim", "descending", "unbiased", "stable", "largest", "sorted", "inplace", "training",
                "return_inverse", "return_counts", "upper", "left", "ceil_mode", "count_include_pad", "align_corners",
                "return_indices", "right", "hermitian", "full_matrices", "some", "pivot", "transpose", "unitriangular")


def typed_arg(rng, name):
    """An argument of the kind the parameter's name suggests, most of the time (the rest: any)."""
    if rng.random() < 0.2:
        return random_arg(rng)
    if name in _BOOL_PARAMS:
        return ["b", rng.random() < 0.5]
    if name in ("dim", "dim0", "dim1", "axis", "source", "destination", "start_dim", "end_dim", "diagonal",
                "offset", "k", "n", "repeats", "chunks", "sections", "split_size_or_sections", "groups",
                "upscale_factor", "downscale_factor", "num_classes", "output_size", "kernel_size", "stride",
                "padding", "dilation", "size", "shifts", "dims", "ord", "p"):
        if rng.random() < 0.3 and name in ("dim", "dims", "shifts", "size", "kernel_size", "output_size", "padding",
                                           "stride", "source", "destination"):
            return ["tup", [rng.choice(INTS[:9]) for _ in range(rng.randint(1, 3))]]
        return ["i", rng.choice(INTS[:9])]
    if name in ("alpha", "beta", "value", "eps", "lambd", "min", "max", "threshold", "negative_slope", "margin",
                "momentum", "scale", "correction", "q", "weight_decay", "lr", "exponent", "rtol", "atol", "tol"):
        return ["f", rng.choice(FLOATS)] if rng.random() < 0.7 else ["i", rng.choice(INTS[:9])]
    if name in ("reduction", "mode", "rounding_mode", "indexing", "padding_mode", "norm", "side", "driver",
                "approximate", "interpolation", "UPLO", "nonlinearity"):
        return ["s", rng.choice(STRINGS + ("max", "min", "prod", "amax", "amin", "tanh", "L", "U", "left", "right",
                                           "lower", "higher", "midpoint", "zeros", "border"))]
    if name in ("dtype",):
        return ["dt", rng.choice(DTYPES)]
    if name in ("tensors", "inputs", "operands"):
        return ["list", [random_tensor(rng) for _ in range(rng.randint(0, 3))]]
    if name in ("index", "indices", "target") and rng.random() < 0.6:
        return random_tensor(rng, "int64")
    if name in ("mask", "condition"):
        return random_tensor(rng, "bool")
    return random_tensor(rng)


def random_tensor(rng, dtype=None):
    dtype = dtype or rng.choice(DTYPES[:4] if rng.random() < 0.8 else DTYPES)
    shape = list(rng.choice(SHAPES))
    layout = rng.choice("ccccctes")
    rg = dtype in ("float32", "float64") and rng.random() < 0.4
    return ["t", dtype, shape, layout, rg, rng.randrange(1 << 30)]


def random_call(rng, targets, sigs):
    kind, name = rng.choice(targets)
    sig = sigs.get((kind, name))
    args, kwargs = [], {}
    if sig is None:
        n = rng.randint(0, 3)
        args = [random_arg(rng) for _ in range(n)]
    else:
        params = [p for p in sig.parameters.values() if p.name != "self"]
        for p in params:
            if p.kind in (p.VAR_POSITIONAL,):
                args += [random_arg(rng) for _ in range(rng.randint(0, 2))]
            elif p.kind == p.VAR_KEYWORD:
                continue
            elif p.default is inspect.Parameter.empty and p.kind != p.KEYWORD_ONLY:
                args.append(typed_arg(rng, p.name))
            elif rng.random() < 0.3:
                if p.kind == p.KEYWORD_ONLY or rng.random() < 0.5:
                    kwargs[p.name] = typed_arg(rng, p.name)
                elif not kwargs:
                    args.append(typed_arg(rng, p.name))
        if rng.random() < 0.1:          # one argument too many, or one too few
            if args and rng.random() < 0.5:
                args.pop()
            else:
                args.append(random_arg(rng))
    if kind == "Tensor":
        args.insert(0, random_tensor(rng))
    if kind == "torch" and args and rng.random() < 0.7 and args[0][0] != "t":
        args[0] = random_tensor(rng)
    return [kind, name, args, kwargs]


def _signatures(targets):
    import nbgrad
    import nbgrad.nn.functional as NF
    ns = {"torch": nbgrad, "F": NF, "Tensor": nbgrad.Tensor, "linalg": nbgrad.linalg, "special": nbgrad.special}
    out = {}
    for kind, name in targets:
        try:
            out[(kind, name)] = inspect.signature(getattr(ns[kind], name))
        except (TypeError, ValueError):
            pass
    return out


# -- running one call in a library --------------------------------------------------------------
class Lib:
    def __init__(self, name):
        import numpy as np
        self.np = np
        if name == "torch":
            import torch
            self.m = torch
            self.F = torch.nn.functional
        else:
            import nbgrad
            self.m = nbgrad
            self.F = nbgrad.nn.functional
        self.name = name

    def build(self, spec):
        np, m = self.np, self.m
        tag = spec[0]
        if tag == "t":
            _, dtype, shape, layout, rg, seed = spec
            rs = np.random.default_rng(seed)
            if dtype == "bool":
                a = rs.random(shape) < 0.5
            elif dtype in ("int64", "int32"):
                a = rs.integers(-5, 6, shape)
            elif dtype == "uint8":
                a = rs.integers(0, 11, shape)
            else:
                a = np.round(rs.uniform(-3, 3, shape), 2)
            t = m.tensor(a.tolist() if shape else a.item(), dtype=getattr(m, dtype))
            if layout == "t" and t.dim() >= 2:
                t = t.transpose(0, 1).contiguous().transpose(0, 1)
            elif layout == "e" and t.dim() >= 1:
                t = t[:1].expand(*t.shape) if t.shape[0] > 0 else t
            elif layout == "s" and t.dim() >= 1:
                big = m.cat([t, t], 0) if t.shape[0] else t
                t = big[::2] if t.shape[0] else t
            if rg:
                t = t.detach().requires_grad_()
            return t
        if tag in ("i", "f", "b", "s"):
            return spec[1]
        if tag == "n":
            return None
        if tag == "tup":
            return tuple(spec[1])
        if tag == "dt":
            return getattr(m, spec[1])
        if tag == "list":
            return [self.build(s) for s in spec[1]]
        raise ValueError(spec)

    def fn(self, kind, name):
        return getattr({"torch": self.m, "F": self.F, "Tensor": self.m.Tensor, "linalg": self.m.linalg,
                        "special": self.m.special}[kind], name)

    def run(self, call):
        kind, name, argspecs, kwspecs = call
        args = [self.build(s) for s in argspecs]
        kwargs = {k: self.build(s) for k, s in kwspecs.items()}
        leaves = [a for a in list(args) + list(kwargs.values()) if self._is_tensor(a) and a.requires_grad]
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = self.fn(kind, name)(*args, **kwargs)
                if out is NotImplemented and kind == "Tensor" and name.startswith("__"):
                    # an operator's method that declines: Python's operator raises TypeError
                    raise TypeError(f"{name} returned NotImplemented")
            except Exception as e:
                return {"exc": type(e).__name__, "msg": str(e)[:300], "args": self.describe(args, kwargs)}
            res = {"out": self.describe_value(out), "args": self.describe(args, kwargs)}
            first = self._first_tensor(out)
            if first is not None and first.requires_grad and first.dtype in (self.m.float32, self.m.float64) \
                    and leaves:
                try:
                    first.sum().backward()
                    res["grads"] = [self.describe_value(t.grad) for t in leaves]
                except Exception as e:
                    res["grads"] = ["exc " + type(e).__name__]
            return res

    def _is_tensor(self, v):
        return isinstance(v, self.m.Tensor)

    def _first_tensor(self, out):
        if self._is_tensor(out):
            return out
        if isinstance(out, (tuple, list)) and out and self._is_tensor(out[0]):
            return out[0]
        return None

    def describe(self, args, kwargs):
        return [self.describe_value(a) for a in args] + [self.describe_value(v) for v in kwargs.values()]

    def describe_value(self, v):
        np = self.np
        if self._is_tensor(v):
            d = {"shape": list(v.shape), "dtype": str(v.dtype).split(".")[-1], "rg": bool(v.requires_grad)}
            try:
                x = v.detach()
                if d["dtype"] in ("bfloat16", "float16"):
                    x = x.float()
                # force: PyTorch's efficient zeros (sgn's ZeroTensor gradient) refuse numpy()
                d["values"] = _jsonable(np.asarray(x.numpy(force=True) if hasattr(x, "numpy") else x).tolist())
            except Exception as e:
                d["values"] = "unreadable " + type(e).__name__
            return d
        if isinstance(v, (tuple, list)):
            return {"seq": type(v).__name__ if type(v) in (tuple, list) else "namedtuple",
                    "items": [self.describe_value(x) for x in v]}
        if isinstance(v, (bool, int, float, str)) or v is None:
            return _jsonable(v)
        return {"type": type(v).__name__}


def _jsonable(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    return v


# -- comparing -----------------------------------------------------------------------------------
def _same(a, b, dtype=None):
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        rtol = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 2e-2}.get(a.get("dtype"), 1e-9)
        return all(_same(a[k], b[k], rtol if k == "values" else None) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, dtype) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)) or isinstance(b, float) and isinstance(a, (int, float)):
        if isinstance(a, bool) or isinstance(b, bool):
            return a == b
        rtol = dtype if isinstance(dtype, float) else 1e-9
        return abs(a - b) <= rtol * max(abs(a), abs(b)) + 1e-6
    return a == b


def classify(th, nb):
    """The class of a difference, or None."""
    if "crash" in th or "hang" in th:
        return None         # (PyTorch's own trouble)
    if "crash" in nb:
        return "crash"
    if "hang" in nb:
        return "hang"
    if "exc" in nb and nb["exc"] not in OK_EXCEPTIONS and nb["exc"] != th.get("exc"):
        return "internal"
    if "exc" in th and "exc" in nb:
        return None if th["exc"] == nb["exc"] or {th["exc"], nb["exc"]} <= {"RuntimeError", "NotImplementedError"} \
            else "exc type"
    if "exc" in nb:
        return "refuses"
    if "exc" in th:
        return "accepts"
    if not _same(th["out"], nb["out"]):
        return "values"
    if not _same(th.get("grads"), nb.get("grads")):
        return "grads"
    if not _same(th["args"], nb["args"]):
        return "inputs"
    return None


# -- worker ----------------------------------------------------------------------------------------
def _worker_main():
    libs = {}
    out = sys.stdout
    for line in sys.stdin:
        job = json.loads(line)
        res = {"id": job["id"]}
        for name in ("torch", "nbgrad"):
            out.write(json.dumps({"id": job["id"], "lib": name}) + "\n")
            out.flush()
            if name not in libs:
                libs[name] = Lib(name)
            try:
                res[name] = libs[name].run(job["call"])
            except BaseException as e:         # the tool's own trouble (describing a result)
                res[name] = {"exc": "tool " + type(e).__name__, "msg": str(e)[:200]}
        res["done"] = True
        out.write(json.dumps(res) + "\n")
        out.flush()


class Worker:
    def __init__(self, timeout):
        self.timeout, self.p = timeout, None

    def _start(self):
        env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
        self.p = subprocess.Popen([sys.executable, "-m", "tests.differential.api_fuzz", "--worker"], cwd=ROOT,
                                  env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = collections.deque()
        self.cv = threading.Condition()

        def reader(p=self.p, lines=self.lines, cv=self.cv):
            for ln in p.stdout:
                with cv:
                    lines.append(ln)
                    cv.notify()
            with cv:
                lines.append(None)
                cv.notify()
        threading.Thread(target=reader, daemon=True).start()

    def run(self, jid, call):
        if self.p is None or self.p.poll() is not None:
            self._start()
        self.p.stdin.write(json.dumps({"id": jid, "call": call}) + "\n")
        self.p.stdin.flush()
        lib = None
        deadline = time.monotonic() + self.timeout
        while True:
            with self.cv:
                while not self.lines:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self.p.kill()
                        self.p = None
                        if lib == "nbgrad":
                            return {"id": jid, "torch": {}, "nbgrad": {"hang": True}}
                        return {"id": jid, "torch": {"hang": True}, "nbgrad": {}, "torch_hang": True}
                    self.cv.wait(left)
                ln = self.lines.popleft()
            if ln is None:
                rc = self.p.wait()
                self.p = None
                if lib == "nbgrad":
                    return {"id": jid, "torch": {}, "nbgrad": {"crash": rc}}
                return {"id": jid, "torch": {"crash": rc}, "nbgrad": {}, "torch_crash": True}
            msg = json.loads(ln)
            if msg.get("done"):
                return msg
            lib = msg.get("lib", lib)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", default="", help="comma-separated names (torch.X, F.X or Tensor.X, or X)")
    ap.add_argument("--show", default="crash,hang,internal,values,grads,inputs",
                    help="classes whose examples are printed")
    ap.add_argument("--out", default="", help="write every difference here (JSON lines)")
    ap.add_argument("--save-calls", default="", help="write the generated calls here (JSON lines)")
    ap.add_argument("--replay", default="",
                    help="run the calls saved in this file instead of generating them: the same calls before and "
                         "after a change, which the generator cannot promise, since it reads nbgrad's signatures")
    a = ap.parse_args()
    if a.worker:
        return _worker_main()
    sys.path.insert(0, ROOT)
    targets = _targets()
    if a.only:
        only = set(a.only.split(","))
        targets = [t for t in targets if t[1] in only or f"{t[0]}.{t[1]}" in only]
    if a.replay:
        with open(a.replay) as f:
            calls = [json.loads(line) for line in f]
    else:
        sigs = _signatures(targets)
        rng = random.Random(a.seed)
        calls = [random_call(rng, targets, sigs) for _ in range(a.calls)]
    if a.save_calls:
        with open(a.save_calls, "w") as f:
            f.writelines(json.dumps(call) + "\n" for call in calls)
    print(f"{len(targets)} targets, {len(calls)} calls", flush=True)
    results = [None] * len(calls)
    lock = threading.Lock()
    nxt = [0]

    def work():
        w = Worker(a.timeout)
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= len(calls):
                break
            results[i] = w.run(i, calls[i])
        if w.p is not None:
            w.p.stdin.close()
    threads = [threading.Thread(target=work) for _ in range(a.jobs)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts = collections.Counter()
    by_target = collections.defaultdict(list)
    outf = open(a.out, "w") if a.out else None
    for call, res in zip(calls, results):
        cls = classify(res.get("torch", {}), res.get("nbgrad", {}))
        if res.get("torch_crash") or res.get("torch_hang"):
            cls = None
        if cls is None:
            continue
        counts[cls] += 1
        by_target[(cls, f"{call[0]}.{call[1]}")].append((call, res))
        if outf:
            outf.write(json.dumps({"class": cls, "call": call, "result": res}) + "\n")
    print(f"done in {time.time() - t0:.0f} s: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    show = set(a.show.split(","))
    for (cls, target), items in sorted(by_target.items()):
        print(f"{cls:9} {target:40} {len(items)}")
        if cls in show:
            for call, res in items[:2]:
                print("    call:", json.dumps(call)[:400])
                for lib in ("torch", "nbgrad"):
                    r = res.get(lib, {})
                    brief = r.get("exc", "") + (": " + r.get("msg", "")[:150] if "exc" in r else "") or \
                        json.dumps(r.get("out"))[:200] + ("  grads " + json.dumps(r.get("grads"))[:150] if r.get("grads") else "")
                    if "crash" in r or "hang" in r:
                        brief = json.dumps(r)
                    print(f"      {lib:6}: {brief}")


if __name__ == "__main__":
    sys.exit(main())
