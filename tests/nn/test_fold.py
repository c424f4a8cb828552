"""F.unfold / F.fold and nn.Unfold / nn.Fold against NumPy loop references, finite differences,
PyTorch's recorded nodes (each one's backward is the other), errors and reprs, and the CUDA
backend (under the simulator: tiny shapes)."""
import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


def np_unfold(x, kernel, dilation, padding, stride):
    """out[n, (c*KH + i)*KW + j, bh*BW + bw] = x_padded[n, c, bh*SH + i*DH, bw*SW + j*DW]."""
    n, c, h, w = x.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    xp = np.zeros((n, c, h + 2 * ph, w + 2 * pw), x.dtype)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    bh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    bw = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c, kh, kw, bh, bw), x.dtype)
    for i in range(kh):
        for j in range(kw):
            for a in range(bh):
                for b in range(bw):
                    out[:, :, i, j, a, b] = xp[:, :, a * sh + i * dh, b * sw + j * dw]
    return out.reshape(n, c * kh * kw, bh * bw)


def np_fold(cols, size, kernel, dilation, padding, stride):
    """Every column element added at its window position (the adjoint of np_unfold)."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    h, w = size
    bh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    bw = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = cols.reshape(n, c, kh, kw, bh, bw)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            for a in range(bh):
                for b in range(bw):
                    out[:, :, a * sh + i * dh, b * sw + j * dw] += cols[:, :, i, j, a, b]
    return out[:, :, ph:ph + h, pw:pw + w]


# (input shape, kernel, dilation, padding, stride)
CASES = [
    ((2, 3, 5, 6), (2, 3), (1, 2), (1, 1), (2, 1)),
    ((1, 2, 4, 4), (3, 3), (1, 1), (2, 2), (2, 2)),       # overlapping windows reaching into the padding
    ((2, 1, 6, 5), (2, 2), (2, 1), (0, 1), (1, 3)),
    ((1, 2, 3, 3), (3, 3), (1, 1), (0, 0), (1, 1)),       # one window
]


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def _args(case):
    return dict(kernel_size=case[1], dilation=case[2], padding=case[3], stride=case[4])


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unfold_and_fold_match_the_loop_references(rng, case, dtype):
    x = rng.standard_normal(case[0]).astype(dtype)
    out = F.unfold(nbgrad.tensor(x), **_args(case))
    ref = np_unfold(x, *case[1:])
    assert out.dtype == nbgrad.tensor(x).dtype and tuple(out.shape) == ref.shape
    np.testing.assert_array_equal(out.numpy(), ref)
    cols = rng.standard_normal(ref.shape).astype(dtype)
    back = F.fold(nbgrad.tensor(cols), case[0][2:], **_args(case))
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(back.numpy(), np_fold(cols, case[0][2:], *case[1:]), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES[:3])
def test_gradcheck_and_nodes(rng, case):
    x = nbgrad.tensor(rng.standard_normal(case[0]), requires_grad=True)
    y = F.unfold(x, **_args(case))
    assert y.grad_fn.name() == "Im2ColBackward0"
    assert gradcheck(lambda a: F.unfold(a, **_args(case)), (x,))
    cols = nbgrad.tensor(rng.standard_normal(tuple(y.shape)), requires_grad=True)
    z = F.fold(cols, case[0][2:], **_args(case))
    assert z.grad_fn.name() == "Col2ImBackward0"
    assert gradcheck(lambda a: F.fold(a, case[0][2:], **_args(case)), (cols,))


def test_each_is_the_others_adjoint_and_recorded_backward(rng):
    # <unfold(x), c> == <x, fold(c)>; under create_graph the backward is the other op's node (torch 2.13)
    case = CASES[1]
    x = nbgrad.tensor(rng.standard_normal(case[0]), requires_grad=True)
    y = F.unfold(x, **_args(case))
    c = nbgrad.tensor(rng.standard_normal(tuple(y.shape)), requires_grad=True)
    lhs = float((y * c).sum())
    rhs = float((x * F.fold(c, case[0][2:], **_args(case))).sum())
    assert abs(lhs - rhs) < 1e-12 * max(1, abs(lhs))
    (gx,) = nbgrad.autograd.grad(y, x, c, create_graph=True)
    assert gx.grad_fn.name() == "Col2ImBackward0"
    z = F.fold(c, case[0][2:], **_args(case))
    (gc,) = nbgrad.autograd.grad(z, c, x, create_graph=True)
    assert gc.grad_fn.name() == "Im2ColBackward0"
    assert nbgrad.autograd.gradgradcheck(lambda a: F.unfold(a, **_args(case)), (x,))


def test_unbatched_inputs(rng):
    x = rng.standard_normal((3, 5, 6))
    out = F.unfold(nbgrad.tensor(x, requires_grad=True), 2)
    assert tuple(out.shape) == (12, 20) and out.grad_fn.name() == "Im2ColBackward0"
    np.testing.assert_array_equal(out.detach().numpy(), np_unfold(x[None], (2, 2), (1, 1), (0, 0), (1, 1))[0])
    back = F.fold(out.detach(), (5, 6), 2)
    assert tuple(back.shape) == (3, 5, 6)
    np.testing.assert_allclose(back.numpy(), np_fold(out.detach().numpy()[None], (5, 6), (2, 2), (1, 1), (0, 0),
                                                     (1, 1))[0], rtol=1e-14)


def test_half_and_empty_batch():
    # torch 2.13 CPU: Half works, a zero batch gives an empty result
    x = nbgrad.tensor(np.arange(24, dtype=np.float16).reshape(1, 2, 3, 4))
    out = F.unfold(x, 2)
    assert out.dtype == nbgrad.float16
    np.testing.assert_array_equal(out.numpy(), np_unfold(x.numpy(), (2, 2), (1, 1), (0, 0), (1, 1)))
    assert tuple(F.unfold(nbgrad.randn(0, 3, 5, 6), 2).shape) == (0, 12, 20)
    assert tuple(F.fold(nbgrad.randn(0, 12, 20), (5, 6), 2).shape) == (0, 3, 5, 6)


_x = (2, 3, 5, 6)
_c = (2, 12, 20)
# torch 2.13's messages, recorded
ERRORS = [
    (lambda: F.unfold(nbgrad.randn(*_x), 0, stride=0, dilation=0, padding=-1),
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    (lambda: F.unfold(nbgrad.randn(*_x), 2, stride=0, dilation=0, padding=-1),
     "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0"),
    (lambda: F.unfold(nbgrad.randn(*_x), 2, stride=0, padding=(0, -1)),
     "padding should be non-negative, but got pad_height: 0 pad_width: -1"),
    (lambda: F.unfold(nbgrad.randn(*_x), 2, stride=0), "stride should be greater than zero, but got stride_height: 0 "
                                                       "stride_width: 0"),
    (lambda: F.unfold(nbgrad.randn(*_x), 2, padding=(1, 2, 3)), "It is expected padding equals to 2, but got size 3"),
    (lambda: F.unfold(nbgrad.randn(*_x), 7),
     "Given input with spatial size (5, 6), kernel_size=(7, 7), dilation=(1, 1), padding=(0, 0), calculated shape "
     "of the array of sliding blocks as (-1, 0), but its components must be at least one."),
    (lambda: F.unfold(nbgrad.randn(2, 0, 5, 6), 2),
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     "but got: [2, 0, 5, 6]"),
    (lambda: F.fold(nbgrad.randn(*_c), (5, 6), 2, stride=0, dilation=0, padding=-1),
     "stride should be greater than zero, but got stride_height: 0 stride_width: 0"),
    (lambda: F.fold(nbgrad.randn(*_c), (5, 6), 2, dilation=0, padding=-1),
     "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0"),
    (lambda: F.fold(nbgrad.randn(*_c), (5, 6, 1), 2), "It is expected output_size equals to 2, but got size 3"),
    (lambda: F.fold(nbgrad.randn(*_c), (5, 7), 2),
     "Given output_size=(5, 7), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1), expected size "
     "of input's dimension 2 to match the calculated number of sliding blocks 4 * 6 = 24, but got input.size(2)=20."),
    (lambda: F.fold(nbgrad.randn(2, 12), (5, 6), 2),
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=2 "
     "and kernel_size=(2, 2)."),
    (lambda: F.fold(nbgrad.randn(1, 2, 12, 20), (5, 6), 2),
     "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, "
     "but got: [1, 2, 12, 20]"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_errors_are_pytorchs(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_other_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.unfold(nbgrad.randn(5, 6), 2)
    with pytest.raises(NotImplementedError, match="\"im2col_out_cpu\" not implemented for 'Int'"):
        F.unfold(nbgrad.randn(*_x).int(), 2)
    with pytest.raises(NotImplementedError, match="\"col2im_out_cpu\" not implemented for 'Long'"):
        F.fold(nbgrad.randn(*_c).long(), (5, 6), 2)


def test_modules(rng):
    u = nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))
    assert repr(u) == "Unfold(kernel_size=(2, 3), dilation=2, padding=1, stride=(1, 2))"
    f = nn.Fold((5, 6), 2)
    assert repr(f) == "Fold(output_size=(5, 6), kernel_size=2, dilation=1, padding=0, stride=1)"
    x = rng.standard_normal((2, 3, 5, 6))
    np.testing.assert_array_equal(u(nbgrad.tensor(x)).numpy(), np_unfold(x, (2, 3), (2, 2), (1, 1), (1, 2)))
    cols = rng.standard_normal((2, 12, 20))
    np.testing.assert_allclose(f(nbgrad.tensor(cols)).numpy(), np_fold(cols, (5, 6), (2, 2), (1, 1), (0, 0), (1, 1)),
                               rtol=1e-14)


@requires_cuda
def test_cuda_matches_the_references(rng):
    case = ((1, 1, 3, 3), (2, 2), (1, 1), (1, 1), (2, 1))
    x = rng.standard_normal(case[0])
    X = nbgrad.tensor(x, device="cuda", requires_grad=True)
    y = F.unfold(X, **_args(case))
    ref = np_unfold(x, *case[1:])
    np.testing.assert_array_equal(y.detach().cpu().numpy(), ref)
    g = rng.standard_normal(ref.shape)
    y.backward(nbgrad.tensor(g, device="cuda"))
    np.testing.assert_allclose(X.grad.cpu().numpy(), np_fold(g, case[0][2:], *case[1:]), rtol=1e-14)
