"""nbgrad.reduction: a user's scalar combine function over any dims, gradients where given."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)


def add(acc, v):
    return acc + v


def bigger(acc, v):
    return v if v > acc else acc


def logaddexp(acc, v):
    m = max(acc, v)
    if m == -math.inf:
        return m
    return m + math.log(math.exp(acc - m) + math.exp(v - m))


total = nbgrad.reduction(add, 0, grad=lambda x, out: 1.0)
largest = nbgrad.reduction(bigger, -math.inf)
lse = nbgrad.reduction(logaddexp, -math.inf, grad=lambda x, out: math.exp(x - out))


@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 2), True), (-1, True), ((2, 0), False)])
def test_values_over_dims(dim, keepdim):
    a = RNG.normal(size=(3, 4, 2))
    x = nbgrad.tensor(a)
    npdim = None if dim is None else dim
    np.testing.assert_allclose(total(x, dim, keepdim).numpy(), a.sum(axis=npdim, keepdims=keepdim), rtol=1e-12)
    np.testing.assert_array_equal(largest(x, dim, keepdim).numpy(), a.max(axis=npdim, keepdims=keepdim))
    ref = nbgrad.logsumexp(x, tuple(range(3)) if dim is None else dim, keepdim=keepdim)
    np.testing.assert_allclose(lse(x, dim, keepdim).numpy(), ref.numpy(), rtol=1e-12)


def test_dtypes_strided_and_empty():
    i = nbgrad.arange(12).reshape(3, 4)
    r = total(i.t(), 1)
    assert r.dtype is nbgrad.int64 and r.tolist() == np.arange(12).reshape(3, 4).sum(0).tolist()
    f = nbgrad.tensor(RNG.normal(size=(2, 5)).astype(np.float32))[:, ::2]
    assert total(f, 1).dtype is nbgrad.float32
    np.testing.assert_allclose(total(f, 1).numpy(), f.numpy().sum(1), rtol=1e-6)
    e = total(nbgrad.zeros(2, 0), 1)
    assert e.tolist() == [0.0, 0.0]                  # the identity, for an empty row
    assert largest(nbgrad.zeros(3, 0), 1).tolist() == [-math.inf] * 3


def test_gradients_node_and_create_graph():
    x = nbgrad.tensor(RNG.normal(size=(3, 4)), requires_grad=True)
    y = lse(x, 1)
    assert type(y.grad_fn).__name__ == "LogaddexpBackward"
    assert gradcheck(lambda t: lse(t, 1), (x,))
    assert gradcheck(lambda t: lse(t, (0, 1), True), (x,))
    assert gradgradcheck(lambda t: lse(t, 0), (x,))
    assert gradcheck(lambda t: total(t, 0), (x,))
    named = nbgrad.reduction(add, 0.0, grad=lambda x, out: 1.0, name="my_sum")
    assert type(named(x).grad_fn).__name__ == "MySumBackward"


def test_errors_name_the_reduction():
    x = nbgrad.tensor(RNG.normal(size=(2, 3)), requires_grad=True)
    y = largest(x, 1)
    with pytest.raises(RuntimeError, match="reduction 'bigger' has no gradient"):
        y.sum().backward()

    def broken(acc, v):
        if v > 100:
            raise ValueError("too big")
        return acc + v
    op = nbgrad.reduction(broken, 0.0)
    with pytest.raises(RuntimeError, match="reduction 'broken': the combine function raised ValueError"):
        op(nbgrad.tensor([1.0, 200.0]))
    with pytest.raises(RuntimeError, match="dim appears multiple times"):
        total(x, (1, -1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        total(x, 2)
    with pytest.raises(TypeError, match="must be Tensor"):
        total([1.0])
