"""F.conv3d and nn.Conv3d: values against a NumPy convolution, gradients against finite
differences (float64), PyTorch's node, checks and messages."""
import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.nn import functional as F

gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck

RNG = np.random.default_rng(11)


def _np_conv3d(x, w, b, stride, padding, dilation, groups):
    """The definition: every output element a sum over its (dilated, strided) window."""
    n, c, *_ = x.shape
    co, cg, kd, kh, kw = w.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    od, oh, ow = ((xp.shape[2 + i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1 for i in range(3))
    out = np.zeros((n, co, od, oh, ow))
    per = co // groups
    for o in range(co):
        grp = o // per
        for i in range(kd):
            for j in range(kh):
                for k in range(kw):
                    win = xp[:, grp * cg:(grp + 1) * cg,
                             i * dilation[0]:i * dilation[0] + stride[0] * (od - 1) + 1:stride[0],
                             j * dilation[1]:j * dilation[1] + stride[1] * (oh - 1) + 1:stride[1],
                             k * dilation[2]:k * dilation[2] + stride[2] * (ow - 1) + 1:stride[2]]
                    out[:, o] += np.einsum("ncdhw,c->ndhw", win, w[o, :, i, j, k])
    return out if b is None else out + b.reshape(1, co, 1, 1, 1)


CASES = [
    ((2, 3, 5, 6, 7), (4, 3, 2, 3, 2), (1, 1, 1), (0, 0, 0), (1, 1, 1), 1),
    ((2, 4, 7, 6, 7), (6, 2, 3, 3, 2), (2, 1, 2), (1, 2, 0), (2, 1, 1), 2),
    ((1, 2, 4, 5, 4), (3, 2, 3, 1, 3), (3, 2, 1), (1, 0, 1), (1, 1, 2), 1),
]


@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", CASES)
def test_conv3d_values_match_the_definition(xs, ws, stride, padding, dilation, groups):
    x, w, b = RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(ws[0])
    y = F.conv3d(nbgrad.tensor(x), nbgrad.tensor(w), nbgrad.tensor(b), stride, padding, dilation, groups)
    np.testing.assert_allclose(y.numpy(), _np_conv3d(x, w, b, stride, padding, dilation, groups),
                               rtol=1e-12, atol=1e-12)
    y32 = F.conv3d(nbgrad.tensor(x, dtype=nbgrad.float32), nbgrad.tensor(w, dtype=nbgrad.float32),
                   nbgrad.tensor(b, dtype=nbgrad.float32), stride, padding, dilation, groups)
    assert y32.dtype is nbgrad.float32
    np.testing.assert_allclose(y32.numpy(), _np_conv3d(x, w, b, stride, padding, dilation, groups),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", CASES[1:])
def test_conv3d_gradients_and_double_backward(xs, ws, stride, padding, dilation, groups):
    x = nbgrad.tensor(RNG.standard_normal(xs)[:1, :, :4, :4, :4], requires_grad=True)
    w = nbgrad.tensor(RNG.standard_normal(ws), requires_grad=True)
    b = nbgrad.tensor(RNG.standard_normal(ws[0]), requires_grad=True)
    f = lambda x, w, b: F.conv3d(x, w, b, stride, padding, dilation, groups)
    y = f(x, w, b)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_conv3d_unbatched_same_padding_and_empty_batch():
    x, w = RNG.standard_normal((3, 4, 5, 6)), RNG.standard_normal((2, 3, 3, 2, 3))
    with pytest.warns(UserWarning, match="even kernel lengths and odd dilation"):
        y = F.conv3d(nbgrad.tensor(x), nbgrad.tensor(w), padding="same")
    assert y.shape == (2, 4, 5, 6)
    # PyTorch's 'same': (total - left) on the right, where an even kernel makes the total odd
    xp = np.pad(x, [(0, 0), (1, 1), (0, 1), (1, 1)])
    np.testing.assert_allclose(y.numpy(), _np_conv3d(xp[None], w, None, (1,) * 3, (0,) * 3, (1,) * 3, 1)[0],
                               rtol=1e-12, atol=1e-12)
    e = nbgrad.zeros(0, 3, 4, 4, 4, requires_grad=True)
    k = nbgrad.ones(2, 3, 2, 2, 2, requires_grad=True)
    out = F.conv3d(e, k)
    assert out.shape == (0, 2, 3, 3, 3)
    out.sum().backward()
    assert e.grad.shape == e.shape and float(k.grad.abs().sum()) == 0.0


def test_conv3d_float16_rounds_once():
    x = RNG.standard_normal((1, 2, 4, 4, 4)).astype(np.float16)
    w = RNG.standard_normal((2, 2, 2, 2, 2)).astype(np.float16)
    y = F.conv3d(nbgrad.tensor(x), nbgrad.tensor(w))
    assert y.dtype is nbgrad.float16
    ref = _np_conv3d(x.astype(np.float64), w.astype(np.float64), None, (1,) * 3, (0,) * 3, (1,) * 3, 1)
    np.testing.assert_allclose(y.numpy().astype(np.float64), ref, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.conv3d(nbgrad.zeros(1, 2, 3, 3, 3, dtype=nbgrad.bool), nbgrad.zeros(1, 2, 2, 2, 2, dtype=nbgrad.bool)),
     NotImplementedError, "\"compute_columns3d\" not implemented for 'Bool'"),
    (lambda: F.conv3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(1, 2, 4, 2, 2)), RuntimeError,
     "Calculated padded input size per channel: (3 x 3 x 3). Kernel size: (4 x 2 x 2). Kernel size can't be "
     "greater than actual input size"),
    (lambda: F.conv3d(nbgrad.zeros(2, 3, 3), nbgrad.zeros(1, 2, 2, 2, 2)), RuntimeError,
     "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [2, 3, 3]"),
    (lambda: F.conv3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(1, 2, 2, 2, 2), stride=(1, 2)), RuntimeError,
     "expected stride to be a single integer value or a list of 3 values to match the convolution dimensions, "
     "but got stride=[1, 2]"),
    (lambda: F.conv3d(nbgrad.zeros(1, 3, 3, 3, 3), nbgrad.zeros(1, 2, 2, 2, 2)), RuntimeError,
     "Given groups=1, weight of size [1, 2, 2, 2, 2], expected input[1, 3, 3, 3, 3] to have 2 channels, but got "
     "3 channels instead"),
    (lambda: F.conv3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(1, 2, 2, 2, 2), padding="same", stride=2),
     RuntimeError, "padding='same' is not supported for strided convolutions"),
])
def test_conv3d_checks(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_conv3d_module():
    nbgrad.manual_seed(0)
    m = nn.Conv3d(2, 4, 3, stride=2, padding=1, padding_mode="circular")
    assert repr(m) == "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), padding_mode=circular)"
    assert m.weight.shape == (4, 2, 3, 3, 3) and m.bias.shape == (4,)
    bound = 1 / np.sqrt(2 * 27)         # kaiming_uniform_(a=sqrt(5)): +-1/sqrt(fan_in)
    assert float(m.weight.detach().abs().max()) <= bound and float(m.bias.detach().abs().max()) <= bound
    x = RNG.standard_normal((2, 2, 5, 6, 7)).astype(np.float32)
    y = m(nbgrad.tensor(x))
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)], mode="wrap")
    ref = _np_conv3d(xp, m.weight.detach().numpy().astype(np.float64), m.bias.detach().numpy().astype(np.float64),
                     (2,) * 3, (0,) * 3, (1,) * 3, 1)
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-5, atol=1e-5)
    assert nbgrad.conv3d is not None and nbgrad.conv3d(nbgrad.tensor(x), m.weight).shape == (2, 4, 3, 4, 5)


