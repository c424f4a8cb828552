"""PyTorch's torch-level numerical functions that nbgrad lacked: gradient, histogramdd,
vander and the native_* normalisation / dropout ops (their tuples of output and statistics).

All are composed of nbgrad's public ops, so autograd comes from the ops they are made of.
gradient follows ATen's ReduceOps.cpp (gradient_helper / gradient_helper_float) op for op, so
its values and dtypes are PyTorch's; histogramdd follows ATen's Histogram.cpp with the rules of
nbgrad.histogram (ops/counting.py).

Departures from PyTorch:
- gradient's outputs show CatBackward0 as PyTorch's; vander's show FlipBackward0 (decreasing)
  or CatBackward0 where PyTorch's show CopySlices (increasing).
- native_layer_norm / native_batch_norm: the statistics are computed again from the input
  by mean and variance (not read from the kernel), so they agree with PyTorch's to rounding.
- native_group_norm's mean and rstd carry the history of the ops that computed them (mean,
  rsqrt) where PyTorch's carry NativeGroupNormBackward0; their gradients are the same.
- native_dropout's output shows NativeDropoutBackward0 over a product with the mask (its
  gradient is PyTorch's, grad * mask * scale); the mask is drawn by nbgrad's generator.
"""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..return_types import return_type
from ._dtype_rules import not_implemented
from ._graph import _wrap, needs_grad, record

__all__ = ["gradient", "histogramdd", "vander", "native_layer_norm", "native_batch_norm", "native_group_norm",
           "native_dropout"]


# -- torch.gradient -------------------------------------------------------------------------------
def _sl(t, d, start, stop=None):
    """at::slice(t, d, start, stop): a view of t along dim d (Python's slice rules)."""
    index = [slice(None)] * t.dim()
    index[d] = slice(start, stop)
    return t[tuple(index)]


def _is_number(v):
    return isinstance(v, (int, float, bool)) or (isinstance(v, Tensor) and v.dim() == 0)


def _as_number(v):
    return v.item() if isinstance(v, Tensor) else v


def _pre_check(x, spacing_size, dims, edge_order):
    """ATen's pre_check_gradient, its checks in its order."""
    if x._dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None and spacing_size != x.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                           f"'self.dim() = {x.dim()}', since dim argument was not given, but got a list of length "
                           f"{spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {spacing_size} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        seen = set()
        for d in dims:                              # (dim_list_to_bitset)
            w = _wrap(d, x.dim())
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    for d in (range(x.dim()) if dims is None else dims):
        if x.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")


def _gradient_uniform(x, spacing, dims, edge_order):
    """gradient_helper_float: a number as the spacing of each dim."""
    from .indexing import cat
    from .more import renamed

    # (ATen's C++ divides and multiplies by Scalars: div.Scalar's and mul.Scalar's nodes)
    def div(t, s):
        return renamed(t / s, "DivBackward1")

    def mul(s, t):
        return renamed(s * t, "MulBackward1")
    result = []
    for h, d in zip(spacing, dims):
        d = _wrap(d, x.dim())
        center = div(_sl(x, d, 2) - _sl(x, d, 0, -2), h)
        if edge_order == 1:
            prepend = div(_sl(x, d, 1, 2) - _sl(x, d, 0, 1), h)
            append = div(_sl(x, d, -1) - _sl(x, d, -2, -1), h)
        else:
            prepend = div(mul(-1.5, _sl(x, d, 0, 1)) + mul(2, _sl(x, d, 1, 2)) - mul(0.5, _sl(x, d, 2, 3)), h)
            append = div(mul(0.5, _sl(x, d, -3, -2)) - mul(2, _sl(x, d, -2, -1)) + mul(1.5, _sl(x, d, -1)), h)
        result.append(cat([prepend, div(center, 2), append], d))
    return tuple(result)


def _gradient_coordinates(x, coordinates, dims, edge_order):
    """gradient_helper: a 1-D tensor of coordinates along each dim (second-order accurate
    differences over non-uniform steps)."""
    from .indexing import cat
    result = []
    for c, d in zip(coordinates, dims):
        if c.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {c.dim()} dimensions!")
        d = _wrap(d, x.dim())
        shape = [1] * x.dim()
        shape[d] = -1
        dx = c.diff(1, 0)
        dx1, dx2 = dx[:-1], dx[1:]
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        cc = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        center = a * _sl(x, d, 0, -2) + b * _sl(x, d, 1, -1) + cc * _sl(x, d, 2)
        if edge_order == 1:
            prepend = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / dx[0]
            append = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / dx[-1]
        else:
            a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
            b = (dx[0] + dx[1]) / (dx[0] * dx[1])
            cc = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
            prepend = a * _sl(x, d, 0, 1) + b * _sl(x, d, 1, 2) + cc * _sl(x, d, 2, 3)
            a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
            b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
            cc = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
            append = a * _sl(x, d, -3, -2) + b * _sl(x, d, -2, -1) + cc * _sl(x, d, -1)
        result.append(cat([prepend, center, append], d))
    return tuple(result)


