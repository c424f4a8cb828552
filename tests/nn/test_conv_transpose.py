"""conv_transpose1d/2d and nn.ConvTranspose1d/2d against a NumPy scatter reference, finite
differences, PyTorch's recorded node, errors, module geometry (output_size=), the composed
fallback and the CUDA backend (under the simulator: tiny shapes)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.backends import cpu

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


def np_conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation):
    """The definition: every input element scatters x[n, c, i, j] * w[c, o, kh, kw] to output
    position (i*s - p + kh*d, j*s - p + kw*d) of the group's channel o (plain loops)."""
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = stride, padding, output_padding, dilation
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    full = np.zeros((n, cog * groups, oh + 2 * ph + sh + dh * kh, ow + 2 * pw + sw + dw * kw))
    cig = cin // groups
    for c in range(cin):
        g = c // cig
        for i in range(kh):
            for j in range(kw):
                full[:, g * cog:(g + 1) * cog, i * dh:i * dh + sh * h:sh, j * dw:j * dw + sw * wd:sw] += \
                    np.einsum("nhw,o->nohw", x[:, c], w[c, :, i, j])
    out = full[:, :, ph:ph + oh, pw:pw + ow]
    return out if b is None else out + b[None, :, None, None]


# (input shape, weight shape, stride, padding, output_padding, groups, dilation)
CASES = [
    ((2, 4, 5, 5), (4, 3, 3, 3), (2, 2), (1, 1), (1, 1), 1, (1, 1)),
    ((2, 4, 5, 6), (4, 2, 3, 2), (2, 1), (1, 0), (0, 0), 2, (1, 2)),
    ((1, 2, 3, 3), (2, 3, 2, 2), (1, 1), (0, 0), (0, 0), 1, (1, 1)),
    ((2, 4, 4, 4), (4, 2, 3, 3), (2, 2), (0, 0), (1, 0), 2, (1, 1)),
    ((2, 3, 4, 4), (3, 2, 3, 3), (1, 1), (0, 0), (2, 2), 1, (3, 3)),     # output_padding >= stride, < dilation
    ((2, 16, 5, 5), (16, 16, 3, 3), (1, 1), (1, 1), (0, 0), 1, (1, 1)),  # above SMALL_WEIGHT: BLAS, wide grid
    ((2, 16, 5, 4), (16, 16, 3, 3), (2, 2), (1, 1), (1, 1), 1, (1, 1)),
]


def _rand(rng, case, dtype=np.float64):
    xs, ws, _, _, _, groups, _ = case
    return (rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype),
            rng.standard_normal(ws[1] * groups).astype(dtype))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose2d_matches_the_scatter_reference(rng, case, bias):
    x, w, b = _rand(rng, case)
    s, p, op, g, d = case[2:]
    out = F.conv_transpose2d(nbgrad.tensor(x), nbgrad.tensor(w), nbgrad.tensor(b) if bias else None, s, p, op, g, d)
    np.testing.assert_allclose(out.numpy(), np_conv_transpose2d(x, w, b if bias else None, s, p, op, g, d),
                               rtol=1e-12, atol=1e-12)
    assert out.is_contiguous()


