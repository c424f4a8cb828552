"""Grad mode and views: PyTorch 2.13's CreationMeta rules (values recorded from torch)."""
import pytest

import nbgrad as T

NO_GRAD_DIRECT = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
    "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
    "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).")
NO_GRAD_INDIRECT = ("A view was created in no_grad mode and its base or another view of its base has been "
                    "modified inplace with grad mode enabled.")
MULTI = (" This view is the output of a function that returns multiple views. Such functions do not allow "
         "the output views to be modified inplace. You should replace the inplace operation by an "
         "out-of-place one.")


def _name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def test_no_grad_view_of_leaf_requires_grad_but_has_no_history():
    x = T.ones(3, requires_grad=True)
    with T.no_grad():
        v = x[:2]
    assert v.requires_grad is True
    assert v.grad_fn is None
    assert v.is_leaf is True
    assert v._base is x


def test_no_grad_view_is_not_a_leaf_of_its_own():
    x = T.ones(3, requires_grad=True)
    with T.no_grad():
        v = x[:2]
    w = v[:1] * 3
    assert w.requires_grad and _name(w) == "MulBackward0"
    w.sum().backward()
    assert x.grad is None          # the gradient reaches no leaf


@pytest.mark.parametrize("leaf", [True, False])
def test_inplace_on_no_grad_view_in_grad_mode_raises(leaf):
    x = T.ones(3, requires_grad=True)
    if not leaf:
        x = x.clone()
    with T.no_grad():
        v = x[:2]
    with pytest.raises(RuntimeError) as e:
        v.mul_(2)
    assert str(e.value) == NO_GRAD_DIRECT
    assert x.tolist() == [1.0, 1.0, 1.0]      # nothing written


def test_inplace_on_no_grad_view_of_plain_tensor_with_grad_arg_raises():
    x = T.ones(3)
    a = T.ones(2, requires_grad=True)
    with T.no_grad():
        v = x[:2]
    assert v.requires_grad is False
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace"):
        v.mul_(a)
    v.mul_(2)                                     # untracked: allowed
    assert x.tolist() == [2.0, 2.0, 1.0]


def test_view_of_no_grad_view_inherits_the_meta():
    x = T.ones(3, requires_grad=True).clone()
    with T.no_grad():
        v = x[:2]
    w = v[:1]
    assert w.requires_grad and _name(w) == "SliceBackward0"
    with pytest.raises(RuntimeError, match=r"^Output 0 of Slice is a view of a view which was created in no_grad "
                                           r"mode and is being modified inplace with grad mode enabled\. Given"):
        w.mul_(2)


def test_both_inside_no_grad_is_allowed_but_history_then_cannot_be_regenerated():
    x = T.ones(3, requires_grad=True).clone()
    with T.no_grad():
        v = x[:2]
        v.mul_(2)
    assert x.tolist() == [2.0, 2.0, 1.0]
    assert _name(x) == "CloneBackward0"
    with pytest.raises(RuntimeError, match=NO_GRAD_INDIRECT):
        v.grad_fn


def test_base_modified_after_no_grad_view_makes_view_unusable():
    x = T.ones(3, requires_grad=True).clone()
    with T.no_grad():
        v = x[:2]
    x.mul_(2)
    with pytest.raises(RuntimeError, match=NO_GRAD_INDIRECT):
        v * 2


def test_default_view_regenerates_after_base_changed_in_no_grad():
    x = T.ones(3, requires_grad=True).clone()
    v = x[:2]
    with T.no_grad():
        x.mul_(2)
    assert _name(v) == "AsStridedBackward0"


def test_inference_mode_view_inplace_raises():
    x = T.ones(3, requires_grad=True).clone()
    with T.inference_mode():
        v = x[:2]
    with pytest.raises(RuntimeError, match=r"^A view was created in inference mode and is being modified inplace "
                                           r"in normal mode\. .* inside the inference_mode block"):
        v.mul_(2)


