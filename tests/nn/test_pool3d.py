"""3-D pooling (max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d and their
modules): values and indices bit for bit against a NumPy loop that follows PyTorch's CPU
kernels (scan order, the first maximum or the last NaN, sums added one by one in the input's
dtype, PyTorch's divisors), gradients by finite differences, PyTorch's nodes and messages."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.nn import functional as F

gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck

RNG = np.random.default_rng(5)


def _out(size, k, s, p, d, ceil):
    o = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    return o - 1 if ceil and (o - 1) * s >= size + p else o


def _np_pool(x, k, s, p, d, ceil, kind, include_pad=True, divisor=None):
    """PyTorch's max_pool3d / avg_pool3d loops over one (N, C, D, H, W) array."""
    n, c, *size = x.shape
    out = [_out(size[i], k[i], s[i], p[i], d[i], ceil) for i in range(3)]
    vals = np.zeros((n, c, *out), x.dtype)
    idx = np.zeros((n, c, *out), np.int64)
    for b in range(n):
        for ch in range(c):
            for o in np.ndindex(*out):
                starts = [o[i] * s[i] - p[i] for i in range(3)]
                taps = [[st + j * d[i] for j in range(k[i]) if 0 <= st + j * d[i] < size[i]]
                        for i, st in enumerate(starts)]
                if kind == "max":
                    best, at = -np.inf, None
                    for t in taps[0]:
                        for h in taps[1]:
                            for w in taps[2]:
                                v = x[b, ch, t, h, w]
                                if at is None or v > best or np.isnan(v):
                                    best, at = v, (t * size[1] + h) * size[2] + w
                    vals[(b, ch) + o], idx[(b, ch) + o] = best, at
                else:
                    acc = x.dtype.type(0)
                    for t in taps[0]:
                        for h in taps[1]:
                            for w in taps[2]:
                                acc = x.dtype.type(acc + x[b, ch, t, h, w])
                    if divisor:
                        div = divisor
                    elif include_pad:
                        div = math.prod(min(starts[i] + k[i], size[i] + p[i]) - starts[i] for i in range(3))
                    else:
                        div = math.prod(len(t) for t in taps)
                    if x.dtype.kind == "i":     # C's integer division, truncating
                        vals[(b, ch) + o] = int(abs(acc)) // div * (-1 if acc < 0 else 1)
                    else:
                        vals[(b, ch) + o] = acc / x.dtype.type(div)
    return vals, idx


GEOMETRIES = [
    ((2, 2, 2), (2, 2, 2), (0, 0, 0), (1, 1, 1), False),
    ((3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), False),
    ((2, 3, 2), (1, 2, 3), (1, 1, 0), (1, 1, 1), True),
    ((3, 2, 3), (2, 2, 1), (1, 1, 1), (1, 2, 1), True),
]


