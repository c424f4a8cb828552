"""Gradients, views, in-place ops and version counters on both devices (float64 gradcheck)."""
import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck

RNG = np.random.default_rng(1)


def leaf(shape, device, low=-1.0, high=1.0):
    return nbgrad.tensor(RNG.uniform(low, high, shape), dtype=nbgrad.float64, device=device, requires_grad=True)


CASES = {
    "tanh_mul": (lambda x, y: (x * y + 1).tanh() * x, [(2, 3), (3,)]),
    "sigmoid_relu": (lambda x, y: x.sigmoid() + (x - y).relu(), [(2, 3), (2, 3)]),
    "exp_log_div": (lambda x, y: x.exp() / (y * y + 1).log1p(), [(3,), (2, 1)]),
    "sum_mean_dims": (lambda x, y: x.sum(1) * y.mean(), [(2, 3), (4,)]),
    "amax_softmax": (lambda x, y: x.softmax(1) * y.amax(0), [(2, 3), (2, 3)]),
    "log_softmax_logsumexp": (lambda x, y: x.log_softmax(0).sum() + y.logsumexp(1).sum(), [(3, 2), (2, 3)]),
    "var": (lambda x, y: x.var(1) + y.var(), [(2, 3), (4,)]),
    "matmul": (lambda x, y: x @ y, [(2, 3), (3, 2)]),
    "matmul_transposed_batched": (lambda x, y: x.transpose(-1, -2) @ y, [(2, 3, 2), (2, 3, 2)]),
    "views": (lambda x, y: x.t()[1:, ::2].reshape(-1) * y.expand(2, 2).flatten(), [(3, 3), (1, 2)]),
    "indexing": (lambda x, y: x[[0, 2, 0]] * y[1:, None], [(3, 2), (4,)]),
    "gather_cat": (lambda x, y: nbgrad.cat([x.gather(1, nbgrad.tensor([[1, 0], [2, 2]], device=x.device)), y], 0),
                   [(2, 3), (1, 2)]),
    "where_clamp_pow": (lambda x, y: nbgrad.where(x > 0, x.clamp(-0.5, 0.5), y ** 2), [(2, 3), (2, 3)]),
    "max_dim": (lambda x, y: x.max(1)[0] * y.min(), [(2, 3), (3,)]),
    "fused": (nbgrad.fuse(lambda x, y: (x * y + 1).tanh() * x + (x - y).relu() / (y * y + 1) + x.sigmoid()),
              [(2, 3), (3,)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(device, name):
    fn, shapes = CASES[name]
    inputs = [leaf(s, device) for s in shapes]
    assert gradcheck(fn, inputs)


def test_losses_gradcheck(device):
    import nbgrad.nn.functional as F
    target = nbgrad.tensor([2, 0], device=device)
    x = leaf((2, 3), device)
    assert gradcheck(lambda a: F.cross_entropy(a, target, label_smoothing=0.1), [x])
    assert gradcheck(lambda a: F.nll_loss(a.log_softmax(1), target), [x])
    y = nbgrad.tensor(RNG.uniform(size=(2, 3)), device=device)
    assert gradcheck(lambda a: F.mse_loss(a, y), [x])
    assert gradcheck(lambda a: F.binary_cross_entropy_with_logits(a, y), [x])


def test_losses_match_cpu(device):
    import nbgrad.nn.functional as F
    a = RNG.normal(size=(4, 5))
    target = np.array([1, 4, 0, 2])
    x = nbgrad.tensor(a, device=device, requires_grad=True)
    loss = F.cross_entropy(x, nbgrad.tensor(target, device=device))
    loss.backward()
    e = np.exp(a - a.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(loss.item(), -np.log(p[np.arange(4), target]).mean(), rtol=1e-10)
    onehot = np.eye(5)[target]
    np.testing.assert_allclose(x.grad.cpu().numpy(), (p - onehot) / 4, rtol=1e-10, atol=1e-12)
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, nbgrad.tensor([0, 1, 2, 9], device=device))


def test_view_shares_storage_and_inplace_shows_through(device):
    x = nbgrad.zeros(2, 3, device=device)
    v = x[1]
    assert v.data_ptr() == x.data_ptr() + 3 * 4
    v += 2
    v[0] = 5
    np.testing.assert_array_equal(x.cpu().numpy(), [[0, 0, 0], [5, 2, 2]])
    x.t()[2].fill_(-1)
    np.testing.assert_array_equal(x.cpu().numpy(), [[0, 0, -1], [5, 2, -1]])


def test_version_counter_and_saved_tensor_check(device):
    x = nbgrad.ones(3, device=device, requires_grad=True)
    y = x * 2
    z = y * y  # saves y
    assert y._version == 0
    y.add_(1)
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_view_of_nonleaf_keeps_gradients(device):
    a = nbgrad.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    b = a * 1
    b[1:].mul_(3)
    b.sum().backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [1, 3, 3])


def test_grad_accumulates_across_backward_calls(device):
    w = nbgrad.ones(2, 2, device=device, requires_grad=True)
    for _ in range(2):
        (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.full((2, 2), 4.0))
    assert w.grad.device == w.device
