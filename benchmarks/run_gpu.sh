#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU: the CUDA tests on the real GPU, then
# benchmarks/gpu.py (nbgrad beside PyTorch).  Needs numba-cuda with a CUDA compiler
# (pip install -e ".[test,cuda13]", or cuda12 for an older driver).  Budget: < 8 minutes
# (270 s of tests + 200 s of benchmarks, of which the matmul tile sweep gets 60 s).
set -uo pipefail
cd "$(dirname "$0")/.."
export NUMBA_ENABLE_CUDASIM=0
python -c "import nbgrad, sys; ok = nbgrad.cuda.is_available(); print('GPU:', nbgrad.cuda.get_device_name() if ok else 'none'); sys.exit(0 if ok else 1)" || {
    echo "no usable GPU (numba-cuda, driver, GPU)"; exit 1; }
status=0
timeout 270 python -m pytest -q -x -p no:cacheprovider tests/cuda || status=$?
timeout 200 python benchmarks/gpu.py --tile-budget 60 "$@" || status=$?
exit $status
