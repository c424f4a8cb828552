"""copy_raw (clone, contiguous, and the ops that copy through it): a small row-major CPU tensor
is NumPy's copy of its run, a small strided one NumPy's copy of an ndarray over its buffer;
the result must be the backend copy's tensor, share nothing with the source, and every other
call must take the backend's copy."""
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
    yield "transposed", base[3:].view(37, 1)[:36].view(6, 6).t()
    yield "expanded scalar", nbgrad.tensor(-0.0).expand(5, 4)           # (x.sum()'s gradient)
    yield "expanded row", base[:5].view(1, 5).expand(3, 5)
    yield "sliced columns", base.view(4, 10)[1:, ::3]
    yield "strided int8", nbgrad.from_numpy(RNG.integers(-9, 9, (5, 6)).astype(np.int8)).t()
    yield "strided float16", nbgrad.from_numpy(RNG.standard_normal((4, 3)).astype(np.float16)).t()
    nan_bits = np.array([0x7FC00001, 0xFFC00002, 0x7F800000, 0x80000000], np.uint32).view(np.float32)
    yield "NaN payloads, transposed", nbgrad.from_numpy(nan_bits.reshape(2, 2)).t()


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
    assert not np.shares_memory(clone.numpy(), t.numpy())
    assert np.array_equal(clone.numpy(), t.numpy(), equal_nan=True)
    assert clone.is_contiguous() or not t.is_contiguous()    # (clone keeps a dense layout, as PyTorch's)


def test_other_copies_take_the_backends():
    calls = []
    cpu = nbgrad.backends.get_backend("cpu")
    original = cpu.copy
    x = nbgrad.from_numpy(RNG.standard_normal((4, 6)).astype(np.float32))
    big = nbgrad.zeros(2 * (_graph._SMALL_COPY_BYTES // 4 + 1))
    try:
        cpu.copy = lambda *a, **k: calls.append(1) or original(*a, **k)
        _graph.copy_raw(x, (1, 4))                  # column-major strides asked for
        _graph.copy_raw(big)                        # large
        _graph.copy_raw(big.view(2, -1)[:, 1:])     # large and strided
        _graph.copy_raw(x)                          # small and row-major: NumPy's
        _graph.copy_raw(x.t())                      # small and strided: NumPy's
        _graph.CAPTURE[0] = object()                # nbgrad.compile capturing: the backend's
        try:
            _graph.copy_raw(x.t())
            _graph.copy_raw(x)
        finally:
            _graph.CAPTURE[0] = None
    finally:
        cpu.copy = original
    assert len(calls) == 5
