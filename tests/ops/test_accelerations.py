"""Every optional backend acceleration against its composed fallback.

Each workload runs twice: with the CPU backend as it is, and with one acceleration
taken out of its ACCELERATIONS declaration (and the kernel itself replaced by one that
fails, so the fallback must be what ran).  Values, gradients, grad_fn names, optimizer
state and errors must agree (to float rounding: the kernels fuse, the fallbacks round
per op).  Under NBGRAD_FUSED=0 both runs would be the fallback: the module skips there.
"""
import numpy as np
import pytest

import nbgrad
from nbgrad import backends
from nbgrad.backends import cpu

F = nbgrad.nn.functional
pytestmark = pytest.mark.acceleration

RNG = np.random.default_rng(11)


def leaf(a, dtype=nbgrad.float64):
    return nbgrad.tensor(np.asarray(a), dtype=dtype, requires_grad=True)


def _graph_names(t):
    """grad_fn names of t's graph, depth first."""
    names, stack, seen = [], [t.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        names.append(type(fn).__name__)
        stack.extend(f for f, _ in fn.next_functions)
    return names


def _values(t):
    """t's values as a NumPy array (bfloat16, which NumPy lacks, widened to float32: exact)."""
    t = t.detach()
    return (t.float() if t.dtype == nbgrad.bfloat16 else t).numpy().copy()


def _loss_run(make, backward=True):
    """make() -> (output tensor, leaves): output values, grad_fn names, leaves' gradients."""
    out, leaves = make()
    names = _graph_names(out) if out.grad_fn is not None else []
    if backward:
        out.sum().backward() if out.dim() else out.backward()
    return [_values(out), names] + [None if x.grad is None else _values(x.grad) for x in leaves]


def _double_backward_run(make):
    out, leaves = make()
    (g,) = nbgrad.autograd.grad(out.sum(), leaves[:1], create_graph=True)
    # (x * g).sum() reaches x also where g is constant in x (nll)
    (gg,) = nbgrad.autograd.grad((g * g * leaves[0]).sum(), leaves[:1])
    return [g.detach().numpy().copy(), _graph_names(g), gg.numpy().copy()]


def _ce(dtype, weighted=False, **kw):
    def make():
        x = leaf(RNG.standard_normal((6, 5)), dtype)
        t = nbgrad.tensor([0, 4, 2, -100, 1, 3])
        w = nbgrad.tensor(RNG.uniform(0.5, 2, 5), dtype=dtype)
        return F.cross_entropy(x, t, weight=w if weighted else None, **kw), [x]
    return make


def _ce3d():
    x = leaf(RNG.standard_normal((2, 4, 3)))
    return F.cross_entropy(x, nbgrad.tensor([[0, 3, 1], [2, 2, 0]]), label_smoothing=0.2, reduction="none"), [x]


def _nll(reduction, weighted, dtype=nbgrad.float64, rows=1):
    # rows > 1 repeats the 5 rows: float16 sums in Half through a cascade whose partial sums
    # meet every 16 rows (nbgrad/backends/_half.py), which 5 rows would not reach
    def make():
        x = leaf(RNG.standard_normal((5 * rows, 4)), dtype)
        w = nbgrad.tensor(RNG.uniform(0.5, 2, 4), dtype=dtype) if weighted else None
        t = nbgrad.tensor([3, 0, -100, 1, 1] * rows)
        return F.nll_loss(x, t, weight=w, reduction=reduction), [x]
    return make


def _mse(reduction, dtype=nbgrad.float64):
    def make():
        x, y = leaf(RNG.standard_normal((3, 4)), dtype), leaf(RNG.standard_normal((3, 4)), dtype)
        return F.mse_loss(x, y, reduction=reduction), [x, y]
    return make


def _bce(reduction, weighted, pos):
    def make():
        x, y = leaf(RNG.standard_normal((4, 3)) * 4), leaf(RNG.uniform(0, 1, (4, 3)))
        w = nbgrad.tensor(RNG.uniform(0.5, 2, (4, 3))) if weighted else None
        pw = nbgrad.tensor(RNG.uniform(0.5, 3, 3)) if pos else None
        return F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=reduction), [x, y]
    return make


def _mul():
    a, b = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((3, 4)))
    return a * b, [a, b]


