"""nbgrad.compile: compiled calls leave every visible tensor as the eager call would.

References are the eager calls themselves (same seeds, same inputs), run side by side:
float64 within 1e-12 relative, float32 within 1e-5 (fusion reorders arithmetic), integers,
versions and random draws exactly.
"""
import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad import nn, optim
from nbgrad.ops import _graph
from nbgrad.ops.optable import ROWS

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="generated njit code")


def _close(a, b, dtype):
    a, b = np.asarray(a), np.asarray(b)
    if dtype == np.float64:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _leaf(values, dtype=np.float32):
    return nbgrad.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def _chain(x, w):
    x.grad = w.grad = None
    y = x
    for _ in range(20):
        y = y * w
        y = y + x
    loss = (y.tanh() * x).sum()
    loss.backward()
    return loss


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elementwise_chain_matches_eager_on_every_call(dtype):
    rng = np.random.default_rng(0)
    xs = [rng.uniform(-1, 1, 16).astype(dtype) for _ in range(3)]
    w0 = rng.uniform(0.2, 0.8, 16).astype(dtype)
    step = nbgrad.compile(_chain)
    for xv in xs:
        xe, we = _leaf(xv, dtype), _leaf(w0, dtype)
        xc, wc = _leaf(xv, dtype), _leaf(w0, dtype)
        le = _chain(xe, we)
        lc = step(xc, wc)
        _close(lc.detach().numpy(), le.detach().numpy(), dtype)
        _close(xc.grad.numpy(), xe.grad.numpy(), dtype)
        _close(wc.grad.numpy(), we.grad.numpy(), dtype)
        assert lc.requires_grad and lc.grad_fn.name() == "SumBackward0"
        assert xc.grad._version == xe.grad._version and xc.grad.is_leaf
    assert step.captures == 1 and len(step.variants) == 1
    # the loss' graph ran its backward inside the step: a second backward fails as eager's would
    with pytest.raises(RuntimeError):
        lc.backward()

def _long_chain(x, w):
    x.grad = w.grad = None
    y = x
    for _ in range(150):
        y = y * w
        y = y + x
    y.sum().backward()
    return y


def test_a_compute_bound_chain_through_denormals_is_eager_bit_for_bit():
    """W5's shape: a long mul/add chain whose backward multiplies gradients by w down through
    float32's denormals to zero.  The region is compute-bound, so it runs in the CPU's widest
    vectors; the lanes compute the same IEEE operations, so every bit is eager's."""
    rng = np.random.default_rng(5)
    xv = rng.uniform(-1, 1, 16).astype(np.float32)
    wv = rng.uniform(0.2, 0.8, 16).astype(np.float32)
    step = nbgrad.compile(_long_chain)
    for _ in range(2):
        xc, wc = _leaf(xv, np.float32), _leaf(wv, np.float32)
        yc = step(xc, wc)
    xe, we = _leaf(xv, np.float32), _leaf(wv, np.float32)
    ye = _long_chain(xe, we)
    assert np.array_equal(yc.detach().numpy(), ye.detach().numpy())
    assert np.array_equal(xc.grad.numpy(), xe.grad.numpy())
    assert np.array_equal(wc.grad.numpy(), we.grad.numpy())
    # the backward did pass through denormals (the point of the test)
    g = np.float32(1.0) * np.cumprod(np.repeat(wv[None], 150, 0), axis=0, dtype=np.float32)
    assert ((g != 0) & (np.abs(g) < np.finfo(np.float32).tiny)).any()
    assert "_wide_vectors()" in step.variants[0].source



def test_graph_names_print_and_dot():
    x, w = _leaf(np.linspace(-1, 1, 8)), _leaf(np.linspace(0.2, 0.8, 8))
    step = nbgrad.compile(_chain)
    step(x, w)
    g = step.graph
    names = [n.name for n in g]
    assert len(names) == len(set(names))
    assert "mul" in names and "mul_1" in names and "tanh" in names
    assert any(n.startswith("gradients/") for n in names)
    assert repr(g["mul"].outputs[0]) == 'Tensor("mul:0", shape=(8,), dtype=nbgrad.float32)'
    assert "args[0]" in g.inputs and "args[1]" in g.inputs
    text = str(g)
    assert text.splitlines()[1].strip().startswith("mul = mul(args[0], args[1])")
    dot = g.to_dot()
    assert dot.startswith("digraph nbgrad {") and '"mul" -> "add";' in dot


