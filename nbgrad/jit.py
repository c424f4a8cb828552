"""nbgrad.jit: PyTorch's torch.jit names, for programs that script, trace or fork.

nbgrad has no TorchScript: nothing here compiles, records a graph or serializes a program.
Every entry point keeps the program running with the same results, eagerly:

- script(fn) returns a ScriptFunction, a thin callable wrapper that calls fn (its `.code` is
  fn's Python source, not TorchScript; it has no `.graph`); script(module) returns the module
  itself, which from then on answers isinstance(m, jit.ScriptModule) (and
  RecursiveScriptModule) True; script(a user class) returns the class, as PyTorch does.
- trace(fn, example_inputs) runs fn once on the example inputs with is_tracing() True (as
  PyTorch's tracer does; check_trace's extra runs are not made) and returns a ScriptFunction
  calling fn; trace(module, ...) / trace_module(module, {method: inputs}) run each method once
  and return the module itself (isinstance TracedModule / TopLevelTracedModule).  Later calls
  run the Python code again, so data-dependent control flow is not frozen to the traced path
  and Python side effects repeat: the tracer's known pitfalls become non-issues.
- ignore / unused / export / script_method / interface / script_if_tracing mark or return the
  function; annotate(type, value) returns value; is_scripting() is False; is_tracing() is True
  only while trace runs the example inputs.
- fork(fn, *args) runs fn at once (PyTorch's eager fork is synchronous too) and returns a
  completed Future; wait(fut) is fut.wait().
- freeze / optimize_for_inference return the (scripted or traced) module itself: its
  parameters stay parameters (PyTorch's frozen module folds them into constants).
- save / load raise NotImplementedError: save a model with nbgrad.save(model.state_dict(), f)
  and rebuild it with model.load_state_dict(nbgrad.load(f)).

The DeprecationWarnings PyTorch 2.13 gives on script, trace, fork, wait, freeze, ... are given
with its words.
"""
import contextlib
import functools
import inspect
import threading
import types
import typing
import weakref
from collections import namedtuple

from ._warnings import warn_user as _warn_user
from .nn.modules.module import Module

__all__ = ["Attribute", "Error", "Final", "Future", "RecursiveScriptModule", "ScriptFunction", "ScriptModule",
           "ScriptWarning", "TopLevelTracedModule", "TracedModule", "TracerWarning", "TracingCheckError",
           "annotate", "enable_onednn_fusion", "export", "fork", "freeze", "fuser", "ignore", "interface",
           "is_scripting", "is_tracing", "isinstance", "load", "onednn_fusion_enabled", "optimize_for_inference",
           "optimized_execution", "save", "script", "script_if_tracing", "script_method", "set_fusion_strategy",
           "strict_fusion", "trace", "trace_module", "unused", "wait"]

_builtin_isinstance = isinstance        # (jit.isinstance below shadows the builtin)
Final = typing.Final


def _deprecated(name, use):
    # stacklevel=1 as PyTorch's (its warnings point into torch/jit, so Python's default
    # filters hide them unless enabled): nbgrad's point into nbgrad/jit.py
    _warn_user(f"`torch.jit.{name}` is deprecated. Please {use}", DeprecationWarning, stacklevel=1)


_COMPILE_OR_EXPORT = "switch to `torch.compile` or `torch.export`."
_COMPILE = "use `torch.compile` instead."


class Error(Exception):
    """torch.jit.Error: the exception TorchScript raises (nbgrad raises it nowhere itself)."""


class TracerWarning(Warning):
    pass


class ScriptWarning(Warning):
    pass


class TracingCheckError(Exception):
    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            self.message += tensor_compare_error
        super().__init__(self.message)


# --------------------------------------------------------------------------- #
# Script modules: the user's own module objects, remembered as scripted or traced

_KIND = weakref.WeakKeyDictionary()     # module -> the class it answers isinstance for


class _ScriptModuleMeta(type):
    def __instancecheck__(cls, obj):
        kind = _KIND.get(obj) if _builtin_isinstance(obj, Module) else None
        if kind is not None and issubclass(kind, cls):
            return True
        return super().__instancecheck__(obj)


