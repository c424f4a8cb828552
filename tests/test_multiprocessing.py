"""nbgrad.multiprocessing and tensors in shared memory (Tensor.share_memory_, Module.share_memory),
checked against PyTorch 2.13's recorded behaviour.

Every process a test starts is joined with a timeout, then killed and the test failed.  Children
that run kernels are forked (nbgrad drops its thread pool and BLAS team in a forked child, which
makes its own: the parent runs a threaded kernel before forking to show that this is safe); the
spawn start method, which imports nbgrad afresh in each child (seconds), runs once, in a script
started as its own process so that its exit (no resource_tracker warning) is checked too."""
import gc
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd; fork")
JOIN_S = 60          # far above what any child here needs (< 2 s), far below CI's budget


def mp():
    return nbgrad.multiprocessing


def _fork():
    return nbgrad.multiprocessing.get_context("fork")


def _join_all(procs, timeout=JOIN_S):
    """Join every process within timeout seconds in all; kill the rest and fail."""
    deadline = time.monotonic() + timeout
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    stuck = [p for p in procs if p.is_alive()]
    for p in stuck:
        p.kill()
        p.join(5)
    if stuck:
        pytest.fail(f"{len(stuck)} child process(es) still running after {timeout} s: killed")
    return [p.exitcode for p in procs]


def _shared_fds():
    """The descriptors of this process that hold shared-memory files (nbgrad's memfd files,
    PyTorch's unlinked /dev/shm files)."""
    links = []
    for name in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if link.startswith("/memfd:") or link.startswith("/dev/shm/"):
            links.append(link)
    return links


def _shm_entries():
    return {n for n in os.listdir("/dev/shm") if n.startswith(("nbgrad", "torch_"))}


# -- share_memory_ in one process -------------------------------------------------------------
def test_share_memory_moves_the_storage_and_every_view_follows():
    x = nbgrad.arange(6.).reshape(2, 3)
    v, t = x[1:], x.t()
    assert not x.is_shared() and not x.untyped_storage().is_shared()
    ptr, version = x.data_ptr(), x._version
    assert x.share_memory_() is x
    assert x.is_shared() and v.is_shared() and t.is_shared() and x.untyped_storage().is_shared()
    assert x.data_ptr() != ptr                   # new memory ...
    assert x._version == version                 # ... not counted as a change (PyTorch: 0 -> 0)
    assert x.tolist() == [[0., 1., 2.], [3., 4., 5.]]
    assert v.data_ptr() == x.data_ptr() + 3 * 4 and t.data_ptr() == x.data_ptr()
    x[0, 0] = 100.
    x[1, 2] = -1.
    assert v.tolist() == [[3., 4., -1.]] and t[0, 0].item() == 100.
    # already shared: nothing moves
    ptr = x.data_ptr()
    assert x.share_memory_() is x and x.data_ptr() == ptr
    # what is made from it afterwards: a view is shared, a copy is not
    assert x.detach().is_shared() and not x.clone().is_shared() and not (x + 1).is_shared()


def test_share_memory_of_tensors_that_require_grad():
    w = nbgrad.ones(3, requires_grad=True)
    assert w.share_memory_() is w
    assert w.is_shared() and w.requires_grad and w.grad_fn is None and w.is_leaf
    y = w * 2                               # a non-leaf: shared all the same (PyTorch)
    assert y.share_memory_() is y and y.is_shared() and y.grad_fn is not None
    (y * nbgrad.tensor([1., 2., 3.])).sum().backward()
    assert w.grad.tolist() == [2., 4., 6.]


def test_share_memory_of_from_numpy_leaves_the_array_behind():
    # PyTorch copies the data into shared memory: the tensor no longer aliases the array
    a = np.zeros(3, dtype=np.float32)
    f = nbgrad.from_numpy(a)
    f.share_memory_()
    f[0] = 5.
    a[1] = 7.
    assert f.is_shared() and f.tolist() == [5., 0., 0.] and a.tolist() == [0., 7., 0.]


def test_a_dtype_view_follows_its_storage():
    x = nbgrad.zeros(3)
    d = x.view(nbgrad.int32)
    x.share_memory_()
    assert d.is_shared() and d.data_ptr() == x.data_ptr()
    x[1] = 1.0
    assert d.tolist() == [0, 1065353216, 0]


def test_shared_storage_shrinks():
    y = nbgrad.arange(3.).share_memory_()
    y.resize_(2)
    assert y.tolist() == [0., 1.] and y.is_shared()


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch 2.13 dies of a segmentation fault growing a shared storage; "
                                          "nbgrad raises resize_'s error for a storage that is not resizable")
