"""Issue 5's speed table: nbgrad beside NumPy (hand-written gradients) and PyTorch CPU.

Targets are issue 12's (eager speed): W1 <= 0.7x, W4 <= 0.8x, W5 <= 0.8x, W8 <= 1.0x
PyTorch's time; the size sweep S16..S16M <= 1.0x, <= 0.8x from 65,536 elements up.

    python benchmarks/compare.py            # full run: 7 samples per library
    python benchmarks/compare.py --quick    # 5 samples, W7 cold once, W8 RSS skipped
    python benchmarks/compare.py W1 W4      # only some workloads
    python benchmarks/compare.py S16 S1K S64K S1M S16M   # issue 12's size sweep
    python benchmarks/compare.py C1 C1b C2 C2b   # conv2d forward / backward (conv_workloads.py)
    python benchmarks/compare.py U1 U2      # user ops (issue 15) against nbgrad's built-ins

Everyone gets 2 threads (NUMBA_NUM_THREADS, OPENBLAS/OMP/MKL_NUM_THREADS,
torch.set_num_threads).  Per workload every library is built and warmed up
first (compilation is never timed), then samples alternate between the
libraries so that a noisy, shared machine slows all of them alike.  A sample
is a run of back-to-back calls (~0.1 s; one forward + backward, one training
step...) after a 0.25 s pause that lets the previous library's BLAS/OpenMP
threads stop spinning.  Printed: the
medians, nbgrad/PyTorch and nbgrad/NumPy time ratios (below 1: nbgrad is
faster) and the issue's target.  W7 starts fresh processes: import + build
+ first W4 step, nbgrad with a warm and with a cold kernel cache (a fresh
NUMBA_CACHE_DIR).  W8 also reports each library's peak RSS growth over one
run, measured in a fresh process.  PyTorch is optional: without it its
columns read '-'.
"""
import os

for _var in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "2"

import argparse  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# PyTorch, where installed, is imported before nbgrad.  nbgrad's import moves the heap that
# exists then out of the collector's full walks (gc.freeze, nbgrad/_gc.py), as it would in a
# process of nbgrad's own.  Imported after, torch's ~150,000 tracked objects were walked by
# every full collection that nbgrad's graph objects trigger: W8 535 -> 620 ms.  PyTorch's
# graph is C++ and triggers none, so the order changes nothing for its columns.
try:
    import torch  # noqa: E402, F401
except ImportError:
    pass
import nbgrad  # noqa: E402, F401

from benchmarks import speed_workloads as S  # noqa: E402
from benchmarks import jax_workloads as J  # noqa: E402


def have_torch():
    try:
        import torch
    except ImportError:
        return False
    torch.set_num_threads(2)
    return True


# BLAS and OpenMP worker threads spin for ~0.1 s after a call before they
# sleep; a library measured right after another one would share the two cores
# with those spinners (W4 ran 30x slower for everyone).  So each sample starts
# after a pause, and a sample times enough back-to-back calls (the steady state
# of a loop) to last about SAMPLE_SECONDS.
SETTLE_SECONDS = 0.25
SAMPLE_SECONDS = 0.1


def sample(run, number):
    time.sleep(SETTLE_SECONDS)
    start = time.perf_counter()
    for _ in range(number):
        run()
    return (time.perf_counter() - start) / number


def measure(workload, libraries, repeats, warmups=2):
    """Median seconds per call for each library, samples interleaved."""
    return measure_runs({lib: S.make(workload, lib) for lib in libraries}, repeats, warmups)


def measure_runs(runs, repeats, warmups=2):
    """Median seconds per call of each of runs (name -> callable), samples interleaved."""
    libraries = list(runs)
    number = {}
    for lib in libraries:
        for _ in range(warmups):
            runs[lib]()
        once = sample(runs[lib], 1)
        number[lib] = max(1, min(50, round(SAMPLE_SECONDS / max(once, 1e-9))))
    # What the warm-ups left alive (both libraries' lazily imported modules and loaded
    # kernels) out of the collector's full walks, as nbgrad's import does with its own heap
    # (nbgrad/_gc.py): a process of one library has only its own.  Without this, the full
    # collections that nbgrad's graph objects trigger walked PyTorch's ~110,000 objects from
    # its workloads' first calls: W8's collections took 135-149 ms instead of 32-39, a 1.09
    # ratio where each library alone in a fresh process times 0.98-1.01 (stop 46's note).
    # PyTorch's graphs are C++ and trigger no collections, so its columns do not change.
    gc.collect()
    gc.freeze()
    samples = {lib: [] for lib in libraries}
    for _ in range(repeats):
        for lib in libraries:
            samples[lib].append(sample(runs[lib], number[lib]))
    del runs
    return {lib: statistics.median(v) for lib, v in samples.items()}


