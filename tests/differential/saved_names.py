"""grad_fn._saved_<name>: which of nbgrad's saved tensors and attributes hold what PyTorch's
generated nodes expose under each name (nbgrad/autograd/_saved_names.py), found and checked
against live PyTorch.

    python -m tests.differential.saved_names          # check the table: values against PyTorch's
    python -m tests.differential.saved_names harvest  # print the matches found, per node and name

Each call of sweeps' unary and binary lists (and the layer calls below) runs in both libraries on
float64 leaves; the two graphs are walked together from the outputs (nodes paired where their
names agree).  `harvest` matches every `_saved_*` value PyTorch gives to nbgrad's saved
tensors (equal values) and node attributes (equal values; the shapes of the node's inputs for
the `*_sym_sizes` names) and prints, per name, the candidates and how often each matched: the
table is written from them by hand (a match by coincidence -- two flags both False, two equal
shapes -- is not a mapping).  `check` reads every name of the table from nbgrad's nodes and
compares it with PyTorch's value: one line per difference.  Not a test: PyTorch is the
reference and never a dependency.
"""
import collections
import sys

import numpy as np

from . import sweeps


def extra_calls(m):
    F = m.nn.functional
    return {
        "linear_b": lambda x, y: F.linear(x.reshape(2, 2), y.reshape(2, 2), y[:2] * 1),
        "conv2d": lambda x, y: F.conv2d(x.reshape(1, 1, 2, 2), y.reshape(1, 1, 2, 2), padding=1),
        "bmm": lambda x, y: m.bmm(x.reshape(1, 2, 2), y.reshape(1, 2, 2)),
        "addmm": lambda x, y: m.addmm(x[:2], x.reshape(2, 2), y.reshape(2, 2)),
        "sum_dim": lambda x, y: (x * y).sum(0, keepdim=True), "mean_dim": lambda x, y: (x * y).reshape(2, 2).mean(1),
        "pow_s": lambda x, y: x.pow(2) + y, "pow_t": lambda x, y: x.pow(y), "rpow": lambda x, y: 2 ** x + y,
        "view": lambda x, y: x.view(2, 2) * y.view(2, 2), "reshape_t": lambda x, y: x.reshape(2, 2).t() * y.view(2, 2),
        "transpose": lambda x, y: x.reshape(2, 2).transpose(0, 1) * y.view(2, 2),
        "permute": lambda x, y: x.reshape(1, 2, 2).permute(2, 0, 1) * y.view(2, 1, 2),
        "expand": lambda x, y: x[:1].expand(4) * y, "index": lambda x, y: x[m.tensor([0, 2])] * y[:2],
        "slice": lambda x, y: x[1:3] * y[:2], "select": lambda x, y: x.view(2, 2)[1] * y[:2],
        "unsqueeze": lambda x, y: x.unsqueeze(0) * y, "squeeze": lambda x, y: x.view(1, 4).squeeze(0) * y,
        "gather": lambda x, y: m.gather(x.view(2, 2), 1, m.tensor([[0, 0], [1, 0]])) * y.view(2, 2),
        "softmax_d": lambda x, y: F.softmax(x.view(2, 2), 1) * y.view(2, 2),
        "log_softmax_d": lambda x, y: F.log_softmax(x.view(2, 2), 1) * y.view(2, 2),
        "ce": lambda x, y: F.cross_entropy(x.view(2, 2) * y.view(2, 2), m.tensor([0, 1])),
        "nll": lambda x, y: F.nll_loss(x.view(2, 2) * y.view(2, 2), m.tensor([0, 1])),
        "relu2": lambda x, y: F.relu(x - y), "leaky": lambda x, y: F.leaky_relu(x - y, 0.1),
        "tanh2": lambda x, y: m.tanh(x * y), "sigmoid2": lambda x, y: m.sigmoid(x * y),
        "max_dim": lambda x, y: (x * y).view(2, 2).max(1).values, "min_dim": lambda x, y: (x * y).view(2, 2).min(1).values,
        "cumsum2": lambda x, y: (x * y).cumsum(0), "prod_dim": lambda x, y: (x * y).view(2, 2).prod(1),
        "norm2": lambda x, y: (x * y).norm(dim=0), "dropout": lambda x, y: F.dropout(x * y, 0.0),
        "mul_s": lambda x, y: x * 2 + y, "div_s": lambda x, y: x / 2 + y, "add_s": lambda x, y: x + 2 + y,
        "sub_s": lambda x, y: x - 2 + y, "rsub": lambda x, y: 2 - x + y, "rdiv": lambda x, y: 2 / x + y,
        "clamp_min": lambda x, y: x.clamp(min=0.3) + y, "clamp_s": lambda x, y: x.clamp(0.3, 0.6) + y,
        "abs2": lambda x, y: (x - y).abs(), "sqrt2": lambda x, y: (x * y).sqrt(), "log2x": lambda x, y: (x * y).log(),
        "exp2x": lambda x, y: (x * y).exp(), "var_d": lambda x, y: (x * y).view(2, 2).var(1),
        "std_d": lambda x, y: (x * y).view(2, 2).std(1), "layer_norm_w": lambda x, y: F.layer_norm(x.view(2, 2), (2,), y[:2] * 1, y[2:] * 1),
        "mse2": lambda x, y: F.mse_loss(x, y), "max_pool2d": lambda x, y: F.max_pool2d((x * y).view(1, 1, 2, 2), 2),
        "avg_pool2d": lambda x, y: F.avg_pool2d((x * y).view(1, 1, 2, 2), 2),
        "embedding_w": lambda x, y: F.embedding(m.tensor([0, 1]), (x * y).view(2, 2)),
        "where2": lambda x, y: m.where(x > 0.5, x, y), "masked_fill2": lambda x, y: (x * y).masked_fill(x > 0.5, 1.0),
        "index_select": lambda x, y: m.index_select(x * y, 0, m.tensor([0, 2])),
        "flip": lambda x, y: (x * y).flip(0), "roll": lambda x, y: (x * y).roll(1), "repeat": lambda x, y: (x * y).repeat(2),
        "chunk": lambda x, y: (x * y).chunk(2)[0], "split": lambda x, y: (x * y).split(2)[1],
        "mv": lambda x, y: m.mv(x.view(2, 2), y[:2]), "outer": lambda x, y: m.outer(x, y),
        "atan2b": lambda x, y: m.atan2(x, y), "baddbmm": lambda x, y: m.baddbmm(x.view(1, 2, 2), x.view(1, 2, 2), y.view(1, 2, 2)),
        "cosine": lambda x, y: F.cosine_similarity(x.view(2, 2), y.view(2, 2)), "softplus2": lambda x, y: F.softplus(x * y, beta=2),
        "elu2": lambda x, y: F.elu(x - y), "selu": lambda x, y: F.selu(x - y), "gelu2": lambda x, y: F.gelu(x - y, approximate="tanh"),
        "hardswish": lambda x, y: F.hardswish(x - y), "mish": lambda x, y: F.mish(x - y), "silu2": lambda x, y: F.silu(x - y),
        "logsigmoid": lambda x, y: F.logsigmoid(x - y), "hardtanh2": lambda x, y: F.hardtanh(x - y, -0.1, 0.1),
        "bce_logits": lambda x, y: F.binary_cross_entropy_with_logits(x, y),
        "batch_norm_w": lambda x, y: F.batch_norm(x.view(2, 2), None, None, y[:2] * 1, y[2:] * 1, training=True),
        "group_norm_w": lambda x, y: F.group_norm(x.view(1, 2, 2), 1, y[:2] * 1, y[2:] * 1),
        "conv1d": lambda x, y: F.conv1d(x.view(1, 1, 4), y[:2].reshape(1, 1, 2)),
        "sum_all": lambda x, y: (x * y).sum(), "mean_all": lambda x, y: (x * y).mean(),
        "lerp_t": lambda x, y: m.lerp(x, y, y * 1), "erfinv2": lambda x, y: m.erfinv(x - y),
    }


