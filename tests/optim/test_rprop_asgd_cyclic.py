"""Rprop, ASGD and CyclicLR: parameters and state after several steps against PyTorch 2.13's
values recorded as literals (float32 and float64; Rprop's are its bits) and against NumPy
references of the algorithms PyTorch documents; state names, float32 scalar state, defaults,
errors; CyclicLR's learning rates and momenta in its three modes, with scale_fn, betas and
state_dict."""
import math

import numpy as np
import pytest

import nbgrad

optim = nbgrad.optim
CyclicLR = optim.lr_scheduler.CyclicLR

P0 = [[-0.8, -1.32, -0.25], [0.42, 1.14, 0.11]]
GRADS = [[[-0.55, -0.78, 0.75], [1.63, 0.27, -1.23]], [[-0.96, 1.6, 0.2], [-1.73, -0.08, -1.16]],
         [[-0.63, -0.49, -0.71], [0.55, -0.06, -0.59]], [[0.41, 0.83, -1.64], [-0.26, -0.98, -0.17]]]

# PyTorch 2.13: the parameter after the four steps above, and its state
RECORDED = [
    (optim.Rprop, dict(lr=0.1, etas=(0.4, 1.5), step_sizes=(1e-3, 0.3)), {
        "float32": [[-0.32499992847442627, -1.1800000667572021, -0.4399999976158142],
                    [0.2800000011920929, 1.1399998664855957, 0.8850000500679016]],
        "float64": [[-0.325, -1.18, -0.44], [0.2799999999999999, 1.14, 0.885]]},
     {"step": 4.0, "prev": [[0.0, 0.0, -1.64], [0.0, -0.98, -0.17]],
      "step_size": [[0.09000000000000002, 0.016000000000000004, 0.06000000000000001],
                    [0.016000000000000004, 0.06000000000000001, 0.3]]}),
    (optim.Rprop, dict(maximize=True), {
        "float32": [[-0.836400032043457, -1.3350000381469727, -0.23399999737739563],
                    [0.4349999725818634, 1.1389999389648438, 0.05632000043988228]],
        "float64": [[-0.8364, -1.335, -0.23399999999999999], [0.435, 1.139, 0.05632000000000001]]},
     {"step": 4.0, "prev": [[0.0, 0.0, 1.64], [0.0, 0.98, 0.17]],
      "step_size": [[0.0072, 0.0025, 0.006], [0.0025, 0.006, 0.01728]]}),
    (optim.ASGD, dict(lr=0.1, lambd=0.01, alpha=0.6, t0=2, weight_decay=0.1), {
        "float32": [[-0.597046434879303, -1.3783224821090698, -0.09745438396930695],
                    [0.3848940134048462, 1.176156759262085, 0.4128832519054413]],
        "float64": [[-0.5970464615779878, -1.378322349312723, -0.09745432888929431],
                    [0.384894005003083, 1.176156933383371, 0.4128832378869414]]},
     {"step": 4.0, "eta": 0.0997607633471489, "mu": 0.5}),
    (optim.ASGD, dict(lr=0.05, maximize=True), {
        "float32": [[-0.8864826560020447, -1.2619743347167969, -0.31999433040618896],
                    [0.4294913411140442, 1.097477674484253, -0.047500014305114746]],
        "float64": [[-0.8864827627169214, -1.2619742784891175, -0.31999433442996256],
                    [0.429491373253536, 1.097477641210562, -0.047500014334997835]]},
     {"step": 4.0, "eta": 0.04999924823641777, "mu": 1.0}),
]


def _run(cls, kw, dtype, transposed=False):
    p0 = nbgrad.tensor(P0, dtype=dtype)
    p = nbgrad.nn.Parameter(p0.t().contiguous().t() if transposed else p0)
    opt = cls([p], **kw)
    for g in GRADS:
        p.grad = nbgrad.tensor(g, dtype=dtype)
        opt.step()
    return p, opt


