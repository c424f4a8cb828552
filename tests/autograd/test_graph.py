"""The autograd graph: requires_grad, leaves, grad_fn names, next_functions,
AccumulateGrad nodes and custom Functions, as PyTorch defines them."""
import re

import numpy as np
import pytest

import nbgrad


def leaf(shape=(3, 4), low=0.5, high=1.5, seed=0):
    """A float64 leaf that requires grad, with values in [low, high)."""
    rng = np.random.RandomState(seed)
    return nbgrad.tensor(rng.uniform(low, high, size=shape), dtype=nbgrad.float64,
                         requires_grad=True)


def plain(shape=(3, 4), seed=1):
    rng = np.random.RandomState(seed)
    return nbgrad.tensor(rng.uniform(0.5, 1.5, size=shape), dtype=nbgrad.float64)


FLOAT_ONLY = re.compile(r"only Tensors of floating point", re.IGNORECASE)


# ---------------------------------------------------------------- requires_grad

def test_requires_grad_defaults_to_false():
    t = nbgrad.ones(2, 3)
    assert t.requires_grad is False
    assert t.grad is None
    assert t.grad_fn is None
    assert t.is_leaf is True


def test_requires_grad_constructor_argument():
    assert nbgrad.ones(2, requires_grad=True).requires_grad is True
    assert nbgrad.zeros(2, requires_grad=True).requires_grad is True
    assert nbgrad.tensor([1.0, 2.0], requires_grad=True).requires_grad is True
    assert nbgrad.tensor([1.0, 2.0], requires_grad=False).requires_grad is False
    assert nbgrad.randn(2, 2, requires_grad=True).requires_grad is True
    assert nbgrad.full((2,), 3.0, requires_grad=True).requires_grad is True


def test_requires_grad_attribute_set_and_clear():
    t = nbgrad.ones(3)
    t.requires_grad = True
    assert t.requires_grad is True
    assert (t * 2).requires_grad is True
    t.requires_grad = False
    assert t.requires_grad is False
    assert (t * 2).requires_grad is False


def test_requires_grad_method_returns_self():
    t = nbgrad.ones(3)
    out = t.requires_grad_()
    assert out is t
    assert t.requires_grad is True
    assert t.requires_grad_(False) is t
    assert t.requires_grad is False


@pytest.mark.parametrize("dtype_name", ["int32", "int64", "bool"])
def test_integer_and_bool_cannot_require_grad(dtype_name):
    dtype = getattr(nbgrad, dtype_name)
    with pytest.raises(RuntimeError, match=FLOAT_ONLY):
        nbgrad.ones(2, dtype=dtype, requires_grad=True)
    with pytest.raises(RuntimeError, match=FLOAT_ONLY):
        nbgrad.ones(2, dtype=dtype).requires_grad_()
    t = nbgrad.ones(2, dtype=dtype)
    with pytest.raises(RuntimeError, match=FLOAT_ONLY):
        t.requires_grad = True
    assert t.requires_grad is False


def test_integer_tensor_from_list_cannot_require_grad():
    with pytest.raises(RuntimeError, match=FLOAT_ONLY):
        nbgrad.tensor([1, 2, 3], requires_grad=True)


def test_requires_grad_false_on_int_is_fine():
    t = nbgrad.ones(2, dtype=nbgrad.int64).requires_grad_(False)
    assert t.requires_grad is False


def test_propagation_through_ops():
    x = leaf()
    c = plain()
    assert (x + c).requires_grad is True
    assert (c + x).requires_grad is True
    assert (c * c).requires_grad is False
    assert (c * c).grad_fn is None
    assert x.exp().sum().requires_grad is True
    assert x[0].requires_grad is True
    assert x.t().requires_grad is True
    assert nbgrad.cat([c, x]).requires_grad is True
    assert nbgrad.stack([c, c]).requires_grad is False


def test_float32_and_float64_can_require_grad():
    assert nbgrad.ones(2, dtype=nbgrad.float32, requires_grad=True).requires_grad
    assert nbgrad.ones(2, dtype=nbgrad.float64, requires_grad=True).requires_grad


def test_comparison_and_argmax_results_do_not_require_grad():
    x = leaf()
    assert (x > 1).requires_grad is False
    assert (x > 1).grad_fn is None
    assert x.argmax().requires_grad is False
    assert x.max(dim=1).indices.requires_grad is False
    assert x.max(dim=1).values.requires_grad is True