def _leaf(m, shape, seed, lo=-1.0, hi=1.0):
    """A float64 leaf requiring grad, the same values in either library."""
    return m.tensor(np.random.default_rng(seed).uniform(lo, hi, shape), requires_grad=True)


def layer_calls(m):
    """Calls of layers on inputs of their own (shapes and arguments chosen apart, so no two
    saved values coincide by accident): (the call, no arguments)."""
    F = m.nn.functional

    def L(shape, seed, lo=-1.0, hi=1.0):
        return _leaf(m, shape, seed, lo, hi)
    return {
        "conv2d_s": lambda: F.conv2d(L((1, 2, 7, 6), 1), L((3, 2, 3, 2), 2), L((3,), 3), stride=2, padding=1, dilation=(2, 1)),
        "conv1d_g": lambda: F.conv1d(L((2, 4, 9), 4), L((6, 2, 3), 5), stride=3, groups=2),
        "conv_t2d": lambda: F.conv_transpose2d(L((1, 2, 3, 4), 6), L((2, 3, 2, 3), 7), stride=2, padding=1, output_padding=1),
        "max_pool2d_s": lambda: F.max_pool2d(L((1, 2, 7, 6), 8), 3, stride=2, padding=1, dilation=1, ceil_mode=True),
        "avg_pool2d_s": lambda: F.avg_pool2d(L((1, 2, 7, 6), 9), (3, 2), stride=(2, 1), padding=1, count_include_pad=False),
        "adaptive_avg": lambda: F.adaptive_avg_pool2d(L((1, 2, 7, 6), 10), (3, 2)),
        "adaptive_max": lambda: F.adaptive_max_pool2d(L((1, 2, 7, 6), 11), (3, 2)),
        "batch_norm_r": lambda: F.batch_norm(L((5, 3), 12), m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64),
                                             L((3,), 13), L((3,), 14), training=True, momentum=0.3, eps=1e-3),
        "layer_norm_s": lambda: F.layer_norm(L((2, 3, 4), 15), (3, 4), L((3, 4), 16), L((3, 4), 17), eps=1e-4),
        "group_norm_s": lambda: F.group_norm(L((2, 6, 5), 18), 3, L((6,), 19), L((6,), 20), eps=1e-3),
        "embedding_p": lambda: F.embedding(m.tensor([[0, 2], [3, 1]]), L((5, 3), 21), padding_idx=1),
        "ce_smooth": lambda: F.cross_entropy(L((4, 5), 22), m.tensor([0, 3, 1, 4]), label_smoothing=0.2),
        "nll_w": lambda: F.nll_loss(L((4, 5), 23), m.tensor([0, 3, 1, 4]), weight=m.tensor([1.0, 2.0, 0.5, 1.5, 3.0],
                                    dtype=m.float64), ignore_index=3, reduction="sum"),
        "smooth_l1_b": lambda: F.smooth_l1_loss(L((6,), 24), L((6,), 25), beta=0.3, reduction="sum"),
        "huber_d": lambda: F.huber_loss(L((6,), 26), L((6,), 27), delta=0.4, reduction="none"),
        "bce_w": lambda: F.binary_cross_entropy(L((6,), 28, 0.1, 0.9), L((6,), 29, 0.0, 1.0), weight=L((6,), 30)),
        "kl_lt": lambda: F.kl_div(L((2, 3), 31), L((2, 3), 32), reduction="batchmean", log_target=True),
        "scatter_add": lambda: L((3, 4), 33).scatter_add(1, m.tensor([[0, 1], [2, 3], [1, 1]]), L((3, 2), 34)),
        "scatter": lambda: L((3, 4), 35).scatter(1, m.tensor([[0, 1], [2, 3], [1, 0]]), L((3, 2), 36)),
        "index_put": lambda: L((5, 3), 37).index_put((m.tensor([0, 3]),), L((2, 3), 38), accumulate=True),
        "index_select1": lambda: L((4, 5), 39).index_select(1, m.tensor([4, 0, 2])),
        "gather1": lambda: L((3, 4), 40).gather(0, m.tensor([[2, 0, 1, 1]])),
        "topk": lambda: L((3, 6), 41).topk(2, dim=1).values, "kthvalue": lambda: L((3, 6), 42).kthvalue(3, dim=1).values,
        "sort_d": lambda: L((3, 6), 43).sort(dim=0, descending=True).values,
        "cumsum_d": lambda: L((3, 4), 44).cumsum(1), "cumprod_d": lambda: L((3, 4), 45).cumprod(0),
        "prod_d": lambda: L((3, 4), 46).prod(1, keepdim=True), "std_c": lambda: L((3, 5), 47).std(1, correction=0),
        "var_c": lambda: L((3, 5), 48).var(0, correction=2, keepdim=True), "norm_p": lambda: L((3, 5), 49).norm(p=3, dim=1),
        "logsumexp_d": lambda: L((3, 5), 50).logsumexp(1, keepdim=True), "amax_d": lambda: L((3, 5), 51).amax(0),
        "max_d": lambda: L((3, 5), 52).max(1, keepdim=True).values, "mean_d": lambda: L((3, 5), 53).mean(0, keepdim=True),
        "sum_d2": lambda: L((2, 3, 4), 54).sum((0, 2)), "addmm_ab": lambda: m.addmm(L((2, 4), 55), L((2, 3), 56), L((3, 4), 57),
                                                                                  beta=0.5, alpha=2.0),
        "baddbmm_ab": lambda: m.baddbmm(L((2, 2, 4), 58), L((2, 2, 3), 59), L((2, 3, 4), 60), beta=0.5, alpha=3.0),
        "addcmul_v": lambda: m.addcmul(L((4,), 61), L((4,), 62), L((4,), 63), value=0.7),
        "softplus_bt": lambda: F.softplus(L((5,), 64), beta=2.0, threshold=3.0), "elu_a": lambda: F.elu(L((5,), 65), alpha=0.7),
        "leaky_s": lambda: F.leaky_relu(L((5,), 66), 0.03), "hardtanh_mm": lambda: F.hardtanh(L((5,), 67), -0.3, 0.6),
        "celu": lambda: F.celu(L((5,), 68), alpha=1.5), "glu": lambda: F.glu(L((2, 6), 69), dim=1),
        "softmin": lambda: F.softmin(L((2, 5), 70), dim=0), "pad": lambda: F.pad(L((2, 3), 71), (1, 2), value=0.5),
        "pad_reflect": lambda: F.pad(L((1, 2, 5), 72), (2, 1), mode="reflect"),
        "interp": lambda: F.interpolate(L((1, 2, 3, 4), 73), scale_factor=2, mode="bilinear", align_corners=False),
        "unfold": lambda: F.unfold(L((1, 2, 5, 4), 74), (2, 3), stride=(1, 2)), "pow_f": lambda: L((4,), 75, 0.5, 2.0).pow(1.5),
        "clamp_t": lambda: L((4,), 76).clamp(m.tensor(-0.2, dtype=m.float64), m.tensor(0.4, dtype=m.float64)),
        "narrow": lambda: L((5, 3), 77).narrow(0, 1, 3), "unbind": lambda: L((3, 4), 78).unbind(1)[2],
        "diagonal": lambda: L((4, 5), 79).diagonal(1), "tril": lambda: L((4, 4), 80).tril(-1),
        "trace": lambda: L((3, 4), 81).trace(), "dist": lambda: m.dist(L((4,), 82), L((4,), 83), p=3),
        "cdist1": lambda: m.cdist(L((3, 2), 84), L((4, 2), 85), p=1), "pdist": lambda: F.pdist(L((4, 3), 86), p=2),
        "cosine": lambda: F.cosine_similarity(L((3, 4), 87), L((3, 4), 88), dim=1, eps=1e-6),
        "expand": lambda: L((3, 1), 89).expand(3, 4), "repeat": lambda: L((2, 3), 90).repeat(2, 1, 2),
        "flip": lambda: L((2, 3), 91).flip(1), "roll": lambda: L((2, 3), 92).roll(2, 1),
        "permute": lambda: L((2, 3, 4), 93).permute(2, 0, 1), "movedim": lambda: L((2, 3, 4), 94).movedim(0, 2),
        "squeeze_d": lambda: L((2, 1, 3), 95).squeeze(1), "unsqueeze_d": lambda: L((2, 3), 96).unsqueeze(2),
        "split_s": lambda: L((7, 2), 97).split(3)[1], "chunk_s": lambda: L((7, 2), 98).chunk(3, dim=0)[2],
        "stack_d": lambda: m.stack([L((2, 3), 99), L((2, 3), 100)], dim=2),
        "cat_d": lambda: m.cat([L((2, 3), 101), L((2, 1), 102)], dim=1),
        "select_d": lambda: L((3, 4), 103).select(1, 2), "slice_s": lambda: L((9, 2), 104)[1:8:3],
        "masked_select": lambda: L((3, 4), 105).masked_select(m.tensor([True, False, True, True])),
        "take": lambda: L((3, 4), 106).take(m.tensor([0, 5, 11])),
        "lerp_s": lambda: m.lerp(L((4,), 107), L((4,), 108), 0.3),
        "rrelu_eval": lambda: F.rrelu(L((5,), 109), 0.1, 0.3, training=False),
        "threshold": lambda: F.threshold(L((5,), 110), 0.1, -2.0), "hardshrink": lambda: F.hardshrink(L((5,), 111), 0.3),
        "softshrink": lambda: F.softshrink(L((5,), 112), 0.3), "prelu": lambda: F.prelu(L((2, 3), 113), L((3,), 114)),
        "silu_s": lambda: F.silu(L((5,), 115)), "gelu_n": lambda: F.gelu(L((5,), 116)),
        "logit_e": lambda: m.logit(L((5,), 117, 0.1, 0.9), eps=0.2), "polygamma": lambda: m.polygamma(2, L((5,), 118, 0.5, 2.0)),
        "mvlgamma": lambda: m.mvlgamma(L((5,), 119, 2.0, 3.0), 2), "xlogy_s": lambda: m.xlogy(L((5,), 120), 2.5),
        "matmul_b": lambda: m.matmul(L((2, 3, 4), 121), L((4, 2), 122)), "mv": lambda: m.mv(L((3, 4), 123), L((4,), 124)),
        "outer": lambda: m.outer(L((3,), 125), L((2,), 126)), "dot": lambda: m.dot(L((3,), 127), L((3,), 128)),
        "linear_nb": lambda: F.linear(L((2, 3), 129), L((4, 3), 130)),
        "linear_3d": lambda: F.linear(L((2, 2, 3), 131), L((4, 3), 132), L((4,), 133)),
    }


