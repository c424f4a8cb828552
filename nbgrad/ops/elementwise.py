"""Elementwise ops (unary, binary, where, clamp, masked_fill): each forward beside its backward.

Forward: promote dtypes (PyTorch's rules), broadcast by 0 strides, and hand the
views to the backend's unary/binary/where kernels.  Backward: Tensor ops, so
that create_graph=True records them; where grad mode is off during backward
(the common case) the fused backend kernels do tanh/sigmoid/relu in one pass.
The engine reduces broadcast gradients to each input's shape and dtype.
"""
import builtins
import math

import numpy as np

from .. import _dtype as D
from .._checks import checked_scalar, is_number, scalar_overflows
from .._layout import is_dense, order_of_strides
from .._size import Size
from .._tensor import Tensor, _strides_of, row_major, row_major_of
from ..autograd.grad_mode import _state as _grad_state, is_grad_enabled, no_grad
from ..autograd.node import Node, _saved_input
from ..backends import get_backend
from ._dtype_rules import check as check_dtype, check_sub, refuses
from ..autograd.backward_path import FUSED, backward_path
from . import _graph
from ._graph import (accelerated, as_operand, backend_of, broadcast_shapes, broadcast_view, cast,
                     check_same_device, needs_grad, new_strided, new_tensor, output_layout,
                     permuted, record, record_pair, scalar_tensor, shortcuts, NotImplementedNode, zeros_grad)


# the backends' small-op shortcuts, by device type
_BINARY_DENSE, _UNARY_DENSE, _MUL_BACKWARD_DENSE, _CLAMP_DENSE = (
    shortcuts(name) for name in ("binary_dense", "unary_dense", "mul_backward_dense", "clamp_dense"))


# ---------------------------------------------------------------- engines
# Results are laid out as PyTorch's TensorIterator lays them out (output_layout): by
# the operands' strides, given by `like` (the op's operands in PyTorch's order) where
# they are not the kernel's own inputs (which may be cast copies).  A non-row-major
# layout runs the same kernel over the views permuted into the result's dim order.
def _unary_raw(op, x, out_dtype=None, like=None):
    out_dtype = out_dtype or x._dtype
    src = x if like is None else like
    rm = row_major_of(src._shape) or row_major(src._shape)
    if src._stride is rm or src._stride == rm:
        if x._stride is rm or x._stride == rm:
            # the small op's shortcut (a row-major floating tensor, n below the threading floor)
            dense = _UNARY_DENSE[x._storage.device.type]
            if dense is not None:
                buf = dense(op, x._storage.buffer, x._offset, math.prod(x._shape), out_dtype.np)
                if buf is not None:
                    return Tensor._from_buffer(buf, x._shape, out_dtype, x._storage.device)
        buf = backend_of(x).unary(op, x._view_tuple(), out_dtype.np)
        return new_tensor(buf, x._shape, out_dtype, x._storage.device)
    layout = output_layout(x._shape, (src,))
    if layout is None:
        buf = backend_of(x).unary(op, x._view_tuple(), out_dtype.np)
        return new_tensor(buf, x._shape, out_dtype, x._storage.device)
    order, strides = layout
    buf = backend_of(x).unary(op, permuted(x._view_tuple(), order), out_dtype.np)
    return new_strided(buf, x._shape, strides, out_dtype, x._storage.device)


def _binary_raw(op, a, b, compute_dtype, out_dtype=None, like=None):
    """Run a binary kernel on a and b (tensors or Python numbers) cast to compute_dtype.
    This is every arithmetic op's hot path, so the common cases are spelled out.
    `like`: the operands whose layout the result takes, when not (a, b)."""
    if like is not None and len(like) == 2 and like[0] is a and like[1] is b:
        like = None         # (the op's own operands: the default)
    if like is None and isinstance(a, Tensor) and a._dtype is compute_dtype:
        # the small op's shortcut: a row-major tensor with a row-major tensor of its shape and
        # dtype (no cast, no broadcast), or with a Python number (W8's x + 1: the number's
        # cached 0-dim operand, read for every element)
        sa, dev = a._shape, a._storage.device
        rm = row_major_of(sa) or row_major(sa)
        dense = _BINARY_DENSE[dev.type]
        if dense is not None and rm is not None:
            b_dense = isinstance(b, Tensor) and b._dtype is compute_dtype and b._storage.device is dev \
                and (b._shape is sa or b._shape == sa) and (b._stride is rm or b._stride == rm)
            if a._stride is rm or a._stride == rm:
                if b_dense:
                    tb = b
                else:
                    tb = scalar_tensor(b, compute_dtype, dev) if ((type(b) is float or type(b) is int)
                                                                  and compute_dtype not in _REDUCED) else None
                if tb is not None:
                    out_dtype = out_dtype or compute_dtype
                    buf = dense(op, a._storage.buffer, a._offset, tb._storage.buffer, tb._offset, math.prod(sa),
                                out_dtype.np, None, tb is not b)
                    if buf is not None:
                        return Tensor._from_buffer(buf, sa, out_dtype, dev)
            elif b_dense and not any(a._stride):
                # one element expanded to b's shape (sum's gradient, g.expand(shape), meeting the
                # next backward formula) with a row-major b: the kernel reads a's element for all
                # n; the result is row-major, as TensorIterator lays it out (a 0 stride decides nothing)
                out_dtype = out_dtype or compute_dtype
                buf = dense(op, a._storage.buffer, a._offset, b._storage.buffer, b._offset, math.prod(sa),
                            out_dtype.np, None, False, True)
                if buf is not None:
                    return Tensor._from_buffer(buf, sa, out_dtype, dev)
    a_is_tensor = isinstance(a, Tensor)
    b_is_tensor = isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        dev = a._storage.device
        if b._storage.device is not dev:
            dev = check_same_device(a, b)
    else:
        dev = (a if a_is_tensor else b)._storage.device
    ta = a if a_is_tensor and a._dtype is compute_dtype else as_operand(a, compute_dtype, dev)
    if b_is_tensor and b._dtype is compute_dtype:
        tb = b
    else:
        b_dtype = compute_dtype if compute_dtype not in _REDUCED else _scalar_dtype(op, b, compute_dtype)
        tb = cast(b, b_dtype) if b_is_tensor else scalar_tensor(b, b_dtype, dev)
    sa, sb = ta._shape, tb._shape
    shape = sa if sa is sb and type(sa) is Size else broadcast_shapes(sa, sb)
    av = (ta._storage.buffer, ta._offset, shape, ta._stride) if sa == shape else broadcast_view(ta, shape)
    bv = (tb._storage.buffer, tb._offset, shape, tb._stride) if sb == shape else broadcast_view(tb, shape)
    out_dtype = out_dtype or compute_dtype
    if like is None:
        # the common case, row-major non-empty operands: one cached lookup each (a cast
        # copy has its original's shape; row_major_of holds no shape with a 0 in it)
        ra = row_major_of(sa) or row_major(sa)
        rb = ra if sb is sa else row_major_of(sb) or row_major(sb)
        if (not a_is_tensor or a._stride is ra or a._stride == ra) and \
                (not b_is_tensor or b._stride is rb or b._stride == rb):
            buf = get_backend(dev.type).binary(op, av, bv, shape, out_dtype.np)
            return Tensor._from_buffer(buf, shape, out_dtype, dev)
        # TensorIterator casts an operand of another dtype first (.to(), which lays a
        # broadcast one out densely in its memory order) and orders the result's dims by
        # the copies: an expanded bool beside a float tensor decides by its copy's strides
        # (seed 39013194)
        like = (ta if a_is_tensor else a, tb if b_is_tensor else b)
    layout = output_layout(shape, like)
    if layout is None:
        buf = get_backend(dev.type).binary(op, av, bv, shape, out_dtype.np)
        return Tensor._from_buffer(buf, shape, out_dtype, dev)
    order, strides = layout
    buf = get_backend(dev.type).binary(op, permuted(av, order), permuted(bv, order),
                                       tuple([shape[d] for d in order]), out_dtype.np)
    return new_strided(buf, shape, strides, out_dtype, dev)