@pytest.mark.parametrize("make, label, nr", [
    (lambda x: x.unbind()[0], "Unbind", 0),
    (lambda x: x.split(2)[1], "Split", 1),
    (lambda x: x.split(4)[0], "Split", 0),
    (lambda x: x.chunk(2)[1], "Split", 1),
    (lambda x: x.split([1, 3])[1], "SplitWithSizes", 1),
    (lambda x: list(x)[0], "Unbind", 0),
])
def test_multi_output_views_refuse_inplace(make, label, nr):
    x = T.ones(4, requires_grad=True).clone()
    o = make(x)
    with pytest.raises(RuntimeError) as e:
        o.mul_(2)
    assert str(e.value) == f"Output {nr} of {label} is a view and is being modified inplace." + MULTI
    assert x.tolist() == [1.0] * 4


def test_multi_output_meta_reaches_views_of_the_output_and_setitem():
    x = T.ones(3, 2, requires_grad=True).clone()
    o = x.unbind()[0]
    with pytest.raises(RuntimeError, match=r"^Output 0 of Unsqueeze is a view and is being modified inplace\. This view"):
        o.unsqueeze(0).mul_(2)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Select is a view and is being modified inplace\. This view"):
        o[0] = 5
    with pytest.raises(RuntimeError, match=r"^Output 0 of Unbind is a view and is being modified inplace\. This view"):
        o.copy_(T.zeros(2))


def test_multi_output_view_after_base_changed():
    x = T.ones(3, requires_grad=True).clone()
    o = x.unbind()[0]
    x.mul_(2)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Unbind is a view and its base or another view of its base "
                                           r"has been modified inplace\. This view is the output"):
        o.grad_fn


def test_multi_output_of_plain_tensor():
    x = T.ones(3)
    o = x.unbind()[0]
    o.mul_(2)                          # nothing recorded: allowed
    assert x.tolist() == [2.0, 1.0, 1.0]
    with pytest.raises(RuntimeError) as e:
        o.mul_(T.ones((), requires_grad=True))
    assert str(e.value) == ("A view was created in no_grad mode and is being modified inplace with grad mode "
                            "enabled." + MULTI)


def test_tensor_split_outputs_are_slices_that_may_be_written():
    x = T.ones(4, requires_grad=True).clone()
    a, b = x.tensor_split(2)
    assert _name(b) == "SliceBackward0"
    b.mul_(3)
    x.sum().backward()


def test_no_grad_unbind_then_inplace_in_grad_mode():
    x = T.ones(3, requires_grad=True).clone()
    with T.no_grad():
        o = x.unbind()[0]
    assert o.requires_grad and o.grad_fn is None
    with pytest.raises(RuntimeError, match=r"^A view was created in no_grad mode and is being modified inplace with "
                                           r"grad mode enabled\. Given"):
        o.mul_(2)


def test_detach_and_data_are_not_views_of_history():
    x = T.ones(3, requires_grad=True).clone()
    d = x[:2].detach()
    assert (d.requires_grad, d.is_leaf, d._base) == (False, True, None)
    d.mul_(2)
    assert x._version == 1 and x.tolist() == [2.0, 2.0, 1.0]
    e = x.data[:2]
    e.mul_(2)
    assert x._version == 1 and x.tolist() == [4.0, 4.0, 1.0]


@pytest.mark.parametrize("index", [Ellipsis, ()])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_ellipsis_and_empty_index_are_aliases(index, shape):
    x = T.full(shape, 2.0, requires_grad=True)
    v = x[index]
    assert v.requires_grad and _name(v) == "AliasBackward0" and v._base is x
    assert v.shape == x.shape
    (v * v).sum().backward()
    assert x.grad.tolist() == T.full(shape, 4.0).tolist()


def test_identity_views_names():
    x = T.ones(3, requires_grad=True)
    s = T.tensor(2.0, requires_grad=True)
    assert _name(x[:]) == "SliceBackward0"
    assert _name(x[None]) == "UnsqueezeBackward0"
    assert _name(s[None]) == "UnsqueezeBackward0"
    assert _name(x.view_as(x)) == "ViewBackward0"
    assert _name(x.reshape(3)) == "ViewBackward0"
    assert _name(s.reshape(())) == "ViewBackward0"
    y = T.ones(3, 2, requires_grad=True).t()
    r = y.reshape(2, 3)
    assert _name(r) == "ReshapeAliasBackward0" and r._base is not None
    r.sum().backward()


