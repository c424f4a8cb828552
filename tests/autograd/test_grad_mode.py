"""Grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode, per
thread) and detaching (detach, detach_, .data, clone, deepcopy), as PyTorch
defines them."""
import copy
import threading

import numpy as np
import pytest

import nbgrad


def leaf(shape=(3,), seed=0):
    rng = np.random.RandomState(seed)
    return nbgrad.tensor(rng.uniform(0.5, 1.5, size=shape), dtype=nbgrad.float64,
                         requires_grad=True)


def arr(t):
    return t.detach().numpy()


@pytest.fixture(autouse=True)
def grad_mode_restored():
    """Every test starts and ends with grad mode on."""
    assert nbgrad.is_grad_enabled() is True
    yield
    enabled = nbgrad.is_grad_enabled()
    nbgrad.set_grad_enabled(True)
    assert enabled is True


# ---------------------------------------------------------------- no_grad / enable_grad

def test_grad_enabled_by_default():
    assert nbgrad.is_grad_enabled() is True


def test_no_grad_context_manager():
    x = leaf()
    with nbgrad.no_grad():
        assert nbgrad.is_grad_enabled() is False
        y = x * 2
        z = x.exp().sum()
    assert nbgrad.is_grad_enabled() is True
    assert y.requires_grad is False and y.grad_fn is None
    assert z.requires_grad is False and z.grad_fn is None
    np.testing.assert_allclose(y.numpy(), 2 * arr(x))


def test_no_grad_keeps_leaf_requires_grad():
    x = leaf()
    with nbgrad.no_grad():
        assert x.requires_grad is True
        t = nbgrad.ones(2, requires_grad=True)
    assert t.requires_grad is True
    assert t.is_leaf is True


def test_no_grad_decorator():
    @nbgrad.no_grad()
    def double(a):
        """Double a."""
        assert nbgrad.is_grad_enabled() is False
        return a * 2

    x = leaf()
    y = double(x)
    assert y.requires_grad is False
    assert nbgrad.is_grad_enabled() is True
    assert double.__name__ == "double"
    assert double.__doc__ == "Double a."


def test_no_grad_restored_after_exception():
    with pytest.raises(ValueError):
        with nbgrad.no_grad():
            raise ValueError("boom")
    assert nbgrad.is_grad_enabled() is True


def test_nested_no_grad():
    with nbgrad.no_grad():
        with nbgrad.no_grad():
            assert nbgrad.is_grad_enabled() is False
        assert nbgrad.is_grad_enabled() is False
    assert nbgrad.is_grad_enabled() is True


def test_enable_grad_inside_no_grad():
    x = leaf()
    with nbgrad.no_grad():
        with nbgrad.enable_grad():
            assert nbgrad.is_grad_enabled() is True
            y = x * 2
        assert nbgrad.is_grad_enabled() is False
        z = x * 2
    assert y.requires_grad is True
    assert y.grad_fn.name() == "MulBackward0"
    assert z.requires_grad is False
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


def test_enable_grad_decorator():
    @nbgrad.enable_grad()
    def square(a):
        return a * a

    x = leaf()
    with nbgrad.no_grad():
        y = square(x)
        assert nbgrad.is_grad_enabled() is False
    assert y.requires_grad is True


# ---------------------------------------------------------------- set_grad_enabled

def test_set_grad_enabled_as_function():
    nbgrad.set_grad_enabled(False)
    try:
        assert nbgrad.is_grad_enabled() is False
        y = leaf() * 2
        assert y.requires_grad is False
    finally:
        nbgrad.set_grad_enabled(True)
    assert nbgrad.is_grad_enabled() is True
    assert (leaf() * 2).requires_grad is True


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_as_context_manager(mode):
    x = leaf()
    with nbgrad.no_grad():
        with nbgrad.set_grad_enabled(mode):
            assert nbgrad.is_grad_enabled() is mode
            y = x * 2
        assert nbgrad.is_grad_enabled() is False
    assert y.requires_grad is mode
    assert nbgrad.is_grad_enabled() is True


def test_set_grad_enabled_false_context_then_restored():
    with nbgrad.set_grad_enabled(False):
        assert nbgrad.is_grad_enabled() is False
    assert nbgrad.is_grad_enabled() is True


# ---------------------------------------------------------------- inference_mode

def test_inference_mode_context_manager():
    x = leaf()
    with nbgrad.inference_mode():
        assert nbgrad.is_grad_enabled() is False
        y = x * 2
    assert nbgrad.is_grad_enabled() is True
    assert y.requires_grad is False
    assert y.grad_fn is None
    np.testing.assert_allclose(y.numpy(), 2 * arr(x))


def test_inference_mode_decorator():
    @nbgrad.inference_mode()
    def f(a):
        assert nbgrad.is_grad_enabled() is False
        return a.exp()

    y = f(leaf())
    assert y.requires_grad is False
    assert nbgrad.is_grad_enabled() is True


# ---------------------------------------------------------------- per thread

def test_grad_mode_is_per_thread():
    results = {}

    def worker():
        results["enabled_in_thread"] = nbgrad.is_grad_enabled()
        results["requires_grad_in_thread"] = (leaf() * 2).requires_grad

    with nbgrad.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert nbgrad.is_grad_enabled() is False
    assert results == {"enabled_in_thread": True, "requires_grad_in_thread": True}


