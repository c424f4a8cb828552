"""nbgrad.autocast / nbgrad.amp.GradScaler against PyTorch 2.13's recorded behaviour (CPU)."""
import pickle
import warnings

import pytest

import nbgrad

F = nbgrad.nn.functional


def _names(node):
    return [n[0].name() if n[0] is not None else None for n in node.next_functions]


def _leaves():
    nbgrad.manual_seed(0)
    x = nbgrad.randn(3, 4, requires_grad=True)
    w1 = nbgrad.randn(5, 4, requires_grad=True)
    b1 = nbgrad.randn(5, requires_grad=True)
    w2 = nbgrad.randn(2, 5, requires_grad=True)
    return x, w1, b1, w2


def test_default_state_and_dtypes():
    assert nbgrad.get_autocast_dtype("cpu") is nbgrad.bfloat16
    assert nbgrad.get_autocast_dtype("cuda") is nbgrad.float16
    assert not nbgrad.is_autocast_enabled("cpu") and not nbgrad.is_autocast_enabled()
    with nbgrad.autocast("cpu"):
        assert nbgrad.is_autocast_enabled("cpu")
        assert not nbgrad.is_autocast_enabled()      # no argument: cuda
        with nbgrad.autocast("cpu", enabled=False):
            assert not nbgrad.is_autocast_enabled("cpu")
        assert nbgrad.is_autocast_enabled("cpu")
    assert not nbgrad.is_autocast_enabled("cpu")


def test_mlp_forward_dtypes_and_grad_fns():
    x, w1, b1, w2 = _leaves()
    with nbgrad.autocast(device_type="cpu"):
        h = F.linear(x, w1, b1)
        assert h.dtype is nbgrad.bfloat16 and h.grad_fn.name() == "AddmmBackward0"
        assert _names(h.grad_fn)[:2] == ["ToCopyBackward0", "ToCopyBackward0"]
        r = nbgrad.relu(h)
        assert r.dtype is nbgrad.bfloat16 and r.grad_fn.name() == "ReluBackward0"
        o = F.linear(r, w2)
        assert o.dtype is nbgrad.bfloat16 and o.grad_fn.name() == "MmBackward0"
        y = x @ w1.t()
        assert y.dtype is nbgrad.bfloat16 and y.grad_fn.name() == "MmBackward0"
        assert _names(y.grad_fn) == ["ToCopyBackward0", "ToCopyBackward0"]
        # ops off the list keep their dtype; mixed elementwise promotes as usual (0-dim float32)
        assert (r + x.sum()).dtype is nbgrad.bfloat16
        assert (r + x[:, :1]).dtype is nbgrad.float32
        assert nbgrad.softmax(h, 1).dtype is nbgrad.bfloat16
        assert nbgrad.mv(x, nbgrad.ones(4)).dtype is nbgrad.float32
        assert nbgrad.dot(nbgrad.ones(4), nbgrad.ones(4)).dtype is nbgrad.float32
        # float64 and integer inputs are not cast; float16 ones are
        assert (x.double() @ x.double().t()).dtype is nbgrad.float64
        assert nbgrad.mm(nbgrad.ones(2, 2, dtype=nbgrad.int64), nbgrad.ones(2, 2, dtype=nbgrad.int64)).dtype \
            is nbgrad.int64
        assert (x.half() @ w1.t().half()).dtype is nbgrad.bfloat16
        assert x.mm(w1.t()).dtype is nbgrad.bfloat16
        with nbgrad.autocast("cpu", enabled=False):
            assert (x @ w1.t()).dtype is nbgrad.float32
        assert (x @ w1.t()).dtype is nbgrad.bfloat16
    assert (x @ w1.t()).dtype is nbgrad.float32
    with nbgrad.autocast("cpu", dtype=nbgrad.float16):
        assert (x @ w1.t()).dtype is nbgrad.float16