# Issue 15's user ops against nbgrad's own built-ins (no other library involved):
#   U1  @nbgrad.elementwise of a * tanh(x / a), 1M float32, forward + backward, against the
#       same expression of built-in ops through nbgrad.fuse: within 1.2x;
#   U2  a custom_op (a user njit kernel) on 16 elements against a built-in op (mul) on 16
#       elements: no more Python time (ratio <= 1.0).
USER_OPS = {
    "U1": ("@nbgrad.elementwise a*tanh(x/a), 1M f32, fwd+bwd vs fuse", "ms", 1e3, 1.2),
    "U2": ("custom_op on 16 elements vs a built-in op (mul)", "us", 1e6, 1.0),
}


# Issue 13's compiled workloads: the nbgrad workload's callable under nbgrad.compile, beside
# nbgrad eager and PyTorch eager in the same run.  Targets: W4 compiled >= 1.5x PyTorch
# eager's steps/s; W5's whole 1000-op program with its backward <= 50 us; W1 compiled <=
# jax.jit's time, measured beside them where jax is installed (benchmarks/jax_workloads.py).
COMPILED = {"W1": ("W1 compiled", "ms", 1e3), "W4": ("W4 MLP step compiled", "ms", 1e3),
            "W5": ("W5 1000 small ops + backward compiled", "us", 1e6)}


def make_compiled(workload):
    import nbgrad
    return nbgrad.compile(S.make(workload, "nbgrad"))


def compile_times():
    """(first compiled W4 call after one eager step, empty generated-code cache; the same in a
    fresh process with that cache warm), seconds."""
    import subprocess
    import sys
    import tempfile
    script = (
        "import time, sys\n"
        "sys.path.insert(0, %r)\n"
        "from benchmarks import speed_workloads as S\n"
        "import nbgrad\n"
        "run = S.make('W4', 'nbgrad')\n"
        "run()\n"
        "step = nbgrad.compile(run)\n"
        "t0 = time.perf_counter(); step(); t1 = time.perf_counter()\n"
        "step(); t2 = time.perf_counter()\n"
        "print(t1 - t0 + (t2 - t1))\n") % str(pathlib.Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NBGRAD_CACHE_DIR=d)
        out = []
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
            out.append(float(r.stdout.split()[-1]) if r.returncode == 0 else float("nan"))
    return out


def main_compiled(chosen, repeats):
    libraries = ["nbgrad"] + (["torch"] if have_torch() else [])
    print("nbgrad.compile (issue 13): the same callables eager and compiled, PyTorch eager beside\n")
    head = (f"{'':3} {'workload':40} {'unit':>5} {'compiled':>9} {'eager':>9} {'torch':>9} "
            f"{'torch/comp':>10}  target")
    print(head)
    print("-" * len(head))
    for name, (description, unit, scale) in COMPILED.items():
        if chosen and name not in chosen:
            continue
        runs = {lib: S.make(name, lib) for lib in libraries}
        runs["compiled"] = make_compiled(name)
        if J.available():
            runs["jax"] = J.make(name)
        # warm-ups: two captures (the second with .grad and optimizer state present) and the
        # first compiled call (Numba compiles or loads the generated code) before the sizing
        # sample, so each sample times warm calls
        med = measure_runs(runs, repeats, warmups=4)
        th, jx = med.get("torch"), med.get("jax")
        speed = None if th is None else th / med["compiled"]
        vs_jax = "" if jx is None else f", jax.jit {fmt(jx, scale)} {unit}"
        if name == "W4":
            target = (f">= 1.5x PyTorch steps/s: {'-' if speed is None else ('yes' if speed >= 1.5 else 'NO')}"
                      + ("" if jx is None else f"; ahead of jax.jit: {'yes' if med['compiled'] <= jx else 'NO'}"))
        elif name == "W5":
            target = f"<= 50 us: {'yes' if med['compiled'] <= 50e-6 else 'NO'}"
        else:
            target = ("<= jax.jit: " + ("- (jax not installed)" if jx is None else
                                        ("yes" if med["compiled"] <= jx else "NO")))
        print(f"{name:3} {description:40} {unit:>5} {fmt(med['compiled'], scale):>9} {fmt(med['nbgrad'], scale):>9} "
              f"{fmt(th, scale):>9} {'-' if speed is None else format(speed, '.2f') + 'x':>10}  {target}{vs_jax}",
              flush=True)
        if name == "W5":
            # W5's gradients decay through 500 products into float32's denormals, where each
            # operation costs the CPU a microcode assist: the same compiled call with them
            # flushed to zero (torch.set_flush_denormal's mode; XLA's default on the CPU)
            if nbgrad.set_flush_denormal(True):
                try:
                    flushed = measure_runs({"compiled": runs["compiled"]}, repeats, warmups=2)["compiled"]
                finally:
                    nbgrad.set_flush_denormal(False)
                print(f"{'':4}W5 compiled under nbgrad.set_flush_denormal(True): {fmt(flushed, scale)} {unit}", flush=True)
    if not chosen or "W4" in chosen:
        cold, warm = compile_times()
        print(f"{'':4}W4 first compiled call (capture, codegen, Numba compile), empty cache: {cold:.2f} s "
              f"(target <= 3 s: {'yes' if cold <= 3 else 'NO'}); fresh process, warm cache: {warm:.2f} s "
              f"(target <= 0.3 s: {'yes' if warm <= 0.3 else 'NO'})")


