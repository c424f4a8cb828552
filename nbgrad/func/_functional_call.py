"""nbgrad.func.functional_call and stack_module_state (PyTorch's torch.func versions).

functional_call(module, dicts, args, kwargs) calls the module with the given tensors in place
of its parameters and buffers (nbgrad.nn.utils.stateless does the swapping and restores the
originals afterwards, also when the call raises); `dicts` may be one dict or a sequence of
dicts with distinct keys.  stack_module_state(models) stacks the models' parameters and
buffers by name for vmap-ing one model's functional_call over an ensemble.
"""
from collections.abc import Sequence

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the tensors of parameter_and_buffer_dicts in place of its own."""
    from ..nn.utils import stateless
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return stateless._functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                      strict=strict)


def _stacked_leaf(tensors, name):
    """The tensors stacked; a new leaf requiring grad when they all require grad."""
    from .. import stack
    all_rg = all(t.requires_grad for t in tensors)
    if not all_rg and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all_rg:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """(params, buffers): each model's parameters and buffers stacked by name (dim 0 = model)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    model0_type = type(models[0])
    if not all(type(m) is model0_type for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