def test_other_listed_ops():
    a, b3, c3 = nbgrad.randn(3, 3), nbgrad.randn(2, 3, 3), nbgrad.randn(2, 3, 3)
    with nbgrad.autocast("cpu"):
        assert nbgrad.addmm(nbgrad.randn(3), a, a).dtype is nbgrad.bfloat16
        assert nbgrad.baddbmm(b3, b3, c3).dtype is nbgrad.bfloat16
        assert nbgrad.addbmm(a, b3, c3).dtype is nbgrad.bfloat16
        assert nbgrad.bmm(b3, c3).dtype is nbgrad.bfloat16
        assert F.conv2d(nbgrad.randn(1, 1, 4, 4), nbgrad.randn(1, 1, 2, 2), nbgrad.randn(1)).dtype is nbgrad.bfloat16
        assert F.conv1d(nbgrad.randn(1, 1, 4), nbgrad.randn(1, 1, 2)).dtype is nbgrad.bfloat16
        assert F.conv_transpose1d(nbgrad.randn(1, 1, 4), nbgrad.randn(1, 1, 2)).dtype is nbgrad.bfloat16
        assert F.prelu(nbgrad.randn(2, 3), nbgrad.randn(1)).dtype is nbgrad.bfloat16


def test_gradients_reach_float32_leaves_as_with_manual_casts():
    x, w1, b1, w2 = _leaves()
    with nbgrad.autocast("cpu"):
        out = F.linear(nbgrad.relu(F.linear(x, w1, b1)), w2)
        loss = (out.float() ** 2).sum()
    loss.backward()
    got = [t.grad for t in (x, w1, b1, w2)]
    assert all(g.dtype is nbgrad.float32 for g in got)
    for t in (x, w1, b1, w2):
        t.grad = None
    bf = nbgrad.bfloat16
    ref_out = F.linear(nbgrad.relu(F.linear(x.to(bf), w1.to(bf), b1.to(bf))), w2.to(bf))
    ref_loss = (ref_out.float() ** 2).sum()
    ref_loss.backward()
    assert loss.item() == ref_loss.item()
    for g, t in zip(got, (x, w1, b1, w2)):
        assert nbgrad.equal(g, t.grad)
    # and close to the float32 gradients (bfloat16 rounding)
    for t in (x, w1, b1, w2):
        t.grad = None
    ((F.linear(nbgrad.relu(F.linear(x, w1, b1)), w2)) ** 2).sum().backward()
    for g, t in zip(got, (x, w1, b1, w2)):
        assert nbgrad.allclose(g, t.grad, rtol=0.05, atol=0.1)


def test_weight_cast_cached_within_region():
    x, w1, b1, _ = _leaves()
    with nbgrad.autocast("cpu"):
        a = F.linear(x, w1, b1)
        b = F.linear(x, w1, b1)
        # x and w1 are leaves that require grad: cast once per region, as PyTorch's cache
        assert a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0]
    with nbgrad.autocast("cpu", cache_enabled=False):
        a = F.linear(x, w1, b1)
        b = F.linear(x, w1, b1)
        assert a.grad_fn.next_functions[1][0] is not b.grad_fn.next_functions[1][0]


def test_decorator_and_set_functions():
    @nbgrad.autocast("cpu")
    def f(a, b):
        return a @ b
    assert f(nbgrad.ones(2, 2), nbgrad.ones(2, 2)).dtype is nbgrad.bfloat16
    assert not nbgrad.is_autocast_enabled("cpu")
    nbgrad.set_autocast_enabled("cpu", True)
    try:
        assert (nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)).dtype is nbgrad.bfloat16
    finally:
        nbgrad.set_autocast_enabled("cpu", False)
    nbgrad.set_autocast_dtype("cpu", nbgrad.float16)
    try:
        assert nbgrad.get_autocast_dtype("cpu") is nbgrad.float16
    finally:
        nbgrad.set_autocast_dtype("cpu", nbgrad.bfloat16)


