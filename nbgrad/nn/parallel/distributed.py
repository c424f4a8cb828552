"""DistributedDataParallel: one model per process, gradients averaged across processes
in buckets whose all-reduce starts during backward, as soon as each bucket is full.

How a step goes (PyTorch's Reducer, in Python over nbgrad.distributed's MPI group):
- construction broadcasts rank 0's parameters and buffers, checks that every rank holds
  the same parameter shapes, and packs the parameters that require grad, in reverse
  order of module.parameters() (about the order backward produces their gradients),
  into buckets of at most bucket_cap_mb (with the default 25 MiB, the first one is
  1 MiB, so that communication starts early), one flat host buffer each;
- forward (with grad enabled, outside no_sync()) arms the reducer; with
  find_unused_parameters it also walks the output's graph for the parameters it cannot
  reach, which count as ready (with zero gradient) when backward starts;
- each parameter's post-accumulate-grad hook copies its .grad into its bucket; a full
  bucket starts a non-blocking MPI all-reduce, buckets in the same order on every rank,
  while backward goes on with the layers below;
- when backward ends (the engine's final callback) every all-reduce is waited for and
  each .grad becomes the average over ranks, so optimizer.step() sees averaged gradients.
"""
import weakref
from contextlib import contextmanager

import numpy as np

from ..modules.module import Module
from ...autograd.engine import queue_callback
from ...autograd.grad_mode import is_grad_enabled
from ...distributed import _mpi
from ...distributed.collectives import Work, broadcast
from ...distributed.process_group import resolve

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    __slots__ = ("indices", "offsets", "buffer", "pending", "request")

    def __init__(self, indices, offsets, buffer):
        self.indices, self.offsets, self.buffer = indices, offsets, buffer
        self.pending = len(indices)
        self.request = None


def _compute_buckets(params, caps):
    """Lists of parameter indices: reverse parameter order, one dtype and device per
    bucket, a bucket closed once it holds caps[k] bytes (the last cap for the rest)."""
    open_buckets = {}
    done = []
    for i in reversed(range(len(params))):
        p = params[i]
        key = (p.dtype, str(p.device))
        indices, size = open_buckets.get(key, ([], 0))
        indices.append(i)
        size += p.numel() * p.element_size()
        cap = caps[min(len(done), len(caps) - 1)]
        if size >= cap:
            done.append(indices)
            open_buckets.pop(key, None)
        else:
            open_buckets[key] = (indices, size)
    done.extend(indices for indices, _ in open_buckets.values())
    return done


def _hook(ddp_ref, index):
    def hook(param):
        ddp = ddp_ref()
        if ddp is not None:
            ddp._grad_ready(index)
    return hook


