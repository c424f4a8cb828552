"""nbgrad.func.functional_call, nbgrad.nn.utils.stateless.functional_call and
nbgrad.func.stack_module_state: swapping tensors in for a call and restoring them (also when
the call raises), tied weights, strict keys, several dicts, PyTorch's errors."""
import warnings

import numpy as np
import pytest

import nbgrad

from ._helpers import T, close

fn = nbgrad.func


def _linear(seed=0):
    rng = np.random.RandomState(seed)
    m = nbgrad.nn.Linear(3, 2).double()
    with nbgrad.no_grad():
        m.weight.copy_(T(rng.randn(2, 3)))
        m.bias.copy_(T(rng.randn(2)))
    return m


class Tied(nbgrad.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nbgrad.nn.Linear(2, 2, bias=False).double()
        self.b = nbgrad.nn.Linear(2, 2, bias=False).double()
        self.b.weight = self.a.weight
        self.register_buffer("buf", T([1.0, 1.0]))
        with nbgrad.no_grad():
            self.a.weight.copy_(T([[1.0, 2.0], [3.0, 4.0]]))

    def forward(self, x):
        return self.b(self.a(x)) + self.buf


def test_call_uses_given_tensors_and_restores():
    m = _linear()
    weight, bias = m.weight, m.bias
    x = T(np.ones((4, 3)))
    w = T(np.arange(6.0).reshape(2, 3))
    out = fn.functional_call(m, {"weight": w}, x)
    close(out, x.numpy() @ w.numpy().T + bias.detach().numpy())
    assert m.weight is weight and m.bias is bias                   # the very same Parameters back
    out = fn.functional_call(m, ({"weight": w}, {"bias": T([1.0, 2.0])}), (x,))
    close(out, x.numpy() @ w.numpy().T + [1.0, 2.0])
    assert not out.requires_grad


def test_gradients_flow_to_the_given_tensors_only():
    m = _linear()
    w = T(np.ones((2, 3)), requires_grad=True)
    fn.functional_call(m, {"weight": w}, (T(np.ones((1, 3))),)).sum().backward()
    close(w.grad, np.ones((2, 3)))
    assert m.weight.grad is None and m.bias.grad is not None


def test_restored_when_the_call_raises():
    m = _linear()
    weight, bias = m.weight, m.bias
    with pytest.raises(RuntimeError):
        fn.functional_call(m, {"weight": T(np.ones((2, 3))), "bias": T([7.0, 7.0])}, (T(np.ones((1, 5))),))
    assert m.weight is weight and m.bias is bias
    assert isinstance(m.weight, nbgrad.nn.Parameter)
    assert dict(m.named_parameters())["weight"] is weight


def test_new_attribute_is_removed_afterwards():
    tm = Tied()
    out = fn.functional_call(tm, {"extra": T([5.0, 5.0])}, (T([[1.0, 2.0]]),))
    close(out, [[28.0, 60.0]])
    assert not hasattr(tm, "extra")


def test_tied_weights():
    tm = Tied()
    x = T([[1.0, 2.0]])
    close(fn.functional_call(tm, {"a.weight": T(np.eye(2))}, (x,)), [[2.0, 3.0]])      # both layers get it
    close(fn.functional_call(tm, {"a.weight": T(np.eye(2))}, (x,), tie_weights=False), [[6.0, 12.0]])
    with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', 'b.weight'\], "
                                         "which are tied. Consider using tie_weights=False"):
        fn.functional_call(tm, {"a.weight": T(np.eye(2)), "b.weight": T(np.eye(2) * 2)}, (x,))


