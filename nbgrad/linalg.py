"""nbgrad.linalg: PyTorch's torch.linalg namespace (the ops are in nbgrad/ops/linalg_decomp.py;
matmul and friends in nbgrad/ops/linalg.py)."""
from .ops.linalg import matmul
from .ops.linalg_decomp import (LinAlgError, cholesky, cross, det, eigh, eigvalsh, inv, matrix_norm, norm, qr,
                                slogdet, solve, svd, svdvals, vector_norm)

__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "norm",
           "qr", "slogdet", "solve", "svd", "svdvals", "vector_norm"]
