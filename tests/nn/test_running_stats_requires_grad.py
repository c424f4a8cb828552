"""native_batch_norm's autograd refuses running statistics that require grad, as PyTorch 2.13
does (nbgrad took them as constants: their gradient was silently missing), after ATen's size
checks and not for an empty input (returned before native_batch_norm) or under no_grad.
Messages recorded from PyTorch 2.13."""
import pytest

import nbgrad

F = nbgrad.nn.functional


def _message(argument):
    return (f"^The function 'native_batch_norm' is not differentiable with respect to argument '{argument}'. "
            "This input cannot have requires_grad True.$")


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["running_mean", "running_var"])
def test_batch_norm_refuses_running_stats_that_require_grad(training, which):
    x = nbgrad.rand(4, 3, requires_grad=True)
    stats = {"running_mean": nbgrad.zeros(3), "running_var": nbgrad.ones(3)}
    stats[which].requires_grad_()
    before = [s.detach().clone() for s in stats.values()]
    with pytest.raises(RuntimeError, match=_message(which)):
        F.batch_norm(x, stats["running_mean"], stats["running_var"], training=training)
    for s, b in zip(stats.values(), before):        # (nothing written)
        assert nbgrad.equal(s.detach(), b)
    with nbgrad.no_grad():
        out = F.batch_norm(x, stats["running_mean"], stats["running_var"], training=training)
    assert tuple(out.shape) == (4, 3)


def test_instance_norm_refuses_them_too():
    with pytest.raises(RuntimeError, match=_message("running_mean")):
        F.instance_norm(nbgrad.rand(2, 3, 4), running_mean=nbgrad.zeros(3, requires_grad=True),
                        running_var=nbgrad.ones(3))


def test_the_size_check_comes_first_and_an_empty_input_returns_before():
    with pytest.raises(RuntimeError, match="^running_mean should contain 3 elements not 4$"):
        F.batch_norm(nbgrad.rand(4, 3), nbgrad.zeros(4, requires_grad=True), nbgrad.ones(3))
    out = F.batch_norm(nbgrad.rand(0, 3, requires_grad=True), nbgrad.zeros(3, requires_grad=True),
                       nbgrad.ones(3), training=True)
    assert tuple(out.shape) == (0, 3)
