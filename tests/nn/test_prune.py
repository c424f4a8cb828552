"""nn.utils.prune: the `<name>_orig` / `<name>_mask` reparametrization and its forward pre-hook,
masks of the deterministic methods (NumPy references on tie-free data, and PyTorch 2.13's
recorded masks for composed pruning), counts and structure of the random ones, gradients
through the unmasked entries only, remove(), global pruning and PyTorch's errors."""
import importlib
import re

import numpy as np
import pytest

import nbgrad

# PyTorch does not import torch.nn.utils.prune with torch.nn.utils; nbgrad loads it on first
# attribute access.  Importing it by name serves both (and the stand-in run).
prune = importlib.import_module(nbgrad.__name__ + ".nn.utils.prune")

# distinct absolute values (no ties for topk to break)
W = (np.arange(24).reshape(4, 6) * 7 % 24) * 0.1 - 1.13
B = np.array([0.3, -0.1, 0.25, -0.4])


def _linear(dtype=nbgrad.float32):
    m = nbgrad.nn.Linear(6, 4).to(dtype)
    with nbgrad.no_grad():
        m.weight.copy_(nbgrad.tensor(W, dtype=dtype))
        m.bias.copy_(nbgrad.tensor(B, dtype=dtype))
    return m


def _arr(t):
    return np.array(t.detach().tolist())


def _smallest_abs_mask(values, k, keep=None):
    """1 everywhere but at the k entries of smallest |value| among those keep selects."""
    mask = np.ones(values.shape)
    keep = np.ones(values.shape, bool) if keep is None else keep
    flat = np.flatnonzero(keep.ravel())
    order = flat[np.argsort(np.abs(values.ravel()[flat]), kind="stable")]
    mask.ravel()[order[:k]] = 0
    return mask * keep


def test_module_is_reachable_by_attribute():
    assert nbgrad.nn.utils.prune is prune
    for name in ("BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
                 "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
                 "l1_unstructured", "random_structured", "ln_structured", "global_unstructured",
                 "custom_from_mask", "remove", "is_pruned"):
        assert hasattr(prune, name)


@pytest.mark.parametrize("amount, k", [(0.25, 6), (0.3, 7), (5, 5), (0, 0), (1.0, 24)])
def test_l1_unstructured_reparametrizes(amount, k):
    m = _linear()
    w = m.weight
    out = prune.l1_unstructured(m, "weight", amount=amount)
    assert out is m
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert m.weight_orig is w                      # the Parameter itself, moved
    assert not isinstance(m.weight, nbgrad.nn.Parameter)
    mask = _smallest_abs_mask(W, k)
    assert _arr(m.weight_mask).tolist() == mask.tolist()
    assert m.weight_mask.dtype == nbgrad.float32 and not m.weight_mask.requires_grad
    np.testing.assert_array_equal(_arr(m.weight), _arr(w) * mask)
    hooks = list(m._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.L1Unstructured)
    assert hooks[0]._tensor_name == "weight" and hooks[0].amount == amount
    assert prune.is_pruned(m)


def test_mask_follows_the_parameter_dtype():
    m = _linear(nbgrad.float64)
    prune.l1_unstructured(m, "weight", amount=3)
    assert m.weight_mask.dtype == nbgrad.float64
    assert _arr(m.weight_mask).tolist() == _smallest_abs_mask(W, 3).tolist()


def test_forward_pre_hook_and_gradients():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=10)
    mask = _smallest_abs_mask(W, 10)
    with nbgrad.no_grad():
        m.weight_orig.mul_(2.0)                    # the hook recomputes weight from the new orig
    x = np.linspace(-1, 1, 12).reshape(2, 6)
    y = m(nbgrad.tensor(x, dtype=nbgrad.float32))
    np.testing.assert_allclose(_arr(m.weight), 2 * W * mask, rtol=1e-6)
    np.testing.assert_allclose(_arr(y), x @ (2 * W * mask).T + B, rtol=1e-5, atol=1e-6)
    (y * nbgrad.tensor([[1.0, 2.0, 3.0, 4.0]])).sum().backward()
    # d/d orig of (mask * orig): the dense gradient, zero where pruned
    dense = np.array([[1.0, 2.0, 3.0, 4.0]] * 2).T @ x
    np.testing.assert_allclose(_arr(m.weight_orig.grad), dense * mask, rtol=1e-6, atol=1e-7)
    assert np.all(_arr(m.weight_orig.grad)[mask == 0] == 0)
    assert m.weight_mask.grad is None
    assert m.weight.grad_fn is not None and m.weight_orig.grad_fn is None