_OPMATH_SCALAR_OPS = frozenset({"mul", "div", "floordiv"})
_REDUCED = (D.float16, D.bfloat16)      # computed in float32 (opmath), stored in 16 bits


def _scalar_dtype(op, b, compute_dtype):
    """The dtype b takes part in op as.  A float16 op computes in float32, and PyTorch's
    mul/div (and its floor and trunc forms) read a scalar second operand (a Python number or
    a 0-dim tensor) in float32 too, without rounding it to float16 first: x * 1.0004 !=
    x * half(1.0004).  Its add/sub (and their alpha), comparisons, pow, ... round the scalar
    to float16."""
    if compute_dtype in _REDUCED and op in _OPMATH_SCALAR_OPS and (
            not isinstance(b, Tensor) or (not b._shape and b._dtype is not D.bool_)):
        return D.float32
    return compute_dtype


def _alpha(alpha, dt):
    """add/sub's alpha as PyTorch's float16 kernels use it: rounded to float16 first."""
    return D.round_scalar(alpha, dt) if dt in _REDUCED else alpha


def _float_of(x):
    return x._dtype if x._dtype.is_floating_point else D.get_default_dtype()


def _unary_op(op, x, node_cls, save=None, float_only=True):
    """Run a unary kernel; record node_cls saving the input ('x') or the output ('out')."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    src = cast(x, _float_of(x)) if float_only else x
    out = _unary_raw(op, src, like=x)
    if node_cls is not None and needs_grad(x):
        node = record(node_cls, (x,), (out,))
        if save == "x":
            node.save(x)
        elif save == "out":
            node.save(out, outputs=(out,))
    return out


# ---------------------------------------------------------------- unary
# neg, abs, relu, exp, log, tanh, sigmoid, sin, ... and their nodes are rows of the op
# table (optable.py), made into ops at the end of this module (tabled.py).


def _zero_grad_node(name):
    def backward(self, g):
        return zeros_grad(g)
    return type(name, (Node,), {"backward": backward})


SignBackward0, FloorBackward0, CeilBackward0, RoundBackward0, TruncBackward0 = (
    _zero_grad_node(f"{name}Backward0") for name in ("Sign", "Floor", "Ceil", "Round", "Trunc"))


def sign(x):
    return _unary_op("sign", x, SignBackward0, float_only=False)


class SgnBackward0(Node):
    def backward(self, g):
        self.saved_tensors          # PyTorch's sgn_backward reads self and result (version-checked)
        # ... and for a real input returns zeros of its sizes, row-major whatever the layouts
        from .._creation import zeros
        return zeros(g._shape, dtype=g._dtype, device=g.device)


def sgn(x):
    """sign for real tensors, with PyTorch's SgnBackward0 (it saves input and result)."""
    check_dtype("sign", x._dtype)
    out = _unary_op("sign", x, None, float_only=False)
    if needs_grad(x):
        record(SgnBackward0, (x,), (out,)).save(x, out, outputs=(out,))
    return out


def floor(x):
    check_dtype("floor", x._dtype)
    return _unary_op("floor", x, FloorBackward0, float_only=False)


def ceil(x):
    check_dtype("ceil", x._dtype)
    return _unary_op("ceil", x, CeilBackward0, float_only=False)


def round(x, *, decimals=0):
    if decimals:
        check_dtype("round_decimals", x._dtype)
        scale = 10.0 ** decimals
        with_grad = _unary_op("round", x * scale, RoundBackward0, float_only=False)
        return with_grad / scale
    check_dtype("round", x._dtype)
    return _unary_op("round", x, RoundBackward0, float_only=False)


def trunc(x):
    check_dtype("trunc", x._dtype)
    return _unary_op("trunc", x, TruncBackward0, float_only=False)


def square(x):
    return pow(x, 2)


def logical_not(x):
    return _unary_raw("logical_not", x, D.bool_)


def bitwise_not(x):
    check_dtype("bitwise_not", x._dtype)
    return _unary_raw("bitwise_not", x)


def isnan(x):
    return _unary_raw("isnan", x, D.bool_)


def isinf(x):
    return _unary_raw("isinf", x, D.bool_)


def isfinite(x):
    return _unary_raw("isfinite", x, D.bool_)


# ---------------------------------------------------------------- binary
def _check_binary_dtype(op, dt, a, b):
    """The dtype table's check for a binary op, after the broadcast check: PyTorch's
    TensorIterator reports mismatched shapes before it looks for a kernel."""
    if refuses(op, dt):
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            broadcast_shapes(a._shape, b._shape)
        check_dtype(op, dt)


def _result_type(a, b):
    # fast paths for the common cases; everything else follows PyTorch's full rules
    if isinstance(a, Tensor):
        da = a._dtype
        if isinstance(b, Tensor):
            if b._dtype is da:
                return da
        elif type(b) is float:
            if da.is_floating_point:
                return da
        elif type(b) is int and da is not D.bool_:
            return da
    return D.result_type_of((a, b))


class AddBackward0(Node):
    alpha = 1

    def backward(self, g):
        return g, (g if self.alpha == 1 else g * self.alpha)


def _scaled_raw(op, a, b, alpha, dt):
    """a op alpha * b for two tensors in one backend call (PyTorch's add/sub with alpha)."""
    dev = check_same_device(a, b)
    ta, tb = cast(a, dt), cast(b, dt)
    shape = broadcast_shapes(ta._shape, tb._shape)
    buf = get_backend(dev.type).binary_scaled(op, broadcast_view(ta, shape), broadcast_view(tb, shape),
                                              alpha, shape, dt.np)
    return new_tensor(buf, shape, dt, dev)


def _one_scaled_kernel(b, alpha, dt):
    """add/sub(a, b, alpha) is one kernel and one node (AddBackward0/SubBackward0 with
    alpha, as PyTorch) for floating tensors."""
    return (alpha != 1 and isinstance(b, Tensor) and dt.is_floating_point and type(alpha) in (int, float))


def _check_alpha(alpha, dt):
    """PyTorch's alpha_check, before anything is computed or written."""
    if type(alpha) is bool and dt is not D.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not dt.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _alpha_by_position(op, b, extra, alpha):
    """(other, alpha) of add/sub given a third positional argument: the deprecated
    add(Number alpha, Tensor other) when b is a number and the third a tensor (x.add(2, t),
    torch.add(x, 2, t)); anything else PyTorch's parser refuses (x.add(t, 2): alpha is
    keyword-only), before any work."""
    from .._checks import is_number
    from ._signatures import number_first
    if len(extra) == 1 and alpha.__class__ is int and alpha == 1:     # (no alpha= beside it)
        # (its Tensor other takes a number too, wrapped: torch.add(x, 1, 2) is x + 1 * 2)
        number = number_first(op, b, () if is_number(extra[0]) else extra)
        if number is not None:
            return extra[0], number
    from ._argument_check import argument_error
    kwargs = {} if alpha.__class__ is int and alpha == 1 else {"alpha": alpha}
    raise argument_error(op, (b, *extra), kwargs, method=True) or \
        TypeError(f"{op}() takes 1 positional argument but {1 + len(extra)} were given")


def _alpha_number(op, b, alpha):
    """alpha= given a tensor: its value when PyTorch's parser takes it as a Number (0-dim, not
    requiring grad), else the parser's refusal."""
    from .._checks import is_number
    if is_number(alpha):
        return alpha.item()
    from ._argument_check import argument_error
    raise argument_error(op, (b,), {"alpha": alpha}, method=True) or \
        TypeError(f"{op}(): argument 'alpha' must be Number, not Tensor")


