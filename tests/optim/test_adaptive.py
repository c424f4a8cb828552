"""Adamax, NAdam, RAdam, Adadelta against NumPy float64 references written from the algorithms
in PyTorch's documentation, over several steps with weight decay, maximize and decoupled
decay; their state (PyTorch's names and float32 step counters) and errors."""
import numpy as np
import pytest

import nbgrad

optim = nbgrad.optim
RNG = np.random.default_rng(11)


def _adamax(p, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, wd=0.0, maximize=False):
    m, u = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        g = g + wd * p
        m = beta_mix(m, g, betas[0])
        u = np.maximum(betas[1] * u, np.abs(g) + eps)
        p = p - lr / (1 - betas[0] ** t) * m / u
    return p


def beta_mix(m, g, beta):
    return beta * m + (1 - beta) * g


def _nadam(p, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, wd=0.0, psi=4e-3, decoupled=False):
    m, v = np.zeros_like(p), np.zeros_like(p)
    mu_prod = 1.0
    for t, g in enumerate(grads, 1):
        if wd and decoupled:
            p = p * (1 - lr * wd)
        elif wd:
            g = g + wd * p
        mu = betas[0] * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = betas[0] * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        mu_prod = float(np.float32(np.float32(mu_prod) * np.float32(mu)))    # PyTorch's float32 state
        m = beta_mix(m, g, betas[0])
        v = beta_mix(v, g * g, betas[1])
        denom = np.sqrt(v / (1 - betas[1] ** t)) + eps
        p = p - lr * (1 - mu) / (1 - mu_prod) * g / denom - lr * mu_next / (1 - mu_prod * mu_next) * m / denom
    return p


def _radam(p, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, wd=0.0, decoupled=False):
    m, v = np.zeros_like(p), np.zeros_like(p)
    rho_inf = 2 / (1 - betas[1]) - 1
    for t, g in enumerate(grads, 1):
        if wd and decoupled:
            p = p * (1 - lr * wd)
        elif wd:
            g = g + wd * p
        m = beta_mix(m, g, betas[0])
        v = beta_mix(v, g * g, betas[1])
        m_hat = m / (1 - betas[0] ** t)
        rho_t = rho_inf - 2 * t * betas[1] ** t / (1 - betas[1] ** t)
        if rho_t > 5:
            ell = np.sqrt(1 - betas[1] ** t) / (np.sqrt(v) + eps)
            r = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p = p - lr * m_hat * ell * r
        else:
            p = p - lr * m_hat
    return p


def _adadelta(p, grads, lr=1.0, rho=0.9, eps=1e-6, wd=0.0):
    v, u = np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        g = g + wd * p
        v = rho * v + (1 - rho) * g * g
        dx = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * dx * dx
        p = p - lr * dx
    return p


CASES = [
    (optim.Adamax, {}, _adamax, {}),
    (optim.Adamax, dict(lr=0.05, weight_decay=0.1, maximize=True), _adamax, dict(lr=0.05, wd=0.1, maximize=True)),
    (optim.NAdam, dict(lr=0.01), _nadam, dict(lr=0.01)),
    (optim.NAdam, dict(lr=0.01, weight_decay=0.1), _nadam, dict(lr=0.01, wd=0.1)),
    (optim.NAdam, dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01), _nadam,
     dict(lr=0.01, wd=0.1, decoupled=True, psi=0.01)),
    (optim.RAdam, dict(lr=0.01), _radam, dict(lr=0.01)),
    (optim.RAdam, dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), _radam,
     dict(lr=0.01, wd=0.1, decoupled=True)),
    (optim.RAdam, dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.9)), _radam, dict(lr=0.01, wd=0.1, betas=(0.8, 0.9))),
    (optim.Adadelta, {}, _adadelta, {}),
    (optim.Adadelta, dict(lr=0.5, rho=0.8, weight_decay=0.1), _adadelta, dict(lr=0.5, rho=0.8, wd=0.1)),
]


@pytest.mark.parametrize("cls, kw, ref, ref_kw", CASES)
def test_matches_the_documented_algorithm(cls, kw, ref, ref_kw):
    p0 = RNG.uniform(-1, 1, (4, 3))
    grads = [RNG.uniform(-1, 1, (4, 3)) for _ in range(10)]     # 10 steps: RAdam's rectified branch from step 6
    p = nbgrad.nn.Parameter(nbgrad.tensor(p0))
    opt = cls([p], **kw)
    for g in grads:
        p.grad = nbgrad.tensor(g)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), ref(p0, grads, **ref_kw), rtol=1e-10, atol=1e-13)


def test_state_names_and_step_counters_are_pytorchs():
    p = nbgrad.nn.Parameter(nbgrad.ones(3).t())
    for cls, names in ((optim.Adamax, {"step", "exp_avg", "exp_inf"}),
                       (optim.NAdam, {"step", "mu_product", "exp_avg", "exp_avg_sq"}),
                       (optim.RAdam, {"step", "exp_avg", "exp_avg_sq"}),
                       (optim.Adadelta, {"step", "square_avg", "acc_delta"})):
        opt = cls([p])
        p.grad = nbgrad.ones(3)
        v = p._version
        opt.step()
        opt.step()
        state = opt.state[p]
        assert set(state) == names
        assert state["step"].dtype is nbgrad.float32 and state["step"].item() == 2.0 and state["step"].dim() == 0
        assert p._version == v + 2
        assert opt.state_dict()["state"][0].keys() == names


@pytest.mark.parametrize("make, message", [
    (lambda p: optim.Adamax(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.NAdam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda p: optim.RAdam(p, eps=-1), "Invalid epsilon value: -1"),
    (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
    (lambda p: optim.Adadelta(p, weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
])
def test_errors_are_pytorchs(make, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        make([nbgrad.nn.Parameter(nbgrad.zeros(2))])
