"""Matrix products: matmul with PyTorch's 1-D/2-D/batched/broadcast rules, mm, bmm, mv, dot, outer."""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..amp import autocast_mode as _amp  # the autocast hook: one truth test while off
from ..autograd.node import Node
from ._dtype_rules import check as check_dtype, check_same_dtype
from ..autograd.backward_path import FUSED, backward_path
from ._graph import (accelerated, backend_of, broadcast_shapes, broadcast_view, cast, check_same_device, needs_grad, new_tensor,
                     record)
from . import views as V


def _check_dtypes(a, b, op="mm", work=True):
    """The product's dtype checks: the same dtype, then its kernel's dispatch, which a product
    without work (an empty result, or no terms: k = 0) never reaches (a bool mm of them is zeros)."""
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {D.cpp_type_name(a._dtype)} != {D.cpp_type_name(b._dtype)}")
    if work:
        check_dtype(op, a._dtype)


def _has_work(a, b):
    """Whether the product of a's last two dims with b's has work: a result of some elements
    and some terms each (ATen's kernels return zeros, or nothing, before their dispatch)."""
    return bool(a.numel() and b.numel())


def _batched_raw(a, b, batch):
    """(*batch, n, k) @ (*batch, k, m) with a and b broadcast to the batch shape."""
    n, k = a._shape[-2], a._shape[-1]
    m = b._shape[-1]
    av = broadcast_view(a, tuple(batch) + (n, k))
    bv = broadcast_view(b, tuple(batch) + (k, m))
    buf = backend_of(a).matmul(av, bv, a._dtype.np)
    return new_tensor(buf, tuple(batch) + (n, m), a._dtype, a.device)


def _dense_once(g, node, a, b):
    """g itself, or a contiguous copy of it when both gradients will use it and it is
    neither C- nor F-ordered (a broadcast gradient from sum()): the backend would
    otherwise copy it for each of the two products."""
    if not (node.needs_input_grad(0) and node.needs_input_grad(1)) or g.is_contiguous() \
            or V.mT(g).is_contiguous() or needs_grad(g, a, b):
        return g        # (a recorded backward saves g itself, as PyTorch: its version is watched)
    return g.contiguous()


def _column_major(t):
    """PyTorch's test in mm_mat1/mat2_backward: strides == (1, rows)."""
    return t._stride[0] == 1 and t._stride[1] == t._shape[0]


class MmBackward0(Node):
    # PyTorch's mm_mat1_backward/mm_mat2_backward: "if input was column-major, return grad
    # as column-order" (the product of the transposes, transposed)
    a_cm = b_cm = False

    def backward(self, g):
        a, b = self.saved_tensors
        g = _dense_once(g, self, a, b)
        ga = gb = None
        if self.needs_input_grad(0):
            ga = V.t(mm(b, V.t(g))) if self.a_cm else mm(g, V.t(b))
        if self.needs_input_grad(1):
            gb = V.t(mm(V.t(g), a)) if self.b_cm else mm(V.t(a), g)
        return ga, gb


def mm(a, b):
    if _amp.ON: a, b = _amp.cast_lower(a, b)
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError(f"{'self' if a.dim() != 2 else 'mat2'} must be a matrix")
    if a._shape[1] != b._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a._shape[0]}x{a._shape[1]} and "
                           f"{b._shape[0]}x{b._shape[1]})")
    check_same_device(a, b)
    _check_dtypes(a, b, work=_has_work(a, b))
    out = _batched_raw(a, b, ())
    if needs_grad(a, b):
        node = _record_product(MmBackward0, a, b, out)
        if _column_major(a):
            node.a_cm = True
        if _column_major(b):
            node.b_cm = True
    return out


class BmmBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        g = _dense_once(g, self, a, b)
        ga = matmul(g, V.mT(b)) if self.needs_input_grad(0) else None
        gb = matmul(V.mT(a), g) if self.needs_input_grad(1) else None
        return ga, gb


