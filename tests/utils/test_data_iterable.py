"""utils.data beyond map-style datasets: IterableDataset (+ ChainDataset), StackDataset,
SubsetRandomSampler, default_convert, and DataLoader over an IterableDataset: batching,
drop_last, batch_size=None, PyTorch's errors, worker processes that each iterate their own
copy (duplicates unless the dataset shards itself by get_worker_info()), the order batches
come back in (PyTorch's recorded sequences), len() and the warning when an epoch yields more."""
import warnings
from collections import namedtuple

import numpy as np
import pytest

import nbgrad

_data = nbgrad.utils.data
DataLoader, IterableDataset, get_worker_info = _data.DataLoader, _data.IterableDataset, _data.get_worker_info


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


class CountWithLen(Count):
    def __len__(self):
        return self.n


class Sharded(CountWithLen):
    """Each worker yields every num_workers-th sample from its id on: no duplicates."""

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class Uneven(IterableDataset):
    """Worker w yields 1 + 2 (w + 1) samples (w, k): workers run out at different times."""

    def __iter__(self):
        info = get_worker_info()
        wid = -1 if info is None else info.id
        return iter([(wid, k) for k in range(1 + 2 * (wid + 1))])


class Infos(IterableDataset):
    def __init__(self):
        self.tag = "main"

    def __iter__(self):
        info = get_worker_info()
        yield (info.id, info.num_workers, info.seed, type(info.dataset).__name__, info.dataset.tag)


def _plain(v):
    if hasattr(v, "tolist"):
        return v.tolist()
    return [_plain(e) for e in v] if isinstance(v, (list, tuple, DataLoader)) else v


# -- datasets ------------------------------------------------------------------------------------
def test_iterable_dataset_add_and_chain():
    chained = Count(3) + Count(2)
    assert type(chained) is _data.ChainDataset
    assert list(chained) == [0, 1, 2, 0, 1]
    again = chained + Count(1)
    assert list(again) == [0, 1, 2, 0, 1, 0]
    assert len(_data.ChainDataset([CountWithLen(3), CountWithLen(4)])) == 7
    with pytest.raises(TypeError):
        len(_data.ChainDataset([Count(3)]))
    bad = _data.ChainDataset([Count(1), _data.TensorDataset(nbgrad.zeros(2))])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(bad)
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(_data.ChainDataset([_data.TensorDataset(nbgrad.zeros(2))]))
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        _data.ConcatDataset([_data.TensorDataset(nbgrad.zeros(2)), CountWithLen(2)])
    with pytest.raises(TypeError, match="Can't instantiate abstract class"):
        IterableDataset()


def test_stack_dataset_tuple_and_dict():
    a = _data.TensorDataset(nbgrad.arange(4.0))
    b = list("wxyz")
    s = _data.StackDataset(a, b)
    assert len(s) == 4
    (x,), letter = s[2]
    assert x.item() == 2.0 and letter == "y"
    d = _data.StackDataset(num=a, ch=b)
    item = d[3]
    assert list(item) == ["num", "ch"] and item["num"][0].item() == 3.0 and item["ch"] == "z"
    assert [t[1] for t in s.__getitems__([0, 3])] == ["w", "z"]
    assert [t["ch"] for t in d.__getitems__([1, 2])] == ["x", "y"]
    # collated by the DataLoader as tuples / dicts of batches
    batch = next(iter(DataLoader(d, batch_size=3)))
    assert batch["num"][0].tolist() == [0.0, 1.0, 2.0] and batch["ch"] == ["w", "x", "y"]


def test_stack_dataset_errors():
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        _data.StackDataset([1, 2], [1])
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        _data.StackDataset(a=[1, 2], b=[1, 2, 3])
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        _data.StackDataset()
    with pytest.raises(ValueError, match=r"Supported either ``tuple``- \(via ``args``\) or``dict``- \(via "
                                         r"``kwargs``\) like input/output, but both types are given."):
        _data.StackDataset([1], b=[2])


