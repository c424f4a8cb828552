"""Saved-tensor hooks: torch.autograd.graph's saved_tensors_hooks, save_on_cpu and
disable_saved_tensors_hooks (re-exported by nbgrad.autograd.graph).

Under `saved_tensors_hooks(pack_hook, unpack_hook)` every tensor an op or a custom
Function saves for backward goes through pack_hook when it is saved (under no_grad), and
what pack_hook returned is kept instead of the tensor; unpack_hook gives a tensor back when
backward (or ctx.saved_tensors) reads it.  The machinery is in node.py: the two save
functions every node's save goes through (_saved_input, _saved_output) test one dict, empty
while no hooks are active, and hand a save to HookedSavedTensor otherwise.

Departures from PyTorch:
- An op saves what nbgrad's backward needs, which is not always PyTorch's list (some ops
  save a copy, an extra result, or less): the number of pack calls per op can differ from
  PyTorch's for such ops (the elementwise, matmul and reduction ops save as PyTorch's).
- An in-place op whose backward reads its result (exp_, sigmoid_...) packs the value it
  wrote, a tensor of its own, not the written tensor itself.
"""
import threading

from . import node as _node

_stacks = _node._HOOK_STACKS
_disabled = _node._HOOKS_DISABLED


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) -> anything, kept instead of each tensor saved
    for backward while it is active; unpack_hook(packed) -> Tensor, called when the saved
    tensor is read.  Nested, the innermost pair applies; hooks are per thread."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        tid = threading.get_ident()
        message = _disabled.get(tid)
        if message is not None:
            raise RuntimeError(message)
        if not callable(self.pack_hook) or not callable(self.unpack_hook):
            raise TypeError("_push_saved_tensors_default_hooks(): incompatible function arguments: pack_hook and "
                            f"unpack_hook must be callable, got {type(self.pack_hook).__name__} and "
                            f"{type(self.unpack_hook).__name__}")
        _stacks.setdefault(tid, []).append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args):
        tid = threading.get_ident()
        stack = _stacks[tid]
        stack.pop()
        if not stack:
            del _stacks[tid]    # (no entry left: saves go back to their one empty-dict test)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward.
    pin_memory: accepted for PyTorch's signature; nbgrad's host memory is not pinned."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager: while active, setting saved-tensor hooks raises
    RuntimeError(error_message); so does entering it while hooks are set."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        tid = threading.get_ident()
        self._previous = _disabled.get(tid)
        if _stacks.get(tid):
            raise RuntimeError(self.error_message)
        _disabled[tid] = self.error_message

    def __exit__(self, *args):
        tid = threading.get_ident()
        if self._previous is None:
            _disabled.pop(tid, None)
        else:
            _disabled[tid] = self._previous

    def __call__(self, fn):
        # (PyTorch's is a contextlib.contextmanager: usable as a decorator too)
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapped
