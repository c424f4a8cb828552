"""Fused losses: cross-entropy (log-softmax + NLL), NLL, MSE, BCE-with-logits; forward beside backward.

Each forward is one backend kernel and each backward, when it is not itself
recorded (create_graph=False, the common case), is one more.  When the
backward must be differentiable (grad mode on during backward), the nodes
fall back to Tensor ops, so double backward stays correct.

cross_entropy records PyTorch's two nodes, NllLossBackward0 -> LogSoftmaxBackward0,
over a log-probability tensor that is never materialised: it exists only
between these two nodes, so in the fused path NllLossBackward0 returns the
gradient with respect to the logits directly (one kernel) and
LogSoftmaxBackward0 passes it through.
"""
import math
import operator

import numpy as np

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._tensor import Tensor
from ..amp import autocast_mode as _amp  # autocast: one truth test while off
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._signatures import python_body
from ._dtype_rules import check as check_dtype, refuse, INTEGRAL
from ._graph import (accelerated, acceleration, backend_of, broadcast_shapes, capturing, cast, check_no_requires_grad,
                     check_same_device, copy_raw, needs_grad, new_tensor, new_scalar, output_layout, record)

_REDUCTIONS = ("none", "mean", "sum")
_REDUCED = (D.float16, D.bfloat16)     # 16-bit floats PyTorch computes in float32 (opmath)
_KERNEL_FLOATS = (D.float32, D.float64)


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:   # PyTorch's legacy arguments
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        # (PyTorch's legacy_get_string: its tests in its order, so a tensor given for either is
        # read, and refused, as there)
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        from .._warnings import warn
        warn("legacy_reduction", stacklevel=4, reduction=reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _mean_scale(n):
    """1 / n for a 'mean' reduction's gradient; of no elements (an empty broadcast), NaN as
    PyTorch's 1.0 / 0 in C++ arithmetic, which scales nothing (a Python 1.0 / 0 raised)."""
    return 1.0 / n if n else math.nan


def _laid_out(t, operands):
    """t (row-major) re-laid as the elementwise op over operands would lay out its result
    (PyTorch's 'none' reductions are elementwise ops); t itself when that is row-major."""
    layout = output_layout(t._shape, operands)
    return t if layout is None else copy_raw(t, layout[1])


def _flat(t):
    """t's values as a contiguous buffer of exactly t.numel() elements starting at 0."""
    buf = t._storage.buffer
    if t.is_contiguous() and t._offset == 0 and len(buf) == t.numel():
        return buf
    return copy_raw(t)._storage.buffer


def _float_buffer(t, dtype, shape=None):
    """t (a Tensor or None) cast to dtype, broadcast to shape, as a flat contiguous buffer."""
    if t is None:
        return None
    t = cast(t.detach(), dtype)
    if shape is not None and tuple(t.shape) != tuple(shape):
        t = t.expand(shape)
    return _flat(t)


def _coef(g, scale, m, like, g_value=None):
    """Per-row float64 coefficients g * scale (g a scalar or an (m,)-numel gradient);
    g_value: g.item() when the caller has it already."""
    if g.numel() == 1 and m != 1:
        value = float(g.item()) if g_value is None else g_value
        return backend_of(like).full(m, D.float64.np, value * scale)
    return _flat((cast(g.detach(), D.float64).reshape(-1) * scale))


def _div(a, b):
    return a / b if b != 0 else (math.nan if a == 0 else math.copysign(math.inf, a))


# -- cross-entropy and NLL ---------------------------------------------------------
def _class_last(x):
    """(values of x as a contiguous (M, C) tensor, M, C): the class dim moved last."""
    if x.dim() == 1:
        return x, 1, x.shape[0]
    c = x.shape[1]
    if x.dim() == 2:
        return x, x.shape[0], c
    with no_grad():
        moved = copy_raw(x.detach().movedim(1, -1))
    return moved, x.numel() // max(c, 1), c


def _class_first(buf, x, shape):
    """A gradient buffer in (M, C) order as a tensor of x's dtype and device, of shape (x's, or
    the 4-D one nll_loss_nd views it as: the same (M, C) order)."""
    if len(shape) <= 2:
        return new_tensor(buf, shape, x._dtype, x.device)
    moved = tuple(shape[:1]) + tuple(shape[2:]) + (shape[1],)
    with no_grad():
        return new_tensor(buf, moved, x._dtype, x.device).movedim(-1, 1)


def _check_target(x, target, weight):
    """ATen's nll_loss_nd checks, autograd's refusal of a weight that requires grad, then
    nll_loss's (a 1-D or 2-D input) or nll_loss2d's (the rest) in their order: a 3-D or 5+-D
    input and its target are checked as nll_loss_nd views them, (n, c, 1, -1) and (n, 1, -1),
    or (n, c, 0, 0) and (n, 0, 0) when empty.  Returns (the target flattened as int64, the
    4-D shape the input is viewed as or None, the 3-D shape of a viewed 'none' loss)."""
    if not isinstance(target, Tensor):
        raise TypeError(f"cross_entropy(): argument 'target' must be Tensor, not {type(target).__name__}")
    nd, td = x.dim(), target.dim()
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1:
        batch = target.shape[0] if td else 0        # (what ATen reads past a 0-dim target's sizes)
        if x.shape[0] != batch:
            raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({batch}).")
    xs, ts = tuple(x.shape), tuple(target.shape)
    view = out_view = None
    if nd == 3 or nd > 4:
        expected = xs[:1] + xs[2:]
        if ts != expected:
            raise RuntimeError(f"Expected target size {list(expected)}, got {list(ts)}")
        n, c = xs[0], xs[1]
        xs = view = (n, c, 1, x.numel() // (n * c)) if x.numel() else (n, c, 0, 0)
        ts = out_view = (n, 1, target.numel() // n) if target.numel() else (n, 0, 0)
        nd, td = 4, 3
    if weight is not None:
        check_no_requires_grad(weight, "weight", "nll_loss_forward" if nd <= 2 else "nll_loss2d_forward")
    if nd == 4:
        if td != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {td}")
    elif td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype is not D.int64 and target.dtype is not D.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.type().split('.')[-1][:-6]}")
    if nd <= 2:
        if nd == 2 and td == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if nd == 1 and td == 1 and ts[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {ts[0]}")
        c = xs[-1]
        if weight is not None and (weight.dim() != 1 or weight.numel() != c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but "
                               f"got weight tensor of shape: {list(weight.shape)}")
    else:
        if weight is not None and weight.numel() != xs[1]:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if xs[:1] + xs[2:] != ts:
            raise RuntimeError(f"size mismatch (got input: {list(xs)} , target: {list(ts)}")
    refuse("nll_loss_out_frame" if nd <= 2 else "nll_loss2d_forward_out_frame", x._dtype, INTEGRAL)
    if weight is not None and weight._dtype is not x._dtype:     # (the kernel reads weight as the input's type)
        raise RuntimeError(f"expected scalar type {D.scalar_type_name(x._dtype)} but found "
                           f"{D.scalar_type_name(weight._dtype)}")
    return _flat(cast(target, D.int64)), view, out_view


def _check_label_smoothing(label_smoothing):
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def _none_shape(x, target, out_view):
    """The shape of a 'none' loss as the kernel gives it: nll_loss_nd's 3-D view of a viewed
    input's, else the target's (a 1-D input's target may be [1]: a 0-dim loss)."""
    return out_view if out_view is not None else tuple(target.shape) if x.dim() > 1 else ()


def _reduce_rows(row_loss, reduction, total, denominator, x, out_shape):
    if reduction == "none":
        return cast(new_tensor(row_loss, out_shape, D.float64, x.device), x._dtype)
    value = total if reduction == "sum" else _div(total, denominator)
    return new_scalar(value, x._dtype, x.device)


class LogSoftmaxBackward0(Node):
    """log_softmax inside cross_entropy; in the fused path its gradient arrives already done."""

    def backward(self, g):
        if not is_grad_enabled():
            return g
        (x,) = self.saved_tensors
        from .reduction import log_softmax
        y = log_softmax(x, self.dim)
        return g - y.exp() * g.sum(self.dim, keepdim=True)


def _bfloat16_scalar(value):
    """A number rounded to bfloat16, as a float32 scalar: arithmetic on two of them, then this
    again, is one BFloat16 op (float32, rounded once), as NumPy's float16 scalars are Half's."""
    return np.float32(D.round_scalar(float(value), D.bfloat16))


def _over_total_weight(g, total_weight, scalar, g_value=None):
    """nll_loss_backward's g / total_weight as a scalar of the loss's dtype (NumPy's scalar
    division: IEEE's in that dtype); a total weight of 0 (every row ignored) gives _div's inf
    or NaN.  g_value: g.item() when the caller has it already."""
    gv = scalar(g.item() if g_value is None else g_value)
    return scalar(gv / scalar(total_weight)) if total_weight else scalar(_div(float(gv), 0.0))


def _rows_to_input(grad, shape):
    """An (M, C) gradient (_class_last's rows) in the input's shape: the class dim back in place."""
    if len(shape) == 2:
        return grad
    if len(shape) < 2:
        return grad.reshape(shape)
    moved = tuple(shape[:1]) + tuple(shape[2:]) + (shape[1],)
    return grad.reshape(moved).movedim(-1, 1)


class NllLossBackward0(Node):
    # captured by nbgrad.compile (_captured_fused_cross_entropy, _captured_nll_loss): the
    # forward's sum of weights as a 0-dim float64 tensor, from which the gradient's scales
    # are Tensor ops (a compiled call computes them again)
    captured_total_weight = None

    def backward(self, g):
        saved = self.saved_tensors
        x = saved[0]
        if self.fused and not is_grad_enabled():
            # d loss / d logits in one kernel (see the module docstring)
            if self.captured_total_weight is not None and self._float32_mean():
                # (as below: g / total_weight divided in float32, here as device ops)
                gv = cast(cast(g.detach(), D.float32) / cast(self.captured_total_weight, D.float32), D.float64)
                coef_nll = _flat(gv.reshape(-1))
                coef_smooth = _flat(cast(g.detach(), D.float64).reshape(-1) * self._captured_scales()[1])
            elif self.captured_total_weight is not None:
                scale_nll, scale_smooth = self._captured_scales()
                g64 = cast(g.detach(), D.float64).reshape(-1)
                coef_nll, coef_smooth = _flat(g64 * scale_nll), _flat(g64 * scale_smooth)
            elif self._float32_mean() and g.numel() == 1:
                # the float32 kernel's PyTorch bits (loss_kernels.py); one value for every row
                # (the contract's (1,) scales: the CPU's float32 kernel reads no smoothing one)
                g_value = g.item()
                gv = _over_total_weight(g, self.total_weight, np.float32, g_value)
                be = backend_of(x)
                coef_nll = be.full(1, D.float64.np, float(gv))
                coef_smooth = be.full(1, D.float64.np, float(g_value) * self.scale_smooth)
            else:
                g_value = float(g.item()) if g.numel() == 1 and self.m != 1 else None
                coef_nll = _coef(g, self.scale_nll, self.m, x, g_value)
                coef_smooth = _coef(g, self.scale_smooth, self.m, x, g_value)
            buf = acceleration(x, "cross_entropy_backward")(
                self.x2d, self.m, self.c, self.lse, self.target, self.weight, self.ignore_index, self.smoothing,
                coef_nll, coef_smooth)
            return _class_first(buf, x, self.input_meta[0][0])
        if not self.fused and not is_grad_enabled() and g.numel() == 1 and self.reduction in ("mean", "sum"):
            # PyTorch's nll_loss_backward: w[t] * -(g / total_weight) (mean; sum: -g), each an
            # op in x's dtype, written at each row's target and nothing else (an all-ignored
            # batch's inf scale leaves the zeros zero); the forward's total_weight is one in
            # that dtype (_nll_forward)
            if self.captured_total_weight is not None:      # (the same ops on the device)
                gv = cast(g.detach().reshape(()), x._dtype)
                if self.reduction == "mean":
                    gv = gv / cast(self.captured_total_weight, x._dtype)
                unit = _flat(cast(gv, D.float64).expand(self.m))
            else:
                scalar = _bfloat16_scalar if x._dtype is D.bfloat16 else x._dtype.np.type
                gv = _over_total_weight(g, self.total_weight, scalar) if self.reduction == "mean" else \
                    scalar(g.item())
                unit = backend_of(x).full(self.m, D.float64.np, float(gv))
            grad = new_tensor(acceleration(x, "nll_backward")(self.m, self.c, self.target, self.weight,
                                                              self.ignore_index, unit, x._dtype.np),
                              (self.m, self.c), x._dtype, x.device)
            return _rows_to_input(grad, self.input_meta[0][0])
        # d loss / d log-probabilities: a constant pattern times g (differentiable in g)
        from .._creation import ones
        scale, scale_smooth = self.scale_nll, self.scale_smooth
        if not self.fused and self.reduction == "mean":
            # (recorded, create_graph: the same w[t] * -(g / total_weight), as ops of g)
            tw = self.total_weight if self.captured_total_weight is None else \
                cast(self.captured_total_weight, g._dtype)
            g, scale = g / tw, 1.0
        if self.captured_total_weight is not None:     # (no host read: _coef's item())
            if self.fused:
                scale, scale_smooth = self._captured_scales()
            unit = _flat(ones((self.m,), dtype=D.float64) * scale)
        else:
            unit = _coef(ones((), dtype=D.float64), scale, self.m, x)
        pattern = new_tensor(acceleration(x, "nll_backward")(self.m, self.c, self.target, self.weight,
                                                             self.ignore_index, unit, x._dtype.np),
                             (self.m, self.c), x._dtype, x.device)
        if self.fused and self.smoothing != 0.0:
            target = new_tensor(self.target, (self.m,), D.int64, x.device)
            keep = (target != self.ignore_index).to(x._dtype).unsqueeze(1)
            w = ones((self.c,), dtype=x._dtype) if self.weight is None else \
                new_tensor(self.weight, (self.c,), x._dtype, x.device)
            pattern = pattern - keep * w * scale_smooth
        grad = pattern * (g.reshape(-1, 1) if g.numel() == self.m and self.reduction == "none" else g)
        return _rows_to_input(grad, self.input_meta[0][0])

    def _float32_mean(self):
        """The fused float32 kernel in PyTorch's bits (no smoothing) with a 'mean' loss: its
        gradient's g / total_weight is a float32 division, as nll_loss_backward's."""
        return self.fused and self.reduction == "mean" and self.smoothing == 0.0 and self.x2d.dtype == np.float32

    def _captured_scales(self):
        """_nll_scales' (scale_nll, scale_smooth) over the sum of weights on the device: 0-dim
        float64 tensors for 'mean' (1 / a sum of 0 is inf, as _div gives), floats else."""
        return _nll_scales(self.reduction, self.captured_total_weight, self.m, self.smoothing, self.c,
                           self.weight is not None, operator.truediv)


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss2d's node: a 4-D input, or a 3-D or 5+-D one nll_loss_nd views as 4-D."""


def _nll_scales(reduction, sums_w, m, smoothing, c, has_weight, div=_div):
    """Per-row gradient scales of the NLL part and the smoothing part (before g); div as in
    _loss_of_sums."""
    if reduction == "mean":
        s_nll = (1.0 - smoothing) * div(1.0, sums_w)
        s_smooth = smoothing / c * div(1.0, sums_w)   # PyTorch: over the rows not ignored
    else:
        s_nll, s_smooth = 1.0 - smoothing, smoothing / c
    return s_nll, s_smooth


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Log-softmax over dim 1 (dim 0 for a 1-D input) and NLL, fused."""
    if _amp.ON: input, target, weight = _amp.cast_float32(input, target, weight)   # (autocast's float32 list)
    reduction = _reduction(reduction, size_average, reduce)
    x = input
    if isinstance(target, Tensor) and isinstance(x, Tensor) and tuple(target.shape) == tuple(x.shape):
        # PyTorch takes a target of input's shape for class probabilities (and a target of
        # another shape for class indices, whatever its dtype: a float one then fails there)
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{D.scalar_type_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        _check_label_smoothing(label_smoothing)
        return _cross_entropy_probabilities(x, target, weight, reduction, label_smoothing)
    # ATen's order, after the parser's (input read first: a non-tensor is its TypeError): the
    # smoothing (a negative one is none), log_softmax's dim and dtype, then nll_loss_nd's
    # checks (_check_target)
    nd = x.dim()
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
    else:
        label_smoothing = 0.0
    if nd == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if not x.dtype.is_floating_point and x.numel():     # (an empty input's kernel is not called)
        check_dtype("log_softmax_lastdim" if x.dim() <= 2 else "log_softmax", x.dtype)
    check_same_device(x, target, weight)
    if x._dtype in _REDUCED:
        # PyTorch's cross_entropy is log_softmax then nll_loss, each rounding to Half
        from .reduction import log_softmax
        dim = 0 if x.dim() == 1 else 1
        logp = log_softmax(x, dim)
        nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
        if label_smoothing == 0.0:
            return nll
        return _label_smoothing_half(logp, nll, target, weight, ignore_index, reduction, label_smoothing, dim)
    tgt, view, out_view = _check_target(x, target, weight)
    if capturing() is not None:
        if accelerated(x, "cross_entropy_forward") and hasattr(backend_of(x), "cross_entropy_stats"):
            return _captured_fused_cross_entropy(x, target, tgt, view, out_view, weight, ignore_index, reduction,
                                                 float(label_smoothing))
        return _captured_cross_entropy(x, target, weight, ignore_index, reduction, float(label_smoothing))
    x2d_t, m, c = _class_last(x)
    x2d = _flat(x2d_t)
    w = _float_buffer(weight, x._dtype)
    row_loss, lse, (s_nll, s_smooth, s_w) = acceleration(x, "cross_entropy_forward")(
        x2d, m, c, tgt, w, ignore_index, label_smoothing)
    eps = float(label_smoothing)
    if reduction == "none":
        out = _reduce_rows(row_loss, reduction, 0.0, 0.0, x, _none_shape(x, target, out_view))
    else:
        out = new_scalar(_loss_of_sums(reduction, eps, c, s_nll, s_smooth, s_w), x._dtype, x.device)
    if needs_grad(x):
        scale_nll, scale_smooth = _nll_scales(reduction, s_w, m, eps, c, weight is not None)
        _fused_nodes(out, x, view, x2d=x2d, m=m, c=c, lse=lse, target=tgt, weight=w, ignore_index=int(ignore_index),
                     smoothing=eps, reduction=reduction, scale_nll=scale_nll, scale_smooth=scale_smooth,
                     total_weight=s_w)
    return _viewed_back(out, target, out_view, reduction)


def _loss_of_sums(reduction, eps, c, s_nll, s_smooth, s_w, div=_div):
    """The fused kernel's 'sum' or 'mean' loss from its sums: Python floats (div _div) or, while
    nbgrad.compile captures, 0-dim float64 tensors (div plain division), the same float64
    operations either way."""
    if reduction == "sum":
        return (1.0 - eps) * s_nll + eps / c * s_smooth
    value = (1.0 - eps) * div(s_nll, s_w)
    if eps:
        value = value + eps / c * div(s_smooth, s_w)
    return value


def _fused_nodes(out, x, view, **attrs):
    """PyTorch's NllLossBackward0 -> LogSoftmaxBackward0 over x as out's history (for more
    than 2 dims NllLoss2DBackward0, through nll_loss_nd's ViewBackward0 of the log-probabilities
    to the 4-D `view` where it makes one), the fused backward's inputs (attrs) on the first."""
    ls = record(LogSoftmaxBackward0, (x,), (), dim=0 if x.dim() == 1 else 1)
    ls.save(x)
    edge, meta = ls, ((x._shape, x._dtype),)
    if view is not None:
        from .views import ViewBackward0
        edge = ViewBackward0(((ls, 0),), meta)
        edge.shape = x._shape
        meta = ((view, x._dtype),)
    node = _nll_class(x)(((edge, 0),), meta)
    node.__dict__.update(fused=True, **attrs)
    node.save(x)
    out._grad_fn, out._requires_grad, out._output_nr = node, True, 0


# -- while nbgrad.compile captures ---------------------------------------------------
# The fused kernels above hand their sums to Python (a Python float becomes the loss); a
# compiled call would not see them again.  While a capture runs, the losses are the same
# formulas as Tensor ops, whose values stay on the device (equal to the kernels' to
# float rounding), and the output's node keeps PyTorch's name.  A target out of range is
# a check the compiled call repeats (nbgrad/_compile/capture.py, Recording.check).
def _target_error(target_array, ignore_index, c):
    import numpy as np
    t = np.asarray(target_array).reshape(-1)
    bad = t[(t != ignore_index) & ((t < 0) | (t >= c))]
    return IndexError(f"Target {int(bad[0]) if bad.size else '?'} is out of bounds.")


def _check_captured_targets(bad, targets, ignore_index, c):
    """The capture's check of the targets (bad: a 0-dim bool tensor, any kept target out of
    [0, c)): a compiled call raises the eager IndexError, naming the target."""
    capturing().check(bad, lambda arr, ii=int(ignore_index), c=c: _target_error(arr, ii, c), targets)


def _nll_node(x, out, **attrs):
    """Records nll_loss's node over x (NllLossBackward0; nll_loss2d's NllLoss2DBackward0 for
    more than 2 dims), not fused, x saved."""
    record(_nll_class(x), (x,), (out,), fused=False, smoothing=0.0, scale_smooth=0.0, **attrs).save(x)


def _nll_class(x):
    return NllLoss2DBackward0 if x.dim() > 2 else NllLossBackward0


def _captured_fused_cross_entropy(x, target, tgt, view, out_view, weight, ignore_index, reduction, eps):
    """The fused kernels while capturing: the backend's capture form (cross_entropy_stats)
    leaves the sums on the device, and the loss and the gradient's scales are Tensor ops
    on them, the eager path's float64 arithmetic op for op, so a compiled call computes
    them again (two kernels and a check where the composed form below takes a dozen)."""
    x2d_t, m, c = _class_last(x)
    x2d = _flat(x2d_t)
    w = _float_buffer(weight, x._dtype)
    row_loss, lse, sums, bad = backend_of(x).cross_entropy_stats(x2d, m, c, tgt, w, ignore_index, eps)
    _check_captured_targets(new_tensor(bad, (), D.bool_, x.device), new_tensor(tgt, (m,), D.int64, x.device),
                            ignore_index, c)
    s = new_tensor(sums, (3,), D.float64, x.device)
    with no_grad():
        if reduction == "none":
            out = cast(new_tensor(row_loss, _none_shape(x, target, out_view), D.float64, x.device), x._dtype)
        else:
            out = cast(_loss_of_sums(reduction, eps, c, s[0], s[1], s[2], operator.truediv), x._dtype)
    if needs_grad(x):
        _fused_nodes(out, x, view, x2d=x2d, m=m, c=c, lse=lse, target=tgt, weight=w, ignore_index=int(ignore_index),
                     smoothing=eps, reduction=reduction, scale_nll=None, scale_smooth=None,
                     captured_total_weight=s[2])
    return _viewed_back(out, target, out_view, reduction)


def _captured_nll_loss(x, target, tgt, weight, ignore_index, reduction, none_shape):
    """nll_loss while capturing: the backend's capture form (nll_stats) leaves the sums on the
    device, the loss and the gradient's scale are the eager path's float64 operations as Tensor
    ops on them; a backend without it (and a 16-bit input, whose sums are Half's) composes the
    loss from Tensor ops."""
    be = backend_of(x)
    if x._dtype not in _KERNEL_FLOATS or not accelerated(x, "nll_forward") or not hasattr(be, "nll_stats"):
        return _composed_nll(x, target, weight, ignore_index, reduction, 1 if x.dim() > 1 else 0)
    x2d_t, m, c = _class_last(x)
    w = _float_buffer(weight, x._dtype)
    row_loss, sums, bad = be.nll_stats(_flat(x2d_t), m, c, tgt, w, ignore_index)
    _check_captured_targets(new_tensor(bad, (), D.bool_, x.device), new_tensor(tgt, (m,), D.int64, x.device),
                            ignore_index, c)
    s = new_tensor(sums, (2,), D.float64, x.device)
    with no_grad():
        if reduction == "none":
            out = cast(new_tensor(row_loss, none_shape, D.float64, x.device), x._dtype)
        else:
            out = cast(s[0] if reduction == "sum" else s[0] / s[1], x._dtype)
    if needs_grad(x):
        _nll_node(x, out, m=m, c=c, target=tgt, weight=w, ignore_index=int(ignore_index), reduction=reduction,
                  scale_nll=1.0, total_weight=None, captured_total_weight=s[1])
    return out


def _composed_nll(logp, target, weight, ignore_index, reduction, dim):
    """NLL of log-probabilities over `dim` as Tensor ops (while capturing, where no capture
    form computes it), summed or over the weights of the rows kept."""
    from .more import renamed
    rows, row_w, _ = _composed_nll_rows(logp, target, weight, ignore_index, dim)
    out = rows if reduction == "none" else rows.sum() if reduction == "sum" else rows.sum() / row_w.sum()
    return renamed(out, _nll_class(logp).__name__)


def _composed_nll_rows(logp, target, weight, ignore_index, dim):
    """(-w[t] * logp[t], w[t], 1) per row as Tensor ops, 0s for an ignored row; a target out of
    range is the capture's check."""
    from .._creation import arange
    c = logp.shape[dim]
    t = cast(target, D.int64)
    keep = t != ignore_index
    bad = (keep & ((t < 0) | (t >= c))).any()
    _check_captured_targets(bad, t, ignore_index, c)
    shape = [1] * logp.dim()
    shape[dim] = c
    picks = ((t.unsqueeze(dim) == arange(c, device=logp.device).reshape(shape)) & keep.unsqueeze(dim)).to(logp.dtype)
    if weight is not None:
        picks = picks * weight.to(logp.dtype).reshape(shape)
    # (an ignored row's loss and gradient are 0 whatever the scale: an all-ignored mean's 0 / 0
    # gives eager's zero gradient, not NaN)
    from .elementwise import where
    rows = where(keep, -(logp * picks).sum(dim), 0.0)
    return rows, picks.sum(dim), keep.to(logp.dtype)


def _captured_cross_entropy(x, target, weight, ignore_index, reduction, eps):
    """cross_entropy while capturing on a backend without its capture form: log_softmax and
    the NLL (and smoothing) terms as Tensor ops."""
    from .more import renamed
    from .reduction import log_softmax
    dim = 0 if x.dim() == 1 else 1
    c = x.shape[dim]
    logp = log_softmax(x, dim)
    loss, row_w, keep = _composed_nll_rows(logp, target, weight, ignore_index, dim)
    if eps:
        if weight is not None:
            shape = [1] * x.dim()
            shape[dim] = c
            smooth = -(logp * weight.to(x.dtype).reshape(shape)).sum(dim) * keep
        else:
            smooth = -logp.sum(dim) * keep
        loss = (1.0 - eps) * loss + (eps / c) * smooth
    out = loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.sum() / row_w.sum()
    return renamed(out, _nll_class(x).__name__)


def _label_smoothing_half(logp, nll, target, weight, ignore_index, reduction, label_smoothing, dim):
    """PyTorch's cross_entropy_loss_label_smoothing, op for op (each a Half op)."""
    from .elementwise import mul_scalar
    c = logp.shape[dim]
    if weight is not None:
        shape = [1] * logp.dim()
        shape[dim] = c
        smooth = -(logp * weight.reshape(shape)).sum(dim)
    else:
        smooth = -logp.sum(dim)
    ignore = target == ignore_index
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            ret = smooth.sum() / weight.gather(0, target.masked_select(~ignore).flatten()).sum()
        else:
            ret = smooth.sum() / (~ignore).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    # (C++'s double * Tensor and Tensor * double: the Scalar overloads, MulBackward1)
    return mul_scalar(nll, 1 - label_smoothing) + mul_scalar(ret, label_smoothing / c)


def _cross_entropy_probabilities(x, target, weight, reduction, label_smoothing):
    """Class-probability targets: ATen's cross_entropy_loss_prob_target op for op (C++'s
    Scalar overloads where it multiplies, adds or divides by a number)."""
    from .elementwise import add_scalar, div_scalar, mul_scalar
    from .reduction import log_softmax
    if tuple(target.shape) != tuple(x.shape):
        raise RuntimeError(f"Expected target size {list(x.shape)}, got {list(target.shape)}")
    dim = 0 if x.dim() == 1 else 1
    c = x.shape[dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    logp = log_softmax(x, dim)
    if label_smoothing > 0:
        target = add_scalar(mul_scalar(target, 1 - label_smoothing), label_smoothing / c)
    terms = logp * target
    if weight is not None:
        shape = [1] * x.dim()
        shape[dim] = c
        terms = terms * weight.view(shape)
    if reduction == "none":
        return -terms.sum(dim)
    total = terms.sum()
    if reduction == "sum":
        return -total
    if x.numel() == 0:
        return -total.fill_(math.nan)
    return div_scalar(-total, x.numel() // c)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of class indices under log-probabilities `input`."""
    if _amp.ON: input, target, weight = _amp.cast_float32(input, target, weight)   # (autocast's float32 list)
    reduction = _reduction(reduction, size_average, reduce)
    x = input
    check_same_device(x, target, weight)
    tgt, view, out_view = _check_target(x, target, weight)
    none_shape = _none_shape(x, target, out_view)
    if view is not None:
        # nll_loss_nd's 4-D view of a 3-D or 5+-D input (recorded as there: ViewBackward0, and
        # CloneBackward0 before it for a non-contiguous input)
        x = x.contiguous().view(view)
    if capturing() is not None:
        viewed_target = target if out_view is None else target.reshape(out_view)
        out = _captured_nll_loss(x, viewed_target, tgt, weight, ignore_index, reduction, none_shape)
        return _viewed_back(out, target, out_view, reduction)
    x2d_t, m, c = _class_last(x)
    w = _float_buffer(weight, x._dtype)
    row_loss, (total, s_w) = acceleration(x, "nll_forward")(_flat(x2d_t), m, c, tgt, w, ignore_index)
    out = _reduce_rows(row_loss, reduction, total, s_w, x, none_shape)
    if needs_grad(x):
        _nll_node(x, out, m=m, c=c, target=tgt, weight=w, ignore_index=int(ignore_index), reduction=reduction,
                  scale_nll=_div(1.0, s_w) if reduction == "mean" else 1.0, total_weight=s_w)
    return _viewed_back(out, target, out_view, reduction)


def _viewed_back(out, target, out_view, reduction):
    """nll_loss_nd's 'none' loss of a viewed input, viewed back to the target's shape."""
    return out.view(target.shape) if out_view is not None and reduction == "none" else out


# -- MSE ---------------------------------------------------------------------------
class MseLossBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        scale = _mean_scale(self.n) if self.reduction == "mean" else 1.0
        if is_grad_enabled():
            # PyTorch's mse_loss_backward as a recorded op (grad_fn MseLossBackwardBackward0)
            gx = _mse_backward(g, x, y, scale) if self.needs_input_grad(0) else None
            gy = _mse_backward(g, y, x, scale) if self.needs_input_grad(1) else None
            return gx, gy
        # PyTorch's mse_backward_cpu_kernel: norm * (x - y) * g in the dtype, norm = 2 / n
        # ('mean') or 2 rounded to it; the target's gradient is its negation, to the bit
        xs, ys = self._operands(x, y)
        norm = D.round_scalar(2.0 * scale, self.dtype) if self.dtype in _REDUCED else 2.0 * scale
        gx = ((xs - ys) * norm) * g
        return gx, (-gx if self.needs_input_grad(1) else None)

    def _operands(self, x, y):
        shape = self.shape
        return (cast(x.detach(), self.dtype).expand(shape), cast(y.detach(), self.dtype).expand(shape))


def _mse_backward(g, x, y, scale):
    """2 * scale * (x - y) * g: computed unrecorded, recorded as one node."""
    with no_grad():
        out = (x - y) * (2.0 * scale) * g
    if needs_grad(g, x, y):
        record(MseLossBackwardBackward0, (g, x, y), (out,), scale=scale).save(g, x, y)
    return out


class MseLossBackwardBackward0(Node):
    def backward(self, gg):
        g, x, y = self.saved_tensors
        # PyTorch: grad_output: mse_loss_backward(grad, self, target); self: 2 * scale *
        # grad * grad_output (mse_loss_double_backward); target: its negative
        d_g = _mse_backward(gg, x, y, self.scale) if self.needs_input_grad(0) else None
        d_x = gg * g * (2.0 * self.scale) if self.needs_input_grad(1) or self.needs_input_grad(2) else None
        return d_g, (d_x if self.needs_input_grad(1) else None), (-d_x if self.needs_input_grad(2) else None)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or elementwise) squared error, broadcasting as PyTorch does (with its warning)."""
    if _amp.ON: input, target, weight = _amp.cast_float32(input, target, weight)   # (autocast's float32 list)
    if weight is not None:
        return _weighted_pointwise_loss(input, target, weight, reduction, size_average, reduce, 2)
    x, y, reduction = _pointwise_preamble(input, target, reduction, size_average, reduce)
    return _pointwise_loss(x, y, _reduction(reduction), "mse")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or elementwise) absolute error: ATen's composite |x - y| over the broadcast
    pair (a 0-dim target of a wider dtype promotes the loss, as there)."""
    if _amp.ON: input, target, weight = _amp.cast_float32(input, target, weight)   # (autocast's float32 list)
    if weight is not None:
        return _weighted_pointwise_loss(input, target, weight, reduction, size_average, reduce, 1)
    x, y, reduction = _pointwise_preamble(input, target, reduction, size_average, reduce)
    reduction = _reduction(reduction)
    loss = (x - y).abs()
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


@python_body
def _weighted_pointwise_loss(input, target, weight, reduction, size_average, reduce, power):
    """l1_loss (power 1) and mse_loss (2) with a weight, as PyTorch's Python composes them:
    the errors of the broadcast pair times weight, whose 'mean' divides by the weights' sum."""
    _warn_pointwise_size(input, target, stacklevel=4)
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    x, y = _broadcast_pair(input, target)
    if weight.size() != input.size():       # (PyTorch's reads: a weight that is no tensor is its AttributeError)
        raise ValueError("Weights and input must have the same size.")
    errors = (x - y).abs() if power == 1 else (x - y).pow(2)
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _broadcast_pair(x, y):
    """torch.broadcast_tensors(x, y) (expanded views; x, y themselves when shapes agree)."""
    if tuple(x.shape) == tuple(y.shape):
        return x, y
    shape = broadcast_shapes(x.shape, y.shape)
    return x.expand(shape), y.expand(shape)


def _pointwise_preamble(input, target, reduction, size_average, reduce):
    """PyTorch 2.13's Python of mse_loss, l1_loss and smooth_l1_loss in its order: the size
    warning, the legacy reduction, broadcast_tensors (the op's reduction enum is the caller's
    next step: smooth_l1_loss tests its beta first).
    -> (the broadcast input and target, the reduction as given or from the legacy pair)."""
    _warn_pointwise_size(input, target, stacklevel=4)
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    x, y = _broadcast_pair(input, target)
    return x, y, reduction


def _warn_pointwise_size(x, y, stacklevel=3):
    """PyTorch's warning for a target whose size is not the input's (stacklevel: the caller's
    caller is the user's frame)."""
    if tuple(y.size()) != tuple(x.size()):      # (PyTorch's target.size() != input.size(): its reads)
        _warn_user(f"Using a target size ({y.shape}) that is different to the input size ({x.shape}). "
                   "This will likely lead to incorrect results due to broadcasting. "
                   "Please ensure they have the same size.", stacklevel=stacklevel)


def _pointwise_loss(x, y, reduction, kind):
    _warn_pointwise_size(x, y, stacklevel=4)
    check_same_device(x, y)
    dtype = D.promote_types(x.dtype, y.dtype)
    refuse(f"{kind}_cpu", dtype, INTEGRAL)
    shape = broadcast_shapes(x.shape, y.shape)
    xs = cast(x.detach(), dtype).expand(shape)
    ys = cast(y.detach(), dtype).expand(shape)
    n = math.prod(shape)
    if dtype in (D.float32, D.float64):
        # PyTorch's mse_loss: d = x - y, d * d (its mse_kernel), then its sum or mean kernel,
        # each in the dtype (whose orders nbgrad's sum and mean follow); Tensor ops, so
        # nbgrad.compile captures them as they are
        with no_grad():
            d = xs - ys
            sq = d * d
            out = sq if reduction == "none" else sq.sum() if reduction == "sum" else sq.mean()
    else:
        elementwise, total = acceleration(x, "mse_forward")(_flat(xs), _flat(ys))
        if reduction == "none":
            out = _laid_out(cast(new_tensor(elementwise, shape, D.float64, x.device), dtype), (x, y))
        else:
            out = new_scalar(total if reduction == "sum" else _div(total, n), dtype, x.device)
    if needs_grad(x, y):
        node = record(MseLossBackward0, (x, y), (out,), reduction=reduction, n=n, shape=shape, dtype=dtype)
        node.save(x, y)
    return out


# -- BCE with logits ---------------------------------------------------------------
class BinaryCrossEntropyWithLogitsBackward0(Node):
    composite = False       # (True: the forward was _bce_logits_composite's, and so is the backward)

    def backward(self, g):
        x, y = self.saved_tensors
        w, pw = self.weight_t, self.pos_weight_t
        scale = _mean_scale(self.n) if self.reduction == "mean" else 1.0
        if self.composite:
            return self._composite_backward(g, x, y, w, pw)
        if is_grad_enabled():
            from .elementwise import sigmoid
            k = g * scale if w is None else g * scale * w
            lw = 1.0 if pw is None else 1 + (pw - 1) * y
            gx = ((1 - y) - lw * sigmoid(-x)) * k
            gy = None
            if self.needs_input_grad(1):
                gy = -x * k if pw is None else (-x + (pw - 1) * _softplus_neg(x)) * k
            return gx, gy
        shape, dt = x._shape, x._dtype
        gx, gy = acceleration(x, "bce_logits_backward")(
            _flat(x.detach()), _float_buffer(y, dt, shape), self._ones_or(w, dt, shape),
            _float_buffer(pw, dt, shape), _coef(g, scale, x.numel(), x))
        gx = new_tensor(gx, shape, dt, x.device)
        return gx, (new_tensor(gy, shape, dt, x.device) if self.needs_input_grad(1) else None)

    def _composite_backward(self, g, x, y, w, pw):
        # PyTorch's binary_cross_entropy_with_logits_backward and _target_backward, op for op:
        # in place unless grad mode is on (double backward), so a Half gradient stays Half
        # against a float target and an input broadcast to the target's shape is refused here
        # as PyTorch refuses it
        fresh = is_grad_enabled()

        def then(t, op, other):
            return getattr(t, op)(other) if fresh else getattr(t, op + "_")(other)
        gx = gy = None      # (each formula runs only where its input needs a gradient, as in PyTorch)
        if self.needs_input_grad(0):
            if pw is None:
                gx = then(x.sigmoid(), "sub", y)
            else:
                t = pw.mul(y)
                gx = then(then(then(t.add(1), "sub", y), "mul", x.sigmoid()), "sub", t)
            gx = then(gx, "mul", g)
        if self.needs_input_grad(1):
            if pw is None:
                gy = -x * g
            else:
                gy = then(then(_log_sigmoid(-x), "sub", then(_log_sigmoid(x), "mul", pw)), "mul", g)
        if w is not None:
            gx = None if gx is None else then(gx, "mul", w)
            gy = None if gy is None else then(gy, "mul", w)
        if self.reduction == "mean":
            gx = None if gx is None else (gx.div_(x.numel()) if not fresh else gx / x.numel())
            gy = None if gy is None else (gy.div_(y.numel()) if not fresh else gy / y.numel())
        return gx, gy

    @staticmethod
    def _ones_or(w, dtype, shape):
        if w is None:
            from .._creation import ones
            return _flat(ones(shape, dtype=dtype))
        return _float_buffer(w, dtype, shape)


def _log_sigmoid(x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), computed in float32 for float16
    and rounded once (PyTorch's log_sigmoid kernel)."""
    from .elementwise import exp, log1p
    src = x.float() if x._dtype in _REDUCED else x
    out = src.clamp(max=0) - log1p(exp(-src.abs()))
    return out.to(x._dtype) if x._dtype in _REDUCED else out


def _broadcasts_to(t, shape):
    """Whether t (or None) broadcasts to shape without growing it."""
    try:
        return t is None or broadcast_shapes(t.shape, shape) == tuple(shape)
    except RuntimeError:
        return False


def _bce_logits_composite(x, y, weight, pos_weight, reduction):
    """PyTorch's composite binary_cross_entropy_with_logits, op for op and each rounding:
    log_sigmoid(x) (refusing integral x), times (pos_weight - 1) * y + 1 in place, then
    (1 - y).mul_(x).sub_(that), times weight in place, reduced.  The in-place ops give the
    loss the target's dtype and PyTorch's refusals (an integral target cannot hold a float
    product, a bool target cannot be subtracted from 1).  Taken for 16-bit floats and for
    mixed dtypes or shapes; the fused kernel serves the common case of one float32/float64
    dtype and shape."""
    from .._creation import ones_like
    refuse("log_sigmoid_cpu", x._dtype, INTEGRAL)
    with no_grad():
        ls = _log_sigmoid(x)
        if pos_weight is not None:
            ls.mul_((pos_weight - 1).mul(y).add_(1))
        loss = ones_like(y).sub_(y).mul_(x).sub_(ls)     # ATen's `1 - target`: fill_(1), sub_
        if weight is not None:
            loss.mul_(weight)
        if reduction == "mean":
            loss = loss.mean()
        elif reduction == "sum":
            loss = loss.sum()
    out = copy_raw(loss)
    if needs_grad(x, y):
        node = record(BinaryCrossEntropyWithLogitsBackward0, (x, y), (out,), reduction=reduction, n=x.numel(),
                      weight_t=None if weight is None else weight.detach(),
                      pos_weight_t=None if pos_weight is None else pos_weight.detach(), composite=True)
        node.save(x, y)
    return out


def _softplus_neg(x):
    from .elementwise import exp, log1p, relu
    return relu(-x) + log1p(exp(-x.abs()))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """F.binary_cross_entropy_with_logits: the sizes must be the same, then ATen's op."""
    try:
        reduction = _reduction(reduction, size_average, reduce)
        if not (target.size() == input.size()):
            raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    except (ValueError, RuntimeError) as e:
        e.python_level = True       # (PyTorch's Python speaks before its parser: ops/_signatures keeps it)
        raise
    return bce_with_logits(input, target, weight, pos_weight, reduction)


def bce_with_logits(x, y, weight, pos_weight, reduction):
    """torch.binary_cross_entropy_with_logits, ATen's op: sigmoid + binary cross-entropy in one
    numerically stable kernel.  Unlike F's, it does not ask for equal sizes: input broadcasts
    to target's shape (the composite's in-place ops say which shapes go)."""
    if _amp.ON: x, y, weight, pos_weight = _amp.cast_float32(x, y, weight, pos_weight)  # (autocast's float32 list)
    check_same_device(x, y, weight, pos_weight)
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            check_no_requires_grad(t, name, "binary_cross_entropy_with_logits")     # as PyTorch's autograd
    if x.dtype not in _KERNEL_FLOATS or any(t is not None and t.dtype is not x.dtype for t in (y, weight, pos_weight)) \
            or y.shape != x.shape or not all(_broadcasts_to(t, x.shape) for t in (weight, pos_weight)):
        return _bce_logits_composite(x, y, weight, pos_weight, reduction)
    dt = x.dtype
    shape = x.shape
    ones_w = BinaryCrossEntropyWithLogitsBackward0._ones_or(weight, dt, shape)
    elementwise, total = acceleration(x, "bce_logits_forward")(_flat(x), _float_buffer(y, dt, shape), ones_w,
                                               _float_buffer(pos_weight, dt, shape))
    n = x.numel()
    if reduction == "none":
        # PyTorch computes (1 - target).mul_(input)...: the layout of `1 - target`
        out = _laid_out(cast(new_tensor(elementwise, shape, D.float64, x.device), dt), (y, 1))
    else:
        out = new_scalar(total if reduction == "sum" else _div(total, n), dt, x.device)
    if needs_grad(x, y):
        node = record(BinaryCrossEntropyWithLogitsBackward0, (x, y), (out,), reduction=reduction, n=n,
                      weight_t=None if weight is None else weight.detach(),
                      pos_weight_t=None if pos_weight is None else pos_weight.detach())
        node.save(x, y)
    return out
