"""The classes API fuzz seed 45 found (PyTorch 2.13's behaviour recorded): torch.subtract and
Tensor.subtract_ have their own subtract(Tensor, Scalar other, Scalar alpha) overload, not sub's
deprecated Number-first one; threshold's threshold is read in the type it compares in (float32
for the 16-bit floats); the window functions take a 0-dim integer tensor for window_length;
sum_to_size refuses a size its input does not expand from; matrix_norm's positive orders of an
empty matrix are zeros without history."""
import math
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_subtract_takes_alpha_by_position_with_a_scalar_other():
    a = nbgrad.arange(3)
    out = nbgrad.subtract(a, nbgrad.tensor(1.5), -2)        # a - (-2) * 1.5, the number's default dtype
    assert out.dtype == nbgrad.float32 and out.tolist() == [3.0, 4.0, 5.0]
    assert a.subtract(1.5, -2).tolist() == [3.0, 4.0, 5.0]
    x = nbgrad.ones(3, requires_grad=True)
    y = nbgrad.subtract(x, 1, 3)
    assert y.grad_fn.name() == "SubBackward1" and y.tolist() == [-2.0, -2.0, -2.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="^For integral input tensors, argument alpha must not be a floating"):
        nbgrad.subtract(a, 1, 2.5)
    # sub keeps its deprecated overload; subtract has none
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nbgrad.sub(a, 2, a).tolist() == [0, -1, -2]
    with pytest.raises(TypeError, match=r"^subtract\(\) received an invalid combination of arguments"):
        nbgrad.subtract(a, 2, a)


def test_subtract_in_place_takes_alpha_by_position():
    x = nbgrad.ones(3, requires_grad=True)
    y = x.clone()
    y.subtract_(1, 2.5)
    assert y.tolist() == [-1.5, -1.5, -1.5] and y.grad_fn.name() == "SubBackward1" and y._version == 1
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    i = nbgrad.arange(3)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        i.subtract_(1.5, 2)
    assert i.tolist() == [0, 1, 2] and i._version == 0
    with pytest.raises(TypeError, match=r"^subtract_\(\) received an invalid combination of arguments"):
        nbgrad.ones(3).subtract_(2, nbgrad.ones(3))
    assert nbgrad.ones(3).subtract_(nbgrad.ones(3), alpha=2).tolist() == [-1.0, -1.0, -1.0]


def test_threshold_reads_its_threshold_in_the_type_it_compares_in():
    x = nbgrad.tensor([1.0, 70000.0, -3.0, 65504.0], dtype=nbgrad.float16)
    assert F.threshold(x, 1e30, 5.0).tolist() == [5.0, math.inf, 5.0, 5.0]
    assert nbgrad.threshold_(x.clone(), 1e30, 0.0).tolist() == [0.0, math.inf, 0.0, 0.0]
    for args, type_name in (((1e300, 0.0), "float"), ((0.5, 1e30), "c10::Half")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {type_name} without overflow$"):
            F.threshold(x, *args)
    with pytest.raises(RuntimeError, match="without overflow"):
        F.threshold(nbgrad.ones(2, dtype=nbgrad.int32), 1e30, 0)


@pytest.mark.parametrize("name", ["bartlett_window", "hann_window", "hamming_window", "blackman_window",
                                  "kaiser_window"])
def test_window_length_may_be_a_0_dim_integer_tensor(name):
    fn = getattr(nbgrad, name)
    assert fn(nbgrad.tensor(4)).tolist() == fn(4).tolist()
    assert fn(nbgrad.tensor(4, dtype=nbgrad.int8)).shape == (4,)
    for bad in (nbgrad.tensor([4]), nbgrad.tensor(4.0), nbgrad.tensor(True)):
        with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'window_length' \(position 1\) must be int, "
                                            "not Tensor$"):
            fn(bad)


def test_sum_to_size_refuses_a_size_its_input_does_not_expand_from():
    x = nbgrad.arange(6).reshape(2, 3)
    for size in ((nbgrad.tensor([[[-4]]]),), ((4, 3),), ((0,),), ((-1, 3),)):
        shown = [-4] if isinstance(size[0], nbgrad.Tensor) else list(size[0])
        with pytest.raises(RuntimeError, match=rf"^size \{{\[{', '.join(map(str, shown))}\]\}} is not expandable "
                                               r"to size \{\[2, 3\]\}\.$"):
            x.sum_to_size(*size)
    assert x.sum_to_size(nbgrad.tensor(3)).tolist() == [3, 5, 7]
    assert x.sum_to_size(2, 1).tolist() == [[3], [12]]
    assert x.sum_to_size(()).tolist() == 15
    assert x.sum_to_size(2, 3) is x


