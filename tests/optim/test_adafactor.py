"""Adafactor: float64 trajectories against a NumPy reference written from the algorithm in
PyTorch's docstring (factored second moment for >= 2-D parameters, whole for 1-D and 0-D),
float32 trajectories against PyTorch 2.13's recorded values, PyTorch's state layout,
state_dict round trip, and PyTorch's refusals of bad hyper-parameters."""
import copy

import numpy as np
import pytest

import nbgrad

SHAPES = [(3, 4), (5,), (), (2, 3, 4), (1, 6)]


def _reference(params, grad_seq, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0,
               maximize=False):
    """PyTorch's documented Adafactor, in float64 (the mean of g*g for the row/col factors)."""
    eps1 = np.finfo(np.float64).eps if eps[0] is None else eps[0]
    eps2 = eps[1]
    params = [p.copy() for p in params]
    state = [None] * len(params)
    for t, grads in enumerate(grad_seq, 1):
        for i, (p, g) in enumerate(zip(params, grads)):
            g = -g if maximize else g
            one_minus_beta2 = t ** beta2_decay
            rho = min(lr, 1 / np.sqrt(t))
            alpha = max(eps2, np.sqrt(np.mean(p * p))) * rho
            p = p * (1 - lr * weight_decay)
            if g.ndim > 1:
                if state[i] is None:
                    state[i] = [np.zeros(g.shape[:-1] + (1,)), np.zeros(g.shape[:-2] + (1,) + g.shape[-1:])]
                r, c = state[i]
                r = r + one_minus_beta2 * (np.mean(g * g, axis=-1, keepdims=True) - r)
                c = c + one_minus_beta2 * (np.mean(g * g, axis=-2, keepdims=True) - c)
                state[i] = [r, c]
                v = (r @ c) / np.maximum(np.mean(r, axis=-2, keepdims=True), eps1)
            else:
                v = np.zeros(g.shape) if state[i] is None else state[i]
                v = v + one_minus_beta2 * (g * g - v)
                state[i] = v
            u = g / np.sqrt(np.maximum(v, eps1 * eps1))
            denom = max(1.0, np.sqrt(np.mean(u * u)) / d)
            params[i] = p - alpha / denom * u
    return params


def _run(params, grad_seq, dtype=nbgrad.float64, **kw):
    ps = [nbgrad.tensor(p, dtype=dtype, requires_grad=True) for p in params]
    opt = nbgrad.optim.Adafactor(ps, **kw)
    for grads in grad_seq:
        for p, g in zip(ps, grads):
            p.grad = nbgrad.tensor(g, dtype=dtype)
        opt.step()
    return ps, opt


def _data(seed, steps=6, scale=1.0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s) for s in SHAPES]
    grad_seq = [[rng.standard_normal(s) * scale for s in SHAPES] for _ in range(steps)]
    grad_seq[min(2, steps - 1)][0][1] = 0.0   # a zero row: its variance estimate is bounded by eps1
    grad_seq[steps - 1][3][:, :, 2] = 0.0     # a zero column in a batch of matrices
    return params, grad_seq


@pytest.mark.parametrize("kw, scale", [
    ({}, 1.0),
    (dict(lr=0.5), 1.0),                        # rho_t = 1/sqrt(t) from t = 4 on
    (dict(lr=0.3, weight_decay=0.2, maximize=True, d=1.5, beta2_decay=-0.5), 1.0),
    (dict(lr=0.2, eps=(1e-3, 1e-1)), 1e-3),     # both epsilons bite: tiny gradients, eps2 above the RMS
    (dict(lr=0.1, d=100.0, beta2_decay=0.0), 10.0),
])
def test_float64_matches_reference(kw, scale):
    params, grad_seq = _data(3, scale=scale)
    expected = _reference(params, grad_seq, **kw)
    ps, _ = _run(params, grad_seq, **kw)
    for p, e in zip(ps, expected):
        assert p.shape == e.shape
        np.testing.assert_allclose(np.array(p.detach().tolist()), e, rtol=1e-12, atol=1e-12)


def _fixed_inputs():
    params = [np.arange(6).reshape(2, 3) * 0.37 - 0.9, np.arange(4) * -0.21 + 0.5, np.array(0.75)]
    grad_seq = [[np.sin(np.arange(x.size).reshape(x.shape) * 1.3 + t) * (0.5 + t) for x in params]
                for t in range(4)]
    return params, grad_seq


