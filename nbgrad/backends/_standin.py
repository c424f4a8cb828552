"""Stand-ins for the backend modules, for the tools that watch every kernel call.

nbgrad.compile (capture: each call becomes an instruction of the recorded program) and
nbgrad.profiler (each call becomes a timed event) both work the same way: while they run,
the registry (`_BACKENDS`) holds a stand-in for each backend, and the small-op shortcut
tables (nbgrad/ops/_graph.py), which would call a backend's kernels without asking the
registry, are emptied.  The op layer cannot tell the difference: a stand-in reads every
attribute through to its backend, and hands back each function wrapped once by its
subclass's `_wrap(name, fn)`.
"""

from . import _BACKENDS, get_backend


class BackendStandIn:
    """Stands in for one backend module in the registry; subclasses define _wrap."""

    def __init__(self, backend, device):
        object.__setattr__(self, "_backend", backend)
        object.__setattr__(self, "_device", device)
        object.__setattr__(self, "_wrapped", {})

    def __getattr__(self, name):
        attr = getattr(self._backend, name)
        # constants (ACCELERATIONS, UNARY_OPS, ...), classes and dunders pass through as they are
        if not callable(attr) or isinstance(attr, type) or name.isupper() or name.startswith("__"):
            return attr
        wrapped = self._wrapped.get(name)
        if wrapped is None:
            wrapped = self._wrapped[name] = self._wrap(name, attr)
        return wrapped

    def __setattr__(self, name, value):
        # (a test that monkeypatches a backend function reaches the backend itself)
        setattr(self._backend, name, value)

    def _wrap(self, name, fn):
        raise NotImplementedError


def install(make):
    """Puts make(backend, device_type) in the registry in place of every backend, and empties
    the shortcut tables.  Returns what `restore` needs to put everything back."""
    from ..ops import _graph
    get_backend("cpu")
    saved_backends = dict(_BACKENDS)
    saved_tables = [(table, dict(table)) for table in _graph.SHORTCUT_TABLES]
    for table in _graph.SHORTCUT_TABLES:
        table.clear()
    for device_type, be in saved_backends.items():
        _BACKENDS[device_type] = make(be, device_type)
    return saved_backends, saved_tables


def restore(saved, installed_by=None):
    """Undoes install(): the registry and the shortcut tables hold what they held before.
    With installed_by (a predicate on a registry entry), an entry is put back only where it
    is still one of the caller's stand-ins (or gone)."""
    saved_backends, saved_tables = saved
    for device_type, be in saved_backends.items():
        now = _BACKENDS.get(device_type)
        if installed_by is None or now is None or installed_by(now):
            _BACKENDS[device_type] = be
    for table, contents in saved_tables:
        table.clear()
        table.update(contents)
