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


# PyTorch's CPU kernels leave ties where libstdc++'s std::sort / nth_element / partial_sort
# and ATen's quickselect leave them (nbgrad/backends/_shared/stdsort.py); recorded from torch 2.13
TIES = [1.0, 0.0, 2.0] * 8 + [1.0]


def test_sort_ties_follow_pytorchs_unstable_sort_and_stable_keeps_order():
    x = nbgrad.tensor(TIES)
    assert x.sort().indices.tolist() == [1, 22, 4, 19, 7, 16, 10, 13, 24, 0, 21, 18, 15, 12, 9, 6, 3, 14, 11, 17,
                                         8, 20, 5, 23, 2]
    assert x.sort(descending=True).indices.tolist() == [2, 23, 5, 20, 8, 17, 11, 14, 12, 24, 21, 18, 15, 0, 9, 6,
                                                        3, 13, 10, 16, 7, 19, 4, 22, 1]
    assert nbgrad.argsort(x).tolist() == x.sort().indices.tolist()
    stable = [1, 4, 7, 10, 13, 16, 19, 22, 0, 3, 6, 9, 12, 15, 18, 21, 24, 2, 5, 8, 11, 14, 17, 20, 23]
    assert x.sort(stable=True).indices.tolist() == stable
    assert nbgrad.argsort(x, stable=True).tolist() == stable
    # up to 16 elements std::sort is an insertion sort: stable
    assert nbgrad.tensor(TIES[:16]).sort().indices.tolist() == \
        np.argsort(np.array(TIES[:16]), kind="stable").tolist()


def test_topk_kthvalue_and_mode_ties_follow_pytorch():
    x = nbgrad.tensor(TIES)
    assert x.topk(3).indices.tolist() == [11, 8, 17]                       # nth_element, then sort
    assert x.topk(5, largest=False, sorted=False).indices.tolist() == [10, 7, 16, 19, 13]
    y = nbgrad.tensor([float(i % 3) for i in range(200)])
    assert y.topk(2).indices.tolist() == [5, 2]                            # k * 64 <= n: partial_sort
    assert y.topk(3, largest=False).indices.tolist() == [6, 3, 0]
    assert [x.kthvalue(k).indices.item() for k in (1, 5, 9, 13, 20, 25)] == [19, 1, 12, 0, 2, 11]
    assert x.mode().indices.item() == 3
    assert nbgrad.tensor([3.0, 1.0, 3.0, 1.0, 2.0] * 4).mode().indices.item() == 11
    # the gradient goes to the index PyTorch picks
    t = nbgrad.tensor(TIES, requires_grad=True)
    t.kthvalue(9).values.backward()
    assert t.grad.tolist().index(1.0) == 12


def test_long_1d_integer_sort_is_pytorchs_stable_radix_sort():
    # PyTorch sorts a 1-D integer tensor of at least 32768 elements ascending with a radix
    # sort (stable); below, or descending, std::sort
    for n, stable in ((32767, False), (32768, True)):
        v = nbgrad.tensor(np.arange(n) % 2)
        first = v.sort().indices[:8].tolist()
        assert (first == [0, 2, 4, 6, 8, 10, 12, 14]) is stable
    assert nbgrad.tensor(np.arange(32767) % 2).sort().indices[:8].tolist() == \
        [13520, 13532, 13530, 26002, 13528, 13526, 26004, 13524]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_row_major_last_dim_sort_and_topk_equal_the_copying_path(dtype):
    # a row-major tensor sorted along its last dim is read in place and its topk's first k
    # columns sliced by NumPy; the same values through a transposed layout (rows copied out
    # and back, narrow and copy) give the same values, indices and ties
    a = RNG.integers(-3, 4, (6, 40)).astype(dtype)      # (many ties)
    x = nbgrad.tensor(a)
    xt = nbgrad.tensor(np.ascontiguousarray(a.T)).t()
    assert x.is_contiguous() and not xt.is_contiguous()
    for stable in (False, True):
        for descending in (False, True):
            # (keywords: PyTorch's sort takes stable= only with dim and descending as keywords)
            kw = dict(dim=-1, descending=descending, stable=stable)
            got, want = x.sort(**kw), xt.sort(**kw)
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    if dtype is np.bool_:
        return
    for k in (0, 1, 5, 40):
        for largest in (True, False):
            got, want = x.topk(k, largest=largest), xt.topk(k, largest=largest)
            assert got.values.shape == (6, k) and got.values.is_contiguous()
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    w = nbgrad.tensor(a.astype(np.float64), requires_grad=True)
    v = w.topk(3).values
    v.backward(nbgrad.ones_like(v))
    expect = np.zeros(a.shape)
    np.put_along_axis(expect, w.detach().topk(3).indices.numpy(), 1.0, axis=1)
    np.testing.assert_array_equal(w.grad.numpy(), expect)
    # the values do not share memory with the full arrangement, nor with x
    v0 = x.topk(2).values
    assert v0._storage.buffer.base is None or v0._storage.buffer.base.size == v0.numel()
