"""Reductions (sum, mean, prod, max/min, arg*, var/std, logsumexp, norm) and softmax."""
import math

from .. import _dtype as D
from .._size import Size
from .._checks import as_number
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import Node
from ._dtype_rules import check as check_dtype
from ._graph import (accelerated, backend_of, cast, contiguous_data, copy_raw, needs_grad, new_tensor, record,
                     row_major_numel, shortcuts, wrap_dims, int_dim, wrap_int_dim)


class ReductionResult(tuple):
    """(values, indices) with attribute access, like torch.return_types.max."""

    _name = ""

    def __new__(cls, values, indices, name=None):
        result = super().__new__(cls, (values, indices))
        if name:
            result._name = name      # the op's name, as PyTorch's repr shows it (max, sort, max_out)
        return result

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        name = f".{self._name}" if self._name else ""
        return f"nbgrad.return_types{name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _check_flag(op, name, value):
    """A bool parameter (keepdim, unbiased) given anything but a bool: PyTorch's TypeError."""
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")


def _opmath(dtype):
    """The dtype PyTorch computes a dtype's math in: float32 for float16 and bfloat16."""
    return D.float32 if dtype is D.float16 or dtype is D.bfloat16 else dtype


def _history_checked_first(x):
    """Before a reduction refuses its arguments: PyTorch's autograd layer collects the
    input's history first, which raises for a multi-output or no-grad view whose base was
    changed in place; that error comes before the kernel's."""
    if x._requires_grad and is_grad_enabled():
        x.grad_fn


def _kept_shape(shape, dims, keepdim):
    if keepdim:
        return Size(1 if i in dims else n for i, n in enumerate(shape))
    return Size(n for i, n in enumerate(shape) if i not in dims)


def _reduce_raw(op, x, dims, out_dtype, keepdim, **kw):
    """Run a backend reduction over sorted dims; result shaped with or without kept dims."""
    shape = _kept_shape(x._shape, dims, keepdim)
    if op == "var" and x.numel() == 0:
        # PyTorch's std_var_out: an empty input's variance is NaN whatever the correction
        # (a negative one would otherwise divide 0 by -correction: 0)
        return new_tensor(backend_of(x).full(math.prod(shape), out_dtype.np, math.nan), shape, out_dtype, x.device)
    if not dims:
        # nothing to reduce (0-dim input): the op is the identity (or its cast)
        if op in ("argmax", "argmin"):
            from .._creation import zeros
            return zeros((), dtype=D.int64, device=x.device)
        if op in ("var", "sum", "mean", "prod", "logsumexp"):
            # one element, seen as a 1-element row, as PyTorch reduces it: var 0 (nan for nan
            # and inf, or without degrees of freedom), sum -0.0 + 0 = +0.0, logsumexp
            # max + log(1) = +0.0 for -0.0
            buf_, off, _, _ = x._view_tuple()
            buf = backend_of(x).reduce(op, (buf_, off, (1,), (1,)), (0,), out_dtype.np, **kw)
            return new_tensor(buf, shape, out_dtype, x.device)
        return copy_raw(x) if x._dtype is out_dtype else cast(x, out_dtype)
    if x.numel() == 0 and op in ("max", "min", "amax", "amin", "argmax", "argmin"):
        empty = [d for d in dims if x._shape[d] == 0]
        if empty:
            if op not in ("argmax", "argmin"):      # (no history: integer results)
                _history_checked_first(x)
            raise IndexError(f"{op}(): Expected reduction dim {empty[0]} to have non-zero size.")
        # reducing non-empty dims of an empty tensor: an empty result, no identity needed
        return new_tensor(backend_of(x).empty(0, out_dtype.np), shape, out_dtype, x.device)
    buf = backend_of(x).reduce(op, x._view_tuple(), dims, out_dtype.np, **kw)
    return new_tensor(buf, shape, out_dtype, x.device)


_SCALAR = Size(())
_TOTAL_DENSE = shortcuts("total_dense")
_VAR_DENSE = shortcuts("var_dense")


def _total_dense(op, x):
    """x.sum() / x.mean() / x.max() ... of a row-major tensor by the backend's shortcut (the small
    op's cost is its Python; the backend says which ops and dtypes it serves): the 0-dim result,
    or None to take _reduce_raw."""
    n = row_major_numel(x)
    if not n:
        return None
    dev = x._storage.device
    dense = _TOTAL_DENSE[dev.type]
    if dense is None:
        return None
    buf = dense(op, x._storage.buffer, x._offset, n, x._dtype.np)
    return None if buf is None else Tensor._from_buffer(buf, _SCALAR, x._dtype, dev)


