"""F.grid_sample (4-D input: bilinear, nearest, bicubic; zeros, border, reflection padding)
and F.affine_grid (2-D and 3-D), with PyTorch's checks, warnings and nodes.

grid_sample runs the backends' grid_sampler_2d kernels (PyTorch's CPU kernel's arithmetic:
backends/_shared/grid_sample.py) and records GridSampler2DBackward0, whose backward is one
more kernel call giving both gradients (the grid's is zero for nearest). Its own derivative
(PyTorch's GridSampler2DBackwardBackward0) is not implemented: under create_graph the
gradients are recorded on a node that raises when a second backward reaches it.

affine_grid is PyTorch's affine_grid_generator: a base grid of linspace(-1, 1) coordinates
(scaled by (n - 1) / n without align_corners) and ones, times theta transposed, as one node
(AffineGridGeneratorBackward0) whose backward is the base grid transposed times the gradient,
as Tensor ops (so it is recorded under create_graph).
"""
import numpy as np

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.node import Node
from ._graph import backend_of, needs_grad, new_tensor, record
from ._dtype_rules import check as check_dtype, check_same_dtype

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_VECTOR_BYTES = 32      # PyTorch's grid sampler has no AVX512 kernel: its AVX2 vectors are 32 bytes


def _warn_align_corners(stacklevel):
    _warn_user("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
               "Please specify align_corners=True if the old behavior is desired. See the documentation of "
               "grid_sample for details.", UserWarning, stacklevel=stacklevel)


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t._shape) + "]"


def _check(x, grid, interpolation):
    for name, pos, t in (("input", 1, x), ("grid", 2, grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"grid_sampler(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(t).__name__}")
    if x.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{x.device} and grid is on {grid.device}")
    if x.dim() == 0 or grid.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if x._shape[0] != grid._shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_sizes(x)} and grid with sizes {_sizes(grid)}")
    if grid._shape[-1] != x.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {x.dim() - 2} in last dimension, but got "
                           f"grid with sizes {_sizes(grid)}")
    for i in range(2, x.dim()):
        if x._shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {_sizes(x)} with dimension {i} being empty")
    if x.dim() != 4:
        if x.dim() != 5 or grid.dim() != 5:
            raise RuntimeError(f"grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
                               f"input with sizes {_sizes(x)} and grid with sizes {_sizes(grid)}")
        if interpolation == 2:
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        raise NotImplementedError("nbgrad: grid_sample of a 5-D input (volumetric sampling) is not implemented")
    if grid.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
                           f"input with sizes {_sizes(x)} and grid with sizes {_sizes(grid)}")
    check_dtype("grid_sampler_2d", x._dtype)
    check_same_dtype(x._dtype, grid._dtype)


def _geometry_is_contiguous(sizes, strides):
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size == 0:
            return True
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _grid_case(grid):
    """PyTorch's walk of a grid slice: 1 contiguous, 2 its W (or H x W) runs contiguous for x
    and y apart, 3 any other."""
    _, oh, ow, _ = grid._shape
    s = grid._stride
    if _geometry_is_contiguous((oh, ow, 2), s[1:]):
        return 1
    return 2 if s[2] == 1 or ow == 1 else 3


def _flat(grid):
    """Whether PyTorch's kernel walks the grid's (OH, OW) as one run (else row by row)."""
    case = _grid_case(grid)
    return case == 1 or case == 2 and _geometry_is_contiguous(grid._shape[1:3], grid._stride[1:3])


def _widened(t):
    return t.float() if t._dtype is D.float16 else t


class GridSampler2DBackwardBackward0(Node):
    def backward(self, *grads):
        raise NotImplementedError("nbgrad: the derivative of grid_sample's backward (PyTorch's "
                                  "GridSampler2DBackwardBackward0) is not implemented")


