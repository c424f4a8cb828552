"""tensordot, scatter_reduce, index_copy, masked_scatter and more composed functions: values
against NumPy or PyTorch 2.13's (recorded here as literals), gradients against finite
differences (float64), PyTorch's node names, dtypes and errors."""
import numpy as np
import pytest

import nbgrad

# (by attribute: under NBGRAD_TESTS_AGAINST_TORCH=1 `from nbgrad.autograd import` would load
# torch.autograd a second time)
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck

RNG = np.random.default_rng(23)


def leaf(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# -- tensordot ------------------------------------------------------------------------------
@pytest.mark.parametrize("dims, axes", [(2, 2), (1, None), (0, 0), (([1, 2], [0, 1]), ([1, 2], [0, 1])),
                                        ([[2, 1], [1, 0]], ([2, 1], [1, 0])), (([-2, -1], [0, 1]), ([1, 2], [0, 1]))])
def test_tensordot_matches_numpy(dims, axes):
    a = RNG.standard_normal((3, 4, 5))
    b = RNG.standard_normal((4, 5, 6)) if axes != ([2, 1], [1, 0]) else RNG.standard_normal((4, 5, 2))
    if axes is None:
        b = RNG.standard_normal((5, 2))
        axes = 1
    out = nbgrad.tensordot(nbgrad.tensor(a), nbgrad.tensor(b), dims=dims)
    np.testing.assert_allclose(out.numpy(), np.tensordot(a, b, axes), rtol=1e-12)


def test_tensordot_dims_as_tensors_and_size_one_dims():
    a, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((4, 5, 6))
    x, y = nbgrad.tensor(a), nbgrad.tensor(b)
    np.testing.assert_allclose(nbgrad.tensordot(x, y, nbgrad.tensor(2)).numpy(), np.tensordot(a, b, 2))
    np.testing.assert_allclose(nbgrad.tensordot(x, y, nbgrad.tensor([[1, 2], [0, 1]])).numpy(), np.tensordot(a, b, 2))
    # a contracted dim of size 1 against a larger one is summed first (ATen's broadcast rule)
    out = nbgrad.tensordot(x[:, :1], y, dims=([1], [0]))
    np.testing.assert_allclose(out.numpy(), np.tensordot(a[:, :1], b.sum(0, keepdims=True), ([1], [0])))
    assert out.shape == (3, 5, 5, 6)
    assert nbgrad.tensordot(nbgrad.tensor(2.0), nbgrad.tensor(3.0), 0).item() == 6.0
    i = nbgrad.tensordot(nbgrad.arange(6).view(2, 3), nbgrad.arange(6).view(3, 2), 1)
    assert i.dtype == nbgrad.int64 and i.tolist() == [[10, 13], [28, 40]]


def test_tensordot_gradients_and_nodes():
    x, y = leaf(RNG.standard_normal((3, 4, 2))), leaf(RNG.standard_normal((4, 2, 3)))
    out = nbgrad.tensordot(x, y)
    assert out.grad_fn.name() == "ViewBackward0"
    assert out.grad_fn.next_functions[0][0].name() == "MmBackward0"
    assert gradcheck(lambda a, b: nbgrad.tensordot(a, b, ([0, 2], [2, 1])), (x, y))
    assert gradgradcheck(lambda a, b: nbgrad.tensordot(a, b, 1), (x, leaf(RNG.standard_normal((2, 3)))))
    assert gradcheck(lambda a, b: nbgrad.tensordot(a, b, ([1], [0])), (leaf(RNG.standard_normal((2, 1))), y))


def test_tensordot_errors():
    x, y = nbgrad.ones(3, 4, 5), nbgrad.ones(4, 5, 6)
    with pytest.raises(RuntimeError, match="contracted dimensions need to match, but first has size 5 in dim -1 and "
                                           "second has size 4 in dim 0"):
        nbgrad.tensordot(x, y, 1)
    with pytest.raises(RuntimeError, match=r"tensordot expects dims >= 0, but got dims=-1"):
        nbgrad.tensordot(x, y, -1)
    with pytest.raises(RuntimeError, match=r"tensordot expects dims < ndim_a or ndim_b, but got dims=4"):
        nbgrad.tensordot(x, y, 4)
    with pytest.raises(RuntimeError, match=r"tensordot expects dims to be int or tuple\[list\[int\], list\[int\]\] "
                                           r"or list\[list\[int\]\] containing two lists, but got dims=2.0"):
        nbgrad.tensordot(x, y, 2.0)
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        nbgrad.tensordot(x, y, ([1], [0, 1]))
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        nbgrad.tensordot(x, y, ([1, 1], [0, 0]))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 5\)"):
        nbgrad.tensordot(x, y, ([5], [0]))
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        nbgrad.tensordot(x, y.double(), 1)
    with pytest.raises(TypeError, match=r"tensordot\(\): argument 'dims_self' \(position 3\) must be tuple of ints, "
                                        "not int"):
        nbgrad.tensordot(x, y, (1, 0))
    with pytest.raises(ValueError):
        nbgrad.tensordot(x, y, [[1], [0], [2]])


def test_tensordot_out():
    x, y = nbgrad.ones(3, 4, 5), nbgrad.ones(4, 5, 6)
    out = nbgrad.empty(0)
    assert nbgrad.tensordot(x, y, 2, out=out) is out and out.shape == (3, 6) and out[0, 0].item() == 20.0
    with pytest.raises(RuntimeError, match="tensordot: Expected the output tensor to have dtype Float, but got an "
                                           "output tensor with dtype Double"):
        nbgrad.tensordot(x, y, 2, out=nbgrad.empty(0, dtype=nbgrad.float64))


