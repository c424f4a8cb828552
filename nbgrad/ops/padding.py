"""F.pad: constant padding of the last dims (negative amounts crop), reflect, replicate, circular.

Constant padding is one buffer filled with the value and the input copied into its
interior (PyTorch's constant_pad_nd); its backward is the same op with the amounts
negated, so that it is differentiable again (ConstantPadNdBackward0 all the way).
Reflect and replicate index the input with one gathered index per padded dim, computed
unrecorded and recorded as PyTorch's one node ({Reflection,Replication}Pad{1,2,3}DBackward0,
saving self; its backward adds each padded position back with index_add_, and under
create_graph is the ...BackwardBackward0 node whose own backward is the pad).  Circular is
PyTorch's _pad_circular op for op: copies into slices of a new tensor (CopySlices).
"""
from .._tensor import Tensor
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, new_tensor, numel, record
from . import views as V


class ConstantPadNdBackward0(Node):
    def backward(self, g):
        return constant_pad_nd(g, [-p for p in self.pad])


def _check_pad(x, pad):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {x.dim()}")


def constant_pad_nd(x, pad, value=0):
    pad = [int(p) for p in pad]
    _check_pad(x, pad)
    k = len(pad) // 2
    shape = list(x._shape)
    src = x
    for i in range(k):
        d = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        new = shape[d] + lo + hi
        if new < 0 or shape[d] + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        # crop first (negative amounts)
        start, stop = max(-lo, 0), shape[d] - max(-hi, 0)
        if start or stop != shape[d]:
            src = V.make_view(src, src._shape[:d] + (max(stop - start, 0),) + src._shape[d + 1:], src._stride,
                              src._offset + start * src._stride[d])
        shape[d] = new
    out_shape = tuple(shape)
    be = backend_of(x)
    buf = be.full(numel(out_shape), x._dtype.np, value)
    out = new_tensor(buf, out_shape, x._dtype, x.device)
    if src.numel():
        ostride = out._stride
        off = sum(max(pad[2 * i], 0) * ostride[x.dim() - 1 - i] for i in range(k))
        be.copy(src._view_tuple(), (buf, off, src._shape, ostride))
    if needs_grad(x):
        record(ConstantPadNdBackward0, (x,), (out,), pad=tuple(pad))
    return out


def _edge_index(n, lo, hi, mode, device):
    """int64 indices into a dim of size n for its padded positions (reflect or replicate)."""
    from .._creation import arange
    from .. import _dtype as D
    i = arange(-lo, n + hi, dtype=D.int64, device=device)
    if mode == "replicate":
        return i.clamp(0, n - 1)
    if mode == "circular":
        # PyTorch crops first (negative amounts), then wraps around what is left
        c0 = max(-lo, 0)
        return (i - c0) % (n - c0 - max(-hi, 0)) + c0
    period = 2 * (n - 1)
    j = (i % period) if period else i * 0
    return (period - j).minimum(j) if period else j


def _pad_amounts(pad):
    """F.pad's amounts as its op's parser reads a SymInt[] (also where nbgrad's own ops call pad:
    local_response_norm's float size is this TypeError, as in PyTorch's Python)."""
    if all(p.__class__ is int for p in pad):
        return tuple(pad)
    from .._checks import int_tuple
    return int_tuple(tuple(pad), "pad", "pad", 2)


