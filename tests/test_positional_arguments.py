"""Which arguments may be passed by position: PyTorch's keyword-only parameters (dtype=,
stable=, as_tuple=, decimals=, generator=, ...) are keyword-only in nbgrad too, so that a call
PyTorch refuses (`torch.full((2,), 1.0, torch.float64)`) is Python's TypeError here, for free.

The reference is PyTorch's own schemas as nbgrad records them (nbgrad/ops/_schemas.py,
generated from PyTorch's stubs and aten's schemas): no function or method may take more
positional arguments than PyTorch's widest overload does."""
import inspect
import math
import os

import pytest

import nbgrad

_RECORD = pytest.mark.skipif(os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1",
                             reason="reads nbgrad's record of PyTorch's schemas")

# nbgrad takes more on purpose:
#   Tensor.add/sub: PyTorch's deprecated add(Number alpha, Tensor other), read by
#     ops/_signatures.number_first, is positional
#   torch.celu/selu/threshold: the same functions as nn.functional's, whose inplace is positional
ALLOWED = {"Tensor.add", "Tensor.sub", "torch.celu", "torch.selu", "torch.threshold"}


def _positional_capacity(fn, method):
    """How many arguments fn takes by position (after self for a method); inf for *args."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return math.inf             # (checked by the function itself)
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and not p.name.startswith("_") for p in params)
    return n - 1 if method else n


def _ours(key):
    kind, name = key.split(".", 1)
    if kind == "Tensor":
        return getattr(nbgrad.Tensor, name, None), True
    for prefix, module in (("linalg_", nbgrad.linalg), ("special_", nbgrad.special)):
        if name.startswith(prefix) and hasattr(module, name[len(prefix):]):
            return getattr(module, name[len(prefix):]), False
    return getattr(nbgrad, name, None), False


@_RECORD
def test_no_function_takes_more_positional_arguments_than_pytorch():
    from nbgrad.ops._argument_check import _overloads
    from nbgrad.ops._schemas import SCHEMAS
    wider = []
    for key in SCHEMAS:
        if not key.startswith(("torch.", "Tensor.")) or key in ALLOWED:
            continue
        fn, method = _ours(key)
        if fn is None:
            continue
        theirs = max(math.inf if var else len(positional) for positional, var, _ in _overloads(key))
        ours = _positional_capacity(fn, method)
        if ours is not None and ours != math.inf and ours > theirs:
            wider.append(f"{key}: {ours} > {theirs}")
    assert not wider, wider


@pytest.mark.parametrize("call", [
    lambda: nbgrad.full((2,), 1.0, nbgrad.float64),
    lambda: nbgrad.arange(0, 5, 1, nbgrad.float64),
    lambda: nbgrad.zeros_like(nbgrad.ones(2), nbgrad.float64),
    lambda: nbgrad.ones(3).sort(0, True, True),
    lambda: nbgrad.ones(3).nonzero(True),
    lambda: nbgrad.round(nbgrad.ones(3), 2),
    lambda: nbgrad.asarray(nbgrad.ones(2), nbgrad.float64),
])
def test_keyword_only_parameters_refuse_a_position(call):
    with pytest.raises(TypeError, match="positional argument|invalid combination"):
        call()


def test_asarray_copy_and_requires_grad():
    import numpy as np
    t = nbgrad.ones(2)
    assert nbgrad.asarray(t) is t
    c = nbgrad.asarray(t, copy=True)
    c.add_(1)
    assert t.tolist() == [1.0, 1.0] and c.tolist() == [2.0, 2.0]
    n = np.ones(2)
    nbgrad.asarray(n).add_(1)
    assert n.tolist() == [2.0, 2.0]                 # shared
    with pytest.raises(ValueError, match="can't alias"):
        nbgrad.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="can't alias"):
        nbgrad.asarray(n, dtype=nbgrad.float32, copy=False)
    r = nbgrad.asarray(t, requires_grad=True)
    assert r is t and t.requires_grad
    with pytest.raises(TypeError, match="argument 'requires_grad' must be bool, not Tensor"):
        nbgrad.asarray(t, requires_grad=nbgrad.ones(1))
