"""A rank that fails: the others must not wait forever.  Usage:
mpiexec -n 2 python -m tests.distributed.workers.failure raise|hang"""
import sys
import time
from datetime import timedelta

import nbgrad
import nbgrad.distributed as dist


def main(mode):
    if mode == "hang":
        dist.init_process_group("mpi", timeout=timedelta(seconds=2))
    else:
        dist.init_process_group("mpi")
    x = nbgrad.ones(4)
    if dist.get_rank() == 1:
        if mode == "raise":
            raise RuntimeError("rank 1 failed on purpose")
        time.sleep(120)            # hung: never joins the all-reduce
    dist.all_reduce(x)             # rank 0 waits here for rank 1
    print("all_reduce returned", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
