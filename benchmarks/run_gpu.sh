#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU: the CUDA tests on the real GPU, then
# benchmarks/gpu.py (nbgrad beside PyTorch).  Runs from a bare working tree with the
# machine's own Python (PYTHON, default python3) when that has numba-cuda, NumPy, SciPy and
# safetensors (the lent H200's image has them, and PyTorch with CUDA); otherwise wheels
# carried in .gpu_wheels/ (pip download them here) are installed first, without a network.
# Budget: < 8 minutes (270 s of tests + 200 s of benchmarks, of which the matmul tile sweep
# gets 60 s).  The PTX check is left out: on a GPU every kernel compiles when it first runs.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export NUMBA_ENABLE_CUDASIM=0 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if [ -d .gpu_wheels ]; then
    "$PY" -m pip install -q --no-index --find-links .gpu_wheels .gpu_wheels/*.whl || echo "carried wheels: install failed"
fi
"$PY" -c "import nbgrad, sys; ok = nbgrad.cuda.is_available(); print('GPU:', nbgrad.cuda.get_device_name() if ok else 'none'); sys.exit(0 if ok else 1)" || {
    echo "no usable GPU (numba-cuda, driver, GPU)"; exit 1; }
status=0
timeout 270 "$PY" -m pytest -q -x -p no:cacheprovider tests/cuda --ignore=tests/cuda/test_compile_ptx.py || status=$?
timeout 200 "$PY" benchmarks/gpu.py --tile-budget 60 "$@" || status=$?
exit $status