# PyTorch 2.13's parameters (CPU, float32) after 4 steps of _fixed_inputs()
_PYTORCH_FLOAT32 = [
    ({}, [[-0.9155982732772827, -0.5359795689582825, -0.15015220642089844, 0.2211809754371643,
           0.5692369937896729, 0.9334796071052551],
          [0.4924916923046112, 0.2894064784049988, 0.08661901950836182, -0.12500838935375214],
          [0.7324249148368835]]),
    (dict(lr=0.05, weight_decay=0.1, maximize=True, d=1.2),
     [[-0.7917359471321106, -0.4910881817340851, -0.22162340581417084, 0.14924053847789764,
       0.6363468170166016, 1.0238150358200073],
      [0.5361097455024719, 0.28249800205230713, 0.03340105712413788, -0.1527329832315445],
      [0.8414140939712524]]),
]


def _ulps(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return np.abs(a.astype(np.float64) - b.astype(np.float64)) / np.spacing(np.maximum(np.abs(a), np.abs(b)))


@pytest.mark.parametrize("kw, expected", _PYTORCH_FLOAT32)
def test_float32_matches_pytorch(kw, expected):
    params, grad_seq = _fixed_inputs()
    ps, _ = _run(params, grad_seq, dtype=nbgrad.float32, **kw)
    for p, e in zip(ps, expected):
        assert p.dtype == nbgrad.float32
        assert _ulps(p.detach().flatten().tolist(), e).max() <= 4


def test_float16_matches_pytorch():
    # PyTorch 2.13's values: each op in float16 (its lerp computed in float32, rounded once)
    params, grad_seq = _fixed_inputs()
    ps, _ = _run(params, grad_seq, dtype=nbgrad.float16, lr=0.05, weight_decay=0.1, d=1.2)
    expected = [[-0.97607421875, -0.54833984375, -0.08837890625, 0.263671875, 0.4970703125, 0.8349609375],
                [0.448486328125, 0.28173828125, 0.116943359375, -0.1011962890625], [0.63671875]]
    for p, e in zip(ps, expected):
        assert p.dtype == nbgrad.float16
        assert p.detach().flatten().tolist() == e


def test_state_layout():
    params, grad_seq = _data(5, steps=3)
    ps, opt = _run(params, grad_seq)
    for p in ps:
        st = opt.state[p]
        assert st["step"].dtype == nbgrad.float32 and st["step"].shape == () and st["step"].item() == 3.0
        if p.dim() > 1:
            assert sorted(st) == ["col_var", "row_var", "step"]
            assert st["row_var"].shape == p.shape[:-1] + (1,)
            assert st["col_var"].shape == p.shape[:-2] + (1,) + p.shape[-1:]
            assert st["row_var"].dtype == st["col_var"].dtype == nbgrad.float64
        else:
            assert sorted(st) == ["step", "variance"]
            assert st["variance"].shape == p.shape and st["variance"].dtype == nbgrad.float64
    # the row factor after the first step of a 2-D parameter: mean of g*g along the last dim
    # (beta2 decay: 1 - 1**-0.8 = 0, the first step takes the new mean whole)
    p = nbgrad.zeros(2, 3, dtype=nbgrad.float64, requires_grad=True)
    opt = nbgrad.optim.Adafactor([p])
    g = np.array([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]])
    p.grad = nbgrad.tensor(g)
    opt.step()
    np.testing.assert_allclose(np.array(opt.state[p]["row_var"].tolist()), [[3.0], [25 / 3]], rtol=1e-15)
    np.testing.assert_allclose(np.array(opt.state[p]["col_var"].tolist()), [[0.5, 6.5, 10.0]], rtol=1e-15)


def test_defaults_and_param_groups():
    w = nbgrad.zeros(2, 2, requires_grad=True)
    b = nbgrad.zeros(2, requires_grad=True)
    opt = nbgrad.optim.Adafactor([{"params": [w]}, {"params": [b], "lr": 0.5, "eps": (1e-4, 1e-2)}])
    g0, g1 = opt.param_groups
    assert g0["lr"] == 1e-2 and g0["beta2_decay"] == -0.8 and g0["eps"] == (None, 1e-3)
    assert g0["d"] == 1.0 and g0["weight_decay"] == 0.0 and g0["foreach"] is None and g0["maximize"] is False
    assert g1["lr"] == 0.5 and g1["eps"] == (1e-4, 1e-2)


