"""torch.special.gammainc / gammaincc (torch.igamma / igammac, Tensor.igamma / igamma_ / igammac /
igammac_): values against PyTorch 2.13's CPU results (recorded here as literals, float64 and
float32, every branch of Cephes' igam/igamc as PyTorch computes them: the series, the continued
fraction, the uniform asymptotic expansion for large a, and the special values), gradients in x
against finite differences and PyTorch's, PyTorch's refusal of the gradient in a, its dtype rules,
out=, broadcasting, in-place forms and argument errors.

Runs against PyTorch itself with NBGRAD_TESTS_AGAINST_TORCH=1 (submodules by attribute)."""
import math
import os

import numpy as np
import pytest

import nbgrad

from _ulp import ulps  # (tests/ops/_ulp.py: this directory is on the path, as pytest puts it there)

inf, nan = math.inf, math.nan
AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"

A = [0.0, 0.001, 0.3, 0.5, 1.0, 2.5, 7.5, 25.0, 150.0, 300.0, 5000.0, inf, -1.0, nan]
X = [0.0, 0.0001, 0.2, 0.5, 0.8, 1.0, 1.05, 2.0, 6.0, 24.0, 140.0, 310.0, 5100.0, inf, -0.5, nan]
GAMMAINC = [
    nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 0.9914031196674435,
    0.9987774521605273, 0.9994399333435291, 0.9996891369289664, 0.9997803916424145, 0.9997979132836743,
    0.999951023082169, 0.9999996390168686, 0.9999999999999984, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0,
    0.0703023270770118, 0.6575067242697217, 0.8138118046743924, 0.8862152066572104, 0.9156741562411086,
    0.9215703360548393, 0.977974019172853, 0.9997856288292811, 0.9999999999986731, 1.0, 1.0, 1.0, 1.0, nan, nan,
    0.0, 0.011283415555849621, 0.47291074313446185, 0.6826894921370859, 0.7940967892679317, 0.8427007929497151,
    0.8527008613773241, 0.9544997361036415, 0.9994679944948608, 0.9999999999957379, 1.0, 1.0, 1.0, 1.0, nan, nan,
    0.0, 9.999500016666262e-05, 0.18126924692201815, 0.3934693402873665, 0.5506710358827783, 0.6321205588285577,
    0.6500622508888446, 0.8646647167633873, 0.9975212478233336, 0.9999999999622486, 1.0, 1.0, 1.0, 1.0, nan, nan,
    0.0, 3.008796191247681e-11, 0.00467040676412957, 0.03743422675270361, 0.09875065549872637, 0.15085496391539038,
    0.16485769935836617, 0.4505840486472198, 0.9652122194937581, 0.9999999964480775, 1.0, 1.0, 1.0, 1.0, nan, nan,
    0.0, 7.124716760339558e-35, 3.419688345262265e-10, 2.535644310823258e-07, 6.6221573012569575e-06,
    2.9654977282546142e-05, 4.093734547821553e-05, 0.002262655847083077, 0.3209709429095853, 0.999974569561818,
    1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 6.446330415164976e-126, 1.7848346677404716e-43, 1.188185339354857e-33,
    1.1290809537169043e-28, 2.4664231717319608e-26, 7.960715001274258e-26, 3.1707866758025193e-19,
    5.8875198884963086e-09, 0.4459987765587104, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 0.0, 0.0, 7.4627761403232e-309,
    2.2986666022368848e-278, 6.4818304762487295e-264, 9.30084872299936e-261, 3.4261560452059366e-219,
    2.3857850532933115e-149, 8.448838882289163e-67, 0.20954362381019084, 1.0, 1.0, 1.0, nan, nan, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5508787598408266e-211, 6.638227252803933e-32, 0.7224887540818496, 1.0, 1.0,
    nan, nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9206711189126763, 1.0, nan, nan, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, 0.0, nan, nan, nan, nan, nan, nan, nan,
    nan, nan, nan, nan, nan, nan, nan, nan, nan, 0.0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
    1.0, nan, nan,
]
GAMMAINCC = [
    nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 0.008596880332556704,
    0.0012225478394732722, 0.0005600666564708134, 0.00031086307103415803, 0.00021960835758562015,
    0.00020208671632568627, 4.897691783098143e-05, 3.609831313781031e-07, 1.5180530663514644e-15,
    1.1271312119829276e-66, 7.563063746331635e-141, 0.0, 0.0, nan, nan, 1.0, 0.9296976729229882,
    0.3424932757302783, 0.18618819532560732, 0.11378479334278958, 0.08432584375889117, 0.07842966394516063,
    0.022025980827147008, 0.0002143711707189148, 1.326976169349531e-12, 1.65360953742505e-63,
    1.4056654540059324e-137, 0.0, 0.0, nan, nan, 1.0, 0.9887165844441503, 0.5270892568655381, 0.3173105078629141,
    0.2059032107320683, 0.15729920705028505, 0.14729913862267588, 0.045500263896358445, 0.0005320055051392493,
    4.262191597843651e-12, 7.50924265373513e-63, 7.477512608969501e-137, 0.0, 0.0, nan, nan, 1.0,
    0.9999000049998333, 0.8187307530779818, 0.6065306597126334, 0.4493289641172217, 0.36787944117144245,
    0.3499377491111554, 0.1353352832366127, 0.002478752176666357, 3.7751345442790964e-11, 1.580420060273615e-61,
    2.3372792850071602e-135, 0.0, 0.0, nan, nan, 1.0, 0.9999999999699121, 0.9953295932358704, 0.9625657732472964,
    0.9012493445012736, 0.8491450360846096, 0.8351423006416339, 0.5494159513527803, 0.03478778050624185,
    3.5519225555601777e-09, 1.9905503867156856e-58, 9.643100118698709e-132, 0.0, 0.0, nan, nan, 1.0, 1.0,
    0.9999999996580312, 0.9999997464355689, 0.9999933778426987, 0.9999703450227174, 0.9999590626545218,
    0.9977373441529169, 0.6790290570904147, 2.5430438182070894e-05, 7.887925279492274e-51, 1.993431719465829e-122,
    0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.9999999941124801, 0.5540012234412895,
    9.863962408849304e-34, 2.5325311618130073e-99, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    1.0, 0.7904563761898091, 1.918245195359815e-24, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    1.0, 1.0, 1.0, 0.2775112459181503, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    1.0, 0.07932888108732367, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, nan,
    nan, 1.0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 1.0, nan, nan, nan,
    nan, nan, nan, nan, nan, nan, nan, nan, nan, 0.0, nan, nan,
]
GAMMAINC_F32 = [
    nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 0.9914032220840454,
    0.9987772703170776, 0.9994398355484009, 0.9996888041496277, 0.9997804164886475, 0.9997979402542114,
    0.9999510049819946, 0.9999996423721313, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 0.070302315056324,
    0.6575067639350891, 0.8138117790222168, 0.8862150311470032, 0.9156742095947266, 0.9215703010559082,
    0.977973997592926, 0.9997856020927429, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 0.01128341443836689,
    0.47291067242622375, 0.6826895475387573, 0.7940967082977295, 0.8427008390426636, 0.8527008295059204,
    0.9544997215270996, 0.9994679689407349, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 9.99949625111185e-05,
    0.18126922845840454, 0.39346936345100403, 0.5506709814071655, 0.6321204304695129, 0.6500622034072876,
    0.8646647334098816, 0.9975212216377258, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 3.0087939084655346e-11,
    0.004670408088713884, 0.037434227764606476, 0.09875063598155975, 0.1508549600839615, 0.1648576557636261,
    0.4505840241909027, 0.9652122259140015, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, 0.0, 7.124733249293791e-35,
    3.4196862008784024e-10, 2.5356465016557195e-07, 6.622161890845746e-06, 2.965496423712466e-05,
    4.093734241905622e-05, 0.0022626551799476147, 0.3209708631038666, 0.9999745488166809, 1.0, 1.0, 1.0, 1.0, nan,
    nan, 0.0, 0.0, 0.0, 1.1881827103134602e-33, 1.1290805224981488e-28, 2.4664243106496297e-26,
    7.960718334518305e-26, 3.1707957699356046e-19, 5.887524689995871e-09, 0.4459988474845886, 1.0, 1.0, 1.0, 1.0,
    nan, nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.20954358577728271, 1.0, 1.0, 1.0, nan, nan, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.638161184898609e-32, 0.722489058971405, 1.0, 1.0, nan, nan, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9206714034080505, 1.0, nan, nan, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, 0.0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan,
    nan, nan, nan, nan, nan, nan, 0.0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 1.0, nan, nan,
]
GAMMAINCC_F32 = [
    nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 0.008596853353083134,
    0.0012225210666656494, 0.0005600396543741226, 0.0003108361561316997, 0.00021958131401333958,
    0.00020205954206176102, 4.897692633676343e-05, 3.609831082940218e-07, 1.518052448069157e-15, 0.0, 0.0, 0.0,
    0.0, nan, nan, 1.0, 0.9296976923942566, 0.3424932360649109, 0.1861882209777832, 0.1137848049402237,
    0.08432584255933762, 0.07842966914176941, 0.022025983780622482, 0.00021437120449263602, 1.3269762892675896e-12,
    0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 0.9887166023254395, 0.5270893573760986, 0.31731054186820984,
    0.20590320229530334, 0.1572992354631424, 0.14729918539524078, 0.0455002635717392, 0.0005320055643096566,
    4.262194330112434e-12, 0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 0.9998999834060669, 0.8187307715415955,
    0.6065306663513184, 0.4493290185928345, 0.36787939071655273, 0.34993776679039, 0.1353352814912796,
    0.0024787522852420807, 3.7751385351114664e-11, 0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 1.0, 0.9953296184539795,
    0.9625657796859741, 0.901249349117279, 0.8491450548171997, 0.8351423740386963, 0.5494158864021301,
    0.03478778153657913, 3.551922977962363e-09, 0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 0.9999997615814209,
    0.9999933838844299, 0.9999703168869019, 0.9999590516090393, 0.9977373480796814, 0.679029107093811,
    2.5430443201912567e-05, 0.0, 0.0, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    0.5540011525154114, 9.863975337222986e-34, 0.0, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    1.0, 1.0, 0.7904564142227173, 1.918255313855567e-24, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    1.0, 1.0, 1.0, 1.0, 0.2775109112262726, 0.0, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    1.0, 1.0, 0.07932855933904648, 0.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    nan, nan, 1.0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 1.0, nan, nan,
    nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 0.0, nan, nan,
]
HALF_GAMMAINC = [
    0.5205078125, 0.63232421875, 0.69384765625, 0.6181640625, 0.37744140625,
]
HALF_GAMMAINCC = [
    0.4794921875, 0.367919921875, 0.30615234375, 0.382080078125, 0.62255859375,
]
GRAD_GAMMAINC = [
    0.763090578768186, 0.21596386605275222, 0.12166339942889534, 0.07257693030180869, 0.019959605953056996,
]
GRAD_GAMMAINCC = [
    -0.763090578768186, -0.21596386605275222, -0.12166339942889534, -0.07257693030180869, -0.019959605953056996,
]

A_GRID = [p for p in A for q in X]
X_GRID = [q for p in A for q in X]


def values(t):
    return np.asarray(t.tolist(), dtype=np.float64)


@pytest.mark.parametrize("dtype, suffix", [(np.float64, ""), (np.float32, "_F32")])
@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_values_are_pytorchs_within_two_ulp(name, dtype, suffix):
    # (equal to the bit here: the same algorithm, with the multiply-adds PyTorch's build fuses)
    nb_dtype = nbgrad.float64 if dtype == np.float64 else nbgrad.float32
    a, x = nbgrad.tensor(A_GRID, dtype=nb_dtype), nbgrad.tensor(X_GRID, dtype=nb_dtype)
    got = getattr(nbgrad.special, name)(a, x)
    assert got.dtype == nb_dtype
    want = globals()[name.upper() + suffix]
    d = ulps(values(got), want, dtype)
    assert d.max() <= 2, [(A_GRID[i], X_GRID[i], values(got)[i], want[i]) for i in np.flatnonzero(d > 2)]


def test_aliases_and_methods_are_the_same_functions():
    a = nbgrad.tensor(A_GRID, dtype=nbgrad.float64)
    x = nbgrad.tensor(X_GRID, dtype=nbgrad.float64)
    lower, upper = values(nbgrad.special.gammainc(a, x)), values(nbgrad.special.gammaincc(a, x))
    for got in (nbgrad.igamma(a, x), a.igamma(x), a.clone().igamma_(x), nbgrad.igamma(input=a, other=x)):
        np.testing.assert_array_equal(values(got), lower)
    for got in (nbgrad.igammac(a, x), a.igammac(x), a.clone().igammac_(x), nbgrad.special.gammaincc(a, other=x)):
        np.testing.assert_array_equal(values(got), upper)


def test_special_values():
    # a = 0: 1 (lower) / 0 (upper) for x > 0, NaN at x = 0; x = 0: 0 / 1; a = inf: 0 / 1 unless
    # x = inf too (NaN); x = inf: 1 / 0; a negative argument or NaN: NaN
    a = nbgrad.tensor([0.0, 0.0, 2.0, inf, inf, 2.0, -1.0, 2.0, nan, 2.0], dtype=nbgrad.float64)
    x = nbgrad.tensor([3.0, 0.0, 0.0, 5.0, inf, inf, 1.0, -1.0, 1.0, nan], dtype=nbgrad.float64)
    np.testing.assert_array_equal(values(nbgrad.special.gammainc(a, x)),
                                  [1.0, nan, 0.0, 0.0, nan, 1.0, nan, nan, nan, nan])
    np.testing.assert_array_equal(values(nbgrad.special.gammaincc(a, x)),
                                  [0.0, nan, 1.0, 1.0, nan, 0.0, nan, nan, nan, nan])


def test_float16_computes_in_float_rounded_once():
    a = nbgrad.tensor([0.5, 1.0, 2.5, 7.5, 30.0], dtype=nbgrad.float16)
    x = nbgrad.tensor([0.25, 1.0, 3.0, 8.0, 28.0], dtype=nbgrad.float16)
    lower, upper = nbgrad.special.gammainc(a, x), nbgrad.special.gammaincc(a, x)
    assert lower.dtype == nbgrad.float16 and upper.dtype == nbgrad.float16
    np.testing.assert_array_equal(values(lower), HALF_GAMMAINC)
    np.testing.assert_array_equal(values(upper), HALF_GAMMAINCC)