_GRADIENT_SIGNATURES = (
    "gradient() received an invalid combination of arguments - got {got}, but expected one of:\n"
    " * (Tensor input, *, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)\n")


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """PyTorch's torch.gradient: the derivative of input along each dim in `dim` (all when
    None) by central differences inside and one-sided ones (first or second order) at the
    edges.  spacing: a number (the step of every dim), a list of numbers (one per dim) or a
    list of 1-D tensors (each dim's coordinates).  Returns a tuple, one tensor per dim."""
    x = input
    if isinstance(spacing, Tensor) and spacing.dim() != 0:
        raise TypeError(_GRADIENT_SIGNATURES.format(got="(Tensor, spacing=Tensor)"))
    dim_list = None if dim is None else ([dim] if not isinstance(dim, (list, tuple)) else list(dim))
    if spacing is None or _is_number(spacing):
        h = 1.0 if spacing is None else _as_number(spacing)
        dims = list(range(x.dim())) if dim_list is None else dim_list
        _pre_check(x, None, dim_list, edge_order)     # (one step per dim: no length to check)
        return _gradient_uniform(x, [h] * len(dims), dims, edge_order)
    spacing = list(spacing)
    dims = list(range(x.dim())) if dim_list is None else dim_list
    if spacing and isinstance(spacing[0], Tensor):
        for i, s in enumerate(spacing):
            if not isinstance(s, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(s).__name__}")
        _pre_check(x, len(spacing), dim_list, edge_order)
        return _gradient_coordinates(x, spacing, dims, edge_order)
    for i, s in enumerate(spacing):
        if isinstance(s, Tensor):
            raise TypeError(f"expected Tensor as element 0 in argument 1, but got {type(spacing[0]).__name__}")
        if not _is_number(s):
            raise TypeError(_GRADIENT_SIGNATURES.format(got=f"(Tensor, spacing={type(spacing).__name__})"))
    _pre_check(x, len(spacing), dim_list, edge_order)
    return _gradient_uniform(x, [_as_number(s) for s in spacing], dims, edge_order)


# -- torch.histogramdd ----------------------------------------------------------------------------
histogramdd_result = return_type("histogramdd", ["hist", "bin_edges"])

_HISTOGRAMDD_SIGNATURES = (
    "histogramdd() received an invalid combination of arguments - got (Tensor, bins=Tensor), but expected one of:\n"
    " * (Tensor input, int bins, tuple of floats range = None, Tensor weight = None, bool density = False)\n"
    " * (Tensor input, tuple of ints bins, tuple of floats range = None, Tensor weight = None, "
    "bool density = False)\n"
    " * (Tensor input, tuple of Tensors bins, tuple of floats range = None, Tensor weight = None, "
    "bool density = False)\n")


builtins_range = range      # (histogramdd's `range` argument shadows the builtin in its functions)


def _g(v):
    """A double as PyTorch's messages print it (C++'s stream: 6 significant digits)."""
    return f"{v:g}"


