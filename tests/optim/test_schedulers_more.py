"""MultiStepLR, ExponentialLR, ConstantLR, LinearLR, PolynomialLR, MultiplicativeLR,
CosineAnnealingWarmRestarts, SequentialLR and ChainedScheduler: against the closed forms of
PyTorch's documentation, and bit for bit against sequences recorded from torch 2.13 (the
chainable per-step formulas round as PyTorch's)."""
import math

import pytest

import nbgrad

nn, optim = nbgrad.nn, nbgrad.optim
sched = optim.lr_scheduler


def one_group(lr=0.1):
    return optim.SGD([nn.Parameter(nbgrad.zeros(1))], lr=lr)


def run(make, n=8, lr=0.1):
    opt = one_group(lr)
    s = make(opt)
    seen = [opt.param_groups[0]["lr"]]
    for _ in range(n):
        opt.step()
        s.step()
        seen.append(opt.param_groups[0]["lr"])
        assert s.get_last_lr() == [seen[-1]]
    return seen


def close(seen, expected):
    assert len(seen) == len(expected)
    for a, b in zip(seen, expected):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)


def test_closed_forms():
    close(run(lambda o: sched.MultiStepLR(o, [2, 5, 5], 0.5)),
          [0.1 * 0.5 ** (int(e >= 2) + 2 * int(e >= 5)) for e in range(9)])
    close(run(lambda o: sched.ExponentialLR(o, 0.9)), [0.1 * 0.9 ** e for e in range(9)])
    close(run(lambda o: sched.ConstantLR(o, 0.5, 3)), [0.05 if e < 3 else 0.1 for e in range(9)])
    close(run(lambda o: sched.LinearLR(o, 0.25, 1.0, 4)), [0.1 * (0.25 + 0.75 * min(e, 4) / 4) for e in range(9)])
    close(run(lambda o: sched.PolynomialLR(o, 5, 2.0)), [0.1 * (1 - min(e, 5) / 5) ** 2 for e in range(9)])
    close(run(lambda o: sched.MultiplicativeLR(o, lambda e: 0.8)), [0.1 * 0.8 ** e for e in range(9)])
    # warm restarts: T_0 = 2, T_mult = 2: periods of 2, 4, 8 steps
    t_cur = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3]
    t_i = [2, 2, 4, 4, 4, 4, 8, 8, 8, 8]
    close(run(lambda o: sched.CosineAnnealingWarmRestarts(o, 2, 2, 0.001), 9),
          [0.001 + 0.099 * (1 + math.cos(math.pi * c / i)) / 2 for c, i in zip(t_cur, t_i)])


def test_sequences_recorded_from_pytorch():
    assert run(lambda o: sched.LinearLR(o, 0.25, 1.0, 4)) == [
        0.025, 0.043750000000000004, 0.06250000000000001, 0.08125000000000002, 0.10000000000000002,
        0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002]
    assert run(lambda o: sched.PolynomialLR(o, 5, 2.0)) == [
        0.1, 0.06400000000000002, 0.036000000000000004, 0.016000000000000004, 0.003999999999999999, 0.0, 0.0, 0.0,
        0.0]
    assert run(lambda o: sched.CosineAnnealingWarmRestarts(o, 2, 2, 0.001), 9) == [
        0.1, 0.0505, 0.1, 0.0855017856687341, 0.0505, 0.0154982143312659, 0.1, 0.0962320368593087,
        0.0855017856687341, 0.06944282990207196]
    assert run(lambda o: sched.SequentialLR(o, [sched.LinearLR(o, 0.1, 1.0, 3), sched.ExponentialLR(o, 0.5)],
                                            [3])) == [
        0.010000000000000002, 0.04, 0.07, 0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]
    assert run(lambda o: sched.ChainedScheduler([sched.ConstantLR(o, 0.5, 3), sched.ExponentialLR(o, 0.9)]), 5) == [
        0.05, 0.045000000000000005, 0.04050000000000001, 0.07290000000000002, 0.06561000000000002,
        0.05904900000000002]


def test_step_with_an_epoch_takes_the_closed_form():
    opt = one_group()
    s = sched.MultiStepLR(opt, [2, 4], 0.1)
    s.step(5)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.001, rel=1e-12)
    opt = one_group()
    s = sched.CosineAnnealingWarmRestarts(opt, 3, 2)
    s.step(4)      # in the second period (length 6), one step in
    assert (s.T_i, s.T_cur) == (6, 1) and s.last_epoch == 4
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        s.step(-1)


def test_state_dicts_round_trip():
    opt = one_group()
    a = sched.SequentialLR(opt, [sched.ConstantLR(opt, 0.5, 2), sched.ExponentialLR(opt, 0.9)], [2])
    for _ in range(3):
        a.step()
    state = a.state_dict()
    assert "optimizer" not in state and len(state["_schedulers"]) == 2
    opt2 = one_group()
    b = sched.SequentialLR(opt2, [sched.ConstantLR(opt2, 0.5, 2), sched.ExponentialLR(opt2, 0.9)], [2])
    b.load_state_dict(state)
    assert b.last_epoch == a.last_epoch and b._schedulers[1].last_epoch == a._schedulers[1].last_epoch


@pytest.mark.parametrize("make, exc, message", [
    (lambda o: sched.ConstantLR(o, 1.5), ValueError, "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda o: sched.LinearLR(o, 0.0), ValueError,
     "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
    (lambda o: sched.LinearLR(o, 0.5, 1.5), ValueError, "Ending multiplicative factor expected to be between 0 and 1."),
    (lambda o: sched.CosineAnnealingWarmRestarts(o, 0), ValueError, "Expected positive integer T_0, but got 0"),
    (lambda o: sched.CosineAnnealingWarmRestarts(o, 2, 0), ValueError, "Expected integer T_mult >= 1, but got 0"),
    (lambda o: sched.MultiplicativeLR(o, 0.5), TypeError, "lr_lambda should be a function, but got float"),
    (lambda o: sched.SequentialLR(o, [], []), ValueError,
     "SequentialLR expects at least one scheduler, but got no scheduler."),
    (lambda o: sched.SequentialLR(o, [sched.ExponentialLR(o, 0.9)], [1]), ValueError,
     "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
     "points, but got number of schedulers 1 and the number of milestones to be equal to 1"),
    (lambda o: sched.ChainedScheduler([sched.ExponentialLR(o, 0.9), sched.ReduceLROnPlateau(o)]), ValueError,
     "ChainedScheduler does not support `ReduceLROnPlateau` scheduler"),
])
def test_errors_are_pytorchs(make, exc, message):
    with pytest.raises(exc) as info:
        make(one_group())
    assert str(info.value).startswith(message)
