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
    # PyTorch 2.13 numbers the index tensors in this message, not the dims they index
    ((slice(None), [-4]), "index -4 is out of bounds for dimension 0 with size 3"),
    (([1], slice(None), [9]), "index 9 is out of bounds for dimension 1 with size 4"),
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


@pytest.mark.parametrize("host", [True, False])
def test_bounds_as_pytorchs_index_kernel_checks_them(monkeypatch, host):
    # PyTorch 2.13: an empty dim's message names no index; an empty result reads (and checks) no
    # index; both paths (NumPy's on the host, the general one of tensor ops) say the same
    if not host:
        monkeypatch.setattr(I, "_host_positions", lambda v, advanced: None)
    with pytest.raises(IndexError, match="^index is out of bounds for dimension with size 0$"):
        nbgrad.zeros(3, 0)[:, _idx([0])]
    with pytest.raises(IndexError, match="^index is out of bounds for dimension with size 0$"):
        nbgrad.zeros(0, 3)[_idx([0]), _idx([1])]
    assert nbgrad.zeros(0, 3)[:, _idx([7])].shape == (0, 1)
    assert nbgrad.zeros(3, 0)[_idx([7])].shape == (1, 0)          # (a lone index: _taken_dense too)
    assert nbgrad.zeros(3, 2)[:, _idx([])].shape == (3, 0)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_a_lone_index_tensor_on_a_row_major_cpu_tensor_takes_numpys_rows(monkeypatch, dtype):
    # x[t] with nothing to record: NumPy's indexing along dim 0 (_taken_dense), the general
    # path's values, shape and errors, a new row-major tensor sharing nothing with x
    x = nbgrad.from_numpy(X.copy())
    for values in ([1, 0, -1], [[0, -2], [1, 1]], []):
        t = _idx(values, dtype)
        got = x[t]
        with monkeypatch.context() as m:
            m.setattr(I, "_taken_dense", lambda x, index: None)
            want = x[t]
        assert got.shape == want.shape and got.is_contiguous() and got.dtype == x.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        if got.numel():
            got.view(-1)[0] = -1.0
            assert (x.numpy() >= 0).all()       # (X holds no negative value: nothing shared)
    with pytest.raises(IndexError, match="^index 2 is out of bounds for dimension 0 with size 2$"):
        x[_idx([0, 2], dtype)]
    with pytest.raises(IndexError, match="^index -3 is out of bounds for dimension 0 with size 2$"):
        x[_idx([-3], dtype)]
    w = nbgrad.from_numpy(X.copy()).requires_grad_()
    y = w[_idx([1, 1], dtype)]
    assert y.grad_fn.name() == "IndexBackward0"          # (the general path records)
    y.sum().backward()
    assert np.array_equal(w.grad.numpy()[1], np.full(X.shape[1:], 2.0, np.float32))
