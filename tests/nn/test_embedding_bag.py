"""F.embedding_bag and nn.EmbeddingBag: sums, means and maxima of bags of rows against a NumPy
loop, gradients (per_sample_weights' too) against the loop's adjoint, PyTorch's node name,
checks and messages, the module's initialisation and repr.

Two departures from PyTorch 2.13's CPU kernels, where they disagree with their own
documentation and with each other: with include_last_offset and offsets[-1] < len(input),
the float32 mean divides the documented bag's sum by the count of a bag running to the end
of input, and float64 sum/mean and max run the last bag to the end; nbgrad ends it at
offsets[-1] everywhere.  And scale_grad_by_freq: PyTorch's CPU embedding_bag does not
count each index's frequency ([1, 1, 2] in one bag scales index 2's gradient by 1/2);
nbgrad divides by the frequency, as nn.Embedding does."""
import os

import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.nn import functional as F

AGAINST_TORCH = os.environ.get("NBGRAD_TESTS_AGAINST_TORCH") == "1"
RNG = np.random.default_rng(3)
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9, 5, 3, 7, 2])


def _bags(n, offsets, include_last):
    ends = list(offsets[1:]) + ([] if include_last else [n])
    return list(zip(offsets[:len(ends)], ends))


def _np_bag(w, idx, offsets, mode, include_last=False, padding_idx=None, psw=None):
    """(output, the weight's gradient for an output gradient of ones * g) by the definition."""
    out = np.zeros((len(_bags(len(idx), offsets, include_last)), w.shape[1]))
    picks = []          # per bag: (row, scale) pairs that carry the gradient
    for b, (s, e) in enumerate(_bags(len(idx), offsets, include_last)):
        entries = [j for j in range(s, e) if idx[j] != padding_idx]
        if not entries:
            picks.append([])
            continue
        rows = w[idx[entries]] * (1.0 if psw is None else psw[entries][:, None])
        if mode == "max":
            first = rows.argmax(0)          # NumPy's argmax: the first maximum
            out[b] = rows[first, np.arange(w.shape[1])]
            picks.append([(idx[entries[f]], d) for d, f in enumerate(first)])
        else:
            total = np.zeros(w.shape[1])
            for r in rows:
                total = total + r           # in input's order
            out[b] = total / (len(entries) if mode == "mean" else 1)
            scale = 1.0 / len(entries) if mode == "mean" else 1.0
            picks.append([(idx[j], scale * (1.0 if psw is None else psw[j])) for j in entries])
    return out, picks


def _np_weight_grad(w, picks, g, mode):
    gw = np.zeros_like(w)
    for b, bag in enumerate(picks):
        for row, s in bag:
            if mode == "max":
                gw[row, s] += g[b, s]
            else:
                gw[row] += s * g[b]
    return gw


CASES = [
    (np.array([0, 4, 4, 9]), False),            # an empty bag in the middle
    (np.array([0, 4, 4, 9, 12]), True),         # CSR offsets
    (np.array([0]), False),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets, include_last", CASES)
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_values_and_weight_gradient(mode, offsets, include_last, padding_idx):
    w = RNG.standard_normal((12, 3))
    w[3, 1] = w[5, 1]                           # a tie: max keeps the first entry
    weight = nbgrad.tensor(w, requires_grad=True)
    y = F.embedding_bag(nbgrad.tensor(IDX), weight, nbgrad.tensor(offsets), mode=mode,
                        include_last_offset=include_last, padding_idx=padding_idx)
    ref, picks = _np_bag(w, IDX, offsets, mode, include_last, padding_idx)
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-15, atol=1e-15)
    assert type(y.grad_fn).__name__ == "EmbeddingBagBackward0"
    g = RNG.standard_normal(ref.shape)
    (y * nbgrad.tensor(g)).sum().backward()
    np.testing.assert_allclose(weight.grad.numpy(), _np_weight_grad(w, picks, g, mode), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_is_fixed_length_bags(mode):
    w = nbgrad.tensor(RNG.standard_normal((12, 4)), dtype=nbgrad.float32)
    y = F.embedding_bag(nbgrad.tensor(IDX.reshape(3, 4)), w, mode=mode)
    ref, _ = _np_bag(w.numpy().astype(np.float64), IDX, np.array([0, 4, 8]), mode)
    assert y.dtype is nbgrad.float32 and y.shape == (3, 4)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6, atol=1e-6)
    module = nn.EmbeddingBag.from_pretrained(w, mode=mode)
    np.testing.assert_array_equal(module(nbgrad.tensor(IDX.reshape(3, 4))).numpy(), y.numpy())


