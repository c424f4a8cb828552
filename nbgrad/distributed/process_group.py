"""The process group: MPI's processes as PyTorch's default group, and groups of some of them.

Rank and world size come from the MPI launcher (`mpirun -n 4 python train.py`); a
program started without one is a world of one (MPI's singleton start).  The default
group works on a duplicate of MPI_COMM_WORLD, so nbgrad's messages never meet those a
program sends through mpi4py itself.
"""
import sys
import time
from datetime import timedelta

from .._warnings import warn_user as _warn_user
from . import _mpi

# PyTorch's default_pg_timeout: how long a blocking collective waits for its peers
default_pg_timeout = timedelta(minutes=30)

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class ProcessGroup:
    """Some of MPI's processes and their communicator.  `ranks` are global ranks, in group
    rank order; a process outside the group holds none (rank() is -1)."""

    def __init__(self, comm, ranks, timeout):
        self.comm = comm
        self.ranks = list(ranks)
        self.timeout = timeout
        self._rank = comm.Get_rank() if comm is not None else -1

    def rank(self):
        return self._rank

    def size(self):
        return len(self.ranks)

    def group_rank(self, global_rank, what="rank"):
        """The rank in this group of a global rank (src=, dst= are global, as in PyTorch)."""
        try:
            return self.ranks.index(int(global_rank))
        except ValueError:
            raise ValueError(f"Global rank {global_rank} is not part of group {self}") from None

    def name(self):
        return "mpi"

    def __repr__(self):
        return f"ProcessGroup(backend='mpi', ranks={self.ranks})"


class GroupMember:
    """PyTorch's names for the default group (WORLD, set by init_process_group) and for
    what new_group gives a process outside the new group."""
    WORLD = None
    NON_GROUP_MEMBER = object()


class _GroupNamespace:
    """`nbgrad.distributed.group.WORLD`: the default group once initialized."""
    WORLD = None


group = _GroupNamespace


class Backend(str):
    MPI = "mpi"
    GLOO = "gloo"
    NCCL = "nccl"
    UNDEFINED = "undefined"

    def __new__(cls, name):
        return str.__new__(cls, str(name).lower())


_world = None
_previous_excepthook = None


def is_available():
    """True when mpi4py is installed (nbgrad's only backend is MPI)."""
    return _mpi.available()


def is_mpi_available():
    return _mpi.available()


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_initialized():
    return _world is not None


def world():
    """The default group; ValueError (PyTorch's) before init_process_group."""
    if _world is None:
        raise ValueError(_NOT_INITIALIZED)
    return _world


def resolve(group):
    """The ProcessGroup a collective's group= names (None: the default group)."""
    w = _world
    if w is None:
        raise ValueError(_NOT_INITIALIZED)
    if group is None or group is w:
        return w
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup made by new_group(), not {type(group).__name__}")
    return group


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the processes an MPI launcher started (or a world of one without a launcher).

    backend: "mpi" (or None).  "gloo" and "nccl", which PyTorch programs name, are carried by
    MPI too (with a warning), so that such a program runs unchanged under mpirun.
    init_method and store are not needed: MPI's launcher does the rendezvous.
    world_size and rank, when given, must agree with the launcher's.
    timeout: how long a blocking collective waits before raising (default 30 minutes)."""
    global _world
    if _world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = "mpi" if backend is None else str(backend).lower()
    parts = {p.split(":")[-1] for p in name.split(",")}
    if not parts <= {"mpi", "gloo", "nccl"}:
        raise ValueError(f"Invalid backend: '{backend}'. nbgrad.distributed runs on MPI: use backend='mpi'")
    if parts != {"mpi"}:
        _warn_user(f"nbgrad.distributed has only the MPI backend: backend={backend!r} runs on MPI",
                   stacklevel=2)
    MPI = _mpi.mpi()
    comm = MPI.COMM_WORLD.Dup()
    size, me = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, None) and int(world_size) != size:
        comm.Free()
        raise ValueError(f"init_process_group: world_size={world_size}, but the MPI launcher started {size} "
                         f"process{'es' if size != 1 else ''}")
    if rank not in (-1, None) and int(rank) != me:
        comm.Free()
        raise ValueError(f"init_process_group: rank={rank}, but MPI gave this process rank {me}")
    if timeout is None:
        timeout = default_pg_timeout
    seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)
    _world = ProcessGroup(comm, range(size), seconds)
    GroupMember.WORLD = _GroupNamespace.WORLD = _world
    if size > 1:
        _abort_on_uncaught_exception(MPI)


def _abort_on_uncaught_exception(MPI):
    """A rank that dies of an exception takes the job down (MPI_Abort) instead of leaving
    the others waiting in a collective forever; its traceback is printed first."""
    global _previous_excepthook
    if _previous_excepthook is not None:
        return
    _previous_excepthook = sys.excepthook

    def excepthook(kind, value, tb):
        _previous_excepthook(kind, value, tb)
        if _world is not None and not issubclass(kind, SystemExit):
            try:
                sys.stderr.flush()
                sys.stdout.flush()
                # the launcher forwards output through pipes and drops what it has not read
                # when the job is aborted: give it a moment to read the traceback
                time.sleep(0.5)
            finally:
                MPI.COMM_WORLD.Abort(1)

    sys.excepthook = excepthook


def destroy_process_group(group=None):
    """Leave the default group (group=None) or free a group from new_group()."""
    global _world
    if group is None or group is GroupMember.WORLD:
        if _world is None:
            raise ValueError(_NOT_INITIALIZED)
        _world.comm.Free()
        _world = None
        GroupMember.WORLD = _GroupNamespace.WORLD = None
        return
    if isinstance(group, ProcessGroup) and group.comm is not None:
        group.comm.Free()
        group.comm = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of the given global ranks (all of them when None).  Every process of the
    default group must call it, as in PyTorch; one outside `ranks` gets
    GroupMember.NON_GROUP_MEMBER, and collectives on that return None."""
    w = world()
    ranks = sorted(set(range(w.size()) if ranks is None else (int(r) for r in ranks)))
    for r in ranks:
        if not 0 <= r < w.size():
            raise ValueError(f"new_group: rank {r} is not in the default group of {w.size()} processes")
    mpi_group = w.comm.Get_group().Incl(ranks)
    comm = w.comm.Create(mpi_group)
    mpi_group.Free()
    if comm == _mpi.mpi().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    seconds = w.timeout if timeout is None else (
        timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout))
    return ProcessGroup(comm, ranks, seconds)


def get_rank(group=None):
    """This process's rank in the group (-1 outside it)."""
    g = resolve(group)
    return -1 if g is None else g.rank()


def get_world_size(group=None):
    g = resolve(group)
    return -1 if g is None else g.size()


def get_backend(group=None):
    resolve(group)
    return Backend("mpi")


def get_global_rank(group, group_rank):
    g = resolve(group)
    return g.ranks[group_rank]


def get_group_rank(group, global_rank):
    return resolve(group).group_rank(global_rank)


def get_process_group_ranks(group):
    return list(resolve(group).ranks)