@pytest.mark.parametrize("dt", ["float32", "float64", "int32"])
def test_unsupported_cpu_dtype_warns_and_disables(dt):
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported. Disabling autocast."):
        with nbgrad.autocast("cpu", dtype=getattr(nbgrad, dt)):
            assert not nbgrad.is_autocast_enabled("cpu")
            assert (nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)).dtype is nbgrad.float32


def test_device_type_errors():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        nbgrad.autocast(1)
    with pytest.raises(RuntimeError):
        nbgrad.autocast("xla2")
    with pytest.raises(RuntimeError, match="device string: foo"):
        nbgrad.is_autocast_enabled("foo")
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        with nbgrad.autocast("cuda"):
            assert not nbgrad.is_autocast_enabled("cuda")


# ---- GradScaler ----------------------------------------------------------------------------

def _scaler_run():
    p = nbgrad.nn.Parameter(nbgrad.tensor([1.0, 2.0]))
    opt = nbgrad.optim.SGD([p], lr=0.1)
    s = nbgrad.amp.GradScaler("cpu", init_scale=4.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
    assert s.get_scale() == 4.0
    seq = []
    for bad in [0, 0, 1, 0, 2, 0, 0, 0]:
        opt.zero_grad()
        loss = (p * nbgrad.tensor([3.0, 5.0])).sum()
        if bad:
            loss = loss * (float("inf") if bad == 1 else float("nan"))
        s.scale(loss).backward()
        g = p.grad.clone()
        s.step(opt)
        seq.append((s.get_scale(), s._get_growth_tracker(), p.detach().tolist(), g.tolist()))
        s.update()
        seq[-1] += (s.get_scale(), s._get_growth_tracker())
    return s, seq


def test_grad_scaler_sequence_matches_pytorch():
    nan, inf = float("nan"), float("inf")
    s, seq = _scaler_run()
    expected = [  # recorded with torch.amp.GradScaler("cpu", init_scale=4., growth_interval=2)
        (4.0, 0, [0.699999988079071, 1.5], [12.0, 20.0], 4.0, 1),
        (4.0, 1, [0.3999999761581421, 1.0], [12.0, 20.0], 8.0, 0),
        (8.0, 0, [0.3999999761581421, 1.0], [inf, inf], 4.0, 0),
        (4.0, 0, [0.09999997168779373, 0.5], [12.0, 20.0], 4.0, 1),
        (4.0, 1, [0.09999997168779373, 0.5], [nan, nan], 2.0, 0),
        (2.0, 0, [-0.20000003278255463, -7.450580596923828e-09], [6.0, 10.0], 2.0, 1),
        (2.0, 1, [-0.5000000596046448, -0.5], [6.0, 10.0], 4.0, 0),
        (4.0, 0, [-0.8000000715255737, -1.0], [12.0, 20.0], 4.0, 1),
    ]
    assert len(seq) == len(expected)
    for got, want in zip(seq, expected):
        assert got[:2] == want[:2] and got[4:] == want[4:]
        assert got[2] == pytest.approx(want[2], abs=1e-7)
        assert got[3] == pytest.approx(want[3], nan_ok=True)
    sd = s.state_dict()
    assert sd == {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                  "_growth_tracker": 1}
    s2 = nbgrad.amp.GradScaler("cpu")
    s2.load_state_dict(sd)
    assert s2.state_dict() == sd and s2.get_scale() == 4.0
    s3 = pickle.loads(pickle.dumps(s))
    assert s3.get_scale() == 4.0 and s3._scale is None and s3.state_dict() == sd


def test_grad_scaler_scale_unscale_and_errors():
    p = nbgrad.nn.Parameter(nbgrad.tensor([1.0, 2.0]))
    opt = nbgrad.optim.SGD([p], lr=0.1)
    s = nbgrad.amp.GradScaler("cpu")
    fix = "This may indicate your script did not use scaler.scale"
    for f, name in ((lambda: s.unscale_(opt), "unscale_"), (lambda: s.step(opt), "step"), (s.update, "update")):
        with pytest.raises(AssertionError, match=f"Attempted {name} but _scale is None.  {fix}"):
            f()
    assert s.scale(nbgrad.tensor(2.0)).item() == 131072.0
    assert s._scale.dtype is nbgrad.float32 and s._growth_tracker.dtype is nbgrad.int32
    s.scale((p ** 2).sum()).backward()
    s.unscale_(opt)
    assert p.grad.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the "
                       r"last update\(\)\."):
        s.unscale_(opt)
    s.step(opt)
    assert p.detach().tolist() == pytest.approx([0.8, 1.6])
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        s.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        s.step(opt, closure=None)
    s.update()
    s.update(8.0)
    assert s.get_scale() == 8.0
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
        s.update()
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        nbgrad.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
        nbgrad.amp.GradScaler("cpu", backoff_factor=1.0)
    r = s.scale([nbgrad.tensor(1.0), (nbgrad.tensor(2.0), nbgrad.tensor(3.0))])
    assert r[0].item() == 8.0 and isinstance(r[1], tuple) and [t.item() for t in r[1]] == [16.0, 24.0]
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        nbgrad.amp.GradScaler("cpu").load_state_dict({})
    p.grad = None
    p16 = nbgrad.nn.Parameter(nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float16))
    p16.grad = nbgrad.tensor([1.0, 2.0], dtype=nbgrad.float16)
    opt16 = nbgrad.optim.SGD([p16], lr=0.1)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(opt16)


