"""Counting ops: unique, bincount, histc, histogram, composed of sort, comparisons, cumsum and
index_add (run unrecorded).

PyTorch gives none of them a gradient: unique's values carry a node that refuses
backward (Unique2Backward0 / UniqueDimBackward0), bincount's and histc's results have
no history at all.
"""
import math

from .. import _dtype as D
from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import NotImplementedNode, needs_grad, record, _wrap
from ._dtype_rules import check as check_dtype, not_implemented
from ..return_types import return_type

_INTEGRAL = (D.uint8, D.int8, D.int16, D.int32, D.int64)


class Unique2Backward0(Node):
    op_name = "_unique2"

    def backward(self, *grads):
        if not self.needs_input_grad(0):     # PyTorch raises only for a gradient it must compute
            return None
        raise NotImplementedError(f"the derivative for '{self.op_name}' is not implemented.")


class UniqueDimBackward0(Unique2Backward0):
    op_name = "unique_dim"


def _new_groups(rows):
    """bool (n,): True where a sorted row differs from the one before (the first is new)."""
    from .._creation import ones
    from .indexing import cat
    first = ones(1, dtype=D.bool_, device=rows.device)
    if rows.shape[0] <= 1:
        return first.expand(rows.shape[0]).clone()
    differs = rows[1:] != rows[:-1]
    if differs.dim() > 1:
        differs = differs.any(1)
    return cat([first, differs])


def _lexsort_rows(rows):
    """The permutation sorting the rows of a (n, m) tensor lexicographically (stable sorts
    by each column, last column first)."""
    from .._creation import arange
    order = arange(rows.shape[0], device=rows.device)
    for c in range(rows.shape[1] - 1, -1, -1):
        keys = rows[:, c].index_select(0, order)
        order = order.index_select(0, keys.sort(stable=True).indices)
    return order


def parse_unique_flags(op, dim, dim_position, **flags):
    """PyTorch's torch.unique and unique_consecutive: their boolean_dispatch tests return_counts
    and return_inverse (a tensor of many elements is bool()'s RuntimeError), then the op's
    parser reads dim (an int) and each flag (a bool: an int, a float or a tensor is its
    TypeError, which the op would otherwise have taken for its truth)."""
    import numpy as np
    from .._checks import is_int, is_integer_tensor
    bool(flags["return_counts"])
    bool(flags["return_inverse"])
    where = f"'dim' (position {dim_position})" if dim_position else "'dim'"
    if dim is not None and not (is_int(dim) or is_integer_tensor(dim)):
        raise TypeError(f"{op}(): argument {where} must be int, not {_kind_name(dim)}")
    for name, v in flags.items():
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{op}(): argument '{name}' must be bool, not {_kind_name(v)}")


