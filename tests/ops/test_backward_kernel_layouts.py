"""The layout of a gradient is the layout PyTorch's backward gives it.

A transposed gradient meets a row-major input: PyTorch's backward kernels lay their result
out from their operands in the order their TensorIterator reads them (logit_backward(grad,
self): grad's), from a preallocated output (binary_cross_entropy_backward's
empty_like(input)), or as a formula's first operand ((2 x erfcx(x) - 2/sqrt(pi)) * grad:
x's); zeros from saved sizes are row-major (sgn, copysign's other).  Strides recorded from
torch 2.13, for x of shape (2, 3) row-major and the incoming gradient of strides (1, 2).
"""
import pytest

import nbgrad as T

F = T.nn.functional
ROW, TRANSPOSED = (3, 1), (1, 2)

UNARY = {
    "logit": (T.logit, TRANSPOSED),
    "logit_eps": (lambda x: T.logit(x, 0.25), TRANSPOSED),
    "special_erfcx": (T.special.erfcx, ROW),
    "xlogy_number_other": (lambda x: T.xlogy(x, 2.0), TRANSPOSED),
    "nan_to_num": (T.nan_to_num, TRANSPOSED),
    "sgn": (T.sgn, ROW),
    "sign": (T.sign, TRANSPOSED),
    "angle": (T.angle, ROW),
    "logaddexp": (lambda x: T.logaddexp(x, x.detach()), TRANSPOSED),
    "erf": (T.erf, ROW),
    "tanh": (T.tanh, TRANSPOSED),
}

BINARY = {
    "logaddexp": (T.logaddexp, [TRANSPOSED, TRANSPOSED]),
    "logaddexp2": (T.logaddexp2, [TRANSPOSED, TRANSPOSED]),
    "copysign": (T.copysign, [TRANSPOSED, ROW]),
    "bce": (lambda x, y: F.binary_cross_entropy(x.abs() / 2, y.abs() / 2, reduction="none"), [ROW, ROW]),
    "kl_div": (lambda x, y: F.kl_div(x, y, reduction="none"), [TRANSPOSED, ROW]),
    "kl_div_log_target": (lambda x, y: F.kl_div(x, y, reduction="none", log_target=True), [TRANSPOSED, TRANSPOSED]),
    "xlogy": (T.xlogy, [ROW, TRANSPOSED]),
}


def _operands():
    x = T.tensor([[0.3, -0.2, 0.45], [0.1, 0.7, -0.6]], dtype=T.float64, requires_grad=True)
    y = T.tensor([[0.5, 0.25, -0.75], [1.5, -0.3, 0.2]], dtype=T.float64, requires_grad=True)
    g = T.tensor([[1.0, 0.5], [0.25, -1.0], [2.0, 0.75]], dtype=T.float64).t()
    return x, y, g


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_layout(name):
    fn, strides = UNARY[name]
    x, _, g = _operands()
    got, = T.autograd.grad(fn(x), [x], g)
    assert got.stride() == strides


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_layouts(name):
    fn, strides = BINARY[name]
    x, y, g = _operands()
    got = T.autograd.grad(fn(x, y), [x, y], g)
    assert [t.stride() for t in got] == strides


def test_kl_div_builds_its_product_before_the_xlogy_as_pytorch_does():
    # PyTorch's `xlogy(t, t) - t * x` evaluates its right operand first: MulBackward0 is
    # the older node, so XlogyBackward0 runs first in backward
    x, y, _ = _operands()
    loss = F.kl_div(x, y, reduction="none")
    older, newer = loss.grad_fn.next_functions[1][0], loss.grad_fn.next_functions[0][0]
    assert (older.name(), newer.name()) == ("MulBackward0", "XlogyBackward0")
    assert older._seq < newer._seq