def _outer_edges(points, n, range):
    """ATen's select_outer_bin_edges: each dim's [leftmost, rightmost] edge (range, else the
    data's min..max, 0..1 without data; a point range widened by 0.5 each way)."""
    if range is not None and len(range) != 2 * n:
        raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} elements, "
                           f"but got {len(range)}")
    outer = []
    for d in builtins_range(n):
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
        elif points.shape[0]:
            col = points[:, d]
            lo, hi = float(col.min().item()), float(col.max().item())
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_g(lo)}, {_g(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_g(lo)} max {_g(hi)} for "
                               f"dimension {d}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        outer.append((lo, hi))
    return outer



def histogramdd(input, bins, range=None, weight=None, density=False):
    """PyTorch's torch.histogramdd: the rows of input (its last dim N, the others flattened)
    are points in N dimensions; bins: an int (equal bins in every dim), N ints, or N 1-D
    tensors of edges.  A point counts (adds its weight) in the bin each of its coordinates
    falls in (left edge inclusive, the last edge inclusive too); others count nowhere.
    density: hist / (its sum * bin volumes).  Returns (hist, bin_edges: a tuple of N)."""
    from .._creation import linspace, ones, zeros
    x = input
    if isinstance(bins, Tensor) and bins.dim() == 0 and bins._dtype.np.kind in "iu" and bins._dtype.name != "bool":
        bins = int(bins)        # (PyTorch's Python passes it on to an int[] its parser reads as one int)
    if not isinstance(bins, (int, list, tuple)) or isinstance(bins, bool):
        raise TypeError(_HISTOGRAMDD_SIGNATURES.replace("bins=Tensor", f"bins={type(bins).__name__}"))
    if x.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dt = x._dtype
    if dt is not D.float32 and dt is not D.float64:
        raise not_implemented("histogramdd", dt)
    n = x.shape[-1]
    from_counts = isinstance(bins, int) or all(isinstance(b, int) and not isinstance(b, bool) for b in bins)
    if not from_counts:
        for i, b in enumerate(bins):
            if not isinstance(b, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(b).__name__}")
    with no_grad():
        points = x.detach().reshape(math.prod(x.shape[:-1]), n)      # (-1 is ambiguous when n is 0)
        if from_counts:
            counts = [bins] * n if isinstance(bins, int) else list(bins)
            outer = _outer_edges(points, n, range)
            if len(counts) != n:
                raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the "
                                   "input.")
            edges = []
            for (lo, hi), k in zip(outer, counts):
                if k + 1 < 0:
                    raise RuntimeError("number of steps must be non-negative")
                edges.append(linspace(lo, hi, k + 1, dtype=dt, device=x.device))
        else:
            if len(bins) != n:
                raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
                                   f"histogram but got {len(bins)}")
            edges = list(bins)
        if weight is not None:
            if weight._dtype is not dt:
                raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                                   f"should have the same dtype, but got input({D.cpp_type_name(dt)}), and weight("
                                   f"{D.cpp_type_name(weight._dtype)})")
            if tuple(weight.shape) != tuple(x.shape[:-1]):
                raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as "
                                   "the input tensor excluding its innermost dimension, but got input with shape "
                                   f"{list(x.shape)} and weight with shape {list(weight.shape)}")
        for d, e in enumerate(edges):
            if e.dim() != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {e.dim()} "
                                   f"dimensions in the bins tensor for dimension {d}")
            if e._dtype is not dt:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                                   f"got input with dtype {D.cpp_type_name(dt)} and bins for dimension {d} with dtype "
                                   f"{D.cpp_type_name(e._dtype)}")
            if e.numel() == 0:
                raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
                                   f"in the bins tensor for dimension {d}")
            if e.numel() < 2:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {e.numel() - 1} for dimension {d}")
        nbins = [e.numel() - 1 for e in edges]
        hist = zeros(math.prod(nbins), dtype=dt, device=x.device)
        m = points.shape[0]
        if n and m and hist.numel():
            from .more import searchsorted
            keep = ones(m, dtype=D.bool_, device=x.device)
            flat_index = zeros(m, dtype=D.int64, device=x.device)
            for d, e in enumerate(edges):
                e = e.detach().contiguous()
                col = points[:, d].contiguous()
                # inside [first edge, last edge] (NaN is not); the bin whose left edge is the
                # last one <= the value, the last edge itself in the last bin
                keep = keep & (col >= e[0].item()) & (col <= e[-1].item())
                pos = (searchsorted(e, col, right=True) - 1).clamp(0, nbins[d] - 1)
                flat_index = flat_index * nbins[d] + pos
            index = flat_index.masked_select(keep)
            if index.numel():
                w = (weight.detach().reshape(-1).masked_select(keep) if weight is not None
                     else ones(index.numel(), dtype=dt, device=x.device))
                hist = hist.index_add(0, index, w)
        hist = hist.reshape(nbins)
        if density:
            hist = hist / hist.sum()
            for d, e in enumerate(edges):
                shape = [1] * n
                shape[d] = nbins[d]
                hist = hist / e.diff().reshape(shape)
    edge_tensors = [] if from_counts else list(edges)
    if needs_grad(x, weight, *edge_tensors):
        from ._graph import NotImplementedNode
        op = "_histogramdd_from_bin_cts" if from_counts else "_histogramdd_from_bin_tensors"
        inputs = tuple(t for t in (x, weight) if t is not None) + tuple(edge_tensors)
        # PyTorch's bin edges made from counts carry the node too; given ones are returned as given
        record(NotImplementedNode, inputs, (hist,) + (tuple(edges) if from_counts else ()), op_name=op)
    return histogramdd_result(hist, tuple(edges))