# -- scatter_reduce -------------------------------------------------------------------------
SR_X = [[0., 1., 2., 3.], [4., 5., 6., 7.], [8., 9., 10., 11.]]
SR_SRC = [[1.5, -2., 0.5, 3.], [2., 2., -1., 4.], [0., 1., 2., -3.]]
SR_INDEX = [[0, 1, 2, 0], [1, 1, 0, 2], [0, 1, 2, 2]]
# torch 2.13: torch.tensor(SR_X).scatter_reduce(0, torch.tensor(SR_INDEX), torch.tensor(SR_SRC), reduce,
# include_self=include_self).tolist()
SR_TORCH = {
    ("sum", True): [[1.5, 1.0, 1.0, 6.0], [6.0, 6.0, 6.0, 7.0], [8.0, 9.0, 12.5, 12.0]],
    ("sum", False): [[1.5, 1.0, -1.0, 3.0], [2.0, 1.0, 6.0, 7.0], [8.0, 9.0, 2.5, 1.0]],
    ("prod", True): [[0.0, 1.0, -2.0, 9.0], [8.0, -20.0, 6.0, 7.0], [8.0, 9.0, 10.0, -132.0]],
    ("prod", False): [[0.0, 1.0, -1.0, 3.0], [2.0, -4.0, 6.0, 7.0], [8.0, 9.0, 1.0, -12.0]],
    ("mean", True): [[0.5, 1.0, 0.5, 3.0], [3.0, 1.5, 6.0, 7.0], [8.0, 9.0, 4.166666507720947, 4.0]],
    ("mean", False): [[0.75, 1.0, -1.0, 3.0], [2.0, 0.3333333432674408, 6.0, 7.0], [8.0, 9.0, 1.25, 0.5]],
    ("amax", True): [[1.5, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]],
    ("amax", False): [[1.5, 1.0, -1.0, 3.0], [2.0, 2.0, 6.0, 7.0], [8.0, 9.0, 2.0, 4.0]],
    ("amin", True): [[0.0, 1.0, -1.0, 3.0], [2.0, -2.0, 6.0, 7.0], [8.0, 9.0, 0.5, -3.0]],
    ("amin", False): [[0.0, 1.0, -1.0, 3.0], [2.0, -2.0, 6.0, 7.0], [8.0, 9.0, 0.5, -3.0]],
}


@pytest.mark.parametrize("reduce, include_self", sorted(SR_TORCH))
def test_scatter_reduce_matches_pytorch(reduce, include_self):
    x, src, index = nbgrad.tensor(SR_X), nbgrad.tensor(SR_SRC), nbgrad.tensor(SR_INDEX)
    out = x.scatter_reduce(0, index, src, reduce, include_self=include_self)
    assert out.dtype == nbgrad.float32
    np.testing.assert_allclose(out.numpy(), np.array(SR_TORCH[reduce, include_self], dtype=np.float32), rtol=1e-7)
    same = nbgrad.scatter_reduce(x, 0, index, src, reduce=reduce, include_self=include_self)
    np.testing.assert_array_equal(same.numpy(), out.numpy())
    y = x.clone()
    v = y._version
    assert y.scatter_reduce_(0, index, src, reduce, include_self=include_self) is y
    np.testing.assert_array_equal(y.numpy(), out.numpy())
    assert y._version == v + 1


def test_scatter_reduce_along_other_dims_matches_a_loop():
    x, src = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 5, 3))
    index = RNG.integers(0, 3, (2, 5, 3))
    expected = x.copy()
    for i, j, k in np.ndindex(*index.shape):
        t = expected[i, index[i, j, k], k]
        expected[i, index[i, j, k], k] = max(t, src[i, j, k])
    out = nbgrad.tensor(x).scatter_reduce(-2, nbgrad.tensor(index), nbgrad.tensor(src), "amax")
    np.testing.assert_array_equal(out.numpy(), expected)


