"""Sweeps against live PyTorch: every op of a list over every dtype, and over lengths that
fall on each side of PyTorch's vector widths.

    python -m tests.differential.sweeps            # all sweeps
    python -m tests.differential.sweeps dtypes     # one: dtypes, lengths, half, bfloat16, integers, layers3d, empty

The random programs of `python -m tests.differential` draw float64/float32/int64/bool
leaves of a few elements; these sweeps cover what they rarely reach:

  dtypes    unary, binary (both operands' dtypes) and layer calls over bool, int8, uint8,
            int32, int64, float16, float32: does the call succeed in the same dtype, or
            fail with the same exception type and message (PyTorch's NotImplementedError
            naming its kernel, its own RuntimeErrors)?
  lengths   float32/float64 elementwise ops on 1 to 5000 elements drawn from special values
            (nan, +-inf, +-0, denormals, halves, huge): a kernel whose vectorized loop and
            scalar loop disagree shows at some lengths and not at others.
  half      the unary and binary calls above on float16: values and gradients bit for bit.
  bfloat16  the same on bfloat16.
  integers  integer ops and reductions with each dtype's minimum and maximum.
  layers3d  the 3-D pools and convolutions and embedding_bag over geometries, ties, NaN and
            infinities: values, indices, gradients, node names and errors.
  empty     layers and reductions on inputs with an empty dim: shapes, nodes and errors.

Each prints one line per difference.  Not a test: PyTorch is the reference and is never a
dependency.  Known differences it lists (PyTorch 2.13, this stop): lengths -- float32 fmod and
remainder by a denormal from 16 elements (PyTorch's vectorized loop overflows a / b to NaN,
its scalar loop and C's fmod give the remainder nbgrad gives), maximum/minimum of zeros of
both signs from 65 elements (which zero a tie keeps follows PyTorch's vector width; nbgrad
keeps the first); dtypes -- functions nbgrad lacks (complex and polar), float16
mixed-dtype details, message wording of Python's own argument errors; half -- gelu's values
(float32 erf against PyTorch's vectorized one, a few elements in a hundred), the gradients of
the mean-reduced bce and smooth_l1 losses (one or two elements: summation order); bfloat16 --
prod (PyTorch reduces BFloat16 in lanes of its own; nbgrad rounds each product), histc's counts
at bin edges, one or two gradient elements of mse, huber and smooth_l1.
"""
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")


def _outcome(fn):
    try:
        r = fn()
        if isinstance(r, tuple):
            r = r[0]
        return ("ok", str(r.dtype).split(".")[-1])
    except Exception as e:                                  # noqa: BLE001  (the outcome is compared)
        return (type(e).__name__, str(e).split("\n")[0][:90])


_DTYPES = ("bool", "int8", "uint8", "int32", "int64", "float16")

_UNARY = ["abs", "neg", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "sqrt", "rsqrt", "exp", "exp2",
          "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
          "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "erfinv", "lgamma", "digamma", "reciprocal", "square",
          "relu", "nan_to_num", "signbit", "isnan", "isinf", "isfinite", "logical_not", "bitwise_not", "sum", "prod",
          "mean", "std", "var", "amax", "amin", "argmax", "argmin", "max", "min", "all", "any", "nansum", "nanmean",
          "count_nonzero", "msort", "unique", "clone", "median", "nanmedian", "deg2rad", "rad2deg", "positive", "i0",
          "sinc", "logit", "histc", "bincount"]


