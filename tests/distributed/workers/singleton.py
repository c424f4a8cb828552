"""Started without a launcher: a world of one.  Usage: python -m tests.distributed.workers.singleton OUT_DIR"""
import sys

import numpy as np

import nbgrad
import nbgrad.distributed as dist
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from nbgrad.utils.data import DistributedSampler
from tests.distributed._cases import global_batch, make_mlp, make_optimizer, mse, save


def main(out_dir):
    dist.init_process_group()                   # backend=None: MPI
    res = {"world": (dist.get_rank(), dist.get_world_size())}
    x = nbgrad.tensor([1.5, -2.0, 3.0])
    dist.all_reduce(x, op=dist.ReduceOp.AVG)
    res["avg"] = x.tolist()
    res["sampler"] = list(DistributedSampler(range(5), shuffle=False))
    ddp = DDP(make_mlp(seed=0))
    opt = make_optimizer(ddp.parameters())
    for step in range(2):
        X, Y = global_batch(step, 1)
        opt.zero_grad()
        mse(ddp(nbgrad.tensor(X)), nbgrad.tensor(Y)).backward()
        opt.step()
    res["final"] = {k: v.numpy().copy() for k, v in ddp.module.state_dict().items()}
    dist.destroy_process_group()
    save(out_dir, 0, res)


if __name__ == "__main__":
    main(sys.argv[1])
