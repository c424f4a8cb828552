"""torch.geqrf and torch.linalg.householder_product (torch.orgqr): LAPACK's compact QR and
the product of its Householder reflectors.

geqrf(A) = (a, tau): R on and above a's diagonal, below it the vectors v_i of the
reflectors H_i = I - tau_i v_i v_i^T (v_i's i-th entry an implicit 1, its earlier ones
zero), A = H_1 ... H_k R, k = min(m, n).  householder_product(a, tau) is the first n
columns of H_1 ... H_k; geqrf's a and tau give A's Q.  The numerical work is the
backend's (LAPACK's geqr2 and org2r steps: nbgrad/backends/cpu/linalg_lapack.py).

As PyTorch: geqrf records a GeqrfBackward0 node whose backward refuses (derivatives.yaml's
not_implemented("geqrf")); householder_product is differentiable in a and tau
(LinalgHouseholderProductBackward0), its backward written with Tensor ops so that
create_graph gives higher derivatives.  Results are laid out batched column-major, as
LAPACK leaves them and PyTorch returns them; out= follows PyTorch's rules (a dtype it can
cast to; an empty out of the result's dtype takes the column-major layout).
"""
from .. import _dtype as D
from .._tensor import Tensor
from .._layout import row_major_strides
from ..autograd.node import Node
from ..return_types import return_type
from ._graph import backend_of, copy_raw, needs_grad, new_strided, new_tensor, record
from ._dtype_rules import not_implemented
from ._out import linalg_castable
from . import views as V
from .linalg import matmul

geqrf_result = return_type("geqrf", ["a", "tau"])
geqrf_out_result = return_type("geqrf_out", ["a", "tau"])

_HP = "torch.linalg.householder_product"


# -- layouts and checks ----------------------------------------------------------------
def _column_major_strides(shape):
    """PyTorch's batched column-major strides: the transpose of a contiguous (..., n, m)
    (size-0 dims count as 1)."""
    shape = tuple(shape)
    s = row_major_strides(shape[:-2] + (shape[-1], shape[-2]))
    return s[:-2] + (s[-1], s[-2])


def _column_major(t):
    strides = _column_major_strides(t._shape)
    if t._stride == strides:
        return t
    if t.numel() == 0:
        return new_strided(t._storage.buffer, t._shape, strides, t._dtype, t.device)
    return copy_raw(t, strides)


def _is_column_major(t):
    return t.dim() >= 2 and V.mT(t).is_contiguous()


def _need_tensor(fn, name, position, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}")


def _same_device(op, x, what, input):
    if x._storage.device != input._storage.device:
        raise RuntimeError(f"{op}: Expected {what} and input tensors to be on the same device, but got {what} "
                           f"on {x.device} and input on {input.device}")


def _write_out(out, result, tmp_needed):
    """PyTorch's linalg out= path: an out of the result's dtype and layout (or empty) is
    written in place (an empty one resized batched column-major, as LAPACK writes it);
    any other is resized as resize_output does and the result copied into it."""
    from ._out import resize_output, write
    if not tmp_needed and out.numel() == 0 and out._shape != result._shape:
        swapped = tuple(result._shape[:-2]) + (result._shape[-1], result._shape[-2])
        resize_output(out, swapped, warn=False)
        out._shape, out._stride = result._shape, _column_major_strides(result._shape)
    else:
        resize_output(out, result._shape)
    write(out, result)


def _fits(out, result, matrix):
    """Whether PyTorch's kernel writes `out` itself: its dtype, and empty or of the result's
    shape and layout (batched column-major for a matrix, contiguous for a vector)."""
    if out._dtype is not result._dtype:
        return False
    if out.numel() == 0:
        return True
    if out._shape != result._shape:
        return False
    return _is_column_major(out) if matrix else out.is_contiguous()


# -- geqrf -------------------------------------------------------------------------------
class GeqrfBackward0(Node):
    """derivatives.yaml: geqrf's derivative is not_implemented("geqrf")."""

    def backward(self, *grads):
        if not self.needs_input_grad(0):
            return None
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def _check_geqrf(input):
    _need_tensor("geqrf", "input", 1, input)
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")


