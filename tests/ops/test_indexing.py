"""Advanced indexing, __setitem__, and the gather/scatter/select/where/cat/stack family, against NumPy."""
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nbgrad

SETTINGS = settings(max_examples=20, deadline=None)


class IT:
    """An integer index tensor in a case table: np.array for NumPy, nbgrad.tensor for nbgrad."""

    def __init__(self, values):
        self.values = values

    def __repr__(self):
        return f"IT({self.values})"


class BT(IT):
    """A boolean mask tensor in a case table."""

    def __repr__(self):
        return f"BT({self.values})"


def to_numpy_index(index):
    if isinstance(index, tuple):
        return tuple(to_numpy_index(i) for i in index)
    if isinstance(index, BT):
        return np.array(index.values, dtype=bool)
    if isinstance(index, IT):
        return np.array(index.values, dtype=np.int64)
    return index


def reference_view(array, index):
    """(view, rest): PyTorch applies integer indices first, as selects, and only then the advanced
    ones, so an int never counts as an advanced index (NumPy's does: a[0, :, [0]] differs)."""
    index = to_numpy_index(index if isinstance(index, tuple) else (index,))
    first, rest = [], []
    for i in index:
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            first.append(i)
        elif i is None:
            first.append(None)
            rest.append(slice(None))
        elif i is Ellipsis:
            first.append(Ellipsis)
            rest.append(Ellipsis)
        else:
            dims = np.asarray(i).ndim if np.asarray(i).dtype == bool else 1
            first.extend([slice(None)] * dims)
            rest.append(i)
    return array[tuple(first)], tuple(rest)


def reference_getitem(array, index):
    view, rest = reference_view(array, index)
    return view[rest]


def reference_setitem(array, index, value):
    view, rest = reference_view(array, index)
    view[rest] = value


def to_nbgrad_index(index):
    if isinstance(index, tuple):
        return tuple(to_nbgrad_index(i) for i in index)
    if isinstance(index, BT):
        return nbgrad.tensor(index.values, dtype=nbgrad.bool)
    if isinstance(index, IT):
        return nbgrad.tensor(index.values, dtype=nbgrad.int64)
    return index


MASK_34 = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]

ADVANCED = [
    [0, 2],
    IT([0, 2]),
    IT([2, 0, 2, 1]),
    IT([[0, 1], [2, 0]]),
    IT([-1, 0]),
    (slice(None), IT([1, 3])),
    (slice(None), [3, 1]),
    (IT([0, 2]), IT([1, 3])),
    (IT([0, 2]), slice(None), IT([1, 3])),        # separated advanced indices go first
    ([0, 2], slice(None), 1),
    (1, [0, 2]),
    (0, slice(None), IT([0, 1])),                 # the int is a select: result (4, 2), not NumPy's (2, 4)
    (IT([0, 2]), slice(None), 1),
    (slice(None), IT([[0], [1]]), IT([1, 2, 3])),  # index tensors broadcast together
    (IT([0, 2]), slice(1, 3), IT([1, 3])),
    (Ellipsis, IT([0, -1])),
    (None, IT([0, 1])),
    (slice(None, None, 2), IT([0, 3]), slice(1, 4)),
    IT(np.zeros(0, dtype=np.int64).tolist()),
    BT([True, False, True]),
    [True, False, True],
    BT(MASK_34),
    (slice(None), BT([False, True, True, False])),
    (BT(MASK_34), IT([0, 4, 1, 2, 3, 0])),
    (1, BT([True, False, False, True]), slice(2, None)),
    BT(np.arange(60).reshape(3, 4, 5) % 7 == 0),
    BT([False, False, False]),
]


@pytest.mark.parametrize("index", ADVANCED, ids=repr)
def test_advanced_getitem_matches_numpy_and_copies(index):
    ref = np.arange(60.0, dtype=np.float32).reshape(3, 4, 5)
    x = nbgrad.arange(60.0).view(3, 4, 5)
    out = x[to_nbgrad_index(index)]
    expected = reference_getitem(ref, index)
    assert tuple(out.shape) == expected.shape
    assert out.dtype == nbgrad.float32
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out._base is None
    x.add_(1000)  # a copy, not a view
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("index", ADVANCED[:12], ids=repr)
def test_advanced_getitem_of_a_strided_view(index):
    base = np.arange(200.0).reshape(5, 8, 5)
    ref = base[::2, ::2]  # shape (3, 4, 5), strided
    x = nbgrad.tensor(base)[::2, ::2]
    expected = reference_getitem(ref, index)
    out = x[to_nbgrad_index(index)]
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


