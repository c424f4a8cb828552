"""nbgrad.nn.utils: gradient clipping, parameters <-> vector, pad_sequence (values checked
against NumPy; the rules are torch.nn.utils's)."""
import numpy as np
import pytest

import nbgrad
from nbgrad import nn


def _params(grads):
    ps = []
    for g in grads:
        p = nn.Parameter(nbgrad.zeros(*np.shape(g)))
        p.grad = nbgrad.tensor(np.asarray(g, dtype=np.float32))
        ps.append(p)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("max_norm", [1.0, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    grads = [[3.0, 4.0, 0.0], [[1.0, -2.0], [2.0, 0.0]]]
    ps = _params(grads)
    flat = np.concatenate([np.ravel(g) for g in grads])
    want_total = np.abs(flat).max() if norm_type == float("inf") else (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    total = nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
    assert total.dim() == 0
    np.testing.assert_allclose(total.item(), want_total, rtol=1e-6)
    coef = min(max_norm / (want_total + 1e-6), 1.0)
    for p, g in zip(ps, grads):
        np.testing.assert_allclose(p.grad.numpy(), np.asarray(g) * coef, rtol=1e-6)


def test_clip_grad_norm_details():
    p = nn.Parameter(nbgrad.ones(2))
    assert nn.utils.clip_grad_norm_([p], 1.0).item() == 0.0          # no gradients: a zero norm
    p.grad = nbgrad.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)    # a single tensor is accepted
    assert p.grad.tolist() == [float("inf"), 1.0]                    # nothing scaled


def test_clip_grad_value():
    ps = _params([[3.0, -4.0, 0.5]])
    nn.utils.clip_grad_value_(ps, 1.0)
    assert ps[0].grad.tolist() == [1.0, -1.0, 0.5]


def test_parameters_to_vector_and_back():
    lin = nn.Linear(3, 2)
    v = nn.utils.parameters_to_vector(lin.parameters())
    assert v.shape == (8,) and type(v.grad_fn).__name__ == "CatBackward0"
    np.testing.assert_array_equal(v.detach().numpy()[:6], lin.weight.detach().numpy().ravel())
    nn.utils.vector_to_parameters(nbgrad.arange(8.0), lin.parameters())
    assert lin.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and lin.bias.tolist() == [6.0, 7.0]
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.vector_to_parameters([1.0], lin.parameters())


def test_pad_sequence():
    a, b = nbgrad.ones(2, 3), nbgrad.full((4, 3), 2.0)
    out = nn.utils.rnn.pad_sequence([a, b])
    assert out.shape == (4, 2, 3)
    assert out[:, 0, 0].tolist() == [1.0, 1.0, 0.0, 0.0] and out[:, 1, 0].tolist() == [2.0] * 4
    out = nn.utils.rnn.pad_sequence([nbgrad.ones(2), nbgrad.ones(3)], batch_first=True, padding_value=-1,
                                    padding_side="left")
    assert out.tolist() == [[-1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    x = nbgrad.ones(2, requires_grad=True)
    nn.utils.rnn.pad_sequence([x, nbgrad.ones(3)]).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
