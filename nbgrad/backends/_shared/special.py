"""Scalar special functions for both devices: lgamma, digamma, trigamma, polygamma, the
Hurwitz zeta function, the modified Bessel functions i0, i0e, i1, i1e, ndtri and sinc.

They follow the algorithms PyTorch's kernels use (aten/src/ATen/native/Math.h: Cephes'
digamma, trigamma, zeta, chbevl and ndtri, and the same special cases: digamma(+-0) is
-+inf, digamma of a negative integer NaN, lgamma of a pole +inf, zeta(1, q) inf, zeta(x < 1, q)
NaN), written afresh as plain Python that Numba compiles for the CPU (register_jitable, called
by the CPU's scalar functions in backends/cpu/elementwise.py) and as CUDA device functions
(through the same scalar functions), and that the CUDA simulator runs as it is.  So no
branch may raise in plain Python: every pole and non-finite value is answered before a
`math` call that would raise on it.

PyTorch's compiler fuses the Chebyshev recurrence's product into its subtraction
(b0 = fma(x, b1, -b2) + c): so does chbevl here, which gives its bits in float64.

Every function computes in float64 and its caller rounds the result to the element type:
float64 follows PyTorch's double arithmetic operation for operation; float32 (PyTorch's
float versions compute in float) differs by rounding, a few ulp at most away from the zeros
of the functions.
"""
import math

import numpy as np

from numba.extending import register_jitable

from .fast_math import fma

_helper = register_jitable(error_model="numpy")

# (np.float64, not float(): Numba types float() of a float32 as float32)
_d = np.float64
_PI = 3.141592653589793
_TWO52 = 4503599627370496.0
_INF = math.inf
_NAN = math.nan


@_helper
def trunc_of(x):
    """x rounded toward zero, as a float (inf and NaN as they are), raising nowhere."""
    if not abs(x) < _TWO52:         # inf, NaN, or already an integer
        return x
    return math.copysign(_d(int(x)), x)


@_helper
def floor_of(x):
    t = trunc_of(x)
    return t - 1.0 if t > x else t


@_helper
def lgamma_of(x):
    """log|gamma(x)|: +inf at the poles (0, -0, the negative integers) and at +-inf."""
    if x != x:
        return x
    if x <= 0 and trunc_of(x) == x:     # a pole, or -inf
        return _INF
    if x > 2.5599833278516383e+305:     # (beyond: C's lgamma overflows to inf; Python's raises)
        return _INF
    return math.lgamma(x)


@_helper
def _digamma_positive(x):
    """digamma(x) for x > 0 (or +inf, NaN): pushed to x >= 10, then the asymptotic series."""
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    if x == 10.0:
        return result + 2.25175258906672110764
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        p = 8.33333333333333333333e-2
        p = p * z - 2.10927960927960927961e-2
        p = p * z + 7.57575757575757575758e-3
        p = p * z - 4.16666666666666666667e-3
        p = p * z + 3.96825396825396825397e-3
        p = p * z - 8.33333333333333333333e-3
        p = p * z + 8.33333333333333333333e-2
        y = z * p
    if x == _INF:
        return x
    return result + math.log(x) - (0.5 / x) - y


@_helper
def digamma_of(x):
    x = _d(x)
    if x == 0:
        return math.copysign(_INF, -x)
    if x < 0:
        if trunc_of(x) == x:            # a negative integer, or -inf
            return _NAN
        r = x - trunc_of(x)             # tan(pi r) is the closer of the equal tan(pi x)
        return _digamma_positive(1.0 - x) - _PI / math.tan(_PI * r)
    return _digamma_positive(x)


@_helper
def trigamma_of(x):
    x = _d(x)
    sign = 1.0
    result = 0.0
    if x < 0.5:
        sign = -1.0
        s = math.sin(_PI * x) if abs(x) < _INF else _NAN
        result -= (_PI * _PI) / (s * s) if s != 0 else _INF
        x = 1.0 - x
    for _ in range(6):
        result += 1.0 / (x * x)
        x += 1.0
    ixx = 1.0 / (x * x)
    # (the series' products fused into their sums, as PyTorch's compiled trigamma)
    series = fma(ixx, fma(-ixx, fma(-ixx, 1.0 / 42.0, 1.0 / 30.0), 1.0 / 6.0), 1.0 + 1.0 / (2.0 * x))
    result += series / x
    return sign * result


