"""More of PyTorch's functions and Tensor methods (issue 14), composed from the existing
differentiable ops: their gradients and both devices come with them.  Where a user sees a
backward node (grad_fn), its name is PyTorch's."""
import functools
import math
import operator

from .. import _dtype as D
from .._checks import as_symint, check_new_sizes, is_float, is_integer_tensor
from .._tensor import Tensor
from ..amp import autocast_mode as _amp  # the autocast hook: one truth test while off
from ..autograd.graph import needs_grad, record
from ..autograd.node import Node
from ..autograd import _saved_names
from ._graph import _list_element, _wrap as wrap_dim, broadcast_shapes, check_result_fits, zeros_grad
from . import elementwise as E
from ._dtype_rules import check as check_dtype, refuse, INTEGRAL, BOOL


# ---------------------------------------------------------------- in-place comparisons
def _zero_node(name, n):
    def backward(self, g):
        z = zeros_grad(g)
        return z if n == 1 else (z,) * n
    return type(name, (Node,), {"backward": backward})


def comparison_inplace_fn(op):
    """fn(old, other) for eq_/lt_/...: the comparison in self's dtype, recorded (when self
    requires grad) as PyTorch's <Op>Backward0 (number other) / <Op>Backward1 (tensor
    other), whose gradients are zero."""
    cap = op.capitalize()
    nodes = (_zero_node(f"{cap}Backward0", 1), _zero_node(f"{cap}Backward1", 2))
    compare = getattr(E, op)

    def fn(old, other):
        out = compare(old, other).to(old._dtype)
        if isinstance(other, Tensor):
            if needs_grad(old, other):
                record(nodes[1], (old, other), (out,))
        elif needs_grad(old):
            record(nodes[0], (old,), (out,))
        return out
    fn.__name__ = op
    return fn


def logical_inplace_fn(op):
    compare = getattr(E, op)

    def fn(old, other):
        return compare(old, other).to(old._dtype)
    fn.__name__ = op
    return fn


# ---------------------------------------------------------------- small aliases
def ravel(input):
    return input.reshape(-1)


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def positive(input):
    if input._dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---------------------------------------------------------------- node names
_RENAMED = {}


def renamed(out, name):
    """out, its backward node shown under PyTorch's name `name` (the node of the last op
    of a composition: a subclass of its own class, so its backward is unchanged)."""
    fn = out._grad_fn if isinstance(out, Tensor) else None
    if fn is None:
        return out
    cls = type(fn)
    sub = _RENAMED.get((cls, name))
    if sub is None:
        sub = _RENAMED[(cls, name)] = type(name, (cls,), {"__module__": __name__})
        _saved_names.install_class(sub)     # (PyTorch's grad_fn._saved_<name> of that node)
    fn.__class__ = sub
    return out


# ---------------------------------------------------------------- add* (beta, alpha, value)
def _scalar_in(value, dtype):
    """beta or alpha as the op's kernel reads it in the result's dtype: the scalars take no part
    in type promotion, and an integral result truncates a float (Scalar::to<int64_t>)."""
    if dtype is D.bool_:
        return bool(value)
    if not dtype.is_floating_point and isinstance(value, float):
        return int(value)
    return value


def _scaled_sum(name, input, product, beta, alpha):
    """beta * input + alpha * product, as PyTorch's add* ops: input expands to the product's
    shape (expand's error), beta == 0 ignores input's values (NaN included) but not its shape,
    and beta and alpha are read in the result's dtype."""
    if tuple(input.shape) != tuple(product.shape):
        input.expand(product.shape)             # (its error, where the shapes do not fit)
    dtype = product.dtype
    beta_zero = beta == 0
    beta, alpha = _scalar_in(beta, dtype), _scalar_in(alpha, dtype)
    if alpha != 1:
        product = product * alpha
    if beta_zero:
        # input's values (NaN too) are not read, but its shape broadcasts and its gradient is zero
        from .._creation import zeros
        return renamed(E.where(zeros((), dtype=D.bool_, device=product.device), input, product), name)
    return renamed((input if beta == 1 else input * beta) + product, name)