def test_shared_storage_does_not_grow():
    y = nbgrad.arange(3.).share_memory_()
    ptr = y.data_ptr()
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        y.resize_(10)
    assert y.shape == (3,) and y.data_ptr() == ptr and y.tolist() == [0., 1., 2.]


def test_share_memory_dtypes_and_empty():
    b = nbgrad.tensor([True, False]).share_memory_()
    h = nbgrad.tensor([1.5, -2.], dtype=nbgrad.bfloat16).share_memory_()
    i = nbgrad.tensor([2 ** 40, -3]).share_memory_()
    e = nbgrad.empty(0).share_memory_()
    s = nbgrad.tensor(3.).share_memory_()
    assert all(t.is_shared() for t in (b, h, i, e, s))
    assert b.tolist() == [True, False] and h.tolist() == [1.5, -2.] and i.tolist() == [2 ** 40, -3]
    assert e.shape == (0,) and s.item() == 3.
    assert h.dtype == nbgrad.bfloat16 and i.dtype == nbgrad.int64


def test_storage_share_memory_():
    x = nbgrad.ones(2)
    st = x.untyped_storage()
    assert st.share_memory_() is st
    assert st.is_shared() and x.is_shared()


def test_module_share_memory():
    bn = nbgrad.nn.BatchNorm1d(2)
    assert bn.share_memory() is bn
    assert bn.weight.is_shared() and bn.bias.is_shared()
    assert bn.running_mean.is_shared() and bn.running_var.is_shared() and bn.num_batches_tracked.is_shared()
    lin = nbgrad.nn.Linear(2, 2)
    lin.weight.grad = nbgrad.zeros(2, 2)
    w = lin.weight
    lin.share_memory()
    assert lin.weight is w and type(w) is nbgrad.nn.Parameter and w.requires_grad
    assert w.is_shared() and w.grad.is_shared() and lin.bias.is_shared()


def test_sharing_strategies():
    m = mp()
    assert m.get_sharing_strategy() == "file_descriptor"
    assert m.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(AssertionError) as info:
        m.set_sharing_strategy("bogus")
    assert str(info.value) in ("invalid sharing strategy 'bogus', expected one of {'file_descriptor', 'file_system'}",
                               "invalid sharing strategy 'bogus', expected one of {'file_system', 'file_descriptor'}")
    m.set_sharing_strategy("file_system")
    try:
        assert m.get_sharing_strategy() == "file_system"
    finally:
        m.set_sharing_strategy("file_descriptor")
    assert m.get_sharing_strategy() == "file_descriptor"


