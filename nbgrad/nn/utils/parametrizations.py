"""nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal, as parametrizations
registered with nn.utils.parametrize (PyTorch's torch.nn.utils.parametrizations)."""
from enum import Enum, auto

from ... import _dtype as D
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- orthogonal
def _is_orthogonal(Q, eps=None):
    from ... import allclose, eye
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * D.finfo(Q.dtype).eps
    return allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with diag(R) >= 0."""
    from ... import geqrf
    from ...linalg import householder_product
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    # the diagonal of X is R's: Q's columns take its signs, so that diag(R) is non-negative
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """X -> an orthogonal (semi-orthogonal, for a non-square X) matrix of X's shape."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        from ... import cat, eye, matrix_exp
        from ...linalg import householder_product, solve
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # X is now tall (n >= k)
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH            # skew-symmetric
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                # the Cayley retraction (I + A/2)(I - A/2)^{-1}
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            # X's diagonal holds +-1: which reflections flip (not differentiated through)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        from ... import cat, randn, zeros_like
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            # householder: Q's reflectors, with diag(R) > 0 recorded as +-1 on the diagonal
            from ... import geqrf
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            # (LAPACK returns exactly 0 for a reflection it does not use)
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            # complete Q to an n x n orthogonal matrix
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -Id: so that the householder map of zeros is eye(m, n)
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize module.<name> (a matrix or a batch of them) to be orthogonal: by the
    matrix exponential or the Cayley map of a skew-symmetric matrix, or a product of
    Householder reflectors (the default for non-square weights)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------- weight_norm
class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        from ...ops.weight_norm import _weight_norm
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        from ...ops.weight_norm import norm_except_dim
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """module.<name> = g * v / ||v||, the norm over every dim but `dim` (all of them for
    dim=None): parametrizations.<name>.original0 is g, original1 is v.  A state dict of the
    deprecated nn.utils.weight_norm (<name>_g, <name>_v) loads into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---------------------------------------------------------------- spectral_norm
class _SpectralNorm(Module):
    """weight / sigma, sigma its largest singular value (of the weight as a matrix with
    `dim` first), estimated by power iteration: one step per training-mode access, the
    vectors _u and _v kept as buffers."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from vectors 15 power iterations have brought near the singular ones
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        from ... import mv
        with no_grad():
            for _ in range(n_power_iterations):
                # sigma = u^T W v for u, v the first left and right singular vectors; the
                # buffers are updated in place (out=), as PyTorch's
                self._u = F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(mv(weight_mat.mH, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        from ... import mv, vdot
        from ..._layout import contiguous_format
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the buffers change in place at the next access, and the graph saves these
        u = self._u.clone(memory_format=contiguous_format)
        v = self._v.clone(memory_format=contiguous_format)
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> divided by its spectral norm (largest singular value), estimated by
    power iteration; dim (default 0, 1 for ConvTranspose) is the output dim."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from .weight_norm import output_dim
        dim = output_dim(module)
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
