"""normalize, cosine_similarity, pairwise_distance, pdist (nbgrad/ops/distance.py) against float64
NumPy references, finite differences, PyTorch 2.13's node names and errors (recorded)."""
import numpy as np
import pytest

import nbgrad
from ._cuda import requires_cuda
from ._float64 import t
nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def np_norm(a, p, axis, keepdims=False):
    a = np.abs(a)
    if p == np.inf:
        return a.max(axis, keepdims=keepdims)
    if p == 0:
        return (a != 0).sum(axis, keepdims=keepdims).astype(float)
    return (a ** p).sum(axis, keepdims=keepdims) ** (1 / p)


@pytest.mark.parametrize("p, dim", [(2.0, 1), (1.0, 1), (3.0, 0), (2.0, -1)])
def test_normalize(rng, p, dim):
    x = rng.normal(size=(4, 5))
    x[1] = 0.0                                       # a zero row: divided by eps, gradient finite
    xt = t(x, True)
    out = F.normalize(xt, p=p, dim=dim)
    np.testing.assert_allclose(out.detach().numpy(), x / np.maximum(np_norm(x, p, dim, True), 1e-12),
                               rtol=1e-12, atol=1e-15)
    assert out.grad_fn.name() == "DivBackward0"
    x[1] = rng.normal(size=5)                        # finite differences away from the kink
    assert gradcheck(lambda a: F.normalize(a, p=p, dim=dim), (t(x, True),))


def test_cosine_similarity(rng):
    x, y = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    xt, yt = t(x, True), t(y, True)
    out = F.cosine_similarity(xt, yt)
    ref = (x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    assert out.grad_fn.name() == "SumBackward1"
    np.testing.assert_allclose(nn.CosineSimilarity(dim=0)(xt, yt).detach().numpy(),
                               (x * y).sum(0) / (np.linalg.norm(x, axis=0) * np.linalg.norm(y, axis=0)),
                               rtol=1e-12)
    assert gradcheck(F.cosine_similarity, (xt, yt)) and gradgradcheck(F.cosine_similarity, (xt, yt))
    # broadcasting, and the top-level name
    a, b = rng.normal(size=(3, 1, 4)), rng.normal(size=(5, 4))
    out = nbgrad.cosine_similarity(t(a), t(b), dim=-1)
    assert tuple(out.shape) == (3, 5)
    np.testing.assert_allclose(out.numpy(), (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) *
                                                              np.linalg.norm(b, axis=-1)), rtol=1e-12)


def test_cosine_similarity_small_norms_recorded():
    # PyTorch 2.13: a row of norm 5e-9 < eps is divided by eps in value, while its norm's
    # backward reads the unclamped norm
    x = t([[3e-9, 4e-9]], True)
    out = F.cosine_similarity(x, t([[1.0, 2.0]]))
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[15205262.246998575, 50087922.69599529]], rtol=1e-12)
    z = t(np.zeros((2, 3)), True)                     # a zero row: cosine 0 and a finite gradient
    w = np.array([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]])
    out = F.cosine_similarity(z, t(w))
    assert out.detach().numpy().tolist() == [0.0, 0.0]
    out.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), w / np.linalg.norm(w, axis=1, keepdims=True) / 1e-8, rtol=1e-12)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, np.inf, 0.5])
def test_pairwise_distance(rng, p):
    x, y = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    xt, yt = t(x, True), t(y, True)
    out = F.pairwise_distance(xt, yt, p=p)
    np.testing.assert_allclose(out.detach().numpy(), np_norm(x - y + 1e-6, p, 1), rtol=1e-12)
    assert out.grad_fn.name() == "NormBackward1"
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, p=p), (xt, yt))
    out = nn.PairwiseDistance(p, keepdim=True)(xt, t(y[0]))
    assert tuple(out.shape) == (5, 1)
    np.testing.assert_allclose(out.detach().numpy(), np_norm(x - y[0] + 1e-6, p, 1, True), rtol=1e-12)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, np.inf, 0.5, 0.0])
def test_pdist(rng, p):
    x = rng.normal(size=(5, 3))
    xt = t(x, True)
    out = F.pdist(xt, p)
    i, j = np.triu_indices(5, 1)
    np.testing.assert_allclose(out.detach().numpy(), np_norm(x[i] - x[j], p, 1), rtol=1e-12)
    assert out.grad_fn.name() == "PdistBackward0"
    if p == 0:                                      # PyTorch: a zero gradient, not an absent one
        out.sum().backward()
        assert xt.grad is not None and not xt.grad.numpy().any()
    else:
        assert gradcheck(lambda a: F.pdist(a, p), (xt,))
    single = nbgrad.pdist(t(x[:1], True))
    assert tuple(single.shape) == (0,) and single.grad_fn.name() == "PdistBackward0"


def test_pdist_equal_rows_have_zero_gradient():
    x = t([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], True)
    F.pdist(x).sum().backward()
    s = 1 / np.sqrt(5.0)
    np.testing.assert_allclose(x.grad.numpy(), [[s, 2 * s], [s, 2 * s], [-2 * s, -4 * s]], rtol=1e-12)


def test_distance_errors():
    with pytest.raises(RuntimeError, match="^pdist only supports 2D tensors, got: 1D$"):
        F.pdist(t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="^pdist only supports non-negative p values$"):
        F.pdist(t(np.ones((3, 2))), -1)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 0"):
        F.cosine_similarity(t(np.ones((3, 4))), t(np.ones((2, 4))))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 0"):
        F.pairwise_distance(t(np.ones((3, 4))), t(np.ones((2, 4))))


@requires_cuda
@pytest.mark.parametrize("fn", [lambda a, b: F.pdist(a), F.cosine_similarity, F.pairwise_distance,
                                lambda a, b: F.normalize(a)])
def test_on_cuda_as_on_cpu(rng, fn):
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    results = []
    for device in ("cpu", "cuda"):
        a = nbgrad.tensor(x, device=device, requires_grad=True)
        out = fn(a, nbgrad.tensor(y, device=device))
        out.sum().backward()
        assert out.device.type == device
        results.append((out.detach().cpu().numpy(), a.grad.cpu().numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)


def test_normalize_writes_into_out():
    x = nbgrad.tensor([[3.0, 4.0], [0.0, 0.0]])
    out = nbgrad.empty(2, 2)
    v = out._version
    assert F.normalize(x, dim=1, out=out) is out
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-7)
    assert out._version > v
