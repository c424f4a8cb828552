"""The op table (nbgrad/ops/optable.py): every row's op against PyTorch's recorded values,
float64 finite differences (first and second order), the composed fallback against the
fused kernels, the CUDA backend, and the table's own consistency (one owner per fact).

Adding a row means adding its reference values below (record them with PyTorch)."""
import math

import numpy as np
import pytest

import nbgrad as T
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from nbgrad.ops import _expr, _graph, optable, tabled
from nbgrad.ops.optable import ROWS, TABLE

torch = T       # the reference expressions below are PyTorch's spelling

X = [-2.5, -0.7, -0.1, 0.0, 0.3, 1.1, 4.0]
Y = [0.5, 2.0, 0.3, 1.5, 0.8, 3.0, 0.25]

# recorded from PyTorch 2.13 (float64) by the script in this file's history
REFERENCE = {
    'softplus': ('F.softplus(x)', 'SoftplusBackward0', [0.078889734293, 0.403186048885, 0.644396660074, 0.69314718056, 0.854355244469, 1.387335325115, 4.018149927918],
              [0.075858180021, 0.331812227832, 0.475020812521, 0.5, 0.574442516812, 0.750260105595, 0.982013790038], None),
    'softplus_beta': ('F.softplus(x, 2.0, 3.0)', 'SoftplusBackward0', [0.003357674245, 0.110208704959, 0.299069434691, 0.34657359028, 0.518743975243, 1.152541659884, 4.0],
              [0.006692850924, 0.197816111441, 0.450166002688, 0.5, 0.645656306226, 0.90024951088, 1.0], None),
    'leaky_relu': ('F.leaky_relu(x, 0.2)', 'LeakyReluBackward0', [-0.5, -0.14, -0.02, 0.0, 0.3, 1.1, 4.0],
              [0.2, 0.2, 0.2, 0.2, 1.0, 1.0, 1.0], None),
    'elu': ('F.elu(x, 0.7)', 'EluBackward0', [-0.642540500963, -0.352390287346, -0.066613807375, 0.0, 0.3, 1.1, 4.0],
              [0.057459499037, 0.347609712654, 0.633386192625, 0.7, 1.0, 1.0, 1.0], None),
    'gelu': ('F.gelu(x)', 'GeluBackward0', [-0.015524163314, -0.169374556556, -0.046017216272, 0.0, 0.185373426657, 0.950767332959, 3.999873315033],
              [-0.037611085908, 0.023385898866, 0.420476907975, 0.5, 0.732327766827, 1.103971333789, 1.000503649661], None),
    'gelu_tanh': ("F.gelu(x, approximate='tanh')", 'GeluBackward0', [-0.01508426609, -0.169429865295, -0.046017248955, 0.0, 0.185370923543, 0.950581046175, 3.999929754052],
              [-0.037951576213, 0.023642781344, 0.420478210728, 0.5, 0.732295451639, 1.103659462569, 1.000335123197], None),
    'silu': ('F.silu(x)', 'SiluBackward0', [-0.189645450053, -0.232268559482, -0.047502081252, 0.0, 0.172332755043, 0.825286116155, 3.928055160152],
              [-0.099401111342, 0.176613216527, 0.450083208502, 0.5, 0.647780010319, 0.956366973097, 1.052664614891], None),
    'mish': ('F.mish(x)', 'MishBackward0', [-0.196816203907, -0.267870234796, -0.056788575213, 0.0, 0.208001372348, 0.970841579895, 3.997412806976],
              [-0.10974357275, 0.184416073257, 0.535702817873, 0.6, 0.782827299551, 1.065010108656, 1.004432876904], None),
    'hardtanh': ('F.hardtanh(x, -0.5, 2.0)', 'HardtanhBackward0', [-0.5, -0.5, -0.1, 0.0, 0.3, 1.1, 2.0],
              [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0], None),
    'logit': ('torch.logit(y / 4)', 'LogitBackward0', [-1.945910149055, 0.0, -2.512305623976, -0.510825623766, -1.38629436112, 1.098612288668, -2.708050201102],
              None, [2.285714285714, 1.0, 3.603603603604, 1.066666666667, 1.5625, 1.333333333333, 4.266666666667]),
    'logit_eps': ('torch.logit(y / 4, 0.1)', 'LogitBackward0', [-1.945910149055, 0.0, -2.197224577336, -0.510825623766, -1.38629436112, 1.098612288668, -2.197224577336],
              None, [2.285714285714, 1.0, 0.0, 1.066666666667, 1.5625, 1.333333333333, 0.0]),
    'xlogy': ('torch.xlogy(x, y)', 'XlogyBackward0', [1.7328679514, -0.485203026392, 0.120397280433, 0.0, -0.066943065394, 1.208473517535, -5.54517744448],
              [-0.69314718056, 0.69314718056, -1.203972804326, 0.405465108108, -0.223143551314, 1.098612288668, -1.38629436112], [-5.0, -0.35, -0.333333333333, 0.0, 0.375, 0.366666666667, 16.0]),
    'hypot': ('torch.hypot(x, y)', 'HypotBackward0', [2.549509756796, 2.118962010042, 0.316227766017, 1.5, 0.854400374532, 3.195309061734, 4.00780488547],
              [-0.980580675691, -0.330350424728, -0.316227766017, 0.0, 0.351123441588, 0.344254649158, 0.998052578483], [0.196116135138, 0.943858356366, 0.948683298051, 1.0, 0.936329177569, 0.938876315887, 0.062378286155]),
    'lerp': ('torch.lerp(x, y, 0.3)', 'LerpBackward0', [-1.6, 0.11, 0.02, 0.45, 0.45, 1.67, 2.875],
              [0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7], [0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]),
    'lerp_tensor': ('torch.lerp(x, y, y / 4)', 'LerpBackward1', [-2.125, 0.65, -0.07, 0.5625, 0.4, 2.525, 3.765625],
              [0.875, 0.5, 0.925, 0.625, 0.8, 0.25, 0.9375], [0.875, 1.175, 0.175, 0.75, 0.325, 1.225, -0.875]),
    'asinh': ('torch.asinh(x)', 'AsinhBackward0', [-1.647231146371, -0.652666566082, -0.099834078899, 0.0, 0.295673047563, 0.950346929821, 2.094712547261],
              [0.371390676354, 0.819231920519, 0.99503719021, 1.0, 0.957826285221, 0.672672793996, 0.242535625036], None),
    'acosh': ('torch.acosh(y + 1)', 'AcoshBackward0', [0.962423650119, 1.762747174039, 0.756432910857, 1.566799236972, 1.192910730993, 2.063437068896, 0.69314718056],
              None, [0.894427191, 0.353553390593, 1.203858530858, 0.436435780472, 0.668153104781, 0.258198889747, 1.333333333333]),
    'atanh': ('torch.atanh(y / 4)', 'AtanhBackward0', [0.12565721414, 0.549306144334, 0.075141101525, 0.394228680182, 0.202732554054, 0.972955074528, 0.062581571477],
              None, [0.253968253968, 0.333333333333, 0.251414204903, 0.290909090909, 0.260416666667, 0.571428571429, 0.250980392157]),
    'erfc': ('torch.erfc(x)', 'ErfcBackward0', [1.999593047983, 1.677801193837, 1.112462916018, 1.0, 0.671373240541, 0.119794930426, 1.5417e-08],
              [-0.00217828423, -0.691274860411, -1.117151606789, -1.128379167096, -1.031260909619, -0.336479597793, -1.26982e-07], None),
    'erfinv': ('torch.erfinv(x / 5)', 'ErfinvBackward0', [-0.476936276204, -0.124715367943, -0.017726395027, 0.0, 0.05322382991, 0.197508383372, 0.906193802437],
              [0.222516963794, 0.180023797757, 0.177301088787, 0.177245385091, 0.177748193411, 0.184296281921, 0.402913676387], None),
    # the activations of issue 14 (hardsigmoid's gradient is grad * (float) 1/6 in double too;
    # celu's derivative scales by 1.0 / (float) alpha)
    'hardswish': ('F.hardswish(x)', 'HardswishBackward0', [-0.208333333333, -0.268333333333, -0.048333333333, 0.0, 0.165, 0.751666666667, 4.0],
              [-0.333333333333, 0.266666666667, 0.466666666667, 0.5, 0.6, 0.866666666667, 1.0], None),
    'hardsigmoid': ('F.hardsigmoid(x)', 'HardsigmoidBackward0', [0.083333333333, 0.383333333333, 0.483333333333, 0.5, 0.55, 0.683333333333, 1.0],
              [0.166666671634, 0.166666671634, 0.166666671634, 0.166666671634, 0.166666671634, 0.166666671634, 0.0], None),
    'selu': ('F.selu(x)', 'EluBackward0', [-1.613785758873, -0.885053045577, -0.167305272624, 0.0, 0.315210296207, 1.155771086091, 4.202803949422],
              [0.144313581974, 0.87304629527, 1.590794068223, 1.758099340847, 1.050700987355, 1.050700987355, 1.050700987355], None),
    'celu': ('F.celu(x, 0.7)', 'CeluBackward0', [-0.680319038176, -0.44248439118, -0.093185470175, 0.0, 0.3, 1.1, 4.0],
              [0.028115658518, 0.367879441171, 0.866877912404, 1.00000001703, 1.0, 1.0, 1.0], None),
    'logsigmoid': ('F.logsigmoid(x)', 'LogSigmoidBackward0', [-2.578889734293, -1.103186048885, -0.744396660074, -0.69314718056, -0.554355244469, -0.287335325115, -0.018149927918],
              [0.924141819979, 0.668187772168, 0.524979187479, 0.5, 0.425557483188, 0.249739894405, 0.017986209962], None),
    'softshrink': ('F.softshrink(x, 0.5)', 'SoftshrinkBackward0', [-2.0, -0.2, -0.0, 0.0, 0.0, 0.6, 3.5],
              [1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0], None),
    'hardshrink': ('F.hardshrink(x, 0.5)', 'HardshrinkBackward0', [-2.5, -0.7, 0.0, 0.0, 0.0, 1.1, 4.0],
              [1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0], None),
    'threshold': ('F.threshold(x, 0.2, -1.0)', 'ThresholdBackward0', [-1.0, -1.0, -1.0, -1.0, 0.3, 1.1, 4.0],
              [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], None),
    'rrelu': ('F.rrelu(x)', 'RreluWithNoiseBackward0', [-0.572916666667, -0.160416666667, -0.022916666667, 0.0, 0.3, 1.1, 4.0],
              [0.229166666667, 0.229166666667, 0.229166666667, 0.229166666667, 1.0, 1.0, 1.0], None),
    'prelu': ('F.prelu(x, y[:1] / 4)', 'PreluKernelBackward0', [-0.3125, -0.0875, -0.0125, 0.0, 0.3, 1.1, 4.0],
              [0.125, 0.125, 0.125, 0.125, 1.0, 1.0, 1.0], [-0.825, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'glu': ('F.glu(torch.stack([x, y]), 0)', 'GluBackward0', [-1.556148328005, -0.616557954585, -0.057444251681, 0.0, 0.206992344338, 1.047831539505, 2.248706003543],
              [0.622459331202, 0.880797077978, 0.574442516812, 0.817574476194, 0.689974481128, 0.952574126822, 0.562176500886], [-0.587509280504, -0.073495509782, -0.024445831169, 0.0, 0.064172908956, 0.049694325704, 0.98453633095]),
    'glu_last': ('F.glu(torch.stack([x[:6], y[:6]]))', 'GluBackward0', [-1.25, -0.402109761768, -0.07502601056, 0.408787238097, 1.379948962255, 0.285772238047],
              [0.5, 0.574442516812, 0.750260105595, -0.625, -0.171120818184, -0.018736987955, 0.0], [0.817574476194, 0.689974481128, 0.952574126822, 0.074573226035, 0.427819393041, 0.013552997919, 0.0]),
}


def _run(src, dtype=T.float64, device="cpu"):
    x = T.tensor(X, dtype=dtype, device=device, requires_grad=True)
    y = T.tensor(Y, dtype=dtype, device=device, requires_grad=True)
    out = eval(src, {"F": F, "torch": T, "x": x, "y": y})
    gx, gy = T.autograd.grad(out.sum(), [x, y], allow_unused=True)
    return out, gx, gy


def _close(got, want, rtol=1e-10):
    if want is None:
        assert got is None
        return
    np.testing.assert_allclose(got.detach().cpu().numpy().reshape(-1), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_values_gradients_and_names_match_pytorch(name):
    src, node, values, gx, gy = REFERENCE[name]
    out, got_x, got_y = _run(src)
    assert type(out.grad_fn).__name__ == node
    _close(out, values)
    _close(got_x, gx)
    _close(got_y, gy)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_composed_fallback_equals_the_fused_kernels(name, monkeypatch):
    src = REFERENCE[name][0]
    fused = _run(src)
    monkeypatch.setattr(_graph, "ACCELERATIONS_ON", False)        # NBGRAD_FUSED=0
    composed = _run(src)
    for a, b in zip(fused, composed):
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_float32_follows_float64(name):
    src = REFERENCE[name][0]
    for a, b in zip(_run(src, T.float32), _run(src)):
        if a is not None:
            assert a.dtype is T.float32
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=2e-5, atol=2e-5)


_AWAY_FROM_KINKS = {      # inputs where each op is smooth (finite differences need it)
    "x": [-2.3, -0.6, 0.45, 1.3], "y": [0.5, 1.9, 0.35, 1.4]}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_first_and_second_order_gradients_match_finite_differences(name):
    src = REFERENCE[name][0]

    def f(x, y):
        return eval(src, {"F": F, "torch": T, "x": x, "y": y})
    x = T.tensor(_AWAY_FROM_KINKS["x"], dtype=T.float64, requires_grad=True)
    y = T.tensor(_AWAY_FROM_KINKS["y"], dtype=T.float64, requires_grad=True)
    assert gradcheck(f, (x, y))
    if name not in ("leaky_relu", "hardtanh"):             # piecewise linear: no curvature
        if name == "hardsigmoid":                           # PyTorch has no derivative of its backward
            with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
                gradgradcheck(f, (x, y))
        else:
            assert gradgradcheck(f, (x, y))


@pytest.mark.parametrize("row", [r for r in ROWS if r.kernel is not None and r.inputs == ("x",) and r.differentiable],
                         ids=lambda r: r.name)
def test_rows_with_kernels_differentiate_as_finite_differences(row):
    points = [1.2, 1.45, 1.7] if row.name == "acosh" else [0.2, 0.45, 0.7]     # acosh: defined above 1
    x = T.tensor(points, dtype=T.float64, requires_grad=True)
    fn = getattr(T, row.name, None) or getattr(T.special, row.name)      # (i0e, i1, ...: torch.special's)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_in_place_forms_and_methods():
    x = T.tensor(Y, dtype=T.float64) / 4
    want = T.logit(x).tolist()
    assert x.clone().logit_().tolist() == want and x.logit().tolist() == want
    a, b = T.tensor(X, dtype=T.float64), T.tensor(Y, dtype=T.float64)
    assert a.clone().xlogy_(b).tolist() == T.xlogy(a, b).tolist()
    assert a.clone().hypot_(b).tolist() == T.hypot(a, b).tolist()
    assert a.clone().lerp_(b, 0.3).tolist() == T.lerp(a, b, 0.3).tolist()
    v = T.tensor(X, dtype=T.float64)
    F.leaky_relu_(v, 0.2)
    assert v.tolist() == F.leaky_relu(T.tensor(X, dtype=T.float64), 0.2).tolist()
    w = T.tensor(X, dtype=T.float64, requires_grad=True) * 1
    F.elu(w, 0.7, inplace=True).sum().backward()        # in place on a non-leaf: recorded


def test_xlogy_with_a_number_operand_has_pytorchs_node_names():
    x = T.tensor([0.5, 2.0], requires_grad=True)
    assert type(T.xlogy(2.0, x).grad_fn).__name__ == "XlogyBackward1"
    assert type(T.xlogy(x, 3.0).grad_fn).__name__ == "XlogyBackward2"
    g, = T.autograd.grad(T.xlogy(x, 3.0).sum(), [x])
    np.testing.assert_allclose(g.numpy(), [math.log(3.0)] * 2, rtol=1e-6)


def test_xlogy_with_a_number_other_masks_zero_x_unless_other_is_positive():
    # xlogy.Scalar_Other's derivative: other > 0 ? xlogy(grad, other) : xlogy(grad, other)
    # masked where self == 0, so a NaN other gives 0 there; the Tensor overload masks only
    # where other <= 0 and lets the NaN through (torch 2.13; differential seed 15132006418)
    x = T.tensor([0.0, 0.0, 1.5], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(T.xlogy(x, float("nan")).sum(), [x])
    assert g.tolist()[:2] == [0.0, 0.0] and math.isnan(g.tolist()[2])
    y = x * 1
    y.xlogy_(float("nan"))
    g, = T.autograd.grad(y.sum(), [x])
    assert g.tolist()[:2] == [0.0, 0.0]
    g, = T.autograd.grad(T.xlogy(x, T.tensor(float("nan"), dtype=T.float64)).sum(), [x])
    assert all(math.isnan(v) for v in g.tolist())
    g, = T.autograd.grad(T.xlogy(x, -1.0).sum(), [x])
    assert g.tolist()[:2] == [0.0, 0.0]


def test_dtype_rules_and_errors_are_pytorchs():
    i = T.tensor([1, 2])
    for fn, kernel in [(F.softplus, "softplus_cpu"), (F.silu, "silu_cpu"), (F.gelu, "GeluKernelImpl"),
                       (F.mish, "mish_cpu"), (F.elu, "elu_cpu"), (F.leaky_relu, "leaky_relu_cpu")]:
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'Long\''):
            fn(i)
    with pytest.raises(NotImplementedError, match="hypot_cpu"):
        T.hypot(i, i)
    assert F.hardtanh(i).dtype is T.int64 and F.hardtanh(i).tolist() == [1, 1]
    assert T.logit(T.tensor([1, 2])).dtype is T.float32            # integers promote
    assert T.xlogy(i, i).dtype is T.float32
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(T.ones(2), approximate="erf")
    with pytest.raises(TypeError):
        F.softplus([1.0, 2.0])


def test_cuda_backend_runs_the_table_ops():
    for name, (src, node, values, gx, gy) in sorted(REFERENCE.items()):
        out, got_x, got_y = _run(src, device="cuda")
        assert out.device.type == "cuda" and type(out.grad_fn).__name__ == node
        _close(out, values, rtol=1e-9)
        _close(got_x, gx, rtol=1e-9)
        _close(got_y, gy, rtol=1e-9)


# -- the table's consistency: one owner for each fact ---------------------------------------
def test_every_function_a_formula_calls_exists_on_both_backends():
    from nbgrad.backends.cpu import elementwise as cpu
    from nbgrad.backends.cuda import elementwise as cuda
    import ast
    called = set()
    for row in ROWS:
        for src in (row.forward,) + tuple(g for g in row.grads if g is not None):
            called |= {n.func.id for n in ast.walk(_expr.parse(src)) if isinstance(n, ast.Call)}
    backend = called - set(TABLE) - {"where", "sgn"}
    assert backend <= _expr.FUNCTIONS | _expr.TERNARY | {"hypot"}
    assert "fma" in backend         # lerp's rows
    for name in backend:
        assert name in cpu._UNARY_FNS or name in cpu._BINARY_FNS or name in cpu._TERNARY_FNS, name
        assert name in cuda._UNARY_FNS or name in cuda._BINARY_FNS or name in cuda._TERNARY_FNS, name
    for row in ROWS:
        if row.kernel:
            assert row.kernel in cpu.UNARY_OPS | cpu.BINARY_OPS and row.kernel in cuda.UNARY_OPS | cuda.BINARY_OPS


def test_what_a_node_saves_and_in_place_needs_are_read_off_the_derivatives():
    assert TABLE["exp"].saves == ("out",) and not TABLE["exp"].needs_old
    assert TABLE["sin"].saves == ("x",) and TABLE["sin"].needs_old
    assert TABLE["hypot"].saves == ("x", "y", "out")
    assert TABLE["lerp"].saves == ()
    x = T.tensor([0.5, 1.5], dtype=T.float64, requires_grad=True)
    y = x.exp()
    assert len(y.grad_fn._saved) == 1 and y.grad_fn._saved[0].is_output
    with T.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# recorded from PyTorch 2.13: after hypot/xlogy/lerp(x, y, w) with only input k requiring
# grad, the other operands are changed in place; does backward then raise?
@pytest.mark.parametrize("op,k,raises", [
    ("hypot", 0, False), ("hypot", 1, False), ("xlogy", 0, True), ("xlogy", 1, True),
    ("lerp", 0, True), ("lerp", 1, True), ("lerp", 2, True)])
def test_a_value_only_some_derivatives_read_is_saved_only_when_one_of_them_is_needed(op, k, raises):
    fn = {"hypot": T.hypot, "xlogy": T.xlogy, "lerp": T.lerp}[op]
    n = 3 if op == "lerp" else 2
    ts = [T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=(j == k)) for j in range(n)]
    out = fn(*ts)
    with T.no_grad():
        for j in range(n):
            if j != k:
                ts[j].add_(1)
    if raises:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    else:
        out.sum().backward()
        # the gradient of the values hypot saw: x / hypot(x, y) at the old x = [1, 2], y = [1, 2]
        np.testing.assert_allclose(ts[k].grad.numpy(), [1 / math.sqrt(2)] * 2)
    if op == "hypot":
        assert TABLE["hypot"].read_by == {"x": (0,), "y": (1,), "out": (0, 1)}


def test_node_names_follow_pytorchs_codegen():
    assert TABLE["log1p"].node_name == "Log1PBackward0"
    assert TABLE["expm1"].node_name == "Expm1Backward0"
    assert TABLE["leaky_relu"].node_name == "LeakyReluBackward0"
    assert TABLE["tanh_backward"].node_name == "TanhBackwardBackward0"


def test_formulas_outside_the_language_are_refused():
    with pytest.raises(SyntaxError):
        _expr.parse("x if x > 0 else 0")
    with pytest.raises(SyntaxError):
        _expr.parse("x.exp()")
    assert _expr.names("grad * where(x > beta, 1, out)") == {"grad", "x", "beta", "out"}


# -- in-place activations and dtype rules, as PyTorch 2.13 has them ---------------------------
@pytest.mark.parametrize("fn,kw,name", [(F.elu, {"alpha": 0.5}, "EluBackward1"),
                                        (F.leaky_relu, {"negative_slope": 0.2}, "LeakyReluBackward1")])
def test_in_place_activations_differentiate_through_their_result(fn, kw, name):
    data = [1.5, -2.0, 0.0, -0.3]
    x0 = T.tensor(data, dtype=T.float64, requires_grad=True)
    y = fn(x0 * 1, inplace=True, **kw)
    assert y.grad_fn.name() == name
    assert [s.is_output for s in y.grad_fn._saved if s is not None] == [True]     # only the result
    y.sum().backward()
    ref = T.tensor(data, dtype=T.float64, requires_grad=True)
    fn(ref, **kw).sum().backward()
    np.testing.assert_allclose(x0.grad.numpy(), ref.grad.numpy(), rtol=1e-15)


@pytest.mark.parametrize("fn,kw,what", [(F.elu, {"alpha": -0.5}, "elu"),
                                        (F.leaky_relu, {"negative_slope": -0.1}, "leakyReLu")])
def test_in_place_activations_with_a_negative_slope_refuse_their_backward(fn, kw, what):
    x = T.tensor([1.0, -2.0], dtype=T.float64, requires_grad=True) * 1
    y = fn(x, inplace=True, **kw)            # the forward runs, as in PyTorch
    assert y.tolist() == fn(T.tensor([1.0, -2.0], dtype=T.float64), **kw).tolist()
    with pytest.raises(RuntimeError, match=f"In-place {what} backward calculation is triggered with a negative slope"):
        y.sum().backward()


def test_hardtanh_refuses_bool_and_keeps_integers():
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.hardtanh(T.tensor([True, False]))
    out = F.hardtanh(T.tensor([1, 5, -3]), -2, 2)
    assert out.dtype is T.int64 and out.tolist() == [1, 2, -2]


def test_lerp_does_not_promote():
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        T.lerp(T.ones(2), T.ones(2, dtype=T.float64), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype double"):
        T.lerp(T.ones(2), T.ones(2), T.ones(2, dtype=T.float64))
    with pytest.raises(RuntimeError, match="expected dtype long int for `end` but got dtype float"):
        T.lerp(T.ones(2, dtype=T.int64), T.ones(2), 0.5)
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        T.lerp(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64), 0.5)


def test_lerp_takes_a_0_dim_weight_of_any_dtype_as_a_number():
    x = T.tensor([1.0, 3.0], dtype=T.float64, requires_grad=True)
    y = T.tensor([2.0, 5.0], dtype=T.float64)
    w = T.tensor(0.25, requires_grad=True)               # float32
    out = T.lerp(x, y, w)
    assert out.dtype is T.float64 and out.grad_fn.name() == "LerpBackward1"
    out.sum().backward()
    assert w.grad.dtype is T.float32 and w.grad.item() == 3.0 and x.grad.tolist() == [0.75, 0.75]
    assert T.lerp(x.detach(), y, T.tensor(1)).tolist() == [2.0, 5.0]
    with pytest.raises(RuntimeError, match="expected dtype double for `weight` but got dtype long int"):
        T.lerp(x, y, T.tensor([1, 2]))


def test_elu_of_signed_zeros_keeps_their_sign_whatever_alpha():
    # recorded from PyTorch 2.13: its forward takes 0 as positive (x * scale), its
    # derivative as negative (alpha)
    for alpha in (1.0, -1.0):
        out = F.elu(T.tensor([0.0, -0.0], dtype=T.float64), alpha=alpha)
        assert [math.copysign(1, v) for v in out.tolist()] == [1, -1]
    x = T.tensor([0.0], dtype=T.float64, requires_grad=True)
    F.elu(x, alpha=0.5).sum().backward()
    assert x.grad.tolist() == [0.5]


def test_table_ops_check_shapes_before_their_kernels_dtypes():
    b = T.ones(2, 0, dtype=T.bool).t()
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(0\\)"):
        T.lerp(b, T.ones(0, dtype=T.bool), b)
    with pytest.raises(RuntimeError, match="must match the size"):
        T.hypot(T.ones(2, dtype=T.int64), T.ones(3, dtype=T.int64))


def test_elu_second_derivative_is_masked_by_x_below_zero_as_pytorchs_double_backward():
    # recorded from PyTorch 2.13 (alpha 0.7; weights 1..5 on the first derivative)
    for inplace in (False, True):
        x = T.tensor([0.0, 0.0, -0.5, 1.0, -2.0], dtype=T.float64, requires_grad=True)
        y = F.elu(x * 1 if inplace else x, alpha=0.7, inplace=inplace)
        g, = T.autograd.grad(y.sum(), [x], create_graph=True)
        h, = T.autograd.grad((g * T.tensor([1.0, 2, 3, 4, 5], dtype=T.float64)).sum(), [x])
        np.testing.assert_allclose(g.tolist(), [0.7, 0.7, 0.42457146179884336, 1.0, 0.09473469826562889], rtol=1e-15)
        np.testing.assert_allclose(h.tolist(), [0.0, 0.0, 1.27371438539653, 0.0, 0.47367349132814446], rtol=1e-15)


def test_logit_gradient_at_zeros_of_either_sign_is_grad_times_inf():
    x = T.tensor([-0.0, 0.0, 1.0, 0.3, 2.0], dtype=T.float64, requires_grad=True)
    T.logit(x).sum().backward()
    assert x.grad.tolist()[:3] == [math.inf] * 3 and math.isnan(x.grad.tolist()[4])


def test_logit_records_pytorchs_infinitely_differentiable_form_under_create_graph():
    # recorded from PyTorch 2.13: the where() form, grad / (x * (1 - x)) also at -0.0
    x = T.tensor([-0.0, 0.0, 0.3, 2.0, 0.05], dtype=T.float64, requires_grad=True)
    g, = T.autograd.grad(T.logit(x).sum(), [x], create_graph=True)
    assert g.grad_fn.name() == "WhereBackward0"
    assert g.tolist()[:3] == [-math.inf, math.inf, 4.761904761904762] and math.isnan(g.tolist()[3])
    h, = T.autograd.grad((g * 2).sum(), [x])
    np.testing.assert_allclose(h.tolist()[2:], [-18.140589569160994, 0.0, -797.7839335180056], rtol=1e-14)
    assert TABLE["logit"].saves == ("x",)


# Node names of create_graph gradients, first and second order, recorded in PyTorch 2.13 (x =
# [0.3, 0.5, 0.7], float64).  A formula's tensor-times-number is C++'s Scalar overload there
# (exp2's grad * result * ln2: MulBackward1), and a formula squares with pow where PyTorch's
# does (erf's exp(-(x ** 2))) and with a product where it does (acosh's x * x).
CREATE_GRAPH_NAMES = [
    ('x.exp()', 'MulBackward0', 'MulBackward0'),
    ('x.log()', 'DivBackward0', 'MulBackward0'),
    ('x.sqrt()', 'DivBackward0', 'DivBackward0'),
    ('x.rsqrt()', 'MulBackward0', 'MulBackward0'),
    ('x.sin()', 'MulBackward0', 'MulBackward0'),
    ('x.tan()', 'MulBackward0', 'MulBackward0'),
    ('x.asin()', 'MulBackward0', 'AddBackward0'),
    ('x.atan()', 'DivBackward0', 'AddBackward0'),
    ('x.sinh()', 'MulBackward0', 'MulBackward0'),
    ('x.erf()', 'MulBackward0', 'MulBackward0'),
    ('x.reciprocal()', 'MulBackward0', 'MulBackward0'),
    ('x.tanh()', 'TanhBackwardBackward0', 'TanhBackwardBackward0'),
    ('x.sigmoid()', 'SigmoidBackwardBackward0', 'SigmoidBackwardBackward0'),
    ('F.softplus(x)', 'SoftplusBackwardBackward0', 'MulBackward1'),
    ('F.elu(x)', 'EluBackwardBackward0', 'MulBackward0'),
    ('F.gelu(x)', 'GeluBackwardBackward0', 'MulBackward0'),
    ("F.gelu(x, approximate='tanh')", 'GeluBackwardBackward0', 'MulBackward0'),
    ('F.silu(x)', 'MulBackward0', 'AddBackward0'),
    ('F.mish(x)', 'MulBackward0', 'AddBackward0'),
    ('F.leaky_relu(x)', 'LeakyReluBackwardBackward0', None),
    ('x.log1p()', 'DivBackward0', 'MulBackward0'),
    ('x.expm1()', 'MulBackward0', 'MulBackward0'),
    ('x.exp2()', 'MulBackward1', 'MulBackward1'),
    ('x.log2()', 'DivBackward0', 'MulBackward1'),
    ('x ** 2', 'MulBackward0', 'MulBackward0'),
    ('x ** 3.5', 'MulBackward0', 'MulBackward0'),
    ('x.pow(x)', 'AddBackward0', 'AddBackward0'),
    ('x * x', 'AddBackward0', None),
    ('x / (x + 1)', 'AddBackward0', 'AddBackward0'),
    ('x.erfinv()', 'MulBackward0', 'MulBackward0'),
    ('x.acos()', 'MulBackward0', 'AddBackward0'),
    ('x.cosh()', 'MulBackward0', 'MulBackward0'),
    ('x.atanh()', 'DivBackward0', 'MulBackward0'),
    ('x.asinh()', 'MulBackward0', 'MulBackward0'),
    ('(x + 1.5).acosh()', 'MulBackward0', 'AddBackward0'),
    ('x.erfc()', 'MulBackward0', 'MulBackward0'),
    ('x.cos()', 'MulBackward0', 'MulBackward0'),
    ('x.log10()', 'DivBackward0', 'MulBackward1'),
    ('x.abs()', 'MulBackward0', None),
    ('x.sqrt() * 2', 'DivBackward0', 'DivBackward0'),
    ('x.relu()', 'ThresholdBackwardBackward0', 'ThresholdBackwardBackward0'),
    ('F.selu(x)', 'EluBackwardBackward0', 'MulBackward0'),
    ('F.celu(x, 0.7)', 'EluBackwardBackward0', 'MulBackward0'),
    ('F.hardswish(x)', 'HardswishBackwardBackward0', None),
    ('F.softshrink(x, 0.1)', 'SoftshrinkBackwardBackward0', None),
    ('F.hardshrink(x, 0.1)', 'HardshrinkBackwardBackward0', None),
    ('F.logsigmoid(x)', 'LogSigmoidBackwardBackward0', 'MulBackward0'),
    ('F.logsigmoid(x)', 'LogSigmoidBackwardBackward0', 'MulBackward0'),
]


@pytest.mark.parametrize("src, first, second", CREATE_GRAPH_NAMES)
def test_create_graph_gradient_node_names_are_pytorchs(src, first, second):
    x = T.tensor([0.3, 0.5, 0.7], dtype=T.float64, requires_grad=True)
    y = eval(src, {"F": F, "x": x})
    (g1,) = T.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = T.autograd.grad(g1.sum(), x, create_graph=True)
    assert (g1.grad_fn.name(), g2.grad_fn.name() if g2.grad_fn else None) == (first, second)


def test_scalar_overload_nodes_differentiate_as_the_tensor_ops():
    from nbgrad.ops import elementwise as E
    x = T.tensor([0.3, -1.5, 2.0], dtype=T.float64, requires_grad=True)
    for fn, name, value, grad in [(E.add_scalar, "AddBackward1", [2.8, 1.0, 4.5], 1.0),
                                  (E.sub_scalar, "SubBackward1", [-2.2, -4.0, -0.5], 1.0),
                                  (E.mul_scalar, "MulBackward1", [0.75, -3.75, 5.0], 2.5),
                                  (E.div_scalar, "DivBackward1", [0.12, -0.6, 0.8], 0.4)]:
        y = fn(x, 2.5)
        assert y.grad_fn.name() == name
        np.testing.assert_allclose(y.detach().numpy(), value, rtol=1e-15)
        v = T.ones(3, dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(y, x, v, create_graph=True)
        np.testing.assert_allclose(g.detach().numpy(), [grad] * 3, rtol=1e-15)
        if name in ("MulBackward1", "DivBackward1"):       # d(v * s)/dv is again the Scalar overload
            assert g.grad_fn.name() == name


def test_atan2_double_backward_shares_pytorchs_masked_reciprocal_computed_first():
    # PyTorch's atan2_backward computes recip = 1 / (x^2 + y^2), masked_fill_ where that
    # sum is 0, once and before grad * y * recip: its nodes, and the order in which y's
    # three second-order contributions are added (torch 2.13's float32 bits below)
    x = T.tensor([2.0, 0.0], requires_grad=True)
    y = T.tensor([1.0, 0.0], requires_grad=True)
    gx, gy = T.autograd.grad(T.atan2(x, y).sum(), (x, y), create_graph=True)
    assert gx.grad_fn.name() == "MulBackward0"
    assert [n.name() for n, _ in gx.grad_fn.next_functions] == ["MulBackward0", "MaskedFillBackward0"]
    assert gx.tolist() == [0.20000000298023224, 0.0] and gy.tolist() == [-0.4000000059604645, -0.0]
    g2x, g2y = T.autograd.grad(gx.sum(), (x, y))
    assert g2x[0].item() == -0.1600000113248825
    assert g2y[0].item() == 0.11999998986721039          # (0.11999999731779099 when added otherwise)
    assert np.isnan(g2x[1].item()) and np.isnan(g2y[1].item())


def test_masked_fill_with_a_number_has_one_input_and_xlogy_records_it_under_create_graph():
    # masked_fill.Scalar's node has self alone; masked_fill.Tensor's has self and value
    x = T.tensor([1.0, 2.0], requires_grad=True) * 1
    m = T.tensor([True, False])
    assert len(x.masked_fill(m, 0).grad_fn.next_functions) == 1
    assert len(x.clone().masked_fill_(m, 0).grad_fn.next_functions) == 1
    assert len(x.masked_fill(m, T.tensor(0.0)).grad_fn.next_functions) == 2
    # xlogy's and xlog1py's derivative for self: xlogy(grad, other).masked_fill(mask, 0), one
    # xlogy node (PyTorch 2.13's graph)
    for f in (T.xlogy, T.special.xlog1py):
        a = T.tensor([0.0, 1.5], dtype=T.float64, requires_grad=True)
        b = T.tensor([-2.0, 3.0], dtype=T.float64, requires_grad=True)
        ga, _ = T.autograd.grad(f(a, b).sum(), (a, b), create_graph=True)
        assert ga.grad_fn.name() == "MaskedFillBackward0"
        assert [n.name() for n, _ in ga.grad_fn.next_functions] == [f(a, b).grad_fn.name()]
        assert ga[0].item() == 0.0


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_constant_gradient_takes_the_rows_layout_under_create_graph_too(create_graph):
    # PyTorch's angle_backward of a real input is zeros_like(self): self's layout, with or
    # without create_graph (PyTorch 2.13: strides (1, 2) for a transposed (3, 2) leaf;
    # differential seed 76000309 found the row-major zeros under create_graph)
    v0 = T.ones(3, 2, requires_grad=True)
    v1 = v0.t()
    g1, g0 = T.autograd.grad(v1.angle().mean(), [v1, v0], create_graph=create_graph)
    assert g1.stride() == (1, 2) and g0.stride() == (2, 1)
    assert g1.grad_fn is None and not g1.any()