def _mul_broadcast():
    a, b = leaf(RNG.standard_normal((3, 4)), nbgrad.float32), leaf(RNG.standard_normal(4), nbgrad.float32)
    return a * b, [a, b]


def _linear(bias):
    def make():
        x, w = leaf(RNG.standard_normal((5, 3))), leaf(RNG.standard_normal((2, 3)))
        b = leaf(RNG.standard_normal(2)) if bias else None
        return F.linear(x, w, b), [x, w] + ([b] if bias else [])
    return make


def _fused():
    x, w = leaf(RNG.standard_normal(7)), leaf(RNG.standard_normal(7))
    return nbgrad.fuse(lambda x, w: (x * w + 1).tanh() * x)(x, w), [x, w]


def _conv(bias, stride):
    def make():
        x = leaf(RNG.standard_normal((2, 3, 5, 4)))
        w = leaf(RNG.standard_normal((4, 3, 3, 2)))
        b = leaf(RNG.standard_normal(4))
        return F.conv2d(x, w, b if bias else None, stride, 1), [x, w] + ([b] if bias else [])
    return make


def _softmax(dtype, shape=(3, 20), log=False):
    def make():
        x = leaf(RNG.standard_normal(shape), dtype)
        return (F.log_softmax if log else F.softmax)(x * 2, -1), [x]
    return make


def _vector_norm(dtype, shape=(3, 37), dim=-1, keepdim=False):
    def make():
        x = leaf(RNG.standard_normal(shape), dtype)
        return (x * 2).norm(2, dim, keepdim=keepdim), [x]
    return make


def _layer_norm(dtype, shape=(4, 3, 6), k=1, affine=True):
    def make():
        x = leaf(RNG.standard_normal(shape) * 3 + 1, dtype)
        w = leaf(RNG.uniform(0.5, 2, shape[-k:]), dtype) if affine else None
        b = leaf(RNG.standard_normal(shape[-k:]), dtype) if affine else None
        return F.layer_norm(x * 2, shape[-k:], w, b, eps=1e-3), [x] + ([w, b] if affine else [])
    return make


def _interp(mode, dtype=nbgrad.float64, **kw):
    def make():
        x = leaf(RNG.standard_normal((2, 3, 4, 5)), dtype)
        return F.interpolate(x, size=(7, 3), mode=mode, **kw), [x]
    return make


def _fractional(dtype=nbgrad.float64, three_d=False):
    def make():
        if three_d:
            x = leaf(RNG.standard_normal((2, 2, 5, 6, 7)), dtype)
            samples = nbgrad.tensor(RNG.random((2, 2, 3)), dtype=dtype)
            return F.fractional_max_pool3d(x, 2, output_size=(3, 4, 3), _random_samples=samples), [x]
        x = leaf(RNG.standard_normal((2, 3, 9, 8)), dtype)
        samples = nbgrad.tensor(RNG.random((2, 3, 2)), dtype=dtype)
        return F.fractional_max_pool2d(x, (3, 2), output_size=(4, 5), _random_samples=samples), [x]
    return make


