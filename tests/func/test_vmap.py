"""nbgrad.func.vmap: in_dims/out_dims over nested structures, nested vmap, composition with
the grad transforms (per-sample gradients), randomness modes, PyTorch's errors."""
import os
import re

import numpy as np
import pytest

import nbgrad

from ._helpers import T, close

fn = nbgrad.func
UNDER_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
M = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_in_dims_and_out_dims():
    m = T(M)
    close(fn.vmap(lambda a: a * 2 + a.sum())(m), 2 * np.array(M) + np.array(M).sum(1, keepdims=True))
    close(fn.vmap(lambda a, b: a @ b, in_dims=(1, None))(m, T([1.0, 2.0, 3.0])), np.array(M).T @ [1.0, 2.0, 3.0])
    close(fn.vmap(lambda a: a * 2, out_dims=1)(m), 2 * np.array(M).T)
    close(fn.vmap(lambda a: a.sum(), in_dims=-1)(m), np.array(M).sum(0))
    close(fn.vmap(lambda a: a * 2, chunk_size=2)(m), 2 * np.array(M))


def test_pytrees_of_inputs_and_outputs():
    a, b = T([[1.0, 2.0], [3.0, 4.0]]), T([10.0, 20.0])
    out = fn.vmap(lambda d: {"s": d["a"] + d["b"]}, in_dims=({"a": 0, "b": None},))({"a": a, "b": b})
    assert isinstance(out, dict)
    close(out, {"s": [[11.0, 22.0], [13.0, 24.0]]})
    out = fn.vmap(lambda pair: pair[0] * pair[1])([a, T([3.0, 4.0])])
    close(out, [[3.0, 6.0], [12.0, 16.0]])
    out = fn.vmap(lambda x: (x * 2, [x.sum()]), out_dims=(1, [0]))(a)
    assert isinstance(out, tuple) and isinstance(out[1], list)
    close(out, ([[2.0, 6.0], [4.0, 8.0]], [[3.0, 7.0]]))
    # out_dims None for an output that does not depend on the mapped inputs: returned once
    out = fn.vmap(lambda x: (x * 2, T([1.0, 2.0])), out_dims=(0, None))(a)
    close(out[1], [1.0, 2.0])
    # a non-tensor argument with in_dim None passes through
    close(fn.vmap(lambda x, k: x * k, in_dims=(0, None))(a, 3.0), 3 * a.numpy())


def test_nested_vmap():
    a, b = T([[1.0, 2.0], [3.0, 4.0]]), T([5.0, 6.0])
    close(fn.vmap(fn.vmap(lambda x, y: x * y), in_dims=(0, None))(a, b), a.numpy() * b.numpy())
    outer = fn.vmap(fn.vmap(lambda x, y: x * y, in_dims=(None, 0)), in_dims=(0, None))(T([1.0, 2.0, 3.0]), b)
    close(outer, np.outer([1.0, 2.0, 3.0], [5.0, 6.0]))