@_helper
def _zeta_coefficient(i):
    if i == 0:
        return 12.0
    if i == 1:
        return -720.0
    if i == 2:
        return 30240.0
    if i == 3:
        return -1209600.0
    if i == 4:
        return 47900160.0
    if i == 5:
        return -1.8924375803183791606e9
    if i == 6:
        return 7.47242496e10
    if i == 7:
        return -2.950130727918164224e12
    if i == 8:
        return 1.1646782814350067249e14
    if i == 9:
        return -4.5979787224074726105e15
    if i == 10:
        return 1.8152105401943546773e17
    return -7.1661652561756670113e18


@_helper
def _pow_of(a, b):
    """a ** b as C's pow, raising nowhere (0 ** negative is inf, a negative base with a
    non-integer exponent NaN)."""
    if a != a or b != b:
        return a + b if b != 0 else 1.0
    if a == 0:
        if b < 0:
            return _INF
        return 0.0 if b > 0 else 1.0
    if a < 0 and trunc_of(b) != b:
        return _NAN
    if abs(a) == _INF or abs(b) == _INF:
        return math.pow(a, b) if abs(a) != 1 else 1.0
    lg = math.log(abs(a)) * b
    if lg > 709.8:
        return _INF if a > 0 or trunc_of(b * 0.5) == b * 0.5 else -_INF
    return math.pow(a, b)


@_helper
def zeta_of(x, q):
    """The Hurwitz zeta function sum over k >= 0 of (k + q) ** -x (Cephes' zeta), summed in
    float64 (PyTorch's accumulate type on the CPU, for float too)."""
    return _zeta(_d(x), _d(q), False, 0.0)


@_helper
def zeta_f32(x, q):
    """zeta of float32 operands: PyTorch's first term is powf (then summed in double)."""
    return _f(_zeta(_d(x), _d(q), True, _powf(q, -x)))


@_helper
def _powf(a, b):
    """C's powf of float32 operands (compiled: the library's powf), raising nowhere."""
    if a != a or b != b or a == _F0 or abs(a) == _FINF or abs(b) == _FINF or (a < _F0 and trunc_of(b) != b):
        return _f(_pow_of(_d(a), _d(b)))
    return math.pow(a, b)


@_helper
def _zeta(x, q, first_in_float, first):
    machep = 1.11022302462515654042e-16
    if x == 1.0:
        return _INF
    if x < 1.0:
        return _NAN
    if q <= 0.0:
        if q == floor_of(q):
            return _INF
        if x != floor_of(x):
            return _NAN
    if x != x or q != q:
        return x + q
    s = _d(first) if first_in_float else _pow_of(q, -x)
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = _pow_of(a, -x)
        s += b
        if -machep * s < b and b < machep * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for j in range(12):
        a *= x + k
        b /= w
        t = a * b / _zeta_coefficient(j)
        s = s + t
        t = abs(t / s)
        if t < machep:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


@_helper
def polygamma_of(n, x):
    """The n-th derivative of digamma: digamma (n = 0), trigamma (n = 1), else
    (-1) ** (n + 1) * n! * zeta(n + 1, x) as PyTorch's calc_polygamma."""
    if n != n or n < 0:
        return _NAN
    k = int(n)
    if k == 0:
        return digamma_of(x)
    if k == 1:
        return trigamma_of(x)
    sign = 1.0 if k % 2 == 1 else -1.0
    return sign * math.exp(math.lgamma(k + 1.0)) * zeta_of(k + 1.0, x)


# Chebyshev coefficients (Cephes): exp(-x) i0(x) on [0, 8] ...
_I0E_A = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1,
)
# ... exp(-x) sqrt(x) i0(x) on [8, inf) ...
_I0E_B = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7, 2.89137052083475648297e-6,
    6.88975834691682398426e-5, 3.36911647825569408990e-3, 8.04490411014108831608e-1,
)
# ... exp(-x) i1(x) / x on [0, 8] ...
_I1E_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
    9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
    -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
    4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
    -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
    2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
    -1.76416518357834055153e-1, 2.52587186443633654823e-1,
)
# ... and exp(-x) sqrt(x) i1(x) on [8, inf)
_I1E_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
    -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)


@_helper
def chbevl(y, coefficients):
    """Cephes' chbevl: the Chebyshev series at y, its recurrence's product fused into its
    subtraction as PyTorch's compiled loop does (in the coefficients' and y's type)."""
    b0 = coefficients[0]
    b1 = b0 - b0
    b2 = b1
    for i in range(1, len(coefficients)):
        b2 = b1
        b1 = b0
        b0 = fma(y, b1, -b2) + coefficients[i]
    return 0.5 * (b0 - b2)


@_helper
def _exp_of(x):
    return math.exp(x) if x < 709.8 else _INF