def test_scatter_reduce_integers_bool_nan_half():
    i = nbgrad.tensor([0, 0, 1])
    # integer mean divides with floor; the identities of include_self=False are the type's limits
    assert nbgrad.tensor([1, 2, 3]).scatter_reduce(0, i, nbgrad.tensor([4, 5, 7]), "mean").tolist() == [3, 4, 3]
    assert nbgrad.tensor([1, 2, 3]).scatter_reduce(0, i, nbgrad.tensor([4, 5, -8]), "mean",
                                                   include_self=False).tolist() == [4, -8, 3]
    u = nbgrad.tensor([1, 2, 3], dtype=nbgrad.uint8)
    assert u.scatter_reduce(0, i, nbgrad.tensor([4, 5, 8], dtype=nbgrad.uint8), "amin",
                            include_self=False).tolist() == [4, 8, 3]
    b = nbgrad.tensor([True, False])
    bi, bs = nbgrad.tensor([0, 0, 1]), nbgrad.tensor([True, False, True])
    assert b.scatter_reduce(0, bi, bs, "sum").tolist() == [True, True]
    assert b.scatter_reduce(0, bi, bs, "prod").tolist() == [False, False]
    assert b.scatter_reduce(0, bi, bs, "amin", include_self=False).tolist() == [False, True]
    with pytest.raises(NotImplementedError, match="\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for "
                                                  "'Bool'"):
        b.scatter_reduce(0, bi, bs, "mean")
    # a NaN source wins and a NaN already there stays (amax and amin alike)
    nan = float("nan")
    out = nbgrad.tensor([1.0, 2.0, 3.0]).scatter_reduce(0, i, nbgrad.tensor([nan, 5.0, -8.0]), "amin")
    assert np.isnan(out[0].item()) and out[1:].tolist() == [-8.0, 3.0]
    out = nbgrad.tensor([1.0, nan, 3.0]).scatter_reduce(0, nbgrad.tensor([0, 1, 1]), nbgrad.tensor([2.0, 5.0, -8.0]),
                                                        "amax")
    assert np.isnan(out[1].item()) and out[0].item() == 2.0
    # float16 folds in float32 and rounds once (torch 2.13's values)
    h = nbgrad.tensor([5.0, 2.0], dtype=nbgrad.float16)
    hs = nbgrad.tensor([1.1, 1.3, 1.7], dtype=nbgrad.float16)
    assert h.scatter_reduce(0, nbgrad.tensor([0, 0, 0]), hs, "prod").tolist() == [12.1484375, 2.0]
    hs = nbgrad.tensor([1.1, 1.3, 1.7, 0.013, 0.7], dtype=nbgrad.float16)
    assert h.scatter_reduce(0, nbgrad.tensor([0, 0, 0, 0, 1]), hs, "mean").tolist() == [1.822265625, 1.349609375]
    # 0-dim and empty index
    assert nbgrad.tensor(5.0).scatter_reduce(0, nbgrad.tensor([0, 0]), nbgrad.tensor([2.0, 3.0]), "prod").item() == 30.0
    e = nbgrad.tensor([5.0, 2.0]).scatter_reduce(0, nbgrad.zeros(0, dtype=nbgrad.int64), nbgrad.ones(0), "amax")
    assert e.tolist() == [5.0, 2.0]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients(reduce, include_self):
    index = nbgrad.tensor(RNG.integers(0, 3, (4, 3)))
    x, src = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((4, 3)))
    out = x.scatter_reduce(0, index, src, reduce, include_self=include_self)
    assert out.grad_fn.name() == "ScatterReduceBackward0"

    def f(a, s):
        return a.scatter_reduce(0, index, s, reduce, include_self=include_self)
    assert gradcheck(f, (x, src))
    assert gradgradcheck(f, (x, src))


def test_scatter_reduce_gradients_of_ties_and_zeros_match_pytorch():
    # amax: the gradient split evenly between self and the sources equal to the result
    x, s = leaf([5.0, 1.0, 2.0]), leaf([5.0, 5.0, 3.0, 1.0])
    x.scatter_reduce(0, nbgrad.tensor([0, 0, 0, 1]), s, "amax").backward(nbgrad.tensor([1.0, 2.0, 3.0],
                                                                                     dtype=nbgrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [1 / 3, 1.0, 3.0])
    np.testing.assert_allclose(s.grad.numpy(), [1 / 3, 1 / 3, 0.0, 1.0])
    # prod with zeros: a single zero gets the product of the others (torch 2.13's values)
    for include_self, gs in ((True, [0.0, 0.0, 0.0, 6.0, 12.0, 0.0]), (False, [0.0, 5.0, 0.0, 6.0, 6.0, 0.0])):
        x, s = leaf([0.0, 1.0, 2.0]), leaf([5.0, 0.0, 3.0, 0.0, 0.0, 2.0])
        y = x.scatter_reduce(0, nbgrad.tensor([0, 0, 1, 1, 2, 2]), s, "prod", include_self=include_self)
        y.backward(nbgrad.tensor([1.0, 2.0, 3.0], dtype=nbgrad.float64))
        assert x.grad.tolist() == [0.0, 0.0, 0.0] and s.grad.tolist() == gs


def test_scatter_reduce_errors():
    x, src, index = nbgrad.zeros(3, 4), nbgrad.ones(2, 4), nbgrad.tensor([[0, 1, 2, 0], [1, 1, 0, 2]])
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got foo"):
        x.scatter_reduce(0, index, src, "foo")
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected dtype int32/int64 for index"):
        x.scatter_reduce(0, index.float(), src, "sum")
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        x.scatter_reduce(0, index, src.double(), "foo")
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as self tensor"):
        x.scatter_reduce(0, index[0], src, "foo")
    with pytest.raises(RuntimeError, match=r"Expected index \[4, 4\] to be no larger than self \[3, 4\] apart from "
                                           r"dimension 0 and to be no larger size than src \[2, 4\]"):
        x.scatter_reduce(0, nbgrad.zeros(4, 4, dtype=nbgrad.int64), src, "sum")
    with pytest.raises(RuntimeError, match="index 10 is out of bounds for dimension 0 with size 3"):
        x.scatter_reduce(0, index + 10, src, "amax")
    with pytest.raises(RuntimeError, match="index -2 is out of bounds for dimension 1 with size 4"):
        x.scatter_reduce(1, index - 2, src, "amax")
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.scatter_reduce(2, index, src, "sum")
    with pytest.raises(TypeError, match="argument 'include_self' must be bool, not int"):
        x.scatter_reduce(0, index, src, "sum", include_self=1)
    with pytest.raises(TypeError, match=r"argument 'src' \(position 3\) must be Tensor, not float"):
        x.scatter_reduce(0, index, 5.0, "sum")
    # PyTorch's forward takes max/min for amax/amin; its backward refuses them
    assert x.scatter_reduce(0, index, src, "max").tolist() == x.scatter_reduce(0, index, src, "amax").tolist()
    y = x.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but "
                                           "got max."):
        y.scatter_reduce(0, index, src, "max").sum().backward()


