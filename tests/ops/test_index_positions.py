"""Advanced indexing's flat positions on the host (indexing._host_positions) against the
general path of Tensor ops it stands in for: the same shape, positions, errors and values."""
import numpy as np
import pytest

import nbgrad
from nbgrad.ops import indexing as I

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)


def _idx(values, dtype=np.int64):
    return nbgrad.from_numpy(np.array(values, dtype=dtype))


CASES = {
    "dim0": lambda x: (x, [(0, _idx([1, 0, 1, -1]))]),
    "dim0_int32_2d": lambda x: (x, [(0, _idx([[1, 0], [-2, 1]], np.int32))]),
    "dim2_after_slices": lambda x: (x, [(2, _idx([3, -4, 0]))]),
    "adjacent_pair": lambda x: (x, [(1, _idx([0, 2, 1])), (2, _idx([[3], [1]]))]),
    "apart_pair": lambda x: (x, [(0, _idx([1, 0])), (3, _idx([4, -1]))]),
    "transposed_index": lambda x: (x, [(1, nbgrad.from_numpy(np.array([[0, 1, 2], [2, 1, 0]])).t())]),
    "empty_index": lambda x: (x, [(1, _idx([], np.int64))]),
    "one_dim_x": lambda x: (x.reshape(-1), [(0, _idx([119, 0, -120, 7]))]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_host_positions_are_the_general_paths(case, monkeypatch):
    v, advanced = CASES[case](nbgrad.from_numpy(X.copy()))
    shape, pos = I._advanced_layout(v, advanced)
    monkeypatch.setattr(I, "_host_positions", lambda v, advanced: None)
    shape0, pos0 = I._advanced_layout(v, advanced)
    assert tuple(shape) == tuple(shape0) and tuple(pos.shape) == tuple(pos0.shape)
    assert pos.dtype == pos0.dtype == nbgrad.int64 and np.array_equal(pos.numpy(), pos0.numpy())


@pytest.mark.parametrize("index, message", [
    (([0, 2],), "index 2 is out of bounds for dimension 0 with size 2"),
    ((slice(None), [-4]), "index -4 is out of bounds for dimension 1 with size 3"),
    (([0, 1], [0, 1, 2]), r"shape mismatch: indexing tensors could not be broadcast together with shapes \[2\], \[3\]"),
    (([0, 7], [0, 1, 2]), "shape mismatch"),        # (PyTorch: the broadcast before the bounds)
])
def test_errors_are_the_general_paths(index, message):
    x = nbgrad.from_numpy(X.copy())
    tensors = tuple(_idx(i) if isinstance(i, list) else i for i in index)
    with pytest.raises(IndexError, match=message):
        x[tensors]


def test_values_and_gradient_of_a_repeated_index():
    x = nbgrad.from_numpy(X[0].copy()).requires_grad_()
    idx = _idx([2, 0, 2, -1])
    y = x[idx]
    assert np.array_equal(y.detach().numpy(), X[0][[2, 0, 2, -1]])
    assert y.grad_fn.name() == "IndexBackward0"
    y.sum().backward()
    expected = np.zeros_like(X[0])
    np.add.at(expected, [2, 0, 2, -1], 1.0)
    assert np.array_equal(x.grad.numpy(), expected)
    assert idx.tolist() == [2, 0, 2, -1]            # the user's index is not written
