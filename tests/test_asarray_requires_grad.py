"""torch.asarray's requires_grad and copy=False rules, as PyTorch 2.13 behaves (tensor_new.cpp's
asarray): an unset requires_grad is obj.requires_grad, with a once-a-process warning; False
detaches a non-leaf result and clears a leaf's flag (obj's own when obj is returned); True on
an integer result is refused; copy=False names why it cannot alias."""
import warnings

import numpy as np
import pytest

import nbgrad


def test_unset_requires_grad_follows_obj_and_a_dtype_change_keeps_the_history():
    t = nbgrad.randn(3, requires_grad=True)
    assert nbgrad.asarray(t, requires_grad=True) is t
    r = nbgrad.asarray(t, dtype=nbgrad.float64, requires_grad=None)
    assert r.requires_grad and type(r.grad_fn).__name__ == "ToCopyBackward0"
    r.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0, 1.0]
    c = nbgrad.asarray(t * 2, copy=True, requires_grad=None)
    assert c.requires_grad and type(c.grad_fn).__name__ == "CloneBackward0"


def test_unset_requires_grad_warns_that_it_follows_obj():
    t = nbgrad.randn(2, requires_grad=True)
    nbgrad.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert nbgrad.asarray(t) is t
            nbgrad.asarray(t, requires_grad=False)
    finally:
        nbgrad.set_warn_always(False)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith(
        "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False.")


@pytest.mark.parametrize("dtype", ["int64", "bool", "int32"])
def test_an_integer_result_of_a_tensor_that_requires_grad_is_refused(dtype):
    t = nbgrad.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nbgrad.asarray(t, dtype=getattr(nbgrad, dtype), requires_grad=None)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nbgrad.asarray(np.arange(3), requires_grad=True)
    assert not nbgrad.asarray(t, dtype=getattr(nbgrad, dtype), requires_grad=False).requires_grad


def test_requires_grad_false_detaches_a_non_leaf_and_clears_a_returned_leaf():
    t = nbgrad.randn(3, requires_grad=True)
    u = t * 2
    for kwargs in ({}, {"dtype": nbgrad.float64}, {"copy": True}):
        r = nbgrad.asarray(u, requires_grad=False, **kwargs)
        assert not r.requires_grad and r.is_leaf and r.grad_fn is None
        assert u.requires_grad and u.grad_fn is not None
    shared = nbgrad.asarray(u, requires_grad=False)
    assert shared is not u and shared.data_ptr() == u.data_ptr()
    r = nbgrad.asarray(t, dtype=nbgrad.float64, requires_grad=False)
    assert not r.requires_grad and r.is_leaf and t.requires_grad
    # obj itself returned: its own flag is cleared (PyTorch's set_requires_grad on it)
    assert nbgrad.asarray(t, requires_grad=False) is t and not t.requires_grad


def test_copy_false_says_why_it_cannot_alias():
    t = nbgrad.ones(2)
    with pytest.raises(ValueError, match=r"^can't alias tensor with dtype 'Float' into dtype 'Long'\.$"):
        nbgrad.asarray(t, dtype=nbgrad.int64, copy=False)
    with pytest.raises(ValueError, match=r"^can't alias tensor with dtype 'Double' into dtype 'Float'\.$"):
        nbgrad.asarray(np.ones(2), dtype=nbgrad.float32, copy=False)
    with pytest.raises(ValueError, match=r"^can't alias arbitrary sequence into a tensor\.$"):
        nbgrad.asarray([1.0], copy=False)
    with pytest.raises(RuntimeError, match=r"^can't alias NumPy scalars\. Either remove copy=False"):
        nbgrad.asarray(np.float64(1.0), copy=False)
    with pytest.raises(ValueError, match=r"^can't alias tensor from device 'cpu' to 'cuda'\.$"):
        nbgrad.asarray(t, device="cuda", copy=False)
    assert nbgrad.asarray(t, dtype=nbgrad.float32, copy=False) is t
