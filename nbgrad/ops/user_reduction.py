"""nbgrad.reduction: a reduction over any dims by a user's scalar combine function.

    def logaddexp(acc, v):
        m = max(acc, v)
        return m + math.log(math.exp(acc - m) + math.exp(v - m))

    lse = nbgrad.reduction(logaddexp, -math.inf,
                           grad=lambda x, out: math.exp(x - out))   # d out / d x, elementwise
    lse(x, dim=1, keepdim=True)

`combine(acc, value)` folds each reduced row from `identity`, in the elements' order
(compiled by Numba on the CPU; CUDA stages through host memory).  The result has the
input's dtype.  A gradient exists where the user gives it: `grad(x, out)`, a scalar
function (an `nbgrad.elementwise` op, so traced and differentiable again) giving
d out / d x for each element from its value and its row's result; the incoming
gradient multiplies it.  Without `grad`, a backward through the op raises, naming it.
The node is `<Name>Backward` (from the combine function's name, or name=).
"""
import math

from .._size import Size
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, new_tensor, record
from .user_elementwise import _node_name, elementwise


class ReductionBackward(Node):
    """The node of a user reduction; subclassed per reduction for its name."""

    reduction = None

    def backward(self, g):
        red = self.reduction
        x, out = self.saved_tensors
        if red.grad is None:
            raise RuntimeError(f"reduction '{red.name}' has no gradient: pass grad=(x, out) -> d out / d x "
                               "to nbgrad.reduction")
        if not self.keepdim:
            for d in self.dims:
                g = g.unsqueeze(d)
                out = out.unsqueeze(d)
        return g * red.grad(x, out)


class Reduction:
    """A user reduction (see this module's docstring); call it as fn(x, dim=None, keepdim=False)."""

    def __init__(self, combine, identity, *, grad=None, name=None):
        self.combine = combine
        self.identity = identity
        self.name = name or getattr(combine, "__name__", "reduction")
        self.grad = None if grad is None else elementwise(grad, name=f"{self.name}_grad")
        self.node_class = type(_node_name(self.name), (ReductionBackward,),
                               {"reduction": self, "__module__": __name__})
        self.__name__ = self.name

    def __repr__(self):
        return f"<nbgrad.reduction '{self.name}'>"

    def __call__(self, x, dim=None, keepdim=False):
        if not isinstance(x, Tensor):
            raise TypeError(f"{self.name}(): argument 'input' must be Tensor, not {type(x).__name__}")
        ndim = x.dim()
        if dim is None:
            dims = tuple(range(ndim))
        else:
            dims = tuple(sorted({x._wrap_dim(d) for d in ((dim,) if isinstance(dim, int) else dim)}))
            if len(dims) != len((dim,) if isinstance(dim, int) else tuple(dim)):
                raise RuntimeError(f"{self.name}(): dim appears multiple times in the list of dims")
        kept = tuple(d for d in range(ndim) if d not in dims)
        shape = x.shape
        m = math.prod(shape[d] for d in kept)
        k = math.prod(shape[d] for d in dims)
        with no_grad():
            rows = x.permute(*(kept + dims)).contiguous().reshape(m, k) if ndim else x.reshape(1, 1)
        be = backend_of(x)
        try:
            buf = be.user_reduce(self.combine, rows._view_tuple(), self.identity, x.dtype.np)
        except Exception as exc:
            raise RuntimeError(f"reduction '{self.name}': the combine function raised "
                               f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}") \
                from exc
        out_shape = tuple(1 if d in dims else shape[d] for d in range(ndim)) if keepdim else \
            tuple(shape[d] for d in kept)
        out = new_tensor(buf, Size(out_shape), x.dtype, x.device)
        if x.dtype.is_floating_point and needs_grad(x):
            node = record(self.node_class, (x,), (out,), dims=dims, keepdim=keepdim)
            node.save(x, out, outputs=(out,))
        return out


def reduction(combine, identity, *, grad=None, name=None):
    """A reduction by a user's scalar combine(acc, value) from identity, over any dims with
    keepdim; grad(x, out) (d out / d x) makes it differentiable.  See nbgrad/ops/user_reduction.py."""
    return Reduction(combine, identity, grad=grad, name=name)
