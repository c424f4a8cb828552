"""F.interpolate (nearest, nearest-exact, linear, bilinear, trilinear, area), nn.Upsample and
nn.UpsamplingNearest2d/UpsamplingBilinear2d: PyTorch's index rules (recorded from torch 2.13
as literals, and a NumPy reference of the rules), finite differences, node names, errors,
reprs and the CUDA backend (under the simulator: tiny shapes)."""
import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck = nbgrad.autograd.gradcheck


# --------------------------------------------------------------------------- NumPy reference

def ref_linear_1d(in_size, out_size, scale_factor, align_corners):
    """PyTorch's half-pixel rule (area_pixel_compute_source_index) in float64."""
    if out_size == in_size:
        i = np.arange(out_size)
        return i, i, np.ones(out_size), np.zeros(out_size)
    if align_corners:
        scale = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = scale * np.arange(out_size)
    else:
        scale = 1.0 / scale_factor if scale_factor else in_size / out_size
        src = np.maximum(scale * (np.arange(out_size) + 0.5) - 0.5, 0)
    i0 = np.minimum(np.floor(src).astype(int), in_size - 1)
    l1 = np.clip(src - i0, 0, 1)
    return i0, np.minimum(i0 + 1, in_size - 1), 1 - l1, l1


def ref_bilinear(x, size, scale_factors=(None, None), align_corners=False):
    h0, h1, a0, a1 = ref_linear_1d(x.shape[-2], size[0], scale_factors[0], align_corners)
    w0, w1, b0, b1 = ref_linear_1d(x.shape[-1], size[1], scale_factors[1], align_corners)
    rows = x[..., h0, :] * a0[:, None] + x[..., h1, :] * a1[:, None]
    return rows[..., w0] * b0 + rows[..., w1] * b1


def ref_nearest(x, size, index_lists):
    out = x
    for k, idx in enumerate(index_lists):
        out = np.take(out, idx, axis=x.ndim - len(size) + k)
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# --------------------------------------------------------------------------- nearest

# source indices recorded from torch 2.13 (in=5, scale_factor=2.1, so out == 2 * in): the 2-D
# forward and every backward take PyTorch's shortcut dst >> 1, the 1-D and 3-D forwards do not
NEAREST_1D_FWD = [0, 0, 0, 1, 1, 2, 2, 3, 3, 4]
NEAREST_2D_FWD = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
NEAREST_EXACT_7_BY_2_3 = [0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 6, 6]


def test_nearest_index_rules_are_pytorchs():
    x = nbgrad.arange(5.0, requires_grad=True)
    y1 = F.interpolate(x.reshape(1, 1, 5), scale_factor=2.1)
    assert y1.detach().reshape(-1).tolist() == NEAREST_1D_FWD
    assert y1.grad_fn.name() == "UpsampleNearest1DBackward0"
    y1.sum().backward()
    assert x.grad.tolist() == [2.0] * 5          # torch 2.13's backward, not the forward's adjoint
    y2 = F.interpolate(x.detach().reshape(1, 1, 5, 1), scale_factor=(2.1, 1))
    assert y2.reshape(-1).tolist() == NEAREST_2D_FWD
    y3 = F.interpolate(x.detach().reshape(1, 1, 5, 1, 1), scale_factor=(2.1, 1, 1))
    assert y3.reshape(-1).tolist() == NEAREST_1D_FWD
    e = F.interpolate(nbgrad.arange(7.0).reshape(1, 1, 7), scale_factor=2.3, mode="nearest-exact")
    assert e.reshape(-1).tolist() == NEAREST_EXACT_7_BY_2_3


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nearest_values_and_gradients(rng, mode, dtype):
    x = rng.standard_normal((2, 3, 5, 7)).astype(dtype)
    X = nbgrad.tensor(x, requires_grad=True)
    y = F.interpolate(X, size=(8, 4), mode=mode)
    # out = 8 != 2 * 5 and 4 < 7: the plain rule, floor(dst * in/out) (+ 0.5 for nearest-exact)
    off = 0.5 if mode == "nearest-exact" else 0.0
    ih = np.minimum(np.floor((np.arange(8) + off) * np.float32(5 / 8)).astype(int), 4)
    iw = np.minimum(np.floor((np.arange(4) + off) * np.float32(7 / 4)).astype(int), 6)
    np.testing.assert_array_equal(y.detach().numpy(), ref_nearest(x, (8, 4), [ih, iw]))
    assert y.grad_fn.name() == ("UpsampleNearest2DBackward0" if mode == "nearest" else
                                "UpsampleNearestExact2DBackward0")
    g = rng.standard_normal((2, 3, 8, 4)).astype(dtype)
    y.backward(nbgrad.tensor(g))
    ref = np.zeros_like(x)
    for a, i in enumerate(ih):
        for b, j in enumerate(iw):
            ref[:, :, i, j] += g[:, :, a, b]
    np.testing.assert_allclose(X.grad.numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape, size", [((1, 2, 5), (7,)), ((2, 1, 3, 4), (5, 3)), ((1, 1, 2, 3, 2), (3, 2, 5))])
def test_nearest_gradcheck(rng, mode, shape, size):
    x = nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda a: F.interpolate(a, size=size, mode=mode), (x,))


