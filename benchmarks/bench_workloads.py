"""asv suite for issue 5's workloads W1-W8 (benchmarks/speed_workloads.py), per library.

time_*: one call (one forward + backward, one training step); setup() builds
the inputs and runs the workload twice, so Numba's compilation (or cache
load) never lands in a timing.  peakmem_*: the process peak over setup and
one call (asv's definition).  track_*: W7 and first-call latency, each in a
fresh process: with the kernel cache warm, and cold (an empty
NUMBA_CACHE_DIR), in seconds.  PyTorch is a parameter value only when it is
installed.
"""
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from . import speed_workloads as S

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIBRARIES = ["nbgrad", "numpy"] + (["torch"] if importlib.util.find_spec("torch") else [])


class _Workload:
    params = LIBRARIES
    param_names = ["library"]
    workload = None
    timeout = 300

    def setup(self, library):
        if library == "torch":
            import torch
            torch.set_num_threads(2)
        self.run = S.make(self.workload, library)
        self.run()
        self.run()


def _define(name, doc):
    def time_workload(self, library):
        self.run()

    def peakmem_workload(self, library):
        self.run()

    cls = type(name, (_Workload,), {"workload": name, "__doc__": doc,
                                    f"time_{name.lower()}": time_workload,
                                    f"peakmem_{name.lower()}": peakmem_workload})
    globals()[name] = cls


for _name, (_description, *_rest) in S.WORKLOADS.items():
    _define(_name, _description)


def _fresh_process(code, env_extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(env_extra)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True)
    return time.perf_counter() - start


class FreshProcess:
    """W7: import + build + first W4 step in a new process (seconds)."""
    unit = "seconds"
    number = 1
    repeat = 1
    timeout = 600

    def setup(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.warm_dir = pathlib.Path(self.tmp.name) / "warm"
        _fresh_process(S.fresh_process_script("nbgrad"), {"NUMBA_CACHE_DIR": str(self.warm_dir)})

    def teardown(self):
        self.tmp.cleanup()

    def track_w7_nbgrad_warm_cache(self):
        return _fresh_process(S.fresh_process_script("nbgrad"), {"NUMBA_CACHE_DIR": str(self.warm_dir)})

    def track_w7_nbgrad_cold_cache(self):
        cold = pathlib.Path(self.tmp.name) / "cold"
        return _fresh_process(S.fresh_process_script("nbgrad"), {"NUMBA_CACHE_DIR": str(cold)})

    def track_w7_torch(self):
        if "torch" not in LIBRARIES:
            return float("nan")
        return _fresh_process(S.fresh_process_script("torch"), {})

    def track_first_call_w1_nbgrad_warm_cache(self):
        """Import + first W1 forward/backward (its elementwise kernels) from a warm cache."""
        code = "import benchmarks.speed_workloads as S\nS.make('W1', 'nbgrad')()\n"
        _fresh_process(code, {"NUMBA_CACHE_DIR": str(self.warm_dir)})       # fills W1's kernels
        return _fresh_process(code, {"NUMBA_CACHE_DIR": str(self.warm_dir)})

    def track_warmup_module_cold_cache(self):
        """`python -m nbgrad.warmup` into an empty cache: the compile cost of a training step's kernels."""
        cold = pathlib.Path(self.tmp.name) / "cold_warmup"
        return _fresh_process("import nbgrad.warmup as w\nw.main([])\n", {"NUMBA_CACHE_DIR": str(cold)})
