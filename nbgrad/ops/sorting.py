"""Sorting: sort, argsort, topk — values with the indices they came from; the gradient
of the values goes back to those indices."""
import math

import numpy as np

from .. import _dtype as D
from ..autograd.node import Node
from .._layout import order_of_strides, preserve_strides
from .._tensor import Tensor, _strides_of
from ._dtype_rules import check as check_dtype
from ._graph import backend_of, copy_raw, int_dim, needs_grad, new_strided, new_tensor, permuted, record, wrap_int_dim, _wrap
from .reduction import ReductionResult
from . import _graph, views as V


class _PlaceAtIndicesBackward(Node):
    def backward(self, g, g_indices=None):
        (indices,) = self.saved_tensors
        from .indexing import _scatter_into_zeros
        return _scatter_into_zeros(self.shape, self.dim, indices, g)


class SortBackward0(_PlaceAtIndicesBackward):
    pass


class TopkBackward0(_PlaceAtIndicesBackward):
    pass


def tie_order(x, order):
    """order where x's backend arranges ties as PyTorch's kernel on that device does
    (backends' TIE_ORDERS: the CPU's), else "stable" (a stable sort, which gives the same
    values and, for topk/kthvalue, the same selection up to the order of ties)."""
    return order if getattr(backend_of(x), "TIE_ORDERS", False) else "stable"


def _sorted(x, dim, descending, op="sort", order="stable", k=0):
    """(values, indices, dim): x sorted along dim, or arranged as `order` says (tie_order)."""
    d = wrap_int_dim(op, dim, x)
    if x.dim() == 0:
        from .._creation import zeros
        return copy_raw(x), zeros((), dtype=D.int64, device=x.device), 0
    be = backend_of(x)

    def run(view, dim):
        if order == "stable":
            return be.sort(view, dim, bool(descending))
        return be.sort(view, dim, bool(descending), order, k)
    strides = preserve_strides(x._shape, x._stride)     # PyTorch's sort: x's dense layout
    if strides == _strides_of(x._shape):
        vbuf, ibuf = run(x._view_tuple(), d)
        return (new_tensor(vbuf, x._shape, x._dtype, x.device),
                new_tensor(ibuf, x._shape, D.int64, x.device), d)
    order_ = order_of_strides(x._shape, strides)
    vbuf, ibuf = run(permuted(x._view_tuple(), order_), order_.index(d))
    return (new_strided(vbuf, x._shape, strides, x._dtype, x.device),
            new_strided(ibuf, x._shape, strides, D.int64, x.device), d)


def _first_columns(values, indices, d, k):
    """The first k columns of row-major CPU values and indices arranged along their last dim d,
    as new tensors, by NumPy's slicing (narrow and two general copies cost ~20 us of a
    16-element topk); None for any other call, or while nbgrad.compile captures (it records
    backend calls, not NumPy's)."""
    shape = values._shape
    total = math.prod(shape)
    if not total or d != len(shape) - 1 or values._storage.device.type != "cpu" or _graph.CAPTURE[0] is not None:
        return None
    rm = _strides_of(shape)
    if any(t._offset or t._storage.buffer.size != total or t._stride != rm for t in (values, indices)):
        return None
    n = shape[d]
    out_shape = tuple(shape[:-1]) + (k,)
    return [Tensor._from_buffer(np.ascontiguousarray(t._storage.buffer.reshape(total // n, n)[:, :k]).reshape(-1),
                                out_shape, t._dtype, t._storage.device) for t in (values, indices)]


def sort(x, dim=-1, descending=False, *, stable=False):
    values, indices, d = _sorted(x, dim, descending, order="stable" if stable else tie_order(x, "std"))
    if needs_grad(x):
        record(SortBackward0, (x,), (values, None), shape=x._shape, dim=d).save(indices)
    return ReductionResult(values, indices, "sort")


def argsort(x, dim=-1, descending=False, *, stable=False):
    return _sorted(x, dim, descending, "argsort", order="stable" if stable else tie_order(x, "std"))[1]


def topk(x, k, dim=-1, largest=True, sorted=True):
    if type(k) is not int:
        # (a tensor k would have become the result's size)
        from .._checks import as_symint
        k = as_symint(k, "topk", "k", 1)
    n = x._shape[_wrap(int_dim("topk", dim), x.dim())] if x.dim() else _wrap(int_dim("topk", dim), 0) + 1
    if k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    check_dtype("topk", x._dtype)       # (the kernel's, after topk's meta function checked dim and k)
    values, indices, d = _sorted(x, dim, largest, "topk", tie_order(x, "topk_sorted" if sorted else "topk"), k)
    if x.dim():
        firsts = _first_columns(values, indices, d, k)
        if firsts is not None:
            values, indices = firsts
        else:
            values = copy_raw(V.narrow(values, d, 0, k))
            indices = copy_raw(V.narrow(indices, d, 0, k))
    if needs_grad(x):
        record(TopkBackward0, (x,), (values, None), shape=x._shape, dim=d).save(indices)
    return ReductionResult(values, indices, "topk")