@_helper
def i0_of(x):
    """The modified Bessel function of the first kind, order 0 (Cephes' i0)."""
    x = abs(_d(x))
    if x != x:
        return x
    if x <= 8.0:
        return _exp_of(x) * chbevl(x / 2.0 - 2.0, _I0E_A)
    return _exp_of(x) * chbevl(32.0 / x - 2.0, _I0E_B) / math.sqrt(x)


@_helper
def i0e_of(x):
    """exp(-|x|) i0(x) (Cephes' i0e)."""
    x = abs(_d(x))
    if x != x:
        return x
    if x <= 8.0:
        return chbevl(x / 2.0 - 2.0, _I0E_A)
    return chbevl(32.0 / x - 2.0, _I0E_B) / math.sqrt(x)


@_helper
def i1_of(x):
    """The modified Bessel function of the first kind, order 1 (Cephes' i1): odd."""
    v = _d(x)
    a = abs(v)
    if a != a:
        return a
    if a <= 8.0:
        out = _exp_of(a) * a * chbevl(a / 2.0 - 2.0, _I1E_A)
    else:
        out = _exp_of(a) * chbevl(32.0 / a - 2.0, _I1E_B) / math.sqrt(a)
    return -out if v < 0 else out


@_helper
def i1e_of(x):
    """exp(-|x|) i1(x) (Cephes' i1e): odd."""
    v = _d(x)
    a = abs(v)
    if a != a:
        return a
    if a <= 8.0:
        out = chbevl(a / 2.0 - 2.0, _I1E_A) * a
    else:
        out = chbevl(32.0 / a - 2.0, _I1E_B) / math.sqrt(a)
    return -out if v < 0 else out


@_helper
def sinc_of(x):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _d(x)
    if x == 0:
        return 1.0
    p = _PI * x
    if abs(p) == _INF:
        return _NAN
    return math.sin(p) / p


@_helper
def _polevl(x, coefficients):
    """Cephes' polevl (highest power first), each step one fma as PyTorch's compiled loop."""
    r = 0.0
    for c in coefficients:
        r = fma(r, x, c)
    return r


_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
             1.39312609387279679503e1, -1.23916583867381258016e0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
             1.59056225126211695515e1, -1.18331621121330003142e0)
# z = 1 / sqrt(-2 log y) for sqrt(-2 log y) between 2 and 8 ...
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
             4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
             -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
             -3.80806407691578277194e-2, -9.33259480895457427372e-4)
# ... and between 8 and 64
_NDTRI_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
             1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
             3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
             2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
             2.89247864745380683936e-6, 6.79019408009981274425e-9)


@_helper
def ndtri_of(y0):
    """The inverse of the standard normal distribution function (Cephes' ndtri): -inf at 0,
    inf at 1, NaN outside [0, 1]."""
    y = _d(y0)
    if y == 0.0:
        return -_INF
    if y == 1.0:
        return _INF
    if not (y >= 0.0 and y <= 1.0):
        return _NAN
    code = True
    if y > 1.0 - 0.13533528323661269189:
        y = 1.0 - y
        code = False
    if y > 0.13533528323661269189:
        y = y - 0.5
        y2 = y * y
        x = fma(y, y2 * _polevl(y2, _NDTRI_P0) / _polevl(y2, _NDTRI_Q0), y)
        return x * 2.50662827463100050242e0
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    if x < 8.0:
        x1 = z * _polevl(z, _NDTRI_P1) / _polevl(z, _NDTRI_Q1)
    else:
        x1 = z * _polevl(z, _NDTRI_P2) / _polevl(z, _NDTRI_Q2)
    x = x0 - x1
    return -x if code else x


# --------------------------------------------------------------------------- #
# float32: PyTorch's float versions compute in float (float coefficients, logf, sinf, expf,
# fused steps in float), so their float32 twins below keep every value float32 under Numba's
# typing: no Python number literal appears in them (a float literal is float64 to Numba),
# only the float32 constants here.  The CPU's scalar functions pick them for float32 operands
# (backends/cpu/elementwise.py); CUDA computes float32 through the float64 functions above.
_f = np.float32
_F0, _F1, _F2, _FHALF, _F8, _F10, _F32 = _f(0.0), _f(1.0), _f(2.0), _f(0.5), _f(8.0), _f(10.0), _f(32.0)
_FPI = _f(_PI)
_FINF, _FNAN = _f(math.inf), _f(math.nan)
_F_PSI_10 = _f(2.25175258906672110764)
_F_1E17 = _f(1.0e17)
_F_DIGAMMA_A = tuple(_f(c) for c in (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
                                     -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
                                     8.33333333333333333333e-2))
