"""Runs nn.SyncBatchNorm under MPI and pickles what each rank saw (outputs, gradients,
running statistics); tests/distributed/test_sync_batchnorm.py compares them with one
process's BatchNorm on the concatenated batch.
Usage: mpiexec -n N python -m tests.distributed.workers.sync_batchnorm OUT_DIR
       python -m tests.distributed.workers.sync_batchnorm OUT_DIR   (a world of one)

The cases' data (case_arrays, ddp_arrays) are plain NumPy, shared with the test; nbgrad
is imported inside main() only, so the test can import this module under the PyTorch
stand-in (NBGRAD_TESTS_AGAINST_TORCH=1) too.
"""
import sys

import numpy as np

C = 3
STEPS = 2

# name -> (SyncBatchNorm keyword arguments, the input's shape after (N, C), the global
# batch's split over 2 and 3 ranks: uneven, one row per rank, an empty rank)
CASES = {
    "2d": (dict(momentum=0.3), (4, 5), {2: [3, 2], 3: [2, 3, 4]}),
    "1d_cumulative": (dict(momentum=None, affine=False), (), {2: [4, 3], 3: [2, 5, 3]}),
    "3d_no_bias": (dict(bias=False, eps=1e-3), (2, 2, 3), {2: [2, 1], 3: [1, 2, 1]}),
    "batch_stats_in_eval": (dict(track_running_stats=False), (5,), {2: [3, 3], 3: [2, 2, 3]}),
    "one_row_each": (dict(), (), {2: [1, 1], 3: [1, 1, 1]}),
    "empty_rank": (dict(momentum=0.5), (4,), {2: [3, 0], 3: [3, 0, 2]}),
}


def offsets(sizes):
    return np.concatenate([[0], np.cumsum(sizes)]).astype(int)


def case_arrays(name, world):
    """The case's initial affine parameters and running statistics, and per step the
    global batch X and the gradient G of the output the loss sum(out * G) gives; plus
    an eval batch."""
    kwargs, tail, split = CASES[name]
    n = sum(split[world])
    rng = np.random.default_rng(sum(map(ord, name)) + 100 * world)
    d = {"weight": 1.0 + 0.5 * rng.standard_normal(C), "bias": rng.standard_normal(C),
         "running_mean": 0.2 * rng.standard_normal(C), "running_var": 1.0 + rng.random(C)}
    d["X"] = [3.0 + 2.0 * rng.standard_normal((n, C) + tail) for _ in range(STEPS)]
    d["G"] = [rng.standard_normal((n, C) + tail) for _ in range(STEPS)]
    d["eval"] = rng.standard_normal((n, C) + tail)
    return d


# a small conv net with two BatchNorm2d layers, converted and trained under DDP
DDP_SPLIT = {2: [3, 2], 3: [2, 1, 3]}


def ddp_arrays(world):
    rng = np.random.default_rng(7 + world)
    n = sum(DDP_SPLIT[world])
    return [(rng.standard_normal((n, 2, 5, 5)), rng.standard_normal((n, 3, 3, 3))) for _ in range(STEPS)]


def make_net(nn):
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 3, 3),
                         nn.BatchNorm2d(3, momentum=None)).double()


def numpy_or_none(t):
    return None if t is None else t.detach().numpy().copy()


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:      # noqa: BLE001 - the test asserts which type it was
        return ("error", type(e).__name__, str(e))


def run_case(nbgrad, name, r, world):
    kwargs, tail, split = CASES[name]
    d = case_arrays(name, world)
    lo, hi = offsets(split[world])[r:r + 2]
    m = nbgrad.nn.SyncBatchNorm(C, **kwargs).double()
    with nbgrad.no_grad():
        if m.weight is not None:
            m.weight.copy_(nbgrad.tensor(d["weight"]))
        if m.bias is not None:
            m.bias.copy_(nbgrad.tensor(d["bias"]))
        if m.running_mean is not None:
            m.running_mean.copy_(nbgrad.tensor(d["running_mean"]))
            m.running_var.copy_(nbgrad.tensor(d["running_var"]))
    steps = []
    for s in range(STEPS):
        x = nbgrad.tensor(d["X"][s][lo:hi], requires_grad=True)
        out = m(x)
        (out * nbgrad.tensor(d["G"][s][lo:hi])).sum().backward()
        steps.append({"out": numpy_or_none(out), "grad_fn": type(out.grad_fn).__name__, "x_grad": numpy_or_none(x.grad),
                      "weight_grad": None if m.weight is None else numpy_or_none(m.weight.grad),
                      "bias_grad": None if m.bias is None else numpy_or_none(m.bias.grad),
                      "running_mean": numpy_or_none(m.running_mean), "running_var": numpy_or_none(m.running_var),
                      "num_batches_tracked": None if m.num_batches_tracked is None else int(m.num_batches_tracked)})
        m.zero_grad()
    m.eval()
    out = m(nbgrad.tensor(d["eval"][lo:hi]))
    return {"steps": steps, "eval": numpy_or_none(out)}