def test_scatter_reduce_inplace_checks_write_nothing_on_error():
    index = nbgrad.tensor([[0, 1, 2, 0], [1, 1, 0, 2]])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        nbgrad.zeros(3, 4, requires_grad=True).scatter_reduce_(0, index, nbgrad.ones(2, 4), "sum")
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
        nbgrad.zeros(3, 4).expand(2, 3, 4).scatter_reduce_(1, index.expand(2, 2, 4), nbgrad.ones(2, 2, 4), "sum")
    a = nbgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to a "
                                           "single memory location"):
        a.scatter_reduce_(0, index, a[1:], "sum")
    y = nbgrad.arange(12.0).view(3, 4)
    v = y._version
    with pytest.raises(RuntimeError, match="index 5 is out of bounds"):
        y.scatter_reduce_(0, index + 5, nbgrad.ones(2, 4), "prod")
    assert y._version == v and y.tolist() == nbgrad.arange(12.0).view(3, 4).tolist()
    # on a view of a tensor with history: CopySlices, and the gradient flows to the base
    base = leaf(np.arange(12.0).reshape(3, 4))
    b = base * 1
    b[1:].scatter_reduce_(0, nbgrad.tensor([[0, 1, 0, 1]]), nbgrad.ones(1, 4, dtype=nbgrad.float64) * 3, "amax",
                          include_self=False)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    b.sum().backward()
    assert base.grad.tolist() == [[1.0] * 4, [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]]


def test_scatter_reduce_keywords_and_backend_put_reduce():
    x = nbgrad.zeros(3)
    out = nbgrad.scatter_reduce(input=x, dim=0, index=nbgrad.tensor([0, 0]), src=nbgrad.ones(2), reduce="sum",
                                include_self=False)
    assert out.tolist() == [2.0, 0.0, 0.0]
    assert x.scatter_reduce_(dim=0, index=nbgrad.tensor([2]), src=nbgrad.ones(1), reduce="amax").tolist() == [0, 0, 1]
    # the backend primitive: in order, float16 folded in float32 and rounded once
    be = nbgrad.backends.get_backend("cpu")
    buf = np.array([1.0, 2.0], dtype=np.float16)
    be.put_reduce(buf, np.array([0, 0, 1]), np.array([1.1, 1.3, 3.0], dtype=np.float16), "prod")
    assert buf.tolist() == [np.float16(np.float32(np.float16(1.1)) * np.float32(np.float16(1.3))), 6.0]
    buf = np.array([1, 5], dtype=np.int64)
    be.put_reduce(buf, np.array([0, 1, 0]), np.array([3, 4, 2]), "amin")
    assert buf.tolist() == [1, 4]


# -- index_copy -------------------------------------------------------------------------------
def test_index_copy_values_repeats_and_scalars():
    x, s = nbgrad.zeros(3, 4), nbgrad.arange(8.0).view(2, 4)
    assert x.index_copy(0, nbgrad.tensor([2, 0]), s).tolist() == [[4, 5, 6, 7], [0, 0, 0, 0], [0, 1, 2, 3]]
    assert x.index_copy(0, nbgrad.tensor([2, 2]), s).tolist() == [[0] * 4, [0] * 4, [4, 5, 6, 7]]   # the last wins
    assert nbgrad.index_copy(x, 1, nbgrad.tensor([3, 0]), nbgrad.ones(3, 2)).tolist() == [[1, 0, 0, 1]] * 3
    assert nbgrad.index_copy(input=x, dim=-1, index=nbgrad.tensor([1]), source=nbgrad.ones(3, 1)).sum().item() == 3
    assert nbgrad.zeros(3).index_copy(0, nbgrad.tensor([1]), nbgrad.tensor(5.0)).tolist() == [0.0, 5.0, 0.0]
    assert nbgrad.tensor(3.0).index_copy(0, nbgrad.tensor([0, 0]), nbgrad.tensor([5.0, 6.0])).item() == 6.0
    a = RNG.standard_normal((2, 5, 3))
    idx = [4, 1]
    src = RNG.standard_normal((2, 2, 3))
    expected = a.copy()
    expected[:, idx] = src
    out = nbgrad.tensor(a).index_copy(1, nbgrad.tensor(idx), nbgrad.tensor(src))
    np.testing.assert_array_equal(out.numpy(), expected)
    y = nbgrad.tensor(a)
    v = y._version
    assert y.index_copy_(1, nbgrad.tensor(idx), nbgrad.tensor(src)) is y and y._version == v + 1
    np.testing.assert_array_equal(y.numpy(), expected)


def test_index_copy_gradients_and_node():
    x, s = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((3, 2)))
    y = x.index_copy(1, nbgrad.tensor([3, 3]), s)
    assert y.grad_fn.name() == "IndexCopyBackward0"
    y.backward(nbgrad.arange(12.0, dtype=nbgrad.float64).view(3, 4))
    # torch 2.13: a repeated index's sources both get the gradient; self's is zero there
    assert x.grad.tolist() == [[0, 1, 2, 0], [4, 5, 6, 0], [8, 9, 10, 0]]
    assert s.grad.tolist() == [[3, 3], [7, 7], [11, 11]]
    index = nbgrad.tensor([2, 0])
    assert gradcheck(lambda a, b: a.index_copy(0, index, b), (leaf(RNG.standard_normal((3, 2))),
                                                             leaf(RNG.standard_normal((2, 2)))))
    assert gradgradcheck(lambda a, b: a.index_copy(0, index, b) ** 2, (leaf(RNG.standard_normal((3, 2))),
                                                                      leaf(RNG.standard_normal((2, 2)))))
    # PyTorch's source gradient of a 0-dim self with several indices fails (index_select of a scalar)
    y = leaf(3.0).index_copy(0, nbgrad.tensor([0, 0]), leaf([5.0, 6.0]))
    with pytest.raises(RuntimeError, match=r"index_select\(\): Index to scalar can have only 1 value, got 2 value"):
        y.backward()