def _scaled_binary(op, node_cls, a, b, alpha):
    """a + alpha * b or a - alpha * b for a tensor `a` (PyTorch's add/sub with alpha)."""
    if alpha.__class__ is int and alpha == 1:    # the common call first: one kernel, one node
        dt = _result_type(a, b)
        out = _binary_raw(op, a, b, dt)
        if needs_grad(a, b):
            record_pair(node_cls, a, b, out)
        return out
    if isinstance(alpha, Tensor):
        alpha = _alpha_number(op, b, alpha)
    dt = _result_type(a, b)
    _check_alpha(alpha, dt)
    if _one_scaled_kernel(b, alpha, dt):
        out = _scaled_raw(op, a, b, alpha, dt)
        if needs_grad(a, b):
            record(node_cls, (a, b), (out,), alpha=alpha)
        return out
    if alpha != 1:
        checked_scalar(alpha, dt)
        if not isinstance(b, Tensor):
            b = b * alpha
        elif dt.is_floating_point:
            b = mul(b, _alpha(alpha, dt))
        else:       # alpha * b in the result's integer (or bool) type, wrapping as PyTorch's kernel
            b = mul(b.to(dt), bool(alpha) if dt is D.bool_ else alpha)
    out = _binary_raw(op, a, b, dt)
    if needs_grad(a, b):
        record(node_cls, (a, b), (out,))
    return out


def fma_raw(a, b, c, dt=None, like=None):
    """a * b + c rounded once (tensors or numbers, broadcast, in dt: by default their result
    type), not recorded: the one rounding of PyTorch's CPU kernels that fuse a multiply and
    an add (lerp, addcmul), for the op table's forward formulas and the ops built on it.
    `like`: the operands whose layout the result takes (TensorIterator's rule)."""
    tensors = [t for t in (a, b, c) if isinstance(t, Tensor)]
    if not tensors:
        from ..backends._shared.fast_math import fma
        return float(fma(float(a), float(b), float(c)))
    dt = dt or D.result_type_of((a, b, c))
    device = check_same_device(*tensors)
    shape = broadcast_shapes(*(t._shape for t in tensors))
    views = [broadcast_view(as_operand(v, dt, device), shape) for v in (a, b, c)]
    out = new_tensor(get_backend(device.type).fma(*views, shape, dt.np), shape, dt, device)
    layout = output_layout(shape, like if like is not None else tensors)
    return out if layout is None else _graph.copy_raw(out, tuple(layout[1]))


def wrapped_number(v):
    """A Python number given for both operands of add, sub, mul, div or floor_divide: PyTorch's
    parser wraps numbers as tensors for these (torch.add(2, 3) is tensor(5)); the 0-dim tensor
    of the number's default dtype (int64, the default float, bool) gives the same result type."""
    from .._creation import tensor
    return tensor(v)


def add(a, b, *alpha_by_position, alpha=1):
    if alpha_by_position:       # (alpha is keyword-only but for the deprecated Number-first overload)
        b, alpha = _alpha_by_position("add", b, alpha_by_position, alpha)
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            return add(wrapped_number(a), b, alpha=alpha)
        return add(b, a) if alpha == 1 else add(as_operand(a, _result_type(a, b), b.device), b, alpha=alpha)
    return _scaled_binary("add", AddBackward0, a, b, alpha)


_DIRECT_DTYPES = frozenset({D.float32, D.float64})
_DIRECT_OPS = frozenset({"add", "sub", "mul", "div"})


def _direct_target(t, *others):
    """(row-major strides, the n elements of t's buffer to write) when an in-place op on t
    may be written straight into t's memory: a row-major float32/float64 CPU t, nothing to
    record (with `others`), nbgrad.compile not recording (it records the general path's
    backend calls); else None."""
    if t._dtype not in _DIRECT_DTYPES or (_grad_state.enabled and needs_grad(t, *others)) \
            or _graph.CAPTURE[0] is not None or t._storage.device.type != "cpu":
        return None
    shape = t._shape
    rm = row_major_of(shape) or row_major(shape)
    if rm is None or not (t._stride is rm or t._stride == rm):
        return None
    n = math.prod(shape)
    buf, off = t._storage.buffer, t._offset
    return rm, (buf if off == 0 and n == buf.size else buf[off:off + n])


def _plain_number(x):
    """A Python float, or an int a scalar operand holds (bools and other types are not)."""
    kind = type(x)
    return kind is float or (kind is int and -2 ** 63 <= x < 2 ** 63)


def _write_binary(op, t, rm, out, operand, scalar):
    """out = t op operand, by the kernel the out-of-place op runs (operand: a 0-dim number
    operand when scalar, else a row-major tensor of t's shape and dtype)."""
    buf, off, shape, dt = t._storage.buffer, t._offset, t._shape, t._dtype
    obuf, ooff = operand._storage.buffer, operand._offset
    dense = _BINARY_DENSE["cpu"]
    if dense is None or dense(op, buf, off, obuf, ooff, out.size, dt.np, out, scalar, out_is_a=True) is None:
        get_backend("cpu").binary(op, (buf, off, shape, rm), (obuf, ooff, shape, (0,) * len(shape) if scalar else rm),
                                  shape, dt.np, out)


def binary_into_(op, t, other, alpha=1):
    """t.add_/sub_/mul_/div_(other[, alpha=]) written straight into t's memory when nothing
    is recorded: a teaching loop's `w -= lr * w.grad` under no_grad, an optimizer's
    `p.add_(g, alpha=-lr)`.  The general in-place path (inplace.apply_inplace) computes a new
    tensor and copies it in: a second pass over the memory and ~10 us of checks and planning
    per call.  This one runs the kernel the out-of-place op runs, on the same operands, with
    t's memory as its output, so the bits are the same.  It serves _direct_target's t with a
    Python float or int, or with a row-major tensor of t's dtype and shape that is t's own
    memory or shares no storage with it (no partial overlap to refuse); alpha only beside
    such a tensor (PyTorch's one fused multiply-add).  Returns False, having written
    nothing, for any other call: the caller takes the general path, which also raises
    every error."""
    target = _direct_target(t, other)
    if target is None or type(alpha) is bool or (type(alpha) is float and not t._dtype.is_floating_point):
        return False        # (an alpha PyTorch refuses: the general path raises, writing nothing)
    rm, out = target
    dt, dev, shape = t._dtype, t._storage.device, t._shape
    if _plain_number(other):
        if alpha != 1:
            return False
        operand, scalar = scalar_tensor(other, dt, dev), True
    elif isinstance(other, Tensor) and not other._shape and shape and alpha == 1:
        # a 0-dim tensor of t's dtype (clip_grad_norm_'s g.mul_(coef)): read as the number
        # operand is, by the same kernel; not one in t's own storage (the general path's
        # overlap check decides that)
        st, so = t._storage, other._storage
        if other._dtype is not dt or so.device is not dev or (st.root or st) is (so.root or so):
            return False
        operand, scalar = other, True
    elif isinstance(other, Tensor):
        st, so = t._storage, other._storage
        if other._dtype is not dt or so.device is not dev or not (other._shape is shape or other._shape == shape) \
                or not (other._stride is rm or other._stride == rm):
            return False
        if (st.root or st) is (so.root or so) and (other._offset != t._offset or so is not st):
            return False        # a partial overlap (an error) or another storage of one root
        if alpha != 1 and not (type(alpha) in (int, float) and op in ("add", "sub")):
            return False
        operand, scalar = other, False
    else:
        return False
    if alpha != 1:
        get_backend("cpu").binary_scaled(op, (t._storage.buffer, t._offset, shape, rm),
                                         (operand._storage.buffer, operand._offset, shape, rm), alpha, shape, dt.np,
                                         out=out)
    else:
        _write_binary(op, t, rm, out, operand, scalar)
    t._vc.value += 1
    return True


