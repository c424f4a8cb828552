"""Fractional max pooling (F.fractional_max_pool2d/3d, their *_with_indices forms,
nn.FractionalMaxPool2d/3d): with given samples, values, indices and gradients bit for bit
PyTorch 2.13's (recorded literals); the windows' starts rounded in the input's dtype;
PyTorch's NaN rule, node names, double backward and errors; without samples, shapes and
that each output is the max of a kernel-sized window."""
import math

import pytest

import nbgrad

F = nbgrad.nn.functional
nn = nbgrad.nn


def pattern(shape, mul=7, mod=11, off=5, dtype=None):
    """Small integers (exact in every float dtype) with many ties."""
    n = math.prod(shape)
    return ((nbgrad.arange(n) * mul % mod) - off).to(dtype or nbgrad.float64).reshape(shape)


SAMPLES_2D = [[[0.13, 0.71], [0.52, 0.05]], [[0.9, 0.9], [0.9, 0.9]]]     # one row more than the batch

OUT_2D = [[[[4.0, 2.0, 5.0, 1.0], [4.0, 5.0, 5.0, 4.0], [5.0, 5.0, 3.0, 4.0]],
           [[5.0, 4.0, 4.0, 2.0], [5.0, 4.0, 4.0, 5.0], [1.0, 4.0, 5.0, 5.0]]]]
IDX_2D = [[[[6, 1, 3, 4], [6, 14, 14, 17], [25, 25, 20, 28]],
           [[6, 9, 9, 4], [6, 9, 9, 17], [18, 20, 28, 28]]]]