# -- gradients ---------------------------------------------------------------------------------
GA = [0.5, 1.5, 3.0, 30.0, 250.0]
GX = [0.3, 2.0, 0.7, 28.0, 260.0]


@pytest.mark.parametrize("name, node", [("gammainc", "IgammaBackward0"), ("gammaincc", "IgammacBackward0")])
def test_gradient_in_x_is_pytorchs_and_finite_differences(name, node):
    fn = getattr(nbgrad.special, name)
    a = nbgrad.tensor(GA, dtype=nbgrad.float64)
    x = nbgrad.tensor(GX, dtype=nbgrad.float64, requires_grad=True)
    y = fn(a, x)
    assert type(y.grad_fn).__name__ == node
    g, = nbgrad.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(values(g), globals()["GRAD_" + name.upper()], rtol=1e-12)
    assert nbgrad.autograd.gradcheck(lambda t: fn(a, t), (x,))
    assert nbgrad.autograd.gradgradcheck(lambda t: fn(a, t), (x,))
    # broadcast: a (2, 1) against x (3,)
    a2 = nbgrad.tensor([[1.5], [4.0]], dtype=nbgrad.float64)
    x2 = nbgrad.tensor([0.5, 2.0, 6.0], dtype=nbgrad.float64, requires_grad=True)
    assert nbgrad.autograd.gradcheck(lambda t: fn(a2, t), (x2,))


@pytest.mark.parametrize("name, what", [("gammainc", "igamma"), ("gammaincc", "igammac")])
def test_gradient_in_a_is_refused_when_backward_runs(name, what):
    fn = getattr(nbgrad.special, name)
    a = nbgrad.tensor(GA, dtype=nbgrad.float64, requires_grad=True)
    x = nbgrad.tensor(GX, dtype=nbgrad.float64, requires_grad=True)
    y = fn(a, x)        # the forward records its node
    assert y.requires_grad
    message = f"the derivative for '{what}: input' is not implemented."
    with pytest.raises(NotImplementedError) as info:
        y.sum().backward()
    assert str(info.value) == message
    with pytest.raises(NotImplementedError, match="is not implemented"):
        nbgrad.autograd.grad(fn(a, x.detach()).sum(), a)
    # the gradient of x alone is computed when a is not asked for
    g, = nbgrad.autograd.grad(fn(a, x).sum(), x)
    np.testing.assert_allclose(values(g), globals()["GRAD_" + name.upper()], rtol=1e-12)