Attribute = namedtuple("Attribute", ["value", "type"])


class ScriptModule(Module, metaclass=_ScriptModuleMeta):
    """Base class of script modules.  Subclassing it (with @jit.script_method methods) makes an
    ordinary nbgrad Module; a module that jit.script or jit.trace returned is an instance."""

    def __setattr__(self, name, value):
        # PyTorch's ScriptModule takes `self.x = jit.Attribute(value, type)` as x = value
        if _builtin_isinstance(value, Attribute):
            value = value.value
        super().__setattr__(name, value)

    def save(self, f, **kwargs):
        save(self, f)


class RecursiveScriptModule(ScriptModule):
    pass


class TracedModule(ScriptModule):
    pass


class TopLevelTracedModule(TracedModule):
    pass


def _mark(module, kind):
    if not _builtin_isinstance(module, kind):
        _KIND[module] = kind
    return module


class ScriptFunction:
    """What script(fn) and trace(fn, ...) return: calls fn.  `.code` is fn's Python source
    (PyTorch's is TorchScript); there is no `.graph`."""

    def __init__(self, *args, **kwargs):
        raise TypeError("ScriptFunction: No constructor defined!")

    @classmethod
    def _wrap(cls, fn):
        self = object.__new__(cls)
        self._fn = fn
        functools.update_wrapper(self, fn)
        return self

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def name(self):
        return self._fn.__name__

    @property
    def qualified_name(self):
        return f"__torch__.{self._fn.__qualname__}"

    @property
    def code(self):
        return inspect.getsource(self._fn)

    @property
    def graph(self):
        raise AttributeError("nbgrad has no TorchScript: a ScriptFunction has no graph (it runs the "
                             "Python function)")

    def save(self, f, **kwargs):
        save(self, f)

    def __repr__(self):
        return f"<nbgrad.jit.ScriptFunction {self._fn.__qualname__}>"


# --------------------------------------------------------------------------- #
# script


def _is_builtin_class(cls):
    return cls.__module__ == "builtins"


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """torch.jit.script, eagerly: a module comes back itself (now a ScriptModule for
    isinstance), a function as a ScriptFunction calling it, a user class as itself."""
    _deprecated("script", _COMPILE_OR_EXPORT)
    if optimize is not None:
        _warn_user("`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` "
                   "instead", FutureWarning, stacklevel=2)
    if _builtin_isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if _builtin_isinstance(obj, Module):
        return _mark(obj, RecursiveScriptModule)
    if _builtin_isinstance(obj, type):
        if _is_builtin_class(obj):
            raise TypeError(f"{obj} is a built-in class")
        return obj
    if not callable(obj):
        if _is_builtin_class(type(obj)):
            raise TypeError(f"{type(obj)} is a built-in class")
        raise TypeError(f"{type(obj).__name__} object is neither a function, a class nor an nn.Module")
    return ScriptFunction._wrap(obj)


def script_method(fn):
    return fn


def script_if_tracing(fn):
    return fn


def interface(obj):
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    return obj


# --------------------------------------------------------------------------- #
# trace

_state = threading.local()


def is_tracing():
    """True only while trace / trace_module run the example inputs (in this thread)."""
    return getattr(_state, "tracing", 0) > 0


def is_scripting():
    """False: nbgrad never compiles TorchScript, so code always runs as Python."""
    return False


@contextlib.contextmanager
def _tracing():
    _state.tracing = getattr(_state, "tracing", 0) + 1
    try:
        yield
    finally:
        _state.tracing -= 1


def _type_str(value):
    """TorchScript's name of a value's type, for the tracer's messages."""
    from ._tensor import Tensor
    if _builtin_isinstance(value, Tensor):
        return "Tensor"
    if _builtin_isinstance(value, tuple):
        return "Tuple[" + ", ".join(_type_str(v) for v in value) + "]"
    if _builtin_isinstance(value, list):
        return f"List[{_type_str(value[0]) if value else 'Tensor'}]"
    if _builtin_isinstance(value, dict):
        k, v = next(iter(value.items()), ("", None))
        return f"Dict[{_type_str(k)}, {_type_str(v) if value else 'Tensor'}]"
    return type(value).__name__


