"""CTC loss (Connectionist Temporal Classification): F.ctc_loss, torch.ctc_loss, nn.CTCLoss.

PyTorch's at::ctc_loss, step for step: an unbatched (T, C) input is unsqueezed to (T, 1, C);
the lengths (tensors or sequences of ints) and the targets (padded (N, S) or concatenated)
are read on the host and checked with PyTorch's CPU messages (ctc_loss_allocate_outputs);
the per-sample losses come from the backend's alpha recursion as one node,
CtcLossBackward0, whose backward is the backend's beta recursion; then the composite's
Tensor ops: zero_infinity's where(loss == inf, 0, loss), 'mean' as
(loss / target_lengths.clamp_min(1)).mean(), 'sum', or the unbatched squeeze, so that the
outer nodes are PyTorch's (WhereBackward0, DivBackward0, MeanBackward0, SumBackward0,
SqueezeBackward1).  PyTorch's gradient is exp(lp) - (the alignments' occupancy of each
label), which is d loss / d lp only through a log_softmax (its sum over C is 1); so is
this one.  CTC's backward has no derivative: under create_graph the gradient's node is
NotImplemented, as PyTorch's.

PyTorch's CPU kernel reads the labels without checking them (an out-of-range label reads
outside log_probs); here every label read is checked against C first and refused with a
RuntimeError.
"""
import math

import numpy as np

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import Node
from ._graph import NotImplementedNode, backend_of, cast, needs_grad, new_tensor, record
from .loss import _flat

_NONE, _MEAN, _SUM = 0, 1, 2
_WHILE = "(while checking arguments for ctc_loss_allocate_outputs)"
_OVERLOADS = (
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n")


def _type_name(v):
    if isinstance(v, Tensor):
        return "Tensor"
    cls = type(v)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__.split('.')[0]}.{cls.__name__}"


def _index(v):
    """v as an int where PyTorch's parser takes it for an int (Python and NumPy integers, a
    one-element integer tensor; never a bool or a float), else None."""
    if isinstance(v, Tensor):
        if v.numel() == 1 and v.dtype.np.kind in "iu":
            return int(v.item())
        return None
    if isinstance(v, (bool, np.bool_)) or not hasattr(v, "__index__"):
        return None
    return v.__index__()


def _int_list(v):
    if isinstance(v, (tuple, list)):
        values = [_index(x) for x in v]
        if all(x is not None for x in values):
            return values
    return None


