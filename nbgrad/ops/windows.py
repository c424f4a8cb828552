"""Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window,
kaiser_window): ATen's TensorFactories formulas step by step in the window's dtype (its
arange, then the in-place arithmetic ATen applies, each rounded in that dtype), and Cephes'
i0 as ATen's calc_i0 (the same Chebyshev coefficients and recurrence) for the Kaiser window."""
import math

from .. import _dtype as D
from ..autograd.grad_mode import no_grad

# ATen's chebyshev_coefficients_i0e_A / _B (Cephes)
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)


def _const(value, like):
    """A number as a 0-dim tensor of like's dtype (ATen's coefficients are T: rounded to it)."""
    from .._creation import tensor
    return tensor(value, dtype=like.dtype, device=like.device)


def _chbevl(x, coeffs):
    from .elementwise import fma_raw
    b0 = _const(coeffs[0], x).expand(x.shape)
    b1 = x.new_zeros(x.shape)
    b2 = b1
    for c in coeffs[1:]:
        b2 = b1
        b1 = b0
        b0 = fma_raw(x, b1, -b2) + _const(c, x)      # (ATen's compiled loop contracts x * b1 - b2)
    return (b0 - b2) * _const(0.5, x)


def _calc_i0(x):
    """ATen's calc_i0 elementwise, in x's dtype."""
    from .elementwise import where
    x = x.abs()
    small = x <= 8.0
    ys = x / _const(2.0, x) - _const(2.0, x)
    a = x.exp() * _chbevl(ys, _I0_A)
    safe = where(small, _const(8.0, x), x)
    b = safe.exp() * _chbevl(_const(32.0, x) / safe - _const(2.0, x), _I0_B) / safe.sqrt()
    return where(small, a, b)


def _check(name, window_length, dtype):
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    if not dtype.is_floating_point:
        c_names = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool"}
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{c_names.get(dtype.name, dtype.name)}, device=cpu, layout=Strided (default), "
                           "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    return dtype


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
    dtype = _check("hamming_window", window_length, dtype)
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
    _check("hann_window", window_length, dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    dtype = _check("blackman_window", window_length, dtype)
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
    dtype = _check("bartlett_window", window_length, dtype)
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
    dtype = _check("kaiser_window", window_length, dtype)
    if window_length <= 1:
        return _trivial(window_length, dtype, device, requires_grad)
    n = window_length + 1 if periodic else window_length
    op = D.float32 if dtype in (D.float16, getattr(D, "bfloat16", D.float16)) else dtype   # opmath
    with no_grad():
        a = _arange(n, op, device)
        alpha = _const((n - 1) / 2.0, a)
        b = _const(beta, a)
        r = (a - alpha) / alpha
        w = _calc_i0(b * (_const(1.0, a) - r * r).abs().sqrt()) / _calc_i0(b.reshape(1))
        w = w.to(dtype)
    return _finish(w, periodic, requires_grad)