def clamp_into_(t, min, max):
    """t.clamp_(min, max) with Python-number bounds written straight into t's memory when
    nothing is recorded: clamp's two kernels (maximum, then minimum) with t's memory as
    their output, one version bump.  _direct_target's t; False, having written nothing,
    for any other call (a bound that is a tensor, a bool or out of t's range)."""
    if min is None and max is None:
        return False
    target = _direct_target(t)
    if target is None or not all(b is None or (_plain_number(b) and not scalar_overflows(b, t._dtype))
                                 for b in (min, max)):
        return False
    rm, out = target
    if not (min is not None and max is not None and _clamp_dense(t, min, max, out, True) is not None):
        for op, bound in (("maximum", min), ("minimum", max)):
            if bound is not None:
                _write_binary(op, t, rm, out, scalar_tensor(bound, t._dtype, t._storage.device), True)
    t._vc.value += 1
    return True


# t1 * value, then fma(that, t2, t): addcmul's two roundings (inputs t1, value, t2, t)
_ADDCMUL_SCALED = (("input", 0), ("input", 1), ("mul", 0, 1), ("input", 2), ("input", 3), ("fma", 2, 3, 4))


def addc_into_(op, t, args, kwargs):
    """t.addcmul_(t1, t2, value=v) / t.addcdiv_(...) written straight into _direct_target's t
    when nothing is recorded: a hand-written optimizer's `v.mul_(b2).addcmul_(g, g, value=1 -
    b2)` under no_grad.  The out-of-place op's kernels on the same operands (more.py's
    _addcmul_values, _addcdiv_values), so its bits; t1 and t2 row-major tensors of t's dtype
    and shape, t's own memory or sharing none of it.  False, having written nothing, for
    any other call (the general path also raises every error)."""
    if len(args) != 2 or (kwargs and list(kwargs) != ["value"]):
        return False
    value = kwargs.get("value", 1)
    t1, t2 = args
    if not _plain_number(value) or not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        return False
    target = _direct_target(t, t1, t2)
    if target is None:
        return False
    rm, out = target
    dt, dev, shape, st = t._dtype, t._storage.device, t._shape, t._storage
    for o in (t1, t2):
        so = o._storage
        if o._dtype is not dt or so.device is not dev or not (o._shape is shape or o._shape == shape) \
                or not (o._stride is rm or o._stride == rm) \
                or ((st.root or st) is (so.root or so) and (o._offset != t._offset or so is not st)):
            return False
    if op == "addcmul" and value != 1:
        # fma(t1 * value, t2, t) as one fused pass (the value an operand: one kernel for any value)
        get_backend("cpu").fused_elementwise(
            _ADDCMUL_SCALED, (5,), [(t1._storage.buffer, t1._offset, "v"), (np.array([value], dt.np), 0, "s"),
                                    (t2._storage.buffer, t2._offset, "v"), (st.buffer, t._offset, "v")],
            math.prod(shape), dt.np, out=out)
        t._vc.value += 1
        return True
    scaled = t1 if value == 1 else _binary_raw("mul", t1, value, dt)
    if op == "addcmul":         # fma(value * t1, t2, t): one rounding, PyTorch's CPU kernel
        get_backend("cpu").fma((scaled._storage.buffer, scaled._offset, shape, rm),
                               (t2._storage.buffer, t2._offset, shape, rm),
                               (st.buffer, t._offset, shape, rm), shape, dt.np, out=out)
    else:                       # t + value * t1 / t2, each op rounded
        _write_binary("add", t, rm, out, _binary_raw("div", scaled, t2, dt), False)
    t._vc.value += 1
    return True


def _clamp_dense(x, min, max, out=None, out_is_x=False):
    """The backend's one-pass clamp of a row-major x by two numbers (of x's range), into out
    (out_is_x: x's own run) or a new buffer; None when it does not serve the call."""
    dense = _CLAMP_DENSE[x._storage.device.type]
    if dense is None:
        return None
    bounds = np.array([min, max], x._dtype.np)
    return dense(x._storage.buffer, x._offset, math.prod(x._shape), bounds, out, out_is_x)


def unary_into_(kernel, t):
    """t.relu_(), t.neg_(), t.exp_(), ... (an op-table row that is one unary kernel) written
    straight into _direct_target's t when nothing is recorded.  False, having written
    nothing, for any other call."""
    target = _direct_target(t)
    if target is None:
        return False
    rm, out = target
    buf, off, dt = t._storage.buffer, t._offset, t._dtype
    dense = _UNARY_DENSE["cpu"]
    if dense is None or dense(kernel, buf, off, out.size, dt.np, out, out_is_x=True) is None:
        get_backend("cpu").unary(kernel, (buf, off, t._shape, rm), dt.np, out)
    t._vc.value += 1
    return True


def accumulate_(dst, src):
    """dst += src, not recorded: gradient accumulation (the engine's buffers, a leaf's
    .grad when grad mode is off).  One kernel pass written straight into dst's memory
    when dst is dense; otherwise the general in-place add (compute, then write).
    Returns dst.  The caller vouches that src's memory is not a different tensor's
    view partly overlapping dst (the engine's fresh gradient buffers never are)."""
    shape = dst._shape
    dtype = dst._dtype
    n = math.prod(shape)
    if src._dtype is dtype and (src._shape is shape or src._shape == shape) and src._storage is not dst._storage:
        # the engine's common case (W5: a leaf's 500 gradients added up): two row-major
        # tensors of one shape, the small op's shortcut into dst's memory
        rm = row_major_of(shape) or row_major(shape)
        dev = dst._storage.device
        if rm is not None and (dst._stride is rm or dst._stride == rm) and (src._stride is rm or src._stride == rm) \
                and src._storage.device is dev and dtype is not D.bool_:
            dense = _BINARY_DENSE[dev.type]
            if dense is not None:
                buf, off = dst._storage.buffer, dst._offset
                if dense("add", buf, off, src._storage.buffer, src._offset, n, dtype.np,
                         buf if off == 0 and len(buf) == n else buf[off:off + n]) is not None:
                    dst._vc.value += 1
                    return dst
    if (n and src._dtype is dtype and src._storage.device is dst._storage.device and dtype is not D.bool_
            and (src._shape == shape or broadcast_shapes(src._shape, shape) == shape)):
        order = None
        if dst._stride == _strides_of(shape) or dst.is_contiguous():
            # src may be dst itself (x.grad += x.grad), read and written at the same places
            one_pass = src._storage is not dst._storage or (
                src._offset == dst._offset and src._shape == shape and src._stride == dst._stride)
        else:
            # a dense permuted dst (a transposed leaf's .grad): the same one pass, over the
            # views taken in dst's memory order
            one_pass = (src._storage is not dst._storage and is_dense(shape, dst._stride)
                        and not any(st < 0 for st in dst._stride))
            if one_pass:
                order = order_of_strides(shape, dst._stride)
        if one_pass:
            buf = dst._storage.buffer
            off = dst._offset
            out = buf if off == 0 and len(buf) == n else buf[off:off + n]
            dv = (buf, off, shape, dst._stride)
            sv = (src._storage.buffer, src._offset, shape, src._stride) if src._shape == shape \
                else broadcast_view(src, shape)
            if order is not None:
                dv, sv, shape = permuted(dv, order), permuted(sv, order), tuple([shape[d] for d in order])
            backend_of(dst).binary("add", dv, sv, shape, dtype.np, out)
            dst._vc.value += 1
            return dst
    with no_grad():
        return dst.add_(src)


# -- the Scalar overloads (add.Scalar, sub.Scalar, mul.Scalar, div.Scalar): what a C++
# derivative formula's `tensor * number` calls in PyTorch, so the nodes a create_graph
# backward records there are AddBackward1 ... DivBackward1 (Python's `t * 2.0` wraps the
# number into a tensor instead: MulBackward0).  The op table's formula evaluator
# (nbgrad/ops/_expr.py) calls these for a tensor and a number.
class AddBackward1(Node):
    def backward(self, g):
        return (g,)


class SubBackward1(Node):
    def backward(self, g):
        return (g,)


