"""nn.init's trunc_normal_, orthogonal_, eye_, dirac_ and sparse_, with PyTorch's algorithms
(dirac_'s weights compared with torch 2.13's; the random ones by their defining properties)."""
import numpy as np
import pytest

import nbgrad as T
from nbgrad.nn import init


def test_trunc_normal_stays_in_its_interval_with_the_truncated_moments():
    T.manual_seed(0)
    w = init.trunc_normal_(T.empty(2000, 50), 0.5, 0.3, -0.1, 1.0)
    a = w.numpy()
    assert a.min() >= -0.1 and a.max() <= 1.0
    # the moments of N(0.5, 0.3) truncated to [-0.1, 1.0] (torch 2.13 draws: 0.486, 0.251)
    assert abs(a.mean() - 0.486) < 0.01 and abs(a.std() - 0.251) < 0.01
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(T.empty(3), mean=5.0, std=1.0)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_gain(shape):
    q = init.orthogonal_(T.empty(*shape), gain=2.0)
    m = q.reshape(shape[0], -1).numpy()
    g = m @ m.T if shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(g, 4 * np.eye(g.shape[0]), atol=1e-5)
    x = T.ones(3, 3, requires_grad=True)
    assert init.orthogonal_(x) is x and x.requires_grad and x.grad_fn is None
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(T.empty(3))


def test_eye_and_dirac():
    assert init.eye_(T.empty(3, 4)).tolist() == np.eye(3, 4).tolist()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(T.empty(2, 2, 2))
    d = init.dirac_(T.empty(4, 2, 3, 3), groups=2)
    want = np.zeros((4, 2, 3, 3))
    for o, i in ((0, 0), (1, 1), (2, 0), (3, 1)):
        want[o, i, 1, 1] = 1
    assert d.tolist() == want.tolist()
    d = init.dirac_(T.empty(3, 4, 5))
    want = np.zeros((3, 4, 5))
    for c in range(3):
        want[c, c, 2] = 1
    assert d.tolist() == want.tolist()
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(T.empty(3, 2, 3), groups=2)


def test_sparse_zeros_the_same_count_in_every_column():
    s = init.sparse_(T.empty(10, 6), 0.3)
    assert [(s[:, j] == 0).sum().item() for j in range(6)] == [3] * 6
    assert float(s.abs().max()) < 0.1


def test_deprecated_spellings_warn():
    with pytest.warns(FutureWarning):
        init.eye(T.empty(2, 2))