def test_buffers_kwargs_and_strict():
    tm = Tied()
    close(fn.functional_call(tm, {"buf": T([5.0, 5.0])}, (T([[1.0, 2.0]]),)), [[32.0, 64.0]])
    close(fn.functional_call(tm, {"buf": T([5.0, 5.0])}, (), {"x": T([[1.0, 2.0]])}), [[32.0, 64.0]])
    close(tm.buf, [1.0, 1.0])
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Tied:\n\tMissing key\\(s\\): "
                                           "'a.weight', 'b.weight'."):
        fn.functional_call(tm, {"buf": T([5.0, 5.0])}, (T([[1.0, 2.0]]),), strict=True)
    m = _linear()
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Linear:\n\tUnexpected key\\(s\\): "
                                           "'foo'.\n\tMissing key\\(s\\): 'bias'."):
        fn.functional_call(m, {"weight": T(np.ones((2, 3))), "foo": T([1.0])}, (T(np.ones((1, 3))),), strict=True)


def test_in_place_buffer_updates_reach_the_given_tensor():
    bn = nbgrad.nn.BatchNorm1d(2).double()
    mean = T([0.0, 0.0])
    fn.functional_call(bn, {"running_mean": mean}, (T([[1.0, 2.0], [3.0, 6.0]]),))
    close(mean, [0.2, 0.4])                       # momentum 0.1 times the batch mean, written into `mean`
    close(bn.running_mean, [0.0, 0.0])


def test_argument_errors():
    m = _linear()
    x = T(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"\['weight'\] appeared in multiple dictionaries; behavior of functional "
                                         "call is ambiguous"):
        fn.functional_call(m, ({"weight": T(np.ones((2, 3)))}, {"weight": T(np.ones((2, 3)))}), (x,))
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                                         "dicts, but got <class 'int'>"):
        fn.functional_call(m, 3, (x,))
    with pytest.raises(ValueError, match="Expected all elements of parameter_and_buffer_dicts to be dictionaries"):
        fn.functional_call(m, ({"weight": T(np.ones((2, 3)))}, 3), (x,))


def test_stateless_functional_call_is_deprecated():
    m = _linear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = nbgrad.nn.utils.stateless.functional_call(m, {"bias": T([1.0, 2.0])}, T(np.ones((1, 3))))
    assert [w.category for w in caught] == [FutureWarning]
    assert "is deprecated as of PyTorch 2.0" in str(caught[0].message)
    close(out, np.ones((1, 3)) @ m.weight.detach().numpy().T + [1.0, 2.0])


def test_stack_module_state_and_ensemble():
    models = [_linear(seed) for seed in range(3)]
    params, buffers = fn.stack_module_state(models)
    assert list(params) == ["weight", "bias"] and buffers == {}
    assert tuple(params["weight"].shape) == (3, 2, 3)
    assert params["weight"].is_leaf and params["weight"].requires_grad
    close(params["bias"], np.stack([m.bias.detach().numpy() for m in models]))
    x = T(np.arange(12.0).reshape(4, 3) / 10)
    out = fn.vmap(lambda p, xx: fn.functional_call(models[0], p, (xx,)), in_dims=(0, None))(params, x)
    assert tuple(out.shape) == (3, 4, 2)
    for i, m in enumerate(models):
        close(out[i], m(x), atol=1e-12)
    bn_params, bn_buffers = fn.stack_module_state([nbgrad.nn.BatchNorm1d(2), nbgrad.nn.BatchNorm1d(2)])
    assert list(bn_buffers) == ["running_mean", "running_var", "num_batches_tracked"]
    assert not bn_buffers["running_mean"].requires_grad


def test_stack_module_state_errors():
    models = [_linear(seed) for seed in range(2)]
    with pytest.raises(RuntimeError, match="stack_module_state: Expected at least one model, got 0."):
        fn.stack_module_state([])
    with pytest.raises(RuntimeError, match="stack_module_state: Expected all models to be of the same class."):
        fn.stack_module_state([models[0], Tied()])
    models[1].eval()
    with pytest.raises(RuntimeError, match="stack_module_state: Expected all models to have the same training/eval "
                                           "mode."):
        fn.stack_module_state(models)
    models[1].train()
    models[1].bias.requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected bias from each model to have the same .requires_grad"):
        fn.stack_module_state(models)
