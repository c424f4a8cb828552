"""asv suite for the row kernels and medium-size reductions: softmax, log_softmax and
cross-entropy over float32 rows of (4096, 16) and (256, 1000) (forward; cross-entropy forward
+ backward), and x.norm(), x.max(), x.cumsum(0) of 64K float32 elements, for nbgrad and (when
installed) PyTorch with 2 threads.  setup() runs each call once, so that Numba's compilation
(or cache load) never lands in a timing.
"""
import importlib.util

import numpy as np

LIBRARIES = ["nbgrad"] + (["torch"] if importlib.util.find_spec("torch") else [])


def _library(name):
    if name == "torch":
        import torch
        torch.set_num_threads(2)
        return torch, torch.nn.functional
    import nbgrad
    return nbgrad, nbgrad.nn.functional


class RowKernels:
    params = (LIBRARIES, ["4096x16", "256x1000"])
    param_names = ["library", "shape"]

    def setup(self, library, shape):
        lib, self.F = _library(library)
        m, c = (int(k) for k in shape.split("x"))
        rng = np.random.default_rng(0)
        self.x = lib.from_numpy(rng.standard_normal((m, c)).astype(np.float32))
        self.leaf = lib.from_numpy(rng.standard_normal((m, c)).astype(np.float32)).requires_grad_()
        self.target = lib.from_numpy(rng.integers(0, c, m))
        for run in (self.time_softmax, self.time_log_softmax, self.time_cross_entropy_forward_backward):
            run(library, shape)

    def time_softmax(self, library, shape):
        self.F.softmax(self.x, -1)

    def time_log_softmax(self, library, shape):
        self.F.log_softmax(self.x, -1)

    def time_cross_entropy_forward_backward(self, library, shape):
        self.leaf.grad = None
        self.F.cross_entropy(self.leaf, self.target).backward()


class MediumReductions:
    params = LIBRARIES
    param_names = ["library"]

    def setup(self, library):
        lib, _ = _library(library)
        self.x = lib.from_numpy(np.random.default_rng(0).standard_normal(1 << 16).astype(np.float32))
        for run in (self.time_norm, self.time_max, self.time_cumsum):
            run(library)

    def time_norm(self, library):
        self.x.norm()

    def time_max(self, library):
        self.x.max()

    def time_cumsum(self, library):
        self.x.cumsum(0)