def _same_dtype(first, second, a, b):
    """addmm's and addbmm's check: "self and mat2 must have the same dtype, but got ..."."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{first} and {second} must have the same dtype, but got {D.scalar_type_name(a.dtype)} "
                           f"and {D.scalar_type_name(b.dtype)}")


# PyTorch's deprecated Number-first overloads of the add*mm family (its deprecated.yaml):
# x.addmm(beta, [alpha,] mat1, mat2) and torch.addmm(beta, input, [alpha,] mat1, mat2)
_BETA_FIRST = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
               "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}
_OUT_DTYPE = ("addmm", "baddbmm")       # (their out_dtype overloads, which PyTorch's warning lists)


def beta_first(name, args, method):
    """(input or None, the two tensors, beta, alpha) when args (a method's after self, a
    function's all of them) are a deprecated Number-first overload of `name`, having given
    PyTorch's warning; None when they are not."""
    from .._checks import is_number
    from ._signatures import warn_deprecated_overload
    if len(args) not in ((3, 4) if method else (4, 5)):
        return None
    input, tensors = (None, args[-2:]) if method else (args[1], args[-2:])
    numbers = args[:-2] if method else (args[0],) + tuple(args[2:-2])
    if not all(is_number(v) for v in numbers) or not all(isinstance(t, Tensor) for t in tensors) or \
            not (method or isinstance(input, Tensor)):
        return None
    n1, n2 = _BETA_FIRST[name.rstrip("_")]
    alpha_param = "Number alpha, " if len(numbers) == 2 else ""
    if method:
        warn_deprecated_overload(name, f"{name}(Number beta, {alpha_param}Tensor {n1}, Tensor {n2})",
                                 f"{name}(Tensor {n1}, Tensor {n2}, *, Number beta = 1, Number alpha = 1)")
    else:
        instead = [f"{name}(Tensor input, Tensor {n1}, Tensor {n2}, *, Number beta = 1, Number alpha = 1, "
                   "Tensor out = None)"]
        if name in _OUT_DTYPE:
            instead.append(f"{name}(Tensor input, Tensor {n1}, Tensor {n2}, torch.dtype out_dtype, *, Number beta = 1, "
                           "Number alpha = 1, Tensor out = None)")
        warn_deprecated_overload(name, f"{name}(Number beta, Tensor input, {alpha_param}Tensor {n1}, Tensor {n2}, *, "
                                 "Tensor out = None)", *instead)
    beta, alpha = (v.item() if isinstance(v, Tensor) else v for v in (numbers if len(numbers) == 2 else
                                                                       (numbers[0], 1)))
    return input, tensors[0], tensors[1], beta, alpha


def _beta_first_call(name, args, beta, alpha):
    """(input, the two tensors, beta, alpha) of a function of the family called with the
    positional arguments args: one of its deprecated overloads (no beta= or alpha= beside it),
    or args as given when they are not (a non-tensor input is then the parser's error)."""
    found = beta_first(name, args, method=False) if beta == 1 and alpha == 1 else None
    if found is not None:
        return found
    if len(args) > 3:
        raise TypeError(f"{name}() takes 3 positional arguments but {len(args)} were given")
    return (*args, beta, alpha)


def beta_first_method(fn, name):
    """Tensor.<name> taking the deprecated x.<name>(beta, [alpha,] t1, t2) beside fn's own form."""
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        found = beta_first(name, args, method=True) if not kwargs else None
        if found is not None:
            return fn(self, found[1], found[2], beta=found[3], alpha=found[4])
        return fn(self, *args, **kwargs)
    return method


def addmm(input, mat1, mat2, *deprecated, beta=1, alpha=1):
    if deprecated or not isinstance(input, Tensor):
        input, mat1, mat2, beta, alpha = _beta_first_call("addmm", (input, mat1, mat2, *deprecated), beta, alpha)
    if _amp.ON: input, mat1, mat2 = _amp.cast_lower(input, mat1, mat2)
    _same_dtype("self", "mat2", input, mat2)          # (before the shapes, as PyTorch's)
    _same_dtype("mat1", "mat2", mat1, mat2)
    if input.dtype is D.bool_ and mat1.dim() == 2 and mat2.dim() == 2 and mat1.shape[1] == mat2.shape[0] == 0 \
            and mat1.shape[0] and mat2.shape[1] and beta.__class__ is not bool and beta != 0:
        # (ATen's addmm of no terms: self copied, then multiplied in place by beta, a number)
        raise RuntimeError(f"result type {'Double' if isinstance(beta, float) else 'Long'} can't be cast to the "
                           "desired output type Bool")
    return _scaled_sum("AddmmBackward0", input, mat1.mm(mat2), beta, alpha)


def addmv(input, mat, vec, *deprecated, beta=1, alpha=1):
    if deprecated or not isinstance(input, Tensor):
        input, mat, vec, beta, alpha = _beta_first_call("addmv", (input, mat, vec, *deprecated), beta, alpha)
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:        # (addmv's meta function, first)
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, {vec.dim()}")
    if mat.shape[1] != vec.shape[0] or (mat.shape[0] != input.numel() and input.numel() != 1):
        if input.dim() == 0:        # (ATen's message reads self.size(0): a 0-dim input's IndexError)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.dim() else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    dtypes = (input.dtype, mat.dtype, vec.dtype)
    if len(set(dtypes)) > 1:
        raise RuntimeError("addmv input tensors must have the same dtype, but got " +
                           ", ".join(D.scalar_type_name(d) for d in dtypes[:2]) + f", and {D.scalar_type_name(dtypes[2])}")
    product = mat.mv(vec)
    return _scaled_sum("AddmvBackward0", input, product, beta, alpha)


def addr(input, vec1, vec2, *deprecated, beta=1, alpha=1):
    if deprecated or not isinstance(input, Tensor):
        input, vec1, vec2, beta, alpha = _beta_first_call("addr", (input, vec1, vec2, *deprecated), beta, alpha)
    # PyTorch's order: the vectors' ranks, input's shape, then the scalars against the dtype
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.dim()}-D")
    shape = (vec1.shape[0], vec2.shape[0])
    if tuple(input.shape) != shape:
        input.expand(shape)                     # (its error, where the shapes do not fit)
    dtype = D.promote_types(D.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    for name, value in (("beta", beta), ("alpha", alpha)):
        if isinstance(value, bool) and dtype is not D.bool_:
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if isinstance(value, float) and not dtype.is_floating_point:
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    # (computed in the result's dtype, as the kernel computes it)
    input, vec1, vec2 = (t if t.dtype is dtype else t.to(dtype) for t in (input, vec1, vec2))
    return _scaled_sum("AddrBackward0", input, vec1.outer(vec2), beta, alpha)


def baddbmm(input, batch1, batch2, *deprecated, beta=1, alpha=1):
    if deprecated or not isinstance(input, Tensor):
        input, batch1, batch2, beta, alpha = _beta_first_call("baddbmm", (input, batch1, batch2, *deprecated), beta,
                                                              alpha)
    if _amp.ON: input, batch1, batch2 = _amp.cast_lower(input, batch1, batch2)
    # ATen's order: input expanded to the sizes read from the batches (size(1) of a 1-D batch1
    # is its IndexError), the dtypes, then bmm's checks of the batches
    target = (batch1.size(0), batch1.size(1), batch2.size(2))
    if tuple(input.shape) != target:
        input.expand(target)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {D.cpp_type_name(input.dtype)}, batch1: "
                           f"{D.cpp_type_name(batch1.dtype)}, batch2: {D.cpp_type_name(batch2.dtype)}")
    refuse("baddbmm", input.dtype, BOOL)
    return _scaled_sum("BaddbmmBackward0", input, batch1.bmm(batch2), beta, alpha)


def addbmm(input, batch1, batch2, *deprecated, beta=1, alpha=1):
    if deprecated or not isinstance(input, Tensor):
        input, batch1, batch2, beta, alpha = _beta_first_call("addbmm", (input, batch1, batch2, *deprecated), beta,
                                                              alpha)
    if _amp.ON: input, batch1, batch2 = _amp.cast_lower(input, batch1, batch2)
    # ATen's order: input expanded to (batch1.size(1), batch2.size(2)), the batches' ranks,
    # counts and inner sizes, then addmm's dtype checks
    target = (batch1.size(1), batch2.size(2))
    if tuple(input.shape) != target:
        input.expand(target)
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    _same_dtype("self", "mat2", input, batch2)
    _same_dtype("mat1", "mat2", batch1, batch2)
    refuse("addmm_impl_cpu_", input.dtype, BOOL)
    return _scaled_sum("AddbmmBackward0", input, batch1.bmm(batch2).sum(0), beta, alpha)


class AddcmulBackward0(Node):
    def backward(self, g):
        # derivatives.yaml: self: grad; tensor1: grad * (tensor2 * value); tensor2: grad * (tensor1 * value)
        t1, t2 = self.saved_tensors
        v = self.value
        return (g if self.needs_input_grad(0) else None,
                g * (t2 * v) if self.needs_input_grad(1) else None,
                g * (t1 * v) if self.needs_input_grad(2) else None)


class AddcdivBackward0(Node):
    def backward(self, g):
        # derivatives.yaml: tensor1: grad * (value / tensor2) (a number over a tensor: filled,
        # then divided, as ATen's operator/); tensor2: -grad * (value * tensor1 / (tensor2 * tensor2))
        t1, t2 = self.saved_tensors
        v = self.value
        g1 = g2 = None
        if self.needs_input_grad(1):
            if not t2._dtype.is_floating_point:
                # (ATen's operator/ fills a tensor of tensor2's dtype and divides it in place:
                # an integral tensor2 cannot hold the quotient, as PyTorch refuses)
                from .._checks import scalar_type_name
                raise RuntimeError(f"result type {scalar_type_name(D.get_default_dtype())} can't be cast to the "
                                   f"desired output type {scalar_type_name(t2._dtype)}")
            g1 = g * (E.as_operand(v, t2._dtype, t2.device) / t2)
        if self.needs_input_grad(2):
            g2 = -g * (t1 * v / (t2 * t2))
        return (g if self.needs_input_grad(0) else None), g1, g2


