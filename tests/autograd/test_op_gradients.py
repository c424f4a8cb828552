"""Every op's gradient, checked against finite differences in float64 with
nbgrad.autograd.gradcheck, on contiguous, transposed and step-sliced inputs
and broadcasting shapes; plus PyTorch's choices at kinks and ties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nbgrad

# attribute access, not `from nbgrad.autograd import`: the suite can run with
# `nbgrad` aliased to another module (tests/conftest.py)
gradcheck = nbgrad.autograd.gradcheck

LAYOUTS = ["contiguous", "transposed", "sliced"]


def values(shape, seed, domain="any"):
    """float64 values for `shape` in a domain that keeps finite differences
    away from kinks, poles and branch cuts."""
    rng = np.random.RandomState(seed)
    if domain == "any":
        return rng.uniform(-1.5, 1.5, size=shape)
    magnitude = rng.uniform(0.5, 1.5, size=shape)
    if domain == "positive":
        return magnitude
    if domain == "nonzero":  # away from zero, either sign
        return magnitude * rng.choice([-1.0, 1.0], size=shape)
    raise ValueError(domain)


def make(shape, seed=0, domain="any", layout="contiguous"):
    """A float64 leaf that requires grad, with the values of `values(...)`,
    laid out contiguously, transposed (reversed strides) or step-sliced."""
    a = values(shape, seed, domain)
    ndim = len(shape)
    if layout == "contiguous" or ndim == 0:
        t = nbgrad.tensor(a, dtype=nbgrad.float64)
    elif layout == "transposed":
        base = nbgrad.tensor(np.ascontiguousarray(a.transpose()), dtype=nbgrad.float64)
        t = base.permute(*reversed(range(ndim)))
    elif layout == "sliced":
        big = np.zeros(shape[:-1] + (2 * shape[-1],))
        big[..., ::2] = a
        t = nbgrad.tensor(big, dtype=nbgrad.float64)[..., ::2]
    else:
        raise ValueError(layout)
    t = t.detach().requires_grad_()
    assert t.is_leaf
    np.testing.assert_array_equal(t.detach().numpy(), a)
    return t


def check(fn, *inputs):
    assert gradcheck(fn, inputs) is True


def test_layouts_are_really_non_contiguous():
    assert make((3, 4), layout="contiguous").is_contiguous()
    assert not make((3, 4), layout="transposed").is_contiguous()
    assert not make((3, 4), layout="sliced").is_contiguous()
    assert make((3, 4), layout="transposed").stride() == (1, 3)
    assert make((3, 4), layout="sliced").stride() == (8, 2)


def test_gradcheck_can_fail():
    class WrongExp(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp() * 1.01

    x = make((3,))
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        gradcheck(WrongExp.apply, (x,))
    assert gradcheck(WrongExp.apply, (x,), raise_exception=False) is False


# ---------------------------------------------------------------- elementwise binary

BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (3, 1)),
    ((), (3,)),
    ((2, 3), ()),
]

BINARY = {
    "add": (lambda a, b: a + b, "any", "any"),
    "sub": (lambda a, b: a - b, "any", "any"),
    "mul": (lambda a, b: a * b, "any", "any"),
    "div": (lambda a, b: a / b, "any", "nonzero"),
    "pow": (lambda a, b: a ** b, "positive", "any"),
    "maximum": (lambda a, b: nbgrad.maximum(a, b), "any", "any"),
    "minimum": (lambda a, b: nbgrad.minimum(a, b), "any", "any"),
    "add(alpha)": (lambda a, b: a.add(b, alpha=2.5), "any", "any"),
    "sub method": (lambda a, b: a.sub(b), "any", "any"),
    "mul method": (lambda a, b: a.mul(b), "any", "any"),
    "div method": (lambda a, b: a.div(b), "any", "nonzero"),
    "pow method": (lambda a, b: a.pow(b), "positive", "any"),
}


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_broadcasting(op, shapes):
    fn, da, db = BINARY[op]
    a = make(shapes[0], seed=1, domain=da)
    b = make(shapes[1], seed=2, domain=db)
    check(fn, a, b)


@pytest.mark.parametrize("layout", ["transposed", "sliced"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_non_contiguous(op, layout):
    fn, da, db = BINARY[op]
    a = make((3, 4), seed=3, domain=da, layout=layout)
    b = make((3, 4), seed=4, domain=db, layout="transposed" if layout == "sliced" else "sliced")
    check(fn, a, b)


def test_binary_same_tensor_both_sides():
    x = make((3, 4), seed=5, domain="positive")
    check(lambda a: a * a, x)
    check(lambda a: a / a, x)
    check(lambda a: a ** a, x)
    check(lambda a: a - a.t().t(), x)


SCALAR_FORMS = {
    "x+2": (lambda x: x + 2, "any"),
    "2+x": (lambda x: 2 + x, "any"),
    "x-2": (lambda x: x - 2, "any"),
    "2-x": (lambda x: 2 - x, "any"),
    "x*2.5": (lambda x: x * 2.5, "any"),
    "2.5*x": (lambda x: 2.5 * x, "any"),
    "x/3": (lambda x: x / 3, "any"),
    "3/x": (lambda x: 3 / x, "nonzero"),
    "x**2": (lambda x: x ** 2, "any"),
    "x**3": (lambda x: x ** 3, "any"),
    "x**0.5": (lambda x: x ** 0.5, "positive"),
    "x**-1.5": (lambda x: x ** -1.5, "positive"),
    "x**0": (lambda x: x ** 0, "any"),
    "x**1": (lambda x: x ** 1, "any"),
    "2**x": (lambda x: 2 ** x, "any"),
    "0.5**x": (lambda x: 0.5 ** x, "any"),
    "x.pow(2)": (lambda x: x.pow(2), "any"),
    "nbgrad.pow(x, 3)": (lambda x: nbgrad.pow(x, 3), "any"),
    "x%1.7": (lambda x: x % 1.7, "positive"),
    "-x": (lambda x: -x, "any"),
    "x + 0-dim": (lambda x: x + nbgrad.tensor(2.0, dtype=nbgrad.float64), "any"),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("form", sorted(SCALAR_FORMS))
def test_scalar_forms(form, layout):
    fn, domain = SCALAR_FORMS[form]
    check(fn, make((3, 4), seed=6, domain=domain, layout=layout))


# ---------------------------------------------------------------- elementwise unary

UNARY = {
    "neg": (lambda x: x.neg(), "any"),
    "abs": (lambda x: x.abs(), "nonzero"),
    "exp": (lambda x: x.exp(), "any"),
    "log": (lambda x: x.log(), "positive"),
    "log1p": (lambda x: x.log1p(), "positive"),
    "expm1": (lambda x: x.expm1(), "any"),
    "sqrt": (lambda x: x.sqrt(), "positive"),
    "rsqrt": (lambda x: x.rsqrt(), "positive"),
    "sin": (lambda x: x.sin(), "any"),
    "cos": (lambda x: x.cos(), "any"),
    "tanh": (lambda x: x.tanh(), "any"),
    "sigmoid": (lambda x: x.sigmoid(), "any"),
    "relu": (lambda x: x.relu(), "nonzero"),
    "reciprocal": (lambda x: x.reciprocal(), "nonzero"),
    "sign": (lambda x: x.sign(), "nonzero"),
    "floor": (lambda x: x.floor(), "any"),
    "ceil": (lambda x: x.ceil(), "any"),
    "round": (lambda x: x.round(), "any"),
    "nbgrad.exp": (lambda x: nbgrad.exp(x), "any"),
    "nbgrad.log": (lambda x: nbgrad.log(x), "positive"),
    "nbgrad.tanh": (lambda x: nbgrad.tanh(x), "any"),
    "nbgrad.sigmoid": (lambda x: nbgrad.sigmoid(x), "any"),
    "nbgrad.relu": (lambda x: nbgrad.relu(x), "nonzero"),
    "nbgrad.abs": (lambda x: nbgrad.abs(x), "nonzero"),
    "nbgrad.sqrt": (lambda x: nbgrad.sqrt(x), "positive"),
    "clamp(-0.5, 0.5)": (lambda x: x.clamp(-0.5, 0.5), "any"),
    "clamp(min=-0.2)": (lambda x: x.clamp(min=-0.2), "any"),
    "clamp(max=0.3)": (lambda x: x.clamp(max=0.3), "any"),
    "nbgrad.clamp": (lambda x: nbgrad.clamp(x, -0.5, 0.5), "any"),
    "exp(tanh(x)) * x": (lambda x: x.tanh().exp() * x, "any"),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, layout):
    fn, domain = UNARY[op]
    check(fn, make((3, 4), seed=7, domain=domain, layout=layout))


@pytest.mark.parametrize("shape", [(), (1,), (5,), (2, 3, 2)], ids=str)
def test_unary_shapes(shape):
    for fn, domain in [UNARY["exp"], UNARY["tanh"], UNARY["log"], UNARY["sigmoid"]]:
        check(fn, make(shape, seed=8, domain=domain))


def test_zero_gradient_ops_give_zeros():
    x = make((4,), seed=9, domain="nonzero")
    (x.sign() + x.floor() + x.ceil() + x.round()).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))


# ---------------------------------------------------------------- where / masked_fill

def test_where_gradients():
    cond = nbgrad.tensor(values((3, 4), 10) > 0)
    a = make((3, 4), seed=11)
    b = make((3, 4), seed=12, layout="transposed")
    check(lambda x, y: nbgrad.where(cond, x, y), a, b)
    check(lambda x, y: x.where(cond, y), a, b)


def test_where_broadcasting():
    cond = nbgrad.tensor(values((3, 1), 13) > 0)
    a = make((4,), seed=14)
    b = make((3, 4), seed=15)
    check(lambda x, y: nbgrad.where(cond, x, y), a, b)
    check(lambda x: nbgrad.where(cond, x, 0.0), b)


def test_where_values():
    cond = nbgrad.tensor([True, False, True])
    a = make((3,), seed=16)
    b = make((3,), seed=17)
    nbgrad.where(cond, a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 1.0, 0.0])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill(layout):
    x = make((3, 4), seed=18, layout=layout)
    mask = nbgrad.tensor(values((3, 4), 19) > 0)
    row_mask = nbgrad.tensor(values((4,), 20) > 0)
    check(lambda t: t.masked_fill(mask, 0.5), x)
    check(lambda t: t.masked_fill(row_mask, -1.0), x)
    x.masked_fill(mask, 0.5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (~mask).double().numpy())


# ---------------------------------------------------------------- reductions

REDUCTIONS = {
    "sum()": lambda x: x.sum(),
    "sum(0)": lambda x: x.sum(0),
    "sum(-1)": lambda x: x.sum(-1),
    "sum(1, keepdim)": lambda x: x.sum(1, keepdim=True),
    "sum((0, 2))": lambda x: x.sum((0, 2)),
    "sum(dim=[0, 2], keepdim)": lambda x: x.sum(dim=[0, 2], keepdim=True),
    "nbgrad.sum": lambda x: nbgrad.sum(x, 1),
    "mean()": lambda x: x.mean(),
    "mean(1)": lambda x: x.mean(1),
    "mean((1, 2), keepdim)": lambda x: x.mean((1, 2), keepdim=True),
    "prod()": lambda x: x.prod(),
    "prod(1)": lambda x: x.prod(1),
    "prod(2, keepdim)": lambda x: x.prod(2, keepdim=True),
    "max()": lambda x: x.max(),
    "min()": lambda x: x.min(),
    "max(1)": lambda x: x.max(1)[0],
    "max(dim=-1, keepdim).values": lambda x: x.max(dim=-1, keepdim=True).values,
    "min(0).values": lambda x: x.min(0).values,
    "var()": lambda x: x.var(),
    "var(1)": lambda x: x.var(1),
    "var(1, unbiased=False)": lambda x: x.var(1, unbiased=False),
    "var((0, 2), keepdim)": lambda x: x.var((0, 2), keepdim=True),
    "std()": lambda x: x.std(),
    "std(2)": lambda x: x.std(2),
    "std(0, keepdim)": lambda x: x.std(0, keepdim=True),
    "logsumexp(1)": lambda x: x.logsumexp(1),
    "logsumexp((0, 2), keepdim)": lambda x: x.logsumexp((0, 2), keepdim=True),
    "nbgrad.logsumexp": lambda x: nbgrad.logsumexp(x, -1),
    "norm()": lambda x: x.norm(),
    "norm(dim=1)": lambda x: x.norm(dim=1),
    "norm(p=1, dim=2)": lambda x: x.norm(p=1, dim=2),
    "norm(dim=0, keepdim)": lambda x: x.norm(dim=0, keepdim=True),
    "softmax(0)": lambda x: x.softmax(0),
    "softmax(-1)": lambda x: x.softmax(-1),
    "nbgrad.softmax": lambda x: nbgrad.softmax(x, dim=1),
    "log_softmax(1)": lambda x: x.log_softmax(1),
    "log_softmax(-1)": lambda x: x.log_softmax(-1),
    "nbgrad.log_softmax": lambda x: nbgrad.log_softmax(x, dim=0),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(REDUCTIONS))
def test_reduction(op, layout):
    domain = "nonzero" if op.startswith(("norm", "prod")) else "any"
    check(REDUCTIONS[op], make((2, 3, 4), seed=21, domain=domain, layout=layout))


def test_prod_with_a_zero():
    a = np.array([[1.5, 0.0, -2.0], [0.5, 3.0, 1.25]])
    x = nbgrad.tensor(a, dtype=nbgrad.float64, requires_grad=True)
    check(lambda t: t.prod(), x)
    check(lambda t: t.prod(1), x)
    x.prod(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, -3.0, 0.0], [3.75, 0.625, 1.5]])


def test_softmax_of_large_logits():
    x = nbgrad.tensor([[1e4, 1e4 - 1.0, 0.0]], dtype=nbgrad.float64, requires_grad=True)
    check(lambda t: t.softmax(1), x)
    check(lambda t: t.log_softmax(1), x)
    check(lambda t: t.logsumexp(1), x)


def test_mean_and_sum_values():
    x = make((2, 3), seed=22)
    (x.mean() + x.sum(0).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1 / 6 + 1))


@settings(max_examples=15, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       data=st.data())
def test_reduction_random_dims(shape, data):
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    keepdim = data.draw(st.booleans())
    x = make(shape, seed=23)
    check(lambda t: t.sum(tuple(dims), keepdim=keepdim), x)
    check(lambda t: t.mean(tuple(dims), keepdim=keepdim), x)
    check(lambda t: t.logsumexp(tuple(dims), keepdim=keepdim), x)


# ---------------------------------------------------------------- matmul

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 2)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_shapes(shapes):
    a = make(shapes[0], seed=24)
    b = make(shapes[1], seed=25)
    check(lambda x, y: x @ y, a, b)
    check(lambda x, y: nbgrad.matmul(x, y), a, b)


@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("layout_b", LAYOUTS)
def test_mm_non_contiguous(layout_a, layout_b):
    a = make((3, 4), seed=26, layout=layout_a)
    b = make((4, 2), seed=27, layout=layout_b)
    check(lambda x, y: x.mm(y), a, b)
    check(lambda x, y: nbgrad.mm(x, y), a, b)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bmm(layout):
    a = make((2, 3, 4), seed=28, layout=layout)
    b = make((2, 4, 2), seed=29)
    check(lambda x, y: nbgrad.bmm(x, y), a, b)
    check(lambda x, y: x.bmm(y), a, b)


def test_matmul_batched_transposed_views():
    a = make((2, 4, 3), seed=30)
    b = make((2, 4, 5), seed=31)
    check(lambda x, y: x.mT @ y, a, b)


def test_dot_and_outer():
    a = make((4,), seed=32)
    b = make((4,), seed=33, layout="sliced")
    c = make((3,), seed=34)
    check(lambda x, y: nbgrad.dot(x, y), a, b)
    check(lambda x, y: x.dot(y), a, b)
    check(lambda x, y: nbgrad.outer(x, y), a, c)
    check(lambda x, y: x.outer(y), b, c)


def test_matmul_values():
    rng = np.random.RandomState(35)
    an, bn = rng.randn(3, 4), rng.randn(4, 2)
    a = nbgrad.tensor(an, dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.tensor(bn, dtype=nbgrad.float64, requires_grad=True)
    g = rng.randn(3, 2)
    (a @ b).backward(nbgrad.tensor(g, dtype=nbgrad.float64))
    np.testing.assert_allclose(a.grad.numpy(), g @ bn.T)
    np.testing.assert_allclose(b.grad.numpy(), an.T @ g)


# ---------------------------------------------------------------- views

VIEWS = {
    "view": lambda x: x.view(6, 4),
    "view(-1)": lambda x: x.view(-1),
    "reshape": lambda x: x.reshape(4, 6),
    "reshape(-1, 2)": lambda x: x.reshape(-1, 2),
    "nbgrad.reshape": lambda x: nbgrad.reshape(x, (24,)),
    "flatten": lambda x: x.flatten(),
    "flatten(1)": lambda x: x.flatten(1),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "squeeze()": lambda x: x.unsqueeze(0).unsqueeze(3).squeeze(),
    "squeeze(0)": lambda x: x.unsqueeze(0).squeeze(0),
    "unsqueeze(1)": lambda x: x.unsqueeze(1),
    "unsqueeze(-1)": lambda x: x.unsqueeze(-1),
    "transpose": lambda x: x.transpose(0, 2),
    "nbgrad.transpose": lambda x: nbgrad.transpose(x, 1, 2),
    "permute": lambda x: x.permute(2, 0, 1),
    "mT": lambda x: x.mT,
    "expand": lambda x: x[:, :1].expand(2, 3, 4),
    "expand(-1)": lambda x: x[None].expand(3, -1, -1, -1),
    "expand_as": lambda x: x[:, :, :1].expand_as(x),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(2, 1),
    "unbind": lambda x: nbgrad.stack([u * (i + 1) for i, u in enumerate(x.unbind(1))]),
    "split(2)": lambda x: x.split(2, dim=2)[1],
    "split([1, 2])": lambda x: x.split([1, 2], dim=1)[1],
    "chunk": lambda x: x.chunk(2, dim=2)[0],
    "diagonal": lambda x: x.diagonal(dim1=1, dim2=2),
    "diagonal(offset)": lambda x: x.diagonal(offset=1, dim1=1, dim2=2),
    "as_strided": lambda x: x.contiguous().as_strided((3, 3), (4, 1), 2),
    "view_as": lambda x: x.contiguous().view_as(nbgrad.zeros(4, 6)),
    "contiguous": lambda x: x.contiguous(),
    "x[1]": lambda x: x[1],
    "x[-1]": lambda x: x[-1],
    "x[:, 1:3]": lambda x: x[:, 1:3],
    "x[..., ::2]": lambda x: x[..., ::2],
    "x[None, ..., 0]": lambda x: x[None, ..., 0],
    "x[1:, None, 2]": lambda x: x[1:, None, 2],
    "x[:, ::2, 1::2]": lambda x: x[:, ::2, 1::2],
    "x[0, 1, 2]": lambda x: x[0, 1, 2],
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(VIEWS))
def test_view_op(op, layout):
    x = make((2, 3, 4), seed=36, layout=layout)
    if op in ("view", "view(-1)", "flatten", "flatten(1)", "unflatten") and layout != "contiguous":
        # view needs compatible strides; reshape-like ops go through contiguous()
        fn = VIEWS[op]
        check(lambda t: fn(t.contiguous()), x)
    else:
        check(VIEWS[op], x)


def test_t_and_T():
    x = make((3, 4), seed=37, layout="sliced")
    check(lambda t: t.t(), x)
    check(lambda t: t.T, x)
    check(lambda t: nbgrad.t(t), x)


def test_view_gradients_route_to_base():
    x = nbgrad.zeros(3, 4, dtype=nbgrad.float64, requires_grad=True)
    (x[1] * 2).sum().backward()
    expected = np.zeros((3, 4))
    expected[1] = 2
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_overlapping_views_accumulate():
    x = nbgrad.zeros(4, dtype=nbgrad.float64, requires_grad=True)
    (x[:3].sum() + x[1:].sum() + x.expand(2, 4).sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0, 4.0, 3.0])


def test_expand_gradient_sums():
    x = nbgrad.ones(3, 1, dtype=nbgrad.float64, requires_grad=True)
    x.expand(3, 5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 1), 5.0))


def test_as_strided_overlapping():
    x = make((6,), seed=38)
    check(lambda t: t.as_strided((3, 3), (1, 1)), x)


# ---------------------------------------------------------------- advanced indexing

INDEXING = {
    "x[[0, 1, 0]]": lambda x: x[[0, 1, 0]],
    "x[tensor 2-d]": lambda x: x[nbgrad.tensor([[0, 1], [1, 0]])],
    "x[:, [2, 2, 0]]": lambda x: x[:, [2, 2, 0]],
    "x[[0, 1], [2, 2]]": lambda x: x[[0, 1], [2, 2]],
    "x[[1, 0], 1:3]": lambda x: x[[1, 0], 1:3],
    "x[..., [3, 0, 3]]": lambda x: x[..., [3, 0, 3]],
    "x[mask]": lambda x: x[nbgrad.tensor(values((2, 3, 4), 39) > 0)],
    "x[row mask]": lambda x: x[:, nbgrad.tensor([True, False, True])],
    "x[-1 list]": lambda x: x[:, [-1, 0]],
    "index_select(1)": lambda x: x.index_select(1, nbgrad.tensor([2, 0, 2])),
    "nbgrad.index_select": lambda x: nbgrad.index_select(x, 2, nbgrad.tensor([1, 1, 3])),
    "gather(2)": lambda x: x.gather(2, nbgrad.tensor(np.random.RandomState(40).randint(0, 4, (2, 3, 5)))),
    "gather(0)": lambda x: nbgrad.gather(x, 0, nbgrad.tensor([[[1, 0, 1, 1]], [[0, 0, 1, 0]]])),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(INDEXING))
def test_advanced_indexing(op, layout):
    check(INDEXING[op], make((2, 3, 4), seed=41, layout=layout))


def test_repeated_indices_accumulate():
    x = nbgrad.zeros(3, dtype=nbgrad.float64, requires_grad=True)
    x[[0, 0, 0, 1]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 1.0, 0.0])
    x.grad = None
    x[nbgrad.tensor([[2, 2], [0, 2]])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 3.0])
    x.grad = None
    x.index_select(0, nbgrad.tensor([1, 1])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 0.0])


def test_gather_repeated_indices_accumulate():
    x = nbgrad.zeros(2, 3, dtype=nbgrad.float64, requires_grad=True)
    x.gather(1, nbgrad.tensor([[0, 0, 2], [1, 1, 1]])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 0.0, 1.0], [0.0, 3.0, 0.0]])


# ---------------------------------------------------------------- scatter / cat / stack

def test_scatter():
    index = nbgrad.tensor([[2, 0], [1, 3], [0, 2]])  # distinct within each row
    x = make((3, 4), seed=42)
    src = make((3, 2), seed=43)
    check(lambda a, b: a.scatter(1, index, b), x, src)
    check(lambda a, b: nbgrad.scatter(a, 1, index, b), x, src)
    check(lambda a: a.scatter(1, index, 0.5), x)


def test_scatter_values():
    index = nbgrad.tensor([[2, 0], [1, 3]])
    x = nbgrad.ones(2, 4, dtype=nbgrad.float64, requires_grad=True)
    src = nbgrad.ones(2, 2, dtype=nbgrad.float64, requires_grad=True)
    out = x.scatter(1, index, src * 3)
    out.backward(nbgrad.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], dtype=nbgrad.float64))
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 2.0, 0.0, 4.0], [5.0, 0.0, 7.0, 0.0]])
    np.testing.assert_array_equal(src.grad.numpy(), [[9.0, 3.0], [18.0, 24.0]])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_scatter_add(layout):
    index = nbgrad.tensor([[0, 0, 2], [3, 3, 3], [1, 0, 1]])  # repeated indices
    x = make((3, 4), seed=44, layout=layout)
    src = make((3, 3), seed=45)
    check(lambda a, b: a.scatter_add(1, index, b), x, src)
    check(lambda a, b: nbgrad.scatter_add(a, 1, index, b), x, src)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(dim):
    a = make((2, 3), seed=46)
    b = make((2, 3), seed=47, layout="transposed")
    c = make((2, 3), seed=48, layout="sliced")
    check(lambda x, y, z: nbgrad.cat([x, y, z], dim=dim), a, b, c)


def test_cat_different_sizes_and_repeats():
    a = make((2, 3), seed=49)
    b = make((4, 3), seed=50)
    check(lambda x, y: nbgrad.cat([x, y, x]), a, b)
    check(lambda x, y: nbgrad.cat((x.t(), y.t()), 1), a, b)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(dim):
    a = make((2, 3), seed=51)
    b = make((2, 3), seed=52, layout="transposed")
    check(lambda x, y: nbgrad.stack([x, y, x], dim=dim), a, b)


# ---------------------------------------------------------------- setitem

SETITEM = {
    "y[1] = v": (lambda: 1, (4,)),
    "y[:, 1:3] = v": (lambda: (slice(None), slice(1, 3)), (3, 2)),
    "y[::2] = v (broadcast row)": (lambda: slice(None, None, 2), (4,)),
    "y[0, 2] = v (scalar)": (lambda: (0, 2), ()),
    "y[[0, 2]] = v": (lambda: [0, 2], (2, 4)),
    "y[:, [3, 0]] = v": (lambda: (slice(None), [3, 0]), (3, 2)),
    "y[mask] = v": (lambda: nbgrad.tensor(values((3, 4), 53) > 0), ()),
    "y[..., 1] = v (broadcast)": (lambda: (Ellipsis, 1), (1,)),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("case", sorted(SETITEM))
def test_setitem(case, layout):
    index_fn, value_shape = SETITEM[case]
    x = make((3, 4), seed=54, layout=layout)
    v = make(value_shape, seed=55)

    def fn(a, b):
        y = a * 1
        y[index_fn()] = b
        return y

    check(fn, x, v)

    def fn_clone(a, b):
        y = a.clone()
        y[index_fn()] = b * 2
        return y.exp()

    check(fn_clone, x, v)


def test_setitem_scalar_value():
    x = make((3, 4), seed=56)

    def fn(a):
        y = a * 2
        y[1, :2] = 0.0
        y[[2, 0], [3, 3]] = 7.0
        return y

    check(fn, x)


# ---------------------------------------------------------------- hypothesis: broadcasting binary ops

@settings(max_examples=15, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       op=st.sampled_from(["add", "sub", "mul", "div"]),
       layout=st.sampled_from(LAYOUTS))
def test_binary_broadcasting_random_shapes(shapes, op, layout):
    fn, da, db = BINARY[op]
    a = make(shapes.input_shapes[0], seed=57, domain=da, layout=layout)
    b = make(shapes.input_shapes[1], seed=58, domain=db)
    check(fn, a, b)


# ---------------------------------------------------------------- kinks and ties

def grad_of(fn, data):
    x = nbgrad.tensor(data, dtype=nbgrad.float64, requires_grad=True)
    fn(x).backward()
    return x.grad.numpy()


def test_relu_gradient_at_zero_is_zero():
    np.testing.assert_array_equal(grad_of(lambda x: x.relu().sum(), [-1.0, 0.0, 2.0]), [0.0, 0.0, 1.0])


def test_abs_gradient_at_zero_is_zero():
    np.testing.assert_array_equal(grad_of(lambda x: x.abs().sum(), [-1.0, 0.0, 2.0]), [-1.0, 0.0, 1.0])


def test_clamp_passes_gradient_at_bounds():
    data = [-1.0, 0.0, 0.5, 1.0, 2.0]
    np.testing.assert_array_equal(grad_of(lambda x: x.clamp(0.0, 1.0).sum(), data),
                                  [0.0, 1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(grad_of(lambda x: x.clamp(min=0.0).sum(), data),
                                  [0.0, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(grad_of(lambda x: x.clamp(max=1.0).sum(), data),
                                  [1.0, 1.0, 1.0, 1.0, 0.0])


def test_full_max_splits_gradient_among_ties():
    np.testing.assert_allclose(grad_of(lambda x: x.max(), [1.0, 3.0, 3.0, 2.0]), [0.0, 0.5, 0.5, 0.0])
    np.testing.assert_allclose(grad_of(lambda x: x.max(), [3.0, 3.0, 3.0]), [1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(grad_of(lambda x: x.min(), [[0.0, 2.0], [0.0, 0.0]]),
                               [[1 / 3, 0.0], [1 / 3, 1 / 3]])
    np.testing.assert_allclose(grad_of(lambda x: x.max() * 6, [[5.0, 1.0], [5.0, 2.0]]),
                               [[3.0, 0.0], [3.0, 0.0]])


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_max_dim_sends_gradient_to_returned_index(reduce):
    data = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [0.0, 0.0, 0.0], [4.0, 1.0, 4.0]])
    if reduce == "min":
        data = -data
    x = nbgrad.tensor(data, dtype=nbgrad.float64, requires_grad=True)
    values_, indices = getattr(x, reduce)(dim=1)
    values_.sum().backward()
    idx = indices.numpy()
    expected = np.zeros_like(data)
    expected[np.arange(4), idx] = 1.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    np.testing.assert_array_equal(data[np.arange(4), idx], values_.detach().numpy())
    assert (x.grad.numpy().sum(axis=1) == 1.0).all()


def test_max_dim_keepdim_gradient():
    data = np.array([[1.0, 5.0], [7.0, 2.0]])
    x = nbgrad.tensor(data, dtype=nbgrad.float64, requires_grad=True)
    out = x.max(dim=0, keepdim=True)
    out.values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 1.0], [1.0, 0.0]])


def test_maximum_ties_split_gradient():
    a = nbgrad.tensor([1.0, 2.0, 3.0], dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.tensor([1.0, 0.0, 5.0], dtype=nbgrad.float64, requires_grad=True)
    nbgrad.maximum(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 1.0, 0.0])
    np.testing.assert_allclose(b.grad.numpy(), [0.5, 0.0, 1.0])


def test_norm_gradient_at_zero_is_zero():
    np.testing.assert_array_equal(grad_of(lambda x: x.norm(), [0.0, 0.0, 0.0]), [0.0, 0.0, 0.0])


def test_masked_and_unselected_branches_get_zero():
    np.testing.assert_array_equal(
        grad_of(lambda x: x.masked_fill(x > 1.0, 0.0).sum(), [0.5, 2.0, 1.0]), [1.0, 0.0, 1.0])
