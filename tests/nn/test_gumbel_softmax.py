"""F.gumbel_softmax composed as PyTorch's: the noise is Gumbel(0, 1) (the hard samples' argmax
frequencies are softmax(logits), the Gumbel-max trick), the soft sample's gradient is
softmax's at (logits + noise) / tau, the hard sample is one-hot with the soft gradient
(straight through), PyTorch's nodes and eps warning; Tensor.exponential_ with its checks."""
import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck

RNG = np.random.default_rng(7)


def _soft_grad(y, w, tau, dim):
    """d sum(y * w) / d logits for y = softmax((logits + g) / tau) along dim."""
    return y * (w - (y * w).sum(axis=dim, keepdims=True)) / tau


@pytest.mark.parametrize("tau, dim", [(1.0, -1), (0.3, 0), (2.0, 1)])
def test_soft_sample_is_a_softmax_with_its_gradient(tau, dim):
    logits = nbgrad.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    w = RNG.standard_normal((4, 6))
    y = F.gumbel_softmax(logits, tau=tau, dim=dim)
    assert type(y.grad_fn).__name__ == "SoftmaxBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "DivBackward0"
    yn = y.detach().numpy()
    np.testing.assert_allclose(yn.sum(axis=dim), 1.0, rtol=1e-12)
    assert (yn > 0).all()
    (y * nbgrad.tensor(w)).sum().backward()
    np.testing.assert_allclose(logits.grad.numpy(), _soft_grad(yn, w, tau, dim), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("dim", [-1, 0])
def test_hard_sample_is_the_one_hot_argmax_with_the_soft_gradient(dim):
    x = RNG.standard_normal((5, 4))
    w = RNG.standard_normal((5, 4))
    grads = []
    for hard in (False, True):
        nbgrad.manual_seed(123)                       # the same noise for both
        logits = nbgrad.tensor(x, requires_grad=True)
        y = F.gumbel_softmax(logits, tau=0.7, hard=hard, dim=dim)
        (y * nbgrad.tensor(w)).sum().backward()
        grads.append(logits.grad.numpy())
        if hard:
            assert type(y.grad_fn).__name__ == "AddBackward0"
            nexts = [f[0] for f in y.grad_fn.next_functions]
            assert nexts[0] is None and type(nexts[1]).__name__ == "SoftmaxBackward0"
            one_hot = (np.arange(y_soft.shape[dim]).reshape((-1, 1) if dim == 0 else (1, -1))
                       == y_soft.argmax(axis=dim).reshape((1, -1) if dim == 0 else (-1, 1)))
            np.testing.assert_allclose(y.detach().numpy(), one_hot, atol=1e-15)
        else:
            y_soft = y.detach().numpy()
    np.testing.assert_array_equal(grads[0], grads[1])


def test_gradcheck_with_fixed_noise():
    logits = nbgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)

    def fn(t):
        nbgrad.manual_seed(5)
        return F.gumbel_softmax(t, tau=0.5)
    assert gradcheck(fn, (logits,))


def test_hard_samples_follow_the_softmax_probabilities():
    nbgrad.manual_seed(0)
    logits = nbgrad.tensor([[1.0, 0.0, -1.0, 0.5]]).expand(40000, 4)
    y = F.gumbel_softmax(logits, tau=3.0, hard=True)      # tau does not move the argmax
    freq = y.numpy().sum(0) / 40000
    p = np.exp([1.0, 0.0, -1.0, 0.5])
    np.testing.assert_allclose(freq, p / p.sum(), atol=0.01)
    assert y.dtype is nbgrad.float32 and y.shape == (40000, 4)


def test_eps_is_deprecated_as_in_pytorch():
    x = nbgrad.zeros(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.gumbel_softmax(x)
        assert caught == []
        F.gumbel_softmax(x, eps=1e-5)
    assert [str(w.message) for w in caught] == ["`eps` parameter is deprecated and has no effect."]
    assert caught[0].category is UserWarning and caught[0].filename == __file__


def test_exponential_draws_and_checks():
    nbgrad.manual_seed(1)
    x = nbgrad.empty(200000, dtype=nbgrad.float64).exponential_(4.0)
    v = x.numpy()
    assert (v >= 0).all()
    assert abs(v.mean() - 0.25) < 0.005 and abs(v.std() - 0.25) < 0.005
    t = nbgrad.zeros(3, requires_grad=True).clone()
    assert type(t.exponential_().grad_fn).__name__ == "ExponentialBackward0"
    with pytest.raises(RuntimeError, match=r"^exponential_ expects lambda > 0.0, but found lambda=0$"):
        nbgrad.empty(3).exponential_(0.0)
    with pytest.raises(RuntimeError, match=r"^exponential_ expects lambda > 0.0, but found lambda=-1.5$"):
        nbgrad.empty(3).exponential_(-1.5)
    with pytest.raises(RuntimeError, match="dtype must be a floating point but you specified Long$"):
        nbgrad.empty(3, dtype=nbgrad.int64).exponential_()
    with pytest.raises(RuntimeError, match="dtype must be a floating point but you specified Long$"):
        F.gumbel_softmax(nbgrad.zeros(2, 3, dtype=nbgrad.int64))
