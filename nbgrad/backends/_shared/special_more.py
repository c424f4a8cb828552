"""Scalar functions of torch.special's incomplete gamma functions, Bessel and Airy functions and
orthogonal polynomials, for both devices (gammainc/gammaincc, bessel_j0/j1/y0/y1,
modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1, spherical_bessel_j0, airy_ai,
chebyshev_polynomial_t/u/v/w and their shifted forms, hermite_polynomial_h/he,
laguerre_polynomial_l, legendre_polynomial_p).

They follow PyTorch's algorithms (aten/src/ATen/native/Math.h: SciPy's and Cephes' igam/igamc
with Boost's Lanczos sum and the uniform asymptotic series for large a, Cephes' Bessel and Airy
rational approximations and Chebyshev series, the polynomials' recurrences and PyTorch's trig
forms for large orders), with PyTorch's special cases, written afresh as plain Python that Numba
compiles for the CPU and as CUDA device functions, and that the CUDA simulator runs as it is:
no branch raises in plain Python (the guarded _exp, _log, _sqrt, _cos, _sin, _lgamma below
answer the values where Python's `math` would raise as C's functions do).

ONE BODY, TWO PRECISIONS.  PyTorch's kernels are templates over the element type: its float
versions compute in float (float coefficient tables, expf, lgammaf, float loops) except where
the C++ promotes to double (a double literal in an expression: `0.5 * erfc(...)`, `log(0.5 * x)`).
Each function here is written once in the type `T` (a name of this module): `T(c)` is a
constant of the element type (C++'s `T(c)` and `static scalar_t` constants), a bare literal is a
double (Numba types it float64, and float32 op float64 is float64, as C++'s promotion), and a
C++ assignment that narrows to T is written `T(...)`; integers meet T only as `T(k)`, as C++
converts them.  `_generic` compiles the same function twice: once over this module's globals
(T = float64, double tables), once, as `<name>_f32`, over a copy of them in which T is float32,
the coefficient tables are float tuples, the constants of `_PER_TWIN` take their float values
(PyTorch's `is_same<scalar_t, double> ? .. : ..`) and every generic function called is its float
twin.  The CPU's scalar functions pick the float32 twin for float32 elements at compile time
(backends/cpu/elementwise.py); CUDA computes float32 through the float64 functions.

FUSED MULTIPLY-ADDS.  GCC contracts `a * b + c` in PyTorch's AVX2 kernels: the Horner and
Chebyshev steps, the recurrences, the asymptotic forms' `P cos - Q sin`; each is an fma() here,
placed where torch 2.13's bits say it is (everything here then equals its CPU results in both
precisions, measured).  The igamma PyTorch's library runs fuses none (neither in the igammac
it calls), its igammac does: their shared helpers take `fused`.
"""
import math
import types

import numpy as np

from numba.extending import register_jitable

from .fast_math import fma
# Cephes' i0e/i1e Chebyshev tables, which the modified Bessel functions below read too (the
# float twins take float32 copies of them, as of every table here)
from .special import _I0E_A as _I0_A, _I0E_B as _I0_B, _I1E_A as _I1_A, _I1E_B as _I1_B

_helper = register_jitable(error_model="numpy")

T = np.float64          # the element type of the bodies below (np.float32 in their twins)
_D = np.float64         # C++'s double, in both twins
_INF = math.inf
_NAN = math.nan
_PI = 3.141592653589793
_PI_F = 3.1415927410125732          # c10::pi<float>, which the asymptotic series uses in both

# constants of each precision: (double's, float's)
_PER_TWIN = {
    "_EPS": (2.220446049250313e-16, 1.1920928955078125e-07),          # numeric_limits<T>::epsilon()
    "_IG_MACHEP": (1.11022302462515654042e-16, 5.9604644775390625e-8),
    "_IG_MAXLOG": (7.09782712893383996843e2, 88.72283905206835),
    "_IG_BIG": (4.503599627370496e15, 16777216.0),
    "_IG_BIGINV": (2.22044604925031308085e-16, 5.9604644775390625e-8),
    "_LGAMMA_BIG": (2.5599833278516383e+305, _INF),     # (beyond: lgamma overflows to inf)
}
_HERMITE_LIMIT = 512, 128           # PyTorch's getHermitianLimit<T>(): NaN above this order
_EPS, _IG_MACHEP, _IG_MAXLOG, _IG_BIG, _IG_BIGINV, _LGAMMA_BIG = (
    _PER_TWIN[name][0] for name in ("_EPS", "_IG_MACHEP", "_IG_MAXLOG", "_IG_BIG", "_IG_BIGINV", "_LGAMMA_BIG"))
_HERMITE_MAX = _HERMITE_LIMIT[0]

_GENERIC = []


def _generic(fn):
    """fn, compiled as it is (float64) and as its float32 twin (made at the end of the module)."""
    _GENERIC.append(fn)
    return _helper(fn)


# --------------------------------------------------------------------------- #
# C's math functions where Python's raise: inf, NaN and the poles answered first.  Each keeps
# its argument's type (a double argument in the float twin stays double, as in C++).

@_generic
def _exp(x):
    if x > 709.782712893384:      # (the largest double whose exp is finite)
        return x * T(_INF)
    return math.exp(x)


@_generic
def _log(x):
    if x > 0:
        return math.log(x)
    if x == 0:
        return T(-_INF) + x
    return x * T(_NAN)


@_generic
def _sqrt(x):
    if x >= 0:
        return math.sqrt(x)
    return x * T(_NAN)


@_generic
def _cos(x):
    if x - x == 0:              # finite
        return math.cos(x)
    return x - x


@_generic
def _sin(x):
    if x - x == 0:
        return math.sin(x)
    return x - x


@_generic
def _lgamma(x):
    """log|gamma(x)| of x > 0 (or NaN)."""
    if x > _LGAMMA_BIG:
        return x * T(_INF)
    return math.lgamma(x)


@_generic
def _order(n):
    """static_cast<int64_t>(n) on x86: NaN, +-inf and values beyond int64 give INT64_MIN (here
    -1: every function answers a negative order alike)."""
    if not abs(n) < 9.223372036854775807e18:
        return -1
    return int(n)


# --------------------------------------------------------------------------- #
# The regularized incomplete gamma functions (SciPy's gammainc / gammaincc as PyTorch's
# calc_igamma / calc_igammac)

_LANCZOS_NUM = (
    0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859)
_LANCZOS_DENOM = (1.0, 66.0, 1925.0, 32670.0, 357423.0, 2637558.0, 13339535.0, 45995730.0, 105258076.0,
                  150917976.0, 120543840.0, 39916800.0, 0.0)
_LANCZOS_G = 6.024680040776729583740234375
_EXP1 = 2.718281828459045
_T_SCALARS = {"_LANCZOS_G": _LANCZOS_G, "_EXP1": _EXP1}         # (static scalar_t: float in the float twin)


@_generic
def _mul_add(fused, a, b, c):
    """a * b + c, rounded once where PyTorch's compiled code fuses them (fused)."""
    if fused:
        return fma(a, b, c)
    return a * b + c


