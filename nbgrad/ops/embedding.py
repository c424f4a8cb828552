"""embedding: rows of a weight matrix picked by an integer tensor, with PyTorch's node
(EmbeddingBackward0: the rows' gradients summed into a zero matrix, none for padding_idx,
divided by each index's count under scale_grad_by_freq) and its max_norm renormalisation."""
import operator

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .indexing import _GatherFlatBackward, gather_flat, scatter_add_flat
from ._graph import needs_grad
from ._signatures import python_body


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


def _check_index_dtype(t, name, argument, op):
    """ATen's checkScalarTypes of an index tensor: int64 or int32."""
    if t._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #{argument} '{name}' to have one of the following scalar "
                           f"types: Long, Int; but got {t.type()} instead (while checking arguments for {op})")


def _check(input, weight):
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("embedding(): argument 'input' and 'weight' must be Tensor")
    if weight.dim() != 2:       # (PyTorch checks the weight first)
        raise RuntimeError("'weight' must be 2-D")
    _check_index_dtype(input, "indices", 1, "embedding")
    if input.device != weight.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                           f"{weight.device} and {input.device}!")
    if input.numel():
        # no negative rows, unlike indexing (PyTorch's embedding refuses -1 too)
        lo, hi = int(input.min()), int(input.max())
        if lo < 0 or hi >= weight.shape[0]:
            # (ATen's embedding is weight.index_select(0, indices): its errors, an empty weight's too)
            from .indexing import _raise_select_out_of_range
            _raise_select_out_of_range(weight, 0, input.reshape(-1).tolist())


