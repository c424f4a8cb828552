"""DataLoader(num_workers=N): real worker processes fetch batches by index; results come back in
the sampler's order and equal the single-process loader's; get_worker_info, seeds and
worker_init_fn; an exception in a worker is raised here with its traceback text; timeouts,
dead workers, clean shutdown, persistent workers. WeightedRandomSampler's distribution."""
import os
import random
import time
from collections import namedtuple

import numpy as np
import pytest

import nbgrad
_data = nbgrad.utils.data
DataLoader, Dataset, TensorDataset = _data.DataLoader, _data.Dataset, _data.TensorDataset
WeightedRandomSampler, get_worker_info = _data.WeightedRandomSampler, _data.get_worker_info

Pair = namedtuple("Pair", "x label")


class Squares(Dataset):
    """Samples of several kinds (tensor, number, string, dict, namedtuple) that say who fetched them."""

    def __init__(self, n=13):
        self.n = n
        self.offset = 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = get_worker_info()
        return {"x": nbgrad.tensor([float(i), float(i * i)]) + self.offset, "i": i, "name": f"s{i}",
                "pair": Pair(nbgrad.tensor(i), i % 3), "worker": -1 if info is None else info.id}


def _plain(v):
    if hasattr(v, "tolist"):
        return v.tolist()
    return [_plain(e) for e in v] if isinstance(v, (list, tuple)) else v


def _values(batches):
    return [{k: _plain(v) for k, v in b.items() if k != "worker"} for b in batches]


@pytest.mark.parametrize("num_workers, batch_size", [(1, 4), (2, 4), (3, 1), (2, 20)])
def test_batches_in_order_and_equal_to_single_process(num_workers, batch_size):
    ds = Squares()
    single = list(DataLoader(ds, batch_size=batch_size))
    multi = list(DataLoader(ds, batch_size=batch_size, num_workers=num_workers))
    assert len(multi) == len(single) == -(-13 // batch_size)
    for a, b in zip(single, multi):
        assert a["x"].tolist() == b["x"].tolist() and b["x"].dtype is nbgrad.float32
        assert a["i"].tolist() == b["i"].tolist() and a["name"] == b["name"]
        assert isinstance(b["pair"], Pair) and b["pair"].x.tolist() == a["pair"].x.tolist()
    # each batch was fetched in a worker: batch k by worker k mod num_workers (round robin)
    assert [b["worker"].tolist() for b in multi] == [[k % num_workers] * len(b["i"]) for k, b in enumerate(multi)]
    assert all(a["worker"].tolist() == [-1] * len(a["i"]) for a in single)


def test_tensor_dataset_shuffle_and_no_auto_collation():
    X = nbgrad.arange(20.0, dtype=nbgrad.float64).reshape(10, 2)
    y = nbgrad.arange(10)
    nbgrad.manual_seed(3)
    single = list(DataLoader(TensorDataset(X, y), batch_size=3, shuffle=True))
    nbgrad.manual_seed(3)
    multi = list(DataLoader(TensorDataset(X, y), batch_size=3, shuffle=True, num_workers=2))
    assert [[t.tolist() for t in b] for b in single] == [[t.tolist() for t in b] for b in multi]
    assert multi[0][0].dtype is nbgrad.float64 and multi[0][1].dtype is nbgrad.int64
    # batch_size=None: samples one by one, not collated
    samples = list(DataLoader(TensorDataset(X, y), batch_size=None, num_workers=2))
    assert [s[1].item() for s in samples] == list(range(10)) and samples[4][0].shape == (2,)


class Seeds(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return info.id, info.num_workers, info.seed, random.random(), float(np.random.rand()), \
            nbgrad.rand(1).item(), info.dataset.tag


def test_worker_info_seeds_and_worker_init_fn():
    assert get_worker_info() is None

    def init(worker_id):
        get_worker_info().dataset.tag = f"w{worker_id}"     # each worker has its own copy of the dataset

    ds = Seeds()
    ds.tag = "main"
    nbgrad.manual_seed(0)
    first = [tuple(b) for b in DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=init)]
    nbgrad.manual_seed(0)
    again = [tuple(b) for b in DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=init)]
    assert first == again                       # reproducible under manual_seed in the main process
    assert [r[0] for r in first] == [0, 1, 0, 1] and {r[1] for r in first} == {2}
    assert [r[6] for r in first] == ["w0", "w1", "w0", "w1"] and ds.tag == "main"
    seed0, seed1 = first[0][2], first[1][2]
    assert seed1 == seed0 + 1                   # base_seed + worker_id
    # each worker's python, numpy and nbgrad generators differ from the other's
    assert first[0][3] != first[1][3] and first[0][4] != first[1][4] and first[0][5] != first[1][5]
    random.seed(seed0)
    assert first[0][3] == random.random()
    nbgrad.manual_seed(1)
    other = [tuple(b) for b in DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=init)]
    assert other[0][2] != seed0