def test_index_copy_errors():
    x, s = nbgrad.zeros(3, 4, 5), nbgrad.ones(3, 2, 5)
    i = nbgrad.tensor([2, 0])
    with pytest.raises(RuntimeError, match=r"index_copy_\(\): Source/destination tensor must have same slice shapes. "
                                           r"Destination slice shape: 3 5 at dimension 1 and source slice shape: 3 4 "
                                           "at dimension 0."):
        x.index_copy(1, i, nbgrad.ones(3, 2, 4))
    with pytest.raises(IndexError, match=r"index_copy_\(\): When source and destination are not scalars, their "
                                         r"dimensionality must match. Source dimensionality \(4\), destination "
                                         r"dimensionality \(3\)"):
        x.index_copy(1, i, nbgrad.ones(3, 2, 5, 1))
    with pytest.raises(RuntimeError, match=r"index_copy_\(\): self and source expected to have the same dtype, but "
                                           r"got \(self\) Float and \(source\) Double"):
        x.index_copy(1, i, s.double())
    with pytest.raises(RuntimeError, match=r"index_copy_\(\): Expected a long tensor for index, but got Int"):
        x.index_copy(1, i.int(), s.double())
    with pytest.raises(IndexError, match=r"index_copy_\(\): Index should have dimension 1 or 0 \(got 2\)"):
        x.index_copy(1, i.view(1, 2), s)
    with pytest.raises(IndexError, match=r"index_copy_\(\): When source is scalar, index should have one element "
                                         r"\(got 2\)"):
        x.index_copy(1, i, nbgrad.tensor(1.0))
    with pytest.raises(IndexError, match=r"index_copy_\(\): Number of indices \(1\) should be equal to "
                                         r"source.size\(dim\) \(2\)"):
        nbgrad.zeros(3).index_copy(0, nbgrad.tensor([1]), nbgrad.tensor([5.0, 6.0]))
    with pytest.raises(IndexError, match=r"index_copy_\(\): index -1 is out of bounds for dimension 1 with size 4"):
        x.index_copy(1, nbgrad.tensor([0, -1]), s)
    y = nbgrad.zeros(3, 4, 5)
    with pytest.raises(IndexError, match=r"index 9 is out of bounds"):
        y.index_copy_(1, nbgrad.tensor([9, 0]), s)
    assert y._version == 0 and not y.any()
    z = nbgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to"):
        z.index_copy_(0, i, z[:2])


# -- masked_scatter ---------------------------------------------------------------------------
MASK = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]


def test_masked_scatter_values_and_broadcasting():
    m = nbgrad.tensor(MASK)
    x = nbgrad.zeros(3, 4)
    out = x.masked_scatter(m, nbgrad.arange(10.0))
    assert out.tolist() == [[0, 0, 1, 0], [0, 0, 2, 3], [4, 5, 0, 0]]
    assert nbgrad.masked_scatter(input=x, mask=m, source=nbgrad.arange(10.0)).tolist() == out.tolist()
    # self broadcast with the mask (torch 2.13's values)
    b = nbgrad.zeros(4).masked_scatter(m, nbgrad.arange(10.0))
    assert b.tolist() == [[0, 0, 1, 0], [0, 0, 2, 3], [4, 5, 0, 0]]
    row = x.masked_scatter(m[0], nbgrad.arange(10.0).view(2, 5))
    assert row.tolist() == [[0, 0, 1, 0], [2, 0, 3, 0], [4, 0, 5, 0]]
    y = nbgrad.zeros(3, 4)
    v = y._version
    assert y.masked_scatter_(m, nbgrad.arange(10.0)) is y and y._version == v + 1 and y.tolist() == out.tolist()
    assert nbgrad.zeros(2, 2).masked_scatter(nbgrad.zeros(2, 2, dtype=nbgrad.bool), nbgrad.zeros(0)).sum().item() == 0
    i = nbgrad.zeros(2, 2, dtype=nbgrad.int64).masked_scatter(nbgrad.ones(2, 2, dtype=nbgrad.bool), nbgrad.arange(4))
    assert i.dtype == nbgrad.int64 and i.tolist() == [[0, 1], [2, 3]]


