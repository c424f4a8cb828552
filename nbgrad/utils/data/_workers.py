"""DataLoader worker processes (num_workers > 0), after PyTorch's _MultiProcessingDataLoaderIter:
each worker takes (task, indices) from its own index queue, fetches and collates the batch,
and puts (task, batch) on one shared result queue; the main process hands out tasks round
robin, keeps prefetch_factor tasks per worker in flight and yields batches in sampler order.
Tensors cross the process boundary as NumPy arrays and are rebuilt on the other side; an
exception in a worker comes back as its type and traceback text and is raised again here.

Over an IterableDataset each worker iterates its own copy of the dataset (made afresh each
epoch); a worker whose iterator is exhausted answers that task with _IterableEnd and ignores
the tasks it still holds, and the main process stops sending it tasks, skips the ones it did
not answer, and ends the epoch when no worker is left (PyTorch's _IterableDatasetStopIteration)."""
import collections.abc
import itertools
import os
import queue
import random
import sys
import traceback

import numpy as np

_POLL_S = 0.1          # how often a blocked get looks at the other side's health
_worker_info = None


class WorkerInfo:
    """In a worker: its id, the number of workers, its seed and its copy of the dataset."""

    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset
        self.__initialized = True

    def __setattr__(self, key, value):
        if self.__dict__.get("_WorkerInfo__initialized"):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, value)

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset})")


def get_worker_info():
    """The WorkerInfo of the current DataLoader worker process; None in the main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception's type and formatted traceback (what can cross a process boundary)."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self):     # KeyError repr()s its argument: keep the traceback readable
        return self


# -- tensors as NumPy arrays across the boundary ----------------------------------------------
class _PackedTensor:
    __slots__ = ("array", "requires_grad")

    def __init__(self, array, requires_grad):
        self.array, self.requires_grad = array, requires_grad


def _pack(data):
    from ..._tensor import Tensor
    if isinstance(data, Tensor):
        if data.requires_grad and data.grad_fn is not None:
            raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                               "does not support crossing process boundaries.  If you just want to transfer the "
                               "data, call detach() on the tensor before serializing (e.g., putting it on the queue).")
        return _PackedTensor(np.ascontiguousarray(data.detach().cpu().numpy()), data.requires_grad)
    return _map(_pack, data)


def _unpack(data):
    if isinstance(data, _PackedTensor):
        from ... import from_numpy
        t = from_numpy(data.array)
        return t.requires_grad_() if data.requires_grad else t
    return _map(_unpack, data)


def _map(fn, data):
    """fn applied to the leaves of dicts, namedtuples, lists and tuples (others as they are)."""
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        mapped = {k: fn(v) for k, v in data.items()}
        try:
            return type(data)(mapped)
        except TypeError:
            return mapped
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(fn(v) for v in data))
    if isinstance(data, (list, tuple)):
        try:
            return type(data)(fn(v) for v in data)
        except TypeError:
            return [fn(v) for v in data]
    return data


class _IterableEnd:
    """A worker's answer when its copy of an IterableDataset has no more samples this epoch."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


