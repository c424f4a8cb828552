"""Module's state-dict hooks (state_dict pre/post, load_state_dict pre/post) and
load_state_dict(assign=True), with PyTorch's call signatures and order."""
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad
import nbgrad.nn as nn


def _net():
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))


def test_state_dict_pre_and_post_hooks():
    net = _net()
    calls = []
    net[0].register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))

    def post(m, sd, prefix, local_metadata):
        calls.append(("post", prefix, sorted(k for k in sd if k.startswith(prefix)), local_metadata))
        sd[prefix + "extra"] = nbgrad.zeros(1)
    h = net[0].register_state_dict_post_hook(post)
    sd = net.state_dict(keep_vars=True)
    assert calls == [("pre", "0.", True), ("post", "0.", ["0.bias", "0.weight"], {"version": 1})]
    assert list(sd) == ["0.weight", "0.bias", "0.extra", "2.weight", "2.bias"]
    h.remove()
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]

    def returns(m, sd, prefix, local_metadata):
        return OrderedDict()
    net.register_state_dict_post_hook(returns)
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        net.state_dict()


def test_private_state_dict_hook_may_replace_the_dict():
    net = _net()
    net._register_state_dict_hook(lambda m, sd, prefix, meta: OrderedDict(only=nbgrad.ones(1)))
    assert list(net.state_dict()) == ["only"]


def test_load_pre_hook_renames_entries_for_its_module_and_children_only_see_theirs():
    src, dst = _net(), _net()
    sd = src.state_dict()
    old = OrderedDict((k.replace("0.weight", "0.w"), v) for k, v in sd.items())
    seen = []

    def rename(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        seen.append((prefix, sorted(state_dict)))
        if prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
    dst[0].register_load_state_dict_pre_hook(rename)
    result = dst.load_state_dict(old)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert seen == [("0.", ["0.bias", "0.w"])]
    np.testing.assert_array_equal(dst[0].weight.detach().numpy(), src[0].weight.detach().numpy())
    assert "0.w" in old                 # the caller's dict is left as it was


def test_load_post_hook_sees_and_may_edit_incompatible_keys():
    net = _net()
    sd = net.state_dict()
    sd["surplus"] = nbgrad.zeros(1)
    got = []

    def post(module, incompatible):
        got.append((list(incompatible.missing_keys), list(incompatible.unexpected_keys)))
        incompatible.unexpected_keys.clear()
    net.register_load_state_dict_post_hook(post)
    net.load_state_dict(sd)             # the hook cleared the key strict loading would refuse
    assert got == [([], ["surplus"])]
    net2 = _net()
    net2.register_load_state_dict_post_hook(lambda m, k: "no")
    with pytest.raises(AssertionError, match="are not expected to return new values"):
        net2.load_state_dict(net2.state_dict())


def test_load_state_dict_assign_takes_the_tensors_themselves():
    net = nn.Linear(2, 2)
    w = nbgrad.ones(2, 2)
    net.load_state_dict({"weight": w, "bias": nbgrad.zeros(2)}, assign=True)
    assert isinstance(net.weight, nn.Parameter) and net.weight.requires_grad
    assert net.weight.data_ptr() == w.data_ptr()
    net.weight.requires_grad_(False)
    p = nn.Parameter(nbgrad.zeros(2, 2))
    net.load_state_dict({"weight": p, "bias": nbgrad.zeros(2)}, assign=True)
    assert net.weight is p and not p.requires_grad      # the module's requires_grad wins