# PyTorch 2.13's weight_mask after each of these pruning calls on _linear()
_COMPOSED = [
    (lambda m: prune.l1_unstructured(m, "weight", amount=0.25),
     [[1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1], [0, 1, 1, 0, 1, 1], [1, 0, 1, 1, 0, 1]]),
    (lambda m: prune.ln_structured(m, "weight", amount=1, n=2, dim=0),
     [[1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1], [0, 1, 1, 0, 1, 1], [0, 0, 0, 0, 0, 0]]),
    (lambda m: prune.l1_unstructured(m, "weight", amount=3),
     [[1, 0, 0, 1, 1, 0], [1, 1, 0, 0, 1, 1], [0, 1, 1, 0, 1, 1], [0, 0, 0, 0, 0, 0]]),
    (lambda m: prune.ln_structured(m, "weight", amount=2, n=1, dim=1),
     [[1, 0, 0, 0, 1, 0], [1, 1, 0, 0, 1, 1], [0, 1, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0]]),
]


def test_repeated_pruning_composes_in_a_container():
    m = _linear()
    for i, (step, expected) in enumerate(_COMPOSED, 1):
        step(m)
        assert _arr(m.weight_mask).tolist() == np.array(expected, float).tolist()
        hooks = list(m._forward_pre_hooks.values())
        assert len(hooks) == 1
        if i == 1:
            assert isinstance(hooks[0], prune.L1Unstructured)
        else:
            assert isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == i
            assert [type(h).__name__ for h in hooks[0]] == \
                   ["L1Unstructured", "LnStructured", "L1Unstructured", "LnStructured"][:i]
            assert hooks[0][-1]._tensor_name == "weight"
        assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
        np.testing.assert_array_equal(_arr(m.weight), _arr(m.weight_orig) * np.array(expected))
    # the original values are kept whole under the mask
    np.testing.assert_array_equal(_arr(m.weight_orig), W.astype(np.float32))


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), "fro"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_prunes_smallest_channels(n, dim):
    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 3, 4))
    conv = nbgrad.nn.Conv1d(3, 5, 4).double()
    with nbgrad.no_grad():
        conv.weight.copy_(nbgrad.tensor(w))
    prune.ln_structured(conv, "weight", amount=0.4, n=n, dim=dim)
    axes = tuple(a for a in range(3) if a != dim % 3)
    p = 2 if n == "fro" else n
    norms = np.max(np.abs(w), axis=axes) if p == float("inf") else (np.abs(w) ** p).sum(axis=axes) ** (1 / p)
    k = round(0.4 * w.shape[dim])
    pruned = np.argsort(norms)[:k]
    expected = np.ones(w.shape)
    idx = [slice(None)] * 3
    idx[dim] = pruned
    expected[tuple(idx)] = 0
    assert _arr(conv.weight_mask).tolist() == expected.tolist()


def test_structured_twice_skips_dead_channels():
    # the second pruning chooses among the rows still alive: two rows are gone, the two of
    # smallest L2 norm (amount=0.34: round(0.34 * 3) = 1 of the 3 rows left)
    m = _linear()
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    prune.ln_structured(m, "weight", amount=0.34, n=2, dim=0)
    dead = np.argsort(np.sqrt((W ** 2).sum(axis=1)))[:2]
    expected = np.ones((4, 6))
    expected[dead] = 0
    assert _arr(m.weight_mask).tolist() == expected.tolist()
    nbgrad.manual_seed(5)
    prune.random_structured(m, "weight", amount=2, dim=0)   # the two rows left
    assert _arr(m.weight_mask).tolist() == [[0.0] * 6] * 4