# -- the worker process ------------------------------------------------------------------------
def _numpy_seed(base_seed, worker_id):
    """PyTorch's _generate_state: NumPy's seed for a worker, mixed from base seed and worker id."""
    mask = 0xFFFFFFFF
    entropy = [worker_id, base_seed & mask, base_seed >> 32, 0]
    const_a = 0x43B0D7E5

    def hash_(value):
        nonlocal const_a
        value = (value ^ const_a) & mask
        const_a = (const_a * 0x931E8875) & mask
        value = (value * const_a) & mask
        return (value ^ (value >> 16)) & mask

    def mix(x, y):
        r = (((0xCA01F9DD * x) & mask) - ((0x4973F715 * y) & mask)) & mask
        return (r ^ (r >> 16)) & mask

    pool = [hash_(e) for e in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    const_b = 0x8B51F9DD
    state = []
    for v in pool:
        v = (v ^ const_b) & mask
        const_b = (const_b * 0x58F38DED) & mask
        v = (v * const_b) & mask
        state.append((v ^ (v >> 16)) & mask)
    return state


def fetch(dataset, collate_fn, auto_collation, index):
    """One batch (or one sample without auto-collation), as the single-process loader makes it."""
    if not auto_collation:
        return collate_fn(dataset[index])
    from .dataset import TensorDataset
    from .dataloader import default_collate
    if type(dataset) is TensorDataset and collate_fn is default_collate:
        from ... import tensor
        idx = tensor(index)
        return [t[idx] for t in dataset.tensors]
    return collate_fn([dataset[i] for i in index])


def _worker_loop(dataset, index_queue, result_queue, done_event, collate_fn, auto_collation, seed, init_fn,
                 worker_id, num_workers, parent_pid, iterable=False, drop_last=False):
    global _worker_info
    try:
        import nbgrad
        random.seed(seed)
        nbgrad.manual_seed(seed)
        np.random.seed(_numpy_seed(seed - worker_id, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = None
        epoch, fetcher, iteration_end = None, None, False
        try:
            if init_fn is not None:
                init_fn(worker_id)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        while True:
            try:
                task = index_queue.get(timeout=_POLL_S * 10)
            except queue.Empty:
                if os.getppid() != parent_pid:       # the main process is gone
                    break
                continue
            if task is None or done_event.is_set():   # shutdown: the tasks still queued are not fetched
                break
            key, index = task
            if iterable and key[0] != epoch:
                # a new epoch: a fresh iterator over this worker's copy of the dataset
                epoch, fetcher, iteration_end = key[0], None, False
            if iterable and iteration_end:
                continue                              # exhausted this epoch: the main process skips these
            if init_error is not None:
                result = init_error
            else:
                try:
                    if iterable:
                        if fetcher is None:
                            from .dataloader import _IterableFetcher
                            fetcher = _IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
                        result = _pack(fetcher.fetch(index))
                    else:
                        result = _pack(fetch(dataset, collate_fn, auto_collation, index))
                except StopIteration:
                    if not iterable:
                        result = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                    else:
                        result = _IterableEnd(worker_id)
                        iteration_end = True
                except Exception:
                    result = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            result_queue.put((key, result))
            del result, index, task
        # nobody reads the results any more: exit without waiting for them to be flushed
        result_queue.cancel_join_thread()
        result_queue.close()
    except KeyboardInterrupt:
        pass


# -- the main process's side ---------------------------------------------------------------------
class _Workers:
    """The worker processes and their queues; one per iterator, or kept by the loader when
    persistent_workers is set."""

    def __init__(self, loader):
        import multiprocessing as mp
        from ... import randint
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context()
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        self.num_workers = loader.num_workers
        self.result_queue = ctx.Queue()
        self.done_event = ctx.Event()
        self.index_queues = []
        self.processes = []
        base_seed = int(randint(0, 2 ** 62, (1,)).item())     # from nbgrad's generator, as PyTorch's loader
        self.base_seed = base_seed
        for i in range(self.num_workers):
            q = ctx.Queue()
            q.cancel_join_thread()
            w = ctx.Process(target=_worker_loop, daemon=True,
                            args=(loader.dataset, q, self.result_queue, self.done_event, loader.collate_fn,
                                  loader._auto_collation, base_seed + i, loader.worker_init_fn, i, self.num_workers,
                                  os.getpid(), getattr(loader, "_iterable", False), loader.drop_last))
            w.start()
            self.index_queues.append(q)
            self.processes.append(w)
        self.epoch = 0
        self.alive = True

    def check_alive(self):
        dead = [w for w in self.processes if not w.is_alive()]
        if dead:
            pids = ", ".join(str(w.pid) for w in dead)
            self.shutdown(wait=False)
            raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")

    def get(self, timeout):
        """The next (key, result) from any worker; RuntimeError when the wait passes `timeout`
        seconds (0: no limit) or a worker died."""
        import time
        start = time.monotonic()
        while True:
            try:
                return self.result_queue.get(timeout=_POLL_S)
            except queue.Empty:
                if timeout > 0 and time.monotonic() - start > timeout:
                    self.shutdown(wait=False)        # a stuck worker is not waited for
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
                self.check_alive()

    def shutdown(self, wait=True):
        """Tell every worker to stop; wait (5 s each, as PyTorch) for them to exit, then terminate
        those still running."""
        if not self.alive:
            return
        self.alive = False
        self.done_event.set()
        for q in self.index_queues:
            try:
                q.put(None)
            except Exception:
                pass
        for w in self.processes:
            if wait:
                w.join(timeout=5.0)
            if w.is_alive():
                w.terminate()
                w.join(timeout=1.0)
        for q in self.index_queues:
            q.close()
        self.result_queue.cancel_join_thread()
        self.result_queue.close()

    def __del__(self):
        try:
            self.shutdown()
        except Exception:
            pass


class MultiProcessingIter:
    """One epoch over the loader with its workers: tasks go out round robin, prefetch_factor per
    worker in flight; batches come back in the sampler's order."""

    def __init__(self, loader, workers=None):
        self.loader = loader
        self.owns_workers = workers is None
        self.workers = _Workers(loader) if workers is None else workers
        self.workers.epoch += 1
        self.epoch = self.workers.epoch
        self.timeout = loader.timeout
        self.indices = iter(loader.batch_sampler if loader._auto_collation else loader.sampler)
        self.next_worker = itertools.cycle(range(self.workers.num_workers))
        self.active = [True] * self.workers.num_workers     # False: its iterable copy is exhausted
        self.task_worker = {}
        self.sent = 0
        self.received = 0
        self.ready = {}
        self.exhausted = False
        self.yielded = 0
        self.reported_len = getattr(loader, "_IterableDataset_len_called", None)
        for _ in range(loader.prefetch_factor * self.workers.num_workers):
            self._send()

    def _send(self):
        if self.exhausted:
            return
        for _ in range(self.workers.num_workers):     # the next worker that still has samples
            worker = next(self.next_worker)
            if self.active[worker]:
                break
        else:
            return
        try:
            index = next(self.indices)
        except StopIteration:
            self.exhausted = True
            return
        self.workers.index_queues[worker].put(((self.epoch, self.sent), index))
        self.task_worker[self.sent] = worker
        self.sent += 1

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            # tasks held by a worker whose iterable copy ran out were never answered: skipped
            while (self.received < self.sent and self.received not in self.ready
                   and not self.active[self.task_worker[self.received]]):
                del self.task_worker[self.received]
                self.received += 1
            if self.received == self.sent:
                self._finish()
                raise StopIteration
            if self.received in self.ready:
                break
            (epoch, n), result = self.workers.get(self.timeout)
            if epoch != self.epoch:          # an earlier epoch's leftover (persistent workers): dropped
                continue
            if isinstance(result, _IterableEnd):
                self.active[result.worker_id] = False
                self._send()
                continue
            self.ready[n] = result
        result = self.ready.pop(self.received)
        del self.task_worker[self.received]
        self.received += 1
        self._send()
        if isinstance(result, ExceptionWrapper):
            self._finish()
            result.reraise()
        self.yielded += 1
        if self.reported_len is not None and self.yielded > self.reported_len:
            from .dataloader import _length_warning
            _length_warning(self.loader, self.reported_len, self.yielded, self.workers.num_workers)
        return _unpack(result)

    def __len__(self):
        return len(self.loader)

    def _finish(self):
        if self.owns_workers:
            self.workers.shutdown()

    def __del__(self):
        try:
            self._finish()
        except Exception:
            pass