# ---------------------------------------------------------------- is_leaf / grad_fn

def test_is_leaf():
    x = leaf()
    c = plain()
    assert x.is_leaf is True
    assert c.is_leaf is True
    y = x * 2
    assert y.is_leaf is False
    # results computed from tensors that do not require grad are leaves
    assert (c * 2).is_leaf is True
    # detach() makes a leaf
    assert y.detach().is_leaf is True
    assert y.detach().requires_grad is False
    # a view of a leaf that requires grad is not a leaf
    assert x[0].is_leaf is False


def test_grad_fn_none_for_leaves_and_no_grad_results():
    x = leaf()
    assert x.grad_fn is None
    with nbgrad.no_grad():
        y = x * 2
    assert y.grad_fn is None
    assert y.requires_grad is False
    assert y.is_leaf is True


def test_results_computed_without_grad_are_not_tracked_afterwards():
    x = leaf()
    with nbgrad.no_grad():
        y = x * 2
    z = y * x
    assert z.requires_grad is True
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.numpy())


def _grad_fn_cases():
    """(label, function of (x, y, m, v, b3, c) building the result, PyTorch's node name)."""
    lt = nbgrad.tensor
    return [
        ("x+y", lambda x, y, m, v, b, c: x + y, "AddBackward0"),
        ("x+2", lambda x, y, m, v, b, c: x + 2, "AddBackward0"),
        ("2+x", lambda x, y, m, v, b, c: 2 + x, "AddBackward0"),
        ("x.add(y)", lambda x, y, m, v, b, c: x.add(y), "AddBackward0"),
        ("x-y", lambda x, y, m, v, b, c: x - y, "SubBackward0"),
        ("x-2", lambda x, y, m, v, b, c: x - 2, "SubBackward0"),
        ("2-x", lambda x, y, m, v, b, c: 2 - x, "RsubBackward1"),
        ("x*y", lambda x, y, m, v, b, c: x * y, "MulBackward0"),
        ("x*2", lambda x, y, m, v, b, c: x * 2, "MulBackward0"),
        ("2*x", lambda x, y, m, v, b, c: 2 * x, "MulBackward0"),
        ("x/y", lambda x, y, m, v, b, c: x / y, "DivBackward0"),
        ("x/2", lambda x, y, m, v, b, c: x / 2, "DivBackward0"),
        ("-x", lambda x, y, m, v, b, c: -x, "NegBackward0"),
        ("x**2", lambda x, y, m, v, b, c: x ** 2, "PowBackward0"),
        ("x**2.5", lambda x, y, m, v, b, c: x ** 2.5, "PowBackward0"),
        ("x**y", lambda x, y, m, v, b, c: x ** y, "PowBackward1"),
        ("2**x", lambda x, y, m, v, b, c: 2 ** x, "PowBackward2"),
        ("exp", lambda x, y, m, v, b, c: x.exp(), "ExpBackward0"),
        ("nbgrad.exp", lambda x, y, m, v, b, c: nbgrad.exp(x), "ExpBackward0"),
        ("log", lambda x, y, m, v, b, c: x.log(), "LogBackward0"),
        ("tanh", lambda x, y, m, v, b, c: x.tanh(), "TanhBackward0"),
        ("sigmoid", lambda x, y, m, v, b, c: x.sigmoid(), "SigmoidBackward0"),
        ("nbgrad.sigmoid", lambda x, y, m, v, b, c: nbgrad.sigmoid(x), "SigmoidBackward0"),
        ("relu", lambda x, y, m, v, b, c: x.relu(), "ReluBackward0"),
        ("nbgrad.relu", lambda x, y, m, v, b, c: nbgrad.relu(x), "ReluBackward0"),
        ("abs", lambda x, y, m, v, b, c: x.abs(), "AbsBackward0"),
        ("sqrt", lambda x, y, m, v, b, c: x.sqrt(), "SqrtBackward0"),
        ("rsqrt", lambda x, y, m, v, b, c: x.rsqrt(), "RsqrtBackward0"),
        ("sin", lambda x, y, m, v, b, c: x.sin(), "SinBackward0"),
        ("cos", lambda x, y, m, v, b, c: x.cos(), "CosBackward0"),
        ("log1p", lambda x, y, m, v, b, c: x.log1p(), "Log1PBackward0"),
        ("expm1", lambda x, y, m, v, b, c: x.expm1(), "Expm1Backward0"),
        ("reciprocal", lambda x, y, m, v, b, c: x.reciprocal(), "ReciprocalBackward0"),
        ("sign", lambda x, y, m, v, b, c: x.sign(), "SignBackward0"),
        ("floor", lambda x, y, m, v, b, c: x.floor(), "FloorBackward0"),
        ("ceil", lambda x, y, m, v, b, c: x.ceil(), "CeilBackward0"),
        ("round", lambda x, y, m, v, b, c: x.round(), "RoundBackward0"),
        ("clamp", lambda x, y, m, v, b, c: x.clamp(0.8, 1.2), "ClampBackward1"),
        ("clamp(min=)", lambda x, y, m, v, b, c: x.clamp(min=0.8), "ClampBackward1"),
        ("maximum", lambda x, y, m, v, b, c: nbgrad.maximum(x, y), "MaximumBackward0"),
        ("minimum", lambda x, y, m, v, b, c: nbgrad.minimum(x, y), "MinimumBackward0"),
        ("where", lambda x, y, m, v, b, c: nbgrad.where(c > 1, x, y), "WhereBackward0"),
        ("masked_fill", lambda x, y, m, v, b, c: x.masked_fill(c > 1, 0.0), "MaskedFillBackward0"),
        ("sum()", lambda x, y, m, v, b, c: x.sum(), "SumBackward0"),
        ("sum(1)", lambda x, y, m, v, b, c: x.sum(1), "SumBackward1"),
        ("sum(dim=(0,1))", lambda x, y, m, v, b, c: x.sum(dim=(0, 1)), "SumBackward1"),
        ("sum(0, keepdim)", lambda x, y, m, v, b, c: x.sum(0, keepdim=True), "SumBackward1"),
        ("mean()", lambda x, y, m, v, b, c: x.mean(), "MeanBackward0"),
        ("mean(1)", lambda x, y, m, v, b, c: x.mean(1), "MeanBackward1"),
        ("prod()", lambda x, y, m, v, b, c: x.prod(), "ProdBackward0"),
        ("prod(1)", lambda x, y, m, v, b, c: x.prod(1), "ProdBackward1"),
        ("max()", lambda x, y, m, v, b, c: x.max(), "MaxBackward1"),
        ("max(1)", lambda x, y, m, v, b, c: x.max(1)[0], "MaxBackward0"),
        ("max(dim=1).values", lambda x, y, m, v, b, c: x.max(dim=1).values, "MaxBackward0"),
        ("min()", lambda x, y, m, v, b, c: x.min(), "MinBackward1"),
        ("min(1)", lambda x, y, m, v, b, c: x.min(1).values, "MinBackward0"),
        ("var()", lambda x, y, m, v, b, c: x.var(), "VarBackward0"),
        ("var(1)", lambda x, y, m, v, b, c: x.var(1), "VarBackward0"),
        ("std()", lambda x, y, m, v, b, c: x.std(), "StdBackward0"),
        ("std(1)", lambda x, y, m, v, b, c: x.std(1), "StdBackward0"),
        ("logsumexp", lambda x, y, m, v, b, c: x.logsumexp(1), "LogsumexpBackward0"),
        ("norm()", lambda x, y, m, v, b, c: x.norm(), "LinalgVectorNormBackward0"),
        ("norm(dim=1)", lambda x, y, m, v, b, c: x.norm(dim=1), "LinalgVectorNormBackward0"),
        ("softmax", lambda x, y, m, v, b, c: x.softmax(1), "SoftmaxBackward0"),
        ("log_softmax", lambda x, y, m, v, b, c: x.log_softmax(1), "LogSoftmaxBackward0"),
        ("clone", lambda x, y, m, v, b, c: x.clone(), "CloneBackward0"),
        ("contiguous", lambda x, y, m, v, b, c: x.t().contiguous(), "CloneBackward0"),
        ("view", lambda x, y, m, v, b, c: x.view(12), "ViewBackward0"),
        ("view_as", lambda x, y, m, v, b, c: x.view_as(y), "ViewBackward0"),
        ("reshape (view)", lambda x, y, m, v, b, c: x.reshape(4, 3), "ViewBackward0"),
        ("flatten", lambda x, y, m, v, b, c: x.flatten(), "ViewBackward0"),
        ("unflatten", lambda x, y, m, v, b, c: x.unflatten(1, (2, 2)), "ViewBackward0"),
        ("unsqueeze", lambda x, y, m, v, b, c: x.unsqueeze(0), "UnsqueezeBackward0"),
        ("x[None]", lambda x, y, m, v, b, c: x[None], "UnsqueezeBackward0"),
        ("squeeze()", lambda x, y, m, v, b, c: x.unsqueeze(0).squeeze(), "SqueezeBackward0"),
        ("squeeze(0)", lambda x, y, m, v, b, c: x.unsqueeze(0).squeeze(0), "SqueezeBackward1"),
        ("expand", lambda x, y, m, v, b, c: v.expand(3, 4), "ExpandBackward0"),
        ("expand_as", lambda x, y, m, v, b, c: v.expand_as(x), "ExpandBackward0"),
        ("permute", lambda x, y, m, v, b, c: b.permute(2, 0, 1), "PermuteBackward0"),
        ("T", lambda x, y, m, v, b, c: x.T, "PermuteBackward0"),
        ("transpose", lambda x, y, m, v, b, c: x.transpose(0, 1), "TransposeBackward0"),
        ("mT", lambda x, y, m, v, b, c: b.mT, "TransposeBackward0"),
        ("t", lambda x, y, m, v, b, c: x.t(), "TBackward0"),
        ("x[0]", lambda x, y, m, v, b, c: x[0], "SelectBackward0"),
        ("select", lambda x, y, m, v, b, c: x.select(1, 2), "SelectBackward0"),
        ("x[..., 0]", lambda x, y, m, v, b, c: x[..., 0], "SelectBackward0"),
        ("x[1:]", lambda x, y, m, v, b, c: x[1:], "SliceBackward0"),
        ("x[:, ::2]", lambda x, y, m, v, b, c: x[:, ::2], "SliceBackward0"),
        ("narrow", lambda x, y, m, v, b, c: x.narrow(1, 1, 2), "SliceBackward0"),
        ("unbind", lambda x, y, m, v, b, c: x.unbind(0)[1], "UnbindBackward0"),
        ("split", lambda x, y, m, v, b, c: x.split(2, 1)[0], "SplitBackward0"),
        ("chunk", lambda x, y, m, v, b, c: x.chunk(2, 1)[1], "SplitBackward0"),
        ("diagonal", lambda x, y, m, v, b, c: x.diagonal(), "DiagonalBackward0"),
        ("as_strided", lambda x, y, m, v, b, c: x.as_strided((2, 2), (1, 1)), "AsStridedBackward0"),
        ("x[[0, 2]]", lambda x, y, m, v, b, c: x[[0, 2]], "IndexBackward0"),
        ("x[tensor]", lambda x, y, m, v, b, c: x[lt([0, 2])], "IndexBackward0"),
        ("x[mask]", lambda x, y, m, v, b, c: x[c > 1], "IndexBackward0"),
        ("x[:, [0, 1]]", lambda x, y, m, v, b, c: x[:, [0, 1]], "IndexBackward0"),
        ("index_select", lambda x, y, m, v, b, c: x.index_select(1, lt([0, 2])), "IndexSelectBackward0"),
        ("gather", lambda x, y, m, v, b, c: x.gather(1, lt([[0], [1], [2]])), "GatherBackward0"),
        ("scatter", lambda x, y, m, v, b, c: x.scatter(1, lt([[0], [1], [2]]), y), "ScatterBackward0"),
        ("scatter_add", lambda x, y, m, v, b, c: x.scatter_add(1, lt([[0], [1], [2]]), y),
         "ScatterAddBackward0"),
        ("cat", lambda x, y, m, v, b, c: nbgrad.cat([x, y]), "CatBackward0"),
        ("stack", lambda x, y, m, v, b, c: nbgrad.stack([x, y]), "StackBackward0"),
        ("mm", lambda x, y, m, v, b, c: x.mm(m), "MmBackward0"),
        ("x @ m", lambda x, y, m, v, b, c: x @ m, "MmBackward0"),
        ("matmul 2d", lambda x, y, m, v, b, c: nbgrad.matmul(x, m), "MmBackward0"),
        ("v @ v", lambda x, y, m, v, b, c: v @ v, "DotBackward0"),
        ("dot", lambda x, y, m, v, b, c: v.dot(v), "DotBackward0"),
        ("x @ v", lambda x, y, m, v, b, c: x @ v, "MvBackward0"),
        ("bmm", lambda x, y, m, v, b, c: nbgrad.bmm(b, b.transpose(1, 2)), "BmmBackward0"),
        ("outer", lambda x, y, m, v, b, c: nbgrad.outer(v, v), "MulBackward0"),
    ]


