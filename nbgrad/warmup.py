"""Precompile (or load from Numba's cache) the kernels a training step needs.

    python -m nbgrad.warmup                   # float32
    python -m nbgrad.warmup float32 float64   # several dtypes

Runs, on tiny tensors, what a typical training step runs: elementwise ops
(contiguous, broadcast scalar, strided), activations and their fused
backwards, reductions over rows and columns, transposed copies, matmul
forward and backward, cross-entropy/MSE and the SGD/Adam updates.  Each
kernel signature is compiled once and cached on disk (`cache=True`), so the
next process starts warm.  Uses only the public API.
"""
import sys
import time

import nbgrad
from nbgrad import nn, optim

_TILE_SIDE = 70   # above the blocked-transpose tile (64): compiles that path too


def warm(dtype=nbgrad.float32):
    """Run one representative training step and a sweep of common ops in `dtype`."""
    nbgrad.manual_seed(0)
    x = nbgrad.randn(8, 16, dtype=dtype, requires_grad=True)
    w = nbgrad.randn(8, 16, dtype=dtype, requires_grad=True)
    y = ((x * w + 1).tanh() * x).sum() + (x - w).sigmoid().mean() + (x / (w.abs() + 1)).exp().sum()
    y = y + x.relu().sum(1).sum() + x.max(0).values.sum() + (x.t() @ w).sum() + (x.abs() + 1).log().sum()
    y = y + (x ** 2).mean() + x.t().contiguous().sum(0).sum() + (x[::2] * w[1::2]).sum()
    y.backward()
    big = nbgrad.randn(_TILE_SIDE, _TILE_SIDE, dtype=dtype)
    big.t().contiguous()
    big.sum(0)
    big.max(1)
    for opt_cls, kw in ((optim.SGD, {"lr": 0.1, "momentum": 0.9}), (optim.Adam, {"lr": 1e-3})):
        model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4)).to(dtype)
        opt = opt_cls(model.parameters(), **kw)
        inp = nbgrad.randn(5, 16, dtype=dtype)
        target = nbgrad.randint(0, 4, (5,))
        for loss_fn, tgt in ((nn.CrossEntropyLoss(), target), (nn.MSELoss(), nbgrad.randn(5, 4, dtype=dtype))):
            opt.zero_grad()
            loss_fn(model(inp), tgt).backward()
            opt.step()


def main(argv=None):
    names = (sys.argv[1:] if argv is None else argv) or ["float32"]
    for name in names:
        start = time.perf_counter()
        warm(getattr(nbgrad, name))
        print(f"nbgrad.warmup: {name} kernels ready in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
