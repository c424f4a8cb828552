"""More of PyTorch's functions, composed from the existing differentiable ops as PyTorch
composes them (its CompositeImplicitAutograd functions), so that their gradients, both
devices and the grad_fn names a user sees come with them: tensordot, isin, aminmax,
block_diag, cov/corrcoef, trapezoid/trapz and cumulative_trapezoid."""
import math

from .. import _dtype as D
from .._checks import is_number
from .._tensor import Tensor
from ..autograd.node import Node
from ._graph import _wrap as wrap_dim, needs_grad, record
from ._signatures import python_body


# ---------------------------------------------------------------- tensordot
def _int_list(name, value, position):
    """PyTorch's parser for an int list argument (an int is refused, a tuple or list taken)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, "
                        f"not {type(value).__name__}")
    from .._checks import int_tuple      # (a first bool refused, a later one an int: is_int_list_element)
    return list(int_tuple(tuple(value), "tensordot", name, position))


@python_body
def _tensordot_dims(a, b, dims):
    """torch.functional.tensordot's reading of dims: an int n (the last n dims of a with the
    first n of b), a pair of dim lists, or a tensor of either form."""
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
        return dims_a, dims_b
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.size()[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.size()[0]}")
            return dims[0].tolist(), dims[1].tolist()
        n = int(dims.item())
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return list(range(-n, 0)), list(range(n))
    n = int(dims)
    if n < 0:
        raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
    if n > min(a.dim(), b.dim()):
        raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
    return list(range(-n, 0)), list(range(n))


def tensordot(a, b, dims=2, out=None):
    """The sum of products of a's dims dims_a with b's dims_b (ATen's tensordot: a dim of size
    1 against a larger one is summed first, then both are permuted to (kept, contracted) and
    (contracted, kept), reshaped to matrices and multiplied by mm).  `out`: given by position,
    as PyTorch's Python function takes it (out= by keyword is the public wrapper's)."""
    if out is not None:
        _tensordot_dims(a, b, dims)     # (PyTorch's Python reads dims before its op parses out)
        from ._out import call_with_out
        return call_with_out("tensordot", tensordot, "tensordot", (a, b, dims), {}, out)
    from .linalg import mm
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    dims1 = _int_list("dims_self", dims_a, 3)
    dims2 = _int_list("dims_other", dims_b, 4)
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = a, b
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = a.shape[wrap_dim(d1, a.dim())], b.shape[wrap_dim(d2, b.dim())]
        if s2 == 1:                 # a broadcast dim is summed right away
            t1 = t1.sum(d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    c1, c2 = _dim_set(dims1, a.dim()), _dim_set(dims2, b.dim())
    p1 = [i for i in range(a.dim()) if i not in c1] + dims1
    p2 = dims2 + [i for i in range(b.dim()) if i not in c2]
    kept1 = [t1.shape[i] for i in range(a.dim()) if i not in c1]
    kept2 = [t2.shape[i] for i in range(b.dim()) if i not in c2]
    size1, size2 = math.prod(kept1), math.prod(kept2)
    t1 = t1.permute(p1).reshape(size1, csize)
    t2 = t2.permute(p2).reshape(csize, size2)
    return mm(t1, t2).reshape(kept1 + kept2)


tensordot.passes_out = True     # (its Python reads dims, and so b.dim(), before its op parses out)


def _dim_set(dims, ndim):
    """ATen's dim_list_to_bitset: the wrapped dims, each once."""
    seen = set()
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return seen


# ---------------------------------------------------------------- isin, aminmax
def _isin_dtype_check(t):
    if t.dtype is D.bool_:
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of elements is among test_elements (compared in their promoted dtype; NaN
    is in nothing): the pairwise comparison for small inputs, a sorted search for large."""
    from .._creation import tensor
    from ..autograd.grad_mode import no_grad
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
                        f"{type(test_elements).__name__}), but expected one of:\n"
                        " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = "
                        "False, Tensor out = None)\n"
                        " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = "
                        "False, Tensor out = None)\n"
                        " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = "
                        "False, Tensor out = None)\n")
    device = elements.device if isinstance(elements, Tensor) else test_elements.device
    e = elements if isinstance(elements, Tensor) else tensor(elements, device=device)
    t = test_elements if isinstance(test_elements, Tensor) else tensor(test_elements, device=device)
    _isin_dtype_check(e)
    _isin_dtype_check(t)
    with no_grad():
        dt = D.result_type_of((elements, test_elements))
        ev, tv = e.to(dt).reshape(-1), t.to(dt).reshape(-1)
        if tv.numel() == 0 or ev.numel() == 0:
            found = _zeros_bool(ev)
        elif ev.numel() * tv.numel() <= 1 << 16:
            found = (ev.reshape(-1, 1) == tv.reshape(1, -1)).any(1)
        else:
            from .more import searchsorted
            s = tv.sort().values
            at = searchsorted(s, ev).clamp(max=s.numel() - 1)
            found = s[at] == ev
        if invert:
            found = ~found
        return found.reshape(tuple(e.shape))


def _zeros_bool(t):
    from .._creation import zeros
    return zeros(tuple(t.shape), dtype=D.bool_, device=t.device)


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of input, over dim or all of it: one AminmaxBackward0 node for both."""
    from ..return_types import return_type
    from .reduction import amax, amin
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims = ()
    else:
        d = wrap_dim(dim, input.dim())
        if input.dim() and input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = d
    from ..autograd.grad_mode import no_grad
    with no_grad():
        lo, hi = amin(input, dims, keepdim), amax(input, dims, keepdim)
    if needs_grad(input):
        record(AminmaxBackward0, (input,), (lo, hi), dims=dims, keepdim=keepdim).save(input, lo, hi, outputs=(lo, hi))
    cls = return_type("aminmax", ("min", "max"))
    return cls(lo, hi)