def test_setitem_writes_like_pytorchs_copy_to():
    x = T.tensor(2.0, requires_grad=True).clone()
    x[...] = 5
    assert _name(x) == "CopyBackwards" and x.item() == 5.0
    y = T.ones(3, requires_grad=True).clone()
    y[...] = 5
    assert _name(y) == "FillBackward3"
    y = T.ones(3, requires_grad=True).clone()
    y[:] = 5
    assert _name(y) == "FillBackward3"
    y = T.ones(3, requires_grad=True).clone()
    y.fill_(1)
    assert _name(y) == "FillBackward2"
    y = T.ones(3, requires_grad=True).clone()
    v = T.tensor(4.0, requires_grad=True)
    y.fill_(v)
    assert _name(y) == "FillBackward3"
    y.sum().backward()
    assert v.grad.item() == 3.0


CUSTOM = (" This view was created inside a custom Function (or because an input was returned as-is) and the "
          "autograd logic to handle view+inplace would override the custom backward associated with the custom "
          "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
          "output of the custom Function.")


class _Identity(T.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class _Head(T.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:2]

    @staticmethod
    def backward(ctx, g):
        return T.cat([g, T.zeros(1)])


def test_custom_function_views_refuse_inplace():
    x = T.ones(3, requires_grad=True).clone()
    y = _Identity.apply(x)
    assert y._base is x and type(y.grad_fn).__name__ == "_IdentityBackward"
    with pytest.raises(RuntimeError) as e:
        y.mul_(2)
    assert str(e.value) == "Output 0 of _Identity is a view and is being modified inplace." + CUSTOM
    y = _Head.apply(x)
    with pytest.raises(RuntimeError) as e:
        y[:1].mul_(2)
    assert str(e.value) == "Output 0 of Slice is a view and is being modified inplace." + CUSTOM
    x.mul_(2)
    with pytest.raises(RuntimeError) as e:
        y.grad_fn
    assert str(e.value) == ("Output 0 of _Head is a view and its base or another view of its base has been "
                            "modified inplace." + CUSTOM)
    with T.no_grad():
        z = _Head.apply(x)
    assert z.requires_grad and z.grad_fn is None
    with pytest.raises(RuntimeError) as e:
        z.mul_(2)
    assert str(e.value) == "A view was created in no_grad mode and is being modified inplace with grad mode enabled." + CUSTOM


def test_custom_function_view_gradient():
    x = T.ones(3, requires_grad=True)
    (_Head.apply(x * 1) * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 0.0]


def test_view_requires_grad_follows_its_base():
    x = T.ones(3)
    v = x[:2]
    x.requires_grad_()
    assert v.requires_grad is True and v.grad_fn is None
    x = T.ones(3, requires_grad=True)
    with T.no_grad():
        w = x[:2]
    w.requires_grad_(False)
    assert w.requires_grad is True


def test_requires_grad_view_of_plain_tensor_is_a_view_of_a_leaf():
    x = T.ones(3)
    v = x[:2]
    v.requires_grad_()
    assert v.requires_grad and v.is_leaf
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad is being used in an "
                                           r"in-place operation\.$"):
        v.mul_(2)


@pytest.mark.parametrize("requires_grad", [True, False])
def test_detach__refuses_any_view(requires_grad):
    x = T.ones(3, requires_grad=requires_grad)
    with pytest.raises(RuntimeError, match=r"^Can't detach views in-place\. Use detach\(\) instead\. If you are "
                                           r"using DistributedDataParallel"):
        x[:2].detach_()


def test_view_dtype_is_not_a_differentiable_view():
    x = T.ones(3, requires_grad=True)
    y = x.view(T.int32)
    assert y._base is None and y.requires_grad is False and y.tolist() == [1065353216] * 3
    x2 = T.ones(3, requires_grad=True).clone()
    y2 = x2.view(T.float32)
    assert y2._base is None and not y2.requires_grad and y2.grad_fn is None
    y2.mul_(2)                               # not recorded, but it is x2's memory and version
    assert x2.tolist() == [2.0, 2.0, 2.0] and x2._version == 1
    assert type(x2.grad_fn).__name__ == "CloneBackward0"