def test_matrix_norm_positive_orders_of_an_empty_matrix_are_zeros_without_history():
    for shape, ord, result_shape in (((2, 0), 1, ()), ((0, 0), 2, ()), ((3, 2, 0), 1, (3,)), ((0, 2), math.inf, ())):
        A = nbgrad.zeros(*shape, dtype=nbgrad.float64, requires_grad=True)
        r = nbgrad.linalg.matrix_norm(A, ord)
        assert r.shape == result_shape and not r.any().item()
        assert r.grad_fn is None and not r.requires_grad
    assert nbgrad.linalg.matrix_norm(nbgrad.zeros(3, 2, 0), 2, dim=(0, 2), keepdim=True).shape == (1, 2, 1)
    # where the last reduction is not over an empty dim, the composition (and its history) stays
    r = nbgrad.linalg.matrix_norm(nbgrad.zeros(3, 2, 0, requires_grad=True), math.inf)
    assert r.grad_fn.name() == "AmaxBackward0"
    for shape, ord in (((2, 0), -1), ((0, 2), -math.inf), ((2, 0), -2)):
        with pytest.raises(IndexError, match="Expected reduction dim"):
            nbgrad.linalg.matrix_norm(nbgrad.zeros(*shape), ord)


def test_meshgrid_indexing_must_be_a_str():
    x = nbgrad.ones(3)
    for bad, shown in ((nbgrad.bool, "torch.dtype"), (nbgrad.ones(1), "Tensor"), (1, "int")):
        with pytest.raises(TypeError, match=rf"^meshgrid\(\): argument 'indexing' must be str, not {shown}$"):
            nbgrad.meshgrid(x, indexing=bad)
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        nbgrad.meshgrid(x, indexing="yx")


def test_index_fill_checks_value_then_index_dtype_then_dim():
    x = nbgrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="^index_fill_ only supports a 0-dimensional value tensor"):
        nbgrad.index_fill(x, 5, nbgrad.zeros(2), nbgrad.ones(3))
    for call in (lambda: nbgrad.index_fill(x, 5, nbgrad.zeros(2), 1.0), lambda: x.index_fill_(5, nbgrad.zeros(2), 1.0)):
        with pytest.raises(IndexError, match=r"^index_fill_\(\): Expected dtype int64 for index\.$"):
            call()
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.index_fill(x, 5, nbgrad.zeros(2, 2, dtype=nbgrad.int64), 1.0)
    assert x.tolist() == [[1.0] * 3] * 2 and x._version == 0


def test_repeat_interleave_checks_repeats_rank_before_dim():
    for call in (lambda: nbgrad.repeat_interleave(nbgrad.ones(2), nbgrad.ones(3, 3, dtype=nbgrad.int64), dim=5),
                 lambda: nbgrad.ones(2).repeat_interleave(nbgrad.ones(3, 3, dtype=nbgrad.int64), 5)):
        with pytest.raises(RuntimeError, match="^repeats must be 0-dim or 1-dim tensor$"):
            call()
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.ones(2).repeat_interleave(nbgrad.ones(1, dtype=nbgrad.int64), 5)


def test_topk_checks_dim_and_k_before_the_dtype():
    b = nbgrad.ones(4, dtype=nbgrad.bool)
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.topk(b, 2, -3)
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        nbgrad.topk(b, 7, 0)
    with pytest.raises(RuntimeError, match="^topk does not support bool dtypes on CPU$"):
        nbgrad.topk(b, 2, 0)


def test_tensor_broadcast_to_takes_each_size_or_size_by_keyword():
    x = nbgrad.ones(2, 3)
    assert x.broadcast_to(4, 2, 3).shape == (4, 2, 3)
    assert x.broadcast_to(nbgrad.tensor(2), nbgrad.tensor(3)).shape == (2, 3)
    assert x.broadcast_to(size=[2, 3]).shape == (2, 3) and nbgrad.broadcast_to(x, size=(2, 3)).shape == (2, 3)
    with pytest.raises(RuntimeError, match=r"Target sizes: \[-2, 5\]\.  Tensor sizes: \[2, 3\]"):
        x.broadcast_to(-2, 5)
    with pytest.raises(TypeError, match=r'^broadcast_to\(\) missing 1 required positional arguments: "size"$'):
        x.broadcast_to()
    with pytest.raises(TypeError, match=r"^broadcast_to\(\) takes 2 positional arguments but 3 were given$"):
        nbgrad.broadcast_to(x, 2, 3)


def test_margin_losses_parse_their_arguments_after_their_python_checks():
    with pytest.raises(TypeError, match=r"^margin_ranking_loss\(\): argument 'margin' \(position 4\) must be float, "
                                        "not str$"):
        F.margin_ranking_loss(nbgrad.ones(1, 3), nbgrad.ones(2, 0), nbgrad.ones(2, 0), "amin")
    with pytest.raises(RuntimeError, match="^margin_ranking_loss : All input tensors should have same dimension"):
        F.margin_ranking_loss(nbgrad.ones(3), nbgrad.ones(1, 3), nbgrad.ones(3), "amin")
    with pytest.raises(TypeError, match=r"^multi_margin_loss\(\): argument 'target' \(position 2\) must be Tensor, "
                                        "not str$"):
        F.multi_margin_loss(nbgrad.ones(1, 2, 3, 4), "bilinear")
    with pytest.raises(TypeError, match=r"^multi_margin_loss\(\): argument 'margin' \(position 4\) must be Number, "
                                        "not Tensor$"):
        F.multi_margin_loss(nbgrad.ones(1, 1, 1), nbgrad.ones(2, dtype=nbgrad.int64), margin=nbgrad.ones(3, 1))
    with pytest.raises(ValueError, match="^only p == 1 and p == 2 supported$"):
        F.multi_margin_loss(nbgrad.ones(1, 1, 1), "bilinear", p=1.5)
