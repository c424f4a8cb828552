"""nbgrad.utils.data: datasets, samplers and the DataLoader."""
from .dataloader import (BatchSampler, DataLoader, RandomSampler, Sampler, SequentialSampler, WeightedRandomSampler,
                         default_collate, default_convert)
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from . import distributed  # noqa: E402,F401
from .distributed import DistributedSampler  # noqa: E402,F401
from ._workers import WorkerInfo, get_worker_info  # noqa: E402,F401
