"""batch_norm / BatchNorm1d / BatchNorm2d against a NumPy reference, finite differences and
PyTorch's recorded running statistics, names, reprs, state_dict keys and errors; Dropout2d."""
import warnings

import numpy as np
import pytest

import nbgrad

nn = nbgrad.nn
F = nbgrad.nn.functional
gradcheck, gradgradcheck = nbgrad.autograd.gradcheck, nbgrad.autograd.gradgradcheck


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def np_bn_train(x, rm, rv, w, b, momentum, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axes), x.var(axes)
    n = x.size // x.shape[1]
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)
    return out, (1 - momentum) * rm + momentum * mean, (1 - momentum) * rv + momentum * var * n / (n - 1)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (4, 3, 5, 2)])
def test_training_normalises_by_the_batch_and_moves_the_running_statistics(rng, shape):
    x = rng.standard_normal(shape) * 3 + 1
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    RM, RV = nbgrad.tensor(rm), nbgrad.tensor(rv)
    out = F.batch_norm(nbgrad.tensor(x), RM, RV, nbgrad.tensor(w), nbgrad.tensor(b), True, 0.3, 1e-3)
    ref, ref_rm, ref_rv = np_bn_train(x, rm, rv, w, b, 0.3, 1e-3)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(RM.numpy(), ref_rm, rtol=1e-12)
    np.testing.assert_allclose(RV.numpy(), ref_rv, rtol=1e-12)
    # torch 2.13's kernel writes the running statistics without a version bump
    assert RM._version == 0 and RV._version == 0


def test_evaluation_normalises_by_the_running_statistics(rng):
    x = rng.standard_normal((4, 3, 2, 2))
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    out = F.batch_norm(nbgrad.tensor(x), nbgrad.tensor(rm), nbgrad.tensor(rv), None, None, False, 0.1, 1e-5)
    np.testing.assert_allclose(out.numpy(), (x - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5),
                               rtol=1e-12)


@pytest.mark.parametrize("training", [True, False])
def test_gradcheck(rng, training):
    x = nbgrad.tensor(rng.standard_normal((4, 3, 2, 2)), requires_grad=True)
    w = nbgrad.tensor(rng.standard_normal(3), requires_grad=True)
    b = nbgrad.tensor(rng.standard_normal(3), requires_grad=True)
    rm, rv = nbgrad.tensor(rng.standard_normal(3)), nbgrad.tensor(rng.uniform(1, 2, 3))
    fn = (lambda x_, w_, b_: F.batch_norm(x_, None, None, w_, b_, True)) if training else \
        (lambda x_, w_, b_: F.batch_norm(x_, rm, rv, w_, b_, False))
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    x2 = nbgrad.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    assert gradcheck(lambda t: F.batch_norm(t, None, None, None, None, True), (x2,))


def test_node_name_and_next_functions():
    x = nbgrad.randn(4, 3, 5, 5, requires_grad=True)
    w, b = nbgrad.ones(3, requires_grad=True), nbgrad.zeros(3, requires_grad=True)
    for training in (True, False):
        y = F.batch_norm(x, nbgrad.zeros(3), nbgrad.ones(3), w, b, training)
        assert y.grad_fn.name() == "NativeBatchNormBackward0"
        assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    nf = F.batch_norm(x, None, None, training=True).grad_fn.next_functions
    assert nf[1] == (None, 0) and nf[2] == (None, 0)


def test_momentum_none_is_a_cumulative_average():
    # torch 2.13: BatchNorm1d(2, momentum=None) after arange(6).reshape(3, 2) * (i + 1), i = 0, 1, 2
    m = nn.BatchNorm1d(2, momentum=None)
    for i in range(3):
        m(nbgrad.arange(6.0).reshape(3, 2) * (i + 1))
    np.testing.assert_allclose(m.running_mean.numpy(), [4.0, 6.0], rtol=1e-6)
    np.testing.assert_allclose(m.running_var.numpy(), [18.6667, 18.6667], rtol=1e-5)
    assert m.num_batches_tracked.item() == 3 and m.num_batches_tracked.dtype == nbgrad.int64


