"""Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window,
kaiser_window): ATen's TensorFactories formulas step by step in the window's dtype (its
arange, then the in-place arithmetic ATen applies, each rounded in that dtype); the Kaiser
window through the i0 op (ATen's calc_i0, backends/_shared/special.py)."""
import math

from .. import _dtype as D
from ..autograd.grad_mode import no_grad

def _const(value, like):
    """A number as a 0-dim tensor of like's dtype (ATen's coefficients are T: rounded to it)."""
    from .._creation import tensor
    return tensor(value, dtype=like.dtype, device=like.device)


def _check(name, window_length, dtype):
    """(window_length as an int, the window's dtype), or PyTorch's error: window_length is an
    `int` parameter, which its parser takes as an integer or a 0-dim integer tensor."""
    from .._checks import as_symint
    window_length = as_symint(window_length, name, "window_length", 1, any_dim=False)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{D.cpp_type_name(dtype)}, device=cpu, layout=Strided (default), "
                           "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    return window_length, dtype


def _finish(window, periodic, requires_grad):
    out = window[:-1].contiguous() if periodic else window
    if requires_grad:
        out.requires_grad_(True)
    return out


def _trivial(n, dtype, device, requires_grad):
    from .._creation import empty, ones
    out = empty(0, dtype=dtype, device=device) if n == 0 else ones(1, dtype=dtype, device=device)
    return out.requires_grad_(True) if requires_grad else out


def _arange(n, dtype, device):
    from .._creation import arange
    return arange(n, dtype=dtype, device=device)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    window_length, dtype = _check("hamming_window", window_length, dtype)
    if window_length <= 1:
        return _trivial(window_length, dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    with no_grad():
        w = _arange(n, dtype, device)
        w = w * _const(math.pi * 2.0 / float(n - 1), w)
        w = w.cos() * _const(-beta, w) + _const(alpha, w)
    return _finish(w, periodic, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    window_length, _ = _check("hann_window", window_length, dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    window_length, dtype = _check("blackman_window", window_length, dtype)
    if window_length <= 1:
        return _trivial(window_length, dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    with no_grad():
        w = _arange(n, dtype, device) * _const(math.pi / float(n - 1), _arange(1, dtype, device))
        w = (w * _const(4.0, w)).cos() * _const(0.08, w) - (w * _const(2.0, w)).cos() * _const(0.5, w) \
            + _const(0.42, w)
    return _finish(w, periodic, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    window_length, dtype = _check("bartlett_window", window_length, dtype)
    if window_length <= 1:
        return _trivial(window_length, dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    with no_grad():
        w = _arange(n, dtype, device)
        w = w * _const(2.0 / float(n - 1), w)
        first = ((n - 1) >> 1) + 1
        from .indexing import cat
        w = cat([w[:first], w[first:] * _const(-1.0, w) + _const(2.0, w)])
    return _finish(w, periodic, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    window_length, dtype = _check("kaiser_window", window_length, dtype)
    if window_length <= 1:
        return _trivial(window_length, dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    op = D.float32 if dtype in (D.float16, getattr(D, "bfloat16", D.float16)) else dtype   # opmath
    with no_grad():
        a = _arange(n, op, device)
        alpha = _const((n - 1) / 2.0, a)
        b = _const(beta, a)
        r = (a - alpha) / alpha
        w = (b * (_const(1.0, a) - r * r).abs().sqrt()).i0() / b.reshape(1).i0()
        w = w.to(dtype)
    return _finish(w, periodic, requires_grad)
