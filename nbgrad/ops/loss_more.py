"""The rest of PyTorch's losses: BCE, smooth L1, Huber, soft margin (native ops with their own
node, forward beside backward) and the losses PyTorch composes from Tensor ops (KL divergence,
margin ranking, hinge and cosine embedding, Poisson and Gaussian NLL, multilabel soft margin).

A native loss here is computed with Tensor ops under no_grad and recorded as one node with
PyTorch's name; its backward is PyTorch's derivative formula as Tensor ops, so under
create_graph it is itself recorded, its last node shown as PyTorch's ...BackwardBackward0.
A composed loss is written op for op as PyTorch writes it, so its nodes are PyTorch's.
"""

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from ..amp import autocast_mode as _amp  # autocast: one truth test while off
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._graph import broadcast_shapes, check_no_requires_grad, check_same_device, copy_raw, needs_grad, record
from .elementwise import where
from .loss import _broadcast_pair, _pointwise_preamble, _reduction, _warn_pointwise_size
from .more import renamed
from ._dtype_rules import check as check_dtype, refuse, INTEGRAL, check_found_dtype, check_same_dtype

# PyTorch's EPSILON (BCE's backward, cosine_embedding_loss): 1e-12 as a float32, which is what
# its values show (-0.2 / EPSILON = -200000000799.16...)
_EPSILON = 9.999999960041972e-13


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


class _NativeLossNode(Node):
    """A native loss's node over (input, target): d_input and d_target are PyTorch's formulas
    at the elementwise gradient g (already divided by numel for 'mean')."""
    double_name = None

    def backward(self, g):
        x, y = self.saved_tensors
        if self.reduction == "mean":
            g = g / self.n
        gx = self.d_input(g, x, y) if self.needs_input_grad(0) else None
        gy = self.d_target(g, x, y) if self.needs_input_grad(1) else None
        if is_grad_enabled():
            gx = None if gx is None else renamed(gx, self.double_name)
            gy = None if gy is None else renamed(gy, self.double_name)
        return gx, gy


def _native(node_cls, x, y, loss, reduction, **attrs):
    """loss (computed under no_grad) reduced, recorded as node_cls over (x, y)."""
    with no_grad():
        out = _reduce(loss, reduction)
    if needs_grad(x, y):
        node = record(node_cls, (x, y), (out,), reduction=reduction, n=loss.numel(), **attrs)
        node.save(x, y)
    return out


# -- binary cross-entropy ------------------------------------------------------------
class BinaryCrossEntropyBackward0(_NativeLossNode):
    double_name = "BinaryCrossEntropyBackwardBackward0"

    def d_input(self, g, x, y):
        # binary_cross_entropy_backward: g * (x - y) / max((1 - x) * x, EPSILON) * weight,
        # written into empty_like(input): the gradient takes the input's layout
        gx = g * (x - y) / ((1 - x) * x).clamp(min=_EPSILON)
        gx = gx if self.weight is None else gx * self.weight
        if not is_grad_enabled() and gx._shape == x._shape:
            from .._layout import preserve_strides
            strides = preserve_strides(x._shape, x._stride)
            if gx._stride != strides and all(st >= 0 for st in strides):
                gx = copy_raw(gx, strides)
        return gx

    def d_target(self, g, x, y):
        # binary_cross_entropy_target_backward: -logit(x) * g * weight, logit(x) = log(x / (1 - x))
        gy = -(x / (1 - x)).log() * g
        return gy if self.weight is None else gy * self.weight


def _infer_size(weight, x):
    """F.binary_cross_entropy's _infer_size(target.size(), weight.size()): PyTorch's error for a
    weight that does not broadcast with x's shape."""
    ws, xs = tuple(weight.shape), tuple(x.shape)
    for i in range(1, min(len(ws), len(xs)) + 1):
        if ws[-i] != xs[-i] and ws[-i] != 1 and xs[-i] != 1:
            raise RuntimeError(f"Attempting to broadcast a dimension of length {ws[-i]} at {-i}! Mismatching "
                               f"argument at index 1 had {weight.shape}; but expected shape should be "
                               f"broadcastable to {list(xs)}")