CASES = [
    ("mul_backward", _mul, "loss"),
    ("mul_backward", _mul_broadcast, "loss"),
    ("linear_backward", _linear(True), "loss"),
    ("linear_backward", _linear(False), "loss"),
    ("fused_elementwise", _fused, "values"),      # the fallback runs the traced ops themselves
    ("cross_entropy_forward", _ce(nbgrad.float64), "loss"),
    ("cross_entropy_forward", _ce(nbgrad.float64, weighted=True, label_smoothing=0.3, reduction="sum"), "loss"),
    ("cross_entropy_forward", _ce3d, "loss"),
    ("cross_entropy_backward", _ce(nbgrad.float32, weighted=True, reduction="none"), "loss"),
    # float32 'mean' without smoothing: the backend's length-1 coefficients (one for every row)
    ("cross_entropy_backward", _ce(nbgrad.float32), "loss"),
    ("cross_entropy_backward", _ce(nbgrad.float32, weighted=True), "loss"),
    ("cross_entropy_backward", _ce(nbgrad.float64, label_smoothing=0.1), "loss"),
    ("cross_entropy_backward", _ce(nbgrad.float64, weighted=True, label_smoothing=0.5), "double"),
    ("nll_forward", _nll("mean", True), "loss"),
    ("nll_forward", _nll("none", False), "loss"),
    ("nll_forward", _nll("mean", True, nbgrad.float16, rows=40), "loss"),
    ("nll_forward", _nll("sum", False, nbgrad.float16, rows=40), "loss"),
    ("nll_backward", _nll("sum", True), "loss"),
    ("nll_backward", _nll("mean", False), "double"),
    ("mse_forward", _mse("mean"), "loss"),
    ("mse_forward", _mse("none", nbgrad.float32), "loss"),
    ("mse_forward", _mse("mean", nbgrad.float16), "loss"),
    ("mse_forward", _mse("none", nbgrad.float16), "loss"),
    # bfloat16 buffers are uint16 words: the fallbacks read them as bfloat16 (they raised)
    ("mse_forward", _mse("mean", nbgrad.bfloat16), "loss"),
    ("nll_forward", _nll("mean", True, nbgrad.bfloat16, rows=40), "loss"),
    ("bce_logits_forward", _bce("mean", True, True), "loss"),
    ("bce_logits_forward", _bce("none", False, False), "loss"),
    ("bce_logits_backward", _bce("sum", False, True), "loss"),
    ("bce_logits_backward", _bce("mean", True, False), "loss"),
    ("conv2d_forward", _conv(True, 1), "loss"),
    ("conv2d_forward", _conv(False, 2), "loss"),
    ("conv2d_backward", _conv(True, 1), "loss"),
    ("conv2d_backward", _conv(False, 2), "double"),
    ("interp_pass", _interp("nearest"), "loss"),
    ("interp_pass", _interp("bilinear", nbgrad.float32, align_corners=True), "loss"),
    ("interp_pass_backward", _interp("bicubic"), "loss"),
    ("interp_pass_backward", _interp("bilinear"), "double"),
    ("softmax_backward", _softmax(nbgrad.float64), "loss"),
    ("softmax_backward", _softmax(nbgrad.float32, (2, 3, 37)), "loss"),
    ("softmax_backward", _softmax(nbgrad.float64, (5,)), "double"),
    ("softmax_backward", _softmax(nbgrad.float32, (2, 3, 37), log=True), "loss"),
    ("softmax_backward", _softmax(nbgrad.float32, (4, 19), log=True), "double"),
    ("vector_norm2", _vector_norm(nbgrad.float32), "loss"),
    ("vector_norm2", _vector_norm(nbgrad.float64, (2, 3, 5), (1, 2), keepdim=True), "loss"),
    ("vector_norm2", _vector_norm(nbgrad.float32, (70,), None), "loss"),
    ("vector_norm2", _vector_norm(nbgrad.float64, (4, 9)), "double"),
    ("layer_norm_forward", _layer_norm(nbgrad.float64), "loss"),
    ("layer_norm_forward", _layer_norm(nbgrad.float32, k=2, affine=False), "loss"),
    ("layer_norm_backward", _layer_norm(nbgrad.float64, k=2), "loss"),
    ("layer_norm_backward", _layer_norm(nbgrad.float32), "loss"),
    ("layer_norm_backward", _layer_norm(nbgrad.float64), "double"),
    ("fractional_max_pool", _fractional(), "loss"),
    ("fractional_max_pool", _fractional(nbgrad.float32, three_d=True), "loss"),
    ("fractional_max_pool", _fractional(), "double"),
]


def _without(monkeypatch, name):
    """The CPU backend without the acceleration `name`: undeclared, and its kernel fails."""
    monkeypatch.setattr(cpu, "ACCELERATIONS", cpu.ACCELERATIONS - {name})

    def must_not_run(*args, **kwargs):
        raise AssertionError(f"{name} ran although the backend does not declare it")
    monkeypatch.setattr(cpu, name, must_not_run)


def _rtol(results):
    return 1e-5 if any(isinstance(r, np.ndarray) and r.dtype == np.float32 for r in results) else 1e-11


def _same(a, b, names=True):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_allclose(y, x, rtol=_rtol(a), atol=1e-12 if x.dtype == np.float64 else 1e-6)
        elif isinstance(x, list):
            if names:
                assert x == y
        else:
            assert x is None and y is None


def _run(kind, make):
    seed = int(RNG.integers(1 << 30))

    def again():
        RNG.bit_generator.state = np.random.default_rng(seed).bit_generator.state
        return make()
    if kind == "double":
        return _double_backward_run(again)
    return _loss_run(again)


