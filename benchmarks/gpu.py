"""GPU benchmarks of issue 6, nbgrad beside PyTorch on the same GPU (when torch with CUDA is installed).

  W1      ((x*w+1).tanh()*x).sum() forward + backward, 64M float32 elements
  matmul  4096x4096 float32 a @ b forward + backward (PyTorch with TF32 off)
  sum1    8192x8192 float32 x.sum(1) forward + backward
  MLP     784-256-256-10, cross-entropy, SGD step, batch 1024
  tiles   the matmul kernel's tile configurations, each timed on a 4096x4096 forward in float32
          and float64 (nbgrad.cuda.tune_matmul, which makes the fastest the default for its dtype,
          so the matmul workload above runs with it), then forward + backward with the chosen one

Each is timed with CUDA events around `reps` runs after warm-up runs (which
also pay every kernel's compilation); the median per-run time is reported.
W1's bandwidth counts the bytes a single fused pass must move (read x and w,
write both gradients: 16 bytes per element) against the device-to-device copy
bandwidth measured here.  Run on a machine with a GPU:

    python benchmarks/gpu.py            # full sizes
    python benchmarks/gpu.py --quick    # small sizes, a smoke test

The same workloads are asv benchmarks (the classes at the end: `asv run -b gpu`),
parameterized by library; their setup raises NotImplementedError, which asv
reports as skipped, where there is no GPU (or, for "torch", no PyTorch with
CUDA), so `asv run` is clean on every machine.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import nbgrad  # noqa: E402


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch


def measure_nbgrad(run, warmup, reps):
    from numba import cuda
    for _ in range(warmup):
        run()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        if nbgrad.cuda.is_simulated():  # the simulator's events record no time
            t = time.perf_counter()
            run()
            times.append(time.perf_counter() - t)
            continue
        start, stop = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def measure_torch(torch, run, warmup, reps):
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


# --------------------------------------------------------------------------- #
# Workloads: each returns a no-argument function doing one forward + backward

def w1(lib, n, rng):
    x = lib.tensor(rng.standard_normal(n, dtype=np.float32), device="cuda").requires_grad_(True)
    w = lib.tensor(rng.standard_normal(n, dtype=np.float32), device="cuda").requires_grad_(True)

    def run():
        x.grad = w.grad = None
        ((x * w + 1).tanh() * x).sum().backward()
    return run


def matmul(lib, n, rng, dtype=np.float32):
    a = lib.tensor(rng.standard_normal((n, n)).astype(dtype), device="cuda").requires_grad_(True)
    b = lib.tensor(rng.standard_normal((n, n)).astype(dtype), device="cuda").requires_grad_(True)

    def run():
        a.grad = b.grad = None
        (a @ b).sum().backward()
    return run


def sum1(lib, n, rng):
    x = lib.tensor(rng.standard_normal((n, n), dtype=np.float32), device="cuda").requires_grad_(True)

    def run():
        x.grad = None
        x.sum(1).sum().backward()
    return run


MLP_SIZES = [784, 256, 256, 10]


def mlp(lib, batch, rng):
    nn, F = lib.nn, lib.nn.functional
    i, h1, h2, o = MLP_SIZES
    model = nn.Sequential(nn.Linear(i, h1), nn.ReLU(), nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, o)).to("cuda")
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.tensor(rng.standard_normal((batch, i), dtype=np.float32), device="cuda")
    y = lib.tensor(rng.integers(0, o, batch), device="cuda")

    def run():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return run


def copy_bandwidth(lib, n, rng, timer):
    """Device-to-device copy bandwidth (bytes read + written per second) of a clone."""
    x = lib.tensor(rng.standard_normal(n, dtype=np.float32), device="cuda")
    return 2 * 4 * n / timer(lambda: x.clone())


def matmul_tile_sweep(n, reps, budget_s, rng, nb_timer, th_timer):
    """Time every tile configuration of nbgrad's matmul kernel on an n x n forward, float32 and
    float64 (nbgrad.cuda.tune_matmul: the fastest becomes that dtype's default), then time
    forward + backward with the chosen one; print a table.  budget_s: seconds for the whole sweep
    (tune_matmul starts no configuration after its share; those print as '-')."""
    names = nbgrad.cuda.matmul_tiles()
    flops = 2 * n ** 3
    swept = {}
    for dtype in (nbgrad.float32, nbgrad.float64):
        # the simulator's timings mean nothing: no choice saved for later processes (tests among them)
        swept[dtype] = nbgrad.cuda.tune_matmul(n=n, dtype=dtype, reps=reps, budget_s=budget_s / 2,
                                               persist=not nbgrad.cuda.is_simulated())
    print(f"\nmatmul tiles: {n}x{n} a@b forward, median of {reps} (the fastest is chosen per dtype)")
    print(f"{'tile':<16} {'f32 ms':>9} {'f32 TFLOP/s':>12} {'f64 ms':>9} {'f64 TFLOP/s':>12}")
    for name in names:
        cells = []
        for dtype in (nbgrad.float32, nbgrad.float64):
            t = swept[dtype].get(name)
            cells += [f"{t * 1e3:9.3f}", f"{flops / t / 1e12:12.2f}"] if t else [f"{'-':>9}", f"{'-':>12}"]
        print(f"{name:<16} " + " ".join(cells))
    for dtype, np_dtype in ((nbgrad.float32, np.float32), (nbgrad.float64, np.float64)):
        chosen = nbgrad.cuda.get_matmul_tile(dtype)
        nb = nb_timer(matmul(nbgrad, n, rng, np_dtype))
        torch = _torch_cuda()
        th = th_timer(matmul(torch, n, rng, np_dtype)) if torch else None
        print(f"chosen {dtype.name}: {chosen}; fwd+bwd {nb * 1e3:.3f} ms ({3 * flops / nb / 1e12:.2f} TFLOP/s)"
              + (f", torch {th * 1e3:.3f} ms: nbgrad/torch speed {th / nb:.2f}x" if th else ""), flush=True)
        nbgrad.cuda.synchronize()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--tiny", action="store_true",
                        help="tiny sizes; also runs under the CUDA simulator (checks the script, not speed)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--tile-budget", type=float, default=60.0,
                        help="seconds for the matmul tile sweep (configurations not started by then are skipped)")
    parser.add_argument("--no-tiles", action="store_true", help="skip the matmul tile sweep")
    args = parser.parse_args()
    if not nbgrad.cuda.is_available() and not (args.tiny and nbgrad.cuda.is_simulated()):
        print("no GPU: nbgrad.cuda.is_available() is False (numba-cuda, a driver and a GPU are needed)")
        return 1
    n_w1, n_mm, n_sum, batch = (1 << 20, 512, 1024, 128) if args.quick else (64 << 20, 4096, 8192, 1024)
    if args.tiny:
        n_w1, n_mm, n_sum, batch = 1 << 12, 8, 16, 4
        MLP_SIZES[:] = [8, 6, 6, 3]
    torch = _torch_cuda()
    rng = np.random.default_rng(0)
    print(f"GPU: {nbgrad.cuda.get_device_name()}; PyTorch: {torch.__version__ if torch else 'not available'}")

    def nb_timer(run):
        return measure_nbgrad(run, args.warmup, args.reps)  # noqa

    def th_timer(run):
        return measure_torch(torch, run, args.warmup, args.reps)

    rows = []
    t0 = time.perf_counter()
    if not args.no_tiles:   # first: the matmul workload then runs with the measured choice
        matmul_tile_sweep(n_mm, 3, args.tile_budget, rng, nb_timer, th_timer if torch else None)
        print(f"  (tile sweep {time.perf_counter() - t0:.0f} s)\n", flush=True)
    workloads = [
        ("W1", f"((x*w+1).tanh()*x).sum() fwd+bwd, {n_w1 / 2**20:g}M f32", w1, n_w1),
        ("matmul", f"{n_mm}x{n_mm} f32 a@b fwd+bwd", matmul, n_mm),
        ("sum1", f"{n_sum}x{n_sum} f32 x.sum(1) fwd+bwd", sum1, n_sum),
        ("MLP", f"{'-'.join(map(str, MLP_SIZES))} CE+SGD step, batch {batch}", mlp, batch),
    ]
    results = {}
    for key, label, make, size in workloads:
        nb = nb_timer(make(nbgrad, size, rng))
        th = th_timer(make(torch, size, rng)) if torch else None
        results[key] = (nb, th)
        rows.append((key, label, nb, th))
        print(f"  {key}: nbgrad {nb * 1e3:.3f} ms" + (f", torch {th * 1e3:.3f} ms" if th else ""), flush=True)
        nbgrad.cuda.synchronize()

    copy_nb = copy_bandwidth(nbgrad, n_w1, rng, nb_timer)
    copy_th = copy_bandwidth(torch, n_w1, rng, th_timer) if torch else None
    w1_bytes = 16 * n_w1
    flops_mm = 3 * 2 * n_mm ** 3

    print()
    print(f"{'workload':<8} {'what':<44} {'nbgrad ms':>10} {'torch ms':>10} {'nbgrad/torch speed':>19}  notes")
    for key, label, nb, th in rows:
        ratio = f"{th / nb:.2f}x" if th else "-"
        note = ""
        if key == "W1":
            note = (f"{w1_bytes / nb / 1e9:.0f} GB/s (16 B/elem) = {w1_bytes / nb / copy_nb:.0%} of nbgrad copy, "
                    + (f"{w1_bytes / nb / copy_th:.0%} of torch copy ({copy_th / 1e9:.0f} GB/s)" if copy_th else ""))
        elif key == "matmul":
            note = f"{flops_mm / nb / 1e12:.1f} TFLOP/s" + (f" (torch {flops_mm / th / 1e12:.1f})" if th else "")
        elif key == "MLP":
            note = f"{1 / nb:.0f} steps/s" + (f" (torch {1 / th:.0f})" if th else "")
        th_ms = f"{th * 1e3:10.3f}" if th else f"{'-':>10}"
        print(f"{key:<8} {label:<44} {nb * 1e3:10.3f} {th_ms} {ratio:>19}  {note}")
    print(f"\ncopy bandwidth (clone, read+write): nbgrad {copy_nb / 1e9:.0f} GB/s"
          + (f", torch {copy_th / 1e9:.0f} GB/s" if copy_th else ""))
    print("targets (H200): W1 >= 60% of copy bandwidth; matmul >= 0.25x torch; MLP >= 0.5x torch steps/s")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


# --------------------------------------------------------------------------- #
# asv benchmarks: skipped (NotImplementedError in setup) without a GPU

def _library(name):
    """nbgrad or torch on a usable GPU, else NotImplementedError (asv: skipped)."""
    if name == "nbgrad":
        if not nbgrad.cuda.is_available():
            raise NotImplementedError("no GPU: nbgrad.cuda.is_available() is False")
        return nbgrad
    torch = _torch_cuda()
    if torch is None:
        raise NotImplementedError("no PyTorch with CUDA")
    return torch


def _synchronize(lib):
    (nbgrad.cuda if lib is nbgrad else lib.cuda).synchronize()


class _GPUWorkload:
    params = ["nbgrad", "torch"]
    param_names = ["library"]
    timeout = 300
    make, size = None, None

    def setup(self, library):
        self.lib = _library(library)
        self.run = type(self).make(self.lib, self.size, np.random.default_rng(0))
        self.run()                       # compiles (or loads from the disk cache) every kernel
        _synchronize(self.lib)

    def step(self):
        self.run()
        _synchronize(self.lib)           # the kernels' time, not only their launch


class W1(_GPUWorkload):
    """((x*w+1).tanh()*x).sum() forward + backward, 64M float32 elements."""
    make, size = staticmethod(w1), 64 << 20

    def time_fwd_bwd(self, library):
        self.step()


class Matmul(_GPUWorkload):
    """4096x4096 float32 a @ b forward + backward."""
    make, size = staticmethod(matmul), 4096

    def time_fwd_bwd(self, library):
        self.step()


class Sum1(_GPUWorkload):
    """8192x8192 float32 x.sum(1) forward + backward."""
    make, size = staticmethod(sum1), 8192

    def time_fwd_bwd(self, library):
        self.step()


class MLP(_GPUWorkload):
    """784-256-256-10 MLP, cross-entropy, SGD step, batch 1024."""
    make, size = staticmethod(mlp), 1024

    def time_step(self, library):
        self.step()

    def track_peak_memory(self, library):
        """Peak device memory of one step (torch.cuda / nbgrad.cuda's max_memory_allocated)."""
        cuda = nbgrad.cuda if self.lib is nbgrad else self.lib.cuda
        cuda.reset_peak_memory_stats()
        self.step()
        return cuda.max_memory_allocated()
    track_peak_memory.unit = "bytes"


if __name__ == "__main__":
    sys.exit(main())