def _unary_calls(m):
    F = m.nn.functional
    calls = {name: (lambda name: lambda x: getattr(m, name)(x))(name) for name in _UNARY}
    calls.update({
        "cumsum": lambda x: x.cumsum(0), "cumprod": lambda x: x.cumprod(0), "logsumexp": lambda x: m.logsumexp(x, 0),
        "softmax": lambda x: F.softmax(x, 0), "log_softmax": lambda x: F.log_softmax(x, 0), "norm": lambda x: x.norm(),
        "sort": lambda x: x.sort().values, "topk": lambda x: m.topk(x, 1), "kthvalue": lambda x: m.kthvalue(x, 1),
        "quantile": lambda x: m.quantile(x, 0.5), "nanquantile": lambda x: m.nanquantile(x, 0.5),
        "var_mean": lambda x: m.var_mean(x), "trace": lambda x: m.trace(x.reshape(2, 2)),
        "det": lambda x: m.linalg.det(x.reshape(2, 2)), "inverse": lambda x: m.linalg.inv(x.reshape(2, 2)),
        "solve": lambda x: m.linalg.solve(x.reshape(2, 2), x.reshape(2, 2)), "hardtanh": lambda x: F.hardtanh(x),
        "gelu": lambda x: F.gelu(x), "silu": lambda x: F.silu(x), "elu": lambda x: F.elu(x),
        "softplus": lambda x: F.softplus(x), "layer_norm": lambda x: F.layer_norm(x, (4,)),
        "batch_norm": lambda x: F.batch_norm(x.reshape(2, 2), None, None, training=True),
        "group_norm": lambda x: F.group_norm(x.reshape(1, 2, 2), 1), "max_pool1d": lambda x: F.max_pool1d(x.reshape(1, 1, 4), 2),
        "linear": lambda x: F.linear(x.reshape(1, 4), x.reshape(1, 4)), "one_hot": lambda x: F.one_hot(x),
        "embedding": lambda x: F.embedding(x, m.ones(5, 2)), "cross_entropy_target": lambda x: F.cross_entropy(m.ones(4, 5), x),
        "rand_like": lambda x: m.rand_like(x), "randn_like": lambda x: m.randn_like(x),
        "uniform_": lambda x: x.clone().uniform_(), "normal_": lambda x: x.clone().normal_(),
        "bernoulli": lambda x: m.bernoulli(x), "matmul": lambda x: x.reshape(2, 2) @ x.reshape(2, 2),
    })
    return calls


_BINARY = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "atan2", "hypot",
           "maximum", "minimum", "fmax", "fmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
           "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
           "copysign", "nextafter", "heaviside", "xlogy", "logaddexp", "logaddexp2", "ldexp", "gcd", "lcm", "isclose"]


def _binary_calls(m):
    F = m.nn.functional
    calls = {name: (lambda name: lambda x, y: getattr(m, name)(x, y))(name) for name in _BINARY}
    calls.update({
        "where": lambda x, y: m.where(x > 0 if x.dtype != m.bool else x, x, y), "lerp": lambda x, y: m.lerp(x, y, 0.5),
        "addcmul": lambda x, y: m.addcmul(x, x, y), "addcdiv": lambda x, y: m.addcdiv(x, x, y),
        "mm": lambda x, y: m.mm(x.reshape(2, 2), y.reshape(2, 2)), "dot": lambda x, y: m.dot(x, y),
        "mse": lambda x, y: F.mse_loss(x, y), "l1": lambda x, y: F.l1_loss(x, y), "bce": lambda x, y: F.binary_cross_entropy(x, y),
        "huber": lambda x, y: F.huber_loss(x, y), "smooth_l1": lambda x, y: F.smooth_l1_loss(x, y),
        "kl_div": lambda x, y: F.kl_div(x, y, reduction="sum"), "cdist": lambda x, y: m.cdist(x.reshape(2, 2), y.reshape(2, 2)),
        "clamp": lambda x, y: m.clamp(x, y, y), "masked_fill": lambda x, y: x.masked_fill(y > 0 if y.dtype != m.bool else y, 1),
        "index_add": lambda x, y: x.index_add(0, m.tensor([0, 1, 2, 3]), y), "searchsorted": lambda x, y: m.searchsorted(x, y),
        "isin": lambda x, y: m.isin(x, y), "cat": lambda x, y: m.cat([x, y]), "stack": lambda x, y: m.stack([x, y]),
        "sub_alpha": lambda x, y: m.sub(x, y, alpha=2), "trapezoid": lambda x, y: m.trapezoid(y, x),
    })
    return calls