def _pointwise3(name, input, tensor1, tensor2, value, compute, node_cls, saves):
    """addcmul/addcdiv: one op over three broadcast operands in their promoted dtype, with
    PyTorch's node and saved tensors (saves(needs1, needs2) -> (tensor1 or None, tensor2 or None))."""
    for i, t in enumerate((input, tensor1, tensor2)):
        if not isinstance(t, Tensor):
            arg = ("self", "tensor1", "tensor2")[i]
            raise TypeError(f"{name}(): argument '{arg}' (position {i + 1}) must be Tensor, not {type(t).__name__}")
    dt = D.result_type_of((input, tensor1, tensor2))
    # the kernel's arithmetic: float16 in float32 (opmath), rounded once at the end; integers
    # in the operands' own types (wide None)
    wide = (D.float32 if dt in (D.float16, D.bfloat16) else dt) if dt.is_floating_point else None
    if wide is None:
        value = int(value)      # the kernel's value.to<scalar_t>(): a fraction truncated (0.5 adds nothing)
    with E.no_grad():
        operands = (input, tensor1, tensor2) if wide is None else (E.cast(t, wide) for t in (input, tensor1, tensor2))
        out = compute(*operands, value, wide)
        out = out if out._dtype is dt else E.cast(out, dt)
    if needs_grad(input, tensor1, tensor2):
        n1, n2 = needs_grad(tensor1), needs_grad(tensor2)
        record(node_cls, (input, tensor1, tensor2), (out,), value=value).save(*saves(n1, n2))
    return out


def _addcmul_values(x, t1, t2, value, dt):
    # PyTorch's CPU kernel: self + value * t1 * t2, the last multiply and the add fused
    # (one rounding): fma(value * t1, t2, self)
    scaled = t1 * value if value != 1 else t1
    if dt is None:
        return x + scaled * t2
    return E.fma_raw(scaled, t2, x, dt, like=(x, t1, t2))


def _addcdiv_values(x, t1, t2, value, dt):
    # PyTorch's kernel: self + value * t1 / t2, each op rounded
    scaled = t1 * value if value != 1 else t1
    return x + scaled / t2


def _number_first(name, input, value, tensor1, deprecated, keyword_value):
    from ._signatures import number_first
    number = number_first(name, value, (tensor1, *deprecated)) if len(deprecated) == 1 and keyword_value == 1 \
        else None
    if number is None:
        raise TypeError(f"{name}() takes 3 positional arguments but {3 + len(deprecated)} were given")
    return input, tensor1, deprecated[0], number


def addcmul(input, tensor1, tensor2, *deprecated, value=1):
    if deprecated:      # addcmul(input, Number value, Tensor tensor1, Tensor tensor2): PyTorch's deprecated form
        input, tensor1, tensor2, value = _number_first("addcmul", input, tensor1, tensor2, deprecated, value)
    if all(isinstance(t, Tensor) and t._dtype is D.bool_ for t in (input, tensor1, tensor2)):
        check_dtype("addcmul", D.bool_)
    return _pointwise3("addcmul", input, tensor1, tensor2, value, _addcmul_values, AddcmulBackward0,
                       lambda n1, n2: (tensor1 if n2 else None, tensor2 if n1 else None))


def addcdiv(input, tensor1, tensor2, *deprecated, value=1):
    if deprecated:      # addcdiv(input, Number value, Tensor tensor1, Tensor tensor2): PyTorch's deprecated form
        input, tensor1, tensor2, value = _number_first("addcdiv", input, tensor1, tensor2, deprecated, value)
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor) and \
            not tensor1._dtype.is_floating_point and not tensor2._dtype.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return _pointwise3("addcdiv", input, tensor1, tensor2, value, _addcdiv_values, AddcdivBackward0,
                       lambda n1, n2: (tensor1 if n2 else None, tensor2 if (n1 or n2) else None))


# ---------------------------------------------------------------- diagonals
def _arange(n, device):
    from .._creation import arange
    return arange(n, device=device)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    offset = offset if type(offset) is int else operator.index(offset)   # (a 0-dim tensor's value)
    # ATen's order: the dims wrapped over the result's rank and compared, then the sizes (a
    # 0-dim input has no two dims to put its diagonal in: an IndexError or the identical-dims one)
    nd = input.dim() + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    x = input
    n = x.shape[-1]
    k = abs(offset)
    m = n + k
    # the result sized first, as PyTorch's: an offset of 2**31 is its overflow error, not a
    # 4 GB padding allocated before it
    check_new_sizes(tuple(x.shape[:-1]) + (m, m), x._dtype.itemsize)
    check_result_fits(tuple(x.shape[:-1]) + (m, m), x._dtype, x.device)
    from .composite import one_node        # (PyTorch's DiagEmbedBackward0 saves no tensor)
    return one_node("DiagEmbedBackward0", lambda x: _diag_embed(x, offset, nd, d1, d2, k, m), x, saves=False)


def _diag_embed(x, offset, nd, d1, d2, k, m):
    from .indexing import cat
    from .._creation import zeros
    if k:
        x = cat([x, zeros(tuple(x.shape[:-1]) + (k,), dtype=x.dtype, device=x.device)], -1)
    src = x.unsqueeze(-1) if offset >= 0 else x.unsqueeze(-2)
    src = src.expand(tuple(x.shape[:-1]) + (m, m))
    r = _arange(m, x.device)
    mask = r.unsqueeze(0) == r.unsqueeze(1) + offset      # (one (m, m) bool temporary, no int64 one)
    zero = zeros((), dtype=x.dtype, device=x.device)
    out = E.where(mask, src, zero)
    if (d1, d2) != (nd - 2, nd - 1):
        out = out.movedim((nd - 2, nd - 1), (d1, d2)).contiguous()
    return out


def diag(input, diagonal=0):
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return renamed(input.diagonal(diagonal).clone(), "DiagonalBackward0_copy")
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def diagflat(input, offset=0):
    return diag_embed(input.reshape(-1), offset)


def trace(input):
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    check_dtype("trace", input._dtype)
    return recorded(TraceBackward0, input, lambda: input.diagonal().sum(), shape=tuple(input._shape))


class TraceBackward0(Node):
    """trace_backward: zeros of n * m elements, grad at every (m + 1)-th of the first
    min(n, m) rows, viewed (n, m)."""

    def backward(self, g):
        from .._creation import arange, zeros
        n, m = self.shape
        out = zeros(n * m, dtype=g._dtype, device=g.device)
        # (a tall matrix's every (m + 1)-th element runs past its diagonal: (3, 1) has one
        # diagonal element, not the two at flat 0 and 2)
        out.index_fill_(0, arange(0, min(n, m) * (m + 1), m + 1, device=g.device), g)
        return out.view(n, m)


