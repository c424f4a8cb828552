"""PyTorch's special functions (nbgrad.lgamma/digamma/polygamma/mvlgamma/i0/sinc and
nbgrad.special): values against PyTorch 2.13's (recorded here as literals; float64 to the bit
where nbgrad ports PyTorch's algorithm), gradients against finite differences (float64),
PyTorch's node names, dtypes, in-place forms and errors."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad import special
from nbgrad.autograd import gradcheck, gradgradcheck

inf, nan = math.inf, math.nan

REF = {
    'lgamma': [-1.3797399049658245, -0.05624371649767405, 1.5791760340399836, 1.4648400508576025, inf, 0.7966778177017837, 0.0, -0.12148629053584961, 0.2846828704729192, 6.579251212010101, 12.242204940050762, 12.801827480081469, 76.37119786778277],
    'digamma': [-0.8450768588704183, 1.1031566406452433, 4.868324766627195, 2.1133097796353986, -inf, -2.561384544585115, -0.5772156649015328, -4.069010753338098e-16, 0.7031566406452431, 1.872784335098467, 2.2251095350445755, 2.251752589066721, 3.4340305542075624],
    'polygamma1': [14.842421864106473, 9.53924664493752, 27.993918581753697, 13.945160267262267, inf, 7.275356589194938, 1.6449340676383375, 0.9676722458946125, 0.4903577562398206, 0.1535451779624394, 0.10800324333718572, 0.10516633568216657, 0.03225526826867391],
    'polygamma2': [-68.89345468867353, -0.1082040516417282, 246.72729169898602, 67.63908119988314, -inf, -32.23912862357837, -2.404113806319188, -0.8855263379671843, -0.23620405164172736, -0.023530472985855234, -0.011653444287958331, -0.011049834970802069, -0.0010403121873537825],
    'polygamma3': [768.9946494408655, 194.74787621918756, 3768.264410589005, 766.6198904191684, inf, 236.19525903394702, 6.493939402266829, 1.5509985657339072, 0.2239058488172521, 0.007198198563125444, 0.0025123789213988934, 0.0023199013042898686, 6.709947176270073e-05],
    'polygamma5': [165660.15728399347, 15382.140048026304, 1875501.7837551625, 165634.3818520858, inf, 29313.542469258748, 122.08116743813383, 12.938886082951484, 0.5785691785671833, 0.002009493175049029, 0.00034932582603543796, 0.00030594516211726814, 8.372178219847107e-07],
    'i0': [8.738617524169396, 3.289839144050123, 1.393725584134064, 1.0226268793515967, 1.0, 1.0404017822293414, 1.2660658777520082, 1.6097820675735208, 3.289839144050123, 168.59390851028968, 2221.617053105702, 2815.716628466254, 3418083498821.075],
    'sinc': [-0.0695994884865519, 0.12732395447351627, -0.15591488063143982, 0.8583936913341398, 1.0, 0.756826728640657, 3.8981718325193755e-17, -0.21619689223405275, 0.12732395447351627, 3.8981718325193755e-17, -0.023085033747618156, -3.898171832519376e-17, -0.010105075751866371],
    'i0e': [0.21604944167297369, 0.27004644161220276, 0.419782078935133, 0.7575806251825477, 1.0, 0.6974021705595334, 0.46575960759364043, 0.3732401111234624, 0.27004644161220276, 0.15373774467288123, 0.12950841904956062, 0.1278333371634286, 0.07136848664864866],
    'i1': [-7.435745796535337, -2.5167162452886984, -0.7146779415526429, -0.15169384000359282, 0.0, 0.2040267557335706, 0.5651591039924851, 0.9441442293919317, 2.5167162452886984, 156.03909286995534, 2104.404688368433, 2670.988303701255, 3363383210948.709],
    'i1e': [-0.18383785802735622, -0.20658464953126654, -0.2152568593769831, -0.11237756063983881, 0.0, 0.13676322429582918, 0.2079104153497085, 0.21890695901836796, 0.20658464953126654, 0.1422892347095986, 0.12267556366210158, 0.1212626813844555, 0.07022636219029571],
    'entr': [-inf, -inf, -inf, -inf, 0.0, 0.366516292749662, -0.0, -0.5547679161981233, -2.2907268296853878, -13.621371043387192, -22.20335602884512, -23.02585092994046, -108.674607693695],
    'zeta': [nan, nan, nan, nan, inf, 25.08679880950524, 1.1267338673170566, 0.3330967740708794, 0.06517125158965971, 0.003681929219641927, 0.0015306173022455155, 0.0014322106437178633, 7.472932971524424e-05],
    'xlog1py': [-8.077981840837474, -3.13190742123842, -1.4816933555912275, -0.30348027350354395, 0.0, 0.12458132464673527, 0.22314355131420976, 0.13930842254471562, 0.0, -0.545730790287983, -3.4775807034026402, -9.808292530117262, -81.59341571154356],
    'ndtri': [-inf, -37.0470962993612, -9.262340089798409, -2.3263478740408408, -1.1030625561995973, -0.5244005127080409, 0.0, 0.8416212335729143, 2.3263478740408408, inf],
    'mvlgamma3': [1.9528644798867396, 1.5963125911388552, 3.375085653616212, 20.104800157934413],
    'digamma32': [-0.845077633857727, 1.1031566858291626, 4.86832332611084, 2.113309860229492, -inf, -2.561384439468384, -0.5772159099578857, 1.0710209608078003e-08, 0.7031567692756653, 1.8727843761444092, 2.225109577178955, 2.2517526149749756, 3.434030771255493],
    'sinc32': [-0.06959943473339081, 0.1273239552974701, -0.15591494739055634, 0.858393669128418, 1.0, 0.7568266987800598, -2.7827534054836178e-08, -0.21619689464569092, 0.1273239552974701, -6.035224231482061e-08, -0.023085009306669235, 4.300573053228618e-08, -0.010105075314640999],
    'grad_lgamma': [-3.502524222200133, 0.20854787487349372, 0.7031566406452431, 1.5061176684318003],
    'grad_digamma': [12.245364544940365, 0.793232830501591, 0.4903577562398206, 0.22132295575099345],
    'grad_polygamma2': [743.1417646550497, 0.8895620066243167, 0.2239058488172521, 0.02142782819275508],
    'grad_i0': [0.15169384000359282, 1.1963465656344825, 2.5167162452886984, 24.335642142450524],
    'grad_sinc': [-0.9020281301388888, 0.4348626423174554, -0.05092958178940638, -0.19999999999999998],
    'grad_i1': [0.5169807460062873, 1.160231688171203, 2.283152645934644, 22.372743395114338],
    'grad_i1e': [0.2706111957432461, -0.006597593085724662, -0.019172067731570375, -0.013225907724122465],
    'grad_i0e': [-0.6452030645427088, -0.12196288138397743, -0.06346179208093622, -0.019568545664785997],
    'grad_mvlgamma2': [0.5324672110937279, -0.08049202171869471, 1.1259409757437102, 2.8949885947913288],
    'grad_sinc0': [0.0, 0.0],
    'grad_i1_0': [0.5, 0.5],
    'polygamma1_32': [14.84244155883789, 9.539247512817383, 27.9938907623291, 13.945158958435059, inf, 7.275357246398926, 1.644934058189392, 0.9676722288131714, 0.49035775661468506, 0.15354517102241516, 0.10800324380397797, 0.10516633093357086, 0.03225526586174965],
    'polygamma3_32': [768.9951171875, 194.74789428710938, 3768.2607421875, 766.6198120117188, inf, 236.19522094726562, 6.493939399719238, 1.5509986877441406, 0.22390584647655487, 0.0071981982327997684, 0.002512378850951791, 0.0023199012503027916, 6.70994704705663e-05],
    'i0_32': [8.738618850708008, 3.289839506149292, 1.3937256336212158, 1.0226268768310547, 0.9999999403953552, 1.0404019355773926, 1.2660659551620483, 1.6097817420959473, 3.289839506149292, 168.5939178466797, 2221.616943359375, 2815.71630859375, 3418083557376.0],
    'i1e_32': [-0.18383784592151642, -0.206584632396698, -0.21525682508945465, -0.11237756907939911, 0.0, 0.13676321506500244, 0.207910418510437, 0.2189069390296936, 0.206584632396698, 0.14228928089141846, 0.12267556041479111, 0.12126268446445465, 0.07022637128829956],
}
X = [-3.7, -2.5, -1.2, -0.3, 0.0, 0.4, 1.0, 1.4616321449683622, 2.5, 7.0, 9.75, 10.0, 31.5]
U = [0.0, 1e-300, 1e-20, 0.01, 0.135, 0.3, 0.5, 0.8, 0.99, 1.0]
P = [1.6, 2.0, 3.3, 7.25]
G = [0.3, 1.7, 2.5, 5.0]


def f64(values, requires_grad=False):
    return nbgrad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def same(got, want):
    np.testing.assert_array_equal(np.asarray(got.tolist() if hasattr(got, "tolist") else got, dtype=np.float64),
                                  np.asarray(want, dtype=np.float64))


# -- values ------------------------------------------------------------------------------------
BITWISE = {
    "digamma": lambda x: nbgrad.digamma(x), "polygamma1": lambda x: nbgrad.polygamma(1, x),
    "polygamma2": lambda x: nbgrad.polygamma(2, x), "polygamma3": lambda x: nbgrad.polygamma(3, x),
    "polygamma5": lambda x: nbgrad.polygamma(5, x), "i0": lambda x: nbgrad.i0(x), "sinc": lambda x: nbgrad.sinc(x),
    "i0e": lambda x: special.i0e(x), "i1": lambda x: special.i1(x), "i1e": lambda x: special.i1e(x),
    "zeta": lambda x: special.zeta(3.5, x),
    "xlog1py": lambda x: special.xlog1py(x, f64(X[::-1]) / 4),
}


@pytest.mark.parametrize("name", sorted(BITWISE))
def test_float64_values_are_pytorchs_bits(name):
    same(BITWISE[name](f64(X)), REF[name])


def test_ndtri_is_pytorchs_bits_on_its_whole_domain():
    same(special.ndtri(f64(U)), REF["ndtri"])
    same(special.ndtri(f64([-0.1, 1.5, nan])), [nan, nan, nan])


def test_lgamma_mvlgamma_and_entr_values():
    # lgamma: PyTorch's CPU kernel is SLEEF's vectorized lgamma, this the C library's
    # algorithm: equal but for the last bits (relative to the value, near lgamma's zeros)
    np.testing.assert_allclose(nbgrad.lgamma(f64(X)).numpy(), REF["lgamma"], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(nbgrad.mvlgamma(f64(P), 3).numpy(), REF["mvlgamma3"], rtol=1e-14)
    np.testing.assert_allclose(special.entr(f64(X)).numpy(), REF["entr"], rtol=1e-15)


def test_float32_values_are_pytorchs_bits():
    # PyTorch's float versions compute in float (float coefficients, logf, fused steps): so
    # do the CPU's float32 kernels (sinc: pi * x and sin in float)
    same(nbgrad.sinc(nbgrad.tensor(X, dtype=nbgrad.float32)), REF["sinc32"])
    got = nbgrad.digamma(nbgrad.tensor(X, dtype=nbgrad.float32))
    assert got.dtype is nbgrad.float32
    same(got, REF["digamma32"])
    for name in ("polygamma1", "polygamma3", "i0", "i1e"):
        x = nbgrad.tensor(X, dtype=nbgrad.float32)
        same(BITWISE[name](x), REF[name + "_32"])


def test_special_values_at_poles_zero_and_infinities():
    same(nbgrad.digamma(f64([0.0, -0.0, -1.0, -7.0, inf, -inf, nan])), [-inf, inf, nan, nan, inf, nan, nan])
    same(nbgrad.lgamma(f64([0.0, -0.0, -1.0, -7.0, inf, -inf, nan, 1e306])), [inf, inf, inf, inf, inf, inf, nan, inf])
    same(nbgrad.polygamma(1, f64([0.0, inf, nan])), [inf, 0.0, nan])
    same(nbgrad.i0(f64([inf, -inf, nan])), [nan, nan, nan])          # PyTorch: exp(x) ... / sqrt(x) = inf / inf
    same(special.i0e(f64([inf, -inf])), [0.0, 0.0])
    same(special.i1(f64([-inf, inf])), [nan, nan])
    same(special.zeta(f64([1.0, 0.5, 2.0, 2.0, 2.5]), f64([3.0, 3.0, 0.0, -2.0, -1.5])), [inf, nan, inf, inf, nan])
    same(special.xlog1py(f64([0.0, 0.0, 1.0]), f64([-1.0, nan, -2.0])), [0.0, nan, nan])
    same(nbgrad.sinc(f64([0.0, -0.0, inf])), [1.0, 1.0, nan])
    same(special.entr(f64([0.0, -1.0, nan])), [0.0, -inf, nan])


ERFCX_X = [-30.0, -7.0, -3.7, -1.2, -0.3, 0.0, 0.4, 2.5, 27.0, 60.0, 100000000.0, inf, -inf]
ERFCX = [inf, 3.8146931449901996e+21, 1764092.7560908962, 8.062854217063865, 1.4537492328427655, 1.0,
         0.6707877852947615, 0.2108063640611436, 0.02088160799042094, 0.009401854275176388, 5.641895835477563e-09,
         0.0, inf]
LOG_NDTR = [-454.32124395634327, -27.384307498811076, -9.135235371872877, -2.1622175060437394, -0.9621028181688508,
            -0.6931471805599453, -0.42247637022777607, -0.006229025485860001, -7.389481006884617e-161, -0.0, -0.0,
            -0.0, -inf]


def test_erfcx_and_log_ndtr_values():
    # (PyTorch's erfcx on [0, 50] is a table of Chebyshev pieces; here exp(x^2) erfc(x) and the
    # continued fraction: within a few ulp)
    np.testing.assert_allclose(special.erfcx(f64(ERFCX_X)).numpy(), ERFCX, rtol=1e-14)
    np.testing.assert_allclose(special.log_ndtr(f64(ERFCX_X)).numpy(), LOG_NDTR, rtol=1e-14)
    assert np.isnan(special.erfcx(f64([nan])).item()) and np.isnan(special.log_ndtr(f64([nan])).item())


def test_ndtr_is_pytorchs_composition():
    x = f64([-3.0, -0.5, 0.0, 0.7, 4.0], requires_grad=True)
    y = special.ndtr(x)
    assert type(y.grad_fn).__name__ == "MulBackward1"
    want = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-15)
    assert gradcheck(special.ndtr, (x,))


# -- gradients ---------------------------------------------------------------------------------
GRADS = {
    "lgamma": nbgrad.lgamma, "digamma": nbgrad.digamma, "polygamma2": lambda x: nbgrad.polygamma(2, x),
    "i0": nbgrad.i0, "sinc": nbgrad.sinc, "i1": special.i1, "i1e": special.i1e, "i0e": special.i0e,
    "mvlgamma2": lambda x: nbgrad.mvlgamma(x, 2),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_are_pytorchs(name):
    x = f64(G, requires_grad=True)
    g, = nbgrad.autograd.grad(GRADS[name](x).sum(), x)
    np.testing.assert_allclose(g.numpy(), REF["grad_" + name], rtol=1e-14)


def test_gradients_at_zero_are_pytorchs():
    x = f64([0.0, 1e-20], requires_grad=True)
    same(nbgrad.autograd.grad(nbgrad.sinc(x).sum(), x)[0], REF["grad_sinc0"])
    same(nbgrad.autograd.grad(special.i1(x).sum(), x)[0], REF["grad_i1_0"])


CHECKED = [
    ("lgamma", nbgrad.lgamma, [0.3, 1.7, -2.4]), ("digamma", nbgrad.digamma, [0.3, 1.7, -2.4]),
    ("polygamma1", lambda x: nbgrad.polygamma(1, x), [0.3, 1.7, -2.4]),
    ("polygamma3", lambda x: nbgrad.polygamma(3, x), [0.6, 1.7, 4.0]),
    ("mvlgamma", lambda x: nbgrad.mvlgamma(x, 3), [1.3, 2.2, 5.0]), ("i0", nbgrad.i0, [-2.0, 0.5, 9.0]),
    ("sinc", nbgrad.sinc, [-1.3, 0.4, 2.2]), ("i0e", special.i0e, [-2.0, 0.5, 9.0]),
    ("i1", special.i1, [-2.0, 0.5, 9.0]), ("i1e", special.i1e, [-2.0, 0.5, 9.0]),
    ("ndtri", special.ndtri, [0.1, 0.5, 0.95]), ("entr", special.entr, [0.2, 1.0, 3.0]),
    ("erfcx", special.erfcx, [-1.5, 0.3, 4.0]), ("log_ndtr", special.log_ndtr, [-4.0, -0.5, 2.0]),
    ("zeta", lambda q: special.zeta(2.5, q), [0.5, 1.5, 4.0]),
    ("xlog1py", lambda x: special.xlog1py(x, x * 0.5 + 1), [0.3, 1.2, 2.0]),
]


@pytest.mark.parametrize("name, fn, points", CHECKED, ids=[c[0] for c in CHECKED])
def test_gradcheck_and_gradgradcheck(name, fn, points):
    x = f64(points, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# -- nodes ----------------------------------------------------------------------------------------
NODES = [
    (lambda x: nbgrad.lgamma(x), "LgammaBackward0"), (lambda x: nbgrad.digamma(x), "DigammaBackward0"),
    (lambda x: nbgrad.polygamma(2, x), "PolygammaBackward0"), (lambda x: nbgrad.mvlgamma(x, 2), "MvlgammaBackward0"),
    (lambda x: nbgrad.i0(x), "I0Backward0"), (lambda x: nbgrad.sinc(x), "SincBackward0"),
    (lambda x: special.i0e(x), "SpecialI0EBackward0"), (lambda x: special.i1(x), "SpecialI1Backward0"),
    (lambda x: special.i1e(x), "SpecialI1EBackward0"), (lambda x: special.ndtri(x / 4), "SpecialNdtriBackward0"),
    (lambda x: special.entr(x), "SpecialEntrBackward0"), (lambda x: special.erfcx(x), "SpecialErfcxBackward0"),
    (lambda x: special.log_ndtr(x), "SpecialLogNdtrBackward0"), (lambda x: special.zeta(x, x), "SpecialZetaBackward0"),
    (lambda x: special.zeta(3.0, x), "SpecialZetaBackward1"), (lambda x: special.zeta(x, 2.0), "SpecialZetaBackward2"),
    (lambda x: special.xlog1py(x, x), "SpecialXlog1PyBackward0"),
    (lambda x: special.xlog1py(2.0, x), "SpecialXlog1PyBackward1"),
    (lambda x: special.xlog1py(x, 2.0), "SpecialXlog1PyBackward2"),
    (lambda x: special.gammaln(x), "LgammaBackward0"), (lambda x: special.psi(x), "DigammaBackward0"),
    (lambda x: special.multigammaln(x, 2), "MvlgammaBackward0"), (lambda x: special.expit(x), "SigmoidBackward0"),
]


@pytest.mark.parametrize("k", range(len(NODES)))
def test_node_names_are_pytorchs(k):
    fn, name = NODES[k]
    x = f64([2.5, 3.0], requires_grad=True)
    assert type(fn(x).grad_fn).__name__ == name


def test_double_backward_records_pytorchs_nodes():
    x = f64([0.7, 2.5], requires_grad=True)
    g, = nbgrad.autograd.grad(nbgrad.digamma(x).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "MulBackward0"
    assert type(g.grad_fn.next_functions[1][0]).__name__ == "PolygammaBackward0"
    g, = nbgrad.autograd.grad(nbgrad.i0(x).sum(), x, create_graph=True)
    assert type(g.grad_fn.next_functions[1][0]).__name__ == "SpecialI1Backward0"
    g, = nbgrad.autograd.grad(special.zeta(3.5, x).sum(), x, create_graph=True)
    assert type(g.grad_fn.next_functions[1][0]).__name__ == "SpecialZetaBackward1"
    g, = nbgrad.autograd.grad(nbgrad.mvlgamma(x + 1, 2).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "MulBackward0"       # grad * digamma(args).sum(-1)
    assert "SumBackward1" in [type(f).__name__ for f, _ in g.grad_fn.next_functions if f is not None]


def test_zeta_has_no_gradient_for_its_first_argument():
    x = f64([2.5, 3.0], requires_grad=True)
    y = special.zeta(x, 2.0)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented."):
        y.sum().backward()
    q = f64([1.5, 2.0], requires_grad=True)
    g, = nbgrad.autograd.grad(special.zeta(f64([2.5, 3.0]), q).sum(), q)
    np.testing.assert_allclose(g.numpy(), [-2.5 * special.zeta(3.5, f64([1.5])).item(),
                                           -3.0 * special.zeta(4.0, f64([2.0])).item()], rtol=1e-15)


# -- dtypes, methods, in place, errors -----------------------------------------------------------
def test_integers_promote_to_the_default_float_dtype():
    i = nbgrad.tensor([1, 2])
    for fn in (nbgrad.lgamma, nbgrad.digamma, nbgrad.i0, nbgrad.sinc, special.i0e, special.i1, special.i1e,
               special.ndtri, special.entr, special.ndtr, special.erfcx, special.log_ndtr,
               lambda t: nbgrad.polygamma(1, t),
               lambda t: nbgrad.mvlgamma(t, 2), lambda t: special.zeta(t, t), lambda t: special.xlog1py(t, t)):
        assert fn(i).dtype is nbgrad.float32
    b = nbgrad.tensor([True, False])
    assert nbgrad.lgamma(b).tolist() == [0.0, inf]
    assert nbgrad.float64 is nbgrad.digamma(f64([1.0])).dtype


def test_float16_sinc_computes_in_float32_as_pytorchs_opmath():
    # (pi * x in float16 would overflow: PyTorch's is float, rounded once)
    h = nbgrad.tensor([35200.0, 0.3, 0.0], dtype=nbgrad.float16)
    same(nbgrad.sinc(h), [0.0, 0.8583984375, 1.0])                 # (PyTorch 2.13)


def test_float16():
    h = nbgrad.tensor([0.5, 1.5, 3.0], dtype=nbgrad.float16)
    for fn in (nbgrad.lgamma, nbgrad.digamma, nbgrad.i0, special.i0e, special.i1):
        out = fn(h)
        assert out.dtype is nbgrad.float16
        np.testing.assert_allclose(out.numpy().astype(np.float64), fn(h.float()).numpy(), rtol=1e-3)
    assert nbgrad.polygamma(1, h).dtype is nbgrad.float16
    with pytest.raises(NotImplementedError, match="\"ndtri_cpu\" not implemented for 'Half'"):
        special.ndtri(h)
    with pytest.raises(NotImplementedError, match="\"zeta_cpu\" not implemented for 'Half'"):
        special.zeta(h, h)
    for fn, kernel in ((special.erfcx, "erfcx_cpu"), (special.log_ndtr, "log_ndtr_cpu")):
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Half'"):
            fn(h)


def test_methods_and_in_place_forms():
    x = f64([0.7, 2.5, 4.0])
    for name in ("lgamma", "digamma", "i0", "sinc"):
        want = getattr(nbgrad, name)(x).tolist()
        assert getattr(x, name)().tolist() == want
        y = x.clone()
        assert getattr(y, name + "_")() is y and y.tolist() == want
    assert x.polygamma(2).tolist() == nbgrad.polygamma(2, x).tolist()
    y = x.clone()
    assert y.polygamma_(2) is y and y.tolist() == nbgrad.polygamma(2, x).tolist()
    assert x.mvlgamma(2).tolist() == nbgrad.mvlgamma(x, 2).tolist()
    y = x.clone()
    assert y.mvlgamma_(2) is y and y.tolist() == nbgrad.mvlgamma(x, 2).tolist()


def test_in_place_forms_record_pytorchs_nodes():
    a = f64([0.7, 2.5], requires_grad=True)
    for name, node, args in (("lgamma_", "LgammaBackward0", ()), ("polygamma_", "PolygammaBackward0", (1,)),
                             ("mvlgamma_", "MvlgammaBackward0", (1,)), ("sinc_", "SincBackward0", ())):
        y = a * 1
        getattr(y, name)(*args)
        assert type(y.grad_fn).__name__ == node
        g, = nbgrad.autograd.grad(y.sum(), a)
        assert np.all(np.isfinite(g.numpy()))


def test_errors_are_pytorchs():
    x = f64([2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        nbgrad.polygamma(-1, x)
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        x.clone().polygamma_(-1)
    with pytest.raises(TypeError, match=r"polygamma\(\): argument 'n' \(position 1\) must be int, not float"):
        nbgrad.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        nbgrad.mvlgamma(x, 0)
    with pytest.raises(RuntimeError, match="The input tensor may not be a boolean tensor."):
        nbgrad.mvlgamma(nbgrad.tensor([True]), 2)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nbgrad.tensor([1, 2]).lgamma_()
    with pytest.raises(RuntimeError, match="mvlgamma: result type Long can't be cast to the desired output type Float"):
        nbgrad.tensor([1, 2]).mvlgamma_(1)
    with pytest.raises(TypeError, match="special_zeta"):
        special.zeta(2, 3)
    i = nbgrad.tensor([1, 2])
    before = i.tolist()
    with pytest.raises(RuntimeError):
        i.polygamma_(1)
    assert i.tolist() == before                     # a failed in-place op writes nothing


def test_mvlgamma_outside_its_domain_is_inf_as_pytorchs():
    # (PyTorch 2.13 no longer checks x > (p - 1) / 2: lgamma of a pole is inf)
    assert nbgrad.mvlgamma(f64([2.0]), 5).tolist() == [inf]


def test_keywords_and_out():
    x = f64([1.5, 2.5])
    assert nbgrad.polygamma(n=1, input=x).tolist() == nbgrad.polygamma(1, x).tolist()
    out = nbgrad.empty(2, dtype=nbgrad.float64)
    assert nbgrad.lgamma(x, out=out) is out and out.tolist() == nbgrad.lgamma(x).tolist()
    assert nbgrad.polygamma(2, x, out=out) is out and out.tolist() == nbgrad.polygamma(2, x).tolist()


# -- the namespace ---------------------------------------------------------------------------------
def test_special_namespace():
    import nbgrad.special as s
    assert s is special and nbgrad.special is special
    x = f64([0.3, 0.7])
    for alias, fn in (("gammaln", nbgrad.lgamma), ("digamma", nbgrad.digamma), ("psi", nbgrad.digamma),
                      ("i0", nbgrad.i0), ("sinc", nbgrad.sinc), ("erf", nbgrad.erf), ("erfc", nbgrad.erfc),
                      ("erfinv", nbgrad.erfinv), ("expit", nbgrad.sigmoid), ("exp2", nbgrad.exp2),
                      ("expm1", nbgrad.expm1), ("log1p", nbgrad.log1p), ("logit", nbgrad.logit),
                      ("round", nbgrad.round)):
        assert getattr(special, alias)(x).tolist() == fn(x).tolist()
    assert special.polygamma(2, x).tolist() == nbgrad.polygamma(2, x).tolist()
    assert special.multigammaln(x + 1, 2).tolist() == nbgrad.mvlgamma(x + 1, 2).tolist()
    assert special.xlogy(x, x).tolist() == nbgrad.xlogy(x, x).tolist()
    m = f64([[0.1, 0.9], [2.0, -1.0]])
    assert special.logsumexp(m, 1).tolist() == nbgrad.logsumexp(m, 1).tolist()
    assert special.softmax(m, 0).tolist() == nbgrad.softmax(m, 0).tolist()
    assert special.log_softmax(m, 1, dtype=nbgrad.float32).dtype is nbgrad.float32
    assert set(special.__all__) <= set(dir(special))