def _graph_pairs(t_out, n_out):
    """The (PyTorch node, nbgrad node) pairs of two graphs walked together, paired by name."""
    out, seen, stack = [], set(), [(t_out.grad_fn, n_out.grad_fn)]
    while stack:
        a, b = stack.pop()
        if a is None or b is None or id(a) in seen or type(a).__name__ != b.name():
            continue
        seen.add(id(a))
        out.append((a, b))
        if len(a.next_functions) == len(b.next_functions):
            stack.extend((x, y) for (x, _), (y, _) in zip(a.next_functions, b.next_functions))
    return out


def _pairs(seed):
    """Every paired node of every call, on leaves drawn from seed."""
    import torch
    import nbgrad
    rng = np.random.default_rng(seed)
    jobs = []
    for calls, nargs in ((lambda m: {**sweeps._binary_calls(m), **extra_calls(m)}, 2), (sweeps._unary_calls, 1)):
        ct, cn = calls(torch), calls(nbgrad)
        jobs += [(ct[k], cn[k], nargs) for k in ct]
    ct, cn = layer_calls(torch), layer_calls(nbgrad)
    jobs += [(ct[k], cn[k], 0) for k in ct]
    for ft, fn, nargs in jobs:
        vals = [rng.uniform(0.2, 0.8, 4) for _ in range(nargs)]
        try:
            to = ft(*[torch.tensor(v, requires_grad=True) for v in vals])
            no = fn(*[nbgrad.tensor(v, requires_grad=True) for v in vals])
        except Exception:                                  # noqa: BLE001  (a call one library refuses)
            continue
        if isinstance(to, torch.Tensor) and to.grad_fn is not None:
            yield from _graph_pairs(to, no)


