"""optim.swa_utils: AveragedModel's running averages (SWA, EMA, per tensor and multi-tensor, with
and without buffers) against PyTorch's recorded float64 values and the analytic averages;
update_bn's cumulative statistics; SWALR's learning rates per step as PyTorch's; errors."""
import math

import pytest

import nbgrad

swa = nbgrad.optim.swa_utils
F64 = nbgrad.float64


def _weights(k):
    return [[k * 0.7, 1.0 / (k + 1), k * k / 3.0]]


def _averaged(steps=5, **kwargs):
    model = nbgrad.nn.Linear(3, 1, bias=False).double()
    avg = swa.AveragedModel(model, **kwargs)
    for k in range(steps):
        with nbgrad.no_grad():
            model.weight.copy_(nbgrad.tensor(_weights(k), dtype=F64))
        avg.update_parameters(model)
    return avg, model


def test_default_is_the_running_mean():
    avg, model = _averaged()
    w = avg.module.weight
    # PyTorch (CPU path: p + (q - p) / (n + 1) per tensor), float64, bit for bit
    assert w.tolist() == [[1.4, 0.45666666666666667, 1.9999999999999998]]
    mean = [sum(_weights(k)[0][j] for k in range(5)) / 5 for j in range(3)]
    assert all(math.isclose(a, b, rel_tol=1e-15) for a, b in zip(w.tolist()[0], mean))
    assert avg.n_averaged.tolist() == 5 and avg.n_averaged.dtype is nbgrad.int64
    assert w.dtype is F64 and w.requires_grad and isinstance(w, nbgrad.nn.Parameter)
    # a deep copy: the averaged weights are not the model's
    assert avg.module is not model and avg.module.weight is not model.weight
    assert model.weight.tolist() == [_weights(4)[0]]


def test_first_update_copies():
    avg, model = _averaged(steps=1, avg_fn=swa.get_ema_avg_fn(0.5))
    assert avg.module.weight.tolist() == _weights(0)
    assert avg.n_averaged.tolist() == 1


def test_swa_multi_avg_fn_weights_as_pytorch():
    # PyTorch's lerp weight 1 / (n + 1) is a float32 tensor when n is the n_averaged buffer
    avg, _ = _averaged(multi_avg_fn=swa.get_swa_multi_avg_fn())
    assert avg.module.weight.tolist() == [[1.400000011473894, 0.45666666322698196, 2.0000000193715093]]


@pytest.mark.parametrize("kind", ["avg_fn", "multi_avg_fn"])
def test_ema(kind):
    fn = swa.get_ema_avg_fn(0.9) if kind == "avg_fn" else swa.get_ema_multi_avg_fn(0.9)
    avg, _ = _averaged(**{kind: fn})
    w = avg.module.weight.tolist()[0]
    assert w == [0.6334299999999998, 0.76205, 0.9356333333333331]   # PyTorch's
    expected = list(_weights(0)[0])
    for k in range(1, 5):
        expected = [0.9 * e + 0.1 * c for e, c in zip(expected, _weights(k)[0])]
    assert all(math.isclose(a, b, rel_tol=1e-14) for a, b in zip(w, expected))


def test_avg_fn_functions_directly():
    a, b = nbgrad.tensor([1.0, 2.0], dtype=F64), nbgrad.tensor([3.0, 6.0], dtype=F64)
    assert swa.get_swa_avg_fn()(a, b, 3).tolist() == [1.5, 3.0]
    assert swa.get_ema_avg_fn(0.75)(a, b, 7).tolist() == [1.5, 3.0]
    lst_a, lst_b = [a.clone(), b.clone()], [b.clone(), a.clone()]
    swa.get_swa_multi_avg_fn()(lst_a, lst_b, 1)
    assert [t.tolist() for t in lst_a] == [[2.0, 4.0], [2.0, 4.0]]
    lst_a = [a.clone()]
    swa.get_ema_multi_avg_fn(0.25)([lst_a[0]], [b], 0)
    assert lst_a[0].tolist() == [2.5, 5.0]


