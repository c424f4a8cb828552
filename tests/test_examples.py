"""The examples end to end: linear regression (fast) and, when scikit-learn is installed, digits;
plus an MLP that fits a synthetic spiral."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad import nn, optim
from nbgrad.utils.data import DataLoader, TensorDataset


def test_linear_regression_example_reaches_the_truth():
    from nbgrad.examples import linear_regression
    lines = []
    result = linear_regression.main(seed=0, log=lines.append)
    true_w = np.array(result["true_w"])
    for key in ("scratch", "concise"):
        w, b, losses = result[key]
        assert len(losses) == 3 and losses[-1] < 1e-3
        np.testing.assert_allclose(w.numpy(), true_w, atol=0.01)
        assert abs(b - 4.2) < 0.01
    assert any(line.startswith("epoch 3, loss") for line in lines)


def spiral(n_per_class=100, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for c in range(classes):
        r = np.linspace(0.0, 1, n_per_class)
        t = np.linspace(c * 4, (c + 1) * 4, n_per_class) + rng.normal(size=n_per_class) * 0.2
        X.append(np.c_[r * np.sin(t), r * np.cos(t)])
        y.append(np.full(n_per_class, c))
    return np.concatenate(X).astype(np.float32), np.concatenate(y).astype(np.int64)


def test_mlp_fits_a_spiral():
    nbgrad.manual_seed(0)
    X, y = spiral()
    Xt, yt = nbgrad.tensor(X), nbgrad.tensor(y)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(Xt, yt), batch_size=50, shuffle=True)
    for _ in range(60):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    with nbgrad.no_grad():
        acc = (model(Xt).argmax(1) == yt).float().mean().item()
    assert acc >= 0.9


def test_digits_example(tmp_path):
    pytest.importorskip("sklearn", reason="the digits example needs scikit-learn (the examples extra)")
    pytest.importorskip("matplotlib", reason="the digits example needs matplotlib (the examples extra)")
    pytest.importorskip("tqdm", reason="the digits example needs tqdm (the examples extra)")
    from nbgrad.examples import digits
    result = digits.main(["--epochs", "12", "--out", str(tmp_path), "--no-progress"])
    assert result["test_accuracy"] >= 0.95
    history = result["history"]
    assert history["train_loss"][-1] < history["train_loss"][0]
    png = (tmp_path / "digits_curves.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    sd = nbgrad.load(tmp_path / "digits_mlp.safetensors")
    model = digits.make_model()
    model.load_state_dict(sd)


def test_digits_example_compiled_trains_as_eager(tmp_path):
    """--compile runs the training step through nbgrad.compile: the same losses and accuracy
    as the eager run (float32, fusion reorders some sums: to 1e-4)."""
    _examples_extra()
    from nbgrad.examples import digits
    args = ["--epochs", "3", "--limit", "400", "--no-progress"]
    eager = digits.main(args + ["--out", str(tmp_path / "e")])
    compiled = digits.main(args + ["--compile", "--out", str(tmp_path / "c")])
    np.testing.assert_allclose(compiled["history"]["train_loss"], eager["history"]["train_loss"], rtol=1e-4)
    np.testing.assert_allclose(compiled["history"]["test_loss"], eager["history"]["test_loss"], rtol=1e-4)
    assert compiled["test_accuracy"] == eager["test_accuracy"]


def _examples_extra():
    for name in ("sklearn", "matplotlib", "tqdm"):
        pytest.importorskip(name, reason=f"the digits examples need {name} (the examples extra)")


def test_lenet_example_smoke_run(tmp_path):
    # the full run (README: python -m nbgrad.examples.lenet) reaches >= 98% in ~15 s; here a
    # few epochs on part of the data: the loss falls and the model file loads back
    _examples_extra()
    from nbgrad.examples import lenet
    result = lenet.main(["--epochs", "8", "--limit", "256", "--out", str(tmp_path), "--no-progress"])
    history = result["history"]
    assert history["train_loss"][-1] < history["train_loss"][0]
    assert result["test_accuracy"] > 0.7
    assert (tmp_path / "digits_lenet_curves.png").read_bytes().startswith(b"\x89PNG")
    model = lenet.make_model()
    model.load_state_dict(nbgrad.load(tmp_path / "digits_lenet.safetensors"))
    assert tuple(model(lenet.images(nbgrad.zeros(2, 64))).shape) == (2, 10)


def test_lenet_example_runs_on_cuda(tmp_path):
    # under the simulator: one step of a narrow net on four images (its kernels are slow)
    _examples_extra()
    try:
        nbgrad.backends.get_backend("cuda")
    except RuntimeError as exc:
        pytest.skip(f"CUDA backend unusable: {exc}")
    from nbgrad.examples import lenet
    result = lenet.main(["--device", "cuda", "--epochs", "1", "--limit", "4", "--batch-size", "4",
                         "--channels", "2,2", "--hidden", "4", "--out", str(tmp_path), "--no-progress"])
    assert len(result["history"]["train_loss"]) == 1 and math.isfinite(result["history"]["train_loss"][0])
    assert (tmp_path / "digits_lenet.safetensors").exists()


def test_custom_kernel_example_learns_the_conductivity():
    from nbgrad.examples import custom_kernel
    lines = []
    result = custom_kernel.main(seed=0, iterations=80, log=lines.append)
    losses = result["losses"]
    assert losses[-1] < losses[0] * 1e-2             # a user stencil and user scalar ops, trained
    assert result["misfit"] < 5e-3
    assert any("PseudoHuberBackward" in line for line in lines)
