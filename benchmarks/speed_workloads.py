"""The speed workloads of issue 5 (W1-W8), each written for nbgrad, NumPy and PyTorch.

`make(workload, library)` returns a zero-argument callable that runs one
measured unit (one forward + backward, one training step, ...); inputs are
built once, outside it.  NumPy carries hand-written gradients: it is the
no-autograd floor.  W7 (a fresh process) is driven by `fresh_process_script`.
Shared by benchmarks/compare.py and the asv suite benchmarks/bench_workloads.py
so that both time exactly the same code.
"""
import numpy as np

N_ELEMENTWISE = 4 * 1024 * 1024
N_SQUARE = 4096
N_MATMUL = 1024
MLP_SIZES = (784, 256, 256, 10)
MLP_BATCH = 128
SMALL_OPS = 1000        # W5: mul/add pairs count as two ops each
SMALL_NUMEL = 16
CHAIN = 100_000         # W8

# name -> (description, unit, per-call scale, target (kind, value) read by compare.py)
# kind: 'torch_time' nbgrad/PyTorch time ratio <= value; 'torch_rate' nbgrad/PyTorch
# rate >= value; 'numpy_rate' nbgrad/NumPy GFLOP/s >= value.
WORKLOADS = {
    "W1": ("((x*w+1).tanh()*x).sum(), 4M, fwd+bwd", "ms", 1e3, ("torch_time", 0.7)),
    # W1 with its elementwise part under @nbgrad.fuse (one kernel forward, one backward);
    # NumPy and PyTorch run W1 exactly as above.
    "W1f": ("W1, nbgrad's as @nbgrad.fuse (others: W1 as is)", "ms", 1e3, ("torch_time", 0.5)),
    "W2": ("4096^2: A.sum(1).sum()+A.max(0).values.sum(), fwd+bwd", "ms", 1e3, ("torch_time", 0.5)),
    "W3": ("(A@B).sum(), 1024^2, fwd+bwd (3 GEMMs)", "ms", 1e3, ("numpy_rate", 0.9)),
    "W4": ("MLP 784-256-256-10, CE, batch 128, SGD step", "ms", 1e3, ("torch_time", 0.8)),
    "W5": ("1000 mul/add on 16 elements + backward", "us/op", 1e6 / SMALL_OPS, ("torch_time", 0.8)),
    "W6": ("4096^2 transposed view -> contiguous()", "ms", 1e3, ("torch_time", 0.4)),
    "W8": ("100k chained x = x + 1 on 1 element + backward", "ms", 1e3, ("torch_time", 1.0)),
}
# Issue 12's size sweep: (a*b + c).tanh().sum().backward() on float32 vectors of these
# sizes, where the fixed cost per call meets the cost per element (targets: <= 1.0x
# PyTorch's time at every size, <= 0.8x from 65,536 elements up).
SWEEP_SIZES = {"S16": 16, "S1K": 1024, "S64K": 65_536, "S1M": 1_048_576, "S16M": 16_777_216}
for _name, _n in SWEEP_SIZES.items():
    WORKLOADS[_name] = (f"(a*b+c).tanh().sum() fwd+bwd, {_n:,} elements", "us" if _n < 65_536 else "ms",
                        1e6 if _n < 65_536 else 1e3, ("torch_time", 1.0 if _n < 65_536 else 0.8))
from benchmarks import conv_workloads  # noqa: E402  (issue 14's conv2d cases C1, C1b, C2, C2b)
WORKLOADS.update(conv_workloads.WORKLOADS)


def _rng():
    return np.random.default_rng(0)


# --------------------------------------------------------------------------- nbgrad

def _nbgrad(workload):
    import nbgrad
    if workload == "W4":
        return _nbgrad_mlp_step()
    if workload != "W1f":
        return _autograd(nbgrad, workload)
    # W1 with its elementwise part under @nbgrad.fuse
    rng = _rng()
    x, w = (nbgrad.from_numpy(rng.standard_normal(N_ELEMENTWISE, dtype=np.float32)).requires_grad_()
            for _ in range(2))

    @nbgrad.fuse
    def f(x, w):
        return (x * w + 1).tanh() * x

    def run():
        x.grad = w.grad = None
        f(x, w).sum().backward()
    return run