@SETTINGS
@given(data=st.data())
def test_random_integer_array_indexing(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    ref = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    x = nbgrad.tensor(ref)
    index = []
    for n in shape:
        kind = data.draw(st.sampled_from(["slice", "array", "int"]))
        if kind == "slice":
            index.append(slice(data.draw(st.integers(0, n - 1)), None, data.draw(st.integers(1, 2))))
        elif kind == "int":
            index.append(data.draw(st.integers(-n, n - 1)))
        else:
            index.append(np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))))
    arrays = [i for i in index if isinstance(i, np.ndarray)]
    if len({len(a) for a in arrays}) > 1:
        index = [i[:1] if isinstance(i, np.ndarray) else i for i in index]
    expected = reference_getitem(ref, tuple(index))
    out = x[tuple(nbgrad.tensor(i) if isinstance(i, np.ndarray) else i for i in index)]
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


def test_0dim_int_tensor_index_acts_like_an_int():
    x = nbgrad.arange(60).view(3, 4, 5)
    assert x[nbgrad.tensor(1)].shape == (4, 5)
    assert x[nbgrad.tensor(1)].tolist() == x[1].tolist()


# --- __setitem__ -----------------------------------------------------------------------

SETITEM = [
    # (index, value shape or None for a Python scalar)
    (0, None),
    (0, (5,)),
    ((slice(None), 1), (1, 5)),
    ((Ellipsis, slice(None, None, 2)), (3,)),
    ((slice(1, 3), None, slice(None), 4), (1, 4)),
    ([0, 2], None),
    (IT([0, 2]), (4, 5)),
    ((0, slice(None), IT([0, 1])), (4, 2)),
    (IT([2, 0]), (5,)),
    ((IT([0, 2]), slice(None), IT([1, 3])), (2, 4)),
    ((IT([0, 2]), slice(None), IT([1, 3])), (4,)),
    ((slice(None), IT([[0], [1]]), IT([1, 2, 3])), (2, 3)),
    (BT([True, False, True]), (4, 5)),
    (BT(MASK_34), None),
    (BT(MASK_34), (6, 5)),
    (BT(MASK_34), (5,)),
    ((slice(None), BT([False, True, True, False])), (1, 2, 1)),
    (BT(np.arange(60).reshape(3, 4, 5) % 7 == 0), None),
]


@pytest.mark.parametrize("index, value_shape", SETITEM, ids=repr)
def test_setitem_broadcasts_and_keeps_memory(index, value_shape):
    ref = np.arange(60.0, dtype=np.float32).reshape(3, 4, 5)
    x = nbgrad.arange(60.0).view(3, 4, 5)
    ptr, ident = x.data_ptr(), id(x)
    if value_shape is None:
        reference_setitem(ref, index, -1.5)
        x[to_nbgrad_index(index)] = -1.5
    else:
        v = -np.arange(1.0, 1.0 + np.prod(value_shape), dtype=np.float32).reshape(value_shape)
        reference_setitem(ref, index, v)
        x[to_nbgrad_index(index)] = nbgrad.tensor(v)
    np.testing.assert_array_equal(x.numpy(), ref)
    assert x.data_ptr() == ptr and id(x) == ident
    assert x._version == 1


def test_setitem_into_a_strided_view_writes_through_to_the_base():
    base = nbgrad.zeros(4, 6)
    v = base.t()[::2]  # (3, 4), strides (2, 6)
    v[1] = nbgrad.tensor([1.0, 2.0, 3.0, 4.0])
    v[[0, 2], 1] = 9.0
    expected = np.zeros((4, 6), np.float32)
    expected[:, 2] = [1, 2, 3, 4]
    expected[1, 0] = expected[1, 4] = 9
    np.testing.assert_array_equal(base.numpy(), expected)
    assert base._version == 2