class AminmaxBackward0(Node):
    """aminmax_backward: each defined gradient restored to self's dims and shared evenly
    among the elements equal to its value (scale_grad_by_count: grad / count * mask; no
    dim counts every element, as PyTorch's empty dim list does)."""

    def backward(self, g_min=None, g_max=None):
        x, lo, hi = self.saved_tensors
        out = None
        for g, v in ((g_min, lo), (g_max, hi)):
            if g is None:
                continue
            if self.dims != () and not self.keepdim:
                g, v = g.unsqueeze(self.dims), v.unsqueeze(self.dims)
            mask = v == x
            count = mask.sum(self.dims, keepdim=True) if self.dims != () else mask.sum()
            term = g / count * mask
            out = term if out is None else out + term
        return out


# ---------------------------------------------------------------- block_diag
class BlockDiagBackward0(Node):
    """PyTorch's block_diag_backward: each input's block of the gradient, in its dtype.  As
    there, an empty 1-d input does not move the block position on (its row, which the
    forward counts, is not skipped), so the blocks after it read rows above their own."""

    def backward(self, g):
        grads = []
        r = c = 0
        for k, (shape, dtype) in enumerate(self.blocks):
            if len(shape) == 1 and shape[0] == 0:
                grads.append(g.new_zeros(0).to(dtype) if self.needs_input_grad(k) else None)
                continue
            h, w = (shape if len(shape) == 2 else (1, shape[0]) if len(shape) == 1 else (1, 1))
            if self.needs_input_grad(k):
                part = g[r:r + h, c:c + w].reshape(shape)
                grads.append(part if part.dtype is dtype else part.to(dtype))
            else:
                grads.append(None)
            r, c = r + h, c + w
        return tuple(grads)


def block_diag(*tensors):
    """The tensors (0-d: 1x1, 1-d: one row) along the diagonal of a matrix of zeros, in their
    promoted dtype."""
    from .._creation import zeros
    from ..autograd.grad_mode import no_grad
    from ..autograd.graph import needs_grad, record
    from .indexing import tensor_list
    tensor_list("block_diag", tensors)          # (PyTorch's Python passes them to its op as one list)
    for k, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} has "
                               f"{t.dim()} dimensions")
    dt = D.result_type_of(tensors) if tensors else D.get_default_dtype()
    mats = [t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t for t in tensors]
    rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
    device = tensors[0].device if tensors else None
    out = zeros((rows if tensors else 1, cols), dtype=dt, device=device)
    blocks = []
    r = c = 0
    with no_grad():
        for t, m in zip(tensors, mats):
            h, w = m.shape
            if h and w:
                out[r:r + h, c:c + w] = m.to(dt)
            blocks.append((tuple(t.shape), t.dtype))
            r, c = r + h, c + w
    if needs_grad(*tensors):
        record(BlockDiagBackward0, tuple(tensors), (out,), blocks=blocks)
    return out


# ---------------------------------------------------------------- cov, corrcoef
def cov(input, *, correction=1, fweights=None, aweights=None):
    """ATen's cov (Correlation.cpp): the (weighted) covariance of input's rows (variables)
    over its columns (observations)."""
    from .._warnings import warn
    from .linalg import mm
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype is D.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
        if w.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{w.dim()} dimensions")
        if w.dtype.is_floating_point or w.dtype is D.bool_:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with "
                               f"{D.scalar_type_name(w.dtype)} dtype")
        if w.numel() != n:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {w.numel()} != {n}")
        if n and not bool(w.min() >= 0):
            raise RuntimeError("cov(): fweights cannot be negative")
    if aweights is not None:
        aw = aweights
        if aw.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aw.dim()} dimensions")
        if not aw.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{D.scalar_type_name(aw.dtype)} dtype")
        if aw.numel() != n:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aw.numel()} != {n}")
        if n and not bool(aw.min() >= 0):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aw if w is None else w * aw
    if w is not None:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    else:
        from .._creation import tensor
        w_sum = tensor(n, dtype=D.int64, device=input.device)
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor <= 0):
        warn("cov_no_dof")
        norm_factor = norm_factor * 0
    x = x - avg.unsqueeze(1)
    c = mm(x, (x * w if w is not None else x).t())
    return (c / norm_factor).squeeze()


