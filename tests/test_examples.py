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
