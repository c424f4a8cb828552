"""More of PyTorch's functions and Tensor methods (issue 14), composed from the existing
differentiable ops: their gradients and both devices come with them.  Where a user sees a
backward node (grad_fn), its name is PyTorch's."""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import needs_grad, record
from ..autograd.node import Node
from ._graph import zeros_grad
from . import elementwise as E


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
