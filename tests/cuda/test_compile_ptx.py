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
    from nbgrad.backends import get_backend
    cpu, cuda = get_backend("cpu"), get_backend("cuda")
    missing = [name for name in cpu.__all__ if not hasattr(cuda, name)]
    assert not missing, f"the CUDA backend lacks {missing}"
    assert cuda.UNARY_OPS == cpu.UNARY_OPS and cuda.BINARY_OPS == cpu.BINARY_OPS
    assert cuda.REDUCE_OPS == cpu.REDUCE_OPS


def test_every_kernel_compiles_to_ptx_for_sm90():
    reason = _nvvm_reason()
    if reason is not None:
        pytest.skip('the CUDA compiler (NVVM) is absent: pip install "numba-cuda[cu13]" to run this check '
                    f"({reason})")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "PYTHONPATH": ROOT}
    proc = subprocess.run([sys.executable, os.path.join(HERE, "compile_ptx_all.py")], capture_output=True,
                          text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    assert "kernel signatures for sm_90" in proc.stdout
