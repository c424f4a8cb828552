"""nbgrad.profiler and nbgrad.autograd.profiler: PyTorch's profiler API over nbgrad's kernels.

The API-shape tests (schedule, record_function nesting, the table's header, traces, the
legacy profile's attributes) also pass with PyTorch swapped in; the tests that read
nbgrad's own event names (kernels, backward nodes as nbgrad records them, what is restored
after a profile) have no PyTorch counterpart and skip there.  No test compares times with
a threshold: they check names, counts, nesting and the self = total - children identities.
"""
import glob
import json
import os
import threading
import time
import warnings

import numpy as np
import pytest

import nbgrad

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
nbgrad_only = pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad's own event names (kernel calls) and "
                                 "interception points: no PyTorch counterpart")


def _ranges(prof):
    """outer (sleep, inner (sleep)) and a decorated function called twice, in a profile."""
    rf = nbgrad.profiler.record_function

    @rf("decorated")
    def decorated(v):
        return v + 1

    with rf("outer"):
        time.sleep(0.001)
        with rf("inner"):
            time.sleep(0.002)
    assert decorated(1) == 2 and decorated(2) == 3


def _by_name(events, name):
    return [e for e in events if e.name == name]


# -- schedule ----------------------------------------------------------------

def test_schedule_action_sequence_is_pytorchs():
    A = nbgrad.profiler.ProfilerAction
    s = nbgrad.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    # PyTorch 2.13's sequence for these arguments, recorded
    expected = ["NONE", "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "WARMUP", "RECORD",
                "RECORD_AND_SAVE", "NONE", "NONE", "NONE"]
    assert [s(i) for i in range(12)] == [getattr(A, n) for n in expected]
    assert [a.value for a in (A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE)] == [0, 1, 2, 3]
    s = nbgrad.profiler.schedule(wait=0, warmup=2, active=1)
    assert [s(i).name for i in range(7)] == ["WARMUP", "WARMUP", "RECORD_AND_SAVE"] * 2 + ["WARMUP"]


def test_schedule_checks_its_arguments_and_warns_without_warmup():
    with pytest.warns(UserWarning, match="Profiler won't be using warmup, this can skew profiler results"):
        nbgrad.profiler.schedule(wait=0, warmup=0, active=1)
    with pytest.raises(AssertionError, match=r"Invalid profiler schedule arguments\. Got wait=0 \(need >= 0\), "
                                             r"warmup=1 \(need >= 0\), active=0 \(need > 0\)"):
        nbgrad.profiler.schedule(wait=0, warmup=1, active=0)


def test_schedule_steps_call_on_trace_ready_with_each_cycles_events(tmp_path):
    rf = nbgrad.profiler.record_function
    seen = []

    def ready(p):
        names = [e.name for e in p.events()]
        seen.append((p.step_num, [n for n in names if n.startswith("work")], names.count("ProfilerStep*")))
        nbgrad.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")(p)

    s = nbgrad.profiler.schedule(wait=0, warmup=1, active=1)
    with nbgrad.profiler.profile(schedule=s, on_trace_ready=ready) as p:
        for i in range(4):
            with rf(f"work{i}"):
                time.sleep(0.0005)
            p.step()
    # steps 0 and 2 warm up, 1 and 3 record; each recording is handed over when it ends
    assert seen == [(2, ["work1"], 1), (4, ["work3"], 1)]
    files = sorted(glob.glob(str(tmp_path / "w.*.pt.trace.json")))
    assert len(files) == 2
    for f in files:
        with open(f) as fh:
            trace = json.load(fh)
        assert any(ev.get("ph") == "X" and str(ev.get("name", "")).startswith("ProfilerStep#")
                   for ev in trace["traceEvents"])


# -- record_function, nesting, self times ---------------------------------------------

def test_record_function_ranges_nest_and_self_is_total_minus_children():
    with nbgrad.profiler.profile() as prof:
        _ranges(prof)
    events = prof.events()
    (outer,), (inner,) = _by_name(events, "outer"), _by_name(events, "inner")
    assert inner.cpu_parent is outer and outer.cpu_parent is None
    assert inner in outer.cpu_children
    assert outer.self_cpu_time_total == outer.cpu_time_total - sum(c.cpu_time_total for c in outer.cpu_children)
    assert inner.self_cpu_time_total == inner.cpu_time_total - sum(c.cpu_time_total for c in inner.cpu_children)
    assert outer.time_range.start <= inner.time_range.start <= inner.time_range.end <= outer.time_range.end
    assert 0 < inner.cpu_time_total <= outer.cpu_time_total
    assert outer.self_cpu_time_total > 0        # (it slept outside inner)
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["decorated"].count == 2 and avg["outer"].count == 1 and avg["inner"].count == 1
    d = _by_name(events, "decorated")
    assert avg["decorated"].cpu_time_total == d[0].cpu_time_total + d[1].cpu_time_total
    assert avg["decorated"].cpu_time == avg["decorated"].cpu_time_total / 2
    total = prof.key_averages().total_average()
    assert total.key == "Total" and total.count == len(events)