@_generic
def _lanczos_sum_expg_scaled(x, fused):
    """Boost's Lanczos sum (SciPy's ratevl of its two tables, both of degree 12)."""
    if abs(x) > 1:
        y = T(1) / x
        num = _LANCZOS_NUM[12]
        den = _LANCZOS_DENOM[12]
        for i in range(11, -1, -1):
            num = _mul_add(fused, num, y, _LANCZOS_NUM[i])
            den = _mul_add(fused, den, y, _LANCZOS_DENOM[i])
        return T(1.0 * num / den)             # (pow(x, N - M) * num / den: pow(T, int64) is double)
    num = _LANCZOS_NUM[0]
    den = _LANCZOS_DENOM[0]
    for i in range(1, 13):
        num = _mul_add(fused, num, x, _LANCZOS_NUM[i])
        den = _mul_add(fused, den, x, _LANCZOS_DENOM[i])
    return num / den


@_generic
def _igam_fac(a, x, fused):
    """x^a exp(-x) / gamma(a)."""
    if abs(a - x) > 0.4 * abs(a):
        ax = _mul_add(fused, a, _log(x), -x) - _lgamma(a)
        if ax < -_IG_MAXLOG:
            return T(0)
        return _exp(ax)
    fac = T(a + _LANCZOS_G - 0.5)
    res = _sqrt(fac / _EXP1) / _lanczos_sum_expg_scaled(a, fused)
    if a < 200 and x < 200:
        res *= _exp(a - x) * math.pow(x / fac, a)
    else:
        num = T(x - a - _LANCZOS_G + 0.5)
        numfac = num / fac
        # (in float, a * (...) is float and the sum double: nothing to fuse)
        res = T(res * _exp(_mul_add(fused, a, math.log1p(numfac) - numfac, x * (0.5 - _LANCZOS_G) / fac)))
    return res


@_generic
def _igam_series(a, x, fused):
    """igam by DLMF 8.11.4."""
    ax = _igam_fac(a, x, fused)
    if ax == 0:
        return T(0)
    r = a
    c = T(1)
    ans = T(1)
    for _ in range(2000):
        r += T(1)
        c *= x / r
        ans += c
        if c <= _IG_MACHEP * ans:
            break
    return ans * ax / a


@_generic
def _igamc_series(a, x, fused):
    """igamc by DLMF 8.7.3."""
    fac = T(1)
    total = T(0)
    for n in range(1, 2000):
        fac *= -x / T(n)
        term = fac / (a + T(n))
        total += term
        if abs(term) <= _IG_MACHEP * abs(total):
            break
    logx = _log(x)
    term = -math.expm1(_mul_add(fused, a, logx, -_lgamma(T(1) + a)))
    return _mul_add(fused, -_exp(_mul_add(fused, a, logx, -_lgamma(a))), total, term)


@_generic
def _igam_asymptotic(a, x, igam):
    """igam (igam true) or igamc by the uniform asymptotic expansion, DLMF 8.12.3 / 8.12.4."""
    lam = x / a
    sigma = (x - a) / a
    sgn = -1 if igam else 1
    if lam > 1:
        eta = _sqrt(T(-2) * (math.log1p(sigma) - sigma))
    elif lam < 1:
        eta = -_sqrt(T(-2) * (math.log1p(sigma) - sigma))
    else:
        eta = T(0)
    res = T(0.5 * math.erfc(T(sgn) * eta * _sqrt(a / T(2))))
    total = T(0)
    afac = T(1)
    absoldterm = T(_INF)
    for k in range(25):
        ck = _IG_D[k, 0]
        etapow = T(1)               # eta ** n as the products PyTorch's table of powers holds
        for n in range(1, 25):
            etapow = eta * etapow
            ckterm = _IG_D[k, n] * etapow
            ck += ckterm
            if abs(ckterm) < _IG_MACHEP * abs(ck):
                break
        term = ck * afac
        absterm = abs(term)
        if absterm > absoldterm:
            break
        total += term
        if absterm < _IG_MACHEP * abs(total):
            break
        absoldterm = absterm
        afac /= a
    return T(res + sgn * _exp(-0.5 * a * eta * eta) * total / _sqrt(T(2 * _PI_F) * a))


@_generic
def _igamc_continued_fraction(a, x, fused):
    """igamc by DLMF 8.9.2."""
    ax = _igam_fac(a, x, fused)
    if ax == 0:
        return T(0)
    y = T(1) - a
    z = x + y + T(1)
    c = T(0)
    pkm2 = T(1)
    qkm2 = x
    pkm1 = x + T(1)
    qkm1 = z * x
    ans = pkm1 / qkm1
    for _ in range(2000):
        c += T(1)
        y += T(1)
        z += T(2)
        yc = y * c
        pk = _mul_add(fused, pkm1, z, -(pkm2 * yc))
        qk = _mul_add(fused, qkm1, z, -(qkm2 * yc))
        if qk != 0:
            r = pk / qk
            t = abs((ans - r) / r)
            ans = r
        else:
            t = T(1)
        pkm2 = pkm1
        pkm1 = pk
        qkm2 = qkm1
        qkm1 = qk
        if abs(pk) > _IG_BIG:
            pkm2 *= _IG_BIGINV
            pkm1 *= _IG_BIGINV
            qkm2 *= _IG_BIGINV
            qkm1 *= _IG_BIGINV
        if t <= _IG_MACHEP:
            break
    return ans * ax


@_generic
def _igammac(a, x, fused):
    if x < 0 or a < 0:
        return T(_NAN)
    if a == 0:
        if x > 0:
            return T(0)
        return T(_NAN)
    if x == 0:
        return T(1)
    if abs(a) == _INF:
        if abs(x) == _INF:
            return T(_NAN)
        return T(1)
    if abs(x) == _INF:
        return T(0)
    absxma_a = abs(x - a) / a
    if a > 20 and a < 200 and absxma_a < T(0.3):
        return _igam_asymptotic(a, x, False)
    if a > 200 and absxma_a < T(4.5) / _sqrt(a):
        return _igam_asymptotic(a, x, False)
    if x > 1.1:
        if x < a:
            return T(1.0 - _igam_series(a, x, fused))
        return _igamc_continued_fraction(a, x, fused)
    if x <= 0.5:
        if -0.4 / _log(x) < a:
            return T(1.0 - _igam_series(a, x, fused))
        return _igamc_series(a, x, fused)
    if x * 1.1 < a:
        return T(1.0 - _igam_series(a, x, fused))
    return _igamc_series(a, x, fused)


@_generic
def igammac_of(a, x):
    """The regularized upper incomplete gamma function Q(a, x) (PyTorch's calc_igammac): NaN for
    a negative argument and for a = x = 0, 0 at a = 0 < x, 1 at x = 0 < a and at a = inf > x.
    Its multiply-adds are fused, as PyTorch's AVX2 build of it compiles them."""
    return _igammac(a, x, True)