def sweep_dtypes():
    import nbgrad
    import torch
    torch.set_num_threads(1)
    found = 0
    tu, nu = _unary_calls(torch), _unary_calls(nbgrad)
    for dt in _DTYPES:
        a = np.array([1, 0, 1, 1]) if dt == "bool" else np.array([1, 0, 3, 2])
        for name in tu:
            outs = [_outcome(lambda: calls[name](m.tensor(a.astype(bool) if dt == "bool" else a, dtype=getattr(m, dt))))
                    for m, calls in ((torch, tu), (nbgrad, nu))]
            if outs[0] != outs[1]:
                found += 1
                print(f"dtypes {dt:8} {name:22} torch {outs[0]} | nbgrad {outs[1]}")
    tb, nb = _binary_calls(torch), _binary_calls(nbgrad)
    for da in _DTYPES + ("float32",):
        for db in _DTYPES + ("float32",):
            for name in tb:
                def call(m, calls):
                    def mk(dt, v):
                        return m.tensor(np.array(v).astype(bool) if dt == "bool" else np.array(v), dtype=getattr(m, dt))
                    return calls[name](mk(da, [1, 0, 3, 2]), mk(db, [2, 1, 1, 3]))
                outs = [_outcome(lambda: call(m, calls)) for m, calls in ((torch, tb), (nbgrad, nb))]
                if outs[0] != outs[1]:
                    found += 1
                    print(f"dtypes {da}+{db:8} {name:14} torch {outs[0]} | nbgrad {outs[1]}")
    return found


_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1.5, -1.5, 2.5, -2.5, 0.5, -0.5, 3.7, -3.7,
                      1e30, -1e30, 7.0, -7.0, 1.0, -1.0])
_LENGTHS = [1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 5000]
_LENGTH_UNARY = ["relu", "abs", "neg", "sign", "floor", "ceil", "round", "trunc", "frac", "sqrt", "reciprocal",
                 "nan_to_num", "signbit", "isnan", "isfinite", "logical_not", "positive"]
_LENGTH_BINARY = ["add", "sub", "mul", "div", "fmax", "fmin", "fmod", "remainder", "copysign", "eq", "lt", "ge",
                  "heaviside", "floor_divide", "maximum", "minimum"]


def _same_bits(r, t):
    if r.shape != t.shape or r.dtype != t.dtype:
        return False
    if r.dtype.kind != "f":
        return np.array_equal(r, t)
    rn, tn = np.isnan(r), np.isnan(t)
    return np.array_equal(rn, tn) and np.array_equal(r[~rn], t[~tn]) and \
        np.array_equal(np.signbit(r[~rn]), np.signbit(t[~tn]))


def sweep_lengths():
    """Exact results only (the transcendental functions differ in the last ulp by design)."""
    import nbgrad
    import torch
    torch.set_num_threads(1)
    found = 0
    for dt in (np.float32, np.float64):
        for name in _LENGTH_UNARY + _LENGTH_BINARY:
            bad = []
            for n in _LENGTHS:
                a = np.random.default_rng(n).choice(_SPECIALS, n).astype(dt)
                b = np.random.default_rng(n + 1000).choice(_SPECIALS, n).astype(dt)
                args = (a,) if name in _LENGTH_UNARY else (a, b)
                t = getattr(torch, name)(*(torch.from_numpy(v.copy()) for v in args)).numpy()
                r = getattr(nbgrad, name)(*(nbgrad.from_numpy(v.copy()) for v in args)).numpy()
                if not _same_bits(r, t):
                    bad.append(n)
            if bad:
                found += 1
                print(f"lengths {dt.__name__:8} {name:14} differs at lengths {bad}")
    return found