def make_user_op(name, n=None):
    """{'user': run, 'builtin': run} for a USER_OPS workload (n: the size, for tests)."""
    import math as _math

    import numba
    import nbgrad
    if name == "U1":
        n = n or 1_000_000

        @nbgrad.elementwise
        def softclip(x, a):
            return a * _math.tanh(x / a)

        fused = nbgrad.fuse(lambda x, a: a * (x / a).tanh())
        x = nbgrad.randn(n, requires_grad=True)
        g = nbgrad.ones(n)

        def step(fn):
            def run():
                x.grad = None
                fn(x, 2.0).backward(g)
            return run
        return {"user": step(softclip), "builtin": step(fused)}
    n = n or 16

    @numba.njit
    def double(x, out):
        for i in range(x.shape[0]):
            out[i] = 2.0 * x[i]
    op = nbgrad.custom_op("double", double)
    x = nbgrad.ones(n)
    return {"user": lambda: op(x), "builtin": lambda: x * 2.0}


def measure_user_ops(name, repeats, n=None):
    """(medians, ratio user/builtin, target met) of a USER_OPS workload."""
    med = measure_runs(make_user_op(name, n), repeats)
    ratio = med["user"] / med["builtin"]
    return med, ratio, ratio <= USER_OPS[name][3]


def _child_env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra)
    return env


def fresh_process_seconds(library, cache_dir=None):
    env = _child_env(**({"NUMBA_CACHE_DIR": str(cache_dir)} if cache_dir else {}))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", S.fresh_process_script(library)], env=env, cwd=ROOT,
                   check=True)
    return time.perf_counter() - start


def measure_fresh_process(libraries, repeats, cold_repeats):
    """W7: medians of whole fresh-process runs (warm and cold kernel cache for nbgrad)."""
    samples = {"nbgrad": [], "nbgrad cold": [], "torch": []}
    with tempfile.TemporaryDirectory() as tmp:
        warm_dir = pathlib.Path(tmp) / "warm"
        fresh_process_seconds("nbgrad", warm_dir)  # fills the cache used by the warm runs
        for r in range(repeats):
            if r < cold_repeats:
                samples["nbgrad cold"].append(fresh_process_seconds("nbgrad", pathlib.Path(tmp) / f"cold{r}"))
            samples["nbgrad"].append(fresh_process_seconds("nbgrad", warm_dir))
            if "torch" in libraries:
                samples["torch"].append(fresh_process_seconds("torch"))
    return {k: statistics.median(v) for k, v in samples.items() if v}


