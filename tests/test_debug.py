"""NBGRAD_DEBUG: each dispatch decision is one record on the "nbgrad" logger.

Debug logging is switched on for each test with nbgrad._debug.enable (what the
environment variable does at import) and captured with caplog; every record carries
its event and fields (nbgrad_event, nbgrad_fields), and its message says the same.
"""
import logging

import numpy as np
import pytest

import nbgrad
from nbgrad import _debug
from nbgrad.backends.cpu import _threads
from nbgrad.ops import _graph


@pytest.fixture
def events(caplog):
    """Turns debug logging on; returns a function listing (event, fields) logged so far."""
    caplog.set_level(logging.DEBUG, logger="nbgrad")
    previous = _debug.enable(True)
    records = lambda: [(r.nbgrad_event, r.nbgrad_fields) for r in caplog.records if r.name == "nbgrad"]
    yield records
    _debug.enable(previous)


def fields_of(records, event):
    return [f for e, f in records if e == event]


def rand(*shape, requires_grad=False):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    return nbgrad.tensor(a, requires_grad=requires_grad)


def test_message_is_event_then_fields(caplog, events):
    rand(3, 4).exp()
    (record,) = [r for r in caplog.records if r.name == "nbgrad" and r.nbgrad_event == "unary"]
    assert record.levelno == logging.DEBUG
    assert record.getMessage() == "unary op=exp path=contiguous n=12 dtype=float32 split=False"


def test_unary_contiguous_and_strided(events):
    x = rand(6, 8)
    x.exp()
    x[:, ::2].exp()
    assert [(f["op"], f["path"]) for f in fields_of(events(), "unary")] == [("exp", "contiguous"), ("exp", "strided")]


def test_binary_contiguous_transposed_and_scalar(events):
    a, b = rand(6, 6), rand(6, 6)
    a + b
    a + b.t()
    a * 2.5
    2.5 - a
    paths = [f["path"] for f in fields_of(events(), "binary")]
    assert paths == ["contiguous", "strided", "scalar_b", "scalar_a"]


def test_where_copy_reduce_matmul(events):
    x = rand(40, 300)
    nbgrad.where(x > 0, x, rand(40, 300))
    nbgrad.where(x > 0, x, rand(300, 40).t())
    assert [f["path"] for f in fields_of(events(), "where")] == ["contiguous", "strided"]

    rand(300, 300).t().contiguous()
    x[:, ::3].contiguous()
    assert [f["path"] for f in fields_of(events(), "copy")][-2:] == ["blocked transpose", "strided"]

    x.sum(1)
    x.sum(0)            # (float sums: PyTorch's order; integer ones: the rows and columns kernels)
    n = (x * 100).long()
    n.sum(1)
    n.sum(0)
    assert [f["path"] for f in fields_of(events(), "reduce")][-4:] == ["pytorch order", "pytorch order", "rows",
                                                                      "columns"]

    m = rand(30, 40)
    m @ rand(40, 20)
    m @ rand(20, 40).t()
    m[:, ::2] @ rand(20, 20)
    nbgrad.arange(12).reshape(3, 4) @ nbgrad.arange(12).reshape(4, 3)
    mm = fields_of(events(), "matmul")
    assert [(f["path"], f["a"], f["b"], f["copied"]) for f in mm[:3]] == [
        ("blas", "C", "C", []), ("blas", "C", "F", []), ("blas", "C", "C", ["a"])]
    assert mm[3]["path"] == "loop" and mm[3]["dtype"] == np.int64


def test_large_op_with_threads_logs_the_split(events, monkeypatch):
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1 << 18)
    before = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(2)
        rand(1 << 19).tanh()
        nbgrad.set_num_threads(1)
        rand(1 << 19).tanh()
    finally:
        nbgrad.set_num_threads(before)
    records = events()
    # a float tanh that large splits through its native entry point (the team's workers)
    assert [f["split"] for f in fields_of(records, "unary")] == ["native", False]
    assert fields_of(records, "split") == [{"parts": 2, "n": 1 << 19, "threads": 2, "native": True}]


def test_a_split_on_the_thread_pool_is_logged(events, monkeypatch):
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1 << 18)
    monkeypatch.setattr(_threads, "TEAM_MIN_ELEMENTS", 0)            # no native split
    before = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(2)
        rand(1 << 19).tanh()
    finally:
        nbgrad.set_num_threads(before)
    records = events()
    assert [f["split"] for f in fields_of(records, "unary")] == [True]
    assert fields_of(records, "split") == [{"parts": 2, "n": 1 << 19, "threads": 2}]


@pytest.mark.skipif(not _graph.ACCELERATIONS_ON, reason="NBGRAD_FUSED=0: no fused backward to log")
def test_backward_recorded_fused_composed(events, monkeypatch):
    a, b = rand(5, 7, requires_grad=True), rand(5, 7, requires_grad=True)
    g = nbgrad.ones(5, 7)
    (a * b).backward(g, create_graph=True)
    (a * b).backward(g)
    monkeypatch.setattr(nbgrad.ops._graph, "ACCELERATIONS_ON", False)    # NBGRAD_FUSED=0
    (a * b).backward(g)
    backward = fields_of(events(), "backward")
    assert [f["path"] for f in backward] == ["recorded", "fused", "composed"]
    assert all(f["node"] == "MulBackward0.backward" for f in backward)


@pytest.mark.requires_jit          # about compilation and the disk cache: nothing compiles without the JIT
@pytest.mark.skipif(not _graph.ACCELERATIONS_ON, reason="NBGRAD_FUSED=0: no fused kernel is made")
def test_fused_kernel_compiled_then_from_memory_then_from_disk(events, monkeypatch, tmp_path):
    from nbgrad.backends.cpu import fused
    monkeypatch.setenv("NBGRAD_FUSED_DIR", str(tmp_path))     # a fresh generated module

    @nbgrad.fuse
    def f(x):
        return (x * 1.7320508 + 0.125).sin()

    x = rand(64)
    f(x)
    f(x)
    # a new process would find the kernel on disk: drop this process's copy of it
    monkeypatch.setattr(fused, "_kernels", fused.KernelCache())
    f(x)
    assert [r["cache"] for r in fields_of(events(), "fused_elementwise")] == ["compile", "memory", "disk"]


def test_off_logs_nothing(caplog):
    caplog.set_level(logging.DEBUG, logger="nbgrad")
    previous = _debug.enable(False)
    try:
        a, b = rand(5, 7, requires_grad=True), rand(5, 7, requires_grad=True)
        (a * b + a.t().t()[:, ::2].sum()).tanh().sum().backward()
        rand(30, 40) @ rand(40, 20)
    finally:
        _debug.enable(previous)
    assert [r for r in caplog.records if r.name == "nbgrad"] == []
