"""nbgrad.distributed: torch.distributed's API over MPI (mpi4py).

Launch with MPI's launcher, e.g. `mpirun -n 2 python train.py` (or `mpiexec`); the
processes are the ranks of the default group.  Started without a launcher, a program is
a world of one.  Importing this module does not import mpi4py: init_process_group does,
and names the extra to install when it is missing (pip install "nbgrad[distributed]").

  process_group.py  init_process_group, ranks, new_group, the abort-on-exception rule
  collectives.py    all_reduce, broadcast, all_gather, reduce_scatter, send/recv, ...
  _mpi.py           dtypes and reductions to MPI's, a tensor's memory as an MPI buffer
"""
from .process_group import (Backend, GroupMember, ProcessGroup, default_pg_timeout, destroy_process_group,
                            get_backend, get_global_rank, get_group_rank, get_process_group_ranks, get_rank,
                            get_world_size, group, init_process_group, is_available, is_gloo_available,
                            is_initialized, is_mpi_available, is_nccl_available, new_group)
from .collectives import (DistBackendError, DistError, ReduceOp, Work, all_gather, all_gather_into_tensor,
                          all_gather_object, all_reduce, barrier, broadcast, broadcast_object_list, gather,
                          irecv, isend, recv, reduce, reduce_op, reduce_scatter, reduce_scatter_tensor, scatter,
                          send)
