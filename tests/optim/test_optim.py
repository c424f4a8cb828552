"""Optimizers against a float32 NumPy transcription of PyTorch's single-tensor update formulas
(and against PyTorch itself when it is installed); state dicts; schedulers."""
import copy
import math

import numpy as np
import pytest

import nbgrad
nn, optim = nbgrad.nn, nbgrad.optim

f32 = np.float32


def sgd_reference(p, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    p = p.copy()
    buf = None
    for g in grads:
        g = -g if maximize else g.copy()
        if weight_decay:
            g = g + f32(weight_decay) * p
        if momentum:
            if buf is None:
                buf = g.copy()
            else:
                buf = buf * f32(momentum)
                buf = buf + f32(1 - dampening) * g
            g = g + f32(momentum) * buf if nesterov else buf
        p = p + f32(-lr) * g
    return p, buf


def adam_reference(p, grads, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, adamw=False,
                   maximize=False):
    p = p.copy()
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    b1, b2 = betas
    for step, g in enumerate(grads, 1):
        g = -g if maximize else g.copy()
        if adamw:
            p = p * f32(1 - lr * weight_decay)
        elif weight_decay:
            g = g + f32(weight_decay) * p
        m = m + f32(1 - b1) * (g - m)            # lerp with weight < 0.5
        v = v * f32(b2)
        v = v + f32(1 - b2) * g * g
        bc1 = 1 - b1 ** step
        bc2_sqrt = (1 - b2 ** step) ** 0.5
        if amsgrad:
            vmax = np.maximum(vmax, v)
            denom = np.sqrt(vmax) / f32(bc2_sqrt) + f32(eps)
        else:
            denom = np.sqrt(v) / f32(bc2_sqrt) + f32(eps)
        p = p + f32(-lr / bc1) * (m / denom)
    return p, m, v


def run(opt_cls, p0, grads, **kw):
    p = nn.Parameter(nbgrad.tensor(p0))
    opt = opt_cls([p], **kw)
    for g in grads:
        p.grad = nbgrad.tensor(g)
        opt.step()
    return p, opt


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    p0 = rng.normal(size=(5, 7)).astype(np.float32)
    grads = [rng.normal(size=(5, 7)).astype(np.float32) for _ in range(4)]
    return p0, grads


def close_f32(a, b):
    # "to float32 rounding": a few ulps (PyTorch's vectorised kernels may fuse multiply-adds)
    np.testing.assert_allclose(a, b, rtol=4e-7, atol=5e-7)


@pytest.mark.parametrize("kw", [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
    dict(lr=0.05, momentum=0.5, maximize=True),
])
def test_sgd_matches_reference(data, kw):
    p0, grads = data
    p, opt = run(optim.SGD, p0, grads, **kw)
    ref, buf = sgd_reference(p0, grads, **kw)
    close_f32(p.detach().numpy(), ref)
    if kw.get("momentum"):
        close_f32(opt.state[p]["momentum_buffer"].numpy(), buf)
    else:
        assert "momentum_buffer" not in opt.state[p]
    # one step alone is exact to rounding too
    p1, _ = run(optim.SGD, p0, grads[:1], **kw)
    close_f32(p1.detach().numpy(), sgd_reference(p0, grads[:1], **kw)[0])


@pytest.mark.parametrize("cls,kw", [
    (optim.Adam, dict(lr=0.01)),
    (optim.Adam, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    (optim.Adam, dict(lr=0.01, amsgrad=True)),
    (optim.Adam, dict(lr=0.01, maximize=True, eps=1e-6)),
    (optim.AdamW, dict(lr=0.01, weight_decay=0.1)),
    (optim.AdamW, dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
])
def test_adam_matches_reference(data, cls, kw):
    p0, grads = data
    p, opt = run(cls, p0, grads, **kw)
    ref_kw = dict(kw)
    adamw = cls is optim.AdamW
    ref, m, v = adam_reference(p0, grads, adamw=adamw, **ref_kw)
    close_f32(p.detach().numpy(), ref)
    st = opt.state[p]
    close_f32(st["exp_avg"].numpy(), m)
    close_f32(st["exp_avg_sq"].numpy(), v)
    assert st["step"].item() == len(grads) and st["step"].dtype == nbgrad.float32
    assert ("max_exp_avg_sq" in st) == bool(kw.get("amsgrad"))
    p1, _ = run(cls, p0, grads[:1], **kw)
    close_f32(p1.detach().numpy(), adam_reference(p0, grads[:1], adamw=adamw, **ref_kw)[0])


@pytest.mark.parametrize("name,kw", [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.01)),
    ("AdamW", dict(lr=0.01)),
])
def test_optimizers_agree_with_torch_if_installed(data, name, kw):
    torch = pytest.importorskip("torch", reason="PyTorch not installed")
    p0, grads = data
    p, _ = run(getattr(optim, name), p0, grads, **kw)
    tp = torch.nn.Parameter(torch.tensor(p0))
    topt = getattr(torch.optim, name)([tp], foreach=False, **kw)
    for g in grads:
        tp.grad = torch.tensor(g)
        topt.step()
    close_f32(p.detach().numpy(), tp.detach().numpy())


def test_step_is_in_place_and_bumps_the_version(data):
    p0, grads = data
    p = nn.Parameter(nbgrad.tensor(p0))
    ptr, version = p.data_ptr(), p._version
    x = nbgrad.ones(7, requires_grad=True)
    y = (p * x).sum()           # saves p for backward
    opt = optim.SGD([p], lr=0.1)
    p.grad = nbgrad.tensor(grads[0])
    opt.step()
    assert p.data_ptr() == ptr and p._version == version + 1
    assert p.is_leaf and p.requires_grad
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_params_without_grad_are_skipped_and_zero_grad(data):
    p0, grads = data
    a = nn.Parameter(nbgrad.tensor(p0))
    b = nn.Parameter(nbgrad.tensor(p0))
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = nbgrad.tensor(grads[0])
    opt.step()
    np.testing.assert_array_equal(b.detach().numpy(), p0)
    assert b not in opt.state
    opt.zero_grad()
    assert a.grad is None
    a.grad = nbgrad.tensor(grads[0])
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad.numpy(), 0)


