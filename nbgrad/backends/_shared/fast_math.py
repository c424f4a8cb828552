"""Branch-free exp and log of float32/float64 and the bit-level intrinsics under them, for the CPU kernels.

Range reduction + polynomial, the special values by selects: no libm call, so
a loop over them vectorises (there is no SVML here: math.exp / np.exp in an
njit loop is a scalar libm call, ~8-13 ns an element on the machines we
measure, and keeps the whole loop scalar).  The elementwise kernels' exp,
log, tanh and sigmoid (nbgrad/backends/cpu/elementwise.py) and the CPU's
row-wise exps (cross-entropy, softmax, log_softmax, logsumexp) and the normal
draws' Box-Muller transform (backends/cpu/sampling.py) are built on these.
Beside them: lane_add, an accumulation of vectors held in a vector register (PyTorch's
Vectorized sums: softmax's and the cascade sums' lanes, the 2-norm's squares), and the
integer order keys that let a float max/min vectorise (extremum_run).
They live in the shared package for the cache rule (this package's __init__):
kernels of several CPU modules inline them.  CPU only: CUDA kernels
use the device's own math.exp.  Their accuracy against NumPy (1-2 ulp,
overflow, underflow, denormals, NaN, +-inf) is tested in
tests/backends/test_fast_math.py.
"""
import math

import numpy as np
from llvmlite import ir
from numba import config, types, uint64
from numba.core import cgutils
from numba.extending import intrinsic, overload, register_jitable

@intrinsic
def _float_bits(typingctx, x):
    """The IEEE bits of a float32 (as int32) or float64 (as int64)."""
    if x == types.float32:
        sig = types.int32(x)
    elif x == types.float64:
        sig = types.int64(x)
    else:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(signature.return_type))
    return sig, codegen


def _make_from_bits(float_type, width):
    @intrinsic
    def from_bits(typingctx, i):
        """The float whose IEEE bits are the low `width` bits of integer i."""
        if not isinstance(i, types.Integer):
            return None
        sig = float_type(i)

        def codegen(context, builder, signature, args):
            v = args[0]
            if i.bitwidth > width:
                v = builder.trunc(v, ir.IntType(width))
            elif i.bitwidth < width:
                v = builder.sext(v, ir.IntType(width))
            return builder.bitcast(v, context.get_value_type(float_type))
        return sig, codegen
    return from_bits


_f32_from_bits = _make_from_bits(types.float32, 32)
_f64_from_bits = _make_from_bits(types.float64, 64)


def _py_float_bits(x):
    """_float_bits in plain Python: a NumPy scalar view."""
    if isinstance(x, np.float32):
        return x.view(np.int32)
    return np.float64(x).view(np.int64)


def _py_f32_from_bits(i):
    """_f32_from_bits in plain Python (int() & mask: the truncation or sign extension)."""
    return np.uint32(int(i) & 0xFFFFFFFF).view(np.float32)


def _py_f64_from_bits(i):
    """_f64_from_bits in plain Python."""
    return np.uint64(int(i) & 0xFFFFFFFFFFFFFFFF).view(np.float64)


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's fma: one vfmadd where the CPU has FMA).  The polynomials
    below take it explicitly, not through fastmath contraction, so that a formula has the
    same bits wherever it is inlined (an op's kernel, a fused region, nbgrad.compile's code):
    W4's-size exp over 1M float32 0.52 -> 0.37 ms, tanh 0.81 -> 0.58 ms, on one core here."""
    if not (a == b == c and a in (types.float32, types.float64)):
        return None

    def codegen(context, builder, signature, args):
        ty = context.get_value_type(signature.return_type)
        name = "llvm.fma.f32" if a == types.float32 else "llvm.fma.f64"
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ty, [ty, ty, ty]), name)
        return builder.call(fn, args)
    return a(a, b, c), codegen


def _py_fma(a, b, c):
    """_fma in plain Python, rounded once as the hardware does.  float32: the product is exact
    in float64 and the float64 sum is rounded to odd (its last bit set when inexact), which
    then rounds to float32 as one rounding would; float64: exact rationals."""
    if isinstance(a, np.float32):
        p = np.float64(a) * np.float64(b)
        c64 = np.float64(c)
        with np.errstate(all="ignore"):
            s = p + c64
            if not np.isfinite(s):
                return np.float32(s)
            t = s - p
            err = (p - (s - t)) + (c64 - t)         # TwoSum: the sum's exact rounding error
        if err != 0 and not (np.array(s).view(np.int64) & 1):
            s = np.nextafter(s, np.inf if err > 0 else -np.inf)
        with np.errstate(all="ignore"):
            return np.float32(s)
    from fractions import Fraction
    a, b, c = float(a), float(b), float(c)
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):
        return c                  # a finite product (however large) plus an infinity or NaN
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c         # a*b == -c exactly: IEEE's sign of the zero
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