class MulBackward1(Node):
    scalar = None

    def backward(self, g):
        return (mul_scalar(g, self.scalar),)


class DivBackward1(Node):
    scalar = None

    def backward(self, g):
        return (div_scalar(g, self.scalar),)


def _scalar_overload(op, node_cls, t, number):
    dt = _result_type(t, number)
    if op == "div" and not dt.is_floating_point:        # (true division, as div's)
        dt = D.get_default_dtype()
    out = _binary_raw(op, t, number, dt)
    if needs_grad(t):
        record(node_cls, (t,), (out,), scalar=number)
    return out


def add_scalar(t, number):
    return _scalar_overload("add", AddBackward1, t, number)


def sub_scalar(t, number):
    return _scalar_overload("sub", SubBackward1, t, number)


def mul_scalar(t, number):
    return _scalar_overload("mul", MulBackward1, t, number)


def div_scalar(t, number):
    return _scalar_overload("div", DivBackward1, t, number)


class SubBackward0(Node):
    alpha = 1

    def backward(self, g):
        return g, -g if self.alpha == 1 else g * -self.alpha


def sub(a, b, *alpha_by_position, alpha=1):
    if alpha_by_position:       # (alpha is keyword-only but for the deprecated Number-first overload)
        b, alpha = _alpha_by_position("sub", b, alpha_by_position, alpha)
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            return sub(wrapped_number(a), b, alpha=alpha)
        return rsub(b, a, alpha=alpha)
    if isinstance(alpha, Tensor):       # (the parser's verdict before sub's bool check)
        alpha = _alpha_number("sub", b, alpha)
    check_sub(a, b)
    return _scaled_binary("sub", SubBackward0, a, b, alpha)


def subtract(a, b, *alpha_by_position, alpha=1):
    """torch.subtract: sub without sub's deprecated Number-first overload.  Its own
    subtract(Tensor input, Scalar other, Scalar alpha) takes alpha by position, other read as
    a number (a 0-dim tensor's value): torch.subtract(x, 2, 3) is x - 6."""
    if alpha_by_position:
        number, alpha = subtract_scalar_arguments("subtract", (a,), b, alpha_by_position, alpha)
        return sub_scalar_alpha(a, number, alpha)
    return sub(a, b, alpha=alpha)


def subtract_scalar_arguments(name, head, other, alpha_by_position, alpha, method=False):
    """(other as a number, alpha) of subtract's or subtract_'s Scalar overload, alpha given by
    position (a 0-dim tensor other is its value), or the parser's refusal of the call; `head`:
    the arguments before other (none for a method)."""
    from ._argument_check import argument_error
    kwargs = {} if alpha.__class__ is int and alpha == 1 else {"alpha": alpha}
    error = argument_error(name, (*head, other, *alpha_by_position), kwargs, method=method)
    if error is not None:
        raise error
    (alpha,) = alpha_by_position
    return (other.item() if isinstance(other, Tensor) else other), alpha


def sub_scalar_alpha(a, number, alpha):
    """ATen's sub.Scalar(self, other, alpha), a - alpha * number: its node is SubBackward1."""
    with no_grad():
        out = sub(a, number, alpha=alpha)
    if needs_grad(a):
        record(SubBackward1, (a,), (out,))
    return out


class RsubBackward1(Node):
    alpha = 1

    def backward(self, g):
        return (-g if self.alpha == 1 else -g * self.alpha,)         # PyTorch: -grad * alpha


class RsubBackward0(Node):
    alpha = 1

    def backward(self, g):
        return (-g if self.alpha == 1 else -g * self.alpha), g


def rsub(x, other, *number_alpha, alpha=1):
    """other - alpha * x (PyTorch's rsub).  An alpha given by position is the overload
    rsub(Tensor, Scalar other, Scalar alpha): a tensor other is read as its number there (a
    0-dim float64 one is a Python float, of the default dtype with an integer x)."""
    if number_alpha:
        (alpha,) = number_alpha
        if isinstance(other, Tensor):
            other = other.item()
    check_sub(other, x)
    dt = _result_type(x, other)
    if alpha == 1 and alpha is not True:
        scaled = x
    else:
        _check_alpha(alpha, dt)
        # (not recorded: the node below carries alpha; a recorded product left x's gradient
        # without it, -grad for every alpha)
        scaled = _binary_raw("mul", x, _alpha(alpha, dt), dt)
    out = _binary_raw("sub", other, scaled, dt)
    if needs_grad(x, other):
        if isinstance(other, Tensor):
            node = record(RsubBackward0, (x, other), (out,))
        else:
            node = record(RsubBackward1, (x,), (out,))
        if alpha != 1:
            node.alpha = alpha
    return out


def _same_device(a, g, b):
    # (the device objects themselves first: device.__eq__ is Python, run per node)
    da, dg, db = a._storage.device, g._storage.device, b._storage.device
    return (da is dg or da == dg) and (db is dg or db == dg)


class MulBackward0(Node):
    b_scalar = None      # the Python number b, when b is not a tensor

    def backward(self, g):
        a, b = self._unpacked_saved()
        wanted = self._wanted
        if wanted is None:
            fns = self._next_fns
            need_a, need_b = fns[0] is not None, fns[1] is not None
        else:
            need_a, need_b = wanted
        if need_a and need_b and _graph.ACCELERATIONS_ON and not _grad_state.enabled and a is not None and b is not None:
            both = _mul_backward_dense(g, a, b)
            if both is not None:
                return both
        if need_a and need_b and backward_path(
                lambda: a._dtype is g._dtype and b._dtype is g._dtype and _same_device(a, g, b)
                and accelerated(g, "mul_backward")
                and output_layout(g._shape, (g, b)) is None and output_layout(g._shape, (g, a)) is None,
                g, a, b) is FUSED:
            # both gradients in one fused pass over g, a and b
            shape = g._shape
            ga, gb = backend_of(g).mul_backward(g._view_tuple(), broadcast_view(a, shape),
                                                broadcast_view(b, shape), True, True)
            dev = g._storage.device
            return (new_tensor(ga, shape, g._dtype, dev), new_tensor(gb, shape, g._dtype, dev))
        ga = (g * (b if b is not None else self.b_scalar)) if need_a else None
        gb = (g * a) if need_b else None
        return ga, gb


def _mul_backward_dense(g, a, b):
    """MulBackward0's FUSED path for the small op's common case, decided in a few reads:
    g, a and b of one dtype, shape and device, all row-major; None when it is not that case
    (or the backend has no shortcut for it), and backward() decides as usual."""
    shape, dt = g._shape, g._dtype
    if a._dtype is not dt or b._dtype is not dt or not (a._shape == shape and b._shape == shape):
        return None
    rm = row_major_of(shape) or row_major(shape)
    if rm is None or not ((g._stride is rm or g._stride == rm) and (a._stride is rm or a._stride == rm)
                          and (b._stride is rm or b._stride == rm)):
        return None
    dev = g._storage.device
    if a._storage.device is not dev or b._storage.device is not dev:
        return None
    dense = _MUL_BACKWARD_DENSE[dev.type]
    if dense is None:
        return None
    bufs = dense(g._storage.buffer, g._offset, a._storage.buffer, a._offset, b._storage.buffer, b._offset,
                 math.prod(shape))
    if bufs is None:
        return None
    return Tensor._from_buffer(bufs[0], shape, dt, dev), Tensor._from_buffer(bufs[1], shape, dt, dev)


def mul(a, b):
    if not isinstance(a, Tensor):
        a, b = (b, a) if isinstance(b, Tensor) else (wrapped_number(a), b)
    dt = _result_type(a, b)
    out = _binary_raw("mul", a, b, dt)
    if needs_grad(a, b):
        if isinstance(b, Tensor):
            node = record_pair(MulBackward0, a, b, out)
            # PyTorch saves an operand used by one input's derivative only when that input
            # has an edge (should_compute_output): a's for b's gradient, b's for a's
            fa, fb = node._next_fns
            node._saved = (None if fb is None else _saved_input(a), None if fa is None else _saved_input(b))
        else:
            node = record(MulBackward0, (a, b), (out,), b_scalar=b)
            _save_operands(node, a, b, False, node._next_fns[0] is not None)
    return out