def test_masked_scatter_gradients_and_node():
    m = nbgrad.tensor(MASK)
    x, s = leaf(RNG.standard_normal(4)), leaf(RNG.standard_normal((2, 5)))
    y = x.masked_scatter(m, s)
    assert y.grad_fn.name() == "MaskedScatterBackward0"
    assert [f.name() for f, _ in y.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 2
    y.backward(nbgrad.arange(12.0, dtype=nbgrad.float64).view(3, 4))
    # torch 2.13's gradients: self's summed over the broadcast, source's zero past the selected
    assert x.grad.tolist() == [4.0, 6.0, 10.0, 14.0]
    assert s.grad.tolist() == [[0.0, 2.0, 6.0, 7.0, 8.0], [9.0, 0.0, 0.0, 0.0, 0.0]]
    assert gradcheck(lambda a, b: a.masked_scatter(m, b), (leaf(RNG.standard_normal((3, 4))),
                                                         leaf(RNG.standard_normal(7))))
    assert gradgradcheck(lambda a, b: a.masked_scatter(m, b) ** 2, (leaf(RNG.standard_normal((3, 4))),
                                                                   leaf(RNG.standard_normal(6))))


def test_masked_scatter_errors():
    m, x = nbgrad.tensor(MASK), nbgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        x.masked_scatter(m, nbgrad.arange(5.0))
    with pytest.raises(RuntimeError, match="masked_scatter_ only supports boolean masks, but got mask with dtype Int"):
        x.masked_scatter(m.int(), nbgrad.arange(10.0))
    with pytest.raises(RuntimeError, match="masked_scatter: expected self and source to have same dtypes but "
                                           "gotFloat and Double"):
        x.masked_scatter(m, nbgrad.arange(10.0).double())
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           "non-singleton dimension 0"):
        x.masked_scatter(m[:2], nbgrad.arange(10.0))
    with pytest.raises(RuntimeError, match=r"the number of sizes provided \(1\) must be greater or equal to the "
                                           r"number of dimensions in the tensor \(2\)"):
        nbgrad.zeros(4).masked_scatter_(m, nbgrad.arange(10.0))
    with pytest.raises(TypeError, match=r"masked_scatter\(\): argument 'source' \(position 2\) must be Tensor, not "
                                        "float"):
        x.masked_scatter(m, 1.0)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
        nbgrad.zeros(2, 2).expand(2, 2, 2).masked_scatter_(nbgrad.tensor(True), nbgrad.arange(12.0))
    y = nbgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        y.masked_scatter_(m, nbgrad.arange(3.0))
    assert y._version == 0 and not y.any()


# -- isin -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_test", [0, 3, 50, 3000])
def test_isin_matches_numpy(n_test):
    e = RNG.integers(0, 40, (4, 5))
    t = RNG.integers(0, 40, n_test)
    for invert in (False, True):
        out = nbgrad.isin(nbgrad.tensor(e), nbgrad.tensor(t), invert=invert)
        assert out.dtype == nbgrad.bool and out.shape == (4, 5)
        np.testing.assert_array_equal(out.numpy(), np.isin(e, t, invert=invert))
    # mixed dtypes compare promoted; a NaN is in nothing
    out = nbgrad.isin(nbgrad.tensor(e).double() + 0.5, nbgrad.tensor(t))
    assert not out.any()
    assert nbgrad.isin(nbgrad.tensor([1.0, float("nan")]), nbgrad.tensor([float("nan"), 1.0])).tolist() == [True, False]


def test_isin_numbers_and_errors():
    assert nbgrad.isin(nbgrad.tensor([1, 2, 3, 4]), 2).tolist() == [False, True, False, False]
    r = nbgrad.isin(2, nbgrad.tensor([1, 2]))
    assert r.dim() == 0 and r.item() is True
    assert nbgrad.isin(elements=nbgrad.tensor([1, 2]), test_elements=nbgrad.tensor([2.0])).tolist() == [False, True]
    with pytest.raises(RuntimeError, match="Unsupported input type encountered for isin\\(\\): Bool"):
        nbgrad.isin(nbgrad.tensor([True]), nbgrad.tensor([True]))
    with pytest.raises(TypeError, match=r"isin\(\) received an invalid combination of arguments - got \(int, int\)"):
        nbgrad.isin(2, 3)