def _kind_name(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """PyTorch's unique (always sorted, as PyTorch's CPU kernels are): the distinct values
    (or, with dim, the distinct slices along dim), the index of each element's value in
    them, how often each occurs."""
    from .._creation import zeros
    x = input
    parse_unique_flags("unique_dim" if dim is not None else "_unique2", dim, 2, sorted=sorted,
                       return_inverse=return_inverse, return_counts=return_counts)
    if dim is not None:
        if x.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if x.numel() == 0:
            return _unique_dim_of_empty(x, _wrap(dim, x.dim()), return_inverse, return_counts)
    with no_grad():
        if dim is None:
            flat = x.reshape(-1)
            # PyTorch sorts with sort() (not stable: its std::sort order), which decides the
            # order of NaNs, each a value of its own (seed 42015487)
            rows, order = flat.sort()
            new = _new_groups(rows)
            values = rows.masked_select(new) if flat.numel() else rows
            inverse_shape = x.shape
        else:
            d = _wrap(dim, x.dim())
            moved = x.movedim(d, 0)
            n = moved.shape[0]
            flat_rows = moved.reshape(n, -1)
            order = _lexsort_rows(flat_rows)
            new = _new_groups(flat_rows.index_select(0, order))
            picked = moved.index_select(0, order.masked_select(new))     # contiguous, dim d first
            values = _moved_back(picked, d)
            inverse_shape = (n,)
        n = order.numel()
        group = new.cumsum(0) - 1                       # each sorted element's group
        outputs = [values]
        if return_inverse:
            inverse = zeros(n, dtype=D.int64, device=x.device)
            if n:
                inverse = inverse.scatter(0, order, group)
            outputs.append(inverse.reshape(inverse_shape))
        if return_counts:
            k = values.shape[d] if dim is not None else values.numel()
            counts = zeros(k, dtype=D.int64, device=x.device)
            if n:
                counts = counts.index_add(0, group, new.new_ones(n, dtype=D.int64))
            outputs.append(counts)
    if needs_grad(x):
        record(Unique2Backward0 if dim is None else UniqueDimBackward0, (x,), (outputs[0],))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _moved_back(t, d):
    """t (dim d moved first, contiguous) with its dims in their own order again: PyTorch's
    unique_dim returns that layout, not a contiguous copy (nor a view)."""
    order = list(range(1, d + 1)) + [0] + list(range(d + 1, t.dim()))
    return Tensor._make(t._storage, Size([t._shape[i] for i in order]), tuple(t._stride[i] for i in order),
                        t._offset, t._dtype)


def _unique_dim_of_empty(x, d, return_inverse, return_counts):
    from .._creation import empty
    zero_dims = [i for i, n in enumerate(x.shape) if n == 0]
    if len(zero_dims) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    if zero_dims[0] != d:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    outputs = [empty(x.shape, dtype=x._dtype, device=x.device)]
    if return_inverse:
        outputs.append(empty(0, dtype=D.int64, device=x.device))
    if return_counts:
        outputs.append(empty(0, dtype=D.int64, device=x.device))
    if needs_grad(x):
        record(UniqueDimBackward0, (x,), (outputs[0],))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def bincount(input, weights=None, minlength=0):
    """Counts of each non-negative integer in a 1-D tensor (or the sums of their weights)."""
    from .._creation import zeros
    x = input
    check_dtype("bincount", x._dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.dim() == 1 and x.numel() == 0:
        return zeros(minlength, dtype=D.int64, device=x.device)     # (PyTorch's: int64, whatever the weights)
    if x.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    with no_grad():
        if x.numel() and int(x.min().item()) < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if weights is not None and (weights.dim() != 1 or weights.shape[0] != x.shape[0]):
            raise RuntimeError("weights should be 1-d and have the same length as input")
        n = max(int(x.max().item()) + 1 if x.numel() else 0, minlength)
        index = x.to(D.int64)
        if weights is None:
            out = zeros(n, dtype=D.int64, device=x.device)
            return out.index_add(0, index, index.new_ones(x.shape[0])) if x.numel() else out
        dtype = D.float32 if weights._dtype is D.float32 else D.float64     # (PyTorch's: float16 too is double)
        out = zeros(n, dtype=dtype, device=x.device)
        out = out.index_add(0, index, weights.to(dtype).detach()) if x.numel() else out
    if needs_grad(weights):         # (weights have no derivative formula: backward refuses)
        record(NotImplementedNode, (weights,), (out,), op_name="bincount")
    return out


def histc(input, bins=100, min=0, max=0):
    """PyTorch's histc: `bins` equal bins over [min, max] (the data's range when both are 0;
    a point range widened by 1 each way); elements outside are ignored, max falls in the
    last bin.  Computed in the input's dtype as PyTorch's kernel does."""
    from .._creation import tensor, zeros
    x = input
    if not x._dtype.is_floating_point:
        # (a bool input fails first in the bin edges' linspace, PyTorch's words)
        kernel = "linspace_cpu" if x._dtype is D.bool_ else "histogram_cpu"
        raise not_implemented(kernel, x._dtype)
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0, but got " + str(bins) + " for dimension 0")
    with no_grad():
        flat = x.detach().reshape(-1)
        lo, hi = float(min), float(max)
        if lo == 0 and hi == 0 and flat.numel():
            lo, hi = float(flat.min().item()), float(flat.max().item())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        # the edges as the input's dtype holds them
        lo, hi = tensor([lo, hi], dtype=x._dtype).tolist()
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError("torch.histc: max must be larger than min")
        out = zeros(bins, dtype=x._dtype, device=x.device)
        inside = (flat >= lo) & (flat <= hi)
        kept = flat.masked_select(inside)
        if kept.numel() == 0:
            return out
        pos = ((kept - lo) * bins / (hi - lo)).to(D.int64).clamp(max=bins - 1)
        return out.index_add(0, pos, kept.new_ones(kept.numel()))


def _fmt(v):
    return "-nan" if v != v else str(v)


histogram_result = return_type("histogram", ["hist", "bin_edges"])


def _g(v):
    """A double as PyTorch's messages print it (C++'s stream: 6 significant digits)."""
    return f"{v:g}"


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """PyTorch's torch.histogram: (hist, bin_edges).  bins: a count of equal bins over range
    (the data's min..max when None, widened by 0.5 each way when it is one point, 0..1 for
    no data), or a 1-D tensor of edges.  An element in [first edge, last edge] goes to the
    bin whose left edge is the last one <= it (the last edge itself to the last bin), adding
    its weight (1 without); others count nowhere.  density: hist / (its sum * bin widths)."""
    from .._creation import linspace, zeros
    if isinstance(bins, Tensor) and range is not None:
        raise TypeError("histogram() received an invalid combination of arguments - got (Tensor, Tensor, "
                        "range=tuple), but expected one of:\n"
                        " * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, "
                        "tuple of Tensors out = None)\n"
                        " * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
                        "bool density = False, tuple of Tensors out = None)\n")
    x = input
    dt = x._dtype
    if not dt.is_floating_point or (not isinstance(bins, Tensor) and dt in (D.float16, D.bfloat16) and x.numel()):
        raise not_implemented("histogramdd", dt)     # (16-bit floats: only with edges given, or no data)
    name = "torch.histogramdd"
    if weight is not None:
        if weight._dtype is not dt:
            raise RuntimeError(f"{name}: if weight tensor is provided, input tensor and weight tensor should have the "
                               f"same dtype, but got input({D.cpp_type_name(dt)}), and weight("
                               f"{D.cpp_type_name(weight._dtype)})")
        if tuple(weight.shape) != tuple(x.shape):
            raise RuntimeError(f"{name}: if weight tensor is provided it should have the same shape as the input "
                               f"tensor excluding its innermost dimension, but got input with shape "
                               f"{list(x.shape) + [1]} and weight with shape {list(weight.shape)}")
    with no_grad():
        flat = x.detach().reshape(-1)
        if isinstance(bins, Tensor):
            if bins.dim() != 1:
                raise RuntimeError(f"{name}: bins tensor should have one dimension, but got {bins.dim()} dimensions "
                                   "in the bins tensor for dimension 0")
            if bins._dtype is not dt:
                raise RuntimeError(f"{name}: input tensor and bins tensors should have the same dtype, but got input "
                                   f"with dtype {D.cpp_type_name(dt)} and bins for dimension 0 with dtype "
                                   f"{D.cpp_type_name(bins._dtype)}")
            if bins.numel() == 0:
                raise RuntimeError(f"{name}: bins tensor should have at least 1 element, but got 0 elements in the "
                                   "bins tensor for dimension 0")
            if bins.numel() < 2:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.numel() - 1} for dimension 0")
            edges = bins.detach().clone()
        else:
            bins = int(bins)
            if bins <= 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
            if range is not None:
                if len(range) != 2:
                    raise RuntimeError(f"{name}: for a 1-dimensional histogram range should have 2 elements, but got "
                                       f"{len(range)}")
                lo, hi = float(range[0]), float(range[1])
            elif flat.numel():
                lo, hi = float(flat.min().item()), float(flat.max().item())
            else:
                lo, hi = 0.0, 1.0
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise RuntimeError(f"{name}: dimension 0's range [{_g(lo)}, {_g(hi)}] is not finite")
            if lo > hi:
                raise RuntimeError(f"{name}: min should not exceed max, but got min {_g(lo)} max {_g(hi)} for "
                                   "dimension 0")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edges = linspace(lo, hi, bins + 1, dtype=dt, device=x.device)
        nbins = max(edges.numel() - 1, 0)
        hist = zeros(nbins, dtype=dt, device=x.device)
        if nbins and flat.numel():
            first, last = edges[0].item(), edges[-1].item()
            keep = (flat >= first) & (flat <= last)
            vals = flat.masked_select(keep)
            if vals.numel():
                from .more import searchsorted
                pos = (searchsorted(edges, vals, right=True) - 1).clamp(max=nbins - 1)
                w = weight.detach().reshape(-1).masked_select(keep) if weight is not None else vals.new_ones(vals.numel())
                hist = hist.index_add(0, pos, w)
        if density:
            hist = hist / hist.sum()
            hist = hist / (edges[1:] - edges[:-1])
    if needs_grad(x, weight, bins if isinstance(bins, Tensor) else None):
        record(NotImplementedNode, (x, weight) if weight is not None else (x,), (hist, edges), op_name="histogram")
    return histogram_result(hist, edges)