class DistributedDataParallel(Module):
    """Data parallelism across the processes of nbgrad.distributed's group.

    `ddp.module` is the wrapped module; state_dict() keys carry the `module.` prefix, as
    in PyTorch.  Accepted for PyTorch programs and without effect here: device_ids,
    output_device, dim, check_reduction, gradient_as_bucket_view, static_graph."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None):
        super().__init__()
        self.process_group = resolve(process_group)
        if self.process_group is None:
            raise RuntimeError("DistributedDataParallel: this process is not a member of process_group")
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self._param_names = [n for n, _ in named]
        self._params = [p for _, p in named]
        self._verify_same_model()
        self._sync_module_states()
        cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        # the first bucket is smaller (1 MiB) only with the default cap, as in PyTorch
        first = _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        self._build_buckets([first, self.bucket_bytes_cap])
        ref = weakref.ref(self)
        self._hook_handles = [p.register_post_accumulate_grad_hook(_hook(ref, i))
                              for i, p in enumerate(self._params)]
        self._armed = False            # a forward asked for this backward's gradients to be synced
        self._incomplete = None        # indices that got no gradient in the last synced backward
        self._delay_all_reduce = False  # benchmarks only: start every all-reduce after backward
        self._events = None            # tests only: a list to log ("ready", i) / ("launch", b) into

    # -- construction ------------------------------------------------------------
    def _verify_same_model(self):
        g = self.process_group
        mine = [(tuple(p.shape), str(p.dtype)) for p in self._params]
        everyone = g.comm.allgather(mine)
        for r, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {g.rank()} has {len(mine)} "
                                   f"params, while rank {r} has inconsistent {len(theirs)} params.")
            for i, (a, b) in enumerate(zip(mine, theirs)):
                if a != b:
                    raise RuntimeError(f"DDP expects same model across all ranks, but parameter {i} "
                                       f"({self._param_names[i]}) has shape {a[0]} and dtype {a[1]} on rank "
                                       f"{g.rank()} and shape {b[0]} and dtype {b[1]} on rank {r}.")

    def _sync_module_states(self):
        """Every rank starts from rank 0's parameters and buffers."""
        src = self.process_group.ranks[0]
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            broadcast(t, src=src, group=self.process_group)

    def _build_buckets(self, caps):
        self._buckets = []
        self._where = [None] * len(self._params)
        for b, indices in enumerate(_compute_buckets(self._params, caps)):
            offsets, n = [], 0
            for i in indices:
                offsets.append(n)
                self._where[i] = (b, n)
                n += self._params[i].numel()
            dtype = np.dtype(self._params[indices[0]].dtype.name)
            self._buckets.append(_Bucket(indices, offsets, np.zeros(n, dtype=dtype)))

    @property
    def bucket_indices(self):
        """The parameter indices (in module.parameters() order of those requiring grad)
        of each bucket, in the order their all-reduces start."""
        return [list(b.indices) for b in self._buckets]

    # -- forward -----------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self._incomplete is not None:
            self._raise_incomplete()
        if self.broadcast_buffers and self.process_group.size() > 1:
            src = self.process_group.ranks[0]
            for b in self.module.buffers():
                broadcast(b, src=src, group=self.process_group)
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare_for_backward(out)
        else:
            self._armed = False
        return out

    def _prepare_for_backward(self, out):
        self._armed = True
        self._callback_queued = False
        self._unused_marked = False
        self._ready = [False] * len(self._params)
        self._local_used = np.zeros(len(self._params), dtype=np.int32)
        self._next_bucket = 0
        for b in self._buckets:
            b.pending = len(b.indices)
            b.request = None
        self._unused = []
        if self.find_unused_parameters:
            reached = _leaves_reached(out)
            self._unused = [i for i, p in enumerate(self._params) if id(p) not in reached]

    def _raise_incomplete(self):
        missing = self._incomplete
        names = ", ".join(self._param_names[i] for i in missing)
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable "
            "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`nbgrad.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss.\n"
            f"Parameter indices which did not receive grad for rank {self.process_group.rank()}: "
            f"{' '.join(str(i) for i in missing)}\nTheir names: {names}")

    @contextmanager
    def no_sync(self):
        """Gradients of the backward passes whose forward runs inside accumulate locally;
        the first synced backward after it averages the accumulated .grad."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # -- backward: the reducer -----------------------------------------------------
    def _grad_ready(self, i):
        if not self._armed:
            return
        if not self._callback_queued:
            queue_callback(self._finish_backward)
            self._callback_queued = True
        if not self._unused_marked:
            self._unused_marked = True
            for j in self._unused:
                self._mark_ready(j, used=False)
        self._mark_ready(i, used=True)

    def _mark_ready(self, i, used):
        if self._ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. This error is caused by one of the following "
                f"reasons: 1) Use of a module parameter outside the `forward` function; 2) Reused parameters in "
                f"multiple reentrant backward passes. Parameter at index {i} ({self._param_names[i]}) has been "
                "marked as ready twice.")
        self._ready[i] = True
        b, off = self._where[i]
        bucket = self._buckets[b]
        p = self._params[i]
        n = p.numel()
        if used and p.grad is not None:
            np.copyto(bucket.buffer[off:off + n].reshape(tuple(p.shape)), p.grad._host_array(), casting="no")
            self._local_used[i] = 1
        else:
            bucket.buffer[off:off + n] = 0
        if self._events is not None:
            self._events.append(("ready", i))
        bucket.pending -= 1
        if bucket.pending == 0 and not self._delay_all_reduce:
            self._launch_ready_buckets()

    def _launch_ready_buckets(self):
        """Start the all-reduce of each full bucket, in bucket order (every rank must start
        MPI's collectives in the same order), and let MPI progress the ones in flight."""
        MPI = _mpi.mpi()
        comm = self.process_group.comm
        buckets = self._buckets
        while self._next_bucket < len(buckets) and buckets[self._next_bucket].pending == 0:
            bucket = buckets[self._next_bucket]
            dt = _mpi.datatype(bucket.buffer.dtype)
            op = _mpi.reduction("SUM", self._params[bucket.indices[0]].dtype)[1]
            bucket.request = comm.Iallreduce(MPI.IN_PLACE, [bucket.buffer, dt], op)
            if self._events is not None:
                self._events.append(("launch", self._next_bucket))
            self._next_bucket += 1
        in_flight = [b.request for b in buckets[:self._next_bucket] if b.request is not None]
        if in_flight:
            MPI.Request.Testall(in_flight)

    def _finish_backward(self):
        """End of backward: wait for the all-reduces, then .grad = the average over ranks."""
        self._callback_queued = False
        if self._delay_all_reduce:
            self._launch_ready_buckets()
        if self._next_bucket < len(self._buckets):
            # some parameters got no gradient: as PyTorch, the next forward says which
            self._incomplete = [i for i, r in enumerate(self._ready) if not r]
            self._armed = False
            return
        g = self.process_group
        Work([b.request for b in self._buckets], "DistributedDataParallel's gradient all-reduce",
             g.timeout).wait()
        used = self._local_used
        if self.find_unused_parameters:
            MPI = _mpi.mpi()
            used = used.copy()
            g.comm.Allreduce(MPI.IN_PLACE, [used, MPI.INT32_T], MPI.MAX)
        size = g.size()
        for bucket in self._buckets:
            np.divide(bucket.buffer, size, out=bucket.buffer, casting="unsafe")
            for i, off in zip(bucket.indices, bucket.offsets):
                if not used[i]:
                    continue        # unused on every rank: its .grad stays as it was
                p = self._params[i]
                values = bucket.buffer[off:off + p.numel()]
                if p.grad is None:
                    p.grad = _new_grad(p, values)
                else:
                    _mpi.write_into(p.grad, values)
        self._armed = False


def _new_grad(p, values):
    from ... import _creation
    return _creation.tensor(values.reshape(tuple(p.shape)).copy(), dtype=p.dtype, device=p.device)


def _leaves_reached(out):
    """ids of the leaf tensors that the graph of out's tensors reaches."""
    from ..._tensor import Tensor
    from ...autograd.node import AccumulateGrad
    stack, leaves, seen = [], set(), set()

    def collect(x):
        if isinstance(x, Tensor):
            if x.grad_fn is not None:
                stack.append(x.grad_fn)
            elif x.requires_grad:
                leaves.add(id(x))
        elif isinstance(x, dict):
            for v in x.values():
                collect(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                collect(v)
    collect(out)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, AccumulateGrad):
            leaves.add(id(node.variable))
        for nxt in node._next_fns:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return leaves
