"""glu: the first half of the input along dim times the sigmoid of its second half, with
PyTorch's nodes: GluBackward0, and under create_graph GluBackwardBackward0, whose
derivatives are FunctionsManual.cpp's glu_double_backward(_grad_output), composed."""
from ..autograd.grad_mode import no_grad
from ..autograd.node import Node
from ._graph import needs_grad, record
from .indexing import cat
from ._dtype_rules import check as check_dtype


def _halves(t, dim):
    n = t.shape[dim] // 2
    return t.narrow(dim, 0, n), t.narrow(dim, n, n)


def glu(input, dim=-1):
    if input.dim() == 0:        # (PyTorch's Python, before its parser reads dim: ops/_signatures keeps it)
        error = RuntimeError("glu does not support scalars because halving size must be even")
        error.python_level = True
        raise error
    n = input.dim()
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    dim = dim % n
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {input.shape[dim]}")
    check_dtype("glu", input._dtype)
    with no_grad():
        a, b = _halves(input, dim)
        out = a * b.sigmoid()
    if needs_grad(input):
        record(GluBackward0, (input,), (out,), dim=dim).save(input)
    return out


class GluBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return glu_backward(grad, x, self.dim)


def glu_backward(grad, x, dim):
    """PyTorch's glu_backward kernel: sigmoid(b) * grad for the first half, (1 - s) * s * a *
    grad for the second; computed unrecorded, recorded as one node."""
    with no_grad():
        a, b = _halves(x, dim)
        s = b.sigmoid()
        out = cat([s * grad, (1 - s) * s * a * grad], dim)
    if needs_grad(grad, x):
        record(GluBackwardBackward0, (grad, x), (out,), dim=dim).save(grad, x)
    return out


class GluBackwardBackward0(Node):
    def backward(self, gg):
        g, x = self.saved_tensors
        d_g = _double_backward_grad_output(gg, x, self.dim) if self.needs_input_grad(0) else None
        d_x = _double_backward(gg, g, x, self.dim) if self.needs_input_grad(1) else None
        return d_g, d_x


def _double_backward_grad_output(gg, x, dim):
    from .._creation import ones
    sizes = list(x.shape)
    sizes[dim] //= 2
    tmp = gg * glu_backward(ones(sizes, dtype=x.dtype, device=x.device), x, dim)
    first, second = _halves(tmp, dim)
    return first + second


def _double_backward(gg, g, x, dim):
    a, b = _halves(x, dim)
    s = b.sigmoid()
    one_sub_s = 1 - s
    s_one_sub_s = s * one_sub_s
    gg_a, gg_b = _halves(gg, dim)
    gi_first = gg_b * g * s_one_sub_s
    second_order = s_one_sub_s * one_sub_s - s * s_one_sub_s
    gi_second = gg_b * a * g * second_order + gg_a * g * s_one_sub_s
    return cat([gi_first, gi_second], dim)
