"""F.embedding / nn.Embedding: values, PyTorch's node (EmbeddingBackward0), the gradient
(row sums, none for padding_idx, scale_grad_by_freq), max_norm's in-place renormalisation,
reprs and errors; the CUDA backend under the simulator."""
import numpy as np
import pytest

import nbgrad

from ._cuda import requires_cuda

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck

IDX = np.array([[0, 2, 2], [4, 2, 1]])


def np_embedding_grad(idx, g, n, padding_idx=None, scale_grad_by_freq=False):
    """PyTorch's embedding_dense_backward: each index's gradient row added into its row."""
    out = np.zeros((n, g.shape[-1]))
    flat, rows = idx.reshape(-1), g.reshape(-1, g.shape[-1])
    counts = np.bincount(flat, minlength=n)
    for i, r in zip(flat, rows):
        if i == padding_idx:
            continue
        out[i] += r / counts[i] if scale_grad_by_freq else r
    return out


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("scale", [False, True])
def test_values_node_and_gradient(padding_idx, scale):
    rng = np.random.default_rng(0)
    wn = rng.standard_normal((5, 4))
    w = nbgrad.tensor(wn, requires_grad=True)
    idx = nbgrad.tensor(IDX)
    y = F.embedding(idx, w, padding_idx=padding_idx, scale_grad_by_freq=scale)
    np.testing.assert_array_equal(y.detach().numpy(), wn[IDX])
    assert type(y.grad_fn).__name__ == "EmbeddingBackward0" and y.is_contiguous()
    g = rng.standard_normal((2, 3, 4))
    y.backward(nbgrad.tensor(g))
    pad = None if padding_idx is None else padding_idx % 5
    np.testing.assert_allclose(w.grad.numpy(), np_embedding_grad(IDX, g, 5, pad, scale), rtol=1e-14)
    if padding_idx is None and not scale:    # else the gradient deliberately differs from the derivative
        assert gradcheck(lambda t: F.embedding(idx, t), (w,))
    assert gradgradcheck(lambda t: F.embedding(idx, t, padding_idx=padding_idx, scale_grad_by_freq=scale), (w,))


def test_int32_indices_and_zero_dim():
    w = nbgrad.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    y = F.embedding(nbgrad.tensor(1, dtype=nbgrad.int32), w)
    assert y.shape == (2,) and y.tolist() == [2.0, 3.0]
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 0], [1, 1], [0, 0]])


def test_saved_indices_are_checked_for_in_place_changes():
    w = nbgrad.randn(4, 2, requires_grad=True)
    idx = nbgrad.tensor([0, 1])
    y = F.embedding(idx, w)
    idx.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_max_norm_renormalises_the_rows_used_in_place():
    rng = np.random.default_rng(1)
    wn = rng.standard_normal((6, 3)) * 3
    w = nbgrad.tensor(wn)
    v = w._version
    y = F.embedding(nbgrad.tensor(IDX), w, max_norm=1.5, norm_type=1.0)
    ref = wn.copy()
    for r in np.unique(IDX):
        norm = np.abs(ref[r]).sum()
        if norm > 1.5:
            ref[r] *= 1.5 / (norm + 1e-7)
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(y.numpy(), ref[IDX], rtol=1e-12)
    assert w._version == v + 1


def test_module_arguments_and_repr():
    m = nn.Embedding(10, 3, padding_idx=-2, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)
    assert m.padding_idx == 8
    assert repr(m) == "Embedding(10, 3, padding_idx=8, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)"
    assert repr(nn.Embedding(4, 2)) == "Embedding(4, 2)"
    assert list(m.state_dict()) == ["weight"]
    np.testing.assert_array_equal(m.weight.detach().numpy()[8], 0)
    out = m(nbgrad.tensor([8, 1, 1]))
    out.sum().backward()
    np.testing.assert_array_equal(m.weight.grad.numpy()[8], 0)
    np.testing.assert_array_equal(m.weight.grad.numpy()[1], 1.0)      # two uses of row 1, each scaled by 1/2
    assert (m.weight.detach().abs().sum(1) <= 2.0 + 1e-6).numpy()[[1, 8]].all()


def test_errors():
    w = nbgrad.ones(3, 2)
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        F.embedding(nbgrad.tensor([1.0]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(nbgrad.tensor([3]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(nbgrad.tensor([0]), w, padding_idx=3)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=-4)


@requires_cuda
def test_embedding_on_cuda():
    wn = np.arange(8.0).reshape(4, 2)
    w = nbgrad.tensor(wn, device="cuda", requires_grad=True)
    y = F.embedding(nbgrad.tensor([3, 1, 3], device="cuda"), w, padding_idx=1)
    assert y.device.type == "cuda" and type(y.grad_fn).__name__ == "EmbeddingBackward0"
    np.testing.assert_array_equal(y.detach().cpu().numpy(), wn[[3, 1, 3]])
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [[0, 0], [0, 0], [0, 0], [2, 2]])
