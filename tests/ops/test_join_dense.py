"""cat and stack of small row-major CPU tensors copy by NumPy slice assignment
(indexing._join_dense); the result must be the backend copies' one, and any other call must
take them."""
import numpy as np
import pytest

import nbgrad
from nbgrad.ops import indexing as I

RNG = np.random.default_rng(3)


def _both(fn, monkeypatch):
    taken = []
    original = I._join_dense
    monkeypatch.setattr(I, "_join_dense", lambda *a, **k: taken.append(original(*a, **k)) or taken[-1])
    fast = fn()
    monkeypatch.setattr(I, "_join_dense", lambda *a, **k: False)
    general = fn()
    return fast, general, taken


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_the_numpy_copy_gives_the_backend_copys_tensor(op, dim, monkeypatch):
    shapes = []
    for n in ((1, 3, 2) if op == "cat" else (2, 2, 2)):
        shape = [2, 2, 3]
        if op == "cat":
            shape[dim] = n          # the parts differ along the joined dim
        shapes.append(tuple(shape))
    parts = [nbgrad.from_numpy(RNG.standard_normal(shape).astype(np.float32)) for shape in shapes]
    fast, general, taken = _both(lambda: getattr(nbgrad, op)(parts, dim), monkeypatch)
    assert taken == [True]
    assert fast.shape == general.shape and fast.stride() == general.stride() and fast.dtype is general.dtype
    assert np.array_equal(fast.numpy(), general.numpy())
    expected = (np.concatenate if op == "cat" else np.stack)([p.numpy() for p in parts], dim)
    assert np.array_equal(fast.numpy(), expected)


@pytest.mark.parametrize("case", ["transposed", "mixed dtypes", "large"])
def test_other_calls_take_the_backend_copies(case, monkeypatch):
    a = nbgrad.from_numpy(RNG.standard_normal((3, 4)).astype(np.float32))
    parts = {"transposed": [a, a.t().contiguous().t()], "mixed dtypes": [a, a.double()],
             "large": [nbgrad.zeros(300, 300), nbgrad.ones(1, 300)]}[case]
    fast, general, taken = _both(lambda: nbgrad.cat(parts), monkeypatch)
    assert taken == [False]
    assert np.array_equal(fast.numpy(), general.numpy()) and fast.dtype is general.dtype


@pytest.mark.parametrize("shape", [(16,), (3, 5), (2, 0, 4), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_a_boolean_mask_of_the_same_shape_takes_numpys_indexing(shape, dtype, monkeypatch):
    # x[mask] with nothing to record: indexing._masked_dense, the general path's elements
    x = nbgrad.from_numpy(RNG.standard_normal(shape).astype(dtype))
    mask = nbgrad.from_numpy(RNG.random(shape) < 0.5)
    taken = []
    original = I._masked_dense
    monkeypatch.setattr(I, "_masked_dense", lambda *a: taken.append(original(*a)) or taken[-1])
    fast = x[mask]
    monkeypatch.setattr(I, "_masked_dense", lambda *a: None)
    general = x[mask]
    assert taken and taken[0] is not None
    assert fast.shape == general.shape and fast.stride() == general.stride() and fast.dtype is general.dtype
    assert np.array_equal(fast.numpy(), general.numpy())
    assert np.array_equal(fast.numpy(), x.numpy()[mask.numpy()])
    if fast.numel():
        fast.fill_(7)                       # a copy, as the general path's
        assert not np.array_equal(x.numpy()[mask.numpy()], fast.numpy())


def test_a_mask_with_grad_or_another_shape_takes_the_general_path(monkeypatch):
    x = nbgrad.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    y = x[x.detach() > 0]
    assert y.grad_fn.name() == "IndexBackward0" and y.tolist() == [1.0, 3.0]
    with pytest.raises(IndexError):
        x.detach()[nbgrad.tensor([True, False, True])]


def test_stacking_0_dim_tensors_takes_the_numpy_copy(monkeypatch):
    # clip_grad_norm_ stacks one 0-dim norm per parameter; views with offsets among them
    base = nbgrad.from_numpy(RNG.standard_normal(5).astype(np.float32))
    parts = [nbgrad.tensor(1.5), base[3], nbgrad.tensor(-0.0), base[0]]
    for dim in (0, -1):
        with monkeypatch.context() as m:
            fast, general, taken = _both(lambda: nbgrad.stack(parts, dim), m)
        assert taken == [True]
        assert fast.shape == general.shape == (4,) and fast.stride() == general.stride()
        assert fast.numpy().view(np.uint32).tolist() == general.numpy().view(np.uint32).tolist()