_CASES = _grad_fn_cases()


@pytest.mark.parametrize("label,build,name", _CASES, ids=[c[0] for c in _CASES])
def test_grad_fn_names(label, build, name):
    x = leaf((3, 4), seed=0)
    y = leaf((3, 4), seed=1)
    m = leaf((4, 5), seed=2)
    v = leaf((4,), seed=3)
    b = leaf((2, 3, 4), seed=4)
    c = plain((3, 4), seed=5)
    out = build(x, y, m, v, b, c)
    assert out.requires_grad is True
    assert out.is_leaf is False
    assert type(out.grad_fn).__name__ == name
    assert out.grad_fn.name() == name


def test_grad_fn_name_for_chained_sub():
    x = leaf()
    y = (x * 1 + 2) - 3
    assert type(y.grad_fn).__name__ == "SubBackward0"
    assert y.grad_fn.name() == "SubBackward0"
    add = y.grad_fn.next_functions[0][0]
    assert add.name() == "AddBackward0"
    mul = add.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    acc = mul.next_functions[0][0]
    # torch 2.13: the C++ node's name() has its namespace, its repr the class name
    assert acc.name() == "torch::autograd::AccumulateGrad" and type(acc).__name__ == "AccumulateGrad"
    assert repr(acc).startswith("<AccumulateGrad object at 0x")


