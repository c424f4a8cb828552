"""Where a workload's time goes, op by op, nbgrad beside PyTorch (issue 12's breakdowns).

    python benchmarks/phases.py w5            # W5's 1000-op chain: forward, backward, no-grad forward (us/op)
    python benchmarks/phases.py sweep 16      # (a*b+c).tanh().sum().backward() on n elements, each op timed
    python benchmarks/phases.py w1            # W1's ops on 4M elements, back to back and after 50 ms pauses

Each library runs the same public-API program, its samples in one block (after a pause that
lets the other's threads stop spinning); the medians are printed.  compare.py gives the targets' ratios; this says which op (or
phase) makes them.  The `w1` pauses show the machine effect NUMBA_NOTES describes: after an
idle spell, work split across threads runs at one thread's speed for ~15 ms.
"""
import os

for _var in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "2")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def _libraries():
    import nbgrad
    libs = {"nbgrad": nbgrad}
    try:
        import torch
        torch.set_num_threads(2)
        libs["torch"] = torch
    except ImportError:
        pass
    return libs


def _median(values):
    return sorted(values)[len(values) // 2]


def _report(title, names, results, scale, unit):
    print(title)
    print(f"{'':8}" + "".join(f"{n:>11}" for n in names) + f"{'total':>11}   ({unit})")
    for lib, rows in results.items():
        meds = [_median(col) * scale for col in zip(*rows)]
        print(f"{lib:8}" + "".join(f"{m:11.2f}" for m in meds) + f"{sum(meds[:len(names)]):11.2f}")


def _run(steps, samples, warmups):
    """Each library's samples in a block of its own, after a pause: interleaved steps would
    run one library while the other's OpenMP/BLAS threads still spin (they take ~0.1 s to
    stop), which on 2 cores halves the first steps of the next one."""
    results = {}
    for lib, step in steps.items():
        time.sleep(0.3)
        for _ in range(warmups):
            step()
        results[lib] = [step() for _ in range(samples)]
    return results


def w5(samples):
    """W5's chain (500 x (y * w, y + x) on 16 elements): forward with recording, backward,
    and the same forward under no_grad, per op."""
    rng = np.random.default_rng(0)
    xv, wv = rng.uniform(-1, 1, 16).astype(np.float32), rng.uniform(0.2, 0.8, 16).astype(np.float32)

    def make(lib):
        x, w = lib.from_numpy(xv.copy()).requires_grad_(), lib.from_numpy(wv.copy()).requires_grad_()

        def forward():
            y = x
            for _ in range(500):
                y = y * w
                y = y + x
            return y.sum()

        def step():
            x.grad = w.grad = None
            t0 = time.perf_counter()
            s = forward()
            t1 = time.perf_counter()
            s.backward()
            t2 = time.perf_counter()
            with lib.no_grad():
                forward()
            return t1 - t0, t2 - t1, time.perf_counter() - t2
        return step
    results = _run({name: make(lib) for name, lib in _libraries().items()}, samples, 5)
    _report("W5: 1000 ops on 16 elements (the total is forward + backward)", ["forward", "backward"],
            {lib: [(f, b) for f, b, _ in rows] for lib, rows in results.items()}, 1e6 / 1000, "us per op")
    for lib, rows in results.items():
        print(f"{lib:8} forward under no_grad {_median([r[2] for r in rows]) * 1e3:.2f} us per op")


def sweep(n, samples):
    """(a*b + c).tanh().sum().backward() on n float32 elements, each op timed inside the loop."""
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(n).astype(np.float32) for _ in range(3)]

    def make(lib):
        a, b, c = (lib.from_numpy(v.copy()).requires_grad_() for v in values)

        def step():
            a.grad = b.grad = c.grad = None
            t0 = time.perf_counter()
            p = a * b
            t1 = time.perf_counter()
            q = p + c
            t2 = time.perf_counter()
            r = q.tanh()
            t3 = time.perf_counter()
            s = r.sum()
            t4 = time.perf_counter()
            s.backward()
            return t1 - t0, t2 - t1, t3 - t2, t4 - t3, time.perf_counter() - t4
        return step
    results = _run({name: make(lib) for name, lib in _libraries().items()}, samples, 20)
    _report(f"(a*b+c).tanh().sum().backward(), {n:,} float32 elements", ["mul", "add", "tanh", "sum", "backward"],
            results, 1e6, "us")


def w1(samples):
    """W1's ops on 4M float32 elements, back to back and with a 50 ms pause before each step."""
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal(4 << 20, dtype=np.float32), rng.standard_normal(4 << 20, dtype=np.float32)

    def make(lib, pause):
        x, w = lib.from_numpy(xv.copy()).requires_grad_(), lib.from_numpy(wv.copy()).requires_grad_()

        def step():
            time.sleep(pause)
            x.grad = w.grad = None
            t = [time.perf_counter()]
            a = x * w
            t.append(time.perf_counter())
            b = a + 1
            t.append(time.perf_counter())
            c = b.tanh()
            t.append(time.perf_counter())
            d = c * x
            t.append(time.perf_counter())
            s = d.sum()
            t.append(time.perf_counter())
            s.backward()
            t.append(time.perf_counter())
            return tuple(t1 - t0 for t0, t1 in zip(t, t[1:]))
        return step
    libs = _libraries()
    for pause in (0.0, 0.05):
        results = _run({name: make(lib, pause) for name, lib in libs.items()}, samples, 3)
        _report(f"W1's ops, 4M elements, {'back to back' if not pause else '50 ms pause before each step'}",
                ["x*w", "+1", "tanh", "*x", "sum", "backward"], results, 1e3, "ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["w5", "sweep", "w1"])
    parser.add_argument("n", nargs="?", type=int, default=16, help="sweep: the number of elements")
    parser.add_argument("--samples", type=int, default=0, help="samples per library (default: by workload)")
    args = parser.parse_args()
    if args.what == "w5":
        w5(args.samples or 30)
    elif args.what == "sweep":
        sweep(args.n, args.samples or (1000 if args.n <= 65536 else 100))
    else:
        w1(args.samples or 12)


if __name__ == "__main__":
    main()