def test_autograd_through_vmap_and_grad_of_vmap():
    a = T([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = fn.vmap(lambda r: (r ** 2).sum())(a)
    assert out.requires_grad
    out.sum().backward()
    close(a.grad, 2 * a.detach().numpy())
    g = fn.grad(lambda x: fn.vmap(lambda r: r.sin().sum())(x).sum())(T([[1.0, 2.0], [3.0, 4.0]]))
    close(g, np.cos([[1.0, 2.0], [3.0, 4.0]]))


def test_vmap_of_jacrev():
    x = T([[1.0, 2.0], [3.0, 4.0]])
    j = fn.vmap(fn.jacrev(lambda a: a.sin()))(x)
    close(j, np.stack([np.diag(np.cos(r)) for r in x.numpy()]))


def _model_and_data():
    rng = np.random.RandomState(0)
    model = nbgrad.nn.Linear(3, 2).double()
    with nbgrad.no_grad():
        model.weight.copy_(T(rng.randn(2, 3)))
        model.bias.copy_(T(rng.randn(2)))
    return model, T(rng.randn(5, 3)), T(rng.randn(5, 2))


def test_per_sample_gradients_match_a_loop_of_backward_calls():
    model, x, y = _model_and_data()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        out = fn.functional_call(model, p, (xi.unsqueeze(0),))
        return nbgrad.nn.functional.mse_loss(out, yi.unsqueeze(0))

    per_sample = fn.vmap(fn.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    assert list(per_sample) == ["weight", "bias"]
    assert tuple(per_sample["weight"].shape) == (5, 2, 3) and tuple(per_sample["bias"].shape) == (5, 2)
    assert not per_sample["weight"].requires_grad
    for i in range(5):
        model.zero_grad()
        nbgrad.nn.functional.mse_loss(model(x[i:i + 1]), y[i:i + 1]).backward()
        close(per_sample["weight"][i], model.weight.grad, atol=1e-12)
        close(per_sample["bias"][i], model.bias.grad, atol=1e-12)
    # the model's own parameters were restored and untouched
    assert isinstance(model.weight, nbgrad.nn.Parameter) and model.weight.requires_grad


def test_randomness_modes():
    z = T(np.zeros((3, 4)))
    draw = lambda a: a + nbgrad.rand(4, dtype=nbgrad.float64)   # noqa: E731
    nbgrad.manual_seed(0)
    same = fn.vmap(draw, randomness="same")(z)
    assert bool((same[0] == same[1]).all()) and bool((same[1] == same[2]).all())
    # "same": each index draws what one draw outside would have drawn
    nbgrad.manual_seed(0)
    close(same[0], nbgrad.rand(4, dtype=nbgrad.float64))
    nbgrad.manual_seed(0)
    different = fn.vmap(draw, randomness="different")(z)
    assert not bool((different[0] == different[1]).all())
    state = nbgrad.get_rng_state()
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode. Please "
                                           "either use the 'same' or 'different' randomness flags on vmap or perform "
                                           "the randomness operation out of vmap"):
        fn.vmap(draw)(z)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        fn.vmap(lambda a: nbgrad.nn.functional.dropout(a, 0.5))(z)
    assert bool((nbgrad.get_rng_state() == state).all())       # the refused call left the generator as it was
    close(fn.vmap(lambda a: nbgrad.nn.functional.dropout(a, 0.5, training=False))(z), np.zeros((3, 4)))


NAME = "<lambda>"
ERRORS = [
    (lambda: fn.vmap(lambda a, b: a + b)(T([1.0, 2.0]), T([1.0, 2.0, 3.0])), ValueError,
     "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [2, 3] for the mapped "
     "dimension"),
    (lambda: fn.vmap(lambda a: a, in_dims=2)(T([1.0, 2.0])), ValueError,
     f"vmap({NAME}, in_dims=2, ...)(<inputs>): Got in_dim=2 for some input, but that input is a Tensor of "
     "dimensionality 1 so expected in_dim to satisfy -1 <= in_dim < 1."),
    (lambda: fn.vmap(lambda a: a, in_dims=[0])(T([1.0, 2.0])), ValueError,
     f"vmap({NAME}, in_dims=[0], ...)(<inputs>): expected `in_dims` to be int or a (potentially nested) tuple "
     "matching the structure of inputs, got: <class 'list'>."),
    (lambda: fn.vmap(lambda a, b: a, in_dims=(0, 0, 0))(T([1.0, 2.0]), T([1.0, 2.0])), ValueError,
     f"vmap({NAME}, in_dims=(0, 0, 0), ...)(<inputs>): in_dims is not compatible with the structure of `inputs`."),
    (lambda: fn.vmap(lambda a: a, in_dims=(0.5,))(T([1.0, 2.0])), ValueError,
     "Got in_dim=0.5 for an input but in_dim must be either an integer dimension or None."),
    (lambda: fn.vmap(lambda a, b: a)(T([1.0, 2.0]), 3), ValueError,
     "Got in_dim=0 for an input but the input is of type <class 'int'>. We cannot vmap over non-Tensor arguments, "
     "please use None as the respective in_dim"),
    (lambda: fn.vmap(lambda: 1)(), ValueError, f"vmap({NAME})(<inputs>): got no inputs. Maybe you forgot to add "
     "inputs, or you are trying to vmap over a function with no inputs. The latter is unsupported."),
    (lambda: fn.vmap(lambda a: a, in_dims=None)(T([1.0, 2.0])), ValueError,
     "expected `in_dims` to be int or a (potentially nested) tuple matching the structure of inputs, got: <class "
     "'NoneType'>."),
    (lambda: fn.vmap(lambda a: a, in_dims=(None,))(T([1.0, 2.0])), ValueError,
     "vmap: Expected at least one Tensor to vmap over"),
    (lambda: fn.vmap(lambda a: 3)(T([1.0, 2.0])), ValueError, f"vmap({NAME}, ...): `{NAME}` must only return "
     "Tensors, got type <class 'int'>. Did you mean to set out_dims= to None for output?"),
    (lambda: fn.vmap(lambda a: None)(T([1.0, 2.0])), ValueError, "must only return Tensors, got type <class "
     "'NoneType'>"),
    (lambda: fn.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(T([1.0, 2.0])), ValueError,
     f"vmap({NAME}, ..., out_dims=(0, 0, 0))(<inputs>): out_dims is not compatible with the structure of "
     "`outputs`."),
    (lambda: fn.vmap(lambda a: a, out_dims="x")(T([1.0, 2.0])), ValueError,
     f"vmap({NAME}, ..., out_dims=x): `out_dims` must be an int, None or a python collection of ints representing "
     "where in the outputs the vmapped dimension should appear."),
    (lambda: fn.vmap(lambda a: a * 2, out_dims=None)(T([1.0, 2.0])), ValueError,
     f"vmap({NAME}, ...): `{NAME}` can not return a BatchedTensor when out_dim is None"),
    (lambda: fn.vmap(lambda a: a, randomness="x"), RuntimeError,
     "Only allowed values for randomness are 'error', 'different', or 'same'. Got x"),
    (lambda: fn.vmap(lambda a: a, chunk_size=0), ValueError, "vmap: chunk_size should be None or greater than 0. "
     "(got 0)"),
    (lambda: fn.vmap(lambda a: a, out_dims=3)(T([1.0, 2.0])), IndexError, "Dimension out of range"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert message in str(info.value), str(info.value)


def test_error_names_the_function():
    def my_function(a):
        return 3
    with pytest.raises(ValueError, match=re.escape("vmap(my_function, ...): `my_function` must only return")):
        fn.vmap(my_function)(T([1.0]))


@pytest.mark.skipif(UNDER_TORCH, reason="nbgrad's loop has no index to call fn on for a mapped dimension of size 0; "
                    "PyTorch calls fn once on the empty batch")
def test_empty_mapped_dimension_refused():
    with pytest.raises(ValueError, match="size 0"):
        fn.vmap(lambda a: a * 2)(T(np.zeros((0, 3))))