if config.DISABLE_JIT:
    _float_bits, _f32_from_bits, _f64_from_bits = _py_float_bits, _py_f32_from_bits, _py_f64_from_bits
    _fma = _py_fma


def fma(a, b, c):
    """a * b + c rounded once, wherever it runs: compiled (CPU kernels, CUDA device functions)
    it is _fma, LLVM's fma; as plain Python (the CUDA simulator runs device functions so) it
    is _py_fma.  PyTorch's CPU kernels fuse a multiply and an add in add/sub with alpha,
    lerp, addcmul and the optimizers' updates built on them; their shared scalar forms call
    this.  Operands of another type (float16's float32 opmath is the caller's) add a
    rounded product."""
    kinds = {type(a), type(b), type(c)}
    if kinds == {np.float32}:
        return _py_fma(a, b, c)
    if kinds <= {float, np.float64}:
        return np.float64(_py_fma(a, b, c))
    return a * b + c


@overload(fma, jit_options={"error_model": "numpy"})
def _fma_typed(a, b, c):
    if a == b == c and a in (types.float32, types.float64):
        return lambda a, b, c: _fma(a, b, c)
    return lambda a, b, c: a * b + c


@intrinsic
def _wide_vectors(typingctx):
    """Lets LLVM vectorise the calling function with the CPU's widest vectors: the function
    attribute "prefer-vector-width"="512" (clang's -mprefer-vector-width=512).  On AVX-512 CPUs
    LLVM keeps to 256-bit vectors unless told; the global switch (NUMBA_CPU_FEATURES without
    prefer-256-bit) would change every kernel of the process, this only the kernels that call
    it.  A CPU without 512-bit vectors (AVX2) ignores it.  The lanes compute the same
    formulas, so the bits do not change.  Over 256K elements on the Intel machine
    (/work/prof/wide2.py, 256 -> 512-bit, us): exp float32 115 -> 86, float64 319 -> 206;
    tanh 168 -> 142, 512 -> 421; sigmoid 136 -> 112, 409 -> 293; log 210 -> 156, 459 -> 369;
    the memory-bound ops (neg, abs, relu, sqrt) and libm calls (sin, erf) gain nothing."""
    def codegen(context, builder, sig, args):
        # llvmlite's attribute set lists no string attributes: the attribute goes in as its
        # IR text, which llvmlite prints after the function's signature as it is
        set.add(builder.function.attributes, '"prefer-vector-width"="512"')
        return context.get_dummy_value()
    return types.void(), codegen


def _py_wide_vectors():
    """Plain Python (NUMBA_DISABLE_JIT): nothing to vectorise."""


if config.DISABLE_JIT:
    _wide_vectors = _py_wide_vectors


def _make_lane_loop(float_type, lanes, square):
    @intrinsic
    def lane_loop(typingctx, arr, start, count, stride, acc):
        """acc[:lanes] += x (x * x when squaring) for each of the `count` vectors x of `lanes`
        elements at arr[start + k * stride:], one after the other: PyTorch's Vectorized
        accumulations (vec::reduce_all's lane sums, the 2-norm's acc_vec += x * x, the
        cascade sums' level 0), each lane the same additions in the same order.  The
        accumulator stays in one vector register: written as a loop over acc's elements, each
        step stored acc and loaded it again, a wait of ~9 cycles a vector (the softmax sum of
        256 rows of 1000: 118 -> ~20 us)."""
        if not (isinstance(arr, types.Array) and arr.dtype == float_type and isinstance(acc, types.Array)
                and acc.dtype == float_type and all(isinstance(a, types.Integer) for a in (start, count, stride))):
            return None
        sig = types.void(arr, start, count, stride, acc)

        def codegen(context, builder, signature, args):
            a = context.make_array(signature.args[0])(context, builder, args[0])
            c = context.make_array(signature.args[4])(context, builder, args[4])
            i64 = ir.IntType(64)
            start_, count_, stride_ = (context.cast(builder, v, t, types.int64)
                                       for v, t in zip(args[1:4], signature.args[1:4]))
            vty = ir.VectorType(context.get_value_type(float_type), lanes)
            align = float_type.bitwidth // 8
            base = builder.gep(a.data, [start_])
            accp = builder.bitcast(c.data, vty.as_pointer())
            first = builder.load(accp, align=align)
            entry = builder.block
            loop = builder.append_basic_block("lanes.loop")
            done = builder.append_basic_block("lanes.done")
            builder.cbranch(builder.icmp_signed(">", count_, ir.Constant(i64, 0)), loop, done)
            builder.position_at_end(loop)
            k = builder.phi(i64)
            v = builder.phi(vty)
            x = builder.load(builder.bitcast(builder.gep(base, [builder.mul(k, stride_)]), vty.as_pointer()),
                             align=align)
            if square:
                x = builder.fmul(x, x)
            nv = builder.fadd(v, x)
            nk = builder.add(k, ir.Constant(i64, 1))
            k.add_incoming(ir.Constant(i64, 0), entry)
            k.add_incoming(nk, loop)
            v.add_incoming(first, entry)
            v.add_incoming(nv, loop)
            builder.cbranch(builder.icmp_signed("<", nk, count_), loop, done)
            builder.position_at_end(done)
            out = builder.phi(vty)
            out.add_incoming(first, entry)
            out.add_incoming(nv, loop)
            builder.store(out, accp, align=align)
            return context.get_dummy_value()
        return sig, codegen
    return lane_loop