def _plain(v):
    """A value as comparable data: tensors as (shape, dtype name, values), sizes as tuples."""
    if hasattr(v, "detach"):
        a = v.detach().numpy()
        return ("tensor", a.shape, str(a.dtype), a.tolist())
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    return v


def _same(a, b):
    """Equal data, tensors' values to 1e-12 (one library's exp may round an ulp apart)."""
    if isinstance(a, tuple) and a[:1] == ("tensor",) and isinstance(b, tuple) and b[:1] == ("tensor",):
        return a[1:3] == b[1:3] and np.allclose(a[3], b[3], rtol=1e-12, atol=0, equal_nan=True)
    return a == b


def harvest():
    import torch
    import nbgrad
    found = collections.defaultdict(collections.Counter)
    for a, b in _pairs(1):
        saved = b._unpacked_saved() if b._saved else ()
        attrs = {k: getattr(b, k) for k in set(vars(b)) | {k for c in type(b).__mro__[:-1] for k in vars(c)}
                 if not k.startswith("__") and k not in ("_saved", "_next_fns", "_next_nrs", "_seq")
                 and not callable(getattr(b, k, None))}
        for name in (s[len("_saved_"):] for s in dir(a) if s.startswith("_saved_")):
            v = getattr(a, "_saved_" + name)
            if isinstance(v, torch.Tensor):
                hits = [str(i) for i, s in enumerate(saved) if isinstance(s, nbgrad.Tensor) and _plain(s) == _plain(v)]
            else:
                p = _plain(v)
                hits = [f"meta:{i}" for i, m in enumerate(b.input_meta or ()) if m is not None and tuple(m[0]) == p]
                hits += [k for k, s in attrs.items() if not isinstance(s, nbgrad.Tensor) and type(_plain(s)) is type(p)
                         and _plain(s) == p]
            found[(f"{type(b).__module__[len('nbgrad.'):]}.{type(b).__qualname__}", name)][tuple(hits)] += 1
    for (node, name), counts in sorted(found.items()):
        print(f"{node:36} {name:22} {dict(counts)}")
    return 0


def check():
    import torch
    from nbgrad.autograd._saved_names import SAVED
    differences = checked = 0
    for a, b in _pairs(2):
        cls = type(b)
        entry = SAVED.get(f"{cls.__module__[len('nbgrad.'):]}.{cls.__qualname__}")
        if entry is None:
            continue
        for name in {**entry[0], **entry[1]}:
            try:
                want = getattr(a, "_saved_" + name)
            except (AttributeError, RuntimeError) as e:
                want = type(e).__name__
            try:
                got = getattr(b, "_saved_" + name)
            except (AttributeError, RuntimeError) as e:
                got = type(e).__name__
            checked += 1
            if not _same(_plain(want), _plain(got)) or (isinstance(want, torch.Tensor) and want.requires_grad != got.requires_grad):
                differences += 1
                print(f"{b.name()}._saved_{name}: PyTorch {_plain(want)!r}, nbgrad {_plain(got)!r}")
    print(f"{checked} values checked, {differences} difference(s)")
    return differences


def main(argv=None):
    argv = argv if argv is not None else sys.argv[1:]
    return harvest() if argv[:1] == ["harvest"] else check()


if __name__ == "__main__":
    sys.exit(main())
