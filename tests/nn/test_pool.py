"""max_pool2d / avg_pool2d / adaptive_avg_pool2d and their modules against NumPy loop
references, finite differences, PyTorch's recorded names, reprs and errors, and the
CUDA backend (under the simulator: tiny shapes)."""
import math

import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


def _out(size, k, s, p, d, ceil):
    n = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    return n - 1 if ceil and (n - 1) * s >= size + p else n


def np_max_pool(x, k, s, p, d, ceil):
    """Per window: the in-bounds elements in scan order; a larger value or a NaN takes over."""
    n, c, h, w = x.shape
    oh, ow = _out(h, k[0], s[0], p[0], d[0], ceil), _out(w, k[1], s[1], p[1], d[1], ceil)
    vals, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            cells = [(a, b) for a in range(i * s[0] - p[0], i * s[0] - p[0] + d[0] * (k[0] - 1) + 1, d[0])
                     for b in range(j * s[1] - p[1], j * s[1] - p[1] + d[1] * (k[1] - 1) + 1, d[1])
                     if 0 <= a < h and 0 <= b < w]
            for nn_ in range(n):
                for cc in range(c):
                    best, at = -np.inf, cells[0][0] * w + cells[0][1]
                    for a, b in cells:
                        v = x[nn_, cc, a, b]
                        if v > best or np.isnan(v):
                            best, at = v, a * w + b
                    vals[nn_, cc, i, j], idx[nn_, cc, i, j] = best, at
    return vals, idx


def np_avg_pool(x, k, s, p, ceil, count_include_pad, divisor):
    n, c, h, w = x.shape
    oh, ow = _out(h, k[0], s[0], p[0], 1, ceil), _out(w, k[1], s[1], p[1], 1, ceil)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            pool = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            div = divisor or (pool if count_include_pad else (h1 - h0) * (w1 - w0))
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].sum((2, 3)) / div
    return out


def np_adaptive_avg(x, size):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + size)
    for i in range(size[0]):
        for j in range(size[1]):
            a0, a1 = i * h // size[0], math.ceil((i + 1) * h / size[0])
            b0, b1 = j * w // size[1], math.ceil((j + 1) * w / size[1])
            out[:, :, i, j] = x[:, :, a0:a1, b0:b1].mean((2, 3))
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# (kernel, stride, padding, dilation, ceil_mode)
MAX_CASES = [((2, 2), (2, 2), (0, 0), (1, 1), False), ((3, 3), (2, 2), (1, 1), (1, 1), False),
             ((3, 2), (2, 1), (1, 0), (1, 2), False), ((2, 2), (2, 2), (0, 0), (1, 1), True),
             ((3, 3), (2, 2), (1, 1), (1, 1), True), ((2, 3), (3, 2), (1, 1), (2, 1), True)]


@pytest.mark.parametrize("k, s, p, d, ceil", MAX_CASES)
def test_max_pool2d_values_indices_and_gradients(rng, k, s, p, d, ceil):
    x = rng.standard_normal((2, 3, 7, 6))
    out, idx = F.max_pool2d(nbgrad.tensor(x), k, s, p, d, ceil, return_indices=True)
    ref, ref_idx = np_max_pool(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)
    assert idx.dtype == nbgrad.int64
    X = nbgrad.tensor(x, requires_grad=True)
    assert gradcheck(lambda t: F.max_pool2d(t, k, s, p, d, ceil), (X,))


