"""DistributedDataParallel on 2 and 4 MPI ranks against one process training on the
concatenated batch (float64, rtol 1e-10), plus no_sync, unused parameters, bucketing and
the refusals.  The workers (tests/distributed/workers/ddp.py) train; the references are
computed here, in this process, with nbgrad alone."""
import numpy as np
import pytest

import nbgrad
from tests.nn._cuda import requires_cuda
from tests.distributed._cases import (LOCAL_BATCH, STEPS, global_batch, make_mlp, make_optimizer, mse, run_ok,
                                      shard)


@pytest.fixture(scope="module", params=[2, 4])
def world(request, tmp_path_factory):
    n = request.param
    return n, run_ok(n, "tests.distributed.workers.ddp", tmp_path_factory.mktemp(f"ddp{n}"))


def state(module):
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


def one_process_training(n, steps=STEPS, micro=None):
    """Rank 0's initial model trained in one process on each step's whole global batch
    (micro: accumulate the gradients of these micro-batches before each step)."""
    model = make_mlp(seed=0)
    opt = make_optimizer(model.parameters())
    for step in range(steps):
        opt.zero_grad()
        for m in (micro or [0]):
            X, Y = global_batch(step, n, micro=m)
            mse(model(nbgrad.tensor(X)), nbgrad.tensor(Y)).backward()
        opt.step()
    return state(model)


def assert_states(got, want):
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-13, err_msg=k)


@pytest.mark.parametrize("cap", [None, 0.001])
def test_same_parameters_as_one_process_on_the_whole_batch(world, cap):
    n, ranks = world
    want = one_process_training(n)
    initial = state(make_mlp(seed=0))
    for r, res in enumerate(ranks):
        assert_states(res["initial", cap], initial)      # rank 0's initial weights everywhere
        assert_states(res["final", cap], want)
        # the state_dict of the wrapper carries PyTorch's `module.` prefix
        assert res["keys", cap] == ["module." + k for k in want]
    # and the ranks agree to the bit
    for res in ranks[1:]:
        for k, v in res["final", cap].items():
            np.testing.assert_array_equal(v, ranks[0]["final", cap][k])


def test_buckets_and_overlap(world):
    n, ranks = world
    res = ranks[0]
    # default cap (25 MiB, first bucket 1 MiB): one bucket, the parameters in reverse
    # order (those requiring grad: the frozen first bias is not in it)
    assert res["buckets", None] == [[4, 3, 2, 1, 0]]
    # a 1000-byte cap splits it: the last layers' bucket fills first
    buckets = res["buckets", 0.001]
    assert buckets == [[4, 3, 2, 1], [0]]
    events = res["events", 0.001]
    # every parameter is ready once; bucket 0's all-reduce starts before backward has
    # reached parameter 0 (the overlap), and the buckets start in order
    assert sorted(i for kind, i in events if kind == "ready") == [0, 1, 2, 3, 4]
    assert [i for kind, i in events if kind == "launch"] == [0, 1]
    assert events.index(("launch", 0)) < events.index(("ready", 0))


def test_no_sync_accumulates_locally_then_averages(world):
    n, ranks = world
    # inside no_sync each rank keeps its own gradient of its own micro-batch ...
    model = make_mlp(seed=0)
    for r, res in enumerate(ranks):
        model.zero_grad()
        X, Y = global_batch(0, n, micro=1)
        mse(model(nbgrad.tensor(shard(X, r))), nbgrad.tensor(shard(Y, r))).backward()
        for k, p in model.named_parameters():
            want = None if p.grad is None else p.grad.numpy()
            got = res["no_sync_local"][k]
            if want is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=k)
    # ... and the synced backward that follows averages the accumulated sum
    want = one_process_training(n, steps=2, micro=[1, 2])
    for res in ranks:
        assert_states(res["no_sync_final"], want)


def test_unused_parameters(world):
    n, ranks = world
    X, _ = global_batch(0, n)
    # find_unused_parameters: a is averaged; b, used on rank 0 only, gets rank 0's
    # gradient / n on every rank; c, used nowhere, keeps grad None
    init = ranks[0]["branchy_initial"]
    a_w, b_w = nbgrad.tensor(init["a.weight"], requires_grad=True), nbgrad.tensor(init["b.weight"], requires_grad=True)
    a_b, b_b = nbgrad.tensor(init["a.bias"], requires_grad=True), nbgrad.tensor(init["b.bias"], requires_grad=True)
    for r in range(n):
        x = nbgrad.tensor(shard(X, r))
        out = (x @ a_w.t() + a_b) * 1.0     # rank 0's buffer (scale = 1) was broadcast to all
        if r == 0:
            out = out + x @ b_w.t() + b_b
        out.sum().backward()
    for res in ranks:
        g = res["branchy_grads"]
        np.testing.assert_allclose(g["a.weight"], a_w.grad.numpy() / n, rtol=1e-12)
        np.testing.assert_allclose(g["a.bias"], a_b.grad.numpy() / n, rtol=1e-12)
        np.testing.assert_allclose(g["b.weight"], b_w.grad.numpy() / n, rtol=1e-12)
        np.testing.assert_allclose(g["b.bias"], b_b.grad.numpy() / n, rtol=1e-12)
        assert g["c.weight"] is None and g["c.bias"] is None
    # without it, the next forward names the parameters that got no gradient
    for r, res in enumerate(ranks):
        kind, name, msg = res["unused_error"]
        assert (kind, name) == ("error", "RuntimeError")
        assert "Expected to have finished reduction in the prior iteration" in msg
        assert f"did not receive grad for rank {r}: 2 3 4 5" in msg and "c.weight" in msg


def test_refusals(world):
    n, ranks = world
    for res in ranks:
        kind, name, msg = res["mismatch"]
        assert (kind, name) == ("error", "RuntimeError") and "DDP expects same model across all ranks" in msg
        assert res["no_params"][:2] == ("error", "RuntimeError")
        assert "doesn't have any parameter that requires a gradient" in res["no_params"][2]


def test_local_batch_is_the_shard():
    X, _ = global_batch(0, 3)
    assert X.shape[0] == 3 * LOCAL_BATCH
    np.testing.assert_array_equal(np.concatenate([shard(X, r) for r in range(3)]), X)


@requires_cuda
def test_cuda_parameters(tmp_path):
    ranks = run_ok(2, "tests.distributed.workers.ddp_cuda", tmp_path)
    # the same training on the CPU, in one process, from rank 0's initial weights
    model = nbgrad.nn.Linear(6, 4).double()
    with nbgrad.no_grad():
        model.weight.copy_(nbgrad.tensor(ranks[0]["initial"]["weight"]))
        model.bias.copy_(nbgrad.tensor(ranks[0]["initial"]["bias"]))
    opt = nbgrad.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        X, Y = global_batch(step, 2)
        opt.zero_grad()
        mse(model(nbgrad.tensor(X)), nbgrad.tensor(Y[:, :4])).backward()
        opt.step()
    for res in ranks:
        assert res["device"].startswith("cuda")
        assert_states(res["final"], state(model))