# -- torch.vander ---------------------------------------------------------------------------------
def vander(x, N=None, increasing=False):
    """PyTorch's torch.vander: columns x**(N-1), ..., x, 1 (reversed with increasing), as
    ATen's (a cumulative product of x; integer and bool inputs give int64)."""
    from .._creation import empty, ones
    from .cumulative import cumprod
    from .indexing import cat
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dt = D.promote_types(x._dtype, D.int64)
    if n == 0:
        return empty((x.shape[0], 0), dtype=dt, device=x.device)
    first = ones((x.shape[0], 1), dtype=dt, device=x.device)
    if n == 1:
        result = first
    else:
        xs = x if x._dtype is dt else x.to(dt)
        result = cat([first, cumprod(xs.unsqueeze(1).expand(x.shape[0], n - 1), 1)], 1)
    return result if increasing else result.flip(1)


# -- native_layer_norm / native_batch_norm / native_group_norm / native_dropout -------------------
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd): F.layer_norm's output and the rows' mean and 1/sqrt(biased
    variance + eps), shaped input.shape[:axis] + (1,) * len(normalized_shape)."""
    from .normalization import layer_norm, _moments
    if isinstance(normalized_shape, int):
        raise TypeError("native_layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    k = len(normalized_shape)
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(builtins_range(input.dim() - k, input.dim()))
    with no_grad():
        x = input.detach()
        xo = x.float() if x._dtype is D.float16 else x          # (opmath, as layer_norm)
        mean, rstd = _moments(xo, dims, eps)
        mixed = any(t is not None and t._dtype is not x._dtype for t in (weight, bias))
        if mean._dtype is not x._dtype and not mixed:
            mean, rstd = mean.to(x._dtype), rstd.to(x._dtype)
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd): F.batch_norm's output (the running statistics moved
    as F.batch_norm's) and, training, the batch's per-channel mean and 1/sqrt(biased variance
    + eps); evaluating, two empty tensors (PyTorch's CPU kernel saves nothing then)."""
    from .._creation import empty
    from .normalization import aten_batch_norm, float_input
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not (training and input.dim() < 2):      # (training: batch_norm_cpu's size(1) before its dispatch)
        float_input("batch_norm", input)
    out = aten_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, native=True)
    x = input.detach()
    if not training:
        return out, empty(0, dtype=x._dtype, device=x.device), empty(0, dtype=x._dtype, device=x.device)
    with no_grad():
        dims = (0,) + tuple(builtins_range(2, x.dim()))
        xo = x.float() if x._dtype is D.float16 else x
        mean = xo.mean(dims, keepdim=True)
        centered = xo - mean
        invstd = ((centered * centered).mean(dims) + eps).rsqrt()
        mean = mean.reshape(-1)
        if mean._dtype is not x._dtype:
            mean, invstd = mean.to(x._dtype), invstd.to(x._dtype)
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd): group normalisation of input seen as (N, C, HxW) with `group`
    groups of channels, then the per-channel affine; mean and rstd (N, group) are
    differentiable (in PyTorch through NativeGroupNormBackward0, here through their ops)."""
    from .more import renamed
    from .normalization import float_input
    x = input
    if x.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(x.shape)} and num_groups={group}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(x.shape)}")
    float_input("GroupNormKernelImpl", x)
    half = x._dtype is D.float16            # (in float32, rounded once: PyTorch's opmath)
    xo = x.float() if half else x
    groups = xo.reshape(N, group, (C // group) * HxW)
    mean = groups.mean(-1, keepdim=True)
    centered = groups - mean
    rstd = ((centered * centered).mean(-1, keepdim=True) + eps).rsqrt()
    out = (centered * rstd).reshape(N, C, HxW)
    if weight is not None:
        out = out * weight.reshape(1, C, 1)
    if bias is not None:
        out = out + bias.reshape(1, C, 1)
    out = out.reshape(x.shape)
    if out._dtype is not x._dtype:
        out = out.to(x._dtype)
    mean, rstd = mean.reshape(N, group), rstd.reshape(N, group)
    if half:
        mean, rstd = mean.to(x._dtype), rstd.to(x._dtype)
    return renamed(out, "NativeGroupNormBackward0"), mean, rstd


def native_dropout(input, p, train):
    """(output, mask): training (train None or True), each element kept with probability
    1 - p (mask True) and scaled by 1 / (1 - p) (0 when p is 1); otherwise a copy of input and
    an all-True mask."""
    from .._creation import empty_like, ones_like
    from .more import renamed
    x = input
    if x.numel() == 0:
        return x, empty_like(x)                     # (PyTorch's: input itself, a mask of its dtype)
    if train is None or train:
        p1m = 1.0 - p
        if not 0 <= p1m <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p1m}")
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{D.scalar_type_name(x._dtype)}")
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        with no_grad():
            keep = empty_like(x, dtype=x._dtype).bernoulli_(p1m)
        out = renamed(x * keep * scale, "NativeDropoutBackward0")
        return out, keep.to(D.bool_)
    return renamed(x.clone(), "NativeDropoutBackward0"), ones_like(x, dtype=D.bool_)
