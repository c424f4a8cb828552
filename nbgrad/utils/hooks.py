"""nbgrad.utils.hooks: PyTorch's torch.utils.hooks helpers.

RemovableHandle is PyTorch's public handle over a dict of hooks keyed by the handle's
`id` (the form third-party code builds its own hook registries on), with `extra_dict`,
pickling and the context-manager form.  nbgrad's own hook registrations
(Tensor.register_hook, Module.register_*_hook, Node.register_hook) return nbgrad's
internal handles, which keep a list or dict and the hook instead of an id; they are
registered here as virtual subclasses, so `isinstance(h, RemovableHandle)` holds for
them too.

warn_if_has_hooks reads nbgrad's places for a tensor's hooks (a leaf's own list, else its
grad_fn's hooks for that output) where PyTorch reads `tensor._backward_hooks`.

BackwardHook (the machinery of PyTorch's nn.Module full backward hooks) is not provided.
"""
import abc
import weakref
from collections import OrderedDict

from .._warnings import warn_user as _warn_user

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


class RemovableHandle(metaclass=abc.ABCMeta):
    """A handle that removes a hook: `hooks_dict[handle.id]` (and the same key from each
    `extra_dict`, a dict or a list of dicts).  The dicts are held weakly."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        if state[0] is None:
            # (the dict had died: a dead reference)
            self.hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self.hooks_dict_ref = weakref.ref(state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        if len(state) < 3 or state[2] is None:
            self.extra_dict_ref = ()
        else:
            self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2])

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


def _register_nbgrad_handles():
    from ..autograd.node import RemovableHandle as _NodeHandle
    RemovableHandle.register(_NodeHandle)       # (its subclasses, the module hooks' handle, follow)


_register_nbgrad_handles()


def unserializable_hook(f):
    """Mark a hook as one that is not expected to be serialized: warn_if_has_hooks does not
    warn about it."""
    f.__torch_unserializable__ = True
    return f


def _tensor_hooks(tensor):
    """The hooks registered on `tensor` with register_hook, in order."""
    hooks = list(getattr(tensor, "_leaf_hooks", None) or ())
    fn = tensor._grad_fn
    if fn is not None:
        node, nr = fn, tensor._output_nr
        at = getattr(tensor, "_hooks_at", None)
        if at is not None and at[2] is fn:      # (where nbgrad keeps them after an in-place op)
            node, nr = at[0], at[1]
        if node._pre_hooks:
            hooks += node._pre_hooks.get(nr, ())
    return hooks


def warn_if_has_hooks(tensor):
    """Warn about each hook on `tensor` that serialization will drop (those not marked with
    unserializable_hook)."""
    for hook in _tensor_hooks(tensor):
        if not hasattr(hook, "__torch_unserializable__"):
            _warn_user(f"backward hook {repr(hook)} on tensor will not be "
                       "serialized.  If this is expected, you can "
                       "decorate the function with @torch.utils.hooks.unserializable_hook "
                       "to suppress this warning", stacklevel=2)
