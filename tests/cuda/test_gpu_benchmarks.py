"""benchmarks/gpu.py's asv benchmarks skip (NotImplementedError in setup) where there is no GPU.

Only the "nbgrad" parameter is set up here: the tests never import torch.
"""
import os
import sys

import pytest

import nbgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def gpu_benchmarks():
    sys.path.insert(0, ROOT)
    try:
        from benchmarks import gpu
        yield gpu
    finally:
        sys.path.remove(ROOT)


def test_every_gpu_benchmark_is_an_asv_class_and_skips_without_a_gpu(gpu_benchmarks):
    classes = [gpu_benchmarks.W1, gpu_benchmarks.Matmul, gpu_benchmarks.Sum1, gpu_benchmarks.MLP]
    module_level = [n for n in vars(gpu_benchmarks) if n.startswith(("time_", "track_", "mem_", "peakmem_"))]
    assert module_level == []          # asv would collect them as benchmarks
    for cls in classes:
        assert cls.params == ["nbgrad", "torch"]
        assert any(n.startswith("time_") for n in vars(cls))
        if nbgrad.cuda.is_available():
            continue
        with pytest.raises(NotImplementedError, match="no GPU"):
            cls().setup("nbgrad")