_F_SIXTH, _F_THIRTIETH, _F_FORTYSECOND = _F1 / _f(6.0), _F1 / _f(30.0), _F1 / _f(42.0)
_F_I0E_A = tuple(_f(c) for c in _I0E_A)
_F_I0E_B = tuple(_f(c) for c in _I0E_B)
_F_I1E_A = tuple(_f(c) for c in _I1E_A[-17:])       # PyTorch's float tables are the series' tails
_F_I1E_B = tuple(_f(c) for c in _I1E_B[-7:])
_F_NDTRI = tuple(tuple(_f(c) for c in t) for t in (_NDTRI_P0, _NDTRI_Q0, _NDTRI_P1, _NDTRI_Q1, _NDTRI_P2, _NDTRI_Q2))
_F_EXP_M2 = _f(0.13533528323661269189)
_F_S2PI = _f(2.50662827463100050242e0)


@_helper
def _polevl_f32(x, coefficients):
    r = _F0
    for i in range(len(coefficients)):
        r = r * x + coefficients[i]
    return r


@_helper
def _polevl_fma_f32(x, coefficients):
    r = _F0
    for i in range(len(coefficients)):
        r = fma(r, x, coefficients[i])
    return r


@_helper
def _digamma_positive_f32(x):
    result = _F0
    while x < _F10:
        result -= _F1 / x
        x += _F1
    if x == _F10:
        return result + _F_PSI_10
    y = _F0
    if x < _F_1E17:
        z = _F1 / (x * x)
        y = z * _polevl_f32(z, _F_DIGAMMA_A)
    return result + math.log(x) - (_FHALF / x) - y


@_helper
def digamma_f32(x):
    if x == _F0:
        return _FINF if math.copysign(1.0, x) < 0 else -_FINF
    if x < _F0:
        if trunc_of(x) == x:
            return _FNAN
        r = _d(x) - trunc_of(_d(x))
        return _digamma_positive_f32(_F1 - x) - _f(_PI / math.tan(_PI * r))
    return _digamma_positive_f32(x)


@_helper
def trigamma_f32(x):
    sign = _F1
    result = _F0
    if x < _FHALF:
        sign = -_F1
        s = math.sin(_FPI * x)
        result -= (_FPI * _FPI) / (s * s)
        x = _F1 - x
    for _ in range(6):
        result += _F1 / (x * x)
        x += _F1
    ixx = _F1 / (x * x)
    series = fma(ixx, fma(-ixx, fma(-ixx, _F_FORTYSECOND, _F_THIRTIETH), _F_SIXTH), _F1 + _F1 / (_F2 * x))
    result += series / x
    return sign * result


@_helper
def polygamma_f32(n, x):
    if n != n or n < 0:
        return _FNAN
    k = int(n)
    if k == 0:
        return digamma_f32(x)
    if k == 1:
        return trigamma_f32(x)
    sign = _F1 if k % 2 == 1 else -_F1
    # PyTorch's expf(lgammaf(n + 1)): lgammaf taken as lgamma rounded to float (equal up to
    # n = 12), expf in float
    factorial = math.exp(_f(math.lgamma(k + 1.0)))
    return sign * factorial * zeta_f32(_f(k + 1.0), x)


@_helper
def _chbevl_f32(y, coefficients):
    b0 = coefficients[0]
    b1 = _F0
    b2 = _F0
    for i in range(1, len(coefficients)):
        b2 = b1
        b1 = b0
        b0 = fma(y, b1, -b2) + coefficients[i]
    return _FHALF * (b0 - b2)


@_helper
def i0_f32(x):
    x = abs(x)
    if x <= _F8:
        return math.exp(x) * _chbevl_f32(x / _F2 - _F2, _F_I0E_A)
    return math.exp(x) * _chbevl_f32(_F32 / x - _F2, _F_I0E_B) / math.sqrt(x)


@_helper
def i0e_f32(x):
    x = abs(x)
    if x <= _F8:
        return _chbevl_f32(x / _F2 - _F2, _F_I0E_A)
    return _chbevl_f32(_F32 / x - _F2, _F_I0E_B) / math.sqrt(x)


@_helper
def i1_f32(v):
    x = abs(v)
    if x <= _F8:
        out = math.exp(x) * x * _chbevl_f32(x / _F2 - _F2, _F_I1E_A)
    else:
        out = (math.exp(x) * _chbevl_f32(_F32 / x - _F2, _F_I1E_B)) / math.sqrt(x)
    return -out if v < _F0 else out


@_helper
def i1e_f32(v):
    x = abs(v)
    if x <= _F8:
        out = _chbevl_f32(x / _F2 - _F2, _F_I1E_A) * x
    else:
        out = _chbevl_f32(_F32 / x - _F2, _F_I1E_B) / math.sqrt(x)
    return -out if v < _F0 else out


