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


def _inputs_tuple(inputs, api):
    """PyTorch's reading of `inputs`: one tensor or edge, a dict's values, any other iterable's
    items (another Mapping refused); an empty one refused."""
    import collections.abc
    if isinstance(inputs, (_sys.modules["nbgrad._tensor"].Tensor, _sys.modules["nbgrad.autograd.graph"].GradientEdge)):
        found = [inputs]
    elif type(inputs) is dict:
        found = list(inputs.values())
    elif isinstance(inputs, collections.abc.Mapping):
        raise TypeError(f"`inputs` argument to `{api}()` must be a dict, not {type(inputs).__name__}. Other "
                        "Mapping types are not supported.")
    else:
        found = list(inputs)
    if not found:
        raise RuntimeError(f"`inputs` argument to `{api}()` cannot be empty.")
    return found


def _paired_grads(tensors, grads):
    """The gradient given for each of `tensors` (None: implicit), paired as PyTorch's
    _make_grads zips them (extra gradients dropped), then its engine's count check."""
    grads = [None] * len(tensors) if grads is None else _tensors(grads)[:len(tensors)]
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate the gradients of `tensors` into the .grad of the leaves (or of `inputs`)."""
    if grad_variables is not None:
        import warnings
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    inputs = None if inputs is None else _inputs_tuple(inputs, "backward")
    tensors = _tensors(tensors)
    grads = _paired_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    results = _engine.run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True,
                                   allow_unused=True)
    for t, g in zip(inputs or (), results):
        if g is not None and not _is_edge(t) and t.grad_fn is not None:     # a non-leaf named in inputs
            t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, returned (not accumulated); a dict of
    inputs gives a dict of gradients under its keys."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _tensors(outputs)
    given = inputs
    inputs = _inputs_tuple(inputs, "grad")
    if not only_inputs:
        import warnings
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    gos = _paired_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not _is_edge(t) and not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    result = _engine.run_backward(outputs, gos, retain_graph, create_graph, inputs=inputs, accumulate=False,
                                  allow_unused=allow_unused)
    if materialize_grads:
        if any(r is None and _is_edge(x) for r, x in zip(result, inputs)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        from .._creation import zeros_like
        result = [zeros_like(x, requires_grad=create_graph) if r is None else r for r, x in zip(result, inputs)]
    if type(given) is dict:
        return dict(zip(given.keys(), result))
    return tuple(result)


from . import functional  # noqa: E402  (torch.autograd.functional; it imports this package's grad lazily)

# torch.autograd.profiler loads on first use (nbgrad/_lazy.py)
from .._lazy import lazy_submodules as _lazy_submodules  # noqa: E402
__getattr__ = _lazy_submodules(__name__, ("profiler",))
