"""float16 max/avg/adaptive-avg pooling on the CPU as torch 2.13 computes Half: forwards in
float32 rounded once, backwards adding in Half output by output (recorded cases, and a NumPy
reference of those roundings)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.backends.cpu.pooling import _round_half

F = nbgrad.nn.functional
H16 = np.float16


def _bits_equal(a, b):
    np.testing.assert_array_equal(np.asarray(a, H16).view(np.int16), np.asarray(b, H16).view(np.int16))


def test_round_half_is_float16_rounding():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(20000).astype(np.float32) * s for s in (1e-7, 1e-5, 1, 3e4)] +
                            [np.array([0.0, -0.0, 65504, 65519.99, 65520, -7e4, 2.0 ** -25, 3 * 2.0 ** -26],
                                      np.float32)])
    with np.errstate(over="ignore"):
        ref = values.astype(H16).astype(np.float64)
    got = np.array([_round_half(float(v)) for v in values])
    np.testing.assert_array_equal(got, ref)
    assert np.isnan(_round_half(float("nan"))) and _round_half(float("-inf")) == float("-inf")


def test_half_backward_adds_in_half():
    # torch 2.13: 1.0 gathers 1.0 + 4 * 0.0004 in Half, one rounding per add: it stays 1.0
    # (a float32 sum rounded once would give 1.002)
    x = nbgrad.zeros(1, 1, 1, 9, dtype=nbgrad.float16)
    x[0, 0, 0, 4] = 1
    x.requires_grad_()
    g = nbgrad.tensor(np.array([1.0, 0.0004, 0.0004, 0.0004, 0.0004], H16).reshape(1, 1, 1, 5))
    F.max_pool2d(x, (1, 5), stride=1).backward(g)
    assert x.grad.dtype == nbgrad.float16 and float(x.grad[0, 0, 0, 4]) == 1.0
    x = nbgrad.zeros(1, 1, 1, 9, dtype=nbgrad.float16, requires_grad=True)
    F.avg_pool2d(x, (1, 5), stride=1).backward(g * 5)
    assert float(x.grad[0, 0, 0, 4]) == 1.0
    # the forward sums in float32: (1 + 4 * 0.0004) / 5 -> 0.2003173828125 (torch 2.13)
    y = F.avg_pool2d(nbgrad.tensor(np.array([[[[1.0] + [0.0004] * 4]]], H16)), (1, 5))
    assert y.dtype == nbgrad.float16 and float(y) == 0.2003173828125


def _windows(n, k, s, p):
    return [(o * s - p, o * s - p + k) for o in range((n + 2 * p - k) // s + 1)]


def ref_max_pool_half(x, g, k, s, p):
    """(out, gx): PyTorch's max (first maximum) and its Half backward, output by output."""
    H, W = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (len(_windows(H, k, s, p)), len(_windows(W, k, s, p))), H16)
    gx = np.zeros(x.shape, H16)
    for idx in np.ndindex(*x.shape[:-2]):
        for a, (h0, h1) in enumerate(_windows(H, k, s, p)):
            for b, (w0, w1) in enumerate(_windows(W, k, s, p)):
                win = x[idx][max(h0, 0):min(h1, H), max(w0, 0):min(w1, W)]
                i, j = np.unravel_index(np.argmax(win), win.shape)
                out[idx + (a, b)] = win[i, j]
                pos = idx + (max(h0, 0) + i, max(w0, 0) + j)
                gx[pos] = H16(np.float32(gx[pos]) + np.float32(g[idx + (a, b)]))
    return out, gx


def ref_avg_pool_half(x, g, k, s, p):
    """(out, gx) of avg_pool2d(count_include_pad=True): float32 sums / k*k, Half backward."""
    H, W = x.shape[-2:]
    out = np.zeros(g.shape, H16)
    gx = np.zeros(x.shape, H16)
    for idx in np.ndindex(*x.shape[:-2]):
        for a, (h0, h1) in enumerate(_windows(H, k, s, p)):
            for b, (w0, w1) in enumerate(_windows(W, k, s, p)):
                rows, cols = slice(max(h0, 0), min(h1, H)), slice(max(w0, 0), min(w1, W))
                acc = np.float32(0)
                for v in x[idx][rows, cols].ravel():
                    acc = np.float32(acc + np.float32(v))
                out[idx + (a, b)] = H16(acc / np.float32(k * k))
                delta = H16(np.float32(g[idx + (a, b)]) / np.float32(k * k))
                for i in range(rows.start, rows.stop):
                    for j in range(cols.start, cols.stop):
                        gx[idx + (i, j)] = H16(np.float32(gx[idx + (i, j)]) + np.float32(delta))
    return out, gx


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("scale", [1.0, 1e-4, 300.0])
def test_half_pooling_matches_the_reference_bit_for_bit(kind, scale):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((2, 2, 6, 5)) * scale).astype(H16)
    k, s, p = 3, 1, 1
    X = nbgrad.tensor(x, requires_grad=True)
    y = (F.max_pool2d if kind == "max" else F.avg_pool2d)(X, k, s, p)
    g = (rng.standard_normal(tuple(y.shape)) * scale).astype(H16)
    y.backward(nbgrad.tensor(g))
    ref_out, ref_gx = (ref_max_pool_half if kind == "max" else ref_avg_pool_half)(x, g, k, s, p)
    assert y.dtype == nbgrad.float16 and X.grad.dtype == nbgrad.float16
    _bits_equal(y.detach().numpy(), ref_out)
    _bits_equal(X.grad.numpy(), ref_gx)


def test_half_adaptive_avg_pool():
    # forward: the float32 window mean rounded once; backward: torch 2.13's grad / kh / kw,
    # each quotient a Half, added in Half
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 5, 4)).astype(H16)
    X = nbgrad.tensor(x, requires_grad=True)
    y = F.adaptive_avg_pool2d(X, (3, 3))
    g = (rng.standard_normal((1, 2, 3, 3)) * 1e-4).astype(H16)
    y.backward(nbgrad.tensor(g))
    out = np.zeros((1, 2, 3, 3), H16)
    gx = np.zeros(x.shape, H16)
    for c in range(2):
        for a in range(3):
            h0, h1 = a * 5 // 3, -(-(a + 1) * 5 // 3)
            for b in range(3):
                w0, w1 = b * 4 // 3, -(-(b + 1) * 4 // 3)
                out[0, c, a, b] = H16(x[0, c, h0:h1, w0:w1].astype(np.float32).sum() / np.float32((h1 - h0) *
                                                                                              (w1 - w0)))
                delta = H16(np.float32(H16(np.float32(g[0, c, a, b]) / np.float32(h1 - h0))) / np.float32(w1 - w0))
                for i in range(h0, h1):
                    for j in range(w0, w1):
                        gx[0, c, i, j] = H16(np.float32(gx[0, c, i, j]) + np.float32(delta))
    np.testing.assert_allclose(y.detach().numpy().astype(np.float32), out.astype(np.float32), rtol=1e-3)
    _bits_equal(X.grad.numpy(), gx)