# ---------------------------------------------------------------- next_functions / AccumulateGrad

def test_next_functions_is_tuple_of_pairs():
    x = leaf()
    c = plain()
    nf = (x * c).grad_fn.next_functions
    assert isinstance(nf, tuple)
    assert len(nf) == 2
    for pair in nf:
        assert isinstance(pair, tuple)
        assert len(pair) == 2
        assert pair[1] == 0
    assert type(nf[0][0]).__name__ == "AccumulateGrad"
    assert nf[1][0] is None


def test_next_functions_order_follows_inputs():
    x = leaf()
    c = plain()
    nf = (c * x).grad_fn.next_functions
    assert nf[0][0] is None
    assert type(nf[1][0]).__name__ == "AccumulateGrad"
    assert nf[1][0].variable is x


def test_next_functions_links_to_producer_node():
    x = leaf()
    y = x * 2
    z = y * x
    nf = z.grad_fn.next_functions
    assert nf[0][0] is y.grad_fn
    assert type(nf[1][0]).__name__ == "AccumulateGrad"
    assert nf[1][0].variable is x


def test_next_functions_of_unary_and_reduction():
    x = leaf()
    s = x.exp().sum()
    (exp_node, idx), = s.grad_fn.next_functions
    assert idx == 0
    assert exp_node.name() == "ExpBackward0"
    (acc, idx), = exp_node.next_functions
    assert idx == 0
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.variable is x


