"""nbgrad.return_types: the named tuples some ops return ((values, indices), (Q, R), ...),
printed as PyTorch prints its torch.return_types (`nbgrad.return_types.max(\nvalues=...`)."""
from collections import namedtuple

_TYPES = {}


def _repr(self):
    body = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
    return f"nbgrad.return_types.{type(self).__name__}(\n{body})"


def return_type(name, fields):
    """The named tuple class `name` with `fields` (one class per name)."""
    cls = _TYPES.get(name)
    if cls is None:
        cls = type(name, (namedtuple(name, fields),), {"__slots__": (), "__repr__": _repr,
                                                       "__module__": "nbgrad.return_types"})
        _TYPES[name] = cls
    return cls
