"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (per thread, as PyTorch)."""
import functools
import threading

class _State(threading.local):
    enabled = True          # class-level defaults: each new thread starts with grad enabled
    inference = False


_state = _State()


def is_grad_enabled():
    return _state.enabled


def _set_enabled(mode):
    _state.enabled = bool(mode)


def is_inference_mode_enabled():
    return _state.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (each call enters a fresh copy)."""

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()

    def __exit__(self, *exc):
        _set_enabled(self.prev)     # the grad mode from before __enter__ comes back


class _SwitchGrad(_DecoratorContextManager):
    """no_grad and enable_grad: grad mode `enabled` inside the block, the old one after."""
    enabled = None

    def __enter__(self):
        self.prev = is_grad_enabled()
        _set_enabled(self.enabled)


class no_grad(_SwitchGrad):
    enabled = False

    def __new__(cls, orig_func=None):
        # `@no_grad` without parentheses decorates directly, as in PyTorch
        self = super().__new__(cls)
        if orig_func is not None:
            if not callable(orig_func):
                raise TypeError(f"no_grad() takes no positional arguments, got {type(orig_func).__name__}")
            return self(orig_func)
        return self

    def __init__(self, orig_func=None):
        pass


class enable_grad(_SwitchGrad):
    enabled = True


class set_grad_enabled(_DecoratorContextManager):
    """Sets the mode at once (usable as a plain call) and restores it on exit."""

    def __init__(self, mode):
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __enter__(self):
        pass

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad (nbgrad has no separate inference tensors)."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = (is_grad_enabled(), is_inference_mode_enabled())
        if self.mode:
            _set_enabled(False)
            _state.inference = True

    def __exit__(self, *exc):
        _set_enabled(self.prev[0])
        _state.inference = self.prev[1]

    def clone(self):
        return self.__class__(self.mode)