def test_non_contiguous_parameter(data):
    p0, grads = data
    base = nbgrad.tensor(p0.T.copy()).t()     # a transposed (non-contiguous) leaf
    p = nn.Parameter(base)
    assert not p.is_contiguous()
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    for g in grads:
        p.grad = nbgrad.tensor(g)
        opt.step()
    close_f32(p.detach().numpy(), sgd_reference(p0, grads, lr=0.1, momentum=0.9)[0])


def test_param_groups_and_state_dict_layout(data):
    p0, grads = data
    a, b, c = (nn.Parameter(nbgrad.tensor(p0)) for _ in range(3))
    opt = optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    for p in (a, c):
        p.grad = nbgrad.tensor(grads[0])
    opt.step()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert list(sd["state"]) == [0, 2]
    assert set(sd["state"][0]) == {"momentum_buffer"}
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.5 and sd["param_groups"][0]["nesterov"] is False
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)


def test_state_dict_resume_gives_identical_steps(data):
    p0, grads = data
    p, opt = run(optim.Adam, p0, grads[:2], lr=0.01, amsgrad=True)
    q = nn.Parameter(p.detach().clone())
    opt2 = optim.Adam([q], lr=0.5)
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))   # state tensors are shared otherwise, as PyTorch
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.param_groups[0]["params"][0] is q
    for g in grads[2:]:
        p.grad = nbgrad.tensor(g)
        q.grad = nbgrad.tensor(g)
        opt.step()
        opt2.step()
    np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt2.load_state_dict({"state": {}, "param_groups": []})


def test_step_with_closure(data):
    p0, _ = data
    p = nn.Parameter(nbgrad.tensor(p0))
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    np.testing.assert_allclose(loss.item(), (p0.astype(np.float64) ** 2).sum(), rtol=1e-5)
    close_f32(p.detach().numpy(), p0 - f32(0.1) * (2 * p0))


def test_step_lr():
    opt = optim.SGD([nn.Parameter(nbgrad.zeros(1))], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    lrs = []
    for _ in range(8):
        lrs.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
    sd = sched.state_dict()
    assert sd["last_epoch"] == 8 and "optimizer" not in sd


def test_cosine_annealing_lr():
    opt = optim.SGD([nn.Parameter(nbgrad.zeros(1))], lr=0.1)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)
    for epoch in range(25):
        expected = 0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * epoch / 10)) / 2
        assert math.isclose(sched.get_last_lr()[0], expected, rel_tol=1e-9, abs_tol=1e-12)
        assert opt.param_groups[0]["lr"] == sched.get_last_lr()[0]
        opt.step()
        sched.step()


