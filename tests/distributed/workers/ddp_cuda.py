"""DDP with CUDA parameters (staged through host memory; the simulator without a GPU).
Usage: mpiexec -n 2 python -m tests.distributed.workers.ddp_cuda OUT_DIR"""
import sys

import nbgrad
import nbgrad.distributed as dist
from nbgrad import nn
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from tests.distributed._cases import global_batch, mse, save, shard


def main(out_dir):
    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    nbgrad.manual_seed(r)
    model = nn.Linear(6, 4).double().to("cuda")
    ddp = DDP(model, bucket_cap_mb=0.0001)
    opt = nbgrad.optim.SGD(ddp.parameters(), lr=0.1)
    res = {"initial": {k: v.cpu().numpy().copy() for k, v in model.state_dict().items()}}
    for step in range(2):
        X, Y = global_batch(step, n)
        opt.zero_grad()
        mse(ddp(nbgrad.tensor(shard(X, r), device="cuda")), nbgrad.tensor(shard(Y, r)[:, :4], device="cuda")).backward()
        opt.step()
    res["final"] = {k: v.cpu().numpy().copy() for k, v in model.state_dict().items()}
    res["device"] = str(model.weight.device)
    save(out_dir, r, res)


if __name__ == "__main__":
    main(sys.argv[1])