def _var_dense(x, dims, keepdim, correction, take_sqrt):
    """x.var() / x.std() over every dim of a row-major floating tensor by the backend's shortcut
    (reduce("var")'s value, its sqrt for std, rounded to x's dtype), or None to compose them."""
    n = row_major_numel(x) if len(dims) == x.dim() else 0
    if not n:
        return None
    dev = x._storage.device
    dense = _VAR_DENSE[dev.type]
    if dense is None:
        return None
    buf = dense(x._storage.buffer, x._offset, n, correction, take_sqrt, x._dtype.np)
    return None if buf is None else Tensor._from_buffer(buf, _kept_shape(x._shape, dims, keepdim), x._dtype, dev)


def _restore_dims(g, shape, dims, keepdim):
    """PyTorch's restore_reduced_dims: unsqueeze the reduced dims of g when not kept.
    (A 0-dim input's dim 0 is no real dim: g is already 0-dim.)"""
    if not keepdim and shape:
        for d in dims:
            g = g.unsqueeze(d)
    return g


def _expand_back(g, shape, dims, keepdim):
    """The reduced dims of g restored, and g expanded to the input shape."""
    return _restore_dims(g, shape, dims, keepdim).expand(shape)


def check_grad_dtype(x, out_dtype):
    """PyTorch's autograd refuses to record an integral or bool result of a differentiable
    input (sum(dtype=torch.int64) of a tensor that requires grad)."""
    if not out_dtype.is_floating_point and needs_grad(x):
        raise RuntimeError(f"Autograd not support dtype: {D.scalar_type_name(out_dtype)}")


def _sum_dtype(x, dtype):
    if dtype is not None:
        return D.to_dtype(dtype)
    return x._dtype if x._dtype.is_floating_point else D.int64


class SumBackward0(Node):
    def backward(self, g):
        return g.expand(self.shape)


class SumBackward1(Node):
    def backward(self, g):
        return _expand_back(g, self.shape, self.dims, self.keepdim)


def sum(x, dim=None, keepdim=False, *, dtype=None):
    if dim is None and dtype is None and keepdim is False and isinstance(x, Tensor):
        out = _total_dense("sum", x)
        if out is not None:
            if needs_grad(x):
                record(SumBackward0, (x,), (out,), shape=x._shape)
            return out
    _check_flag("sum", "keepdim", keepdim)
    out_dtype = _sum_dtype(x, dtype)
    dims = wrap_dims(dim, x.dim())
    # an explicit dtype converts each element first, as PyTorch (f32.sum(dtype=half) adds halves)
    out = _reduce_raw("sum", cast(x, out_dtype) if dtype is not None else x, dims, out_dtype, keepdim)
    check_grad_dtype(x, out_dtype)
    if needs_grad(x):
        if dim is None:
            record(SumBackward0, (x,), (out,), shape=x._shape)
        else:
            record(SumBackward1, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim)
    return out


def sum_to_size(x, *size):
    """Sum x down to a shape it was broadcast from (the gradient of expand)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    if tuple(x._shape) == shape:
        return x
    from .._checks import int_tuple
    shape = int_tuple(shape, "sum_to_size", "size", 1)
    # ATen's is_expandable_to(size, self's sizes), from the last dim
    # (this module's any is the tensor reduction: a loop)
    expandable = len(shape) <= x.dim()
    for n, m in zip(reversed(shape), reversed(x._shape)):
        expandable = expandable and (n == m or n == 1)
    if not expandable:
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(x._shape)}}}.")
    lead = x.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and x._shape[lead + i] != 1)
    out = sum(x, dims, keepdim=True) if dims else x
    if lead:
        out = out.reshape(shape)
    return out


class MeanBackward0(Node):
    def backward(self, g):
        return g.expand(self.shape) / self.count


class MeanBackward1(Node):
    def backward(self, g):
        return _expand_back(g, self.shape, self.dims, self.keepdim) / self.count


def mean(x, dim=None, keepdim=False, *, dtype=None):
    if dim is None and dtype is None and keepdim is False and isinstance(x, Tensor):
        out = _total_dense("mean", x)
        if out is not None:
            if needs_grad(x):
                record(MeanBackward0, (x,), (out,), shape=x._shape, count=math.prod(x._shape))
            return out
    _check_flag("mean", "keepdim", keepdim)
    out_dtype = D.to_dtype(dtype) if dtype is not None else x._dtype
    check_dtype("mean", out_dtype)
    dims = wrap_dims(dim, x.dim())
    count = math.prod(x._shape[d] for d in dims) if x.dim() else 1
    # PyTorch's CPU mean to float16: a float32 sum of the input, divided, rounded once
    acc = _opmath(out_dtype)
    out = cast(_reduce_raw("mean", cast(x, acc), dims, acc, keepdim), out_dtype)
    if needs_grad(x):
        if dim is None:
            record(MeanBackward0, (x,), (out,), shape=x._shape, count=count)
        else:
            record(MeanBackward1, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim, count=count)
    return out


class ProdBackward0(Node):
    def backward(self, g):
        (x, out) = self.saved_tensors
        return _prod_grad(g, x, out, None)


class ProdBackward1(Node):
    def backward(self, g):
        (x, out) = self.saved_tensors
        return _prod_grad(_restore_dims(g, self.shape, self.dims, self.keepdim), x,
                          _restore_dims(out, self.shape, self.dims, self.keepdim), self.dims)


def _prod_grad(g, x, out, dims):
    """PyTorch's prod_backward: g * (out / x) without zeros, else the product of the other
    elements as exclusive prefix times exclusive suffix products: recorded ops only, so
    that the gradient is itself differentiable (create_graph) where x holds zeros.
    g and out come with the reduced dims restored (size 1), not expanded: the results are
    broadcast as PyTorch's are, so they have its layouts."""
    if x.dim() == 0:
        return g
    zeros = int((x == 0).sum())
    if not zeros:
        return g * (out / x)
    if dims is None:
        if zeros > 1 and not is_grad_enabled():
            # PyTorch's shortcut for the whole product: two zeros make every partial
            # product 0, whatever g is (a nan g included)
            from .._creation import zeros as zeros_of
            return zeros_of(x._shape, dtype=x._dtype, device=x.device)
        return _prod_safe_zeros(g, x.contiguous().view(-1), 0).view_as(x)
    return _prod_safe_zeros(g, x, dims[0])


