"""F.linear_cross_entropy and its options (PyTorch 2.13): the cross entropy of input's linear
projection by linear_weight (and linear_bias), without or with chunking.

options=None is PyTorch's reference path, the composition it documents: linear, reshaped to
(N, C, *out_features), then cross_entropy with its weight, reduction, ignore_index and
label smoothing.

With LinearCrossEntropyOptions the batch is taken in chunks, so the (N, C) logits are never
whole: for each chunk the logits, their log-sum-exp, the loss and, for a mean or sum, every
gradient (input's, linear_weight's, linear_bias's) are computed in the forward pass, as
PyTorch's chunked op does; backward scales them by the loss's gradient, once (a second
backward is PyTorch's refusal unless options.allow_retain_graph).  reduction='none' keeps the
inputs and recomputes each chunk's gradients in backward.  The nodes carry PyTorch's names
for its custom ops.  Configurations the chunked path does not take (K-dimensional loss, label
smoothing, class-probability targets, another reduction) warn and take the reference path.
"""
import dataclasses
import math

from .. import _dtype as D
from .._tensor import Tensor
from .._warnings import warn_user
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._graph import record

# PyTorch's picks of (acc_policy, chunking_method) for "auto", by (device, dtype)
_AUTO_DEFAULTS = {("cpu", "bfloat16"): ("accurate", "aspect_ratio"), ("cpu", "float16"): ("accurate", "aspect_ratio"),
                  ("cuda", "bfloat16"): ("compact", "aspect_ratio:2"),
                  ("cuda", "float16"): ("compact", "aspect_ratio:2")}
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")
_SUPPORTED_ACC_DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How F.linear_cross_entropy chunks the batch (PyTorch's fields and checks): rows per
    chunk (batch_chunk_size) or a heuristic for it (chunking_method "auto", "aspect_ratio" or
    "aspect_ratio:N"), the accumulation policy and dtype, and whether a second backward is
    allowed (allow_retain_graph)."""
    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int) and
                                                  self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and getattr(self.acc_dtype, "name", None) not in _SUPPORTED_ACC_DTYPES:
            raise ValueError(f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")

    def _chunk_size(self, num_batches, in_features, num_classes, dtype, device):
        """The rows per chunk PyTorch's _adjust resolves for this call."""
        method = self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None
        if method == "auto":
            method = _AUTO_DEFAULTS.get((device.type, dtype.name), _AUTO_FALLBACK)[1]
        size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if method is not None:
            factor = int(method.split(":", 1)[1]) if ":" in method else 1
            target = -(-num_batches // -(-num_classes // in_features))
            size = min((1 << (target - 1).bit_length()) // factor, num_batches)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{method}') "
                                 f"give different chunk sizes ({self.batch_chunk_size} vs {size}); pass only one.")
        return max(1, size)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    from ..nn import functional as F
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    chunked = options is not None and not out_features and reduction in ("mean", "sum", "none") \
        and label_smoothing == 0.0 and target.dtype is D.int64
    if options is not None and not chunked:
        warn_user("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
                  "label_smoothing == 0, target.dtype == int64, out_features == (). Got "
                  f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                  f"out_features={out_features}, tracing=False, linear_bias.shape="
                  f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", UserWarning)
    if chunked:
        batched = input.dim() == 2
        x, t = (input, target) if batched else (input.unsqueeze(0), target.unsqueeze(0))
        size = options._chunk_size(x.shape[0], in_features, num_classes, input.dtype, input.device)
        out = _chunked(x, linear_weight, t, linear_bias, weight, reduction, ignore_index, size,
                       options.allow_retain_graph)
        return out if batched else out.squeeze(0)
    if out_features:
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = F.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                           label_smoothing=label_smoothing)


# -- the chunked path ---------------------------------------------------------------------------
class _ChunkedBackward(Node):
    """mean/sum: the gradients computed in forward, scaled by the loss's gradient."""
    retain = False

    def backward(self, g):
        grads = self.grads
        if grads is None:
            raise RuntimeError("linear_cross_entropy chunked backward called twice; retain_graph=True / double "
                               "backward are not supported.")
        if not self.retain:
            self.grads = None
        return _per_input(self, tuple(None if q is None else q * g for q in grads))


class _ChunkedNoReductionBackward(Node):
    """none: each chunk's gradients recomputed from the kept inputs, weighted per row."""

    def backward(self, g):
        x, w, t, b, cw = self.inputs
        needed = (self.needs_input_grad(0), self.needs_input_grad(1), b is not None and self.needs_input_grad(3))
        with no_grad():
            return _per_input(self, _chunk_pass(x, w, t, b, cw, self.ignore_index, self.size, g, needed)[2])


def _per_input(node, grads):
    """(input's, linear_weight's, linear_bias's) gradients in the slots of the node's inputs:
    every tensor argument of PyTorch's op, in its order (input, linear_weight, target,
    linear_bias, weight), those absent left out."""
    gx, gw, gb = grads
    return ((gx, gw, None) + ((gb,) if node.has_bias else ()) + ((None,) if node.has_class_weight else ()))


_ChunkedBackward.__name__ = "GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_defaultBackward"
_ChunkedNoReductionBackward.__name__ = \
    "GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_defaultBackward"


def _chunk_terms(xc, w, tc, b, cw, ignore_index):
    """(logits, per-row loss, per-row class weight (0 where ignored), safe targets) of a chunk."""
    logits = xc @ w.t()
    if b is not None:
        logits = logits + b
    valid = tc != ignore_index
    safe = tc.where(valid, 0)
    rw = valid.to(logits.dtype) if cw is None else cw[safe] * valid
    picked = logits.gather(1, safe.unsqueeze(1)).squeeze(1)
    return logits, (logits.logsumexp(1) - picked) * rw, rw, safe


def _chunk_pass(x, w, t, b, cw, ignore_index, size, row_scale, needed):
    """One pass over the batch's chunks, each chunk's logits made once: the per-row losses, the
    per-row class weights (0 where ignored), and the (input's, linear_weight's, linear_bias's)
    gradients of sum(loss_i * row_scale_i) (row_scale a number or a per-row tensor), None for
    what `needed` does not ask."""
    from .._creation import zeros_like
    from .indexing import cat
    gx = zeros_like(x) if needed[0] else None
    gw = zeros_like(w) if needed[1] else None
    gb = zeros_like(b) if b is not None and needed[2] else None
    losses, weights = [], []
    for start in range(0, x.shape[0], size):
        xc, tc = x[start:start + size], t[start:start + size]
        logits, loss, rw, safe = _chunk_terms(xc, w, tc, b, cw, ignore_index)
        losses.append(loss)
        weights.append(rw)
        if gx is None and gw is None and gb is None:
            continue
        scale = rw * (row_scale if not isinstance(row_scale, Tensor) or row_scale.dim() == 0
                      else row_scale[start:start + size])
        d = logits.softmax(1)
        d = d.scatter_add(1, safe.unsqueeze(1), -d.new_ones((d.shape[0], 1))) * scale.unsqueeze(1)
        if gx is not None:
            gx[start:start + size] = d @ w
        if gw is not None:
            gw += d.t() @ xc
        if gb is not None:
            gb += d.sum(0)
    return cat(losses), cat(weights), (gx, gw, gb)


def _chunked(x, w, t, b, cw, reduction, ignore_index, size, retain):
    kept = t[t != ignore_index]
    bad = kept[(kept < 0) | (kept >= w.shape[0])]
    if bad.numel():         # (PyTorch's op reads the class weight's rows first, else gathers)
        if cw is not None:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"index {bad[0].item()} is out of bounds for dimension 1 with size {w.shape[0]}")
    grad_mode = is_grad_enabled()
    needed = [grad_mode and v is not None and v.requires_grad for v in (x, w, b)]
    with no_grad():
        # ('none' recomputes its gradients in backward, from the loss's; a mean's are scaled by
        # the weights' sum, known after the pass)
        in_forward = needed if reduction != "none" else (False, False, False)
        per_row, weights, grads = _chunk_pass(x, w, t, b, cw, ignore_index, size, 1.0, in_forward)
        if reduction == "none":
            out = per_row
        elif reduction == "sum":
            out = per_row.sum()
        else:
            denominator = weights.sum()
            out = per_row.sum() / denominator
            grads = tuple(None if q is None else q / denominator for q in grads)
    if not any(needed):
        return out
    inputs = tuple(v for v in (x, w, t, b, cw) if v is not None)
    if reduction == "none":
        node = record(_ChunkedNoReductionBackward, inputs, (out,))
        node.inputs, node.ignore_index, node.size = (x, w, t, b, cw), ignore_index, size
    else:
        node = record(_ChunkedBackward, inputs, (out,))
        node.grads, node.retain = grads, retain
    node.has_bias, node.has_class_weight = b is not None, cw is not None
    return out