def _autograd(lib, workload):
    """W1-W3, W5, W6, W8 and the size sweep, written once for nbgrad and PyTorch: the same
    public API, so both libraries time exactly the same program."""

    def leaf(array, requires_grad=True):
        return lib.from_numpy(np.ascontiguousarray(array)).requires_grad_(requires_grad)

    rng = _rng()
    if workload == "W1":
        x = leaf(rng.standard_normal(N_ELEMENTWISE, dtype=np.float32))
        w = leaf(rng.standard_normal(N_ELEMENTWISE, dtype=np.float32))

        def run():
            x.grad = w.grad = None
            ((x * w + 1).tanh() * x).sum().backward()
        return run
    if workload == "W2":
        a = leaf(rng.standard_normal((N_SQUARE, N_SQUARE), dtype=np.float32))

        def run():
            a.grad = None
            (a.sum(1).sum() + a.max(0).values.sum()).backward()
        return run
    if workload == "W3":
        a = leaf(rng.standard_normal((N_MATMUL, N_MATMUL), dtype=np.float32))
        b = leaf(rng.standard_normal((N_MATMUL, N_MATMUL), dtype=np.float32))

        def run():
            a.grad = b.grad = None
            (a @ b).sum().backward()
        return run
    if workload == "W5":
        x = leaf(rng.uniform(-1, 1, SMALL_NUMEL).astype(np.float32))
        w = leaf(rng.uniform(0.2, 0.8, SMALL_NUMEL).astype(np.float32))

        def run():
            x.grad = w.grad = None
            y = x
            for _ in range(SMALL_OPS // 2):
                y = y * w
                y = y + x
            y.sum().backward()
        return run
    if workload == "W6":
        a = leaf(rng.standard_normal((N_SQUARE, N_SQUARE), dtype=np.float32), False)

        def run():
            return a.t().contiguous()
        return run
    if workload == "W8":
        x0 = leaf(np.zeros(1, dtype=np.float32))

        def run():
            x0.grad = None
            x = x0
            for _ in range(CHAIN):
                x = x + 1
            x.sum().backward()
        return run
    if workload in SWEEP_SIZES:
        a, b, c = (leaf(v) for v in _sweep_inputs(workload))

        def run():
            a.grad = b.grad = c.grad = None
            (a * b + c).tanh().sum().backward()
        return run
    raise KeyError(workload)


def _sweep_inputs(workload):
    rng = _rng()
    return [rng.standard_normal(SWEEP_SIZES[workload], dtype=np.float32) for _ in range(3)]


def _nbgrad_mlp_step():
    """One W4 training step with nbgrad.nn/optim (a hand-made MLP if they are missing)."""
    import nbgrad
    nbgrad.manual_seed(0)
    rng = _rng()
    x = nbgrad.from_numpy(rng.standard_normal((MLP_BATCH, MLP_SIZES[0]), dtype=np.float32))
    y = nbgrad.from_numpy(rng.integers(0, MLP_SIZES[-1], MLP_BATCH))
    try:
        from nbgrad import nn, optim
    except ImportError:
        nn = None
    if nn is not None:
        i, h1, h2, o = MLP_SIZES
        model = nn.Sequential(nn.Linear(i, h1), nn.ReLU(), nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, o))
        opt = optim.SGD(model.parameters(), lr=0.01)
        loss_fn = nn.CrossEntropyLoss()

        def run():
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        return run
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = fan_in ** -0.5
        params.append(nbgrad.from_numpy(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
                      .requires_grad_())
        params.append(nbgrad.from_numpy(rng.uniform(-bound, bound, fan_out).astype(np.float32))
                      .requires_grad_())
    onehot = nbgrad.from_numpy(np.eye(MLP_SIZES[-1], dtype=np.float32)[y.numpy()])

    def run():
        for p in params:
            p.grad = None
        h = x
        for layer in range(3):
            h = h @ params[2 * layer].t() + params[2 * layer + 1]
            if layer < 2:
                h = h.relu()
        loss = -(h.log_softmax(1) * onehot).sum() / MLP_BATCH
        loss.backward()
        with nbgrad.no_grad():
            for p in params:
                p -= 0.01 * p.grad
    return run


# --------------------------------------------------------------------------- numpy

def _numpy(workload):
    rng = _rng()
    if workload == "W1":
        x = rng.standard_normal(N_ELEMENTWISE, dtype=np.float32)
        w = rng.standard_normal(N_ELEMENTWISE, dtype=np.float32)

        def run():
            t = np.tanh(x * w + 1)
            loss = (t * x).sum()
            gu = x * (1 - t * t)
            return loss, gu * w + t, gu * x
        return run
    if workload == "W2":
        a = rng.standard_normal((N_SQUARE, N_SQUARE), dtype=np.float32)
        cols = np.arange(N_SQUARE)

        def run():
            idx = a.argmax(0)
            loss = a.sum(1).sum() + a[idx, cols].sum()
            g = np.ones_like(a)
            g[idx, cols] += 1
            return loss, g
        return run
    if workload == "W3":
        a = rng.standard_normal((N_MATMUL, N_MATMUL), dtype=np.float32)
        b = rng.standard_normal((N_MATMUL, N_MATMUL), dtype=np.float32)

        def run():
            loss = (a @ b).sum()
            g = np.ones((N_MATMUL, N_MATMUL), dtype=np.float32)
            return loss, g @ b.T, a.T @ g
        return run
    if workload == "W4":
        return _numpy_mlp_step()
    if workload == "W5":
        x = rng.uniform(-1, 1, SMALL_NUMEL).astype(np.float32)
        w = rng.uniform(0.2, 0.8, SMALL_NUMEL).astype(np.float32)

        def run():
            ys = []
            y = x
            for _ in range(SMALL_OPS // 2):
                ys.append(y)
                y = y * w
                y = y + x
            gy = np.ones_like(x)
            gx = np.zeros_like(x)
            gw = np.zeros_like(w)
            for y in reversed(ys):
                gx += gy
                gw += gy * y
                gy = gy * w
            return gx + gy, gw
        return run
    if workload == "W6":
        a = rng.standard_normal((N_SQUARE, N_SQUARE), dtype=np.float32)
        return lambda: np.ascontiguousarray(a.T)
    if workload == "W8":
        x0 = np.zeros(1, dtype=np.float32)

        def run():
            x = x0
            for _ in range(CHAIN):
                x = x + 1
            return x.sum(), np.ones_like(x0)
        return run
    if workload in SWEEP_SIZES:
        a, b, c = _sweep_inputs(workload)

        def run():
            t = np.tanh(a * b + c)
            loss = t.sum()
            gu = 1 - t * t
            return loss, gu * b, gu * a, gu
        return run
    raise KeyError(workload)


def _numpy_mlp_step():
    rng = _rng()
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0]), dtype=np.float32)
    y = rng.integers(0, MLP_SIZES[-1], MLP_BATCH)
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = fan_in ** -0.5
        params.append([rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32),
                       rng.uniform(-bound, bound, fan_out).astype(np.float32)])
    rows = np.arange(MLP_BATCH)

    def run():
        acts = [x]
        h = x
        for layer, (w, b) in enumerate(params):
            h = h @ w + b
            if layer < 2:
                h = np.maximum(h, 0)
            acts.append(h)
        z = h - h.max(1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(1, keepdims=True)
        loss = -np.log(p[rows, y]).mean()
        g = p
        g[rows, y] -= 1
        g /= MLP_BATCH
        for layer in (2, 1, 0):
            w, b = params[layer]
            gw = acts[layer].T @ g
            gb = g.sum(0)
            if layer:
                g = (g @ w.T) * (acts[layer] > 0)
            w -= 0.01 * gw
            b -= 0.01 * gb
        return loss
    return run


# --------------------------------------------------------------------------- torch

def _torch(workload):
    import torch
    if workload != "W4":
        return _autograd(torch, workload)
    rng = _rng()
    from torch import nn
    torch.manual_seed(0)
    x = torch.from_numpy(rng.standard_normal((MLP_BATCH, MLP_SIZES[0]), dtype=np.float32))
    y = torch.from_numpy(rng.integers(0, MLP_SIZES[-1], MLP_BATCH))
    i, h1, h2, o = MLP_SIZES
    model = nn.Sequential(nn.Linear(i, h1), nn.ReLU(), nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, o))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def run():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return run