def test_no_grad_view_has_no_edge_to_differentiate():
    x = T.ones(3, requires_grad=True)
    with T.no_grad():
        v = x[:2]
    y = (v * 2).sum()
    with pytest.raises(RuntimeError, match=r"^The differentiated Tensor at index 0 appears to not have been used "
                                           r"in the graph\. Set allow_unused=True"):
        T.autograd.grad(y, v)
    with T.no_grad():
        s = x[0]
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn"):
        s.backward()


def test_setitem_drops_leading_ones_of_the_value():
    x = T.tensor(2.0)
    x[...] = T.tensor([5.0])
    assert x.item() == 5.0
    y = T.zeros(2, 2)
    y[0] = T.tensor([[5.0, 6.0]])
    y[1] = T.tensor([[[7.0, 8.0]]])
    assert y.tolist() == [[5.0, 6.0], [7.0, 8.0]]
    z = T.zeros(3)
    z[T.tensor([0, 1])] = T.tensor([[5.0, 6.0]])
    assert z.tolist() == [5.0, 6.0, 0.0]
    with pytest.raises(RuntimeError, match=r"^expand\(nbgrad\.FloatTensor\{\[2, 1\]\}, size=\[2\]\): the number of "
                                           r"sizes provided \(1\) must be greater or equal to the number of "
                                           r"dimensions in the tensor \(2\)"):
        y[0] = T.tensor([[5.0], [6.0]])
    assert y.tolist() == [[5.0, 6.0], [7.0, 8.0]]


def test_setitem_gradients_through_broadcast_value():
    x = T.zeros(2, 3, requires_grad=True).clone()
    v = T.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    x[1] = v
    (x * x).sum().backward()
    assert v.grad.tolist() == [[2.0, 4.0, 6.0]]
    x = T.zeros(2, 3, requires_grad=True).clone()
    s = T.tensor(4.0, requires_grad=True)
    x[:] = s
    assert type(x.grad_fn).__name__ == "FillBackward3"
    x.sum().backward()
    assert s.grad.item() == 6.0
    w = T.zeros(2, 3, requires_grad=True).clone()
    r = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w[:] = r                                       # broadcast over rows
    w.sum().backward()
    assert r.grad.tolist() == [2.0, 2.0, 2.0]


def test_setitem_false_writes_nothing():
    x = T.zeros(2)
    x[False] = 3.0
    assert x.tolist() == [0.0, 0.0] and x._version == 0
    x[True] = 3.0
    assert x.tolist() == [3.0, 3.0] and x._version == 1


def test_getitem_slices_alone_and_in_tuples():
    x = T.arange(12.0, requires_grad=True).reshape(3, 4)
    assert _name(x[:]) == "SliceBackward0"
    assert _name(x[0:3]) == "SliceBackward0"          # a lone slice is never skipped
    assert _name(x[0:3,]) == "AliasBackward0"         # in a tuple, a full slice is
    assert _name(x[:, :]) == "AliasBackward0"
    assert _name(x[0:3, 1]) == "SelectBackward0"
    assert _name(x[0:2, 1:3]) == "SliceBackward0"


def test_zero_dim_integer_tensor_index_is_a_view():
    x = T.arange(4.0)
    v = x[T.tensor(1)]
    assert v._base is x and v.shape == ()
    v.fill_(9)
    assert x.tolist() == [0.0, 9.0, 2.0, 3.0]
    y = T.arange(12.0, requires_grad=True).reshape(3, 4)
    assert _name(y[T.tensor(1)]) == "SelectBackward0"
    assert _name(y[T.tensor([1])]) == "IndexBackward0"
    z = T.arange(6.0).reshape(2, 3)
    assert z[T.tensor(1), T.tensor([0, 2])].tolist() == [3.0, 5.0]
    w = T.zeros(3, requires_grad=True).clone()
    w[T.tensor(1)] = 5.0
    assert _name(w) == "CopySlices" and w.tolist() == [0.0, 5.0, 0.0]
    with pytest.raises(IndexError, match="^index 7 is out of bounds for dimension 0 with size 4$"):
        x[T.tensor(7)]
