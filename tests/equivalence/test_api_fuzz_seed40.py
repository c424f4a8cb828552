"""The classes API fuzz seed 40 found (PyTorch 2.13's behaviour recorded): private keywords
that public functions took (var's _one_value_path, fill_'s _node_cls), repeat_interleave's
output_size check, x.max(t, keepdim) (the other-tensor overload takes no keepdim), a float
argument given a tensor that requires grad (PyTorch's parser refuses it), a 0-dim tensor
alpha (taken as a Number), and F.huber_loss's Python order (broadcast before the reduction's
check)."""
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


@pytest.mark.parametrize("call", ["nbgrad.var(x, _one_value_path=False)", "x.std(_one_value_path=True)",
                                  "x.clone().fill_(1.0, _node_cls=None)"])
def test_private_keywords_are_not_taken(call):
    x = nbgrad.ones(2, 3)
    with pytest.raises(TypeError):
        eval(call)


@pytest.mark.parametrize("call, message", [
    ("x.repeat_interleave(2, output_size=3)", "repeat_interleave: Invalid output_size, expected 4 but got 3"),
    ("nbgrad.zeros(2, 0).repeat_interleave(2, dim=1, output_size=3)",
     "repeat_interleave: Invalid output_size, expected 0 but got 3"),
    ("x.repeat_interleave(nbgrad.tensor([1, 2]), output_size=4)", "allocated size does not match required size"),
])
def test_repeat_interleave_checks_output_size(call, message):
    x = nbgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        eval(call)


def test_repeat_interleave_of_no_repeats_is_not_checked():
    assert nbgrad.repeat_interleave(nbgrad.tensor([], dtype=nbgrad.int64), output_size=3).tolist() == []
    assert nbgrad.zeros(2, 0).repeat_interleave(nbgrad.tensor([1], dtype=nbgrad.int32), output_size=3).shape == (0,)
    assert nbgrad.tensor([1.0, 2.0]).repeat_interleave(2, output_size=4).tolist() == [1.0, 1.0, 2.0, 2.0]


def test_max_min_against_a_tensor_take_no_keepdim():
    x = nbgrad.tensor([[1.0, 5.0], [3.0, 2.0]])
    t = nbgrad.tensor([2.0, 2.0])
    for call in ("x.min(t, keepdim=True)", "x.max(t, False)"):
        with pytest.raises(TypeError, match="argument 'dim' \\(position 1\\) must be int, not Tensor"):
            eval(call)
    assert x.max(other=t).tolist() == [[2.0, 5.0], [3.0, 2.0]]
    assert x.min(t).tolist() == [[1.0, 2.0], [2.0, 2.0]]


@pytest.mark.parametrize("call, message", [
    ("nbgrad.nan_to_num(x, posinf=g)", "nan_to_num(): argument 'posinf' must be float, not Tensor"),
    ("nbgrad.logit(x, g)", "logit(): argument 'eps' (position 2) must be float, not Tensor"),
    ("F.huber_loss(x, x, delta=g)", "huber_loss(): argument 'delta' (position 4) must be float, not Tensor"),
])
def test_a_float_argument_refuses_a_tensor_that_requires_grad(call, message):
    x = nbgrad.tensor([0.5, float("inf")])
    g = nbgrad.tensor(1.0, requires_grad=True)
    with pytest.raises(TypeError, match="^" + message.replace("(", "\\(").replace(")", "\\)") + "$"):
        eval(call)
    g = g.detach()          # (a 0-dim tensor that does not require grad is a float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eval(call)


def test_a_0dim_tensor_alpha_is_a_number():
    x = nbgrad.ones(2)
    assert nbgrad.add(x, x, alpha=nbgrad.tensor(2.0)).tolist() == [3.0, 3.0]
    assert x.sub(x, alpha=nbgrad.tensor(3)).tolist() == [-2.0, -2.0]
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating point"):
        nbgrad.add(x.long(), x.long(), alpha=nbgrad.tensor(2.0))
    with pytest.raises(TypeError):
        nbgrad.add(x, x, alpha=nbgrad.tensor([2.0]))
    with pytest.raises(TypeError):
        nbgrad.add(x, x, alpha=nbgrad.tensor(2.0, requires_grad=True))


def test_huber_loss_broadcasts_before_it_reads_the_reduction():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(2\\)"):
            F.huber_loss(nbgrad.ones(3, 3), nbgrad.ones(2, 3), 0.5)
        with pytest.raises(ValueError, match="^lower is not a valid value for reduction$"):
            F.huber_loss(nbgrad.ones(3), nbgrad.ones(3), reduction="lower")
        x = nbgrad.tensor([[0.0], [3.0]], requires_grad=True)
        loss = F.huber_loss(x, nbgrad.tensor([0.5, 1.0, 4.0]), reduction="sum")
    assert loss.item() == 0.125 + 0.5 + 3.5 + 2.0 + 1.5 + 0.5
    loss.backward()
    assert x.grad.tolist() == [[-0.5 - 1.0 - 1.0], [1.0 + 1.0 - 1.0]]


