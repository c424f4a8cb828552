"""The classes API fuzz seed 42 found (PyTorch 2.13's behaviour recorded)."""
import pytest

import nbgrad

F = nbgrad.nn.functional


@pytest.mark.parametrize("call, error, message", [
    ("nbgrad.nonzero(nbgrad.ones(2), as_tuple=nbgrad.tensor([1]))", TypeError,
     "nonzero(): argument 'as_tuple' must be bool, not Tensor"),
    ("F.linear(nbgrad.ones(2, 1, 3), nbgrad.ones(2, 3, 4), nbgrad.tensor(1.0))", RuntimeError,
     "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    ("nbgrad.prelu(nbgrad.ones(3, dtype=nbgrad.int64), nbgrad.ones(1, dtype=nbgrad.int64))", NotImplementedError,
     "\"prelu_cpu\" not implemented for 'Long'"),
    ("nbgrad.pdist(nbgrad.ones(3, 2, dtype=nbgrad.bfloat16))", NotImplementedError,
     "\"pdist\" not implemented for 'BFloat16'"),
])
def test_refused_as_pytorch_refuses(call, error, message):
    with pytest.raises(error) as info:
        eval(call)
    assert str(info.value) == message


def test_taken_as_pytorch_takes():
    assert nbgrad.searchsorted(nbgrad.ones(2, 3, dtype=nbgrad.float64), nbgrad.zeros(2, 0)).shape == (2, 0)
    assert nbgrad.pdist(nbgrad.ones(1, 3, dtype=nbgrad.bfloat16)).shape == (0,)       # (no pair: no kernel)
    d = nbgrad.pairwise_distance(nbgrad.ones(2, 3, dtype=nbgrad.int64), nbgrad.zeros(2, 3, dtype=nbgrad.int64), 2, 0)
    assert d.dtype is nbgrad.float32 and d.tolist() == pytest.approx([3 ** 0.5] * 2)
    assert F.linear(nbgrad.ones(3), nbgrad.ones(3)).item() == 3.0