# float32: 8 and 16 lanes (32- and 64-byte vectors), 32 (the cascade sums' four 8-lane vectors
# side by side); float64: 4, 8 and 16
_LANE_WIDTHS = {types.float32: (8, 16, 32), types.float64: (4, 8, 16)}
_LANE_LOOPS = {(dt, lanes, square): _make_lane_loop(dt, lanes, square)
               for dt, widths in _LANE_WIDTHS.items() for lanes in widths for square in (False, True)}


def lane_add(arr, start, count, acc, square=False, stride=-1):
    """acc += each of `count` vectors of acc.size elements at arr[start + k * stride:] (stride -1:
    acc.size, the vectors one after the other; 0: one vector, a broadcast's, count times; their
    squares when square), lane by lane in order: the lane-register loop above for float32 with
    8, 16 or 32 lanes and float64 with 4, 8 or 16, an element loop otherwise (the same
    additions).  acc is contiguous.  Plain Python (NUMBA_DISABLE_JIT): NumPy's element-wise
    arithmetic in acc's dtype."""
    lanes = acc.size
    step = lanes if stride < 0 else stride
    for k in range(count):
        x = arr[start + k * step:start + k * step + lanes]
        acc[:] = acc + (x * x if square else x)


@overload(lane_add, jit_options={"error_model": "numpy"})
def _lane_add_typed(arr, start, count, acc, square=False, stride=-1):
    if not isinstance(arr, types.Array) or arr.dtype not in _LANE_WIDTHS:
        return None
    w0, w1, w2 = _LANE_WIDTHS[arr.dtype]
    add0, add1, add2 = (_LANE_LOOPS[arr.dtype, w, False] for w in (w0, w1, w2))
    sq0, sq1, sq2 = (_LANE_LOOPS[arr.dtype, w, True] for w in (w0, w1, w2))

    def impl(arr, start, count, acc, square=False, stride=-1):
        lanes = acc.size
        step = lanes if stride < 0 else stride
        if lanes == w0:
            if square:
                sq0(arr, start, count, step, acc)
            else:
                add0(arr, start, count, step, acc)
        elif lanes == w1:
            if square:
                sq1(arr, start, count, step, acc)
            else:
                add1(arr, start, count, step, acc)
        elif lanes == w2:
            if square:
                sq2(arr, start, count, step, acc)
            else:
                add2(arr, start, count, step, acc)
        else:
            for k in range(count):
                at = start + k * step
                for lane in range(lanes):
                    x = arr[at + lane]
                    acc[lane] += x * x if square else x
    return impl


_F = np.float32
# Round-to-nearest integer by adding 1.5*2**(mantissa bits): the integer lands
# in the low mantissa bits, so n = bits(t) - bits(MAGIC) with no float->int
# conversion (which AVX2 lacks for float64).
_MAGIC_F = _F(12582912.0)
_MAGIC_F_BITS = int(np.array(_MAGIC_F).view(np.int32))
_MAGIC_D = 6755399441055744.0
_MAGIC_D_BITS = int(np.array(_MAGIC_D).view(np.int64))
_LOG2E_F = _F(1.4426950408889634)
_LN2_HI_F = _F(0.693359375)        # few mantissa bits: n * hi is exact
_LN2_LO_F = _F(-2.12194440e-4)
_LOG2E_D = 1.4426950408889634
_LN2_HI_D = 6.93145751953125e-1
_LN2_LO_D = 1.42860682030941723212e-6
_SQRT2_F = _F(1.41421356)
_SQRT2_D = 1.4142135623730951
_TINY_F = _F(1.17549435e-38)       # smallest normal float32
_TINY_D = 2.2250738585072014e-308
_TWO23_F = _F(8388608.0)
_TWO54_D = 18014398509481984.0
_TWO52_D = 4503599627370496.0
_INF_F = _F(np.inf)
_NAN_F = _F(np.nan)


