"""nbgrad.autograd: the graph engine, grad modes, custom Functions and gradient checks."""
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from .node import AccumulateGrad, Node
from .variable import Variable
from . import engine as _engine
import sys as _sys


def _tensors(x):
    if x is None:
        return None
    if isinstance(x, (_sys.modules["nbgrad._tensor"].Tensor,                # (those modules
                      _sys.modules["nbgrad.autograd.graph"].GradientEdge)):  # import this one)
        return [x]
    return list(x)


def _is_edge(x):
    return isinstance(x, _sys.modules["nbgrad.autograd.graph"].GradientEdge)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate the gradients of `tensors` into the .grad of the leaves (or of `inputs`)."""
    tensors = _tensors(tensors)
    grads = _tensors(grad_tensors if grad_tensors is not None else grad_variables)
    if grads is None:
        grads = [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _tensors(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    results = _engine.run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True,
                                   allow_unused=True)
    for t, g in zip(inputs or (), results):
        if g is not None and not _is_edge(t) and t.grad_fn is not None:     # a non-leaf named in inputs
            t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, returned (not accumulated)."""
    from .._tensor import Tensor
    single = isinstance(inputs, Tensor)
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    gos = _tensors(grad_outputs)
    if gos is None:
        gos = [None] * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in inputs:
        if not _is_edge(t) and not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    result = _engine.run_backward(outputs, gos, retain_graph, create_graph, inputs=inputs, accumulate=False,
                                  allow_unused=allow_unused)
    if materialize_grads:
        if any(r is None and _is_edge(x) for r, x in zip(result, inputs)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        from .._creation import zeros_like
        result = [zeros_like(x) if r is None else r for r, x in zip(result, inputs)]
    return tuple(result)


from . import functional  # noqa: E402  (torch.autograd.functional; it imports this package's grad lazily)

# torch.autograd.profiler loads on first use (nbgrad/_lazy.py)
from .._lazy import lazy_submodules as _lazy_submodules  # noqa: E402
__getattr__ = _lazy_submodules(__name__, ("profiler",))
