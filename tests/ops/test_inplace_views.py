"""unsqueeze_, squeeze_, t_, transpose_: the tensor's own shape and strides change, as
PyTorch 2.13 does it (versions, nodes, refusals on leaves, other views' histories)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck


def test_geometry_and_version():
    x = nbgrad.arange(6.0).view(2, 3)
    v = x._version
    assert x.unsqueeze_(0) is x
    assert x.shape == (1, 2, 3) and x.stride() == (6, 3, 1) and x._version == v + 1
    x.squeeze_()
    assert x.shape == (2, 3) and x.stride() == (3, 1) and x._version == v + 2
    x.t_()
    assert x.shape == (3, 2) and x.stride() == (1, 3) and not x.is_contiguous()
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3).T)
    x.transpose_(0, 1)
    assert x.shape == (2, 3) and x.stride() == (3, 1) and x._version == v + 4
    x.swapaxes_(0, 1).swapdims_(1, 0)
    assert x.shape == (2, 3)
    q = nbgrad.ones(3, 1, 2)
    q.squeeze_(1)
    assert q.shape == (3, 2)
    q.squeeze_((0,))
    assert q.shape == (3, 2)
    q.unsqueeze_(-1)
    assert q.shape == (3, 2, 1) and q.stride() == (2, 1, 1)
    # a view made before keeps its own geometry
    d = nbgrad.ones(2, 3)
    e = d.view(6)
    d.t_()
    assert e.shape == (6,) and d.shape == (3, 2)


def test_errors():
    with pytest.raises(RuntimeError, match="t_\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        nbgrad.ones(2, 3, 4).t_()
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.ones(2, 3).transpose_(0, 2)
    leaf = nbgrad.ones(2, 3, requires_grad=True)
    for op in (lambda t: t.unsqueeze_(0), lambda t: t.t_(), lambda t: t.squeeze_(), lambda t: t.transpose_(0, 1)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            op(leaf)
        assert leaf.shape == (2, 3)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        leaf.view(3, 2).t_()
    with nbgrad.no_grad():
        leaf.unsqueeze_(0)
    assert leaf.shape == (1, 2, 3) and leaf.requires_grad and leaf.grad_fn is None and leaf.is_leaf


def test_nodes_and_gradients_on_non_leaves():
    x = nbgrad.ones(2, 3, requires_grad=True)
    y = x * 2
    y.unsqueeze_(0)
    assert y.grad_fn.name() == "UnsqueezeBackward1" and y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    y.squeeze_(0)
    assert y.grad_fn.name() == "SqueezeBackward4"
    assert (x * 2).squeeze_().grad_fn.name() == "SqueezeBackward3"
    assert (x * 2)[None].squeeze_((0,)).grad_fn.name() == "SqueezeBackward5"
    z = x * 1
    z.t_()
    assert z.grad_fn.name() == "TBackward1" and z.shape == (3, 2)
    z.transpose_(0, 1)
    assert z.grad_fn.name() == "TransposeBackward1"
    (z.t_() * nbgrad.arange(6.0).view(3, 2)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(3, 2).T)

    a = nbgrad.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)

    def f(t):
        u = t * 1
        u.t_()
        u.unsqueeze_(1)
        return u * nbgrad.arange(6.0, dtype=nbgrad.float64).view(3, 1, 2)
    assert gradcheck(f, (a,))


def test_views_of_a_base():
    x = nbgrad.ones(2, 3, requires_grad=True)
    base = x * 1
    row = base[0]
    row.unsqueeze_(0)           # a view changed in place: still a view, its own new node
    assert row._base is base and row.shape == (1, 3)
    assert row.grad_fn.name() == "UnsqueezeBackward1"
    assert row.grad_fn.next_functions[0][0].name() == "SelectBackward0"
    assert base._version == 1
    base2 = x * 1
    other = base2[0]
    base2.t_()                  # another view of the base: its history regenerates
    assert other.grad_fn.name() == "AsStridedBackward0" and base2.grad_fn.name() == "TBackward1"
    (other * nbgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]


def test_under_no_grad_a_view_regenerates_its_history():
    x = nbgrad.ones(3, 1, 2, requires_grad=True)
    v = (x * 2)[...]
    assert v.grad_fn.name() == "AliasBackward0"
    with nbgrad.no_grad():
        v.unsqueeze_(3)
    assert v.shape == (3, 1, 2, 1) and v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    assert x.grad.tolist() == [[[2.0, 2.0]]] * 3


def test_saved_tensor_check():
    a = nbgrad.ones(3, requires_grad=True)
    b = a * 2
    c = b * b
    b.unsqueeze_(0)
    with pytest.raises(RuntimeError, match="which is output 0 of Unsqueeze1, is at version 1; expected version 0"):
        c.sum().backward()


def test_leaf_reshaped_in_place_under_no_grad_gets_a_gradient_of_its_new_shape():
    # PyTorch's AccumulateGrad copies the gradient into the leaf's current sizes and strides
    # (the gradient must never be laid out with strides meant for another shape)
    x = nbgrad.ones(3, 1, 2, requires_grad=True)
    y = (x * 2).sum()
    with nbgrad.no_grad():
        x.unsqueeze_(0)
    y.backward(retain_graph=True)
    assert x.grad.shape == (1, 3, 1, 2) and x.grad.stride() == (6, 2, 2, 1)
    assert x.grad.tolist() == [[[[2.0, 2.0]], [[2.0, 2.0]], [[2.0, 2.0]]]]
    y.backward()
    assert x.grad.shape == (1, 3, 1, 2) and x.grad.sum().item() == 24.0
    z = nbgrad.ones(2, 3, requires_grad=True)
    w = (z * 1).sum()
    with nbgrad.no_grad():
        z.t_()
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        w.backward()            # (2, 3) does not broadcast to (3, 2): refused, as in PyTorch
    assert z.grad is None


# -- as_strided_ (values recorded from torch 2.13) ---------------------------------------------
def test_as_strided_in_place_geometry_node_and_gradient():
    x = nbgrad.arange(6.0, requires_grad=True).clone()
    assert x.as_strided_((2, 2), (1, 2), 1) is x
    assert x.shape == (2, 2) and x.stride() == (1, 2) and x.storage_offset() == 1 and x._version == 1
    assert type(x.grad_fn).__name__ == "AsStridedBackward1"
    assert type(x.grad_fn.next_functions[0][0]).__name__ == "CloneBackward0"
    assert x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    z = nbgrad.arange(6.0, requires_grad=True)
    w = z * 1
    w.as_strided_((2, 2), (1, 1))           # overlapping: a storage element read twice
    (w * nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert z.grad.tolist() == [1.0, 5.0, 4.0, 0.0, 0.0, 0.0]
    b = nbgrad.arange(6.0, requires_grad=True)
    bv = (b * 1)[1:]
    bv.as_strided_((2,), (2,))              # a view keeps its offset and its base
    assert bv.storage_offset() == 1 and type(bv.grad_fn).__name__ == "AsStridedBackward1"
    bv.sum().backward()
    assert b.grad.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    # retain_grad stays on the node before it (set_history): the gradient of the old value
    z = nbgrad.arange(6.0, requires_grad=True)
    w = z.clone()
    w.retain_grad()
    w.as_strided_((3,), (2,))
    (w * nbgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert z.grad.tolist() == w.grad.tolist() == [1.0, 0.0, 2.0, 0.0, 3.0, 0.0]


def test_as_strided_in_place_refusals():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        nbgrad.arange(6.0, requires_grad=True).as_strided_((2,), (1,))
    a = nbgrad.arange(6.0)
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[10\], strides \[1\], storage offset 0, and "
                                           r"itemsize 4 requiring a storage size of 40 are out of bounds for "
                                           r"storage of size 24"):
        a.as_strided_((10,), (1,))
    assert a.shape == (6,) and a._version == 0           # nothing changed
    x = nbgrad.arange(6.0, dtype=nbgrad.float64, requires_grad=True)
    assert gradcheck(lambda t: (t * 1).as_strided_((2, 2), (1, 2), 1), (x,))
