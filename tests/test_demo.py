"""The demo (`python -m nbgrad.demo`) runs, and every aliasing rule it shows holds."""
import importlib
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
DEMO_PATH = pathlib.Path(__file__).resolve().parents[1] / "nbgrad" / "demo.py"


def load_demo():
    if AGAINST_TORCH:
        # Here `nbgrad` is torch, which has no demo module: load the file itself.
        spec = importlib.util.spec_from_file_location("nbgrad_demo_under_torch", DEMO_PATH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return importlib.import_module("nbgrad.demo")


def test_every_rule_holds_and_is_printed(capsys):
    demo = load_demo()
    results = demo.main()
    printed = capsys.readouterr().out
    assert len(results) == len(demo.RULES) >= 15
    failed = [title for title, held in results if not held]
    assert not failed, f"rules that did not hold: {failed}\n{printed}"
    for title, _ in results:
        assert f"ok    {title}" in printed
    assert f"{len(results)} of {len(results)} rules held." in printed


@pytest.mark.skipif(AGAINST_TORCH, reason="a subprocess does not see the torch stand-in")
def test_module_entry_point_exits_zero():
    done = subprocess.run([sys.executable, "-m", "nbgrad.demo"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rules held." in done.stdout
