"""DistributedSampler: each rank of nbgrad.distributed's group reads its own shard."""
import math

import numpy as np

from .dataloader import Sampler


class DistributedSampler(Sampler):
    """The indices of one rank's shard, as torch.utils.data.distributed.DistributedSampler.

    Every rank draws the same permutation (seeded by seed + epoch: call set_epoch(e) at
    the start of each epoch for a new one) and takes every num_replicas-th index from
    its rank on.  Without drop_last the permutation is padded with its own first indices
    so that every shard has the same length; with it, the tail is dropped instead.
    The permutation comes from NumPy's PCG64 generator, so it is not the one PyTorch's
    generator gives for the same seed; the sharding rule is PyTorch's."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = np.random.Generator(np.random.PCG64(self.seed + self.epoch)).permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch whose permutation the next iteration draws (shuffle=True)."""
        self.epoch = epoch
