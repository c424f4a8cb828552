"""RMSprop and Adagrad against a float64 NumPy transcription of PyTorch's documented update
rules; their state (names, dtypes), param_groups, state_dict round trip, non-contiguous
parameters, errors, and a CUDA smoke test."""
import copy

import numpy as np
import pytest

import nbgrad

nn, optim = nbgrad.nn, nbgrad.optim


def _cuda_unusable():
    try:
        nbgrad.backends.get_backend("cuda")
    except RuntimeError as exc:
        return str(exc)
    return None


requires_cuda = pytest.mark.skipif(_cuda_unusable() is not None, reason="CUDA backend unusable")


def rmsprop_reference(p, grads, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                      maximize=False):
    """PyTorch's documented RMSprop: v = alpha v + (1-alpha) g^2; centered: g_ave = alpha g_ave + (1-alpha) g,
    denominator sqrt(v - g_ave^2) + eps; momentum: b = mu b + g / denom, p -= lr b; else p -= lr g / denom."""
    p = p.copy()
    v = np.zeros_like(p)
    g_ave = np.zeros_like(p)
    b = np.zeros_like(p)
    for g in grads:
        g = -g if maximize else g
        if weight_decay:
            g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        if centered:
            g_ave = alpha * g_ave + (1 - alpha) * g
            denom = np.sqrt(v - g_ave * g_ave) + eps
        else:
            denom = np.sqrt(v) + eps
        if momentum > 0:
            b = momentum * b + g / denom
            p = p - lr * b
        else:
            p = p - lr * g / denom
    return p, {"square_avg": v, "grad_avg": g_ave, "momentum_buffer": b}


def adagrad_reference(p, grads, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
                      eps=1e-10, maximize=False):
    """PyTorch's documented Adagrad: lr_t = lr / (1 + (t-1) lr_decay); s += g^2; p -= lr_t g / (sqrt(s) + eps)."""
    p = p.copy()
    s = np.full_like(p, initial_accumulator_value)
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        if weight_decay:
            g = g + weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g
        p = p - clr * g / (np.sqrt(s) + eps)
    return p, {"sum": s}


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(4, 5)), [rng.normal(size=(4, 5)) for _ in range(5)]


def run(cls, p0, grads, **kw):
    p = nn.Parameter(nbgrad.tensor(p0))
    opt = cls([p], **kw)
    for g in grads:
        p.grad = nbgrad.tensor(g)
        opt.step()
    return p, opt


RMS_CASES = [
    dict(),
    dict(lr=0.05, alpha=0.9),
    dict(lr=0.05, weight_decay=0.1, eps=1e-3),
    dict(lr=0.02, momentum=0.9),
    dict(lr=0.02, alpha=0.7, centered=True),       # 1 - alpha < 0.5: lerp's first branch
    dict(lr=0.02, alpha=0.3, centered=True, momentum=0.5, weight_decay=0.01, maximize=True),   # second branch
]


@pytest.mark.parametrize("kw", RMS_CASES, ids=[str(k) for k in RMS_CASES])
def test_rmsprop_matches_reference(data, kw):
    p0, grads = data
    p, opt = run(optim.RMSprop, p0, grads, **kw)
    ref, state = rmsprop_reference(p0, grads, **kw)
    np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-12, atol=1e-14)
    st = opt.state[p]
    expected = {"step", "square_avg"} | ({"momentum_buffer"} if kw.get("momentum") else set()) \
        | ({"grad_avg"} if kw.get("centered") else set())
    assert set(st) == expected
    assert st["step"].dtype is nbgrad.float32 and st["step"].item() == len(grads)
    for name in expected - {"step"}:
        assert st[name].dtype is nbgrad.float64
        np.testing.assert_allclose(st[name].numpy(), state[name], rtol=1e-12, atol=1e-14)


ADAGRAD_CASES = [
    dict(),
    dict(lr=0.1, lr_decay=0.3),
    dict(lr=0.1, weight_decay=0.2, initial_accumulator_value=0.5),
    dict(lr=0.05, eps=1e-2, maximize=True, lr_decay=0.01),
]


@pytest.mark.parametrize("kw", ADAGRAD_CASES, ids=[str(k) for k in ADAGRAD_CASES])
def test_adagrad_matches_reference(data, kw):
    p0, grads = data
    p, opt = run(optim.Adagrad, p0, grads, **kw)
    ref, state = adagrad_reference(p0, grads, **kw)
    np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-12, atol=1e-14)
    st = opt.state[p]
    assert set(st) == {"step", "sum"} and st["step"].dtype is nbgrad.float32 and st["step"].item() == 5
    np.testing.assert_allclose(st["sum"].numpy(), state["sum"], rtol=1e-12)


