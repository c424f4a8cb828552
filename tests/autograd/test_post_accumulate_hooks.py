"""Tensor.register_post_accumulate_grad_hook and the engine's final callbacks
(Variable._execution_engine.queue_callback in PyTorch): what DistributedDataParallel
builds on, with PyTorch's rules."""
import pytest

import nbgrad
from nbgrad.autograd.engine import queue_callback


def test_hook_sees_the_accumulated_grad():
    w = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(lambda t: seen.append((t is w, t.grad.tolist())))
    (w * 3).sum().backward()
    (w * w).sum().backward()
    assert seen == [(True, [3.0, 3.0]), (True, [5.0, 7.0])]    # after each accumulation


def test_hook_runs_after_the_tensor_hooks_and_once_per_backward():
    w = nbgrad.tensor([1.0], requires_grad=True)
    order = []
    w.register_hook(lambda g: order.append(("pre", g.item())) or g * 2)
    w.register_post_accumulate_grad_hook(lambda t: order.append(("post", t.grad.item())))
    (w * 2 + w * 3).sum().backward()
    assert order == [("pre", 5.0), ("post", 10.0)]


def test_handle_removes_the_hook():
    w = nbgrad.ones(2, requires_grad=True)
    calls = []
    handle = w.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    w.sum().backward()
    handle.remove()
    w.sum().backward()
    assert calls == [1]


def test_refusals():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        nbgrad.ones(2).register_post_accumulate_grad_hook(lambda t: None)
    w = nbgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(lambda t: None)
    w.register_post_accumulate_grad_hook(lambda t: 1)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        w.sum().backward()


def test_not_called_by_autograd_grad():
    # autograd.grad accumulates nothing, so no post-accumulate hook runs
    w = nbgrad.ones(2, requires_grad=True)
    calls = []
    w.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    (g,) = nbgrad.autograd.grad((w * 2).sum(), w)
    assert calls == [] and g.tolist() == [2.0, 2.0] and w.grad is None


def test_queue_callback_runs_when_the_whole_backward_is_done():
    a = nbgrad.ones(2, requires_grad=True)
    b = nbgrad.ones(2, requires_grad=True)
    log = []

    def hook(t):
        log.append(("acc", t is a))
        if len(log) == 1:
            queue_callback(lambda: log.append(("end", a.grad is not None and b.grad is not None)))
            queue_callback(lambda: queue_callback(lambda: log.append(("nested", None))))
    a.register_post_accumulate_grad_hook(hook)
    b.register_post_accumulate_grad_hook(hook)
    (a * b).sum().backward()
    assert sorted(log[:2]) == [("acc", False), ("acc", True)]
    assert log[2:] == [("end", True), ("nested", None)]
    log.clear()
    (a * 2).sum().backward()     # callbacks are per backward pass: the last ones are gone
    assert log == [("acc", True), ("end", True), ("nested", None)]


def test_queue_callback_outside_backward():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        queue_callback(lambda: None)


def test_variable_execution_engine_is_the_same_queue():
    # PyTorch's spelling, which libraries built on DDP's reducer use
    engine = nbgrad.autograd.Variable._execution_engine
    w = nbgrad.ones(2, requires_grad=True)
    log = []
    w.register_hook(lambda g: engine.queue_callback(lambda: log.append(w.grad.tolist())))
    (w * 3).sum().backward()
    assert log == [[3.0, 3.0]]              # after the accumulation that followed the hook
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        engine.queue_callback(lambda: None)


def test_no_callback_after_a_failed_backward():
    v = nbgrad.ones(2, requires_grad=True)
    w = nbgrad.ones(2, requires_grad=True)
    ran, accumulated = [], []

    def hook(t):
        accumulated.append(1)
        queue_callback(lambda: ran.append(1))
    w.register_post_accumulate_grad_hook(hook)
    z = v.exp()                      # older than w's branch: its backward runs after w accumulates
    out = z.sum() + (w * 2).sum()
    z.add_(1)                        # exp's saved result changed: its backward fails
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    assert accumulated == [1] and ran == []       # queued, then the pass failed: not run
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        queue_callback(lambda: None)
