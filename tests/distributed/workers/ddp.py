"""Trains with DistributedDataParallel under MPI and pickles what each rank ends with
(tests/distributed/test_ddp.py compares it with one process on the whole batch).
Usage: mpiexec -n N python -m tests.distributed.workers.ddp OUT_DIR"""
import sys

import numpy as np

import nbgrad
import nbgrad.distributed as dist
from nbgrad import nn
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from tests.distributed._cases import (STEPS, global_batch, make_mlp, make_optimizer, mse, save, shard)


def params(module):
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


def grads(module):
    return {k: None if p.grad is None else p.grad.numpy().copy() for k, p in module.named_parameters()}


class Branchy(nn.Module):
    """a always used, b used on rank 0 only, c never: find_unused_parameters' cases."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(6, 4), nn.Linear(6, 4), nn.Linear(6, 4)
        self.register_buffer("scale", nbgrad.full((1,), 1.0))

    def forward(self, x, use_b):
        out = self.a(x) * self.scale
        return out + self.b(x) if use_b else out


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:      # noqa: BLE001 - the test asserts which type it was
        return ("error", type(e).__name__, str(e))


def main(out_dir):
    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    res = {}

    # 1. training: every rank starts from its own random init, DDP makes it rank 0's
    for cap in (None, 0.001):
        model = make_mlp(seed=r)
        ddp = DDP(model, bucket_cap_mb=cap)
        res["keys", cap] = list(ddp.state_dict())
        res["initial", cap] = params(ddp.module)
        res["buckets", cap] = ddp.bucket_indices
        ddp._events = []
        opt = make_optimizer(ddp.parameters())
        for step in range(STEPS):
            X, Y = global_batch(step, n)
            loss = mse(ddp(nbgrad.tensor(shard(X, r))), nbgrad.tensor(shard(Y, r)))
            opt.zero_grad()
            loss.backward()
            if step == 0:
                res["events", cap] = list(ddp._events)
                ddp._events = None
            opt.step()
        res["final", cap] = params(ddp.module)

    # 2. no_sync: the first micro-batch's gradient stays local, the second backward averages the sum
    ddp = DDP(make_mlp(seed=r))
    opt = make_optimizer(ddp.parameters())
    for step in range(2):
        opt.zero_grad()
        X1, Y1 = global_batch(step, n, micro=1)
        X2, Y2 = global_batch(step, n, micro=2)
        with ddp.no_sync():
            mse(ddp(nbgrad.tensor(shard(X1, r))), nbgrad.tensor(shard(Y1, r))).backward()
        if step == 0:
            res["no_sync_local"] = grads(ddp.module)
        mse(ddp(nbgrad.tensor(shard(X2, r))), nbgrad.tensor(shard(Y2, r))).backward()
        opt.step()
    res["no_sync_final"] = params(ddp.module)

    # 3. unused parameters: found and handled, or the next forward's error
    nbgrad.manual_seed(r)
    model = Branchy().double()
    model.scale.fill_(float(r + 1))
    ddp = DDP(model, find_unused_parameters=True)
    res["branchy_initial"] = params(model)
    X, _ = global_batch(0, n)
    ddp(nbgrad.tensor(shard(X, r)), use_b=(r == 0)).sum().backward()
    res["branchy_grads"] = grads(model)

    ddp = DDP(Branchy().double())
    ddp(nbgrad.tensor(shard(X, r)), use_b=False).sum().backward()   # b and c get no gradient
    res["unused_error"] = outcome(lambda: ddp(nbgrad.tensor(shard(X, r)), use_b=False))

    # 4. a model that differs between ranks is refused on every rank
    res["mismatch"] = outcome(lambda: DDP(nn.Linear(3 + (r == n - 1), 2)))
    res["no_params"] = outcome(lambda: DDP(nn.Tanh()))

    dist.barrier()
    save(out_dir, r, res)


if __name__ == "__main__":
    main(sys.argv[1])