def _check_expands(weight, x):
    """The op's error for a weight that broadcasts larger than x."""
    shape = tuple(broadcast_shapes(weight.shape, x.shape))
    if shape != tuple(x.shape):
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast shape {list(shape)}")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-w * (y * log(x) + (1 - y) * log(1 - x)), each log clamped at -100 (PyTorch's)."""
    if _amp.ON: input, target, weight = _amp.cast_float32(input, target, weight)   # (autocast's float32 list)
    from .elementwise import log
    reduction = _reduction(reduction, size_average, reduce)
    x, y = input, target
    if tuple(y.shape) != tuple(x.shape):
        raise ValueError(f"Using a target size ({y.shape}) that is different to the input size ({x.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        _infer_size(weight, y)      # (F's Python, before the op)
    check_same_device(x, y, weight)
    if weight is not None:
        check_no_requires_grad(weight, "weight", "binary_cross_entropy")      # (the op's autograd, before its kernel)
    check_found_dtype(x.dtype, y.dtype)
    check_dtype("binary_cross_entropy", x._dtype)
    if weight is not None:
        _check_expands(weight, x)
        weight = weight.detach().to(x.dtype)
    with no_grad():
        xd, yd = x.detach(), y.detach()
        # (PyTorch's kernel checks each element's target, then its input)
        in_range = lambda t: (t >= 0) & (t <= 1)        # noqa: E731
        ok_y, ok_x = in_range(yd), in_range(xd)
        if not bool((ok_y & ok_x).all()):
            first = int((~(ok_y & ok_x)).reshape(-1).int().argmax().item())
            which = "target" if not bool(ok_y.reshape(-1)[first]) else "input"
            raise RuntimeError(f"all elements of {which} should be between 0 and 1")
        loss = (yd - 1) * log(1 - xd).clamp(min=-100) - yd * log(xd).clamp(min=-100)
        if weight is not None:
            loss = loss * weight
    return _native(BinaryCrossEntropyBackward0, x, y, loss, reduction, weight=weight)


# -- smooth L1 and Huber -------------------------------------------------------------
class SmoothL1LossBackward0(_NativeLossNode):
    double_name = "SmoothL1LossBackwardBackward0"

    def d_input(self, g, x, y):
        d = x - y
        beta = self.beta
        return where(d <= -beta, -g, where(d >= beta, g, d * g / beta))

    def d_target(self, g, x, y):
        return -self.d_input(g, x, y)


class HuberLossBackward0(_NativeLossNode):
    double_name = "HuberLossBackwardBackward0"

    def d_input(self, g, x, y):
        d = x - y
        delta = self.delta
        return where(d < -delta, -delta * g, where(d > delta, delta * g, d * g))

    def d_target(self, g, x, y):
        return -self.d_input(g, x, y)


def _promoted_floats(kernel, x, y):
    """x and y's promoted dtype, PyTorch's NotImplementedError for the kernel when it is no float."""
    dtype = D.promote_types(x.dtype, y.dtype)
    refuse(kernel, dtype, INTEGRAL)
    return dtype


def _pair_in(dtype, x, y):
    """x and y broadcast together, an integer or bool operand cast to `dtype` first (a float
    input beside a bool target: their difference promotes; two floats promote by themselves)."""
    return _broadcast_pair(x if x.dtype.is_floating_point else x.to(dtype),
                           y if y.dtype.is_floating_point else y.to(dtype))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere; L1 when beta is 0 (PyTorch's)."""
    if _amp.ON: input, target = _amp.cast_float32(input, target)   # (autocast's float32 list)
    input, target, reduction = _pointwise_preamble(input, target, reduction, size_average, reduce)
    if beta == 0.0:         # (PyTorch's Python: l1_loss, ATen's composite |input - target|)
        return _reduce((input - target).abs(), _reduction(reduction))
    reduction = _reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, y = _pair_in(_promoted_floats("smooth_l1_cpu", input, target), input, target)
    check_same_device(x, y)
    with no_grad():
        d = (x.detach() - y.detach()).abs()
        loss = where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _native(SmoothL1LossBackward0, x, y, loss, reduction, beta=float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere, as PyTorch 2.13's Python
    computes it: the size warning, broadcast_tensors, then the op, or with a weight the
    unweighted op times the weight, reduced in Python."""
    if _amp.ON: input, target, weight = _amp.cast_float32(input, target, weight)   # (autocast's float32 list)
    _warn_pointwise_size(input, target)
    x, y = _broadcast_pair(input, target)
    if weight is None:
        return _huber(x, y, _reduction(reduction), delta)
    if weight.size() != input.size():       # (PyTorch's reads: a weight that is no tensor is its AttributeError)
        raise ValueError("Weights and input must have the same size.")
    weighted = _huber(x, y, "none", delta) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _huber(input, target, reduction, delta):
    """ATen's huber_loss of two tensors of one shape (its parser's float delta first)."""
    from .._checks import is_float
    if not is_float(delta):
        raise TypeError(f"huber_loss(): argument 'delta' (position 4) must be float, not {type(delta).__name__}")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    # PyTorch's huber_loss writes into empty_like(input): the promoted dtype must cast to
    # input's, and the loss is input's dtype (float16 input, float32 target: float16)
    promoted = D.promote_types(input.dtype, target.dtype)
    if not D.can_cast(promoted, input.dtype):
        raise RuntimeError(f"result type {D.scalar_type_name(promoted)} can't be cast to the desired output "
                           f"type {D.scalar_type_name(input.dtype)}")
    x, y = _pair_in(_promoted_floats("huber_cpu", input, target), input, target)
    check_same_device(x, y)
    with no_grad():
        d = (x.detach() - y.detach()).abs()
        loss = where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
        if loss._dtype is not input.dtype:
            loss = loss.to(input.dtype)
    return _native(HuberLossBackward0, x, y, loss, reduction, delta=float(delta))


# -- soft margin -----------------------------------------------------------------------
class SoftMarginLossBackward0(_NativeLossNode):
    double_name = "SoftMarginLossBackwardBackward0"

    def d_input(self, g, x, y):
        # soft_margin_loss_backward: z = exp(-y x); -(y z) / (1 + z) * g, in ATen's order: only
        # the exponent negates y (a uint8 target wraps there, as in PyTorch)
        z = (-y * x).exp()
        return -(y * z) / (1.0 + z) * g


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x)) (PyTorch's formula)."""
    if _amp.ON: input, target = _amp.cast_float32(input, target)   # (autocast's float32 list)
    reduction = _reduction(reduction, size_average, reduce)
    check_no_requires_grad(target, "target", "soft_margin_loss")
    check_same_device(input, target)
    with no_grad():
        # ATen's in-place sequence: the loss keeps input's dtype (an integral input cannot
        # hold the float product or its exp, as PyTorch refuses)
        loss = (-input.detach()).mul_(target.detach()).exp_().log1p_()
    return _native(SoftMarginLossBackward0, input, target, loss, reduction)


# -- losses PyTorch composes from Tensor ops ---------------------------------------------
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) (xlogy) or, with log_target, exp(target) * (target - input)."""
    if _amp.ON: input, target = _amp.cast_float32(input, target)   # (autocast's float32 list)
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    elif reduction == "mean":
        _warn_user("reduction: 'mean' divides the total loss by both the batch size and the support size."
                   "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                   "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                   stacklevel=2)
    base = "sum" if reduction == "batchmean" else _reduction(reduction)
    if not input.dtype.is_floating_point or not target.dtype.is_floating_point:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    # PyTorch's composite, with its operands made right to left as its build evaluates
    # `a * b` and `a - b` of two ops (the later node runs first in backward: which gradient
    # reaches target's buffer first, and so the layout of target.grad)
    if log_target:
        diff = target - input
        loss = target.exp() * diff
    else:
        from .tabled import xlogy
        product = target * input
        loss = xlogy(target, target) - product
    out = _reduce(loss, base)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if _amp.ON: input1, input2, target = _amp.cast_float32(input1, input2, target)   # (autocast's float32 list)
    try:
        reduction = _reduction(reduction, size_average, reduce)
        if input1.dim() != input2.dim() or input1.dim() != target.dim():
            raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                               f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    except (ValueError, RuntimeError) as e:
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise
    return margin_ranking(input1, input2, target, margin, reduction)


def margin_ranking(input1, input2, target, margin, reduction):
    """torch.margin_ranking_loss, ATen's op: its operands broadcast (the equal ranks are F's rule)."""
    # (ATen's ... + margin adds a double: add.Scalar's node, AddBackward1)
    loss = renamed(renamed(-target * (input1 - input2) + margin, "AddBackward1").clamp(min=0), "ClampMinBackward0")
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (PyTorch's where form)."""
    reduction = _reduction(reduction, size_average, reduce)
    # PyTorch's margin - self is C++'s Scalar - Tensor, empty_like(self).fill_(margin).sub_(self):
    # in self's dtype (an int64 input's loss is int64, its margin truncated), not a promotion
    zeros = input.detach().new_zeros(input.shape)
    margin_clamp = renamed((zeros.clone().fill_(margin) - input).clamp(min=0), "ClampMinBackward0")
    loss = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = _reduction(reduction, size_average, reduce)
    t_dim = target.dim()
    if t_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if t_dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if t_dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(t_dim)
    mag_square1 = (input1 * input1).sum(t_dim) + _EPSILON
    mag_square2 = (input2 * input2).sum(t_dim) + _EPSILON
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = cos.detach().new_zeros(cos.shape)
    pos = 1 - cos
    neg = renamed((cos - margin).clamp(min=0), "ClampMinBackward0")
    loss = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(input) - target * input (log_input) or input - target * log(input + eps); with full,
    Stirling's term where target > 1."""
    from .elementwise import log
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":     # (its Python's own test and message:
        raise ValueError(reduction + " is not a valid value for reduction")    # a non-str is +'s TypeError)
    loss = input.exp() - target * input if log_input else input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * 3.141592653589793 * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(var) + (input - target)^2 / var), var clamped at eps without changing its gradient."""
    from .elementwise import log
    from .. import any as _torch_any
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.detach().new_ones(input.shape)
    elif _torch_any(var < 0):         # torch.any: a number var (an int) is its TypeError, as PyTorch's
        raise ValueError("var has negative entry/entries")
    # (PyTorch's Python reads sizes by .size(), var's first: a non-tensor input is its AttributeError)
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(v for i, v in zip(input.size(), var.size()) if i != v) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * 1.8378770664093453      # log(2 pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Per-sample mean over classes of -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), PyTorch's
    composite op for op (F.logsigmoid's kernel, its refusal of an integral input, a uint8
    target's wrapping 1 - y)."""
    from .tabled import logsigmoid
    if size_average is not None or reduce is not None:
        reduction = _reduction(None, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


# -- triplet margin ----------------------------------------------------------------------
def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def _triplet(dist_pos, dist_neg, dist_swap, margin, reduction):
    """at::triplet_margin_loss's tail: min with the swap distance, clamp_min(margin + d+ - d-, 0)."""
    from .elementwise import minimum
    if dist_swap is not None:
        dist_neg = minimum(dist_neg, dist_swap)
    # (ATen's margin + dist_pos adds a double: add.Scalar's node, AddBackward1)
    loss = renamed((renamed(margin + dist_pos, "AddBackward1") - dist_neg).clamp(min=0), "ClampMinBackward0")
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-distance: PyTorch's Python (the
    reduction, margin > 0), then ATen's triplet_margin_loss."""
    try:
        reduction = _reduction(reduction, size_average, reduce)
        if margin <= 0:
            raise ValueError(f"margin must be greater than 0, got {margin}")
    except (ValueError, RuntimeError) as e:
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise
    return aten_triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)