def peak_rss_growth_kib(workload, library):
    out = subprocess.run([sys.executable, "-c", S.peak_rss_script(workload, library)], env=_child_env(),
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    before, peak = int(out[-2]), int(out[-1])
    return peak - before, peak


def verdict(kind, value, med):
    """(target text, achieved text, met) for one workload."""
    nb, np_, th = med.get("nbgrad"), med.get("numpy"), med.get("torch")
    if kind == "numpy_rate":
        got = np_ / nb
        return f">= {value}x NumPy GFLOP/s", f"{got:.2f}x", got >= value
    if th is None:
        return "(needs torch)", "-", None
    if kind == "torch_rate":
        got = th / nb
        return f">= {value}x PyTorch steps/s", f"{got:.2f}x", got >= value
    got = nb / th
    return f"<= {value}x PyTorch", f"{got:.2f}x", got <= value


def fmt(x, scale):
    return "-" if x is None else f"{x * scale:.4g}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", help="W1, W1f, W2..W8, S16..S16M (size sweep), C1, C1b, C2, C2b, U1, U2 (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer samples; W7 cold once; no RSS")
    parser.add_argument("--repeats", type=int, default=None, help="samples per library (at least 5)")
    parser.add_argument("--compiled", action="store_true", help="issue 13: W1, W4, W5 under nbgrad.compile")
    args = parser.parse_args(argv)
    repeats = max(5, args.repeats or (5 if args.quick else 7))
    if args.compiled:
        return main_compiled(args.workloads, repeats)
    chosen = args.workloads or list(S.WORKLOADS) + list(USER_OPS) + ["W7"]
    libraries = ["nbgrad", "numpy"] + (["torch"] if have_torch() else [])

    print(f"2 threads each; median of {repeats} interleaved samples after warm-ups; "
          f"ratios are nbgrad time / other time (< 1: nbgrad faster)\n")
    head = (f"{'':3} {'workload':52} {'unit':>6} {'nbgrad':>9} {'numpy':>9} {'torch':>9} "
            f"{'nb/torch':>8} {'nb/numpy':>8}  {'target':28} {'achieved':>8}  met")
    print(head)
    print("-" * len(head))
    results = {}
    for name in S.WORKLOADS:
        if name not in chosen:
            continue
        description, unit, scale, (kind, value) = S.WORKLOADS[name]
        med = measure(name, libraries, repeats)
        results[name] = med
        target, got, met = verdict(kind, value, med)
        th = med.get("torch")
        print(f"{name:3} {description:52} {unit:>6} {fmt(med['nbgrad'], scale):>9} "
              f"{fmt(med['numpy'], scale):>9} {fmt(th, scale):>9} "
              f"{'-' if th is None else format(med['nbgrad'] / th, '.2f'):>8} "
              f"{med['nbgrad'] / med['numpy']:8.2f}  {target:28} {got:>8}  "
              f"{'-' if met is None else ('yes' if met else 'NO')}", flush=True)
        if name == "W3":
            flop = 3 * 2 * S.N_MATMUL ** 3
            print(f"{'':4}GFLOP/s: nbgrad {flop / med['nbgrad'] / 1e9:.1f}, numpy "
                  f"{flop / med['numpy'] / 1e9:.1f}"
                  + (f", torch {flop / th / 1e9:.1f}" if th else ""), flush=True)
        if name == "W4":
            print(f"{'':4}steps/s: " + ", ".join(f"{lib} {1 / t:.0f}" for lib, t in med.items()), flush=True)
        if name == "W8" and not args.quick:
            rss = {lib: peak_rss_growth_kib("W8", lib) for lib in libraries if lib != "numpy"}
            print(f"{'':4}peak RSS of a fresh process running W8 (growth over one run), MiB: "
                  + ", ".join(f"{lib} {p / 1024:.0f} ({g / 1024:.1f})" for lib, (g, p) in rss.items())
                  + ("" if "torch" not in rss else
                     f"  target peak <= PyTorch's: {'yes' if rss['nbgrad'][1] <= rss['torch'][1] else 'NO'}"),
                  flush=True)
    for name, (description, unit, scale, target) in USER_OPS.items():
        if name not in chosen:
            continue
        med, ratio, met = measure_user_ops(name, repeats)
        results[name] = med
        print(f"{name:3} {description:52} {unit:>6} {fmt(med['user'], scale):>9} {'-':>9} {'-':>9} "
              f"{'-':>8} {'-':>8}  {'<= ' + format(target, '.1f') + 'x the built-in':28} "
              f"{ratio:7.2f}x  {'yes' if met else 'NO'}", flush=True)
    if "W7" in chosen:
        cold_repeats = 1 if args.quick else 3
        med = measure_fresh_process(libraries, repeats, cold_repeats)
        results["W7"] = med
        th = med.get("torch")
        ratio = None if th is None else med["nbgrad"] / th
        print(f"{'W7':3} {'fresh process: import + build + first W4 step':52} {'s':>6} "
              f"{med['nbgrad']:9.3g} {'-':>9} {fmt(th, 1):>9} "
              f"{'-' if ratio is None else format(ratio, '.2f'):>8} {'-':>8}  "
              f"{'<= 0.6x PyTorch (warm cache)':28} {'-' if ratio is None else format(ratio, '.2f') + 'x':>8}  "
              f"{'-' if ratio is None else ('yes' if ratio <= 0.6 else 'NO')}")
        cold = med["nbgrad cold"]
        print(f"{'':4}cold kernel cache (fresh NUMBA_CACHE_DIR, median of {cold_repeats}): {cold:.2f} s; "
              f"target <= 12 s: {'yes' if cold <= 12 else 'NO'}", flush=True)
    return results


if __name__ == "__main__":
    main()