def _save_operands(node, a, b, save_a, save_b):
    """node.save(a, b) of those asked for (a Python number as nothing to save), as PyTorch's
    formulas save self and other; an other that is a Python number PyTorch saves as a wrapped-
    number tensor, which is freed with the rest (node._scalar_saved: the error after a
    backward that freed the graph)."""
    b_is_tensor = isinstance(b, Tensor)
    node.save(a if save_a and isinstance(a, Tensor) else None, b if save_b and b_is_tensor else None)
    if save_b and not b_is_tensor:
        node._scalar_saved = True


class DivBackward0(Node):
    b_scalar = None      # the Python number b, when b is not a tensor

    def backward(self, g):
        a, b = self.saved_tensors
        if b is None:
            return g / self.b_scalar, None
        ga = g / b if self.needs_input_grad(0) else None
        gb = -g * ((a / b) / b) if self.needs_input_grad(1) else None     # PyTorch's order: finite/inf at b == 0, twice
        return ga, gb


class DivBackward2(Node):
    """div with a rounding mode: piecewise constant, so zero gradients (PyTorch's)."""

    def backward(self, g):
        return tuple(zeros_grad(g) if self.needs_input_grad(i) else None for i in range(len(self._next_fns)))


def div(a, b, *, rounding_mode=None):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = wrapped_number(a)
    if rounding_mode is not None:
        if rounding_mode == "floor":
            with no_grad():
                out = floor_divide(a, b)
        elif rounding_mode == "trunc":
            dt = _result_type(a, b)
            _check_binary_dtype("div_trunc", dt, a, b)
            _check_integer_divisor(b, dt, a)
            if dt in _REDUCED:
                # PyTorch's float16 kernel: trunc(a / b) in float32, rounded once (the
                # quotient rounded to float16 first may reach the next integer)
                out = cast(_unary_raw("trunc", _binary_raw("div", a, b, D.float32)), dt)
            elif dt.is_floating_point:
                out = _unary_raw("trunc", _binary_raw("div", a, b, dt))
            else:
                # integers exactly: the floor quotient, one up where it rounded a negative
                # non-integer quotient down (through float64, |a| > 2**53 lost its low bits:
                # int64 -2**63 // 3 truncated was -3074457345618258432, not ...602)
                with no_grad():
                    q = floor_divide(a, b)
                    inexact = remainder(a, b) != 0
                    out = add(q, cast(inexact & ((a < 0) != (b < 0)), dt))
        else:
            raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
        if needs_grad(a, b) and out._dtype.is_floating_point:
            node = record(DivBackward2, (a, b), (out,))
            # PyTorch's formulas (grad * 0 for both) name self and other, so it saves other
            # (a Python number as a wrapped-number tensor) and, for other's gradient, self:
            # their version checks and the freed-after-backward error follow
            _save_operands(node, a, b, node.needs_input_grad(1), True)
        return out
    if not isinstance(a, Tensor):
        return mul(reciprocal(b), a)
    dt = _result_type(a, b)
    if not dt.is_floating_point:
        dt = D.get_default_dtype()
    out = _binary_raw("div", a, b, dt)
    if needs_grad(a, b):
        b_is_tensor = isinstance(b, Tensor)
        node = record_pair(DivBackward0, a, b, out) if b_is_tensor else \
            record(DivBackward0, (a, b), (out,), b_scalar=b)
        _save_operands(node, a, b, node.needs_input_grad(1), True)
    return out


def _check_integer_divisor(b, dt, a=None):
    """Integer division by zero raises, as in PyTorch (floats give inf/nan); PyTorch's
    check is in the kernel's loop, so an empty result raises nothing."""
    if dt.is_floating_point:
        return
    if isinstance(a, Tensor) and (a.numel() == 0 or
                                  (isinstance(b, Tensor) and 0 in broadcast_shapes(a._shape, b._shape))):
        return
    if isinstance(b, Tensor):
        if b.numel() and bool(_binary_raw("eq", b, 0, b._dtype, D.bool_).any()):
            raise RuntimeError("ZeroDivisionError")
    elif b == 0 or (b.__class__ is int and dt is not D.bool_ and b % (1 << (8 * dt.np.itemsize)) == 0):
        raise RuntimeError("ZeroDivisionError")     # (a number cast to an integer dtype wraps: uint8's 256 is 0)


def floor_divide(a, b):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = wrapped_number(a)
    dt = _result_type(a, b)
    _check_binary_dtype("floor_divide", dt, a, b)
    _check_integer_divisor(b, dt, a)
    out = _binary_raw("floordiv", a, b, dt)
    if needs_grad(a, b) and dt.is_floating_point:
        record(NotImplementedNode, (a, b), (out,), op_name="floor_divide")
    return out


class RemainderBackward0(Node):
    def backward(self, g):
        return (g,)


class RemainderBackward1(Node):
    def backward(self, g):
        if not self.needs_input_grad(1):
            return g, None
        a, b = self.saved_tensors
        # PyTorch: -grad * self.div(other, rounding_mode="floor"), whose own gradient is 0
        return g, -g * div(a, b, rounding_mode="floor")


def remainder(a, b):
    dt = _result_type(a, b)
    _check_binary_dtype("remainder", dt, a, b)
    _check_integer_divisor(b, dt, a)
    out = _binary_raw("remainder", a, b, dt)
    if needs_grad(a, b):
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            node = record(RemainderBackward1, (a, b), (out,))
            if b._requires_grad:      # PyTorch saves self and other only for other's formula
                node.save(a, b)
        elif isinstance(a, Tensor):
            record(RemainderBackward0, (a,), (out,))
        else:       # a number % a tensor: remainder.Scalar_Tensor has no formula in PyTorch
            record(NotImplementedNode, (b,), (out,), op_name="remainder")
    return out



class PowBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        e = self.exponent
        if e == 0:      # PyTorch: zeros_like(self, contiguous)
            from .._creation import zeros
            return zeros(x._shape, dtype=x._dtype, device=x.device)
        return g * (x.pow(e - 1) * e)           # PyTorch: grad * (exp * self.pow(exp - 1))


class PowBackward1(Node):
    def backward(self, g):
        a, b, out = self.saved_tensors
        ga = gb = None
        if self.needs_input_grad(0):
            # PyTorch's pow_backward_self: 0 where the exponent is 0 (0 ** -1 there otherwise)
            ga = where(b == 0, 0.0, g * (b * a.pow(b - 1)))
        if self.needs_input_grad(1):
            # d/db a**b = a**b * log(a); PyTorch masks a == 0 (with b >= 0) to 0, and takes
            # the log of a promoted to the result's type first (an integer or float16 base's
            # log in float32 cost float64 results their low bits)
            a_ = a if a._dtype is out._dtype else a.to(out._dtype)
            gb = g * where((a == 0) & (b >= 0), 0.0, out * log(a_))
        return ga, gb


class PowBackward2(Node):
    def backward(self, g):
        # PyTorch's pow_backward_exponent for a Python base: out * log(base), masked to 0
        # where base == 0 and the exponent >= 0 (a negative base gives nan, as log does)
        out, b = self.saved_tensors
        base = self.base
        if base == 0:
            return (g * where(b >= 0, 0.0, out * -math.inf),)
        return (g * (out * (math.log(base) if base > 0 else math.nan)),)