def test_no_grad_in_thread_does_not_leak_to_main():
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        with nbgrad.no_grad():
            seen["thread"] = nbgrad.is_grad_enabled()
            inside.set()
            release.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    try:
        assert nbgrad.is_grad_enabled() is True
        assert (leaf() * 2).requires_grad is True
    finally:
        release.set()
        t.join()
    assert seen["thread"] is False


# ---------------------------------------------------------------- detach

def test_detach_shares_storage_and_is_a_leaf():
    x = leaf()
    y = x * 2
    d = y.detach()
    assert d is not y
    assert d.requires_grad is False
    assert d.grad_fn is None
    assert d.is_leaf is True
    assert d.data_ptr() == y.data_ptr()
    np.testing.assert_array_equal(d.numpy(), arr(y))


def test_detach_shares_values_both_ways():
    x = leaf()
    d = x.detach()
    with nbgrad.no_grad():
        x.mul_(2)
    np.testing.assert_allclose(d.numpy(), arr(x))
    d.add_(1)
    np.testing.assert_allclose(arr(x), d.numpy())


def test_detach_shares_version_counter():
    x = leaf()
    y = x * 2
    d = y.detach()
    v = y._version
    d.add_(1)
    assert y._version == v + 1
    assert d._version == y._version
    y.add_(1)
    assert d._version == v + 2


def test_detach_inplace_change_is_seen_by_backward():
    x = leaf()
    y = x.exp()  # exp saves its output
    y.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_detach_():
    x = leaf()
    y = x * 2
    out = y.detach_()
    assert out is y
    assert y.requires_grad is False
    assert y.grad_fn is None
    assert y.is_leaf is True
    np.testing.assert_allclose(y.numpy(), 2 * arr(x))


def test_detached_tensor_blocks_gradient():
    x = leaf()
    y = x * 2
    u = y.detach()
    (u * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), u.numpy())


# ---------------------------------------------------------------- .data

def test_data_get_shares_storage_and_is_detached():
    x = leaf()
    d = x.data
    assert d.requires_grad is False
    assert d.grad_fn is None
    assert d.data_ptr() == x.data_ptr()
    d.mul_(3)
    np.testing.assert_allclose(arr(x), d.numpy())


def test_data_inplace_change_is_invisible_to_version_checks():
    x = leaf()
    y = x * x  # saves x
    v = x._version
    x.data.mul_(2)
    assert x._version == v
    y.sum().backward()  # no error
    np.testing.assert_allclose(x.grad.numpy(), 2 * arr(x))


def test_data_of_non_leaf():
    x = leaf()
    y = x * 2
    d = y.data
    assert d.requires_grad is False
    assert d.is_leaf is True
    assert d.data_ptr() == y.data_ptr()


def test_data_set_makes_tensor_share_storage():
    x = leaf((3,))
    t = nbgrad.tensor([7.0, 8.0, 9.0], dtype=nbgrad.float64)
    x.data = t
    assert x.data_ptr() == t.data_ptr()
    assert x.requires_grad is True
    assert x.is_leaf is True
    np.testing.assert_array_equal(arr(x), [7.0, 8.0, 9.0])
    t.add_(1)
    np.testing.assert_array_equal(arr(x), [8.0, 9.0, 10.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [16.0, 18.0, 20.0])


def test_data_set_can_change_shape():
    x = leaf((3,))
    x.data = nbgrad.zeros(2, 2, dtype=nbgrad.float64)
    assert x.shape == (2, 2)
    assert x.requires_grad is True


# ---------------------------------------------------------------- clone

def test_clone_is_recorded_in_graph():
    x = leaf()
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    assert c.requires_grad is True
    assert c.data_ptr() != x.data_ptr()
    (c * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))


def test_clone_does_not_share_storage():
    x = nbgrad.tensor([1.0, 2.0, 3.0])
    c = x.clone()
    c.add_(1)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(c.numpy(), [2.0, 3.0, 4.0])


def test_detach_clone_is_independent():
    x = leaf()
    before = arr(x).copy()
    c = x.detach().clone()
    assert c.requires_grad is False
    assert c.grad_fn is None
    assert c.is_leaf is True
    assert c.data_ptr() != x.data_ptr()
    c.add_(10)
    np.testing.assert_array_equal(arr(x), before)
    assert x._version == 0
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 2.0))


# ---------------------------------------------------------------- deepcopy

def test_deepcopy_of_non_leaf_raises():
    y = leaf() * 2
    with pytest.raises(RuntimeError):
        copy.deepcopy(y)


def test_deepcopy_of_leaf_copies_storage_and_grad():
    x = leaf()
    (x * 2).sum().backward()
    c = copy.deepcopy(x)
    assert c is not x
    assert c.requires_grad is True
    assert c.is_leaf is True
    assert c.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(arr(c), arr(x))
    np.testing.assert_array_equal(c.grad.numpy(), x.grad.numpy())
    assert c.grad.data_ptr() != x.grad.data_ptr()


def test_no_grad_as_a_bare_decorator():
    @nbgrad.no_grad
    def doubled(t):
        return t * 2

    x = nbgrad.ones(2, requires_grad=True)
    assert doubled(x).requires_grad is False
    assert nbgrad.is_grad_enabled() is True
