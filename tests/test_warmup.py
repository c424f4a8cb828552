"""python -m nbgrad.warmup runs a representative training step and reports each dtype."""
import nbgrad
from nbgrad import warmup


def test_warmup_runs_and_reports(capsys):
    warmup.main(["float32"])
    assert "float32 kernels ready" in capsys.readouterr().out


def test_warm_leaves_grad_mode_and_default_dtype_alone():
    warmup.warm(nbgrad.float32)
    assert nbgrad.is_grad_enabled()
    assert nbgrad.get_default_dtype() is nbgrad.float32