def run_ddp(nbgrad, r, world):
    """convert_sync_batchnorm on a conv net, wrapped in DDP, two SGD steps."""
    from nbgrad.nn.parallel import DistributedDataParallel as DDP
    nbgrad.manual_seed(0)
    net = nbgrad.nn.SyncBatchNorm.convert_sync_batchnorm(make_net(nbgrad.nn))
    res = {"initial": {k: v.numpy().copy() for k, v in net.state_dict().items()},
           "types": [type(c).__name__ for c in net]}
    ddp = DDP(net)
    opt = nbgrad.optim.SGD(ddp.parameters(), lr=0.1)
    lo, hi = offsets(DDP_SPLIT[world])[r:r + 2]
    res["outs"] = []
    for X, G in ddp_arrays(world):
        opt.zero_grad()
        out = ddp(nbgrad.tensor(X[lo:hi]))
        (out * nbgrad.tensor(G[lo:hi])).sum().backward()
        opt.step()
        res["outs"].append(numpy_or_none(out))
    res["final"] = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    return res


def run_errors(nbgrad, r, world):
    dist = nbgrad.distributed
    res = {}
    # refused on every rank before any message: the job goes on
    m = nbgrad.nn.SyncBatchNorm(C).double()
    res["channels"] = outcome(lambda: m(nbgrad.ones(2, C + 1, dtype=nbgrad.float64)))
    res["bad_dim"] = outcome(lambda: m(nbgrad.ones(C, dtype=nbgrad.float64)))
    t = nbgrad.tensor([float(r + 1)])
    dist.all_reduce(t)
    res["after"] = t.item()
    # a second backward through the synchronized backward
    x = nbgrad.tensor(np.arange(4.0 * C).reshape(4, C) + r, requires_grad=True)
    y = m(x)
    (gx,) = nbgrad.autograd.grad((y * y * y).sum(), x, create_graph=True)
    res["double_backward"] = outcome(lambda: gx.sum().backward())
    return res


def run_subgroup(nbgrad, r, world):
    """A group of ranks 0 and world-1: they synchronize, the others normalize alone."""
    group = nbgrad.distributed.new_group([0, world - 1])
    d = case_arrays("2d", world)
    lo, hi = offsets(CASES["2d"][2][world])[r:r + 2]
    m = nbgrad.nn.SyncBatchNorm(C, process_group=group).double()
    out = m(nbgrad.tensor(d["X"][0][lo:hi]))
    return {"out": numpy_or_none(out), "running_mean": numpy_or_none(m.running_mean),
            "running_var": numpy_or_none(m.running_var)}


def main(out_dir):
    import nbgrad
    import nbgrad.distributed as dist
    from tests.distributed._cases import save
    dist.init_process_group("mpi")
    r, world = dist.get_rank(), dist.get_world_size()
    if world == 1:
        # a world of one falls back to BatchNorm (F.batch_norm) and its checks
        m = nbgrad.nn.SyncBatchNorm(C).double()
        x = nbgrad.tensor(case_arrays("2d", 2)["X"][0], requires_grad=True)
        out = m(x)
        out.sum().backward()
        res = {"out": numpy_or_none(out), "grad_fn": type(out.grad_fn).__name__, "x_grad": numpy_or_none(x.grad),
               "running_mean": numpy_or_none(m.running_mean), "running_var": numpy_or_none(m.running_var),
               "one_value": outcome(lambda: m(nbgrad.ones(1, C, dtype=nbgrad.float64)))}
        dist.destroy_process_group()
        save(out_dir, 0, res)
        return
    res = {name: run_case(nbgrad, name, r, world) for name in CASES}
    res["ddp"] = run_ddp(nbgrad, r, world)
    res["errors"] = run_errors(nbgrad, r, world)
    res["subgroup"] = run_subgroup(nbgrad, r, world)
    dist.barrier()
    save(out_dir, r, res)


if __name__ == "__main__":
    main(sys.argv[1])