def test_schedulers_agree_with_torch_if_installed():
    torch = pytest.importorskip("torch", reason="PyTorch not installed")
    for name, kw in [("StepLR", dict(step_size=2, gamma=0.3)), ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01))]:
        opt = optim.SGD([nn.Parameter(nbgrad.zeros(1))], lr=0.2)
        topt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.2)
        s = getattr(optim.lr_scheduler, name)(opt, **kw)
        ts = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
        for _ in range(20):
            assert s.get_last_lr() == ts.get_last_lr()
            opt.step()
            topt.step()
            s.step()
            ts.step()


SGD_SETTINGS = [dict(lr=0.1), dict(lr=0.05, momentum=0.9, weight_decay=0.01),
                dict(lr=0.05, momentum=0.8, dampening=0.3, maximize=True),
                dict(lr=0.05, momentum=0.9, nesterov=True)]


def _sgd_twice(dtype, kw, shapes, foreach, steps=3, transposed=()):
    """Parameters of `shapes` trained `steps` steps with the same gradients: (values, versions,
    state_dict) after each step."""
    rng = np.random.default_rng(5)
    params = []
    for i, s in enumerate(shapes):
        a = rng.normal(size=s)
        t = nbgrad.tensor(a.T.copy(), dtype=dtype).t() if i in transposed else nbgrad.tensor(a, dtype=dtype)
        params.append(nn.Parameter(t))
    opt = optim.SGD(params, foreach=foreach, **kw)
    history = []
    for _ in range(steps):
        for p in params:
            p.grad = nbgrad.tensor(rng.normal(size=tuple(p.shape)), dtype=dtype)
        opt.step()
        sd = opt.state_dict()["state"]
        history.append(([p.detach().numpy().copy() for p in params], [p._version for p in params],
                        {k: {n: v.numpy().copy() for n, v in s.items()} for k, s in sd.items()}))
    return history


@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64, nbgrad.float16])
@pytest.mark.parametrize("kw", SGD_SETTINGS)
@pytest.mark.parametrize("shapes, transposed", [
    ([(3,), (4, 5), (2, 2), (7,), (1,), (6, 3), (2,), (5,), (3, 3), (11,)], ()),   # more than a kernel call's worth
    ([(4, 5), (3,)], ()),
    ([(4, 5), (3,), (5, 2)], (2,)),          # a non-contiguous one: the per-parameter path for the group
])
def test_sgd_multi_tensor_step_is_bit_identical_to_the_per_parameter_step(dtype, kw, shapes, transposed):
    # foreach=None takes the multi-tensor kernel where it can, foreach=False the per-parameter one;
    # each element's update is the same, so values, versions and state agree exactly
    multi = _sgd_twice(dtype, kw, shapes, None, transposed=transposed)
    single = _sgd_twice(dtype, kw, shapes, False, transposed=transposed)
    for (vals, vers, state), (vals1, vers1, state1) in zip(multi, single):
        assert vers == vers1
        assert state.keys() == state1.keys()
        for a, b in zip(vals, vals1):
            np.testing.assert_array_equal(a, b)
        for k in state:
            assert state[k].keys() == state1[k].keys()
            for n in state[k]:
                np.testing.assert_array_equal(state[k][n], state1[k][n])


def test_sgd_multi_tensor_step_matches_the_reference_and_bumps_each_version_once(data):
    p0, grads = data
    ps = [nn.Parameter(nbgrad.tensor(p0)) for _ in range(3)]
    opt = optim.SGD(ps, lr=0.1, momentum=0.9)
    for step, g in enumerate(grads, 1):
        for p in ps:
            p.grad = nbgrad.tensor(g)
        opt.step()
        assert [p._version for p in ps] == [step] * 3
    ref, buf = sgd_reference(p0, grads, lr=0.1, momentum=0.9)
    for p in ps:
        close_f32(p.detach().numpy(), ref)
        close_f32(opt.state[p]["momentum_buffer"].numpy(), buf)


def test_sgd_multi_tensor_kernel_is_what_runs(monkeypatch):
    from nbgrad.backends.cpu import optim_kernels
    calls = []
    kernel = optim_kernels._sgd_many
    monkeypatch.setattr(optim_kernels, "_sgd_many", lambda *a: calls.append(len(a[0])) or kernel(*a))
    ps = [nn.Parameter(nbgrad.ones(3)) for _ in range(optim_kernels.SGD_GROUP + 1)]
    for p in ps:
        p.grad = nbgrad.ones(3)
    optim.SGD(ps, lr=0.5).step()
    from nbgrad.ops._graph import ACCELERATIONS_ON
    assert calls == ([optim_kernels.SGD_GROUP] * 2 if ACCELERATIONS_ON else [])
    for p in ps:
        np.testing.assert_array_equal(p.detach().numpy(), 0.5)