@register_jitable(error_model="numpy")
def _exp_reduced_f32(x):
    """exp(x) = p * 2**ni for x in [-104, 89]: (p, ni).  A caller whose exp is a normal number
    scales p once (tanh's exp(2|x|)); _exp_f32 in two halves, for the overflow and denormal ends."""
    t = _fma(x, _LOG2E_F, _MAGIC_F)
    n = t - _MAGIC_F
    ni = _float_bits(t) - _MAGIC_F_BITS
    r = _fma(n, -_LN2_HI_F, x)
    r = _fma(n, -_LN2_LO_F, r)
    # Cephes expf polynomial for exp(r) on |r| <= ln2/2.
    p = _F(1.9875691500e-4)
    p = _fma(p, r, _F(1.3981999507e-3))
    p = _fma(p, r, _F(8.3334519073e-3))
    p = _fma(p, r, _F(4.1665795894e-2))
    p = _fma(p, r, _F(1.6666665459e-1))
    p = _fma(p, r, _F(5.0000001201e-1))
    return _fma(p, r * r, r) + _F(1.0), ni


@register_jitable(error_model="numpy")
def _exp_f32(x):
    xc = min(max(x, _F(-104.0)), _F(89.0))      # beyond: 0 / inf after scaling
    p, ni = _exp_reduced_f32(xc)
    # 2**n in two halves so that n in [-150, 128] never leaves the normal range
    # (one rounding only, into the denormals when the result is that small).
    h = ni >> 1
    y = p * _f32_from_bits((h + 127) << 23) * _f32_from_bits((ni - h + 127) << 23)
    return y if x == x else x


@register_jitable(error_model="numpy")
def _exp_reduced_f64(x):
    """exp(x) = p * 2**ni for x in [-746, 710]: (p, ni), as _exp_reduced_f32."""
    t = _fma(x, _LOG2E_D, _MAGIC_D)
    n = t - _MAGIC_D
    ni = _float_bits(t) - _MAGIC_D_BITS
    r = _fma(n, -_LN2_HI_D, x)
    r = _fma(n, -_LN2_LO_D, r)
    # Taylor series to r**13 (|r| <= 0.347: truncation < 2e-16 relative).
    p = 1.0 / 6227020800.0
    p = _fma(p, r, 1.0 / 479001600.0)
    p = _fma(p, r, 1.0 / 39916800.0)
    p = _fma(p, r, 1.0 / 3628800.0)
    p = _fma(p, r, 1.0 / 362880.0)
    p = _fma(p, r, 1.0 / 40320.0)
    p = _fma(p, r, 1.0 / 5040.0)
    p = _fma(p, r, 1.0 / 720.0)
    p = _fma(p, r, 1.0 / 120.0)
    p = _fma(p, r, 1.0 / 24.0)
    p = _fma(p, r, 1.0 / 6.0)
    p = _fma(p, r, 0.5)
    return _fma(p, r * r, r) + 1.0, ni


@register_jitable(error_model="numpy")
def _exp_f64(x):
    xc = min(max(x, -746.0), 710.0)
    p, ni = _exp_reduced_f64(xc)
    h = ni >> 1
    y = p * _f64_from_bits((h + 1023) << 52) * _f64_from_bits((ni - h + 1023) << 52)
    return y if x == x else x


@register_jitable(error_model="numpy")
def _log_f32(x):
    tiny = x < _TINY_F
    xs = x * _TWO23_F if tiny else x             # denormals: scale into the normals
    bits = _float_bits(xs)
    # The biased exponent k as a float without an int->float conversion:
    # the float with bits 0x4B000000 | k is 2**23 + k.
    k = _f32_from_bits(((bits >> 23) & 0xFF) | 0x4B000000) - _TWO23_F
    m = _f32_from_bits((bits & 0x7FFFFF) | 0x3F800000)   # mantissa in [1, 2)
    big = m > _SQRT2_F
    f = (m * _F(0.5) if big else m) - _F(1.0)   # in [sqrt(1/2) - 1, sqrt(2) - 1]
    fe = k - (_F(150.0) if tiny else _F(127.0)) + (_F(1.0) if big else _F(0.0))
    z = f * f
    # Cephes logf polynomial.
    p = _F(7.0376836292e-2)
    p = p * f - _F(1.1514610310e-1)
    p = p * f + _F(1.1676998740e-1)
    p = p * f - _F(1.2420140846e-1)
    p = p * f + _F(1.4249322787e-1)
    p = p * f - _F(1.6668057665e-1)
    p = p * f + _F(2.0000714765e-1)
    p = p * f - _F(2.4999993993e-1)
    p = p * f + _F(3.3333331174e-1)
    y = p * f * z + fe * _LN2_LO_F - _F(0.5) * z
    y = f + y + fe * _LN2_HI_F
    if x > 0 and x < _INF_F:
        return y
    if x == 0:
        return -_INF_F
    if x == _INF_F:
        return x
    return _NAN_F