@pytest.mark.parametrize("cls, kw, values, state", RECORDED)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_steps_match_pytorch(cls, kw, values, state, dtype, transposed):
    p, opt = _run(cls, kw, getattr(nbgrad, dtype), transposed)
    expected = np.array(values[dtype], dtype=dtype)
    if cls is optim.Rprop:
        np.testing.assert_array_equal(p.detach().numpy(), expected)        # PyTorch's bits
    else:
        # float64: within an ulp (PyTorch's add_ with alpha is a fused multiply-add in its vector loop)
        np.testing.assert_allclose(p.detach().numpy(), expected, rtol=2e-7 if dtype == "float32" else 1e-15, atol=0)
    s = opt.state[p]
    assert p.is_contiguous() is not transposed
    for name, value in state.items():
        if isinstance(value, list):
            continue
        assert s[name].dtype is nbgrad.float32 and s[name].dim() == 0
        assert s[name].item() == np.float32(value)
    if cls is optim.Rprop:
        rtol = 3e-7 if dtype == "float32" else 1e-15       # the literals are float64's
        np.testing.assert_allclose(s["prev"].numpy(), np.array(state["prev"], dtype=dtype), rtol=rtol)
        np.testing.assert_allclose(s["step_size"].numpy(), np.array(state["step_size"], dtype=dtype), rtol=rtol)
        assert s["step_size"].dtype is p.dtype and s["prev"].stride() == p.stride()
    else:
        np.testing.assert_array_equal(s["ax"].numpy(), p.detach().numpy())   # mu was 1 until step 3, then 1/2...


def _rprop(p, grads, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    prev, size = np.zeros_like(p), np.full_like(p, lr)
    for g in grads:
        g = -g if maximize else g
        s = g * prev
        size = np.where(s > 0, np.minimum(size * etas[1], step_sizes[1]),
                        np.where(s < 0, np.maximum(size * etas[0], step_sizes[0]), size))
        g = np.where(s < 0, 0.0, g)
        p = p - np.sign(g) * size
        prev = g
    return p


def _asgd(p, grads, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, wd=0.0):
    eta, mu, ax = float(np.float32(lr)), 1.0, np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = g + wd * p
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + (p - ax) * mu
        eta = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))      # float32 state, as PyTorch's
        mu = float(np.float32(1 / max(1, t - t0)))
    return p, ax


def test_rprop_matches_the_documented_algorithm():
    rng = np.random.default_rng(3)
    p0 = rng.uniform(-1, 1, (5, 4))
    grads = [rng.uniform(-1, 1, (5, 4)) * rng.integers(0, 2, (5, 4)) for _ in range(12)]   # zeros: sign 0
    for kw in ({}, dict(lr=0.2, etas=(0.3, 1.7), step_sizes=(0.01, 0.5), maximize=True)):
        p = nbgrad.nn.Parameter(nbgrad.tensor(p0))
        opt = optim.Rprop([p], **kw)
        for g in grads:
            p.grad = nbgrad.tensor(g)
            opt.step()
        np.testing.assert_allclose(p.detach().numpy(), _rprop(p0, [np.array(g) for g in grads], **kw), rtol=1e-13)


def test_asgd_matches_the_documented_algorithm():
    rng = np.random.default_rng(4)
    p0 = rng.uniform(-1, 1, (5, 4))
    grads = [rng.uniform(-1, 1, (5, 4)) for _ in range(12)]
    kw = dict(lr=0.1, lambd=0.05, alpha=0.5, t0=5)
    p = nbgrad.nn.Parameter(nbgrad.tensor(p0))
    opt = optim.ASGD([p], weight_decay=0.2, **kw)
    for g in grads:
        p.grad = nbgrad.tensor(g)
        opt.step()
    ref_p, ref_ax = _asgd(p0, grads, wd=0.2, **kw)
    np.testing.assert_allclose(p.detach().numpy(), ref_p, rtol=1e-12)
    np.testing.assert_allclose(opt.state[p]["ax"].numpy(), ref_ax, rtol=1e-12)
    assert opt.state[p]["mu"].item() == np.float32(1 / 7)


