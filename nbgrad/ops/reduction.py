"""Reductions (sum, mean, prod, max/min, arg*, var/std, logsumexp, norm) and softmax."""
import math

from .. import _dtype as D
from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import Node
from ._graph import (backend_of, cast, copy_raw, needs_grad, new_tensor, record, wrap_dims)


class ReductionResult(tuple):
    """(values, indices) with attribute access, like torch.return_types.max."""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"nbgrad.return_types(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _kept_shape(shape, dims, keepdim):
    if keepdim:
        return Size(1 if i in dims else n for i, n in enumerate(shape))
    return Size(n for i, n in enumerate(shape) if i not in dims)


def _reduce_raw(op, x, dims, out_dtype, keepdim, **kw):
    """Run a backend reduction over sorted dims; result shaped with or without kept dims."""
    shape = _kept_shape(x._shape, dims, keepdim)
    if not dims:
        # nothing to reduce (0-dim input): the op is the identity (or its cast)
        if op in ("argmax", "argmin"):
            from .._creation import zeros
            return zeros((), dtype=D.int64, device=x.device)
        if op == "var":
            return new_tensor(backend_of(x).full(1, out_dtype.np, math.nan), shape, out_dtype, x.device)
        return copy_raw(x) if x._dtype is out_dtype else cast(x, out_dtype)
    if x.numel() == 0 and op in ("max", "min", "amax", "amin", "argmax", "argmin"):
        raise IndexError(f"{op}(): Expected reduction dim {dims[0]} to have non-zero size.")
    buf = backend_of(x).reduce(op, x._view_tuple(), dims, out_dtype.np, **kw)
    return new_tensor(buf, shape, out_dtype, x.device)


def _expand_back(g, shape, dims, keepdim):
    """Unsqueeze the reduced dims of g (when not kept) and expand to the input shape."""
    if not keepdim:
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape)


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


def sum(x, dim=None, keepdim=False, dtype=None):
    out_dtype = _sum_dtype(x, dtype)
    dims = wrap_dims(dim, x.dim())
    out = _reduce_raw("sum", x, dims, out_dtype, keepdim)
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


def mean(x, dim=None, keepdim=False, dtype=None):
    out_dtype = D.to_dtype(dtype) if dtype is not None else x._dtype
    if not out_dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {x._dtype.name.capitalize()}")
    dims = wrap_dims(dim, x.dim())
    count = math.prod(x._shape[d] for d in dims) if x.dim() else 1
    out = _reduce_raw("mean", cast(x, out_dtype), dims, out_dtype, keepdim)
    if needs_grad(x):
        if dim is None:
            record(MeanBackward0, (x,), (out,), shape=x._shape, count=count)
        else:
            record(MeanBackward1, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim, count=count)
    return out


class ProdBackward0(Node):
    def backward(self, g):
        (x, out) = self.saved_tensors
        return _prod_grad(g.expand(self.shape), x, out.expand(self.shape), None)


class ProdBackward1(Node):
    def backward(self, g):
        (x, out) = self.saved_tensors
        return _prod_grad(_expand_back(g, self.shape, self.dims, self.keepdim), x,
                          _expand_back(out, self.shape, self.dims, self.keepdim), self.dims)


def _prod_grad(g, x, out, dims):
    # Where x has no zeros, d prod / dx = prod / x.  With zeros, use the product of the
    # others, computed as a product over x with that one element replaced by 1.
    if not bool((x == 0).any()):
        return g * out / x
    from .elementwise import where
    ones_x = where(x == 0, 1.0, x)
    zero_count = sum((x == 0).to(x.dtype), dims, keepdim=True) if dims is not None else sum((x == 0).to(x.dtype))
    prod_nonzero = prod(ones_x, dims[0], keepdim=True) if dims is not None and len(dims) == 1 else prod(ones_x)
    prod_nonzero = prod_nonzero.expand(x.shape)
    zero_count = zero_count.expand(x.shape)
    # one zero: only that element gets the product of the others; two or more: all zero
    grad_x = where(x == 0, where(zero_count == 1, prod_nonzero, 0.0), where(zero_count == 0, out / where(x == 0, 1.0, x), 0.0))
    return g * grad_x