@pytest.mark.parametrize("case", CASES[:5])
def test_conv_transpose2d_gradcheck(rng, case):
    x, w, b = _rand(rng, case)
    s, p, op, g, d = case[2:]
    inputs = tuple(nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    assert gradcheck(lambda a, ww, bb: F.conv_transpose2d(a, ww, bb, s, p, op, g, d), inputs)


def test_conv_transpose2d_float32_gradients_match_float64(rng):
    case = CASES[6]
    x, w, b = _rand(rng, case, np.float32)
    s, p, op, g, d = case[2:]
    X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    out = F.conv_transpose2d(X, W, B, s, p, op, g, d)
    gy = rng.standard_normal(tuple(out.shape)).astype(np.float32)
    out.backward(nbgrad.tensor(gy))
    X64, W64, B64 = (nbgrad.tensor(a.astype(np.float64), requires_grad=True) for a in (x, w, b))
    F.conv_transpose2d(X64, W64, B64, s, p, op, g, d).backward(nbgrad.tensor(gy.astype(np.float64)))
    for t, ref in ((X, X64), (W, W64), (B, B64)):
        assert t.grad.dtype == nbgrad.float32
        np.testing.assert_allclose(t.grad.numpy(), ref.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_double_backward_gradcheck(rng):
    x, w, _ = _rand(rng, ((1, 2, 3, 3), (2, 2, 2, 2), (2, 2), (0, 0), (1, 1), 1, (1, 1)))
    inputs = tuple(nbgrad.tensor(a, requires_grad=True) for a in (x, w))
    assert nbgrad.autograd.gradgradcheck(lambda a, ww: F.conv_transpose2d(a, ww, None, 2, 0, 1), inputs)


def test_node_is_pytorchs_convolution_backward(rng):
    # torch 2.13 records a transposed convolution as ConvolutionBackward0 (input, weight, bias)
    x = nbgrad.randn(2, 4, 5, 5, requires_grad=True)
    w = nbgrad.randn(4, 3, 3, 3, requires_grad=True)
    y = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    assert tuple(y.shape) == (2, 3, 10, 10) and y.grad_fn.name() == "ConvolutionBackward0"
    nf = y.grad_fn.next_functions
    assert [type(f).__name__ for f, _ in nf[:2]] == ["AccumulateGrad"] * 2 and nf[2] == (None, 0)
    y = F.conv_transpose2d(x[0], w)
    assert tuple(y.shape) == (3, 7, 7) and y.grad_fn.name() == "SqueezeBackward1"


def test_conv_transpose1d_is_conv_transpose2d_over_a_unit_height(rng):
    x, w, b = rng.standard_normal((2, 4, 7)), rng.standard_normal((4, 3, 3)), rng.standard_normal(6)
    X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    out = F.conv_transpose1d(X, W, B, stride=2, padding=1, output_padding=1, groups=2, dilation=2)
    ref = np_conv_transpose2d(x[:, :, None], w[:, :, None], b, (1, 2), (0, 1), (0, 1), 2, (1, 2))[:, :, 0]
    assert tuple(out.shape) == (2, 6, 16)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    assert gradcheck(lambda a, ww, bb: F.conv_transpose1d(a, ww, bb, 2, 1, 1, 2, 2), (X, W, B))


def test_empty_batch(rng):
    x = nbgrad.ones(0, 4, 2, 5, requires_grad=True)
    w = nbgrad.ones(4, 3, 3, 3, requires_grad=True)
    b = nbgrad.ones(3, requires_grad=True)
    y = F.conv_transpose2d(x, w, b)
    assert tuple(y.shape) == (0, 3, 4, 7)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4, 2, 5) and float(w.grad.abs().sum()) == 0 and float(b.grad.abs().sum()) == 0


def test_integer_and_half_inputs(rng):
    # torch 2.13 CPU: Long and Half transposed convolutions work (no gradient for integers)
    x = rng.integers(-3, 4, (2, 3, 4, 4))
    w = rng.integers(-2, 3, (3, 2, 3, 3))
    out = F.conv_transpose2d(nbgrad.tensor(x), nbgrad.tensor(w), stride=2)
    assert out.dtype == nbgrad.int64
    ref = np_conv_transpose2d(x, w, None, (2, 2), (0, 0), (0, 0), 1, (1, 1))
    np.testing.assert_array_equal(out.numpy(), ref.astype(np.int64))
    h = F.conv_transpose2d(nbgrad.tensor(x).half(), nbgrad.tensor(w).half(), stride=2)
    assert h.dtype == nbgrad.float16
    np.testing.assert_allclose(h.float().numpy(), ref, rtol=1e-3)


_X = (2, 4, 5, 5)
_W = (4, 3, 3, 3)
# torch 2.13's messages, recorded (a 1-D call is checked as 2-D with a unit height)
ERRORS = [
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), stride=2, output_padding=2),
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 "
     "output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose1d(nbgrad.randn(2, 4, 5), nbgrad.randn(4, 3, 3), stride=2, output_padding=2),
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 0 "
     "output_padding_width: 2 stride_height: 1 stride_width: 2 dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(3, 3, 3, 3)),
     "Given transposed=1, weight of size [3, 3, 3, 3], expected input[2, 4, 5, 5] to have 3 channels, but got 4 "
     "channels instead"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), nbgrad.randn(4)),
     "Given transposed=1, weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 3 elements, but got "
     "bias of size [4] instead"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), nbgrad.randn(3).double()),
     "Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be the same or input should be a "
     "MKLDNN tensor and bias is a dense tensor"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X).double(), nbgrad.randn(*_W)),
     "expected scalar type Double but found Float"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), groups=8),
     "Given groups=8, expected weight to be at least 8 at dimension 0, but got weight of size [4, 3, 3, 3] instead"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), groups=3),
     "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [[4, 3, 3, 3]] "
     "instead"),
    (lambda: F.conv_transpose2d(nbgrad.randn(5, 5), nbgrad.randn(*_W)),
     "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [5, 5]"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(4, 3, 3)),
     "expected stride to be a single integer value or a list of 1 values to match the convolution dimensions, "
     "but got stride=[1, 1]"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), padding=-1), "negative padding is not supported"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), output_padding=-1),
     "negative output_padding is not supported"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), stride=0),
     "non-positive stride is not supported"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), groups=0),
     "non-positive groups is not supported"),
    (lambda: F.conv_transpose2d(nbgrad.ones(2, 4, 0, 5), nbgrad.ones(*_W)),
     "Only zero batch or zero channel inputs are supported, but got input shape: [2, 4, 0, 5]"),
    (lambda: F.conv_transpose2d(nbgrad.ones(1, 4, 2, 2), nbgrad.ones(4, 0, 3, 3)),
     "non-empty 2D or 4D weight tensor expected, but got: [4, 0, 3, 3]"),
    (lambda: F.conv_transpose2d(nbgrad.ones(1, 4, 2, 2), nbgrad.ones(4, 3, 0, 3)),
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 3"),
    # torch 2.13 reaches oneDNN here; these are its slow path's messages
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), padding=5),
     "Given input size per channel: (5 x 5). Calculated output size per channel: (-3 x -3). Output size is too "
     "small"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), dilation=(0, 1)),
     "dilation should be greater than zero, but got dilation_height: 0, dilation_width: 1"),
    # the order torch 2.13 checks in: output padding, bias type, output size, Bool, weight type
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), nbgrad.randn(3).double(), stride=2,
                                output_padding=3),
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 3 "
     "output_padding_width: 3 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X), nbgrad.randn(*_W), nbgrad.randn(3).double(), padding=5),
     "Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be the same or input should be a "
     "MKLDNN tensor and bias is a dense tensor"),
    (lambda: F.conv_transpose2d(nbgrad.randn(*_X).double(), nbgrad.randn(*_W), padding=5),
     "Given input size per channel: (5 x 5). Calculated output size per channel: (-3 x -3). Output size is too "
     "small"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_errors_are_pytorchs(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_other_errors():
    x, w = nbgrad.randn(*_X), nbgrad.randn(*_W)
    with pytest.raises(TypeError, match="conv_transpose2d\\(\\): argument 'padding' must be tuple of ints, not str"):
        F.conv_transpose2d(x, w, padding="same")
    for weight in (w.bool(), w):
        with pytest.raises(NotImplementedError, match="\"slow_conv_transpose2d_out_cpu\" not implemented for 'Bool'"):
            F.conv_transpose2d(x.bool(), weight)


def test_modules_parameters_repr_and_init():
    m = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)
    assert repr(m) == "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2)"
    assert tuple(m.weight.shape) == (4, 3, 3, 3) and tuple(m.bias.shape) == (6,)
    assert m.transposed is True and m.output_padding == (0, 0)
    bound = 1 / np.sqrt(3 * 3 * 3)       # fan_in read off the weight (dim 1 times the kernel), as PyTorch's
    assert np.abs(m.weight.detach().numpy()).max() <= bound and np.abs(m.bias.detach().numpy()).max() <= bound
    assert repr(nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1, dilation=2, bias=False)) == (
        "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), dilation=(2, 2), output_padding=(1, 1), "
        "bias=False)")
    assert repr(nn.ConvTranspose1d(4, 6, 3, stride=2, groups=2, output_padding=1)) == (
        "ConvTranspose1d(4, 6, kernel_size=(3,), stride=(2,), output_padding=(1,), groups=2)")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect")


