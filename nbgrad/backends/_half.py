"""float16 as PyTorch's CPU computes it: stored in float16, computed in float32.

Numba's CPU target has no float16 type, and PyTorch itself does half arithmetic
in float32 ("opmath") and rounds each op's result once.  So no kernel here is
compiled for float16: `install` wraps a backend's entry points so that

  * float16 operands are widened to float32 (exact),
  * the backend's float32 kernel runs (sums, means, matmuls accumulate in float32),
  * every float16 result is narrowed once (round to nearest even);
  * pure moves (copy float16 -> float16, fill, where, take, put) run on the int16
    bit patterns, so they convert nothing and keep every bit (NaN payloads, -0.0);
  * put with accumulate adds in float32 and rounds after every addition, in order
    (PyTorch's `self[i] += v` on Half), one "round" per repetition of an offset.

Calls without a float16 operand pass straight through (one dtype check).  A
backend supplies three primitives on its own buffers:
  widen(buf16) -> new float32 buffer;  narrow(buf32) -> new float16 buffer;
  reinterpret(buf, dtype) -> an alias of buf's memory as another 2-byte dtype.
"""
import functools

import numpy as np

H = np.dtype(np.float16)
F = np.dtype(np.float32)
I16 = np.dtype(np.int16)

# The bit pattern of float16(float32(value)): PyTorch converts a Python number to
# float first, then to Half (so double -> half rounds twice, as here).
def half_bits(value):
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.array(value).astype(np.float64).astype(np.float32).astype(np.float16)
    return int(v.view(np.int16))


