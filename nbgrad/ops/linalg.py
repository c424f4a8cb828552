"""Matrix products: matmul with PyTorch's 1-D/2-D/batched/broadcast rules, mm, bmm, mv, dot, outer."""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.node import Node
from ._graph import backend_of, broadcast_shapes, broadcast_view, check_same_device, needs_grad, new_tensor, record
from . import views as V


def _check_dtypes(a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(a._dtype)} != {_cname(b._dtype)}")
    if a._dtype is D.bool_:
        raise RuntimeError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _cname(dt):
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int"}.get(dt.name, dt.name)


def _batched_raw(a, b, batch):
    """(*batch, n, k) @ (*batch, k, m) with a and b broadcast to the batch shape."""
    n, k = a._shape[-2], a._shape[-1]
    m = b._shape[-1]
    av = broadcast_view(a, tuple(batch) + (n, k))
    bv = broadcast_view(b, tuple(batch) + (k, m))
    buf = backend_of(a).matmul(av, bv, a._dtype.np)
    return new_tensor(buf, tuple(batch) + (n, m), a._dtype, a.device)


class MmBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = mm(g, V.t(b)) if self.needs_input_grad(0) else None
        gb = mm(V.t(a), g) if self.needs_input_grad(1) else None
        return ga, gb


def mm(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError(f"{'self' if a.dim() != 2 else 'mat2'} must be a matrix")
    if a._shape[1] != b._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a._shape[0]}x{a._shape[1]} and "
                           f"{b._shape[0]}x{b._shape[1]})")
    check_same_device(a, b)
    _check_dtypes(a, b)
    out = _batched_raw(a, b, ())
    if needs_grad(a, b):
        record(MmBackward0, (a, b), (out,)).save(a if b._requires_grad else None,
                                                 b if a._requires_grad else None)
    return out


class BmmBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = matmul(g, V.mT(b)) if self.needs_input_grad(0) else None
        gb = matmul(V.mT(a), g) if self.needs_input_grad(1) else None
        return ga, gb


def bmm(a, b):
    if a.dim() != 3 or b.dim() != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if a.dim() != 3 else "batch2 must be a 3D tensor")
    if a._shape[0] != b._shape[0] or a._shape[2] != b._shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._shape[0]}, {a._shape[2]}] but got: [{b._shape[0]}, {b._shape[1]}].")
    return _batched(a, b, (a._shape[0],), BmmBackward0)


class MatmulBackward(BmmBackward0):
    pass


MatmulBackward.__name__ = "UnsafeViewBackward0"   # what PyTorch shows for broadcast batched matmul


def _batched(a, b, batch, node_cls):
    check_same_device(a, b)
    _check_dtypes(a, b)
    out = _batched_raw(a, b, batch)
    if needs_grad(a, b):
        record(node_cls, (a, b), (out,)).save(a if b._requires_grad else None,
                                               b if a._requires_grad else None)
    return out


class MvBackward0(Node):
    def backward(self, g):
        a, v = self.saved_tensors
        ga = outer(g, v) if self.needs_input_grad(0) else None
        gv = mv(V.t(a), g) if self.needs_input_grad(1) else None
        return ga, gv


def mv(a, v):
    if a.dim() != 2 or v.dim() != 1:
        raise RuntimeError("vector + matrix @ vector expected, got " + f"{a.dim()}, {v.dim()}")
    if a._shape[1] != v._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a._shape[0]}), mat ({a._shape[0]}x{a._shape[1]}), vec ({v._shape[0]})")
    check_same_device(a, v)
    _check_dtypes(a, v)
    vv = V.make_view(v, (v._shape[0], 1), (v._stride[0], 1), v._offset)
    out2 = _batched_raw(a, vv, ())
    out = new_tensor(out2._storage.buffer, (a._shape[0],), a._dtype, a.device)
    if needs_grad(a, v):
        record(MvBackward0, (a, v), (out,)).save(a if v._requires_grad else None, v if a._requires_grad else None)
    return out


class DotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return (g * b if self.needs_input_grad(0) else None), (g * a if self.needs_input_grad(1) else None)


def dot(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a._shape[0] != b._shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a._shape[0]}] and src [{b._shape[0]}] "
                           f"to have the same number of elements, but got {a._shape[0]} and {b._shape[0]} elements respectively")
    check_same_device(a, b)
    _check_dtypes(a, b)
    av = V.make_view(a, (1, a._shape[0]), (0, a._stride[0]), a._offset)
    bv = V.make_view(b, (b._shape[0], 1), (b._stride[0], 0), b._offset)
    out2 = _batched_raw(av, bv, ())
    out = new_tensor(out2._storage.buffer, (), a._dtype, a.device)
    if needs_grad(a, b):
        record(DotBackward0, (a, b), (out,)).save(a if b._requires_grad else None, b if a._requires_grad else None)
    return out


def outer(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError("outer: expected 1D tensors")
    return V.reshape(a, (a._shape[0], 1)) * b


ger = outer


def matmul(a, b):
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
        return V.squeeze(mm(V.unsqueeze(a, 0), b), 0)
    if da == 2 and db == 2:
        return mm(a, b)
    # batched, with broadcasting of the batch dims
    a2 = V.unsqueeze(a, 0) if da == 1 else a
    b2 = V.unsqueeze(b, -1) if db == 1 else b
    if a2._shape[-1] != b2._shape[-2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a2._shape[-3] if a2.dim() > 2 else 1}, "
            f"{a2._shape[-1]}] but got: [{b2._shape[-3] if b2.dim() > 2 else 1}, {b2._shape[-2]}].")
    batch = broadcast_shapes(a2._shape[:-2], b2._shape[:-2])
    out = _batched(a2, b2, batch, MatmulBackward)
    if da == 1:
        out = V.squeeze(out, -2)
    if db == 1:
        out = V.squeeze(out, -1)
    return out
