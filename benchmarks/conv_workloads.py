"""Issue 14's conv2d workloads (C1, C2: forward; C1b, C2b: backward alone), for nbgrad, NumPy, PyTorch.

Case A (C1): batch 64, 1 -> 16 channels, 12x12, 3x3, padding 1 (a LeNet layer on the digits);
case B (C2): batch 32, 64 -> 64 channels, 32x32, 3x3, padding 1 (a ResNet block's conv).  A
forward sample is one conv2d(x, w, b) of inputs that require grad (the graph is recorded, as
in training); a backward sample is one autograd.grad of a recorded output with respect to x,
w and b (retain_graph, so the same graph runs again).  NumPy is an im2col (sliding windows)
with tensordot and its hand-written adjoint.  Registered in speed_workloads.WORKLOADS.
"""
import numpy as np

CASES = {"C1": (64, 1, 16, 12), "C2": (32, 64, 64, 32)}     # batch, in, out channels, size

WORKLOADS = {
    "C1": ("conv2d fwd: 64x1x12x12 -> 16 ch, 3x3, pad 1", "ms", 1e3, ("torch_time", 1.25)),
    "C1b": ("conv2d bwd (x, w, b) of C1", "ms", 1e3, ("torch_time", 1.25)),
    "C2": ("conv2d fwd: 32x64x32x32 -> 64 ch, 3x3, pad 1", "ms", 1e3, ("torch_time", 1.25)),
    "C2b": ("conv2d bwd (x, w, b) of C2", "ms", 1e3, ("torch_time", 1.25)),
}


def _arrays(case):
    n, ci, co, size = CASES[case]
    rng = np.random.default_rng(0)
    return (rng.standard_normal((n, ci, size, size), dtype=np.float32),
            rng.standard_normal((co, ci, 3, 3), dtype=np.float32) * 0.1,
            rng.standard_normal(co, dtype=np.float32),
            rng.standard_normal((n, co, size, size), dtype=np.float32))


def make(workload, library):
    case, backward = workload[:2], workload.endswith("b")
    x, w, b, g = _arrays(case)
    if library == "numpy":
        return _numpy(x, w, b, g, backward)
    lib = __import__("nbgrad" if library == "nbgrad" else "torch")
    F = lib.nn.functional
    X, W, B = (lib.from_numpy(a).requires_grad_() for a in (x, w, b))
    if not backward:
        return lambda: F.conv2d(X, W, B, padding=1)
    y = F.conv2d(X, W, B, padding=1)
    G = lib.from_numpy(g)
    return lambda: lib.autograd.grad(y, (X, W, B), G, retain_graph=True)


def _windows(xp, k=3):
    return np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))    # (n, c, h, w, k, k)


def _numpy(x, w, b, g, backward):
    pad = ((0, 0), (0, 0), (1, 1), (1, 1))

    def forward():
        out = np.tensordot(_windows(np.pad(x, pad)), w, axes=([1, 4, 5], [1, 2, 3]))   # (n, h, w, o)
        return np.ascontiguousarray(out.transpose(0, 3, 1, 2)) + b[:, None, None]

    def grads():
        gw = np.tensordot(g, _windows(np.pad(x, pad)), axes=([0, 2, 3], [0, 2, 3]))      # (o, c, k, k)
        gx = np.tensordot(_windows(np.pad(g, pad)), w[:, :, ::-1, ::-1], axes=([1, 4, 5], [0, 2, 3]))
        return np.ascontiguousarray(gx.transpose(0, 3, 1, 2)), gw, g.sum((0, 2, 3))
    return grads if backward else forward
