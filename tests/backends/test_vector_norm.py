"""The 2-norm over runs at unit stride (the CPU's vector_norm2): PyTorch's CPU kernel for it,
to the bit.  Per run: acc_vec += x * x over the full 32-byte vectors (8 float32 / 4 float64
lanes), the lanes added in order, the rest one at a time (float32: a block of four unfused
first, as PyTorch's build vectorizes that loop, then fused multiply-adds; float64: fused
multiply-adds), then the sqrt in the dtype."""
import numpy as np
import pytest

import nbgrad
from nbgrad.backends import cpu

# torch.linalg.vector_norm(x) of torch 2.13's CPU wheel for x = default_rng(n).standard_normal(n) * 3
# in the dtype: the result's bits
RECORDED = [("float32", 3, 0x411e4418), ("float32", 6, 0x41316677), ("float32", 13, 0x4156586a),
            ("float32", 37, 0x418e155a), ("float32", 100, 0x41e92a43), ("float32", 1000, 0x42b6757f),
            ("float32", 4097, 0x433eeabc), ("float64", 2, 0x3ffaaeb420469b21), ("float64", 5, 0x4017c6f70023e0a6),
            ("float64", 9, 0x401ce248a1c1d274), ("float64", 1001, 0x4057a562370450e6)]


def _reference(x):
    """PyTorch's loop, element by element in NumPy (a fused multiply-add rounded once through
    long double, exact for these products and sums' roundings)."""
    dt = x.dtype.type
    lanes = 32 // x.itemsize
    n = x.size
    full = n - n % lanes
    acc = np.zeros(lanes, dt)
    for d in range(0, full, lanes):
        v = x[d:d + lanes]
        acc = (acc + v * v).astype(dt)
    b = acc[0]
    for j in range(1, lanes):
        b = dt(b + acc[j])
    unfused = 4 * ((n - full) // 4) if dt is np.float32 else 0
    for i, d in enumerate(range(full, n)):
        if i < unfused:
            b = dt(b + dt(x[d] * x[d]))
        else:
            b = dt(np.longdouble(x[d]) * np.longdouble(x[d]) + np.longdouble(b))
    return np.sqrt(b)


@pytest.mark.parametrize("dtype, n, bits", RECORDED)
def test_the_norm_of_a_run_has_pytorchs_recorded_bits(dtype, n, bits):
    x = (np.random.default_rng(n).standard_normal(n) * 3).astype(dtype)
    ints = np.uint32 if dtype == "float32" else np.uint64
    got = nbgrad.from_numpy(x).norm().numpy()
    assert int(got.view(ints)) == bits
    assert int(nbgrad.linalg.vector_norm(nbgrad.from_numpy(x)).numpy().view(ints)) == bits


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_norm2_is_pytorchs_loop_over_every_tail(dtype):
    rng = np.random.default_rng(7)
    for n in list(range(1, 70)) + [255, 256, 257, 1001]:
        x = (rng.standard_normal(n + 5) * 10 ** rng.uniform(-3, 3)).astype(dtype)
        got = cpu.vector_norm2((x, 5, (n,), (1,)), 1, n)
        assert got.dtype == dtype and got.shape == (1,)
        np.testing.assert_array_equal(got.view(np.uint8), _reference(x[5:]).reshape(1).view(np.uint8))


def test_vector_norm2_of_rows_and_special_values():
    rng = np.random.default_rng(8)
    x = rng.standard_normal(3 + 4 * 37).astype(np.float32)
    x[3 + 37 + 5] = np.nan
    x[3 + 2 * 37 + 30] = np.inf
    got = cpu.vector_norm2((x, 3, (4, 37), (37, 1)), 4, 37)
    want = np.array([_reference(x[3 + i * 37:3 + (i + 1) * 37]) for i in range(4)])
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert np.isnan(got[1]) and got[2] == np.inf and np.isfinite(got[[0, 3]]).all()
    big = np.full(40, 3e30, np.float32)             # the squares overflow float32: inf, as PyTorch's
    assert cpu.vector_norm2((big, 0, (40,), (1,)), 1, 40)[0] == np.inf


def test_the_op_takes_the_kernel_for_trailing_dims_of_a_row_major_tensor(monkeypatch):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    calls = []
    real = cpu.vector_norm2
    monkeypatch.setattr(cpu, "vector_norm2", lambda *args: calls.append(args[1:]) or real(*args))
    x = nbgrad.from_numpy(a).requires_grad_()
    y = x.norm(2, (1, 2), keepdim=True)
    assert calls == [(3, 20)] and y.shape == (3, 1, 1)
    np.testing.assert_array_equal(y.detach().numpy().ravel(), [_reference(r) for r in a.reshape(3, 20)])
    y.sum().backward()
    assert y.grad_fn.name() == "LinalgVectorNormBackward0"
    np.testing.assert_allclose(x.grad.numpy(), a / y.detach().numpy(), rtol=1e-6)
    assert nbgrad.from_numpy(a).norm(dim=-1).shape == (3, 4) and calls[-1] == (12, 5)
    calls.clear()
    # a leading dim, a transposed tensor, float16, other orders: the composed norm
    t = nbgrad.from_numpy(a).transpose(0, 2)
    np.testing.assert_allclose(t.norm(dim=-1).numpy(), np.sqrt((a.transpose(2, 1, 0).astype(np.float64) ** 2).sum(-1)),
                               rtol=1e-6)
    nbgrad.from_numpy(a).norm(dim=0)
    nbgrad.from_numpy(a).half().norm()
    nbgrad.from_numpy(a).norm(1)
    assert calls == []
    assert nbgrad.zeros(0, 3).norm(dim=-1).shape == (0,) and nbgrad.zeros(2, 0).norm(dim=-1).tolist() == [0.0, 0.0]
