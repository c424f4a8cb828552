"""sort, argsort and topk against NumPy; their gradients go back to the sorted positions."""
import numpy as np
import pytest

import nbgrad

RNG = np.random.default_rng(7)


def distinct(shape, dtype=np.float32):
    # a permutation scaled: no ties, so indices are unique and comparable with NumPy's
    return (RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.5 - 3).astype(dtype)


@pytest.mark.parametrize("shape, dim", [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2)])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_sort_matches_numpy(shape, dim, descending, layout):
    a = distinct(shape)
    x = nbgrad.tensor(a)
    if layout == "transposed" and a.ndim > 1:
        a = np.ascontiguousarray(a.swapaxes(0, -1))
        x = nbgrad.tensor(a.swapaxes(0, -1).copy()).transpose(0, -1)
    values, indices = x.sort(dim=dim, descending=descending)
    order = np.argsort(-a if descending else a, axis=dim, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, order, axis=dim))
    np.testing.assert_array_equal(nbgrad.argsort(x, dim, descending=descending).numpy(), order)
    assert values.dtype == x.dtype and indices.dtype == nbgrad.int64


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = nbgrad.tensor([1.0, float("nan"), -2.0])
    assert x.sort().indices.tolist() == [2, 0, 1]
    assert x.sort(descending=True).indices.tolist() == [1, 0, 2]


def test_sort_ints_and_bools():
    x = nbgrad.tensor([3, -1, 2])
    assert x.sort().values.tolist() == [-1, 2, 3]
    assert nbgrad.tensor([True, False, True]).sort().values.tolist() == [False, True, True]


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_numpy(largest):
    a = distinct((4, 6))
    values, indices = nbgrad.tensor(a).topk(3, dim=1, largest=largest)
    order = np.argsort(-a if largest else a, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, order, axis=1))
    with pytest.raises(RuntimeError):
        nbgrad.tensor(a).topk(7, dim=1)


def test_sort_and_topk_gradients():
    x = nbgrad.tensor(distinct((3, 4), np.float64), requires_grad=True)
    assert nbgrad.autograd.gradcheck(lambda t: t.sort(dim=1)[0], (x,))
    assert nbgrad.autograd.gradcheck(lambda t: t.sort(dim=0, descending=True)[0], (x,))
    assert nbgrad.autograd.gradcheck(lambda t: t.topk(2, dim=1)[0], (x,))
    values, _ = x.topk(2, dim=1)
    assert values.grad_fn.name() == "TopkBackward0"
    assert x.sort(dim=1)[0].grad_fn.name() == "SortBackward0"