def test_closure_skipped_param_and_version():
    a = nbgrad.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    b = nbgrad.tensor([4.0, 5.0], requires_grad=True)
    opt = nbgrad.optim.Adafactor([a, b], lr=0.1)
    v0 = a._version

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == pytest.approx(1 + 4 + 0.25 + 9)
    assert a._version > v0
    assert b.tolist() == [4.0, 5.0] and len(opt.state[b]) == 0
    assert len(opt.state[a]) == 3


def test_tensor_lr_and_non_contiguous_param():
    params, grad_seq = _data(7, steps=4)
    ref, _ = _run(params[:1], [g[:1] for g in grad_seq], lr=0.3)
    ps, _ = _run(params[:1], [g[:1] for g in grad_seq], lr=nbgrad.tensor(0.3, dtype=nbgrad.float64))
    assert ps[0].tolist() == ref[0].tolist()
    # a transposed view (non-contiguous) is updated in place as a contiguous parameter of the
    # same values, and its base sees the update
    base = nbgrad.tensor(params[0], dtype=nbgrad.float64)
    t = base.t()
    t.requires_grad_(True)
    assert not t.is_contiguous()
    q = nbgrad.tensor(params[0].T.copy(), dtype=nbgrad.float64, requires_grad=True)
    opt_t, opt_q = nbgrad.optim.Adafactor([t], lr=0.3), nbgrad.optim.Adafactor([q], lr=0.3)
    for grads in grad_seq:
        t.grad = nbgrad.tensor(grads[0].T.copy())
        q.grad = nbgrad.tensor(grads[0].T.copy())
        opt_t.step()
        opt_q.step()
    assert t.tolist() == q.tolist()
    assert t.tolist() != params[0].T.tolist()
    assert base.tolist() == np.array(q.tolist()).T.tolist()


def test_state_dict_round_trip():
    params, grad_seq = _data(9, steps=6)
    ps, opt = _run(params, grad_seq[:3], lr=0.2, weight_decay=0.1)
    sd = opt.state_dict()
    assert sorted(sd["state"]) == list(range(len(SHAPES)))
    assert sorted(sd["state"][0]) == ["col_var", "row_var", "step"]
    assert sorted(sd["state"][1]) == ["step", "variance"]
    assert sd["param_groups"][0]["params"] == list(range(len(SHAPES)))
    assert sd["param_groups"][0]["eps"] == (None, 1e-3)
    qs = [nbgrad.tensor(p.detach().tolist(), dtype=nbgrad.float64, requires_grad=True) for p in ps]
    opt2 = nbgrad.optim.Adafactor(qs)          # hyper-parameters come from the state dict
    opt2.load_state_dict(copy.deepcopy(sd))   # (as in PyTorch, a loaded state dict's tensors are taken, not copied)
    assert opt2.param_groups[0]["lr"] == 0.2 and opt2.param_groups[0]["weight_decay"] == 0.1
    for grads in grad_seq[3:]:
        for p, q, g in zip(ps, qs, grads):
            p.grad = nbgrad.tensor(g)
            q.grad = nbgrad.tensor(g)
        opt.step()
        opt2.step()
    for p, q in zip(ps, qs):
        assert p.tolist() == q.tolist()
    assert opt2.state[qs[0]]["step"].item() == 6.0


@pytest.mark.parametrize("kw, message", [
    (dict(lr=-0.1), "Learning rate should be >= 0 but is: -0.1"),
    (dict(beta2_decay=0.5), "beta2_decay should be <= 0 but is: 0.5"),
    (dict(eps=(-1e-3, 1e-3)), "epsilon1 should be >= 0 but is: -0.001"),
    (dict(eps=(None, -1.0)), "epsilon2 should be >= 0 but is: -1.0"),
    (dict(d=0.5), "Clipping threshold d should be >= 1 but is: 0.5"),
    (dict(weight_decay=-0.01), "weight_decay should be >= 0 but is: -0.01"),
])
def test_bad_hyper_parameters(kw, message):
    p = nbgrad.zeros(2, 2, requires_grad=True)
    with pytest.raises(ValueError, match="^" + message.replace(".", r"\.").replace("(", r"\(") + "$"):
        nbgrad.optim.Adafactor([p], **kw)


def test_tensor_lr_must_have_one_element():
    p = nbgrad.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="^Tensor lr must be 1-element$"):
        nbgrad.optim.Adafactor([p], lr=nbgrad.tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        nbgrad.optim.Adafactor([])