@register_jitable(error_model="numpy")
def _log_f64(x):
    tiny = x < _TINY_D
    xs = x * _TWO54_D if tiny else x
    bits = _float_bits(xs)
    k = _f64_from_bits(((bits >> 52) & 0x7FF) | 0x4330000000000000) - _TWO52_D
    m = _f64_from_bits((bits & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000)
    big = m > _SQRT2_D
    f = (m * 0.5 if big else m) - 1.0
    dk = k - (1077.0 if tiny else 1023.0) + (1.0 if big else 0.0)
    # fdlibm's log: log(1+f) = f - hfsq + s*(hfsq+R), s = f/(2+f).
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01))
    t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
                                              + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    y = dk * 6.93147180369123816490e-01 - ((hfsq - (s * (hfsq + r) + dk * 1.90821492927058770002e-10)) - f)
    if x > 0 and x < np.inf:
        return y
    if x == 0:
        return -np.inf
    if x == np.inf:
        return x
    return np.nan


# SLEEF's expf_u10 constants (sleefsimdsp.c: R_LN2f, L2Uf, L2Lf and its polynomial)
_SLEEF_R_LN2_F = _F(1.442695040888963407359924681001892137426645954152985934135449406931)
_SLEEF_L2U_F = _F(0.693145751953125)
_SLEEF_L2L_F = _F(1.428606765330187045e-06)


@register_jitable(error_model="numpy")
def sleef_expf(d):
    """SLEEF's xexpf (1-ulp) with its fused multiply-adds: PyTorch's Vectorized<float>::exp
    (Sleef_expf16_u10 / Sleef_expf8_u10), the exp of its vectorized kernels such as softmax's,
    to the bit.  Below -104: +0.0; above 100: inf; NaN: NaN.  Branch-free, so that a loop of
    it vectorizes."""
    dc = min(max(d, _F(-104.0)), _F(100.0))      # (q only: the result is replaced beyond)
    t = dc * _SLEEF_R_LN2_F + _MAGIC_F            # rint(d * R_LN2f): the product rounded, then
    q = _float_bits(t) - _MAGIC_F_BITS            # to an integer, ties to even
    fq = t - _MAGIC_F
    r = _fma(fq, -_SLEEF_L2U_F, dc)
    r = _fma(fq, -_SLEEF_L2L_F, r)
    u = _F(0.000198527617612853646278381)
    u = _fma(u, r, _F(0.00139304355252534151077271))
    u = _fma(u, r, _F(0.00833336077630519866943359))
    u = _fma(u, r, _F(0.0416664853692054748535156))
    u = _fma(u, r, _F(0.166666671633720397949219))
    u = _fma(u, r, _F(0.5))
    u = _F(1.0) + _fma(r * r, u, r)
    h = q >> 1                                    # vldexp2: two halves of 2**q
    u = u * _f32_from_bits((h + 127) << 23) * _f32_from_bits((q - h + 127) << 23)
    u = u if d >= _F(-104.0) else _F(0.0)
    u = _INF_F if d > _F(100.0) else u
    return u if d == d else d


_SLEEF_LN2_HI_F = _F(0.69314718246459960938)
_SLEEF_LN2_LO_F = _F(-1.904654323148236017e-09)
_FLT_MIN_F = _F(1.17549435e-38)