# --------------------------------------------------------------------------- linear

XS = np.arange(12.0).reshape(1, 1, 3, 4) ** 1.5
# torch 2.13, float64, recorded
BILINEAR_5x6 = np.array([
    [0., 0.49999999999999994, 1.3047378541243648, 2.5236892706218255, 4.012289773726411, 5.196152422706632],
    [3.1999999999999997, 4.136067977499789, 5.489418572087539, 7.158549040439381, 9.050813391066088,
     10.525795124604834],
    [8., 9.590169943749473, 11.766439649032302, 14.110838695165716, 16.608598817075602, 18.520259177452136],
    [16.77645019878171, 18.724293076890643, 21.368853519781297, 24.15572377890818, 27.075134315508198,
     29.297827287326495],
    [22.627416997969522, 24.81370849898476, 27.770462766947293, 30.852313834736492, 34.0528246477966,
     36.4828726939094]])
BILINEAR_5x6_ALIGNED = np.array([
    [0., 0.6, 1.365685424949238, 2.462741699796952, 3.775517243930367, 5.196152422706632],
    [4., 5.254101966249685, 6.624672513144106, 8.228180221327998, 10.00089199446533, 11.858205800079384],
    [8., 9.908203932499369, 11.883659601338973, 13.993618742859045, 16.226266745000295, 18.520259177452136],
    [15.313708498984761, 17.579585365843588, 19.904107460837864, 22.34592001210304, 24.896540891787165,
     27.501565935680766],
    [22.627416997969522, 25.250966799187808, 27.924555320336758, 30.698221281347035, 33.566815038574035,
     36.4828726939094]])
# scale_factor=(1.7, 1.3): the scale is 1/1.7 (not 3/5) unless recompute_scale_factor=True
BILINEAR_BY_1_7_1_3 = np.array([
    [0., 0.6538461538461537, 1.7735653220080032, 3.2837589128155056, 5.1050860650927685],
    [3.058823529411765, 4.257754655132656, 5.939134777360444, 7.928748203179299, 10.178191656277923],
    [7.764705882352942, 9.802229272496506, 12.347703170210352, 15.074885572969752, 17.982969488870467],
    [16.17414479298297, 18.689225088195723, 21.770058404744933, 25.002167219640658, 28.388855829676462],
    [22.627416997969522, 25.48641357622022, 28.955790100712374, 32.55741046557333, 36.29594592113149]])
BILINEAR_RECOMPUTED = np.array([
    [0., 0.7000000000000001, 1.9142135623730951, 3.5387447141343236, 5.196152422706632],
    [3.1999999999999997, 4.510495168499706, 6.323983806263461, 8.46082069765059, 10.525795124604834],
    [8., 10.226237921249265, 12.938639172099009, 15.84393467292499, 18.520259177452136],
    [16.77645019878171, 19.503430228134217, 22.76228864934474, 26.18605712678088, 29.29782728732649],
    [22.627416997969522, 25.68822509939086, 29.311388300841895, 33.08080542935148, 36.48287269390941]])
# float32 gradient for the scale_factor case with grad = arange(25)
BILINEAR_GRAD = np.array([[5.123302, 7.14027, 9.930992, 11.187782],
                          [25.168552, 25.686651, 29.286198, 28.976248],
                          [38.746605, 37.749996, 41.359726, 39.643673]], dtype=np.float32)


BICUBIC_5x3 = np.array([
    [-0.6834516273286652, 0.7211217569732573, 3.626210524895745],
    [2.261704765194771, 4.909941687631498, 8.704176002528275],
    [8.395385610546148, 12.878359718981436, 18.03259391028156],
    [18.036750323133287, 23.70605281656711, 29.892807835099234],
    [24.593521956736563, 30.83886707468296, 37.57758550807964]])
