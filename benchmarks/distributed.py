"""nbgrad.distributed's speed: all-reduce bandwidth against mpi4py on raw NumPy buffers,
and an MLP training step on 1 and 2 ranks with the share of communication that
DistributedDataParallel hides behind backward.

    python benchmarks/distributed.py            # both tables (2 ranks via the venv's mpiexec)
    python benchmarks/distributed.py --quick    # fewer samples

Each rank gets one thread (NUMBA/OPENBLAS/OMP_NUM_THREADS=1): two ranks fill this
machine's two cores.  Bandwidth: per message size, samples alternate between
`comm.Allreduce(MPI.IN_PLACE, array)` on a NumPy array and `dist.all_reduce(tensor)`
on an nbgrad tensor of the same size (float32 zeros, so repeated sums stay finite),
each sample a run of back-to-back calls after a barrier; medians of rank 0's times.
MLP: W4's 784-256-256-10 MLP, batch 128 per rank, SGD; step time alone (1 rank,
no DDP), with DDP on 2 ranks (0.25 MB buckets, all-reduce overlapped with backward),
with DDP's all-reduces started only after backward (nothing hidden), and the gradient
all-reduce alone; the three DDP modes alternate sample by sample on one model.  Hidden share = (delayed - overlapped) / all-reduce alone.

asv: DistributedBench runs the same measurements once (setup_cache) and tracks the
ratios; it skips where mpi4py or an MPI launcher is missing.
"""
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIZES = [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]


def _mpiexec():
    for cand in (pathlib.Path(sys.executable).parent / "mpiexec", shutil.which("mpiexec"), shutil.which("mpirun")):
        if cand and pathlib.Path(cand).exists():
            return str(cand)
    return None


def _label(nbytes):
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB"


# -- the worker: runs inside each MPI rank ---------------------------------------------