def test_module_forward_and_output_size(rng):
    m = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2).double()
    x = rng.standard_normal((2, 4, 5, 5))
    X = nbgrad.tensor(x)
    wv, bv = m.weight.detach().numpy(), m.bias.detach().numpy()
    np.testing.assert_allclose(m(X).detach().numpy(),
                               np_conv_transpose2d(x, wv, bv, (2, 2), (1, 1), (0, 0), 2, (1, 1)), rtol=1e-12,
                               atol=1e-12)
    out = m(X, output_size=[10, 10])          # output_padding 1 picked to reach the size
    np.testing.assert_allclose(out.detach().numpy(),
                               np_conv_transpose2d(x, wv, bv, (2, 2), (1, 1), (1, 1), 2, (1, 1)), rtol=1e-12,
                               atol=1e-12)
    assert tuple(m(X, output_size=(2, 6, 9, 10)).shape) == (2, 6, 9, 10)
    with pytest.raises(ValueError) as info:
        m(X, output_size=[12, 12])
    assert str(info.value) == ("requested an output size of [12, 12], but valid sizes range from [9, 9] to [10, 10] "
                               "(for an input of nbgrad.Size([5, 5]))")
    m1 = nn.ConvTranspose1d(4, 6, 3, stride=2, groups=2)
    assert tuple(m1(nbgrad.randn(2, 4, 5), output_size=[12]).shape) == (2, 6, 12)
    with pytest.raises(ValueError) as info:
        m1(nbgrad.randn(4, 5), output_size=[1, 2, 3])
    assert str(info.value) == "ConvTranspose1D: for 2D input, output_size must have 1 or 2 elements (got 3)"


