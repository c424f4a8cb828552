"""Backward: Tensor.backward, autograd.backward and autograd.grad with their
arguments, accumulation, retain_grad, hooks, graph lifetime, the iterative
engine and higher-order gradients, as PyTorch defines them."""
import gc
import warnings
import weakref

import numpy as np
import pytest

import nbgrad

SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
SECOND_TIME = r"Trying to backward through the graph a second time.*retain_graph=True"


def leaf(shape=(3,), low=0.5, high=1.5, seed=0):
    rng = np.random.RandomState(seed)
    return nbgrad.tensor(rng.uniform(low, high, size=shape), dtype=nbgrad.float64,
                         requires_grad=True)


def arr(t):
    return t.detach().numpy()


def non_leaf_grad(t):
    """t.grad for a non-leaf tensor, without PyTorch's UserWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t.grad


# ---------------------------------------------------------------- Tensor.backward

def test_backward_of_scalar_fills_leaf_grads():
    x = leaf((4,))
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * arr(x))
    assert x.grad.shape == x.shape
    assert x.grad.dtype == nbgrad.float64
    assert x.grad.requires_grad is False


def test_backward_float32_grad_dtype():
    x = nbgrad.ones(3, requires_grad=True)
    (x * 3).sum().backward()
    assert x.grad.dtype == nbgrad.float32
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0, dtype=np.float32))


def test_backward_returns_none():
    x = leaf()
    assert x.sum().backward() is None


def test_implicit_gradient_only_for_scalars():
    x = leaf((3,))
    y = x * 2
    with pytest.raises(RuntimeError, match=SCALAR_ONLY):
        y.backward()
    assert x.grad is None


def test_implicit_gradient_for_one_element_tensors():
    x = leaf((1,))
    (x * 3).backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0])
    z = leaf((1, 1), seed=1)
    (z * 5).backward()
    np.testing.assert_allclose(z.grad.numpy(), [[5.0]])
    s = leaf((), seed=2)
    (s * 7).backward()
    assert s.grad.shape == ()
    assert float(s.grad) == 7.0


def test_backward_with_gradient_equals_grad_of_weighted_sum():
    x = leaf((2, 3), seed=0)
    v = nbgrad.tensor(np.random.RandomState(5).randn(2, 3), dtype=nbgrad.float64)
    y = x.exp() * x
    y.backward(v)
    g1 = x.grad.numpy().copy()
    x.grad = None
    (x.exp() * x * v).sum().backward()
    np.testing.assert_allclose(g1, x.grad.numpy())
    xn = arr(x)
    np.testing.assert_allclose(g1, v.numpy() * (np.exp(xn) * xn + np.exp(xn)))


def test_backward_gradient_keyword():
    x = leaf((3,))
    y = x * 4
    y.backward(gradient=nbgrad.tensor([1.0, 0.0, 2.0], dtype=nbgrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 0.0, 8.0])


def test_backward_gradient_shape_mismatch_raises():
    x = leaf((3,))
    y = x * 2
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(nbgrad.ones(2, dtype=nbgrad.float64))


def test_backward_on_tensor_without_grad_raises():
    t = nbgrad.ones(3)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        t.sum().backward()


def test_backward_inputs_argument_limits_accumulation():
    a = leaf((3,), seed=0)
    b = leaf((3,), seed=1)
    (a * b).sum().backward(inputs=[a])
    np.testing.assert_allclose(a.grad.numpy(), arr(b))
    assert b.grad is None


def test_backward_inputs_accepts_single_tensor():
    a = leaf((3,), seed=0)
    b = leaf((3,), seed=1)
    (a * b).sum().backward(inputs=b)
    np.testing.assert_allclose(b.grad.numpy(), arr(a))
    assert a.grad is None


def test_gradient_reaches_leaves_through_multiple_paths():
    x = leaf((3,))
    a = x * 2
    b = a * 3
    c = a * 4
    d = (b + c + x).sum()
    d.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 15.0))


def test_each_node_processed_once_with_full_gradient():
    # a diamond: the hook on `a` sees the summed gradient of both branches, once
    x = leaf((3,))
    a = x * 2
    seen = []
    a.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    b = a.exp()
    c = a * 5
    (b + c).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], np.exp(2 * arr(x)) + 5)
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.exp(2 * arr(x)) + 5))


def test_same_tensor_used_twice_in_one_op():
    x = leaf((3,))
    (x * x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * arr(x) ** 2)


def test_backward_from_non_scalar_intermediate_in_graph():
    x = leaf((2, 2))
    y = (x * x).sum(dim=1)
    y.backward(nbgrad.tensor([1.0, -1.0], dtype=nbgrad.float64))
    expected = 2 * arr(x) * np.array([[1.0], [-1.0]])
    np.testing.assert_allclose(x.grad.numpy(), expected)


# ---------------------------------------------------------------- autograd.backward

def test_autograd_backward_multiple_tensors_and_grads():
    x = leaf((3,))
    y1 = x * 2
    y2 = x * x
    nbgrad.autograd.backward([y1, y2], [nbgrad.ones(3, dtype=nbgrad.float64),
                                        nbgrad.full((3,), 2.0, dtype=nbgrad.float64)])
    np.testing.assert_allclose(x.grad.numpy(), 2 + 4 * arr(x))


def test_autograd_backward_keyword_arguments():
    x = leaf((3,))
    y = (x * x).sum()
    nbgrad.autograd.backward(y, grad_tensors=nbgrad.tensor(3.0, dtype=nbgrad.float64),
                             retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 6 * arr(x))
    nbgrad.autograd.backward(y, inputs=[x])
    np.testing.assert_allclose(x.grad.numpy(), 8 * arr(x))


def test_autograd_backward_scalar_only_without_grad_tensors():
    x = leaf((3,))
    with pytest.raises(RuntimeError, match=SCALAR_ONLY):
        nbgrad.autograd.backward([x * 2])


# ---------------------------------------------------------------- autograd.grad

def test_autograd_grad_returns_tuple_and_leaves_grad_untouched():
    x = leaf((3,), seed=0)
    w = leaf((3,), seed=1)
    y = (x * w).sum()
    grads = nbgrad.autograd.grad(y, [x, w])
    assert isinstance(grads, tuple)
    assert len(grads) == 2
    np.testing.assert_allclose(grads[0].numpy(), arr(w))
    np.testing.assert_allclose(grads[1].numpy(), arr(x))
    assert x.grad is None
    assert w.grad is None
    assert grads[0].requires_grad is False


def test_autograd_grad_single_input_not_in_list():
    x = leaf((3,))
    (g,) = nbgrad.autograd.grad((x ** 3).sum(), x)
    np.testing.assert_allclose(g.numpy(), 3 * arr(x) ** 2)


def test_autograd_grad_with_respect_to_non_leaf():
    x = leaf((3,))
    h = x * 2
    y = (h * h).sum()
    (gh,) = nbgrad.autograd.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), 2 * arr(h))


def test_autograd_grad_outputs():
    x = leaf((3,))
    y = x * x
    v = nbgrad.tensor([1.0, 2.0, 3.0], dtype=nbgrad.float64)
    (g,) = nbgrad.autograd.grad(y, x, grad_outputs=v)
    np.testing.assert_allclose(g.numpy(), 2 * arr(x) * np.array([1.0, 2.0, 3.0]))


def test_autograd_grad_non_scalar_needs_grad_outputs():
    x = leaf((3,))
    with pytest.raises(RuntimeError, match=SCALAR_ONLY):
        nbgrad.autograd.grad(x * 2, x)


def test_autograd_grad_multiple_outputs():
    x = leaf((3,))
    g = nbgrad.autograd.grad([(x * 2).sum(), (x * x).sum()], [x])
    np.testing.assert_allclose(g[0].numpy(), 2 + 2 * arr(x))


def test_autograd_grad_unused_input():
    x = leaf((3,), seed=0)
    z = leaf((3,), seed=1)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        nbgrad.autograd.grad((x * 2).sum(), [x, z])
    gx, gz = nbgrad.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), np.full(3, 2.0))
    assert gz is None


def test_autograd_grad_retain_graph():
    x = leaf((3,))
    y = (x * x).sum()
    g1 = nbgrad.autograd.grad(y, x, retain_graph=True)[0]
    g2 = nbgrad.autograd.grad(y, x)[0]
    np.testing.assert_allclose(g1.numpy(), g2.numpy())
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        nbgrad.autograd.grad(y, x)


# ---------------------------------------------------------------- accumulation and zeroing

def test_gradients_accumulate_across_calls():
    x = leaf((3,))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 5.0))


def test_zeroing_with_grad_zero_():
    x = leaf((3,))
    (x * 2).sum().backward()
    x.grad.zero_()
    np.testing.assert_allclose(x.grad.numpy(), np.zeros(3))
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))


def test_zeroing_with_grad_data_zero_():
    x = leaf((3,))
    (x * 2).sum().backward()
    x.grad.data.zero_()
    np.testing.assert_allclose(x.grad.numpy(), np.zeros(3))
    (x * 7).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 7.0))


def test_zeroing_by_setting_grad_to_none():
    x = leaf((3,))
    (x * 2).sum().backward()
    x.grad = None
    assert x.grad is None
    (x * 4).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 4.0))


def test_assigning_grad():
    x = leaf((3,))
    x.grad = nbgrad.ones(3, dtype=nbgrad.float64)
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))


def test_broadcast_gradient_reduces_to_leaf_shape():
    x = leaf((3, 1), seed=0)
    b = leaf((4,), seed=1)
    (x * b).sum().backward()
    assert x.grad.shape == (3, 1)
    assert b.grad.shape == (4,)
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 1), arr(b).sum()))
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, arr(x).sum()))


# ---------------------------------------------------------------- retain_grad

def test_non_leaf_grad_is_none_without_retain_grad():
    x = leaf((3,))
    y = x * 2
    (y * y).sum().backward()
    assert non_leaf_grad(y) is None


def test_retain_grad_on_non_leaf():
    x = leaf((3,))
    y = x * 2
    y.retain_grad()
    assert y.retains_grad is True
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), 2 * arr(y))
    np.testing.assert_allclose(x.grad.numpy(), 4 * arr(y))


def test_retain_grad_accumulates():
    x = leaf((3,))
    y = x * 2
    y.retain_grad()
    z = (y * 3).sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_allclose(y.grad.numpy(), np.full(3, 6.0))


def test_retain_grad_on_leaf_is_noop():
    x = leaf((3,))
    x.retain_grad()
    assert x.retains_grad is False
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


# ---------------------------------------------------------------- hooks

def test_hook_sees_gradient():
    x = leaf((3,))
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    (y * y).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], 2 * arr(y))


def test_hook_replaces_gradient_on_non_leaf():
    x = leaf((3,))
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 20.0))


def test_hook_on_leaf_changes_accumulated_gradient():
    x = leaf((3,))
    x.register_hook(lambda g: g + 1)
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))


def test_hook_returning_none_keeps_gradient():
    x = leaf((3,))
    calls = []
    x.register_hook(lambda g: calls.append(1))
    (x * 2).sum().backward()
    assert calls == [1]
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


def test_hooks_chain_in_registration_order():
    x = leaf((3,))
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 6.0))


def test_hook_handle_remove():
    x = leaf((3,))
    y = x * 2
    handle = y.register_hook(lambda g: g * 100)
    handle.remove()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


def test_leaf_hook_handle_remove():
    x = leaf((3,))
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    (x * 2).sum().backward()
    handle.remove()
    (x * 2).sum().backward()
    assert calls == [1]


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        nbgrad.ones(3).register_hook(lambda g: g)


# ---------------------------------------------------------------- retain_graph

def test_second_backward_raises():
    x = leaf((3,))
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        y.backward()


def test_second_backward_through_shared_subgraph_raises():
    x = leaf((3,))
    h = x.exp()
    (h * 2).sum().backward()
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        (h * 3).sum().backward()


def test_retain_graph_allows_second_backward():
    x = leaf((3,))
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * arr(x))


# ---------------------------------------------------------------- the engine is iterative

def test_long_chain_backward_without_recursion_error():
    n = 100_000
    x = nbgrad.tensor([1.0], dtype=nbgrad.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.00001
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.00001 ** n], rtol=1e-9)


def test_long_chain_dropped_without_backward():
    x = nbgrad.tensor([1.0], dtype=nbgrad.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None
    (x * 2).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0])


# ---------------------------------------------------------------- graph lifetime

def test_graph_freed_when_outputs_dropped():
    x = leaf((3,))
    y = x * 2
    z = y * y
    ref = weakref.ref(y)
    del y
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        # no reference cycles: reference counting alone frees the graph
        del z
        assert ref() is None
    finally:
        if gc_was_enabled:
            gc.enable()


def test_graph_freed_when_outputs_dropped_after_gc():
    x = leaf((3,))
    refs = []
    y = x
    for _ in range(10):
        y = (y * 1.5).tanh()
        refs.append(weakref.ref(y))
    out = y.sum()
    del y
    del out
    gc.collect()
    assert all(r() is None for r in refs)
    assert x.grad is None


def test_saved_tensors_freed_after_backward():
    x = leaf((3,))
    y = x * 2
    z = (y * y).sum()
    ref = weakref.ref(y)
    del y
    z.backward()
    gc.collect()
    assert ref() is None
    np.testing.assert_allclose(x.grad.numpy(), 8 * arr(x))


def test_leaf_freed_when_dropped():
    x = leaf((3,))
    ref = weakref.ref(x)
    (x * x).sum().backward()
    del x
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------- create_graph

def test_second_derivative_with_autograd_grad():
    x = leaf((4,), low=-1.0, high=1.0)
    y = (x ** 3).sum()
    (g,) = nbgrad.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad is True
    np.testing.assert_allclose(arr(g), 3 * arr(x) ** 2)
    (g2,) = nbgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), 6 * arr(x))


def test_second_derivative_of_tanh():
    x = leaf((4,), low=-1.0, high=1.0)
    (g,) = nbgrad.autograd.grad(x.tanh().sum(), x, create_graph=True)
    g.sum().backward()
    t = np.tanh(arr(x))
    np.testing.assert_allclose(arr(g), 1 - t * t)
    np.testing.assert_allclose(x.grad.numpy(), -2 * t * (1 - t * t))


def test_third_derivative():
    x = nbgrad.tensor(0.7, dtype=nbgrad.float64, requires_grad=True)
    y = x.exp() * x
    (d1,) = nbgrad.autograd.grad(y, x, create_graph=True)
    (d2,) = nbgrad.autograd.grad(d1, x, create_graph=True)
    (d3,) = nbgrad.autograd.grad(d2, x)
    e = np.exp(0.7)
    np.testing.assert_allclose(float(d1.detach()), e * 1.7)
    np.testing.assert_allclose(float(d2.detach()), e * 2.7)
    np.testing.assert_allclose(float(d3), e * 3.7)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_with_create_graph_makes_grad_differentiable():
    x = leaf((3,))
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad is True
    np.testing.assert_allclose(arr(x.grad), 3 * arr(x) ** 2)
    (g2,) = nbgrad.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(g2.numpy(), 6 * arr(x))
    x.grad = None  # break the parameter <-> gradient cycle, as PyTorch advises


def test_without_create_graph_grad_is_constant():
    x = leaf((3,))
    (g,) = nbgrad.autograd.grad((x ** 3).sum(), x)
    assert g.requires_grad is False
    assert g.grad_fn is None


def test_hessian_vector_product():
    rng = np.random.RandomState(3)
    a = rng.randn(4, 4)
    x = nbgrad.tensor(rng.randn(4), dtype=nbgrad.float64, requires_grad=True)
    v = nbgrad.tensor(rng.randn(4), dtype=nbgrad.float64)
    A = nbgrad.tensor(a, dtype=nbgrad.float64)
    f = 0.5 * (x @ (A @ x)) + (x ** 3).sum()
    (g,) = nbgrad.autograd.grad(f, x, create_graph=True)
    (hv,) = nbgrad.autograd.grad(g, x, grad_outputs=v)
    xn, vn = arr(x), v.numpy()
    hessian = 0.5 * (a + a.T) + np.diag(6 * xn)
    np.testing.assert_allclose(arr(g), 0.5 * (a + a.T) @ xn + 3 * xn ** 2)
    np.testing.assert_allclose(hv.numpy(), hessian @ vn)
    # the same through (g * v).sum(), on a fresh graph
    f = 0.5 * (x @ (A @ x)) + (x ** 3).sum()
    (g,) = nbgrad.autograd.grad(f, x, create_graph=True)
    (hv2,) = nbgrad.autograd.grad((g * v).sum(), x)
    np.testing.assert_allclose(hv2.numpy(), hessian @ vn)


def test_gradient_penalty():
    rng = np.random.RandomState(4)
    w = nbgrad.tensor(rng.randn(5), dtype=nbgrad.float64, requires_grad=True)
    x = nbgrad.tensor(rng.randn(5), dtype=nbgrad.float64, requires_grad=True)
    out = (w * x).tanh().sum()
    (gx,) = nbgrad.autograd.grad(out, x, create_graph=True)
    penalty = (gx ** 2).sum()
    penalty.backward()
    wn, xn = arr(w), arr(x)
    t = np.tanh(wn * xn)
    g = wn * (1 - t * t)
    dg_dw = (1 - t * t) + wn * (-2 * t * (1 - t * t) * xn)
    dg_dx = wn * (-2 * t * (1 - t * t) * wn)
    np.testing.assert_allclose(arr(gx), g)
    np.testing.assert_allclose(w.grad.numpy(), 2 * g * dg_dw)
    np.testing.assert_allclose(x.grad.numpy(), 2 * g * dg_dx)


def test_double_backward_through_mean_and_matmul():
    rng = np.random.RandomState(5)
    W = nbgrad.tensor(rng.randn(3, 3), dtype=nbgrad.float64, requires_grad=True)
    x = nbgrad.tensor(rng.randn(3), dtype=nbgrad.float64, requires_grad=True)
    y = (W @ x).pow(2).mean()
    (gW,) = nbgrad.autograd.grad(y, W, create_graph=True)
    (gx,) = nbgrad.autograd.grad(gW.sum(), x)
    # y = mean((Wx)^2) -> dy/dW = (2/3) (Wx) x^T ; sum(dy/dW) = (2/3) sum_i (Wx)_i * sum_j x_j
    Wn, xn = arr(W), arr(x)
    r = Wn @ xn
    np.testing.assert_allclose(arr(gW), (2 / 3) * np.outer(r, xn))
    expected = (2 / 3) * (Wn.sum(axis=0) * xn.sum() + r.sum() * np.ones(3))
    np.testing.assert_allclose(gx.numpy(), expected)


def test_leaf_grads_never_alias_each_other_or_the_callers_gradient():
    # The engine may take over a fresh gradient buffer as a leaf's .grad instead of
    # copying it; it must never hand the same memory to two leaves or keep the
    # caller's `gradient` tensor.
    x = nbgrad.ones(3, requires_grad=True)
    w = nbgrad.ones(3, requires_grad=True)
    v = nbgrad.tensor([1.0, 2.0, 3.0])
    (x + w).backward(v)
    assert x.grad.data_ptr() != w.grad.data_ptr()
    assert x.grad.data_ptr() != v.data_ptr() and w.grad.data_ptr() != v.data_ptr()
    v.mul_(10)
    x.grad.add_(1)
    assert w.grad.tolist() == [1.0, 2.0, 3.0]
    assert x.grad.tolist() == [2.0, 3.0, 4.0]
    (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0, 5.0, 6.0]
    assert w.grad.tolist() == [1.0, 2.0, 3.0]


def test_a_backward_op_saves_its_inputs_unguarded_as_pytorchs_codegen():
    # PyTorch saves every input of a backward op (threshold_backward's self) whichever
    # gradient is wanted, so a second pass through its node after a backward freed it
    # raises (torch 2.13; the differential tester's seed 5122014490)
    v0 = nbgrad.tensor([[1.0], [-2.0]], dtype=nbgrad.float64, requires_grad=True)
    v1 = v0.relu()
    (v3,) = nbgrad.autograd.grad(v1.sum(), [v0], create_graph=True)
    assert v3.grad_fn.name() == "ThresholdBackwardBackward0"
    v4 = v3.expand(1, 2, 1)
    v4.sum().backward()
    assert nbgrad.autograd.grad(v4.sum(), [v3])[0].tolist() == [[1.0], [1.0]]     # not through the node
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        nbgrad.autograd.grad(v4.sum(), [v1])


def test_a_leafs_sink_keeps_the_shape_it_was_made_with():
    # PyTorch's AccumulateGrad keeps its input metadata from its creation: a leaf reshaped
    # in place under no_grad while its sink lives gets a gradient of the new shape, which
    # the engine refuses (torch 2.13; the differential tester's seed 7124012062)
    v0 = nbgrad.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=nbgrad.float64, requires_grad=True)
    v1 = v0.reshape(2, 2, 1)        # makes the sink, with shape (2, 2)
    with nbgrad.no_grad():
        v0.unsqueeze_(2)
    v3 = v0 @ nbgrad.tensor([[0.5]], dtype=nbgrad.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Function ViewBackward0 returned an invalid gradient at index 0 - "
                                           r"got \[2, 2, 1\] but expected shape compatible with \[2, 2\]$"):
        v3.sum().backward()
    assert v1.shape == (2, 2, 1)


def test_softmax_backward_is_pytorchs_formula_where_it_cancels():
    # PyTorch's kernel computes (g - sum(g * y)) * y; with a huge constant g (atanh of a sum
    # that rounds to 1 - 2**-53) g * y - y * sum(g * y) rounds elsewhere (torch 2.13; seed 8125005125)
    v0 = nbgrad.tensor([[0.84, 1.26, -1.04]], dtype=nbgrad.float64, requires_grad=True)
    (g,) = nbgrad.autograd.grad(nbgrad.atanh(v0.softmax(-1).sum()), [v0])
    assert g.tolist() == [[0.18694722080741216, 0.28452648299862926, 0.028526296193958547]]


def test_cumprod_backward_through_zeros_is_row_major():
    # PyTorch fills a fresh row-major zeros tensor there, whatever the input's layout (seed 8125010093)
    v0 = nbgrad.zeros(3, 2, dtype=nbgrad.float64).t().requires_grad_()
    (g,) = nbgrad.autograd.grad(nbgrad.cumprod(v0, -1).sum(), [v0])
    assert g.stride() == (3, 1) and g.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]


def test_threshold_in_place_may_write_an_expanded_tensor():
    # PyTorch's threshold skips the memory-overlap check ("threshold is idempotent"); relu_ does not
    v0 = nbgrad.ones(3, dtype=nbgrad.float64, requires_grad=True)
    (g,) = nbgrad.autograd.grad(v0.sum(), [v0], create_graph=True)
    assert g.stride() == (0,)
    nbgrad.nn.functional.threshold(g, threshold=2.0, value=-0.5, inplace=True)
    assert g.tolist() == [-0.5, -0.5, -0.5]
    (g,) = nbgrad.autograd.grad(v0.sum(), [v0], create_graph=True)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        g.relu_()