def test_grad_scaler_disabled():
    d = nbgrad.amp.GradScaler("cpu", enabled=False)
    t = nbgrad.tensor(3.0)
    assert d.get_scale() == 1.0 and d.state_dict() == {} and not d.is_enabled() and d.scale(t) is t
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        c = nbgrad.amp.GradScaler()
    assert not c.is_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nbgrad.amp.GradScaler("cpu").get_scale() == 65536.0


def test_float32_list_losses_run_in_float32_under_autocast():
    """PyTorch's CPU autocast runs its float32-list ops (the losses) in float32: a bfloat16
    input is cast (ToCopyBackward0 under the loss's nodes) and the loss is float32; ops on
    neither list keep their input's dtype.  Recorded from PyTorch 2.13."""
    F = nbgrad.nn.functional
    x = nbgrad.randn(4, 5, dtype=nbgrad.bfloat16, requires_grad=True)
    y = nbgrad.tensor([1, 0, 2, 4])
    other = x.detach() * 2
    with nbgrad.autocast("cpu"):
        losses = {"cross_entropy": F.cross_entropy(x, y), "nll_loss": F.nll_loss(x, y),
                  "mse_loss": F.mse_loss(x, other), "l1_loss": F.l1_loss(x, other),
                  "smooth_l1_loss": F.smooth_l1_loss(x, other), "huber_loss": F.huber_loss(x, other),
                  "kl_div": F.kl_div(x, other, reduction="sum"),
                  "binary_cross_entropy_with_logits": F.binary_cross_entropy_with_logits(x, nbgrad.rand(4, 5))}
        kept = [nbgrad.softmax(x, 1), F.log_softmax(x, 1), x.sum(), F.layer_norm(x, (5,))]
        loss = losses["cross_entropy"]
    assert {k: v.dtype for k, v in losses.items()} == {k: nbgrad.float32 for k in losses}
    assert [t.dtype for t in kept] == [nbgrad.bfloat16] * 4
    chain, node = [], loss.grad_fn
    while node is not None and node.next_functions:
        chain.append(node.name())
        node = node.next_functions[0][0]
    assert chain == ["NllLossBackward0", "LogSoftmaxBackward0", "ToCopyBackward0"]
    loss.backward()
    assert x.grad.dtype == nbgrad.bfloat16
    with nbgrad.autocast("cpu", enabled=False):
        assert F.mse_loss(x, other).dtype == nbgrad.bfloat16