@pytest.mark.acceleration
@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[4], CASES[5], CASES[6]])
def test_composed_fallback_gives_the_kernels_results(rng, monkeypatch, case):
    x, w, b = _rand(rng, case)
    s, p, op, g, d = case[2:]
    gy = None

    def run():
        nonlocal gy
        X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
        out = F.conv_transpose2d(X, W, B, s, p, op, g, d)
        if gy is None:
            gy = rng.standard_normal(tuple(out.shape))
        out.backward(nbgrad.tensor(gy))
        return [out.detach().numpy()] + [t.grad.numpy() for t in (X, W, B)]
    fused = run()
    for name in ("conv2d_forward", "conv2d_backward"):
        monkeypatch.setattr(cpu, "ACCELERATIONS", cpu.ACCELERATIONS - {name})
        monkeypatch.setattr(cpu, name, lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    composed = run()
    for a, c in zip(fused, composed):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)


@requires_cuda
@pytest.mark.parametrize("case", [((1, 2, 2, 3), (2, 2, 2, 2), (2, 1), (0, 1), (1, 0), 1, (1, 1)),
                                  ((1, 2, 2, 2), (2, 1, 2, 2), (1, 1), (0, 0), (1, 1), 2, (2, 2))])
def test_cuda_matches_the_cpu(rng, case):
    x, w, b = _rand(rng, case)
    s, p, op, g, d = case[2:]
    results = {}
    for dev in ("cpu", "cuda"):
        X, W, B = (nbgrad.tensor(a, device=dev, requires_grad=True) for a in (x, w, b))
        out = F.conv_transpose2d(X, W, B, s, p, op, g, d)
        gy = nbgrad.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), device=dev)
        out.backward(gy)
        results[dev] = [out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in (X, W, B)]
    np.testing.assert_allclose(results["cuda"][0], np_conv_transpose2d(x, w, b, s, p, op, g, d), rtol=1e-12)
    for a, c in zip(results["cpu"], results["cuda"]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