def _geqrf(input):
    if input._dtype is not D.float32 and input._dtype is not D.float64:
        raise not_implemented("geqrf_cpu", input._dtype)
    shape = tuple(input._shape)
    m, n = shape[-2], shape[-1]
    abuf, tbuf = backend_of(input).linalg_geqrf(input._view_tuple())
    a = _column_major(new_tensor(abuf, shape, input._dtype, input.device))
    tau = new_tensor(tbuf, shape[:-2] + (min(m, n),), input._dtype, input.device)
    if needs_grad(input):
        record(GeqrfBackward0, (input,), (a, tau))
    return a, tau


def geqrf(input, *, out=None):
    """torch.geqrf: (a, tau), LAPACK geqrf's QR of each matrix of input (..., m, n)."""
    if out is None:
        _check_geqrf(input)
        return geqrf_result(*_geqrf(input))
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"geqrf(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(o).__name__}")
    from ._out import check_no_grad
    check_no_grad("geqrf", (input,), out)
    _check_geqrf(input)
    out_a, out_tau = out
    _same_device("torch.geqrf", out_a, "a", input)
    _same_device("torch.geqrf", out_tau, "tau", input)
    linalg_castable("torch.geqrf", "a", input._dtype, out_a)
    linalg_castable("torch.geqrf", "tau", input._dtype, out_tau)
    a, tau = _geqrf(input)
    in_place = _fits(out_a, a, True) and _fits(out_tau, tau, False)
    _write_out(out_a, a, not in_place)
    _write_out(out_tau, tau, True)
    return geqrf_out_result(out_a, out_tau)


# -- householder_product -----------------------------------------------------------------
def _below_diagonal(m, k, device):
    """(m, k) bool: True strictly below the diagonal."""
    from .._creation import arange
    return (arange(m, device=device).unsqueeze(-1) - arange(k, device=device)) > 0


def _reflectors(A, k):
    """(..., m, k): A's first k columns below the diagonal with ones on it (differentiable
    in A; what the forward reads)."""
    from .._creation import eye
    from .elementwise import where
    m = A.shape[-2]
    below = where(_below_diagonal(m, k, A.device), V.narrow(A, -1, 0, k), 0.0)
    return below + eye(m, k, dtype=A.dtype, device=A.device)


def _reflect(X, v, t):
    """H X = X - t v (v^T X) for a batch of vectors v (..., m) and scalars t (...,)."""
    w = matmul(V.unsqueeze(v, -2), X)                       # (..., 1, n)
    return X - V.unsqueeze(V.unsqueeze(t, -1), -1) * (V.unsqueeze(v, -1) * w)


def _householder_gradient(G, A, tau, want_A, want_tau):
    """The gradients of Q = H_0 ... H_{k-1} E (E: the identity's first n columns) for Q's
    gradient G, as Tensor ops.  With S_i = H_{i+1} ... H_{k-1} E (what follows H_i) and
    L_i = H_{i-1} ... H_0 G (H's are symmetric), <G, dQ> = sum_i <L_i S_i^T, dH_i>, and
    dH_i = -dtau_i v v^T - tau_i (dv v^T + v dv^T) gives
      d tau_i = -(L_i^T v) . (S_i^T v),   d v_i = -tau_i (L_i S_i^T v + S_i L_i^T v);
    A's column i takes d v_i below the diagonal, its other entries are not read.
    (PyTorch's householder_product_backward walks the same products with inverse reflectors;
    none is inverted here, so a singular one, tau_i ||v_i||^2 = 1, is no special case.)"""
    from .._creation import eye, zeros
    from .elementwise import where
    from .indexing import cat, stack
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    vs = V.unbind(_reflectors(A, k), -1)
    ts = V.unbind(tau, -1)
    S = [None] * k
    S[k - 1] = V.expand(eye(m, n, dtype=A.dtype, device=A.device), tuple(A.shape))
    for i in range(k - 1, 0, -1):
        S[i - 1] = _reflect(S[i], vs[i], ts[i])
    L = G
    gv, gt = [], []
    for i in range(k):
        v = V.unsqueeze(vs[i], -1)                                    # (..., m, 1)
        Sv = matmul(V.mT(S[i]), v)                                    # (..., n, 1)
        Lv = matmul(V.mT(L), v)                                       # (..., n, 1)
        if want_tau:
            gt.append(-(Sv * Lv).sum((-2, -1)))
        if want_A:
            t = V.unsqueeze(V.unsqueeze(ts[i], -1), -1)
            gv.append(V.squeeze(-t * (matmul(L, Sv) + matmul(S[i], Lv)), -1))
        if i < k - 1:
            L = _reflect(L, vs[i], ts[i])
    gA = gtau = None
    if want_tau:
        gtau = stack(gt, -1)
    if want_A:
        gA = where(_below_diagonal(m, k, A.device), stack(gv, -1), 0.0)          # (..., m, k)
        if k < n:
            gA = cat([gA, zeros(tuple(A.shape[:-1]) + (n - k,), dtype=A.dtype, device=A.device)], -1)
    return gA, gtau