def test_state_names_order_versions_and_defaults():
    for cls, names, defaults in (
            (optim.Rprop, ["step", "prev", "step_size"],
             dict(lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach=None, maximize=False,
                  differentiable=False, capturable=False)),
            (optim.ASGD, ["step", "eta", "mu", "ax"],
             dict(lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                  differentiable=False, capturable=False))):
        p = nbgrad.nn.Parameter(nbgrad.ones(3))
        opt = cls([p])
        assert opt.defaults == defaults
        p.grad = nbgrad.ones(3)
        v = p._version
        opt.step()
        opt.step()
        assert list(opt.state[p]) == names
        assert p._version == v + 2
        assert opt.state[p]["step"].item() == 2.0
        assert list(opt.state_dict()["state"][0]) == names


def test_parameters_without_gradients_are_left_alone():
    a, b = nbgrad.nn.Parameter(nbgrad.ones(2)), nbgrad.nn.Parameter(nbgrad.ones(2))
    for cls in (optim.Rprop, optim.ASGD):
        opt = cls([a, b])
        a.grad = nbgrad.ones(2)
        opt.step()
        assert b in opt.state and len(opt.state[b]) == 0 or b not in opt.state
        assert b.tolist() == [1.0, 1.0] and a.tolist() != [1.0, 1.0]
        a.data.fill_(1.0)


