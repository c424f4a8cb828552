"""nbgrad.nn.utils.stateless: calling a module with other tensors in place of its parameters
and buffers (PyTorch's torch.nn.utils.stateless and its NamedMemberAccessor).

For the call, each named tensor is put into the owning submodule's `_parameters` or `_buffers`
entry (a plain tensor may stand in for a Parameter there, as in PyTorch), or set as an
attribute for any other name; afterwards the originals are put back, also when the call
raises.  With tie_weights=True, names that share one tensor in the module (tied weights) all
get the value given for any of them.  `functional_call` here is PyTorch's deprecated form: it
warns (FutureWarning) and does what nbgrad.func.functional_call does.

Departures from PyTorch: nbgrad has no TorchScript and no nn.DataParallel, so PyTorch's
refusals of those modules have nothing to refuse.
"""
import contextlib

from ..._warnings import warn_user as _warn_user

__all__ = ["functional_call"]

_MISSING = object()         # "the module had no such attribute": restoring deletes it


def _nn():
    from ... import nn
    return nn


def _tensor_type():
    from ..._tensor import Tensor
    return Tensor


# ------------------------------------------------------------------------ one tensor in one module
def _swap_tensor(module, name, tensor):
    """Put `tensor` (or _MISSING: remove) under `name` in `module`; return what was there."""
    Tensor = _tensor_type()
    if not isinstance(module, _nn().Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            # (the dict itself: Module.__setattr__ would refuse a plain tensor for a parameter)
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


class _Accessor:
    """Dotted names ("layer1.conv1.weight") to submodules, with the submodules looked up once."""

    def __init__(self, module):
        self.module = module
        self.memo = {}

    def submodule(self, name):
        if not name:
            return self.module
        if name not in self.memo:
            prefix, dot, attr = name.rpartition(".")
            parent = self.submodule(prefix) if dot else self.module
            try:
                sub = getattr(parent, attr)
            except AttributeError as ex:
                raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
            if not isinstance(sub, _nn().Module):
                raise TypeError(f"submodule `{name}`: {sub} is not an instance of torch.nn.Module")
            self.memo[name] = sub
        return self.memo[name]

    def swap(self, name, tensor):
        prefix, _, attr = name.rpartition(".")
        return _swap_tensor(self.submodule(prefix), attr, tensor)

    def swap_dict(self, named_tensors):
        """Swap all in; on an error, swap back the ones already in and re-raise."""
        originals = {}
        try:
            for name, tensor in named_tensors.items():
                originals[name] = self.swap(name, tensor)
        except Exception:
            for name, orig in originals.items():
                self.swap(name, orig)
            raise
        return originals

    def check_keys(self, keys):
        keys = set(keys)
        valid = {n for n, _ in self.module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in self.module.named_buffers(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)


def _untie(module, parameters_and_buffers):
    """A copy of the given map in which every name tied to a given name gets its value too;
    two different values for one tied tensor are refused."""
    all_named = dict(module.named_parameters(remove_duplicate=False))
    all_named.update(module.named_buffers(remove_duplicate=False))
    names_of = {}                           # id(tensor) -> its names
    for name, t in all_named.items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = {n for n in parameters_and_buffers if n in tied}
    for name in given_tied:
        names = tied[name]
        if len(names & given_tied) > 1 and len({id(parameters_and_buffers[n]) for n in names & given_tied}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    untied = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    accessor = _Accessor(module)
    if strict:
        missing, unexpected = accessor.check_keys(untied)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                   "\n\t".join(msgs)))
    originals = {}
    try:
        originals = accessor.swap_dict(untied)
        yield
    finally:
        current = accessor.swap_dict(originals)
        # a module that replaced a swapped-in tensor during the call (an in-place update of its
        # _parameters / _buffers dicts): the caller's dict sees the new tensor, as in PyTorch
        parameters_and_buffers.update({k: current[k] for k in parameters_and_buffers if k in current})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the given tensors in place of its parameters and buffers
    (deprecated in PyTorch 2.0 for torch.func.functional_call, which this is otherwise)."""
    _warn_user("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
               "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
               "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