def test_next_functions_of_cat_with_repeated_input():
    x = leaf()
    c = plain()
    nf = nbgrad.cat([x, c, x]).grad_fn.next_functions
    assert len(nf) == 3
    assert nf[1] == (None, 0)
    assert nf[0][0] is nf[2][0]
    assert nf[0][0].variable is x


def test_accumulate_grad_node_is_shared_while_leaf_lives():
    x = leaf()
    y1 = x * 2
    y2 = x.exp()
    y3 = x + 1
    acc1 = y1.grad_fn.next_functions[0][0]
    acc2 = y2.grad_fn.next_functions[0][0]
    acc3 = y3.grad_fn.next_functions[0][0]
    assert acc1 is acc2
    assert acc2 is acc3
    assert acc1.variable is x
    assert acc1.next_functions == ()


def test_accumulate_grad_nodes_differ_per_leaf():
    a = leaf(seed=0)
    b = leaf(seed=1)
    nf = (a * b).grad_fn.next_functions
    assert nf[0][0] is not nf[1][0]
    assert nf[0][0].variable is a
    assert nf[1][0].variable is b


def test_leaf_not_requiring_grad_has_no_node():
    c = plain()
    x = leaf()
    nf = (c + x).grad_fn.next_functions
    assert nf[0] == (None, 0)