def test_subset_random_sampler():
    indices = [10, 11, 12, 13, 14, 15]
    g = nbgrad.Generator().manual_seed(5)
    sampler = _data.SubsetRandomSampler(indices, generator=g)
    assert len(sampler) == 6
    first = list(sampler)
    assert sorted(first) == indices
    # the order is randperm's from that generator, indices picked through it; the generator
    # moves on: the next epoch has the next permutation
    second = list(sampler)
    ref = nbgrad.Generator().manual_seed(5)
    perm, perm2 = nbgrad.randperm(6, generator=ref).tolist(), nbgrad.randperm(6, generator=ref).tolist()
    assert first == [indices[i] for i in perm] and second == [indices[i] for i in perm2]
    assert perm != perm2
    # the default generator, reproducible under manual_seed
    nbgrad.manual_seed(3)
    a = list(_data.SubsetRandomSampler(indices))
    nbgrad.manual_seed(3)
    assert a == list(_data.SubsetRandomSampler(indices))
    loader = DataLoader(list(range(20)), batch_size=4, sampler=_data.SubsetRandomSampler(indices))
    got = [v for b in loader for v in b.tolist()]
    assert sorted(got) == indices and len(loader) == 2


def test_default_convert_as_pytorch():
    Pair = namedtuple("Pair", "a b")
    conv = _data.default_convert
    out = conv((1, np.arange(3), "s"))
    assert isinstance(out, list) and out[0] == 1 and out[2] == "s"
    assert isinstance(out[1], nbgrad.Tensor) and out[1].tolist() == [0, 1, 2]
    p = conv(Pair(np.float64(2.5), [np.int64(3)]))
    assert isinstance(p, Pair) and p.a.dtype is nbgrad.float64 and p.a.item() == 2.5
    assert isinstance(p.b, list) and p.b[0].item() == 3
    d = conv({"x": np.ones(2, np.float32), "y": 7})
    assert d["x"].dtype is nbgrad.float32 and d["y"] == 7
    strings = np.array(["a", "b"])
    assert conv(strings) is strings