def test_setitem_casts_the_value():
    x = nbgrad.zeros(4, dtype=nbgrad.int64)
    x[0] = 2.9
    x[1:3] = nbgrad.tensor([1.7, -2.7])
    x[nbgrad.tensor([3])] = -3.9
    assert x.tolist() == [2, 1, -2, -3]
    b = nbgrad.zeros(3, dtype=nbgrad.bool)
    b[1] = 5
    assert b.tolist() == [False, True, False]
    f = nbgrad.zeros(2)
    f[nbgrad.tensor([True, False])] = 3
    assert f.tolist() == [3.0, 0.0]


def test_setitem_with_a_0dim_tensor_value():
    x = nbgrad.zeros(2, 2)
    x[:, 0] = nbgrad.tensor(4.0)
    x[nbgrad.tensor([True, False])] += 1
    assert x.tolist() == [[5.0, 1.0], [4.0, 0.0]]


def test_setitem_from_a_view_of_itself():
    x = nbgrad.arange(6.0)
    x[:3] = x[3:].clone()
    assert x.tolist() == [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]


# --- index_select, gather, scatter -------------------------------------------------------

@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), data=st.data())
def test_index_select(shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[dim]
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=6))
    ref = np.random.default_rng(0).standard_normal(shape)
    x = nbgrad.tensor(ref)
    i = nbgrad.tensor(idx, dtype=nbgrad.int64)
    expected = np.take(ref, np.array(idx, dtype=np.int64), axis=dim)
    for out in (x.index_select(dim, i), nbgrad.index_select(x, dim, i)):
        assert tuple(out.shape) == expected.shape
        np.testing.assert_array_equal(out.numpy(), expected)


def test_index_select_of_transposed_input():
    x = nbgrad.arange(12.0).view(3, 4).t()
    assert x.index_select(0, nbgrad.tensor([3, 0])).tolist() == [[3.0, 7.0, 11.0], [0.0, 4.0, 8.0]]


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), data=st.data())
def test_gather(shape, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    out_shape = tuple(data.draw(st.integers(1, n)) if d != dim else data.draw(st.integers(1, 6))
                      for d, n in enumerate(shape))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    ref = rng.standard_normal(shape)
    index = rng.integers(0, shape[dim], out_shape)
    x = nbgrad.tensor(ref)
    i = nbgrad.tensor(index)
    # gather reads index[i][j][k] along `dim`, other coordinates are the output's own
    expected = np.empty(out_shape)
    for pos in np.ndindex(*out_shape):
        src = list(pos)
        src[dim] = index[pos]
        expected[pos] = ref[tuple(src)]
    for out in (x.gather(dim, i), nbgrad.gather(x, dim, i)):
        assert tuple(out.shape) == out_shape
        np.testing.assert_array_equal(out.numpy(), expected)


def test_gather_small():
    t = nbgrad.tensor([[1, 2], [3, 4]])
    assert nbgrad.gather(t, 1, nbgrad.tensor([[0, 0], [1, 0]])).tolist() == [[1, 1], [4, 3]]


def test_scatter_with_tensor_and_scalar():
    index = nbgrad.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    src = nbgrad.arange(1.0, 11.0).view(2, 5)
    out = nbgrad.zeros(3, 5).scatter(0, index, src)
    assert out.tolist() == [[1.0, 7.0, 8.0, 4.0, 5.0], [0.0, 2.0, 0.0, 9.0, 0.0], [6.0, 0.0, 3.0, 0.0, 10.0]]
    out2 = nbgrad.zeros(2, 4).scatter(1, nbgrad.tensor([[2], [3]]), 1.5)
    assert out2.tolist() == [[0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 0.0, 1.5]]


def test_scatter_is_out_of_place_and_scatter__in_place():
    x = nbgrad.zeros(2, 3)
    y = x.scatter(1, nbgrad.tensor([[1], [2]]), 7.0)
    assert x.tolist() == [[0.0] * 3] * 2
    assert y.tolist() == [[0.0, 7.0, 0.0], [0.0, 0.0, 7.0]]
    r = x.scatter_(1, nbgrad.tensor([[0], [1]]), nbgrad.tensor([[5.0], [6.0]]))
    assert r is x
    assert x._version == 1
    assert x.tolist() == [[5.0, 0.0, 0.0], [0.0, 6.0, 0.0]]


def test_scatter_add_accumulates_repeated_indices():
    index = nbgrad.tensor([[0, 1, 2, 0, 0], [0, 0, 0, 1, 2]])
    out = nbgrad.zeros(3, 5).scatter_add(0, index, nbgrad.ones(2, 5))
    assert out.tolist() == [[2.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0, 1.0]]
    x = nbgrad.zeros(4)
    assert x.scatter_add_(0, nbgrad.tensor([1, 1, 3, 1]), nbgrad.tensor([1.0, 2.0, 3.0, 4.0])) is x
    assert x.tolist() == [0.0, 7.0, 0.0, 3.0]
    assert nbgrad.scatter_add(nbgrad.zeros(2), 0, nbgrad.tensor([0, 0]), nbgrad.ones(2)).tolist() == [2.0, 0.0]


@SETTINGS
@given(n=st.integers(1, 6), m=st.integers(1, 6), k=st.integers(1, 6), seed=st.integers(0, 1000))
def test_scatter_add_matches_numpy_add_at(n, m, k, seed):
    rng = np.random.default_rng(seed)
    index = rng.integers(0, n, (k, m))
    src = rng.standard_normal((k, m))
    expected = np.zeros((n, m))
    np.add.at(expected, (index, np.broadcast_to(np.arange(m), (k, m))), src)
    out = nbgrad.zeros(n, m, dtype=nbgrad.float64).scatter_add(0, nbgrad.tensor(index), nbgrad.tensor(src))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


# --- masked_fill, where -------------------------------------------------------------------

def test_masked_fill_broadcasts_the_mask():
    x = nbgrad.ones(2, 3)
    m = nbgrad.tensor([True, False, True])
    out = x.masked_fill(m, 5.0)
    assert out.tolist() == [[5.0, 1.0, 5.0]] * 2
    assert x.tolist() == [[1.0] * 3] * 2
    assert x.masked_fill(m, nbgrad.tensor(-2.0)).tolist() == [[-2.0, 1.0, -2.0]] * 2
    r = x.masked_fill_(nbgrad.tensor([[True], [False]]), 0.0)
    assert r is x and x._version == 1
    assert x.tolist() == [[0.0] * 3, [1.0] * 3]


def test_masked_fill_casts_value_and_rejects_non_bool_mask():
    i = nbgrad.tensor([1, 2, 3])
    assert i.masked_fill(nbgrad.tensor([True, False, False]), 9.7).tolist() == [9, 2, 3]
    with pytest.raises(RuntimeError):
        i.masked_fill(nbgrad.tensor([1, 0, 0]), 0)


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=4),
       seed=st.integers(0, 1000))
