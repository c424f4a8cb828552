"""Composed fallbacks of the fused loss kernels: the same functions as the backend
accelerations (same arguments, same results; the contract is in
nbgrad/backends/__init__.py), built from Tensor ops under no_grad.

They run wherever a backend does not declare the acceleration, or everywhere with
NBGRAD_FUSED=0 (nbgrad.ops._graph.acceleration picks).  As the kernels do, they
accumulate in float64 and return float64 per-row losses and Python-float sums, so the
values agree with the kernels' to float64 rounding; the gradients come back in x's
dtype.  float16 follows the float16 kernels' PyTorch Half rules (nbgrad/backends/_half.py)
where they round differently: NLL's Half sums, MSE's Half differences and squares.
Nothing here touches numpy or numba.
"""
import functools
import math

from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ._graph import copy_raw, new_tensor


def composed(name, device):
    """The fallback of the acceleration `name`, for buffers on `device`."""
    return functools.partial(_FALLBACKS[name], device)


def _tensor(buf, shape, device):
    """buf as a contiguous tensor of shape; a buffer of one element where more are wanted
    stands for every row alike (the contract's length-1 coefficients), as a broadcast view.
    A buffer shorter than that is refused: a view past its end would read other memory."""
    n = math.prod(shape)
    if len(buf) < n:
        if len(buf) != 1:
            raise RuntimeError(f"composed kernel: a buffer of {len(buf)} elements read as shape {tuple(shape)}")
        return new_tensor(buf, (1,) * len(shape), D.from_buffer_dtype(buf.dtype), device).expand(*shape)
    return new_tensor(buf, shape, D.from_buffer_dtype(buf.dtype), device)


def _buffer(t):
    """t's values as a contiguous buffer of exactly t.numel() elements from element 0."""
    buf = t._storage.buffer
    if t.is_contiguous() and t._offset == 0 and len(buf) == t.numel():
        return buf
    return copy_raw(t)._storage.buffer


def _double(buf, shape, device):
    return _tensor(buf, shape, device).to(D.float64)


def _targets(device, m, c, target, ignore_index):
    """(targets (m,), kept rows (m,) bool, targets with ignored rows at class 0); raises
    the kernels' IndexError for the first kept row whose target is outside [0, c)."""
    from .._creation import zeros_like
    from .reduction import argmax
    t = _tensor(target, (m,), device)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= c))
    if m and bool(bad.any()):
        row = int(argmax(bad.to(D.int64)).item())
        raise IndexError(f"Target {int(t[row].item())} is out of bounds.")
    from .elementwise import where
    safe = where(keep, t, zeros_like(t))
    return t, keep, safe


def _class_weights(device, weight, c):
    from .._creation import ones
    if weight is None:
        return ones((c,), dtype=D.float64, device=device)
    return _double(weight, (c,), device)


def _masked(values, keep):
    from .elementwise import where
    return where(keep, values, 0.0)


def _picked(matrix, index):
    """matrix[i, index[i]] for every row i (index (m,) int64, in range)."""
    return matrix.gather(1, index.unsqueeze(1)).squeeze(1)


def _log_sum_exp(x, m, c, device):
    """Each row's log-sum-exp as the kernel computes it: max subtracted, -inf rows kept."""
    from .._creation import full
    from .elementwise import where
    if c == 0:
        return full((m,), -math.inf, dtype=D.float64, device=device)
    mx = x.amax(1)
    shifted = (x - mx.unsqueeze(1)).exp().sum(1).log() + mx
    return where(mx > -math.inf, shifted, mx)


def cross_entropy_forward(device, x, m, c, target, weight, ignore_index, smoothing):
    with no_grad():
        _, keep, safe = _targets(device, m, c, target, ignore_index)
        X = _double(x, (m, c), device)
        lse = _log_sum_exp(X, m, c, device)
        if m == 0 or c == 0:            # no row is kept (_targets raised otherwise)
            from .._creation import zeros
            return _buffer(zeros((m,), dtype=D.float64, device=device)), _buffer(lse), (0.0, 0.0, 0.0)
        W = _class_weights(device, weight, c)
        wt = W.gather(0, safe)
        nll = _masked(wt * (lse - _picked(X, safe)), keep)
        if smoothing != 0.0:
            smooth = _masked(((lse.unsqueeze(1) - X) * W).sum(1), keep)
        else:
            smooth = nll * 0.0
        rows = _masked((1.0 - smoothing) * nll + smoothing / c * smooth, keep)
        sums = (float(nll.sum().item()), float(smooth.sum().item()), float(_masked(wt, keep).sum().item()))
        return _buffer(rows), _buffer(lse), sums


def cross_entropy_backward(device, x, m, c, lse, target, weight, ignore_index, smoothing, coef_nll, coef_smooth):
    from .._creation import arange
    dtype = D.from_buffer_dtype(x.dtype)
    with no_grad():
        X = _double(x, (m, c), device)
        if m == 0 or c == 0:
            return _buffer(X.to(dtype))
        _, keep, safe = _targets(device, m, c, target, ignore_index)
        W = _class_weights(device, weight, c)
        p = (X - _tensor(lse, (m,), device).unsqueeze(1)).exp()
        a = (_tensor(coef_nll, (m,), device) * W.gather(0, safe)).unsqueeze(1)
        b = _tensor(coef_smooth, (m,), device).unsqueeze(1)
        onehot = (arange(c, device=device).unsqueeze(0) == safe.unsqueeze(1)).to(D.float64)
        g = a * p + b * (p * W.sum() - W.unsqueeze(0)) - a * onehot
        g = _masked(g, keep.unsqueeze(1))
        return _buffer(g.to(dtype))


