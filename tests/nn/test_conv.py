"""conv1d/conv2d and nn.Conv1d/Conv2d against a NumPy loop reference, finite differences,
PyTorch's recorded names, errors and reprs, the composed fallback and the CUDA backend
(under the simulator: tiny shapes)."""
import warnings

import numpy as np
import pytest

import nbgrad
from nbgrad.backends import cpu

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


def np_conv2d(x, w, b, stride, padding, dilation, groups):
    """The definition: out[n, o, i, j] = b[o] + sum over the group's c, kh, kw of
    x_padded[n, c, i*s + kh*d, j*s + kw*d] * w[o, c, kh, kw] (plain loops over the kernel)."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, c, h, wd = x.shape
    co, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), dtype=np.float64)
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, co, oh, ow))
    cog = co // groups
    for o in range(co):
        g = o // cog
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    if b is not None:
        out += b[None, :, None, None]
    return out


# (N, C, H, W, Co, kernel, stride, padding, dilation, groups)
CASES = [
    (2, 3, 7, 6, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (2, 4, 9, 8, 6, (3, 2), (2, 1), (0, 1), (2, 1), 2),
    (1, 2, 6, 5, 4, (1, 1), (3, 2), (2, 0), (1, 1), 2),
    (3, 1, 12, 12, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1),        # case A's layer, smaller batch
    (2, 4, 5, 5, 4, (3, 3), (1, 1), (1, 1), (1, 1), 4),           # depthwise
    (2, 3, 4, 4, 2, (4, 4), (1, 1), (0, 0), (1, 1), 1),           # one output position
    # weights above the CPU backend's SMALL_WEIGHT: BLAS (for stride 1 the shifted products; the
    # forward's up to ROWS_WEIGHT: the shifted rows)
    (2, 8, 6, 5, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (1, 16, 7, 6, 16, (3, 2), (1, 1), (2, 1), (2, 1), 2),
    (2, 8, 9, 8, 12, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (1, 16, 6, 5, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1),         # above ROWS_WEIGHT: the forward's BLAS too
]


def _rand(rng, case, dtype=np.float64):
    n, c, h, w, co, k, _, _, _, g = case
    return (rng.standard_normal((n, c, h, w)).astype(dtype), rng.standard_normal((co, c // g) + k).astype(dtype),
            rng.standard_normal(co).astype(dtype))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_matches_the_loop_reference(rng, case, bias):
    x, w, b = _rand(rng, case)
    s, p, d, g = case[6:]
    out = F.conv2d(nbgrad.tensor(x), nbgrad.tensor(w), nbgrad.tensor(b) if bias else None, s, p, d, g)
    np.testing.assert_allclose(out.numpy(), np_conv2d(x, w, b if bias else None, s, p, d, g), rtol=1e-12,
                               atol=1e-12)
    assert out.is_contiguous()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_gradients_match_the_reference_adjoint(rng, dtype):
    # d/dx <conv(x), g> and d/dw from the reference by finite differences is slow in
    # float32; instead: gx, gw, gb against the float64 gradients (which gradcheck checks)
    case = CASES[1]
    x, w, b = _rand(rng, case, dtype)
    s, p, d, g = case[6:]
    X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    out = F.conv2d(X, W, B, s, p, d, g)
    gy = rng.standard_normal(tuple(out.shape)).astype(dtype)
    out.backward(nbgrad.tensor(gy))
    X64, W64, B64 = (nbgrad.tensor(a.astype(np.float64), requires_grad=True) for a in (x, w, b))
    F.conv2d(X64, W64, B64, s, p, d, g).backward(nbgrad.tensor(gy.astype(np.float64)))
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for t, ref in ((X, X64), (W, W64), (B, B64)):
        assert t.grad.dtype == t.dtype
        np.testing.assert_allclose(t.grad.numpy(), ref.grad.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(B.grad.numpy(), gy.astype(np.float64).sum((0, 2, 3)), rtol=tol)


@pytest.mark.parametrize("case", CASES[:3] + CASES[4:])
def test_conv2d_gradcheck(rng, case):
    x, w, b = _rand(rng, case)
    s, p, d, g = case[6:]
    inputs = tuple(nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    assert gradcheck(lambda a, ww, bb: F.conv2d(a, ww, bb, s, p, d, g), inputs)


def test_conv2d_double_backward_gradcheck(rng):
    x, w, b = _rand(rng, (1, 2, 4, 4, 2, (2, 2), (1, 1), (1, 1), (1, 1), 1))
    inputs = tuple(nbgrad.tensor(a, requires_grad=True) for a in (x, w))
    assert nbgrad.autograd.gradgradcheck(lambda a, ww: F.conv2d(a, ww, None, 2, 1), inputs)


def test_node_name_and_next_functions_are_pytorchs(rng):
    # torch 2.13: ConvolutionBackward0 with three next functions (input, weight, bias);
    # a missing bias and an input without grad are (None, 0)
    x = nbgrad.randn(2, 3, 4, 4, requires_grad=True)
    w = nbgrad.randn(4, 3, 3, 3, requires_grad=True)
    b = nbgrad.randn(4, requires_grad=True)
    y = F.conv2d(x, w, b, padding=1)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    y = F.conv2d(x.detach(), w, None, padding=1)
    nf = y.grad_fn.next_functions
    assert len(nf) == 3 and nf[0] == (None, 0) and nf[2] == (None, 0)
    assert type(nf[1][0]).__name__ == "AccumulateGrad"
    # unbatched input: PyTorch convolves input.unsqueeze(0) and squeezes the result
    y = F.conv2d(nbgrad.randn(3, 5, 5, requires_grad=True), w)
    assert tuple(y.shape) == (4, 3, 3) and y.grad_fn.name() == "SqueezeBackward1"


def test_conv2d_backward_only_computes_what_is_needed(rng, monkeypatch):
    x, w, b = _rand(rng, CASES[0])
    X = nbgrad.tensor(x)
    W = nbgrad.tensor(w, requires_grad=True)
    F.conv2d(X, W, None, 1, 1).sum().backward()
    np.testing.assert_allclose(W.grad.numpy()[0], np.stack([
        np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))[:, :, i:i + 7, j:j + 6].sum((0, 2, 3))
        for i in range(3) for j in range(3)], -1).reshape(3, 3, 3), rtol=1e-12)


@pytest.mark.parametrize("kernel, dilation", [((3, 3), (1, 1)), ((2, 4), (1, 1)), ((2, 3), (2, 1))])
def test_padding_same_and_valid(rng, kernel, dilation):
    x = rng.standard_normal((2, 2, 6, 7))
    w = rng.standard_normal((3, 2) + kernel)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = F.conv2d(nbgrad.tensor(x), nbgrad.tensor(w), None, 1, "same", dilation)
    # PyTorch pads d*(k-1) in all: half on the left/top, the rest on the right/bottom
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    xp = np.pad(x, ((0, 0), (0, 0), (total[0] // 2, total[0] - total[0] // 2),
                    (total[1] // 2, total[1] - total[1] // 2)))
    np.testing.assert_allclose(out.numpy(), np_conv2d(xp, w, None, (1, 1), (0, 0), dilation, 1), rtol=1e-12)
    assert tuple(out.shape) == x.shape[:1] + (3,) + x.shape[2:]
    odd = any(t % 2 for t in total)
    assert [str(c.message) for c in caught] == (
        ["Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
         "input be created"] if odd else [])
    valid = F.conv2d(nbgrad.tensor(x), nbgrad.tensor(w), None, 1, "valid", dilation)
    np.testing.assert_allclose(valid.numpy(), np_conv2d(x, w, None, (1, 1), (0, 0), dilation, 1), rtol=1e-12)


def test_padding_same_gradcheck(rng):
    x = nbgrad.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal((2, 2, 2, 3)), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda a, b: F.conv2d(a, b, padding="same"), (x, w))


def test_conv1d_is_conv2d_over_a_unit_height(rng):
    x = rng.standard_normal((2, 4, 9))
    w = rng.standard_normal((6, 2, 3))
    b = rng.standard_normal(6)
    X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
    out = F.conv1d(X, W, B, stride=2, padding=1, dilation=2, groups=2)
    ref = np_conv2d(x[:, :, None], w[:, :, None], b, (1, 2), (0, 1), (1, 2), 2)[:, :, 0]
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    assert gradcheck(lambda a, ww, bb: F.conv1d(a, ww, bb, 2, 1, 2, 2), (X, W, B))
    same = F.conv1d(X, W, None, padding="same", groups=2)
    assert tuple(same.shape) == (2, 6, 9)


def test_integer_and_half_inputs_convolve(rng):
    # torch 2.13 CPU convolves Long and Half tensors too (no gradient for integers)
    x = rng.integers(-3, 4, (2, 3, 5, 5))
    w = rng.integers(-2, 3, (4, 3, 3, 3))
    out = F.conv2d(nbgrad.tensor(x), nbgrad.tensor(w), padding=1)
    assert out.dtype == nbgrad.int64
    np.testing.assert_array_equal(out.numpy(), np_conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1).astype(np.int64))
    h = F.conv2d(nbgrad.tensor(x).half(), nbgrad.tensor(w).half(), padding=1)
    assert h.dtype == nbgrad.float16
    np.testing.assert_allclose(h.float().numpy(), out.numpy(), rtol=1e-3)


# torch 2.13's errors, recorded
ERRORS = [
    (lambda: F.conv2d(nbgrad.randn(2, 4, 8, 8), nbgrad.randn(16, 3, 3, 3)),
     "Given groups=1, weight of size [16, 3, 3, 3], expected input[2, 4, 8, 8] to have 3 channels, but got 4 "
     "channels instead"),
    (lambda: F.conv2d(nbgrad.randn(2, 4, 8, 8), nbgrad.randn(3, 2, 3, 3), groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 3, 3]] "
     "instead"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 2, 2), nbgrad.randn(4, 3, 3, 3)),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than "
     "actual input size"),
    (lambda: F.conv2d(nbgrad.randn(2, 3), nbgrad.randn(4, 3, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3)),
     "expected stride to be a single integer value or a list of 1 values to match the convolution dimensions, "
     "but got stride=[1, 1]"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), nbgrad.randn(3)),
     "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of size "
     "[3] instead"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), stride=0),
     "non-positive stride is not supported"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), padding=-1),
     "negative padding is not supported"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), dilation=0),
     "non-positive dilation is not supported"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), groups=0),
     "non-positive groups is not supported"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), padding="same", stride=2),
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), padding="foo"),
     "Invalid padding string: 'foo'"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5).double(), nbgrad.randn(4, 3, 3, 3)),
     "expected scalar type Double but found Float"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), nbgrad.randn(4).double()),
     "Input type (float) and bias type (double) should be the same"),
    (lambda: F.conv2d(nbgrad.randn(2, 3, 5, 5), nbgrad.randn(4, 3, 3, 3), stride=(1, 2, 3)),
     "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, "
     "but got stride=[1, 2, 3]"),
    (lambda: F.conv1d(nbgrad.randn(2, 3, 5), nbgrad.randn(4, 2, 3)),
     "Given groups=1, weight of size [4, 2, 3], expected input[2, 3, 5] to have 2 channels, but got 3 channels "
     "instead"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_errors_are_pytorchs(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("kwargs, message", [
    ({"groups": 2}, "in_channels must be divisible by groups"),
    ({"in_channels": 4, "out_channels": 3, "groups": 2}, "out_channels must be divisible by groups"),
    ({"padding": "same", "stride": 2}, "padding='same' is not supported for strided convolutions"),
    ({"padding_mode": "foo"}, "padding_mode must be one of {'reflect', 'replicate', 'circular', 'zeros'}, but got "
                              "padding_mode='foo'"),
])
def test_module_errors_are_pytorchs(kwargs, message):
    args = {"in_channels": 3, "out_channels": 4, "kernel_size": 3, **kwargs}
    with pytest.raises(ValueError) as info:
        nn.Conv2d(**args)
    assert str(info.value) == message


def test_modules_repr_parameters_and_state_dict():
    # reprs as torch 2.13 prints them
    assert repr(nn.Conv2d(3, 4, 3, padding=1)) == "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    assert repr(nn.Conv2d(4, 6, (3, 2), stride=2, dilation=2, groups=2, bias=False, padding_mode="reflect")) == (
        "Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 2), dilation=(2, 2), groups=2, bias=False, "
        "padding_mode=reflect)")
    assert repr(nn.Conv1d(3, 4, 3, padding="same", bias=False)) == (
        "Conv1d(3, 4, kernel_size=(3,), stride=(1,), padding=same, bias=False)")
    m = nn.Conv2d(6, 4, (3, 2), groups=2)
    assert tuple(m.weight.shape) == (4, 3, 3, 2) and tuple(m.bias.shape) == (4,)
    assert list(m.state_dict()) == ["weight", "bias"]
    bound = 1 / np.sqrt(3 * 3 * 2)          # kaiming_uniform(a=sqrt(5)): +-1/sqrt(fan_in), bias the same
    assert np.abs(m.weight.detach().numpy()).max() <= bound and np.abs(m.bias.detach().numpy()).max() <= bound


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_module_padding_modes(rng, mode):
    m = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode).double()
    x = rng.standard_normal((2, 2, 4, 5))
    np_mode = {"zeros": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode=np_mode)
    ref = np_conv2d(xp, m.weight.detach().numpy(), m.bias.detach().numpy(), (1, 1), (0, 0), (1, 1), 1)
    np.testing.assert_allclose(m(nbgrad.tensor(x)).detach().numpy(), ref, rtol=1e-12)


def test_conv1d_module(rng):
    m = nn.Conv1d(2, 4, 3, stride=2).double()
    x = rng.standard_normal((3, 2, 8))
    ref = np_conv2d(x[:, :, None], m.weight.detach().numpy()[:, :, None], m.bias.detach().numpy(), (1, 2),
                    (0, 0), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(m(nbgrad.tensor(x)).detach().numpy(), ref, rtol=1e-12)


@pytest.mark.acceleration
@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[3], CASES[6], CASES[8]])
def test_composed_fallback_gives_the_kernels_results(rng, monkeypatch, case):
    x, w, b = _rand(rng, case)
    s, p, d, g = case[6:]
    gy = None

    def run():
        nonlocal gy
        X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
        out = F.conv2d(X, W, B, s, p, d, g)
        if gy is None:
            gy = rng.standard_normal(tuple(out.shape))
        out.backward(nbgrad.tensor(gy))
        return [out.detach().numpy(), out.grad_fn.name()] + [t.grad.numpy() for t in (X, W, B)]
    fused = run()
    for name in ("conv2d_forward", "conv2d_backward"):
        monkeypatch.setattr(cpu, "ACCELERATIONS", cpu.ACCELERATIONS - {name})
        monkeypatch.setattr(cpu, name, lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    composed = run()
    assert fused[1] == composed[1] == "ConvolutionBackward0"
    for a, c in zip(fused[:1] + fused[2:], composed[:1] + composed[2:]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)


def test_thread_split_of_small_batches_sums_the_weight_gradient(rng, monkeypatch):
    # a LeNet-sized layer splits its batch across the pool: the pieces' weight gradients add up
    from nbgrad.backends.cpu import _threads
    monkeypatch.setattr(_threads, "_count", 2)
    monkeypatch.setattr(_threads, "_pool", None)
    x, w, b = _rand(rng, (5, 1, 6, 6, 3, (3, 3), (1, 1), (1, 1), (1, 1), 1))
    W = nbgrad.tensor(w, requires_grad=True)
    X = nbgrad.tensor(x, requires_grad=True)
    F.conv2d(X, W, None, 1, 1).sum().backward()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.stack([xp[:, 0, i:i + 6, j:j + 6].sum() for i in range(3) for j in range(3)]).reshape(3, 3)
    for o in range(3):
        np.testing.assert_allclose(W.grad.numpy()[o, 0], ref, rtol=1e-12)
    gx = np.zeros((6, 6))          # every output that reads (i, j) adds the summed weight at that offset
    for i in range(6):
        for j in range(6):
            for kh in range(3):
                for kw in range(3):
                    if 0 <= i + 1 - kh < 6 and 0 <= j + 1 - kw < 6:
                        gx[i, j] += w[:, 0, kh, kw].sum()
    for n in range(5):
        np.testing.assert_allclose(X.grad.numpy()[n, 0], gx, rtol=1e-12)


@pytest.mark.acceleration
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", [(2,) + CASES[9][1:], (3, 32, 7, 6, 48, (3, 2), (1, 1), (2, 1), (2, 1), 2),
                                  (5, 16, 5, 7, 48, (3, 3), (1, 1), (1, 0), (1, 2), 2)])
def test_shifted_products_in_chunks_across_the_pool(rng, monkeypatch, case, dtype):
    # stride 1, a large weight: the batch in chunks of one sample, taken by two threads with
    # their own buffers and weight-gradient sums, gives the composed ops' results
    from nbgrad.backends.cpu import _threads, conv as cpu_conv
    monkeypatch.setattr(_threads, "_count", 2)
    monkeypatch.setattr(_threads, "_pool", None)
    monkeypatch.setattr(cpu_conv, "PLANES_ELEMENTS", 1)
    chunks = []
    run_dynamic = cpu_conv.run_dynamic
    monkeypatch.setattr(cpu_conv, "run_dynamic", lambda fn, n: (chunks.append(n), run_dynamic(fn, n)))
    x, w, b = _rand(rng, case, dtype)
    s, p, d, g = case[6:]

    def run():
        X, W, B = (nbgrad.tensor(a, requires_grad=True) for a in (x, w, b))
        out = F.conv2d(X, W, B, s, p, d, g)
        out.backward(nbgrad.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(dtype)))
        return [out.detach().numpy()] + [t.grad.numpy() for t in (X, W, B)]
    fused = run()
    assert chunks == [case[0], case[0] + 1]     # one chunk per sample (and the bias gradient's sums)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(fused[0], np_conv2d(x, w, b, s, p, d, g), rtol=tol, atol=tol)
    for name in ("conv2d_forward", "conv2d_backward"):
        monkeypatch.setattr(cpu, "ACCELERATIONS", cpu.ACCELERATIONS - {name})
    for a, c in zip(fused, run()):
        np.testing.assert_allclose(a, c, rtol=tol, atol=tol)


# stride 1 with a small weight: the CPU's shifted rows (copies of the padded rows at the output's
# row length), including paddings and dilations whose kernel columns read only padding
SHIFTED_ROWS_CASES = [
    (3, 1, 12, 12, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1),       # case A: output width = input width
    (2, 1, 9, 7, 4, (5, 5), (1, 1), (2, 2), (1, 1), 1),          # 5x5 'same': two passes of taps per row
    (2, 2, 6, 5, 3, (2, 4), (1, 1), (0, 3), (1, 1), 1),          # wider output than input
    (2, 2, 7, 6, 2, (3, 3), (1, 1), (0, 0), (1, 1), 1),          # 'valid'
    (1, 1, 3, 2, 2, (3, 3), (1, 1), (4, 4), (4, 4), 1),          # |shift| >= W: columns of padding only
    (1, 2, 4, 3, 2, (2, 5), (1, 1), (3, 6), (2, 3), 2),          # groups, dilation, wide padding
    (2, 4, 5, 5, 4, (1, 1), (1, 1), (0, 0), (1, 1), 4),          # 1x1 depthwise
    (1, 3, 6, 8, 6, (4, 2), (1, 1), (1, 0), (1, 2), 3),
]


@pytest.mark.acceleration
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", SHIFTED_ROWS_CASES)
def test_small_weight_stride_one_shifted_rows(rng, monkeypatch, case, dtype):
    from nbgrad.backends.cpu import conv as cpu_conv
    calls = []
    rows = cpu_conv._conv_forward_rows
    monkeypatch.setattr(cpu_conv, "_conv_forward_rows", lambda *a: (calls.append(1), rows(*a)))
    x, w, b = _rand(rng, case, dtype)
    s, p, d, g = case[6:]
    for bias in (b, None):
        out = F.conv2d(nbgrad.tensor(x), nbgrad.tensor(w), None if bias is None else nbgrad.tensor(bias), s, p, d, g)
        tol = 1e-12 if dtype == np.float64 else 2e-5
        np.testing.assert_allclose(out.numpy(), np_conv2d(x, w, bias, s, p, d, g), rtol=tol, atol=tol)
    assert calls, "the shifted-rows kernel did not run"


@requires_cuda
@pytest.mark.parametrize("case", [(2, 2, 4, 3, 2, (3, 3), (1, 1), (1, 1), (1, 1), 1),
                                  (1, 4, 5, 5, 2, (2, 2), (2, 1), (1, 0), (2, 1), 2)])
def test_cuda_matches_the_cpu(rng, case):
    x, w, b = _rand(rng, case)
    s, p, d, g = case[6:]
    results = {}
    for dev in ("cpu", "cuda"):
        X, W, B = (nbgrad.tensor(a, device=dev, requires_grad=True) for a in (x, w, b))
        out = F.conv2d(X, W, B, s, p, d, g)
        gy = nbgrad.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), device=dev)
        out.backward(gy)
        results[dev] = [out.detach().cpu().numpy(), out.grad_fn.name()] + [t.grad.cpu().numpy() for t in (X, W, B)]
    np.testing.assert_allclose(results["cuda"][0], np_conv2d(x, w, b, s, p, d, g), rtol=1e-12)
    assert results["cuda"][1] == "ConvolutionBackward0"
    for a, c in zip(results["cpu"][2:], results["cuda"][2:]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
