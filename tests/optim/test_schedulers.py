"""LambdaLR, OneCycleLR and ReduceLROnPlateau against the formulas in PyTorch's documentation,
step by step: learning rates, cycled momentum (SGD's momentum, Adam's beta1), state dicts, errors."""
import math

import pytest

import nbgrad

nn, optim = nbgrad.nn, nbgrad.optim
sched = optim.lr_scheduler


def two_groups(cls=optim.SGD, **kw):
    return cls([{"params": [nn.Parameter(nbgrad.zeros(2))]},
                {"params": [nn.Parameter(nbgrad.zeros(1))], "lr": 0.5}], lr=0.1, **kw)


def lrs(opt):
    return [g["lr"] for g in opt.param_groups]


# -- LambdaLR ------------------------------------------------------------------------------
def test_lambda_lr_one_function_and_one_per_group():
    opt = two_groups()
    s = sched.LambdaLR(opt, lambda e: 0.9 ** e)
    seen = [lrs(opt)]
    for _ in range(4):
        opt.step()
        s.step()
        seen.append(lrs(opt))
    assert seen == [[0.1 * 0.9 ** e, 0.5 * 0.9 ** e] for e in range(5)]
    assert s.get_last_lr() == seen[-1] and s.base_lrs == [0.1, 0.5]

    opt = two_groups()
    s = sched.LambdaLR(opt, [lambda e: 1.0 / (e + 1), lambda e: e * 2.0])
    for e in range(1, 4):
        s.step()
        assert lrs(opt) == [0.1 / (e + 1), 0.5 * e * 2.0]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        sched.LambdaLR(two_groups(), [lambda e: 1.0])


class Decay:
    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


def test_lambda_lr_state_dict_saves_callable_objects_not_functions():
    opt = two_groups()
    s = sched.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
    s.step()
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.5}, None] and sd["last_epoch"] == 1 and "optimizer" not in sd
    opt2 = two_groups()
    s2 = sched.LambdaLR(opt2, [Decay(0.9), lambda e: 1.0])
    s2.load_state_dict(sd)
    assert s2.lr_lambdas[0].rate == 0.5 and s2.last_epoch == 1
    s2.step()
    assert lrs(opt2)[0] == 0.1 * 0.5 ** 2


# -- OneCycleLR ----------------------------------------------------------------------------
def one_cycle_reference(step, total, max_lr, pct_start=0.3, anneal="cos", div=25.0, final_div=1e4, three=False,
                        base_m=0.85, max_m=0.95):
    """The documented schedule: phases end at pct_start*total - 1 (and 2*pct_start*total - 2), then total - 1;
    within a phase, pct = (step - phase start) / (phase end - phase start), and each quantity goes from its
    start to its end value by cosine ((1 + cos(pi pct)) / 2 weighting) or linearly."""
    initial = max_lr / div
    low = initial / final_div
    if three:
        phases = [(pct_start * total - 1, initial, max_lr, max_m, base_m),
                  (2 * pct_start * total - 2, max_lr, initial, base_m, max_m),
                  (total - 1, initial, low, max_m, max_m)]
    else:
        phases = [(pct_start * total - 1, initial, max_lr, max_m, base_m), (total - 1, max_lr, low, base_m, max_m)]

    def anneal_fn(a, b, pct):
        return b + (a - b) / 2.0 * (math.cos(math.pi * pct) + 1) if anneal == "cos" else (b - a) * pct + a
    start = 0.0
    for i, (end, lr0, lr1, m0, m1) in enumerate(phases):
        if step <= end or i == len(phases) - 1:
            pct = (step - start) / (end - start)
            return anneal_fn(lr0, lr1, pct), anneal_fn(m0, m1, pct)
        start = end