@pytest.mark.parametrize("name, make, kind", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_fallback_gives_the_kernels_values_gradients_and_nodes(monkeypatch, name, make, kind):
    state = RNG.bit_generator.state
    fused = _run(kind, make)
    RNG.bit_generator.state = state
    with monkeypatch.context() as m:
        _without(m, name)
        composed = _run(kind, make)
    # nbgrad.fuse without its kernel records the traced ops themselves (MulBackward0, ...)
    _same(fused, composed, names=name != "fused_elementwise")


@pytest.mark.parametrize("name", ["cross_entropy_forward", "nll_forward"])
@pytest.mark.parametrize("bad", [5, -3])
def test_the_fallback_raises_the_kernels_error(monkeypatch, name, bad):
    x = nbgrad.tensor(RNG.standard_normal((3, 5)))
    t = nbgrad.tensor([1, bad, 2])
    fn = F.cross_entropy if name == "cross_entropy_forward" else F.nll_loss
    with pytest.raises(IndexError) as fused:
        fn(x, t)
    _without(monkeypatch, name)
    with pytest.raises(IndexError) as composed:
        fn(x, t)
    assert str(composed.value) == str(fused.value) == f"Target {bad} is out of bounds."


def _train(opt_cls, kw, dtype, steps=4, transposed=False):
    rng = np.random.default_rng(5)
    w = nbgrad.tensor(rng.standard_normal((3, 4)), dtype=dtype)
    if transposed:
        w = nbgrad.tensor(rng.standard_normal((4, 3)), dtype=dtype).t()
    w.requires_grad_(True)
    b = nbgrad.tensor(rng.standard_normal(3), dtype=dtype, requires_grad=True)
    opt = opt_cls([w, b], **kw)
    x = nbgrad.tensor(rng.standard_normal((8, 4)), dtype=dtype)
    versions = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((F.linear(x, w, b) - 1.0) ** 2).sum()
        loss.backward()
        before = w._version
        opt.step()
        versions.append(w._version - before)
    state = [_values(v) for p in (w, b) for v in opt.state[p].values() if isinstance(v, nbgrad.Tensor)]
    return [_values(w), _values(b)] + state, versions, tuple(w.stride())


OPTIMIZERS = [
    ("sgd_step", nbgrad.optim.SGD, dict(lr=0.05)),
    ("sgd_step", nbgrad.optim.SGD, dict(lr=0.05, momentum=0.9, weight_decay=0.1)),
    ("sgd_step", nbgrad.optim.SGD, dict(lr=0.05, momentum=0.8, dampening=0.3, maximize=True)),
    ("sgd_step", nbgrad.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("adam_step", nbgrad.optim.Adam, dict(lr=0.01)),
    ("adam_step", nbgrad.optim.Adam, dict(lr=0.01, betas=(0.3, 0.9), weight_decay=0.1, amsgrad=True)),
    ("adam_step", nbgrad.optim.Adam, dict(lr=0.01, maximize=True, eps=1e-3)),
    ("adam_step", nbgrad.optim.AdamW, dict(lr=0.01, weight_decay=0.2, amsgrad=True)),
]


# float16 and bfloat16: both paths are PyTorch's single-tensor ops, each rounding once to the
# format, so they agree bit for bit (the composed Adam rounded lerp/addcmul/addcdiv per sub-op)
@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64, nbgrad.float16, nbgrad.bfloat16])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("name, opt_cls, kw", OPTIMIZERS)
def test_the_optimizer_fallback_is_the_single_tensor_formula(monkeypatch, name, opt_cls, kw, dtype, transposed):
    fused, fused_versions, fused_strides = _train(opt_cls, kw, dtype, transposed=transposed)
    _without(monkeypatch, name)
    composed, versions, strides = _train(opt_cls, kw, dtype, transposed=transposed)
    assert versions == fused_versions and strides == fused_strides
    assert len(composed) == len(fused)
    rtol = {nbgrad.float32: 2e-5, nbgrad.float64: 1e-12}.get(dtype, 0.0)
    for a, b in zip(fused, composed):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=rtol)


def test_every_acceleration_has_a_case_here():
    assert {c[0] for c in CASES} | {o[0] for o in OPTIMIZERS} == backends.ACCELERATIONS
