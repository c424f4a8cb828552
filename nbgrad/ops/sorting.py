"""Sorting: sort, argsort, topk — values with the indices they came from; the gradient
of the values goes back to those indices."""
from .. import _dtype as D
from ..autograd.node import Node
from .._layout import order_of_strides, preserve_strides
from .._tensor import _strides_of
from ._dtype_rules import check as check_dtype
from ._graph import backend_of, copy_raw, int_dim, needs_grad, new_strided, new_tensor, permuted, record, _wrap
from .reduction import ReductionResult
from . import views as V


class _PlaceAtIndicesBackward(Node):
    def backward(self, g, g_indices=None):
        (indices,) = self.saved_tensors
        from .indexing import _scatter_into_zeros
        return _scatter_into_zeros(self.shape, self.dim, indices, g)


class SortBackward0(_PlaceAtIndicesBackward):
    pass


class TopkBackward0(_PlaceAtIndicesBackward):
    pass


def _sorted(x, dim, descending, op="sort"):
    d = _wrap(int_dim(op, dim), x.dim())
    if x.dim() == 0:
        from .._creation import zeros
        return copy_raw(x), zeros((), dtype=D.int64, device=x.device), 0
    strides = preserve_strides(x._shape, x._stride)     # PyTorch's sort: x's dense layout
    if strides == _strides_of(x._shape):
        vbuf, ibuf = backend_of(x).sort(x._view_tuple(), d, bool(descending))
        return (new_tensor(vbuf, x._shape, x._dtype, x.device),
                new_tensor(ibuf, x._shape, D.int64, x.device), d)
    order = order_of_strides(x._shape, strides)
    vbuf, ibuf = backend_of(x).sort(permuted(x._view_tuple(), order), order.index(d), bool(descending))
    return (new_strided(vbuf, x._shape, strides, x._dtype, x.device),
            new_strided(ibuf, x._shape, strides, D.int64, x.device), d)


def sort(x, dim=-1, descending=False, stable=False):
    values, indices, d = _sorted(x, dim, descending)
    if needs_grad(x):
        record(SortBackward0, (x,), (values, None), shape=x._shape, dim=d).save(indices)
    return ReductionResult(values, indices, "sort")


def argsort(x, dim=-1, descending=False, stable=False):
    return _sorted(x, dim, descending, "argsort")[1]


def topk(x, k, dim=-1, largest=True, sorted=True):
    check_dtype("topk", x._dtype)
    n = x._shape[_wrap(int_dim("topk", dim), x.dim())] if x.dim() else _wrap(int_dim("topk", dim), 0) + 1
    if k < 0 or k > n:
        raise RuntimeError(f"selected index k out of range")
    values, indices, d = _sorted(x, dim, largest)
    if x.dim():
        values = copy_raw(V.narrow(values, d, 0, k))
        indices = copy_raw(V.narrow(indices, d, 0, k))
    if needs_grad(x):
        record(TopkBackward0, (x,), (values, None), shape=x._shape, dim=d).save(indices)
    return ReductionResult(values, indices, "topk")