def _half_result(m, fn, args, g_seed, dtype="float16"):
    """(output as numpy, input gradients) of fn on 16-bit float leaves (bfloat16's widened to
    float32 exactly: NumPy has no bfloat16), or an outcome pair when the call fails."""
    dt = getattr(m, dtype)
    leaves = [m.tensor(a.astype(np.float32), dtype=dt, requires_grad=True) for a in args]

    def host(t):
        return (t.float() if t.dtype == m.bfloat16 else t).numpy()
    try:
        out = fn(*leaves)
        if isinstance(out, tuple):
            out = out[0]
        grads = ()
        if out.dtype == dt and out.requires_grad:
            g = np.random.default_rng(g_seed).standard_normal(tuple(out.shape)).astype(np.float32)
            out.backward(m.tensor(g, dtype=dt))
            grads = tuple(host(x.grad) if x.grad is not None else None for x in leaves)
        return host(out.detach()), grads
    except Exception as e:                                  # noqa: BLE001  (the outcome is compared)
        return (type(e).__name__, str(e).split("\n")[0][:90]), None


_RANDOM_CALLS = {"rand_like", "randn_like", "uniform_", "normal_", "bernoulli"}


def sweep_half(dtype="float16"):
    """float16 values and gradients bit for bit (NaNs of any payload equal): PyTorch's CPU
    kernels compute Half in float32 and round once where their opmath says so, op by op where
    they do not; composed formulas in nbgrad must follow the kernel each op is."""
    import nbgrad
    import torch
    torch.set_num_threads(1)
    found = 0
    rng = np.random.default_rng(16)
    inputs = {"signed": [(rng.standard_normal(64) * 3).astype(np.float16) for _ in range(2)],
              "positive": [rng.uniform(0.05, 4.0, 64).astype(np.float16) for _ in range(2)],
              "unit": [rng.uniform(0.02, 0.98, 64).astype(np.float16) for _ in range(2)]}
    for arity, (tcalls, ncalls) in ((1, (_unary_calls(torch), _unary_calls(nbgrad))),
                                    (2, (_binary_calls(torch), _binary_calls(nbgrad)))):
        for name in tcalls:
            if name in _RANDOM_CALLS:
                continue                                    # (another generator: other draws by design)
            for kind, vals in inputs.items():
                args = vals[:arity]
                t = _half_result(torch, tcalls[name], args, 1, dtype)
                r = _half_result(nbgrad, ncalls[name], args, 1, dtype)
                if t[1] is None or r[1] is None:
                    continue                                # failures: the dtypes sweep compares them
                bad = [] if _same_bits(r[0], t[0]) else ["value"]
                bad += [f"grad{i}" for i, (a, b) in enumerate(zip(r[1], t[1]))
                        if (a is None) != (b is None) or (a is not None and not _same_bits(a, b))]
                if len(r[1]) != len(t[1]):
                    bad.append("grads")
                if bad:
                    found += 1
                    print(f"{'half' if dtype == 'float16' else dtype} {kind:8} {name:22} differs in "
                          f"{', '.join(bad)}")
    return found


def sweep_bfloat16():
    """sweep_half's calls on bfloat16 leaves."""
    return sweep_half("bfloat16")


_INT_OPS = {"sum": lambda m, x, y: x.sum(), "prod": lambda m, x, y: x.prod(), "cumsum": lambda m, x, y: x.cumsum(0),
            "max": lambda m, x, y: x.max(), "argmin": lambda m, x, y: x.argmin(),
            "sort_indices": lambda m, x, y: x.sort(stable=True).indices, "abs": lambda m, x, y: x.abs(),
            "neg": lambda m, x, y: -x, "floor_divide": lambda m, x, y: x // y,
            "trunc_div": lambda m, x, y: x.div(y, rounding_mode="trunc"), "remainder": lambda m, x, y: x % y,
            "fmod": lambda m, x, y: x.fmod(y), "gcd": lambda m, x, y: x.gcd(y), "mul": lambda m, x, y: x * y,
            "to_float": lambda m, x, y: x.float(), "to_int8": lambda m, x, y: x.to(m.int8),
            "float_to_int8": lambda m, x, y: (x.double() * 1.5).to(m.int8),
            "float_to_uint8": lambda m, x, y: (x.double() * 1.5).to(m.uint8)}