def test_max_pool2d_nan_and_ties_follow_pytorch():
    # torch 2.13: the last NaN of a window wins the index; ties keep the first
    x = nbgrad.tensor([[[[1.0, math.nan, 3.0], [math.nan, 2.0, 0.0], [1.0, 1.0, 1.0]]]])
    out, idx = F.max_pool2d(x, 2, 1, return_indices=True)
    assert np.isnan(out.numpy()[0, 0, 0]).all() and out.numpy()[0, 0, 1, 1] == 2.0
    assert np.isnan(out.numpy()[0, 0, 1, 0])
    assert idx.tolist() == [[[[3, 1], [3, 4]]]]
    out, idx = F.max_pool2d(nbgrad.full((1, 1, 3, 3), -math.inf), 2, 2, 1, return_indices=True)
    assert idx.tolist() == [[[[0, 1], [3, 4]]]]
    out, idx = F.max_pool2d(nbgrad.ones(1, 1, 2, 2), 2, return_indices=True)
    assert idx.tolist() == [[[[0]]]]


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
def test_max_pool2d_window_without_an_input_element(device):
    # dilation 2 and padding 1 over one row: each window's rows are -1 and 1, both outside.
    # torch 2.13 gives the dtype's lowest value and the index 6 (row 1, past the 5-element
    # plane); its backward then adds outside the gradient's buffer.  nbgrad reads nothing
    # there and skips the position in the backward.
    for dtype, low in ((nbgrad.float64, -math.inf), (nbgrad.float32, -math.inf), (nbgrad.float16, -math.inf),
                       (nbgrad.int64, -(1 << 63)), (nbgrad.int32, -(1 << 31))):
        x = nbgrad.arange(5, device=device).to(dtype).reshape(1, 1, 1, 5)
        out, idx = F.max_pool2d(x, (2, 3), 2, (1, 1), 2, return_indices=True)
        assert out.tolist() == [[[[low, low]]]] and idx.tolist() == [[[[6, 6]]]]
    x = nbgrad.arange(10.0, device=device).reshape(2, 1, 1, 5).requires_grad_()
    out = F.max_pool2d(x, (2, 3), 2, (1, 1), 2)
    out.backward(nbgrad.ones_like(out))
    assert x.grad.tolist() == [[[[0.0] * 5]]] * 2
    # a window with one row outside and one inside keeps PyTorch's first-in-bounds rule
    x = nbgrad.tensor([[[[-math.inf, 1.0], [-math.inf, -math.inf], [2.0, 0.0]]]], device=device)
    out, idx = F.max_pool2d(x, (2, 1), 1, (1, 0), 2, return_indices=True)
    assert out.tolist() == [[[[-math.inf, -math.inf], [2.0, 1.0], [-math.inf, -math.inf]]]]   # torch 2.13
    assert idx.tolist() == [[[[2, 3], [4, 1], [2, 3]]]]


@pytest.mark.parametrize("k, s, p, ceil, cip, div", [
    ((2, 2), (2, 2), (0, 0), False, True, None), ((3, 3), (2, 2), (1, 1), False, True, None),
    ((3, 3), (2, 2), (1, 1), False, False, None), ((3, 2), (1, 2), (1, 1), True, True, None),
    ((3, 3), (2, 2), (1, 1), True, False, None), ((2, 2), (1, 1), (1, 0), False, True, 3)])
def test_avg_pool2d_values_and_gradients(rng, k, s, p, ceil, cip, div):
    x = rng.standard_normal((2, 3, 7, 6))
    out = F.avg_pool2d(nbgrad.tensor(x), k, s, p, ceil, cip, div)
    np.testing.assert_allclose(out.numpy(), np_avg_pool(x, k, s, p, ceil, cip, div), rtol=1e-12)
    X = nbgrad.tensor(x, requires_grad=True)
    assert gradcheck(lambda t: F.avg_pool2d(t, k, s, p, ceil, cip, div), (X,))


def test_avg_pool2d_ceil_mode_windows_recorded_from_pytorch():
    # torch 2.13: avg_pool2d(ones(1,1,5,5), 3, 2, 1, ceil_mode=True, count_include_pad=True)
    out = F.avg_pool2d(nbgrad.ones(1, 1, 5, 5), 3, 2, 1, ceil_mode=True)
    np.testing.assert_allclose(out.numpy()[0, 0], [[4 / 9, 6 / 9, 4 / 9], [6 / 9, 1, 6 / 9], [4 / 9, 6 / 9, 4 / 9]],
                               rtol=1e-6)
    assert tuple(F.max_pool2d(nbgrad.randn(1, 1, 5, 5), 2, ceil_mode=True).shape) == (1, 1, 3, 3)