@_generic
def igamma_of(a, x):
    """The regularized lower incomplete gamma function P(a, x) (PyTorch's calc_igamma).  The copy
    of it PyTorch's library runs fuses no multiply-add (neither in the igammac it calls)."""
    if x < 0 or a < 0:
        return T(_NAN)
    if a == 0:
        if x > 0:
            return T(1)
        return T(_NAN)
    if x == 0:
        return T(0)
    if abs(a) == _INF:
        if abs(x) == _INF:
            return T(_NAN)
        return T(0)
    if abs(x) == _INF:
        return T(1)
    absxma_a = abs(x - a) / a
    if a > 20 and a < 200 and absxma_a < T(0.3):
        return _igam_asymptotic(a, x, True)
    if a > 200 and absxma_a < T(4.5) / _sqrt(a):
        return _igam_asymptotic(a, x, True)
    if x > 1.0 and x > a:
        return T(1.0 - _igammac(a, x, False))
    return _igam_series(a, x, False)


# --------------------------------------------------------------------------- #
# Bessel functions of the first and second kind (Cephes' j0, j1, y0, y1)

_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
          5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
          9.99999999999999997821e-01)
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
          5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
          1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
          -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
          -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
          7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
          2.42005740240291393179e+02)
_J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
          9.70862251047306323952e+15)
_J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
          1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
          3.18121955943204943306e+16, 1.71086294081043136091e+18)
_Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
          -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
          4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
          8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
          2.50596256172653059228e+17)
_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
          5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
          1.00000000000000000254e+00)
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
          5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
          9.99999999999999997461e-01)
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
          3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
          2.11688757100572135698e+02, 2.52070205858023719784e+01)
_J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
          9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
          3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
          3.68295732863852883286e+15)
_J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
          2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
          8.95222336184627338078e+16, 5.32278620332680085395e+18)
_Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
          -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
          1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
          6.87141087355300489866e+16, 3.97270608116560655612e+18)


@_generic
def _poly(x, coefficients):
    """Horner's scheme from 0 (PyTorch's `p = p * x + C[i]` loops), highest power first."""
    p = T(0)
    for i in range(len(coefficients)):
        p = fma(p, x, coefficients[i])
    return p


@_generic
def _bessel_asymptotic(x, w, pp, pq, qp, qq, phase, second):
    """Cephes' large-x form: (P cos(x - phase) -+ (5 / x) Q sin(x - phase)) sqrt(2 / (pi x)),
    P and Q rational in w (25 / x^2); `second`: the second kind's sin/cos exchange."""
    p = _poly(w, pp) / _poly(w, pq)
    q = _poly(w, qp) / _poly(w, qq)
    if second:
        s = fma(p, _sin(x - phase), T(5) / x * q * _cos(x - phase))
    else:
        s = fma(p, _cos(x - phase), -(T(5) / x * q * _sin(x - phase)))
    return s * T(0.797884560802865355879892119868763737) / _sqrt(x)


@_generic
def bessel_j0_of(x):
    """The Bessel function of the first kind of order 0 (Cephes' j0, as PyTorch's)."""
    if x < 0:
        x = -x
    if x <= T(5):
        if x < T(0.00001):
            return T(1) - x * x / T(4)
        xx = x * x
        return (xx - T(5.78318596294678452118e+00)) * (xx - T(3.04712623436620863991e+01)) * \
            _poly(xx, _J0_RP) / _poly(xx, _J0_RQ)
    return _bessel_asymptotic(x, T(25) / (x * x), _J0_PP, _J0_PQ, _J0_QP, _J0_QQ,
                              T(0.785398163397448309615660845819875721), False)


@_generic
def bessel_j1_of(x):
    """The Bessel function of the first kind of order 1 (Cephes' j1): odd."""
    v = -x if x < 0 else x
    if v <= T(5):
        xx = v * v
        out = _poly(xx, _J1_RP) / _poly(xx, _J1_RQ) * v * (xx - T(1.46819706421238932572e+01)) * \
            (xx - T(4.92184563216946036703e+01))
    else:
        out = _bessel_asymptotic(v, T(5) / v * (T(5) / v), _J1_PP, _J1_PQ, _J1_QP, _J1_QQ,
                                 T(2.356194490192344928846982537459627163), False)
    return -out if x < 0 else out


@_generic
def bessel_y0_of(x):
    """The Bessel function of the second kind of order 0 (Cephes' y0): -inf at 0, NaN below."""
    if x <= T(5):
        if x == 0:
            return T(-_INF)
        if x < 0:
            return T(_NAN)
        xx = x * x
        return fma(T(0.636619772367581343075535053490057448) * _log(x), bessel_j0_of(x),
                   _poly(xx, _Y0_YP) / _poly(xx, _Y0_YQ))
    return _bessel_asymptotic(x, T(25) / (x * x), _J0_PP, _J0_PQ, _J0_QP, _J0_QQ,
                              T(0.785398163397448309615660845819875721), True)


@_generic
def bessel_y1_of(x):
    """The Bessel function of the second kind of order 1 (Cephes' y1): -inf at 0, NaN below."""
    if x <= T(5):
        if x == 0:
            return T(-_INF)
        if x <= 0:
            return T(_NAN)
        xx = x * x
        return fma(x, _poly(xx, _Y1_YP) / _poly(xx, _Y1_YQ),
                   T(0.636619772367581343075535053490057448) * fma(bessel_j1_of(x), _log(x), -(T(1) / x)))
    return _bessel_asymptotic(x, T(5) / x * (T(5) / x), _J1_PP, _J1_PQ, _J1_QP, _J1_QQ,
                              T(2.356194490192344928846982537459627163), True)


# --------------------------------------------------------------------------- #
# Modified Bessel functions (Cephes' Chebyshev series, PyTorch's loops written out)

# (i0's and i1's Chebyshev coefficients, _I0_A.._I1_B: Cephes' i0e/i1e tables, from special.py)
_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
         1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
         1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
         -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
         -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
         6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
         -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
         1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
         -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
         2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
         -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
         2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
         -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
         -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
         -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
         1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
         -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
         3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
         -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
         2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
         -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
         1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
         2.72062619048444266945e+00)


@_generic
def _chebyshev_half(y, coefficients):
    """0.5 * (b0 - b2) of the Chebyshev recurrence b0 = y b1 - b2 + c (Cephes' chbevl, as
    PyTorch writes it out in its modified Bessel functions)."""
    p = T(0)
    q = T(0)
    a = coefficients[0]
    for i in range(1, len(coefficients)):
        p = q
        q = a
        a = fma(y, q, -p) + coefficients[i]
    return T(0.5) * (a - p)


@_generic
def modified_bessel_i0_of(x):
    """The modified Bessel function of the first kind of order 0."""
    ax = abs(x)
    if ax <= T(8):
        return _exp(ax) * _chebyshev_half(ax / T(2) - T(2), _I0_A)
    return _exp(ax) * _chebyshev_half(T(32) / ax - T(2), _I0_B) / _sqrt(ax)