@register_jitable(error_model="numpy")
def sleef_logf(d):
    """SLEEF's xlogf_u1 (1-ulp) with its fused multiply-adds: PyTorch's Vectorized<float>::log
    (Sleef_logf8_u10 / Sleef_logf16_u10), the log of its vectorized kernels such as
    log_softmax's, to the bit.  The mantissa in [0.75, 1.5) and the exponent, then
    log(m) = 2 atanh((m - 1) / (m + 1)) in double-float arithmetic (SLEEF's df* helpers, their
    FMA forms): the quotient, its odd polynomial, and e * ln 2 as a two-float constant.
    0: -inf; below 0 or NaN: NaN; inf: inf."""
    o = d < _FLT_MIN_F                              # subnormals scaled by 2**64 first
    dd = d * _F(18446744073709551616.0) if o else d
    e = ((_float_bits(dd * _F(1.0 / 0.75)) >> 23) & 0xFF) - 0x7F     # vilogb2k
    m = _f32_from_bits(_float_bits(dd) - (e << 23))                   # vldexp3(d, -e)
    if o:
        e -= 64
    fe = _F(e)
    # s = dfmul((ln2 hi, lo), e)
    sx = _SLEEF_LN2_HI_F * fe
    sy = _fma(_SLEEF_LN2_LO_F, fe, _fma(_SLEEF_LN2_HI_F, fe, -sx))
    # x = dfdiv(dfadd2(-1, m), dfadd2(1, m))
    nx = _F(-1.0) + m
    v = nx - _F(-1.0)
    ny = (_F(-1.0) - (nx - v)) + (m - v)
    dx = _F(1.0) + m
    v = dx - _F(1.0)
    dy = (_F(1.0) - (dx - v)) + (m - v)
    t = _F(1.0) / dx
    qx = nx * t
    u = _fma(t, nx, -qx)
    w = _fma(-dy, t, _fma(-dx, t, _F(1.0)))
    qy = _fma(qx, w, _fma(ny, t, u))
    x2 = qx * qx
    p = _fma(_F(0.3027294874), x2, _F(0.3996108174))
    p = _fma(p, x2, _F(0.6666694880))
    # s = dfadd(s, dfscale(x, 2)), then dfadd(s, x2 * x * p)
    ax, ay = qx * _F(2.0), qy * _F(2.0)
    r = sx + ax
    sy = (((sx - r) + ax) + sy) + ay
    sx = r
    b = (x2 * qx) * p
    r = sx + b
    sy = ((sx - r) + b) + sy
    res = r + sy
    if d == _INF_F:
        res = _INF_F
    if d < _F(0.0) or d != d:
        res = _F(np.nan)
    if d == _F(0.0):
        res = -_INF_F
    return res


@register_jitable(error_model="numpy")
def _lane_tree8(a):
    b0, b1, b2, b3 = a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]
    c0, c1 = b0 + b2, b1 + b3
    return c0 + c1


@register_jitable(error_model="numpy")
def _lane_tree16(a):
    b0, b1, b2, b3 = a[0] + a[8], a[1] + a[9], a[2] + a[10], a[3] + a[11]
    b4, b5, b6, b7 = a[4] + a[12], a[5] + a[13], a[6] + a[14], a[7] + a[15]
    c0, c1, c2, c3 = b0 + b4, b1 + b5, b2 + b6, b3 + b7
    d0, d1 = c0 + c2, c1 + c3
    return d0 + d1


@register_jitable(error_model="numpy")
def reduce_all_sum(v, p, n, lanes, acc, tmp):
    """PyTorch's vec::reduce_all(+) of v[p:p + n] with vectors of `lanes`: shorter than one
    vector, in order; else the first vector, each further full one added lane by lane, the
    partial last one into the first lanes, then lane i + lane i ^ h for h = lanes/2 ... 1
    (its vec_reduce_all's shuffles), lane 0 the sum.  acc, tmp: scratch of `lanes`."""
    if n < lanes:
        s = v[p]
        for j in range(1, n):
            s += v[p + j]
        return s
    for lane in range(lanes):
        acc[lane] = v[p + lane]
    full = n // lanes - 1                   # the further full vectors, added in a register
    if full > 0:
        lane_add(v, p + lanes, full, acc)
    d = lanes * (full + 1)
    for lane in range(n - d):
        acc[lane] += v[p + d + lane]
    # the shuffles' lane 0 needs only the lower half of each step: lane i < h adds lane
    # i ^ h = i + h (15 additions for 16 lanes, not 64 and their copies; the same operands).
    # For 16 and 8 lanes written out, in registers: the loop over h read back what it had
    # just stored, and a softmax row of 16 took 90 ns in this sum, 15 with the tree.
    if lanes == 16:
        return _lane_tree16(acc)
    if lanes == 8:
        return _lane_tree8(acc)
    h = lanes // 2
    while h >= 1:
        for lane in range(h):
            acc[lane] = acc[lane] + acc[lane + h]
        h //= 2
    return acc[0]


# Float order as integer order: a float's bits b, read as a signed integer, order the
# non-negative floats; key(b) = b ^ ((b >> (w - 1)) & MAX) flips the magnitude bits of the
# negative ones, so that keys order all floats as < does, -0.0 below +0.0, positive NaNs
# above +inf and negative NaNs below -inf.  The key is its own inverse.  Integer max/min
# vectorise (one vpmaxsd/vpminsd a vector); float comparisons with the serial loop's NaN rule
# do not (LLVM leaves a select-on-compare reduction scalar): max of 64K float32 23 -> 4 us.
_I32 = np.int32
_KEY_MASK_32 = _I32(0x7FFFFFFF)
_KEY_POS_INF_32 = _I32(0x7F800000)
_KEY_NEG_INF_32 = _I32(-0x7F800001)          # key of -inf's bits 0xFF800000
_KEY_MASK_64 = np.int64(0x7FFFFFFFFFFFFFFF)
_KEY_POS_INF_64 = np.int64(0x7FF0000000000000)
_KEY_NEG_INF_64 = np.int64(-0x7FF0000000000001)