def test_forward_and_state_dict():
    nbgrad.manual_seed(0)
    model = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.BatchNorm1d(3))
    avg = swa.AveragedModel(model, device="cpu")
    x = nbgrad.randn(4, 2)
    model.eval()
    avg.eval()
    assert nbgrad.equal(avg(x), model(x))
    assert list(avg.state_dict()) == ["n_averaged", "module.0.weight", "module.0.bias", "module.1.weight",
                                      "module.1.bias", "module.1.running_mean", "module.1.running_var",
                                      "module.1.num_batches_tracked"]


def _bn_run(**kwargs):
    model = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.BatchNorm1d(3)).double()
    avg = swa.AveragedModel(model, **kwargs)
    for k in range(3):
        with nbgrad.no_grad():
            model[1].running_mean.copy_(nbgrad.tensor([k, 2.0 * k, -k], dtype=F64))
            model[1].num_batches_tracked.fill_(k * 5 + 1)
        avg.update_parameters(model)
    return avg


def test_buffers_copied_or_averaged():
    # use_buffers=False: buffers follow the model's; True: averaged (an int64 buffer truncates
    # each step's float mean when copied back, as PyTorch: 1 -> 3 -> 5)
    plain = _bn_run()
    assert plain.module[1].running_mean.tolist() == [2.0, 4.0, -2.0]
    assert plain.module[1].num_batches_tracked.tolist() == 11
    for kwargs in ({"use_buffers": True}, {"use_buffers": True, "avg_fn": swa.get_swa_avg_fn()}):
        avg = _bn_run(**kwargs)
        assert avg.module[1].running_mean.tolist() == [1.0, 2.0, -1.0]
        assert avg.module[1].num_batches_tracked.tolist() == 5


def test_swa_multi_avg_fn_rejects_integer_buffers_first():
    # the int64 group (num_batches_tracked) is averaged before the float group, as in PyTorch,
    # and addcdiv_ refuses integer division: the float buffers are left as they were
    model = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.BatchNorm1d(3)).double()
    avg = swa.AveragedModel(model, use_buffers=True, multi_avg_fn=swa.get_swa_multi_avg_fn())
    avg.update_parameters(model)
    before = avg.module[1].running_mean.tolist()
    with nbgrad.no_grad():
        model[1].running_mean.fill_(4.0)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        avg.update_parameters(model)
    assert avg.module[1].running_mean.tolist() == before


def test_errors():
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        swa.AveragedModel(nbgrad.nn.Linear(1, 1), avg_fn=swa.get_ema_avg_fn(),
                          multi_avg_fn=swa.get_ema_multi_avg_fn())
    for f in (swa.get_ema_avg_fn, swa.get_ema_multi_avg_fn):
        for d in (-0.1, 1.5):
            with pytest.raises(ValueError, match=rf"Invalid decay value {d} provided. Please provide a value in "
                                                 r"\[0,1\] range."):
                f(d)


def test_update_bn_cumulative_average():
    nbgrad.manual_seed(0)
    model = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.BatchNorm1d(3, momentum=0.3)).double()
    batches = [nbgrad.randn(4, 2, dtype=F64) * (k + 1) + k for k in range(3)]
    with nbgrad.no_grad():
        model[1].running_mean.fill_(7.0)       # reset by update_bn
    model.eval()
    swa.update_bn([(b, 0) for b in batches], model)
    bn = model[1]
    assert model.training is False and bn.training is False and bn.momentum == 0.3
    assert bn.num_batches_tracked.tolist() == 3
    with nbgrad.no_grad():
        hs = [model[0](b) for b in batches]
    mean = sum(h.mean(0) for h in hs) / 3
    var = sum(h.var(0) for h in hs) / 3          # unbiased per batch, as BatchNorm's running_var
    assert nbgrad.allclose(bn.running_mean, mean, rtol=1e-13, atol=1e-14)
    assert nbgrad.allclose(bn.running_var, var, rtol=1e-13, atol=1e-14)
    # plain tensors as batches, and a model in training mode stays in it
    model.train()
    swa.update_bn(batches[:2], model, device="cpu")
    assert model.training and bn.num_batches_tracked.tolist() == 2
    assert nbgrad.allclose(bn.running_mean, sum(h.mean(0) for h in hs[:2]) / 2, rtol=1e-13, atol=1e-14)