def corrcoef(input):
    """cov normalised by the variables' standard deviations, clipped to [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c             # NaN for a NaN, infinite or zero variance, else 1
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


# ---------------------------------------------------------------- trapezoid
def _trapezoid_dim(y, dim):
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, y.dim())


def _trapezoid_args(name, y, dim, x=None, bool_first=False, scalar_wrap=False):
    """The wrapped dim and the bool checks (trapezoid wraps first; cumulative_trapezoid with a dx,
    bool_first, checks the dtype first; with an x, scalar_wrap, it wraps as maybe_wrap_dim, which
    takes dim 0 or -1 of a 0-dim y, checks the dtypes, then reads the dim: ATen's orders)."""
    if scalar_wrap:
        wrap_dim(dim, y.dim())
    d = None if bool_first or scalar_wrap else _trapezoid_dim(y, dim)
    if isinstance(x, Tensor) and (x.dtype is D.bool_ or y.dtype is D.bool_):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if y.dtype is D.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if scalar_wrap and y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")      # (its first slice of y)
    return _trapezoid_dim(y, dim) if bool_first or scalar_wrap else d


def _trapezoid_dx(name, y, x, d):
    """x's differences along d, shaped to broadcast against y's (ATen's x_viewed)."""
    if x.dtype is D.bool_:
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[d] = x.shape[0]
        x = x.view(shape)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    n = x.shape[d]
    return x.narrow(d, min(n, 1), max(n - 1, 0)) - x.narrow(d, 0, max(n - 1, 0))


def _check_dx(name, dx):
    if isinstance(dx, bool) or isinstance(dx, complex):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _pairs(y, d):
    """y[1:] + y[:-1] along d."""
    n = y.shape[d]
    return y.narrow(d, min(n, 1), max(n - 1, 0)) + y.narrow(d, 0, max(n - 1, 0))


_NO_DX = object()


def _dx_of(name, dx, dim):
    """dx as PyTorch's parser reads a Number: a 0-dim tensor that does not require grad is its
    value (a double in ATen: a float16 dx does not make the result float16)."""
    if dx is _NO_DX:
        return 1
    if not is_number(dx):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"dx={type(dx).__name__}), but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if isinstance(dx, Tensor):
        dx = dx.item()
    _check_dx(name, dx)
    return dx


def trapezoid(y, x=None, *, dx=_NO_DX, dim=-1):
    """The trapezoidal rule along dim: with sample points x, or a constant spacing dx (1)."""
    from .._creation import zeros
    from .elementwise import div_scalar, mul_scalar
    if not isinstance(x, Tensor) and dx is not _NO_DX and not is_number(dx):
        _dx_of("trapezoid", dx, dim)            # (the parser's refusal, first)
    d = _trapezoid_dim(y, dim)
    if y.shape[d] == 0:         # (ATen's answer for no samples, before its dtype checks)
        return zeros([s for k, s in enumerate(y.shape) if k != d], dtype=y.dtype, device=y.device)
    _trapezoid_args("trapezoid", y, dim, x)
    if not isinstance(x, Tensor):
        dx = _dx_of("trapezoid", dx, dim)
    if isinstance(x, Tensor):
        return div_scalar((_pairs(y, d) * _trapezoid_dx("trapezoid", y, x, d)).sum(d), 2.0)
    return mul_scalar(y.sum(d) - mul_scalar(y.select(d, 0) + y.select(d, -1), 0.5), dx)


def trapz(y, x=None, *, dx=_NO_DX, dim=-1):
    from .._checks import is_float
    if dx is not _NO_DX and is_float(dx):
        dx = float(dx)      # (trapz's dx is a float: a bool, or a 0-dim tensor of one, is its value)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=_NO_DX, dim=-1):
    """The running trapezoidal rule along dim (one element fewer than y there)."""
    from .elementwise import div_scalar, mul_scalar
    # (ATen's dx overload checks y's dtype before it wraps dim; its x overload wraps dim first)
    d = _trapezoid_args("cumulative_trapezoid", y, dim, x, bool_first=not isinstance(x, Tensor),
                        scalar_wrap=isinstance(x, Tensor))
    if isinstance(x, Tensor):
        return div_scalar((_pairs(y, d) * _trapezoid_dx("cumulative_trapezoid", y, x, d)).cumsum(d), 2.0)
    dx = _dx_of("cumulative_trapezoid", dx, dim)
    return mul_scalar(_pairs(y, d), dx / 2.0).cumsum(d)
