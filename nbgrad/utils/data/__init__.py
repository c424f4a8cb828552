"""nbgrad.utils.data: datasets, samplers and the DataLoader."""
from .dataloader import (BatchSampler, DataLoader, RandomSampler, Sampler, SequentialSampler, default_collate,
                         default_convert)
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