def aten_triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction):
    """ATen's triplet_margin_loss (torch.triplet_margin_loss's): its dims check, then its
    composition of pairwise distances."""
    from .distance import pairwise_distance
    _triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    dist_swap = pairwise_distance(positive, negative, p, eps) if swap else None
    return _triplet(dist_pos, dist_neg, dist_swap, margin, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """triplet_margin_loss over any distance function (pairwise_distance by default)."""
    from .distance import pairwise_distance
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    dist_swap = distance_function(positive, negative) if swap else None
    return _triplet(dist_pos, dist_neg, dist_swap, margin, reduction)


# -- multi-class and multi-label margin (native, one node each) ---------------------------
def _margin_frames(input):
    """(nframe, dim) of a 0-d, 1-d or 2-d margin-loss input (PyTorch's shape check)."""
    nd = input.dim()
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if nd <= 1:
        return 1, 1 if nd == 0 else input.shape[0]
    return input.shape[0], input.shape[1]


def _check_long(target):
    check_same_dtype(D.int64, target.dtype)


def _margin_reduce(loss, reduction, keep):
    """loss (nframe,) reduced; 'none' keeps the batch dim only where PyTorch does (keep)."""
    if reduction == "none":
        return loss if keep else loss.reshape(())
    return loss.sum() if reduction == "sum" else loss.mean()


class _MarginLossNode(Node):
    """A margin loss's node over (input, target): its gradient is linear in g through the
    coefficients saved at forward; PyTorch has no derivative of it, so under create_graph the
    gradient's node is NotImplemented (its backward raises PyTorch's error)."""

    def backward(self, g0):
        from ._graph import NotImplementedNode
        x, = self.saved_tensors
        with no_grad():
            g = g0.reshape(-1, 1) if self.keep else g0.reshape(1, 1)
            if self.reduction == "mean":
                g = g / self.nframe
            gx = self.grad(g / self.dim).reshape(x.shape)
        if is_grad_enabled() and needs_grad(g0, x):
            record(NotImplementedNode, (g0, x), (gx,), op_name=self.backward_op)
        return gx, None


class MultiMarginLossBackward0(_MarginLossNode):
    """d/dx of sum_i w[t] max(0, margin - x[t] + x[i])^p / dim: +h at i, -sum h at t."""
    backward_op = "multi_margin_loss_backward"

    def grad(self, g):
        h = self.coef * g                      # (nframe, dim), zero at the target and z <= 0
        return h - self.onehot * h.sum(1, keepdim=True)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample sum over classes i != y of w[y] max(0, margin - x[y] + x[i])^p / C (PyTorch's)."""
    from .._creation import arange
    try:
        reduction = _reduction(reduction, size_average, reduce)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
    except (ValueError, RuntimeError) as e:
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise
    nframe, dim = _margin_frames(input)
    if input.dim() == 2 and (target.dim() != 1 or target.shape[0] != nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if input.dim() < 2 and (target.dim() > 1 or target.numel() != nframe):
        raise RuntimeError(f"inconsistent target size, expected {nframe} but got {list(target.shape)}")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    check_same_device(input, target, weight)
    _check_long(target)
    check_no_requires_grad(target, "target", "multi_margin_loss")
    if weight is not None:
        check_no_requires_grad(weight, "weight", "multi_margin_loss")
    with no_grad():
        t = target.reshape(nframe, 1)
        if bool(((t < 0) | (t >= dim)).any()):
            raise RuntimeError("target out of range")
        x = input.detach().reshape(nframe, dim)
        onehot = t == arange(dim, device=input.device)
        z = margin - x.gather(1, t) + x
        active = (z > 0) & ~onehot
        z = z.masked_fill(~active, 0)
        h = z if p == 1 else z * z
        coef = active.to(x.dtype) if p == 1 else 2 * z
        if weight is not None:
            wt = weight.detach().to(x.dtype).gather(0, t.reshape(-1)).reshape(nframe, 1)
            h, coef = h * wt, coef * wt
        loss = h.sum(1) / dim
        keep = target.dim() > 0
        out = _margin_reduce(loss, reduction, keep)
    if needs_grad(input):
        node = record(MultiMarginLossBackward0, (input, target), (out,), reduction=reduction, nframe=nframe,
                      dim=dim, keep=keep and reduction == "none", coef=coef, onehot=onehot.to(x.dtype))
        node.save(input)
    return out


class MultilabelMarginLossBackward0(_MarginLossNode):
    """d/dx of sum over labels j, non-labels i of max(0, 1 - x[j] + x[i]) / dim."""
    backward_op = "multilabel_margin_loss_backward"

    def grad(self, g):
        return (self.into - self.outof) * g


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: the labels are target's entries before its first -1; sum over labels j and
    non-labels i of max(0, 1 - (x[j] - x[i])), divided by the number of classes (PyTorch's)."""
    from .._creation import arange
    reduction = _reduction(reduction, size_average, reduce)
    nframe, dim = _margin_frames(input)
    if input.dim() <= 1:
        bad = target.dim() > 1 or target.numel() != dim
    else:
        bad = target.dim() != 2 or target.shape[0] != nframe or target.shape[1] != dim
    if bad:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    check_same_device(input, target)
    _check_long(target)
    check_no_requires_grad(target, "target", "multilabel_margin_loss")
    with no_grad():
        t = target.reshape(nframe, dim)
        if bool(((t < -1) | (t >= dim)).any()):
            raise RuntimeError("argument #2 'target' is out of range")
        valid = (t == -1).to(D.int64).cumsum(1) == 0                       # before the first -1
        hits = (t.unsqueeze(-1) == arange(dim, device=input.device)) & valid.unsqueeze(-1)
        x = input.detach().reshape(nframe, dim)
        count = hits.to(x.dtype).sum(1)                                   # (nframe, dim): label multiplicity
        other = (count == 0).to(x.dtype)                                  # non-labels
        z = 1 - x.unsqueeze(2) + x.unsqueeze(1)                           # [n, j, i] = 1 - x[j] + x[i]
        m = (z > 0).to(x.dtype) * count.unsqueeze(2) * other.unsqueeze(1)
        loss = (z * m).sum((1, 2)) / dim
        keep = input.dim() == 2
        out = _margin_reduce(loss, reduction, keep)
    if needs_grad(input):
        node = record(MultilabelMarginLossBackward0, (input, target), (out,), reduction=reduction, nframe=nframe,
                      dim=dim, keep=keep and reduction == "none", into=m.sum(1), outof=m.sum(2))
        node.save(input)
    return out