@pytest.mark.parametrize("make, message", [
    (lambda p: optim.Rprop(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    (lambda p: optim.Rprop(p, etas=(0.5, 0.9)), "Invalid eta values: 0.5, 0.9"),
    (lambda p: optim.ASGD(p, lr=-0.5), "Invalid learning rate: -0.5"),
    (lambda p: optim.ASGD(p, weight_decay=-1), "Invalid weight_decay value: -1"),
])
def test_optimizer_errors_are_pytorchs(make, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        make([nbgrad.nn.Parameter(nbgrad.zeros(2))])


def _cyclic_ref(n, base, top, up, down, scale, scale_mode, base_m=0.8, max_m=0.9):
    """PyTorch's documented closed form of CyclicLR, in its float operations."""
    total = float(up) + float(down)
    ratio = float(up) / total
    lrs, moms = [], []
    for e in range(n):
        cycle = math.floor(1 + e / total)
        x = 1.0 + e / total - cycle
        f = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
        at = cycle if scale_mode == "cycle" else e
        lrs.append(base + (top - base) * f * scale(at))
        moms.append(max_m - (max_m - base_m) * f * scale(at))
    return lrs, moms


def _cycle(opt, sched, n, key="momentum"):
    lrs, moms = [], []
    for _ in range(n):
        lrs.append(sched.get_last_lr()[0])
        moms.append(opt.param_groups[0][key])
        opt.step()
        sched.step()
    return lrs, moms


def test_cyclic_exp_range_with_sgd_momentum_matches_pytorch():
    p = nbgrad.nn.Parameter(nbgrad.zeros(2))
    opt = optim.SGD([p], lr=1.0, momentum=0.5)
    s = CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2, mode="exp_range", gamma=0.9,
                 base_momentum=0.6, max_momentum=0.95)
    lrs, moms = _cycle(opt, s, 12)
    assert lrs == [0.01, 0.037, 0.0586, 0.07561, 0.0395245, 0.01, 0.02594323000000002, 0.038697814000000004,
                   0.04874204890000001, 0.02743392200500002, 0.01, 0.01941431788270001]
    assert moms == [0.95, 0.845, 0.761, 0.69485, 0.8351824999999999, 0.95, 0.8879985499999999, 0.83839739,
                    0.7993364765, 0.8822014144249999, 0.95, 0.9133887637895]
    assert opt.param_groups[0]["max_momentum"] == 0.95 and opt.param_groups[0]["base_momentum"] == 0.6
    assert (lrs, moms) == _cyclic_ref(12, 0.01, 0.1, 3, 2, lambda x: 0.9 ** x, "iterations", 0.6, 0.95)


def test_cyclic_triangular2_cycles_adams_beta1_as_pytorch():
    p = nbgrad.nn.Parameter(nbgrad.zeros(2))
    opt = optim.Adam([p], lr=1.0)
    s = CyclicLR(opt, base_lr=[0.001], max_lr=0.006, step_size_up=2, mode="triangular2")
    assert opt.param_groups[0]["lr"] == 0.001 and opt.param_groups[0]["initial_lr"] == 0.001
    lrs, betas = _cycle(opt, s, 10, "betas")
    assert lrs == [0.001, 0.0035, 0.006, 0.0035, 0.001, 0.0022500000000000003, 0.0035, 0.0022500000000000003, 0.001,
                   0.0016250000000000001]
    assert [b[0] for b in betas] == [0.9, 0.8500000000000001, 0.8, 0.8500000000000001, 0.9, 0.875, 0.8500000000000001,
                                     0.875, 0.9, 0.8875000000000001]
    assert all(b[1] == 0.999 for b in betas)


@pytest.mark.parametrize("mode, scale_fn, scale_mode", [
    ("triangular", None, "cycle"), ("triangular2", None, "cycle"),
    ("anything", lambda x: 1 / (1.0 + x), "cycle"), ("triangular", lambda x: 0.95 ** x, "iterations")])
def test_cyclic_modes_and_scale_fn_follow_the_closed_form(mode, scale_fn, scale_mode):
    p = nbgrad.nn.Parameter(nbgrad.zeros(2))
    opt = optim.SGD([p], lr=1.0, momentum=0.9)
    s = CyclicLR(opt, base_lr=0.002, max_lr=0.05, step_size_up=4, step_size_down=3, mode=mode, scale_fn=scale_fn,
                 scale_mode=scale_mode)
    lrs, moms = _cycle(opt, s, 20)
    scale = scale_fn or (lambda x: 1.0) if mode == "triangular" else scale_fn or (lambda x: 1 / (2.0 ** (x - 1)))
    assert (lrs, moms) == _cyclic_ref(20, 0.002, 0.05, 4, 3, scale, scale_mode)


def test_cyclic_without_momentum_state_dict_and_resume():
    p = nbgrad.nn.Parameter(nbgrad.zeros(2))
    opt = optim.Adagrad([p], lr=1.0)
    s = CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.8, cycle_momentum=False)
    assert "momentum" not in opt.param_groups[0] and "max_momentum" not in opt.param_groups[0]
    for _ in range(3):
        s.step()
    sd = s.state_dict()
    assert "_scale_fn_ref" not in sd and sd["_scale_fn_custom"] is None and sd["last_epoch"] == 3
    assert sd["scale_mode"] == "iterations" and sd["total_size"] == 4.0 and sd["step_ratio"] == 0.5
    s2 = CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.8, cycle_momentum=False, last_epoch=0)
    s2.load_state_dict(sd)
    s.step()
    s2.step()
    assert s2.get_last_lr() == s.get_last_lr()
    assert s.get_last_lr() == [0.01 + (0.1 - 0.01) * 0.0 * 0.8 ** 4]


def test_cyclic_errors_are_pytorchs():
    p = nbgrad.nn.Parameter(nbgrad.zeros(2))
    with pytest.raises(ValueError, match="^mode is invalid and scale_fn is None$"):
        CyclicLR(optim.SGD([p], lr=0.1, momentum=0.9), 0.01, 0.1, mode="square")
    with pytest.raises(ValueError, match="^optimizer must support momentum or beta1 with `cycle_momentum` option"):
        CyclicLR(optim.Adagrad([p], lr=0.1), 0.01, 0.1)
    with pytest.raises(ValueError, match="^base_lr must have the same length as optimizer.param_groups. base_lr has 2"):
        CyclicLR(optim.SGD([p], lr=0.1, momentum=0.9), [0.01, 0.02], 0.1)
    with pytest.raises(TypeError, match="^int is not an Optimizer$"):
        CyclicLR(3, 0.01, 0.1)
