"""F.grid_sample (4-D: bilinear, nearest, bicubic; zeros, border, reflection; align_corners)
and F.affine_grid: values and both gradients against PyTorch 2.13's recorded on a small case
with every padding branch (out-of-range and reflected points), bit for bit where PyTorch's CPU
kernel's arithmetic is reproduced; gradcheck in float64 away from cell boundaries; nodes;
layouts; PyTorch's errors and warnings; the CUDA backend (simulator) against the CPU."""
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck

from ._cuda import requires_cuda

X = (np.arange(12.0) * 0.37 % 1.3 - 0.6).reshape(1, 1, 3, 4)
GRID = np.array([[[[-0.83, -0.41], [0.27, 0.66]], [[1.31, -0.12], [-1.22, 1.07]]]])
GOUT = np.array([[[[0.5, -1.25], [2.0, 0.75]]]])

# PyTorch 2.13 (float64): output, input gradient, grid gradient for GOUT
RECORDED = {
    ('bicubic', 'border', False): (   [   -0.576785641875, 0.4802003816207995, 0.7635177599999994,
                                          -0.2281957181250003],
                                      [   0.340920307368, -0.02661559219799996, 9.248580000048143e-05,
                                          0.31277089278, 0.18526252532717227, -0.018218332964671884,
                                          -0.009527282999999715, 1.8684820046999993, 0.7680566673048285,
                                          0.035154425162672455, -1.2361652028000005, -0.22021289748000117],
                                      [   0.12121200000000044, 0.11625778124999997, 1.2717092098500016,
                                          -0.19504312829999707, -2.0939818953706887e-15, -0.42598799999999826,
                                          -0.04545450000000004, -0.04889235937500006]),
    ('bicubic', 'border', True): (   [   -0.43881166781250025, 0.4557288901086, 0.7960490573468996,
                                         -0.27293471250000007],
                                     [   0.15287607775178147, 0.059481452882461004, 0.04294982796124168,
                                         0.21564939140451428, 0.23700497227649225, 0.05897867913653529,
                                         -0.6714338571445114, 2.160790393231485, 0.8352391296592262,
                                         -0.17240153045649623, -0.8152811036292307, -0.10385343307349985],
                                     [   0.22165832812500025, 0.0909967500000002, -0.05971707067500017,
                                         -0.29129732041640677, -0.21900894606000026, -0.7287793807199994,
                                         0.0020916562499999087, 0.07438837499999987]),
    ('bicubic', 'reflection', False): (   [   -0.5827530018749999, 0.4802003816207995, 0.7182648523967998,
                                              -0.22338937500000014],
                                          [   0.3459894551999999, -0.03465728710200006, 0.03432181572000053,
                                              0.2815141099320001, 0.10193117309375048, -0.03397404553875122,
                                              0.19499200020000046, 1.68172360662, 0.8842043717062499,
                                              0.0020583326407510446, -1.2560338159200004,
                                              -0.20206971655200134],
                                          [   0.1887000000000002, 0.11625778124999997, 1.2717092098500016,
                                              -0.19504312829999707, -1.554771328319999, -0.31572761183999926,
                                              -0.3662999999999998, -0.031893750000000144]),
    ('bicubic', 'reflection', True): (   [   -0.49147578937500025, 0.48414955051884384, 0.6142636811939994,
                                             -0.1875009750000001],
                                         [   0.20452995805955038, 0.024677315504578034, 0.15965779279735481,
                                             0.13572849613851568, 0.28745194179578193, -0.14072158575249902,
                                             0.5187176783004681, 1.2471054656562492, 0.5528076704571677,
                                             0.10995460618542176, -1.0683688539103247, -0.03154048523226546],
                                         [   0.18522084375000025, 0.11230650000000021, 0.07168087044140599,
                                             -0.2944636150253912, -1.5368079995999997, -0.16974303719999945,
                                             -0.34409306250000016, -0.027357750000000094]),
    ('bicubic', 'zeros', False): (   [   -0.56193685741242, 0.48324866947727996, -0.053922402673919956,
                                         -0.004121083993331211],
                                     [   0.34955293432499995, -0.031239211274999953, 9.248580000048143e-05,
                                         -0.024573203819999972, 0.2056761931408595, -0.018218332964671884,
                                         -0.009527282999999715, -0.13055550037999997, -0.015349321055390795,
                                         0.036583966250578456, -1.245321297, -0.02773779109200008],
                                     [   -0.4469629723796247, 0.12975235314300002, 1.341080991510001,
                                         0.4560257729700007, -1.3072097617919984, 0.050707394495999945,
                                         -0.1163413998154687, 0.013087707498281115]),
    ('bicubic', 'zeros', True): (   [   -0.5370553384594511, 0.5143590616510013, 0.45349679163074996,
                                        -0.1892285820578814],
                                    [   0.20658034211587883, 0.06945120296630855, 0.03970113996990173,
                                        0.13572849613851568, 0.28517591162224615, 0.05897867913653529,
                                        -0.6714338571445114, 1.2673574147714846, 0.5528076704571677,
                                        -0.17935865024888684, -0.9514579370514964, -0.03154048523226546],
                                    [   0.18341726329951186, 0.17066944139150406, -0.0240338793107814,
                                        -0.29782920227273496, -2.7643680004499993, -0.5356728206812499,
                                        -0.26376967638914095, 0.1824661833004688]),
    ('bilinear', 'border', False): (   [-0.5307, 0.4615200000000001, 0.6575999999999999, -0.2400000000000001],
                                       [   0.30749999999999994, 0.0, 0.0, 0.3599999999999999,
                                           0.19250000000000006, 0.0, -0.011999999999999744, 1.6395000000000002,
                                           0.75, 0.0, -1.1880000000000002, -0.04950000000000006],
                                       [   0.0, 0.13499999999999995, 2.2925000000000004, -0.24000000000000063,
                                           -0.0, 0.5399999999999998, 0.0, 0.0]),
    ('bilinear', 'border', True): (   [-0.3994499999999999, 0.40365, 0.6683999999999999, -0.2400000000000001],
                                      [   0.15272499999999994, 0.052275, 0.0, 0.24, 0.219775,
                                          0.03485000000000006, -0.38462499999999983, 1.76, 0.75,
                                          -0.07837499999999999, -0.7466250000000002, 0.0],
                                      [   0.2775, 0.08999999999999998, -0.6937499999999999,
                                          -0.22500000000000045, -0.0, 0.3599999999999999, 0.0, 0.0]),
    ('bilinear', 'reflection', False): (   [   -0.5307, 0.4615200000000001, 0.6131999999999999,
                                               -0.2400000000000001],
                                           [   0.30749999999999994, 0.0, 0.04320000000000002,
                                               0.31679999999999986, 0.19250000000000006, 0.0,
                                               0.18480000000000046, 1.4427, 0.75, 0.0, -1.1880000000000002,
                                               -0.04950000000000006],
                                           [   0.0, 0.13499999999999995, 2.2925000000000004,
                                               -0.24000000000000063, -1.4800000000000002, 0.5399999999999997,
                                               0.0, 0.0]),
    ('bilinear', 'reflection', True): (   [   -0.3994499999999999, 0.40365, 0.49634999999999985,
                                              -0.13050000000000014],
                                          [   0.15272499999999994, 0.052275, 0.11159999999999996,
                                              0.12840000000000004, 0.2549500000000001, 0.05217500000000013,
                                              0.43377499999999997, 0.9416000000000002, 0.4673249999999999,
                                              0.15179999999999993, -0.7466250000000002, 0.0],
                                          [   0.2775, 0.08999999999999998, -0.6937499999999999,
                                              -0.22500000000000045, -1.11, 0.35999999999999965,
                                              -0.4162500000000001, -0.13499999999999995]),
    ('bilinear', 'zeros', False): (   [-0.445788, 0.4615200000000001, 0.0, -0.005688000000000001],
                                      [   0.2583, 0.0, 0.0, 0.0, 0.16170000000000007, 0.0,
                                          -0.011999999999999744, -0.0004999999999999898, 0.017774999999999996,
                                          0.0, -1.1880000000000002, -0.04950000000000006],
                                      [   -0.5307, 0.11339999999999997, 2.2925000000000004,
                                          -0.24000000000000063, 0.0, 0.0, -0.1421999999999999,
                                          0.01620000000000002]),
    ('bilinear', 'zeros', True): (   [-0.3994499999999999, 0.40365, 0.357594, -0.14954400000000004],
                                     [   0.15272499999999994, 0.052275, 0.0, 0.12840000000000004, 0.219775,
                                         0.03485000000000006, -0.38462499999999983, 0.9416000000000002,
                                         0.4673249999999999, -0.07837499999999999, -0.7466250000000002, 0.0],
                                     [   0.2775, 0.08999999999999998, -0.6937499999999999, -0.22500000000000045,
                                         -2.0051999999999994, 0.1926, -0.25110000000000005,
                                         0.12060000000000007]),
    ('nearest', 'border', False): (   [-0.6, 0.5000000000000001, 0.6899999999999998, -0.2400000000000001],
                                      [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.75, 0.0, -1.25, 0.0],
                                      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ('nearest', 'border', True): (   [   -0.42000000000000004, 0.5000000000000001, 0.6899999999999998,
                                         -0.2400000000000001],
                                     [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 2.0, 0.75, 0.0, -1.25, 0.0],
                                     [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ('nearest', 'reflection', False): (   [-0.6, 0.5000000000000001, 0.6899999999999998, -0.2400000000000001],
                                          [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.75, 0.0, -1.25, 0.0],
                                          [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ('nearest', 'reflection', True): (   [   -0.42000000000000004, 0.5000000000000001, 0.6899999999999998,
                                             -0.2400000000000001],
                                         [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 2.0, 0.75, 0.0, -1.25, 0.0],
                                         [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ('nearest', 'zeros', False): (   [-0.6, 0.5000000000000001, 0.0, 0.0],
                                     [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.25, 0.0],
                                     [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ('nearest', 'zeros', True): (   [   -0.42000000000000004, 0.5000000000000001, 0.6899999999999998,
                                        -0.2400000000000001],
                                    [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 2.0, 0.75, 0.0, -1.25, 0.0],
                                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
}


def _run(mode, padding_mode, align_corners, dtype=nbgrad.float64, grid=GRID, x=X):
    xt = nbgrad.tensor(x, dtype=dtype, requires_grad=True)
    gt = nbgrad.tensor(grid, dtype=dtype, requires_grad=True)
    y = F.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    y.backward(nbgrad.tensor(GOUT, dtype=dtype))
    return y, xt.grad, gt.grad


@pytest.mark.parametrize("key", list(RECORDED))
def test_values_and_gradients_match_pytorch(key):
    mode, padding_mode, align_corners = key
    y, gx, gg = _run(mode, padding_mode, align_corners)
    ry, rgx, rgg = RECORDED[key]
    assert type(y.grad_fn).__name__ == "GridSampler2DBackward0"
    assert y.shape == (1, 1, 2, 2) and y.is_contiguous()
    if mode == "bicubic":       # PyTorch's fused multiply-adds reproduced: still its bits here
        np.testing.assert_allclose(y.detach().numpy().ravel(), ry, rtol=1e-14, atol=1e-15)
    else:
        np.testing.assert_array_equal(y.detach().numpy().ravel(), ry)
    np.testing.assert_allclose(gx.numpy().ravel(), rgx, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(gg.numpy().ravel(), rgg, rtol=1e-14, atol=1e-15)
    if mode == "nearest":
        assert not gg.numpy().any()


@pytest.mark.parametrize("key", [k for k in RECORDED if k[0] != "bicubic"])
def test_float32_and_layouts(key):
    """float32 within float32's rounding of PyTorch's float64 values; a permuted input and
    grid (strided reads) give the contiguous ones' results bit for bit."""
    mode, padding_mode, align_corners = key
    y, gx, gg = _run(mode, padding_mode, align_corners, nbgrad.float32)
    np.testing.assert_allclose(y.detach().numpy().ravel(), RECORDED[key][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx.numpy().ravel(), RECORDED[key][1], rtol=1e-5, atol=1e-5)
    xt = nbgrad.tensor(np.ascontiguousarray(X.transpose(0, 1, 3, 2))).transpose(2, 3).requires_grad_(True)
    gt = nbgrad.tensor(np.ascontiguousarray(GRID.transpose(3, 0, 1, 2))).permute(1, 2, 3, 0).requires_grad_(True)
    assert not xt.is_contiguous() and not gt.is_contiguous()
    y2 = F.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    y2.backward(nbgrad.tensor(GOUT))
    y64, gx64, gg64 = _run(mode, padding_mode, align_corners)
    np.testing.assert_array_equal(y2.detach().numpy(), y64.detach().numpy())
    np.testing.assert_array_equal(xt.grad.numpy(), gx64.numpy())
    np.testing.assert_array_equal(gt.grad.numpy(), gg64.numpy())


def _away_from_boundaries(rng, shape, in_hw, align_corners, spread=1.5):
    """Grid values whose input coordinates are at least 0.1 from an integer (and from a
    reflection or clipping edge), where bilinear and bicubic are differentiable."""
    g = rng.uniform(-spread, spread, shape)
    for d, size in ((0, in_hw[1]), (1, in_hw[0])):
        u = (g[..., d] + 1) / 2 * (size - 1) if align_corners else ((g[..., d] + 1) * size - 1) / 2
        frac = u - np.floor(u)
        u = np.floor(u) + np.clip(frac, 0.15, 0.85)
        g[..., d] = u / (size - 1) * 2 - 1 if align_corners else (2 * u + 1) / size - 1
    return g


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_gradcheck(mode, padding_mode, align_corners):
    rng = np.random.default_rng(3)
    x = nbgrad.tensor(rng.standard_normal((2, 2, 3, 4)), requires_grad=True)
    spread = 1.5 if padding_mode == "zeros" else 0.9      # clipping and reflection kinks stay outside
    g = nbgrad.tensor(_away_from_boundaries(rng, (2, 3, 2, 2), (3, 4), align_corners, spread), requires_grad=True)
    assert gradcheck(lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode,
                                                align_corners=align_corners), (x, g))


def test_nearest_gradients():
    rng = np.random.default_rng(4)
    x = nbgrad.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    g = nbgrad.tensor(_away_from_boundaries(rng, (1, 4, 4, 2), (3, 3), False, 1.0), requires_grad=True)
    y = F.grid_sample(x, g, mode="nearest", align_corners=False)
    y.sum().backward()
    assert not g.grad.numpy().any()
    assert gradcheck(lambda a: F.grid_sample(a, g.detach(), mode="nearest", align_corners=False), (x,))
    # the input's gradient counts how often each pixel is read
    counts = np.zeros((3, 3))
    for gx_, gy_ in g.detach().numpy().reshape(-1, 2):
        ix, iy = np.rint(((gx_ + 1) * 3 - 1) / 2), np.rint(((gy_ + 1) * 3 - 1) / 2)
        if 0 <= ix < 3 and 0 <= iy < 3:
            counts[int(iy), int(ix)] += 1
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], counts)


def test_only_the_grid_or_only_the_input_requires_grad():
    x = nbgrad.tensor(X, requires_grad=True)
    g = nbgrad.tensor(GRID, requires_grad=True)
    F.grid_sample(x, g.detach(), align_corners=True).backward(nbgrad.tensor(GOUT))
    np.testing.assert_allclose(x.grad.numpy().ravel(), RECORDED["bilinear", "zeros", True][1], rtol=1e-14)
    F.grid_sample(x.detach(), g, align_corners=True).backward(nbgrad.tensor(GOUT))
    np.testing.assert_allclose(g.grad.numpy().ravel(), RECORDED["bilinear", "zeros", True][2], rtol=1e-14)
    assert F.grid_sample(x.detach(), g.detach(), align_corners=True).grad_fn is None


def test_empty_batches_channels_and_grids():
    x = nbgrad.zeros(2, 0, 3, 4, requires_grad=True)
    g = nbgrad.zeros(2, 5, 6, 2, requires_grad=True)
    y = F.grid_sample(x, g, align_corners=False)
    assert y.shape == (2, 0, 5, 6)
    y.sum().backward()
    assert g.grad.shape == (2, 5, 6, 2) and not g.grad.numpy().any()
    assert F.grid_sample(nbgrad.zeros(2, 3, 3, 4), nbgrad.zeros(2, 0, 6, 2), align_corners=False).shape == (2, 3, 0, 6)


def test_double_backward_is_refused():
    x = nbgrad.tensor(X, requires_grad=True)
    g = nbgrad.tensor(GRID, requires_grad=True)
    gx, gg = nbgrad.autograd.grad(F.grid_sample(x, g, align_corners=False).sum(), (x, g), create_graph=True)
    assert type(gg.grad_fn).__name__ == "GridSampler2DBackwardBackward0"
    with pytest.raises(NotImplementedError, match="GridSampler2DBackwardBackward0"):
        gg.sum().backward()


def test_errors_and_warning_are_pytorchs():
    x, g = nbgrad.zeros(2, 3, 4, 5), nbgrad.zeros(2, 6, 7, 2)
    with pytest.raises(ValueError, match=r"^nn.functional.grid_sample\(\): expected mode to be 'bilinear', 'nearest' "
                                         r"or 'bicubic', but got: 'area'$"):
        F.grid_sample(x, g, mode="area", align_corners=False)
    with pytest.raises(ValueError, match=r"expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
                                         r"'wrap'$"):
        F.grid_sample(x, g, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Double$"):
        F.grid_sample(x, g.double(), align_corners=False)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.grid_sample(x.long(), g.long(), align_corners=False)
    with pytest.raises(RuntimeError, match=r"^grid_sampler\(\): expected grid and input to have same batch size, but "
                                           r"got input with sizes \[1, 3, 4, 5\] and grid with sizes \[2, 6, 7, 2\]$"):
        F.grid_sample(x[:1], g, align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected grid to have size 2 in last dimension, but got grid with sizes "
                                           r"\[2, 6, 7, 1\]$"):
        F.grid_sample(x, g[..., :1], align_corners=False)
    with pytest.raises(RuntimeError, match=r"non-empty spatial dimensions, but input has sizes \[2, 3, 0, 5\] with "
                                           r"dimension 2 being empty$"):
        F.grid_sample(x[:, :, :0], g, align_corners=False)
    with pytest.raises(RuntimeError, match=r"^grid_sampler\(\): bicubic interpolation only supports 4D input$"):
        F.grid_sample(x.unsqueeze(2), nbgrad.zeros(2, 1, 6, 7, 3), mode="bicubic", align_corners=False)
    with pytest.raises(TypeError, match=r"argument 'grid' \(position 2\) must be Tensor, not str$"):
        F.grid_sample(x, "grid", align_corners=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.grid_sample(x, g)
    assert [str(w.message)[:60] for w in caught] == ["Default grid_sample and affine_grid behavior has changed to "]
    assert caught[0].filename == __file__


def test_float16_is_computed_in_float32():
    y, gx, gg = _run("bilinear", "border", True, nbgrad.float16)
    assert y.dtype is nbgrad.float16 and gx.dtype is nbgrad.float16 and gg.dtype is nbgrad.float16
    np.testing.assert_allclose(y.detach().numpy().astype(float).ravel(), RECORDED["bilinear", "border", True][0],
                               rtol=2e-3, atol=2e-3)


# --------------------------------------------------------------------------- affine_grid

THETA = np.array([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.25]]])
# PyTorch 2.13: grid, theta's gradient for arange(12) / 10
AFFINE_FALSE = ([-0.35, -0.9333333333333333, 0.25, -0.8, 0.85, -0.6666666666666667, -0.65, 0.16666666666666674,
                 -0.04999999999999999, 0.30000000000000004, 0.5499999999999999, 0.43333333333333335],
                [0.5333333333333333, 0.8999999999999999, 3.0, 0.5333333333333334, 0.9, 3.6])
# PyTorch 2.13: grid, theta's gradient for arange(12) / 10
AFFINE_TRUE = ([-0.5000000000000001, -1.55, 0.4, -1.35, 1.3, -1.1500000000000001, -1.0999999999999999,
                0.6500000000000001, -0.19999999999999998, 0.8500000000000001, 0.7000000000000001, 1.05],
               [0.8, 1.7999999999999998, 3.0, 0.8000000000000002, 1.8, 3.6])


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_pytorch(align_corners):
    theta = nbgrad.tensor(THETA, requires_grad=True)
    grid = F.affine_grid(theta, (1, 1, 2, 3), align_corners=align_corners)
    assert type(grid.grad_fn).__name__ == "AffineGridGeneratorBackward0"
    assert grid.shape == (1, 2, 3, 2) and grid.stride() == (12, 6, 2, 1)
    assert type(grid.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    grid.backward(nbgrad.arange(12.0, dtype=nbgrad.float64).reshape(1, 2, 3, 2) / 10)
    values, grad = AFFINE_TRUE if align_corners else AFFINE_FALSE
    np.testing.assert_allclose(grid.detach().numpy().ravel(), values, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(theta.grad.numpy().ravel(), grad, rtol=1e-15)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_3d_and_its_numpy_reference(align_corners):
    rng = np.random.default_rng(5)
    theta = rng.standard_normal((2, 3, 4))
    size = (2, 1, 3, 4, 5)
    grid = F.affine_grid(nbgrad.tensor(theta), size, align_corners=align_corners).numpy()

    def lin(n):
        r = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
        return r if align_corners else r * (n - 1) / n
    z, y, x = np.meshgrid(lin(3), lin(4), lin(5), indexing="ij")
    base = np.stack([x, y, z, np.ones_like(x)], -1)
    np.testing.assert_allclose(grid, np.einsum("dhwk,njk->ndhwj", base, theta), rtol=1e-12, atol=1e-14)
    t = nbgrad.tensor(theta, requires_grad=True)
    assert gradcheck(lambda a: F.affine_grid(a, size, align_corners=align_corners), (t,))


def test_affine_grid_then_grid_sample_identity():
    x = nbgrad.tensor(np.random.default_rng(6).standard_normal((2, 3, 4, 5)))
    theta = nbgrad.tensor([[[1.0, 0, 0], [0, 1, 0]]] * 2, dtype=nbgrad.float64)
    for ac in (False, True):
        grid = F.affine_grid(theta, x.shape, align_corners=ac)
        np.testing.assert_allclose(F.grid_sample(x, grid, align_corners=ac).numpy(), x.numpy(), atol=1e-6)


def test_affine_grid_errors_and_warnings():
    theta = nbgrad.zeros(2, 2, 3)
    with pytest.raises(ValueError, match="^Expected theta to have floating point type, but got"):
        F.affine_grid(theta.long(), (2, 3, 4, 5), align_corners=False)
    with pytest.raises(ValueError, match=r"^Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                                         r"\(2, 3, 4, 5, 6\)"):
        F.affine_grid(theta, (2, 3, 4, 5, 6), align_corners=False)
    with pytest.raises(ValueError, match=r"^Expected a batch of 2D affine matrices of shape Nx2x3 for size"):
        F.affine_grid(nbgrad.zeros(2, 3, 4), (2, 3, 4, 5), align_corners=False)
    with pytest.raises(NotImplementedError, match=r"^affine_grid only supports 4D and 5D sizes, for 2D and 3D affine "
                                                  r"transforms, respectively. Got size \(2, 3, 4\).$"):
        F.affine_grid(theta, (2, 3, 4), align_corners=False)
    with pytest.raises(ValueError, match=r"^Expected non-zero, positive output size. Got \(2, 3, 0, 5\)$"):
        F.affine_grid(theta, (2, 3, 0, 5), align_corners=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.affine_grid(theta, (2, 3, 1, 5), align_corners=True)
        F.affine_grid(theta, (2, 3, 4, 5))
    assert [str(w.message)[:40] for w in caught] == ["Since version 1.3.0, affine_grid behavio",
                                                     "Default grid_sample and affine_grid beha"]
    assert all(w.filename == __file__ for w in caught)


@requires_cuda
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_cuda_matches_the_cpu(mode):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 2, 3, 4))
    g = rng.uniform(-1.3, 1.3, (2, 3, 5, 2))
    go = rng.standard_normal((2, 2, 3, 5))
    for padding_mode, ac in (("zeros", False), ("border", True), ("reflection", False)):
        res = []
        for device in ("cpu", "cuda"):
            xt = nbgrad.tensor(x, device=device, requires_grad=True)
            gt = nbgrad.tensor(g, device=device, requires_grad=True)
            y = F.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=ac)
            y.backward(nbgrad.tensor(go, device=device))
            res.append([y.detach().cpu().numpy(), xt.grad.cpu().numpy(), gt.grad.cpu().numpy()])
        for a, b in zip(*res):
            np.testing.assert_array_equal(a, b)