def bmm(a, b):
    if _amp.ON: a, b = _amp.cast_lower(a, b)
    if a.dim() != 3 or b.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.dim() != 3 else "batch2 must be a 3D tensor")
    if a._shape[0] != b._shape[0] or a._shape[2] != b._shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._shape[0]}, {a._shape[2]}] but got: [{b._shape[0]}, {b._shape[1]}].")
    return _batched(a, b, (a._shape[0],), BmmBackward0)


def _check_bmm_dtypes(a, b):
    """PyTorch's batched kernels: the first operand's dtype is dispatched on (bool has no
    kernel; a product without work is not dispatched), then the second must match it."""
    if _has_work(a, b):
        check_dtype("bmm", a._dtype)
    check_same_dtype(a._dtype, b._dtype)


def _record_product(node_cls, a, b, out, **attrs):
    """Record a product's node; each operand is saved only for the other's gradient
    (PyTorch's should_compute_output guards)."""
    node = record(node_cls, (a, b), (out,), **attrs)
    node.save(a if node.needs_input_grad(1) else None, b if node.needs_input_grad(0) else None)
    return node


def _vector_product(a, b, av, bv, shape, name, node_cls):
    """mv and dot: one matrix product of the operands' 2-D views av @ bv, read as `shape`."""
    check_same_device(a, b)
    _check_dtypes(a, b, name, work=name == "dot" or _has_work(av, bv))
    out2 = _batched_raw(av, bv, ())
    out = new_tensor(out2._storage.buffer, shape, a._dtype, a.device)
    if needs_grad(a, b):
        _record_product(node_cls, a, b, out)
    return out


def _batched(a, b, batch, node_cls):
    check_same_device(a, b)
    _check_bmm_dtypes(a, b)
    out = _batched_raw(a, b, batch)
    if needs_grad(a, b):
        _record_product(node_cls, a, b, out)
    return out


class MvBackward0(Node):
    def backward(self, g):
        a, v = self.saved_tensors
        ga = outer(g, v) if self.needs_input_grad(0) else None
        gv = mv(V.t(a), g) if self.needs_input_grad(1) else None
        return ga, gv


def mv(a, v):
    # ATen's mv: a result of a.size(0) elements (a 0-dim a has none), then addmv's check of
    # the result's, the matrix's and the vector's dims
    if a.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if a.dim() != 2 or v.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.dim()}, {v.dim()}")
    if a._shape[1] != v._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a._shape[0]}), mat ({a._shape[0]}x{a._shape[1]}), vec ({v._shape[0]})")
    vv = V.make_view(v, (v._shape[0], 1), (v._stride[0], 1), v._offset)
    return _vector_product(a, v, a, vv, (a._shape[0],), "mv", MvBackward0)


class DotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return (g * b if self.needs_input_grad(0) else None), (g * a if self.needs_input_grad(1) else None)


def dot(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    n, m = a._shape[0], b._shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] "
                           f"to have the same number of elements, but got {n} and {m} elements respectively")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{D.scalar_type_name(a._dtype)} and {D.scalar_type_name(b._dtype)}")
    check_dtype("dot", a._dtype)
    av = V.make_view(a, (1, a._shape[0]), (0, a._stride[0]), a._offset)
    bv = V.make_view(b, (b._shape[0], 1), (b._stride[0], 0), b._offset)
    return _vector_product(a, b, av, bv, (), "dot", DotBackward0)


def outer(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError("outer: expected 1D tensors")
    return V.reshape(a, (a._shape[0], 1)) * b


ger = outer


def _should_fold(a, b):
    """PyTorch's should_fold, for a >= 3-D operand with a matrix or a vector: fold into one mm
    or mv when the smaller operand requires grad, or when the larger operand's batch dims
    flatten without a copy (2-D @ batch only in the first case: its mm result would need a
    transposed copy)."""
    if not (max(a.dim(), b.dim()) >= 3 and min(a.dim(), b.dim()) <= 2):
        return False
    t1, other = (a, b) if a.dim() >= b.dim() else (V.mT(b), a)
    if other.requires_grad:             # (also under no_grad, as PyTorch)
        return True
    if a.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    sh, st = t1._shape, t1._stride
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(t1.dim() - 2))


