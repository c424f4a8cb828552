"""Padding layers (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad in 1-D, 2-D and 3-D): F.pad with
the padding given as PyTorch's modules take it (an int, or a tuple of 2, 4 or 6)."""
from .. import functional as F
from .module import Module
from ..._checks import ntuple


class _ConstantPadNd(Module):
    _n = 1

    def __init__(self, padding, value):
        super().__init__()
        self.padding = ntuple(padding, 2 * self._n)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    pass


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class _ZeroPad:
    """ZeroPadNd: ConstantPadNd with value 0, its repr the padding alone."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    pass


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    pass


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass


class _EdgePadNd(Module):
    _n = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = ntuple(padding, 2 * self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_EdgePadNd):
    pass


class ReflectionPad2d(_EdgePadNd):
    _n = 2


class ReplicationPad1d(_EdgePadNd):
    _mode = "replicate"


class ReplicationPad2d(_EdgePadNd):
    _n = 2
    _mode = "replicate"


class ReflectionPad3d(_EdgePadNd):
    _n = 3


class ReplicationPad3d(_EdgePadNd):
    _n = 3
    _mode = "replicate"


class _CircularPadNd(_EdgePadNd):
    _mode = "circular"
    _dims = (2, 3)

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    pass


class CircularPad2d(_CircularPadNd):
    _n = 2
    _dims = (3, 4)


class CircularPad3d(_CircularPadNd):
    _n = 3
    _dims = (4, 5)