def test_adagrad_state_exists_from_construction():
    a, b = nn.Parameter(nbgrad.zeros(2)), nn.Parameter(nbgrad.zeros(3))
    opt = optim.Adagrad([a, b], initial_accumulator_value=0.25)
    assert opt.state[b]["step"].item() == 0.0
    np.testing.assert_array_equal(opt.state[b]["sum"].numpy(), [0.25] * 3)
    a.grad = nbgrad.ones(2)
    opt.step()                                    # b has no gradient: untouched
    assert opt.state[a]["step"].item() == 1 and opt.state[b]["step"].item() == 0
    assert sorted(opt.state_dict()["state"]) == [0, 1]
    c = nn.Parameter(nbgrad.zeros(1))
    opt.add_param_group({"params": [c]})
    c.grad = nbgrad.ones(1)
    opt.step()
    assert opt.state[c]["step"].item() == 1


@pytest.mark.parametrize("cls, kw, defaults", [
    (optim.RMSprop, dict(momentum=0.5, centered=True),
     dict(lr=1e-2, momentum=0.5, alpha=0.99, eps=1e-8, centered=True, weight_decay=0, capturable=False,
          foreach=None, maximize=False, differentiable=False)),
    (optim.Adagrad, dict(lr_decay=0.1),
     dict(lr=1e-2, lr_decay=0.1, eps=1e-10, weight_decay=0, initial_accumulator_value=0, foreach=None,
          maximize=False, differentiable=False, fused=None)),
])
def test_param_groups_and_state_dict_round_trip(data, cls, kw, defaults):
    p0, grads = data
    p, opt = run(cls, p0, grads[:2], **kw)
    sd = opt.state_dict()
    group = sd["param_groups"][0]
    assert group == dict(defaults, params=[0])
    # resume: a fresh optimizer loaded from the state dict continues exactly as the original
    q = nn.Parameter(p.detach().clone())
    opt2 = cls([q], lr=0.5)
    opt2.load_state_dict(copy.deepcopy(sd))
    assert opt2.param_groups[0]["lr"] == 1e-2
    for g in grads[2:]:
        p.grad = nbgrad.tensor(g)
        q.grad = nbgrad.tensor(g)
        opt.step()
        opt2.step()
    np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())
    for name, value in opt.state[p].items():
        np.testing.assert_array_equal(opt2.state[q][name].numpy(), value.numpy())


@pytest.mark.parametrize("cls", [optim.RMSprop, optim.Adagrad])
def test_step_is_in_place_skips_gradless_and_handles_non_contiguous(data, cls):
    p0, grads = data
    base = nbgrad.tensor(p0.T.copy())
    p = nn.Parameter(base.t())                  # a transposed (non-contiguous) parameter
    unused = nn.Parameter(nbgrad.zeros(2))
    opt = cls([p, unused], lr=0.03)
    v = p._version
    for g in grads:
        p.grad = nbgrad.tensor(g)
        opt.step()
    assert p._version == v + len(grads)
    ref = (rmsprop_reference if cls is optim.RMSprop else adagrad_reference)(p0, grads, lr=0.03)[0]
    np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(unused.detach().numpy(), 0)


@pytest.mark.parametrize("cls, kw, message", [
    (optim.RMSprop, dict(lr=-1), "Invalid learning rate: -1"),
    (optim.RMSprop, dict(alpha=-0.1), "Invalid alpha value: -0.1"),
    (optim.RMSprop, dict(momentum=-0.1), "Invalid momentum value: -0.1"),
    (optim.RMSprop, dict(eps=-1.0), "Invalid epsilon value: -1.0"),
    (optim.RMSprop, dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    (optim.Adagrad, dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    (optim.Adagrad, dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    (optim.Adagrad, dict(eps=-1), "Invalid epsilon value: -1"),
])
def test_bad_hyperparameters(cls, kw, message):
    with pytest.raises(ValueError, match=message):
        cls([nn.Parameter(nbgrad.zeros(1))], **kw)


@requires_cuda
@pytest.mark.parametrize("cls, ref", [(optim.RMSprop, rmsprop_reference), (optim.Adagrad, adagrad_reference)])
def test_on_cuda(cls, ref):
    rng = np.random.default_rng(2)
    p0, grads = rng.normal(size=3), [rng.normal(size=3) for _ in range(2)]
    p = nn.Parameter(nbgrad.tensor(p0, device="cuda"))
    opt = cls([p], lr=0.1)
    for g in grads:
        p.grad = nbgrad.tensor(g, device="cuda")
        opt.step()
    np.testing.assert_allclose(p.detach().cpu().numpy(), ref(p0, grads, lr=0.1)[0], rtol=1e-12)
