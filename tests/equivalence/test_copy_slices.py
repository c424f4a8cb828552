"""CopySlices wraps the in-place op's node, as PyTorch's does.

After an in-place op on a view, the base's grad_fn is CopySlices.  In PyTorch it *wraps*
the op's node (MulBackward0 for `v.mul_(w)`): CopySlices' next edges are the base's old
history, then the op's edges after its first, and the op's node is not in the graph.  Its
backward copies the base's gradient (laid out as the base), gives the op's node the
gradient of the written window, and writes the op's gradient for the view's old value back
into that window.  Users see this in next_functions, in the layout of the base's gradient,
and in where a failing backward stops.  Every expected value was recorded from torch 2.13.
"""
import pytest

import nbgrad


def f64(values, requires_grad=True):
    return nbgrad.tensor(values, dtype=nbgrad.float64, requires_grad=requires_grad)


def tree(fn, depth=0):
    """The grad_fn graph below fn, as nested (name, children) pairs, three levels deep."""
    if fn is None:
        return None
    kids = [tree(f, depth + 1) for f, _ in fn.next_functions] if depth < 2 else []
    return (fn.name(), kids)


ACC = ("torch::autograd::AccumulateGrad", [])


def test_copy_slices_is_named_as_pytorch_names_it():
    base = f64([1.0, 2.0, 3.0, 4.0]) * 1
    base[1:3].mul_(2.0)
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    assert type(base.grad_fn).__name__ == "CopySlices"


def test_next_functions_are_the_base_history_then_the_op_edges_after_self():
    b0, w = f64([1.0, 2.0, 3.0, 4.0]), f64([5.0, 6.0])
    base = b0 * 1
    base[1:3].mul_(w)
    assert tree(base.grad_fn) == ("torch::autograd::CopySlices",
                                  [("MulBackward0", [ACC, None]), ACC])
    # the op's own node (MulBackward0 of the view) is not in the graph
    base = nbgrad.zeros(4, dtype=nbgrad.float64)
    base[1:3].add_(w)
    assert tree(base.grad_fn) == ("torch::autograd::CopySlices", [None, ACC])
    base = b0 * 1
    base[0:2].fill_(3.0)
    assert tree(base.grad_fn) == ("torch::autograd::CopySlices", [("MulBackward0", [ACC, None])])
    base = b0 * 1
    base[0:2].copy_(w)
    assert tree(base.grad_fn) == ("torch::autograd::CopySlices", [("MulBackward0", [ACC, None]), ACC])
    base = b0 * 1
    base[1] = w[0]
    assert tree(base.grad_fn) == ("torch::autograd::CopySlices",
                                  [("MulBackward0", [ACC, None]), ("SelectBackward0", [ACC])])
    base = b0 * 1
    base[1:3].exp_()
    assert tree(base.grad_fn) == ("torch::autograd::CopySlices", [("MulBackward0", [ACC, None])])
    # an in-place op on a view of a view, then on the outer view: CopySlices of CopySlices
    base = b0 * 1
    v = base[1:]
    v[::2].mul_(w)
    v.add_(2 * b0[:3])
    assert [f.name() for f, _ in base.grad_fn.next_functions] == ["torch::autograd::CopySlices", "MulBackward0"]


def test_the_base_gradient_is_laid_out_as_the_base():
    leaf = nbgrad.ones(3, 4, requires_grad=True)
    base = leaf.t() * 1                 # strides (1, 4)
    base[1].mul_(2.0)
    g = nbgrad.autograd.grad(base, leaf, nbgrad.ones(4, 3).t().contiguous().t())[0]
    assert g.stride() == (4, 1)         # torch: (4, 1); the window-mask formula gave (1, 3)
    assert g.tolist() == [[1.0, 2.0, 1.0, 1.0]] * 3


def test_a_failing_backward_stops_before_the_copied_leaf_as_in_pytorch():
    # seed 47034110: CopySlices' edges are (NotImplemented, AccumulateGrad of v7); both run
    # first by number, the error node is popped first, and v7's grad is never set
    v0 = f64([[-1.41, -1.18], [2.31, 3.08]])
    v6 = (v0 // v0).transpose(1, -2)
    v7 = f64([[-0.27, -0.55], [2.76, -1.12]])
    v6.copy_(v7)
    assert [type(f).__name__ for f, _ in (v6._base.grad_fn.next_functions)] == ["NotImplemented", "AccumulateGrad"]
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        v6.sum().backward(retain_graph=True)
    assert v7.grad is None


def test_gradients_through_the_wrapped_node():
    b0, w = f64([1.0, 2.0, 3.0, 4.0]), f64([5.0, 6.0])
    base = b0 * 1
    base[1:3].mul_(w)
    assert nbgrad.autograd.grad((base * base).sum(), [w])[0].tolist() == [40.0, 108.0]
    # double backward through CopySlices and the op it wraps
    base = b0 * b0
    base[1:3].mul_(w)
    gb, gw = nbgrad.autograd.grad((base ** 3).sum(), [b0, w], create_graph=True)
    assert gb.tolist() == [6.0, 24000.0, 314928.0, 6144.0] and gw.tolist() == [4800.0, 78732.0]
    hb, hw = nbgrad.autograd.grad((gb * gb).sum() + gw.sum(), [b0, w])
    assert hb.tolist() == [360.0, 2880014400.0, 330598974744.0, 94371840.0]
    assert hw.tolist() == [691201920.0, 99179671428.0]
    # a view of a view written twice
    base = b0 * 1
    v = base[1:]
    v[::2].mul_(w)
    v.add_(2 * b0[:3])
    gb, gw = nbgrad.autograd.grad((base ** 2).sum(), [b0, w])
    assert gb.tolist() == [50.0, 148.0, 134.0, 360.0] and gw.tolist() == [48.0, 240.0]


def test_the_op_node_gets_the_gradient_in_the_view_dtype():
    # float32 base, float64 weight: MulBackward0 computes w's gradient from a float32
    # gradient and casts it, as PyTorch's mul_tensor_backward does
    bb = nbgrad.tensor([1.1, 2.2, 3.3], requires_grad=True)
    w64 = f64([2.7, 3.1])
    base = bb * 1.3
    base[:2].mul_(w64)
    (base * base).sum().backward()
    assert bb.grad.tolist() == [27.104217529296875, 71.45995330810547, 11.153999328613281]
    assert w64.grad.tolist() == [11.042459487915039, 50.7135124206543]


def test_a_second_backward_through_copy_slices_fails():
    b0, w = f64([1.0, 2.0, 3.0, 4.0]), f64([5.0, 6.0])
    base = b0 * 1
    base[1:3].mul_(w)
    base.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        base.sum().backward()


def test_a_version_error_names_the_copy_slices_output_as_pytorch_does():
    base = nbgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True) * 1
    base[1:3].mul_(2.0)
    z = base * base
    base.detach().add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of torch::autograd::CopySlices, is at version 2"):
        z.sum().backward()
