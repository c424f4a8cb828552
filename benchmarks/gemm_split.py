"""The BLAS team's two ways to cut a product (nbgrad/backends/cpu/_team.py): blocks of output
rows or of output columns, each product timed both ways, interleaved, beside the cut that
_team._split_rows chooses.  Rerun it on a new CPU or BLAS before changing that rule:

    python benchmarks/gemm_split.py
"""
import time

import numpy as np

from nbgrad.backends.cpu import _team as T

SHAPES = [(128, 784, 256), (128, 256, 256), (256, 128, 784), (256, 128, 256), (256, 256, 256),
          (512, 512, 512), (1024, 64, 1024), (64, 1024, 1024), (128, 128, 1024), (1024, 128, 128)]


def _task(team, a, b, out, axis):
    """A copy of the task _plan writes for out = a @ b, cut in two along axis."""
    task = np.zeros_like(team.task)
    T._plan(task, T._GEMM["addresses"][out.dtype], False, *T._row_major(a), *T._row_major(b), out, 2,
            *T.cut_steps(out.dtype))
    length = out.shape[axis]
    task[T._T_AXIS], task[T._T_PIECES] = axis, 2
    task[T._T_BOUNDS], task[T._T_BOUNDS + 1], task[T._T_BOUNDS + 2] = 0, -(-(length // 2) // 16) * 16, length
    return task


def _time(team, task, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        team.task[:] = task
        T._run_product(team.ctl, team.task, team.next_generation())
    return (time.perf_counter() - t0) / reps


def main(rounds=15):
    if not T.available():
        raise SystemExit("NumPy's OpenBLAS cblas symbols were not found: no BLAS team here")
    team = T.team(2)
    controls = T._GEMM["threads"]
    if controls:
        controls[1](1)
    rng = np.random.default_rng(0)
    print(f"{'m x k x n  a b':22} {'rows us':>9} {'cols us':>9}  faster   chosen")
    for m, k, n in SHAPES:
        for fa in (False, True):
            for fb in (False, True):
                a = rng.standard_normal((m, k)).astype(np.float32)
                b = rng.standard_normal((k, n)).astype(np.float32)
                a, b = (np.asfortranarray(a) if fa else a), (np.asfortranarray(b) if fb else b)
                out = np.empty((m, n), np.float32)
                tasks = [_task(team, a, b, out, axis) for axis in (0, 1)]
                reps = max(3, int(0.01 / (2 * m * k * n / 1.5e11)))
                times = [[], []]
                for _ in range(rounds):
                    for axis in (0, 1):
                        times[axis].append(_time(team, tasks[axis], reps))
                rows, cols = (float(np.median(t)) * 1e6 for t in times)
                chosen = "rows" if T._split_rows(m, n, not fb, 2) else "cols"
                faster = "rows" if rows < cols else "cols"
                print(f"{m}x{k}x{n}  {'F' if fa else 'C'} {'F' if fb else 'C'}".ljust(22)
                      + f" {rows:9.0f} {cols:9.0f}  {faster} {max(rows, cols) / min(rows, cols):.2f}x  {chosen}",
                      flush=True)


if __name__ == "__main__":
    main()
