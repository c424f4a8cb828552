"""Version counters: in-place changes of tensors saved for backward (recorded from PyTorch 2.13)."""
import pytest

import nbgrad as T


def _version_error(label, shape, now, expected):
    where = f", which is output 0 of {label}," if label else ""
    return (r"^one of the variables needed for gradient computation has been modified by an inplace operation: "
            rf"\[nbgrad\.FloatTensor \[{shape}\]\]{where} is at version {now}; expected version {expected} "
            r"instead\. Hint: enable anomaly detection")


@pytest.mark.parametrize("op, label", [
    ("exp_", "Exp"), ("relu_", "Relu"), ("sigmoid_", "Sigmoid"), ("tanh_", "Tanh"), ("sqrt_", "Sqrt"),
    ("rsqrt_", "Rsqrt"), ("reciprocal_", "Reciprocal"), ("expm1_", "Expm1"),
])
def test_saved_result_of_inplace_op_is_the_written_tensor(op, label):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = getattr(y, op)()
    assert z is y and y._version == 1
    z.mul_(2)
    with pytest.raises(RuntimeError, match=_version_error(label, 2, 2, 1)):
        z.sum().backward()


def test_saved_result_change_through_view_no_grad_and_detach():
    for change in (lambda y: y[0:1].add_(2), lambda y: y.detach().mul_(2)):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.exp_()
        change(y)
        with pytest.raises(RuntimeError, match=_version_error("Exp", 2, 2, 1)):
            y.sum().backward()
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.exp_()
    with T.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match=_version_error("Exp", 2, 2, 1)):
        y.sum().backward()


def test_data_change_escapes_the_check():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.exp_()
    y.data.mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([5.436563491821289, 14.778112411499023])


def test_inplace_exp_gradient_and_pow_tensor_exponent():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.exp_()
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.7182817459106445, 7.389056205749512])
    x = T.tensor([1.0, 2.0], requires_grad=True)
    e = T.tensor([2.0, 3.0], requires_grad=True)
    y = x * 1
    y.pow_(e)
    y.add_(1)
    with pytest.raises(RuntimeError, match=_version_error("Pow1", 2, 2, 1)):
        y.sum().backward()


@pytest.mark.parametrize("op", ["exp_", "relu_", "sigmoid_", "tanh_", "sqrt_", "reciprocal_"])
def test_inplace_on_view_saved_result_then_base_or_view_changed(op):
    for change in (lambda y: y[2:].add_(1), lambda y: y[:1].add_(1)):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        v = y[:2]
        getattr(v, op)()
        change(y)
        with pytest.raises(RuntimeError, match=_version_error("AsStrided", 2, 2, 1)):
            y.sum().backward()


def test_inplace_on_view_then_the_view_itself_changed():
    x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[:2]
    v.relu_()
    v.add_(1)
    with pytest.raises(RuntimeError, match=_version_error("Relu", 2, 2, 1)):
        y.sum().backward()


def test_saved_input_names_its_current_grad_fn():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    w = T.tensor([3.0, 4.0], requires_grad=True).clone()
    y = x * 1
    y.mul_(w)
    w.add_(1)
    with pytest.raises(RuntimeError, match=_version_error("Add", 2, 1, 0)):
        y.sum().backward()


def test_saved_output_of_out_of_place_op():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    y.add_(1)
    with pytest.raises(RuntimeError, match=_version_error("Sigmoid", 2, 1, 0)):
        y.sum().backward()


def test_view_saved_then_base_changed_names_regenerated_history():
    x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    b = y[1:]
    c = b * b
    y[:2].mul_(3)
    with pytest.raises(RuntimeError, match=_version_error("AsStrided", 3, 1, 0)):
        c.sum().backward()


def test_leaf_changes():
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    x.detach().mul_(2)
    with pytest.raises(RuntimeError, match=_version_error(None, 2, 1, 0)):
        y.sum().backward()
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    with T.no_grad():
        x.copy_(T.tensor([3.0, 3.0]))
    with pytest.raises(RuntimeError, match=_version_error(None, 2, 1, 0)):
        y.sum().backward()
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    x.data.mul_(2)                       # .data: not tracked
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0] and x._version == 0


def test_values_through_views_of_views_and_copy_slices():
    x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    w = v[1:]
    w.mul_(3)
    v.mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 6.0, 6.0]
    x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    a, b = y[:2], y[1:]
    a.mul_(3)
    (b * b).sum().backward()
    assert x.grad.tolist() == [0.0, 36.0, 6.0, 8.0]
    assert type(b.grad_fn).__name__ == "AsStridedBackward0"
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = T.tensor([5.0, 6.0], requires_grad=True)
    y = x * 2
    y[:2].copy_(s * 3)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 2.0] and s.grad.tolist() == [3.0, 3.0]
    y = T.zeros(3)
    s = T.tensor([1.0, 2.0], requires_grad=True)
    y[1:].copy_(s)
    assert type(y.grad_fn).__name__ == "CopySlices" and y.requires_grad
    y.sum().backward()
    assert s.grad.tolist() == [1.0, 1.0]