def test_in_place_forms_record_the_node_on_x():
    x = nbgrad.tensor(GX, dtype=nbgrad.float64, requires_grad=True)
    y = nbgrad.tensor(GA, dtype=nbgrad.float64) * 1.0
    y.igamma_(x)
    g, = nbgrad.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(values(g), GRAD_GAMMAINC, rtol=1e-12)
    leaf = nbgrad.tensor(GA, dtype=nbgrad.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        leaf.igammac_(x)


# -- dtypes, broadcasting, out= and errors -------------------------------------------------------
def test_dtype_rules():
    f = nbgrad.tensor([0.5, 1.0, 2.0])
    i = nbgrad.tensor([1, 2, 3])
    assert nbgrad.igamma(i, f).dtype == nbgrad.float32          # an integer operand takes the other's dtype
    assert nbgrad.igamma(f, f.double()).dtype == nbgrad.float64
    assert nbgrad.igamma(f, nbgrad.tensor(2.0, dtype=nbgrad.float64)).dtype == nbgrad.float32   # 0-dim
    assert nbgrad.igamma(f, nbgrad.tensor(2)).dtype == nbgrad.float32
    np.testing.assert_allclose(values(nbgrad.igamma(i, f)), [0.3934693402873665, 0.2642411176571153,
                                                              0.3233235838169366], rtol=1e-6)
    for kind, t in (("Long", i), ("Bool", nbgrad.tensor([True, False]))):
        for fn, kernel in ((nbgrad.igamma, "igamma_cpu"), (nbgrad.special.gammaincc, "igammac_cpu")):
            with pytest.raises(NotImplementedError) as info:
                fn(t, t)
            assert str(info.value) == f'"{kernel}" not implemented for \'{kind}\''


def test_broadcasting_and_shape_errors():
    a = nbgrad.ones(2, 1)
    x = nbgrad.tensor([0.5, 1.0, 2.0])
    assert tuple(nbgrad.igamma(a, x).shape) == (2, 3)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           "non-singleton dimension 1"):
        nbgrad.igamma(nbgrad.ones(2, 3), nbgrad.ones(3, 2))
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
        nbgrad.ones(2).igamma_(nbgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nbgrad.ones(2, dtype=nbgrad.int64).igamma_(nbgrad.ones(2))


def test_out():
    a, x = nbgrad.tensor([0.5, 1.0, 2.0]), nbgrad.tensor([1.5, 1.0, 0.5])
    out = nbgrad.empty(3, dtype=nbgrad.float64)
    r = nbgrad.special.gammaincc(a, x, out=out)
    assert r is out and out.dtype == nbgrad.float64
    np.testing.assert_allclose(values(out), values(nbgrad.special.gammaincc(a, x)), rtol=0)
    out = nbgrad.empty(3)
    assert nbgrad.igamma(a, x, out=out) is out
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nbgrad.igamma(a, x, out=nbgrad.empty(3, dtype=nbgrad.int64))
    needs = nbgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    for fn, name in ((nbgrad.special.gammainc, "igamma"), (nbgrad.igammac, "igammac")):
        with pytest.raises(RuntimeError) as info:
            fn(needs, x, out=nbgrad.empty(3))
        assert str(info.value) == (f"{name}(): functions with out=... arguments don't support automatic "
                                   "differentiation, but one of the arguments requires grad.")
    with nbgrad.no_grad():
        assert nbgrad.igamma(needs, x, out=nbgrad.empty(3)).tolist() == nbgrad.igamma(a, x).tolist()


def test_argument_errors():
    f = nbgrad.tensor([0.5, 1.0])
    cases = [
        (lambda: nbgrad.igamma(f, 2.0), "igamma(): argument 'other' (position 2) must be Tensor, not float"),
        (lambda: nbgrad.igamma(2.0, f), "igamma(): argument 'input' (position 1) must be Tensor, not float"),
        (lambda: nbgrad.special.gammainc(f, 2.0),
         "special_gammainc(): argument 'other' (position 2) must be Tensor, not float"),
        (lambda: nbgrad.special.gammainc(1, 2), "special_gammainc(): argument 'input' (position 1) must be Tensor, "
                                                "not int"),
        (lambda: nbgrad.special.gammainc(f), 'special_gammainc() missing 1 required positional arguments: "other"'),
        (lambda: nbgrad.special.gammaincc(f, f, out=3), "special_gammaincc(): argument 'out' must be Tensor, not int"),
        (lambda: f.igamma(2.0), "igamma(): argument 'other' (position 1) must be Tensor, not float"),
        (lambda: f.igammac_(2.0), "igammac_(): argument 'other' (position 1) must be Tensor, not float"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message


@pytest.mark.skipif(AGAINST_TORCH, reason="nbgrad.compile's capture, not torch.compile")
@pytest.mark.parametrize("dtype", [nbgrad.float32, nbgrad.float64])
def test_compiled_step_equals_eager(dtype):
    def f(a, x):
        x.grad = None
        y = nbgrad.special.gammainc(a * 1.0, x * 1.0) + nbgrad.special.gammaincc(a, x * 2.0)
        (y * y).sum().backward()
        return y
    step = nbgrad.compile(f)
    rng = np.random.default_rng(0)
    for _ in range(2):
        a = nbgrad.tensor(rng.uniform(0.5, 40.0, (4, 5)), dtype=dtype)
        x = rng.uniform(0.1, 40.0, (4, 5))
        xe, xc = nbgrad.tensor(x, dtype=dtype, requires_grad=True), nbgrad.tensor(x, dtype=dtype, requires_grad=True)
        ye, yc = f(a, xe), step(a, xc)
        np.testing.assert_array_equal(values(yc.detach()), values(ye.detach()))
        np.testing.assert_allclose(values(xc.grad), values(xe.grad), rtol=1e-5 if dtype is nbgrad.float32 else 1e-12)
    assert step.captures == 1