def test_record_function_without_a_profile_records_nothing():
    rf = nbgrad.profiler.record_function("nothing")
    with rf as r:
        assert r is rf

    @nbgrad.autograd.profiler.record_function("f")
    def f(x):
        return x * 3
    assert f(2) == 6
    assert nbgrad.profiler.record_function is nbgrad.autograd.profiler.record_function


def test_table_header_and_order_are_pytorchs():
    with nbgrad.profiler.profile() as prof:
        with nbgrad.profiler.record_function("outer"):
            time.sleep(0.001)
            with nbgrad.profiler.record_function("inner"):
                time.sleep(0.001)
    table = prof.key_averages().table(sort_by="cpu_time_total")
    lines = table.splitlines()
    # PyTorch 2.13's table for these two ranges (a name column of len("outer") + 4)
    sep = "---------  ------------  ------------  ------------  ------------  ------------  ------------  "
    assert lines[0] == sep and lines[2] == sep and lines[5] == sep
    assert lines[1] == "     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  "
    assert [ln.split()[0] for ln in lines[3:5]] == ["outer", "inner"]
    assert lines[3].split()[3] == "100.00%" and lines[3].split()[-1] == "1"
    assert lines[6].startswith("Self CPU time total: ") and table.endswith("\n")
    titled = prof.key_averages().table(header="HDR", row_limit=1)
    assert titled.splitlines()[:2] == ["=" * (len(sep) - 2), "HDR"]
    assert len(titled.splitlines()) == 8          # (=, HDR, sep, names, sep, one row, sep, total)


def test_events_export_to_a_chrome_trace_that_loads(tmp_path):
    with nbgrad.profiler.profile() as prof:
        _ranges(prof)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    with open(path) as f:
        trace = json.load(f)
    spans = [ev for ev in trace["traceEvents"] if ev.get("ph") == "X"]
    by_name = {ev["name"]: ev for ev in spans}
    assert {"outer", "inner", "decorated"} <= set(by_name)
    for ev in spans:
        assert {"ts", "dur", "pid", "tid", "name"} <= set(ev) and ev["dur"] >= 0
    o, i = by_name["outer"], by_name["inner"]
    assert o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"] + 1e-3
    with nbgrad.profiler.profile() as prof2:       # (PyTorch saves a recording's trace once)
        _ranges(prof2)
    prof2.export_chrome_trace(str(tmp_path / "trace.json.gz"))
    import gzip
    with gzip.open(tmp_path / "trace.json.gz", "rt") as f:
        assert {"outer", "inner"} <= {ev.get("name") for ev in json.load(f)["traceEvents"]}
    # an EventList's own export: PyTorch's list of "X" events
    prof.events().export_chrome_trace(str(tmp_path / "events.json"))
    with open(tmp_path / "events.json") as f:
        listed = json.load(f)
    assert isinstance(listed, list) and {"outer", "inner"} <= {ev["name"] for ev in listed}
    assert all(ev["ph"] == "X" and ev["dur"] >= 0 for ev in listed)


def test_start_stop_and_results_of_the_legacy_profiler():
    p = nbgrad.profiler.profile()
    p.start()
    _ranges(p)
    p.stop()
    assert {"outer", "inner", "decorated"} <= {a.key for a in p.key_averages()}

    with nbgrad.autograd.profiler.profile(record_shapes=True) as lp:
        _ranges(lp)
    fe = lp.function_events
    assert isinstance(fe, nbgrad.autograd.profiler.EventList)
    assert all(isinstance(e, nbgrad.autograd.profiler.FunctionEvent) for e in fe)
    assert lp.self_cpu_time_total == sum(e.self_cpu_time_total for e in fe)
    avgs = lp.key_averages()
    assert {type(a).__name__ for a in avgs} == {"FunctionEventAvg"}      # (torch.autograd.profiler_util's)
    assert lp.total_average().count == len(fe)
    assert "outer" in lp.table(sort_by="self_cpu_time_total")
    with pytest.raises(RuntimeError, match="Profiler context manager is not reentrant"):
        with lp:
            pass
    with nbgrad.autograd.profiler.profile(enabled=False) as off:
        pass
    assert off is None


