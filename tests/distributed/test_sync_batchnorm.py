"""nn.SyncBatchNorm on 2 and 3 MPI ranks (uneven batches, one row per rank, an empty rank)
against one process's BatchNorm on the concatenated batch (float64, 1e-12): outputs,
input gradients, each rank's weight and bias gradients (its rows' share), running
statistics, eval mode; convert_sync_batchnorm on a conv net trained under DDP; a
subgroup; the fallback to BatchNorm without a process group or in a world of one; the
errors.  The workers (tests/distributed/workers/sync_batchnorm.py) run nbgrad under MPI;
the references are computed here, in this process."""
import numpy as np
import pytest

import nbgrad
from tests.distributed._cases import run_ok
from tests.distributed.workers.sync_batchnorm import (C, CASES, DDP_SPLIT, STEPS, case_arrays, ddp_arrays, make_net,
                                                      offsets)

TOL = dict(rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module", params=[2, 3])
def world(request, tmp_path_factory):
    n = request.param
    return n, run_ok(n, "tests.distributed.workers.sync_batchnorm", tmp_path_factory.mktemp(f"sbn{n}"), timeout=90)


def batch_norm_class(ndim):
    return {2: nbgrad.nn.BatchNorm1d, 3: nbgrad.nn.BatchNorm1d, 4: nbgrad.nn.BatchNorm2d,
            5: nbgrad.nn.BatchNorm3d}[ndim]


def close(got, want, what):
    assert got is not None, what
    np.testing.assert_allclose(got, want, err_msg=what, **TOL)


def reference(name, n):
    """One process's BatchNorm on each step's whole batch: per step its output, input
    gradient, running statistics, and per rank the weight and bias gradients of that
    rank's rows of the loss; then each rank's eval output."""
    kwargs, tail, split = CASES[name]
    d = case_arrays(name, n)
    bounds = offsets(split[n])
    bn = batch_norm_class(2 + len(tail))(C, **kwargs).double()
    with nbgrad.no_grad():
        if bn.weight is not None:
            bn.weight.copy_(nbgrad.tensor(d["weight"]))
        if bn.bias is not None:
            bn.bias.copy_(nbgrad.tensor(d["bias"]))
        if bn.running_mean is not None:
            bn.running_mean.copy_(nbgrad.tensor(d["running_mean"]))
            bn.running_var.copy_(nbgrad.tensor(d["running_var"]))
    params = [p for p in (bn.weight, bn.bias) if p is not None]
    steps = []
    for s in range(STEPS):
        x = nbgrad.tensor(d["X"][s], requires_grad=True)
        out = bn(x)
        (gx,) = nbgrad.autograd.grad(out, x, nbgrad.tensor(d["G"][s]), retain_graph=True)
        shares = []
        for r in range(n):
            mask = np.zeros_like(d["G"][s])
            mask[bounds[r]:bounds[r + 1]] = 1.0
            shares.append([g.numpy() for g in nbgrad.autograd.grad(out, params, nbgrad.tensor(d["G"][s] * mask),
                                                                    retain_graph=True)] if params else [])
        steps.append({"out": out.detach().numpy(), "x_grad": gx.numpy(), "shares": shares,
                      "running_mean": None if bn.running_mean is None else bn.running_mean.numpy().copy(),
                      "running_var": None if bn.running_var is None else bn.running_var.numpy().copy(),
                      "num_batches_tracked": None if bn.num_batches_tracked is None else int(bn.num_batches_tracked)})
    bn.eval()
    # eval: the running statistics (row by row), or without them each rank's own batch
    evals = [bn(nbgrad.tensor(d["eval"][bounds[r]:bounds[r + 1]])).detach().numpy() for r in range(n)]
    return steps, evals


@pytest.mark.parametrize("name", list(CASES))
def test_each_rank_equals_batch_norm_on_the_whole_batch(world, name):
    n, ranks = world
    kwargs, tail, split = CASES[name]
    bounds = offsets(split[n])
    want_steps, want_evals = reference(name, n)
    for r, res in enumerate(ranks):
        rows = slice(bounds[r], bounds[r + 1])
        empty = bounds[r] == bounds[r + 1]
        for s, (got, want) in enumerate(zip(res[name]["steps"], want_steps)):
            at = f"{name}, rank {r} of {n}, step {s}"
            assert got["grad_fn"] == "SyncBatchNormBackward", at
            close(got["out"], want["out"][rows], f"output, {at}")
            assert got["out"].shape == want["out"][rows].shape
            if empty:
                # an empty batch takes part in the collectives but gets no gradient (None), as in PyTorch
                assert got["x_grad"] is None and got["weight_grad"] is None and got["bias_grad"] is None, at
            else:
                close(got["x_grad"], want["x_grad"][rows], f"input gradient, {at}")
                share = iter(want["shares"][r])
                for which in ("weight_grad", "bias_grad"):
                    present = (which == "weight_grad" and kwargs.get("affine", True)) or \
                        (which == "bias_grad" and kwargs.get("affine", True) and kwargs.get("bias", True))
                    if present:
                        close(got[which], next(share), f"{which}, {at}")
                    else:
                        assert got[which] is None, at
            for buf in ("running_mean", "running_var"):
                if want[buf] is None:
                    assert got[buf] is None
                else:
                    close(got[buf], want[buf], f"{buf}, {at}")
            assert got["num_batches_tracked"] == want["num_batches_tracked"]
        close(res[name]["eval"], want_evals[r], f"eval output, {name}, rank {r} of {n}")


def test_weight_gradients_add_up_to_the_whole_batch(world):
    # each rank keeps its share (DDP averages them): the shares add up to one process's gradient
    n, ranks = world
    d = case_arrays("2d", n)
    bn = nbgrad.nn.BatchNorm2d(C, **CASES["2d"][0]).double()
    with nbgrad.no_grad():
        bn.weight.copy_(nbgrad.tensor(d["weight"]))
        bn.bias.copy_(nbgrad.tensor(d["bias"]))
    (bn(nbgrad.tensor(d["X"][0])) * nbgrad.tensor(d["G"][0])).sum().backward()
    for which, p in (("weight_grad", bn.weight), ("bias_grad", bn.bias)):
        total = sum(res["2d"]["steps"][0][which] for res in ranks)
        close(total, p.grad.numpy(), which)
        # and no rank holds the whole of it
        assert not np.allclose(ranks[0]["2d"]["steps"][0][which], p.grad.numpy())


def test_converted_conv_net_under_ddp_trains_as_one_process(world):
    n, ranks = world
    for res in ranks:
        assert res["ddp"]["types"] == ["Conv2d", "SyncBatchNorm", "ReLU", "Conv2d", "SyncBatchNorm"]
    net = make_net(nbgrad.nn)
    net.load_state_dict({k: nbgrad.tensor(v) for k, v in ranks[0]["ddp"]["initial"].items()})
    opt = nbgrad.optim.SGD(net.parameters(), lr=0.1)
    bounds = offsets(DDP_SPLIT[n])
    outs = []
    for X, G in ddp_arrays(n):
        opt.zero_grad()
        out = net(nbgrad.tensor(X))
        # DDP averages the ranks' gradients of their own sum(out * G)
        ((out * nbgrad.tensor(G)).sum() / n).backward()
        opt.step()
        outs.append(out.detach().numpy())
    want = {k: v.numpy() for k, v in net.state_dict().items()}
    for r, res in enumerate(ranks):
        for s, out in enumerate(outs):
            close(res["ddp"]["outs"][s], out[bounds[r]:bounds[r + 1]], f"output, rank {r}, step {s}")
        assert list(res["ddp"]["final"]) == list(want)
        for k, v in want.items():
            close(res["ddp"]["final"][k], v, f"{k}, rank {r}")


def test_subgroup(world):
    # process_group=new_group([0, n - 1]): those two synchronize; a rank outside it
    # (world size -1 there) normalizes its own batch
    n, ranks = world
    d = case_arrays("2d", n)
    bounds = offsets(CASES["2d"][2][n])
    X = d["X"][0]
    members = [0, n - 1]
    pair = nbgrad.nn.BatchNorm2d(C).double()
    out = pair(nbgrad.tensor(np.concatenate([X[bounds[r]:bounds[r + 1]] for r in members]))).detach().numpy()
    start = 0
    for r in members:
        size = bounds[r + 1] - bounds[r]
        close(ranks[r]["subgroup"]["out"], out[start:start + size], f"rank {r}")
        close(ranks[r]["subgroup"]["running_mean"], pair.running_mean.numpy(), f"running_mean, rank {r}")
        close(ranks[r]["subgroup"]["running_var"], pair.running_var.numpy(), f"running_var, rank {r}")
        start += size
    for r in range(1, n - 1):
        alone = nbgrad.nn.BatchNorm2d(C).double()
        close(ranks[r]["subgroup"]["out"], alone(nbgrad.tensor(X[bounds[r]:bounds[r + 1]])).detach().numpy(),
              f"rank {r}")
        close(ranks[r]["subgroup"]["running_var"], alone.running_var.numpy(), f"running_var, rank {r}")


def test_errors_under_mpi(world):
    n, ranks = world
    for res in ranks:
        e = res["errors"]
        # refused on every rank before any message: the next collective still meets
        assert e["channels"] == ("error", "RuntimeError", "running_mean should contain 4 elements not 3")
        assert e["bad_dim"] == ("error", "ValueError", "expected at least 2D input (got 1D input)")
        assert e["after"] == n * (n + 1) / 2
        # nbgrad's own: the synchronized backward has no derivative
        assert e["double_backward"][:2] == ("error", "RuntimeError")
        assert "SyncBatchNormBackward" in e["double_backward"][2]


def test_world_of_one_is_batch_norm(tmp_path):
    (res,) = run_ok(1, "tests.distributed.workers.sync_batchnorm", tmp_path, launcher=False, timeout=60)
    bn = nbgrad.nn.BatchNorm2d(C).double()
    x = nbgrad.tensor(case_arrays("2d", 2)["X"][0], requires_grad=True)
    out = bn(x)
    out.sum().backward()
    assert res["grad_fn"] == "NativeBatchNormBackward0"
    close(res["out"], out.detach().numpy(), "output")
    close(res["x_grad"], x.grad.numpy(), "input gradient")
    close(res["running_mean"], bn.running_mean.numpy(), "running_mean")
    close(res["running_var"], bn.running_var.numpy(), "running_var")
    # one value per channel: no other process to share statistics with
    assert res["one_value"][:2] == ("error", "ValueError")
    assert res["one_value"][2].startswith("Expected more than 1 value per channel when training, got input size")


# -- in this process: no process group ------------------------------------------------

def test_without_a_process_group_it_is_batch_norm():
    rng = np.random.default_rng(0)
    sync = nbgrad.nn.SyncBatchNorm(4, momentum=None).double()
    plain = nbgrad.nn.BatchNorm2d(4, momentum=None).double()
    for s in range(3):
        X, G = rng.standard_normal((3, 4, 2, 5)), rng.standard_normal((3, 4, 2, 5))
        outs = []
        for m in (sync, plain):
            m.zero_grad()
            x = nbgrad.tensor(X, requires_grad=True)
            out = m(x)
            (out * nbgrad.tensor(G)).sum().backward()
            outs.append((out.detach().numpy(), x.grad.numpy(), m.weight.grad.numpy(), m.bias.grad.numpy(),
                         type(out.grad_fn).__name__))
        for got, want in zip(outs[0], outs[1]):
            np.testing.assert_array_equal(got, want)
        assert outs[0][-1] == "NativeBatchNormBackward0"
    for k, v in plain.state_dict().items():
        np.testing.assert_array_equal(sync.state_dict()[k].numpy(), v.numpy())
    assert int(sync.num_batches_tracked) == 3
    sync.eval()
    plain.eval()
    X = nbgrad.tensor(rng.standard_normal((2, 4, 3, 2)))
    np.testing.assert_array_equal(sync(X).detach().numpy(), plain(X).detach().numpy())


def test_constructor_and_repr():
    m = nbgrad.nn.SyncBatchNorm(3, eps=1e-3, momentum=0.2, process_group="pg")
    assert m.process_group == "pg"
    assert repr(m) == "SyncBatchNorm(3, eps=0.001, momentum=0.2, affine=True, bias=True, track_running_stats=True)"
    assert [k for k, _ in m.named_parameters()] == ["weight", "bias"]
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    bare = nbgrad.nn.SyncBatchNorm(3, affine=False, track_running_stats=False)
    assert bare.weight is None and bare.running_mean is None and bare.process_group is None
    assert repr(bare) == ("SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                          "track_running_stats=False)")


def test_errors():
    m = nbgrad.nn.SyncBatchNorm(3).double()
    with pytest.raises(ValueError, match=r"^expected at least 2D input \(got 1D input\)$"):
        m(nbgrad.ones(3, dtype=nbgrad.float64))
    with pytest.raises(ValueError, match="^SyncBatchNorm number of input channels should be non-zero$"):
        m(nbgrad.ones(2, 0, 4, dtype=nbgrad.float64))
    # refused before anything moved
    assert int(m.num_batches_tracked) == 0
    np.testing.assert_array_equal(m.running_mean.numpy(), np.zeros(3))
    with pytest.raises(ValueError, match="^Expected more than 1 value per channel when training, got input size"):
        m(nbgrad.ones(1, 3, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match="^running_mean should contain 4 elements not 3$"):
        m(nbgrad.ones(2, 4, dtype=nbgrad.float64))
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3))
    # eval mode: one value per channel is fine (the running statistics)
    m.eval()
    np.testing.assert_allclose(m(nbgrad.full((1, 3), 2.0, dtype=nbgrad.float64)).detach().numpy(),
                               np.full((1, 3), 2.0 / np.sqrt(1 + 1e-5)), rtol=1e-15)


