"""embedding: rows of a weight matrix picked by an integer tensor, with PyTorch's node
(EmbeddingBackward0: the rows' gradients summed into a zero matrix, none for padding_idx,
divided by each index's count under scale_grad_by_freq) and its max_norm renormalisation."""
from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from .indexing import _GatherFlatBackward, gather_flat, scatter_add_flat
from ._graph import needs_grad


class EmbeddingBackward0(_GatherFlatBackward):
    padding_idx = -1
    scale_grad_by_freq = False

    def backward(self, g):
        pos, indices = self.saved_tensors[:2]
        if self.padding_idx >= 0 or self.scale_grad_by_freq:
            from . import elementwise as E
            if self.padding_idx >= 0:
                g = E.where((indices != self.padding_idx).unsqueeze(-1), g, 0.0)
            if self.scale_grad_by_freq:
                with no_grad():
                    flat = indices.reshape(-1).long()
                    counts = flat.new_zeros(self.shape[0]).index_add(0, flat, flat.new_ones(flat.shape))
                    per_index = counts[indices.long()].unsqueeze(-1).to(g.dtype)
                g = g / per_index
        return scatter_add_flat(self.numel, pos, g, shape=self.shape)


def _check(input, weight):
    from .._tensor import Tensor
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("embedding(): argument 'input' and 'weight' must be Tensor")
    if input._dtype not in (D.int64, D.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.device != weight.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                           f"{weight.device} and {input.device}!")
    if input.numel():
        # no negative rows, unlike indexing (PyTorch's embedding refuses -1 too)
        lo, hi = int(input.min()), int(input.max())
        if lo < 0 or hi >= weight.shape[0]:
            raise IndexError("index out of range in self")


def embedding_renorm_(weight, input, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each row input names whose norm exceeds max_norm is scaled
    in place by max_norm / (norm + 1e-7) (no gradient; weight's version moves)."""
    from .._creation import zeros
    with no_grad():
        hit = zeros(weight.shape[0], dtype=D.bool_, device=weight.device)
        hit[input.reshape(-1).long()] = True
        rows = hit.nonzero().reshape(-1)
        if rows.numel() == 0:
            return weight
        norms = weight[rows].norm(norm_type, dim=1)
        from . import elementwise as E
        scale = E.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
        weight[rows] = weight[rows] * scale.unsqueeze(1)
    return weight


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """out[..., :] = weight[input[...], :] (a fresh row-major tensor)."""
    if padding_idx is not None:
        n = weight.shape[0] if weight.dim() else 0
        if padding_idx > 0 and padding_idx >= n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    if sparse:
        raise NotImplementedError("embedding(sparse=True): nbgrad has no sparse tensors")
    _check(input, weight)
    if max_norm is not None:
        embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    dim = weight.shape[1]
    with no_grad():
        from .._creation import arange
        pos = (input.long().unsqueeze(-1) * dim + arange(dim, dtype=D.int64, device=weight.device)).contiguous()
    out = gather_flat(weight, pos, EmbeddingBackward0, input)
    if needs_grad(weight):
        node = out.grad_fn
        node.padding_idx = -1 if padding_idx is None else padding_idx
        node.scale_grad_by_freq = bool(scale_grad_by_freq)
    return out