def test_importance_scores():
    m = _linear()
    scores = np.arange(24, dtype=float).reshape(4, 6)[::-1].copy()   # the last row scores lowest
    prune.l1_unstructured(m, "weight", amount=6, importance_scores=nbgrad.tensor(scores))
    assert _arr(m.weight_mask).tolist() == [[1.0] * 6] * 3 + [[0.0] * 6]
    m = _linear()
    col_scores = np.abs(np.arange(6) - 2.6) * np.ones((4, 1))
    prune.ln_structured(m, "weight", amount=2, n=1, dim=1, importance_scores=nbgrad.tensor(col_scores))
    # column L1 norms of |c - 2.6|: columns 3 and 2 are smallest
    assert _arr(m.weight_mask)[0].tolist() == [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    m = _linear()
    with pytest.raises(AssertionError, match=r"importance_scores should have the same shape as parameter weight"):
        prune.l1_unstructured(m, "weight", amount=1, importance_scores=nbgrad.ones(3))
    # checked before the module is touched
    assert list(m.state_dict()) == ["weight", "bias"] and not prune.is_pruned(m)


def test_random_unstructured_counts_and_nesting():
    nbgrad.manual_seed(0)
    m = _linear()
    prune.random_unstructured(m, "weight", amount=0.25)
    first = _arr(m.weight_mask)
    assert set(np.unique(first)) <= {0.0, 1.0} and (first == 0).sum() == 6
    prune.random_unstructured(m, "weight", amount=5)       # 5 more, among the 18 kept
    second = _arr(m.weight_mask)
    assert (second == 0).sum() == 11
    assert np.all(second[first == 0] == 0)
    prune.random_unstructured(m, "weight", amount=0.5)     # round(0.5 * 13) = 6 more (round half to even)
    assert (_arr(m.weight_mask) == 0).sum() == 17
    np.testing.assert_array_equal(_arr(m.weight), _arr(m.weight_orig) * _arr(m.weight_mask))


@pytest.mark.parametrize("dim, amount, k", [(0, 0.5, 2), (1, 1, 1), (-1, 0.34, 1), (2, 2, 2)])
def test_random_structured_prunes_whole_channels(dim, amount, k):
    nbgrad.manual_seed(1)
    conv = nbgrad.nn.Conv2d(2, 4, 3)
    prune.random_structured(conv, "weight", amount=amount, dim=dim)
    mask = _arr(conv.weight_mask)
    axes = tuple(a for a in range(4) if a != dim % 4)
    per_channel = mask.sum(axis=axes)
    full = mask.size // mask.shape[dim]
    assert sorted(per_channel.tolist()) == [0.0] * k + [float(full)] * (mask.shape[dim] - k)


def test_structured_after_unstructured_keeps_both():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=6)
    before = _arr(m.weight_mask)
    nbgrad.manual_seed(3)
    prune.random_structured(m, "weight", amount=2, dim=1)
    after = _arr(m.weight_mask)
    assert np.all(after <= before)
    dead = np.flatnonzero(after.sum(axis=0) == 0)
    assert len(dead) == 2
    alive = [c for c in range(6) if c not in dead]
    assert after[:, alive].tolist() == before[:, alive].tolist()


def test_custom_from_mask_and_identity():
    m = _linear()
    user_mask = (np.arange(24).reshape(4, 6) % 3 != 0).astype(float)
    prune.custom_from_mask(m, "weight", mask=nbgrad.tensor(user_mask))
    assert _arr(m.weight_mask).tolist() == user_mask.tolist()
    np.testing.assert_array_equal(_arr(m.weight), W.astype(np.float32) * user_mask)
    prune.identity(m, "bias")
    assert _arr(m.bias_mask).tolist() == [1.0] * 4
    np.testing.assert_array_equal(_arr(m.bias), B.astype(np.float32))
    assert list(m.state_dict()) == ["weight_orig", "bias_orig", "weight_mask", "bias_mask"]
    # a second custom mask multiplies into the first
    prune.custom_from_mask(m, "weight", mask=nbgrad.tensor((np.arange(24).reshape(4, 6) < 12).astype(float)))
    assert _arr(m.weight_mask).tolist() == (user_mask * (np.arange(24).reshape(4, 6) < 12)).tolist()


