"""Size (a tuple subclass, like torch.Size) and device."""
import math


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as `nbgrad.Size([2, 3])`."""

    __slots__ = ()

    def __repr__(self):
        return f"nbgrad.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)

    def __getitem__(self, item):
        result = tuple.__getitem__(self, item)
        return Size(result) if isinstance(item, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


class device:
    """A device: 'cpu' or 'cuda[:index]'."""

    __slots__ = ("type", "index")

    def __init__(self, spec, index=None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        elif isinstance(spec, int) and not isinstance(spec, bool):
            spec, index = _accelerator_index(spec)
        spec = str(spec)
        if ":" in spec:
            spec, idx = spec.split(":", 1)
            index = int(idx)
        if spec not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {spec}")
        if spec == "cuda" and index is None:
            index = 0
        self.type = spec
        self.index = index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and other.type == self.type and other.index == self.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        """`with nbgrad.device("cuda"):` creation functions default to this device inside."""
        _outer_defaults.append(_default_device[0])
        _default_device[0] = self
        return self

    def __exit__(self, *exc):
        _default_device[0] = _outer_defaults.pop()
        return False


def _accelerator_index(index):
    """PyTorch's device given an int: that index of the accelerator, CUDA here (or its errors)."""
    if index < 0:
        raise RuntimeError("Device index must not be negative")
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return "cuda", index


CPU = device("cpu")


_default_device = [CPU]     # nbgrad.set_default_device: where creation functions put tensors
_outer_defaults = []        # the defaults outside each `with device(...)` block


def set_default_device(spec):
    """The device creation functions use when given none (None: the CPU again)."""
    _default_device[0] = CPU if spec is None else to_device(spec)


def get_default_device():
    return _default_device[0]


def to_device(spec):
    if spec is None:
        return _default_device[0]
    if isinstance(spec, device):
        return spec
    return device(spec)
