"""PyTorch's adaptive pools (2-D, 3-D) and max_unpool are Python over their ops: its
_list_with_default and _unpool_output_size read the input's size first (a non-tensor input is
their AttributeError), then the output size (their ValueError, a tuple's IndexError), before the
op's own checks; F.max_pool2d & co. are boolean_dispatch, which tests return_indices before
either function.  Messages recorded from PyTorch 2.13."""
import pytest

import nbgrad

F = nbgrad.nn.functional


@pytest.mark.parametrize("fn, shape, size, rank", [
    (F.adaptive_avg_pool2d, (4,), (2, 2), 3), (F.adaptive_max_pool2d, (3,), (2, 2), 3),
    (F.adaptive_avg_pool3d, (1, 1), (2, 2, 2), 4), (F.adaptive_max_pool3d, (1, 1, 1), (1, 2, 2), 4),
])
def test_adaptive_pools_ask_for_more_input_dims_than_sizes(fn, shape, size, rank):
    with pytest.raises(ValueError, match=f"^Input dimension should be at least {rank}$"):
        fn(nbgrad.ones(shape), size)


@pytest.mark.parametrize("fn", [F.adaptive_avg_pool2d, F.adaptive_max_pool2d, F.adaptive_avg_pool3d,
                                F.adaptive_max_pool3d, F.max_unpool1d, F.max_unpool2d])
def test_a_non_tensor_input_is_pythons_attribute_error(fn):
    args = (2,) if "adaptive" in fn.__name__ else (nbgrad.ones(1, dtype=nbgrad.int64), 2)
    with pytest.raises(AttributeError, match="'int' object has no attribute"):
        fn(3, *args)


def test_adaptive_pools_resolve_none_sizes_and_read_tuples_of_ints():
    x = nbgrad.ones(1, 2, 5, 6)
    assert F.adaptive_avg_pool2d(x, (None, 3)).shape == (1, 2, 5, 3)
    assert F.adaptive_max_pool2d(x, (nbgrad.tensor(2), None)).shape == (1, 2, 2, 6)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float"):
        F.adaptive_avg_pool2d(x, (2.0, 3))


def test_unpool_output_size_checks_in_pytorchs_order():
    x, i = nbgrad.ones(1, 1, 2), nbgrad.zeros(1, 1, 2, dtype=nbgrad.int64)
    # (too few input dims for the kernel's: the size tuple's IndexError)
    with pytest.raises(IndexError, match="tuple index out of range"):
        F.max_unpool2d(nbgrad.ones(3), nbgrad.zeros(3, dtype=nbgrad.int64), 2)
    with pytest.raises(TypeError, match="object of type 'int' has no len"):
        F.max_unpool1d(x, i, 2, output_size=-1)
    with pytest.raises(ValueError, match=r"^max_unpooling: output_size must contain non-negative spatial "
                                         r"dimensions, but got output_size\[0\]=-2$"):
        F.max_unpool1d(x, i, 1, padding=2)
    assert F.max_unpool1d(x, i, 1, padding=1).shape == (1, 1, 0)       # (no elements: nothing written)
    # _single of a tensor is its rows (none for an empty one): the op's count of sizes speaks
    with pytest.raises(RuntimeError, match=r"There should be exactly two elements \(height, width\) in "
                                           r"output_size, but got 1 elements"):
        F.max_unpool1d(x, i, nbgrad.ones(0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        F.max_unpool1d(x, i, 2, stride=nbgrad.tensor(1.0))


@pytest.mark.parametrize("fn", [F.max_pool2d, F.adaptive_max_pool2d])
def test_boolean_dispatch_tests_return_indices_first(fn):
    # (a 1-D input is refused by both functions; PyTorch's dispatch reads the flag before)
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        fn(nbgrad.ones(3), 2, return_indices=nbgrad.ones(2, 2))