def pad(input, pad, mode="constant", value=None):
    """PyTorch's F.pad: `pad` lists (left, right) amounts from the last dim backwards."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    pad = _pad_amounts(pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    _check_pad(input, pad)
    k = len(pad) // 2
    if not 1 <= k <= 3 or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode != "circular" and 0 in input._shape[1 if input.dim() == k + 2 else 0:]:
        # (reflection and replication pads take an empty batch only)
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input._shape)}")
    sizes = list(input._shape)
    for i in range(k):
        sizes[input.dim() - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    if mode != "circular":
        # PyTorch's checks of the output size (negative amounts crop)
        if k == 1 and sizes[-1] <= 0:
            raise RuntimeError(f"input (W: {input._shape[-1]}) is too small. Calculated output W: {sizes[-1]}")
        if min(sizes) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {sizes}")
    out = input
    steps = []          # (dim, index, size before) of each padded dim, in order
    for i in range(k):
        d = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = input._shape[d]
        if mode == "circular":
            if n + lo + hi < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
            # PyTorch checks the amounts against n; after a crop on the other side it wraps
            # around what is left, and an amount beyond that copies memory it has not
            # written yet (uninitialised values): refused here as wrapping more than once
            if max(lo, hi) > min(n, n + min(lo, 0) + min(hi, 0)):
                raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({lo}, {hi}) at dimension {d} of input {list(input._shape)}")
        if lo or hi:
            steps.append((d, _edge_index(n, lo, hi, mode, input.device), n))
    if mode == "circular":
        return _pad_circular(input, pad, sizes)
    # reflect and replicate: PyTorch's one kernel and one node, whose backward is the
    # *_backward kernel (a node of its own under create_graph)
    from ..autograd.grad_mode import no_grad
    with no_grad():
        for d, index, _ in steps:
            out = out.index_select(d, index)
        if not steps:
            out = input.clone()     # (no amount: still a new tensor, as PyTorch's kernel's)
    if needs_grad(input):
        name = f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{k}D"
        record(_EDGE_PAD_NODES[name], (input,), (out,), steps=tuple(steps), pad=pad, mode=mode).save(input)
    return out


def _pad_circular(x, pad, out_shape):
    """PyTorch's _pad_circular, op for op (so its graph is theirs: CopySlices of the copies
    into slices of a new tensor): x's kept part copied into the middle, then per padded dim
    the left pad from the right end of what is written and the right pad from its left."""
    k = len(pad) // 2
    out = x.new_empty(tuple(out_shape))
    out_slice, in_slice = out, x
    for i in range(k):
        d = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_slice = V.narrow(out_slice, d, max(lo, 0), out_shape[d] - max(lo, 0) - max(hi, 0))
        in_slice = V.narrow(in_slice, d, max(-lo, 0), x._shape[d] - max(-lo, 0) - max(-hi, 0))
    out_slice.copy_(in_slice)
    for i in range(k):
        d = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = out_shape[d]
        if lo > 0:
            V.narrow(out, d, 0, lo).copy_(V.narrow(out, d, n - lo - max(hi, 0), lo))
        if hi > 0:
            V.narrow(out, d, n - hi, hi).copy_(V.narrow(out, d, max(lo, 0), hi))
    return out


class _EdgePadBackward(Node):
    """ReflectionPad{1,2,3}DBackward0 / ReplicationPad...: each padded position's gradient
    added back to the element it copied (index_add_ per dim, last padded dim first)."""

    def backward(self, g):
        x, = self.saved_tensors
        from ..autograd.grad_mode import no_grad
        with no_grad():
            grad = _edge_pad_backward_raw(g, self.steps)
        if needs_grad(g, x):        # create_graph: PyTorch's ..._backward node over (grad, self)
            record(self.double_cls, (g, x), (grad,), pad=self.pad, mode=self.mode, x_shape=tuple(x._shape))
        return grad


def _edge_pad_backward_raw(g, steps):
    from .._creation import zeros
    for d, index, n in reversed(steps):
        shape = list(g._shape)
        shape[d] = n
        g = zeros(shape, dtype=g._dtype, device=g.device).index_add_(d, index, g)
    return g


class _EdgePadBackwardBackward(Node):
    """d(the pad backward)/d(grad) is the pad itself; d/d(self) is zero (zeros_like(self))."""

    def backward(self, gg):
        from .._creation import zeros
        g_grad = pad(gg, self.pad, self.mode) if self.needs_input_grad(0) else None
        g_self = zeros(self.x_shape, dtype=gg._dtype, device=gg.device) if self.needs_input_grad(1) else None
        return g_grad, g_self


_EDGE_PAD_NODES = {}
for _mode in ("Reflection", "Replication"):
    for _k in (1, 2, 3):
        _name = f"{_mode}Pad{_k}D"
        _double = type(_name + "BackwardBackward0", (_EdgePadBackwardBackward,), {"__module__": __name__})
        _EDGE_PAD_NODES[_name] = type(_name + "Backward0", (_EdgePadBackward,),
                                      {"__module__": __name__, "double_cls": _double})
