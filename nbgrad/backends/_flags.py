"""The switches of torch.backends.<name> (cudnn, mkldnn, ...) that programs set at the top
(`torch.backends.cudnn.benchmark = True`, `...deterministic = True`) as modules whose
boolean attributes refuse other values with PyTorch's message, and a `flags(...)` context
manager that sets some and restores them all.  nbgrad's kernels are its own (Numba), so
these libraries' switches change no result; they are kept so that such programs run and
read back what they set."""
import contextlib
import sys
import types


class FlagModule(types.ModuleType):
    """A module whose names in _BOOL_FLAGS (attribute -> PyTorch's setter name) take bools only."""
    _BOOL_FLAGS = {}

    def __setattr__(self, name, value):
        setter = type(self)._BOOL_FLAGS.get(name)
        if setter is not None and not isinstance(value, bool):
            raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
        super().__setattr__(name, value)


def install(module_name, bool_flags):
    """Make module `module_name` (its own __name__) a FlagModule with bool_flags."""
    module = sys.modules[module_name]
    module.__class__ = type("FlagModule", (FlagModule,), {"_BOOL_FLAGS": dict(bool_flags)})
    return module


@contextlib.contextmanager
def set_flags(module, **values):
    """Set module's flags given (None: left as is) for the with-block, then restore all."""
    saved = {name: getattr(module, name) for name in values}
    try:
        for name, value in values.items():
            if value is not None:
                setattr(module, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
