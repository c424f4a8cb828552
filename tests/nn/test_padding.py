"""F.pad: constant (negative amounts crop), reflect, replicate, circular against np.pad, its
gradients, PyTorch's node name and errors."""
import numpy as np
import pytest

import nbgrad

F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def _np_widths(ndim, pad):
    widths = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        widths[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


@pytest.mark.parametrize("pad", [(1, 2), (1, 2, 0, 3), (2, 1, 1, 0, 1, 1)])
def test_constant_matches_numpy(rng, pad):
    x = rng.standard_normal((2, 3, 4, 5))
    out = F.pad(nbgrad.tensor(x), pad, value=1.5)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, _np_widths(4, pad), constant_values=1.5))
    assert out.is_contiguous()


def test_negative_amounts_crop(rng):
    x = rng.standard_normal((3, 6, 7))
    out = F.pad(nbgrad.tensor(x), (-1, 2, 1, -2))
    ref = np.pad(x[:, :4, 1:], ((0, 0), (1, 0), (0, 2)))
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("mode, np_mode", [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")])
@pytest.mark.parametrize("shape, pad", [((3, 5), (2, 1)), ((2, 3, 4, 5), (1, 2, 2, 0)), ((3, 4, 5), (2, 2, 1, 3))])
def test_other_modes_match_numpy(rng, mode, np_mode, shape, pad):
    x = rng.standard_normal(shape)
    out = F.pad(nbgrad.tensor(x), pad, mode=mode)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, _np_widths(len(shape), pad), mode=np_mode))
    X = nbgrad.tensor(x[:2], requires_grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode=mode), (X,))


@pytest.mark.parametrize("pad", [(-1, 1), (-1, 2), (1, -1), (2, -1), (-2, 1), (3, -2), (1, -1, -2, 2), (-1, 0, 2, -1)])
def test_circular_with_a_crop_wraps_around_what_is_left(rng, pad):
    # PyTorch's _pad_circular crops first, then wraps the positive amounts around the rest
    # (torch 2.13: (-1, 1) over [0, 1, 2, 3, 4] gives [1, 2, 3, 4, 1], not [.., 4, 0])
    k = len(pad) // 2
    x = rng.standard_normal((2, 3, 4, 5)[2 - k:])
    nd = x.ndim
    crop = tuple(slice(None) for _ in range(nd - k)) + tuple(
        slice(max(-pad[2 * i], 0), x.shape[nd - 1 - i] - max(-pad[2 * i + 1], 0)) for i in reversed(range(k)))
    ref = np.pad(x[crop], _np_widths(nd, [max(p, 0) for p in pad]), mode="wrap")
    np.testing.assert_array_equal(F.pad(nbgrad.tensor(x), pad, mode="circular").numpy(), ref)
    X = nbgrad.tensor(x[:1, :2], requires_grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode="circular"), (X,))
    assert F.pad(nbgrad.arange(5.0).reshape(1, 5), (-1, 1), mode="circular").tolist() == [[1.0, 2.0, 3.0, 4.0, 1.0]]


def test_constant_gradients_and_node(rng):
    x = nbgrad.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    out = F.pad(x, (1, -1, 2, 0))
    assert out.grad_fn.name() == "ConstantPadNdBackward0"      # torch 2.13
    assert gradcheck(lambda t: F.pad(t, (1, -1, 2, 0)), (x,))
    assert gradgradcheck(lambda t: F.pad(t, (1, 2)), (x,))
    (g,) = nbgrad.autograd.grad(F.pad(x, (1, 1)).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), np.ones((2, 3, 4)))


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.pad(nbgrad.randn(2, 3), (1,)), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: F.pad(nbgrad.randn(2, 3), (1, 1, 1, 1, 1, 1)), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got padding length 6 and "
     "input of dimension 2"),
    (lambda: F.pad(nbgrad.randn(2, 3), (-2, -2)), RuntimeError, "narrow(): length must be non-negative."),
    (lambda: F.pad(nbgrad.randn(1, 2, 3), (3, 3), mode="reflect"), RuntimeError,
     "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) "
     "at dimension 2 of input [1, 2, 3]"),
    (lambda: F.pad(nbgrad.randn(1, 2, 3), (1, 1), mode="foo"), NotImplementedError, "Unrecognised padding mode foo"),
    (lambda: F.pad(nbgrad.randn(2, 3, 4, 5), (2, 1), mode="reflect"), NotImplementedError,
     "Padding size 2 is not supported for 4D input tensor.\nSupported combinations for non-constant padding:\n"
     "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
     "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
     "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"),
    # negative amounts: PyTorch 2.13's messages
    (lambda: F.pad(nbgrad.randn(1, 3, 5), (0, -5), mode="reflect"), RuntimeError,
     "input (W: 5) is too small. Calculated output W: 0"),
    (lambda: F.pad(nbgrad.randn(1, 2, 3, 4, 5), (-3, -3, 0, 0, 0, 0), mode="replicate"), RuntimeError,
     "Trying to create tensor with negative dimension -1: [1, 2, 3, 4, -1]"),
    (lambda: F.pad(nbgrad.randn(1, 3, 5), (-3, -3), mode="circular"), RuntimeError,
     "Negative padding value is resulting in an empty dimension"),
    (lambda: F.pad(nbgrad.randn(1, 3, 5), (6, 0), mode="circular"), RuntimeError,
     "Padding value causes wrapping around more than once."),
    (lambda: F.pad(nbgrad.randn(2, 3), (1, 1), mode="reflect", value=1.0), RuntimeError,
     "Padding mode \"reflect\" doesn't take in value argument"),
])
def test_errors_are_pytorchs(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message
