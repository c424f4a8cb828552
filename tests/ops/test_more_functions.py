"""Issue 14's functions and methods: PyTorch's aliases, in-place comparisons and logical
ops, and composed functions (ops/more.py).  Values against NumPy, gradients against
finite differences (float64), PyTorch's node names and errors (PyTorch 2.13's
behaviour, recorded here)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck

RNG = np.random.default_rng(1414)


def leaf(a):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# -- aliases --------------------------------------------------------------------------------
def test_arc_aliases_match_numpy_and_nodes():
    a = RNG.uniform(-0.9, 0.9, (4,))
    b = RNG.uniform(0.5, 2.0, (4,))
    x, y = nbgrad.tensor(a), nbgrad.tensor(b)
    np.testing.assert_allclose(nbgrad.arccos(x).numpy(), np.arccos(a))
    np.testing.assert_allclose(x.arcsin().numpy(), np.arcsin(a))
    np.testing.assert_allclose(nbgrad.arctan(x).numpy(), np.arctan(a))
    np.testing.assert_allclose(nbgrad.arctan2(x, y).numpy(), np.arctan2(a, b))
    np.testing.assert_allclose(x.arctan2(y).numpy(), np.arctan2(a, b))
    assert nbgrad.arccos(leaf(a)).grad_fn.name() == "AcosBackward0"
    z = x.clone()
    z.arcsin_()
    np.testing.assert_allclose(z.numpy(), np.arcsin(a))
    z = x.clone()
    z.arctan2_(y)
    np.testing.assert_allclose(z.numpy(), np.arctan2(a, b))


@pytest.mark.parametrize("name,ref", [("absolute_", lambda a, b: np.abs(a)), ("negative_", lambda a, b: -a),
                                      ("divide_", np.divide), ("multiply_", np.multiply),
                                      ("subtract_", np.subtract), ("true_divide_", np.divide)])
def test_inplace_aliases(name, ref):
    a, b = RNG.standard_normal(5), RNG.uniform(1, 2, 5)
    x = nbgrad.tensor(a)
    args = () if name in ("absolute_", "negative_") else (nbgrad.tensor(b),)
    assert getattr(x, name)(*args) is x
    np.testing.assert_allclose(x.numpy(), ref(a, b))


@pytest.mark.parametrize("name,ref", [("eq_", np.equal), ("ne_", np.not_equal), ("lt_", np.less),
                                      ("le_", np.less_equal), ("gt_", np.greater), ("ge_", np.greater_equal),
                                      ("greater_", np.greater), ("less_", np.less),
                                      ("greater_equal_", np.greater_equal), ("less_equal_", np.less_equal),
                                      ("not_equal_", np.not_equal)])
def test_inplace_comparisons_keep_dtype(name, ref):
    a = RNG.integers(0, 3, 8).astype(np.float32)
    b = RNG.integers(0, 3, 8).astype(np.float32)
    x = nbgrad.tensor(a)
    assert getattr(x, name)(nbgrad.tensor(b)) is x
    assert x.dtype == nbgrad.float32
    np.testing.assert_array_equal(x.numpy(), ref(a, b).astype(np.float32))
    i = nbgrad.tensor(a.astype(np.int64))
    getattr(i, name)(1)
    assert i.dtype == nbgrad.int64
    np.testing.assert_array_equal(i.numpy(), ref(a, 1).astype(np.int64))


def test_inplace_comparison_nodes_and_zero_gradient():
    x = leaf(RNG.standard_normal(4))
    y = x * 1
    y.lt_(0.5)
    assert y.grad_fn.name() == "LtBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))
    z = x * 1
    z.eq_(x * 0.5)
    assert z.grad_fn.name() == "EqBackward1"


@pytest.mark.parametrize("name,ref", [("logical_and_", np.logical_and), ("logical_or_", np.logical_or),
                                      ("logical_xor_", np.logical_xor)])
def test_inplace_logical(name, ref):
    a = RNG.integers(0, 2, 6).astype(np.float64) * RNG.standard_normal(6)
    b = RNG.integers(0, 2, 6).astype(np.float64)
    x = nbgrad.tensor(a)
    getattr(x, name)(nbgrad.tensor(b))
    np.testing.assert_array_equal(x.numpy(), ref(a, b).astype(np.float64))


def test_bitwise_inplace():
    a, b = RNG.integers(-5, 5, 6), RNG.integers(-5, 5, 6)
    x = nbgrad.tensor(a)
    x.bitwise_xor_(nbgrad.tensor(b))
    np.testing.assert_array_equal(x.numpy(), a ^ b)
    x.bitwise_not_()
    np.testing.assert_array_equal(x.numpy(), ~(a ^ b))
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.bitwise_xor_(2.5)
    np.testing.assert_array_equal(x.numpy(), ~(a ^ b))


def test_moveaxis_ravel_flips_positive():
    a = RNG.standard_normal((2, 3, 4))
    x = nbgrad.tensor(a)
    np.testing.assert_array_equal(nbgrad.moveaxis(x, 0, 2).numpy(), np.moveaxis(a, 0, 2))
    np.testing.assert_array_equal(x.moveaxis(1, 0).numpy(), np.moveaxis(a, 1, 0))
    np.testing.assert_array_equal(nbgrad.ravel(x.transpose(0, 2)).numpy(), np.ravel(a.transpose(2, 1, 0)))
    np.testing.assert_array_equal(x.ravel().numpy(), a.ravel())
    np.testing.assert_array_equal(nbgrad.fliplr(x).numpy(), np.fliplr(a))
    np.testing.assert_array_equal(x.flipud().numpy(), np.flipud(a))
    np.testing.assert_array_equal(nbgrad.positive(x).numpy(), a)
    g = leaf(a)
    assert g.fliplr().grad_fn.name() == "FlipBackward0"
    assert g.ravel().grad_fn.name() == "ViewBackward0"
    assert gradcheck(lambda t: t.flipud().ravel(), (g,))
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        nbgrad.fliplr(nbgrad.ones(3))
    with pytest.raises(RuntimeError, match="Input must be >= 1-d."):
        nbgrad.flipud(nbgrad.tensor(1.0))
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        nbgrad.positive(nbgrad.tensor([True]))