def test_where_broadcasts_three_ways(shapes, seed):
    rng = np.random.default_rng(seed)
    c = rng.random(shapes.input_shapes[0]) < 0.5
    a = rng.standard_normal(shapes.input_shapes[1]).astype(np.float32)
    b = rng.standard_normal(shapes.input_shapes[2]).astype(np.float32)
    expected = np.where(c, a, b)
    for out in (nbgrad.where(nbgrad.tensor(c), nbgrad.tensor(a), nbgrad.tensor(b)),
                nbgrad.tensor(a).where(nbgrad.tensor(c), nbgrad.tensor(b))):
        assert tuple(out.shape) == expected.shape
        assert out.dtype == nbgrad.float32
        np.testing.assert_array_equal(out.numpy(), expected)


def test_where_promotes_and_takes_scalars():
    c = nbgrad.tensor([True, False])
    out = nbgrad.where(c, 1.5, nbgrad.tensor([1, 2]))
    assert out.dtype == nbgrad.float32
    assert out.tolist() == [1.5, 2.0]
    out = nbgrad.where(c, nbgrad.tensor([1, 2]), nbgrad.tensor([1.5], dtype=nbgrad.float64))
    assert out.dtype == nbgrad.float64
    assert nbgrad.where(c, nbgrad.tensor([1, 2]), 0).dtype == nbgrad.int64
    assert nbgrad.where(nbgrad.tensor([[True], [False]]), 1.0, 0.0).tolist() == [[1.0], [0.0]]


def test_where_with_one_argument_gives_nonzero_indices():
    out = nbgrad.where(nbgrad.tensor([[0, 1], [2, 0]]))
    assert isinstance(out, tuple) and len(out) == 2
    assert out[0].tolist() == [0, 1] and out[1].tolist() == [1, 0]


# --- cat, stack ------------------------------------------------------------------------

