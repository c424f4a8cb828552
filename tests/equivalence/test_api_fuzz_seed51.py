"""The classes API fuzz seed 51 found (PyTorch 2.13's behaviour recorded): an int list's later
elements, unpacked after every parameter's type passed (a later parameter's TypeError first);
x.add_(number, number) as the deprecated add_(Number alpha, Tensor other); an empty repeat of
huge counts; max_unpool's float-only dispatch; quantile's checks in ATen's order (a NaN q is out
of range); batch_norm_cpu's order (its size(1) in training, the dispatch, the mixed mode);
split's, grid_sampler's and index_put_'s parsers before their ops' checks; hsplit's int list
reads a bool tensor as its value; histogramdd's 0-dim integer bins."""
import math
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def test_a_list_is_unpacked_after_every_parameter_passed_its_type_check():
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'pin_memory' must be bool, not Tensor$"):
        nbgrad.zeros((nbgrad.tensor([True]), 2), pin_memory=nbgrad.zeros(0, dtype=nbgrad.bool))
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'pin_memory' must be bool, not Tensor$"):
        nbgrad.zeros((2, 1.5), pin_memory=nbgrad.zeros(0, dtype=nbgrad.bool))
    with pytest.raises(TypeError, match="failed to unpack the object at pos 2"):
        nbgrad.zeros((2, 1.5))


def test_add_of_two_numbers_is_the_deprecated_alpha_first_overload():
    x = nbgrad.ones(2)
    with warnings.catch_warnings():     # (the deprecation warning: once per process, as PyTorch's)
        warnings.simplefilter("ignore")
        x.add_(1e-30, False)         # (alpha 1e-30, other False: no bool alpha for a float result)
    assert x.tolist() == [1.0, 1.0]
    assert x.add_(2.0, 3.0).tolist() == [7.0, 7.0]
    assert x.sub_(1.0, 2.0).tolist() == [5.0, 5.0]
    with pytest.raises(RuntimeError, match="^Boolean alpha only supported for Boolean results.$"):
        x.add_(False, 2.0)


def test_repeat_to_an_empty_result_of_huge_counts():
    x = nbgrad.zeros(0, requires_grad=True)
    y = x.repeat(3, 2 ** 62)
    assert y.shape == (3, 0) and type(y.grad_fn).__name__ == "RepeatBackward0"
    y.sum().backward()
    assert x.grad.shape == (0,)
    assert nbgrad.zeros(0, dtype=nbgrad.bool).repeat(2 ** 62, 2 ** 62).shape == (2 ** 62, 0)


@pytest.mark.parametrize("dtype, name", [(nbgrad.uint8, "Byte"), (nbgrad.int64, "Long"), (nbgrad.bool, "Bool")])
def test_max_unpool_dispatches_on_floating_types(dtype, name):
    indices = nbgrad.zeros(2, 1, 3, dtype=nbgrad.int64)
    with pytest.raises(NotImplementedError, match=f"^\"max_unpool2d\" not implemented for '{name}'$"):
        F.max_unpool2d(nbgrad.zeros(2, 1, 3, dtype=dtype), indices, 5)
    with pytest.raises(NotImplementedError, match=f"^\"max_unpool2d\" not implemented for '{name}'$"):
        F.max_unpool1d(nbgrad.zeros(2, 1, 3, dtype=dtype), indices, 5)
    assert F.max_unpool2d(nbgrad.ones(2, 1, 3, dtype=nbgrad.float16), indices, 5).shape == (2, 5, 15)


def test_quantile_checks_in_atens_order():
    with pytest.raises(RuntimeError, match="^quantile\\(\\) q must be in the range \\[0, 1\\] but got nan$"):
        nbgrad.quantile(nbgrad.zeros(1), math.nan, dim=-2)
    with pytest.raises(RuntimeError, match="^quantile\\(\\) q must be in the range \\[0, 1\\] but got 2$"):
        nbgrad.quantile(nbgrad.zeros(3, dtype=nbgrad.int64), 2)      # (before the input's dtype)
    with pytest.raises(IndexError, match="^Dimension out of range"):
        nbgrad.quantile(nbgrad.zeros(1), nbgrad.tensor([1.5]), dim=-2)     # (a tensor q: after the dim)
    with pytest.raises(RuntimeError, match="^quantile\\(\\) q values must be in the range \\[0, 1\\]$"):
        nbgrad.quantile(nbgrad.zeros(3), nbgrad.tensor([math.nan]))


def test_batch_norm_cpu_order():
    with pytest.raises(RuntimeError, match="^mixed dtype \\(CPU\\): expect parameter to have scalar type of Float$"):
        F.batch_norm(nbgrad.zeros(1, requires_grad=True), nbgrad.zeros(2, 0, dtype=nbgrad.int64),
                     nbgrad.zeros(0, dtype=nbgrad.bool))
    with pytest.raises(NotImplementedError, match="^\"batch_norm\" not implemented for 'Long'$"):
        F.batch_norm(nbgrad.zeros(2, 2, 3, dtype=nbgrad.int64), nbgrad.zeros(2), nbgrad.zeros(2))
    with pytest.raises(IndexError, match="^Dimension out of range"):     # (training: size(1) first)
        nbgrad.native_batch_norm(nbgrad.zeros(1, dtype=nbgrad.int64), nbgrad.zeros(1, dtype=nbgrad.bfloat16),
                                 nbgrad.zeros(1), None, None, True, 0.0, 0.0)
    with pytest.raises(RuntimeError, match="^SmallVector unable to grow"):
        nbgrad.native_batch_norm(nbgrad.zeros(()), None, None, None, None, False, 0.0, 0.0)


def test_parsers_before_the_ops_checks():
    with pytest.raises(TypeError, match="^split\\(\\) received an invalid combination of arguments - got "
                                        "\\(Tensor, int, tuple\\)"):
        nbgrad.split(nbgrad.zeros(()), 4, dim=(0,))
    with pytest.raises(TypeError, match="^grid_sampler\\(\\): argument 'align_corners' \\(position 5\\) must be "
                                        "bool, not int$"):
        F.grid_sample(nbgrad.zeros(2, 3, 4), nbgrad.zeros(1, 3), align_corners=3)
    x = nbgrad.zeros(1, requires_grad=True)
    with pytest.raises(TypeError, match="^index_put_\\(\\): argument 'indices' \\(position 1\\) must be tuple of "
                                        "Tensors, not NoneType$"):
        x.index_put_(None, nbgrad.zeros(2))
    with pytest.raises(TypeError, match="^expected Tensor as element 0 in argument 0, but got NoneType$"):
        nbgrad.zeros(2, 3).index_put_((None, nbgrad.tensor([0])), nbgrad.ones(1))


def test_hsplit_and_histogramdd_read_integer_tensors():
    x = nbgrad.zeros(2, 4)
    assert [tuple(t.shape) for t in x.hsplit(nbgrad.tensor([[[True]]]), 3)] == [(2, 1), (2, 2), (2, 1)]
    points = nbgrad.tensor([[0.0, 1.0], [0.5, 0.2], [1.0, 1.0]])
    hist, edges = nbgrad.histogramdd(points, nbgrad.tensor(2))
    assert hist.tolist() == [[0.0, 1.0], [1.0, 1.0]]
    assert edges[0].tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="^torch.histogramdd: input tensor should have at least 2 dimensions$"):
        nbgrad.histogramdd(nbgrad.zeros(1), nbgrad.tensor(3))
