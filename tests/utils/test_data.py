"""Datasets, samplers and DataLoader: batching, last partial batch, shuffling, collation, random_split,
and the D2L hand-written iterator."""
import random
from collections import namedtuple

import numpy as np
import pytest

import nbgrad
_data = nbgrad.utils.data
DataLoader, Dataset, Subset, TensorDataset = _data.DataLoader, _data.Dataset, _data.Subset, _data.TensorDataset
default_collate, random_split = _data.default_collate, _data.random_split


def make(n=10):
    X = nbgrad.arange(n * 2, dtype=nbgrad.float32).reshape(n, 2)
    y = nbgrad.arange(n)
    return X, y


def test_tensor_dataset():
    X, y = make()
    ds = TensorDataset(X, y)
    assert len(ds) == 10
    a, b = ds[3]
    assert a.tolist() == [6.0, 7.0] and b.item() == 3
    with pytest.raises(AssertionError, match="Size mismatch"):
        TensorDataset(X, nbgrad.arange(3))


def test_loader_keeps_last_partial_batch_by_default():
    X, y = make(10)
    loader = DataLoader(TensorDataset(X, y), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and [len(b[1]) for b in batches] == [4, 4, 2]
    xb, yb = batches[0]
    assert xb.shape == (4, 2) and yb.tolist() == [0, 1, 2, 3] and yb.dtype == nbgrad.int64
    assert batches[2][0].tolist() == [[16.0, 17.0], [18.0, 19.0]]
    dropped = DataLoader(TensorDataset(X, y), batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [len(b[1]) for b in dropped] == [4, 4]
    assert len(DataLoader(TensorDataset(X, y))) == 10


def test_shuffle_is_a_reproducible_permutation():
    X, y = make(50)
    loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=True)
    nbgrad.manual_seed(123)
    first = [b[1].tolist() for b in loader]
    second = [b[1].tolist() for b in loader]
    nbgrad.manual_seed(123)
    again = [b[1].tolist() for b in loader]
    flat = sum(first, [])
    assert sorted(flat) == list(range(50)) and flat != list(range(50))
    assert first == again and first != second
    for xb, yb in DataLoader(TensorDataset(X, y), batch_size=7, shuffle=True):
        np.testing.assert_array_equal(xb.numpy(), X.numpy()[yb.numpy()])


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": nbgrad.tensor([float(i), float(i * i)]), "i": i, "f": i / 2, "name": f"n{i}"}


def test_default_collate_rules():
    batch = next(iter(DataLoader(Squares(), batch_size=3)))
    assert batch["x"].shape == (3, 2) and batch["x"].tolist()[2] == [2.0, 4.0]
    assert batch["i"].tolist() == [0, 1, 2] and batch["i"].dtype == nbgrad.int64
    assert batch["f"].dtype == nbgrad.float64 and batch["name"] == ["n0", "n1", "n2"]
    pairs = default_collate([(nbgrad.zeros(2), 1), (nbgrad.ones(2), 2)])
    assert isinstance(pairs, list) and pairs[0].shape == (2, 2) and pairs[1].tolist() == [1, 2]
    Point = namedtuple("Point", "a b")
    pt = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(pt, Point) and pt.a.tolist() == [1, 3]
    arr = default_collate([np.zeros(3, np.float32), np.ones(3, np.float32)])
    assert arr.shape == (2, 3) and arr.dtype == nbgrad.float32
    loader = DataLoader(Squares(), batch_size=2, collate_fn=lambda b: [s["i"] for s in b])
    assert list(loader) == [[0, 1], [2, 3], [4]]
    assert next(iter(DataLoader(Squares(), batch_size=None)))["i"] == 0


def test_generic_dataset_path_matches_tensor_fast_path():
    X, y = make(9)
    ds = TensorDataset(X, y)
    fast = list(DataLoader(ds, batch_size=4))
    slow = list(DataLoader(Subset(ds, list(range(9))), batch_size=4))
    for (a, b), (c, d) in zip(fast, slow):
        np.testing.assert_array_equal(a.numpy(), c.numpy())
        np.testing.assert_array_equal(b.numpy(), d.numpy())


def test_random_split():
    nbgrad.manual_seed(0)
    a, b = random_split(range(10), [7, 3])
    assert len(a) == 7 and len(b) == 3
    assert sorted(list(a) + list(b)) == list(range(10))
    c, d, e = random_split(range(10), [0.5, 0.3, 0.2])
    assert [len(c), len(d), len(e)] == [5, 3, 2]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(10), [3, 3])


def test_d2l_data_iter_as_written():
    def data_iter(batch_size, features, labels):
        num_examples = len(features)
        indices = list(range(num_examples))
        random.shuffle(indices)
        for i in range(0, num_examples, batch_size):
            batch_indices = nbgrad.tensor(indices[i: min(i + batch_size, num_examples)])
            yield features[batch_indices], labels[batch_indices]

    random.seed(0)
    features = nbgrad.randn(25, 2)
    labels = (features[:, 0] * 3).reshape((-1, 1))
    seen = []
    for X, y in data_iter(10, features, labels):
        assert X.shape[1] == 2 and y.shape[1] == 1 and X.shape[0] == y.shape[0]
        np.testing.assert_allclose(y.numpy()[:, 0], X.numpy()[:, 0] * 3, rtol=1e-6)
        seen.append(X.shape[0])
    assert seen == [10, 10, 5]