@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), data=st.data())
def test_cat(shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    count = data.draw(st.integers(1, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    arrays = []
    for _ in range(count):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3))
        arrays.append(rng.standard_normal(s).astype(np.float32))
    tensors = [nbgrad.tensor(a) for a in arrays]
    if data.draw(st.booleans()):
        tensors = [nbgrad.tensor(np.ascontiguousarray(a.T)).t() if a.ndim == 2 else t
                   for a, t in zip(arrays, tensors)]
    expected = np.concatenate(arrays, axis=dim)
    out = nbgrad.cat(tensors, dim=dim)
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


def test_cat_examples_and_promotion():
    a = nbgrad.ones(2, 1)
    b = nbgrad.zeros(2, 3)
    out = nbgrad.cat([a, b], -1)
    assert out.shape == (2, 4)
    assert out.tolist() == [[1.0, 0.0, 0.0, 0.0]] * 2
    assert nbgrad.cat((nbgrad.ones(2), nbgrad.ones(3))).shape == (5,)
    assert nbgrad.cat([nbgrad.ones(2), nbgrad.ones(2, dtype=nbgrad.float64)]).dtype == nbgrad.float64
    assert nbgrad.cat([nbgrad.ones(2), nbgrad.ones(2, dtype=nbgrad.int64)]).dtype == nbgrad.float32
    c = nbgrad.cat([a, b], dim=1)
    a.fill_(5)
    assert c[0, 0].item() == 1.0  # a copy


def test_cat_shape_mismatch_raises():
    with pytest.raises(RuntimeError):
        nbgrad.cat([nbgrad.ones(2, 3), nbgrad.ones(3, 3)], dim=1)
    with pytest.raises(RuntimeError):
        nbgrad.cat([nbgrad.ones(2, 3), nbgrad.ones(2)], dim=0)


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4), data=st.data())
def test_stack(shape, data):
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    count = data.draw(st.integers(1, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    arrays = [rng.standard_normal(shape) for _ in range(count)]
    expected = np.stack(arrays, axis=dim)
    out = nbgrad.stack([nbgrad.tensor(a) for a in arrays], dim=dim)
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


def test_stack_examples():
    out = nbgrad.stack([nbgrad.ones(2), nbgrad.zeros(2)], dim=1)
    assert out.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert nbgrad.stack([nbgrad.ones(2, 3)] * 4).shape == (4, 2, 3)
    with pytest.raises(RuntimeError):
        nbgrad.stack([nbgrad.ones(2), nbgrad.ones(3)])


def test_setitem_parses_indices_as_getitem_does():
    # one parser serves both: a mask of the wrong shape and a float index fail the same way
    x = nbgrad.zeros(2, 3)
    with pytest.raises(IndexError):
        x[nbgrad.tensor([True, False, True])] = 1.0
    with pytest.raises(IndexError):
        x[nbgrad.tensor([0.0])] = 1.0
    x[:, nbgrad.tensor([True, False, True])] = 5.0
    assert x.tolist() == [[5.0, 0.0, 5.0], [5.0, 0.0, 5.0]]


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 0, 3), (4, 1)])
@pytest.mark.parametrize("index_dtype", [nbgrad.int64, nbgrad.int32])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided index"])
def test_index_select_values_and_gradient_against_numpy(shape, index_dtype, strided):
    # a contiguous CPU index takes the host positions (_host_select_positions), a strided one
    # the Tensor-op path: both against np.take and np.add.at
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    for d in range(len(shape)):
        for picks in ([0, 0], [1, 0, 1], []):
            picks = [p % shape[d] for p in picks] if shape[d] else []
            x = nbgrad.tensor(a, requires_grad=True)
            full = nbgrad.tensor([v for p in picks for v in (p, 0)], dtype=index_dtype)
            idx = full[::2] if strided else nbgrad.tensor(picks, dtype=index_dtype)
            y = x.index_select(d, idx)
            ref = np.take(a, np.array(picks, dtype=np.int64), axis=d)
            np.testing.assert_array_equal(y.detach().numpy(), ref)
            assert y.grad_fn.name() == "IndexSelectBackward0"
            g = rng.standard_normal(ref.shape)
            y.backward(nbgrad.tensor(g))
            want = np.zeros_like(a)
            np.add.at(np.moveaxis(want, d, 0), np.array(picks, dtype=np.int64), np.moveaxis(g, d, 0))
            np.testing.assert_array_equal(x.grad.numpy(), want)