BICUBIC_5x3_ALIGNED = np.array([
    [0., 1.7859893156893039, 5.196152422706632],
    [2.628679656440357, 5.795862870805244, 10.174210782911516],
    [8., 12.878359718981436, 18.520259177452136],
    [16.063708498984763, 22.111931559117405, 28.750700943938156],
    [22.627416997969522, 29.265683948636102, 36.4828726939094]])


def ref_cubic_1d(in_size, out_size, align_corners):
    """PyTorch's bicubic taps: source index - 1 .. + 2 clamped, cubic convolution (A = -0.75)
    of the fractional part (the source index is not clamped at 0 first)."""
    if align_corners:
        src = np.arange(out_size) * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        src = in_size / out_size * (np.arange(out_size) + 0.5) - 0.5
    i0 = np.minimum(np.floor(src).astype(int), in_size - 1)
    t = np.clip(src - i0, 0, 1)
    A = -0.75

    def near(v):
        return ((A + 2) * v - (A + 3)) * v * v + 1

    def far(v):
        return ((A * v - 5 * A) * v + 8 * A) * v - 4 * A
    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    return [np.clip(i0 - 1 + j, 0, in_size - 1) for j in range(4)], weights


def ref_bicubic(x, size, align_corners):
    hi, hw = ref_cubic_1d(x.shape[-2], size[0], align_corners)
    wi, ww = ref_cubic_1d(x.shape[-1], size[1], align_corners)
    rows = sum(x[..., i, :] * w[:, None] for i, w in zip(hi, hw))
    return sum(rows[..., i] * w for i, w in zip(wi, ww))


def test_bicubic(rng):
    x = nbgrad.tensor(XS)
    np.testing.assert_allclose(F.interpolate(x, size=(5, 3), mode="bicubic").numpy()[0, 0], BICUBIC_5x3,
                               rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(F.interpolate(x, size=(5, 3), mode="bicubic", align_corners=True).numpy()[0, 0],
                               BICUBIC_5x3_ALIGNED, rtol=1e-14, atol=1e-14)
    r = rng.standard_normal((2, 2, 4, 5))
    for size in [(9, 3), (4, 5), (2, 11)]:
        for align in (False, True):
            out = F.interpolate(nbgrad.tensor(r), size=size, mode="bicubic", align_corners=align)
            np.testing.assert_allclose(out.numpy(), ref_bicubic(r, size, align), rtol=1e-12, atol=1e-12)
    X = nbgrad.tensor(r[:1], requires_grad=True)
    y = F.interpolate(X, size=(6, 3), mode="bicubic")
    assert y.grad_fn.name() == "UpsampleBicubic2DBackward0"
    assert gradcheck(lambda a: F.interpolate(a, size=(6, 3), mode="bicubic"), (X,))
    with pytest.raises(NotImplementedError, match="got 3D"):
        F.interpolate(nbgrad.randn(2, 3, 4), size=3, mode="bicubic")


def test_bilinear_matches_pytorchs_recorded_values():
    x = nbgrad.tensor(XS)
    for kwargs, ref in [(dict(size=(5, 6)), BILINEAR_5x6),
                        (dict(size=(5, 6), align_corners=True), BILINEAR_5x6_ALIGNED),
                        (dict(scale_factor=(1.7, 1.3)), BILINEAR_BY_1_7_1_3),
                        (dict(scale_factor=(1.7, 1.3), recompute_scale_factor=True), BILINEAR_RECOMPUTED)]:
        out = F.interpolate(x, mode="bilinear", **kwargs)
        np.testing.assert_allclose(out.numpy()[0, 0], ref, rtol=1e-14, atol=1e-14)
    X = nbgrad.tensor(XS.astype(np.float32), requires_grad=True)
    y = F.interpolate(X, scale_factor=(1.7, 1.3), mode="bilinear")
    assert y.grad_fn.name() == "UpsampleBilinear2DBackward0"
    y.backward(nbgrad.arange(25.0).reshape(1, 1, 5, 5))
    np.testing.assert_allclose(X.grad.numpy()[0, 0], BILINEAR_GRAD, rtol=2e-6)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size, scale", [((7, 9), None), ((2, 3), None), ((1, 1), None), ((3, 4), None),
                                         (None, (2.3, 0.7))])