def _invalid(got):
    return TypeError(f"ctc_loss() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f"{_OVERLOADS}")


def _parse(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity, got=None):
    """torch.ctc_loss's argument parser: its two overloads (lengths as sequences of ints, or
    as tensors), its TypeError otherwise (got: the arguments' types as it lists them; by
    default all seven, as F.ctc_loss passes them)."""
    ok = isinstance(log_probs, Tensor) and isinstance(targets, Tensor) and \
        _index(blank) is not None and _index(reduction) is not None and isinstance(zero_infinity, (bool, np.bool_))
    if ok and isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor):
        lengths = None
    elif ok and _int_list(input_lengths) is not None and _int_list(target_lengths) is not None:
        lengths = (_int_list(input_lengths), _int_list(target_lengths))
    else:
        args = (log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
        raise _invalid(", ".join(_type_name(a) for a in args) if got is None else got)
    return lengths, _index(blank), _index(reduction), bool(zero_infinity)


def _host_lengths(t, name):
    """A length tensor's values as int64 on the host (PyTorch: .to(kCPU, kLong))."""
    if t.dtype.np.kind not in "iu":
        raise RuntimeError(f"{name} must be integral")
    return np.ascontiguousarray(t.detach()._host_array(), dtype=np.int64).reshape(-1)


def _packed_targets(targets, n_batch, tl):
    """(the labels the loss reads, every sample's one after another, in targets' dtype (floats
    truncated, as PyTorch's targets.to(kLong)), where each sample's begin (int64))."""
    starts = np.zeros(n_batch, dtype=np.int64)
    if n_batch:
        np.cumsum(tl[:-1], out=starts[1:])
    host = targets.detach()._host_array()
    if targets.dim() == 1:
        values = host
    else:
        rows = np.repeat(np.arange(n_batch), tl)
        cols = np.arange(int(tl.sum())) - np.repeat(starts, tl)
        values = host[rows, cols]
    if values.dtype.kind == "f":
        values = np.trunc(values)          # (a float label truncates toward zero, as .long())
    return values, starts


def _check_labels(values, n_labels):
    with np.errstate(invalid="ignore"):
        bad = ~((values >= 0) & (values < n_labels))
    if bad.any():
        v = values[int(np.argmax(bad))]
        v = int(v) if values.dtype.kind != "f" or math.isfinite(v) else float(v)
        raise RuntimeError(f"Expected targets to have values at least 0 and less than {n_labels} (the number of "
                           f"classes), but got value {v} (while checking arguments for ctc_loss)")
    return np.array(values, dtype=np.int64)          # (a copy: never the targets' own memory)


class CtcLossBackward0(Node):
    """PyTorch's node of _ctc_loss over log_probs (T, N, C): the beta recursion of the
    backend; saves log_probs, the per-sample losses (its output) and int64 targets with
    their versions (the labels themselves are a host copy)."""

    def backward(self, g):
        lp, nll, _ = self.saved_tensors
        with no_grad():
            gbuf = _flat(cast(g.detach(), lp._dtype))
            nbuf = _flat(nll.detach())
        buf = backend_of(lp).ctc_loss_backward(gbuf, lp._view_tuple(), self.targets, self.starts, self.input_lengths,
                                               self.target_lengths, nbuf, self.log_alpha, self.blank,
                                               self.zero_infinity)
        grad = new_tensor(buf, lp._shape, lp._dtype, lp.device)
        if is_grad_enabled():
            inputs = tuple(t for t in (g, lp, nll) if needs_grad(t))
            if inputs:
                record(NotImplementedNode, inputs, (grad,), op_name="_ctc_loss_backward")
        return grad

    def release(self):
        super().release()
        self.log_alpha = None


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity, lengths):
    """at::ctc_loss with the arguments parsed (lengths: the two int lists, or None for tensors)."""
    if lengths is None:
        il = _host_lengths(input_lengths, "input_lengths")
        tl = _host_lengths(target_lengths, "target_lengths")
    else:
        il, tl = (np.array(v, dtype=np.int64).reshape(-1) for v in lengths)
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if lp._dtype is not D.float32 and lp._dtype is not D.float64:
        raise NotImplementedError(f'"ctc_loss_{lp.device.type}" not implemented for '
                                  f"'{D.scalar_type_name(lp._dtype)}'")
    if lp.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if lp.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for argument #1 "
                           f"'log_probs' {_WHILE}")
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for argument #2 "
                           f"'targets' {_WHILE}")
    t_max, n_batch, n_labels = lp.shape
    if not 0 <= blank < n_labels:
        raise RuntimeError("blank must be in label range")
    if il.size != n_batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.size != n_batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v} {_WHILE}")
    max_length = int(tl.max())
    if targets.dim() == 1:
        if targets.shape[0] != int(tl.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(tl.sum())} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets' {_WHILE}")
    else:
        if targets.shape[0] != n_batch:
            raise RuntimeError(f"Expected tensor to have size {n_batch} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets' {_WHILE}")
        if targets.shape[1] < max_length:
            raise RuntimeError(f"Expected tensor to have size at least {max_length} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets' {_WHILE}")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v} {_WHILE}")
        if v > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {v} {_WHILE}")
    values, starts = _packed_targets(targets, n_batch, tl)
    labels = _check_labels(values, n_labels)
    nll, log_alpha = backend_of(lp).ctc_loss_forward(lp._view_tuple(), labels, starts, il, tl, blank)
    res = new_tensor(nll, (n_batch,), lp._dtype, lp.device)
    if needs_grad(lp):
        node = record(CtcLossBackward0, (lp,), (res,), targets=labels, starts=starts, input_lengths=il,
                      target_lengths=tl, log_alpha=log_alpha, blank=blank, zero_infinity=zero_infinity)
        # (PyTorch saves targets.to(kLong), which is targets itself when it is int64 on lp's
        # device: an in-place change of those before backward raises)
        same = targets._dtype is D.int64 and targets.device == lp.device
        node.save(lp, res, targets if same else None, outputs=(res,))
    from .._creation import tensor, zeros
    from .elementwise import where
    if zero_infinity:
        res = where(res == math.inf, zeros((), dtype=res.dtype, device=res.device), res)
    if reduction == _MEAN:
        clamped = tensor(tl, dtype=res.dtype, device=res.device).clamp_min(1)
        return (res / clamped).mean()
    if reduction == _SUM:
        return res.sum()
    return res if batched else res.squeeze(0)


def _reduction_enum(reduction):
    """torch.nn._reduction.get_enum."""
    if reduction == "none":
        return _NONE
    if reduction == "mean":
        return _MEAN
    if reduction == "elementwise_mean":
        _warn_user("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                   stacklevel=3)
        return _MEAN
    if reduction == "sum":
        return _SUM
    raise ValueError(f"{reduction} is not a valid value for reduction")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """F.ctc_loss: the CTC loss of log-probabilities (T, N, C) or (T, C) against targets
    (N, S) padded or concatenated (sum(target_lengths),); reduction 'none', 'mean' (each
    loss over its target length clamped to 1, then the batch mean) or 'sum'."""
    enum = _reduction_enum(reduction)
    lengths, blank, enum, zero_infinity = _parse(log_probs, targets, input_lengths, target_lengths, blank, enum,
                                                 zero_infinity)
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, enum, zero_infinity, lengths)


_PARAMS = ("log_probs", "targets", "input_lengths", "target_lengths", "blank", "reduction", "zero_infinity")


def torch_ctc_loss(*args, **kwargs):
    """torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
    zero_infinity=False): reduction as ATen's enum (1 mean, 2 sum, anything else none).  Its
    default is 0, 'none': PyTorch's binding cannot read its declared default
    (at::Reduction::Mean) and takes 0."""
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    values = dict(zip(_PARAMS, args))
    if len(args) > len(_PARAMS) or any(k not in _PARAMS or k in values for k in kwargs):
        raise _invalid(got)
    values.update(kwargs)
    if any(p not in values for p in _PARAMS[:4]):
        raise _invalid(got)
    call = [values.get(p, d) for p, d in zip(_PARAMS, (None,) * 4 + (0, _NONE, False))]
    lengths, blank, reduction, zero_infinity = _parse(*call, got=got)
    return _ctc_loss(*call[:4], blank, reduction, zero_infinity, lengths)
