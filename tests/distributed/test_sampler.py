"""DistributedSampler: PyTorch's sharding rule (no MPI needed: ranks are given)."""
import itertools

import pytest

from nbgrad.utils.data import DataLoader, DistributedSampler, TensorDataset
import nbgrad


def shards(n, replicas, **kw):
    samplers = [DistributedSampler(range(n), num_replicas=replicas, rank=r, **kw) for r in range(replicas)]
    return samplers, [list(s) for s in samplers]


@pytest.mark.parametrize("n, replicas", [(10, 2), (10, 3), (10, 4), (7, 7), (3, 5), (1, 2), (12, 4)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_shards_cover_the_data_once_per_epoch(n, replicas, shuffle):
    for epoch in range(3):
        samplers, parts = shards(n, replicas, shuffle=shuffle)
        for s in samplers:
            s.set_epoch(epoch)
        parts = [list(s) for s in samplers]
        per = -(-n // replicas)                              # ceil: padded to equal shards
        assert all(len(p) == per == len(s) for p, s in zip(parts, samplers))
        flat = list(itertools.chain(*parts))
        assert set(flat) == set(range(n))                    # every index ...
        # ... once, except the padding, which repeats the permutation's first indices
        assert len(flat) - n == per * replicas - n
        assert all(flat.count(i) <= 1 + -(-(per * replicas - n) // n) for i in range(n))


def test_unshuffled_order_is_pytorchs():
    # torch.utils.data.distributed.DistributedSampler(range(10), 4, r, shuffle=False), recorded
    _, parts = shards(10, 4, shuffle=False)
    assert parts == [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    _, parts = shards(10, 4, shuffle=False, drop_last=True)
    assert parts == [[0, 4], [1, 5], [2, 6], [3, 7]]


@pytest.mark.parametrize("n, replicas", [(10, 3), (10, 4), (9, 3), (3, 2)])
def test_drop_last_drops_the_tail_instead_of_padding(n, replicas):
    samplers, parts = shards(n, replicas, drop_last=True)
    per = n // replicas
    assert all(len(p) == per == len(s) for p, s in zip(parts, samplers))
    flat = list(itertools.chain(*parts))
    assert len(set(flat)) == len(flat) == per * replicas


def test_set_epoch_reshuffles_the_same_way_on_every_rank():
    a = DistributedSampler(range(50), num_replicas=2, rank=0, seed=3)
    b = DistributedSampler(range(50), num_replicas=2, rank=1, seed=3)
    first = (list(a), list(b))
    assert sorted(first[0] + first[1]) == list(range(50))
    a.set_epoch(1)
    b.set_epoch(1)
    second = (list(a), list(b))
    assert second != first and sorted(second[0] + second[1]) == list(range(50))
    a.set_epoch(0)
    assert list(a) == first[0]                              # the epoch, not a hidden state, decides
    c = DistributedSampler(range(50), num_replicas=2, rank=0, seed=4)
    assert list(c) != first[0]


def test_bad_rank():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=2, rank=-1)


def test_without_a_process_group_the_defaults_ask_for_one():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))


def test_with_a_dataloader():
    ds = TensorDataset(nbgrad.arange(10.0))
    seen = []
    for r in range(2):
        for (x,) in DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=r)):
            seen += x.tolist()
    assert sorted(seen) == [float(i) for i in range(10)]
