"""Precompile (or load from Numba's cache) the kernels a training step needs.

    python -m nbgrad.warmup                   # float32
    python -m nbgrad.warmup float32 float64   # several dtypes
    python -m nbgrad.warmup --device cuda     # the CUDA kernels (on a GPU)

Runs, on tiny tensors, what a typical training step runs: elementwise ops
(contiguous, broadcast scalar, strided), activations and their fused
backwards, reductions over rows and columns, transposed copies, matmul
forward and backward, cross-entropy/MSE and the SGD/Adam updates.  Each
kernel signature is compiled once and cached on disk (`cache=True`), so the
next process starts warm.  Uses only the public API.

On CUDA the module-level kernels are cached on disk (NBGRAD_CUDA_CACHE=0 turns
that off); the kernels made by factories (elementwise ops, reductions, matmul
tiles, casting copies) are compiled once per process, so there the warm-up pays
their compilation up front rather than in the first training step.  Under
Numba's CUDA simulator nothing is compiled: the run only checks the script.
"""
import argparse
import sys
import time

import nbgrad
from nbgrad import nn, optim

_TILE_SIDE = 70   # above the blocked-transpose tile (64): compiles that path too


def warm(dtype=nbgrad.float32, device="cpu"):
    """Run one representative training step and a sweep of common ops in `dtype` on `device`."""
    nbgrad.manual_seed(0)
    x = nbgrad.randn(8, 16, dtype=dtype, device=device, requires_grad=True)
    w = nbgrad.randn(8, 16, dtype=dtype, device=device, requires_grad=True)
    y = ((x * w + 1).tanh() * x).sum() + (x - w).sigmoid().mean() + (x / (w.abs() + 1)).exp().sum()
    y = y + x.relu().sum(1).sum() + x.max(0).values.sum() + (x.t() @ w).sum() + (x.abs() + 1).log().sum()
    y = y + (x ** 2).mean() + x.t().contiguous().sum(0).sum() + (x[::2] * w[1::2]).sum()
    y.backward()
    if device == "cuda" and not nbgrad.cuda.is_simulated():
        # a product of few blocks takes the small matmul tile (above), one of many blocks the
        # large tile (backends/cuda/matmul_tiles.py): a batch of 256 tiny products compiles that one
        many = nbgrad.randn(256, 2, 2, dtype=dtype, device=device)
        many @ many
    big = nbgrad.randn(_TILE_SIDE, _TILE_SIDE, dtype=dtype, device=device)
    big.t().contiguous()
    big.sum(0)
    big.max(1)
    for opt_cls, kw in ((optim.SGD, {"lr": 0.1, "momentum": 0.9}), (optim.Adam, {"lr": 1e-3})):
        model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4)).to(device=device, dtype=dtype)
        opt = opt_cls(model.parameters(), **kw)
        inp = nbgrad.randn(5, 16, dtype=dtype, device=device)
        target = nbgrad.randint(0, 4, (5,), device=device)
        mse_target = nbgrad.randn(5, 4, dtype=dtype, device=device)
        for loss_fn, tgt in ((nn.CrossEntropyLoss(), target), (nn.MSELoss(), mse_target)):
            opt.zero_grad()
            loss_fn(model(inp), tgt).backward()
            opt.step()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m nbgrad.warmup", description=__doc__.splitlines()[0])
    parser.add_argument("dtypes", nargs="*", default=["float32"], help="dtype names (default float32)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.device == "cuda" and not (nbgrad.cuda.is_available() or nbgrad.cuda.is_simulated()):
        print("nbgrad.warmup: no GPU (nbgrad.cuda.is_available() is False): nothing to warm on cuda")
        return 1
    for name in args.dtypes:
        start = time.perf_counter()
        warm(getattr(nbgrad, name), args.device)
        if args.device == "cuda":
            nbgrad.cuda.synchronize()
        where = " (CUDA simulator: nothing compiled)" if args.device == "cuda" and nbgrad.cuda.is_simulated() else ""
        print(f"nbgrad.warmup: {name} {args.device} kernels ready in {time.perf_counter() - start:.1f} s{where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