class LinalgHouseholderProductBackward0(Node):
    def backward(self, g):
        A, tau, _result = self.saved_tensors
        if g is None or A.numel() == 0 or tau.numel() == 0:
            return None, None
        return _householder_gradient(g, A, tau, self.needs_input_grad(0), self.needs_input_grad(1))


def _check_householder(input, tau):
    """PyTorch's checks, in its order (linalg_householder_product_out)."""
    if input.dim() < 2:
        raise RuntimeError(f"{_HP}: input must have at least 2 dimensions.")
    if input._shape[-2] < input._shape[-1]:
        raise RuntimeError(f"{_HP}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input._shape[-1] < tau._shape[-1]:
        raise RuntimeError(f"{_HP}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"{_HP}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {input.dim()}")
    if input.dim() > 2 and tuple(tau._shape[:-1]) != tuple(input._shape[:-2]):
        raise RuntimeError(f"{_HP}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau._shape[:-1])}")
    if tau._dtype is not input._dtype:
        raise RuntimeError(f"{_HP}: tau dtype {D.scalar_type_name(tau._dtype)} does not match input dtype "
                           f"{D.scalar_type_name(input._dtype)}")
    _same_device(_HP, tau, "tau", input)


def _householder_product(input, tau):
    if input._dtype is not D.float32 and input._dtype is not D.float64:
        raise not_implemented("orgqr_cpu", input._dtype)
    buf = backend_of(input).linalg_householder_product(input._view_tuple(), tau._view_tuple())
    result = _column_major(new_tensor(buf, tuple(input._shape), input._dtype, input.device))
    if needs_grad(input, tau):
        # derivatives.yaml saves input, tau and the result (a change of any is refused)
        record(LinalgHouseholderProductBackward0, (input, tau), (result,)).save(input, tau, result,
                                                                                outputs=(result,))
    return result


def _householder(fn, names, input, tau, out):
    _need_tensor(fn, names[0], 1, input)
    _need_tensor(fn, names[1], 2, tau)
    if out is None:
        _check_householder(input, tau)
        return _householder_product(input, tau)
    if not isinstance(out, Tensor):
        raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
    from ._out import check_no_grad
    check_no_grad(fn, (input, tau), (out,))
    _check_householder(input, tau)
    _same_device(_HP, out, "result", input)
    linalg_castable(_HP, "result", input._dtype, out)
    result = _householder_product(input, tau)
    _write_out(out, result, not _fits(out, result, True))
    return out


def householder_product(input, tau, *, out=None):
    """torch.linalg.householder_product: the first n columns of H_1 ... H_k for input
    (..., m, n), m >= n, and tau (..., k), k <= n."""
    return _householder("linalg_householder_product", ("input", "tau"), input, tau, out)


def orgqr(input, input2, *, out=None):
    """torch.orgqr: householder_product under LAPACK's name."""
    return _householder("orgqr", ("input", "input2"), input, input2, out)


def orgqr_method(input, input2):
    """Tensor.orgqr (self is input; input2 is the method's first argument)."""
    _need_tensor("orgqr", "input2", 1, input2)
    return _householder("orgqr", ("input", "input2"), input, input2, None)
