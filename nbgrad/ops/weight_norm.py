"""Weight normalization's ops (PyTorch's norm_except_dim, _weight_norm and
_weight_norm_interface): w = v * (g / ||v||), the norm taken over every dim but `dim`
(over all of v when dim is -1).

_weight_norm runs as PyTorch's: through the fused op, one WeightNormInterfaceBackward0
node, when dim is the first or the last and g holds one value per slice (and neither is
float16); otherwise as the composite v * (g / norm_except_dim(v, 2, dim)).  Where
PyTorch's fused kernel would read g out of bounds (g of another size) nbgrad takes the
composite, which broadcasts g or refuses it.

One departure, on purpose: PyTorch's double backward of the fused node treats the norms
as constants (torch.autograd.gradgradcheck fails on torch._weight_norm); nbgrad's
backward under create_graph recomputes them from v, so second derivatives are right.
"""
from .. import _dtype as D
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._dtype_rules import check_same_dtype
from ._graph import needs_grad, record


def _slice_shape(v, dim):
    """The shape of v's norms over every dim but dim (the first or the last): v.shape[dim]
    values, broadcasting against v."""
    if dim == 0:
        return (v.size(0),) + (1,) * (v.dim() - 1)
    return (1,) * (v.dim() - 1) + (v.size(-1),)


def norm_except_dim(v, pow=2, dim=0):
    """The p-norm of v over every dim but `dim`, shaped to broadcast against v (dim -1:
    the norm of all of v, a 0-dim tensor)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(_slice_shape(v, 0))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(_slice_shape(v, dim))
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """w = v * (g / norm_except_dim(v, 2, dim))."""
    if v.device != g.device:
        raise RuntimeError(f"weight_norm: expected v_in and g_in to be on the same device, but v_in is on "
                           f"{v.device} and g_in is on {g.device}")
    v, g = v.contiguous(), g.contiguous()
    half = D.float16 in (v.dtype, g.dtype)
    if not half and v.dim() and (dim == 0 or dim == v.dim() - 1) and g.numel() == v.shape[dim]:
        return _weight_norm_interface(v, g, dim)[0]
    return v * (g / norm_except_dim(v, 2, dim))


def _weight_norm_interface(v, g, dim=0):
    """(w, norms): the fused op, for dim the first or the last of v and g of v.shape[dim]
    values; norms (shaped as g) carry no gradient."""
    n = v.dim()
    if not (dim == 0 or dim == n - 1):
        raise RuntimeError("fused kernels can only be applied for first or last dim")
    if g.numel() != v.shape[dim]:
        raise RuntimeError(f"weight_norm: expected g to have {v.shape[dim]} elements (the size of dim {dim} of v), "
                           f"but got {g.numel()}")
    check_same_dtype(v.dtype, g.dtype)
    with no_grad():
        norms = norm_except_dim(v, 2, dim)
        w = v * (g.reshape(norms.shape) / norms)
    if needs_grad(v, g):
        record(WeightNormInterfaceBackward0, (v, g), (w,), dim=dim).save(v, g, norms)
    return w, norms.reshape(g.shape)


class WeightNormInterfaceBackward0(Node):
    """grad_v = (g / n) * (grad - v * s / n^2), grad_g = s / n, with s the sum of grad * v over
    each slice; under create_graph the norms n are recomputed from v (see the module note)."""

    def backward(self, grad, *unused):
        v, g, norms = self.saved_tensors
        dim = self.dim
        if is_grad_enabled():
            norms = norm_except_dim(v, 2, dim)
        gb = g.reshape(norms.shape)
        prod = grad * v
        if dim == 0:
            sums = prod.reshape(v.shape[0], -1).sum(1).reshape(norms.shape)
        else:
            sums = prod.reshape(-1, v.shape[-1]).sum(0).reshape(norms.shape)
        grad_v = (gb / norms) * (grad - v * (sums / (norms * norms))) if self.needs_input_grad(0) else None
        grad_g = (sums / norms).reshape(g.shape) if self.needs_input_grad(1) else None
        return grad_v, grad_g

