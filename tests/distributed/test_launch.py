"""Starting, failing and stopping: a world of one without a launcher, a missing mpi4py,
a rank that raises or hangs, and the digits example under mpiexec."""
import sys
import time

import numpy as np
import pytest

import nbgrad
import nbgrad.distributed as dist
from tests.distributed._cases import launch, make_mlp, make_optimizer, global_batch, mse, run_ok


def test_before_init_process_group():
    assert dist.is_initialized() is False
    for call in (dist.get_rank, dist.get_world_size, dist.barrier, lambda: dist.all_reduce(nbgrad.ones(2))):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            call()


def test_without_mpi4py_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    assert dist.is_available() is False
    with pytest.raises(ImportError, match=r'pip install "nbgrad\[distributed\]"'):
        dist.init_process_group("mpi")
    assert dist.is_initialized() is False


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="Invalid backend: 'tcp'"):
        dist.init_process_group("tcp")
    assert dist.is_initialized() is False


def test_world_of_one_without_a_launcher(tmp_path):
    (res,) = run_ok(1, "tests.distributed.workers.singleton", tmp_path, launcher=False)
    assert res["world"] == (0, 1)
    assert res["avg"] == [1.5, -2.0, 3.0]
    assert res["sampler"] == [0, 1, 2, 3, 4]
    model = make_mlp(seed=0)
    opt = make_optimizer(model.parameters())
    for step in range(2):
        X, Y = global_batch(step, 1)
        opt.zero_grad()
        mse(model(nbgrad.tensor(X)), nbgrad.tensor(Y)).backward()
        opt.step()
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(res["final"][k], v.numpy())


@pytest.mark.parametrize("mode, words", [
    ("raise", "rank 1 failed on purpose"),            # its traceback, then MPI_Abort ends every rank
    ("hang", "all_reduce timed out after 2 s"),       # rank 0 gives up after the group's timeout
])
def test_a_failing_rank_ends_the_job(mode, words):
    start = time.monotonic()
    code, out, err = launch(2, "tests.distributed.workers.failure", mode, timeout=90)
    assert code != 0
    assert words in err, err
    assert "all_reduce returned" not in out
    assert time.monotonic() - start < 60


def test_digits_example_distributed(tmp_path):
    pytest.importorskip("sklearn", reason="the digits example needs the examples extra")
    pytest.importorskip("tqdm", reason="the digits example needs the examples extra")
    code, out, err = launch(2, "nbgrad.examples.digits", "--distributed", "--epochs", 2, "--limit", 200,
                            "--no-progress", "--out", tmp_path, timeout=300)
    assert code == 0, err
    assert "distributed: 2 processes, 100 training images each" in out
    assert out.count("test accuracy:") == 1                  # rank 0 alone reports
    from nbgrad.examples.digits import make_model
    model = make_model()
    model.load_state_dict(nbgrad.load(str(tmp_path / "digits_mlp.safetensors")))   # no `module.` prefix
    assert (tmp_path / "digits_curves.png").exists()