def _mlp(dtype, seed=0):
    nbgrad.manual_seed(seed)
    model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 5))
    if dtype == np.float64:
        model = model.double()
    return model


def _cross_entropy_step(x, y, model, opt):
    """One training step whose model and optimizer are arguments (compiled and eager alike)."""
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def _batch(dtype, k):
    rng = np.random.default_rng(k)
    return (nbgrad.from_numpy(rng.standard_normal((8, 12)).astype(dtype)),
            nbgrad.from_numpy(rng.integers(0, 5, 8)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("loss_name", ["cross_entropy", "mse"])
def test_training_steps_match_eager(dtype, loss_name):
    models, opts, steps = [], [], []
    for compiled in (False, True):
        model = _mlp(dtype)
        opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)

        def step(x, y, model=model, opt=opt):
            opt.zero_grad()
            out = model(x)
            if loss_name == "mse":
                loss = nn.functional.mse_loss(out, y)
            else:
                loss = nn.functional.cross_entropy(out, y)
            loss.backward()
            opt.step()
            return loss, out
        models.append(model)
        opts.append(opt)
        steps.append(nbgrad.compile(step) if compiled else step)
    for k in range(5):
        x, y = _batch(dtype, k)
        if loss_name == "mse":
            y = nn.functional.one_hot(y, 5).to(x.dtype)     # (one_hot reads its input: not in the step)
        (le, oe), (lc, oc) = steps[0](x, y), steps[1](x, y)
        _close(lc.detach().numpy(), le.detach().numpy(), dtype)
        _close(oc.detach().numpy(), oe.detach().numpy(), dtype)
        assert lc.grad_fn.name() == le.grad_fn.name()
        assert oc.requires_grad and oc.grad_fn.name() == oe.grad_fn.name()
    for pe, pc in zip(models[0].parameters(), models[1].parameters()):
        _close(pc.detach().numpy(), pe.detach().numpy(), dtype)
        _close(pc.grad.numpy(), pe.grad.numpy(), dtype)
        assert pc._version == pe._version
        assert pc.grad._version == pe.grad._version
        st_e, st_c = opts[0].state[pe]["momentum_buffer"], opts[1].state[pc]["momentum_buffer"]
        _close(st_c.numpy(), st_e.numpy(), dtype)
        assert st_c._version == st_e._version
    # the first step made the momentum buffers (one variant), the second ran with them (another)
    assert steps[1].captures == 2


def test_each_compiled_call_gives_fresh_gradients_and_outputs():
    model = _mlp(np.float32)
    opt = optim.SGD(model.parameters(), lr=0.1)

    @nbgrad.compile
    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    x, y = _batch(np.float32, 0)
    step(x, y)
    l1 = step(x, y)
    g1 = next(model.parameters()).grad
    v1 = l1.item()
    l2 = step(x, y)
    assert l2 is not l1 and next(model.parameters()).grad is not g1
    assert l1.item() == v1          # a returned loss is not overwritten by the next call


_PUBLIC_ROWS = [r for r in ROWS if r.where in ("torch", "functional")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", _PUBLIC_ROWS, ids=lambda r: r.name)
def test_every_table_op_forward_and_backward(row, dtype):
    """Every public row of the op table (rows added later join), forward and backward,
    compiled against eager; the row's parameters away from their defaults."""
    fn = getattr(nbgrad, row.name) if row.where == "torch" else getattr(nbgrad.nn.functional, row.name)
    import inspect
    accepted = inspect.signature(fn).parameters
    params = {name: (default * 0.5 + 0.25 if isinstance(default, float) else default)
              for name, default in row.params if name in accepted}
    if row.name == "hardtanh":
        params = {"min_val": -0.5, "max_val": 0.75}
    rng = np.random.default_rng(1)
    lo, hi = (1.6, 2.4) if row.name == "acosh" else (0.1, 0.9) if row.name in ("xlogy",) else (-0.9, 0.9)
    bases = [rng.uniform(lo, hi, (4, 5)) for _ in row.inputs]

    def f(*xs):
        for x in xs:
            x.grad = None
        y = fn(*[x * 1.0 for x in xs], **params)
        (y * y).sum().backward()
        return y
    step = nbgrad.compile(f)
    for k in range(2):
        xe = [_leaf(b + k * 0.01, dtype) for b in bases]
        xc = [_leaf(b + k * 0.01, dtype) for b in bases]
        ye, yc = f(*xe), step(*xc)
        _close(yc.detach().numpy(), ye.detach().numpy(), dtype)
        for a, b in zip(xc, xe):
            _close(a.grad.numpy(), b.grad.numpy(), dtype)
        assert yc.grad_fn.name() == ye.grad_fn.name()
    assert step.captures == 1


# -- guards ------------------------------------------------------------------------------
def test_guards_retrace_on_shape_dtype_requires_grad_and_numbers():
    calls = []

    def f(x, scale):
        calls.append(1)
        return (x * scale).exp()
    step = nbgrad.compile(f)
    x = nbgrad.ones(3)
    with nbgrad.no_grad():
        np.testing.assert_allclose(step(x, 2.0).numpy(), np.exp(2.0) * np.ones(3), rtol=1e-6)
        np.testing.assert_allclose(step(x, 2.0).numpy(), np.exp(2.0) * np.ones(3), rtol=1e-6)
        assert step.captures == 1 and len(calls) == 1          # (the second call ran the graph)
        np.testing.assert_allclose(step(x, 3.0).numpy(), np.exp(3.0) * np.ones(3), rtol=1e-6)
        assert step.captures == 2                               # a Python number is a constant
        np.testing.assert_allclose(step(nbgrad.ones(4), 2.0).numpy(), np.exp(2.0) * np.ones(4), rtol=1e-6)
        assert step.captures == 3                               # a shape
        step(nbgrad.ones(3, dtype=nbgrad.float64), 2.0)
        assert step.captures == 4                               # a dtype
        step(nbgrad.ones(6)[::2], 2.0)
        assert step.captures == 5                               # a layout


def test_guards_on_learning_rate_and_train_mode():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    opt = optim.SGD(model.parameters(), lr=0.1)

    @nbgrad.compile
    def step(x):
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
        return loss
    x = nbgrad.ones(2, 4)
    for _ in range(3):
        step(x)
    assert step.captures == 2           # the first call found no .grad, the others one
    opt.param_groups[0]["lr"] = 0.01
    step(x)
    assert step.captures == 3
    model.eval()
    step(x)
    assert step.captures == 4


def test_too_many_variants_warn_and_run_eagerly():
    step = nbgrad.compile(lambda x: x + 1, max_variants=2)
    with nbgrad.no_grad():
        step(nbgrad.ones(1))
        step(nbgrad.ones(2))
        with pytest.warns(UserWarning, match="captured 2 times"):
            out = step(nbgrad.ones(3))
    np.testing.assert_array_equal(out.numpy(), 2 * np.ones(3))
    assert step.captures == 2


def test_grad_mode_is_guarded():
    step = nbgrad.compile(lambda x: (x * 2).sum())
    x = nbgrad.ones(3, requires_grad=True)
    with nbgrad.no_grad():
        assert not step(x).requires_grad
    with pytest.raises(nbgrad.CompileError, match="requires grad"):
        step(x)                 # grad mode on: the output needs its graph, not captured


# -- what cannot be captured ------------------------------------------------------------
@pytest.mark.parametrize("body, what", [
    ("float((x * 2).sum().item())", "Tensor.item"),
    ("(x * 2).tolist()", "Tensor.tolist"),
    ("(x * 2).numpy()", "Tensor.numpy"),
    ("print(x * 2)", "printing"),
    ("1 if (x.sum() > 0) else 0", "bool"),
])
def test_host_reads_raise_compile_error_naming_the_line(body, what, tmp_path):
    ns = {}
    exec(compile(f"def f(x):\n    return {body}\n", str(tmp_path / "user_code.py"), "exec"), ns)
    step = nbgrad.compile(ns["f"])
    with nbgrad.no_grad():
        with pytest.raises(nbgrad.CompileError, match=what) as info:
            step(nbgrad.ones(3))
    assert "user_code.py:2" in str(info.value)


def test_fallback_eager_runs_uncapturable_functions_eagerly():
    def f(x):
        s = (x * 2).sum()
        return x * s.item()
    step = nbgrad.compile(f, fallback="eager")
    with nbgrad.no_grad():
        for k in (1.0, 2.0):
            out = step(nbgrad.full((3,), k))
            np.testing.assert_allclose(out.numpy(), k * 6 * k * np.ones(3))
    assert not step.variants


def test_in_place_change_of_a_tensor_the_graph_does_not_own():
    holder = {"t": nbgrad.zeros(3)}

    def hidden():
        return holder["t"]

    def f(x):
        hidden().add_(x)
        return x * 2
    with nbgrad.no_grad():
        with pytest.raises(nbgrad.CompileError, match="does not own"):
            nbgrad.compile(f)(nbgrad.ones(3))


def test_in_place_change_of_an_argument_is_replayed_with_its_version():
    def f(x, y):
        x.mul_(2)
        y.add_(x)
        return y
    step = nbgrad.compile(f)
    with nbgrad.no_grad():
        for k in range(3):
            xe, ye = nbgrad.full((3,), float(k)), nbgrad.ones(3)
            xc, yc = nbgrad.full((3,), float(k)), nbgrad.ones(3)
            f(xe, ye)
            out = step(xc, yc)
            assert out is yc
            np.testing.assert_array_equal(xc.numpy(), xe.numpy())
            np.testing.assert_array_equal(yc.numpy(), ye.numpy())
            assert (xc._version, yc._version) == (xe._version, ye._version)
    assert step.captures == 1


def test_target_out_of_range_is_checked_by_compiled_calls():
    model = _mlp(np.float32)

    @nbgrad.compile
    def f(x, y):
        with nbgrad.no_grad():
            return nn.functional.cross_entropy(model(x), y)
    x, y = _batch(np.float32, 0)
    f(x, y)
    f(x, y)
    bad = y.clone()
    bad[3] = 7
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        f(x, bad)


def test_random_ops_draw_what_eager_draws():
    def f(x):
        return nn.functional.dropout(x, 0.5, training=True) + nbgrad.rand(4)
    step = nbgrad.compile(f)
    x = nbgrad.ones(4)
    with nbgrad.no_grad():
        nbgrad.manual_seed(3)
        eager = [f(x).numpy().copy() for _ in range(3)]
        nbgrad.manual_seed(3)
        compiled = [step(x).numpy().copy() for _ in range(3)]
    for a, b in zip(eager, compiled):
        np.testing.assert_array_equal(a, b)


def test_compiled_module_for_inference():
    model = _mlp(np.float32)
    cmodel = nbgrad.compile(model)
    x, _ = _batch(np.float32, 0)
    with nbgrad.no_grad():
        ref = model(x).numpy()
        for _ in range(2):
            np.testing.assert_allclose(cmodel(x).numpy(), ref, rtol=1e-5, atol=1e-6)
    assert cmodel.captures == 1
    out = cmodel(x)                      # grad mode: the forward runs eagerly, with its graph
    assert out.grad_fn is not None
    assert cmodel.training is model.training


def test_common_subexpressions_and_dead_code_are_removed():
    def f(x):
        a = x.exp()
        b = x.exp()             # the same call again
        x.sin()                 # a result nobody uses
        return a + b
    step = nbgrad.compile(f)
    with nbgrad.no_grad():
        step(nbgrad.ones(3))
    ops = [n.op for n in step.graph]
    assert ops.count("exp") == 1 and "sin" not in ops
    assert step.graph.removed >= 2


# -- the on-disk cache ----------------------------------------------------------------------
_SCRIPT = textwrap.dedent("""
    import nbgrad, numpy as np
    x = nbgrad.tensor(np.linspace(-1, 1, 16, dtype=np.float32), requires_grad=True)
    w = nbgrad.tensor(np.linspace(0.2, 0.8, 16, dtype=np.float32), requires_grad=True)
    @nbgrad.compile
    def step(x, w):
        x.grad = w.grad = None
        y = x
        for _ in range(5):
            y = (y * w + x).tanh()
        y.sum().backward()
    step(x, w)
    v = step.variants[0]
    print(v.fresh, v.module.__name__, repr(float(x.grad.sum())))
""")


def test_generated_module_is_cached_on_disk_for_a_fresh_process(tmp_path):
    env = dict(os.environ, NBGRAD_CACHE_DIR=str(tmp_path / "nb"), NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    runs = [subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (r.stdout.split() for r in runs)
    assert first[0] == "True" and second[0] == "False"       # written once, then loaded
    assert first[1] == second[1] and first[2] == second[2]
    assert list((tmp_path / "nb" / "compiled").glob(f"{first[1]}.py"))


def test_kernel_source_change_gives_a_new_module(monkeypatch):
    from nbgrad._compile import codegen
    step = nbgrad.compile(lambda x: (x * 3).exp())
    with nbgrad.no_grad():
        step(nbgrad.ones(2))
    name = step.variants[0].module.__name__
    monkeypatch.setattr(codegen, "_kernel_sources_hash", lambda: "an-edited-kernel-source")
    step2 = nbgrad.compile(lambda x: (x * 3).exp())
    with nbgrad.no_grad():
        step2(nbgrad.ones(2))
    assert step2.variants[0].module.__name__ != name


# -- CUDA (the simulator in CI) ---------------------------------------------------------------
from tests.nn._cuda import requires_cuda  # noqa: E402


@requires_cuda
def test_cuda_training_step_matches_eager():
    def make():
        nbgrad.manual_seed(0)
        m = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to("cuda")
        return m, optim.SGD(m.parameters(), lr=0.1, momentum=0.9)

    step = _cross_entropy_step
    (me, oe), (mc, oc) = make(), make()
    compiled = nbgrad.compile(step)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = nbgrad.from_numpy(rng.standard_normal((5, 6)).astype(np.float32)).to("cuda")
        y = nbgrad.from_numpy(rng.integers(0, 3, 5)).to("cuda")
        le, lc = step(x, y, me, oe), compiled(x, y, mc, oc)
        assert lc.device.type == "cuda"
        _close(lc.cpu().detach().numpy(), le.cpu().detach().numpy(), np.float32)
    for a, b in zip(me.parameters(), mc.parameters()):
        _close(b.detach().cpu().numpy(), a.detach().cpu().numpy(), np.float32)
        assert a._version == b._version and b.grad.device.type == "cuda"
    assert compiled.captures == 2
    src = compiled.variants[0].source
    assert "_cu_jit(" in src and "fused on the GPU: sequential/linear/add, sequential/relu/relu" in src


@requires_cuda
def test_cuda_elementwise_chain_is_one_kernel():
    step = nbgrad.compile(_chain)
    rng = np.random.default_rng(0)
    xv, wv = rng.uniform(-1, 1, 16).astype(np.float32), rng.uniform(0.2, 0.8, 16).astype(np.float32)
    for _ in range(2):
        xc = nbgrad.tensor(xv, device="cuda", requires_grad=True)
        wc = nbgrad.tensor(wv, device="cuda", requires_grad=True)
        lc = step(xc, wc)
    xe = nbgrad.tensor(xv, device="cuda", requires_grad=True)      # eager on the same device
    we = nbgrad.tensor(wv, device="cuda", requires_grad=True)
    le = _chain(xe, we)
    _close(lc.cpu().detach().numpy(), le.cpu().detach().numpy(), np.float32)
    _close(xc.grad.cpu().numpy(), xe.grad.cpu().numpy(), np.float32)
    _close(wc.grad.cpu().numpy(), we.grad.cpu().numpy(), np.float32)
    src = step.variants[0].source
    assert src.count("_cu_jit(") == 1 and "be_cuda.binary" not in src


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("opt_name", ["Adam", "AdamW"])
def test_adam_with_a_scheduler_matches_eager(dtype, opt_name):
    """The step count and the learning rate are read by every compiled call: a scheduler
    changing lr does not capture again."""
    runs = []
    for _ in range(2):
        model = _mlp(dtype)
        opt = getattr(optim, opt_name)(model.parameters(), lr=0.01, weight_decay=0.01, amsgrad=True)
        sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
        runs.append((model, opt, sched))

    step = _cross_entropy_step
    compiled = nbgrad.compile(step)
    for k in range(7):
        x, y = _batch(dtype, k)
        le = step(x, y, runs[0][0], runs[0][1])
        lc = compiled(x, y, runs[1][0], runs[1][1])
        _close(lc.detach().numpy(), le.detach().numpy(), dtype)
        runs[0][2].step()
        runs[1][2].step()
    assert compiled.captures == 2
    (me, oe, _), (mc, oc, _) = runs
    for pe, pc in zip(me.parameters(), mc.parameters()):
        _close(pc.detach().numpy(), pe.detach().numpy(), dtype)
        assert pc._version == pe._version
        for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            _close(oc.state[pc][key].numpy(), oe.state[pe][key].numpy(), dtype)
        assert oc.state[pc]["step"].item() == oe.state[pe]["step"].item() == 7
        assert oc.state[pc]["step"]._version == oe.state[pe]["step"]._version


def test_hooks_are_refused():
    model = _mlp(np.float32)
    handle = next(model.parameters()).register_post_accumulate_grad_hook(lambda p: None)

    def step(x, y):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        return loss
    with pytest.raises(nbgrad.CompileError, match="hooks"):
        nbgrad.compile(step)(*_batch(np.float32, 0))
    handle.remove()
    model[0].register_forward_hook(lambda m, i, o: None)
    with pytest.raises(nbgrad.CompileError, match="forward hooks"):
        nbgrad.compile(step)(*_batch(np.float32, 0))


def test_user_ops_fuse_with_built_in_ops_forward_and_backward():
    import math

    @nbgrad.elementwise
    def softclip(x, a):
        return a * math.tanh(x / a)
    x = _leaf(np.linspace(-3, 3, 50), np.float64)

    def step(x):
        x.grad = None
        y = (softclip(x, 2.0) * 3 + 1).exp().sum()
        y.backward()
        return y
    compiled = nbgrad.compile(step)
    for _ in range(2):
        compiled(x)
    gc = x.grad.numpy().copy()
    le = step(x)
    _close(gc, x.grad.numpy(), np.float64)
    _close(compiled(x).detach().numpy(), le.detach().numpy(), np.float64)
    if not _graph.ACCELERATIONS_ON:
        return      # NBGRAD_FUSED=0: the user's op runs as Tensor ops, there is no fused kernel to join
    calls = [n.op for n in compiled.graph]
    assert "fused_elementwise" in calls            # the graph shows the user's op
    src = compiled.variants[0].source
    assert "be_cpu.fused_elementwise" not in src   # but it runs inside the fused region
    # one compiled kernel: the region (a flat one is njit of its body, beside its native entry point)
    assert len(re.findall(r"^(?:@njit|_region\d+ = njit)", src, re.M)) == 1


def test_custom_op_inside_a_compiled_step():
    import numba

    @numba.njit
    def fwd(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * x[i] * x[i]

    @numba.njit
    def bwd(g, x, out, gx):
        for i in range(x.shape[0]):
            gx[i] = 3.0 * x[i] * x[i] * g[i]
    cube = nbgrad.custom_op("cube", fwd, bwd)

    def step(x):
        x.grad = None
        y = (cube(x) + x).sum()
        y.backward()
        return y
    compiled = nbgrad.compile(step)
    for k in range(3):
        xe, xc = _leaf(np.linspace(-1, 1, 7) + k, np.float64), _leaf(np.linspace(-1, 1, 7) + k, np.float64)
        le, lc = step(xe), compiled(xc)
        _close(lc.detach().numpy(), le.detach().numpy(), np.float64)
        _close(xc.grad.numpy(), xe.grad.numpy(), np.float64)
    assert "run_user_kernel" in [n.op for n in compiled.graph]


def test_every_backend_function_is_classified_for_capture():
    """A backend function nbgrad.compile does not know stops a capture; this keeps the
    classification (pure, writes, host read, random) complete as backends grow."""
    from nbgrad._compile.capture import CLASSIFIED
    from nbgrad.backends import ACCELERATIONS, REQUIRED, SHORTCUTS
    names = {n for n in REQUIRED | ACCELERATIONS if not n.isupper()}
    import nbgrad.backends.cpu as cpu
    names |= {n for n in getattr(cpu, "__all__", ()) if not n.isupper()}
    # (the small-op shortcuts are off while a capture records: the test below)
    assert sorted(names - CLASSIFIED - SHORTCUTS) == []


def test_a_capture_records_the_ops_the_small_op_shortcuts_run_eagerly():
    """Small tensors' ops take the backends' shortcuts eagerly; a capture turns them off so
    that it records every kernel call, and they are back after it."""
    from nbgrad.ops import _graph
    def leaves():
        return _leaf(np.linspace(-1, 1, 5), np.float32), _leaf(np.linspace(0.5, 2, 5), np.float32)

    def step(a, b):
        a.grad = b.grad = None
        loss = ((a * b + 1).tanh() * a).sum()
        loss.backward()
        return loss.detach()
    ae, be = leaves()
    eager = step(ae, be)                    # fills the shortcut tables eagerly
    cpu_binary_dense = nbgrad.backends.get_backend("cpu").binary_dense
    assert any(table.get("cpu") is cpu_binary_dense for table in _graph.SHORTCUT_TABLES)
    ac, bc = leaves()
    compiled = nbgrad.compile(step)
    for _ in range(3):
        out = compiled(ac, bc)
        _close(out.numpy(), eager.numpy(), np.float32)
        _close(ac.grad.numpy(), ae.grad.numpy(), np.float32)
        _close(bc.grad.numpy(), be.grad.numpy(), np.float32)
    ops = [n.op for n in compiled.graph]
    forward = [op for op in ops if op in ("mul", "add", "tanh")]
    assert forward[:4] == ["mul", "add", "tanh", "mul"] and ops[4] == "reduce", ops
    step(ae, be)
    assert any(table.get("cpu") is cpu_binary_dense for table in _graph.SHORTCUT_TABLES)


def test_guards_on_requires_grad_and_parameter_identity():
    model = nn.Linear(3, 2)

    def f(x):
        with nbgrad.no_grad():
            return model(x) * 2
    step = nbgrad.compile(f)
    x = nbgrad.ones(4, 3)
    step(x)
    step(x)
    assert step.captures == 1
    step(nbgrad.ones(4, 3, requires_grad=True))
    assert step.captures == 2                       # requires_grad of an argument
    model.weight = nn.Parameter(nbgrad.zeros(2, 3))
    out = step(x)
    assert step.captures == 3                       # another parameter object
    np.testing.assert_allclose(out.numpy(), 2 * model.bias.detach().numpy()[None, :].repeat(4, 0), rtol=1e-6)
    with nbgrad.no_grad():
        model.bias.add_(1.0)                        # changed in place: the graph reads its memory
    np.testing.assert_allclose(step(x).numpy(), 2 * model.bias.detach().numpy()[None, :].repeat(4, 0), rtol=1e-6)
    assert step.captures == 3
