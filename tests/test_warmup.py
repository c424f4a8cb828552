"""python -m nbgrad.warmup runs a representative training step and reports each dtype."""
import nbgrad
from nbgrad import warmup


def test_warmup_runs_and_reports(capsys):
    warmup.main(["float32"])
    assert "float32 cpu kernels ready" in capsys.readouterr().out


def test_warm_leaves_grad_mode_and_default_dtype_alone():
    warmup.warm(nbgrad.float32)
    assert nbgrad.is_grad_enabled()
    assert nbgrad.get_default_dtype() is nbgrad.float32


def test_warmup_on_cuda_runs_there_or_says_why_not(capsys):
    code = warmup.main(["--device", "cuda", "float32"])
    out = capsys.readouterr().out
    if nbgrad.cuda.is_available() or nbgrad.cuda.is_simulated():
        assert code == 0 and "float32 cuda kernels ready" in out
    else:
        assert code == 1 and "no GPU" in out