class GridSampler2DBackward0(Node):
    def backward(self, g):
        x, grid = self.saved_tensors
        want_input = self.needs_input_grad(0)
        from ..autograd.grad_mode import no_grad
        with no_grad():
            xw, gw, gow = _widened(x), _widened(grid), _widened(g)
            gx_buf, gg_buf = backend_of(x).grid_sampler_2d_backward(
                gow._view_tuple(), xw._view_tuple(), gw._view_tuple(), self.interpolation, self.padding,
                self.align_corners, want_input, _VECTOR_BYTES // xw._dtype.itemsize, _flat(grid))
            gx = new_tensor(gx_buf, x._shape, xw._dtype, x.device) if want_input else None
            gg = new_tensor(gg_buf, grid._shape, xw._dtype, x.device)
            if x._dtype is D.float16:
                gx = gx.half() if gx is not None else None
                gg = gg.half()
        if needs_grad(g, x, grid):
            record(GridSampler2DBackwardBackward0, (g, x, grid), (gx, gg))
        return gx, gg


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input (N, C, H, W) at grid (N, OH, OW, 2) locations in [-1, 1] (x, y)."""
    if not isinstance(mode, str) or mode not in _MODES:      # (a list is PyTorch's ValueError too)
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if not isinstance(padding_mode, str) or padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        _warn_align_corners(3)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: the modes as PyTorch's enums (0 bilinear / zeros, 1 nearest / border,
    2 bicubic / reflection)."""
    x = input
    if not isinstance(align_corners, (bool, np.bool_)):
        # (its parser's check, before the shapes: F.grid_sample passes align_corners on as given)
        from ._argument_check import _type_name
        raise TypeError(f"grid_sampler(): argument 'align_corners' (position 5) must be bool, not "
                        f"{_type_name(align_corners)}")
    _check(x, grid, interpolation_mode)
    from ..autograd.grad_mode import no_grad
    with no_grad():
        xw, gw = _widened(x), _widened(grid)
        buf = backend_of(x).grid_sampler_2d(xw._view_tuple(), gw._view_tuple(), int(interpolation_mode),
                                            int(padding_mode), bool(align_corners), _grid_case(grid) == 2)
        out = new_tensor(buf, (x._shape[0], x._shape[1], grid._shape[1], grid._shape[2]), xw._dtype, x.device)
        if x._dtype is D.float16:
            out = out.half()
    if needs_grad(x, grid):
        node = record(GridSampler2DBackward0, (x, grid), (out,))
        node.save(x, grid)
        node.interpolation, node.padding, node.align_corners = int(interpolation_mode), int(padding_mode), \
            bool(align_corners)
    return out


# --------------------------------------------------------------------------- affine_grid

def _linspace_from_neg_one(n, align_corners, dtype):
    """PyTorch's linspace_from_neg_one in the dtype: linspace(-1, 1, n) (its two halves, each
    step fused into its start or end as its compiled loop does), times (n - 1) / n unless
    align_corners; [0] for n <= 1."""
    from ..backends._shared.fast_math import _py_fma
    t = np.dtype(dtype).type
    if n <= 1:
        return np.zeros(1, dtype)
    step = (t(1) - t(-1)) / t(n - 1)
    half = n // 2
    r = np.array([_py_fma(step, t(i), t(-1)) if i < half else _py_fma(-step, t(n - i - 1), t(1)) for i in range(n)],
                 dtype)
    if not align_corners:
        r = (r * t(n - 1)) / t(n)
    return r


def _base_grid(sizes, align_corners, dtype):
    """(prod(sizes), k + 1) host array: the coordinates (x fastest) and a column of ones."""
    k = len(sizes)
    axes = [_linspace_from_neg_one(s, align_corners, dtype) for s in sizes]     # (D,) H, W
    base = np.ones(tuple(sizes) + (k + 1,), dtype)
    for i in range(k):                      # column 0 is x (the last size), 1 is y, 2 is z
        shape = [1] * k
        shape[k - 1 - i] = len(axes[k - 1 - i])
        base[..., i] = axes[k - 1 - i].reshape(shape)
    return base.reshape(-1, k + 1)


class AffineGridGeneratorBackward0(Node):
    def backward(self, g):
        n = g._shape[0]
        base = self.base
        k = base._shape[-1]
        # base_grid.view(N, L, k).transpose(1, 2).bmm(grad.reshape(N, L, k - 1)).transpose(1, 2)
        gt = base.expand(n, base._shape[1], k).transpose(1, 2).bmm(g.reshape(n, base._shape[1], k - 1))
        return (gt.transpose(1, 2),)


def affine_grid_generator(theta, size, align_corners):
    from .._creation import tensor
    from ..autograd.grad_mode import no_grad
    size = [int(s) for s in size]
    spatial = size[2:]
    n = size[0]
    base = tensor(_base_grid(spatial, align_corners, theta._dtype.np if theta._dtype is not D.float16
                             else np.float32), device=theta.device).to(theta._dtype)
    base = base.reshape(1, -1, len(spatial) + 1)
    with no_grad():
        out = base.expand(n, base._shape[1], base._shape[2]).bmm(theta.transpose(1, 2))
        out = out.reshape(tuple([n] + spatial + [len(spatial)]))
    if needs_grad(theta):
        node = record(AffineGridGeneratorBackward0, (theta,), (out,))
        node.base = base
    return out


def affine_grid(theta, size, align_corners=None):
    """A sampling grid (N, H, W, 2) or (N, D, H, W, 3) for grid_sample from affine matrices
    theta (N, 2, 3) or (N, 3, 4)."""
    if align_corners is None:
        _warn_align_corners(3)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        _warn_user("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                   "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                   "of affine_grid for details.", UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