def prod(x, dim=None, keepdim=False, dtype=None):
    out_dtype = _sum_dtype(x, dtype)
    dims = wrap_dims(dim, x.dim())
    out = _reduce_raw("prod", x, dims, out_dtype, keepdim)
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
        mask = (x == out).to(g.dtype)
        return mask * (g / mask.sum())        # ties share the gradient evenly


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
        out = _expand_back(out, self.shape, self.dims, self.keepdim)
        mask = (x == out).to(g.dtype)
        count = _expand_back(mask.sum(self.dims, keepdim=True), self.shape, self.dims, True)
        return _expand_back(g, self.shape, self.dims, self.keepdim) * mask / count


class AmaxBackward0(_AmaxBackward):
    pass


class AminBackward0(_AmaxBackward):
    pass


def _extremum(x, dim, keepdim, is_max, full_node, dim_node):
    if dim is None:
        if x.numel() == 0:
            raise RuntimeError(f"{'max' if is_max else 'min'}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        out = _reduce_raw("max" if is_max else "min", x, tuple(range(x.dim())), x._dtype, False)
        if needs_grad(x):
            record(full_node, (x,), (out,)).save(x, out, outputs=(out,))
        return out
    d = wrap_dims(dim, x.dim())[0]
    if x.dim() == 0:
        from .._creation import zeros
        values = copy_raw(x)
        if needs_grad(x):
            record(dim_node, (x,), (values, None), shape=x._shape, dim=0, keepdim=True).save(
                zeros((), dtype=D.int64, device=x.device))
        return ReductionResult(values, zeros((), dtype=D.int64, device=x.device))
    if x._shape[d] == 0:
        raise IndexError(f"{'max' if is_max else 'min'}(): Expected reduction dim {d} to have non-zero size.")
    vbuf, ibuf = backend_of(x).max_with_index(x._view_tuple(), d, is_max)
    shape = _kept_shape(x._shape, (d,), keepdim)
    values = new_tensor(vbuf, shape, x._dtype, x.device)
    indices = new_tensor(ibuf, shape, D.int64, x.device)
    if needs_grad(x):
        record(dim_node, (x,), (values, None), shape=x._shape, dim=d, keepdim=keepdim).save(indices)
    return ReductionResult(values, indices)


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
        dims = wrap_dims(dim, x.dim())
        out = _reduce_raw(op, x, dims, x._dtype, keepdim)
        if needs_grad(x):
            record(node_cls, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim).save(x, out, outputs=(out,))
        return out
    reduce_op.__name__ = op
    return reduce_op


amax = _amax_like("amax", AmaxBackward0)
amin = _amax_like("amin", AminBackward0)


def _arg(op):
    def arg(x, dim=None, keepdim=False):
        if dim is None:
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


def all(x, dim=None, keepdim=False):
    return _reduce_raw("all", x, wrap_dims(dim, x.dim()), D.bool_, keepdim)


def any(x, dim=None, keepdim=False):
    return _reduce_raw("any", x, wrap_dims(dim, x.dim()), D.bool_, keepdim)


# -- var / std / logsumexp / norm ----------------------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


class VarBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        n = math.prod(self.shape[d] for d in self.dims) if self.dims else 1
        centered = x - x.mean(self.dims, keepdim=True)
        dof = n - self.correction          # PyTorch divides in double: 2 / 0 is inf, not an error
        return _expand_back(g, self.shape, self.dims, self.keepdim) * centered * (2.0 / dof if dof else math.inf)


def var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool) and unbiased is None:
        dim, unbiased = None, dim
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"std and var only support floating point and complex dtypes")
    corr = _correction(unbiased, correction)
    dims = wrap_dims(dim, x.dim())
    out = _reduce_raw("var", x, dims, x._dtype, keepdim, correction=corr)
    if needs_grad(x):
        record(VarBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim, correction=corr).save(x)
    return out


class StdBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        n = math.prod(self.shape[d] for d in self.dims) if self.dims else 1
        centered = x - x.mean(self.dims, keepdim=True)
        scale = _expand_back(g / (out * (n - self.correction)), self.shape, self.dims, self.keepdim)
        return scale * centered