def test_update_bn_without_batchnorm_does_nothing():
    model = nbgrad.nn.Linear(2, 1)
    calls = []

    class Loader:
        def __iter__(self):
            calls.append(1)
            return iter([nbgrad.ones(1, 2)])
    swa.update_bn(Loader(), model)
    assert calls == []


def _lrs(swa_lr, n=8, lrs=(0.5,), **kwargs):
    params = [nbgrad.nn.Parameter(nbgrad.zeros(1)) for _ in lrs]
    opt = nbgrad.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)])
    sched = swa.SWALR(opt, swa_lr, **kwargs)
    out = [[g["lr"] for g in opt.param_groups]]
    for _ in range(n):
        opt.step()
        sched.step()
        out.append([g["lr"] for g in opt.param_groups])
    return out, sched, opt


def test_swalr_sequences_as_pytorch():
    assert _lrs(0.05, anneal_epochs=4)[0] == [[0.5], [0.4340990257669732], [0.275], [0.11590097423302682], [0.05],
                                              [0.05], [0.05], [0.05], [0.05]]
    assert _lrs(0.05, anneal_epochs=4, anneal_strategy="linear")[0] == [[0.5], [0.3875], [0.275], [0.1625], [0.05],
                                                                        [0.05], [0.05], [0.05], [0.05]]
    assert _lrs(0.05, anneal_epochs=0)[0] == [[0.05]] * 9
    assert _lrs([0.05, 0.2], lrs=(0.5, 0.1), anneal_epochs=3, n=5)[0] == [
        [0.5, 0.1], [0.3875, 0.125], [0.16250000000000006, 0.17500000000000002], [0.05, 0.2], [0.05, 0.2],
        [0.05, 0.2]]


def test_swalr_state():
    _, sched, opt = _lrs([0.05, 0.2], lrs=(0.5, 0.1), anneal_epochs=3, n=2)
    assert [g["swa_lr"] for g in opt.param_groups] == [0.05, 0.2]
    assert sched.get_last_lr() == [0.16250000000000006, 0.17500000000000002]
    state = sched.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state
    assert state["_anneal_strategy"] == "cos" and state["anneal_epochs"] == 3
    _, other, _ = _lrs(0.1, anneal_strategy="linear", lrs=(0.5, 0.1))
    other.load_state_dict(state)
    assert other.anneal_func(0.5) == pytest.approx(0.5) and other.anneal_func(1 / 3) == pytest.approx(0.25)


@pytest.mark.parametrize("kwargs, msg", [
    (dict(swa_lr=[0.1, 0.2]), "swa_lr must have the same length as optimizer.param_groups. swa_lr has 2 values, "
                              "param_groups has 1."),
    (dict(swa_lr=0.1, anneal_strategy="exp"), "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    (dict(swa_lr=0.1, anneal_epochs=-1), "anneal_epochs must be equal or greater than 0, got -1"),
    (dict(swa_lr=0.1, anneal_epochs=2.0), "anneal_epochs must be equal or greater than 0, got 2.0"),
])
def test_swalr_errors(kwargs, msg):
    opt = nbgrad.optim.SGD([nbgrad.nn.Parameter(nbgrad.zeros(1))], lr=0.5)
    with pytest.raises(ValueError) as info:
        swa.SWALR(opt, **kwargs)
    assert str(info.value) == msg
    assert opt.param_groups[0]["lr"] == 0.5