def _only_tensors(value):
    from ._tensor import Tensor
    if _builtin_isinstance(value, Tensor):
        return True
    if _builtin_isinstance(value, (tuple, list)):
        return all(_only_tensors(v) for v in value)
    if _builtin_isinstance(value, dict):
        return all(_only_tensors(v) for v in value.values())
    return False


def _check_inputs(args):
    if not _only_tensors(args):
        raise RuntimeError(f"Type '{_type_str(args)}' cannot be traced. Only Tensors and (possibly nested) Lists, "
                           "Dicts, and Tuples of Tensors can be traced")


def _check_outputs(out):
    if not _only_tensors(out):
        raise RuntimeError("Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
                           "traced functions")


def _as_args(example_inputs):
    from ._tensor import Tensor
    if _builtin_isinstance(example_inputs, Tensor):
        return (example_inputs,)
    return tuple(example_inputs)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """torch.jit.trace, eagerly: runs func once on the example inputs (is_tracing() True
    meanwhile) and returns what calls func (a module: the module itself)."""
    _deprecated("trace", _COMPILE_OR_EXPORT)
    if _builtin_isinstance(func, Module):
        inputs = example_kwarg_inputs if example_kwarg_inputs is not None else example_inputs
        return trace_module(func, {"forward": inputs}, example_inputs_is_kwarg=example_kwarg_inputs is not None)
    if _builtin_isinstance(func, ScriptFunction) or _builtin_isinstance(func, ScriptModule):
        return func
    if not callable(func):
        raise RuntimeError("Could not get name of python class object")
    if example_kwarg_inputs is not None:
        if not _builtin_isinstance(example_kwarg_inputs, dict):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        args, kwargs = (), dict(example_kwarg_inputs)
    else:
        args, kwargs = _as_args(example_inputs), {}
    _check_inputs(args if not kwargs else tuple(kwargs.values()))
    with _tracing():
        out = func(*args, **kwargs)
    _check_outputs(out)
    return ScriptFunction._wrap(func)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    """torch.jit.trace_module, eagerly: runs each named method once on its example inputs and
    returns the module itself (a TopLevelTracedModule for isinstance)."""
    _deprecated("trace_method", _COMPILE_OR_EXPORT)
    if not _builtin_isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not _builtin_isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for method_name, example in inputs.items():
        # forward runs through __call__ (its hooks included), as PyTorch's tracer does
        method = mod if method_name == "forward" else getattr(mod, method_name)
        if example_inputs_is_kwarg:
            args, kwargs = (), dict(example)
        else:
            args, kwargs = _as_args(example), {}
        _check_inputs(args if not kwargs else tuple(kwargs.values()))
        with _tracing():
            out = method(*args, **kwargs)
        _check_outputs(out)
    return _mark(mod, TopLevelTracedModule)


# --------------------------------------------------------------------------- #
# markers


class _FunctionModifiers:
    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"


