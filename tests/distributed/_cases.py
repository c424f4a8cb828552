"""What the multi-process tests run: the inputs every rank starts from (shared by the
worker scripts, which run them under MPI, and the tests, which compute the NumPy
references from the same inputs) and the launcher they start MPI with."""
import os
import pickle
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool"]
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
SHAPE = (2, 3)


def rank_input(rank, dtype, salt=0):
    """Rank r's values for a (dtype, case): distinct per rank, exact in every dtype."""
    k = np.arange(6).reshape(SHAPE)
    if dtype == "bool":
        return (k + rank + salt) % 3 == 0
    if dtype.startswith("float"):
        return ((k + 1) * 0.5 + rank * 0.25 - salt).astype(dtype)
    if dtype == "uint8":
        return ((k * 7 + rank * 5 + salt) % 23 + 1).astype(dtype)
    return ((k * 7 + rank * 5 + salt) % 23 - 9).astype(dtype)


def reference(op, arrays):
    """The reduction of the ranks' arrays, as NumPy computes it (None: not defined)."""
    a = np.stack(arrays)
    if a.dtype == np.bool_:
        return {"SUM": a.any(0), "MAX": a.any(0), "BOR": a.any(0), "MIN": a.all(0), "PRODUCT": a.all(0),
                "BAND": a.all(0), "BXOR": np.logical_xor.reduce(a, 0), "AVG": None}[op]
    floating = a.dtype.kind == "f"
    if op in ("BAND", "BOR", "BXOR"):
        return None if floating else {"BAND": np.bitwise_and, "BOR": np.bitwise_or,
                                      "BXOR": np.bitwise_xor}[op].reduce(a, 0)
    if op == "AVG":
        return (a.astype(np.float64).sum(0) / len(arrays)).astype(a.dtype) if floating else None
    return {"SUM": a.sum(0, dtype=a.dtype), "PRODUCT": a.prod(0, dtype=a.dtype), "MIN": a.min(0),
            "MAX": a.max(0)}[op]


def _launcher():
    for cand in (Path(sys.executable).parent / "mpiexec", shutil.which("mpiexec"), shutil.which("mpirun")):
        if cand and Path(cand).exists():
            return str(cand)
    return None


def require_mpi():
    """Skip where mpi4py or an MPI launcher is missing (the test extra installs both)."""
    pytest.importorskip("mpi4py", reason="needs the distributed extra: pip install \"nbgrad[distributed]\"")
    launcher = _launcher()
    if launcher is None:
        pytest.skip("no MPI launcher (mpiexec) found")
    return launcher


def launch(n, module, *args, timeout=180, env=None, launcher=True):
    """Run `python -m module args` as n MPI ranks (or as one process without a launcher
    when launcher=False), bounded by `timeout` seconds: the whole process group is killed
    then and the test fails with what it printed.  Returns (returncode, stdout, stderr)."""
    mpiexec = require_mpi()
    cmd = [sys.executable, "-m", module, *map(str, args)]
    if launcher:
        cmd = [mpiexec, "-n", str(n)] + cmd
    environ = dict(os.environ, NUMBA_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    environ.update(env or {})
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=environ)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(cmd)} still ran after {timeout} s\nstdout:\n{out}\nstderr:\n{err}")
    return proc.returncode, out, err


def run_ok(n, module, tmp_path, *args, **kw):
    """launch(), insist on success, and load each rank's pickled results."""
    code, out, err = launch(n, module, tmp_path, *args, **kw)
    assert code == 0, f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    return [pickle.loads((Path(tmp_path) / f"rank{r}.pkl").read_bytes()) for r in range(n)]


def save(out_dir, rank, results):
    (Path(out_dir) / f"rank{rank}.pkl").write_bytes(pickle.dumps(results))


# -- DistributedDataParallel: the model and data both the workers and the references use --

LOCAL_BATCH = 3
STEPS = 4


def make_mlp(seed):
    """A float64 MLP whose first bias is frozen (not in DDP's buckets, still broadcast)."""
    import nbgrad
    from nbgrad import nn
    nbgrad.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 4)).double()
    model[0].bias.requires_grad_(False)
    return model


def global_batch(step, world, micro=0):
    """The step's global batch (world * LOCAL_BATCH rows); rank r trains on rows r*B:(r+1)*B."""
    rng = np.random.default_rng(1000 * step + micro)
    return rng.standard_normal((world * LOCAL_BATCH, 6)), rng.standard_normal((world * LOCAL_BATCH, 4))


def shard(a, rank):
    return a[rank * LOCAL_BATCH:(rank + 1) * LOCAL_BATCH]


def make_optimizer(params):
    import nbgrad
    return nbgrad.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-3)


def mse(out, y):
    return ((out - y) ** 2).mean()