def _prod_safe_zeros(g, x, dim):
    if x.numel() == 0:
        return g.expand_as(x)
    if x._shape[dim] == 1:
        return g            # the product of no other element: g itself
    return g * _prod_of_others(x, dim)


def _prod_of_others(x, dim):
    """[b*c, a*c, a*b] for [a, b, c] along dim (PyTorch's prod_safe_zeros_backward)."""
    n = x.shape[dim]
    if n == 0:
        return x
    from .._creation import ones
    from .indexing import cat
    shape = list(x.shape)
    shape[dim] = 1
    one = ones(shape, dtype=x.dtype, device=x.device)
    if n == 1:
        return one          # an empty product: no function of x (PyTorch's is not recorded either)
    before = cat([one, x.narrow(dim, 0, n - 1)], dim)        # [1, a, b]
    after = cat([x.narrow(dim, 1, n - 1), one], dim)         # [b, c, 1]
    k = 1
    while k < n:        # log-depth inclusive scans: before -> [1, a, ab], after -> [bc, c, 1]
        before = cat([before.narrow(dim, 0, k),
                      before.narrow(dim, k, n - k) * before.narrow(dim, 0, n - k)], dim)
        after = cat([after.narrow(dim, 0, n - k) * after.narrow(dim, k, n - k),
                     after.narrow(dim, n - k, k)], dim)
        k *= 2
    return before * after


def prod(x, dim=None, keepdim=False, *, dtype=None):
    _check_flag("prod", "keepdim", keepdim)
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    out_dtype = _sum_dtype(x, dtype)
    dims = wrap_dims(int_dim("prod", dim), x.dim())
    out = _reduce_raw("prod", cast(x, out_dtype) if dtype is not None else x, dims, out_dtype, keepdim)
    check_grad_dtype(x, out_dtype)
    if needs_grad(x):
        if dim is None:
            node = record(ProdBackward0, (x,), (out,), shape=x._shape)
        else:
            node = record(ProdBackward1, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim)
        node.save(x, out, outputs=(out,))
    return out


