"""Distances and similarities of nn.functional (normalize, cosine_similarity, pairwise_distance,
pdist), composed from Tensor ops as PyTorch composes them, so that values, gradients and the
output's node are PyTorch's."""
from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import needs_grad, record, zeros_grad
from .more import renamed
from ._dtype_rules import not_implemented


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from .. import div      # (the public div: the one that takes out=)
    return div(input, denom, out=out)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) over dim (PyTorch's ATen formula)."""
    # PyTorch's: the common dtype (a 0-dim operand's does not promote a dim-ful one's) must be
    # floating; only integer inputs are cast to it, floating ones keep their own (a float16 x1
    # is normalised in float16 beside a float32 x2)
    dtype = D.result_type_of((x1, x2))
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{D.scalar_type_name(dtype)}")
    if not eps >= 0:        # (ATen's TORCH_CHECK(eps >= 0): NaN fails it too)
        raise RuntimeError(f"eps must be non-negative, got: {float(eps):g}")
    x1 = x1 if x1.dtype.is_floating_point else x1.to(dtype)
    x2 = x2 if x2.dtype.is_floating_point else x2.to(dtype)
    if tuple(x1.shape) != tuple(x2.shape):
        from ._graph import broadcast_shapes
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    # (ATen's: the norms cloned, then clamped in place under no_grad, so the norm's backward
    # still reads the unclamped norm: a row of norm 5e-9 gets x / 5e-9 in its norm's gradient)
    from .linalg_decomp import vector_norm
    n1 = vector_norm(x1, 2, dim, True).clone()
    n2 = vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim of the broadcast shape."""
    innermost = max(x1.dim(), x2.dim()) - 1
    # (eps is ATen's double: an int or bool given for it still promotes an integer difference)
    # (ATen's x1 - x2 + eps adds a double: add.Scalar's node, AddBackward1)
    return renamed(renamed(x1 - x2 + float(eps), "AddBackward1").norm(p, innermost, keepdim), "NormBackward1")


def pdist(input, p=2):
    """||x_i - x_j||_p for each row pair i < j, in row-major order of (i, j)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input.dtype in (D.float16, D.bfloat16) and input.shape[0] > 1 and input.shape[1] > 0:
        raise not_implemented("pdist", input.dtype)     # (its kernel's: not called for no pair, or no column)
    from .. import triu_indices
    n = input.shape[0]
    i, j = triu_indices(n, n, 1, device=input.device)
    if p == 0:      # a count of the differing coordinates: PyTorch's gradient is zero, not absent
        with no_grad():
            out = (input.index_select(0, i) - input.index_select(0, j)).norm(0, 1)
        if needs_grad(input):
            record(PdistBackward0, (input,), (out,)).save(input)
        return out
    from .composite import one_node
    return one_node("PdistBackward0", lambda t: (t.index_select(0, i) - t.index_select(0, j)).norm(p, 1), input)


class PdistBackward0(Node):
    """pdist with p = 0 (other p are composed and shown under this name)."""

    def backward(self, g):
        (x,) = self.saved_tensors
        return zeros_grad(x)
