"""torch.tensor of a sequence holding tensors, as PyTorch 2.13 reads it: a tensor inside a
sequence is no sequence to its size computation, but a scalar (its one element's value, of
its dtype in the inference), so [t1, t2] of one-element tensors is 1-D; a tensor of more
elements is the error of storing it as a number of the result's dtype.  Where a sequence is
due (below a list's first element) a tensor is iterated."""
import numpy as np
import pytest

import nbgrad


def test_one_element_tensors_in_a_list_are_its_numbers():
    t = nbgrad.tensor([nbgrad.ones(1), nbgrad.ones(1, 1) * 2])
    assert t.shape == (2,) and t.tolist() == [1.0, 2.0]
    assert nbgrad.tensor([[nbgrad.ones(1)]]).shape == (1, 1)
    mixed = nbgrad.tensor((nbgrad.tensor([3], dtype=nbgrad.int32), 2))
    assert mixed.dtype == nbgrad.int64 and mixed.tolist() == [3, 2]
    assert nbgrad.tensor([nbgrad.tensor(1), nbgrad.tensor(2.0)]).dtype == nbgrad.float32


@pytest.mark.parametrize("data, dtype", [([nbgrad.ones(2), nbgrad.ones(2)], None), ([nbgrad.ones(2)], nbgrad.float16),
                                         ([1, nbgrad.ones(2)], None), ([nbgrad.ones(0)], None)])
def test_a_float_result_refuses_a_tensor_of_more_elements(data, dtype):
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        nbgrad.tensor(data, dtype=dtype)
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        nbgrad.as_tensor(data, dtype=dtype)


@pytest.mark.parametrize("data, dtype", [([nbgrad.ones(3, dtype=nbgrad.int64)] * 2, None),
                                         ([nbgrad.ones(2)], nbgrad.bool), ([nbgrad.ones(2)], nbgrad.int64),
                                         ([nbgrad.tensor([3, 4]), [1, 2]], None)])
def test_an_integer_or_bool_result_refuses_it_as_an_index(data, dtype):
    with pytest.raises(TypeError, match="^only integer tensors of a single element can be converted to an index$"):
        nbgrad.tensor(data, dtype=dtype)


def test_a_tensor_where_a_sequence_is_due_is_iterated():
    assert nbgrad.tensor([[1, 2], nbgrad.tensor([3, 4])]).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(TypeError, match="^not a sequence$"):
        nbgrad.tensor([[1, 2], nbgrad.tensor(3)])
    with pytest.raises(ValueError, match="^expected sequence of length 2 at dim 1 \\(got 3\\)$"):
        nbgrad.tensor([[1, 2], nbgrad.tensor([3, 4, 5])])
    # NumPy arrays stay sequences
    assert nbgrad.tensor([np.ones(2), np.ones(2)]).shape == (2, 2)