# -- aminmax ----------------------------------------------------------------------------------
def test_aminmax_values_named_tuple_and_gradients():
    a = RNG.standard_normal((3, 4))
    r = nbgrad.aminmax(nbgrad.tensor(a))
    assert type(r).__name__ == "aminmax" and r._fields == ("min", "max")
    assert r.min.item() == a.min() and r.max.item() == a.max()
    r = nbgrad.tensor(a).aminmax(dim=1, keepdim=True)
    np.testing.assert_array_equal(r.min.numpy(), a.min(1, keepdims=True))
    np.testing.assert_array_equal(r.max.numpy(), a.max(1, keepdims=True))
    assert repr(r).startswith("nbgrad.return_types.aminmax(\nmin=")
    # ties split evenly (torch 2.13's gradients)
    x = leaf([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    r = nbgrad.aminmax(x, dim=1)
    assert r.min.grad_fn.name() == "AminmaxBackward0" and r.max.grad_fn.name() == "AminmaxBackward0"
    (r.min * 2 + r.max * 3).sum().backward()
    assert x.grad.tolist() == [[2.0, 1.5, 1.5], [1.5, 1.5, 2.0]]
    x = leaf([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    r = nbgrad.aminmax(x)
    (r.min * 2 + r.max * 3).backward()
    assert x.grad.tolist() == [[0.0, 1.5, 1.5], [0.0, 0.0, 2.0]]
    assert gradcheck(lambda t: nbgrad.aminmax(t, dim=0).max * 2 + nbgrad.aminmax(t, dim=0).min,
                     (leaf(RNG.standard_normal((3, 2))),))
    b = nbgrad.aminmax(nbgrad.tensor([True, False]))
    assert b.min.item() is False and b.max.item() is True


def test_aminmax_errors():
    with pytest.raises(RuntimeError, match=r"aminmax\(\): cannot compute aminmax over an empty dimension as the "
                                           "operation has no identity."):
        nbgrad.aminmax(nbgrad.zeros(0, 3))
    with pytest.raises(IndexError, match="aminmax: Expected reduction dim 0 to have non-zero size."):
        nbgrad.aminmax(nbgrad.zeros(0, 3), dim=0)
    assert nbgrad.aminmax(nbgrad.zeros(0, 3), dim=1).min.shape == (0,)
    with pytest.raises(IndexError, match="Dimension out of range"):
        nbgrad.aminmax(nbgrad.zeros(2, 3), dim=2)


# -- block_diag -------------------------------------------------------------------------------
def test_block_diag_values_dtypes_and_gradients():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(2)
    out = nbgrad.block_diag(nbgrad.tensor(a), nbgrad.tensor(b), nbgrad.tensor(5.0, dtype=nbgrad.float64))
    expected = np.zeros((4, 6))
    expected[:2, :3] = a
    expected[2, 3:5] = b
    expected[3, 5] = 5.0
    np.testing.assert_array_equal(out.numpy(), expected)
    mixed = nbgrad.block_diag(nbgrad.ones(2, dtype=nbgrad.int64), nbgrad.ones(1, dtype=nbgrad.float32))
    assert mixed.dtype == nbgrad.float32 and mixed.tolist() == [[1, 1, 0], [0, 0, 1]]
    e = nbgrad.block_diag()
    assert e.shape == (1, 0) and e.dtype == nbgrad.float32
    assert nbgrad.block_diag(nbgrad.zeros(0, 2), nbgrad.ones(1, 1)).tolist() == [[0.0, 0.0, 1.0]]
    x, y = leaf(a), nbgrad.ones(2, requires_grad=True)
    out = nbgrad.block_diag(x, y)
    assert out.grad_fn.name() == "BlockDiagBackward0"
    (out * nbgrad.arange(15.0, dtype=nbgrad.float64).view(3, 5)).sum().backward()
    assert x.grad.tolist() == [[0, 1, 2], [5, 6, 7]] and y.grad.dtype == nbgrad.float32
    assert y.grad.tolist() == [13.0, 14.0]
    assert gradcheck(lambda p, q: nbgrad.block_diag(p, q), (leaf(a), leaf(b)))
    # PyTorch's backward does not move past an empty 1-d input, so the blocks after it read
    # the gradient's rows above theirs (torch 2.13's gradient)
    s = leaf(5.0)
    nbgrad.block_diag(nbgrad.zeros(0), s).backward(nbgrad.tensor([[2.0], [3.0]], dtype=nbgrad.float64))
    assert s.grad.item() == 2.0
    with pytest.raises(RuntimeError, match="torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 "
                                           "has 3 dimensions"):
        nbgrad.block_diag(nbgrad.ones(2, 2, 2))


# -- cov / corrcoef -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 6), (6,), (2, 1)])
def test_cov_corrcoef_match_numpy(shape):
    import warnings
    a = RNG.standard_normal(shape)
    n = a.shape[-1]
    fw, aw = RNG.integers(1, 4, n), RNG.random(n) + 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for correction in (0, 1):
            np.testing.assert_allclose(nbgrad.cov(nbgrad.tensor(a), correction=correction).numpy(),
                                       np.cov(a, ddof=correction), rtol=1e-12)
        np.testing.assert_allclose(nbgrad.tensor(a).cov(fweights=nbgrad.tensor(fw), aweights=nbgrad.tensor(aw)).numpy(),
                                   np.cov(a, fweights=fw, aweights=aw), rtol=1e-12)
        if n > 1:
            np.testing.assert_allclose(nbgrad.corrcoef(nbgrad.tensor(a)).numpy(), np.corrcoef(a), rtol=1e-12)
        x = leaf(a)
        assert nbgrad.cov(x).grad_fn.name() == "SqueezeBackward0"
    if n > 2:
        assert gradcheck(lambda t: nbgrad.cov(t, aweights=nbgrad.tensor(aw)), (x,))
        assert gradgradcheck(lambda t: nbgrad.corrcoef(t), (x,))


def test_cov_corrcoef_dtypes_nodes_and_errors():
    assert nbgrad.cov(nbgrad.tensor([1, 2, 4])).dtype == nbgrad.float32
    assert abs(nbgrad.cov(nbgrad.tensor([1, 2, 4])).item() - 2.3333334922790527) < 1e-7
    assert nbgrad.corrcoef(leaf(RNG.standard_normal((2, 4)))).grad_fn.name() == "ClampBackward1"
    assert nbgrad.corrcoef(leaf(RNG.standard_normal(4))).grad_fn.name() == "DivBackward0"
    x = nbgrad.ones(3, 4)
    with pytest.raises(RuntimeError, match="cov\\(\\): expected input to have two or fewer dimensions but got an input "
                                           "with 3 dimensions"):
        nbgrad.cov(nbgrad.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="corrcoef\\(\\): expected input to have two or fewer dimensions"):
        nbgrad.corrcoef(nbgrad.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="cov\\(\\): bool dtype is not supported for input"):
        nbgrad.cov(x.bool())
    with pytest.raises(RuntimeError, match="expected fweights to have integral dtype but got fweights with Float"):
        nbgrad.cov(x, fweights=nbgrad.ones(4))
    with pytest.raises(RuntimeError, match="expected fweights to have the same numel as there are observations in "
                                           "the input but got 3 != 4"):
        nbgrad.cov(x, fweights=nbgrad.tensor([1, 2, 0]))
    with pytest.raises(RuntimeError, match="cov\\(\\): fweights cannot be negative"):
        nbgrad.cov(x, fweights=nbgrad.tensor([1, 2, -1, 1]))
    with pytest.raises(RuntimeError, match="expected aweights to have floating point dtype but got aweights with Long"):
        nbgrad.cov(x, aweights=nbgrad.tensor([1, 2, 0, 1]))
    with pytest.raises(RuntimeError, match="cov\\(\\): weights sum to zero, can't be normalized"):
        nbgrad.cov(x, aweights=nbgrad.zeros(4))
    with pytest.warns(UserWarning, match="cov\\(\\): degrees of freedom is <= 0. Correction should be strictly less "
                                         "than the number of observations."):
        c = nbgrad.cov(nbgrad.arange(12.0).view(3, 4), correction=4)
    assert c[0, 0].item() == float("inf")


# -- trapezoid / cumulative_trapezoid ---------------------------------------------------------
def _cumtrapz(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    d = np.diff(x) if x is not None else dx
    return np.moveaxis(np.cumsum(d * (y[..., 1:] + y[..., :-1]) / 2.0, -1), -1, axis)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_trapezoid_matches_numpy(dim):
    trapz = getattr(np, "trapezoid", None) or np.trapz
    y = RNG.standard_normal((3, 4))
    x = np.sort(RNG.standard_normal(y.shape[dim]))
    t = nbgrad.tensor(y)
    np.testing.assert_allclose(nbgrad.trapezoid(t, dim=dim).numpy(), trapz(y, axis=dim), rtol=1e-12)
    np.testing.assert_allclose(nbgrad.trapezoid(t, dx=0.5, dim=dim).numpy(), trapz(y, dx=0.5, axis=dim), rtol=1e-12)
    np.testing.assert_allclose(nbgrad.trapezoid(t, nbgrad.tensor(x), dim=dim).numpy(), trapz(y, x, axis=dim),
                               rtol=1e-12)
    np.testing.assert_allclose(nbgrad.trapz(t, nbgrad.tensor(x), dim=dim).numpy(), trapz(y, x, axis=dim), rtol=1e-12)
    np.testing.assert_allclose(nbgrad.cumulative_trapezoid(t, dim=dim).numpy(), _cumtrapz(y, axis=dim), rtol=1e-12)
    np.testing.assert_allclose(nbgrad.cumulative_trapezoid(t, dx=2, dim=dim).numpy(), _cumtrapz(y, dx=2, axis=dim),
                               rtol=1e-12)
    np.testing.assert_allclose(nbgrad.cumulative_trapezoid(t, nbgrad.tensor(x), dim=dim).numpy(),
                               _cumtrapz(y, x, axis=dim), rtol=1e-12)
    full_x = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(nbgrad.trapezoid(t, nbgrad.tensor(full_x), dim=dim).numpy(), trapz(y, full_x, axis=dim),
                               rtol=1e-12)


def test_trapezoid_nodes_gradients_dtypes_and_errors():
    y = leaf(RNG.standard_normal((3, 4)))
    x = leaf(np.sort(RNG.standard_normal(4)))
    assert nbgrad.trapezoid(y, dx=0.5).grad_fn.name() == "MulBackward1"
    assert nbgrad.trapezoid(y, x).grad_fn.name() == "DivBackward1"
    assert nbgrad.cumulative_trapezoid(y).grad_fn.name() == "CumsumBackward0"
    assert nbgrad.cumulative_trapezoid(y, x).grad_fn.name() == "DivBackward1"
    assert gradcheck(lambda a, b: nbgrad.trapezoid(a, b), (y, x))
    assert gradcheck(lambda a, b: nbgrad.cumulative_trapezoid(a, b, dim=-1), (y, x))
    assert gradgradcheck(lambda a: nbgrad.trapezoid(a * a, dx=0.25, dim=0), (y,))
    # integers: float32 results (torch 2.13)
    r = nbgrad.trapezoid(nbgrad.tensor([1, 2, 4]))
    assert r.dtype == nbgrad.float32 and r.item() == 4.5
    assert nbgrad.cumulative_trapezoid(nbgrad.tensor([1, 2, 4])).tolist() == [1.5, 4.5]
    e = nbgrad.trapezoid(nbgrad.zeros(3, 0, dtype=nbgrad.int64))
    assert e.dtype == nbgrad.int64 and e.tolist() == [0, 0, 0]
    assert nbgrad.cumulative_trapezoid(nbgrad.zeros(3, 0)).shape == (3, 0)
    with pytest.raises(RuntimeError, match="trapezoid: received a bool input for `y`, but bool is not supported"):
        nbgrad.trapezoid(nbgrad.tensor([True, False]))
    with pytest.raises(RuntimeError, match="cumulative_trapezoid: There must be one `x` value for each sample point"):
        nbgrad.cumulative_trapezoid(nbgrad.ones(3, 4), nbgrad.ones(3))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        nbgrad.trapezoid(nbgrad.tensor(1.0))
    with pytest.raises(RuntimeError, match="trapezoid: Currently, we only support dx as a real number."):
        nbgrad.trapezoid(nbgrad.ones(3), dx=True)
    with pytest.raises(TypeError, match=r"trapezoid\(\) received an invalid combination of arguments"):
        nbgrad.trapezoid(nbgrad.ones(3), dx=None)


def test_aminmax_is_one_node_with_two_outputs():
    # PyTorch's AminmaxBackward0 is one node for min and max, whose edges are self's
    x = nbgrad.tensor([[1.0, 5.0, 5.0], [2.0, -1.0, -1.0]], requires_grad=True)
    lo, hi = nbgrad.aminmax(x, dim=1)
    assert lo.grad_fn is hi.grad_fn and lo.grad_fn.name() == "AminmaxBackward0"
    assert [f.name() for f, _ in lo.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"]
    (lo.sum() * 2 + hi.sum()).backward()
    assert x.grad.tolist() == [[2.0, 0.5, 0.5], [1.0, 1.0, 1.0]]
    x.grad = None
    lo, hi = nbgrad.aminmax(x)          # over everything: ties share across all dims
    (lo + hi * 3).backward()
    assert x.grad.tolist() == [[0.0, 1.5, 1.5], [0.0, 0.5, 0.5]]