class Failing(Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise self.exc
        return i


@pytest.mark.parametrize("exc, cls", [(ValueError("bad sample 3"), ValueError), (KeyError("k3"), KeyError)])
def test_an_exception_in_a_worker_is_raised_here_with_its_traceback(exc, cls):
    dl = DataLoader(Failing(exc), batch_size=2, num_workers=2)
    it = iter(dl)
    assert next(it).tolist() == [0, 1]
    with pytest.raises(cls) as info:
        next(it)
    text = str(info.value) if cls is not KeyError else info.value.args[0]
    assert text.startswith(f"Caught {cls.__name__} in DataLoader worker process 1.\nOriginal Traceback "
                           "(most recent call last):")
    assert "in __getitem__" in text and "raise self.exc" in text and exc.args[0] in text
    for w in it.workers.processes:                                   # the workers were shut down
        w.join(timeout=5)
        assert not w.is_alive()


def test_an_exception_in_worker_init_fn_is_raised_at_the_first_batch():
    def init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")
    with pytest.raises(RuntimeError, match=r"Caught RuntimeError in DataLoader worker process 0\.(.|\n)*"
                                           r"init failed in 0"):
        list(DataLoader(Squares(), batch_size=2, num_workers=2, worker_init_fn=init))


class Grads(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        leaf = nbgrad.ones(2, requires_grad=True)
        return leaf if i == 0 else leaf * 2


def test_tensors_requiring_grad():
    it = iter(DataLoader(Grads(), batch_size=None, num_workers=1))
    first = next(it)
    assert first.requires_grad and first.is_leaf and first.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        next(it)


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(30)
        return i


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            os._exit(3)
        return i


def test_timeout_and_a_dead_worker():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.5))
    assert time.monotonic() - start < 5      # raised, and the stuck worker terminated, at once
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2))


def test_shutdown_after_an_epoch_and_after_an_abandoned_iterator():
    it = iter(DataLoader(Squares(), batch_size=2, num_workers=2))
    procs = it.workers.processes
    assert all(p.is_alive() for p in procs)
    assert len(list(it)) == 7
    for p in procs:
        p.join(timeout=5)
        assert not p.is_alive() and p.exitcode == 0
    it = iter(DataLoader(Squares(), batch_size=2, num_workers=2))
    next(it)
    procs = it.workers.processes
    del it                                      # abandoned half way: its workers are told to stop
    for p in procs:
        p.join(timeout=5)
        assert not p.is_alive()


class Sleepy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        time.sleep(0.6)
        return i


def test_shutdown_skips_the_tasks_still_queued():
    it = iter(DataLoader(Sleepy(), batch_size=1, num_workers=1, prefetch_factor=6))
    assert next(it).tolist() == [0]          # five more tasks are queued for the worker
    proc = it.workers.processes[0]
    start = time.monotonic()
    del it
    proc.join(timeout=10)
    assert not proc.is_alive() and time.monotonic() - start < 2.0     # not 5 x 0.6 s of fetching