def test_bilinear_against_the_reference(rng, align_corners, size, scale):
    x = rng.standard_normal((2, 3, 3, 4))
    out = F.interpolate(nbgrad.tensor(x), size=size, scale_factor=scale, mode="bilinear", align_corners=align_corners)
    out_size = size or (int(3 * scale[0]), int(4 * scale[1]))
    assert tuple(out.shape) == (2, 3) + out_size
    np.testing.assert_allclose(out.numpy(), ref_bilinear(x, out_size, scale or (None, None), align_corners),
                               rtol=1e-13, atol=1e-13)
    x32 = nbgrad.tensor(x.astype(np.float32))
    out32 = F.interpolate(x32, size=size, scale_factor=scale, mode="bilinear", align_corners=align_corners)
    assert out32.dtype == nbgrad.float32
    np.testing.assert_allclose(out32.numpy(), out.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode, shape, size", [("linear", (2, 2, 5), (8,)), ("bilinear", (1, 2, 3, 4), (5, 3)),
                                               ("trilinear", (1, 1, 2, 3, 2), (3, 2, 4))])
@pytest.mark.parametrize("align_corners", [False, True])
def test_linear_gradcheck_and_nodes(rng, mode, shape, size, align_corners):
    x = nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)
    y = F.interpolate(x, size=size, mode=mode, align_corners=align_corners)
    d = len(size)
    assert y.grad_fn.name() == f"Upsample{mode.capitalize()}{d}DBackward0"
    assert gradcheck(lambda a: F.interpolate(a, size=size, mode=mode, align_corners=align_corners), (x,))


def test_linear_1d_is_bilinear_over_a_unit_height(rng):
    x = rng.standard_normal((2, 3, 6))
    out = F.interpolate(nbgrad.tensor(x), scale_factor=1.5, mode="linear")
    np.testing.assert_allclose(out.numpy(), ref_bilinear(x[:, :, None], (1, 9), (None, 1.5))[:, :, 0], rtol=1e-13)


@pytest.mark.parametrize("mode, name", [("nearest", "UpsampleNearest2D"), ("bilinear", "UpsampleBilinear2D"),
                                        ("nearest-exact", "UpsampleNearestExact2D")])
def test_recorded_backward_nodes_are_pytorchs(rng, mode, name):
    # torch 2.13: the gradient's node is ...BackwardBackward0 (next: the gradient only), and its
    # own gradient is the forward again
    x = nbgrad.tensor(rng.standard_normal((1, 1, 3, 4)), requires_grad=True)
    y = F.interpolate(x, size=(5, 6), mode=mode)
    g = nbgrad.tensor(rng.standard_normal((1, 1, 5, 6)), requires_grad=True)
    (gx,) = nbgrad.autograd.grad(y, x, g, create_graph=True)
    assert gx.grad_fn.name() == f"{name}BackwardBackward0"
    assert [type(f).__name__ for f, _ in gx.grad_fn.next_functions] == ["AccumulateGrad"]
    h = nbgrad.tensor(rng.standard_normal((1, 1, 3, 4)), requires_grad=True)
    (gg,) = nbgrad.autograd.grad(gx, g, h, create_graph=True)
    assert gg.grad_fn.name() == f"{name}Backward0"
    np.testing.assert_allclose(gg.detach().numpy(), F.interpolate(h.detach(), size=(5, 6), mode=mode).numpy(),
                               rtol=1e-14)


def test_double_backward(rng):
    x = nbgrad.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    assert nbgrad.autograd.gradgradcheck(lambda a: F.interpolate(a, size=(4, 5), mode="bilinear"), (x,))
    assert nbgrad.autograd.gradgradcheck(lambda a: F.interpolate(a, size=(4, 5)), (x,))


def test_half_inputs():
    # torch 2.13 CPU, recorded: arange(12)/7 as Half, to (5, 6)
    x = (nbgrad.arange(12.0).reshape(1, 1, 3, 4).half() / 7)
    near = np.array([[0., 0., 0.1428, 0.2856, 0.2856, 0.4285], [0., 0., 0.1428, 0.2856, 0.2856, 0.4285],
                     [0.5713, 0.5713, 0.7144, 0.857, 0.857, 1.], [0.5713, 0.5713, 0.7144, 0.857, 0.857, 1.],
                     [1.143, 1.143, 1.286, 1.429, 1.429, 1.571]], dtype=np.float16)
    lin = np.array([[0., 0.0714, 0.1666, 0.2617, 0.357, 0.4285], [0.2285, 0.3, 0.3953, 0.4905, 0.5854, 0.657],
                    [0.5713, 0.6426, 0.7383, 0.833, 0.9287, 1.], [0.914, 0.986, 1.081, 1.176, 1.271, 1.343],
                    [1.143, 1.215, 1.31, 1.405, 1.5, 1.571]], dtype=np.float16)
    out = F.interpolate(x, size=(5, 6))
    assert out.dtype == nbgrad.float16
    np.testing.assert_array_equal(out.numpy()[0, 0], near)
    out = F.interpolate(x, size=(5, 6), mode="bilinear")
    assert out.dtype == nbgrad.float16
    np.testing.assert_allclose(out.numpy()[0, 0].astype(np.float32), lin.astype(np.float32), rtol=1e-3, atol=1e-3)