def test_embedding_bag_per_sample_weights():
    w, psw = RNG.standard_normal((12, 3)), RNG.standard_normal(12)
    weight, p = nbgrad.tensor(w, requires_grad=True), nbgrad.tensor(psw, requires_grad=True)
    offsets = np.array([0, 5, 5])
    y = F.embedding_bag(nbgrad.tensor(IDX), weight, nbgrad.tensor(offsets), mode="sum", per_sample_weights=p,
                        padding_idx=4)
    ref, picks = _np_bag(w, IDX, offsets, "sum", padding_idx=4, psw=psw)
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-15, atol=1e-15)
    g = RNG.standard_normal(ref.shape)
    (y * nbgrad.tensor(g)).sum().backward()
    np.testing.assert_allclose(weight.grad.numpy(), _np_weight_grad(w, picks, g, "sum"), rtol=1e-12, atol=1e-12)
    bag = np.repeat(np.arange(3), np.diff(np.append(offsets, 12)))
    expect = np.where(IDX != 4, (w[IDX] * g[bag]).sum(1), 0.0)      # d out / d psw[j] = w[idx[j]]
    np.testing.assert_allclose(p.grad.numpy(), expect, rtol=1e-12, atol=1e-12)


def test_embedding_bag_empty_input_and_max_norm():
    weight = nbgrad.tensor(RNG.standard_normal((12, 3)), requires_grad=True)
    for mode in ("sum", "mean", "max"):
        y = F.embedding_bag(nbgrad.tensor([], dtype=nbgrad.int64), weight, nbgrad.tensor([0, 0]), mode=mode)
        assert y.shape == (2, 3) and not y.detach().numpy().any()
        y.sum().backward()
        assert not weight.grad.numpy().any()
    w = nbgrad.tensor(RNG.standard_normal((12, 3)) * 3)
    F.embedding_bag(nbgrad.tensor(IDX), w, nbgrad.tensor([0, 4]), max_norm=1.0)
    norms = np.linalg.norm(w.numpy(), axis=1)
    assert (norms[np.unique(IDX)] <= 1.0 + 1e-6).all()


@pytest.mark.skipif(AGAINST_TORCH, reason="a departure: PyTorch's CPU counts are not the frequencies")
def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_frequency():
    weight = nbgrad.zeros(12, 1, requires_grad=True)
    F.embedding_bag(nbgrad.tensor(IDX), weight, nbgrad.tensor([0, 4]), mode="sum", scale_grad_by_freq=True) \
        .sum().backward()
    counts = np.bincount(IDX, minlength=12)
    np.testing.assert_allclose(weight.grad.numpy()[:, 0], (counts > 0).astype(float))


@pytest.mark.skipif(AGAINST_TORCH, reason="a departure: PyTorch runs some modes' last bag to the end of input")
def test_embedding_bag_include_last_offset_ends_the_last_bag_there():
    w = np.arange(24.0).reshape(12, 2)
    for mode in ("sum", "mean", "max"):
        for dtype in (nbgrad.float32, nbgrad.float64):
            y = F.embedding_bag(nbgrad.tensor(IDX), nbgrad.tensor(w, dtype=dtype), nbgrad.tensor([0, 3, 5]),
                                mode=mode, include_last_offset=True)
            np.testing.assert_allclose(y.numpy(), _np_bag(w, IDX, np.array([0, 3, 5]), mode, True)[0])