def nll_forward(device, x, m, c, target, weight, ignore_index):
    with no_grad():
        t, keep, safe = _targets(device, m, c, target, ignore_index)
        if m == 0 or c == 0:
            from .._creation import zeros
            return _buffer(zeros((m,), dtype=D.float64, device=device)), (0.0, 0.0)
        if _is_half(x):
            return _half_nll_forward(device, x, m, c, t, keep, safe, weight, ignore_index)
        X = _double(x, (m, c), device)
        wt = _class_weights(device, weight, c).gather(0, safe)
        rows = _masked(-wt * _picked(X, safe), keep)
        return _buffer(rows), (float(rows.sum().item()), float(_masked(wt, keep).sum().item()))


def _is_half(buf):
    """A float16 or bfloat16 buffer: its NLL totals are summed in the format (PyTorch's)."""
    return D.from_buffer_dtype(buf.dtype) in (D.float16, D.bfloat16)


def _half_nll_forward(device, x, m, c, t, keep, safe, weight, ignore_index):
    """The float16 kernel's results (nbgrad/backends/_half.py): each row's -x[t] * w[t]
    rounded to Half, and both totals summed in Half through PyTorch's cascade of partial
    sums (a sequential rule, so it runs over the values as Python numbers)."""
    from ..backends._half import _half_nll_sums
    picked = _picked(_tensor(x, (m, c), device), safe)
    rows = -picked if weight is None else -(picked * _tensor(weight, (c,), device).gather(0, safe))
    rows = _masked(rows, keep)
    rounding = ()           # (float16's: _half_nll_sums' default; bfloat16's rounds through float32)
    if D.from_buffer_dtype(x.dtype) is D.bfloat16:
        from ..backends._bfloat16 import value
        rounding = (value,)
    sums = _half_nll_sums(rows.tolist(), t.tolist(), None if weight is None else _tensor(weight, (c,), device).tolist(),
                          ignore_index, *rounding)
    return _buffer(rows.to(D.float64)), sums


def nll_backward(device, m, c, target, weight, ignore_index, coef, dtype):
    from .._creation import arange, zeros
    dt = D.from_buffer_dtype(dtype)
    with no_grad():
        if m == 0 or c == 0:
            return _buffer(zeros((m * c,), dtype=dt, device=device))
        _, keep, safe = _targets(device, m, c, target, ignore_index)
        W = _class_weights(device, weight, c)
        value = -W.gather(0, safe) * _tensor(coef, (m,), device)
        onehot = arange(c, device=device).unsqueeze(0) == safe.unsqueeze(1)
        g = _masked(_masked(value.unsqueeze(1), onehot), keep.unsqueeze(1))
        return _buffer(g.to(dt))


def mse_forward(device, x, y):
    n = x.size
    with no_grad():
        if _is_half(x):
            # PyTorch's Half kernel: d = x - y, then d * d, each rounded to Half (float16
            # Tensor ops round so); their sum in float32, as the float16 kernel's
            d = _tensor(x, (n,), device) - _tensor(y, (n,), device)
            rows = d * d
            return _buffer(rows.to(D.float64)), float(rows.to(D.float32).sum().item())
        d = _double(x, (n,), device) - _double(y, (n,), device)
        rows = d * d
        return _buffer(rows), float(rows.sum().item())


def _softplus_neg(x):
    """log(1 + exp(-x)), stable for large |x| (the kernel's max(-x, 0) + log1p(exp(-|x|)))."""
    return (-x).clamp(min=0.0) + (-x.abs()).exp().log1p()


def bce_logits_forward(device, x, y, w, pw):
    n = x.size
    with no_grad():
        X, Y, Wt = (_double(b, (n,), device) for b in (x, y, w))
        lw = 1.0 if pw is None else 1.0 + (_double(pw, (n,), device) - 1.0) * Y
        rows = ((1.0 - Y) * X + lw * _softplus_neg(X)) * Wt
        return _buffer(rows), float(rows.sum().item())


def bce_logits_backward(device, x, y, w, pw, coef):
    n = x.size
    dtype = D.from_buffer_dtype(x.dtype)
    with no_grad():
        X, Y, Wt = (_double(b, (n,), device) for b in (x, y, w))
        k = _tensor(coef, (coef.size,), device) * Wt
        sig_neg = 1.0 / (1.0 + X.exp())
        if pw is None:
            gx = ((1.0 - Y) - sig_neg) * k
            gy = -X * k
        else:
            p = _double(pw, (n,), device)
            gx = ((1.0 - Y) - (1.0 + (p - 1.0) * Y) * sig_neg) * k
            gy = (-X + (p - 1.0) * _softplus_neg(X)) * k
        return _buffer(gx.to(dtype)), _buffer(gy.to(dtype))


_FALLBACKS = {
    "cross_entropy_forward": cross_entropy_forward, "cross_entropy_backward": cross_entropy_backward,
    "nll_forward": nll_forward, "nll_backward": nll_backward,
    "mse_forward": mse_forward,
    "bce_logits_forward": bce_logits_forward, "bce_logits_backward": bce_logits_backward,
}
