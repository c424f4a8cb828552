"""nbgrad.utils.hooks (torch.utils.hooks): RemovableHandle over a dict of hooks,
unserializable_hook, warn_if_has_hooks."""
import pickle
import warnings
from collections import OrderedDict

import pytest

import nbgrad

H = nbgrad.utils.hooks


def test_handle_removes_its_key_from_the_dicts():
    hooks, extra1, extra2 = OrderedDict(), OrderedDict(), OrderedDict()
    h1 = H.RemovableHandle(hooks, extra_dict=[extra1, extra2])
    h2 = H.RemovableHandle(hooks, extra_dict=extra1)
    assert h2.id == h1.id + 1
    hooks[h1.id] = "f1"
    hooks[h2.id] = "f2"
    extra1[h1.id] = extra2[h1.id] = True
    extra1[h2.id] = True
    h1.remove()
    assert list(hooks) == [h2.id] and list(extra1) == [h2.id] and extra2 == {}
    with pytest.raises(TypeError, match="cannot create weak reference to 'dict' object"):
        H.RemovableHandle({})                # (PyTorch's hook dicts are OrderedDicts)
    h1.remove()                              # twice: nothing left to remove, no error
    with h2:
        assert h2.id in hooks
    assert hooks == {} and extra1 == {}


def test_handle_holds_its_dict_weakly_and_pickles():
    hooks = OrderedDict()
    h = H.RemovableHandle(hooks)
    hooks[h.id] = len
    other = pickle.loads(pickle.dumps((hooks, h)))
    copied_hooks, copied = other
    assert copied.id == h.id and copied.hooks_dict_ref() is copied_hooks
    assert H.RemovableHandle.next_id > h.id
    copied.remove()
    assert copied_hooks == {} and list(hooks) == [h.id]
    del hooks
    h.remove()                               # the dict died: nothing to do


def test_module_and_tensor_hook_handles_are_removable_handles():
    m = nbgrad.nn.Linear(2, 2)
    calls = []
    h = m.register_forward_hook(lambda *a: calls.append(1))
    assert isinstance(h, H.RemovableHandle)
    m(nbgrad.zeros(1, 2))
    h.remove()
    m(nbgrad.zeros(1, 2))
    assert calls == [1]
    x = nbgrad.zeros(2, requires_grad=True)
    assert isinstance(x.register_hook(lambda g: None), H.RemovableHandle)


def test_unserializable_hook_marks_the_function():
    def f(g):
        return g
    assert H.unserializable_hook(f) is f
    assert f.__torch_unserializable__ is True


def test_warn_if_has_hooks():
    x = nbgrad.zeros(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H.warn_if_has_hooks(x)                  # no hooks: no warning

    def plain(g):
        return g

    x.register_hook(plain)
    x.register_hook(H.unserializable_hook(lambda g: g))
    with pytest.warns(UserWarning, match="backward hook <function test_warn_if_has_hooks.<locals>.plain at .*> on "
                                         "tensor will not be serialized.  If this is expected, you can decorate "
                                         "the function with @torch.utils.hooks.unserializable_hook to suppress "
                                         "this warning") as record:
        H.warn_if_has_hooks(x)
    assert len(record) == 1
    y = x * 2
    y.register_hook(plain)
    with pytest.warns(UserWarning, match="will not be serialized") as record:
        H.warn_if_has_hooks(y)
    assert len(record) == 1