def matmul(a, b):
    if _amp.ON: a, b = _amp.cast_lower(a, b)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("matmul(): argument 'other' must be Tensor")
    da, db = a.dim(), b.dim()
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        if a._shape[0] != b._shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a._shape[0]}), mat ({b._shape[1]}x{b._shape[0]}), vec ({a._shape[0]})")
        # PyTorch squeezes mm's result in place (squeeze_): not a view, version 1
        out = mm(V.unsqueeze(a, 0), b)
        if out._requires_grad:
            record(V.SqueezeBackward4, (out,), (out,), dims=(0,))
        out._shape, out._stride = out._shape[1:], out._stride[1:]
        out._vc.value += 1
        return out
    if da == 2 and db == 2:
        return mm(a, b)
    if _should_fold(a, b):
        # PyTorch folds the batch of the larger operand into one matrix: (b, m, k) @ (k, n) is
        # one (b*m, k) @ (k, n), (b, m, k) @ (k,) one (b*m, k) @ (k,); a smaller operand
        # first is the transposed problem, and a matrix product is transposed back
        flip = db > da
        t1 = V.mT(b) if flip else a
        t2 = (V.t(a) if da == 2 else a) if flip else b
        rows = t1._shape[:-1]
        folded = V.reshape(t1, (math.prod(rows), t1._shape[-1]))
        if t2.dim() == 1:
            return V.unsafe_view(mv(folded, t2), rows)
        out = V.unsafe_view(mm(folded, t2), rows + (t2._shape[1],))
        return V.mT(out).contiguous() if flip else out
    n, m1 = (a._shape[-2] if da > 1 else 1), a._shape[-1]
    m2, p = (b._shape[-2], b._shape[-1]) if db > 1 else (b._shape[0], 1)
    if da == 3 and db == 3 and a._shape[0] != b._shape[0]:
        # PyTorch's _matmul_impl: a batch of one matrix that requires grad (the flag, also
        # under no_grad) is squeezed, so that the other's batch folds into one mm and the
        # one matrix's gradient is no expanded copy: (1, n, k) @ (b, k, p) is (n, k) @ (b, k, p)
        if a._shape[0] == 1 and a.requires_grad:
            return matmul(V.squeeze(a, 0), b)
        if b._shape[0] == 1 and b.requires_grad:
            return matmul(a, V.squeeze(b, 0))
    # batched, with broadcasting of the batch dims: as PyTorch's _matmul_impl, both operands
    # are expanded to the broadcast batch and reshaped to 3-D (a view, or a copy of an
    # expanded batch), bmm runs and its result is _unsafe_view-ed; the graph is those ops'
    # nodes (UnsafeViewBackward0, BmmBackward0, ViewBackward0, ExpandBackward0)
    batch = tuple(broadcast_shapes(a._shape[:max(da - 2, 0)], b._shape[:max(db - 2, 0)]))
    count = math.prod(batch)
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    if not needs_grad(a, b):
        # nothing is recorded: the same products, on the operands broadcast in place (no
        # expanded copies, no view objects)
        if m1 != m2:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {m1}] "
                               f"but got: [{count}, {m2}].")
        check_same_device(a, b)
        _check_bmm_dtypes(a, b)
        out = _batched_raw(a if da > 1 else V.unsqueeze(a, 0), b if db > 1 else V.unsqueeze(b, 1), batch)
        return out if da > 1 and db > 1 else new_tensor(out._storage.buffer, out_shape, a._dtype, a.device)
    a3 = _batch_of_matrices(a, batch + (n, m1), (count, n, m1))
    if db == 1:
        b3 = V.unsqueeze(V.reshape(V.expand(b, batch + (m2,)), (count, m2)), 2)
        out = V.squeeze(bmm(a3, b3), -1)
    else:
        out = bmm(a3, _batch_of_matrices(b, batch + (m2, p), (count, m2, p)))
    return V.unsafe_view(out, out_shape)