@_generic
def modified_bessel_i1_of(x):
    """The modified Bessel function of the first kind of order 1: odd."""
    ax = abs(x)
    if ax <= T(8):
        out = _chebyshev_half(ax / T(2) - T(2), _I1_A) * ax * _exp(ax)
    else:
        out = _exp(ax) * _chebyshev_half(T(32) / ax - T(2), _I1_B) / _sqrt(ax)
    return -out if x < 0 else out


@_generic
def modified_bessel_k0_of(x):
    """The modified Bessel function of the second kind of order 0: inf at 0, NaN below."""
    if x == 0:
        return T(_INF)
    if x < 0:
        return T(_NAN)
    if x <= T(2):
        # (PyTorch's log(0.5 * x) takes a double literal: computed in double, then rounded)
        return T(fma(-_log(0.5 * x), _D(modified_bessel_i0_of(x)), _D(_chebyshev_half(fma(x, x, T(-2)), _K0_A))))
    return _exp(-x) * _chebyshev_half(T(8) / x - T(2), _K0_B) / _sqrt(x)


@_generic
def modified_bessel_k1_of(x):
    """The modified Bessel function of the second kind of order 1: inf at 0, NaN below."""
    if x == 0:
        return T(_INF)
    if x < 0:
        return T(_NAN)
    if x <= T(2):
        return fma(_log(T(0.5) * x), modified_bessel_i1_of(x), _chebyshev_half(fma(x, x, T(-2)), _K1_A) / x)
    return _exp(-x) * _chebyshev_half(T(8) / x - T(2), _K1_B) / _sqrt(x)


@_generic
def scaled_modified_bessel_k0_of(x):
    """exp(x) K0(x): inf at 0, NaN below."""
    if x == 0:
        return T(_INF)
    if x < 0:
        return T(_NAN)
    if x <= T(2):
        return fma(-_log(T(0.5) * x), modified_bessel_i0_of(x), _chebyshev_half(fma(x, x, T(-2)), _K0_A)) * _exp(x)
    return _chebyshev_half(T(8) / x - T(2), _K0_B) / _sqrt(x)


@_generic
def scaled_modified_bessel_k1_of(x):
    """exp(x) K1(x): inf at 0, NaN below."""
    if x == 0:
        return T(_INF)
    if x < 0:
        return T(_NAN)
    if x <= T(2):
        return fma(_log(T(0.5) * x), modified_bessel_i1_of(x), _chebyshev_half(fma(x, x, T(-2)), _K1_A) / x) * _exp(x)
    return _chebyshev_half(T(8) / x - T(2), _K1_B) / _sqrt(x)


@_generic
def spherical_bessel_j0_of(x):
    """sin(x) / x (its Taylor series below 0.5), 0 at +-inf."""
    if abs(x) == _INF:
        return T(0)
    if abs(x) < T(0.5):
        xx = x * x
        s = fma(xx, T(1) / T(6227020800), T(-1) / T(39916800))
        s = fma(xx, s, T(1) / T(362880))
        s = fma(xx, s, T(-1) / T(5040))
        s = fma(xx, s, T(1) / T(120))
        s = fma(xx, s, T(-1) / T(6))
        return fma(xx, s, T(1))
    return _sin(x) / x


# --------------------------------------------------------------------------- #
# The Airy function Ai (Cephes' airy)

_AI_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
          1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
          1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AI_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
          1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
          1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AI_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
           -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
           -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AI_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
           9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
           4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
_AI_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
           9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
           5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
           8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AI_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
           5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
           4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
           4.91834570062930015649e-09)


@_generic
def airy_ai_of(x):
    """The Airy function Ai(x): NaN at +-inf, 0 above 103.892."""
    if abs(x) == _INF:
        return T(_NAN)
    if x > T(103.892):
        return T(0)
    if x < T(-2.09):
        z = T(1) / (T(-2) * x * _sqrt(-x) / T(3))
        zz = z * z
        afn = _poly(zz, _AI_AFN)
        afd = _poly(zz, _AI_AFD)
        agn = _poly(zz, _AI_AGN)
        agd = _poly(zz, _AI_AGD)
        t = T(-2) * x * _sqrt(-x) / T(3) + T(0.25) * T(_PI)
        return T(5.64189583547756286948e-01) / _sqrt(_sqrt(-x)) * \
            fma(_sin(t), T(1) + z * z * afn / afd, -(_cos(t) * (z * agn / agd)))
    big = x >= T(2.09)
    ai = T(0)
    if big:
        zeta = T(2) * x * _sqrt(x) / T(3)
        an = _poly(T(1) / zeta, _AI_AN)
        ad = _poly(T(1) / zeta, _AI_AD)
        ai = T(5.64189583547756286948e-01) * (an / ad) / (T(2) * _sqrt(_sqrt(x)) * _exp(zeta))
        if x > T(8.3203353):
            return ai
    f = T(1)
    g = x
    k = T(1)
    m = T(1)
    n = x
    t = T(1)
    z = x * x * x
    while t > _EPS:
        m *= z
        k += T(1)
        m /= k
        n *= z
        k += T(1)
        n /= k
        m /= k
        f += m
        k += T(1)
        n /= k
        g += n
        t = abs(m / f)
    if big:
        return ai
    return fma(T(0.355028053887817239260), f, -(T(0.258819403792806798405) * g))


# --------------------------------------------------------------------------- #
# Orthogonal polynomials of order n (a float, truncated to an integer as PyTorch's
# static_cast<int64_t>): PyTorch's special cases, recurrences and trig forms.  A NaN x
# passes its recurrence's first test and returns NaN (PyTorch's loop does not run and
# returns an uninitialized value).

@_generic
def _recurrence(x, q, n):
    """r = 2x q - p from (p, q) = (1, q) up to order n (n >= 2), stopping at a NaN."""
    p = T(1)
    r = q
    k = 2
    while k <= n and q == q:
        r = fma(x + x, q, -p)
        p = q
        q = r
        k += 1
    return r


@_generic
def chebyshev_polynomial_t_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if abs(x) == T(1):
        if x > 0 or n % 2 == 0:
            return T(1)
        return T(-1)
    if n > 6 and abs(x) < T(1):
        return _cos(T(n) * math.acos(x))
    if n == 0:
        return T(1)
    if n == 1:
        return x
    return _recurrence(x, x, n)


@_generic
def chebyshev_polynomial_u_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if abs(x) == T(1):
        if x > 0 or n % 2 == 0:
            return T(n + 1)
        return T(-(n + 1))
    if n > 8 and abs(x) < T(1):
        s = math.sin(math.acos(x))
        if s != 0:
            return _sin(T(n + 1) * math.acos(x)) / s
        return T(n + 1) * _cos(T(n + 1) * math.acos(x)) / x
    if n == 0:
        return T(1)
    if n == 1:
        return x + x
    return _recurrence(x, x + x, n)