def test_convert_sync_batchnorm():
    nn = nbgrad.nn
    inner = nn.BatchNorm1d(4, eps=1e-3, momentum=None, bias=False)
    inner.qconfig = "qconfig"
    inner.eval()
    inst = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    net = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3, momentum=0.3), nn.Sequential(inner), inst,
                        nn.BatchNorm3d(3, affine=False, track_running_stats=False))
    bn = net[1]
    with nbgrad.no_grad():
        bn.running_mean.fill_(0.5)
    bn.num_batches_tracked.fill_(7)
    old = (bn.weight, bn.bias, bn.running_mean, bn.running_var, bn.num_batches_tracked)
    old_inner = (inner.weight, inner.running_mean, inner.running_var, inner.num_batches_tracked)
    conv = net[0]
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group="pg")
    assert out is net and out[0] is conv and out[3] is inst        # InstanceNorm is no BatchNorm
    assert [type(c).__name__ for c in out] == ["Conv2d", "SyncBatchNorm", "Sequential", "InstanceNorm2d",
                                               "SyncBatchNorm"]
    s = out[1]
    assert all(a is b for a, b in zip((s.weight, s.bias, s.running_mean, s.running_var, s.num_batches_tracked), old))
    assert (s.num_features, s.eps, s.momentum, s.affine, s.track_running_stats) == (3, 1e-5, 0.3, True, True)
    assert s.training is True and s.process_group == "pg"
    assert int(s.num_batches_tracked) == 7 and s.running_mean.tolist() == [0.5] * 3
    si = out[2][0]
    assert isinstance(si, nn.SyncBatchNorm) and si.training is False and si.qconfig == "qconfig"
    assert si.bias is None and si.momentum is None and si.eps == 1e-3
    assert all(a is b for a, b in zip((si.weight, si.running_mean, si.running_var, si.num_batches_tracked),
                                      old_inner))
    s3 = out[4]
    assert s3.weight is None and s3.running_mean is None and s3.num_batches_tracked is None
    assert [k for k, _ in out.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias", "2.0.weight",
                                                     "3.weight", "3.bias"]
    # a BatchNorm itself comes back as a new SyncBatchNorm (the default group: None)
    lone = nn.BatchNorm1d(5)
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(lone)
    assert type(converted) is nn.SyncBatchNorm and converted is not lone and converted.weight is lone.weight
    assert converted.process_group is None
    again = nn.SyncBatchNorm.convert_sync_batchnorm(converted, process_group="other")
    assert again is not converted and again.process_group == "other" and again.weight is lone.weight
    # modules without BatchNorm are returned as they are
    lin = nn.Linear(2, 2)
    assert nn.SyncBatchNorm.convert_sync_batchnorm(lin) is lin