def sweep_integers():
    import nbgrad
    import torch
    torch.set_num_threads(1)
    found = 0
    for dt in ("int8", "int16", "int32", "int64", "uint8"):
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, 3, 7, 100, info.min + 1, info.max - 1] +
                        ([-1, -3, -7] if info.min < 0 else []), np.int64)
        for name, f in _INT_OPS.items():
            for n in (1, 9, 300):
                rng = np.random.default_rng(n)
                a, b = rng.choice(pool, n).astype(dt), rng.choice(pool[pool != 0], n).astype(dt)
                if info.min < 0:
                    b[(a == info.min) & (b == -1)] = -3          # (PyTorch's int32/int64 kernels trap on MIN // -1)
                outs = []
                for m in (torch, nbgrad):
                    try:
                        outs.append(np.asarray(f(m, m.from_numpy(a.copy()), m.from_numpy(b.copy())).numpy()))
                    except Exception as e:                  # noqa: BLE001
                        outs.append(type(e).__name__)
                same = (isinstance(outs[0], str) and outs[0] == outs[1]) or (
                    not isinstance(outs[0], str) and not isinstance(outs[1], str) and _same_bits(outs[1], outs[0]))
                if not same:
                    found += 1
                    print(f"integers {dt:6} {name:14} n={n}")
    return found


def _layer_outcome(m, fn, x, grad):
    """(values, indices or None, input gradient or None, node name) of fn(m, x), or the error."""
    try:
        xt = m.tensor(x, requires_grad=grad)
        r = fn(m, xt)
        y, idx = r if isinstance(r, tuple) else (r, None)
        gx = None
        if grad and y.numel():
            w = np.sin(np.arange(y.numel())).reshape(tuple(y.shape)).astype(x.dtype)
            (y * m.tensor(w)).sum().backward()
            gx = xt.grad.numpy()
        return (y.detach().numpy(), None if idx is None else idx.numpy(), gx, type(y.grad_fn).__name__)
    except Exception as e:                                  # noqa: BLE001  (the outcome is compared)
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"


