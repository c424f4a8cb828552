"""The classes API fuzz seed 60 found (PyTorch 2.13's behaviour recorded): torch.index_put and
Tensor.index_put_ read their indices as ATen's _index_put_impl_ does (a bool or uint8 mask is its
dims' nonzero() columns, and one mask with a one-element value is a masked_fill_; nbgrad read a
mask as integer indices, a wrong result, and took a float index), their index dtypes before the
value's shape; renorm wraps its dim before its norm reads the dtype; unravel_index's first read is
indices.is_complex() (a dtype's is a bool, which cannot be called)."""
import pytest

import nbgrad


def test_index_put_reads_a_bool_mask_as_its_dims_nonzero_columns():
    mask = nbgrad.tensor([True, False, True])
    assert nbgrad.zeros(3).index_put((mask,), nbgrad.tensor(1.0)).tolist() == [1.0, 0.0, 1.0]
    x = nbgrad.zeros(3)
    x.index_put_((mask,), nbgrad.tensor(1.0))
    assert x.tolist() == [1.0, 0.0, 1.0]
    assert nbgrad.zeros(3).index_put((mask,), nbgrad.tensor([4.0, 5.0])).tolist() == [4.0, 0.0, 5.0]
    assert nbgrad.zeros(3).index_put((mask,), nbgrad.tensor([4.0, 5.0]), accumulate=True).tolist() == [4.0, 0.0, 5.0]
    assert nbgrad.zeros(3, 2).index_put((mask,), nbgrad.tensor(1.0)).tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    two_dims = nbgrad.tensor([[True, False], [False, False], [True, True]])
    assert nbgrad.zeros(3, 2).index_put((two_dims,), nbgrad.tensor(1.0)).tolist() == \
        [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    assert nbgrad.zeros(3, 2).index_put((mask, nbgrad.tensor([1])), nbgrad.tensor(1.0)).tolist() == \
        [[0.0, 1.0], [0.0, 0.0], [0.0, 1.0]]
    # one mask and a one-element value: masked_fill_ of value.item() (all or nothing for a 0-dim mask)
    assert nbgrad.zeros(3).index_put((nbgrad.tensor(True),), nbgrad.tensor([4.0])).tolist() == [4.0, 4.0, 4.0]
    assert nbgrad.zeros(3).index_put((nbgrad.tensor(False),), nbgrad.tensor([4.0])).tolist() == [0.0, 0.0, 0.0]
    assert nbgrad.zeros(2, 3).index_put((nbgrad.tensor([True, False]),), nbgrad.tensor([7.0], dtype=nbgrad.float64)
                                        ).tolist() == [[7.0, 7.0, 7.0], [0.0, 0.0, 0.0]]
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype "
                                           "unsigned char$"):
        nbgrad.zeros(3).index_put((nbgrad.tensor([1, 0, 1], dtype=nbgrad.uint8),), nbgrad.tensor(1.0))
    with pytest.raises(IndexError, match="^The shape of the mask \\[2\\] at index 0 does not match the shape of the "
                                         "indexed tensor \\[3\\] at index 0$"):
        nbgrad.zeros(3).index_put((nbgrad.tensor([True, False]),), nbgrad.tensor([4.0]))


def test_index_put_gradients_through_a_mask():
    v = nbgrad.tensor([7.0], requires_grad=True)
    x = nbgrad.zeros(2, 3, requires_grad=True)
    y = x.index_put((nbgrad.tensor([True, False]),), v)
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"
    (y * nbgrad.arange(6.0).reshape(2, 3)).sum().backward()
    assert v.grad.tolist() == [3.0] and x.grad.tolist() == [[0.0, 0.0, 0.0], [3.0, 4.0, 5.0]]
    v = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    y = nbgrad.zeros(3).index_put((nbgrad.tensor([True, False, True]),), v, accumulate=True)
    (y * nbgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.tolist() == [1.0, 3.0]


def test_index_put_checks_index_dtypes_before_the_values_shape():
    with pytest.raises(IndexError, match="^tensors used as indices must be long, int, byte or bool tensors$"):
        nbgrad.zeros(3).index_put_((nbgrad.tensor([0.0]),), nbgrad.tensor(1.0))
    with pytest.raises(IndexError, match="^tensors used as indices must be long, int, byte or bool tensors$"):
        nbgrad.index_put(nbgrad.zeros(1, 3), [nbgrad.tensor([0, 0, 0, 0]), nbgrad.tensor(0.0)],
                         nbgrad.zeros(1, 2, 3, 4))
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 2 \\(got 3\\)$"):
        nbgrad.zeros(2, 3).index_put((nbgrad.tensor([0]),) * 3, nbgrad.tensor(7.0))


def test_renorm_wraps_its_dim_before_reading_the_dtype():
    with pytest.raises(IndexError, match="^Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got "
                                         "4\\)$"):
        nbgrad.zeros(1, 3, dtype=nbgrad.int64).renorm_(1, 4, nbgrad.tensor(2.0))
    with pytest.raises(RuntimeError, match="^renorm: p must be real-valued$"):
        nbgrad.zeros(1, 3).renorm(1j, 4, 1j)
    with pytest.raises(RuntimeError, match="^linalg.vector_norm: Expected a floating point or complex tensor"):
        nbgrad.zeros(1, 3, dtype=nbgrad.int64).renorm(1, 1, 2.0)


def test_unravel_index_reads_indices_is_complex_first():
    with pytest.raises(TypeError, match="^'bool' object is not callable$"):
        nbgrad.unravel_index(nbgrad.int64, nbgrad.zeros(2, 3, dtype=nbgrad.bool))
    with pytest.raises(AttributeError, match="^'int' object has no attribute 'is_complex'$"):
        nbgrad.unravel_index(0, nbgrad.zeros(4))
    assert [t.tolist() for t in nbgrad.unravel_index(nbgrad.tensor([5, 1]), (2, 3))] == [[1, 0], [2, 1]]
