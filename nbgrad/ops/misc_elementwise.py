"""Elementwise functions nbgrad lacked, composed from existing ops (no new kernels):
float_power, fmax/fmin, gcd/lcm (ATen's Euclid loop, run on whole tensors), ldexp, frexp and
nextafter (on the floats' bits through a same-size integer view), the bit shifts with
PyTorch's rules for negative and too-large shifts, isneginf/isposinf/isreal, heaviside_."""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import NotImplementedNode, needs_grad, record
from .more import renamed
from ._dtype_rules import not_implemented

_INTS = (D.uint8, D.int8, D.int16, D.int32, D.int64)


def _tname(v):
    return type(v).__name__


def _need_tensor(fn, arg, position, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Tensor, not {_tname(value)}")


def _as_tensor(v, like):
    from .._creation import tensor
    if isinstance(v, Tensor):
        return v
    return tensor(v, dtype=D.scalar_dtype(v), device=like.device)


def _promoted(*operands):
    return D.result_type_of([o for o in operands])


# ---------------------------------------------------------------- float_power
def float_power(input, exponent):
    """pow in float64 (ATen's float_power: both operands converted to double first)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power() received an invalid combination of arguments")
    if isinstance(input, Tensor):
        base = input.to(D.float64)
        return base.pow(exponent.to(D.float64) if isinstance(exponent, Tensor) else float(exponent))
    from .elementwise import pow as _pow
    return _pow(float(input), exponent.to(D.float64))


def float_power_(input, exponent):
    if input.dtype is not D.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {D.scalar_type_name(input.dtype)} but the "
                           "operation's result requires dtype Double")
    return input.pow_(exponent.to(D.float64) if isinstance(exponent, Tensor) else float(exponent))


# ---------------------------------------------------------------- fmax, fmin
def _fminmax(name, input, other, take_first):
    _need_tensor(name, "other", 2, other)
    from .elementwise import where
    mask = take_first(input, other) | other.isnan()
    return renamed(where(mask, input, other), name.capitalize() + "Backward0")


def fmax(input, other):
    """The larger of each pair, a NaN taken only where both are (gradient to input where
    input >= other or other is NaN, else to other: PyTorch's FmaxBackward0)."""
    return _fminmax("fmax", input, other, lambda a, b: a >= b)


def fmin(input, other):
    return _fminmax("fmin", input, other, lambda a, b: a <= b)


# ---------------------------------------------------------------- gcd, lcm
def _int_binary(kernel, fn, input, other):
    """The operands promoted to their common integer dtype (bool and floats refused)."""
    _need_tensor(fn, "other", 2, other)
    dtype = _promoted(input, other)
    if dtype not in _INTS:
        raise not_implemented(kernel, dtype)
    from ._graph import broadcast_shapes
    shape = broadcast_shapes(input.shape, other.shape)
    return input.to(dtype).expand(shape), other.to(dtype).expand(shape), dtype


def _calc_gcd(a, b):
    """ATen's calc_gcd on whole tensors: a, b = |a|, |b|; while a != 0: a, b = b % a, a
    (C's truncating remainder)."""
    from .elementwise import where
    a, b = a.abs(), b.abs()
    while True:
        nz = a != 0
        if not bool(nz.any()):
            return b
        safe = where(nz, a, a.new_ones(()))
        a, b = where(nz, b.fmod(safe), a.new_zeros(())), where(nz, a, b)


def gcd(input, other):
    """The greatest common divisor of each pair (of integers), as ATen computes it (gcd(0, 0)
    is 0; with the minimum int64 it keeps C's wrapping)."""
    with no_grad():
        a, b, _ = _int_binary("gcd_cpu", "gcd", input, other)
        return _calc_gcd(a, b).contiguous()


def lcm(input, other):
    """|a / gcd(a, b) * b| in the integer dtype (wrapping as C++), 0 where the gcd is 0."""
    from .elementwise import where
    with no_grad():
        a, b, dtype = _int_binary("lcm_cpu", "lcm", input, other)
        g = _calc_gcd(a, b)
        zero = g == 0
        q = a.fmod(where(zero, g.new_ones(()), g))
        q = (a - q).floor_divide(where(zero, g.new_ones(()), g))   # exact division (truncation)
        if dtype in (D.int32, D.int64):
            prod = (q * b).abs()               # C++'s int / int64_t arithmetic: wraps in the dtype
        else:
            prod = (q.to(D.int64) * b.to(D.int64)).abs().to(dtype)     # promoted to int, stored back
        return where(zero, g.new_zeros(()), prod).contiguous()


def _int_inplace(fn, name):
    def method(self, other):
        from .inplace import apply_inplace
        result_dtype = _promoted(self, other) if isinstance(other, Tensor) else self.dtype
        if not D.can_cast(result_dtype, self.dtype):
            raise RuntimeError(f"result type {D.scalar_type_name(result_dtype)} can't be cast to the desired output "
                               f"type {D.scalar_type_name(self.dtype)}")
        return apply_inplace(self, lambda old, o: fn(old, o).to(self.dtype), other, needs_old=False,
                             differentiable=False)
    method.__name__ = name
    return method


gcd_ = _int_inplace(gcd, "gcd_")
lcm_ = _int_inplace(lcm, "lcm_")


# ---------------------------------------------------------------- ldexp
class LdexpBackward0(Node):
    """self: grad * 2 ** other; other: grad * (self * 2 ** other) * ln 2 (PyTorch's grad * result
    * ln 2: the product rounded in that order, as its float16 and float32 bits show)."""

    def backward(self, g):
        from .elementwise import pow as _pow
        x, other = self.saved_tensors
        # PyTorch's pow(2, other): a floating other's power in its own dtype (a float16 one rounds
        # it); an integer other's in g's (PyTorch's is integer there: 2 ** -4 is its 0)
        scale = _pow(2.0, other) if other._dtype.is_floating_point else _pow(2.0, other.to(g.dtype))
        gx = g * scale if self.needs_input_grad(0) else None
        go = g * (x * scale) * math.log(2.0) if self.needs_input_grad(1) else None
        return gx, go


def _ldexp_value(x, other, dtype):
    """x * 2 ** other in dtype, correctly rounded for an integer other (as C's ldexp: an
    intermediate never overflows nor rounds twice)."""
    from .elementwise import pow as _pow, where
    x = x.to(dtype)
    if other.is_floating_point():
        return x * _pow(2.0, other)         # (2 ** other in other's own dtype, as PyTorch)
    e = other.to(D.int64)
    if dtype is not D.float64:
        # exact in float64 for every float32/float16 value, then rounded once
        e = e.clamp(-1000, 1000).to(D.float64)
        return (x.to(D.float64) * _pow(2.0, e)).to(dtype)
    m, ex = frexp(x)
    big = (e + ex.to(D.int64)).clamp(-1100, 1100).to(D.float64)
    up = big >= 0
    scaled = where(up, (m * 2.0) * _pow(2.0, big - 1), m * _pow(2.0, big))
    return where((x == 0) | ~x.isfinite(), x, scaled)


def ldexp(input, other):
    """input * 2 ** other in the promoted floating dtype (PyTorch's LdexpBackward0)."""
    _need_tensor("ldexp", "other", 2, other)
    if other._dtype is D.bool_ and isinstance(input, Tensor) and input._dtype.is_floating_point:
        # (PyTorch's 2 ** other beside a float input: an integer input takes another path)
        raise not_implemented("ldexp_cpu_exp", D.bool_)
    dtype = _promoted(input, other)
    if not dtype.is_floating_point:
        dtype = D.get_default_dtype()
    with no_grad():
        out = _ldexp_value(input, other, dtype).contiguous()
    if needs_grad(input, other):
        record(LdexpBackward0, (input, other), (out,)).save(input, other)
    return out


def ldexp_(input, other):
    from .inplace import apply_inplace
    _need_tensor("ldexp_", "other", 2, other)
    dtype = _promoted(input, other)
    if not dtype.is_floating_point:
        dtype = D.get_default_dtype()
    if not D.can_cast(dtype, input.dtype):
        raise RuntimeError(f"ldexp can't be cast to the desired output type {D.scalar_type_name(input.dtype)}")
    return apply_inplace(input, lambda old, o: ldexp(old, o).to(input.dtype), other, needs_old=True)


# ---------------------------------------------------------------- frexp, nextafter (bits)
# dtype: (same-size integer dtype, mantissa bits, exponent mask, bias)
_FLOAT_BITS = {D.float64: (D.int64, 52, 0x7FF, 1023), D.float32: (D.int32, 23, 0xFF, 127),
               D.float16: (D.int16, 10, 0x1F, 15)}
if getattr(D, "bfloat16", None) is not None:
    _FLOAT_BITS[D.bfloat16] = (D.int16, 7, 0xFF, 127)


class FrexpBackward0(Node):
    """mantissa: grad / exponent.exp2()."""

    def backward(self, g, *_):
        exponent, = self.saved_tensors
        return g / exponent.to(g.dtype).exp2()


def frexp(input):
    """(mantissa, exponent): input = mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1 (zero,
    infinities and NaN: themselves and 0), read off the floats' bits."""
    from ..return_types import return_type
    from .elementwise import where
    x = input
    if not x.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    int_dtype, mbits, emask, bias = _FLOAT_BITS[x.dtype]
    with no_grad():
        special = (x == 0) | ~x.isfinite()
        scale_k = mbits + 1                   # subnormals scaled into the normal range first
        bits = _view_bits(x, int_dtype).to(D.int64)
        biased = bits.floor_divide(2 ** mbits).bitwise_and(emask)
        sub = (biased == 0) & ~special
        if bool(sub.any()):
            xs = where(sub, x * float(2 ** scale_k), x)
            bits = _view_bits(xs, int_dtype).to(D.int64)
            biased = bits.floor_divide(2 ** mbits).bitwise_and(emask)
        exponent = biased - (bias - 1) - where(sub, scale_k, 0)
        # the mantissa: the exponent field set to bias - 1 (sign and fraction kept)
        field = emask * 2 ** mbits
        mant_bits = bits - bits.bitwise_and(field) + (bias - 1) * 2 ** mbits
        mantissa = _view_bits(_to_int_dtype(mant_bits, int_dtype), x.dtype)
        mantissa = where(special, x, mantissa)
        exponent = where(special, 0, exponent).to(D.int32)
    if needs_grad(x):
        record(FrexpBackward0, (x,), (mantissa, None)).save(exponent)
    return return_type("frexp", ("mantissa", "exponent"))(mantissa, exponent)


def _view_bits(t, dtype):
    """t's bits read as dtype (same size); a device without view(dtype) goes through the host."""
    t = t.contiguous()
    if t.device.type == "cpu":
        return t.view(dtype)
    return t.cpu().view(dtype).to(t.device)


def _to_int_dtype(v, int_dtype):
    """int64 values as a narrower integer dtype, wrapping (two's complement bits kept)."""
    if int_dtype is D.int64:
        return v.contiguous()
    return v.to(int_dtype).contiguous()


class NextafterBackward0(Node):
    """self: grad, zero where self == other (the result is other there); other: zeros."""

    def backward(self, g):
        from .elementwise import where
        gx = go = None
        if self.needs_input_grad(0):
            x, y = self.saved_tensors
            gx = where(x == y, g.new_zeros(()), g).sum_to_size(self.x_shape)
        if self.needs_input_grad(1):
            go = g.new_zeros(self.y_shape)
        return gx, go


def nextafter(input, other):
    """The next float after input towards other (C's nextafter), stepped on the bits."""
    from .elementwise import where
    _need_tensor("nextafter", "other", 2, other)
    dtype = _promoted(input, other)
    if dtype not in _FLOAT_BITS:
        raise not_implemented("nextafter_cpu", dtype)
    from ._graph import broadcast_shapes
    shape = broadcast_shapes(input.shape, other.shape)
    int_dtype = _FLOAT_BITS[dtype][0]
    with no_grad():
        x, y = input.to(dtype).expand(shape).contiguous(), other.to(dtype).expand(shape).contiguous()
        bits = _view_bits(x, int_dtype).to(D.int64)
        up = (y > x) == (x > 0)                        # away from zero: the bits grow
        stepped = _view_bits(_to_int_dtype(where(up, bits + 1, bits - 1), int_dtype), dtype)
        tiny = _view_bits(_to_int_dtype(x.new_ones(shape, dtype=D.int64), int_dtype), dtype)   # the least subnormal
        from_zero = where(y > 0, tiny, -tiny)
        out = where(x == 0, from_zero, stepped)
        out = where(x == y, y, out)
        out = where(x.isnan() | y.isnan(), x + y, out).contiguous()
    if needs_grad(input, other):
        record(NextafterBackward0, (input, other), (out,), x_shape=tuple(input.shape),
               y_shape=tuple(other.shape)).save(input, other)
    return out


def nextafter_(input, other):
    from .inplace import apply_inplace, check_inplace
    _need_tensor("nextafter_", "other", 1, other)
    check_inplace(input, other)
    dtype = _promoted(input, other)
    if not D.can_cast(dtype, input.dtype):
        raise RuntimeError(f"result type {D.scalar_type_name(dtype)} can't be cast to the desired output type "
                           f"{D.scalar_type_name(input.dtype)}")
    return apply_inplace(input, lambda old, o: nextafter(old, o).to(input.dtype), other, needs_old=False)


# ---------------------------------------------------------------- bit shifts
def _shift_operands(kernel, input, other):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("a shift needs a tensor operand")
    ref = input if isinstance(input, Tensor) else other
    dtype = _promoted(input, other)
    if dtype not in _INTS:
        raise not_implemented(kernel, dtype)
    return _as_tensor(input, ref).to(dtype), _as_tensor(other, ref).to(dtype), dtype


def _bits(dtype):
    return dtype.np.itemsize * 8


def bitwise_left_shift(input, other):
    """input << other in the promoted integer dtype (a negative shift or one of the width or
    more gives 0; bits shifted out are lost, as PyTorch's kernel)."""
    from .elementwise import where
    with no_grad():
        a, b, dtype = _shift_operands("lshift_cpu", input, other)
        a64, b64 = a.to(D.int64), b.to(D.int64)
        if dtype is D.uint8:
            b64 = where(b64 >= 128, b64 - 256, b64)          # static_cast<int8_t>(b) < 0
        ok = (b64 >= 0) & (b64 < _bits(dtype))
        shift = where(ok, b64, 0)
        out = where(ok, a64 * (2 ** shift), 0)
        return out.to(dtype).contiguous()


def bitwise_right_shift(input, other):
    """input >> other in the promoted integer dtype, arithmetic for signed types (a negative
    shift or one past the width gives the sign fill: 0 or -1)."""
    from .elementwise import where
    with no_grad():
        a, b, dtype = _shift_operands("rshift_cpu", input, other)
        a64, b64 = a.to(D.int64), b.to(D.int64)
        signed = dtype is not D.uint8
        if not signed:
            b64 = where(b64 >= 128, b64 - 256, b64)
        max_shift = _bits(dtype) - (1 if signed else 0)
        ok = (b64 >= 0) & (b64 < max_shift)
        shift = where(ok, b64, 0)
        fill = where(a64 < 0, -1, 0) if signed else a64.new_zeros(())
        out = where(ok, a64.floor_divide(2 ** shift), fill)
        return out.to(dtype).contiguous()


def _shift_inplace(fn, name):
    def method(self, other):
        from .inplace import apply_inplace
        dtype = _promoted(self, other)
        if not D.can_cast(dtype, self.dtype):
            raise RuntimeError(f"result type {D.scalar_type_name(dtype)} can't be cast to the desired output type "
                               f"{D.scalar_type_name(self.dtype)}")
        tensors = (other,) if isinstance(other, Tensor) else ()
        return apply_inplace(self, lambda old, *o: fn(old, o[0] if o else other).to(self.dtype), *tensors,
                             needs_old=False, differentiable=False)
    method.__name__ = name
    return method


bitwise_left_shift_ = _shift_inplace(bitwise_left_shift, "bitwise_left_shift_")
bitwise_right_shift_ = _shift_inplace(bitwise_right_shift, "bitwise_right_shift_")


def _rlshift(self, other):
    return bitwise_left_shift(other, self)


def _rrshift(self, other):
    return bitwise_right_shift(other, self)


def _shift_operator(fn):
    def op(self, other):
        if not isinstance(other, (Tensor, int, float, bool)):
            return NotImplemented
        return fn(self, other)
    return op


# ---------------------------------------------------------------- isneginf, isposinf, isreal
def isneginf(input):
    _need_tensor("isneginf", "input", 1, input)
    with no_grad():
        if input.is_floating_point():
            return input == -math.inf
        return input.new_zeros(input.shape, dtype=D.bool_)


def isposinf(input):
    _need_tensor("isposinf", "input", 1, input)
    with no_grad():
        if input.is_floating_point():
            return input == math.inf
        return input.new_zeros(input.shape, dtype=D.bool_)


def isreal(input):
    """True everywhere for a real dtype (nbgrad has no complex dtypes)."""
    _need_tensor("isreal", "input", 1, input)
    return input.new_ones(input.shape, dtype=D.bool_)


# ---------------------------------------------------------------- heaviside_
def _heaviside_recorded(x, values):
    """heaviside's values under PyTorch's heaviside_ node, which refuses backward."""
    from .more import heaviside
    with no_grad():
        out = heaviside(x, values)
    if needs_grad(x, values):
        record(NotImplementedNode, (x, values), (out,), op_name="heaviside_")
    return out


def heaviside_(input, values):
    from .inplace import apply_inplace, check_inplace
    _need_tensor("heaviside_", "values", 1, values)
    check_inplace(input, values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return apply_inplace(input, _heaviside_recorded, values, needs_old=False)