# ---------------------------------------------------------------- conv_transpose3d

def _np_conv_transpose3d(x, w, b, stride, padding, output_padding, dilation, groups):
    """The definition: each input element scatters its weighted kernel into the output."""
    n, cin, *size = x.shape
    _, cg_out, *k = w.shape
    cout = cg_out * groups
    full = [(size[i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1 + output_padding[i] for i in range(3)]
    out = np.zeros((n, cout, *full))
    per_in = cin // groups
    for c in range(cin):
        grp = c // per_in
        for idx in np.ndindex(*size):
            for t in np.ndindex(*k):
                pos = tuple(idx[i] * stride[i] + t[i] * dilation[i] for i in range(3))
                out[(slice(None), slice(grp * cg_out, (grp + 1) * cg_out)) + pos] += \
                    x[(slice(None), c) + idx][:, None] * w[(c, slice(None)) + t][None, :]
    od = [full[i] - 2 * padding[i] for i in range(3)]
    out = out[:, :, padding[0]:padding[0] + od[0], padding[1]:padding[1] + od[1], padding[2]:padding[2] + od[2]]
    return out if b is None else out + b.reshape(1, cout, 1, 1, 1)


T_CASES = [
    ((2, 3, 3, 4, 2), (3, 2, 2, 3, 2), (1, 1, 1), (0, 0, 0), (0, 0, 0), (1, 1, 1), 1),
    ((2, 4, 3, 2, 3), (4, 3, 3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 0, 1), (1, 2, 1), 2),
]


@pytest.mark.parametrize("xs, ws, stride, padding, output_padding, dilation, groups", T_CASES)
def test_conv_transpose3d_values_gradients_and_node(xs, ws, stride, padding, output_padding, dilation, groups):
    x, w, b = RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(ws[1] * groups)
    args = (stride, padding, output_padding, groups, dilation)
    y = F.conv_transpose3d(nbgrad.tensor(x), nbgrad.tensor(w), nbgrad.tensor(b), *args)
    np.testing.assert_allclose(y.numpy(), _np_conv_transpose3d(x, w, b, stride, padding, output_padding, dilation,
                                                                groups), rtol=1e-12, atol=1e-12)
    xt = nbgrad.tensor(x[:1], requires_grad=True)
    wt = nbgrad.tensor(w, requires_grad=True)
    bt = nbgrad.tensor(b, requires_grad=True)
    f = lambda x, w, b: F.conv_transpose3d(x, w, b, *args)
    assert type(f(xt, wt, bt).grad_fn).__name__ == "ConvolutionBackward0"
    assert gradcheck(f, (xt, wt, bt))
    assert gradgradcheck(f, (xt, wt, bt))


@pytest.mark.parametrize("call, message", [
    (lambda: F.conv_transpose3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(2, 3, 2, 2, 2), dilation=0),
     "dilation should be greater than zero, but got dilation_depth: 0, dilation_height: 0, dilation_width: 0"),
    (lambda: F.conv_transpose3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(2, 3, 2, 2, 2), output_padding=1),
     "output padding must be smaller than either stride or dilation, but got output_padding_depth: 1 "
     "output_padding_height: 1 output_padding_width: 1 stride_depth: 1 stride_height: 1 stride_width: 1 "
     "dilation_depth: 1 dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(2, 3, 0, 2, 2)),
     "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x kernel_width) tensor "
     "expected for weight, but got: [2, 3, 0, 2, 2]"),
    (lambda: F.conv_transpose3d(nbgrad.zeros(1, 2, 3, 3, 3), nbgrad.zeros(2, 3, 1, 1, 1), padding=2),
     "Given input size per channel: (3 x 3 x 3). Calculated output size per channel: (-1 x -1 x -1). Output size "
     "is too small"),
    (lambda: F.conv_transpose3d(nbgrad.zeros(2, 3, 3), nbgrad.zeros(2, 3, 2, 2, 2)),
     "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [2, 3, 3]"),
])
def test_conv_transpose3d_checks(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message
    with pytest.raises(NotImplementedError, match="\"slow_conv_transpose3d_out_cpu\" not implemented for 'Bool'"):
        F.conv_transpose3d(nbgrad.zeros(1, 2, 2, 2, 2, dtype=nbgrad.bool), nbgrad.zeros(2, 3, 2, 2, 2, dtype=nbgrad.bool))


def test_conv_transpose3d_module_unbatched_and_integers():
    nbgrad.manual_seed(0)
    m = nn.ConvTranspose3d(2, 4, 3, stride=2, padding=1, output_padding=1)
    assert repr(m) == ("ConvTranspose3d(2, 4, kernel_size=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1), "
                       "output_padding=(1, 1, 1))")
    assert m.weight.shape == (2, 4, 3, 3, 3)
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = m(nbgrad.tensor(x))
    assert y.shape == (4, 6, 8, 10)
    ref = _np_conv_transpose3d(x[None].astype(np.float64), m.weight.detach().numpy().astype(np.float64),
                               m.bias.detach().numpy().astype(np.float64), (2,) * 3, (1,) * 3, (1,) * 3, (1,) * 3, 1)[0]
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-5, atol=1e-5)
    assert m(nbgrad.tensor(x[None]), output_size=(5, 8, 9)).shape == (1, 4, 5, 8, 9)
    xi = np.arange(2 * 27).reshape(1, 2, 3, 3, 3) % 5
    wi = np.arange(2 * 3 * 8).reshape(2, 3, 2, 2, 2) % 3
    yi = nbgrad.conv_transpose3d(nbgrad.tensor(xi), nbgrad.tensor(wi))
    assert yi.dtype is nbgrad.int64
    np.testing.assert_array_equal(yi.numpy(), _np_conv_transpose3d(xi, wi, None, (1,) * 3, (0,) * 3, (0,) * 3,
                                                                    (1,) * 3, 1).astype(np.int64))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_convolution_of_an_input_without_channels_has_none(n):
    # PyTorch's quirk: an input of 0 channels gives 0 output channels (not the weight's 3),
    # with a ConvolutionBackward0 whose gradients are zeros
    x = nbgrad.zeros((2, 0) + (5,) * n, requires_grad=True)
    w = nbgrad.ones((3, 0) + (2,) * n, requires_grad=True)
    b = nbgrad.ones(3, requires_grad=True)
    y = getattr(F, f"conv{n}d")(x, w, b, stride=2)
    assert y.shape == (2, 0) + (2,) * n and type(y.grad_fn).__name__ == "ConvolutionBackward0"
    y.sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(3))