def ignore(drop=False, **kwargs):
    """@jit.ignore / @jit.ignore(drop=...): marks the function and returns it."""
    if callable(drop):
        drop._torchscript_modifier = _FunctionModifiers.IGNORE
        return drop
    if not _builtin_isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        _warn_user("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the function "
                   "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)
        drop = drop_on_export
    elif drop:
        _warn_user("ignore(True) has been deprecated. TorchScript will now drop the function "
                   "call on compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)

    def decorator(fn):
        fn._torchscript_modifier = _FunctionModifiers.UNUSED if drop else _FunctionModifiers.IGNORE
        return fn
    return decorator


def unused(fn):
    if _builtin_isinstance(fn, property):
        fn.fget._torchscript_modifier = _FunctionModifiers.UNUSED
        if fn.fset:
            fn.fset._torchscript_modifier = _FunctionModifiers.UNUSED
        return fn
    fn._torchscript_modifier = _FunctionModifiers.UNUSED
    return fn


def export(fn):
    fn._torchscript_modifier = _FunctionModifiers.EXPORT
    return fn


def annotate(the_type, the_value):
    """Returns the value (TorchScript reads the type; Python has nothing to do)."""
    return the_value


def isinstance(obj, target_type):      # noqa: A001  (torch.jit.isinstance's name)
    """torch.jit.isinstance: builtins.isinstance that also understands list[int], dict[str, T],
    tuple[...] and Optional[T] by checking the elements."""
    origin = typing.get_origin(target_type)
    if origin is None:
        if target_type in (list, dict, tuple):
            raise RuntimeError(f"Attempted to use {target_type.__name__} without a contained type. Please add a "
                               f"contained type, e.g. {target_type.__name__}[int]")
        return _builtin_isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin in (typing.Union, types.UnionType):
        return any(isinstance(obj, a) for a in args)
    if not _builtin_isinstance(obj, origin):
        return False
    if origin is list:
        return all(isinstance(v, args[0]) for v in obj)
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        return len(obj) == len(args) and all(isinstance(v, a) for v, a in zip(obj, args))
    return True


# --------------------------------------------------------------------------- #
# futures


class Future:
    """torch.futures.Future in small: a result (or exception) set once; wait() blocks until
    it is set, then returns it (or raises the exception)."""

    def __init__(self, *, devices=None):
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._result = None
        self._exception = None
        self._callbacks = []

    def done(self):
        return self._done.is_set()

    def wait(self):
        self._done.wait()
        if self._exception is not None:
            raise self._exception
        return self._result

    def value(self):
        if not self._done.is_set():
            raise RuntimeError("Future.value() called before the Future was completed")
        return self.wait()

    def _complete(self, result, exception):
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future "
                                   "can only be marked completed once.")
            self._result, self._exception = result, exception
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result):
        self._complete(result, None)

    def set_exception(self, result):
        if not _builtin_isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def add_done_callback(self, callback):
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as exc:
                out.set_exception(exc)
        self.add_done_callback(run)
        return out


def fork(func, *args, **kwargs):
    """Runs func(*args, **kwargs) now (PyTorch's eager fork is synchronous too: an exception
    propagates at once) and returns a completed Future holding its result."""
    _deprecated("fork", _COMPILE)
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    _deprecated("wait", _COMPILE)
    if not _builtin_isinstance(future, Future):
        raise TypeError(f"wait(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. (arg0: torch._C.Future) -> object\n\nInvoked with: {future!r}")
    return future.wait()


# --------------------------------------------------------------------------- #
# whole-module passes, serialization, fusion switches


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Returns the scripted/traced module itself, in eval mode as PyTorch requires (its
    parameters stay parameters: nothing is folded into constants)."""
    _deprecated("freeze", _COMPILE)
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Returns the scripted/traced module itself (set to eval mode, as PyTorch's freezing
    does)."""
    _deprecated("optimize_for_inference", _COMPILE)
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script "
                           "or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        mod.eval()
    return freeze(mod)


_NO_SERIALIZATION = ("nbgrad has no TorchScript, so it cannot {what} a scripted program: save the weights with "
                     "nbgrad.save(model.state_dict(), f) and load them into a model built in Python with "
                     "model.load_state_dict(nbgrad.load(f))")


def save(m, f, _extra_files=None):
    _deprecated("save", "switch to `torch.export`.")
    raise NotImplementedError(_NO_SERIALIZATION.format(what="save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    _deprecated("load", "switch to `torch.export`.")
    raise NotImplementedError(_NO_SERIALIZATION.format(what="load"))


_onednn_fusion = [False]
_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]


def enable_onednn_fusion(enabled):
    _onednn_fusion[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn_fusion[0]


def set_fusion_strategy(strategy):
    """Stores the strategy and returns the previous one (nbgrad fuses nothing this way)."""
    _deprecated("set_fusion_strategy", _COMPILE)
    previous, _fusion_strategy[0] = _fusion_strategy[0], list(strategy)
    return previous


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


@contextlib.contextmanager
def fuser(name):
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise Exception(f"unrecognized fuser option (name: {name})")     # (PyTorch's type)
    yield


class strict_fusion:
    """A no-op context manager (PyTorch's checks that a region fused; nbgrad has no fuser here)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