@pytest.mark.parametrize("size", [(3, 2), (4, 4), (7, 1), (2, 5), (1, 1), (None, 2), 3])
def test_adaptive_avg_pool2d(rng, size):
    x = rng.standard_normal((2, 3, 7, 6))
    out = F.adaptive_avg_pool2d(nbgrad.tensor(x), size)
    full = size if isinstance(size, tuple) else (size, size)
    full = tuple(x.shape[2 + i] if v is None else v for i, v in enumerate(full))
    np.testing.assert_allclose(out.numpy(), np_adaptive_avg(x, full), rtol=1e-12)
    X = nbgrad.tensor(x[:1, :2], requires_grad=True)
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, size), (X,))


def test_node_names_are_pytorchs(rng):
    x = nbgrad.randn(2, 3, 5, 5, requires_grad=True)
    assert F.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.max_pool2d(x, 2, return_indices=True)[0].grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.avg_pool2d(x, 2).grad_fn.name() == "AvgPool2DBackward0"
    assert F.adaptive_avg_pool2d(x, 2).grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"       # PyTorch takes a mean
    assert [type(f).__name__ for f, _ in F.max_pool2d(x, 2).grad_fn.next_functions] == ["AccumulateGrad"]
    (g,) = nbgrad.autograd.grad(F.max_pool2d(x, 2).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "MaxPool2DWithIndicesBackwardBackward0"
    (g,) = nbgrad.autograd.grad(F.avg_pool2d(x, 2).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "AvgPool2DBackwardBackward0"


def test_double_backward(rng):
    x = nbgrad.tensor(rng.standard_normal((1, 2, 5, 4)), requires_grad=True)
    assert gradgradcheck(lambda t: F.max_pool2d(t, 2, 1), (x,))
    assert gradgradcheck(lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False), (x,))
    assert gradgradcheck(lambda t: F.adaptive_avg_pool2d(t, (3, 2)), (x,))


def test_unbatched_and_integer_inputs(rng):
    x = rng.standard_normal((3, 6, 6))
    np.testing.assert_array_equal(F.max_pool2d(nbgrad.tensor(x), 2).numpy(), np_max_pool(x[None], (2, 2), (2, 2),
                                                                                           (0, 0), (1, 1), False)[0][0])
    np.testing.assert_allclose(F.avg_pool2d(nbgrad.tensor(x), 3, 1, 1).numpy(),
                               np_avg_pool(x[None], (3, 3), (1, 1), (1, 1), False, True, None)[0], rtol=1e-12)
    ints = rng.integers(-9, 9, (1, 2, 4, 4))
    out = F.max_pool2d(nbgrad.tensor(ints), 2)       # torch 2.13 pools Long tensors
    assert out.dtype == nbgrad.int64
    np.testing.assert_array_equal(out.numpy(), ints.reshape(1, 2, 2, 2, 2, 2).max((3, 5)))


ERRORS = [
    (lambda: F.max_pool2d(nbgrad.randn(2, 3, 5, 5), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: F.avg_pool2d(nbgrad.randn(2, 3, 5, 5), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: F.max_pool2d(nbgrad.randn(3, 2, 2), 3), RuntimeError,
     "Given input size: (3x2x2). Calculated output size: (3x0x0). Output size is too small"),
    (lambda: F.avg_pool2d(nbgrad.randn(3, 2, 2), 3), RuntimeError,
     "Given input size: (3x2x2). Calculated output size: (3x0x0). Output size is too small"),
    (lambda: F.max_pool2d(nbgrad.randn(5, 5), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: F.avg_pool2d(nbgrad.randn(5, 5), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda: F.max_pool2d(nbgrad.randn(2, 3, 5, 5), 2, stride=0), RuntimeError, "stride should not be zero"),
    (lambda: F.avg_pool2d(nbgrad.randn(2, 3, 5, 5), 0), RuntimeError, "stride should not be zero"),
    (lambda: F.max_pool2d(nbgrad.randn(2, 3, 5, 5), 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda: F.max_pool2d(nbgrad.randn(2, 3, 5, 5), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: F.avg_pool2d(nbgrad.randn(2, 3, 5, 5), (2, 2, 2)), RuntimeError,
     "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: F.adaptive_avg_pool2d(nbgrad.randn(2, 3, 5, 5), (2, 2, 2)), RuntimeError,
     "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: F.adaptive_avg_pool2d(nbgrad.randn(5, 5), 2), RuntimeError,
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [5, 5]"),
    (lambda: F.adaptive_avg_pool2d(nbgrad.zeros(2, 3, 5, 5, dtype=nbgrad.int64), 2), NotImplementedError,
     "\"adaptive_avg_pool2d\" not implemented for 'Long'"),
    (lambda: F.avg_pool2d(nbgrad.randn(2, 3, 5, 5), 2, divisor_override=0), RuntimeError,
     "divisor must be not zero"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors_are_pytorchs(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_module_reprs_and_forward(rng):
    assert repr(nn.MaxPool2d(3)) == "MaxPool2d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.MaxPool2d((3, 2), stride=1, padding=1, dilation=2, return_indices=True, ceil_mode=True)) == (
        "MaxPool2d(kernel_size=(3, 2), stride=1, padding=1, dilation=2, ceil_mode=True)")
    assert repr(nn.AvgPool2d(3)) == "AvgPool2d(kernel_size=3, stride=3, padding=0)"
    assert repr(nn.AdaptiveAvgPool2d((5, 7))) == "AdaptiveAvgPool2d(output_size=(5, 7))"
    assert repr(nn.AdaptiveAvgPool2d((None, 7))) == "AdaptiveAvgPool2d(output_size=(None, 7))"
    x = rng.standard_normal((2, 3, 6, 6))
    out, idx = nn.MaxPool2d(2, return_indices=True)(nbgrad.tensor(x))
    np.testing.assert_array_equal(idx.numpy(), np_max_pool(x, (2, 2), (2, 2), (0, 0), (1, 1), False)[1])
    np.testing.assert_allclose(nn.AvgPool2d(2, 1, 1, count_include_pad=False)(nbgrad.tensor(x)).numpy(),
                               np_avg_pool(x, (2, 2), (1, 1), (1, 1), False, False, None), rtol=1e-12)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((2, 3))(nbgrad.tensor(x)).numpy(), np_adaptive_avg(x, (2, 3)),
                               rtol=1e-12)


@requires_cuda
def test_cuda_matches_the_cpu(rng):
    x = rng.standard_normal((1, 2, 5, 4))
    runs = {}
    for dev in ("cpu", "cuda"):
        res = []
        for fn in (lambda t: F.max_pool2d(t, 2, 1, 1, ceil_mode=True), lambda t: F.avg_pool2d(t, 3, 2, 1, True, False),
                   lambda t: F.adaptive_avg_pool2d(t, (3, 2))):
            X = nbgrad.tensor(x, device=dev, requires_grad=True)
            out = fn(X)
            out.backward(nbgrad.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), device=dev))
            res += [out.detach().cpu().numpy(), X.grad.cpu().numpy()]
        runs[dev] = res
    for a, b in zip(runs["cpu"], runs["cuda"]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    _, idx = F.max_pool2d(nbgrad.tensor(x, device="cuda"), 2, return_indices=True)
    np.testing.assert_array_equal(idx.cpu().numpy(), np_max_pool(x, (2, 2), (2, 2), (0, 0), (1, 1), False)[1])


@pytest.mark.parametrize("fn, name", [
    (lambda x: F.adaptive_avg_pool2d(x, (0, 2)), "adaptive_avg_pool2d"),
    (lambda x: F.interpolate(x, scale_factor=0.5, mode="area"), "adaptive_avg_pool2d"),
    (lambda x: F.adaptive_max_pool2d(x, (0, 2)), "adaptive_max_pool2d"),
    (lambda x: F.adaptive_max_pool2d(x, (0, 2), return_indices=True)[0], "adaptive_max_pool2d"),
])
def test_adaptive_pooling_to_an_empty_output(fn, name):
    # torch 2.13: the forward gives an empty (1, 3, 0, 2) result; its backward refuses the
    # empty gradient (nbgrad's adaptive max pooling raised a bare ValueError in the forward)
    x = nbgrad.ones(1, 3, 1, 4, requires_grad=True)
    y = fn(x)
    assert y.shape == (1, 3, 0, 2)
    with pytest.raises(RuntimeError, match=rf"^{name}_backward\(\): Expected grad_output to have non-zero size for "
                                           r"non-batch dimensions, but grad_output has sizes \[1, 3, 0, 2\] with "
                                           r"dimension 2 being empty$"):
        y.sum().backward()
