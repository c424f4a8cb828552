"""nbgrad.linalg: PyTorch's torch.linalg namespace (the ops are in nbgrad/ops/linalg_decomp.py;
matmul and friends in nbgrad/ops/linalg.py)."""
from .ops.linalg import matmul
from .ops.linalg_decomp import (LinAlgError, cholesky, cross, det, eigh, eigvalsh, inv, matrix_norm, norm, qr,
                                slogdet, solve, svd, svdvals, vector_norm)

__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "norm",
           "qr", "slogdet", "solve", "svd", "svdvals", "vector_norm"]

# out= and PyTorch's names in errors (ops/_signatures.py)
from .ops._signatures import linalg_functions as _linalg_functions  # noqa: E402
globals().update(_linalg_functions(globals()))