@pytest.mark.parametrize("k, s, p, d, ceil", GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_pool3d_values_and_indices(k, s, p, d, ceil, dtype):
    x = RNG.standard_normal((2, 2, 5, 6, 7)).astype(dtype)
    x.flat[::5] = x.flat[1]                                 # ties: the first in scan order wins
    x[0, 0, 1, 1, 1] = x[0, 0, 1, 2, 2] = x[1, 1, 3, 3, 3] = np.nan     # NaN: the last one wins
    x[1, 0] = -np.inf
    vals, idx = F.max_pool3d(nbgrad.tensor(x), k, s, p, d, ceil, return_indices=True)
    ref_v, ref_i = _np_pool(x, k, s, p, d, ceil, "max")
    np.testing.assert_array_equal(vals.numpy(), ref_v)
    np.testing.assert_array_equal(idx.numpy(), ref_i)
    assert idx.dtype is nbgrad.int64


@pytest.mark.parametrize("k, s, p, d, ceil", [g for g in GEOMETRIES if g[3] == (1, 1, 1)])
@pytest.mark.parametrize("include_pad, divisor", [(True, None), (False, None), (True, 5)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_avg_pool3d_values(k, s, p, d, ceil, include_pad, divisor, dtype):
    x = (RNG.standard_normal((2, 2, 5, 6, 7)) * 10).astype(dtype)
    y = F.avg_pool3d(nbgrad.tensor(x), k, s, p, ceil, include_pad, divisor)
    ref, _ = _np_pool(x, k, s, p, d, ceil, "avg", include_pad, divisor)
    assert y.dtype is nbgrad.tensor(x).dtype
    np.testing.assert_array_equal(y.numpy(), ref)


@pytest.mark.parametrize("size", [2, (3, 2, 4), (None, 2, None), (7, 7, 7)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adaptive_pool3d_values(size, dtype):
    x = RNG.standard_normal((2, 3, 5, 6, 7)).astype(dtype)
    osz = [x.shape[2 + i] if v is None else v for i, v in enumerate((size,) * 3 if isinstance(size, int) else size)]
    win = [[(o * n // m, -(-(o + 1) * n // m)) for o in range(m)] for n, m in zip(x.shape[2:], osz)]
    ref_avg = np.zeros(x.shape[:2] + tuple(osz), dtype)
    ref_max = np.zeros_like(ref_avg)
    ref_idx = np.zeros(ref_avg.shape, np.int64)
    for b, c in np.ndindex(*x.shape[:2]):
        for o in np.ndindex(*osz):
            (d0, d1), (h0, h1), (w0, w1) = (win[i][o[i]] for i in range(3))
            acc = dtype(0)
            block = x[b, c, d0:d1, h0:h1, w0:w1]
            for v in block.ravel():
                acc = dtype(acc + v)
            ref_avg[(b, c) + o] = acc / dtype(d1 - d0) / dtype(h1 - h0) / dtype(w1 - w0)   # PyTorch's order
            j = int(np.argmax(block))
            t, h, w = np.unravel_index(j, block.shape)
            ref_max[(b, c) + o] = block.ravel()[j]
            ref_idx[(b, c) + o] = ((d0 + t) * x.shape[3] + h0 + h) * x.shape[4] + w0 + w
    np.testing.assert_array_equal(F.adaptive_avg_pool3d(nbgrad.tensor(x), size).numpy(), ref_avg)
    vals, idx = F.adaptive_max_pool3d(nbgrad.tensor(x), size, return_indices=True)
    np.testing.assert_array_equal(vals.numpy(), ref_max)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)


@pytest.mark.parametrize("fn, name", [
    (lambda x: F.max_pool3d(x, 2, 1, 1), "MaxPool3DWithIndicesBackward0"),
    (lambda x: F.max_pool3d(x, (2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2), True), "MaxPool3DWithIndicesBackward0"),
    (lambda x: F.avg_pool3d(x, 2, 1, 1, count_include_pad=False), "AvgPool3DBackward0"),
    (lambda x: F.avg_pool3d(x, 3, 2, 1, True, True, 7), "AvgPool3DBackward0"),
    (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), "AdaptiveAvgPool3DBackward0"),
    (lambda x: F.adaptive_max_pool3d(x, (3, 2, 2)), "AdaptiveMaxPool3DBackward0"),
    (lambda x: F.adaptive_avg_pool3d(x, 1), "MeanBackward1"),
])
@pytest.mark.parametrize("batched", [True, False])
def test_pool3d_nodes_gradients_and_double_backward(fn, name, batched):
    a = RNG.permutation(2 * 2 * 4 * 4 * 5).reshape(2, 2, 4, 4, 5) / 7.0      # no ties: max is differentiable
    x = nbgrad.tensor(a if batched else a[0], requires_grad=True)
    y = fn(x)
    assert type(y.grad_fn).__name__ == name
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_pool3d_int_half_and_bool_dtypes():
    xi = RNG.integers(-50, 50, (1, 2, 4, 4, 4))
    assert F.max_pool3d(nbgrad.tensor(xi), 2).dtype is nbgrad.int64
    xh = RNG.standard_normal((1, 2, 4, 4, 4)).astype(np.float16)
    v, i = F.max_pool3d(nbgrad.tensor(xh), 2, return_indices=True)
    np.testing.assert_array_equal(v.numpy(), _np_pool(xh, (2,) * 3, (2,) * 3, (0,) * 3, (1,) * 3, False, "max")[0])
    for call, kernel, type_name in [
        (lambda: F.max_pool3d(nbgrad.zeros(1, 1, 2, 2, 2, dtype=nbgrad.bool), 2), "max_pool3d", "Bool"),
        (lambda: F.avg_pool3d(nbgrad.zeros(1, 1, 2, 2, 2, dtype=nbgrad.float16), 2), "avg_pool3d_out_frame", "Half"),
        (lambda: F.avg_pool3d(nbgrad.zeros(1, 1, 2, 2, 2, dtype=nbgrad.int32), 2), "avg_pool3d_out_frame", "Int"),
        (lambda: F.adaptive_avg_pool3d(nbgrad.zeros(1, 1, 2, 2, 2, dtype=nbgrad.int64), 2),
         "adaptive_avg_pool3d_cpu", "Long"),
        (lambda: F.adaptive_max_pool3d(nbgrad.zeros(1, 1, 2, 2, 2, dtype=nbgrad.int64), 2),
         "adaptive_max_pool3d_cpu", "Long"),
    ]:
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{type_name}'$"):
            call()


Z = nbgrad.zeros(1, 1, 4, 4, 4)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.max_pool3d(Z, (2, 2)), RuntimeError,
     "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    (lambda: F.avg_pool3d(Z, (2, 2)), RuntimeError, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
    (lambda: F.max_pool3d(Z, 2, 0), RuntimeError, "stride should not be zero"),
    (lambda: F.max_pool3d(Z, 0, 1), RuntimeError, "kernel size should be greater than zero, but got kT: 0 kH: 0 kW: 0"),
    (lambda: F.max_pool3d(Z, 2, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda: F.max_pool3d(Z, 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0"),
    (lambda: F.max_pool3d(nbgrad.zeros(1, 1, 1, 4, 4), 2), RuntimeError,
     "Given input size: (1x1x4x4). Calculated output size: (1x0x2x2). Output size is too small"),
    (lambda: F.avg_pool3d(nbgrad.zeros(1, 1, 1, 4, 4), 2), RuntimeError,
     "input image (T: 1 H: 4 W: 4) smaller than kernel size (kT: 2 kH: 2 kW: 2)"),
    (lambda: F.avg_pool3d(Z, 2, divisor_override=0), RuntimeError, "divisor must be not zero"),
    (lambda: F.max_pool3d(nbgrad.zeros(3, 4, 4), 2), RuntimeError,
     "non-empty 4D or 5D (batch mode) tensor expected for input"),
    (lambda: F.adaptive_avg_pool3d(nbgrad.zeros(3, 4, 4), 2), RuntimeError,
     "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [3, 4, 4]"),
    (lambda: F.adaptive_max_pool3d(nbgrad.zeros(3, 4, 4), 2), RuntimeError,
     "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [3, 4, 4]"),
    (lambda: F.adaptive_avg_pool3d(Z, (2, 2)), RuntimeError, "adaptive_avg_pool3d: output_size must be 3"),
    (lambda: F.adaptive_avg_pool3d(nbgrad.zeros(1, 0, 4, 4, 4), 2), RuntimeError,
     "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
     "[1, 0, 4, 4, 4] with dimension 1 being empty"),
    (lambda: F.adaptive_avg_pool3d(nbgrad.zeros(4, 4, 4), (2, 2, 2)), ValueError, "Input dimension should be at least 4"),
])
def test_pool3d_checks(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_pool3d_empty_batch_and_empty_adaptive_output():
    e = nbgrad.zeros(0, 2, 4, 4, 4, requires_grad=True)
    for y in (F.max_pool3d(e, 2), F.avg_pool3d(e, 2), F.adaptive_avg_pool3d(e, 2), F.adaptive_max_pool3d(e, 3)):
        assert y.shape[:2] == (0, 2)
        y.sum().backward()
        assert e.grad.shape == e.shape
    x = nbgrad.zeros(1, 1, 2, 2, 2, requires_grad=True)
    y = F.adaptive_avg_pool3d(x, 0)
    assert y.shape == (1, 1, 0, 0, 0) and type(y.grad_fn).__name__ == "AdaptiveAvgPool3DBackward0"
    with pytest.raises(RuntimeError, match="adaptive_avg_pool3d_backward\\(\\): Expected grad_output to have "
                                           "non-zero size for non-batch dimensions"):
        y.sum().backward()


def test_pool3d_modules():
    assert repr(nn.MaxPool3d(2)) == "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool3d(2, 1, 1)) == "AvgPool3d(kernel_size=2, stride=1, padding=1)"
    assert repr(nn.AdaptiveAvgPool3d(2)) == "AdaptiveAvgPool3d(output_size=2)"
    assert repr(nn.AdaptiveMaxPool3d((2, None, 3))) == "AdaptiveMaxPool3d(output_size=(2, None, 3))"
    x = nbgrad.tensor(RNG.standard_normal((2, 3, 4, 6, 6)))
    v, i = nn.MaxPool3d(2, return_indices=True)(x)
    assert v.shape == i.shape == (2, 3, 2, 3, 3)
    np.testing.assert_array_equal(nn.AvgPool3d(2, divisor_override=1)(x).numpy(),
                                  F.avg_pool3d(x, 2, divisor_override=1).numpy())
    assert nn.AdaptiveMaxPool3d(1)(x).shape == (2, 3, 1, 1, 1)
    assert nn.AdaptiveAvgPool3d((None, 2, 3))(x).shape == (2, 3, 4, 2, 3)
    assert nbgrad.max_pool3d(x, 2).shape == (2, 3, 2, 3, 3)


def test_max_unpool3d_inverts_max_pool3d_positions():
    x = RNG.permutation(2 * 2 * 4 * 6 * 4).reshape(2, 2, 4, 6, 4).astype(np.float64)
    xt = nbgrad.tensor(x, requires_grad=True)
    v, i = F.max_pool3d(xt, 2, return_indices=True)
    y = F.max_unpool3d(v, i, 2)
    assert type(y.grad_fn).__name__ == "MaxUnpool3DBackward0" and y.shape == x.shape
    ref = np.zeros(x.shape)
    flat_ref, vals, idx = ref.reshape(4, -1), v.detach().numpy().reshape(4, -1), i.numpy().reshape(4, -1)
    for p in range(4):
        flat_ref[p, idx[p]] = vals[p]
    np.testing.assert_array_equal(y.detach().numpy(), ref)
    g = RNG.standard_normal(x.shape)
    (y * nbgrad.tensor(g)).sum().backward()
    # each kept maximum's gradient is g at its position, the rest none
    expect = np.zeros(x.shape).reshape(4, -1)
    for p in range(4):
        expect[p, idx[p]] = g.reshape(4, -1)[p, idx[p]]
    np.testing.assert_array_equal(xt.grad.numpy(), expect.reshape(x.shape))
    assert nn.MaxUnpool3d(2)(v, i, output_size=(5, 7, 5)).shape == (2, 2, 5, 7, 5)
    with pytest.raises(RuntimeError, match=r"^Found an invalid max index: 1000 \(output volumes are of size "
                                           r"4x6x4\)$"):
        F.max_unpool3d(v, i * 0 + 1000, 2)
    with pytest.raises(RuntimeError, match="^elements in indices should be type int64$"):
        F.max_unpool3d(v, i.int(), 2)
    with pytest.raises(RuntimeError, match="^Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor "
                                           "with 3 dimensions.$"):
        F.max_unpool3d(v[0, 0], i[0, 0], 2)


def test_lp_pool3d_is_the_p_norm_of_each_window():
    a = np.abs(RNG.standard_normal((1, 2, 4, 4, 6))) + 0.1
    for p in (2.0, 3.0):
        y = F.lp_pool3d(nbgrad.tensor(a), p, (2, 2, 3))
        win = a.reshape(1, 2, 2, 2, 2, 2, 2, 3)
        np.testing.assert_allclose(y.numpy(), (win ** p).sum(axis=(3, 5, 7)) ** (1 / p), rtol=1e-12)
    np.testing.assert_array_equal(F.lp_pool3d(nbgrad.tensor(a), float("inf"), 2).numpy(),
                                  F.max_pool3d(nbgrad.tensor(a), 2).numpy())
    assert repr(nn.LPPool3d(2, 3)) == "LPPool3d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    x = nbgrad.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: F.lp_pool3d(t, 2.0, 2), (x,))