O = nbgrad.tensor([0, 4])
W = nbgrad.zeros(12, 3)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W, nbgrad.tensor([1, 4])), RuntimeError,
     "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, "
     "got 1"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W, nbgrad.tensor([0, 13])), RuntimeError,
     "offsets[-1] can not be greater than input's length 12 but got offsets[-1] of 13"),
    (lambda: F.embedding_bag(nbgrad.tensor([1, 12]), W, nbgrad.tensor([0])), RuntimeError,
     "Index 1 of input takes value 12 which is not in the valid range [0, 12)"),
    (lambda: F.embedding_bag(nbgrad.tensor([1, -1]), W.double(), nbgrad.tensor([0])), RuntimeError,
     "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be -1"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W, O, per_sample_weights=nbgrad.ones(12)), NotImplementedError,
     "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
     "(got mode='mean'). Please open a feature request on GitHub."),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W, O, mode="min"), ValueError, "mode has to be one of sum, mean or max"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W, O, mode="max", scale_grad_by_freq=True), ValueError,
     "max mode does not support scaling the gradient by the frequency"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX.reshape(2, 2, 3)), W), ValueError,
     "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W), ValueError, "offsets has to be a 1D Tensor but got None"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), W, nbgrad.tensor([[0, 4]])), ValueError,
     "offsets has to be a 1D Tensor"),
    (lambda: F.embedding_bag(nbgrad.tensor(IDX), nbgrad.zeros(12, 2, 2), O), ValueError,
     "weight has to be a 2D Tensor, but got Tensor of dimension 3"),
    (lambda: F.embedding_bag(nbgrad.zeros(2, 0, dtype=nbgrad.int64), W), RuntimeError, "step must be nonzero"),
])
def test_embedding_bag_checks(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    # (PyTorch's offsets[0] message goes on to print a tensor)
    assert str(info.value) == message or str(info.value).startswith(message + "\n[")


def test_embedding_bag_padding_idx_counts_from_the_end():
    w = nbgrad.tensor(np.arange(20.0).reshape(10, 2))
    i, o = nbgrad.tensor([1, 2, 9, 3]), nbgrad.tensor([0, 2])
    np.testing.assert_array_equal(F.embedding_bag(i, w, o, padding_idx=-1).numpy(),
                                  F.embedding_bag(i, w, o, padding_idx=9).numpy())
    np.testing.assert_array_equal(F.embedding_bag(i, w, o, padding_idx=-1).numpy(), [[3.0, 4.0], [6.0, 7.0]])
    for bad in (10, -11):
        with pytest.raises(RuntimeError, match=f"^padding_idx must be within the number of embeddings, -10 through "
                                               f"9, but got {bad}$"):
            F.embedding_bag(i, w, o, padding_idx=bad)


def test_embedding_bag_dtype_checks():
    with pytest.raises(RuntimeError, match=r"^Expected tensor for argument #1 'indices' to have one of the following "
                                           r"scalar types: Long, Int; but got \w+\.FloatTensor instead"):
        F.embedding_bag(nbgrad.tensor(IDX, dtype=nbgrad.float32), W, O)
    with pytest.raises(RuntimeError, match=r"^Expected tensor for argument #1 'weight' to have one of the following "
                                           r"scalar types: Half, BFloat16, Float, Double; but got \w+\.LongTensor"):
        F.embedding_bag(nbgrad.tensor(IDX), nbgrad.zeros(12, 3, dtype=nbgrad.int64), O)
    with pytest.raises(RuntimeError, match=r"^Expected tensor for argument #1 'weight' to have the same type as tensor "
                                           r"for argument #1 'per_sample_weights'"):
        F.embedding_bag(nbgrad.tensor(IDX), W, O, mode="sum", per_sample_weights=nbgrad.ones(12, dtype=nbgrad.float64))
    y = F.embedding_bag(nbgrad.tensor(IDX, dtype=nbgrad.int32), W, nbgrad.tensor([0, 4], dtype=nbgrad.int32))
    assert y.shape == (2, 3)


def test_embedding_bag_module():
    nbgrad.manual_seed(0)
    m = nn.EmbeddingBag(10, 3, mode="max", padding_idx=-2)
    assert m.padding_idx == 8
    assert repr(m) == "EmbeddingBag(10, 3, mode='max', padding_idx=8)"
    assert repr(nn.EmbeddingBag(10, 3, max_norm=1.5)) == "EmbeddingBag(10, 3, max_norm=1.5, mode='mean')"
    assert m.weight.shape == (10, 3) and not m.weight[8].detach().numpy().any()
    y = m(nbgrad.tensor([1, 8, 3]), nbgrad.tensor([0, 2]))
    np.testing.assert_array_equal(y.detach().numpy()[0], m.weight.detach().numpy()[1])
    frozen = nn.EmbeddingBag.from_pretrained(nbgrad.ones(4, 2))
    assert not frozen.weight.requires_grad and frozen.mode == "mean"
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nn.EmbeddingBag(10, 3, padding_idx=10)