def _batch_of_matrices(t, expanded, shape3):
    """t.expand(expanded).reshape(shape3), as PyTorch's batched matmul makes its operands.
    A 3-D operand already of that shape that records nothing is used as it is (its views
    would be the same memory with no node)."""
    if t._shape == shape3:
        if not t.requires_grad:
            return t
        # (the two views spelled out: the same nodes and strides as expand and reshape give
        # a tensor of the target shape, without their argument parsing)
        e = V._reshaped(V.ExpandBackward0, t, t._shape, t._stride)
        strides = V._view_strides(shape3, e._stride, shape3)
        return V._reshaped(V.ViewBackward0 if e.is_contiguous() else V.ReshapeAliasBackward0, e, shape3, strides)
    return V.reshape(V.expand(t, expanded), shape3)


class AddmmBackward0(Node):
    """Backward of linear(x, w, b) for 2-D x: gradients of x, w and b in one backend call
    (no transposed copies) when the backward is not itself recorded."""

    # addmm(b, x, w.t())'s mm_mat1/mat2_backward: a column-major x gets a column-major
    # gradient; a w whose w.t() is not column-major gets its gradient transposed.
    # bias_broadcast: a bias not of shape (out,) (a scalar, (1, out), (n, out)) gets g itself,
    # which the engine sums down to its shape (ATen's self gradient; a 1-D bias's sum is here)
    x_cm = w_t = bias_broadcast = False

    def backward(self, g):
        x, w = self.saved_tensors
        need_x, need_w = self.needs_input_grad(0), self.needs_input_grad(1)
        need_b = len(self._next_fns) > 2 and self.needs_input_grad(2)
        if need_b and self.bias_broadcast:
            if not (need_x or need_w):
                return None, None, g
            gx, gw, _ = self.backward_without_bias(g, x, w, need_x, need_w)
            return gx, gw, g
        return self.backward_without_bias(g, x, w, need_x, need_w, need_b)

    def backward_without_bias(self, g, x, w, need_x, need_w, need_b=False):
        path = backward_path(lambda: accelerated(g, "linear_backward"), g, x, w)
        if (self.x_cm and need_x) or (self.w_t and need_w):
            gx = V.t(mm(V.t(w), V.t(g))) if need_x and self.x_cm else (mm(g, w) if need_x else None)
            gw = V.t(mm(V.t(x), g)) if need_w and self.w_t else (mm(V.t(g), x) if need_w else None)
            return gx, gw, (g.sum(0) if need_b else None)
        if path is FUSED and (x is None or x._dtype is g._dtype) and (w is None or w._dtype is g._dtype):
            gx, gw, gb = backend_of(g).linear_backward(
                g._view_tuple(), x._view_tuple() if x is not None else None,
                w._view_tuple() if w is not None else None, need_x, need_w, need_b)
            dev = g.device
            return (new_tensor(gx, (g._shape[0], w._shape[1]), g._dtype, dev) if gx is not None else None,
                    new_tensor(gw, (g._shape[1], x._shape[1]), g._dtype, dev) if gw is not None else None,
                    new_tensor(gb, (g._shape[1],), g._dtype, dev) if gb is not None else None)
        gx = mm(g, w) if need_x else None
        gw = mm(V.t(g), x) if need_w else None
        gb = g.sum(0) if need_b else None
        return gx, gw, gb


class MmBackwardLinear(AddmmBackward0):
    pass


MmBackwardLinear.__name__ = "MmBackward0"     # linear without bias shows as a plain mm


