"""Cumulative ops along one dim: cumsum, cumprod (the backend's `cumulative` scan).

The result dtype is PyTorch's: `dtype=` when given (the input is cast to it first),
else int64 for integer and bool inputs, else the input's.  The backwards are
PyTorch's (FunctionsManual.cpp) composed of Tensor ops, so that under create_graph they
are recorded and differentiable again: cumsum's is a reversed cumsum of the gradient;
cumprod's divides by the input when it has no zero, else takes PyTorch's O(n) masked
formula, or under create_graph its O(n^2) one whose own derivative is cumprod's second.
"""
from .. import _dtype as D
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, new_tensor, record, wrap_int_dim
from ._dtype_rules import not_implemented
from .reduction import check_grad_dtype


def _result_dtype(x, dtype):
    if dtype is not None:
        return D.to_dtype(dtype)
    if x._dtype.is_floating_point:
        return x._dtype
    return D.int64


def check_scan_dtype(op, x, out_dtype):
    if out_dtype is D.bool_ and x.dim() and x.numel():     # (PyTorch returns before its dtype dispatch)
        raise not_implemented(f"{op}_out_cpu", D.bool_)


def scan_dim(op, x, dim):
    """dim wrapped for x, or PyTorch's error."""
    if dim is None:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return wrap_int_dim(op, dim, x)


def _scan(op, x, dim, dtype):
    d = scan_dim(op, x, dim)
    out_dtype = _result_dtype(x, dtype)
    check_scan_dtype(op, x, out_dtype)
    check_grad_dtype(x, out_dtype)
    buf = backend_of(x).cumulative("sum" if op == "cumsum" else "prod", x._view_tuple(), d, out_dtype.np)
    return new_tensor(buf, x._shape, out_dtype, x.device), d


def reversed_cumsum(w, dim):
    return w.flip(dim).cumsum(dim).flip(dim)


class CumsumBackward0(Node):
    def backward(self, g):
        if g._dtype is not self.dtype:
            g = g.to(self.dtype)
        if g.numel() <= 1 or g.shape[self.dim] == 1:
            return g
        return reversed_cumsum(g, self.dim)


def cumsum(input, dim=None, *, dtype=None):
    result, d = _scan("cumsum", input, dim, dtype)
    if needs_grad(input):
        record(CumsumBackward0, (input,), (result,), dim=d if input.dim() else 0, dtype=input._dtype)
    return result


class CumprodBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        if g._dtype is not x._dtype:
            g = g.to(x._dtype)
        return cumprod_backward(g, x, self.dim, out)


def cumprod(input, dim=None, *, dtype=None):
    result, d = _scan("cumprod", input, dim, dtype)
    if needs_grad(input):
        record(CumprodBackward0, (input,), (result,), dim=d if input.dim() else 0).save(
            input, result, outputs=(result,))
    return result


def cumprod_backward(grad, x, dim, out):
    """PyTorch's cumprod_backward (FunctionsManual.cpp), step for step."""
    if x.numel() <= 1 or x.shape[dim] == 1:
        return grad
    w = out * grad
    is_zero = x == 0
    if not bool(is_zero.any().item()):
        return reversed_cumsum(w, dim).div(x)
    if not is_grad_enabled():
        return _cumprod_backward_masked(grad, x, dim, out, w, is_zero)
    return _cumprod_backward_quadratic(grad, x, dim)


def _cumprod_backward_masked(grad, x, dim, out, w, is_zero):
    """O(n): below the first zero z1 the no-zero formula; at z1 the sum over [z1, z2) of
    grad_k times the product of x up to k without x_z1; after z1 nothing."""
    from .elementwise import where
    zeros_seen = is_zero.cumsum(dim)
    before = zeros_seen == 0
    grad_input = where(before, reversed_cumsum(w.masked_fill(~before, 0.), dim).div(x), 0.)
    first_zero = is_zero & (zeros_seen == 1)
    between = (zeros_seen == 1) & ~is_zero                   # (z1, z2)
    first_index = (zeros_seen == 1).to(D.int64).argmax(dim, keepdim=True)
    before_z1 = out.gather(dim, (first_index - 1).clamp(min=0)).masked_fill(first_index == 0, 1.)
    at_z1 = (x.masked_fill(~between, 1.).cumprod(dim) * grad.masked_fill(zeros_seen != 1, 0.)
             ).sum(dim, keepdim=True) * before_z1
    # PyTorch fills a fresh at::zeros (row-major) by masked_scatter_: its layout, whatever x's
    return where(first_zero, at_z1, grad_input).contiguous()


def _cumprod_backward_quadratic(grad, x, dim):
    """dy_j/dx_k as the product of x_1..x_j without x_k, one k at a time (differentiable)."""
    from .._creation import ones
    from .indexing import cat
    n = x.shape[dim]
    ones_size = list(x.shape)
    ones_size[dim] = 1
    one = ones(1, dtype=grad.dtype, device=grad.device).expand(ones_size)
    slices = []
    for k in range(n):
        if k == 0:
            omitted = cat([one, x.narrow(dim, 1, n - 1).cumprod(dim)], dim)
        elif k == n - 1:
            omitted = x.narrow(dim, 0, k).prod(dim, keepdim=True)
        else:
            until_k = x.narrow(dim, 0, k).prod(dim, keepdim=True)
            from_k1 = x.narrow(dim, k + 1, n - k - 1).cumprod(dim)
            omitted = cat([until_k, until_k.expand_as(from_k1) * from_k1], dim)
        slices.append((grad.narrow(dim, k, n - k) * omitted).sum(dim, keepdim=True))
    return cat(slices, dim)
