"""Muon: trajectories against PyTorch 2.13's recorded values (its Newton-Schulz iteration runs
in bfloat16; nbgrad's reproduces its roundings), the orthogonalised update's properties, the
learning-rate adjustments, the momentum buffer, state_dict round trip and PyTorch's refusals."""
import copy
import re

import numpy as np
import pytest

import nbgrad


def _fixed_inputs():
    params = [np.arange(12).reshape(3, 4) * 0.11 - 0.6, np.arange(10).reshape(5, 2) * -0.13 + 0.4]
    grad_seq = [[np.cos(np.arange(x.size).reshape(x.shape) * 0.7 + 0.3 * t) * (1.0 + 0.5 * t) for x in params]
                for t in range(3)]
    return params, grad_seq


def _run(params, grad_seq, dtype=nbgrad.float32, **kw):
    ps = [nbgrad.tensor(p, dtype=dtype, requires_grad=True) for p in params]
    opt = nbgrad.optim.Muon(ps, **kw)
    for grads in grad_seq:
        for p, g in zip(ps, grads):
            p.grad = nbgrad.tensor(g, dtype=dtype)
        opt.step()
    return ps, opt


_KW_DEFAULT = dict(lr=0.02)
_KW_OTHER = dict(lr=0.1, weight_decay=0.05, momentum=0.8, nesterov=False, adjust_lr_fn="match_rms_adamw", ns_steps=3)

# PyTorch 2.13's parameters (CPU) after 3 steps of _fixed_inputs()
_PYTORCH = [
    ("float32", _KW_DEFAULT,
     [[-0.6175681352615356, -0.4879406690597534, -0.36288145184516907, -0.23301231861114502, -0.13743829727172852,
       -0.0314970538020134, 0.056261636316776276, 0.16759467124938965, 0.2664085030555725, 0.36239656805992126,
       0.46479862928390503, 0.5943272113800049],
      [0.34804052114486694, 0.26901066303253174, 0.10521149635314941, 0.06961262226104736, -0.08111592382192612,
       -0.2289005070924759, -0.3307652175426483, -0.559657633304596, -0.6585264801979065, -0.8027316927909851]]),
    ("float32", _KW_OTHER,
     [[-0.6347836256027222, -0.48804351687431335, -0.3368157744407654, -0.2044612020254135, -0.12216015160083771,
       -0.02170836739242077, 0.0691399797797203, 0.15315474569797516, 0.25497007369995117, 0.33377960324287415,
       0.43780890107154846, 0.5667918920516968],
      [0.33108678460121155, 0.2652851939201355, 0.09344852715730667, 0.08495614677667618, -0.07072410732507706,
       -0.21993346512317657, -0.31351691484451294, -0.5685579180717468, -0.6569730043411255, -0.8078418374061584]]),
    ("float64", _KW_DEFAULT,
     [[-0.6175680123875, -0.4879406119003125, -0.362881425944375, -0.23301226299624997, -0.13743830387625,
       -0.03149705084999993, 0.05626163610203131, 0.16759465731187506, 0.26640850236937497, 0.36239652813000006,
       0.4647986110000001, 0.5943271389481249],
      [0.3480404816430082, 0.2690106465899713, 0.10521148148476762, 0.06961262004209631, -0.08111591910038668,
       -0.22890048051527687, -0.330765155178819, -0.5596576387547387, -0.6585264140561435, -0.8027317169139601]]),
    ("float64", _KW_OTHER,
     [[-0.6347836359375001, -0.48804348074218745, -0.33681574742187503, -0.20446117523437496, -0.12216014796875,
       -0.02170836289062493, 0.06913998859375006, 0.15315474535156254, 0.2549700914648438, 0.33377963093750007,
       0.437808869140625, 0.5667918143749998],
      [0.3310867807876329, 0.2652851600304197, 0.09344851993735498, 0.0849561406292439, -0.07072410528537042,
       -0.2199334543489178, -0.31351687622966823, -0.568557929493115, -0.6569729646656072, -0.8078418250081657]]),
    # float16: the momentum in float16 (PyTorch's lerp computes in float32, rounds once), the
    # update added in float32 (float16 + bfloat16 promotes to float32) and rounded to float16
    ("float16", _KW_DEFAULT,
     [[-0.6201171875, -0.487060546875, -0.36083984375, -0.23583984375, -0.14208984375, -0.0289764404296875,
       0.059844970703125, 0.1622314453125, 0.263916015625, 0.36376953125, 0.467041015625, 0.591796875],
      [0.34814453125, 0.269287109375, 0.10504150390625, 0.06927490234375, -0.0811767578125, -0.229248046875,
       -0.33056640625, -0.55908203125, -0.658203125, -0.80224609375]]),
    ("float16", _KW_OTHER,
     [[-0.634765625, -0.48828125, -0.336181640625, -0.2047119140625, -0.1221923828125, -0.0218048095703125,
       0.06976318359375, 0.152587890625, 0.254638671875, 0.333251953125, 0.438232421875, 0.56640625],
      [0.3310546875, 0.265380859375, 0.0933837890625, 0.0849609375, -0.0706787109375, -0.219970703125,
       -0.313232421875, -0.56884765625, -0.65625, -0.80810546875]]),
]


