"""nn.FractionalMaxPool2d and nn.FractionalMaxPool3d: PyTorch's modules over
F.fractional_max_pool2d / fractional_max_pool3d (nbgrad/ops/pooling_fractional.py), with its
argument checks and messages; _random_samples is a buffer (None: drawn at each call from
nbgrad's generator, whose draws differ from PyTorch's)."""
from ...ops.pooling_fractional import fractional_max_pool2d, fractional_max_pool3d
from .module import Module
from .utils import _pair, _triple


class FractionalMaxPool2d(Module):
    """Fractional max pooling over (N, C, H, W) or (C, H, W) with kH x kW windows at stochastic
    steps that give output_size, or output_ratio times the input's size."""

    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _pair(output_size) if output_size is not None else None
        self.output_ratio = _pair(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool2d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio,
                                     self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(Module):
    """Fractional max pooling over (N, C, T, H, W) or (C, T, H, W) with kT x kH x kW windows."""

    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _triple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _triple(output_size) if output_size is not None else None
        self.output_ratio = _triple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool3d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1 and 0 < self.output_ratio[2] < 1):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return fractional_max_pool3d(input, self.kernel_size, self.output_size, self.output_ratio,
                                     self.return_indices, _random_samples=self._random_samples)