# ---------------------------------------------------------------- custom Function

class MulExp(nbgrad.autograd.Function):
    """f(a, b) = exp(a) * b, with a hand-written backward."""

    calls = []

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.exp() * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        MulExp.calls.append(tuple(ctx.needs_input_grad))
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = grad * a.exp() * b
        if ctx.needs_input_grad[1]:
            grad_b = grad * a.exp()
        return grad_a, grad_b


def test_custom_function_forward_value_and_node_name():
    a = leaf((3,), seed=0)
    b = leaf((3,), seed=1)
    out = MulExp.apply(a, b)
    np.testing.assert_allclose(out.detach().numpy(),
                               np.exp(a.detach().numpy()) * b.detach().numpy())
    assert out.requires_grad is True
    assert out.is_leaf is False
    assert type(out.grad_fn).__name__ == "MulExpBackward"
    assert out.grad_fn.name() == "MulExpBackward"
    nf = out.grad_fn.next_functions
    assert nf[0][0].variable is a
    assert nf[1][0].variable is b


def test_custom_function_backward_and_saved_tensors():
    a = leaf((3,), seed=0)
    b = leaf((3,), seed=1)
    MulExp.calls.clear()
    MulExp.apply(a, b).sum().backward()
    an, bn = a.detach().numpy(), b.detach().numpy()
    np.testing.assert_allclose(a.grad.numpy(), np.exp(an) * bn)
    np.testing.assert_allclose(b.grad.numpy(), np.exp(an))
    assert MulExp.calls == [(True, True)]


def test_custom_function_needs_input_grad():
    a = leaf((3,), seed=0)
    c = plain((3,), seed=1)
    MulExp.calls.clear()
    out = MulExp.apply(a, c)
    assert out.grad_fn.next_functions[1] == (None, 0)
    out.sum().backward()
    assert MulExp.calls == [(True, False)]
    assert c.grad is None
    np.testing.assert_allclose(a.grad.numpy(), np.exp(a.detach().numpy()) * c.numpy())


def test_custom_function_without_grad_inputs_is_not_tracked():
    c = plain((3,), seed=0)
    out = MulExp.apply(c, c)
    assert out.requires_grad is False
    assert out.grad_fn is None


def test_custom_function_under_no_grad_is_not_tracked():
    a = leaf((3,), seed=0)
    with nbgrad.no_grad():
        out = MulExp.apply(a, a)
    assert out.requires_grad is False
    assert out.grad_fn is None


def test_custom_function_composes_with_builtin_ops():
    a = leaf((3,), seed=0)
    b = leaf((3,), seed=1)
    out = (MulExp.apply(a * 2, b) ** 2).sum()
    out.backward()
    an, bn = a.detach().numpy(), b.detach().numpy()
    f = np.exp(2 * an) * bn
    np.testing.assert_allclose(a.grad.numpy(), 2 * f * f * 2)
    np.testing.assert_allclose(b.grad.numpy(), 2 * f * np.exp(2 * an))


class ScaleWithNonTensorArg(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


def test_custom_function_with_non_tensor_argument():
    x = leaf((4,), seed=0)
    out = ScaleWithNonTensorArg.apply(x, 3.0)
    assert out.grad_fn.name() == "ScaleWithNonTensorArgBackward"
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 3.0))


class TwoOutputs(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2, x * x

    @staticmethod
    def backward(ctx, g1, g2):
        (x,) = ctx.saved_tensors
        return g1 * 2 + g2 * 2 * x


def test_custom_function_with_two_outputs():
    x = leaf((3,), seed=0)
    p, q = TwoOutputs.apply(x)
    assert p.grad_fn is q.grad_fn
    (p.sum() + q.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 + 2 * x.detach().numpy())