def _int_pow_negative(a, b, dt):
    """Integer pow with some negative exponents in a tensor b (PyTorch raises only for a
    Python-number exponent): 1 ** e is 1, (-1) ** e is -1 for odd e and 1 for even e,
    any other base gives 0."""
    at = a if isinstance(a, Tensor) else as_operand(a, dt, b._storage.device)
    neg = _binary_raw("lt", b, 0, b._dtype, D.bool_)
    pos = _binary_raw("pow", at, _binary_raw("maximum", b, 0, b._dtype), dt)
    odd = _binary_raw("ne", _binary_raw("remainder", b, 2, b._dtype), 0, b._dtype, D.bool_)
    minus_one = _where_raw(odd, -1, 1, dt)
    at_neg = _where_raw(_binary_raw("eq", at, 1, dt, D.bool_), 1,
                        _where_raw(_binary_raw("eq", at, -1, dt, D.bool_), minus_one, 0, dt), dt)
    # pow(a, b)'s layout: pow(Scalar, Tensor) allocates its result row-major
    return _where_raw(neg, at_neg, pos, dt, like=(at, b) if isinstance(a, Tensor) else ())


def _pow_special(a, b, dt):
    """PyTorch's pow_tensor_scalar_optimized: x ** 0.5 is sqrt, ** -0.5 rsqrt, ** 2 x*x,
    ** 3 x*x*x, ** -1 1/x, ** -2 1/(x*x) -- which differ from pow at signed zeros
    (sqrt(-0.0) is -0.0) and in the last bit.  None for any other exponent."""
    if a._dtype is not dt or dt not in (D.float32, D.float64, D.bfloat16) or isinstance(b, bool):
        return None
    if b == 2:
        return _binary_raw("mul", a, a, dt, like=(a,))
    if b == 3:
        return _binary_raw("mul", _binary_raw("mul", a, a, dt, like=(a,)), a, dt, like=(a,))
    if b == 0.5:
        return _unary_raw("sqrt", a, like=a)
    if b == -0.5:
        return _unary_raw("rsqrt", a, like=a)
    if b == -1:
        return _unary_raw("reciprocal", a, like=a)
    if b == -2:
        return _unary_raw("reciprocal", _binary_raw("mul", a, a, dt, like=(a,)), like=a)
    return None


def pow(a, b):
    dt = _result_type(a, b)
    if isinstance(b, Tensor):
        # (a bool tensor to a Python-number power is a copy or ones: PyTorch allows it)
        _check_binary_dtype("pow", dt, a, b)
    if not dt.is_floating_point:
        if not isinstance(b, Tensor):
            if b < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            checked_scalar(b, dt)
        elif b.numel() and bool(_binary_raw("lt", b, 0, b._dtype, D.bool_).any()):
            return _int_pow_negative(a, b, dt)
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        if (dt is D.float16 or dt is D.bfloat16) and b != 0 and b != 1:
            checked_scalar(b, dt)       # (ATen's kernel reads the exponent as the 16-bit type; 0 and 1 are fills)
        out = _pow_special(a, b, dt)
        if out is None:
            out = _binary_raw("pow", a, b, dt, like=(a,))
        if needs_grad(a):
            node = record(PowBackward0, (a,), (out,), exponent=b)
            node.save(a)
        return out
    # pow(Scalar, Tensor) allocates a row-major result in PyTorch (like=())
    out = _binary_raw("pow", a, b, dt, like=None if isinstance(a, Tensor) else ())
    if needs_grad(a, b):
        if isinstance(a, Tensor):
            node = record(PowBackward1, (a, b), (out,))
            node.save(a, b, out, outputs=(out,))
        else:
            node = record(PowBackward2, (b,), (out,), base=a)
            node.save(out, b, outputs=(out,))      # PyTorch saves the exponent whatever the base
    return out


class MaximumBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        # PyTorch: where(self == other, grad / 2, grad).masked_fill_(self < other, 0) (and
        # self > other for other): a NaN operand passes the whole gradient to both
        return _split_backward(self, a, b, g, lt)


def _split_backward(node, a, b, g, loses):
    """maximum's/minimum's gradients: halves at ties, 0 for the operand that loses
    (loses(a, b): where a loses to b), the whole gradient otherwise."""
    eq = a == b
    ga = gb = None
    if node.needs_input_grad(0):
        ga = where(eq, g / 2, g)
        ga = _masked_fill_inplace(ga, loses(a, b))
    if node.needs_input_grad(1):
        gb = where(eq, g / 2, g)
        gb = _masked_fill_inplace(gb, loses(b, a))
    return ga, gb


def _masked_fill_inplace(t, mask):
    if broadcast_shapes(t._shape, mask._shape) != t._shape:
        return where(mask, 0.0, t)
    return t.masked_fill_(mask, 0.0)


class MinimumBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return _split_backward(self, a, b, g, gt)          # as MaximumBackward0, masks swapped


def _require_tensors(name, a, b):
    if not isinstance(a, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")
    if not isinstance(b, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(b).__name__}")


def _extremum(op, node_cls, a, b):
    _require_tensors(op, a, b)
    out = _binary_raw(op, a, b, _result_type(a, b))
    if needs_grad(a, b):
        record(node_cls, (a, b), (out,)).save(a, b)
    return out


def maximum(a, b):
    return _extremum("maximum", MaximumBackward0, a, b)


def minimum(a, b):
    return _extremum("minimum", MinimumBackward0, a, b)


def _compare(op):
    def compare(a, b):
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError(f"{op}(): expected a Tensor")
        return _binary_raw(op, a, b, _result_type(a, b), D.bool_)
    compare.__name__ = op
    return compare


eq, ne, lt, le, gt, ge = (_compare(op) for op in ("eq", "ne", "lt", "le", "gt", "ge"))


def _logical(op):
    def logical(a, b):
        _require_tensors(op, a, b)
        return _binary_raw(op, a, b, _result_type(a, b), D.bool_)
    logical.__name__ = op
    return logical


logical_and, logical_or, logical_xor = (_logical(op) for op in ("logical_and", "logical_or", "logical_xor"))


def _bitwise(op):
    def bitwise(a, b):
        dt = _result_type(a, b)
        _check_binary_dtype(op, dt, a, b)
        return _binary_raw(op, a, b, dt)
    bitwise.__name__ = op
    return bitwise


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(op) for op in ("bitwise_and", "bitwise_or", "bitwise_xor"))


# ---------------------------------------------------------------- where, clamp, masked_fill
def _where_raw(cond, a, b, dt, like=None):
    """where(cond, a, b) as dt; the result takes the layout of `like` (default: the
    three operands, as PyTorch's where)."""
    dev = check_same_device(cond, a, b)
    ta, tb = as_operand(a, dt, dev), as_operand(b, dt, dev)
    shape = broadcast_shapes(cond._shape, ta._shape, tb._shape)
    views = (broadcast_view(cond, shape), broadcast_view(ta, shape), broadcast_view(tb, shape))
    layout = output_layout(shape, (cond, a, b) if like is None else like)
    if layout is None:
        buf = backend_of(ta).where(*views, shape, dt.np)
        return new_tensor(buf, shape, dt, dev)
    order, strides = layout
    buf = backend_of(ta).where(*[permuted(v, order) for v in views],
                               tuple([shape[d] for d in order]), dt.np)
    return new_strided(buf, shape, strides, dt, dev)


class WhereBackward0(Node):
    def backward(self, g):
        (cond,) = self.saved_tensors
        ga = where(cond, g, 0.0) if self.needs_input_grad(0) else None
        gb = where(cond, 0.0, g) if self.needs_input_grad(1) else None
        return ga, gb


def where(condition, input=None, other=None):
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if condition._dtype is D.uint8:
        from .._warnings import warn_once
        warn_once("where_uint8", "where received a uint8 condition tensor. This behavior is deprecated and will be "
                  "removed in a future version of PyTorch. Use a boolean condition instead.")
        condition = condition.to(D.bool_)
    if condition._dtype is not D.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {D.scalar_type_name(condition._dtype)}")
    dt = D.result_type_of((input, other))
    for v in (input, other):
        if not isinstance(v, Tensor):
            checked_scalar(v, dt)
    out = _where_raw(condition, input, other, dt)
    if needs_grad(input, other):
        record(WhereBackward0, (input, other), (out,)).save(condition)
    return out