def test_area_is_adaptive_average_pooling(rng):
    x = nbgrad.tensor(rng.standard_normal((2, 3, 6, 4)), requires_grad=True)
    y = F.interpolate(x, size=(3, 2), mode="area")
    assert y.grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy().reshape(2, 3, 3, 2, 2, 2).mean((3, 5)),
                               rtol=1e-14)


# --------------------------------------------------------------------------- errors, modules

_x = (2, 3, 4, 5)
# torch 2.13's messages, recorded
ERRORS = [
    (RuntimeError, lambda: F.interpolate(nbgrad.randn(*_x), size=(0, 3)),
     "Input and output sizes should be greater than 0, but got input (H: 4, W: 5) output (H: 0, W: 3)"),
    (RuntimeError, lambda: F.interpolate(nbgrad.randn(*_x), scale_factor=-1.0),
     "Input and output sizes should be greater than 0, but got input (H: 4, W: 5) output (H: -4, W: -5)"),
    (RuntimeError, lambda: F.interpolate(nbgrad.randn(2, 3, 4), size=0),
     "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: 0)"),
    (RuntimeError, lambda: F.interpolate(nbgrad.randn(2, 0, 4, 5), size=3),
     "Non-empty 4D data tensor expected but got a tensor with sizes [2, 0, 4, 5]"),
    (NotImplementedError, lambda: F.interpolate(nbgrad.randn(*_x).long(), size=3),
     "\"upsample_nearest2d_channels_last\" not implemented for 'Long'"),
    (NotImplementedError, lambda: F.interpolate(nbgrad.randn(*_x).long(), size=3, mode="bilinear"),
     "\"upsample_bilinear2d_channels_last\" not implemented for 'Long'"),
    (NotImplementedError, lambda: F.interpolate(nbgrad.randn(*_x), size=3, mode="foo"),
     "Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for the modes: nearest | linear | bilinear | "
     "bicubic | trilinear | lanczos | area | nearest-exact (got foo)"),
    (NotImplementedError, lambda: F.interpolate(nbgrad.randn(2, 3, 4), size=3, mode="bilinear"),
     "Got 3D input, but bilinear mode needs 4D input"),
    (ValueError, lambda: F.interpolate(nbgrad.randn(*_x), size=(3, 3, 3)),
     "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of "
     "[4, 5] and output size of (3, 3, 3). Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
     "size in (o1, o2, ...,oK) format."),
    (TypeError, lambda: F.interpolate(nbgrad.randn(*_x), size=(3.0, 3)),
     "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got size with "
     "types [<class 'float'>, <class 'int'>]"),
    (ValueError, lambda: F.interpolate(nbgrad.randn(*_x), size=3, scale_factor=2),
     "only one of size or scale_factor should be defined"),
    (ValueError, lambda: F.interpolate(nbgrad.randn(*_x)), "either size or scale_factor should be defined"),
    (ValueError, lambda: F.interpolate(nbgrad.randn(*_x), size=3, recompute_scale_factor=True),
     "recompute_scale_factor is not meaningful with an explicit size."),
    (ValueError, lambda: F.interpolate(nbgrad.randn(*_x), size=3, align_corners=True),
     "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"),
    (ValueError, lambda: F.interpolate(nbgrad.randn(2, 3, 4), size=3, antialias=True),
     "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"),
]


