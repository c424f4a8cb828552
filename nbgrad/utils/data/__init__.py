"""nbgrad.utils.data: datasets, samplers and the DataLoader."""
from .dataloader import (BatchSampler, DataLoader, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                         WeightedRandomSampler, default_collate, default_convert)
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from . import distributed  # noqa: E402,F401
from .distributed import DistributedSampler  # noqa: E402,F401
from ._workers import WorkerInfo, get_worker_info  # noqa: E402,F401

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "default_collate",
           "default_convert", "distributed", "get_worker_info", "random_split"]