@pytest.mark.parametrize("dtype, kw, expected", _PYTORCH)
def test_matches_pytorch(dtype, kw, expected):
    params, grad_seq = _fixed_inputs()
    ps, _ = _run(params, grad_seq, dtype=getattr(nbgrad, dtype), **kw)
    for p, e in zip(ps, expected):
        assert p.dtype == getattr(nbgrad, dtype)
        # one bfloat16 ulp of the update (2**-8 relative), times lr, is ~1e-4 here: these
        # bounds hold the results to PyTorch's bfloat16 roundings, not just to its algorithm
        np.testing.assert_allclose(p.detach().flatten().tolist(), e, rtol=0,
                                   atol={"float16": 0.0, "float32": 1e-7, "float64": 1e-12}[dtype])


def test_update_is_nearly_orthogonal_and_scaled():
    # momentum 0 and no weight decay: p0 - p1 = lr * adjust * NS(g)
    rng = np.random.default_rng(1)
    for shape, adjust in [((4, 6), 1.0), ((6, 4), 1.5 ** 0.5)]:
        g = rng.standard_normal(shape)
        p = nbgrad.zeros(shape, dtype=nbgrad.float64, requires_grad=True)
        opt = nbgrad.optim.Muon([p], lr=1.0, momentum=0.0, weight_decay=0.0)
        p.grad = nbgrad.tensor(g)
        opt.step()
        o = -np.array(p.tolist()) / adjust
        s = np.linalg.svd(o, compute_uv=False)
        assert s.min() > 0.5 and s.max() < 1.3          # US'V^T with S' near 1 (Keller Jordan's note)
        u, _, vt = np.linalg.svd(g, full_matrices=False)
        assert np.abs(o - u @ vt).max() < 0.35          # the direction of g's polar factor
        if adjust == 1.0:
            # bfloat16 values: 8 significant bits
            m, _ = np.frexp(o)
            assert np.all(m * 256 == np.round(m * 256))


def test_adjust_lr_fn():
    rng = np.random.default_rng(2)
    g = rng.standard_normal((6, 2))
    deltas = {}
    for fn in [None, "original", "match_rms_adamw"]:
        p = nbgrad.zeros(6, 2, dtype=nbgrad.float64, requires_grad=True)
        opt = nbgrad.optim.Muon([p], lr=0.01, momentum=0.0, weight_decay=0.0, adjust_lr_fn=fn)
        p.grad = nbgrad.tensor(g)
        opt.step()
        deltas[fn] = np.array(p.tolist())
    assert deltas[None].tolist() == deltas["original"].tolist()
    # sqrt(max(1, 6/2)) against 0.2 * sqrt(max(6, 2))
    np.testing.assert_allclose(deltas["original"] / deltas["match_rms_adamw"], 3 ** 0.5 / (0.2 * 6 ** 0.5),
                               rtol=1e-13)


def test_momentum_buffer_and_weight_decay():
    g1 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
    g2 = np.array([[0.5, 1.0, -1.5], [2.0, -0.5, 1.0]])
    p = nbgrad.ones(2, 3, dtype=nbgrad.float64, requires_grad=True)
    opt = nbgrad.optim.Muon([p], lr=0.0, momentum=0.75, weight_decay=0.3)
    for g in (g1, g2):
        p.grad = nbgrad.tensor(g)
        opt.step()
    st = opt.state[p]
    assert list(st) == ["momentum_buffer"]
    buf = st["momentum_buffer"]
    assert buf.shape == (2, 3) and buf.dtype == nbgrad.float64
    # buf.lerp_(g, 1 - momentum) from zeros
    np.testing.assert_allclose(np.array(buf.tolist()), 0.75 * (0.25 * g1) + 0.25 * g2, rtol=1e-15)
    assert p.tolist() == [[1.0] * 3] * 2           # lr 0: neither the decay nor the update moves p
    q = nbgrad.ones(2, 2, dtype=nbgrad.float64, requires_grad=True)
    opt = nbgrad.optim.Muon([q], lr=0.5, weight_decay=0.2)
    q.grad = nbgrad.zeros(2, 2, dtype=nbgrad.float64)    # NS of zero: zero (the norm clamped at eps)
    opt.step()
    assert q.tolist() == [[0.9, 0.9], [0.9, 0.9]]