@_generic
def chebyshev_polynomial_v_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if abs(x) == T(1):
        if x > 0:
            return T(1)
        if n % 2 == 0:
            return T(n + n + 1)
        return T(-(n + n + 1))
    if n > 8 and abs(x) < T(1):
        if math.sin(math.acos(x) / T(2)) != T(1):
            return _cos((T(n) + T(0.5)) * math.acos(x)) / math.cos(math.acos(x) / T(2))
        if n % 2 == 0:
            return T(n + n + 1)
        return T(-(n + n + 1))
    if n == 0:
        return T(1)
    if n == 1:
        return x + x - T(1)
    return _recurrence(x, x + x - T(1), n)


@_generic
def chebyshev_polynomial_w_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if abs(x) == T(1):
        if x > 0:
            return T(n + n + 1)
        if n % 2 == 0:
            return T(1)
        return T(-1)
    if n > 8 and abs(x) < T(1):
        if math.cos(math.acos(x) / T(2)) != T(1):
            return _sin((T(n) + T(0.5)) * math.acos(x)) / math.sin(math.acos(x) / T(2))
        if x > 0:
            return T(n + n + 1)
        if n % 2 == 0:
            return T(1)
        return T(-1)
    if n == 0:
        return T(1)
    if n == 1:
        return x + x + T(1)
    return _recurrence(x, x + x + T(1), n)


@_generic
def _shifted_recurrence(x, q, n):
    """The shifted polynomials' recurrence, with PyTorch's (2x - 1) + (2x - 1) for 2y."""
    p = T(1)
    r = q
    k = 2
    while k <= n and q == q:
        r = fma(x + x - T(1) + (x + x - T(1)), q, -p)
        p = q
        q = r
        k += 1
    return r


@_generic
def shifted_chebyshev_polynomial_t_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if x == T(1):
        return T(1)
    if x == 0:
        if n % 2 == 0:
            return T(1)
        return T(-1)
    y = x + x - T(1)
    if n > 6 and abs(y) < T(1):
        return _cos(T(n) * math.acos(y))
    if n == 0:
        return T(1)
    if n == 1:
        return y
    return _shifted_recurrence(x, y, n)


@_generic
def shifted_chebyshev_polynomial_u_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if x == T(1):
        return T(n + 1)
    if x == 0:
        if n % 2 == 0:
            return T(n + 1)
        return T(-(n + 1))
    y = x + x - T(1)
    if n > 6 and abs(y) < T(1):
        s = math.sin(math.acos(y))
        if s != 0:
            return _sin(T(n + 1) * math.acos(y)) / s
        return T(n + 1) * _cos(T(n + 1) * math.acos(y)) / y
    if n == 0:
        return T(1)
    if n == 1:
        return y + y
    return _shifted_recurrence(x, y + y, n)


@_generic
def shifted_chebyshev_polynomial_v_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if x == T(1):
        return T(1)
    if x == 0:
        if n % 2 == 0:
            return T(n + n + 1)
        return T(-(n + n + 1))
    y = x + x - T(1)
    if n > 6 and abs(y) < T(1):
        if math.sin(math.acos(y) / T(2)) != T(1):
            return _cos((T(n) + T(0.5)) * math.acos(y)) / math.cos(math.acos(y) / T(2))
        if n % 2 == 0:
            return T(n + n + 1)
        return T(-(n + n + 1))
    if n == 0:
        return T(1)
    if n == 1:
        return y + y - T(1)
    return _shifted_recurrence(x, y + y - T(1), n)


@_generic
def shifted_chebyshev_polynomial_w_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if x == T(1):
        return T(n + n + 1)
    if x == 0:
        if n % 2 == 0:
            return T(1)
        return T(-1)
    y = x + x - T(1)
    if n > 4 and abs(y) < T(1):
        if math.cos(math.acos(y) / T(2)) != T(1):
            return _sin((T(n) + T(0.5)) * math.acos(y)) / math.sin(math.acos(y) / T(2))
        if n % 2 == 0:
            return T(1)
        return T(-1)
    if n == 0:
        return T(1)
    if n == 1:
        return y + y + T(1)
    return _shifted_recurrence(x, y + y + T(1), n)


@_generic
def hermite_polynomial_h_of(x, n):
    """The physicists' Hermite polynomial: NaN above order 512 (float: 128), as PyTorch's."""
    n = _order(n)
    if n < 0:
        return T(0)
    if n == 0:
        return T(1)
    if n == 1:
        return x + x
    if n > _HERMITE_MAX:
        return T(_NAN)
    p = T(1)
    q = x + x
    r = T(0)
    for k in range(2, n + n, 2):
        r = fma(x + x, q, -(T(k) * p))
        p = q
        q = r
    return r


@_generic
def hermite_polynomial_he_of(x, n):
    """The probabilists' Hermite polynomial: NaN above order 512 (float: 128)."""
    n = _order(n)
    if n < 0:
        return T(0)
    if n == 0:
        return T(1)
    if n == 1:
        return x
    if n > _HERMITE_MAX:
        return T(_NAN)
    p = T(1)
    q = x
    r = T(0)
    for k in range(1, n):
        r = fma(x, q, -(T(k) * p))
        p = q
        q = r
    return r


@_generic
def laguerre_polynomial_l_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if abs(x) == 0:
        return T(1)
    if n == 0:
        return T(1)
    if n == 1:
        return T(1) - x
    p = T(1)
    q = T(1) - x
    r = q
    k = 1
    while k < n and q == q:
        r = fma(T(k + k) + (T(1) - x), q, -(T(k) * p)) / T(k + 1)
        p = q
        q = r
        k += 1
    return r


@_generic
def legendre_polynomial_p_of(x, n):
    n = _order(n)
    if n < 0:
        return T(0)
    if abs(x) == T(1):
        if x > 0 or n % 2 == 0:
            return T(1)
        return T(-1)
    if n == 0:
        return T(1)
    if n == 1:
        return x
    p = T(1)
    q = x
    r = q
    k = 1
    while k < n and q == q:
        r = fma(T(k + k + 1) * x, q, -(T(k) * p)) / T(k + 1)
        p = q
        q = r
        k += 1
    return r