def linear(x, w, b=None):
    """x @ w.T + b (PyTorch's F.linear).  2-D inputs run as one op whose backward is fused;
    other shapes fold the leading dims into rows."""
    if _amp.ON: x, w, b = _amp.cast_lower(x, w, b)
    if w.dim() != 2 or x.dim() < 1:
        if w.dim() > 2:         # (ATen's weight.t(), in each of its paths)
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {w.dim()}D")
        out = matmul(x, V.t(w) if w.dim() == 2 else w)
        return out if b is None else out + b
    # ATen's routes: a bias with a 2-D input, or a 1-D bias with any contiguous input, is addmm
    # (its checks: the bias's dtype, the input's, the shapes, the bias's expansion); any other
    # input is matmul, the bias then added in place (kept in the product's dtype)
    addmm = b is not None and (x.dim() == 2 or (b.dim() == 1 and x.is_contiguous()))
    if b is not None and not addmm:
        out = matmul(x, V.t(w))
        return out.add_(b)
    if addmm:
        if b._dtype is not w._dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {D.scalar_type_name(b._dtype)} and "
                               f"{D.scalar_type_name(w._dtype)}")
        if x._dtype is not w._dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {D.scalar_type_name(x._dtype)} and "
                               f"{D.scalar_type_name(w._dtype)}")
    if x.dim() != 2:
        lead = x._shape[:-1]
        out2 = linear(V.reshape(x, (math.prod(lead), x._shape[-1])), w, b)
        return V.reshape(out2, tuple(lead) + (w._shape[0],))
    if x._shape[1] != w._shape[1]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x._shape[0]}x{x._shape[1]} and "
                           f"{w._shape[1]}x{w._shape[0]})")
    check_same_device(x, w)
    work = _has_work(x, w)
    if not work and b is not None and x._dtype is D.bool_ and x._shape[0] and w._shape[0]:
        # (addmm of no terms: self copied, then multiplied in place by beta, an int)
        raise RuntimeError("result type Long can't be cast to the desired output type Bool")
    _check_dtypes(x, w, work=work)
    (n, i), o = x._shape, w._shape[0]
    shape = (n, o)
    if b is not None and b._shape != (o,):
        V.expand(b, shape)      # (addmm's expansion of its self: its error where it does not expand)
    xv = (x._storage.buffer, x._offset, (n, i), x._stride)
    # w.T as the backend view it is (w's memory read transposed): no view tensor for it
    wtv = (w._storage.buffer, w._offset, (i, o), (w._stride[1], w._stride[0]))
    # PyTorch's Half addmm adds the bias inside its float32 GEMM: one rounding
    half_bias = b is not None and (x._dtype is D.float16 or x._dtype is D.bfloat16)
    product_dtype = D.float32 if half_bias else x._dtype
    backend = backend_of(x)
    prod = backend.matmul(xv, wtv, product_dtype.np)
    if b is None:
        out = new_tensor(prod, shape, x._dtype, x.device)
    elif not half_bias and b._dtype is x._dtype and b._storage.device is x._storage.device and len(b._shape) == 1 \
            and b._shape[0] == o:
        # the bias row added by the backend directly (PyTorch's addmm rounds the product
        # before adding b as well).  Into a new buffer: in place into the product's the
        # kernel ran 21 us instead of 13 ((128, 256) float32: its loop's overlap check fails)
        out = new_tensor(backend.binary("add", (prod, 0, shape, (o, 1)), broadcast_view(b, shape), shape, x._dtype.np),
                         shape, x._dtype, x.device)
    else:
        from .elementwise import _binary_raw
        out = _binary_raw("add", new_tensor(prod, shape, product_dtype, x.device), b, product_dtype)
        if half_bias:
            out = cast(out, x._dtype)
    inputs = (x, w) if b is None else (x, w, b)
    if needs_grad(*inputs):
        node = record(AddmmBackward0 if b is not None else MmBackwardLinear, inputs, (out,))
        if _column_major(x):
            node.x_cm = True
        if not (w._stride[1] == 1 and w._stride[0] == w._shape[1]):
            node.w_t = True
        if b is not None and b._shape != (o,):
            node.bias_broadcast = True
        node.save(x if node.needs_input_grad(1) else None, w if node.needs_input_grad(0) else None)
    return out
