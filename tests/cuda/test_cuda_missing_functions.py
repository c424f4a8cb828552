"""tril/triu, flip, roll, cumsum/cumprod on both devices (tiny shapes: the simulator)."""
import numpy as np
import pytest

import nbgrad
from cuda_available import requires_cuda

RNG = np.random.default_rng(3)


def host(x):
    x = x.detach()
    return x.cpu().numpy() if x.device.type != "cpu" else x.numpy()


def test_rearranging_ops(device):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    x = nbgrad.tensor(a, device=device)
    np.testing.assert_array_equal(host(x.tril(-1)), np.tril(a, -1))
    np.testing.assert_array_equal(host(x.triu(1)), np.triu(a, 1))
    np.testing.assert_array_equal(host(x.t().flip(0)), np.flip(a.T, 0))
    np.testing.assert_array_equal(host(x.roll((1, -1), (0, 1))), np.roll(a, (1, -1), (0, 1)))
    np.testing.assert_array_equal(host(x.roll(5)), np.roll(a, 5))
    np.testing.assert_array_equal(host(x.repeat_interleave(2, dim=0)), np.repeat(a, 2, axis=0))


def test_cumulative_ops_and_gradients(device):
    a = np.array([[1.5, -2.0, 0.5], [0.0, 3.0, -1.0]], dtype=np.float64)
    x = nbgrad.tensor(a, device=device, requires_grad=True)
    np.testing.assert_allclose(host(x.cumsum(1)), np.cumsum(a, 1))
    np.testing.assert_allclose(host(x.t().cumprod(0)), np.cumprod(a.T, 0))
    assert x.cumsum(0).device == x.device
    assert host(nbgrad.tensor([1, 2, 3], device=device).cumsum(0)).tolist() == [1, 3, 6]
    h = nbgrad.tensor([1.0, 2.0, 3.5], dtype=nbgrad.float16, device=device).cumsum(0)
    assert h.dtype == nbgrad.float16 and host(h).tolist() == [1.0, 3.0, 6.5]
    y = x.cumprod(1)
    assert y.grad_fn.name() == "CumprodBackward0"
    (y * nbgrad.tensor([[1.0, 2.0, 3.0]], dtype=nbgrad.float64, device=device)).sum().backward()
    # row 0 without zeros, row 1 with its first element zero
    w = np.array([1.0, 2.0, 3.0])
    expected = np.zeros_like(a)
    for r in range(2):
        for k in range(3):
            expected[r, k] = sum(w[j] * np.prod([a[r, m] for m in range(j + 1) if m != k]) for j in range(k, 3))
    np.testing.assert_allclose(host(x.grad), expected)


@pytest.fixture
def restore_default_device():
    yield
    nbgrad.set_default_device(None)


@requires_cuda
def test_creation_honours_the_default_device(restore_default_device):
    nbgrad.set_default_device("cuda")
    assert nbgrad.get_default_device() == nbgrad.device("cuda", 0)
    made = [nbgrad.zeros(2), nbgrad.ones(2, 3), nbgrad.empty(1), nbgrad.full((2,), 3.0), nbgrad.arange(3),
            nbgrad.linspace(0, 1, 3), nbgrad.rand(2), nbgrad.randn(2), nbgrad.eye(2), nbgrad.tensor([1.0]),
            nbgrad.as_tensor(np.ones(2))]
    for t in made:
        assert t.device.type == "cuda"
    assert nbgrad.zeros(2, device="cpu").device.type == "cpu"
    assert nbgrad.tensor(nbgrad.ones(2, device="cpu")).device.type == "cpu"    # a tensor keeps its device
    assert host(nbgrad.arange(3).cumsum(0)).tolist() == [0, 1, 3]
    nbgrad.set_default_device(None)
    assert nbgrad.zeros(1).device.type == "cpu"
    with nbgrad.device("cuda"):
        assert nbgrad.zeros(1).device.type == "cuda"
    assert nbgrad.zeros(1).device.type == "cpu"


def test_comparison_counting_einsum_meshgrid(device):
    a = np.array([3, 1, 2, 3, 1])
    x = nbgrad.tensor(a, device=device)
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    assert values.device == x.device
    assert host(values).tolist() == [1, 2, 3] and host(inverse).tolist() == [2, 0, 1, 2, 0]
    assert host(counts).tolist() == [2, 1, 2]
    assert host(x.bincount(minlength=5)).tolist() == np.bincount(a, minlength=5).tolist()
    assert host(nbgrad.histc(x.float(), bins=3, min=1, max=3)).tolist() == [2.0, 1.0, 2.0]
    f = nbgrad.tensor([1.0, 2.0, float("nan")], device=device)
    assert host(f.isclose(f + 1e-9, equal_nan=True)).tolist() == [True, True, True]
    assert nbgrad.equal(f[:2], f[:2]) and nbgrad.allclose(f[:2], f[:2] * (1 + 1e-7))
    p = nbgrad.tensor(np.arange(6.0).reshape(2, 3), device=device, requires_grad=True)
    q = nbgrad.tensor(np.arange(3.0), device=device, requires_grad=True)
    out = nbgrad.einsum("ij,j->i", p, q)
    assert host(out).tolist() == (np.arange(6.0).reshape(2, 3) @ np.arange(3.0)).tolist()
    out.sum().backward()
    assert host(q.grad).tolist() == [3.0, 5.0, 7.0]
    gx, gy = nbgrad.meshgrid(q, q[:2], indexing="xy")
    assert gx.shape == (2, 3) and gx.device == q.device


@requires_cuda
def test_legacy_cuda_types():
    t = nbgrad.cuda.LongTensor([1, 2])
    assert t.device.type == "cuda" and t.dtype == nbgrad.int64 and host(t).tolist() == [1, 2]
    assert nbgrad.cuda.FloatTensor(2, 3).shape == (2, 3) and nbgrad.cuda.FloatTensor(2, 3).device.type == "cuda"
    z = nbgrad.zeros(1, device="cuda")
    assert isinstance(z, nbgrad.cuda.FloatTensor) and not isinstance(z, nbgrad.FloatTensor)
    assert not isinstance(nbgrad.zeros(1), nbgrad.cuda.FloatTensor)
    assert nbgrad.cuda.FloatTensor(z)._base is z
    with pytest.raises(TypeError, match="expected TensorOptions"):
        nbgrad.FloatTensor(z)
