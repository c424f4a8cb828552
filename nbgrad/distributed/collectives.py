"""Collectives and point-to-point messages on tensors, as torch.distributed's, over MPI.

Each call starts MPI's non-blocking form on the tensor's own memory (a dense CPU tensor
is handed to MPI as it is, with no copy; a strided or CUDA one is staged, see
_mpi.Buffer) and returns a Work handle when async_op=True, else waits for it.  Ranks
(src=, dst=) are global ranks, as in PyTorch, whatever the group.
"""
import enum
import time

import numpy as np

from .. import _dtype as D
from . import _mpi
from .._tensor import Tensor
from .process_group import resolve, world


class ReduceOp(enum.Enum):
    """How all_reduce, reduce and reduce_scatter combine (PyTorch's names and numbers)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self):
        return f"RedOpType.{self.name}"


reduce_op = ReduceOp


class DistError(RuntimeError):
    """A collective failed (PyTorch's torch.distributed.DistError)."""


class DistBackendError(DistError):
    """The backend failed, e.g. a collective timed out waiting for its peers."""


class Work:
    """A started collective: wait() finishes it (and writes staged results back)."""

    def __init__(self, requests, what, timeout, finish=None, outputs=(), source=None):
        self._requests = requests
        self._what = what
        self._timeout = timeout
        self._finish = finish
        self._outputs = list(outputs)
        self._done = False
        self._status = source        # an MPI.Status, for recv's sender

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._finish()

    def wait(self, timeout=None):
        """Block until the operation is done.  With `timeout` (seconds or a timedelta),
        DistBackendError once it has passed; without, MPI's own wait under the watchdog
        (the job is aborted past the group's timeout, as for the blocking calls)."""
        if self._done:
            return True
        MPI = _mpi.mpi()
        requests = self._requests
        if timeout is None:
            _watchdog.arm(self._timeout, self._what)
            try:
                if self._status is not None:
                    requests[0].Wait(self._status)
                else:
                    MPI.Request.Waitall(requests)
            finally:
                _watchdog.disarm()
        else:
            limit = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
            # polled: MPI's wait cannot be given a deadline
            deadline = time.monotonic() + limit
            spins = 0
            while not self._test():
                spins += 1
                if spins & 1023 == 0 and time.monotonic() > deadline:
                    raise DistBackendError(f"{self._what} timed out after {limit:g} s waiting for the other ranks")
        self._complete()
        return True

    def _test(self):
        """Whether MPI has finished the requests (a recv's status filled in on completion)."""
        if self._status is not None:
            return self._requests[0].Test(self._status)
        return _mpi.mpi().Request.Testall(self._requests)

    def is_completed(self):
        if not self._done:
            if not self._test():
                return False
            self._complete()
        return True

    def is_success(self):
        return self.is_completed()

    def exception(self):
        return None

    def result(self):
        return self._outputs

    def source_rank(self):
        """The global rank a recv's message came from."""
        if self._status is None:
            raise RuntimeError("source_rank() is only available for a recv")
        self.wait()
        return self._status.Get_source()


def _start(g, what, method, args, finish, outputs, async_op):
    """Run MPI's `method` (e.g. "Allreduce") on the group's communicator: its non-blocking
    form ("Iallreduce") behind a Work handle when async_op, else the blocking form under
    the watchdog (MPI's blocking collectives are its fastest: a non-blocking all-reduce
    of 1 MB took 1.4x as long here).  finish() then writes staged results back."""
    comm = g.comm
    if async_op:
        req = getattr(comm, "I" + method[0].lower() + method[1:])(*args)
        return Work([req], what, g.timeout, finish, outputs)
    _watchdog.arm(g.timeout, what)
    try:
        getattr(comm, method)(*args)
    finally:
        _watchdog.disarm()
    if finish is not None:
        finish()
    return None


class _Watchdog:
    """Ends the job when a blocking call outlives the group's timeout.  A blocking MPI call
    cannot be interrupted, so, like PyTorch's NCCL watchdog, a thread checks its deadline
    and, once it has passed, says which call timed out and calls MPI_Abort, which ends
    every rank instead of leaving them all waiting.  Arming is two attribute writes: the
    thread wakes at most once a second."""

    def __init__(self):
        self.deadline = None
        self.what = None
        self.limit = None
        self.thread = None

    def arm(self, seconds, what):
        self.what, self.limit = what, seconds
        self.deadline = time.monotonic() + seconds
        if self.thread is None:
            import threading
            self.thread = threading.Thread(target=self._watch, name="nbgrad.distributed watchdog", daemon=True)
            self.thread.start()

    def disarm(self):
        self.deadline = None

    def _watch(self):
        import sys
        while True:
            deadline = self.deadline
            now = time.monotonic()
            if deadline is not None and now > deadline:
                from .process_group import world
                sys.stderr.write(f"nbgrad.distributed: rank {world().rank()}: {self.what} timed out after "
                                 f"{self.limit:g} s waiting for the other ranks (the group's timeout; "
                                 "init_process_group(timeout=...) sets it); aborting the job\n")
                sys.stderr.flush()
                # the launcher forwards output through pipes and drops what it has not read
                # when the job is aborted (as for a traceback, process_group.py's excepthook):
                # aborting at once lost this message in 2 of 8 runs here, and CI's test of it
                # failed; half a second lets it through (12 of 12)
                time.sleep(0.5)
                _mpi.mpi().COMM_WORLD.Abort(1)
            time.sleep(1.0 if deadline is None else min(1.0, max(deadline - now, 0.01)))


_watchdog = _Watchdog()


def _tensor(t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type nbgrad.Tensor\n"
                        f"             but got {type(t)} instead.")
    _supported(t)
    return t


def _tensor_list(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[nbgrad.Tensor]\n"
                        f"             but got {type(ts)} instead.")
    for t in ts:
        _supported(t)
    return list(ts)


def _supported(t):
    # bfloat16 lives in uint16 words (backends/_bfloat16.py) that MPI would move and reduce
    # as integers: refused before any rank sends, rather than summed as the wrong numbers
    if t._dtype is _BFLOAT16:
        raise TypeError("nbgrad.distributed: the MPI collectives do not take bfloat16 tensors yet; "
                        "communicate a float32 copy (t.float()) and convert back")


_BFLOAT16 = D.bfloat16
_OP_NAMES = {op: op.name for op in ReduceOp}      # (Enum.name is a property: slow per call)


def _op(op):
    name = _OP_NAMES.get(op) if isinstance(op, ReduceOp) else None
    if name is None:
        raise TypeError(f"op must be a nbgrad.distributed.ReduceOp, not {op!r}")
    return name


def _same(what, t, ref, i=None, ref_name="input"):
    """Refuse an output whose dtype or element count differs from what it must hold."""
    at = "" if i is None else f" at index {i}"
    if t.dtype != ref.dtype:
        raise RuntimeError(f"{what}: invalid tensor type{at} (expected {ref.dtype}, got {t.dtype})")
    if tuple(t.shape) != tuple(ref.shape):
        raise RuntimeError(f"{what}: invalid tensor size{at} (expected {tuple(ref.shape)}, got {tuple(t.shape)})")


def _one_per_rank(what, tensors, name, like, size):
    """The list forms' tensor list, checked: one tensor per rank, each of `like`'s dtype
    and shape."""
    tensors = _tensor_list(tensors, name)
    if len(tensors) != size:
        raise RuntimeError(f"{what}: {name} must hold one tensor per rank of the group ({size}), got {len(tensors)}")
    for i, t in enumerate(tensors):
        _same(what, t, like, i)
    return tensors


def _check_whole_and_part(what, whole, part, size, whole_is_output):
    """The one-tensor forms (all_gather_into_tensor, reduce_scatter_tensor): `whole` holds
    `size` times the elements of `part`, in the same dtype."""
    out, inp = (whole, part) if whole_is_output else (part, whole)
    if out.dtype != inp.dtype:
        raise RuntimeError(f"{what}: output dtype {out.dtype} differs from input dtype {inp.dtype}")
    if whole.numel() != part.numel() * size:
        which = ("output tensor size must be equal to world_size times input tensor size" if whole_is_output
                 else "input tensor must be the same size as output size times world size")
        raise RuntimeError(f"{what}: {which} (output {tuple(out.shape)}, input {tuple(inp.shape)}, world size "
                           f"{size})")


def _concatenated(tensors):
    """The tensors' elements, one after the other, in a new host array (what MPI sends
    for the list forms: reduce_scatter, scatter)."""
    return np.concatenate([np.ascontiguousarray(t._host_array()).reshape(-1) for t in tensors])


def _written_back(outputs, flat, n):
    """finish() for the list forms (all_gather, gather): output r gets flat's r-th n elements."""
    def finish():
        for r, t in enumerate(outputs):
            _mpi.write_into(t, flat[r * n:(r + 1) * n])
    return finish


def _root(g, rank, what, name="root"):
    if not isinstance(rank, (int, np.integer)) or not 0 <= rank < world().size():
        raise RuntimeError(f"{what}: invalid {name} rank: {rank}")
    return g.group_rank(rank)


def _divide(arrays, size):
    def finish():
        for a in arrays:
            np.divide(a, size, out=a, casting="unsafe")
    return finish


def _then(average, arrays, size, buf):
    """What finishes a reduction: the division of an average, then a staged buffer's
    write-back (None when there is neither: the common case costs nothing)."""
    steps = ([_divide(arrays, size)] if average else []) + ([buf.finish] if buf.staged else [])
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]

    def finish():
        for step in steps:
            step()
    return finish