@_helper
def ndtri_f32(y0):
    if y0 == _F0:
        return -_FINF
    if y0 == _F1:
        return _FINF
    if not (y0 >= _F0 and y0 <= _F1):
        return _FNAN
    code = True
    y = y0
    if y > _F1 - _F_EXP_M2:
        y = _F1 - y
        code = False
    if y > _F_EXP_M2:
        y = y - _FHALF
        y2 = y * y
        x = fma(y, y2 * _polevl_fma_f32(y2, _F_NDTRI[0]) / _polevl_fma_f32(y2, _F_NDTRI[1]), y)
        return x * _F_S2PI
    # (PyTorch's ::sqrt and ::log are C's, in double, each result rounded to float)
    x = _f(math.sqrt(-2.0 * math.log(_d(y))))
    x0 = _f(_d(x) - math.log(_d(x)) / _d(x))
    z = _F1 / x
    if x < _F8:
        x1 = z * _polevl_fma_f32(z, _F_NDTRI[2]) / _polevl_fma_f32(z, _F_NDTRI[3])
    else:
        x1 = z * _polevl_fma_f32(z, _F_NDTRI[4]) / _polevl_fma_f32(z, _F_NDTRI[5])
    x = x0 - x1
    return -x if code else x


@_helper
def sinc_f32(x):
    """sinc in float (PyTorch's opmath for float and half: pi * x and sin in float)."""
    if x == _F0:
        return _F1
    p = _FPI * x
    if abs(p) == _FINF:
        return _FNAN
    return math.sin(p) / p


# --------------------------------------------------------------------------- #
# erfcx and log_ndtr.  PyTorch's erfcx on [0, 50] is Johnson's table of 100 Chebyshev
# pieces (Faddeeva); here exp(x^2) erfc(x) with x^2 split into two exact parts below 26, and
# the continued fraction of erfcx beyond, which PyTorch also takes above 50 (its formula
# there is the same): equal to PyTorch's within a few ulp, not to the bit.
_ISPI = 0.56418958354775628694807945156            # 1 / sqrt(pi)


@_helper
def _erfcx_positive(x):
    if x > 50.0:
        if x > 5e7:
            return _ISPI / x
        return _ISPI * ((x * x) * (x * x + 4.5) + 2.0) / (x * ((x * x) * (x * x + 5.0) + 3.75))
    if x < 26.0:
        hi = x * x
        lo = fma(x, x, -hi)
        return math.exp(hi) * math.exp(lo) * math.erfc(x)
    # 1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))), from its 40th level up
    f = x
    for k in range(40, 0, -1):
        f = x + (k * 0.5) / f
    return _ISPI / f


@_helper
def erfcx_of(x):
    """exp(x^2) erfc(x)."""
    x = _d(x)
    if x != x:
        return x
    if x >= 0.0:
        return _erfcx_positive(x)
    if x < -26.7 or x * x > 709.782712893384:      # (exp overflows: C's gives inf, Python's raises)
        return _INF
    if x < -6.1:
        return 2.0 * math.exp(x * x)
    return 2.0 * math.exp(x * x) - _erfcx_positive(-x)


@_helper
def log_ndtr_of(x):
    """log of the standard normal distribution function (SciPy's and PyTorch's formulas)."""
    x = _d(x)
    t = x * 0.7071067811865476
    if x < -1.0:
        e = erfcx_of(-t)
        return math.log(e / 2.0) - t * t if e != 0 and x != -_INF else -_INF
    if x != x:
        return x
    return math.log1p(-math.erfc(t) / 2.0)


_F_SQRT1_2 = _f(0.7071067811865476)


@_helper
def erfcx_f32(x):
    """erfcx of a float32: PyTorch's float version takes 2 exp(x^2) in float below 0."""
    if x != x:
        return x
    if x >= _F0:
        return _f(_erfcx_positive(_d(x)))
    if x < _f(-26.7) or x * x > _f(88.72283935546875):
        return _FINF
    if x < _f(-6.1):
        return _F2 * math.exp(x * x)
    return _f(_d(_F2 * math.exp(x * x)) - _erfcx_positive(-_d(x)))


@_helper
def log_ndtr_f32(x):
    """log_ndtr of a float32, in float as PyTorch's (logf, log1pf, erfcf)."""
    t = x * _F_SQRT1_2
    if x < -_F1:
        e = erfcx_f32(-t)
        return math.log(e / _F2) - t * t if e != _F0 and x != -_FINF else -_FINF
    if x != x:
        return x
    return math.log1p(-math.erfc(t) / _F2)