class ClampBackward1(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        mask = None
        if self.min is not None:
            mask = x >= self.min
        if self.max is not None:
            upper = x <= self.max
            mask = upper if mask is None else _logical_inplace(mask, "bitwise_and_", upper)
        return where(mask, g, 0.0)


class ClampBackward0(Node):
    def backward(self, g):
        # PyTorch's clamp_backward_min_max: where min > max the result is max, so min
        # gets no gradient and max gets all of it
        x, lo, hi = self.saved_tensors
        lo = self.min if lo is None else lo        # a Python bound beside a tensor one
        hi = self.max if hi is None else hi
        inside = None
        glo = ghi = None
        if lo is not None:
            inside = x >= lo
            if self.needs_input_grad(1):
                glo = where(_logical_inplace(x < lo, "bitwise_and_", lo < hi) if hi is not None else x < lo, g, 0.0)
        if hi is not None:
            upper = x <= hi
            inside = upper if inside is None else _logical_inplace(inside, "bitwise_and_", upper)
            if self.needs_input_grad(2):
                ghi = where(_logical_inplace(x > hi, "bitwise_or_", hi < lo) if lo is not None else x > hi, g, 0.0)
        return where(inside, g, 0.0), glo, ghi


def _logical_inplace(mask, method, other):
    """mask.logical_and_(other) as PyTorch's backward formulas write it (the result keeps
    mask's layout); out of place where other is a Python bool or broadcasts mask larger."""
    if not isinstance(other, Tensor) or broadcast_shapes(mask._shape, other._shape) != mask._shape:
        return mask & other if method == "bitwise_and_" else mask | other
    return getattr(mask, method)(other)


def _is_number_bound(b):
    return b is not None and not isinstance(b, Tensor)


def clamp(x, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensor_bounds = isinstance(min, Tensor) or isinstance(max, Tensor)
    if tensor_bounds and (_is_number_bound(min) or _is_number_bound(max)):
        # a number beside a 0-dim tensor bound: PyTorch's parser takes its Scalar overload,
        # reading the tensor as a number (clamp(int_x, float64 0-dim, 7) is float32)
        from .._checks import is_number
        if not all(b is None or not isinstance(b, Tensor) or is_number(b) for b in (min, max)):
            got = ", ".join(type(v).__name__ for v in (x, min, max) if v is not None)
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but expected one "
                            "of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
        min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
        tensor_bounds = False
    dt = D.result_type_of(tuple(v for v in (x, min, max) if v is not None))
    if dt is D.bool_:
        if not tensor_bounds:
            check_dtype("clamp" if min is not None and max is not None else
                        "clamp_min" if max is None else "clamp_max", dt)
        elif isinstance(min, Tensor) and isinstance(max, Tensor):
            check_dtype("clamp_tensor", dt)
    for bound in (min, max):
        if bound is not None and not isinstance(bound, Tensor):
            checked_scalar(bound, dt)
    out = cast(x, dt)
    with_grad = needs_grad(x, min, max)
    # the result takes x's layout (TensorIterator over x and the bounds), not a cast copy's;
    # a row-major x itself with number bounds: _binary_raw's own default (and its small-op
    # shortcut).  (A (1, 3) x of strides (1, 1) is not: its result is (3, 1), as x's layout.)
    like = tuple(v for v in (x, min, max) if v is not None) if tensor_bounds else \
        (None if out is x and x._stride == (row_major_of(x._shape) or row_major(x._shape)) else (x,))
    buf = None
    if like is None and min is not None and max is not None and x._dtype in _DIRECT_DTYPES:
        buf = _clamp_dense(x, min, max)     # (one pass: the two kernels' bits)
    if buf is not None:
        out = Tensor._from_buffer(buf, x._shape, x._dtype, x._storage.device)
    else:
        if min is not None:
            out = _binary_raw("maximum", out, min, dt, like=like)
        if max is not None:
            out = _binary_raw("minimum", out, max, dt, like=like)
    if with_grad:
        if tensor_bounds:
            node = record(ClampBackward0, (x, min, max), (out,),
                          min=None if isinstance(min, Tensor) else min,
                          max=None if isinstance(max, Tensor) else max)
            node.save(x, min if isinstance(min, Tensor) else None, max if isinstance(max, Tensor) else None)
        else:
            node = record(ClampBackward1, (x,), (out,), min=min, max=max)
            node.save(x)
    return out


def clamp_min(x, min):
    """clamp(x, min=min) under ATen's own op's node: ClampMinBackward0 (a number), 1 (a tensor)."""
    out = clamp(x, min=min)
    if out._grad_fn is None:
        return out
    from .more import renamed
    return renamed(out, "ClampMinBackward1" if isinstance(min, Tensor) else "ClampMinBackward0")


def clamp_max(x, max):
    out = clamp(x, max=max)
    if out._grad_fn is None:
        return out
    from .more import renamed
    return renamed(out, "ClampMaxBackward1" if isinstance(max, Tensor) else "ClampMaxBackward0")


class MaskedFillBackward0(Node):
    """masked_fill with a number (PyTorch's masked_fill.Scalar): one input, self."""
    def backward(self, g):
        (mask,) = self.saved_tensors
        return masked_fill(g, mask, 0.0)         # PyTorch's formula


class MaskedFillBackward1(Node):
    """masked_fill with a 0-dim tensor value (PyTorch's masked_fill.Tensor): self and value."""
    def backward(self, g):
        (mask,) = self.saved_tensors
        gx = masked_fill(g, mask, 0.0) if self.needs_input_grad(0) else None
        gv = where(mask, g, 0.0).sum() if self.needs_input_grad(1) else None
        return gx, gv


def check_masked_fill_arguments(name, mask, value):
    """Tensor.masked_fill(_)'s own check of the parser's kinds (hot methods, left unwrapped by
    _signatures.tensor_methods): a mask that is not a tensor, a value that is not a number."""
    if not isinstance(mask, Tensor) or not (isinstance(value, (float, int, Tensor)) or is_number(value)):
        from ._argument_check import argument_error
        raise argument_error(name, (mask, value), {}, method=True)


def masked_fill_method(x, mask, value):
    check_masked_fill_arguments("masked_fill", mask, value)
    return masked_fill(x, mask, value)


def masked_fill(x, mask, value):
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{D.cpp_type_name(mask._dtype)}")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.dim()} dimension(s).")
    broadcast_shapes(x._shape, mask._shape)   # out of place x broadcasts with the mask, as
    fill = value                              # PyTorch's; masked_fill_ refuses a larger shape
    if isinstance(value, Tensor):
        checked_scalar(value.item(), x._dtype)
        fill = cast(value, x._dtype)
    else:
        checked_scalar(value, x._dtype)
    out = _where_raw(mask, fill, x, x._dtype, like=())    # x.clone(contiguous_format).masked_fill_
    if isinstance(value, Tensor):
        if needs_grad(x, value):
            record(MaskedFillBackward1, (x, value), (out,)).save(mask)
    elif needs_grad(x):
        record(MaskedFillBackward0, (x,), (out,)).save(mask)
    return out


# -- the op table's ops (optable.py's rows, made into functions by tabled.py) ----------------
from . import tabled as _tabled   # noqa: E402  (tabled reads this module's ops at call time)

globals().update({row.name: _tabled.FUNCTIONS[row.name] for row in _tabled.ROWS if row.where != "functional"})
globals().update(_tabled.PUBLIC)        # the table-only ops with PyTorch's signatures
# (never over a builtin: the node class named "NotImplemented" shadowed Python's NotImplemented here)
globals().update({cls.__name__: cls for cls in _tabled.NODES.values()
                  if cls.__name__ not in globals() and not hasattr(builtins, cls.__name__)})