# -- DataLoader over an IterableDataset, one process -------------------------------------------
def test_single_process_batching():
    assert _plain(DataLoader(Count(7), batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _plain(DataLoader(Count(7), batch_size=3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert _plain(DataLoader(Count(6), batch_size=3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert _plain(DataLoader(Count(4), batch_size=None)) == [0, 1, 2, 3]
    assert _plain(DataLoader(Count(3) + Count(2), batch_size=2)) == [[0, 1], [2, 0], [1]]
    assert _plain(DataLoader(Count(0), batch_size=2)) == []
    batch = next(iter(DataLoader(Uneven(), batch_size=2)))
    assert isinstance(batch, list) and batch[0].tolist() == [-1] and batch[1].tolist() == [0]
    # without batching, default_convert turns a tuple sample into a list
    assert list(DataLoader(Uneven(), batch_size=None)) == [[-1, 0]]
    loader = DataLoader(Count(5), batch_size=2, collate_fn=lambda b: tuple(b))
    assert list(loader) == [(0, 1), (2, 3), (4,)]
    assert list(loader) == [(0, 1), (2, 3), (4,)]      # a new iterator per epoch


@pytest.mark.parametrize("kwargs, msg", [
    (dict(shuffle=True), "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True"),
    (dict(sampler=[1]), "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=[1]"),
    (dict(batch_sampler=[[1]]), "DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                "got batch_sampler=[[1]]"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching and is mutually "
                                            "exclusive with drop_last"),
])
def test_loader_errors(kwargs, msg):
    with pytest.raises(ValueError) as info:
        DataLoader(Count(3), **kwargs)
    assert str(info.value) == msg


def test_shuffle_false_is_allowed():
    assert _plain(DataLoader(Count(3), batch_size=2, shuffle=False)) == [[0, 1], [2]]


def test_len():
    assert len(DataLoader(CountWithLen(5), batch_size=2)) == 3
    assert len(DataLoader(CountWithLen(5), batch_size=2, drop_last=True)) == 2
    assert len(DataLoader(CountWithLen(5), batch_size=None)) == 5
    with pytest.raises(TypeError):
        len(DataLoader(Count(5), batch_size=2))


def test_len_warning_single_process():
    class Liar(CountWithLen):
        def __len__(self):
            return 2
    loader = DataLoader(Liar(4), batch_size=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _plain(loader) == [0, 1, 2, 3]
    assert caught == []                               # len() was not asked
    assert len(loader) == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _plain(loader) == [0, 1, 2, 3]
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2 and all(issubclass(w.category, UserWarning) for w in caught)
    assert messages[0].startswith("Length of IterableDataset ") and messages[0].endswith(
        "was reported to be 2(when accessing len(dataloader)), but 3 samples have been fetched. ")
    assert "4 samples" in messages[1] and caught[0].filename == __file__


# -- worker processes ----------------------------------------------------------------------------
def test_workers_each_iterate_their_own_copy():
    # no sharding: each of the 2 workers yields the whole stream; batches alternate between them
    assert _plain(DataLoader(Count(5), batch_size=2, num_workers=2)) == [[0, 1], [0, 1], [2, 3], [2, 3], [4], [4]]
    assert _plain(DataLoader(Count(3), batch_size=None, num_workers=2)) == [0, 0, 1, 1, 2, 2]


def test_sharding_by_worker_info():
    got = _plain(DataLoader(Sharded(7), batch_size=2, num_workers=2))
    assert got == [[0, 2], [1, 3], [4, 6], [5]]
    assert sorted(v for b in got for v in b) == list(range(7))
    # shard in worker_init_fn instead, through the worker's copy of the dataset
    def init(worker_id):
        info = get_worker_info()
        info.dataset.n = 3 + worker_id
    assert _plain(DataLoader(CountWithLen(0), batch_size=None, num_workers=2, worker_init_fn=init)) == \
        [0, 0, 1, 1, 2, 2, 3]


def test_workers_running_out_at_different_times():
    # PyTorch's order: round robin over the workers that still have samples
    got = _plain(DataLoader(Uneven(), batch_size=None, num_workers=2))
    assert got == [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2], [1, 3], [1, 4]]
    # drop_last: each worker drops its own short last batch
    got = _plain(DataLoader(Uneven(), batch_size=2, num_workers=2, drop_last=True))
    assert got == [[[0, 0], [0, 1]], [[1, 1], [0, 1]], [[1, 1], [2, 3]]]
    got = _plain(DataLoader(Uneven(), batch_size=2, num_workers=2))
    assert got == [[[0, 0], [0, 1]], [[1, 1], [0, 1]], [[0], [2]], [[1, 1], [2, 3]], [[1], [4]]]


def test_persistent_workers_start_a_new_iterator_each_epoch():
    loader = DataLoader(Uneven(), batch_size=None, num_workers=2, persistent_workers=True)
    first, second = _plain(loader), _plain(loader)
    assert first == second == [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2], [1, 3], [1, 4]]


def test_worker_info_in_workers():
    got = list(DataLoader(Infos(), batch_size=None, num_workers=2))
    assert [g[:2] for g in got] == [[0, 2], [1, 2]]
    assert got[1][2] - got[0][2] == 1                 # seeds: base_seed + worker id
    assert [g[3:] for g in got] == [["Infos", "main"]] * 2
    assert get_worker_info() is None


class _Broken(IterableDataset):
    def __iter__(self):
        yield 1
        raise KeyError("boom")


def test_error_in_worker_is_raised_here():
    it = iter(DataLoader(_Broken(), batch_size=None, num_workers=1))
    assert next(it) == 1
    with pytest.raises(KeyError, match="boom"):
        next(it)


def test_len_warning_with_workers():
    loader = DataLoader(CountWithLen(3), batch_size=None, num_workers=2)
    assert len(loader) == 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert sorted(_plain(loader)) == [0, 0, 1, 1, 2, 2]
    messages = [str(w.message) for w in caught if "Length of IterableDataset" in str(w.message)]
    assert len(messages) == 3
    assert "but 4 samples have been fetched. For multiprocessing data-loading, this could be caused by not " \
           "properly configuring the IterableDataset replica at each worker." in messages[0]
    # a sharded dataset yields no more than its length: no warning
    loader = DataLoader(Sharded(3), batch_size=None, num_workers=2)
    assert len(loader) == 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _plain(loader) == [0, 1, 2]
    assert not [w for w in caught if "Length of IterableDataset" in str(w.message)]