def sweep_layers3d():
    """The 3-D layers (max/avg/adaptive pools, conv3d, conv_transpose3d) and embedding_bag over
    geometries, dtypes, ties, NaN and infinities: pooling values and indices bit for bit,
    convolutions within float rounding, gradients, node names and errors."""
    import nbgrad
    import torch
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    found = 0
    cases = []
    for shape in ((2, 3, 5, 6, 7), (3, 4, 5, 6)):
        for dt in (np.float64, np.float32):
            x = rng.standard_normal(shape).astype(dt)
            x.flat[::7] = x.flat[0]                                 # ties
            special = x.copy()
            special.flat[3], special.flat[11], special.flat[40] = np.nan, np.nan, -np.inf
            for k, st, p, d, cm in ((2, None, 0, 1, False), (3, 1, 1, 1, False), ((2, 3, 2), (1, 2, 3), (1, 1, 0), 1, True),
                                    (2, 2, 1, 2, True)):
                cases.append((f"max_pool3d {shape} {dt.__name__} k={k} s={st} p={p} d={d} ceil={cm}",
                              lambda m, v, a=(k, st, p, d, cm): m.nn.functional.max_pool3d(v, *a, return_indices=True),
                              x, True))
                cases.append((f"max_pool3d special k={k}", lambda m, v, a=(k, st, p, d, cm):
                              m.nn.functional.max_pool3d(v, *a, return_indices=True), special, False))
                if d == 1:
                    for cip, dov in ((True, None), (False, None), (True, 5)):
                        cases.append((f"avg_pool3d {shape} {dt.__name__} k={k} s={st} p={p} ceil={cm} cip={cip} div={dov}",
                                      lambda m, v, a=(k, st, p, cm, cip, dov): m.nn.functional.avg_pool3d(v, *a), x, True))
            for o in (2, 1, (3, 2, 4), (None, 2, None), (7, 7, 7), 0):
                cases.append((f"adaptive_avg_pool3d {shape} {dt.__name__} {o}",
                              lambda m, v, o=o: m.nn.functional.adaptive_avg_pool3d(v, o), x, True))
                cases.append((f"adaptive_max_pool3d {shape} {dt.__name__} {o}",
                              lambda m, v, o=o: m.nn.functional.adaptive_max_pool3d(v, o, True), x, True))
    for xs, ws, kw in (((2, 4, 5, 6, 5), (6, 2, 3, 3, 2), dict(stride=(2, 1, 2), padding=(1, 2, 0), dilation=(2, 1, 1),
                                                                  groups=2)),
                       ((3, 5, 6, 7), (4, 3, 2, 3, 2), dict(padding="same"))):
        w = rng.standard_normal(ws)
        cases.append((f"conv3d {xs} {kw}", lambda m, v, w=w, kw=kw: m.nn.functional.conv3d(v, m.tensor(w), **kw),
                      rng.standard_normal(xs), True))
    for xs, ws, kw in (((2, 4, 3, 4, 3), (4, 3, 3, 2, 2), dict(stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1),
                                                                  dilation=(1, 2, 1), groups=2)),
                       ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), dict(stride=2, output_padding=1))):
        w = rng.standard_normal(ws)
        cases.append((f"conv_transpose3d {xs} {kw}",
                      lambda m, v, w=w, kw=kw: m.nn.functional.conv_transpose3d(v, m.tensor(w), **kw),
                      rng.standard_normal(xs), True))
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 5, 3, 7, 2])
    for mode in ("sum", "mean", "max"):
        for offsets, last in ((np.array([0, 4, 4, 9]), False), (np.array([0, 4, 4, 9, 12]), True)):
            for pad in (None, 2, -3):
                cases.append((f"embedding_bag {mode} offsets={offsets.tolist()} last={last} pad={pad}",
                              lambda m, v, a=(mode, offsets, last, pad): m.nn.functional.embedding_bag(
                                  m.tensor(idx), v, m.tensor(a[1]), mode=a[0], include_last_offset=a[2], padding_idx=a[3]),
                              rng.standard_normal((12, 3)), True))
    for name, fn, x, grad in cases:
        a, b = (_layer_outcome(m, fn, x, grad) for m in (torch, nbgrad))
        if isinstance(a, str) or isinstance(b, str):
            same = a == b
        else:
            conv = name.startswith("conv")
            tol = 1e-12 if x.dtype == np.float64 else 1e-6

            def close(p, q, exact):
                if p is None or q is None:
                    return p is None and q is None
                if exact:
                    return p.shape == q.shape and np.array_equal(p, q, equal_nan=True)
                return p.shape == q.shape and np.allclose(p, q, rtol=tol, atol=tol, equal_nan=True)
            same = close(a[0], b[0], not conv) and close(a[1], b[1], True) and close(a[2], b[2], False) and a[3] == b[3]
        if not same:
            found += 1
            print(f"layers3d {name}: torch {a if isinstance(a, str) else 'ok'} | nbgrad {b if isinstance(b, str) else 'ok'}")
    return found