def test_remove_makes_a_parameter_again():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=8)
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    orig = m.weight_orig
    mask = _arr(m.weight_mask)
    assert prune.remove(m, "weight") is m
    assert m.weight is orig and isinstance(m.weight, nbgrad.nn.Parameter) and m.weight.requires_grad
    np.testing.assert_array_equal(_arr(m.weight), W.astype(np.float32) * mask)
    assert list(m.state_dict()) == ["bias", "weight"]
    assert len(m._forward_pre_hooks) == 0 and not prune.is_pruned(m)
    assert not hasattr(m, "weight_orig") and not hasattr(m, "weight_mask")
    y = m(nbgrad.ones(1, 6)).sum()
    y.backward()
    assert _arr(m.weight.grad).tolist() == [[1.0] * 6] * 4    # no mask any more
    with pytest.raises(ValueError, match=r"^Parameter 'weight' of module Linear\(in_features=6, out_features=4, "
                                         r"bias=True\) has to be pruned before pruning can be removed$"):
        prune.remove(m, "weight")


def test_is_pruned_looks_into_submodules():
    net = nbgrad.nn.Sequential(nbgrad.nn.Linear(3, 4), nbgrad.nn.ReLU(), nbgrad.nn.Linear(4, 2))
    assert not prune.is_pruned(net)
    prune.random_unstructured(net[2], "bias", amount=1)
    assert prune.is_pruned(net)
    assert [n for n, _ in net.named_buffers()] == ["2.bias_mask"]
    prune.remove(net[2], "bias")
    assert not prune.is_pruned(net)


def test_global_unstructured():
    a, b = _linear(), nbgrad.nn.Linear(3, 2)
    wb = np.array([[0.05, -2.0, 0.15], [1.5, -0.06, 0.25]])
    with nbgrad.no_grad():
        b.weight.copy_(nbgrad.tensor(wb))
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=5)
    both = np.concatenate([W.ravel(), wb.ravel()])
    mask = _smallest_abs_mask(both, 5)
    assert _arr(a.weight_mask).ravel().tolist() == mask[:24].tolist()
    assert _arr(b.weight_mask).ravel().tolist() == mask[24:].tolist()
    assert isinstance(next(iter(a._forward_pre_hooks.values())), prune.CustomFromMask)
    # again, now among the kept entries, with importance scores for b
    scores = {(b, "weight"): nbgrad.tensor([[9.0, 9.0, 9.0], [9.0, 9.0, -0.001]])}
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured,
                              importance_scores=scores, amount=0.1)
    keep = mask.astype(bool)
    both2 = np.concatenate([W.ravel(), [9.0, 9.0, 9.0, 9.0, 9.0, -0.001]])
    mask2 = _smallest_abs_mask(both2, round(0.1 * 25), keep)     # 25 entries left: 2 (rounded 2.5) more
    assert _arr(a.weight_mask).ravel().tolist() == mask2[:24].tolist()
    assert _arr(b.weight_mask).ravel().tolist() == mask2[24:].tolist()
    assert isinstance(next(iter(a._forward_pre_hooks.values())), prune.PruningContainer)


def test_global_unstructured_errors():
    m = _linear()
    with pytest.raises(TypeError, match=r"^global_unstructured\(\): parameters is not an Iterable$"):
        prune.global_unstructured(3, pruning_method=prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match=r"^global_unstructured\(\): importance_scores must be of type dict$"):
        prune.global_unstructured([(m, "weight")], pruning_method=prune.L1Unstructured, importance_scores=[1],
                                  amount=1)
    with pytest.raises(TypeError, match=r'^Only "unstructured" PRUNING_TYPE supported for the `pruning_method`\. '
                                        r"Found method <class '\w+\.nn\.utils\.prune\.LnStructured'> of type "
                                        r"structured$"):
        prune.global_unstructured([(m, "weight")], pruning_method=prune.LnStructured, amount=1, n=2, dim=0)
    assert not prune.is_pruned(m)


@pytest.mark.parametrize("amount, exc, message", [
    ("0.5", TypeError, "Invalid type for amount: 0.5. Must be int or float."),
    (-1, ValueError, "amount=-1 should either be a float in the range [0, 1] or a non-negative integer"),
    (1.5, ValueError, "amount=1.5 should either be a float in the range [0, 1] or a non-negative integer"),
    (-0.1, ValueError, "amount=-0.1 should either be a float in the range [0, 1] or a non-negative integer"),
])
def test_amount_validation(amount, exc, message):
    for cls in (prune.L1Unstructured, prune.RandomUnstructured):
        with pytest.raises(exc, match="^" + re.escape(message) + "$"):
            cls(amount)
    for cls, kw in ((prune.RandomStructured, {}), (prune.LnStructured, {"n": 2})):
        with pytest.raises(exc, match="^" + re.escape(message) + "$"):
            cls(amount, **kw)
    m = _linear()
    with pytest.raises(exc, match="^" + re.escape(message) + "$"):
        prune.l1_unstructured(m, "weight", amount=amount)
    # refused in the constructor, before the module is touched
    assert list(m.state_dict()) == ["weight", "bias"]


