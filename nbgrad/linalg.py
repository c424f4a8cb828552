"""nbgrad.linalg: PyTorch's torch.linalg namespace (the ops are in nbgrad/ops/linalg_decomp.py;
matmul and friends in nbgrad/ops/linalg.py)."""
from .ops.linalg import matmul
from .ops.linalg_decomp import (LinAlgError, cholesky, cross, det, eigh, eigvalsh, inv, matrix_norm, norm, qr,
                                slogdet, solve, svd, svdvals, vector_norm)

__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "norm",
           "qr", "slogdet", "solve", "svd", "svdvals", "vector_norm"]

# more of torch.linalg (ops/linalg_more.py)
from .ops.linalg_more import (cholesky_ex, cond, diagonal, inv_ex, lstsq, lu, lu_factor, lu_factor_ex,  # noqa: E402
                              lu_solve, matrix_exp, matrix_rank, multi_dot, pinv, solve_ex, solve_triangular,
                              tensorinv, tensorsolve, vander, vecdot)
from .ops.linalg_more import linalg_matrix_power as matrix_power  # noqa: E402
__all__ += ["cholesky_ex", "cond", "diagonal", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
            "matrix_exp", "matrix_power", "matrix_rank", "multi_dot", "pinv", "solve_ex", "solve_triangular",
            "tensorinv", "tensorsolve", "vander", "vecdot"]

# LAPACK's compact QR: the product of its reflectors (ops/linalg_householder.py)
from .ops.linalg_householder import householder_product  # noqa: E402
__all__ += ["householder_product"]

# LDL^T of symmetric matrices (ops/linalg_ldl.py; their own out=)
from .ops.linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402
__all__ += ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

# out= and PyTorch's names in errors (ops/_signatures.py)
from .ops._signatures import linalg_functions as _linalg_functions  # noqa: E402
globals().update(_linalg_functions(globals()))

# an argument that is not a tensor where one is read: PyTorch's TypeError (ops/_signatures.py)
from .ops._signatures import with_tensor_arguments as _with_tensor_arguments  # noqa: E402
globals().update(_with_tensor_arguments(globals(), __name__, "linalg_"))