def test_the_standard_library_is_reexported():
    import multiprocessing
    m = mp()
    assert m.Process is multiprocessing.Process and m.current_process is multiprocessing.current_process
    for name in ("Queue", "SimpleQueue", "Pool", "Pipe", "Lock", "get_context", "set_start_method", "cpu_count"):
        assert callable(getattr(m, name))
    assert {"set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "Process"} <= set(m.__all__)


# -- pickling ---------------------------------------------------------------------------------
def test_plain_pickle_still_copies():
    x = nbgrad.arange(3.).share_memory_()
    y = pickle.loads(pickle.dumps(x))
    y[0] = 9.
    assert x.tolist() == [0., 1., 2.] and y.tolist() == [9., 1., 2.] and not y.is_shared()


@linux_only
def test_forking_pickler_sends_by_handle():
    from multiprocessing.reduction import ForkingPickler
    mp()                                           # (its import registers the reducers)
    x = nbgrad.arange(6.).reshape(2, 3)            # not shared: dumping it shares it (PyTorch's queues do)
    p = nbgrad.nn.Parameter(nbgrad.ones(2))
    p.grad = nbgrad.ones(2)
    got = pickle.loads(ForkingPickler.dumps((x, x[1], x.t(), p)))
    assert x.is_shared() and p.is_shared()
    gx, row, gt, gp = got
    # received in the process that holds it: the same storage again
    assert gx.data_ptr() == x.data_ptr() and row.data_ptr() == x.data_ptr() + 12 and gt.data_ptr() == x.data_ptr()
    assert gt.shape == (3, 2) and gt.stride() == (1, 3) and row.storage_offset() == 3
    assert type(gp) is nbgrad.nn.Parameter and gp.requires_grad and gp.grad is None and not gx.requires_grad
    gx[0, 1] = 42.
    assert x[0, 1].item() == 42. and row.tolist() == [3., 4., 5.]
    for dtype in (nbgrad.bool, nbgrad.bfloat16, nbgrad.int64, nbgrad.float64):
        t = nbgrad.ones(3, dtype=dtype)
        back = pickle.loads(ForkingPickler.dumps(t))
        assert back.dtype == dtype and back.data_ptr() == t.data_ptr() and back.is_shared()
    with pytest.raises(RuntimeError, match="^Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                                           "since autograd does not support crossing process boundaries"):
        ForkingPickler.dumps(p * 2)


# -- across processes -------------------------------------------------------------------------
def _queue_child(q, out, ack):
    a, c = q.get(timeout=JOIN_S)
    row = q.get(timeout=JOIN_S)          # (another message: still a view of a's storage here)
    out.put((type(a).__name__, a.requires_grad, a.grad is None, a.is_shared(), c.is_shared(),
             row.data_ptr() == a.data_ptr() + 3 * 4))
    a.data.add_(1.)
    row.mul_(10.)
    c.fill_(-1.)
    made_here = nbgrad.full((2,), 7.)             # a tensor of the child's own, sent back
    out.put(made_here)
    ack.get(timeout=JOIN_S)                        # (the sender must live until it is taken off the queue)
    made_here.add_(1.)
    out.put("done")


@linux_only
def test_queue_to_a_forked_child_and_back():
    ctx = _fork()
    shm_before, fds_before = _shm_entries(), len(_shared_fds())
    p = nbgrad.nn.Parameter(nbgrad.zeros(2, 3))
    p.grad = nbgrad.ones(2, 3)
    c = nbgrad.zeros(3)                            # not shared: putting it on the queue shares it
    q, out, ack = ctx.Queue(), ctx.Queue(), ctx.Queue()
    # the child is forked before anything is put: a Queue's put hands the object to a feeder
    # thread, and a fork while that thread holds a lock (an import lock, the pickler's) leaves
    # the child waiting on it forever (Python's fork-with-threads hazard; PyTorch's too)
    child = ctx.Process(target=_queue_child, args=(q, out, ack))
    child.start()
    q.put((p, c))
    q.put(p.data[1])
    try:
        assert out.get(timeout=JOIN_S) == ("Parameter", True, True, True, True, True)
        back = out.get(timeout=JOIN_S)
        ack.put(None)
        assert out.get(timeout=JOIN_S) == "done"
    finally:
        exitcodes = _join_all([child])
    assert exitcodes == [0]
    assert p.is_shared() and c.is_shared()
    assert p.tolist() == [[1., 1., 1.], [10., 10., 10.]] and p.grad.tolist() == [[1.] * 3] * 2
    assert c.tolist() == [-1., -1., -1.]
    assert back.is_shared() and back.tolist() == [8., 8.]   # the child's write after it was received
    assert len(_shared_fds()) > fds_before
    del p, c, back, q, out, ack
    gc.collect()
    assert len(_shared_fds()) <= fds_before        # every block let go: nothing held open
    assert _shm_entries() <= shm_before            # and nothing left in /dev/shm


def _arg_child(shared, private):
    shared.add_(1.)
    private.add_(1.)


@linux_only
def test_fork_process_arguments():
    ctx = _fork()
    shared = nbgrad.zeros(4).share_memory_()
    private = nbgrad.zeros(4)
    procs = [ctx.Process(target=_arg_child, args=(shared, private)) for _ in range(2)]
    for pr in procs:
        pr.start()
    assert _join_all(procs) == [0, 0]
    assert shared.tolist() == [2.] * 4             # both children wrote the parent's memory
    assert private.tolist() == [0.] * 4            # a forked copy: the parent's stays as it was


def _pool_task(args):
    t, i = args
    t[i] = float(i * i)
    return i


@linux_only
def test_pool_tasks_write_a_shared_tensor():
    ctx = _fork()
    t = nbgrad.zeros(4).share_memory_()
    pool = ctx.Pool(2)
    try:
        result = pool.map_async(_pool_task, [(t, i) for i in range(4)]).get(JOIN_S)
    finally:
        pool.terminate()
        pool.join()
    assert result == [0, 1, 2, 3] and t.tolist() == [0., 1., 4., 9.]


HOGWILD_LR, HOGWILD_STEPS = 0.25, 3


def _hogwild_train(rank, model, lock):
    opt = nbgrad.optim.SGD(model.parameters(), lr=HOGWILD_LR)
    x = nbgrad.tensor([[1., 2., 3.], [-1., 0., 2.]]) * (rank + 1)
    for _ in range(HOGWILD_STEPS):
        opt.zero_grad()
        # linear in the parameters: the gradient does not depend on their values, so the sum
        # of all updates is known whatever order the processes run in
        model(x).sum().backward()
        with lock:                      # (two read-modify-writes of one float must not interleave)
            opt.step()


@linux_only
def test_hogwild_training_with_fork():
    # the parent runs a kernel big enough for nbgrad's thread pool first: a forked child
    # must not inherit the pool in a state it cannot use
    big = nbgrad.ones(1 << 21)
    assert (big * 2).sum().item() == float(1 << 22)
    ctx = _fork()
    model = nbgrad.nn.Linear(3, 2)
    with nbgrad.no_grad():
        model.weight.copy_(nbgrad.tensor([[1., 0., -1.], [0.5, 2., 0.]]))
        model.bias.fill_(0.5)
    w0, b0 = model.weight.detach().clone(), model.bias.detach().clone()
    assert model.share_memory() is model
    lock = ctx.Lock()
    procs = [ctx.Process(target=_hogwild_train, args=(rank, model, lock)) for rank in range(2)]
    for pr in procs:
        pr.start()
    assert _join_all(procs) == [0, 0]
    # d(sum(x W^T + b))/dW[j] = the sum of x's rows, d/db[j] = the number of rows (2);
    # rank r's x is (r + 1) x_0, whose rows sum to (r + 1) [0, 2, 5]
    steps = HOGWILD_LR * HOGWILD_STEPS
    assert model.weight.tolist() == (w0 - steps * (1 + 2) * nbgrad.tensor([0., 2., 5.])).tolist()
    assert model.bias.tolist() == (b0 - steps * 2 * 2).tolist() == [-2.5, -2.5]
    assert model.weight.grad is None              # each process's gradients stayed its own


# -- spawn / start_processes ------------------------------------------------------------------
def _ok(i, out):
    out.put(i * 10)


def _raise_in_one(i, x):
    if i == 1:
        raise ValueError(f"boom {x}")
    time.sleep(JOIN_S)                  # the survivor: terminated by the parent's join


def _exit_code(i, code):
    sys.exit(code)


def _killed(i):
    os.kill(os.getpid(), signal.SIGKILL)


def _start_fork(fn, args, nprocs):
    return mp().start_processes(fn, args=args, nprocs=nprocs, join=False, start_method="fork")


def _join_context(ctx, timeout=JOIN_S):
    """ProcessContext.join until done or timeout (then kill and fail)."""
    deadline = time.monotonic() + timeout
    try:
        while not ctx.join(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() > deadline:
                pytest.fail("start_processes' children still running: killed")
    finally:
        for p in ctx.processes:
            if p.is_alive():
                p.kill()
                p.join(5)


@linux_only
def test_start_processes_join_and_pids():
    q = _fork().SimpleQueue()
    ctx = _start_fork(_ok, (q,), 3)
    assert type(ctx) is mp().ProcessContext
    assert ctx.pids() == [p.pid for p in ctx.processes] and all(isinstance(pid, int) for pid in ctx.pids())
    _join_context(ctx)
    assert ctx.join() is True and [p.exitcode for p in ctx.processes] == [0, 0, 0]
    assert sorted(q.get() for _ in range(3)) == [0, 10, 20]


@linux_only
def test_a_child_that_raises():
    ctx = _start_fork(_raise_in_one, (7,), 2)
    with pytest.raises(mp().ProcessRaisedException) as info:
        _join_context(ctx)
    e = info.value
    assert type(e).__mro__[1].__name__ == "ProcessException" and isinstance(e, Exception)
    assert e.error_index == 1 and e.error_pid == ctx.pids()[1]
    msg = str(e)
    assert msg.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last):\n")
    assert "in _wrap\n    fn(i, *args)\n" in msg and msg.endswith("ValueError: boom 7\n")
    assert e.msg == msg
    # the other child was stopped: SIGTERM
    assert ctx.processes[0].exitcode == -signal.SIGTERM and not ctx.processes[0].is_alive()


@linux_only
def test_a_child_that_exits_or_dies():
    ctx = _start_fork(_exit_code, (3,), 1)
    with pytest.raises(mp().ProcessExitedException) as info:
        _join_context(ctx)
    e = info.value
    assert str(e) == "process 0 terminated with exit code 3"
    assert (e.error_index, e.exit_code, e.signal_name, e.error_pid) == (0, 3, None, ctx.pids()[0])
    ctx = _start_fork(_killed, (), 1)
    with pytest.raises(mp().ProcessExitedException) as info:
        _join_context(ctx)
    e = info.value
    assert str(e) == "process 0 terminated with signal SIGKILL"
    assert (e.exit_code, e.signal_name) == (-9, "SIGKILL")
    # the exceptions survive pickling (a launcher may send them on)
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is type(e) and (e2.msg, e2.exit_code, e2.signal_name) == (e.msg, -9, "SIGKILL")


def test_spawn_with_another_start_method_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert mp().spawn(_ok, args=(None,), nprocs=0, start_method="fork") is None
    assert len(caught) == 1 and caught[0].category is FutureWarning
    assert str(caught[0].message).startswith("This method only supports start_method=spawn (got: fork).\n"
                                             "To use a different start_method use:\n\t\t ")
    assert str(caught[0].message).endswith(".multiprocessing.start_processes(...)")


SPAWN_SCRIPT = """
import json, os, sys
if os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1":
    import torch
    sys.modules["nbgrad"] = torch
import nbgrad


def worker(i, shared, private, param, out):
    shared[i] = shared[i] + (i + 1)            # (each its own row)
    private[i] = 10. + i
    with nbgrad.no_grad():
        param[i] = -1. - i
    out.put((i, shared.is_shared(), private.is_shared(), type(param).__name__, param.requires_grad))


def shared_fds():
    links = []
    for name in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink("/proc/self/fd/" + name))
        except OSError:
            pass
    return sum(1 for link in links if link.startswith(("/memfd:", "/dev/shm/")))


if __name__ == "__main__":
    mp = nbgrad.multiprocessing
    fds_before = shared_fds()
    shared = nbgrad.ones(2, 3).share_memory_()
    private = nbgrad.zeros(2)                  # not shared: sending it to a spawned child shares it
    param = nbgrad.nn.Parameter(nbgrad.zeros(2))
    out = mp.get_context("spawn").SimpleQueue()
    ctx = mp.spawn(worker, args=(shared, private, param, out), nprocs=2, join=False)
    done = False
    while not done:
        done = ctx.join(timeout=%(timeout)s)
    reports = sorted(out.get() for _ in range(2))
    result = {"shared": shared.tolist(), "private": private.tolist(), "param": param.tolist(),
              "private_is_shared": private.is_shared(), "reports": reports}
    del shared, private, param, ctx
    result["fds_left"] = shared_fds() - fds_before
    print(json.dumps(result))
"""


@linux_only
def test_spawn_shares_its_arguments_and_exits_cleanly(tmp_path):
    script = tmp_path / "spawn_script.py"
    script.write_text(textwrap.dedent(SPAWN_SCRIPT % {"timeout": JOIN_S}))
    shm_before = _shm_entries()
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=2 * JOIN_S)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["shared"] == [[2., 2., 2.], [3., 3., 3.]]
    assert result["private"] == [10., 11.] and result["private_is_shared"] is True
    assert result["param"] == [-1., -2.]
    assert result["reports"] == [[0, True, True, "Parameter", True], [1, True, True, "Parameter", True]]
    assert result["fds_left"] <= 0
    assert "resource_tracker" not in run.stderr and "leaked" not in run.stderr, run.stderr
    if not AGAINST_TORCH:
        assert run.stderr == ""                    # nothing at all printed at exit
    assert _shm_entries() <= shm_before


def _cuda_tensor_or_skip():
    try:
        return nbgrad.zeros(2, device="cuda")
    except (RuntimeError, AssertionError) as exc:
        pytest.skip(f"no CUDA backend here: {exc}")


@pytest.mark.skipif(AGAINST_TORCH, reason="PyTorch sends CUDA tensors by CUDA IPC; nbgrad has none and refuses")
def test_cuda_tensors_are_not_moved_and_not_sent():
    x = _cuda_tensor_or_skip()
    ptr = x.data_ptr()
    # PyTorch: share_memory_ does nothing to a CUDA tensor, which is_shared() always
    assert x.share_memory_() is x and x.data_ptr() == ptr and x.is_shared() and x.untyped_storage().is_shared()
    from multiprocessing.reduction import ForkingPickler
    mp()
    with pytest.raises(RuntimeError, match="CUDA IPC is not supported"):
        ForkingPickler.dumps(x)
    with pytest.raises(RuntimeError, match="CUDA IPC is not supported"):
        ForkingPickler.dumps(x.untyped_storage())