def make(workload, library):
    if workload in conv_workloads.WORKLOADS:
        return conv_workloads.make(workload, library)
    if workload == "W1f" and library != "nbgrad":
        workload = "W1"
    return {"nbgrad": _nbgrad, "numpy": _numpy, "torch": _torch}[library](workload)


# --------------------------------------------------------------------------- W7

def fresh_process_script(library):
    """Python source for W7: import, build the W4 model, run one step; prints nothing."""
    if library == "torch":
        return ("import torch\ntorch.set_num_threads(2)\n"
                "import benchmarks.speed_workloads as S\nS.make('W4', 'torch')()\n")
    return "import benchmarks.speed_workloads as S\nS.make('W4', 'nbgrad')()\n"


def peak_rss_script(workload, library):
    """Python source printing 'rss_before peak_after' in KiB around one run (after a warm-up).

    Read from /proc/self/status (VmRSS, VmHWM): unlike getrusage's ru_maxrss,
    VmHWM starts afresh in a new program instead of inheriting the parent's peak.
    """
    setup = "import torch\ntorch.set_num_threads(2)\n" if library == "torch" else ""
    return (setup + "import gc, benchmarks.speed_workloads as S\n"
            "def status(key):\n"
            "    for line in open('/proc/self/status'):\n"
            "        if line.startswith(key):\n"
            "            return int(line.split()[1])\n"
            f"run = S.make({workload!r}, {library!r})\nrun()\ngc.collect()\n"
            "before = status('VmRSS:')\n"
            "run()\n"
            "print(before, status('VmHWM:'))\n")