def test_cuda_activity_on_a_machine_without_cuda_warns_and_records_the_cpu():
    if nbgrad.cuda.is_available():
        pytest.skip("CUDA is available here")
    P = nbgrad.profiler
    with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
        with P.profile(activities=[P.ProfilerActivity.CPU, P.ProfilerActivity.CUDA]) as prof:
            _ranges(prof)
    assert "outer" in {a.key for a in prof.key_averages()}
    with pytest.warns(FutureWarning, match="use_cuda"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            nbgrad.autograd.profiler.profile(use_cuda=True)


# -- nbgrad's events ------------------------------------------------------------

def _mlp_step():
    nn = nbgrad.nn
    nbgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = nbgrad.optim.SGD(model.parameters(), lr=0.1)
    x = nbgrad.randn(8, 6)
    y = nbgrad.tensor([0, 1, 2, 0, 1, 2, 0, 1])

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


@nbgrad_only
def test_a_training_step_shows_its_nodes_kernels_and_optimizer_step():
    from nbgrad.backends import get_backend
    from nbgrad.ops import _graph
    step = _mlp_step()
    step()
    with nbgrad.profiler.profile(record_shapes=True) as prof:
        step()
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["AddmmBackward0"].count == 3
    assert avg["autograd::engine::evaluate_function: AddmmBackward0"].count == 3
    assert avg["ReluBackward0"].count == 2
    assert avg["torch::autograd::AccumulateGrad"].count == 6
    assert avg["Optimizer.step#SGD.step"].count == 1
    assert avg["Optimizer.zero_grad#SGD.zero_grad"].count == 1
    # GEMMs: one per layer forward; backward, one linear_backward kernel per layer when the
    # backend has it, else mm(g, w) and mm(g.T, x) per layer less the first layer's input gradient
    layers = 3
    fused = _graph.ACCELERATIONS_ON and "linear_backward" in get_backend("cpu").ACCELERATIONS
    assert avg["nbgrad::matmul"].count == layers + (0 if fused else 2 * layers - 1)
    if fused:
        assert avg["nbgrad::linear_backward"].count == layers
    events = prof.events()
    for e in events:
        assert e.self_cpu_time_total == e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children)
    # every node's range sits inside its evaluate_function range, which it fills but for nothing
    for e in _by_name(events, "AddmmBackward0"):
        assert e.cpu_parent.name == "autograd::engine::evaluate_function: AddmmBackward0"
        assert e.cpu_parent.cpu_children == [e]
        assert any(c.name.startswith("nbgrad::") for c in e.cpu_children)
    opt_step = _by_name(events, "Optimizer.step#SGD.step")[0]
    assert all(c.name.startswith("nbgrad::") for c in opt_step.cpu_children) and opt_step.cpu_children
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(
        sum(e.cpu_time_total for e in events if e.cpu_parent is None), rel=1e-9)
    shaped = {(a.key, str(a.input_shapes)) for a in prof.key_averages(group_by_input_shape=True)}
    assert ("nbgrad::matmul", str([[8, 6], [6, 16], []])) in shaped


@nbgrad_only
def test_everything_is_restored_after_a_profile_even_when_it_raised():
    from nbgrad._compile.function import CompiledFunction
    from nbgrad.autograd.engine import _Walk
    from nbgrad.autograd.node import Node
    from nbgrad.backends import _BACKENDS, get_backend
    from nbgrad.ops import _graph
    get_backend("cpu")
    nbgrad.ones(4) + nbgrad.ones(4)
    backends = dict(_BACKENDS)
    patched = [(Node, "__call__"), (_Walk, "_accumulate_leaf"), (nbgrad.optim.SGD, "step"),
               (nbgrad.optim.Adam, "step"), (nbgrad.optim.Optimizer, "zero_grad"), (CompiledFunction, "__call__"),
               (CompiledFunction, "_capture")]
    before = [cls.__dict__[attr] for cls, attr in patched]
    tables = [(t, dict(t)) for t in _graph.SHORTCUT_TABLES]
    binary_dense = next(t for t in _graph.SHORTCUT_TABLES if t.name == "binary_dense")
    binary_dense.clear()            # (empty before: empty after, and it fills from the real backend)
    x = nbgrad.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError):
        with nbgrad.profiler.profile() as prof:
            assert not isinstance(_BACKENDS["cpu"], type(backends["cpu"]))
            (x * 2).sum().backward()
            nbgrad.mm(nbgrad.ones(2, 3), nbgrad.ones(2, 3))      # (shapes that do not multiply)
    assert {k: v for k, v in _BACKENDS.items()} == backends
    assert all(_BACKENDS[k] is v for k, v in backends.items())
    assert [cls.__dict__[attr] for cls, attr in patched] == before
    assert "cpu" not in binary_dense
    for t, saved in tables:
        if t is not binary_dense:
            assert dict(t) == saved and all(t[k] is v for k, v in saved.items())
    names = {e.name for e in prof.events()}
    assert {"nbgrad::binary_dense.mul", "MulBackward0", "SumBackward0"} <= names
    nbgrad.ones(4) + nbgrad.ones(4)
    assert binary_dense["cpu"] is get_backend("cpu").binary_dense      # the shortcut again
    with nbgrad.profiler.profile() as prof2:          # and a later profile sees it again
        nbgrad.ones(4) + nbgrad.ones(4)
    assert "nbgrad::binary_dense.add" in {e.name for e in prof2.events()}
    assert binary_dense["cpu"] is get_backend("cpu").binary_dense


