"""Kernel calls split across threads give the same answers as one serial call.

The split threshold is forced down to 1 element and the thread count up to 3
(uneven pieces), so small inputs take the threaded paths of elementwise,
copy, fill and reductions; results are compared with NumPy.
"""
import numpy as np
import pytest

from nbgrad.backends import cpu as B
from nbgrad.backends.cpu import _threads


@pytest.fixture(autouse=True)
def split_everything(monkeypatch):
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS_MEMORY", 1)
    monkeypatch.setattr(_threads, "_count", 3)
    monkeypatch.setattr(_threads, "_pool", None)
    monkeypatch.setattr(_threads, "SPLIT_FLOOR", 1)
    yield


def view(a):
    """(buf, offset, shape, strides in elements) over numpy array a."""
    buf, off, st = B.from_numpy(a)
    return buf, off, a.shape, st


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_split_pieces_cover_the_range():
    assert _threads.split(10, 3, align=1) == [(0, 3), (3, 6), (6, 10)]
    assert _threads.split(1000, 3, align=64) == [(0, 320), (320, 640), (640, 1000)]
    assert _threads.split(5, 3, align=64) == [(0, 5)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_contiguous_and_strided(dtype):
    x = rand(37, 53, dtype=dtype)
    np.testing.assert_allclose(B.unary("tanh", view(x), np.dtype(dtype)), np.tanh(x).ravel(), rtol=1e-6)
    t = x.T
    np.testing.assert_allclose(B.unary("exp", view(t), np.dtype(dtype)), np.exp(t).ravel(), rtol=1e-6)
    s = x[::2, 1::3]
    np.testing.assert_array_equal(B.unary("neg", view(s), np.dtype(dtype)), (-s).ravel())


def test_binary_contiguous_scalar_and_strided():
    a, b = rand(41, 29), rand(41, 29, seed=1)
    f32 = np.dtype(np.float32)
    np.testing.assert_array_equal(B.binary("mul", view(a), view(b), a.shape, f32), (a * b).ravel())
    s = np.float32(2.5) * np.ones(1, np.float32)
    sb = (s, 0, a.shape, (0, 0))
    np.testing.assert_array_equal(B.binary("sub", view(a), sb, a.shape, f32), (a - 2.5).ravel())
    np.testing.assert_array_equal(B.binary("sub", sb, view(a), a.shape, f32), (2.5 - a).ravel())
    row = rand(29, seed=2)
    rb = (row, 0, a.shape, (0, 1))
    np.testing.assert_array_equal(B.binary("add", view(a.T.copy().T), rb, a.shape, f32), (a + row).ravel())
    np.testing.assert_array_equal(B.binary("maximum", view(a[::3]), view(b[::3]), a[::3].shape, f32),
                                  np.maximum(a[::3], b[::3]).ravel())


def test_mul_backward_matches_two_products():
    g, a, b = rand(1000), rand(1000, seed=1), rand(1000, seed=2)
    ga, gb = B.mul_backward(view(g), view(a), view(b))
    np.testing.assert_array_equal(ga, g * b)
    np.testing.assert_array_equal(gb, g * a)


@pytest.mark.parametrize("shape", [(100, 70), (64, 64), (130, 200)])
def test_copy_transpose_contiguous_and_cast(shape):
    x = rand(*shape)
    out = np.empty(x.size, np.float32)
    B.copy(view(x.T), (out, 0, x.T.shape, (shape[0], 1)))
    np.testing.assert_array_equal(out, x.T.ravel())
    out64 = np.empty(x.size, np.float64)
    B.copy(view(x.T), (out64, 0, x.T.shape, (shape[0], 1)))
    np.testing.assert_array_equal(out64, x.T.astype(np.float64).ravel())
    flat = np.empty(x.size, np.float32)
    B.copy(view(x), (flat, 0, x.shape, (shape[1], 1)))
    np.testing.assert_array_equal(flat, x.ravel())
    odd = np.empty(x[1::2, ::3].size, np.float32)
    B.copy(view(x[1::2, ::3]), (odd, 0, x[1::2, ::3].shape, (x[1::2, ::3].shape[1], 1)))
    np.testing.assert_array_equal(odd, x[1::2, ::3].ravel())


def test_fill_split():
    out = np.zeros(1001, np.float32)
    B.fill((out, 0, (1001,), (1,)), 3.5)
    assert (out == 3.5).all()


def test_reductions_rows_columns_and_totals():
    x = rand(300, 257, dtype=np.float32)
    f32 = np.dtype(np.float32)
    np.testing.assert_allclose(B.reduce("sum", view(x), (1,), f32), x.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(B.reduce("sum", view(x), (0,), f32), x.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(B.reduce("amax", view(x), (0,), f32), x.max(0))
    np.testing.assert_allclose(B.reduce("sum", view(x), (0, 1), f32), [x.astype(np.float64).sum()], rtol=1e-6)
    np.testing.assert_allclose(B.reduce("mean", view(x), (0, 1), f32), [x.astype(np.float64).mean()], rtol=1e-5)
    np.testing.assert_array_equal(B.reduce("max", view(x), (0, 1), f32), [x.max()])
    np.testing.assert_array_equal(B.reduce("min", view(x), (0, 1), f32), [x.min()])
    y = x.copy()
    y[250, 3] = np.nan
    assert np.isnan(B.reduce("max", view(y), (0, 1), f32)[0])
    assert np.isnan(B.reduce("amax", view(y), (0,), f32)[3])


@pytest.mark.parametrize("is_max", [True, False])
def test_max_with_index_over_columns_ties_and_nan(is_max):
    x = np.round(rand(200, 67) * 2).astype(np.float32)   # many ties
    x[17, 5] = np.nan
    x[40, 5] = np.nan
    values, indices = B.max_with_index(view(x), 0, is_max)
    want = np.nanargmax(x, 0) if is_max else np.nanargmin(x, 0)
    want[5] = 17                                          # first NaN wins
    np.testing.assert_array_equal(indices, want)
    ref = x.max(0) if is_max else x.min(0)
    np.testing.assert_array_equal(values, ref)
    values, indices = B.max_with_index(view(x), 1, is_max)
    ref_idx = [np.argmax(np.isnan(r)) if np.isnan(r).any() else (np.argmax(r) if is_max else np.argmin(r))
               for r in x]
    np.testing.assert_array_equal(indices, ref_idx)
    np.testing.assert_array_equal(B.reduce("argmax" if is_max else "argmin", view(x), (0,), np.dtype(np.int64)),
                                  want)


def test_mul_backward_one_gradient_and_broadcast_fall_back():
    g, a = rand(6, 5), rand(6, 5, seed=1)
    b = rand(5, seed=2)
    bview = (b, 0, (6, 5), (0, 1))
    ga, gb = B.mul_backward(view(g), view(a), bview)
    np.testing.assert_array_equal(ga, (g * b).ravel())
    np.testing.assert_array_equal(gb, (g * a).ravel())   # full shape: the caller reduces it
    ga, gb = B.mul_backward(view(g), view(a), bview, need_a=False)
    assert ga is None
    np.testing.assert_array_equal(gb, (g * a).ravel())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_backward(dtype):
    x, w, g = rand(7, 5, dtype=dtype), rand(3, 5, dtype=dtype, seed=1), rand(7, 3, dtype=dtype, seed=2)
    gx, gw, gb = B.linear_backward(view(g), view(x), view(w))
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(gx, (g @ w).ravel(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(gw, (g.T @ x).ravel(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(gb, g.sum(0), rtol=rtol, atol=rtol)
    gx, gw, gb = B.linear_backward(view(g), view(x), view(w), need_x=False, need_b=False)
    assert gx is None and gb is None
    np.testing.assert_allclose(gw, (g.T @ x).ravel(), rtol=rtol, atol=rtol)
    # a transposed (F-contiguous) gradient is used in place
    gt = np.asfortranarray(g)
    _, gw2, _ = B.linear_backward(view(gt), view(x), view(w))
    np.testing.assert_allclose(gw2, (g.T @ x).ravel(), rtol=rtol, atol=rtol)