# --------------------------------------------------------------------------- #
# The coefficients of the uniform asymptotic expansion of igam/igamc (DLMF 8.12; SciPy's d)
_IG_D = np.array([
    [-3.3333333333333333e-1, 8.3333333333333333e-2, -1.4814814814814815e-2, 1.1574074074074074e-3,
     3.527336860670194e-4, -1.7875514403292181e-4, 3.9192631785224378e-5, -2.1854485106799922e-6,
     -1.85406221071516e-6, 8.296711340953086e-7, -1.7665952736826079e-7, 6.7078535434014986e-9,
     1.0261809784240308e-8, -4.3820360184533532e-9, 9.1476995822367902e-10, -2.551419399494625e-11,
     -5.8307721325504251e-11, 2.4361948020667416e-11, -5.0276692801141756e-12, 1.1004392031956135e-13,
     3.3717632624009854e-13, -1.3923887224181621e-13, 2.8534893807047443e-14, -5.1391118342425726e-16,
     -1.9752288294349443e-15],
    [-1.8518518518518519e-3, -3.4722222222222222e-3, 2.6455026455026455e-3, -9.9022633744855967e-4,
     2.0576131687242798e-4, -4.0187757201646091e-7, -1.8098550334489978e-5, 7.6491609160811101e-6,
     -1.6120900894563446e-6, 4.6471278028074343e-9, 1.378633446915721e-7, -5.752545603517705e-8,
     1.1951628599778147e-8, -1.7543241719747648e-11, -1.0091543710600413e-9, 4.1627929918425826e-10,
     -8.5639070264929806e-11, 6.0672151016047586e-14, 7.1624989648114854e-12, -2.9331866437714371e-12,
     5.9966963656836887e-13, -2.1671786527323314e-16, -4.9783399723692616e-14, 2.0291628823713425e-14,
     -4.13125571381061e-15],
    [4.1335978835978836e-3, -2.6813271604938272e-3, 7.7160493827160494e-4, 2.0093878600823045e-6,
     -1.0736653226365161e-4, 5.2923448829120125e-5, -1.2760635188618728e-5, 3.4235787340961381e-8,
     1.3721957309062933e-6, -6.298992138380055e-7, 1.4280614206064242e-7, -2.0477098421990866e-10,
     -1.4092529910867521e-8, 6.228974084922022e-9, -1.3670488396617113e-9, 9.4283561590146782e-13,
     1.2872252400089318e-10, -5.5645956134363321e-11, 1.1975935546366981e-11, -4.1689782251838635e-15,
     -1.0940640427884594e-12, 4.6622399463901357e-13, -9.905105763906906e-14, 1.8931876768373515e-17,
     8.8592218725911273e-15],
    [6.4943415637860082e-4, 2.2947209362139918e-4, -4.6918949439525571e-4, 2.6772063206283885e-4,
     -7.5618016718839764e-5, -2.3965051138672967e-7, 1.1082654115347302e-5, -5.6749528269915966e-6,
     1.4230900732435884e-6, -2.7861080291528142e-11, -1.6958404091930277e-7, 8.0994649053880824e-8,
     -1.9111168485973654e-8, 2.3928620439808118e-12, 2.0620131815488798e-9, -9.4604966618551322e-10,
     2.1541049775774908e-10, -1.388823336813903e-14, -2.1894761681963939e-11, 9.7909989511716851e-12,
     -2.1782191880180962e-12, 6.2088195734079014e-17, 2.126978363279737e-13, -9.3446887915174333e-14,
     2.0453671226782849e-14],
    [-8.618882909167117e-4, 7.8403922172006663e-4, -2.9907248030319018e-4, -1.4638452578843418e-6,
     6.6414982154651222e-5, -3.9683650471794347e-5, 1.1375726970678419e-5, 2.5074972262375328e-10,
     -1.6954149536558306e-6, 8.9075075322053097e-7, -2.2929348340008049e-7, 2.956794137544049e-11,
     2.8865829742708784e-8, -1.4189739437803219e-8, 3.4463580499464897e-9, -2.3024517174528067e-13,
     -3.9409233028046405e-10, 1.8602338968504502e-10, -4.356323005056618e-11, 1.2786001016296231e-15,
     4.6792750266579195e-12, -2.1492464706134829e-12, 4.9088156148096522e-13, -6.3385914848915603e-18,
     -5.0453320690800944e-14],
    [-3.3679855336635815e-4, -6.9728137583658578e-5, 2.7727532449593921e-4, -1.9932570516188848e-4,
     6.7977804779372078e-5, 1.419062920643967e-7, -1.3594048189768693e-5, 8.0184702563342015e-6,
     -2.2914811765080952e-6, -3.252473551298454e-10, 3.4652846491085265e-7, -1.8447187191171343e-7,
     4.8240967037894181e-8, -1.7989466721743515e-14, -6.3061945000135234e-9, 3.1624176287745679e-9,
     -7.8409242536974293e-10, 5.1926791652540407e-15, 9.3589442423067836e-11, -4.5134262161632782e-11,
     1.0799129993116827e-11, -3.661886712685252e-17, -1.210902069055155e-12, 5.6807435849905643e-13,
     -1.3249659916340829e-13],
    [5.3130793646399222e-4, -5.9216643735369388e-4, 2.7087820967180448e-4, 7.9023532326603279e-7,
     -8.1539693675619688e-5, 5.6116827531062497e-5, -1.8329116582843376e-5, -3.0796134506033048e-9,
     3.4651553688036091e-6, -2.0291327396058604e-6, 5.7887928631490037e-7, 2.338630673826657e-13,
     -8.8286007463304835e-8, 4.7435958880408128e-8, -1.2545415020710382e-8, 8.6496488580102925e-14,
     1.6846058979264063e-9, -8.5754928235775947e-10, 2.1598224929232125e-10, -7.6132305204761539e-16,
     -2.6639822008536144e-11, 1.3065700536611057e-11, -3.1799163902367977e-12, 4.7109761213674315e-18,
     3.6902800842763467e-13],
    [3.4436760689237767e-4, 5.1717909082605922e-5, -3.3493161081142236e-4, 2.812695154763237e-4,
     -1.0976582244684731e-4, -1.2741009095484485e-7, 2.7744451511563644e-5, -1.8263488805711333e-5,
     5.7876949497350524e-6, 4.9387589339362704e-10, -1.0595367014026043e-6, 6.1667143761104075e-7,
     -1.7562973359060462e-7, -1.2974473287015439e-12, 2.695423606288966e-8, -1.4578352908731271e-8,
     3.887645959386175e-9, -3.8810022510194121e-17, -5.3279941738772867e-10, 2.7437977643314845e-10,
     -6.9957960920705679e-11, 2.5899863874868481e-17, 8.8566890996696381e-12, -4.403168815871311e-12,
     1.0865561947091654e-12],
    [-6.5262391859530942e-4, 8.3949872067208728e-4, -4.3829709854172101e-4, -6.969091458420552e-7,
     1.6644846642067548e-4, -1.2783517679769219e-4, 4.6299532636913043e-5, 4.5579098679227077e-9,
     -1.0595271125805195e-5, 6.7833429048651666e-6, -2.1075476666258804e-6, -1.7213731432817145e-11,
     3.7735877416110979e-7, -2.1867506700122867e-7, 6.2202288040189269e-8, 6.5977038267330006e-16,
     -9.5903864974256858e-9, 5.2132144922808078e-9, -1.3991589583935709e-9, 5.382058999060575e-16,
     1.9484714275467745e-10, -1.0127287556389682e-10, 2.6077347197254926e-11, -5.0904186999932993e-18,
     -3.3721464474854592e-12],
    [-5.9676129019274625e-4, -7.2048954160200106e-5, 6.7823088376673284e-4, -6.4014752602627585e-4,
     2.7750107634328704e-4, 1.8197008380465151e-7, -8.4795071170685032e-5, 6.105192082501531e-5,
     -2.1073920183404862e-5, -8.8585890141255994e-10, 4.5284535953805377e-6, -2.8427815022504408e-6,
     8.7082341778646412e-7, 3.6886101871706965e-12, -1.5344695190702061e-7, 8.862466778790695e-8,
     -2.5184812301826817e-8, -1.0225912098215092e-14, 3.8969470758154777e-9, -2.1267304792235635e-9,
     5.7370135528051385e-10, -1.887749850169741e-19, -8.0931538694657866e-11, 4.2382723283449199e-11,
     -1.1002224534207726e-11],
    [1.3324454494800656e-3, -1.9144384985654775e-3, 1.1089369134596637e-3, 9.932404122642299e-7,
     -5.0874501293093199e-4, 4.2735056665392884e-4, -1.6858853767910799e-4, -8.1301893922784998e-9,
     4.5284402370562147e-5, -3.127053674781734e-5, 1.044986828530338e-5, 4.8435226265680926e-11,
     -2.1482565873456258e-6, 1.329369701097492e-6, -4.0295693092101029e-7, -1.7567877666323291e-13,
     7.0145043163668257e-8, -4.040787734999483e-8, 1.1474026743371963e-8, 3.9642746853563325e-18,
     -1.7804938269892714e-9, 9.7480262548731646e-10, -2.6405338676507616e-10, 5.794875163403742e-18,
     3.7647749553543836e-11],
    [1.579727660730835e-3, 1.6251626278391582e-4, -2.0633421035543276e-3, 2.1389686185689098e-3,
     -1.0108559391263003e-3, -3.9912705529919201e-7, 3.6235025084764691e-4, -2.8143901463712154e-4,
     1.0449513336495887e-4, 2.1211418491830297e-9, -2.5779417251947842e-5, 1.7281818956040463e-5,
     -5.6413773872904282e-6, -1.1024320105776174e-11, 1.1223224418895175e-6, -6.8693396379526735e-7,
     2.0653236975414887e-7, 4.6714772409838506e-14, -3.5609886164949055e-8, 2.0470855345905963e-8,
     -5.8091738633283358e-9, -1.332821287582869e-16, 9.0354604391335133e-10, -4.9598782517330834e-10,
     1.3481607129399749e-10],
    [-4.0725121195140166e-3, 6.4033628338080698e-3, -4.0410161081676618e-3, -2.183732802866233e-6,
     2.1740441801254639e-3, -1.9700440518418892e-3, 8.3595469747962458e-4, 1.9445447567109655e-8,
     -2.5779387120421696e-4, 1.9009987368139304e-4, -6.7696499937438965e-5, -1.4440629666426572e-10,
     1.5712512518742269e-5, -1.0304008744776893e-5, 3.304517767401387e-6, 7.9829760242325709e-13,
     -6.4097794149313004e-7, 3.8894624761300056e-7, -1.1618347644948869e-7, -2.816808630596451e-15,
     1.9878012911297093e-8, -1.1407719956357511e-8, 3.2355857064185555e-9, 4.1759468293455945e-20,
     -5.0423112718105824e-10],
    [-5.9475779383993003e-3, -5.4016476789260452e-4, 8.7910413550767898e-3, -9.8576315587856125e-3,
     5.0134695031021538e-3, 1.2807521786221875e-6, -2.0626019342754683e-3, 1.7109128573523058e-3,
     -6.7695312714133799e-4, -6.9011545676562133e-9, 1.8855128143995902e-4, -1.3395215663491969e-4,
     4.6263183033528039e-5, 4.0034230613321351e-11, -1.0255652921494033e-5, 6.612086372797651e-6,
     -2.0913022027253008e-6, -2.0951775649603837e-13, 3.9756029041993247e-7, -2.3956211978815887e-7,
     7.1182883382145864e-8, 8.925574873053455e-16, -1.2101547235064676e-8, 6.9350618248334386e-9,
     -1.9661464453856102e-9],
    [1.7402027787522711e-2, -2.9527880945699121e-2, 2.0045875571402799e-2, 7.0289515966903407e-6,
     -1.2375421071343148e-2, 1.1976293444235254e-2, -5.4156038466518525e-3, -6.3290893396418616e-8,
     1.8855118129005065e-3, -1.473473274825001e-3, 5.5515810097708387e-4, 5.2406834412550662e-10,
     -1.4357913535784836e-4, 9.9181293224943297e-5, -3.3460834749478311e-5, -3.5755837291098993e-12,
     7.1560851960630076e-6, -4.5516802628155526e-6, 1.4236576649271475e-6, 1.8803149082089664e-14,
     -2.6623403898929211e-7, 1.5950642189595716e-7, -4.7187514673841102e-8, -6.5107872958755177e-17,
     7.9795091026746235e-9],
    [3.0249124160905891e-2, 2.4817436002649977e-3, -4.9939134373457022e-2, 5.9915643009307869e-2,
     -3.2483207601623391e-2, -5.7212968652103441e-6, 1.5085251778569354e-2, -1.3261324005088445e-2,
     5.5515262632426148e-3, 3.0263182257030016e-8, -1.7229548406756723e-3, 1.2893570099929637e-3,
     -4.6845138348319876e-4, -1.830259937893045e-10, 1.1449739014822654e-4, -7.7378565221244477e-5,
     2.5625836246985201e-5, 1.0766165333192814e-12, -5.3246809282422621e-6, 3.349634863064464e-6,
     -1.0381253128684018e-6, -5.608909920621128e-15, 1.9150821930676591e-7, -1.1418365800203486e-7,
     3.3654425209171788e-8],
    [-9.9051020880159045e-2, 1.7954011706123486e-1, -1.2989606383463778e-1, -3.1478872752284357e-5,
     9.0510635276848131e-2, -9.2828824411184397e-2, 4.4412112839877808e-2, 2.7779236316835888e-7,
     -1.7229543805449697e-2, 1.4182925050891573e-2, -5.6214161633747336e-3, -2.39598509186381e-9,
     1.6029634366079908e-3, -1.1606784674435773e-3, 4.1001337768153873e-4, 1.8365800754090661e-11,
     -9.5844256563655903e-5, 6.3643062337764708e-5, -2.076250624489065e-5, -1.1806020912804483e-13,
     4.2131808239120649e-6, -2.6262241337012467e-6, 8.0770620494930662e-7, 6.0125912123632725e-16,
     -1.4729737374018841e-7],
    [-1.9994542198219728e-1, -1.5056113040026424e-2, 3.6470239469348489e-1, -4.6435192311733545e-1,
     2.6640934719197893e-1, 3.4038266027147191e-5, -1.3784338709329624e-1, 1.276467178337056e-1,
     -5.6213828755200985e-2, -1.753150885483011e-7, 1.9235592956768113e-2, -1.5088821281095315e-2,
     5.7401854451350123e-3, 1.0622382710310225e-9, -1.5335082692563998e-3, 1.0819320643228214e-3,
     -3.7372510193945659e-4, -6.6170909729031985e-12, 8.4263617380909628e-5, -5.5150706827483479e-5,
     1.7769536448348069e-5, 3.8827923210205533e-14, -3.53513697488768e-6, 2.1865832130045269e-6,
     -6.6812849447625594e-7],
    [7.2438608504029431e-1, -1.3918010932653375, 1.0654143352413968, 1.876173868950258e-4,
     -8.2705501176152696e-1, 8.9352433347828414e-1, -4.4971003995291339e-1, -1.6107401567546652e-6,
     1.9235590165271091e-1, -1.6597702160042609e-1, 6.8882222681814333e-2, 1.3910091724608687e-8,
     -2.146911561508663e-2, 1.6228980898865892e-2, -5.9796016172584256e-3, -1.1287469112826745e-10,
     1.5167451119784857e-3, -1.0478634293553899e-3, 3.5539072889126421e-4, 8.1704322111801517e-13,
     -7.7773013442452395e-5, 5.0291413897007722e-5, -1.6035083867000518e-5, 1.2469354315487605e-14,
     3.1369106244517615e-6],
    [1.6668949727276811, 1.165462765994632e-1, -3.3288393225018906, 4.4692325482864037,
     -2.6977693045875807, -2.600667859891061e-4, 1.5389017615694539, -1.4937962361134612,
     6.8881964633233148e-1, 1.3077482004552385e-6, -2.5762963325596288e-1, 2.1097676102125449e-1,
     -8.3714408359219882e-2, -7.7920428881354753e-9, 2.4267923064833599e-2, -1.7813678334552311e-2,
     6.3970330388900056e-3, 4.9430807090480523e-11, -1.5554602758465635e-3, 1.0561196919903214e-3,
     -3.5277184460472902e-4, 9.3002334645022459e-14, 7.5285855026557172e-5, -4.8186515569156351e-5,
     1.5227271505597605e-5],
    [-6.6188298861372935, 1.3397985455142589e+1, -1.0789350606845146e+1, -1.4352254537875018e-3,
     9.2333694596189809, -1.0456552819547769e+1, 5.5105526029033471, 1.2024439690716742e-5,
     -2.5762961164755816, 2.3207442745387179, -1.0045728797216284, -1.0207833290021914e-7,
     3.3975092171169466e-1, -2.6720517450757468e-1, 1.0235252851562706e-1, 8.4329730484871625e-10,
     -2.7998284958442595e-2, 2.0066274144976813e-2, -7.0554368915086242e-3, 1.9402238183698188e-12,
     1.6562888105449611e-3, -1.1082898580743683e-3, 3.654545161310169e-4, -5.1290032026971794e-11,
     -7.6340103696869031e-5],
    [-1.7112706061976095e+1, -1.1208044642899116, 3.7131966511885444e+1, -5.2298271025348962e+1,
     3.3058589696624618e+1, 2.4791298976200222e-3, -2.061089403411526e+1, 2.088672775145582e+1,
     -1.0045703956517752e+1, -1.2238783449063012e-5, 4.0770134274221141, -3.473667358470195,
     1.4329352617312006, 7.1359914411879712e-8, -4.4797257159115612e-1, 3.4112666080644461e-1,
     -1.2699786326594923e-1, -2.8953677269081528e-10, 3.3125776278259863e-2, -2.3274087021036101e-2,
     8.0399993503648882e-3, -1.177805216235265e-9, -1.8321624891071668e-3, 1.2108282933588665e-3,
     -3.9479941246822517e-4],
    [7.389033153567425e+1, -1.5680141270402273e+2, 1.322177542759164e+2, 1.3692876877324546e-2,
     -1.2366496885920151e+2, 1.4620689391062729e+2, -8.0365587724865346e+1, -1.1259851148881298e-4,
     4.0770132196179938e+1, -3.8210340013273034e+1, 1.719522294277362e+1, 9.3519707955168356e-7,
     -6.2716159907747034, 5.1168999071852637, -2.0319658112299095, -4.9507215582761543e-9,
     5.9626397294332597e-1, -4.4220765337238094e-1, 1.6079998700166273e-1, -2.4733786203223402e-8,
     -4.0307574759979762e-2, 2.7849050747097869e-2, -9.4751858992054221e-3, 6.419922235909132e-6,
     2.1250180774699461e-3],
    [2.1216837098382522e+2, 1.3107863022633868e+1, -4.9698285932871748e+2, 7.3121595266969204e+2,
     -4.8213821720890847e+2, -2.8817248692894889e-2, 3.2616720302947102e+2, -3.4389340280087117e+2,
     1.7195193870816232e+2, 1.4038077378096158e-4, -7.52594195897599e+1, 6.651969984520934e+1,
     -2.8447519748152462e+1, -7.613702615875391e-7, 9.5402237105304373, -7.5175301113311376,
     2.8943997568871961, -4.6612194999538201e-7, -8.0615149598794088e-1, 5.8483006570631029e-1,
     -2.0845408972964956e-1, 1.4765818959305817e-4, 5.1000433863753019e-2, -3.3066252141883665e-2,
     1.5109265210467774e-2],
    [-9.8959643098322368e+2, 2.1925555360905233e+3, -1.9283586782723356e+3, -1.5925738122215253e-1,
     1.9569985945919857e+3, -2.4072514765081556e+3, 1.3756149959336496e+3, 1.2920735237496668e-3,
     -7.525941715948055e+2, 7.3171668742208716e+2, -3.4137023466220065e+2, -9.9857390260608043e-6,
     1.3356313181291573e+2, -1.1276295161252794e+2, 4.6310396098204458e+1, -7.9237387133614756e-6,
     -1.4510726927018646e+1, 1.1111771248100563e+1, -4.1690817945270892, 3.1008219800117808e-3,
     1.1220095449981468, -7.6052379926149916e-1, 3.6262236505085254e-1, 2.216867741940747e-1,
     4.8683443692930507e-1]], dtype=np.float64)


# --------------------------------------------------------------------------- #
# The float twins
UNARY = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "spherical_bessel_j0", "airy_ai")
BINARY = ("igamma", "igammac", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
          "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
          "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
          "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")


def _float_twins():
    g = dict(globals())
    g["T"] = np.float32
    g.update({name: np.float32(values[1]) for name, values in _PER_TWIN.items()})
    g["_HERMITE_MAX"] = _HERMITE_LIMIT[1]
    g.update({name: np.float32(v) for name, v in _T_SCALARS.items()})
    g.update({name: tuple(np.float32(c) for c in v) for name, v in g.items()
              if isinstance(v, tuple) and v and all(type(c) is float for c in v)})
    g["_IG_D"] = _IG_D.astype(np.float32)
    for fn in _GENERIC:
        name = fn.__name__[:-3] + "_f32" if fn.__name__.endswith("_of") else fn.__name__ + "_f32"
        twin = types.FunctionType(fn.__code__, g, name, fn.__defaults__, fn.__closure__)
        twin.__qualname__ = name
        twin.__module__ = fn.__module__
        twin.__doc__ = fn.__doc__
        g[fn.__name__] = twin
        globals()[name] = _helper(twin)


_float_twins()