def embedding_renorm_(weight, input, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each row input names whose norm exceeds max_norm is scaled
    in place by max_norm / (norm + 1e-7) (no gradient; weight's version moves).  Its parser and
    checks first, as F.embedding calls it before embedding's own."""
    from .._creation import zeros
    from .._checks import is_float
    from ._argument_check import _type_name
    for position, (name, v) in enumerate((("max_norm", max_norm), ("norm_type", norm_type)), 3):
        if not is_float(v):
            raise TypeError(f"embedding_renorm_(): argument '{name}' (position {position}) must be float, "
                            f"not {_type_name(v)}")
    if weight.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {weight.dim()}-dimensional tensor for argument "
                           "#1 'self' (while checking arguments for embedding_renorm_)")
    _check_index_dtype(input, "indices", 2, "embedding_renorm_")
    n = weight.shape[0]
    if input.numel():
        # (ATen selects each distinct index in ascending order: a negative one counts from the end)
        for i in input.reshape(-1).unique().tolist():
            if not -n <= i < n:
                raise IndexError(f"select(): index {i} out of range for tensor of size {list(weight.shape)} "
                                 "at dimension 0")
    with no_grad():
        hit = zeros(n, dtype=D.bool_, device=weight.device)
        hit[input.reshape(-1).long()] = True
        rows = hit.nonzero().reshape(-1)
        if rows.numel() == 0:
            return weight
        if not weight._dtype.is_floating_point:
            raise RuntimeError("norm(): input dtype should be either floating point or complex. Got "
                               f"{D.scalar_type_name(weight._dtype)} instead.")
        # (ATen reads each row's norm as a double and scales by the double max_norm / (norm + 1e-7))
        norms = weight[rows].norm(norm_type, dim=1).double()
        from . import elementwise as E
        scale = E.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
        weight[rows] = weight[rows] * scale.unsqueeze(1)
    return weight


@python_body
def wrapped_padding_idx(padding_idx, num_embeddings, word="Padding_idx"):
    """padding_idx as a row number (a negative one counts from the end), PyTorch's
    AssertionError when it is not a row (Embedding's words it "Padding_idx", EmbeddingBag's
    "padding_idx"; word None: F.embedding's call, whose num_embeddings is its weight argument,
    whatever it is), whose size(0) is read only where F.embedding reads it (a 0-dim weight's
    IndexError, for a padding_idx that is not 0)."""
    if padding_idx is None:
        return None
    # (F.embedding's weight.size(0), read as PyTorch's Python reads it, here in this body: a
    # number's AttributeError is PyTorch's; the modules give their num_embeddings, an int)
    given = type(num_embeddings) is int and word is not None
    if padding_idx > 0:
        if not padding_idx < (num_embeddings if given else num_embeddings.size(0)):
            raise AssertionError(f"{word or 'Padding_idx'} must be within num_embeddings")
    elif padding_idx < 0:
        rows = num_embeddings if given else num_embeddings.size(0)
        if not padding_idx >= -rows:
            raise AssertionError(f"{word or 'Padding_idx'} must be within num_embeddings")
        return rows + padding_idx
    return padding_idx


@python_body
def _no_grad_embedding_renorm_(weight, input, max_norm, norm_type):
    """F's helper: torch.embedding_renorm_ of weight.detach() (a weight that is no tensor is that
    read's AttributeError)."""
    embedding_renorm_(weight.detach(), input, max_norm, norm_type)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """out[..., :] = weight[input[...], :] (a fresh row-major tensor)."""
    padding_idx = wrapped_padding_idx(padding_idx, weight, None)
    if max_norm is not None:        # (before embedding's checks, as PyTorch's Python)
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    pad = -1 if padding_idx is None else padding_idx
    if pad.__class__ is not int or not isinstance(scale_grad_by_freq, (bool, np.bool_)) \
            or not isinstance(sparse, (bool, np.bool_)):
        # (then PyTorch's Python calls torch.embedding, whose parser reads padding_idx as a SymInt
        # and the flags as bools)
        from ._argument_check import argument_error
        error = argument_error("embedding", (weight, input, pad, scale_grad_by_freq, sparse), {})
        if error is not None:
            raise error
        if padding_idx is not None:
            padding_idx = operator.index(padding_idx) if not isinstance(padding_idx, Tensor) else int(padding_idx)
    if sparse:
        raise NotImplementedError("embedding(sparse=True): nbgrad has no sparse tensors")
    _check(input, weight)
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


# ---------------------------------------------------------------- embedding_bag
@python_body
def _bag_checks(input, weight, offsets, mode, scale_grad_by_freq, sparse, per_sample_weights, include_last_offset):
    """F.embedding_bag's Python checks, in PyTorch's order; returns (indices, offsets, psw,
    include_last_offset) with a 2-D input's rows as bags of its length (and no last offset)."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        if input.shape[1] == 0:
            raise RuntimeError("step must be nonzero")      # (PyTorch's arange of the offsets)
        from .._creation import arange
        offsets = arange(0, input.numel(), input.shape[1], dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:      # (a number's AttributeError, as PyTorch's Python reads it)
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    return input, offsets, per_sample_weights, include_last_offset


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """PyTorch's F.embedding_bag: the sums, means or maxima of bags of weight's rows, a bag being
    input[offsets[b]:offsets[b + 1]] (or a row of a 2-D input), entries equal to padding_idx
    left out, an empty bag zeros.  Composed: the bags' rows gathered (embedding, so
    scale_grad_by_freq scales by each index's frequency as there: PyTorch 2.13's CPU
    embedding_bag counts otherwise, [1, 1, 2] scaling index 2's gradient by 1/2, a departure
    tests/nn/test_embedding_bag.py records), added into their bags with index_add in input's order
    (as PyTorch's loop adds them), divided by the bag's size for mean; max gathers each bag's
    first maximum per column.  The node is named EmbeddingBagBackward0."""
    import numpy as np
    from .._creation import zeros
    from .more import renamed
    if weight.dtype is D.int64 and input.is_floating_point():
        # (PyTorch's Python still takes the old argument order, with its warning)
        from .._warnings import warn_user
        warn_user("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                  "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", UserWarning)
        weight, input = input, weight
    input, offsets, psw, include_last_offset = _bag_checks(input, weight, offsets, mode, scale_grad_by_freq, sparse,
                                                           per_sample_weights, include_last_offset)
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    if psw is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    if scale_grad_by_freq.__class__ is not bool or sparse.__class__ is not bool \
            or include_last_offset.__class__ is not bool or not (padding_idx is None or padding_idx.__class__ is int):
        # (then PyTorch's Python calls torch.embedding_bag, whose parser reads the flags as bools)
        from ._argument_check import argument_error
        error = argument_error("embedding_bag", (weight, input, offsets, scale_grad_by_freq, 1, sparse, psw,
                                                 include_last_offset, padding_idx), {})
        if error is not None:
            raise error
    # ATen's checks
    for name, t in (("indices", input), ("offsets", offsets)):
        _check_index_dtype(t, name, 1, "embedding_bag")
    if not weight._dtype.is_floating_point:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {weight.type()} instead (while checking "
                           "arguments for embedding_bag)")
    if psw is not None and psw._dtype is not weight._dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {weight.type()} does not equal {psw.type()} (while "
                           "checking arguments for embedding_bag)")
    if padding_idx is not None:
        rows = weight.shape[0]
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-rows} through {rows - 1}, "
                               f"but got {padding_idx}")
        padding_idx = operator.index(padding_idx) % rows     # (by value: %= on a tensor rewrote it)
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True): nbgrad has no sparse tensors")
    idx = input.cpu().numpy().astype(np.int64)
    offs = offsets.cpu().numpy().astype(np.int64)
    n = idx.size
    if offs.size and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}")
    if offs.size and offs[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                           f"{offs[-1]}")
    rows_n = weight.shape[0]
    bad = np.flatnonzero((idx < 0) | (idx >= rows_n))
    if bad.size:
        if weight._dtype is D.float64:
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                               f"{idx[bad[0]]}")
        # (PyTorch's float32/float16 kernel, FBGEMM's, words it so)
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in the valid range "
                           f"[0, {rows_n})")
    # include_last_offset: offsets has one entry more than there are bags, the last bag's end
    # (as PyTorch documents it and computes it for float32, float16 and max; its float64
    # sum and mean run the last bag to the end of input, a departure the tests record)
    bags = max(offs.size - 1, 0) if include_last_offset else offs.size
    starts = offs[:bags]
    ends = offs[1:bags + 1] if include_last_offset else np.append(offs[1:], n)
    if np.any(ends < starts):
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this error message be "
                           "improved?  If so, please report an enhancement request to PyTorch.)")
    bag_of = np.repeat(np.arange(bags), ends - starts)          # each entry's bag (entries past the last bag: none)
    used = np.zeros(n, dtype=bool)
    used[:bag_of.size] = True
    if padding_idx is not None:
        used &= idx != padding_idx
    keep = np.flatnonzero(used)
    bag_of = bag_of[used[:bag_of.size]]
    from .. import tensor
    dev = weight.device
    kept = tensor(idx[keep], dtype=D.int64, device=dev)
    into = tensor(bag_of, dtype=D.int64, device=dev)
    rows = embedding(kept, weight, scale_grad_by_freq=scale_grad_by_freq)
    dim = weight.shape[1]
    if mode == "max":
        # per bag and column, the first entry holding the bag's largest value (PyTorch's scan
        # keeps an entry unless a later one is strictly greater); bag_of ascends, so each
        # non-empty bag is one run of rows
        sizes = np.bincount(bag_of, minlength=bags)
        filled = sizes > 0
        if rows.shape[0] == 0:
            # (zeros with a node over the no rows taken: PyTorch's node, a zero gradient)
            out = zeros((bags, dim), dtype=weight.dtype, device=dev)
            return renamed(out + rows.sum() if needs_grad(weight) else out, "EmbeddingBagBackward0")
        vals = rows.detach().cpu().numpy()
        run_starts = np.concatenate(([0], np.cumsum(sizes[filled])[:-1]))
        best = np.maximum.reduceat(vals, run_starts, axis=0)
        pos = np.arange(vals.shape[0])[:, None]
        hit = np.where(vals == best[np.searchsorted(run_starts, pos[:, 0], side="right") - 1], pos, vals.shape[0])
        first = np.minimum.reduceat(hit, run_starts, axis=0)
        first = np.where(first == vals.shape[0], run_starts[:, None], first)       # (a NaN run: its first entry)
        index = np.zeros((bags, dim), dtype=np.int64)
        index[filled] = first
        from . import elementwise as E
        picked = rows.gather(0, tensor(index, dtype=D.int64, device=dev))
        out = E.where(tensor(filled[:, None], dtype=D.bool_, device=dev), picked, 0.0)
        return renamed(out, "EmbeddingBagBackward0")
    if psw is not None:
        rows = rows * psw.reshape(-1)[tensor(keep, dtype=D.int64, device=dev)].unsqueeze(1)
    out = zeros((bags, dim), dtype=weight.dtype, device=dev).index_add(0, into, rows)
    if mode == "mean":
        counts = np.maximum(np.bincount(bag_of, minlength=bags), 1)
        out = out / tensor(counts[:, None], dtype=weight.dtype, device=dev)
    return renamed(out, "EmbeddingBagBackward0")