def test_versions_count_each_write():
    x = T.ones(3)
    v = x[:2]
    x.add_(1)
    x[0] = 2
    x[1:].mul_(2)
    x.copy_(x)
    x.fill_(0)
    x.zero_()
    assert x._version == 6 and v._version == 6
    x[T.tensor([0])] = 2
    x[x > 1] = 3
    assert x._version == 8


@pytest.mark.parametrize("fill, label", [
    (lambda y: y.uniform_(), "UniformBackward0"),
    (lambda y: y.normal_(), "NormalBackward0"),
    (lambda y: y.bernoulli_(0.5), "BernoulliBackward2"),
    (lambda y: y.random_(0, 5), "RandomBackward0"),
    (lambda y: y.random_(5), "RandomBackward1"),
    (lambda y: y.random_(), "RandomBackward2"),
])
def test_random_fills_rewrite_history(fill, label):
    # the new values do not depend on the old ones: the gradient through them is zero
    x = T.ones(3, requires_grad=True)
    y = x * 1
    fill(y)
    assert type(y.grad_fn).__name__ == label and y._version == 1
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x = T.ones(3, requires_grad=True)
    y = x * 1
    fill(y[:2])
    assert type(y.grad_fn).__name__ == "CopySlices"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]


def test_random_fill_checks():
    x = T.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation"):
        x.uniform_()
    y = T.ones(3, requires_grad=True).clone()
    with pytest.raises(RuntimeError, match=r"^Output 0 of Unbind is a view and is being modified inplace\."):
        y.unbind()[0].uniform_()
    with T.no_grad():
        v = y[:2]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace"):
        v.normal_()
    z = T.ones(3, requires_grad=True).exp()
    z.uniform_()
    with pytest.raises(RuntimeError, match=_version_error("Exp", 3, 1, 0)):
        z.sum().backward()


def _getitem(x, i):
    return x[i]


def _setitem_index(x, i):
    y = x * 1
    y[i] = T.ones(2, requires_grad=True)
    return y


@pytest.mark.parametrize("op", [
    lambda x, i: x.index_select(0, i),
    lambda x, i: x.gather(0, i),
    lambda x, i: x.scatter(0, i, T.tensor([1.0, 2.0])),
    lambda x, i: x.scatter(0, i, 5.0),
    lambda x, i: x.scatter_add(0, i, T.ones(2, requires_grad=True)),
    lambda x, i: x.take(i),
    _getitem,
    lambda x, i: x.index_put((i,), T.ones(2, requires_grad=True)),
    lambda x, i: x.index_put((i,), T.ones(2), accumulate=True),
    _setitem_index,
    lambda x, i: x.index_add(0, i, T.ones(2, requires_grad=True), alpha=2),
], ids=["index_select", "gather", "scatter", "scatter_value", "scatter_add", "take", "getitem", "index_put",
        "index_put_acc", "setitem", "index_add"])
def test_saved_index_changed_in_place(op):
    x = T.randn(3, requires_grad=True)
    i = T.tensor([0, 1])
    y = op(x, i)
    i.add_(1)
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient computation has been modified "
                                           r"by an inplace operation: \[nbgrad\.LongTensor \[2\]\] is at version 1; "
                                           r"expected version 0"):
        y.sum().backward()


def test_scatter_add_saves_index_only_for_the_source_gradient():
    x = T.randn(3, requires_grad=True)
    i = T.tensor([0, 1])
    y = x.scatter_add(0, i, T.ones(2))
    i.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_index_add_names_and_gradients():
    x = T.zeros(3, requires_grad=True)
    v = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.index_add_(0, T.tensor([0, 0]), v, alpha=3)
    assert type(y.grad_fn).__name__ == "IndexAddBackward0" and y.tolist() == [9.0, 0.0, 0.0]
    (y * T.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0] and v.grad.tolist() == [3.0, 3.0]
    i = T.tensor([0, 1])
    z = T.randn(3, requires_grad=True).index_add(0, i, T.ones(2))    # index saved for the source only
    i.add_(1)
    z.sum().backward()


def test_inplace_tensor_arguments_by_keyword_are_recorded():
    # clamp_(min=tensor) used to drop the history of a keyword tensor (no gradient for it)
    x = T.arange(4.0)
    m = T.full((4,), 2.0, requires_grad=True)
    x.clamp_(min=m)
    assert type(x.grad_fn).__name__ == "ClampBackward0" and x.requires_grad
    x.sum().backward()
    assert m.grad.tolist() == [1.0, 1.0, 0.0, 0.0]
    w = T.full((4,), 2.0, requires_grad=True).clone()
    y = T.arange(4.0, requires_grad=True) * 1
    y.clamp_(max=w)
    w.add_(1)
    with pytest.raises(RuntimeError, match=_version_error("Add", 4, 1, 0)):
        y.sum().backward()