# -- collectives ---------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` across the group, in place on every rank."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    dt, mop, average = _mpi.reduction(_op(op), tensor._dtype)
    buf = _mpi.Buffer(tensor)
    finish = _then(average, [buf.array], g.size(), buf) if average or buf.staged else None
    return _start(g, "all_reduce", "Allreduce", (_mpi.IN_PLACE(), [buf.array, dt], mop), finish, [tensor],
                  async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy `src`'s tensor into the tensor of every other rank."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    root = group_src if group_src is not None else _root(g, 0 if src is None else src, "broadcast")
    buf = _mpi.Buffer(tensor, read=(g.rank() == root))
    return _start(g, "broadcast", "Bcast", (buf.spec(_mpi.datatype(buf.array.dtype)), root), buf.finish, [tensor],
                  async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce every rank's tensor into dst's (the others' are left as they are)."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    root = group_dst if group_dst is not None else _root(g, 0 if dst is None else dst, "reduce")
    dt, mop, average = _mpi.reduction(_op(op), tensor.dtype)
    MPI = _mpi.mpi()
    if g.rank() == root:
        buf = _mpi.Buffer(tensor)
        args = (MPI.IN_PLACE, buf.spec(dt), mop, root)
        finish = _then(average, [buf.array], g.size(), buf)
    else:
        buf = _mpi.Buffer(tensor, write=False)
        args = (buf.spec(dt), None, mop, root)
        finish = None
    return _start(g, "reduce", "Reduce", args, finish, [tensor], async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] = rank r's tensor, on every rank."""
    g = resolve(group)
    _tensor_list(tensor_list, "tensor_list")
    _tensor(tensor)
    if g is None:
        return None
    outputs = _one_per_rank("all_gather", tensor_list, "tensor_list", tensor, g.size())
    send = _mpi.Buffer(tensor, write=False)
    n = send.array.size
    recv = np.empty(n * g.size(), dtype=send.array.dtype)
    dt = _mpi.datatype(recv.dtype)
    return _start(g, "all_gather", "Allgather", (send.spec(dt), [recv, dt]), _written_back(outputs, recv, n), outputs,
                  async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The ranks' input tensors, concatenated (or stacked) in rank order into output_tensor."""
    g = resolve(group)
    _tensor(output_tensor, "output_tensor")
    _tensor(input_tensor, "input_tensor")
    if g is None:
        return None
    _check_whole_and_part("all_gather_into_tensor", output_tensor, input_tensor, g.size(), whole_is_output=True)
    send = _mpi.Buffer(input_tensor, write=False)
    recv = _mpi.Buffer(output_tensor, read=False)
    dt = _mpi.datatype(send.array.dtype)
    return _start(g, "all_gather_into_tensor", "Allgather", (send.spec(dt), recv.spec(dt)), recv.finish,
                  [output_tensor], async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """output = the reduction over ranks of input_list[this rank]."""
    g = resolve(group)
    _tensor(output, "output")
    _tensor_list(input_list, "input_list")
    if g is None:
        return None
    inputs = _one_per_rank("reduce_scatter", input_list, "input_list", output, g.size())
    dt, mop, average = _mpi.reduction(_op(op), output.dtype)
    send = _concatenated(inputs) if inputs else None
    recv = _mpi.Buffer(output, read=False)
    finish = _then(average, [recv.array], g.size(), recv)
    return _start(g, "reduce_scatter", "Reduce_scatter_block", ([send, dt], recv.spec(dt), mop), finish, [output],
                  async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """output = the reduction over ranks of this rank's slice of `input` (world_size slices)."""
    g = resolve(group)
    _tensor(output, "output")
    _tensor(input, "input")
    if g is None:
        return None
    _check_whole_and_part("reduce_scatter_tensor", input, output, g.size(), whole_is_output=False)
    dt, mop, average = _mpi.reduction(_op(op), output.dtype)
    send = _mpi.Buffer(input, write=False)
    recv = _mpi.Buffer(output, read=False)
    finish = _then(average, [recv.array], g.size(), recv)
    return _start(g, "reduce_scatter_tensor", "Reduce_scatter_block", (send.spec(dt), recv.spec(dt), mop), finish,
                  [output], async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """dst's gather_list[r] = rank r's tensor; the other ranks pass no list."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    root = group_dst if group_dst is not None else _root(g, 0 if dst is None else dst, "gather")
    send = _mpi.Buffer(tensor, write=False)
    dt = _mpi.datatype(send.array.dtype)
    n = send.array.size
    if g.rank() == root:
        outputs = _one_per_rank("gather", gather_list, "gather_list", tensor, g.size())
        recv = np.empty(n * g.size(), dtype=send.array.dtype)
        args = (send.spec(dt), [recv, dt], root)
        finish = _written_back(outputs, recv, n)
    else:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        outputs, finish = [], None
        args = (send.spec(dt), None, root)
    return _start(g, "gather", "Gather", args, finish, outputs, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """tensor = src's scatter_list[this rank]; the other ranks pass no list."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    root = group_src if group_src is not None else _root(g, 0 if src is None else src, "scatter")
    recv = _mpi.Buffer(tensor, read=False)
    dt = _mpi.datatype(recv.array.dtype)
    if g.rank() == root:
        inputs = _one_per_rank("scatter", scatter_list, "scatter_list", tensor, g.size())
        send = _concatenated(inputs)
        args = ([send, dt], recv.spec(dt), root)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        args = (None, recv.spec(dt), root)
    return _start(g, "scatter", "Scatter", args, recv.finish, [tensor], async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group has reached this call."""
    g = resolve(group)
    if g is None:
        return None
    return _start(g, "barrier", "Barrier", (), None, [], async_op)


# -- point to point ------------------------------------------------------------------

def _peer(g, rank, what, name):
    if not isinstance(rank, (int, np.integer)) or not 0 <= rank < world().size():
        raise RuntimeError(f"{what}: invalid {name} rank: {rank}")
    if rank == world().rank():
        raise ValueError(f"Invalid {name} rank: {name} rank should not be the same as the rank of the current "
                         "process.")
    return g.group_rank(rank)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending `tensor` to rank dst; the Work's wait() returns once it has gone."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    peer = group_dst if group_dst is not None else _peer(g, dst, "send", "destination")
    buf = _mpi.Buffer(tensor, write=False)
    req = g.comm.Isend(buf.spec(_mpi.datatype(buf.array.dtype)), dest=peer, tag=tag)
    return Work([req], "send", g.timeout, None, [tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into `tensor` from rank src (any rank when None)."""
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    MPI = _mpi.mpi()
    if group_src is not None:
        peer = group_src
    elif src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(g, src, "recv", "source")
    buf = _mpi.Buffer(tensor, read=False)
    req = g.comm.Irecv(buf.spec(_mpi.datatype(buf.array.dtype)), source=peer, tag=tag)
    work = Work([req], "recv", g.timeout, buf.finish, [tensor], source=MPI.Status())
    work._group = g
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    g = resolve(group)
    _tensor(tensor)
    if g is None:
        return None
    peer = group_dst if group_dst is not None else _peer(g, dst, "send", "destination")
    buf = _mpi.Buffer(tensor, write=False)
    _start(g, "send", "Send", (buf.spec(_mpi.datatype(buf.array.dtype)), peer, tag), None, [tensor], False)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into `tensor`; returns the sender's global rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._group.ranks[work._status.Get_source()]


# -- Python objects (pickled) --------------------------------------------------------

def all_gather_object(object_list, obj, group=None):
    """object_list[r] = rank r's obj (any picklable object)."""
    g = resolve(group)
    if g is None:
        return None
    gathered = g.comm.allgather(obj)
    if len(object_list) != len(gathered):
        raise RuntimeError(f"all_gather_object: object_list must have one entry per rank ({len(gathered)}), "
                           f"got {len(object_list)}")
    object_list[:] = gathered


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every rank's object_list becomes src's (same length on every rank)."""
    g = resolve(group)
    if g is None:
        return None
    root = group_src if group_src is not None else _root(g, 0 if src is None else src, "broadcast_object_list")
    got = g.comm.bcast(list(object_list) if g.rank() == root else None, root=root)
    if len(got) != len(object_list):
        raise RuntimeError(f"broadcast_object_list: object_list has {len(object_list)} entries here and "
                           f"{len(got)} on the source rank")
    object_list[:] = got