def test_logaddexp_gradient_values_are_pytorchs_formula():
    inf, nan = float("inf"), float("nan")
    x = T.tensor([inf, -inf, 1.0, 1.0, -inf, 3.0, 0.0], dtype=T.float64, requires_grad=True)
    y = T.tensor([inf, -inf, 1.0, 2.0, 1.0, -inf, -0.0], dtype=T.float64, requires_grad=True)
    out = T.logaddexp(x, y)
    assert out.grad_fn.name() == "LogaddexpBackward0"
    assert [f.name() for f, _ in out.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 2
    out.backward(T.ones_like(out))
    assert str(x.grad.tolist()) == str([nan, nan, 0.5, 0.2689414213699951, 0.0, 1.0, 0.5])
    assert str(y.grad.tolist()) == str([nan, nan, 0.5, 0.7310585786300049, 1.0, 0.0, 0.5])
    x2 = T.tensor([1.0, 1.0], dtype=T.float64, requires_grad=True)
    y2 = T.tensor([2.0, -inf], dtype=T.float64, requires_grad=True)
    T.logaddexp2(x2, y2).sum().backward()
    assert x2.grad.tolist() == [0.3333333333333333, 1.0] and y2.grad.tolist() == [0.6666666666666666, 0.0]


def test_angle_of_real_numbers():
    nan = float("nan")
    got = T.angle(T.tensor([-1.0, 0.0, -0.0, nan, 2.0, -float("inf")]))
    assert str(got.tolist()) == str([3.1415927410125732, 0.0, 0.0, nan, 0.0, 3.1415927410125732])
    assert T.angle(T.tensor([-1, 0, 3])).dtype == T.float32
    assert T.tensor([-2.0], dtype=T.float64).angle().tolist() == [3.141592653589793]
    x = T.tensor([-1.0, 2.0], requires_grad=True)
    y = T.angle(x)
    assert y.grad_fn.name() == "AngleBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert not hasattr(T.Tensor, "angle_")


# -- ops PyTorch differentiates with their own node (were composites under its name) --------
def _tree(fn):
    return None if fn is None else (fn.name(), [_tree(n) for n, _ in fn.next_functions])


_LEAF = ("torch::autograd::AccumulateGrad", [])


@pytest.mark.parametrize("name, fn, grad", [
    ("FracBackward0", T.frac, [[1.0, 0.25, 2.0], [0.5, -1.0, 0.75]]),
    ("Deg2RadBackward0", T.deg2rad, [[0.017453292519943295, 0.004363323129985824, 0.03490658503988659],
                                     [0.008726646259971648, -0.017453292519943295, 0.013089969389957472]]),
    ("Rad2DegBackward0", T.rad2deg, [[57.29577951308232, 14.32394487827058, 114.59155902616465],
                                     [28.64788975654116, -57.29577951308232, 42.97183463481174]]),
])
def test_unary_ops_with_their_own_node(name, fn, grad):
    x = T.tensor([[0.5, -1.25, 2.0], [float("nan"), 3.5, -0.75]], dtype=T.float64, requires_grad=True)
    g = T.tensor([[1.0, 0.5], [0.25, -1.0], [2.0, 0.75]], dtype=T.float64).t()
    y = fn(x)
    assert _tree(y.grad_fn) == (name, [_LEAF])
    r, = T.autograd.grad(y, [x], g)
    assert r.stride() == TRANSPOSED and r.tolist() == grad


@pytest.mark.parametrize("args, value", [((), 4.0), ((0,), [0.5, 2.25, 1.25]), ((1, True), [[1.25], [2.75]]),
                                         (((0, 1),), 4.0)])
def test_nansum_node_and_gradient(args, value):
    x = T.tensor([[0.5, -1.25, 2.0], [float("nan"), 3.5, -0.75]], dtype=T.float64, requires_grad=True)
    y = T.nansum(x, *args)
    assert _tree(y.grad_fn) == ("NansumBackward0", [_LEAF]) and y.tolist() == value
    r, = T.autograd.grad(y.sum(), [x])
    assert r.stride() == (3, 1) and r.tolist() == [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    xt = x.detach().t().requires_grad_()
    assert T.autograd.grad(T.nansum(xt, *args).sum(), [xt])[0].stride() == (1, 3)     # the mask's layout
    x32 = T.tensor([1.0, float("nan")], requires_grad=True)
    y = T.nansum(x32, dtype=T.float64)
    y.backward()
    assert y.dtype == T.float64 and x32.grad.dtype == T.float32 and x32.grad.tolist() == [1.0, 0.0]


def test_trace_node_and_gradient():
    m = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=T.float64, requires_grad=True)
    y = T.trace(m)
    assert _tree(y.grad_fn) == ("TraceBackward0", [_LEAF]) and y.item() == 6.0
    r, = T.autograd.grad(y, [m])
    assert r.stride() == (3, 1) and r.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    r, = T.autograd.grad(T.trace(m.t()), [m])
    assert r.stride() == (1, 2) and r.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


def test_angle_saves_its_input_as_pytorch_does():
    # seed 53026257: angle_backward(grad, self) reads self, so its node saves it: a second
    # backward fails, and so does one after an in-place change of the input
    x = T.tensor([[[[2.0]]]], requires_grad=True)
    y = x.angle().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    x2 = T.tensor([1.0, -2.0], requires_grad=True)
    b = x2 * 1
    z = b.angle()
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_pixel_shuffle_and_unshuffle_record_their_own_nodes():
    # PyTorch's PixelShuffleBackward0 (its backward is pixel_unshuffle) has self as its one
    # edge; nbgrad's was the renamed last view of its reshape-permute-copy composition
    F = T.nn.functional
    x = T.arange(2 * 8 * 2 * 3, dtype=T.float64).reshape(2, 8, 2, 3).requires_grad_()
    y = F.pixel_shuffle(x, 2)
    assert _tree(y.grad_fn) == ("PixelShuffleBackward0", [_LEAF]) and y.stride() == (48, 24, 6, 1)
    w = T.arange(y.numel(), dtype=T.float64).reshape(y.shape)
    g, = T.autograd.grad(y, x, w, create_graph=True)
    assert g.stride() == (48, 6, 3, 1) and g.flatten()[:6].tolist() == [0.0, 2.0, 4.0, 12.0, 14.0, 16.0]
    y2 = F.pixel_shuffle(x, 2)
    g2, = T.autograd.grad((y2 * y2).sum(), x, create_graph=True)
    assert g2.grad_fn.name() == "PixelUnshuffleBackward0"
    assert T.autograd.grad(g2.sum(), x)[0].flatten()[:4].tolist() == [2.0] * 4
    z = F.pixel_unshuffle(y.detach().requires_grad_(), 2)
    assert _tree(z.grad_fn) == ("PixelUnshuffleBackward0", [_LEAF]) and z.stride() == (48, 6, 3, 1)


def _names(fn):
    return [n.name() if n is not None else None for n, _ in fn.next_functions]


@pytest.mark.parametrize("mode, node", [("reflect", "ReflectionPad2D"), ("replicate", "ReplicationPad2D")])
def test_reflect_and_replicate_pads_are_one_node_with_its_own_double_backward(mode, node):
    x4 = T.arange(2 * 3 * 4 * 5.0, dtype=T.float64).reshape(2, 3, 4, 5).requires_grad_()
    y = T.nn.functional.pad(x4, (1, 2, 2, 1), mode=mode)
    assert y.grad_fn.name() == node + "Backward0" and _names(y.grad_fn) == ["torch::autograd::AccumulateGrad"]
    g, = T.autograd.grad((y * y).sum(), x4, create_graph=True)
    assert g.grad_fn.name() == node + "BackwardBackward0"
    assert _names(g.grad_fn) == ["AddBackward0", "torch::autograd::AccumulateGrad"]
    b = x4 * 1
    y = T.nn.functional.pad(b, (1, 1, 1, 1), mode=mode)
    b.add_(1)                       # the node saves self, as PyTorch's
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_a_pad_of_nothing_is_a_new_tensor(mode):
    # it returned the input itself: an in-place change of the result wrote into x
    x = T.arange(12.0, dtype=T.float64).reshape(1, 2, 6).requires_grad_()
    y = T.nn.functional.pad(x, (0, 0), mode=mode)
    assert y is not x and y.data_ptr() != x.data_ptr() and y.grad_fn is not None
    assert y.tolist() == x.tolist()


def test_circular_pad_is_pytorchs_copies_into_slices():
    x = T.arange(12.0, dtype=T.float64).reshape(1, 2, 6).requires_grad_()
    y = T.nn.functional.pad(x, (2, 1), mode="circular")
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert _names(y.grad_fn) == ["torch::autograd::CopySlices", "SliceBackward0"]
    assert y.flatten().tolist()[:9] == [4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0]
    w = T.arange(y.numel(), dtype=T.float64).reshape(y.shape)
    g, = T.autograd.grad(y, x, w)
    assert g.flatten().tolist() == [10.0, 3.0, 4.0, 5.0, 6.0, 8.0, 28.0, 12.0, 13.0, 14.0, 24.0, 26.0]


def test_xlogy_gradient_of_a_permuted_input_is_row_major_in_its_own_shape():
    # PyTorch's self gradient is xlogy(grad, other).masked_fill(...), and masked_fill clones
    # its operand Contiguous: row-major in the permuted view's shape, whatever the operands'
    # layouts (the differential tester's program 70015963; strides recorded from torch 2.13)
    v0 = T.tensor([[[1.0, 0.0, 3.0]], [[4.0, 5.0, 0.0]]], dtype=T.float64, requires_grad=True)
    y = T.tensor([[[0.35, -0.95]]], dtype=T.float64, requires_grad=True)
    for wanted in ([v0], [v0, y]):
        got = T.autograd.grad(v0.permute(2, 1, 0).xlogy(y).sum(), wanted)
        assert [t.stride() for t in got] == [(1, 2, 2), (2, 2, 1)][:len(wanted)]
