"""asv suite: the four core workloads, nbgrad and NumPy as two values of one parameter.

setup() builds the inputs and calls the workload once, so that Numba's
compilation (or loading from its cache) is never inside a time_* measurement.
"""
from .workloads import LIBRARIES, WORKLOADS


class _CoreWorkload:
    params = list(LIBRARIES)
    param_names = ["library"]
    workload = None

    def setup(self, library):
        self.function = WORKLOADS[self.workload].function(library)
        self.arguments = WORKLOADS[self.workload].inputs(library)
        self.function(*self.arguments)  # compile, or load the compiled kernels from the cache


class Elementwise(_CoreWorkload):
    """4M float32 a*b+c."""
    workload = "elementwise"

    def time_mul_add(self, library):
        self.function(*self.arguments)


class Reduction(_CoreWorkload):
    """4096x4096 float32 x.sum(dim=1)."""
    workload = "reduction"

    def time_sum_dim1(self, library):
        self.function(*self.arguments)


class Matmul(_CoreWorkload):
    """1024x1024 float32 a @ b."""
    workload = "matmul"

    def time_matmul(self, library):
        self.function(*self.arguments)


class StridedCopy(_CoreWorkload):
    """4096x4096 float32 x.t().contiguous()."""
    workload = "strided_copy"

    def time_transpose_contiguous(self, library):
        self.function(*self.arguments)