def half_value(value):
    """A Python number rounded to float16 (through float32, as PyTorch converts), as a float."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.array(value).astype(np.float64).astype(np.float32).astype(np.float16))


def _span(view):
    """(first, stop) element positions the view touches in its buffer (strides >= 0)."""
    _, off, shape, strides = view
    if 0 in shape:
        return off, off
    return off, off + 1 + sum((n - 1) * s for n, s in zip(shape, strides))


class Float16Format:
    """What install needs to know of a 16-bit floating format beyond widen/narrow: its
    storage dtype, a Python number's bits and value in it (through float32, as PyTorch
    converts), how many random bits uniform draws for it, and its host scalar type for
    PyTorch's sums made in the format itself (nll's cascade).  bfloat16 has its own
    (nbgrad/backends/_bfloat16.py)."""
    storage = H
    digits = 11                  # std::numeric_limits<c10::Half>::digits
    sigmoid_backward_per_op = True
    bits = staticmethod(half_bits)
    value = staticmethod(half_value)
    scalar = np.float16

    @staticmethod
    def host_rows(rows):
        """float64 values rounded to the format (nll's rows)."""
        return rows.astype(np.float16)


FLOAT16 = Float16Format()


def install(ns, widen, narrow, reinterpret, fmt=FLOAT16):
    """Replace the backend functions in namespace ns by wrappers aware of fmt's format
    (float16, or bfloat16 installed over float16's wrappers); other dtypes pass through."""
    orig = dict(ns)
    H = fmt.storage     # (the format's storage dtype: every wrapper below tests for it)
    half_bits, half_value = fmt.bits, fmt.value

    def wide(view):
        """The view's values as float32: the touched span converted, same strides."""
        buf, off, shape, strides = view
        lo, hi = _span(view)
        return (widen(buf[lo:hi]), off - lo, shape, strides)

    def f32(op, *views, shape=None):
        """One float32 backend op on float32 views -> a float32 view of its result."""
        if len(views) == 1:
            out = orig["unary"](op, views[0], F)
        else:
            out = orig["binary"](op, views[0], views[1], shape, F)
        shape = tuple(views[0][2]) if shape is None else shape
        return (out, 0, shape, _contiguous(shape))

    def rounded(view):
        """The float32 view's values rounded to float16 and widened back (exact)."""
        return (widen(narrow(view[0])), view[1], view[2], view[3])

    def bits(view):
        buf, off, shape, strides = view
        return (reinterpret(buf, I16), off, shape, strides)

    def wrap(name):
        def deco(fn):
            fn = functools.wraps(orig[name])(fn)
            ns[name] = fn
            return fn
        return deco

    o_empty, o_copy, o_fill = orig["empty"], orig["copy"], orig["fill"]

    def write_half(buf16, dst_view):
        """Copy a contiguous float16 buffer's bits into dst_view (same numel)."""
        shape = tuple(dst_view[2])
        o_copy((reinterpret(buf16, I16), 0, shape, _contiguous(shape)), bits(dst_view))

    def narrow_into(buf32, out):
        r = narrow(buf32)
        if out is None:
            return r
        n = r.size
        o_copy((reinterpret(r, I16), 0, (n,), (1,)), (reinterpret(out, I16), 0, (n,), (1,)))
        return out

    @wrap("full")
    def full(numel, dtype, value):
        if dtype is not H:
            return orig["full"](numel, dtype, value)
        out = o_empty(numel, H)
        fill((out, 0, (numel,), (1,)), value)
        return out

    @wrap("fill")
    def fill(dst_view, value):
        if dst_view[0].dtype is not H:
            return o_fill(dst_view, value)
        o_fill(bits(dst_view), half_bits(value))

    def made_in_float32(name, dtype_at):
        """A maker whose float16 result is made in float32 and rounded once (dtype_at: where
        its dtype argument stands); not one that makes float16 itself (half_native)."""
        if getattr(orig[name], "half_native", False) and H.kind == "f":   # (float16's, not bfloat16's)
            return

        def make(*args):
            if args[dtype_at] is not H:
                return orig[name](*args)
            return narrow(orig[name](*args[:dtype_at], F, *args[dtype_at + 1:]))
        wrap(name)(make)

    made_in_float32("arange", 3)        # arange(n, start, step, dtype)

    @wrap("copy")
    def copy(src_view, dst_view):
        s, d = src_view[0].dtype is H, dst_view[0].dtype is H
        if not (s or d):
            return o_copy(src_view, dst_view)
        if s and d:
            return o_copy(bits(src_view), bits(dst_view))
        if s:
            return o_copy(wide(src_view), dst_view)
        shape = tuple(dst_view[2])
        n = _numel(shape)
        if n == 0:
            return None
        tmp = o_empty(n, F)
        o_copy(src_view, (tmp, 0, shape, _contiguous(shape)))
        write_half(narrow(tmp), dst_view)

    @wrap("unary")
    def unary(op, x_view, out_dtype, out=None):
        if x_view[0].dtype is not H and out_dtype is not H:
            return orig["unary"](op, x_view, out_dtype, out)
        assert out is None, "unary writes into out only for float32 and float64"
        xw = wide(x_view) if x_view[0].dtype is H else x_view
        if out_dtype is H:
            out = narrow(orig["unary"](op, xw, F))
            if op == "rsqrt" and x_view[0].dtype is H:
                out = rsqrt_scalar_loop(xw, out)
            return out
        return orig["unary"](op, xw, out_dtype)

    def rsqrt_scalar_loop(xw, out):
        # PyTorch's Half rsqrt is 1/sqrt(x) in float32 in its vector loop, but
        # 1/half(sqrt(x)) in the scalar loop that does the tail of each contiguous row
        # (and every element of a strided one)
        mask = _scalar_loop_mask(tuple(xw[2]), tuple(xw[3]))
        if mask is None:
            return out
        shape = tuple(xw[2])
        dense = _contiguous(shape)
        twice = narrow(f32("reciprocal", rounded(f32("sqrt", xw)))[0])
        cond = (orig["from_host"](mask), 0, shape, dense)
        r = orig["where"](cond, (reinterpret(twice, I16), 0, shape, dense), (reinterpret(out, I16), 0, shape, dense),
                          shape, I16)
        return reinterpret(r, H)

    @wrap("binary")
    def binary(op, a_view, b_view, out_shape, out_dtype, out=None):
        ah, bh = a_view[0].dtype is H, b_view[0].dtype is H
        if not (ah or bh or out_dtype is H):
            return orig["binary"](op, a_view, b_view, out_shape, out_dtype, out)
        aw = wide(a_view) if ah else a_view
        bw = wide(b_view) if bh else b_view
        if op == "sigmoid_backward" and out_dtype is H and fmt.sigmoid_backward_per_op:
            # PyTorch's Half sigmoid backward rounds each op: g * (1 - y) * y (its BFloat16 one
            # computes in float32 and rounds once)
            shape = tuple(out_shape)
            one = (orig["full"](1, F, 1.0), 0, shape, (0,) * len(shape))
            t = rounded(f32("mul", aw, rounded(f32("sub", one, bw, shape=shape)), shape=shape))
            return narrow_into(f32("mul", t, bw, shape=shape)[0], out)
        if out_dtype is H:
            return narrow_into(orig["binary"](op, aw, bw, out_shape, F), out)
        return orig["binary"](op, aw, bw, out_shape, out_dtype, out)

    def dense_input(view, dtype):
        """(buffer, offset, kind) of a view for a fused program: one value ('s') when every
        stride is 0, the view's own elements ('v') when row-major, else a row-major copy."""
        buf, off, shape, strides = view
        if all(st == 0 or n == 1 for n, st in zip(shape, strides)) and buf.dtype == dtype:
            return buf, off, "s"
        if tuple(strides) == _contiguous(tuple(shape)) and buf.dtype == dtype:
            return buf, off, "v"
        tmp = o_empty(_numel(shape), dtype)
        ns["copy"](view, (tmp, 0, tuple(shape), _contiguous(tuple(shape))))
        return tmp, 0, "v"

    def fma(a_view, b_view, c_view, out_shape, out_dtype, out=None):
        """a * b + c rounded once (views broadcast to out_shape), PyTorch's fused multiply-add;
        float16 in float32, rounded once to float16 after it.  out: a float32/float64 result's
        buffer to write (from its start) instead of a new one."""
        if "fma" in orig and np.dtype(out_dtype) is not H:   # (installed over float16's: its own)
            return orig["fma"](a_view, b_view, c_view, out_shape, out_dtype, out)
        shape = tuple(out_shape)
        n = _numel(shape)
        dt = F if out_dtype is H else np.dtype(out_dtype)
        inputs = [dense_input(v, dt) for v in (a_view, b_view, c_view)]
        program = (("input", 0), ("input", 1), ("input", 2), ("fma", 0, 1, 2))
        if n == 0:
            return o_empty(0, out_dtype) if out is None else out
        if out is not None and out_dtype is not H:
            return orig["fused_elementwise"](program, (3,), inputs, n, dt, out=out)[0]
        out = orig["fused_elementwise"](program, (3,), inputs, n, dt)[0]
        return narrow(out) if out_dtype is H else out
    ns["fma"] = fma

    def binary_scaled(op, a_view, b_view, alpha, out_shape, out_dtype, out=None):
        """a + alpha * b (op 'add') or a - alpha * b ('sub'): PyTorch's add/sub with alpha,
        one kernel: a fused multiply-add for float32 and float64 (ufunc::add's vec::fmadd, and
        its scalar loop contracted so), alpha in the dtype; integers: alpha * b, then the add.
        out (float32 and float64 only): the result's buffer, written from its start."""
        if "binary_scaled" in orig and np.dtype(out_dtype) is not H:   # (installed over float16's)
            return orig["binary_scaled"](op, a_view, b_view, alpha, out_shape, out_dtype, out)
        shape = tuple(out_shape)
        dense = _contiguous(shape)
        if out_dtype in (F, np.dtype(np.float64)):
            value = alpha if op == "add" else -alpha
            scalar = (orig["full"](1, out_dtype, value), 0, shape, (0,) * len(shape))
            return fma(b_view, scalar, a_view, shape, out_dtype, out)
        assert out is None, "binary_scaled writes into out only for float32 and float64"
        if out_dtype is not H:
            scalar = (orig["full"](1, out_dtype, alpha), 0, shape, (0,) * len(shape))
            t = orig["binary"]("mul", b_view, scalar, shape, out_dtype)
            return orig["binary"](op, a_view, (t, 0, shape, dense), shape, out_dtype)
        # Half: the vector loop computes a + half(alpha) * b in float32, rounded once; its
        # scalar loop (row tails, strided rows) rounds half(alpha) * b to Half first
        aw = wide(a_view) if a_view[0].dtype is H else a_view
        bw = wide(b_view) if b_view[0].dtype is H else b_view
        t = f32("mul", bw, (orig["full"](1, F, half_value(alpha)), 0, shape, (0,) * len(shape)), shape=shape)
        out = narrow(f32(op, aw, t, shape=shape)[0])
        mask = _binary_scalar_loop_mask(shape, tuple(a_view[3]), tuple(b_view[3]))
        if mask is None:
            return out
        scalar_loop = narrow(f32(op, aw, rounded(t), shape=shape)[0])
        cond = (orig["from_host"](mask), 0, shape, dense)
        r = orig["where"](cond, (reinterpret(scalar_loop, I16), 0, shape, dense),
                          (reinterpret(out, I16), 0, shape, dense), shape, I16)
        return reinterpret(r, H)
    ns["binary_scaled"] = binary_scaled

    @wrap("where")
    def where(cond_view, a_view, b_view, out_shape, out_dtype):
        if out_dtype is not H:
            return orig["where"](cond_view, a_view, b_view, out_shape, out_dtype)
        r = orig["where"](cond_view, bits(a_view), bits(b_view), out_shape, I16)
        return reinterpret(r, H)

    @wrap("mul_backward")
    def mul_backward(g_view, a_view, b_view, need_a=True, need_b=True):
        if g_view[0].dtype is not H:
            return orig["mul_backward"](g_view, a_view, b_view, need_a, need_b)
        return tuple(None if r is None else narrow(r) for r in
                     orig["mul_backward"](wide(g_view), wide(a_view), wide(b_view), need_a, need_b))

    def kept(buf, shape, dims):
        """A contiguous reduction result over dims, broadcast back to shape (0 strides)."""
        rshape = tuple(n for i, n in enumerate(shape) if i not in dims)
        rst = iter(_contiguous(rshape))
        return (buf, 0, tuple(shape), tuple(0 if i in dims else next(rst) for i in range(len(shape))))

    def logsumexp(xw, dims):
        # PyTorch's logsumexp on Half is composite, each step a Half op: m = amax (with
        # +-inf -> 0), sum(exp(x - m)).log() + m, rounded after every op.
        shape = tuple(xw[2])
        rshape = tuple(n for i, n in enumerate(shape) if i not in dims)
        m = (orig["reduce"]("amax", xw, dims, F), 0, rshape, _contiguous(rshape))
        zero = (orig["full"](1, F, 0.0), 0, rshape, (0,) * len(rshape))
        inf = (orig["unary"]("isinf", m, np.dtype(np.bool_)), 0, rshape, _contiguous(rshape))
        m = (orig["where"](inf, zero, m, rshape, F), 0, rshape, _contiguous(rshape))
        e = rounded(f32("exp", rounded(f32("sub", xw, kept(m[0], shape, dims), shape=shape))))
        total = rounded((orig["reduce"]("sum", e, dims, F), 0, rshape, _contiguous(rshape)))
        return narrow(f32("add", rounded(f32("log", total)), m, shape=rshape)[0])

    def prod(xw, dims):
        # PyTorch's prod on Half multiplies in Half: one rounding per factor, in C order
        # over the reduced dims.
        buf, off, shape, strides = xw
        kdims = [i for i in range(len(shape)) if i not in dims]
        kshape = tuple(shape[i] for i in kdims)
        kst = tuple(strides[i] for i in kdims)
        acc = None
        for idx in np.ndindex(*[shape[d] for d in dims]):
            part = (buf, off + sum(i * strides[d] for i, d in zip(idx, dims)), kshape, kst)
            acc = part if acc is None else rounded(f32("mul", acc, part, shape=kshape))
        if acc[0] is buf:         # a single factor: its values, made contiguous
            out = o_empty(_numel(kshape), F)
            o_copy(acc, (out, 0, kshape, _contiguous(kshape)))
            return narrow(out)
        return narrow(acc[0])

    @wrap("reduce")
    def reduce(op, x_view, dims, out_dtype, correction=1, one_value_path=True):
        if x_view[0].dtype is not H and out_dtype is not H:
            return orig["reduce"](op, x_view, dims, out_dtype, correction, one_value_path)
        xw = wide(x_view) if x_view[0].dtype is H else x_view
        if op == "logsumexp" and out_dtype is H and 0 not in xw[2]:
            return logsumexp(xw, dims)
        if op == "prod" and out_dtype is H and 0 < _numel([xw[2][d] for d in dims]) <= _SEQUENTIAL_PROD:
            return prod(xw, dims)
        # (widened values: not PyTorch's float32 paths to one value, which its Half does not take)
        if out_dtype is H:
            return narrow(orig["reduce"](op, xw, dims, F, correction, False))
        return orig["reduce"](op, xw, dims, out_dtype, correction, False)

    def values_and_indices(name):
        """A (values, indices) kernel: float16 values widened in, the values narrowed out."""
        @wrap(name)
        def fn(x_view, *args):
            if x_view[0].dtype is not H:
                return orig[name](x_view, *args)
            values, indices = orig[name](wide(x_view), *args)
            return narrow(values), indices

    values_and_indices("max_with_index")     # (x_view, dim, is_max)
    values_and_indices("sort")               # (x_view, dim, descending)

    @wrap("cumulative")
    def cumulative(op, x_view, dim, out_dtype, acc_dtype=None):
        # PyTorch's Half scan: the values cast to Half first (the contract's "x's values cast
        # to out_dtype": a float32 input's Half roundings are what it adds), float accumulators,
        # each output rounded to Half
        if x_view[0].dtype is not H and out_dtype is not H:
            return orig["cumulative"](op, x_view, dim, out_dtype, acc_dtype)
        if out_dtype is H and x_view[0].dtype is not H:
            shape = tuple(x_view[2])
            half = (o_empty(_numel(shape), H), 0, shape, _contiguous(shape))
            ns["copy"](x_view, half)
            x_view = half
        xw = wide(x_view) if x_view[0].dtype is H else x_view
        # (float32 accumulators: PyTorch's acc_type of Half and BFloat16 on the CPU)
        out = orig["cumulative"](op, xw, dim, F if out_dtype is H else out_dtype, np.float32 if
                                 out_dtype is H else None)
        return narrow(out) if out_dtype is H else out

    @wrap("softmax")
    def softmax(x_view, dim, log):
        if x_view[0].dtype is not H:
            return orig["softmax"](x_view, dim, log)
        xw = wide(x_view)
        shape = tuple(xw[2])
        if 0 in shape or (log and dim != len(shape) - 1) or (not log and dim == len(shape) - 1):
            return narrow(orig["softmax"](xw, dim, log))
        rshape = shape[:dim] + shape[dim + 1:]
        m = orig["reduce"]("amax", xw, (dim,), F)
        d = f32("sub", xw, kept(m, shape, (dim,)), shape=shape)
        e = f32("exp", d)
        total = (orig["reduce"]("sum", e, (dim,), F), 0, rshape, _contiguous(rshape))
        if not log:
            # softmax over an inner dim: PyTorch writes exp(x - max) into the Half output
            # first, then divides it by the float32 sum of the unrounded exps
            return narrow(f32("div", rounded(e), kept(total[0], shape, (dim,)), shape=shape)[0])
        # PyTorch's last-dim log_softmax on Half keeps the row's sum of exp(x - max) and
        # its log as Half: out = x - max - half(log(half(sum))), in float32, rounded once.
        lse = rounded(f32("log", rounded(total)))
        return narrow(f32("sub", d, kept(lse[0], shape, (dim,)), shape=shape)[0])

    @wrap("matmul")
    def matmul(a_view, b_view, out_dtype):
        if a_view[0].dtype is not H and out_dtype is not H:
            return orig["matmul"](a_view, b_view, out_dtype)
        aw = wide(a_view) if a_view[0].dtype is H else a_view
        bw = wide(b_view) if b_view[0].dtype is H else b_view
        out = orig["matmul"](aw, bw, F if out_dtype is H else out_dtype)
        return narrow(out) if out_dtype is H else out

    @wrap("linear_backward")
    def linear_backward(g_view, x_view, w_view, need_x=True, need_w=True, need_b=True):
        if g_view[0].dtype is not H:
            return orig["linear_backward"](g_view, x_view, w_view, need_x, need_w, need_b)
        return tuple(None if r is None else narrow(r) for r in orig["linear_backward"](
            wide(g_view), *(None if v is None else wide(v) for v in (x_view, w_view)), need_x, need_w, need_b))

    o_take, o_put = orig["take"], orig["put"]

    @wrap("take")
    def take(buf, offsets):
        if buf.dtype is not H:
            return o_take(buf, offsets)
        return reinterpret(o_take(reinterpret(buf, I16), offsets), H)

    @wrap("put")
    def put(buf, offsets, values, accumulate):
        if buf.dtype is not H:
            return o_put(buf, offsets, values, accumulate)
        ibuf = reinterpret(buf, I16)
        ivalues = reinterpret(values, I16) if values.dtype is H else values
        if not accumulate:
            return o_put(ibuf, offsets, ivalues, False)
        # buf[o] = half(float(buf[o]) + float(v)) for each (o, v) in order: the k-th
        # occurrences of all offsets form round k, whose offsets are distinct.
        host = _host_int64(offsets)
        n = host.size
        if n == 0:
            return None
        order = np.argsort(host, kind="stable")
        sorted_offsets = host[order]
        first = np.r_[True, sorted_offsets[1:] != sorted_offsets[:-1]]
        group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n) - group_start
        rounds = int(rank.max()) + 1
        for k in range(rounds):
            if rounds == 1:
                offs, vals = host, ivalues
            else:
                sel = np.flatnonzero(rank == k)
                offs, vals = host[sel], o_take(ivalues, sel)
            m = offs.size
            cur = widen(reinterpret(o_take(ibuf, offs), H))
            add = widen(reinterpret(vals, H))
            total = orig["binary"]("add", (cur, 0, (m,), (1,)), (add, 0, (m,), (1,)), (m,), F)
            o_put(ibuf, offs, reinterpret(narrow(total), I16), False)
        return None

    @wrap("put_reduce")
    def put_reduce(buf, offsets, values, op):
        if buf.dtype is not H:
            return orig["put_reduce"](buf, offsets, values, op)
        ibuf = reinterpret(buf, I16)
        ivalues = reinterpret(values, I16) if values.dtype is H else values
        host = _host_int64(offsets)
        n = host.size
        if n == 0:
            return None
        # PyTorch's Half scatter kernels fold in float32 and round once: the touched
        # elements widened, reduced by the float32 kernel, narrowed back
        touched = np.unique(host)
        cur = widen(reinterpret(o_take(ibuf, touched), H))
        remap = np.searchsorted(touched, host)
        orig["put_reduce"](cur, remap, widen(reinterpret(ivalues, H)), op)
        o_put(ibuf, touched, reinterpret(narrow(cur), I16), False)
        return None

    @wrap("nonzero")
    def nonzero(view):
        if view[0].dtype is not H:
            return orig["nonzero"](view)
        return orig["nonzero"](wide(view))

    def _uniform(numel, dtype, low, high):
        if dtype is not H:
            return orig["uniform"](numel, dtype, low, high)
        # PyTorch draws 11 random bits for a Half: u = k / 2048, then low + u * (high - low)
        # in float32, rounded once (BFloat16: its float32 draw, rounded once)
        if fmt.digits is None:
            return narrow(orig["uniform"](numel, F, low, high))
        u = orig["uniform"](numel, F, 0.0, 1.0)
        scale = float(2 ** fmt.digits)
        one = (1,)

        def scalar(v):
            return (orig["full"](1, F, v), 0, (numel,), (0,))
        k = orig["unary"]("floor", (orig["binary"]("mul", (u, 0, (numel,), one), scalar(scale), (numel,), F),
                                    0, (numel,), one), F)
        u = orig["binary"]("mul", (k, 0, (numel,), one), scalar(1.0 / scale), (numel,), F)
        x = orig["binary"]("mul", (u, 0, (numel,), one), scalar(float(high) - float(low)), (numel,), F)
        x = orig["binary"]("add", (x, 0, (numel,), one), scalar(float(low)), (numel,), F)
        return narrow(x)
    wrap("uniform")(_uniform)

    made_in_float32("normal", 1)        # normal(numel, dtype, mean, std)
    made_in_float32("randint", 1)       # randint(numel, dtype, low, high)

    @wrap("fused_elementwise")
    def fused_elementwise(program, outputs, inputs, n, dtype, out=None):
        if np.dtype(dtype) is not H:
            return orig["fused_elementwise"](program, outputs, inputs, n, dtype, out=out)
        assert out is None, "fused_elementwise writes into out only for float32 and float64"
        winputs = [(widen(buf), off, kind) for buf, off, kind in inputs]
        return [narrow(r) for r in orig["fused_elementwise"](program, outputs, winputs, n, F)]

    # Fused losses: float16 inputs computed in float32; results of x's dtype narrowed.
    def _w(buf):
        return None if buf is None else (widen(buf) if buf.dtype is H else buf)

    @wrap("cross_entropy_forward")
    def cross_entropy_forward(x, m, c, target, weight, ignore_index, smoothing):
        return orig["cross_entropy_forward"](_w(x), m, c, target, _w(weight), ignore_index, smoothing)

    @wrap("cross_entropy_backward")
    def cross_entropy_backward(x, m, c, lse, target, weight, ignore_index, smoothing, coef_nll, coef_smooth):
        r = orig["cross_entropy_backward"](_w(x), m, c, lse, target, _w(weight), ignore_index, smoothing,
                                           coef_nll, coef_smooth)
        return narrow(r) if x.dtype is H else r

    @wrap("nll_forward")
    def nll_forward(x, m, c, target, weight, ignore_index):
        row_loss, sums = orig["nll_forward"](_w(x), m, c, target, _w(weight), ignore_index)
        if x.dtype is not H:
            return row_loss, sums
        # PyTorch sums the rows' -x[t]*w[t] and the weights in Half (a cascade of partial
        # sums), so the totals are the Half ones
        rows = fmt.host_rows(_host(row_loss))
        if weight is not None:
            weight = _host(weight) if weight.dtype is not H or H.kind == "f" else _host(widen(weight))
        return row_loss, _half_nll_sums(rows, _host_int64(target), weight, ignore_index, fmt.scalar)

    @wrap("nll_backward")
    def nll_backward(m, c, target, weight, ignore_index, coef, dtype):
        if np.dtype(dtype) is not H:
            return orig["nll_backward"](m, c, target, weight, ignore_index, coef, dtype)
        return narrow(orig["nll_backward"](m, c, target, _w(weight), ignore_index, coef, F))

    def _loss_rows(e32):
        """(float64 buffer of the rounded per-element losses, their float32 sum)."""
        n = e32.size
        rows = o_empty(n, np.dtype(np.float64))
        o_copy((e32, 0, (n,), (1,)), (rows, 0, (n,), (1,)))
        total = float(_host(orig["reduce"]("sum", (e32, 0, (n,), (1,)), (0,), F))[0]) if n else 0.0
        return rows, total

    @wrap("mse_forward")
    def mse_forward(x, y):
        if x.dtype is not H:
            return orig["mse_forward"](x, y)
        # PyTorch's Half mse kernel: diff = x - y, then diff * diff, each a Half op
        n = x.size
        d = rounded(f32("sub", (widen(x), 0, (n,), (1,)), (widen(y), 0, (n,), (1,)), shape=(n,)))
        return _loss_rows(rounded(f32("mul", d, d, shape=(n,)))[0])

    @wrap("bce_logits_forward")
    def bce_logits_forward(x, y, w, pw):
        return orig["bce_logits_forward"](_w(x), _w(y), _w(w), _w(pw))

    @wrap("bce_logits_backward")
    def bce_logits_backward(x, y, w, pw, coef):
        gx, gy = orig["bce_logits_backward"](_w(x), _w(y), _w(w), _w(pw), coef)
        if x.dtype is H:
            gx, gy = (None if r is None else narrow(r) for r in (gx, gy))
        return gx, gy

    # Optimizer steps on float16 parameters follow PyTorch's single-tensor formulas op by
    # op, each op computed in float32 and rounded once to float16 (as its vectorised Half
    # kernels do; add's alpha is rounded to float16 first, mul/div/lerp scalars are not).
    def _dense_f32(view):
        shape = tuple(view[2])
        tmp = o_empty(_numel(shape), F)
        o_copy(wide(view), (tmp, 0, shape, _contiguous(shape)))
        return tmp

    def _half_ops(n):
        shape = (n,)

        def v(buf):
            return (buf, 0, shape, (1,))

        def scalar(value):
            return (orig["full"](1, F, float(value)), 0, shape, (0,))

        def op(name, a, b):      # a, b: float32 buffers or Python numbers -> rounded buffer
            av = v(a) if not isinstance(a, float) else scalar(a)
            bv = v(b) if not isinstance(b, float) else scalar(b)
            return widen(narrow(orig["binary"](name, av, bv, shape, F)))

        def add_alpha(a, b, alpha):   # a.add(b, alpha=alpha)
            if alpha == 1:
                return op("add", a, b)
            # PyTorch's vectorised loop (32 Halfs a step) computes a + half(alpha) * b in
            # float32; the tail it leaves to the scalar loop rounds alpha * b to Half first
            t = orig["binary"]("mul", v(b), scalar(half_value(alpha)), shape, F)
            out = op("add", a, t)
            tail = n % _HALF_VECTOR if n <= _PARALLEL_GRAIN else 0
            if tail:
                k = n - tail
                t = widen(narrow(t[k:]))
                scalar_loop = widen(narrow(orig["binary"]("add", (a, k, (tail,), (1,)), (t, 0, (tail,), (1,)),
                                                          (tail,), F)))
                o_copy((scalar_loop, 0, (tail,), (1,)), (out, k, (tail,), (1,)))
            return out

        def fused(expression):         # one float32 expression over buffers, rounded once
            return widen(narrow(expression))
        return v, scalar, op, add_alpha, fused

    def _step_start(p_view, g_view, maximize):
        """An optimizer step's common start: the float32 parameter and direction (the
        gradient, negated under maximize) with the ops over them; None for an empty one."""
        n = _numel(tuple(p_view[2]))
        if n == 0:
            return None
        ops = _half_ops(n)
        p, d = _dense_f32(p_view), _dense_f32(g_view)
        if maximize:
            d = orig["unary"]("neg", ops[0](d), F)
        return n, ops, p, d

    def sgd_step(p_view, g_view, buf_view, init_buf, lr, weight_decay, momentum, dampening, nesterov, maximize):
        if p_view[0].dtype is not H:
            return orig["sgd_step"](p_view, g_view, buf_view, init_buf, lr, weight_decay, momentum, dampening,
                                    nesterov, maximize)
        start = _step_start(p_view, g_view, maximize)
        if start is None:
            return None
        n, (v, scalar, op, add_alpha, _), p, d = start
        if weight_decay != 0:
            d = add_alpha(d, p, weight_decay)
        if momentum != 0:
            if init_buf:
                b = d
            else:
                b = add_alpha(op("mul", _dense_f32(buf_view), float(momentum)), d, 1 - dampening)
            write_half(narrow(b), buf_view)
            d = add_alpha(d, b, momentum) if nesterov else b
        write_half(narrow(add_alpha(p, d, -lr)), p_view)
        return None
    ns["sgd_step"] = functools.wraps(orig["sgd_step"])(sgd_step)

    if "sgd_step_many" in orig:
        def sgd_step_many(p_views, g_views, buf_views, *args):
            if not p_views or p_views[0][0].dtype is not H:
                return orig["sgd_step_many"](p_views, g_views, buf_views, *args)
            for i, (p_view, g_view) in enumerate(zip(p_views, g_views)):
                sgd_step(p_view, g_view, None if buf_views is None else buf_views[i], *args)
            return None
        ns["sgd_step_many"] = functools.wraps(orig["sgd_step_many"])(sgd_step_many)

    def adam_step(p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step, lr, beta1, beta2,
                  eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
        if p_view[0].dtype is not H:
            return orig["adam_step"](p_view, g_view, exp_avg_view, exp_avg_sq_view, max_exp_avg_sq_view, step,
                                     lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay)
        start = _step_start(p_view, g_view, maximize)
        if start is None:
            return None
        n, (v, scalar, op, add_alpha, fused), p, d = start
        if weight_decay != 0:
            if decoupled_weight_decay:
                p = op("mul", p, float(1 - lr * weight_decay))
            else:
                d = add_alpha(d, p, weight_decay)
        # exp_avg.lerp_(grad, 1 - beta1): lerp's two branches, in float32, rounded once
        m, w = _dense_f32(exp_avg_view), 1 - beta1
        diff = orig["binary"]("sub", v(d), v(m), (n,), F)
        if w < 0.5:
            m = fused(orig["binary"]("add", v(m), v(orig["binary"]("mul", v(diff), scalar(w), (n,), F)), (n,), F))
        else:
            m = fused(orig["binary"]("sub", v(d), v(orig["binary"]("mul", v(diff), scalar(1 - w), (n,), F)),
                                     (n,), F))
        # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        sq = op("mul", _dense_f32(exp_avg_sq_view), float(beta2))
        t = orig["binary"]("mul", v(orig["binary"]("mul", scalar(1 - beta2), v(d), (n,), F)), v(d), (n,), F)
        sq = op("add", sq, t)
        write_half(narrow(m), exp_avg_view)
        write_half(narrow(sq), exp_avg_sq_view)
        if amsgrad:
            sq = op("maximum", _dense_f32(max_exp_avg_sq_view), sq)
            write_half(narrow(sq), max_exp_avg_sq_view)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        # denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        denom = widen(narrow(orig["unary"]("sqrt", v(sq), F)))
        denom = op("add", op("div", denom, float(bias_correction2 ** 0.5)), half_value(eps))
        # param.addcdiv_(exp_avg, denom, value=-step_size)
        t = orig["binary"]("div", v(orig["binary"]("mul", scalar(-step_size), v(m), (n,), F)), v(denom), (n,), F)
        write_half(narrow(op("add", p, t)), p_view)
        return None
    ns["adam_step"] = functools.wraps(orig["adam_step"])(adam_step)

    def _host(buf):
        return buf if isinstance(buf, np.ndarray) else buf.copy_to_host()

    def _host_int64(offsets):
        return np.ascontiguousarray(_host(offsets), dtype=np.int64)


_HALF_VECTOR = 32            # Halfs per step of PyTorch's vectorised CPU loops (2 x 16, AVX2)
_PARALLEL_GRAIN = 32768      # above this PyTorch splits the loop across threads (tails vary)
_SEQUENTIAL_PROD = 1024     # longer products round once, from float32


def _half_nll_sums(rows, target, weight, ignore_index, h=np.float16):
    """PyTorch's nll_loss_out_frame on Half: (sum of rows, total weight), both summed in
    Half through its cascade of 8 partial sums.  rows[b] = -half(x[b, t] * w[t]).
    h: the format's scalar (a value rounded to it; BFloat16's through float32)."""
    m = len(rows)
    levels = 8
    level_power = max(4, (int(m - 1).bit_length() if m > 1 else 0) // 2)
    level_mask = (1 << level_power) - 1
    loss = [h(0)] * levels
    wsum = [h(0)] * levels
    ignored = 0
    with np.errstate(all="ignore"):
        for b in range(m):
            t = int(target[b])
            if t == ignore_index:
                ignored += 1
                continue
            loss[0] = h(loss[0] + rows[b])
            if weight is not None:
                wsum[0] = h(wsum[0] + weight[t])
            for j in range(levels - 1):
                if b & (level_mask << (j * level_power)):
                    break
                loss[j + 1] = h(loss[j + 1] + loss[j])
                wsum[j + 1] = h(wsum[j + 1] + wsum[j])
                loss[j] = wsum[j] = h(0)
        total = h(0)
        for v in loss:
            total = h(total + v)
        if weight is None:
            total_weight = h(m - ignored)
        else:
            total_weight = h(0)
            for v in wsum:
                total_weight = h(total_weight + v)
    return float(total), float(total_weight)


def _scalar_loop_mask(shape, strides):
    """Which elements (C order of shape) PyTorch's CPU TensorIterator leaves to the scalar
    loop of a one-input elementwise kernel: dims sorted by stride and coalesced; an inner
    stride other than 1 runs all scalar, else the last (L % 32) of each inner row of L.
    None when no element is (or the loop would be split across threads)."""
    n = _numel(shape)
    if n == 0 or n > _PARALLEL_GRAIN:
        return None
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    dims.sort(key=lambda d: -strides[d])
    if not dims:
        return np.ones(shape, np.bool_).reshape(-1) if n % _HALF_VECTOR else None
    # coalesce from the innermost dim outwards: the inner row is every trailing dim that is dense
    inner, row = dims[-1], shape[dims[-1]]
    if strides[inner] != 1:
        return np.ones(n, np.bool_)
    k = len(dims) - 1
    while k > 0 and strides[dims[k - 1]] == strides[dims[k]] * shape[dims[k]]:
        k -= 1
        row *= shape[dims[k]]
    tail = row % _HALF_VECTOR
    if tail == 0:
        return None
    permuted = np.zeros([shape[d] for d in dims], np.bool_).reshape(-1, row)
    permuted[:, row - tail:] = True
    permuted = permuted.reshape([shape[d] for d in dims])
    full = np.transpose(permuted, np.argsort(dims))
    return np.ascontiguousarray(full.reshape(shape)).reshape(-1)


def _binary_scalar_loop_mask(shape, a_strides, b_strides):
    """_scalar_loop_mask for two inputs: the same layout, or one of them a broadcast scalar,
    follows the other's rows; any other mix is taken as all scalar loop."""
    if all(s == 0 for s in b_strides):
        return _scalar_loop_mask(shape, a_strides)
    if all(s == 0 for s in a_strides):
        return _scalar_loop_mask(shape, b_strides)
    if tuple(a_strides) == tuple(b_strides):
        return _scalar_loop_mask(shape, a_strides)
    n = _numel(shape)
    return np.ones(n, np.bool_) if 0 < n <= _PARALLEL_GRAIN else None


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _contiguous(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))