@pytest.mark.parametrize("kw", [
    dict(total_steps=10),
    dict(total_steps=12, anneal_strategy="linear"),
    dict(total_steps=20, three_phase=True, pct_start=0.25),
    dict(total_steps=16, three_phase=True, anneal_strategy="linear", div_factor=10.0, final_div_factor=100.0),
    dict(epochs=3, steps_per_epoch=4, base_momentum=0.7, max_momentum=0.9),
])
def test_one_cycle_with_sgd_momentum(kw):
    total = kw.get("total_steps") or kw["epochs"] * kw["steps_per_epoch"]
    opt = two_groups(momentum=0.9)
    s = sched.OneCycleLR(opt, max_lr=[1.0, 0.3], **kw)
    ref_kw = dict(pct_start=kw.get("pct_start", 0.3), anneal=kw.get("anneal_strategy", "cos"),
                  div=kw.get("div_factor", 25.0), final_div=kw.get("final_div_factor", 1e4),
                  three=kw.get("three_phase", False), base_m=kw.get("base_momentum", 0.85),
                  max_m=kw.get("max_momentum", 0.95))
    for step in range(total):
        for group, max_lr in zip(opt.param_groups, (1.0, 0.3)):
            lr, m = one_cycle_reference(step, total, max_lr, **ref_kw)
            assert group["lr"] == pytest.approx(lr, rel=1e-12, abs=1e-15)
            assert group["momentum"] == pytest.approx(m, rel=1e-12)
        opt.step()
        s.step()
    g = opt.param_groups[0]
    assert (g["initial_lr"], g["max_lr"]) == (1.0 / ref_kw["div"], 1.0)
    assert g["min_lr"] == pytest.approx(1.0 / ref_kw["div"] / ref_kw["final_div"], rel=1e-15)
    with pytest.raises(ValueError, match=f"Tried to step {total + 1} times. The specified number of total "
                                         f"steps is {total}"):
        s.step()


def test_one_cycle_cycles_adams_beta1_and_keeps_beta2():
    opt = optim.Adam([nn.Parameter(nbgrad.zeros(2))], lr=0.1, betas=(0.5, 0.777))
    s = sched.OneCycleLR(opt, max_lr=0.01, total_steps=8, base_momentum=0.8, max_momentum=0.9)
    for step in range(8):
        lr, m = one_cycle_reference(step, 8, 0.01, base_m=0.8, max_m=0.9)
        g = opt.param_groups[0]
        assert g["lr"] == pytest.approx(lr, rel=1e-12) and g["betas"][0] == pytest.approx(m, rel=1e-12)
        assert g["betas"][1] == 0.777 and "momentum" not in g
        s.step()


