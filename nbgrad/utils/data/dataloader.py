"""DataLoader, samplers and default_collate (PyTorch's batching rules; worker processes in _workers.py).

A DataLoader over an IterableDataset takes no sampler: an endless sampler of None keys stands
in (batches of batch_size Nones), and each sample is the next one from the dataset's iterator;
an epoch ends when the iterator (in every worker, with num_workers > 0) is exhausted."""
import collections.abc
import numbers

import numpy as np

from ..._warnings import warn_user as _warn_user
from ..._tensor import Tensor
from .dataset import IterableDataset, TensorDataset


class Sampler:
    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh permutation each epoch from nbgrad's generator (reproducible under manual_seed)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from ... import randint, randperm
        n = len(self.data_source)
        if self.replacement:
            return iter(randint(0, n, (self.num_samples,)).tolist())
        out = []
        for _ in range(self.num_samples // n):
            out += randperm(n).tolist()
        out += randperm(n).tolist()[:self.num_samples % n]
        return iter(out)

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a fresh permutation per epoch, from `generator` or
    nbgrad's default generator), without replacement."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        from ... import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class _InfiniteConstantSampler(Sampler):
    """None, forever: the sampler of a DataLoader over an IterableDataset (the dataset's iterator,
    not the key, decides each sample)."""

    def __iter__(self):
        while True:
            yield None


class _IterableFetcher:
    """The next sample (or batch of up to len(index) samples) from one iterator over the dataset;
    StopIteration once it is exhausted, or for a short last batch with drop_last."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def _length_warning(loader, reported, yielded, num_workers):
    msg = (f"Length of IterableDataset {loader.dataset} was reported to be {reported}(when accessing "
           f"len(dataloader)), but {yielded} samples have been fetched. ")
    if num_workers > 0:
        msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                "IterableDataset replica at each worker. Please see "
                "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
    _warn_user(msg, UserWarning, stacklevel=3)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to weights, with replacement
    (inverse CDF of uniform draws) or without (the largest weight / Exp(1) keys, the same
    distribution as multinomial's), from nbgrad's generator: reproducible under manual_seed."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        from ... import as_tensor, float64
        weights_tensor = as_tensor(weights, dtype=float64)
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from ... import float64, rand
        w = self.weights.cpu().numpy()
        if not (w >= 0).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if np.isinf(w).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        if w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > len(w):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        u = rand(self.num_samples if self.replacement else len(w), dtype=float64, generator=self.generator).numpy()
        if self.replacement:
            cdf = np.cumsum(w)
            picks = np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), len(w) - 1)
        else:
            with np.errstate(divide="ignore"):
                keys = w / -np.log1p(-u)           # weight / Exp(1): the largest keys are the sample
            picks = np.argsort(-keys, kind="stable")[:self.num_samples]
        return iter(picks.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


def default_collate(batch):
    """Stack tensors (and numbers, and numpy arrays) along a new first dim; recurse into
    dicts, namedtuples and sequences (a tuple of samples gives a list, as PyTorch)."""
    from ... import stack, tensor, from_numpy
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return stack([from_numpy(np.ascontiguousarray(b)) for b in batch], 0)
    if isinstance(elem, np.generic):
        return tensor(np.array(batch))
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        from ... import float64
        return tensor(batch, dtype=float64)
    if isinstance(elem, numbers.Integral):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return type(elem)([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


def default_convert(data):
    """A sample as it comes, without batching (batch_size=None): NumPy arrays and scalars become
    tensors (not arrays of strings or objects); dicts, namedtuples and sequences are converted
    inside; a plain tuple becomes a list, as PyTorch's (kept for backwards compatibility there)."""
    import copy
    if isinstance(data, Tensor):
        return data
    elem_type = type(data)
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and data.dtype.kind in "SaUO":
            return data
        from ... import as_tensor
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


class DataLoader:
    """Iterates over a dataset in batches: in this process (num_workers=0) or fetched by
    num_workers worker processes (nbgrad/utils/data/_workers.py), in the sampler's order."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        self.in_order = in_order
        self._workers = None
        self.batch_size = batch_size
        self.drop_last = drop_last
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            # a stream has no keys to sample: PyTorch's errors, in PyTorch's order
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
            drop_last = False
            self.batch_size = None
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else \
            (default_collate if self._auto_collation else default_convert)
        # len(loader) over an IterableDataset records len(dataset) here; an epoch that then yields
        # more batches than that number warns, as PyTorch's
        self._IterableDataset_len_called = None

    def __iter__(self):
        if self.num_workers > 0:
            from ._workers import MultiProcessingIter
            if not self.persistent_workers:
                return MultiProcessingIter(self)
            if self._workers is None or not self._workers.alive:
                from ._workers import _Workers
                self._workers = _Workers(self)
            return MultiProcessingIter(self, self._workers)
        # PyTorch's iterator draws its workers' base seed even without workers: the generator
        # moves the same way whatever num_workers is (same shuffles under one manual_seed)
        from ... import randint
        randint(0, 2 ** 62, (1,))
        if self._iterable:
            # the dataset's iterator is made now, as PyTorch's iterator makes its fetcher
            fetcher = _IterableFetcher(self.dataset, self._auto_collation, self.collate_fn, self.drop_last)
            return self._single_process_iterable(fetcher, self._IterableDataset_len_called)
        return self._single_process_iter()

    def _single_process_iterable(self, fetcher, reported_len):
        yielded = 0
        for index in (self.batch_sampler if self._auto_collation else self.sampler):
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                return
            yielded += 1
            if reported_len is not None and yielded > reported_len:
                _length_warning(self, reported_len, yielded, 0)
            yield data

    def _single_process_iter(self):
        if not self._auto_collation:
            for idx in self.sampler:
                yield self.collate_fn(self.dataset[idx])
            return
        fast = type(self.dataset) is TensorDataset and self.collate_fn is default_collate
        for indices in self.batch_sampler:
            if fast:
                # same values as stacking the samples one by one, in one gather per tensor
                from ... import tensor
                index = tensor(indices)
                yield [t[index] for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self):
        if self._iterable:
            # the dataset's own length (TypeError without __len__), in batches
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)
