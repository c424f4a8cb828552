"""copy_raw (clone, contiguous, and the ops that copy through it): a small row-major CPU tensor
is NumPy's copy of its run; the result must be the backend copy's tensor, share nothing with
the source, and every other call must take the backend's copy."""
import numpy as np
import pytest

import nbgrad
from nbgrad.ops import _graph

RNG = np.random.default_rng(5)


def _sources():
    base = nbgrad.from_numpy(RNG.standard_normal(40).astype(np.float32))
    yield "vector", nbgrad.from_numpy(RNG.standard_normal(16).astype(np.float32))
    yield "matrix view", base[4:].view(6, 6)          # an offset into its buffer
    yield "0-dim", base[7]
    yield "float16", nbgrad.from_numpy(RNG.standard_normal((3, 5)).astype(np.float16))
    yield "bool", nbgrad.from_numpy(RNG.integers(0, 2, 9).astype(bool))
    yield "int64", nbgrad.arange(11)
    yield "negative zero", nbgrad.tensor([-0.0, 0.0, float("nan")])


@pytest.mark.parametrize("name, t", list(_sources()))
def test_a_small_row_major_copy_is_the_backend_copys_tensor(monkeypatch, name, t):
    fast = _graph.copy_raw(t)
    small = _graph._SMALL_COPY_BYTES
    monkeypatch.setattr(_graph, "_SMALL_COPY_BYTES", -1)     # the backend's copy
    general = _graph.copy_raw(t)
    monkeypatch.setattr(_graph, "_SMALL_COPY_BYTES", small)
    assert fast.shape == general.shape and fast.stride() == general.stride() and fast.dtype is general.dtype
    assert np.ascontiguousarray(fast.numpy()).view(np.uint8).tolist() == \
        np.ascontiguousarray(general.numpy()).view(np.uint8).tolist()
    assert not np.shares_memory(fast.numpy(), t.numpy())
    clone = t.clone()
    assert not np.shares_memory(clone.numpy(), t.numpy()) and clone.is_contiguous()


def test_other_copies_take_the_backends():
    calls = []
    cpu = nbgrad.backends.get_backend("cpu")
    original = cpu.copy
    x = nbgrad.from_numpy(RNG.standard_normal((4, 6)).astype(np.float32))
    big = nbgrad.zeros(_graph._SMALL_COPY_BYTES // 4 + 1)
    try:
        cpu.copy = lambda *a, **k: calls.append(1) or original(*a, **k)
        _graph.copy_raw(x.t())                      # not row-major
        _graph.copy_raw(x, (1, 4))                  # column-major strides asked for
        _graph.copy_raw(big)                        # large
        _graph.copy_raw(x)                          # small and row-major: NumPy's
    finally:
        cpu.copy = original
    assert len(calls) == 3
