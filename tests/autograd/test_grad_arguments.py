"""torch.autograd.backward/grad read their arguments as PyTorch 2.13's do (recorded from it):
a dict of inputs, the gradients paired with the outputs and counted, empty inputs refused,
the deprecated grad_variables and only_inputs, materialize_grads' checks."""
import warnings

import pytest

import nbgrad


def _setup():
    x = nbgrad.ones(2, requires_grad=True)
    y = nbgrad.ones(3, requires_grad=True)
    return x, y, (x * 2).sum() + (y * 3).sum()


def test_a_dict_of_inputs_gives_a_dict_of_gradients():
    x, y, s = _setup()
    g = nbgrad.autograd.grad(s, {"a": x, "b": y}, retain_graph=True)
    assert list(g) == ["a", "b"] and g["a"].tolist() == [2.0, 2.0] and g["b"].tolist() == [3.0] * 3
    nbgrad.autograd.backward(s, inputs={"b": y})
    assert y.grad.tolist() == [3.0] * 3 and x.grad is None
    import types
    with pytest.raises(TypeError, match=r"^`inputs` argument to `grad\(\)` must be a dict, not mappingproxy\. "
                                        "Other Mapping types are not supported.$"):
        nbgrad.autograd.grad(s, types.MappingProxyType({"a": x}))


def test_empty_inputs_are_refused():
    x, y, s = _setup()
    for call, api in ((lambda: nbgrad.autograd.grad(s, [], retain_graph=True), "grad"),
                      (lambda: nbgrad.autograd.grad(s, {}, retain_graph=True), "grad"),
                      (lambda: nbgrad.autograd.backward(s, inputs=[], retain_graph=True), "backward"),
                      (lambda: s.backward(inputs=[], retain_graph=True), "backward")):
        with pytest.raises(RuntimeError, match=rf"^`inputs` argument to `{api}\(\)` cannot be empty\.$"):
            call()


def test_gradients_pair_with_outputs_and_are_counted():
    x, y, s = _setup()
    # extra gradients are dropped (PyTorch's _make_grads zips), too few refused by the engine
    nbgrad.autograd.backward([s], [nbgrad.tensor(1.0), nbgrad.tensor(1.0)], retain_graph=True)
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):
        nbgrad.autograd.backward([s, s], [nbgrad.tensor(1.0)], retain_graph=True)
    with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):     # (was computed from the first)
        nbgrad.autograd.grad([s, s], [x], [nbgrad.tensor(1.0)], retain_graph=True)
    with pytest.raises(RuntimeError, match="^got 1 tensors and 0 gradients$"):
        nbgrad.autograd.grad(s, [x.detach()], [], retain_graph=True)
    with pytest.raises(RuntimeError, match="^got 1 tensors and 0 gradients$"):
        nbgrad.autograd.backward(s, [], retain_graph=True)
    with pytest.raises(RuntimeError, match="^element 1 of tensors does not require grad and does not have a "
                                           "grad_fn$"):
        nbgrad.autograd.backward([s, x.detach().sum()])


def test_deprecated_arguments_warn():
    x, y, s = _setup()
    with pytest.warns(FutureWarning, match=r"^`grad_variables` is deprecated\. Use `grad_tensors` instead\.$"):
        nbgrad.autograd.backward(s, grad_variables=nbgrad.tensor(2.0), retain_graph=True)
    assert x.grad.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match=r"^`grad_tensors` and `grad_variables` \(deprecated\) arguments both "
                                           r"passed to `backward\(\)`\. Please only use `grad_tensors`\.$"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbgrad.autograd.backward(s, nbgrad.tensor(1.0), grad_variables=nbgrad.tensor(2.0), retain_graph=True)
    with pytest.warns(FutureWarning, match="^only_inputs argument is deprecated and is ignored now"):
        (g,) = nbgrad.autograd.grad(s, x, only_inputs=False, retain_graph=True)
    assert g.tolist() == [2.0, 2.0]


def test_materialize_grads_checks_and_zeros():
    x, y, s = _setup()
    unused = nbgrad.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match=r"^Expected allow_unused to be True or not passed when "
                                         r"materialize_grads=True, but got: allow_unused=False\.$"):
        nbgrad.autograd.grad(s, [x, unused], materialize_grads=True, allow_unused=False, retain_graph=True)
    gx, gu = nbgrad.autograd.grad(s, [x, unused], materialize_grads=True, retain_graph=True, create_graph=True)
    assert gu.tolist() == [0.0] and gu.requires_grad