# -- max / min -----------------------------------------------------------------
class _FullExtremumBackward(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        # PyTorch's evenly_distribute_backward: ties share the gradient evenly, and a NaN
        # result is every NaN element's
        mask = x.isnan() if bool(out.isnan()) else x == out
        # grad.new_zeros(x.shape).masked_fill_(mask, grad / mask.sum()): the other elements
        # get exactly 0, also when the incoming gradient is nan or inf
        from .._creation import zeros
        return zeros(x._shape, dtype=g.dtype, device=g.device).masked_fill(mask, g / mask.sum())


class MaxBackward1(_FullExtremumBackward):
    pass


class MinBackward1(_FullExtremumBackward):
    pass


class _DimExtremumBackward(Node):
    def backward(self, g, g_indices=None):
        (indices,) = self.saved_tensors
        from .indexing import _scatter_into_zeros
        if not self.keepdim:
            g = g.unsqueeze(self.dim)
            indices = indices.unsqueeze(self.dim)
        return _scatter_into_zeros(self.shape, self.dim, indices, g)


class MaxBackward0(_DimExtremumBackward):
    pass


class MinBackward0(_DimExtremumBackward):
    pass


class _AmaxBackward(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        # PyTorch's scale_grad_by_count(restore(grad), restore(result) == self, dims):
        # (grad / count) * mask, broadcast in that order (the mask's layout wins)
        mask = (_restore_dims(out, self.shape, self.dims, self.keepdim) == x).to(g.dtype)
        count = mask.sum(self.dims, keepdim=True)
        return (_restore_dims(g, self.shape, self.dims, self.keepdim) / count) * mask


class AmaxBackward0(_AmaxBackward):
    pass


class AminBackward0(_AmaxBackward):
    pass


def _extremum(x, dim, keepdim, is_max, full_node, dim_node):
    _check_flag("max" if is_max else "min", "keepdim", keepdim)
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{'max' if is_max else 'min'}(): argument 'dim' must be int, not {type(dim).__name__}")
    if dim is None:
        if x.numel() == 0:
            _history_checked_first(x)
            raise RuntimeError(f"{'max' if is_max else 'min'}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        op = "max" if is_max else "min"
        out = _total_dense(op, x)
        if out is None:
            out = _reduce_raw(op, x, tuple(range(x.dim())), x._dtype, False)
        if needs_grad(x):
            record(full_node, (x,), (out,)).save(x, out, outputs=(out,))
        return out
    d = wrap_int_dim("max" if is_max else "min", dim, x)
    if x.dim() == 0:
        from .._creation import zeros
        values = copy_raw(x)
        indices = zeros((), dtype=D.int64, device=x.device)
        if needs_grad(x):     # the returned indices are what is saved: changing them is caught
            record(dim_node, (x,), (values, None), shape=x._shape, dim=0, keepdim=True).save(indices)
        return ReductionResult(values, indices, "max" if is_max else "min")
    if x._shape[d] == 0:
        _history_checked_first(x)
        raise IndexError(f"{'max' if is_max else 'min'}(): Expected reduction dim {d} to have non-zero size.")
    vbuf, ibuf = backend_of(x).max_with_index(x._view_tuple(), d, is_max)
    shape = _kept_shape(x._shape, (d,), keepdim)
    values = new_tensor(vbuf, shape, x._dtype, x.device)
    indices = new_tensor(ibuf, shape, D.int64, x.device)
    if needs_grad(x):
        record(dim_node, (x,), (values, None), shape=x._shape, dim=d, keepdim=keepdim).save(indices)
    return ReductionResult(values, indices, "max" if is_max else "min")


def max(x, dim=None, keepdim=False):
    if isinstance(dim, Tensor):
        from .elementwise import maximum
        return maximum(x, dim)
    return _extremum(x, dim, keepdim, True, MaxBackward1, MaxBackward0)


def min(x, dim=None, keepdim=False):
    if isinstance(dim, Tensor):
        from .elementwise import minimum
        return minimum(x, dim)
    return _extremum(x, dim, keepdim, False, MinBackward1, MinBackward0)


def _amax_like(op, node_cls):
    def reduce_op(x, dim=(), keepdim=False):
        _check_flag(op, "keepdim", keepdim)
        if x.numel() == 0 and (dim is None or (isinstance(dim, (tuple, list)) and not dim)):
            _history_checked_first(x)
            raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        dims = wrap_dims(dim, x.dim())
        out = _total_dense(op, x) if not keepdim and len(dims) == x.dim() else None
        if out is None:
            out = _reduce_raw(op, x, dims, x._dtype, keepdim)
        if needs_grad(x):
            record(node_cls, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim).save(x, out, outputs=(out,))
        return out
    reduce_op.__name__ = op
    return reduce_op


amax = _amax_like("amax", AmaxBackward0)
amin = _amax_like("amin", AminBackward0)


_ARG_DENSE = shortcuts("arg_dense")


def _arg_dense(op, x, dim, keepdim):
    """argmax/argmin of a row-major floating tensor over all of it (dim None) or its last dim
    by the backend's shortcut (the small op's cost is its Python: logits.argmax(1) each
    step); None to take _reduce_raw."""
    shape = x._shape
    if not shape or not x._dtype.is_floating_point or not (dim is None or type(dim) is int):
        return None                 # (a dim of another type: the general path's checks)
    last = dim is not None and (dim == -1 or dim == len(shape) - 1)
    if dim is not None and not last:
        return None
    total = row_major_numel(x)
    dense = _ARG_DENSE[x._storage.device.type]
    if not total or dense is None:
        return None
    n = shape[-1] if last else total
    buf = dense(op, x._storage.buffer, x._offset, total // n, n)
    if buf is None:
        return None
    out_shape = ((1,) * len(shape) if keepdim else ()) if not last else \
        tuple(shape[:-1]) + ((1,) if keepdim else ())
    return Tensor._from_buffer(buf, out_shape, D.int64, x._storage.device)


def _arg(op):
    def arg(x, dim=None, keepdim=False):
        dtype = x._dtype        # (the parser's order: input, dim, keepdim)
        int_dim(op, dim)
        _check_flag(op, "keepdim", keepdim)
        check_dtype(op, dtype)
        out = _arg_dense(op, x, dim, keepdim) if isinstance(x, Tensor) else None
        if out is not None:
            return out
        if dim is None:
            if x.numel() == 0:
                raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
            from ..autograd.grad_mode import no_grad
            with no_grad():         # an index is no function of x: no view of x's history
                flat = x.reshape(-1)
            out = _reduce_raw(op, flat, (0,) if flat.dim() else (), D.int64, False)
            if keepdim:
                out = out.reshape((1,) * x.dim())
            return out
        dims = wrap_dims(dim, x.dim())
        return _reduce_raw(op, x, dims, D.int64, keepdim)
    arg.__name__ = op
    return arg


argmax = _arg("argmax")
argmin = _arg("argmin")


def _all_any(op, x, dim, keepdim):
    _check_flag(op, "keepdim", keepdim)
    if isinstance(dim, Tensor) and dim.dim():       # (their dims are an int[], which takes no tensor)
        raise TypeError(f"{op}(): argument 'dim' must be int, not Tensor")
    # dim=() reduces nothing here (sum's dim=() reduces every dim, a legacy rule any/all lack)
    dims = () if isinstance(dim, (tuple, list)) and len(dim) == 0 else wrap_dims(dim, x.dim())
    out = _reduce_raw(op, x, dims, D.bool_, keepdim)
    # PyTorch keeps uint8 for uint8 inputs (a legacy rule); every other dtype gives bool
    return cast(out, D.uint8) if x._dtype is D.uint8 else out


def all(x, dim=None, keepdim=False):
    return _all_any("all", x, dim, keepdim)


def any(x, dim=None, keepdim=False):
    return _all_any("any", x, dim, keepdim)


# -- var / std / logsumexp / norm ----------------------------------------------------
def _var_args(op, dim, unbiased, keepdim, correction):
    """PyTorch's var/std overloads: (dim, unbiased: bool, keepdim) or (dim, *, correction, keepdim)."""
    if isinstance(dim, bool) and unbiased is None:
        dim, unbiased = None, dim
    if unbiased is not None and (not isinstance(unbiased, bool) or correction is not None):
        given = f"unbiased={type(unbiased).__name__}" + (", correction" if correction is not None else "")
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({given}), but expected one "
                        "of: (dim, unbiased: bool, keepdim: bool) or (dim, *, correction, keepdim: bool)")
    _check_flag(op, "keepdim", keepdim)
    return dim, _correction(unbiased, correction)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def _var_grad(g, x, shape, dims, keepdim, correction, full):
    """PyTorch's var_backward: (2 / (n - correction)) * g * (x - mean).  Over all elements
    with n <= correction it is nan where x equals its mean and inf elsewhere."""
    n = math.prod(shape[d] for d in dims) if dims else 1
    dof = n - correction
    if not full:
        g = _restore_dims(g, shape, dims, keepdim)      # broadcast below, as PyTorch's (layouts)
    if full and dof <= 0:
        from .elementwise import where
        return g * where(x == x.mean(), math.nan, math.inf)
    scale = 2.0 / dof if dof else math.inf
    return (g * scale) * (x - (x.mean() if full else x.mean(dims, keepdim=True)))


class VarBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return _var_grad(g, x, self.shape, self.dims, self.keepdim, self.correction, self.full)


def _check_dof(op, x, dims, correction):
    """PyTorch's warning when the reduction has no degrees of freedom (n - correction <= 0)."""
    n = 1
    for d in (dims if dims else range(x.dim())):
        n *= x._shape[d]
    if n - correction <= 0:
        from .._warnings import warn
        warn("no_dof", stacklevel=4, op=op)


_VAR_DTYPES = (D.float32, D.float64)       # (float16's variance is computed in float32, then rounded)


def var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return variance(x, dim, unbiased, keepdim, correction, one_value_path=True)


def variance(x, dim, unbiased, keepdim, correction, one_value_path):
    """var; one_value_path=False: var_mean's variance (PyTorch's Welford even to one value)."""
    dim, corr = _var_args("var", dim, unbiased, keepdim, correction)
    check_dtype("var", x._dtype)
    dims = wrap_dims(dim, x.dim(), in_order=True)      # (make_dim_mask: a repeat before a later dim out of range)
    _check_dof("var", x, dims, corr)
    out = _var_dense(x, dims, keepdim, corr, False) if one_value_path and x._dtype in _VAR_DTYPES else None
    if out is None:
        out = _reduce_raw("var", x, dims, x._dtype, keepdim, correction=corr, one_value_path=one_value_path)
    if needs_grad(x):
        record(VarBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim, correction=corr,
               full=dim is None or x.dim() == 0).save(x)
    return out


class StdBackward0(Node):
    def backward(self, g):
        # PyTorch's std_backward: var_backward of g / (2 * std), masked to 0 where std == 0
        x, out = self.saved_tensors
        # the quotient filled in place, as PyTorch's masked_fill_: it keeps the quotient's
        # layout (g's), which an out-of-place fill or a where() takes from the mask (seed 48023328)
        gv = g / (out * 2)
        gv.masked_fill_(out == 0, 0.0)
        return _var_grad(gv, x, self.shape, self.dims, self.keepdim, self.correction, self.full)


def std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return deviation(x, dim, unbiased, keepdim, correction, one_value_path=True)


def deviation(x, dim, unbiased, keepdim, correction, one_value_path):
    """std; one_value_path=False: std_mean's deviation (PyTorch's Welford even to one value)."""
    dim, corr = _var_args("std", dim, unbiased, keepdim, correction)
    check_dtype("var", x._dtype)
    dims = wrap_dims(dim, x.dim(), in_order=True)
    _check_dof("std", x, dims, corr)
    from .elementwise import _unary_raw
    # the sqrt of the variance in PyTorch's accumulator, rounded once: float64 on the CPU
    # (WelfordOps<.., double> and std_var_all_cpu), float32 for float16 and on CUDA
    out = _var_dense(x, dims, keepdim, corr, True) if one_value_path and x._dtype in _VAR_DTYPES else None
    if out is None:
        acc = D.float64 if x.device.type == "cpu" and x._dtype in _VAR_DTYPES else _opmath(x._dtype)
        v = _reduce_raw("var", x, dims, acc, keepdim, correction=corr, one_value_path=one_value_path)
        out = cast(_unary_raw("sqrt", v), x._dtype)
    if needs_grad(x):
        record(StdBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim,
               correction=corr, full=dim is None or x.dim() == 0).save(x, out, outputs=(out,))
    return out


class LogsumexpBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        from .elementwise import exp
        out = _expand_back(out, self.shape, self.dims, self.keepdim)
        return _expand_back(g, self.shape, self.dims, self.keepdim) * exp(x - out)


def logsumexp(x, dim, keepdim=False):
    _check_flag("logsumexp", "keepdim", keepdim)
    src = x if x._dtype.is_floating_point else cast(x, D.get_default_dtype())
    dims = wrap_dims(dim, x.dim())
    out = _reduce_raw("logsumexp", src, dims, src._dtype, keepdim)
    if needs_grad(x):
        record(LogsumexpBackward0, (x,), (out,), shape=x._shape, dims=dims,
               keepdim=keepdim).save(x, out, outputs=(out,))
    return out


class LinalgVectorNormBackward0(Node):
    def backward(self, g):
        # PyTorch's norm_backward, branch for branch (each masked where it divides by 0)
        x, out = self.saved_tensors
        p = self.p
        from .elementwise import sign, where
        self_g, self_out = g, out
        g = _expand_back(g, self.shape, self.dims, self.keepdim)
        out = _expand_back(out, self.shape, self.dims, self.keepdim)
        if p == 0:
            return None                   # PyTorch: no gradient (x.grad stays None)
        if p == 1:
            return g * sign(x)
        if p == 2:      # grad * (self / norm).masked_fill_(norm == 0, 0), broadcast as PyTorch's
            g_r = _restore_dims(self_g, self.shape, self.dims, self.keepdim)
            out_r = _restore_dims(self_out, self.shape, self.dims, self.keepdim)
            return g_r * (x / out_r).masked_fill_(out_r == 0, 0.0)     # (in place: x's layout)
        if p == math.inf or p == -math.inf:
            a = x.abs()
            mask = ((a == out) | a.isnan()).to(x.dtype)
            count = _expand_back(mask.sum(self.dims, keepdim=True), self.shape, self.dims, True)
            return sign(x) * ((g / count) * mask)
        if p < 1:
            scaled = sign(x) * where(x == 0, 0.0, x.abs().pow(p - 1))
            return scaled * g * out.pow(1 - p)
        scaled = sign(x) * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
        return scaled * where(out == 0, 0.0, g / out.pow(p - 1))


def _norm_sum(t, dims, dtype, keepdim):
    """The sum inside a norm: over every dim of a row-major tensor by the small-op shortcut
    (reduce's own result: clip_grad_norm_ takes one norm per parameter), else _reduce_raw."""
    if not keepdim and dims and len(dims) == len(t._shape) and t._dtype is dtype:
        out = _total_dense("sum", t)
        if out is not None:
            return out
    return _reduce_raw("sum", t, dims, dtype, keepdim)


def _trailing_runs(x, dims):
    """(rows, n) when reducing `dims` of x reduces runs of n consecutive elements (x row-major,
    dims its trailing ones: PyTorch's reduction over the last dim after coalescing), else None."""
    nd = x.dim()
    k = nd - len(dims)
    if dims != tuple(range(k, nd)) or not x.is_contiguous():
        return None
    n = math.prod(x._shape[k:])
    rows = math.prod(x._shape[:k])
    return (rows, n) if n and rows else None


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "fro" or p is None:
        p = 2
    p = as_number(p, "linalg_vector_norm", "ord", 2)
    _check_flag("linalg_vector_norm", "keepdim", keepdim)
    check_dtype("norm", x._dtype)
    if (p < 0 or p == math.inf) and x.numel() == 0:
        # no identity: an empty reduced dim has no norm (ATen reads each given dim's size in
        # turn, as given: the first empty one is named before a later one is wrapped)
        given = range(x.dim()) if dim is None else (dim,) if isinstance(dim, int) else dim
        for d in given if x.dim() else ():
            if x._shape[wrap_int_dim("linalg_vector_norm", d, x)] == 0:
                where = ("an empty tensor because the operation" if dim is None else
                         f"the dimension {d}because this dimension is empty and the operation")
                raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on {where} does not "
                                   "have an identity")
    dims = wrap_dims(dim, x.dim())
    if p != 0 and x.numel() and math.prod(x._shape[d] for d in dims) == 1:
        # one element per result: PyTorch's reduction gives that element's abs (no square to
        # overflow or underflow, no root to round: a float32 [1e30] has norm 1e30, not inf;
        # its 0.5-norm is 1e30 exactly)
        from .elementwise import _unary_raw
        a = contiguous_data(_unary_raw("abs", x))
        out = new_tensor(a._storage.buffer, _kept_shape(x._shape, dims, keepdim), x._dtype, x.device)
        if needs_grad(x):
            record(LinalgVectorNormBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim,
                   p=p).save(x, out, outputs=(out,))
        return out
    result = x
    run = _trailing_runs(x, dims) if p == 2 and x._dtype in (D.float32, D.float64) else None
    if run is not None and accelerated(x, "vector_norm2"):
        # one pass in PyTorch's order (its kernel for a run at unit stride, to the bit)
        out = new_tensor(backend_of(x).vector_norm2(x._view_tuple(), *run), _kept_shape(x._shape, dims, keepdim),
                         x._dtype, x.device)
        if needs_grad(x):
            record(LinalgVectorNormBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim,
                   p=p).save(x, out, outputs=(out,))
        return out
    from .elementwise import _unary_raw, _binary_raw
    x = cast(x, _opmath(x._dtype))   # float16: the whole norm in float32, rounded once
    a = _unary_raw("abs", x)
    if p == math.inf:
        out = _reduce_raw("amax", a, dims, x._dtype, keepdim) if x.numel() else _reduce_raw("sum", a, dims, x._dtype, keepdim)
    elif p == -math.inf:
        out = _reduce_raw("amin", a, dims, x._dtype, keepdim)
    elif p == 0:
        out = _reduce_raw("sum", cast(_binary_raw("ne", a, 0, x._dtype, D.bool_), x._dtype), dims, x._dtype, keepdim)
    elif p == 1:
        out = _norm_sum(a, dims, x._dtype, keepdim)
    elif p == 2:
        out = _unary_raw("sqrt", _norm_sum(_binary_raw("mul", a, a, x._dtype), dims, x._dtype, keepdim))
    else:
        s = _reduce_raw("sum", _binary_raw("pow", a, p, x._dtype), dims, x._dtype, keepdim)
        out = _binary_raw("pow", s, 1.0 / p, x._dtype)
    x, out = result, cast(out, result._dtype)
    if needs_grad(x):
        record(LinalgVectorNormBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim,
               p=p).save(x, out, outputs=(out,))
    return out


# -- softmax ---------------------------------------------------------------------
def _in_opmath(fn, g, y):
    """fn(g, y) computed as PyTorch's fused Half backward kernels do: in float32, rounded
    once to float16 (recorded casts, so create_graph=True still differentiates)."""
    if g._dtype is y._dtype and _opmath(g._dtype) is not g._dtype:
        return fn(g.float(), y.float()).to(g._dtype)
    return fn(g, y)


class SoftmaxBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        if g._dtype is y._dtype and _opmath(g._dtype) is not g._dtype:
            return _in_opmath(lambda g, y: _softmax_backward_data(g, y, self.dim, False, exact=False), g, y)
        return _softmax_backward_data(g, y, self.dim, False)


class LogSoftmaxBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return _in_opmath(lambda g, y: _softmax_backward_data(g, y, self.dim, True), g, y)


def _softmax_backward_data(g, y, dim, log, exact=True):
    """PyTorch's _softmax_backward_data / _log_softmax_backward_data as one op: computed
    unrecorded, recorded as one node (create_graph) with PyTorch's double-backward formulas.
    exact: softmax's over the last dim in float32/float64 takes the backend's kernel where it
    has one (PyTorch's order for its sum); not for float16 widened to float32."""
    from ..autograd.grad_mode import no_grad
    from .elementwise import exp
    with no_grad():
        if (exact and dim == g.dim() - 1 and g._dtype is y._dtype and g._shape == y._shape
                and g._dtype in ((D.float32,) if log else (D.float32, D.float64)) and g.device == y.device
                and accelerated(g, "softmax_backward")):
            buf = backend_of(g).softmax_backward(g._view_tuple(), y._view_tuple(), dim, log)
            out = new_tensor(buf, g._shape, g._dtype, g.device)
        elif log:
            out = g - exp(y) * g.sum(dim, keepdim=True)
        else:
            # PyTorch's kernel: (g - sum(g * y)) * y, not g * y - y * sum(g * y): where the two
            # nearly cancel (a huge g constant along dim) they round differently
            out = (g - (g * y).sum(dim, keepdim=True)) * y
        out = out.contiguous()          # PyTorch's result is row-major whatever g's layout (seed 101)
    if needs_grad(g, y):
        node_cls = LogSoftmaxBackwardDataBackward0 if log else SoftmaxBackwardDataBackward0
        record(node_cls, (g, y), (out,), dim=dim).save(g, y)
    return out


class SoftmaxBackwardDataBackward0(Node):
    def backward(self, gg):
        g, y = self.saved_tensors
        d = self.dim
        d_g = _softmax_backward_data(gg, y, d, False) if self.needs_input_grad(0) else None
        # softmax_double_backward(grad, grad_output, dim, output)
        d_y = (g * gg - (y * g).sum(d, keepdim=True) * gg - g * (y * gg).sum(d, keepdim=True)
               if self.needs_input_grad(1) else None)
        return d_g, d_y


class LogSoftmaxBackwardDataBackward0(Node):
    def backward(self, gg):
        g, y = self.saved_tensors
        from .elementwise import exp
        d = self.dim
        d_g = gg - (gg * exp(y)).sum(d, keepdim=True) if self.needs_input_grad(0) else None
        d_y = -g.sum(d, keepdim=True) * exp(y) * gg if self.needs_input_grad(1) else None
        return d_g, d_y


def _softmax(x, dim, dtype, log, node_cls):
    d = wrap_int_dim("log_softmax" if log else "softmax", dim, x)
    src = x
    if dtype is not None:
        src = cast(x, D.to_dtype(dtype))
    if not src._dtype.is_floating_point and src.numel():    # (empty: no kernel runs, PyTorch allows it)
        lastdim = x.dim() <= 1 or wrap_dims(dim, x.dim())[0] == x.dim() - 1
        check_dtype(("log_softmax" if log else "softmax") + ("_lastdim" if lastdim else ""), src._dtype)
    if x.dim() == 0:
        # one element seen as a 1-element row: exp(x - x) / 1 is 1 (log: 0), or nan for
        # nan and infinities, as in PyTorch; on x's own device
        buf_, off, _, _ = src._view_tuple()
        buf = backend_of(src).softmax((buf_, off, (1,), (1,)), 0, log)
        out = new_tensor(buf, src._shape, src._dtype, src.device)
    else:
        buf = backend_of(src).softmax(src._view_tuple(), d, log)
        out = new_tensor(buf, src._shape, src._dtype, src.device)
    if needs_grad(x):
        record(node_cls, (x,), (out,), dim=d).save(out, outputs=(out,))
    return out


def softmax(x, dim=None, dtype=None):
    if dim is None:
        dim = 0 if x.dim() in (0, 1, 3) else 1   # PyTorch's legacy implicit choice
    return _softmax(x, dim, dtype, False, SoftmaxBackward0)


def log_softmax(x, dim=None, dtype=None):
    if dim is None:
        dim = 0 if x.dim() in (0, 1, 3) else 1
    return _softmax(x, dim, dtype, True, LogSoftmaxBackward0)
