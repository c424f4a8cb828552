"""Every CUDA kernel compiles for a real GPU (sm_90), and the CUDA backend offers the CPU's whole contract.

The simulator runs kernels as Python and accepts code a GPU rejects, so the
kernels are also compiled to PTX in a separate process without the simulator
(tests/cuda/compile_ptx_all.py).  That needs NVIDIA's compiler, which ships
with `pip install "numba-cuda[cu13]"` (no GPU needed); without it the test is
skipped.
"""
import os
import subprocess
import sys

import pytest

from cuda_available import requires_cuda

pytestmark = pytest.mark.requires_jit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _nvvm_reason():
    """None when numba-cuda can compile a trivial kernel for sm_90 (NVVM and NVRTC both
    found), else why not.  A machine with a system NVVM but no NVRTC (seen on CI) skips."""
    code = ("import os; os.environ['NUMBA_ENABLE_CUDASIM'] = '0'\n"
            "from numba import cuda, float32\n"
            "def k(x):\n"
            "    i = cuda.grid(1)\n"
            "    if i < x.size:\n"
            "        x[i] = x[i] * 2\n"
            "cuda.compile_ptx(k, (float32[:],), cc=(9, 0))\n")
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return lines[-1] if lines else "NVVM failed to load"
    return None


@requires_cuda
def test_cuda_backend_has_the_whole_cpu_contract():
    from nbgrad.backends import CAPTURE_FORMS, SHORTCUTS, get_backend
    cpu, cuda = get_backend("cpu"), get_backend("cuda")
    # (the small-op shortcuts are optional: the op layer takes the general entry points without them)
    missing = [name for name in cpu.__all__ if not hasattr(cuda, name) and name not in SHORTCUTS | CAPTURE_FORMS]
    assert not missing, f"the CUDA backend lacks {missing}"
    assert cuda.UNARY_OPS == cpu.UNARY_OPS and cuda.BINARY_OPS == cpu.BINARY_OPS
    assert cuda.REDUCE_OPS == cpu.REDUCE_OPS


def test_every_kernel_compiles_to_ptx_for_sm90():
    reason = _nvvm_reason()
    if reason is not None:
        pytest.skip('the CUDA compiler (NVVM) is absent: pip install "numba-cuda[cu13]" to run this check '
                    f"({reason})")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "PYTHONPATH": ROOT}
    # two processes, every other signature each: NVVM is one thread, and the machine has two
    shards = 2
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "compile_ptx_all.py"), "--shard", f"{k}/{shards}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for k in range(shards)]
    try:
        outputs = [p.communicate(timeout=1800) for p in procs]
    finally:
        for p in procs:
            p.kill()
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, out[-5000:] + err[-5000:]
        assert "kernel signatures for sm_90" in out
        assert "UNLISTED" not in out


class _Recorder:
    """Stands in for a generated module's kernel: records each launch's argument types, then launches."""

    def __init__(self, kernel, seen):
        self.kernel, self.seen = kernel, seen

    def __getitem__(self, config):
        def launch(*args):
            self.seen.append([["array", a.dtype.name, a.ndim] if hasattr(a, "ndim") else
                              "boolean" if isinstance(a, bool) else "int64" if isinstance(a, int) else "float64"
                              for a in args])
            return self.kernel[config](*args)
        return launch


@requires_cuda
def test_compiled_steps_cuda_kernels_compile_to_ptx_for_sm90(tmp_path):
    """nbgrad.compile writes its CUDA regions as kernel source at run time: the kernels of a
    compiled training step (linear, ReLU, cross-entropy, SGD with momentum, Adam) and of an
    elementwise chain, recorded at their launches under the simulator, compile for a real GPU."""
    import json
    import numpy as np
    import nbgrad
    from nbgrad import nn, optim
    from tests.compile.test_compile import _chain, _cross_entropy_step

    reason = _nvvm_reason()
    if reason is not None:
        pytest.skip(f'the CUDA compiler (NVVM) is absent: pip install "numba-cuda[cu13]" ({reason})')
    rng = np.random.default_rng(0)
    runs = []
    for make_opt in (lambda p: optim.SGD(p, lr=0.1, momentum=0.9), lambda p: optim.Adam(p, lr=0.01)):
        model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to("cuda")
        opt = make_opt(model.parameters())
        x = nbgrad.from_numpy(rng.standard_normal((5, 6)).astype(np.float32)).to("cuda")
        y = nbgrad.from_numpy(rng.integers(0, 3, 5)).to("cuda")
        runs.append((nbgrad.compile(_cross_entropy_step), (x, y, model, opt)))
    for dtype in (np.float32, np.float64):
        x = nbgrad.tensor(rng.uniform(-1, 1, 16).astype(dtype), device="cuda", requires_grad=True)
        w = nbgrad.tensor(rng.uniform(0.2, 0.8, 16).astype(dtype), device="cuda", requires_grad=True)
        runs.append((nbgrad.compile(_chain), (x, w)))
    spec = {}
    for step, args in runs:
        step(*args)                                   # the capture
        step(*args)                                   # again, once the optimizer's state exists
        recorded = {}                                 # (module, kernel name) -> launches' argument types
        for variant in step.variants:
            module = variant.module
            for fn_name in [n for n in vars(module) if n.endswith("_kernel")]:
                name = fn_name[:-len("_kernel")]
                seen = recorded[module, name] = []
                setattr(module, name, _Recorder(getattr(module, name), seen))
        step(*args)                                   # a compiled call: its launches recorded
        for (module, name), seen in recorded.items():
            setattr(module, name, getattr(module, name).kernel)
            if seen:
                spec.setdefault(module.__file__, {})[name] = seen[0]
        assert any(recorded.values()), "a compiled CUDA step that launched no generated kernel"
    path = tmp_path / "generated.json"
    path.write_text(json.dumps(spec))
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "PYTHONPATH": ROOT}
    proc = subprocess.run([sys.executable, os.path.join(HERE, "compile_ptx_all.py"), "--generated", str(path)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    total = sum(len(k) for k in spec.values())
    assert f"compiled {total}/{total} generated kernels for sm_90" in proc.stdout