@register_jitable(error_model="numpy")
def _key_range_f32(r, n):
    """(largest, smallest) key of float32 r[:n], n >= 1."""
    _wide_vectors()
    hi = _I32(-2147483648)
    lo = _I32(2147483647)
    for j in range(uint64(n)):
        b = _float_bits(r[j])
        k = _I32(b ^ _I32(_I32(b >> 31) & _KEY_MASK_32))
        hi = k if k > hi else hi
        lo = k if k < lo else lo
    return hi, lo


@register_jitable(error_model="numpy")
def _key_range_f64(r, n):
    """(largest, smallest) key of float64 r[:n], n >= 1."""
    _wide_vectors()
    hi = np.int64(-9223372036854775808)
    lo = np.int64(9223372036854775807)
    for j in range(uint64(n)):
        b = _float_bits(r[j])
        k = b ^ ((b >> 63) & _KEY_MASK_64)
        hi = k if k > hi else hi
        lo = k if k < lo else lo
    return hi, lo


@register_jitable(error_model="numpy")
def _extremum_f32(r, n, is_max):
    """(max or min of float32 r[:n] by the keys, whether r holds a NaN)."""
    hi, lo = _key_range_f32(r, n)
    k = hi if is_max else lo
    return _f32_from_bits(k ^ _I32(_I32(k >> 31) & _KEY_MASK_32)), hi > _KEY_POS_INF_32 or lo < _KEY_NEG_INF_32


@register_jitable(error_model="numpy")
def _extremum_f64(r, n, is_max):
    """(max or min of float64 r[:n] by the keys, whether r holds a NaN)."""
    hi, lo = _key_range_f64(r, n)
    k = hi if is_max else lo
    return _f64_from_bits(k ^ ((k >> 63) & _KEY_MASK_64)), hi > _KEY_POS_INF_64 or lo < _KEY_NEG_INF_64


def _extremum_keyed(r, n, is_max):
    """Dispatches on r's float type at compile time (the @overload below); plain Python
    (NUMBA_DISABLE_JIT) on r's dtype."""
    if r.dtype == np.float32:
        return _extremum_f32(r, n, is_max)
    return _extremum_f64(r, n, is_max)


@overload(_extremum_keyed, jit_options={"error_model": "numpy"})
def _extremum_keyed_typed(r, n, is_max):
    if r.dtype == types.float32:
        return lambda r, n, is_max: _extremum_f32(r, n, is_max)
    if r.dtype == types.float64:
        return lambda r, n, is_max: _extremum_f64(r, n, is_max)
    return None


@register_jitable(error_model="numpy")
def extremum_run(x, p, n, is_max):
    """max (is_max) or min of the float32/float64 run x[p:p + n], n >= 1, as the serial loop
    gives it (m = x[p]; m = v if v > m): the first NaN when there is one, else the first
    element equal to the extremum (the sign of a zero).  Short runs by that loop (branch-free,
    and the rows' chains overlap: 16 elements in ~5 ns); longer ones by the order keys above;
    the first-of-ties and NaN rules are then restored by a scan of the rare cases (a zero
    extremum, a NaN)."""
    r = x[p:p + n]
    nan = False
    if n < 64:
        m = r[0]
        if is_max:
            for j in range(uint64(n)):
                v = r[j]
                m = v if v > m else m
                nan |= v != v
        else:
            for j in range(uint64(n)):
                v = r[j]
                m = v if v < m else m
                nan |= v != v
    else:
        m, nan = _extremum_keyed(r, n, is_max)
    if nan or m == 0:
        # the serial loop's answer: its first NaN, or its first zero (the extremum's sign)
        for j in range(n):
            v = r[j]
            if v != v or (not nan and v == 0):
                return v
    return m


@register_jitable(error_model="numpy")
def reduce_all_max_f32(v, p, n):
    """PyTorch's vec::reduce_all(vec::maximum) of float32 v[p:p + n]: the max, NaN when the run
    has one (softmax's and log_softmax's row max).  A short row's loop (~5 ns for 16 elements:
    the rows' chains overlap); long rows: long_max_f32."""
    r = v[p:p + n]                      # (a slice at unit stride: the loop vectorizes)
    m = r[0]
    nan = False
    for j in range(uint64(n)):
        x = r[j]
        m = x if x > m else m
        nan |= x != x
    return _F(np.nan) if nan else m