# ---------------------------------------------------------------- rearranging and products
def diff(input, n=1, dim=-1, prepend=None, append=None):
    from .indexing import cat
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.dim())
    for other in (prepend, append):     # (ATen's diff_check_compatible_shape)
        if other is None:
            continue
        if other.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(other.dim()):
            if i != d and other.shape[i] != input.shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; input.size({i}) = {input.shape[i]}, "
                                   f"but got tensor.size({i}) = {other.shape[i]}")
    x = input
    if prepend is not None or append is not None:
        x = cat([p for p in (prepend, input, append) if p is not None], d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        a, b = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = E.logical_xor(a, b) if x._dtype is D.bool_ else a - b
    return x


def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = wrap_dim(dims[0], input.dim()), wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    # (a 0-dim tensor k taken by value: `k %= 4` on it rewrote the caller's tensor)
    k = as_symint(k, "rot90", "k", 2) % 4
    from .composite import one_node        # (PyTorch's Rot90Backward0 saves no tensor)
    return one_node("Rot90Backward0", lambda t: _rot90(t, k, d0, d1), input, saves=False)


def _rot90(input, k, d0, d1):
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def kron(input, other):
    # ATen's KronImpl: each operand _unsafe_view'ed to (n0, 1, n1, 1, ...) / (1, n0, 1, n1, ...)
    # (view's refusal for an operand no view can reshape: a transposed one), their product
    # _unsafe_view'ed to the result
    nd = max(input.dim(), other.dim())
    sa = (1,) * (nd - input.dim()) + tuple(input.shape)
    sb = (1,) * (nd - other.dim()) + tuple(other.shape)
    a = renamed(input.view([v for n in sa for v in (n, 1)]), "UnsafeViewBackward0")
    b = renamed(other.view([v for n in sb for v in (1, n)]), "UnsafeViewBackward0")
    from .views import unsafe_view_any
    return unsafe_view_any(a * b, [p * q for p, q in zip(sa, sb)])


def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    n = input.shape[-1]
    if other.shape[-1] != n:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    # (the rows counted, not -1: a zero-length last dim leaves -1 ambiguous)
    prod = input.reshape(math.prod(input.shape[:-1]), n).mm(other.reshape(math.prod(other.shape[:-1]), n).t())
    return prod.reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def take_along_dim(input, indices, dim=None):
    # (ATen's order: the ranks, the indices' dtype, then the dim; without a dim its view(-1),
    # which a non-contiguous input refuses as there)
    if dim is None:
        return input.view(-1).gather(0, indices.view(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    if indices.dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{D.scalar_type_name(indices.dtype)}")
    d = wrap_dim(dim, input.dim())
    shape = list(broadcast_shapes(tuple(input.shape[:d]) + (1,) + tuple(input.shape[d + 1:]),
                                  tuple(indices.shape[:d]) + (1,) + tuple(indices.shape[d + 1:])))
    ishape, jshape = list(shape), list(shape)
    ishape[d], jshape[d] = input.shape[d], indices.shape[d]
    return input.expand(ishape).gather(d, indices.expand(jshape))


# ---------------------------------------------------------------- NaN-aware
def _float_or_none(value, name, position):
    """nan_to_num's replacements as PyTorch's parser reads a `float?`: a number or a 0-dim
    tensor's value, or None."""
    if value is None or type(value) is float:
        return value
    if is_float(value):
        return float(value)
    raise TypeError(f"nan_to_num(): argument '{name}' (position {position}) must be float, not {type(value).__name__}")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    nan = _float_or_none(nan, "nan", 2)
    nan = 0.0 if nan is None else nan
    posinf, neginf = _float_or_none(posinf, "posinf", 3), _float_or_none(neginf, "neginf", 4)
    if not input._dtype.is_floating_point:
        return input.clone()
    info = D.finfo(input._dtype)     # (nbgrad's: NumPy has no bfloat16)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    # (ATen's kernel casts its replacements to the tensor's type unchecked: past its range is inf)
    nan, posinf, neginf = (D.round_scalar(float(v), input._dtype) for v in (nan, posinf, neginf))
    x = input
    return recorded(NanToNumBackward0, x, lambda: E.where(E.isnan(x), nan, E.where(
        x == float("inf"), posinf, E.where(x == float("-inf"), neginf, x))), saves=(x,))


def integral_identity(inplace, fn):
    """inplace (nan_to_num_) for floating tensors; for the others, PyTorch's copy of self into
    itself: the arguments checked (by fn), nothing written (an expanded self too: no overlap
    refusal), the version moved once."""
    def method(self, *args, **kwargs):
        if self._dtype.is_floating_point:
            return inplace(self, *args, **kwargs)
        fn(self, *args, **kwargs)
        self._vc.value += 1
        return self
    method.__name__ = method.__qualname__ = inplace.__name__
    return method


class NanToNumBackward0(Node):
    """PyTorch's derivative: grad * isfinite(self)."""

    def backward(self, g):
        x, = self.saved_tensors
        return g * E.isfinite(x)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    from .reduction import sum as _sum
    if not input._dtype.is_floating_point:
        return _sum(input, dim, keepdim, dtype=dtype)
    from ._graph import wrap_dims as _wrap_dims
    dims = tuple(range(input.dim())) if dim is None else tuple(_wrap_dims(dim, input.dim()))
    if dtype is not None:
        from .reduction import check_grad_dtype
        check_grad_dtype(input, D.to_dtype(dtype))
    return recorded(NansumBackward0, input, lambda: _sum(E.where(E.isnan(input), 0.0, input), dim, keepdim, dtype=dtype),
                    saves=(input,), shape=tuple(input._shape), dims=dims, keepdim=keepdim, dtype=input._dtype)


class NansumBackward0(Node):
    """nansum_backward: sum's gradient (grad, in self's dtype, expanded back) * ~isnan(self)."""

    def backward(self, g):
        from .reduction import _expand_back
        x, = self.saved_tensors
        g = g.to(self.dtype) if g._dtype is not self.dtype else g
        return _expand_back(g, self.shape, self.dims, self.keepdim) * E.logical_not(E.isnan(x))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{D.scalar_type_name(input._dtype)}")
    if dtype is not None and not D.to_dtype(dtype).is_floating_point:
        raise RuntimeError("nanmean(): could not infer output dtype. Optional dtype must be either a floating point "
                           f"or complex dtype. Got: {D.scalar_type_name(D.to_dtype(dtype))}")
    from .reduction import sum as _sum
    count = _sum(E.logical_not(E.isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def count_nonzero(input, dim=None):
    from .reduction import sum as _sum
    return _sum(input != 0, dim)


# ---------------------------------------------------------------- signs and scalings
def signbit(input):
    if input._dtype is D.bool_:
        return input != input
    if not input._dtype.is_floating_point:
        return input < 0
    from ..autograd.grad_mode import no_grad
    with no_grad():
        return (input < 0) | ((input == 0) & (E.reciprocal(input) < 0))


def heaviside(input, values):
    if input._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    from ..autograd.grad_mode import no_grad
    with no_grad():
        out = E.where(input == 0, values, (input > 0).to(input._dtype))
    if needs_grad(input, values):       # PyTorch records a node that refuses backward
        from ._graph import NotImplementedNode
        record(NotImplementedNode, (input, values), (out,), op_name="heaviside")
    return out


def _zeros(shape, g):
    from .._creation import zeros
    return zeros(shape, dtype=g._dtype, device=g.device)


class CopysignBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        ga = (g * (E.sign(x) * E.sign(out))).sum_to_size(self.shapes[0]) if self.needs_input_grad(0) else None
        # PyTorch's zeros_like(other) reads other's saved sizes: row-major zeros of its shape
        gb = _zeros(self.shapes[1], g) if self.needs_input_grad(1) else None
        return ga, gb


class CopysignBackward1(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        return g * (E.sign(x) * E.sign(out))


def copysign(input, other):
    """|input| with the sign bit of other; PyTorch's derivatives (input: grad * sign(input)
    * sign(result), 0 at input == 0; other: zero)."""
    import math
    from ..autograd.grad_mode import no_grad
    with no_grad():
        x = input if input._dtype.is_floating_point else input.to(D.get_default_dtype())
        if isinstance(other, Tensor):
            dt = E._result_type(input, other)
            if not dt.is_floating_point:
                dt = D.get_default_dtype()
            x = x.to(dt)
            a = E.abs(x)
            res = E.where(signbit(other), -a, a)
        else:
            a = E.abs(x)
            res = -a if math.copysign(1.0, other) < 0 else a.clone()
    if isinstance(other, Tensor):
        if needs_grad(input, other):
            record(CopysignBackward0, (input, other), (res,),
                   shapes=(tuple(input.shape), tuple(other.shape))).save(input, res, outputs=(res,))
    elif needs_grad(input):
        record(CopysignBackward1, (input,), (res,)).save(input, res, outputs=(res,))
    return res


def recorded(node_cls, inputs, compute, saves=(), **attrs):
    """compute() run unrecorded, its result given node_cls over the tensor `inputs` (one, or a
    tuple), which saves `saves`: an op PyTorch computes with one kernel and differentiates
    with its own formula, composed here from Tensor ops."""
    from ..autograd.grad_mode import no_grad
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    with no_grad():
        out = compute()
    if needs_grad(*inputs):
        node = record(node_cls, inputs, (out,), **attrs)
        if saves:
            node.save(*saves)
    return out


class Deg2RadBackward0(Node):
    """deg2rad_backward: grad * (pi / 180)."""
    factor = math.pi / 180.0

    def backward(self, g):
        return g * self.factor


class Rad2DegBackward0(Deg2RadBackward0):
    factor = 180.0 / math.pi


class FracBackward0(Node):
    def backward(self, g):
        return g


def deg2rad(input):
    x = input if input._dtype.is_floating_point else input.to(D.get_default_dtype())
    return recorded(Deg2RadBackward0, x, lambda: x * (math.pi / 180.0))


def rad2deg(input):
    x = input if input._dtype.is_floating_point else input.to(D.get_default_dtype())
    return recorded(Rad2DegBackward0, x, lambda: x * (180.0 / math.pi))


def frac(input):
    check_dtype("frac", input._dtype)
    return recorded(FracBackward0, input, lambda: input - E.trunc(input))


class FmodBackward0(Node):
    def backward(self, g):
        return g


class FmodBackward1(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g.sum_to_size(self.shapes[0]) if self.needs_input_grad(0) else None
        gb = None
        if self.needs_input_grad(1):
            gb = (-g * E.trunc(a / b)).sum_to_size(self.shapes[1])
        return ga, gb


def fmod(input, other):
    """C's fmod: the remainder of trunc division, with the sign of input (computed as
    sign(input) * remainder(|input|, |other|), exact; the sign bit's, so -0.0 gives -0.0 as
    C's fmod and PyTorch's); PyTorch's derivatives."""
    from ..autograd.grad_mode import no_grad
    dt = E._result_type(input, other)
    check_dtype("fmod", dt)
    if input._dtype is D.bool_:
        input = input.to(dt)            # (its 0/1 in the result's dtype: PyTorch computes there)
    if isinstance(other, Tensor) and other._dtype is D.bool_:
        other = other.to(dt)
    if not dt.is_floating_point:
        # integers: a - b * trunc(a / b), wrapping as C's integer arithmetic (the magnitudes'
        # remainder below does not serve them: |MIN| is MIN, so fmod(100, -128) in int8 was -28
        # where C's and PyTorch's is 100)
        with no_grad():
            return E.sub(input, E.mul(E.div(input, other, rounding_mode="trunc"), other))
    with no_grad():
        b = E.abs(other) if isinstance(other, Tensor) else abs(other)
        res = E.remainder(E.abs(input), b)
        res = E.where(signbit(input), -res, res)
        if res._dtype is not dt:
            res = res.to(dt)
    if not res._dtype.is_floating_point:
        return res
    if isinstance(other, Tensor):
        if needs_grad(input, other):
            node = record(FmodBackward1, (input, other), (res,), shapes=(tuple(input.shape), tuple(other.shape)))
            node.save(input, other)
    elif needs_grad(input):
        record(FmodBackward0, (input,), (res,))
    return res


def _check_floating(name, input, other):
    dt = E._result_type(input, other)
    refuse(f"{name}_cpu", dt, INTEGRAL)


class LogaddexpBackward0(Node):
    """PyTorch's derivatives: grad / (1 + exp(other - self)), grad / (1 + exp(self - other))."""

    def _exp(self, t):
        return E.exp(t)

    def backward(self, g):
        x, y = self.saved_tensors
        gx = g / (1 + self._exp(y - x)) if self.needs_input_grad(0) else None
        gy = g / (1 + self._exp(x - y)) if self.needs_input_grad(1) else None
        return gx, gy


class Logaddexp2Backward0(LogaddexpBackward0):
    """... with pow(2, other - self) for exp."""

    def _exp(self, t):
        return E.pow(2, t)


def _logaddexp(name, node_cls, input, other, exp, inv_scale):
    _check_floating(name, input, other)

    dt = E._result_type(input, other)

    # (float16: in float32, rounded once, as PyTorch's kernel computes Half in its opmath type)
    compute_dt = D.float32 if dt in (D.float16, D.bfloat16) else dt

    def compute():          # PyTorch's kernel: a == b infinite gives a, else max + log1p(exp(-|a - b|))
        # each operand in the common dtype first (a float64 0-dim one rounded to float16 too),
        # then in the one computed in (a bool operand: its 0/1 as floats)
        a, b = (t if t.dtype is compute_dt else t.to(dt).to(compute_dt) for t in (input, other))
        out = E.maximum(a, b) + E.log1p(exp(-E.abs(a - b))) * inv_scale
        out = E.where(E.isinf(a) & (a == b), a, out)
        return out if compute_dt is dt else out.to(dt)
    return recorded(node_cls, (input, other), compute, saves=(input, other))


def logaddexp(input, other):
    return _logaddexp("logaddexp", LogaddexpBackward0, input, other, E.exp, 1.0)


def logaddexp2(input, other):
    import math
    return _logaddexp("logaddexp2", Logaddexp2Backward0, input, other, E.exp2, 1.0 / math.log(2.0))  # (inv_log_2)


def matrix_power(input, n):
    n = as_symint(n, "matrix_power", "n", 2)        # (by value: `n >>= 1` on a tensor rewrote it)
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2]} by {input.shape[-1]} matrices")
    if n == 0:
        from .._creation import eye
        from ..autograd.grad_mode import no_grad
        from .._creation import ones
        with no_grad():
            identity = eye(input.shape[-1], dtype=input.dtype, device=input.device)
        # the identity, with input's history (its gradient is zero), as PyTorch's copy_
        return renamed(E.where(ones((), dtype=D.bool_, device=input.device), identity, input), "CopyBackwards")
    if n == -1:
        from .linalg_decomp import inverse
        return inverse(input)
    if n < 0:
        from .linalg_decomp import inverse
        input, n = inverse(input), -n
    if n == 1:
        return input.clone()
    if n == 3:          # PyTorch's fast path: (A A) A
        return input.matmul(input).matmul(input)
    result, base = None, input
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


def _split_along(name, input, indices_or_sections, dim, min_dim):
    if isinstance(indices_or_sections, Tensor):
        # PyTorch's parser: a 0-dim integer tensor is the int sections; a one-element tensor
        # (a bool one too) the index list of one (Tensor.hsplit's *indices; the function's
        # int[] would refuse it); anything else no overload takes
        t = indices_or_sections
        if is_integer_tensor(t):
            indices_or_sections = int(t)
        elif t.numel() == 1 and not t._dtype.is_floating_point:
            indices_or_sections = [int(t)]
        else:
            from ._argument_check import argument_error
            raise argument_error(name, (input, t), {}) or TypeError(f"{name}(): a tensor of {t.numel()} elements "
                                                                      "is neither sections nor indices")
    elif isinstance(indices_or_sections, (tuple, list)):
        # (an int list, not a SymInt one: a bool tensor in it is its 0 or 1, for tensor_split too)
        indices_or_sections = [_list_element(v) for v in indices_or_sections]
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
    return input.tensor_split(indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def _split_method(fn):
    """Tensor.hsplit & co.: PyTorch's `hsplit(IntArrayRef indices)` also takes the indices as
    positional arguments (x.vsplit(1, 1)), and each by its keyword (sections=, indices=)."""
    def method(self, *args, **kwargs):
        if kwargs or not args:
            from ._argument_check import given_by_keyword
            args = given_by_keyword(fn.__name__, args, kwargs)
        return fn(self, args if len(args) > 1 else args[0])
    method.__name__ = fn.__name__
    return method


hsplit_method, vsplit_method, dsplit_method = _split_method(hsplit), _split_method(vsplit), _split_method(dsplit)


# ---------------------------------------------------------------- scans
def _prefix(x, d):
    """x with dim d moved last, as (..., L, L): row i holds x[0..L) with positions j > i
    masked; and the mask (j <= i)."""
    y = x.movedim(d, -1)
    n = y.shape[-1]
    r = _arange(n, x.device)
    mask = r.unsqueeze(0) <= r.unsqueeze(1)           # [i, j]: j <= i
    rows = y.unsqueeze(-2).expand(tuple(y.shape[:-1]) + (n, n))
    return rows, mask, r


def _cumext(name, node, input, dim, larger):
    from ..autograd.grad_mode import no_grad
    from .reduction import ReductionResult
    if input.numel() == 0:
        # (PyTorch returns an empty input's empty results before it reads the dim)
        from .._creation import empty
        return ReductionResult(renamed(input.clone(), node), empty(input.shape, dtype=D.int64, device=input.device),
                               name)
    d = wrap_dim(dim, input.dim())
    x = input if input.dim() else input.reshape(1)
    with no_grad():
        if x.shape[d] == 0:
            idx = x.to(D.int64)
        else:
            rows, mask, r = _prefix(x, d)
            first = rows.narrow(-1, 0, 1)
            cand = E.where(mask, rows, first)
            best = cand.amax(-1, keepdim=True) if larger else cand.amin(-1, keepdim=True)
            hit = mask & ((cand == best) | (E.isnan(cand) & E.isnan(best)))
            from .._creation import full
            idx = E.where(hit, r, full((), -1, dtype=D.int64, device=x.device)).amax(-1)
            idx = idx.movedim(-1, d).contiguous()
    values = renamed(x.gather(d, idx), node)
    if input.dim() == 0:
        values, idx = values.reshape(()), idx.reshape(())
    return ReductionResult(values, idx, name)


def cummax(input, dim):
    return _cumext("cummax", "CummaxBackward0", input, dim, True)


def cummin(input, dim):
    return _cumext("cummin", "CumminBackward0", input, dim, False)


def logcumsumexp(input, dim):
    d = wrap_dim(dim, input.dim())          # (the dim first: PyTorch wraps it before the kernel's dtype)
    check_dtype("logcumsumexp", input._dtype)
    from .composite import one_node
    return one_node("LogcumsumexpBackward0", lambda x: _logcumsumexp(x, d), input)


def _logcumsumexp(input, d):
    x = input if input.dim() else input.reshape(1)
    if x.shape[d] == 0:
        return x.clone()
    rows, mask, _ = _prefix(x, d)
    out = E.where(mask, rows, float("-inf")).logsumexp(-1).movedim(-1, d)
    out = out.contiguous() if d != x.dim() - 1 else out
    if input.dim() == 0:
        out = out.reshape(())
    return out


# ---------------------------------------------------------------- unfold (a strided view)
def unfold(input, dimension, size, step):
    """Tensor.unfold: every `size`-long window of `dimension`, `step` apart, as a new last
    dimension of a view (PyTorch's UnfoldBackward0 sums the overlapping windows back)."""
    nd = input.dim()
    d = wrap_dim(dimension, nd) if nd else 0
    if nd and not (0 <= d < nd):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dimension})")
    length = input.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, stride = list(input.shape), list(input.stride())
    inner = stride[d] if nd else 1
    if nd:
        shape[d] = (length - size) // step + 1
        stride[d] = inner * step
    out = input.as_strided(tuple(shape) + (size,), tuple(stride) + (inner,), input.storage_offset())
    return renamed(out, "UnfoldBackward0")


# ---------------------------------------------------------------- order statistics (sort-based)
class _EvenlyDistributed(Node):
    """median()/nanmedian() of all elements: the gradient shared evenly by the elements equal
    to the result (PyTorch's evenly_distribute_backward)."""

    def backward(self, g):
        (mask,) = self.saved_tensors
        return E.where(mask, g / mask.sum(), 0.0)


MedianBackward0 = type("MedianBackward0", (_EvenlyDistributed,), {})
NanmedianBackward0 = type("NanmedianBackward0", (_EvenlyDistributed,), {})


def _median_all(input, ignore_nan):
    from ..autograd.grad_mode import no_grad
    from .._creation import full
    with no_grad():
        flat = input.reshape(-1)
        n = flat.shape[0]
        if n == 0:
            # PyTorch fills NaN, cast as its CPU cast does (int64: -2**63, int8: 0, bool: True),
            # and records its node all the same (an empty gradient)
            value = full((), float("nan"), dtype=D.float64, device=input.device).to(input.dtype)
            mask = flat != flat if input._dtype.is_floating_point else flat.bool()
        else:
            value, mask = _median_value(input, flat, n, ignore_nan)
    if needs_grad(input):
        node = record(NanmedianBackward0 if ignore_nan else MedianBackward0, (input,), (value,))
        node.save(mask.reshape(input.shape))
    return value


def _median_value(input, flat, n, ignore_nan):
    """(the median of flat's n > 0 elements, the mask of the elements equal to it)."""
    check_dtype("median", input._dtype)
    s = flat.sort().values
    nans = int(E.isnan(flat).sum().item()) if input._dtype.is_floating_point else 0
    if ignore_nan:
        k = n - nans
        pos = (k - 1) // 2 if k else 0
    else:
        pos = n - nans if nans else (n - 1) // 2
    value = s[pos].clone()
    mask = (flat == value) | (E.isnan(flat) & E.isnan(value)) if input._dtype.is_floating_point \
        else flat == value
    return value, mask


def _select(name, node, input, dim, keepdim, pos_of, order="stable", k=0):
    """(values, indices) of the element at sorted position pos_of(n, nan count) along dim,
    of x sorted stably or arranged as `order` (ops/sorting.py tie_order) says."""
    from ..autograd.grad_mode import no_grad
    from .reduction import ReductionResult
    from .sorting import _sorted
    d = wrap_dim(dim, input.dim())
    x = input if input.dim() else input.reshape(1)
    with no_grad():
        order = _sorted(x, d, False, name, order, k)[1]
        if x._dtype.is_floating_point:
            nans = E.isnan(x).sum(d, keepdim=True)
        else:
            from .._creation import zeros
            nans = zeros(tuple(1 if i == d else n for i, n in enumerate(x.shape)), dtype=D.int64, device=x.device)
        pos = pos_of(x.shape[d], nans)
        idx = order.gather(d, pos)
    return _selected(name, node, input, x, d, idx, keepdim)


_SELECTING_NODES = {}


def _selected(name, node, input, x, d, idx, keepdim):
    """(values, indices): x gathered at idx along d (squeezed unless keepdim), under one node
    named `node` from input to the values, as ATen's value_selecting_reduction_backward (the
    gradient scattered into zeros at the indices; the indices returned are the ones saved)."""
    from ..autograd.grad_mode import no_grad
    from .reduction import ReductionResult, _DimExtremumBackward
    with no_grad():
        values = x.gather(d, idx)
        if not keepdim or input.dim() == 0:
            values, idx = values.squeeze(d), idx.squeeze(d)
    if needs_grad(input):
        cls = _SELECTING_NODES.get(node)
        if cls is None:
            cls = _SELECTING_NODES[node] = type(node, (_DimExtremumBackward,), {"__module__": __name__})
            _saved_names.install_class(cls)
        dim, kept = (0, True) if input.dim() == 0 else (d, keepdim)
        record(cls, (input,), (values, None), shape=input._shape, dim=dim, keepdim=kept).save(idx)
    return ReductionResult(values, idx, name)


def _check_nonempty(name, input, dim):
    d = wrap_dim(dim, input.dim())
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def median(input, dim=None, keepdim=False):
    if dim is None:
        return _median_all(input, False)
    _check_nonempty("median", input, dim)
    refuse("median_out", input._dtype, BOOL)

    def pos(n, nans):
        return E.where(nans > 0, n - nans, (n - 1) // 2)
    return _select("median", "MedianBackward1", input, dim, keepdim, pos)


def nanmedian(input, dim=None, keepdim=False):
    if dim is None:
        return _median_all(input, True)
    _check_nonempty("median", input, dim)          # (PyTorch's words for nanmedian too)
    refuse("median_out", input._dtype, BOOL)

    def pos(n, nans):
        k = n - nans
        return E.where(k > 0, E.floor_divide(k - 1, 2), 0 * k)
    return _select("nanmedian", "NanmedianBackward1", input, dim, keepdim, pos)


def kthvalue(input, k, dim=-1, keepdim=False):
    _check_nonempty("kthvalue", input, dim)
    d = wrap_dim(dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.dim():
        refuse("kthvalue_cpu", input._dtype, BOOL)      # (a 0-dim tensor's is no kernel call)

    def pos(n, nans):
        return nans * 0 + (k - 1)
    from .sorting import tie_order
    # PyTorch's CPU kthvalue: its quickselect leaves the k-th at position k - 1
    return _select("kthvalue", "KthvalueBackward0", input, dim, keepdim, pos, tie_order(input, "kth"), k)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones) and an index
    of it: on the CPU the one PyTorch's kernel gives (tie_order), elsewhere the last."""
    from ..autograd.grad_mode import no_grad
    from .reduction import ReductionResult
    d = wrap_dim(dim, input.dim())
    x = input if input.dim() else input.reshape(1)
    _check_nonempty("mode", x, d)
    from .sorting import _sorted, tie_order
    with no_grad():
        if tie_order(x, "mode") == "mode":
            # PyTorch's CPU kernel: std::sort of (value, index) pairs by value, the first
            # longest run, the index at its end (the arrangement puts it at position 0)
            idx = _sorted(x, d, False, "mode", "mode")[1].narrow(d, 0, 1).contiguous()
        else:
            y = x.movedim(d, -1)
            counts = (y.unsqueeze(-1) == y.unsqueeze(-2)).sum(-1)              # [.., i]: how many equal y[i]
            top = counts.amax(-1, keepdim=True)
            big = y.amax(-1, keepdim=True)
            value = E.where(counts == top, y, big).amin(-1, keepdim=True)
            n = y.shape[-1]
            from .._creation import full
            idx = E.where(y == value, _arange(n, x.device), full((), -1, dtype=D.int64, device=x.device))
            idx = idx.amax(-1, keepdim=True).movedim(-1, d).contiguous()
    return _selected("mode", "ModeBackward0", input, x, d, idx, keepdim)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    from ..autograd.grad_mode import no_grad
    from .._creation import tensor as _tensor
    scalar_q = not isinstance(q, Tensor)
    # ATen's order: the double-q overload's range (a NaN fails it), the interpolation's name, then
    # quantile_checks (a non-empty input, q's rank, the input's dtype, q's), the dim, q's values
    if scalar_q and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if not scalar_q and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if not input._dtype.is_floating_point or input._dtype in (D.float16, D.bfloat16):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    qt = _tensor([q] if scalar_q else q, dtype=input.dtype, device=input.device) if scalar_q else q
    if qt._dtype is not input._dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    qv = qt.reshape(-1)
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = wrap_dim(dim, input.dim())
        x = input if input.dim() else input.reshape(1)
    with no_grad():         # (a tensor q's values after the dim: ATen's order; NaN is out of range)
        if qv.numel() and not bool(((qv >= 0) & (qv <= 1)).all()):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    y = x.movedim(d, -1)                                  # (..., n)
    n = y.shape[-1]
    s = y.sort(-1).values                                 # NaN last; differentiable (SortBackward0)
    with no_grad():
        nans = E.isnan(y).sum(-1, keepdim=True).to(input.dtype)  # (..., 1)
        last = (n - nans - 1) if ignore_nan else (nans * 0 + (n - 1))
    # ATen's ranks, gradient included: q's flows through the linear weights (ranks -
    # floor(ranks)), d out / d q = (above - below) * last index, 0 where the rank was set (a NaN
    # in quantile's row: the last index; an all-NaN row in nanquantile's: 0, whose value is NaN)
    ranks = qv * last                                     # (..., k)
    ranks = E.where(nans > 0, float(n - 1), ranks) if not ignore_nan else E.where(ranks < 0, 0.0, ranks)
    with no_grad():
        if interpolation == "lower":
            ranks = E.floor(ranks)
        elif interpolation == "higher":
            ranks = E.ceil(ranks)
        elif interpolation == "nearest":
            ranks = E.round(ranks)
        below = E.floor(ranks).to(D.int64)
        above = E.ceil(ranks).to(D.int64)
    weights = ranks - below.to(input.dtype) if interpolation == "linear" else None
    lo = s.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        hi = s.gather(-1, above)
        out = E.lerp(lo, hi, weights if interpolation == "linear" else 0.5)
    else:
        out = lo
    out = out.movedim(-1, 0)                                  # (k, ...)
    if dim is not None and keepdim:
        out = out.unsqueeze(d + 1)
    elif dim is None and keepdim:
        out = out.reshape((out.shape[0],) + (1,) * input.dim())
    if scalar_q or qt.dim() == 0:
        out = out.squeeze(0)
    return renamed(out, "SqueezeBackward4")


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ---------------------------------------------------------------- random sampling
class BernoulliBackward0(Node):
    def backward(self, g):
        return zeros_grad(g)


def bernoulli(input, p=None, *, generator=None):
    """0/1 draws with probabilities input (or p), in input's dtype, from nbgrad's random
    stream (reproducible under manual_seed; not PyTorch's bits)."""
    from ..autograd.grad_mode import no_grad
    from .._creation import rand_like
    if p is None:
        check_dtype("bernoulli_p", input._dtype)
    with no_grad():
        prob = input if p is None else p
        if isinstance(prob, Tensor) and prob.numel() and bool(((prob < 0) | (prob > 1)).any()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        if not isinstance(prob, Tensor) and not 0 <= prob <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={prob}")
        u = rand_like(input, dtype=input.dtype if input._dtype.is_floating_point else D.float32)
        out = (u < prob).to(input._dtype)
    if needs_grad(input):
        record(BernoulliBackward0, (input,), (out,))
    return out


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the rows of input (unnormalised weights): with replacement by
    inverting the cumulative distribution, without by the Gumbel top-k trick."""
    from ..autograd.grad_mode import no_grad
    from .._creation import rand
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input._dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{D.scalar_type_name(input._dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n = input.shape[-1]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    with no_grad():
        p = input.reshape(-1, n).to(D.float64)
        if bool((E.isnan(p) | E.isinf(p) | (p < 0)).any()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        total = p.sum(-1, keepdim=True)
        if bool((total <= 0).any()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rows = p.shape[0]
        if replacement:
            cdf = (p / total).cumsum(-1)
            u = rand(rows, num_samples, dtype=D.float64, device=input.device)
            # the first category whose cumulative probability exceeds u (never a zero-weight one)
            idx = (u.unsqueeze(-1) >= cdf.unsqueeze(-2)).sum(-1)
            positive = p > 0
            last = E.where(positive, _arange(n, input.device), -1).amax(-1, keepdim=True)
            idx = E.minimum(idx, last)
        else:
            if bool(((p > 0).sum(-1) < num_samples).any()):
                raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough "
                                   "non-negative category to sample)")
            u = rand(rows, n, dtype=D.float64, device=input.device)
            keys = E.where(p > 0, E.log(u) / p, float("-inf"))
            idx = keys.topk(num_samples, -1).indices
        return idx.reshape(tuple(input.shape[:-1]) + (num_samples,)).to(D.int64)


# ---------------------------------------------------------------- std_mean / var_mean
def _stat_mean(name, stat, node, input, dim, unbiased, keepdim, correction):
    from . import reduction as R
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    # (PyTorch's std_mean/var_mean take Welford's path even to one value: no std_var_all_cpu)
    s = stat(input, dim, unbiased, keepdim, correction, one_value_path=False)
    d, _ = R._var_args(name, dim, unbiased, keepdim, correction)
    m = R.mean(input, d, keepdim)
    # (PyTorch records one node for both outputs; here each has its own, under its name)
    return renamed(s, node), renamed(m, node)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    from .reduction import deviation
    return _stat_mean("std_mean", deviation, "StdMeanBackward0", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    from .reduction import variance
    return _stat_mean("var_mean", variance, "VarMeanBackward0", input, dim, unbiased, keepdim, correction)


# -- searchsorted / bucketize, msort, cartesian_prod ----------------------------------------------
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Indices where `input`'s values would go in `sorted_sequence` (its last dim), found by
    PyTorch's binary search step for step (lower bound: the first position whose value is not
    below; right/side='right': not at or below), over all values at once."""
    from ..autograd.grad_mode import no_grad
    from .._creation import tensor as _tensor, zeros
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:          # (ATen's searchsorted_pre_check, in its order)
        if tuple(sorter.shape) != tuple(seq.shape):
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq.shape)}and got sorter tensor {list(sorter.shape)}")
        if sorter._dtype is not D.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{D.scalar_type_name(sorter._dtype)}")
        if sorter.numel() and (int(sorter.min().item()) < 0 or int(sorter.max().item()) >= sorter.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if seq.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    v = input if isinstance(input, Tensor) else _tensor(input, device=seq.device)
    if seq.dim() > 1 and (v.dim() != seq.dim() or tuple(v.shape[:-1]) != tuple(seq.shape[:-1])):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}")
    if seq._dtype is D.bool_ and v.numel():     # (its dispatch, after the shapes; no values: none)
        check_dtype("searchsorted", v._dtype)
    n = seq.shape[-1]
    with no_grad():
        dt = D.result_type_of((seq, v))
        s = (seq if sorter is None else seq.gather(-1, sorter)).to(dt)
        w = v.to(dt)
        if seq.dim() > 1:
            # (the row counts spelled out: -1 is ambiguous for no elements)
            rows = math.prod(seq.shape[:-1])
            s, w = s.reshape(rows, n), w.reshape(rows, w.shape[-1] if w.dim() else 1)
        start = zeros(tuple(w.shape), dtype=D.int64, device=seq.device)
        end = start + n
        while n and bool((start < end).any()):
            active = start < end
            mid = start + (end - start) // 2          # (nonnegative: the shift PyTorch uses)
            at = mid.clamp(max=n - 1)
            mid_val = s[at] if seq.dim() == 1 else s.gather(-1, at)
            go_right = ~(mid_val > w) if right else ~(mid_val >= w)
            start = E.where(active & go_right, mid + 1, start)
            end = E.where(active & ~go_right, mid, end)
        result = start.reshape(tuple(v.shape))
    return result.to(D.int32) if out_int32 else result


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """searchsorted(boundaries, input) for 1-D boundaries."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def msort(input):
    """input sorted along its first dim (the values of sort(input, 0))."""
    from .sorting import sort
    return sort(input, 0).values


def cartesian_prod(*tensors):
    """Every combination of the 1-D tensors' elements, one per row (a single tensor: itself)."""
    from .indexing import stack, tensor_list
    from .rearranging import meshgrid
    tensor_list("cartesian_prod", tensors)      # (PyTorch's Python passes them to its op as one list)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)
