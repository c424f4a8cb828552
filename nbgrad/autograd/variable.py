"""Variable: PyTorch's legacy wrapper, now a name for Tensor.  `Variable(t)` returns a
detached alias of t (same memory and version counter, no history) that requires grad
when asked; `isinstance(t, Variable)` is True for every tensor."""
from .._warnings import warn_user as _warn_user


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        from .._tensor import Tensor
        return isinstance(obj, Tensor)


class _ExecutionEngine:
    """`Variable._execution_engine`: where PyTorch code (DistributedDataParallel's reducer,
    libraries built on it) queues a callback to run when the backward pass ends."""

    @staticmethod
    def queue_callback(callback):
        from .engine import queue_callback
        queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=None):
        from .._creation import empty
        from .._tensor import Tensor
        if volatile is not None:
            _warn_user("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                       UserWarning, stacklevel=2)
        if data is None:
            return empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out._base = None
        if requires_grad:
            out.requires_grad_(True)
        return out