def test_persistent_workers_serve_every_epoch():
    dl = DataLoader(Squares(), batch_size=3, num_workers=2, persistent_workers=True)
    expected = _values(DataLoader(Squares(), batch_size=3))
    it = iter(dl)
    next(it)                                    # an epoch left unfinished: its batches are not served later
    pids = [p.pid for p in dl._workers.processes]
    for _ in range(2):
        assert _values(list(dl)) == expected
    assert [p.pid for p in dl._workers.processes] == pids and all(p.is_alive() for p in dl._workers.processes)
    dl._workers.shutdown()
    assert not any(p.is_alive() for p in dl._workers.processes)


def test_argument_errors():
    ds = Squares()
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        DataLoader(ds, num_workers=1, timeout=-1)
    assert DataLoader(ds, num_workers=2).prefetch_factor == 2


# -- WeightedRandomSampler ----------------------------------------------------------------------
def test_weighted_sampler_with_replacement_follows_the_weights():
    w = [1.0, 3.0, 0.0, 6.0]
    nbgrad.manual_seed(0)
    s = WeightedRandomSampler(w, 20000)
    draws = list(s)
    assert len(s) == 20000 and len(draws) == 20000 and s.replacement
    assert s.weights.dtype is nbgrad.float64 and s.weights.tolist() == w
    freq = np.bincount(draws, minlength=4) / 20000
    assert freq[2] == 0                                         # a zero weight is never drawn
    np.testing.assert_allclose(freq, np.array(w) / 10, atol=0.015)   # ~4 standard deviations
    nbgrad.manual_seed(0)
    assert list(WeightedRandomSampler(w, 20000)) == draws      # reproducible


def test_weighted_sampler_without_replacement():
    nbgrad.manual_seed(1)
    firsts = []
    for _ in range(3000):
        d = list(WeightedRandomSampler([1.0, 2.0, 0.0, 7.0], 3, replacement=False))
        assert sorted(d) == [0, 1, 3]                           # distinct; the zero weight only when needed
        firsts.append(d[0])
    # the first draw is proportional to the weights, as multinomial's
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 3000, [0.1, 0.2, 0.0, 0.7], atol=0.03)
    # second draw given the first: P(1 second | 3 first) = 2 / 3
    nbgrad.manual_seed(2)
    pairs = [tuple(WeightedRandomSampler([1.0, 2.0, 7.0], 2, replacement=False)) for _ in range(3000)]
    after3 = [b for a, b in pairs if a == 2]
    assert abs(np.mean(np.array(after3) == 1) - 2 / 3) < 0.05


def test_weighted_sampler_errors_and_loader():
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=yes"):
        WeightedRandomSampler([1.0], 1, "yes")
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
        WeightedRandomSampler([[1.0, 2.0]], 2)
    for w, msg in (([1, -1], "encountering probability entry < 0"), ([1, float("nan")], "entry < 0"),
                   ([1, float("inf")], "infinity or NaN"), ([0, 0], "sum of probabilities <= 0")):
        with pytest.raises(RuntimeError, match=msg):
            list(WeightedRandomSampler(w, 2))
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(WeightedRandomSampler([1, 1], 3, replacement=False))
    X = nbgrad.arange(5.0)
    nbgrad.manual_seed(4)
    batches = list(DataLoader(TensorDataset(X), batch_size=4, sampler=WeightedRandomSampler([0, 0, 1, 0, 1], 8)))
    assert len(batches) == 2 and set(sum((b[0].tolist() for b in batches), [])) <= {2.0, 4.0}


class Big(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return (nbgrad.ones(1 << 20) * (i + 1)).sum()      # large enough to be split across kernel threads


def test_a_worker_runs_split_kernels_after_the_parent_made_its_thread_pool():
    before = nbgrad.get_num_threads()
    nbgrad.set_num_threads(2)
    try:
        (nbgrad.ones(1 << 20) * 2).sum()                    # the parent's pool now exists (its threads do not fork)
        got = [b.item() for b in DataLoader(Big(), batch_size=None, num_workers=1, timeout=20)]
    finally:
        nbgrad.set_num_threads(before)
    assert got == [float(1 << 20), float(2 << 20)]