@register_jitable(error_model="numpy")
def long_max_f32(v, p, n):
    """reduce_all_max_f32 of a long row (64 elements and more): extremum_run's order keys,
    5x the serial chain's speed."""
    m = extremum_run(v, p, n, True)
    return _F(np.nan) if m != m else m


# Statistics of a block of b contiguous float32 rows of n (row i at v[p + i * n:]), the
# passes softmax's and cross-entropy's kernels make over their rows, with their bits.  Each
# pass one loop nest over the whole block, its row loops written out: a call per row
# (reduce_all_sum's) cost more than the row's work (~27 ns around a row of 16's additions),
# and exps over a row shorter than a vector ran in the vectorized loop's scalar tail.
# (Walking short rows transposed, the rows side by side, measured no faster.)

@register_jitable(error_model="numpy")
def block_max_f32(v, p, b, n, mx):
    """mx[i] = reduce_all_max_f32 (long_max_f32 from 256 elements) of row i."""
    if n >= 256:
        for i in range(b):
            mx[i] = long_max_f32(v, p + i * n, n)
    else:
        for i in range(b):
            mx[i] = reduce_all_max_f32(v, p + i * n, n)


@register_jitable(error_model="numpy")
def block_exp_shifted_f32(v, p, b, n, mx, sh, e, q):
    """e[q + i * n + j] = sleef_expf(v[p + i * n + j] - mx[i]): one loop over the block
    (sh: scratch of b * n, each row's max repeated)."""
    for i in range(b):
        m = mx[i]
        for j in range(n):
            sh[i * n + j] = m
    k = b * n
    vr = v[p:p + k]
    er = e[q:q + k]
    shr = sh[:k]
    _wide_vectors()         # (the calling kernel's loops in 512-bit vectors where the CPU has them)
    for t in range(uint64(k)):
        er[t] = sleef_expf(vr[t] - shr[t])


@register_jitable(error_model="numpy")
def block_sum(v, p, b, n, lanes, acc, sums):
    """sums[i] = reduce_all_sum of row i, in its order, written out here (a call of it per
    row: 110 us for 4096 rows of 16, this loop 40).  Any float dtype (acc's)."""
    if n == lanes and lanes in (8, 16):
        # a row of one vector is its own accumulator: the tree reads the row (copied into acc
        # first, the row's stores and the tree's loads met in a store-forwarding wait)
        for i in range(b):
            row = v[p + i * n:p + (i + 1) * n]
            sums[i] = _lane_tree16(row) if lanes == 16 else _lane_tree8(row)
        return
    if n >= lanes:
        full = n // lanes - 1
        d = lanes * (full + 1)
        for i in range(b):
            q = p + i * n
            for lane in range(lanes):
                acc[lane] = v[q + lane]
            if full > 0:        # (a row of one vector: no register round trip through acc)
                lane_add(v, q + lanes, full, acc)
            for lane in range(n - d):
                acc[lane] += v[q + d + lane]
            if lanes == 16:
                sums[i] = _lane_tree16(acc)
            elif lanes == 8:
                sums[i] = _lane_tree8(acc)
            else:
                h = lanes // 2
                while h >= 1:
                    for lane in range(h):
                        acc[lane] = acc[lane] + acc[lane + h]
                    h //= 2
                sums[i] = acc[0]
        return
    r = v[p:p + b * n]
    for i in range(b):
        q = i * n
        t = r[q]
        for j in range(1, n):
            t += r[q + j]
        sums[i] = t


def _by_float_type(x, f32, f64, other):
    # The Python meaning of the compile-time switch of _overload_by_float_type:
    # float64 covers np.float64 and Python floats (Numba types both float64).
    # Compiled kernels never warn; neither do these (an intermediate overflow,
    # as exp(2|x|) in tanh, is part of the formula, not of the caller's values).
    with np.errstate(all="ignore"):
        if isinstance(x, np.float32):
            return f32(x)
        if isinstance(x, float):
            return f64(x)
        return other(x)


def _fast_exp(x):
    """Jitted code dispatches on the float type at compile time (see the @overload below)."""
    return _by_float_type(x, _exp_f32, _exp_f64, np.exp)


def _overload_by_float_type(stub, f32, f64, other):
    @overload(stub, jit_options={"error_model": "numpy"})
    def impl(x):
        if x == types.float32:
            return lambda x: f32(x)
        if x == types.float64:
            return lambda x: f64(x)
        return other


_overload_by_float_type(_fast_exp, _exp_f32, _exp_f64, lambda x: np.exp(x))