def _empty_calls():
    """name -> fn(m) of layers on inputs with an empty dim (the batch, the channels, a spatial dim)."""
    def z(m, *shape):
        return m.zeros(*shape, requires_grad=True)
    calls = {}
    for s in ((0, 3, 4, 4), (2, 0, 4, 4), (2, 3, 0, 4), (0, 3, 0, 4)):
        calls.update({
            f"max_pool2d {s}": lambda m, s=s: m.nn.functional.max_pool2d(z(m, *s), 2),
            f"avg_pool2d {s}": lambda m, s=s: m.nn.functional.avg_pool2d(z(m, *s), 2),
            f"adaptive_avg_pool2d {s}": lambda m, s=s: m.nn.functional.adaptive_avg_pool2d(z(m, *s), 2),
            f"adaptive_max_pool2d {s}": lambda m, s=s: m.nn.functional.adaptive_max_pool2d(z(m, *s), 2),
            f"max_pool3d {s}": lambda m, s=s: m.nn.functional.max_pool3d(z(m, 1, *s), 2),
            f"batch_norm {s}": lambda m, s=s: m.nn.functional.batch_norm(z(m, *s), None, None, training=True),
            f"instance_norm {s}": lambda m, s=s: m.nn.functional.instance_norm(z(m, *s)),
            f"group_norm {s}": lambda m, s=s: m.nn.functional.group_norm(z(m, *s), 1),
            f"layer_norm {s}": lambda m, s=s: m.nn.functional.layer_norm(z(m, *s), s[-1:]),
            f"interpolate {s}": lambda m, s=s: m.nn.functional.interpolate(z(m, *s), scale_factor=2, mode="bilinear"),
            f"conv2d {s}": lambda m, s=s: m.nn.functional.conv2d(z(m, *s), m.ones(2, s[1], 1, 1)),
            f"conv_transpose2d {s}": lambda m, s=s: m.nn.functional.conv_transpose2d(z(m, *s), m.ones(s[1], 2, 2, 2)),
            f"softmax {s}": lambda m, s=s: m.nn.functional.softmax(z(m, *s), 1),
            f"pad reflect {s}": lambda m, s=s: m.nn.functional.pad(z(m, *s), (1, 1, 1, 1), mode="reflect"),
            f"pad replicate {s}": lambda m, s=s: m.nn.functional.pad(z(m, *s), (1, 1, 1, 1), mode="replicate"),
            f"unfold {s}": lambda m, s=s: m.nn.functional.unfold(z(m, *s), 2),
            f"dropout2d {s}": lambda m, s=s: m.nn.functional.dropout2d(z(m, *s), 0.5),
        })
    for s in ((0, 5), (3, 0)):
        calls.update({
            f"cross_entropy {s}": lambda m, s=s: m.nn.functional.cross_entropy(z(m, *s), m.zeros(s[0], dtype=m.int64)),
            f"linear {s}": lambda m, s=s: m.nn.functional.linear(z(m, *s), m.ones(2, s[1])),
            f"mse {s}": lambda m, s=s: m.nn.functional.mse_loss(z(m, *s), m.zeros(*s)),
            f"normalize {s}": lambda m, s=s: m.nn.functional.normalize(z(m, *s)),
            f"cdist {s}": lambda m, s=s: m.cdist(z(m, *s), m.ones(*s)),
            f"logsumexp {s}": lambda m, s=s: m.logsumexp(z(m, *s), 1),
            f"max dim {s}": lambda m, s=s: m.max(z(m, *s), 1),
            f"std {s}": lambda m, s=s: m.std(z(m, *s), 1),
        })
    return calls


def sweep_empty():
    """Layers and reductions on inputs with an empty dim: the same result shape, dtype and node,
    or the same exception and message."""
    import nbgrad
    import torch
    torch.set_num_threads(1)
    found = 0

    def outcome(m, fn):
        try:
            r = fn(m)
            r = r[0] if isinstance(r, tuple) else r
            return ("ok", tuple(r.shape), str(r.dtype).split(".")[-1],
                    None if r.grad_fn is None else type(r.grad_fn).__name__)
        except Exception as e:                              # noqa: BLE001  (the outcome is compared)
            return (type(e).__name__, str(e).split("\n")[0][:120])
    for name, fn in _empty_calls().items():
        a, b = outcome(torch, fn), outcome(nbgrad, fn)
        if a != b:
            found += 1
            print(f"empty {name}: torch {a} | nbgrad {b}")
    return found


SWEEPS = {"dtypes": sweep_dtypes, "lengths": sweep_lengths, "half": sweep_half, "bfloat16": sweep_bfloat16,
          "integers": sweep_integers,
          "layers3d": sweep_layers3d,
          "empty": sweep_empty}


def main(argv=None):
    names = (argv if argv is not None else sys.argv[1:]) or list(SWEEPS)
    for name in names:
        print(f"-- {name}: {SWEEPS[name]()} difference(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
