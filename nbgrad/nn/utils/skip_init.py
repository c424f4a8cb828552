"""nn.utils.skip_init: a module whose parameters and buffers are left uninitialised (fresh
nbgrad.empty storage), as torch.nn.utils.skip_init.

PyTorch builds the module on the "meta" device, where the constructor's initialisation does no
work and draws no random numbers, then allocates empty storage on the target device (to_empty).
nbgrad has no meta device, so the constructor runs on the target device inside fork_rng (the
random number generators are left as they were, as PyTorch leaves them) and every parameter and
buffer is then given fresh empty storage of its shape and dtype. Departure: the constructor's
initialisation still costs its time here; what it computed is discarded."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with its parameters and buffers uninitialised, on kwargs'
    device (default "cpu"). module_cls must be an nn.Module subclass taking a `device` argument."""
    from ..modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    from ... import _creation as C
    from ...random import fork_rng
    kwargs["device"] = kwargs.pop("device", "cpu")
    with fork_rng():
        module = module_cls(*args, **kwargs)
    # parameters keep their Parameter objects (and requires_grad); buffers are replaced, as to_empty does
    return module._apply(lambda t: C.empty_like(t))
