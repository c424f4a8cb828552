"""Indexing rules the index fuzzer (tests/differential/index_fuzz.py) found nbgrad departing from
(PyTorch 2.13's behaviour recorded): a 0-dim bool tensor is a Python bool (a new dim where it
stands); every ellipsis takes the dims left (PyTorch allows several); an indexed dim of size 0
with index values is out of bounds however empty the result; index_put drops a 0-dim mask."""
import pytest

import nbgrad


def test_a_0_dim_bool_tensor_index_is_a_new_dim_where_it_stands():
    x = nbgrad.arange(9.0).reshape(3, 3)
    assert x[:, nbgrad.tensor(True)].shape == (3, 1, 3)
    assert x[:, nbgrad.tensor(True), 1].tolist() == [[1.0], [4.0], [7.0]]
    assert x[-3, ..., nbgrad.tensor(True)].shape == (3, 1)
    assert nbgrad.zeros(1, 3)[None, nbgrad.tensor(False)].shape == (1, 0, 1, 3)
    y = nbgrad.zeros(2, 3)
    y[:, nbgrad.tensor(True), 1] = 5.0
    assert y.tolist() == [[0.0, 5.0, 0.0], [0.0, 5.0, 0.0]]


def test_every_ellipsis_takes_the_dims_left():
    assert nbgrad.arange(3.0)[..., ...].tolist() == [0.0, 1.0, 2.0]
    assert nbgrad.arange(3.0)[..., None, ...].shape == (3, 1)
    assert nbgrad.arange(6.0).reshape(2, 3)[..., 0, ...].tolist() == [0.0, 3.0]


def test_an_indexed_dim_of_size_0_with_index_values_is_out_of_bounds():
    for call in (lambda: nbgrad.zeros(0, 0)[[0, 0]], lambda: nbgrad.zeros(0, 0)[nbgrad.tensor([0])],
                 lambda: nbgrad.zeros(3, 0, 0)[-2, [0]],
                 lambda: nbgrad.zeros(0, 2).index_put_((nbgrad.tensor([0, 0]),), nbgrad.zeros(3))):
        with pytest.raises(IndexError, match="^index is out of bounds for dimension with size 0$"):
            call()
    assert nbgrad.zeros(2, 0)[[5]].shape == (1, 0)       # (a dim of size 2: its kernel reads no index)
    assert nbgrad.zeros(0, 0)[nbgrad.tensor([], dtype=nbgrad.int64)].shape == (0, 0)


def test_index_put_drops_a_0_dim_mask():
    x = nbgrad.arange(12.0).reshape(3, 2, 2)
    out = x.index_put((nbgrad.tensor([True, False, True]), nbgrad.tensor(True)), nbgrad.tensor([[-1.0], [-2.0]]))
    assert out[0].tolist() == [[-1.0, -1.0], [-2.0, -2.0]] and out[1].tolist() == [[4.0, 5.0], [6.0, 7.0]]
    assert nbgrad.zeros(0, 3).index_put((nbgrad.tensor(True),), nbgrad.zeros(1, 1), accumulate=True).shape == (0, 3)