def test_closure_skipped_param_and_defaults():
    a = nbgrad.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    b = nbgrad.tensor([[4.0, 5.0]], requires_grad=True)
    opt = nbgrad.optim.Muon([a, b])
    g = opt.param_groups[0]
    assert (g["lr"], g["weight_decay"], g["momentum"], g["nesterov"]) == (1e-3, 0.1, 0.95, True)
    assert g["ns_coefficients"] == (3.4445, -4.7750, 2.0315) and g["eps"] == 1e-7 and g["ns_steps"] == 5
    assert g["adjust_lr_fn"] is None

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    v0 = a._version
    assert opt.step(closure).item() == pytest.approx(14.25)
    assert a._version > v0 and a.tolist() != [[1.0, -2.0], [0.5, 3.0]]
    assert b.tolist() == [[4.0, 5.0]] and len(opt.state[b]) == 0


def test_state_dict_round_trip():
    params, grad_seq = _fixed_inputs()
    grad_seq = grad_seq + [[g * -0.5 for g in gs] for gs in grad_seq]
    ps, opt = _run(params, grad_seq[:3], dtype=nbgrad.float64, lr=0.05)
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1] and list(sd["state"][0]) == ["momentum_buffer"]
    assert sd["param_groups"][0]["params"] == [0, 1] and sd["param_groups"][0]["lr"] == 0.05
    qs = [nbgrad.tensor(p.detach().tolist(), dtype=nbgrad.float64, requires_grad=True) for p in ps]
    opt2 = nbgrad.optim.Muon(qs)
    opt2.load_state_dict(copy.deepcopy(sd))   # (as in PyTorch, a loaded state dict's tensors are taken, not copied)
    for grads in grad_seq[3:]:
        for p, q, g in zip(ps, qs, grads):
            p.grad = nbgrad.tensor(g)
            q.grad = nbgrad.tensor(g)
        opt.step()
        opt2.step()
    for p, q in zip(ps, qs):
        assert p.tolist() == q.tolist()


@pytest.mark.parametrize("kw, message", [
    (dict(lr=-1.0), "Learning rate should be >= 0 but is: -1.0"),
    (dict(momentum=-0.5), "momentum should be >= 0 but is: -0.5"),
    (dict(weight_decay=-0.1), "weight decay should be >= 0 but is: -0.1"),
    (dict(adjust_lr_fn="spectral"), "Adjust learning rate function spectral is not supported"),
    (dict(lr=nbgrad.tensor([0.1, 0.2])), "Tensor lr must be 1-element"),
])
def test_bad_hyper_parameters(kw, message):
    p = nbgrad.zeros(2, 2, requires_grad=True)
    with pytest.raises(ValueError, match="^" + message.replace(".", r"\.") + "$"):
        nbgrad.optim.Muon([p], **kw)


@pytest.mark.parametrize("shape", [(3,), (2, 2, 2), ()])
def test_only_2d_parameters(shape):
    w = nbgrad.zeros(2, 2, requires_grad=True)
    p = nbgrad.zeros(shape, requires_grad=True)
    size = "[" + ", ".join(str(s) for s in shape) + "]"
    with pytest.raises(ValueError, match=r"^Muon only supports 2D parameters whereas we found a parameter with size: "
                                         r"\w+\.Size\(" + re.escape(size) + r"\)$"):
        nbgrad.optim.Muon([w, p])


@pytest.mark.parametrize("kw, message", [
    (dict(ns_steps=100), "Number of steps must be less than 100 for computational efficiency"),
    (dict(ns_coefficients=(3.4445, -4.775)), "Coefficients must be a tuple of exactly 3 values"),
])
def test_bad_newton_schulz_arguments_leave_parameters(kw, message):
    p = nbgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    opt = nbgrad.optim.Muon([p], **kw)
    p.grad = nbgrad.ones(2, 2)
    with pytest.raises(ValueError, match="^" + message + "$"):
        opt.step()
    assert p.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_param_group_added_later_is_checked_at_step():
    # PyTorch checks the dims in the constructor only; the step refuses a gradient that is not 2-D
    w = nbgrad.zeros(2, 2, requires_grad=True)
    opt = nbgrad.optim.Muon([w])
    b = nbgrad.zeros(3, requires_grad=True)
    opt.add_param_group({"params": [b]})
    b.grad = nbgrad.ones(3)
    with pytest.raises(ValueError, match="^Param gradient must be a 2D matrix$"):
        opt.step()
    assert b.tolist() == [0.0, 0.0, 0.0]