@pytest.mark.parametrize("exc, call, message", ERRORS)
def test_errors_are_pytorchs(exc, call, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_modules(rng):
    assert repr(nn.Upsample(scale_factor=2, mode="bilinear")) == "Upsample(scale_factor=2.0, mode='bilinear')"
    assert repr(nn.Upsample(size=(3, 4))) == "Upsample(size=(3, 4), mode='nearest')"
    assert repr(nn.UpsamplingNearest2d(scale_factor=2)) == "UpsamplingNearest2d(scale_factor=2.0, mode='nearest')"
    assert repr(nn.UpsamplingBilinear2d(size=5)) == "UpsamplingBilinear2d(size=5, mode='bilinear')"
    x = rng.standard_normal((1, 2, 3, 4))
    out = nn.UpsamplingBilinear2d(scale_factor=2)(nbgrad.tensor(x))      # align_corners=True
    np.testing.assert_allclose(out.numpy(), ref_bilinear(x, (6, 8), (2.0, 2.0), True), rtol=1e-13)
    out = nn.Upsample(scale_factor=(2, 1.5), mode="bilinear")(nbgrad.tensor(x))
    np.testing.assert_allclose(out.numpy(), ref_bilinear(x, (6, 6), (2.0, 1.5), False), rtol=1e-13)
    out = nn.UpsamplingNearest2d(size=(6, 8))(nbgrad.tensor(x))
    np.testing.assert_array_equal(out.numpy(), x.repeat(2, axis=2).repeat(2, axis=3))


@pytest.mark.acceleration
@pytest.mark.parametrize("mode, shape, size", [("nearest", (2, 3, 5, 7), (8, 4)), ("nearest", (1, 2, 5), (11,)),
                                               ("nearest-exact", (1, 2, 3, 2, 4), (5, 3, 3)),
                                               ("bilinear", (2, 3, 5, 7), (9, 3)), ("linear", (2, 2, 6), (13,)),
                                               ("trilinear", (1, 2, 3, 2, 4), (5, 3, 3)),
                                               ("bicubic", (2, 2, 4, 5), (9, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backend_passes_give_the_composed_results(rng, monkeypatch, mode, shape, size, dtype):
    from nbgrad.backends import cpu
    x = rng.standard_normal(shape).astype(dtype)
    g = None

    def run():
        nonlocal g
        X = nbgrad.tensor(x, requires_grad=True)
        y = F.interpolate(X, size=size, mode=mode)
        if g is None:
            g = rng.standard_normal(tuple(y.shape)).astype(dtype)
        y.backward(nbgrad.tensor(g))
        return y.detach().numpy(), X.grad.numpy(), y.grad_fn.name()
    kernel = run()
    monkeypatch.setattr(cpu, "ACCELERATIONS", cpu.ACCELERATIONS - {"interp_pass", "interp_pass_backward"})
    for name in ("interp_pass", "interp_pass_backward"):
        monkeypatch.setattr(cpu, name, lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    composed = run()
    assert kernel[2] == composed[2]
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(kernel[0], composed[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(kernel[1], composed[1], rtol=tol, atol=tol)
    if mode.startswith("nearest"):
        np.testing.assert_array_equal(kernel[0], composed[0])


def test_deprecated_aliases_warn(rng):
    x = nbgrad.tensor(rng.standard_normal((1, 1, 2, 3)))
    for fn, kwargs, name in [(F.upsample, dict(mode="nearest"), "upsample"),
                             (F.upsample_nearest, {}, "upsample_nearest"), (F.upsample_bilinear, {}, "upsample_bilinear")]:
        with pytest.warns(UserWarning) as caught:
            out = fn(x, size=(4, 5), **kwargs)
        assert str(caught[0].message) == (f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                                          "instead.")
        align = True if name == "upsample_bilinear" else None
        mode = "bilinear" if name == "upsample_bilinear" else "nearest"
        ref = F.interpolate(x, size=(4, 5), mode=mode, align_corners=align)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())


@requires_cuda
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "nearest-exact", "bicubic"])
def test_cuda_matches_the_cpu(rng, mode):
    x = rng.standard_normal((1, 1, 2, 3))
    results = {}
    for dev in ("cpu", "cuda"):
        X = nbgrad.tensor(x, device=dev, requires_grad=True)
        y = F.interpolate(X, size=(3, 4), mode=mode)
        y.backward(nbgrad.tensor(np.linspace(-1, 1, 12).reshape(1, 1, 3, 4), device=dev))
        results[dev] = (y.detach().cpu().numpy(), X.grad.cpu().numpy(), y.grad_fn.name())
    for a, c in zip(results["cpu"][:2], results["cuda"][:2]):
        np.testing.assert_allclose(a, c, rtol=1e-14, atol=1e-14)
    assert results["cuda"][2] == results["cpu"][2]