def _bandwidth(rounds):
    import numpy as np
    from mpi4py import MPI
    import nbgrad
    import nbgrad.distributed as dist
    comm = MPI.COMM_WORLD
    rows = []
    for nbytes in SIZES:
        n = nbytes // 4
        arr = np.zeros(n, np.float32)
        t = nbgrad.zeros(n)
        reps = max(3, min(300, int(3e7 // nbytes)))
        raw, ours = [], []

        def sample(call):
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(reps):
                call()
            return (time.perf_counter() - t0) / reps
        for call in (lambda: comm.Allreduce(MPI.IN_PLACE, arr, MPI.SUM), lambda: dist.all_reduce(t)):
            call()
        for k in range(rounds):      # ABBA: neither side always runs first
            for side in ((raw, ours) if k % 2 == 0 else (ours, raw)):
                if side is raw:
                    raw.append(sample(lambda: comm.Allreduce(MPI.IN_PLACE, arr, MPI.SUM)))
                else:
                    ours.append(sample(lambda: dist.all_reduce(t)))
        rows.append((nbytes, statistics.median(raw), statistics.median(ours)))
    return rows


def _mlp(rounds, distributed):
    """Median step times of rank 0.  Alone (distributed=False): the plain model.  With DDP,
    samples alternate between three modes on one model, so that a noisy machine slows
    them alike: 'overlap' (all-reduces start during backward), 'delayed' (they start only
    after backward: nothing hidden) and 'comm' (the all-reduce of a step's gradients, in
    DDP's buckets, alone)."""
    import numpy as np
    import nbgrad
    from nbgrad import nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    if distributed:
        from mpi4py import MPI
        import nbgrad.distributed as dist
        from nbgrad.nn.parallel import DistributedDataParallel
        # 0.25 MB buckets: the last two layers' gradients (272 KB) go while the first
        # layer's backward runs (with the default 25 MB cap the whole model is one bucket)
        model = DistributedDataParallel(model, bucket_cap_mb=0.25)
        comm = dist.group.WORLD.comm
    opt = nbgrad.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    x = nbgrad.tensor(rng.standard_normal((128, 784)).astype(np.float32))
    y = nbgrad.tensor(rng.integers(0, 10, 128))

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    def all_reduce_alone():
        reqs = [comm.Iallreduce(MPI.IN_PLACE, b.buffer, MPI.SUM) for b in model._buckets]
        MPI.Request.Waitall(reqs)

    def sample(call):
        if distributed:
            comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(20):
            call()
        return (time.perf_counter() - t0) / 20

    for _ in range(5):
        step()
    if not distributed:
        return {"alone": statistics.median(sample(step) for _ in range(rounds))}
    times = {"overlap": [], "delayed": [], "comm": []}
    for _ in range(rounds):
        for mode in ("overlap", "delayed"):
            model._delay_all_reduce = mode == "delayed"
            times[mode].append(sample(step))
        times["comm"].append(sample(all_reduce_alone))
    return {mode: statistics.median(t) for mode, t in times.items()}


def _worker(what, rounds, out):
    import json
    if what == "mlp1":
        result = _mlp(rounds, distributed=False)
    else:
        import nbgrad.distributed as dist
        dist.init_process_group("mpi")
        if what == "bandwidth":
            result = {"rows": _bandwidth(rounds)}
        else:
            result = _mlp(rounds, distributed=True)
        if dist.get_rank() != 0:
            result = None
        dist.destroy_process_group()
    if result is not None:
        pathlib.Path(out).write_text(json.dumps(result))


# -- the driver ------------------------------------------------------------------------

def measure(quick=False):
    """Run the workers; returns {'rows': [(bytes, raw s, nbgrad s)], 'mlp': {...}}."""
    import json
    import tempfile
    mpiexec = _mpiexec()
    if mpiexec is None:
        raise RuntimeError("no MPI launcher: pip install \"nbgrad[distributed]\"")
    rounds = "5" if quick else "15"
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for what, n in (("bandwidth", 2), ("mlp1", 1), ("mlp2", 2)):
            out = os.path.join(tmp, what + ".json")
            cmd = [sys.executable, __file__, "--worker", what, rounds, out]
            if what != "mlp1":
                cmd = [mpiexec, "-n", str(n)] + cmd
            subprocess.run(cmd, env=env, check=True, timeout=900, stdin=subprocess.DEVNULL)
            results.update(json.loads(pathlib.Path(out).read_text()))
    return results


def report(results):
    print("all-reduce, 2 ranks, float32 (median per call; bandwidth = message bytes / time)")
    print(f"{'message':>8} | {'mpi4py + NumPy GB/s':>19} | {'nbgrad GB/s':>19} | {'nbgrad/mpi4py bandwidth':>24}")
    for nbytes, raw, ours in results["rows"]:
        bw_raw, bw_ours = nbytes / raw / 1e9, nbytes / ours / 1e9
        print(f"{_label(nbytes):>8} | {raw * 1e6:8.1f} us {bw_raw:5.2f} | {ours * 1e6:8.1f} us {bw_ours:5.2f} | "
              f"{raw / ours:24.2f}")
    alone = results["alone"]
    over, delayed, comm = results["overlap"], results["delayed"], results["comm"]
    print()
    print("MLP 784-256-256-10, batch 128 per rank, SGD step (median; 1 thread per rank)")
    print(f"  1 rank, no DDP:                       {alone * 1e3:7.3f} ms  ({128 / alone:8.0f} samples/s)")
    print(f"  2 ranks, DDP (overlapped all-reduce): {over * 1e3:7.3f} ms  ({256 / over:8.0f} samples/s)")
    print(f"  2 ranks, DDP, all-reduce after backward: {delayed * 1e3:7.3f} ms")
    print(f"  the gradients' all-reduce alone:      {comm * 1e3:7.3f} ms")
    hidden = (delayed - over) / comm if comm > 0 else float("nan")
    print(f"  share of the all-reduce hidden by overlap: {hidden:.0%}")


class DistributedBench:
    """asv: the ratios above, tracked (one MPI run per asv process, in setup_cache)."""
    timeout = 900

    def setup_cache(self):
        try:
            import mpi4py  # noqa: F401
        except ImportError:
            return None
        if _mpiexec() is None:
            return None
        return measure(quick=True)

    def setup(self, results, *args):
        if results is None:
            raise NotImplementedError("needs mpi4py and an MPI launcher (the distributed extra)")

    def track_allreduce_bandwidth_vs_mpi4py(self, results, nbytes):
        for size, raw, ours in results["rows"]:
            if size == nbytes:
                return raw / ours
        raise NotImplementedError
    track_allreduce_bandwidth_vs_mpi4py.params = [1 << 10, 1 << 20, 1 << 26]
    track_allreduce_bandwidth_vs_mpi4py.param_names = ["bytes"]
    track_allreduce_bandwidth_vs_mpi4py.unit = "nbgrad/mpi4py"

    def track_ddp_overlap_hidden_share(self, results):
        return (results["delayed"] - results["overlap"]) / results["comm"]
    track_ddp_overlap_hidden_share.unit = "share"

    def track_ddp_two_rank_throughput_vs_one(self, results):
        return (256 / results["overlap"]) / (128 / results["alone"])
    track_ddp_two_rank_throughput_vs_one.unit = "x"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.path.insert(0, str(ROOT))
        _worker(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        report(measure(quick="--quick" in sys.argv))