def std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool) and unbiased is None:
        dim, unbiased = None, dim
    if not x._dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    corr = _correction(unbiased, correction)
    dims = wrap_dims(dim, x.dim())
    from .elementwise import _unary_raw
    v = _reduce_raw("var", x, dims, x._dtype, keepdim, correction=corr)
    out = _unary_raw("sqrt", v)
    if needs_grad(x):
        record(StdBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim,
               correction=corr).save(x, out, outputs=(out,))
    return out


class LogsumexpBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        from .elementwise import exp
        out = _expand_back(out, self.shape, self.dims, self.keepdim)
        return _expand_back(g, self.shape, self.dims, self.keepdim) * exp(x - out)


def logsumexp(x, dim, keepdim=False):
    src = x if x._dtype.is_floating_point else cast(x, D.get_default_dtype())
    dims = wrap_dims(dim, x.dim())
    out = _reduce_raw("logsumexp", src, dims, src._dtype, keepdim)
    if needs_grad(x):
        record(LogsumexpBackward0, (x,), (out,), shape=x._shape, dims=dims,
               keepdim=keepdim).save(x, out, outputs=(out,))
    return out


class LinalgVectorNormBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        p = self.p
        from .elementwise import sign, where
        g = _expand_back(g, self.shape, self.dims, self.keepdim)
        out = _expand_back(out, self.shape, self.dims, self.keepdim)
        if p == 2:
            return g * where(out == 0, 0.0, x / out)
        if p == 1:
            return g * sign(x)
        if p == math.inf or p == -math.inf:
            mask = (x.abs() == out).to(x.dtype)
            count = _expand_back(mask.sum(self.dims, keepdim=True), self.shape, self.dims, True)
            return g * sign(x) * mask / count
        # general p: |x|^(p-1) sign(x) / ||x||^(p-1)
        return g * sign(x) * x.abs().pow(p - 1) / where(out == 0, 1.0, out).pow(p - 1)


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "fro" or p is None:
        p = 2
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {x._dtype.name.capitalize()}")
    dims = wrap_dims(dim, x.dim())
    from .elementwise import _unary_raw, _binary_raw
    a = _unary_raw("abs", x)
    if p == math.inf:
        out = _reduce_raw("amax", a, dims, x._dtype, keepdim) if x.numel() else _reduce_raw("sum", a, dims, x._dtype, keepdim)
    elif p == -math.inf:
        out = _reduce_raw("amin", a, dims, x._dtype, keepdim)
    elif p == 0:
        out = _reduce_raw("sum", cast(_binary_raw("ne", a, 0, x._dtype, D.bool_), x._dtype), dims, x._dtype, keepdim)
    elif p == 1:
        out = _reduce_raw("sum", a, dims, x._dtype, keepdim)
    elif p == 2:
        out = _unary_raw("sqrt", _reduce_raw("sum", _binary_raw("mul", a, a, x._dtype), dims, x._dtype, keepdim))
    else:
        s = _reduce_raw("sum", _binary_raw("pow", a, p, x._dtype), dims, x._dtype, keepdim)
        out = _binary_raw("pow", s, 1.0 / p, x._dtype)
    if needs_grad(x):
        record(LinalgVectorNormBackward0, (x,), (out,), shape=x._shape, dims=dims, keepdim=keepdim,
               p=p).save(x, out, outputs=(out,))
    return out


# -- softmax ---------------------------------------------------------------------
class SoftmaxBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        gy = g * y
        return gy - y * gy.sum(self.dim, keepdim=True)


class LogSoftmaxBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        from .elementwise import exp
        return g - exp(y) * g.sum(self.dim, keepdim=True)


def _softmax(x, dim, dtype, log, node_cls):
    src = x
    if dtype is not None:
        src = cast(x, D.to_dtype(dtype))
    elif not x._dtype.is_floating_point:
        raise RuntimeError(f"\"softmax_lastdim_kernel_impl\" not implemented for '{x._dtype.name.capitalize()}'")
    if x.dim() == 0:
        from .._creation import zeros, ones
        out = zeros((), dtype=src.dtype) if log else ones((), dtype=src.dtype)
    else:
        d = wrap_dims(dim, x.dim())[0]
        buf = backend_of(src).softmax(src._view_tuple(), d, log)
        out = new_tensor(buf, src._shape, src._dtype, src.device)
    d = wrap_dims(dim, x.dim())[0] if x.dim() else 0
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
