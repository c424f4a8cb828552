"""Gradients (first and second order) that must equal PyTorch 2.13's.

Expected values were recorded by running PyTorch 2.13; float64 finite differences
(gradcheck / gradgradcheck) cover the rest."""
import math

import numpy as np
import pytest

import nbgrad
from nbgrad import autograd
from nbgrad.autograd.gradcheck import gradcheck, gradgradcheck


def f64(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return nbgrad.tensor(rng.standard_normal(shape), dtype=nbgrad.float64, requires_grad=True)


def grad_of(x):
    return x.grad.tolist()


# -- 1. windowing views of an input that overlaps itself (expanded, 0 strides) -----------
# Their backward works in the input's logical index space, not in storage.

def test_narrow_of_expanded_counts_each_element_once():
    x = nbgrad.tensor([[[1.]]], requires_grad=True)
    x.expand(1, 4, 1, -1).narrow(2, 0, 1).sum().backward()
    assert grad_of(x) == [[[4.0]]]          # PyTorch: 4 (was 16)


@pytest.mark.parametrize("view, expected", [
    (lambda y: y.select(1, 0), [[[1.0]]]),
    (lambda y: y[:, 1:3], [[[2.0]]]),
    (lambda y: y[0, ::2, 0], [[[2.0]]]),
    (lambda y: y.narrow(1, 1, 3).narrow(1, 0, 2), [[[2.0]]]),
    (lambda y: y.split(3, dim=1)[0], [[[3.0]]]),
    (lambda y: y.chunk(2, dim=1)[1], [[[2.0]]]),
    (lambda y: y.unbind(1)[2], [[[1.0]]]),
    (lambda y: y.tensor_split(3, dim=1)[0], [[[2.0]]]),
])
def test_windows_of_expanded(view, expected):
    x = nbgrad.tensor([[[1.]]], requires_grad=True)
    view(x.expand(1, 4, 1, -1)).sum().backward()
    assert grad_of(x) == expected


def test_squared_windows_of_expanded():
    # the repro's shape of program: expand, window, square, sum(dim), cat
    x = nbgrad.tensor([[[2.]]], requires_grad=True)
    y = x.expand(1, 4, 1, 3)
    a = y.narrow(1, 0, 2) ** 2
    b = y.select(3, 1) ** 2
    out = nbgrad.cat([a.sum(dim=1).reshape(-1), b.reshape(-1)]).sum()
    out.backward()
    # d/dx (6 x^2 + 4 x^2) = 20 x
    assert grad_of(x) == [[[40.0]]]


def test_diagonal_and_unbind_of_expanded():
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    y = x.expand(3, 2)
    assert autograd.grad(y.diagonal().sum(), x)[0].tolist() == [1.0, 1.0]
    a, b, c = y.unbind(0)
    assert autograd.grad((a * 1 + b * 2).sum(), x)[0].tolist() == [3.0, 3.0]


def test_as_strided_of_expanded_shares_storage_gradient():
    # PyTorch's as_strided_backward divides by how many input elements share a location
    x = nbgrad.tensor([1., 2.], requires_grad=True)
    y = x.expand(3, 2)
    assert autograd.grad(y.as_strided((2,), (1,)).sum(), x)[0].tolist() == [1.0, 1.0]


def test_windows_of_expanded_gradcheck_first_and_second_order():
    x = f64(2, 1, 3)
    fns = [
        lambda t: (t.expand(2, 4, 3).narrow(1, 1, 2) ** 2).sum(dim=1),
        lambda t: t.expand(2, 4, 3)[:, ::2, 1:] ** 3,
        lambda t: t.expand(3, 2, 4, 3).diagonal(0, 1, 2) ** 2,
        lambda t: nbgrad.stack([u ** 2 for u in t.expand(2, 3, 3).unbind(1)]),
        lambda t: t.expand(2, 2, 3).transpose(0, 1).select(0, 1) ** 2,
    ]
    for fn in fns:
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_inplace_on_window_of_a_view_chain():
    # CopySlices on a base written through a narrowed view of an expanded tensor's row
    x = nbgrad.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    z = y.expand(2, 3)[0]                   # a 1-D window, no internal overlap
    z[1:].mul_(2)
    y.sum().backward()
    assert grad_of(x) == [1.0, 2.0, 2.0]