def test_one_cycle_without_momentum_cycling_and_errors():
    opt = two_groups()
    s = sched.OneCycleLR(opt, max_lr=1.0, total_steps=5, cycle_momentum=False)
    assert opt.param_groups[0]["momentum"] == 0 and "max_momentum" not in opt.param_groups[0]
    s.step()
    assert opt.param_groups[0]["momentum"] == 0
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        sched.OneCycleLR(two_groups(), max_lr=1.0)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        sched.OneCycleLR(two_groups(), max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 1.5"):
        sched.OneCycleLR(two_groups(), max_lr=1.0, total_steps=5, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        sched.OneCycleLR(two_groups(), max_lr=1.0, total_steps=5, anneal_strategy="exp")
    with pytest.raises(ValueError, match="max_lr must have the same length as optimizer.param_groups"):
        sched.OneCycleLR(two_groups(), max_lr=[1.0], total_steps=5)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        sched.OneCycleLR(optim.Adagrad([nn.Parameter(nbgrad.zeros(1))]), max_lr=1.0, total_steps=5)


# -- ReduceLROnPlateau ------------------------------------------------------------------------
def plateau_reference(metrics, lr, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                      cooldown=0, min_lr=0.0, eps=1e-8):
    """The documented rule: a metric is an improvement when better than best by threshold (rel: best*(1 -+ t),
    abs: best -+ t); after more than `patience` non-improving steps outside cooldown, lr = max(lr*factor,
    min_lr) if that changes it by more than eps, then `cooldown` steps during which bad steps are not counted."""
    best = math.inf if mode == "min" else -math.inf
    bad = cool = 0
    out = []
    for x in metrics:
        if mode == "min":
            better = x < (best * (1 - threshold) if threshold_mode == "rel" else best - threshold)
        else:
            better = x > (best * (1 + threshold) if threshold_mode == "rel" else best + threshold)
        if better:
            best, bad = x, 0
        else:
            bad += 1
        if cool > 0:
            cool -= 1
            bad = 0
        if bad > patience:
            new = max(lr * factor, min_lr)
            if lr - new > eps:
                lr = new
            cool, bad = cooldown, 0
        out.append(lr)
    return out


METRICS = [5.0, 4.0, 4.0, 4.0, 4.0, 3.9999, 3.9, 3.9, 3.9, 3.9, 3.9, 3.9, 3.9, 3.9, 3.9, 3.9]


@pytest.mark.parametrize("kw", [
    dict(patience=2),
    dict(patience=2, factor=0.5, cooldown=2),
    dict(patience=1, threshold=0.05, threshold_mode="abs", min_lr=0.02),
    dict(patience=0, factor=0.5, min_lr=0.03, eps=0.02),          # the last cut is smaller than eps: skipped
    dict(mode="max", patience=1, threshold=0.1),
    dict(mode="max", patience=1, threshold=0.5, threshold_mode="abs", cooldown=1),
])
def test_reduce_lr_on_plateau_follows_the_documented_rule(kw):
    metrics = METRICS if kw.get("mode") != "max" else [10 - m for m in METRICS]
    opt = optim.SGD([nn.Parameter(nbgrad.zeros(1))], lr=0.1)
    s = sched.ReduceLROnPlateau(opt, **kw)
    seen = []
    for m in metrics:
        s.step(nbgrad.tensor(m))               # a 0-dim tensor metric, as PyTorch allows
        seen.append(opt.param_groups[0]["lr"])
        assert s.get_last_lr() == [seen[-1]]
    assert seen == plateau_reference(metrics, 0.1, **kw)
    assert len(set(seen)) > 1                  # every case reduces at least once


def test_reduce_lr_on_plateau_worked_example():
    # patience 2: the third bad step in a row cuts the lr; cooldown 1 ignores the next bad step
    opt = optim.SGD([nn.Parameter(nbgrad.zeros(1))], lr=1.0)
    s = sched.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1)
    seen = []
    for m in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]:
        s.step(m)
        seen.append(opt.param_groups[0]["lr"])
    assert seen == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    assert (s.best, s.num_bad_epochs, s.cooldown_counter, s.last_epoch) == (0.5, 1, 0, 10)


def test_reduce_lr_on_plateau_min_lrs_per_group_state_dict_and_errors():
    opt = two_groups()
    s = sched.ReduceLROnPlateau(opt, patience=0, min_lr=[0.05, 0.2])
    s.step(1.0)
    s.step(2.0)
    assert lrs(opt) == [0.05, 0.2]
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["best"] == 1.0 and sd["min_lrs"] == [0.05, 0.2]
    s2 = sched.ReduceLROnPlateau(two_groups(), mode="max")
    s2.load_state_dict(sd)
    assert s2.mode == "min" and s2.mode_worse == math.inf and s2.best == 1.0
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        sched.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        sched.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="threshold mode x is unknown!"):
        sched.ReduceLROnPlateau(opt, threshold_mode="x")
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        sched.ReduceLROnPlateau(opt, min_lr=[0.1])
    opt.add_param_group({"params": [nn.Parameter(nbgrad.zeros(1))], "lr": 1.0})
    with pytest.raises(RuntimeError, match="The number of param groups in the `optimizer` \\(3\\) differs"):
        s.step(3.0)