# ties and overlapping windows: an input chosen by several outputs gets their sum
GRAD_2D = [[[[0.0, 2.0, 0.0, 0.0, -2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -3.0],
             [0.0, 0.0, -2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 3.0, 0.0]],
            [[0.0, 0.0, 0.0, 0.0, 2.0, 0.0], [1.0, 0.0, 0.0, -3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
             [-1.0, 0.0, -3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 2.0, 0.0]]]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_2d_values_indices_and_gradient_are_pytorchs(dtype):
    dt = getattr(nbgrad, dtype)
    x = pattern((1, 2, 5, 6), dtype=dt).requires_grad_()
    s = nbgrad.tensor(SAMPLES_2D, dtype=dt)
    out, idx = F.fractional_max_pool2d(x, 2, output_size=(3, 4), _random_samples=s, return_indices=True)
    assert out.dtype == dt and idx.dtype == nbgrad.int64 and not idx.requires_grad
    assert out.tolist() == OUT_2D and idx.tolist() == IDX_2D
    assert type(out.grad_fn).__name__ == "FractionalMaxPool2DBackward0"
    out.backward(pattern((1, 2, 3, 4), 5, 7, 3, dtype=dt))
    assert x.grad.dtype == dt and x.grad.tolist() == GRAD_2D
    # the *_with_indices form and return_indices=False
    o2, i2 = F.fractional_max_pool2d_with_indices(x, 2, (3, 4), _random_samples=s)
    assert o2.tolist() == OUT_2D and i2.tolist() == IDX_2D
    assert F.fractional_max_pool2d(x, [2, 2], [3, 4], _random_samples=s).tolist() == OUT_2D


def test_2d_unbatched_rectangular_kernel():
    x = pattern((2, 6, 7), 5, 13, 6)
    s = nbgrad.tensor([[[0.3, 0.8], [0.99, 0.0]]], dtype=nbgrad.float64)
    out, idx = F.fractional_max_pool2d(x, (3, 2), output_size=(3, 5), _random_samples=s, return_indices=True)
    assert out.tolist() == [[[4.0, 4.0, 5.0, 6.0, 6.0], [4.0, 5.0, 5.0, 6.0, 3.0], [5.0, 5.0, 6.0, 3.0, 4.0]],
                            [[6.0, 6.0, 6.0, 3.0, 5.0], [6.0, 6.0, 3.0, 4.0, 5.0], [6.0, 3.0, 4.0, 4.0, 6.0]]]
    assert idx.tolist() == [[[15, 2, 10, 5, 5], [15, 23, 10, 18, 20], [36, 23, 31, 33, 41]],
                            [[15, 2, 2, 4, 20], [15, 15, 17, 25, 20], [28, 30, 38, 25, 41]]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_3d_values_indices_and_gradient_are_pytorchs(dtype):
    dt = getattr(nbgrad, dtype)
    x = pattern((1, 1, 4, 5, 6), 7, 17, 8, dtype=dt).requires_grad_()
    s = nbgrad.tensor([[[0.25, 0.6, 0.45]]], dtype=dt)
    out, idx = F.fractional_max_pool3d(x, (2, 2, 3), output_size=(2, 3, 3), _random_samples=s, return_indices=True)
    assert out.tolist() == [[[[[7.0, 6.0, 7.0], [8.0, 8.0, 8.0], [7.0, 7.0, 8.0]],
                              [[8.0, 8.0, 8.0], [8.0, 8.0, 7.0], [8.0, 8.0, 6.0]]]]]
    assert idx.tolist() == [[[[[7, 2, 41], [12, 46, 46], [24, 58, 29]],
                              [[97, 63, 63], [80, 80, 75], [80, 80, 87]]]]]
    assert type(out.grad_fn).__name__ == "FractionalMaxPool3DBackward0"
    out.backward(pattern((1, 1, 2, 3, 3), 3, 5, 2, dtype=dt))
    grad = {i: v for i, v in enumerate(x.grad.reshape(-1).tolist()) if v}
    assert grad == {2: 1.0, 7: -2.0, 12: 2.0, 24: 1.0, 29: 2.0, 41: -1.0, 46: -2.0, 58: -1.0, 63: -1.0, 87: -1.0}
    # unbatched (C, T, H, W)
    o4 = F.fractional_max_pool3d(x[0].detach(), (2, 2, 3), output_size=(2, 3, 3), _random_samples=s)
    assert o4.tolist() == out[0].tolist()


@pytest.mark.parametrize("dtype, u, starts", [
    ("float64", 0.6521736021215282, [1, 4, 6, 9, 11, 14, 16, 19, 22, 24]),
    ("float32", 0.6521736021215282, [1, 4, 6, 9, 11, 14, 17, 19, 22, 24]),
    ("float32", 0.6962159966701554, [1, 4, 6, 9, 12, 14, 17, 19, 22, 24]),
    ("float16", 0.6962159966701554, [1, 4, 6, 9, 11, 14, 17, 19, 22, 24]),
])
def test_window_starts_are_rounded_in_the_input_dtype(dtype, u, starts):
    # along a row 0..24 with a kernel of 2, the index of each max is its window's start + 1
    dt = getattr(nbgrad, dtype)
    x = nbgrad.arange(25).to(dt).reshape(1, 1, 1, 25).expand(1, 1, 3, 25).contiguous()
    s = nbgrad.tensor([[[u, 0.5]]], dtype=dt)
    _, idx = F.fractional_max_pool2d(x, 2, output_size=(2, 10), _random_samples=s, return_indices=True)
    assert idx[0, 0, 0].tolist() == starts


def test_nan_takes_over_and_the_last_nan_wins():
    nan = float("nan")
    z = nbgrad.tensor([[[nan, 1., nan, 2.], [3., 4., 5., 6.], [1., 1., 1., 1.]]])
    out, idx = F.fractional_max_pool2d(z, 2, output_size=(2, 3), _random_samples=nbgrad.tensor([[[0.3, 0.6]]]),
                                       return_indices=True)
    assert out[0, 0].isnan().tolist() == [True, True, True] and out[0, 1].tolist() == [4., 5., 6.]
    assert idx.tolist() == [[[0, 2, 2], [5, 6, 7]]]


def test_double_backward_gathers_at_the_indices():
    x = pattern((1, 2, 5, 6)).requires_grad_()
    s = nbgrad.tensor(SAMPLES_2D, dtype=nbgrad.float64)
    out, idx = F.fractional_max_pool2d(x, 2, output_size=(3, 4), _random_samples=s, return_indices=True)
    g = pattern((1, 2, 3, 4), 5, 7, 3).requires_grad_()
    (gx,) = nbgrad.autograd.grad(out, x, g, create_graph=True)
    assert type(gx.grad_fn).__name__ == "FractionalMaxPool2DBackwardBackward0"
    w = pattern((1, 2, 5, 6), 3, 8, 4)
    (gg,) = nbgrad.autograd.grad((gx * w).sum(), g)
    assert gg.tolist() == w.reshape(1, 2, 30).gather(2, idx.reshape(1, 2, 12)).reshape(1, 2, 3, 4).tolist()


def test_without_samples_each_output_is_the_max_of_a_window():
    nbgrad.manual_seed(7)
    x = nbgrad.randn(2, 3, 11, 9)
    out, idx = F.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)
    assert tuple(out.shape) == (2, 3, 5, 4) and tuple(idx.shape) == (2, 3, 5, 4)
    assert out.tolist() == x.reshape(2, 3, 99).gather(2, idx.reshape(2, 3, 20)).reshape(2, 3, 5, 4).tolist()
    xs, ids = x.tolist(), idx.tolist()
    for n in range(2):
        for c in range(3):
            rows = [[ids[n][c][i][j] // 9 for j in range(4)] for i in range(5)]
            cols = [[ids[n][c][i][j] % 9 for j in range(4)] for i in range(5)]
            for i in range(5):
                for j in range(4):
                    # some 3x3 window inside the input holding the index has it as its max
                    r, q = rows[i][j], cols[i][j]
                    v = xs[n][c][r][q]
                    assert any(v == max(xs[n][c][a + da][b + db] for da in range(3) for db in range(3))
                               for a in range(max(0, r - 2), min(r, 8) + 1) for b in range(max(0, q - 2), min(q, 6) + 1))
    # the same seed draws the same windows; 3-D too
    nbgrad.manual_seed(7)
    nbgrad.randn(2, 3, 11, 9)
    assert F.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5)).tolist() == out.tolist()
    y = nbgrad.randn(3, 6, 7, 8)
    assert tuple(F.fractional_max_pool3d(y, 2, output_ratio=0.5).shape) == (3, 3, 3, 4)
    assert tuple(F.fractional_max_pool3d(y, 2, output_size=(4, 5, 6)).shape) == (3, 4, 5, 6)


def test_empty_outputs_and_batches():
    s = nbgrad.rand(2, 3, 2)
    x = nbgrad.randn(2, 3, 7, 8, requires_grad=True)
    out = F.fractional_max_pool2d(x, 2, output_size=(0, 3), _random_samples=s)
    assert tuple(out.shape) == (2, 3, 0, 3)
    out.sum().backward()
    assert x.grad.tolist() == nbgrad.zeros(2, 3, 7, 8).tolist()
    e = F.fractional_max_pool2d(nbgrad.randn(0, 3, 7, 8), 2, output_size=3, _random_samples=nbgrad.rand(0, 3, 2))
    assert tuple(e.shape) == (0, 3, 3, 3)


def _raises(exc, match, fn):
    with pytest.raises(exc, match=match):
        fn()


def test_errors_are_pytorchs():
    x = nbgrad.randn(2, 3, 7, 8)
    s = nbgrad.rand(2, 3, 2)
    fmp2, fmp3 = F.fractional_max_pool2d, F.fractional_max_pool3d
    _raises(ValueError, "requires specifying either an output_size or an output_ratio", lambda: fmp2(x, 2))
    _raises(ValueError, "output_ratio to either be a single Int or tuple of Ints",
            lambda: fmp2(x, 2, output_ratio=(0.5, 0.5, 0.5)))
    _raises(RuntimeError, r"pool height 2 too large relative to input height 7",
            lambda: fmp2(x, 2, output_size=(7, 4), _random_samples=s))
    _raises(RuntimeError, r"pool width 2 too large relative to input width 8",
            lambda: fmp2(x, 2, output_size=(6, 8), _random_samples=s))
    _raises(RuntimeError, r"pool height 2 too large", lambda: fmp2(x, 2, output_ratio=(1.0, 0.5), _random_samples=s))
    _raises(RuntimeError, "kernel_size must either be a single Int or tuple of Ints",
            lambda: fmp2(x, (2, 2, 2), output_size=3, _random_samples=s))
    _raises(RuntimeError, "output_size must either be a single Int or tuple of Ints",
            lambda: fmp2(x, 2, output_size=(3, 3, 3), _random_samples=s))
    _raises(TypeError, "must be tuple of ints, not float", lambda: fmp2(x, 2.0, output_size=3))
    _raises(RuntimeError, r"Expected 3D or 4D tensor, but got: \[7, 8\]",
            lambda: fmp2(x[0, 0], 2, output_size=3, _random_samples=s))
    _raises(RuntimeError, r"non-zero size for non-batch dimensions, but got\[2, 0, 7, 8\] with dimension 1 being empty",
            lambda: fmp2(nbgrad.randn(2, 0, 7, 8), 2, output_size=3))
    _raises(RuntimeError, r"negative dimension -1: \[2, 3, -1, 3\]", lambda: fmp2(x, 2, output_size=(-1, 3),
                                                                                 _random_samples=s))
    _raises(RuntimeError, "same dtype as input", lambda: fmp2(x, 2, output_size=3, _random_samples=s.double()))
    _raises(RuntimeError, "to have 3 dimensions, got 2", lambda: fmp2(x, 2, output_size=3, _random_samples=s[0]))
    _raises(RuntimeError, r"size\(0\) no less then input batch size",
            lambda: fmp2(x, 2, output_size=3, _random_samples=s[:1]))
    _raises(RuntimeError, r"size\(1\) equals to input channel size",
            lambda: fmp2(x, 2, output_size=3, _random_samples=nbgrad.rand(2, 4, 2)))
    _raises(RuntimeError, r"size\(2\) equals to 2; got 3",
            lambda: fmp2(x, 2, output_size=3, _random_samples=nbgrad.rand(2, 3, 3)))
    _raises(RuntimeError, "not differentiable with respect to argument 'random_samples'",
            lambda: fmp2(x, 2, output_size=3, _random_samples=s.clone().requires_grad_()))
    with nbgrad.no_grad():      # (autograd's check only)
        assert tuple(fmp2(x, 2, output_size=3, _random_samples=s.clone().requires_grad_()).shape) == (2, 3, 3, 3)
    _raises(NotImplementedError, "\"fractional_max_pool2d_out_frame\" not implemented for 'Long'",
            lambda: fmp2(x.long(), 2, output_size=3, _random_samples=s.long()))
    _raises(NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'",
            lambda: fmp2(x.long(), 2, output_size=3))
    y = nbgrad.randn(2, 3, 5, 6, 7)
    s3 = nbgrad.rand(2, 3, 3)
    _raises(RuntimeError, "fractional_max_pool3d_out\\(\\): pool time 2 too large relative to input time 5",
            lambda: fmp3(y, 2, output_size=(4, 5, 6), _random_samples=s3))
    # PyTorch's 3-D check is strict (out + k - 1 < in) and takes the width before the height
    _raises(RuntimeError, "pool width 2 too large relative to input width 7",
            lambda: fmp3(y, 2, output_size=(3, 5, 6), _random_samples=s3))
    _raises(RuntimeError, "kernel_size must either be a single Int or tuple of three Ints",
            lambda: fmp3(y, (2, 2), output_size=3))
    _raises(RuntimeError, r"Expected 4D or 5D tensor, but got: \[5, 6, 7\]",
            lambda: fmp3(y[0, 0], 2, output_size=3, _random_samples=s3))
    _raises(RuntimeError, r"size\(2\) equals to 3; got 2.",
            lambda: fmp3(y, 2, output_size=(3, 4, 5), _random_samples=nbgrad.rand(2, 3, 2)))
    _raises(ValueError, "requires specifying either an output_size or an output_ratio", lambda: fmp3(y, 2))


def test_modules():
    s = nbgrad.tensor(SAMPLES_2D, dtype=nbgrad.float64)
    m = nn.FractionalMaxPool2d(2, output_size=(3, 4), return_indices=True, _random_samples=s)
    assert repr(m) == "FractionalMaxPool2d()"
    assert m.kernel_size == (2, 2) and m.output_size == (3, 4) and m.output_ratio is None
    assert m._random_samples is s and "_random_samples" in dict(m.named_buffers())
    out, idx = m(pattern((1, 2, 5, 6)))
    assert out.tolist() == OUT_2D and idx.tolist() == IDX_2D
    m = nn.FractionalMaxPool2d(3, output_ratio=0.5)
    assert m.output_ratio == (0.5, 0.5) and m._random_samples is None
    assert tuple(m(nbgrad.randn(2, 3, 11, 9)).shape) == (2, 3, 5, 4)
    m3 = nn.FractionalMaxPool3d((2, 2, 3), output_size=(2, 3, 3), _random_samples=nbgrad.tensor([[[0.25, 0.6, 0.45]]]))
    assert repr(m3) == "FractionalMaxPool3d()" and m3.kernel_size == (2, 2, 3)
    assert m3(pattern((1, 1, 4, 5, 6), 7, 17, 8, dtype=nbgrad.float32)).reshape(-1).tolist()[:3] == [7.0, 6.0, 7.0]
    _raises(ValueError, "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio",
            lambda: nn.FractionalMaxPool2d(2))
    _raises(ValueError, "only one of output_size and output_ratio may be specified",
            lambda: nn.FractionalMaxPool2d(2, 3, 0.5))
    _raises(ValueError, r"output_ratio must be between 0 and 1 \(got 1\)", lambda: nn.FractionalMaxPool2d(2, output_ratio=1))
    _raises(ValueError, r"output_ratio must be between 0 and 1 \(got \(0.5, 0\)\)",
            lambda: nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0)))
    _raises(ValueError, "kernel_size must be greater than 0, but got 0", lambda: nn.FractionalMaxPool3d(0, output_ratio=0.5))
    _raises(ValueError, r"kernel_size must be greater than 0, but got \(2, 0, 1\)",
            lambda: nn.FractionalMaxPool3d((2, 0, 1), output_ratio=0.5))
    _raises(ValueError, "FractionalMaxPool3d requires specifying either", lambda: nn.FractionalMaxPool3d(2))
    _raises(ValueError, r"output_ratio must be between 0 and 1 \(got \(0.5, 0.5, 1.0\)\)",
            lambda: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)))