@pytest.mark.parametrize("call, error, message", [
    ("nbgrad.diff(nbgrad.ones(2, 3), append=nbgrad.tensor(1.0))", RuntimeError,
     "diff expects prepend or append to be the same dimension as input"),
    ("nbgrad.diff(nbgrad.ones(2, 3), dim=0, prepend=nbgrad.ones(1, 4))", RuntimeError,
     "diff expects the shape of tensor to prepend or append to match that of input except along the differencing "
     "dimension; input.size(1) = 3, but got tensor.size(1) = 4"),
    ("nbgrad.histogram(nbgrad.ones(3, dtype=nbgrad.bfloat16))", NotImplementedError,
     "\"histogramdd\" not implemented for 'BFloat16'"),
    ("nbgrad.pdist(nbgrad.ones(3, 2, dtype=nbgrad.float16))", NotImplementedError, "\"pdist\" not implemented for 'Half'"),
    ("nbgrad.linalg.tensorinv(nbgrad.ones(1))", RuntimeError, "ArrayRef: invalid slice, N = 2; size = 1"),
])
def test_checks_aten_makes(call, error, message):
    with pytest.raises(error) as info:
        eval(call)
    assert str(info.value) == message


def test_a_16_bit_histogram_takes_edges():
    hist, edges = nbgrad.histogram(nbgrad.ones(3, dtype=nbgrad.float16), bins=nbgrad.tensor([0.0, 2.0],
                                                                                            dtype=nbgrad.float16))
    assert hist.tolist() == [3.0] and edges.dtype == nbgrad.float16


# nn.functional's Python before the op it calls: its checks first, then the op's parser's
@pytest.mark.parametrize("call, error, message", [
    ("F.triplet_margin_loss(a, b, a, 0.5, swap=nbgrad.ones(3))", TypeError,
     "triplet_margin_loss(): argument 'swap' (position 7) must be bool, not Tensor"),
    ("F.triplet_margin_loss(a, a, a, -1.0, swap=nbgrad.ones(3))", ValueError, "margin must be greater than 0, got -1.0"),
    ("nbgrad.triplet_margin_loss(a, b, a, -2)", RuntimeError,
     "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
     "anchor 2D, positive 4D, and negative 2D inputs"),
    ("F.group_norm(x, nbgrad.tensor([2.0]))", TypeError,
     "group_norm(): argument 'num_groups' (position 2) must be int, not Tensor"),
    ("F.group_norm(x, 2.0)", TypeError, "group_norm(): argument 'num_groups' (position 2) must be int, not float"),
    ("F.group_norm(x, -2)", RuntimeError, "Expected num groups to be greater than 0, got -2"),
    ("F.group_norm(nbgrad.ones(1, 4), 4)", ValueError,
     "Expected more than 1 value per channel when training, got input size [1, 4]"),
    ("F.group_norm(x, 2, eps='a')", TypeError, "group_norm(): argument 'eps' (position 5) must be float, not str"),
    ("F.lp_pool2d(nbgrad.ones(1, 2, 4, 4), 2, True)", TypeError,
     "avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not bool"),
    ("F.lp_pool1d(nbgrad.ones(1, 2, 4), 2, nbgrad.ones(1))", TypeError,
     "avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not Tensor"),
])
def test_functional_python_then_the_ops_parser(call, error, message):
    a, b, x = nbgrad.ones(2, 3), nbgrad.ones(1, 2, 3, 4), nbgrad.ones(2, 4, 3)
    with pytest.raises(error) as info:
        eval(call)
    assert str(info.value) == message
    assert tuple(nbgrad.group_norm(nbgrad.ones(1, 4), 4).shape) == (1, 4)       # (torch.group_norm: no Python)


@pytest.mark.parametrize("call, error, message", [
    ("leaf[nbgrad.tensor([0.5])] = 1.0", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("plain[nbgrad.tensor([0.5])] = 1.0", IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ("~plain", TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors"),
    ("nbgrad.ones(2, 2, 2).mm(3)", TypeError, "mm(): argument 'mat2' (position 1) must be Tensor, not int"),
    ("nbgrad.ones(2, 2).bmm(-0.0)", TypeError, "bmm(): argument 'mat2' (position 1) must be Tensor, not float"),
    ("plain.mean(True, dtype=nbgrad.uint8)", TypeError, "mean(): argument 'dim' (position 1) must be tuple of ints, not bool"),
    ("F.mse_loss(plain, nbgrad.ones(2, 2), reduction='x')", RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    ("F.l1_loss(None, plain, nbgrad.ones(2))", AttributeError, "'NoneType' object has no attribute 'size'"),
])
def test_checks_in_pytorchs_order(call, error, message):
    leaf = nbgrad.ones(3, requires_grad=True)
    plain = nbgrad.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as info:
            exec(call)
    assert str(info.value) == message
    assert plain._version == 0


@pytest.mark.parametrize("call, error, message", [
    ("nbgrad.squeeze(nbgrad.ones(1, 1, 1), dim=(2, 2, 3))", RuntimeError, "dim 2 appears multiple times in the list of dims"),
    ("nbgrad.ones(1, 1, 1).flip((2, 2, 3))", RuntimeError, "dim 2 appears multiple times in the list of dims"),
    ("nbgrad.ones(1, 1, 1).permute(2, 2, 3)", RuntimeError, "permute(): duplicate dims are not allowed."),
    ("nbgrad.ones(1, 1, 1).permute(3, 2, 2)", IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    ("nbgrad.ones(1, 1, 1).sum((2, 2, 3))", IndexError,        # (a reduction wraps every dim first)
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    ("nbgrad.take_along_dim(x, nbgrad.tensor([0]), 4)", RuntimeError,
     "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions for "
     "input, and 1 dimensions for indices"),
    ("nbgrad.take_along_dim(x, nbgrad.tensor([[0]], dtype=nbgrad.int32), 1)", RuntimeError,
     "torch.take_along_dim(): dtype of indices should be Long but got Int"),
])
def test_dims_checked_in_atens_order(call, error, message):
    x = nbgrad.ones(2, 3)
    with pytest.raises(error) as info:
        eval(call)
    assert str(info.value) == message