@nbgrad_only
def test_a_second_profile_is_refused_in_this_thread_and_others():
    # (PyTorch 2.13 lets a nested profile take the outer one's events silently)
    from nbgrad.backends import _BACKENDS
    backends = dict(_BACKENDS)
    errors = []

    def other():
        try:
            with nbgrad.profiler.profile():
                pass
        except RuntimeError as e:
            errors.append(str(e))

    with nbgrad.profiler.profile() as prof:
        with nbgrad.profiler.record_function("kept"):
            with pytest.raises(RuntimeError, match="^Profiler is already enabled on this thread$"):
                with nbgrad.profiler.profile():
                    pass
            with pytest.raises(RuntimeError, match="^Profiler is already enabled on this thread$"):
                with nbgrad.autograd.profiler.profile():
                    pass
            t = threading.Thread(target=other)
            t.start()
            t.join()
    assert len(errors) == 1 and errors[0].startswith("Profiler is already enabled on another thread")
    assert [e.name for e in prof.events()] == ["kept"]
    assert all(_BACKENDS[k] is v for k, v in backends.items())


@nbgrad_only
def test_kernel_events_carry_op_names_and_shapes():
    a, b = nbgrad.ones(3, 4, dtype=nbgrad.float64), nbgrad.ones(4, 5, dtype=nbgrad.float64)
    with nbgrad.profiler.profile(record_shapes=True) as prof:
        nbgrad.mm(a, b)
    (mm,) = _by_name(prof.events(), "nbgrad::matmul")
    assert mm.input_shapes == [[3, 4], [4, 5], []]
    table = prof.key_averages(group_by_input_shape=True).table()
    assert table.splitlines()[1].split()[-2:] == ["Input", "Shapes"]
    with nbgrad.profiler.profile() as prof:
        nbgrad.mm(a, b)
    assert _by_name(prof.events(), "nbgrad::matmul")[0].input_shapes == []


@nbgrad_only
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nbgrad.compile generates njit code")
def test_compiling_inside_a_profile_works_and_compiled_calls_are_one_range():
    from nbgrad.backends import _BACKENDS
    step = _mlp_step()
    compiled = nbgrad.compile(step)
    with nbgrad.profiler.profile() as prof:
        first = compiled()          # captures: eager calls, their kernels recorded (the second
        compiled()                  # call captures again: the gradients exist by then)
        third = compiled()          # the generated code: one range
    assert compiled.captures == 2
    ranges = _by_name(prof.events(), "nbgrad.compile: _mlp_step.<locals>.step")
    assert len(ranges) == 3
    assert any(c.name == "Optimizer.step#SGD.step" for c in ranges[0].cpu_children)
    assert ranges[2].cpu_children == [] and not any(
        e.name.startswith("nbgrad::") for e in prof.events()
        if ranges[2].time_range.start <= e.time_range.start <= ranges[2].time_range.end)
    assert len(compiled.variants) == 2
    for variant in compiled.variants:
        assert all(be is _BACKENDS[dev] for dev, be in variant.backends.items())
    # the same calls of the same function compiled outside a profile: the same losses
    plain = nbgrad.compile(_mlp_step())
    losses = [plain().item() for _ in range(3)]
    np.testing.assert_allclose([first.item(), third.item(), compiled().item()],
                               [losses[0], losses[2], plain().item()], rtol=1e-6)
