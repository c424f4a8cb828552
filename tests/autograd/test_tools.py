"""Tools for users: gradcheck, gradgradcheck and anomaly detection, as
PyTorch defines them."""
import warnings

import numpy as np
import pytest

import nbgrad


def leaf(shape=(3,), seed=0, low=-1.0, high=1.0):
    rng = np.random.RandomState(seed)
    return nbgrad.tensor(rng.uniform(low, high, size=shape), dtype=nbgrad.float64,
                         requires_grad=True)


class Square(nbgrad.autograd.Function):
    """x*x with a correct, differentiable backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x


class SquareWrongBackward(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x


class SquareFirstOrderOnly(nbgrad.autograd.Function):
    """Right gradient, but its backward is not itself differentiable in x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x.detach()


class NaNBackward(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


# ---------------------------------------------------------------- gradcheck

def test_gradcheck_passes_for_correct_gradients():
    x = leaf((3,))
    y = leaf((3,), seed=1)
    assert nbgrad.autograd.gradcheck(lambda a, b: (a * b).tanh(), (x, y)) is True
    assert nbgrad.autograd.gradcheck(Square.apply, (x,)) is True


def test_gradcheck_accepts_a_single_tensor():
    assert nbgrad.autograd.gradcheck(lambda a: a.exp(), leaf()) is True


def test_gradcheck_with_several_outputs():
    x = leaf((2, 3))
    assert nbgrad.autograd.gradcheck(lambda a: (a.sum(0), a.exp()), (x,)) is True


def test_gradcheck_detects_wrong_gradient():
    x = leaf((3,), low=0.5, high=1.5)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"):
        nbgrad.autograd.gradcheck(SquareWrongBackward.apply, (x,))


def test_gradcheck_raise_exception_false_returns_false():
    x = leaf((3,), low=0.5, high=1.5)
    assert nbgrad.autograd.gradcheck(SquareWrongBackward.apply, (x,), raise_exception=False) is False


def test_gradcheck_tolerances():
    x = leaf((3,), low=0.5, high=1.5)
    f = SquareWrongBackward.apply  # 1.5x the true gradient
    assert nbgrad.autograd.gradcheck(f, (x,), atol=10.0, rtol=0.0) is True
    assert nbgrad.autograd.gradcheck(f, (x,), eps=1e-4, atol=1e-6, rtol=1e-3,
                                     raise_exception=False) is False


def test_gradcheck_ignores_inputs_without_grad():
    x = leaf((3,))
    c = nbgrad.tensor([1.0, 2.0, 3.0], dtype=nbgrad.float64)
    assert nbgrad.autograd.gradcheck(lambda a, b: a * b, (x, c)) is True


def test_gradcheck_leaves_inputs_unchanged():
    x = leaf((4,))
    before = x.detach().numpy().copy()
    nbgrad.autograd.gradcheck(lambda a: a.sin(), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


# ---------------------------------------------------------------- gradgradcheck

@pytest.mark.parametrize("name,fn,shape", [
    ("tanh", lambda a: a.tanh(), (3,)),
    ("mul", lambda a: a * a * a, (3,)),
    ("exp*sin", lambda a: a.exp() * a.sin(), (2, 2)),
    ("softmax", lambda a: a.softmax(1), (2, 3)),
    ("log_softmax", lambda a: a.log_softmax(1), (2, 3)),
    ("matmul", lambda a: a @ a.t(), (2, 3)),
    ("sigmoid.sum", lambda a: a.sigmoid().sum(1), (2, 3)),
    ("pow", lambda a: (a * a + 1) ** 1.5, (3,)),
    ("custom Square", lambda a: Square.apply(a), (3,)),
])
def test_gradgradcheck_passes(name, fn, shape):
    assert nbgrad.autograd.gradgradcheck(fn, (leaf(shape, seed=2),)) is True


def test_gradgradcheck_two_inputs():
    a = leaf((2, 3), seed=3)
    b = leaf((3, 2), seed=4)
    assert nbgrad.autograd.gradgradcheck(lambda x, y: (x @ y).tanh(), (a, b)) is True


def test_gradgradcheck_detects_non_differentiable_backward():
    x = leaf((3,), low=0.5, high=1.5)
    assert nbgrad.autograd.gradcheck(SquareFirstOrderOnly.apply, (x,)) is True
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        nbgrad.autograd.gradgradcheck(SquareFirstOrderOnly.apply, (x,))
    assert nbgrad.autograd.gradgradcheck(SquareFirstOrderOnly.apply, (x,),
                                         raise_exception=False) is False


# ---------------------------------------------------------------- anomaly detection

@pytest.fixture
def quiet_anomaly_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def test_anomaly_mode_off_by_default():
    assert nbgrad.is_anomaly_enabled() is False


def test_set_detect_anomaly(quiet_anomaly_warnings):
    nbgrad.autograd.set_detect_anomaly(True)
    try:
        assert nbgrad.is_anomaly_enabled() is True
    finally:
        nbgrad.autograd.set_detect_anomaly(False)
    assert nbgrad.is_anomaly_enabled() is False


def test_set_detect_anomaly_as_context_manager(quiet_anomaly_warnings):
    with nbgrad.autograd.set_detect_anomaly(True):
        assert nbgrad.is_anomaly_enabled() is True
    assert nbgrad.is_anomaly_enabled() is False


def test_detect_anomaly_context_manager_restores(quiet_anomaly_warnings):
    with nbgrad.autograd.detect_anomaly():
        assert nbgrad.is_anomaly_enabled() is True
    assert nbgrad.is_anomaly_enabled() is False
    with pytest.raises(ValueError):
        with nbgrad.autograd.detect_anomaly():
            raise ValueError("boom")
    assert nbgrad.is_anomaly_enabled() is False


def test_nan_in_backward_without_anomaly_mode_propagates():
    x = nbgrad.zeros(2, dtype=nbgrad.float64, requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def _forward_site_of_sqrt(x):
    return x.sqrt() * 0  # the forward call that will produce NaN in backward


def test_detect_anomaly_raises_on_nan_in_builtin_backward(quiet_anomaly_warnings):
    x = nbgrad.zeros(2, dtype=nbgrad.float64, requires_grad=True)
    with nbgrad.autograd.detect_anomaly():
        y = _forward_site_of_sqrt(x)
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output") as info:
            y.sum().backward()
    # the forward call site is reported, in the error or in a warning
    reports = [str(info.value)] + [str(w.message) for w in quiet_anomaly_warnings]
    assert any("_forward_site_of_sqrt" in r and "SqrtBackward0" in r for r in reports)


def test_detect_anomaly_raises_on_nan_in_custom_backward(quiet_anomaly_warnings):
    x = leaf((3,))
    with nbgrad.autograd.detect_anomaly():
        y = NaNBackward.apply(x)
        with pytest.raises(RuntimeError, match="Function 'NaNBackwardBackward' returned nan values"):
            y.sum().backward()


def test_set_detect_anomaly_raises_on_nan(quiet_anomaly_warnings):
    x = nbgrad.zeros(2, dtype=nbgrad.float64, requires_grad=True)
    nbgrad.autograd.set_detect_anomaly(True)
    try:
        y = x.sqrt() * 0
        with pytest.raises(RuntimeError, match="returned nan values"):
            y.sum().backward()
    finally:
        nbgrad.autograd.set_detect_anomaly(False)


def test_detect_anomaly_does_not_change_good_gradients(quiet_anomaly_warnings):
    x = leaf((3,))
    with nbgrad.autograd.detect_anomaly():
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_custom_function_backward_gets_one_gradient_per_output():
    """An output no gradient reached gets zeros (materialize_grads, the default) or None,
    also when it is the last one: backward is always called with one gradient per output."""
    seen = []

    class Three(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3, x * 4

        @staticmethod
        def backward(ctx, ga, gb, gc):
            seen.append([None if g is None else g.tolist() for g in (ga, gb, gc)])
            return sum(g * k for g, k in ((ga, 2), (gb, 3), (gc, 4)) if g is not None), None

    x = nbgrad.ones(2, requires_grad=True)
    a, b, c = Three.apply(x, True)
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and seen[-1] == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    a, b, c = Three.apply(x, True)
    assert nbgrad.autograd.grad(b.sum(), x)[0].tolist() == [3.0, 3.0]
    assert seen[-1] == [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
    a, b, c = Three.apply(x, False)
    a.sum().backward()
    assert seen[-1] == [[1.0, 1.0], None, None]