def test_module_train_eval_and_track_running_stats(rng):
    m = nn.BatchNorm2d(3).double()
    x = rng.standard_normal((4, 3, 2, 2))
    ref, rm, rv = np_bn_train(x, np.zeros(3), np.ones(3), np.ones(3), np.zeros(3), 0.1, 1e-5)
    np.testing.assert_allclose(m(nbgrad.tensor(x)).detach().numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(m.running_mean.numpy(), rm, rtol=1e-12)
    m.eval()
    np.testing.assert_allclose(m(nbgrad.tensor(x)).detach().numpy(),
                               (x - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5), rtol=1e-10)
    assert m.num_batches_tracked.item() == 1
    free = nn.BatchNorm2d(3, affine=False, track_running_stats=False).double()
    free.eval()         # no running statistics: batch statistics even in eval
    np.testing.assert_allclose(free(nbgrad.tensor(x)).numpy(), ref, rtol=1e-10)
    assert free.running_mean is None and list(free.state_dict()) == []


def test_reprs_and_state_dict_keys():
    assert repr(nn.BatchNorm2d(3)) == ("BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                       "track_running_stats=True)")
    assert repr(nn.BatchNorm1d(3, momentum=None, affine=False, track_running_stats=False)) == (
        "BatchNorm1d(3, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=False)")
    assert list(nn.BatchNorm2d(3).state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                                    "num_batches_tracked"]
    assert list(nn.BatchNorm2d(3, bias=False).state_dict()) == ["weight", "running_mean", "running_var",
                                                                "num_batches_tracked"]
    assert list(nn.BatchNorm2d(3, track_running_stats=False).state_dict()) == ["weight", "bias"]
    m = nn.BatchNorm2d(3)
    sd = m.state_dict()
    m2 = nn.BatchNorm2d(3)
    m2.load_state_dict(sd)
    assert m2.num_batches_tracked.item() == 0


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.batch_norm(nbgrad.randn(4, 3, 5, 5), None, None, training=False), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda: F.batch_norm(nbgrad.randn(4, 3, 5, 5), nbgrad.zeros(4), nbgrad.ones(4), training=True), RuntimeError,
     "running_mean should contain 3 elements not 4"),
    (lambda: F.batch_norm(nbgrad.randn(4, 3, 5, 5), nbgrad.zeros(3), nbgrad.ones(3), nbgrad.ones(4), training=True),
     RuntimeError, "weight should contain 3 elements not 4"),
    (lambda: F.batch_norm(nbgrad.randn(4, 3, 5, 5), nbgrad.zeros(3), nbgrad.ones(3), None, nbgrad.ones(4),
                          training=True), RuntimeError, "bias should contain 3 elements not 4"),
    (lambda: F.batch_norm(nbgrad.randn(1, 3), nbgrad.zeros(3), nbgrad.ones(3), training=True), ValueError,
     "Expected more than 1 value per channel when training, got input size nbgrad.Size([1, 3])"),
    (lambda: nn.BatchNorm2d(3)(nbgrad.randn(2, 3, 4)), ValueError, "expected 4D input (got 3D input)"),
    (lambda: nn.BatchNorm1d(3)(nbgrad.randn(2, 3, 4, 4)), ValueError, "expected 2D or 3D input (got 4D input)"),
])
def test_errors_are_pytorchs(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_dropout2d_zeroes_whole_channels():
    nbgrad.manual_seed(0)
    x = nbgrad.ones(8, 16, 3, 3, requires_grad=True)
    out = F.dropout2d(x, 0.25)
    per_channel = out.detach().numpy().reshape(8, 16, 9)
    assert set(np.unique(per_channel).tolist()) == {0.0, float(np.float32(1) / np.float32(0.75))}
    assert (per_channel.min(2) == per_channel.max(2)).all()         # one draw per (sample, channel)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())
    m = nn.Dropout2d(0.5)
    assert repr(m) == "Dropout2d(p=0.5, inplace=False)"
    m.eval()
    assert m(x) is x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.dropout2d(nbgrad.ones(2, 3, 4))
    assert "assuming that channel-wise 1D dropout behavior is desired" in str(caught[0].message)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout2d(1.5)
