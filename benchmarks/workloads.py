"""The core workloads, each written once for nbgrad and once for NumPy.

Shared by the asv suite (bench_core.py) and the side-by-side table
(core_table.py) so that both measure exactly the same code.
"""
import numpy as np

import nbgrad

LIBRARIES = ("nbgrad", "numpy")


class Workload:
    """Float32 inputs of the given shapes, and the same computation in both libraries."""

    def __init__(self, description, shapes, nbgrad_fn, numpy_fn):
        self.description = description
        self.shapes = shapes
        self.functions = {"nbgrad": nbgrad_fn, "numpy": numpy_fn}

    def inputs(self, library, seed=0):
        if library == "nbgrad":
            nbgrad.manual_seed(seed)
            return tuple(nbgrad.randn(*shape) for shape in self.shapes)
        rng = np.random.default_rng(seed)
        return tuple(rng.standard_normal(shape, dtype=np.float32) for shape in self.shapes)

    def function(self, library):
        return self.functions[library]


N = 4 * 1024 * 1024
WORKLOADS = {
    "elementwise": Workload(
        "4M float32 a*b+c", [(N,), (N,), (N,)],
        lambda a, b, c: a * b + c,
        lambda a, b, c: a * b + c),
    "reduction": Workload(
        "4096x4096 float32 x.sum(dim=1)", [(4096, 4096)],
        lambda x: x.sum(dim=1),
        lambda x: x.sum(axis=1)),
    "matmul": Workload(
        "1024x1024 float32 a @ b", [(1024, 1024), (1024, 1024)],
        lambda a, b: a @ b,
        lambda a, b: a @ b),
    "strided_copy": Workload(
        "4096x4096 float32 x.t().contiguous()", [(4096, 4096)],
        lambda x: x.t().contiguous(),
        lambda x: np.ascontiguousarray(x.T)),
}
