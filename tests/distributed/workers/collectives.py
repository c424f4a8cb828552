"""Runs every collective under MPI and pickles what each rank saw (tests/distributed/test_collectives.py
checks it against NumPy).  Usage: mpiexec -n N python -m tests.distributed.workers.collectives OUT_DIR [cuda]"""
import sys

import numpy as np

import nbgrad
import nbgrad.distributed as dist
from tests.distributed._cases import DTYPES, OPS, rank_input, save


def outcome(fn):
    """('ok', value) or ('error', exception type names, message)."""
    try:
        return ("ok", fn())
    except Exception as e:      # noqa: BLE001 - the test asserts which type it was
        return ("error", [c.__name__ for c in type(e).__mro__], str(e))


def main(out_dir, device="cpu"):
    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    res = {"rank": r, "world": n, "initialized": dist.is_initialized(), "backend": str(dist.get_backend())}

    def t(a):
        return nbgrad.tensor(a, device=device)

    def val(x):
        return x.cpu().numpy() if x.device.type != "cpu" else x.numpy().copy()

    for dt in DTYPES:
        for op in OPS:
            x = t(rank_input(r, dt))

            def run():
                dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
                return val(x)
            res["all_reduce", dt, op] = outcome(run)
            res["after", dt, op] = val(x)          # what a refused reduction left

        # a strided tensor (the transpose of a dense one) is reduced in place too
        base = t(np.ascontiguousarray(rank_input(r, dt).T))
        view = base.t()
        dist.all_reduce(view, op=dist.ReduceOp.MAX)
        res["strided", dt] = (val(view), view.is_contiguous())

        y = t(rank_input(r, dt, salt=1))
        dist.broadcast(y, src=n - 1)
        res["broadcast", dt] = val(y)

        y = t(rank_input(r, dt, salt=2))
        outs = [t(np.zeros_like(rank_input(0, dt))) for _ in range(n)]
        dist.all_gather(outs, y)
        res["all_gather", dt] = [val(o) for o in outs]

        cat = t(np.zeros((n * 2, 3), dtype=rank_input(0, dt).dtype))
        dist.all_gather_into_tensor(cat, y)
        res["all_gather_into_tensor", dt] = val(cat)

        # point to point in a ring: send to the next rank, receive from the previous one
        z = t(rank_input(r, dt, salt=3))
        got = t(np.zeros_like(rank_input(0, dt)))
        if r % 2 == 0:
            dist.send(z, (r + 1) % n)
            src = dist.recv(got, (r - 1) % n)
        else:
            src = dist.recv(got, (r - 1) % n)
            dist.send(z, (r + 1) % n)
        res["ring", dt] = (val(got), src)

    # the reductions that take one rank or one slice each, in float32 and int64
    for dt in ("float32", "int64"):
        ins = [t(rank_input(r, dt, salt=4 + k)) for k in range(n)]
        out = t(np.zeros_like(rank_input(0, dt)))
        dist.reduce_scatter(out, ins, op=dist.ReduceOp.SUM)
        res["reduce_scatter", dt] = val(out)
        big = t(np.concatenate([rank_input(r, dt, salt=4 + k) for k in range(n)]))
        out = t(np.zeros_like(rank_input(0, dt)))
        dist.reduce_scatter_tensor(out, big, op=dist.ReduceOp.MAX)
        res["reduce_scatter_tensor", dt] = val(out)

        x = t(rank_input(r, dt, salt=5))
        dist.reduce(x, dst=1, op=dist.ReduceOp.SUM)
        res["reduce", dt] = val(x)

        x = t(rank_input(r, dt, salt=6))
        lst = [t(np.zeros_like(rank_input(0, dt))) for _ in range(n)] if r == 0 else None
        dist.gather(x, lst, dst=0)
        res["gather", dt] = None if lst is None else [val(o) for o in lst]

        x = t(np.zeros_like(rank_input(0, dt)))
        lst = [t(rank_input(k, dt, salt=7)) for k in range(n)] if r == n - 1 else None
        dist.scatter(x, lst, src=n - 1)
        res["scatter", dt] = val(x)

    res["reduce_scatter_avg"] = val(_reduce_scatter_avg(t, r, n))

    # async_op: a Work handle whose wait() finishes the operation
    x = t(rank_input(r, "float64"))
    work = dist.all_reduce(x, op=dist.ReduceOp.SUM, async_op=True)
    res["async"] = (type(work).__name__, work.wait(), work.is_completed(), val(x))
    work = dist.broadcast(t(np.zeros(3)), src=0, async_op=True)
    work.wait()
    if n > 1:
        if r == 0:
            w = dist.isend(t(np.full(4, 7.0)), 1, tag=3)
            w.wait()
        elif r == 1:
            buf = t(np.zeros(4))
            w = dist.irecv(buf, src=None, tag=3)
            res["irecv_any"] = (w.source_rank(), val(buf))

    # the tensor's version and autograd flags are left alone, as PyTorch's collectives do
    leaf = nbgrad.ones(3, requires_grad=True, device=device)
    v = leaf._version
    dist.all_reduce(leaf)
    res["leaf"] = (leaf._version - v, leaf.requires_grad, leaf.is_leaf, val(leaf.detach()))

    # bad calls: the error PyTorch raises, and nothing written
    x = t(rank_input(r, "float32"))
    res["bad_gather_len"] = outcome(lambda: dist.all_gather([t(np.zeros((2, 3), np.float32))], x))
    res["bad_gather_shape"] = outcome(
        lambda: dist.all_gather([t(np.zeros((3, 2), np.float32)) for _ in range(n)], x))
    res["bad_gather_dtype"] = outcome(
        lambda: dist.all_gather([t(np.zeros((2, 3), np.float64)) for _ in range(n)], x))
    res["bad_root"] = outcome(lambda: dist.broadcast(x, src=n))
    res["bad_send_self"] = outcome(lambda: dist.send(x, r))
    res["bad_tensor"] = outcome(lambda: dist.all_reduce(np.ones(3)))
    res["bad_op"] = outcome(lambda: dist.all_reduce(x, op="sum"))
    if hasattr(nbgrad, "bfloat16"):
        res["bad_bfloat16"] = outcome(lambda: dist.all_reduce(nbgrad.ones(3, dtype=nbgrad.bfloat16)))
    res["bad_into"] = outcome(lambda: dist.all_gather_into_tensor(t(np.zeros(5, np.float32)), x))
    res["untouched"] = val(x)
    res["twice"] = outcome(lambda: dist.init_process_group("mpi"))

    objs = [None] * n
    dist.all_gather_object(objs, {"rank": r, "sq": r * r})
    res["all_gather_object"] = objs
    lst = [r, "x" * r] if r == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    res["broadcast_object_list"] = lst

    # a group of some ranks: ranks are global, the group's own rank numbers are its order
    if n >= 3:
        g = dist.new_group([0, 2])
        if r in (0, 2):
            x = t(np.full(2, float(r + 1)))
            dist.all_reduce(x, group=g)
            res["group"] = (dist.get_rank(g), dist.get_world_size(g), val(x))
            y = t(np.full(2, float(r)))
            dist.broadcast(y, src=2, group=g)
            res["group_bcast"] = val(y)
        else:
            res["group"] = (dist.get_rank(g), dist.get_world_size(g), None)
        dist.barrier()
    dist.barrier()
    dist.destroy_process_group()
    res["after_destroy"] = dist.is_initialized()
    save(out_dir, r, res)


def _reduce_scatter_avg(t, r, n):
    out = t(np.zeros(2, np.float64))
    big = t(np.arange(2 * n, dtype=np.float64) * (r + 1))
    dist.reduce_scatter_tensor(out, big, op=dist.ReduceOp.AVG)
    return out


if __name__ == "__main__":
    main(sys.argv[1], *sys.argv[2:])