def test_errors_roll_the_module_back():
    m = _linear()
    w = m.weight
    with pytest.raises(ValueError, match=r"^amount=30 should be smaller than the number of parameters to prune=24$"):
        prune.l1_unstructured(m, "weight", amount=30)
    # PyTorch's roll-back registers the parameter again: it comes after bias now
    assert m.weight is w and list(m.state_dict()) == ["bias", "weight"] and len(m._forward_pre_hooks) == 0
    with pytest.raises(ValueError, match=r"^Structured pruning can only be applied to multidimensional tensors\. "
                                         r"Found tensor of shape \w+\.Size\(\[4\]\) with 1 dims$"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    with pytest.raises(IndexError, match=r"^Invalid index 2 for tensor of size \w+\.Size\(\[4, 6\]\)$"):
        prune.random_structured(m, "weight", amount=1, dim=2)
    with pytest.raises(ValueError, match=r"^amount=7 should be smaller than the number of parameters to prune=6$"):
        prune.ln_structured(m, "weight", amount=7, n=1, dim=1)
    assert list(m.state_dict()) == ["bias", "weight"] and not prune.is_pruned(m)
    # a failure on top of earlier pruning keeps the earlier pruning as it was
    prune.l1_unstructured(m, "weight", amount=4)
    mask = _arr(m.weight_mask)
    with pytest.raises(ValueError, match=r"^amount=21 should be smaller than the number of parameters to prune=20$"):
        prune.l1_unstructured(m, "weight", amount=21)
    assert _arr(m.weight_mask).tolist() == mask.tolist()
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]


def test_pruning_container_checks():
    a = prune.L1Unstructured(1)
    a._tensor_name = "weight"
    c = prune.PruningContainer(a)
    assert len(c) == 1 and c[0] is a and list(c) == [a] and c._tensor_name == "weight"
    with pytest.raises(TypeError, match=r"^<class 'int'> is not a BasePruningMethod subclass$"):
        c.add_pruning_method(3)
    b = prune.L1Unstructured(1)
    b._tensor_name = "bias"
    with pytest.raises(ValueError, match=r"^Can only add pruning methods acting on the parameter named 'weight' "
                                         r"to PruningContainer .*\. Found 'bias'$"):
        c.add_pruning_method(b)
    assert len(c) == 1
    with pytest.raises(TypeError):
        prune.BasePruningMethod()        # abstract: compute_mask


def test_prune_method_on_a_tensor_and_a_custom_method():
    t = nbgrad.tensor(W)
    out = prune.L1Unstructured(amount=4).prune(t)
    np.testing.assert_array_equal(_arr(out), W * _smallest_abs_mask(W, 4))
    # |scores|: 23, 22, ... 0 -- the last four entries go
    out = prune.L1Unstructured(amount=4).prune(t, importance_scores=nbgrad.arange(-23.0, 1.0).reshape(4, 6))
    assert (_arr(out) == 0).sum() == 4 and np.all(_arr(out)[-1, 2:] == 0)

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    m = _linear()
    EveryOther.apply(m, "bias")
    assert _arr(m.bias_mask).tolist() == [0.0, 1.0, 0.0, 1.0]
    EveryOther.apply(m, "bias")       # composed: every other of the kept entries (1 and 3): 1
    assert _arr(m.bias_mask).tolist() == [0.0, 0.0, 0.0, 1.0]


def test_state_dict_loads_into_a_pruned_module():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=9)
    n = nbgrad.nn.Linear(6, 4)
    prune.identity(n, "weight")
    n.load_state_dict(m.state_dict())
    n(nbgrad.ones(1, 6))                       # the hook recomputes weight from the loaded orig and mask
    np.testing.assert_array_equal(_arr(n.weight), _arr(m.weight))
    assert _arr(n.weight_mask).tolist() == _smallest_abs_mask(W, 9).tolist()
