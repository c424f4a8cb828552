"""Upsampling: F.interpolate's nearest, nearest-exact, (bi/tri)linear and bicubic modes (and
'area' as adaptive average pooling), with PyTorch's argument checks, output sizes, index
rules and nodes (UpsampleNearest2DBackward0, UpsampleBilinear2DBackward0, ...).

The source index of every output coordinate is computed once per spatial dim on the host
(a few hundred numbers) with PyTorch's arithmetic in its precision: nearest takes
floor(dst * scale) in float32 (nearest-exact floor((dst + 0.5) * scale)), linear takes the
half-pixel rule scale * (dst + 0.5) - 0.5 clamped at 0 (align_corners: dst * (in-1)/(out-1))
in the input's precision (bicubic: four taps around floor(src), PyTorch's cubic convolution
coefficients with A = -0.75), where scale is 1/scale_factor when the caller gave one (PyTorch's
area_pixel_compute_scale) and in/out otherwise.  The work is one pass per spatial dim,
innermost first: x[.., i0[j], ..] (nearest) or x[.., i0[j], ..] * l0[j] + x[.., i1[j], ..] *
l1[j] (+ the further taps: the products and sums of PyTorch's recursion, whose outer dims'
weights multiply last) -- the backend's interp_pass acceleration for float32/float64, else
(NBGRAD_FUSED=0, float16) the backend's gather (`take`) at positions made here.  The backward is the passes'
adjoint in reverse (interp_pass_backward, or scatter-adds with `put`), itself an op whose
gradient is the forward (PyTorch's Upsample...BackwardBackward0).  Measured on
(8, 16, 32, 32) -> 64x64 float32 on 2 shared cores: nearest 1.2 ms forward, bilinear
1.6-2.3 ms (torch 2.13 on one thread: 1.2 / 1.5 ms); composed, bilinear took 9.7 ms.
"""
import numpy as np

from .._warnings import warn_user as _warn_user
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd import _saved_names
from ..autograd.node import Node
from ._graph import accelerated, backend_of, check_result_fits, needs_grad, new_tensor, record
from .indexing import gather_flat, scatter_add_flat
from . import views as V
from ._dtype_rules import not_implemented


_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}
_AXES = ("D", "H", "W")


# --------------------------------------------------------------------------- indices (host)

def _scale(in_size, out_size, scale_factor, np_type):
    """PyTorch's compute_scales_value: 1/scale_factor when given and positive, else in/out."""
    if scale_factor is not None and scale_factor > 0:
        return np_type(1.0 / scale_factor)
    return np_type(in_size) / np_type(out_size)


def nearest_indices(in_size, out_size, scale_factor, exact, shortcuts=False):
    """Source index of each output position: min(floor(dst * scale), in-1) in float32
    (nearest-exact: floor((dst + 0.5) * scale), the product rounded to float32 first).
    shortcuts: PyTorch's nearest_idx, which takes the identity when out == in and dst >> 1
    when out == 2 * in whatever the scale_factor -- its nearest backward always does, its
    forward only for 2-D inputs (measured on torch 2.13: they disagree where a scale_factor
    gives those sizes, and so do we)."""
    if shortcuts and not exact:
        if out_size == in_size:
            return np.arange(out_size)
        if out_size == 2 * in_size:
            return np.arange(out_size) >> 1
    scale = _scale(in_size, out_size, scale_factor, np.float32)
    dst = np.arange(out_size)
    if exact:
        src = np.floor(((dst.astype(np.float64) + 0.5) * np.float64(scale)).astype(np.float32))
    else:
        src = np.floor(dst.astype(np.float32) * scale)
    return np.minimum(src.astype(np.int64), in_size - 1)


def linear_indices(in_size, out_size, scale_factor, align_corners, np_type):
    """(i0, i1, l0, l1): each output's two source indices and weights, PyTorch's
    compute_source_index_and_lambda in np_type (float32 for float32/float16, float64)."""
    t = np_type
    if out_size == in_size:         # PyTorch copies: weight 1 on the same index
        idx = np.arange(out_size)
        return idx, idx, np.ones(out_size, t), np.zeros(out_size, t)
    if align_corners:
        scale = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    else:
        scale = _scale(in_size, out_size, scale_factor, t)
    dst = np.arange(out_size).astype(t)
    if align_corners:
        src = scale * dst
    else:
        src = np.maximum(scale * (dst + t(0.5)) - t(0.5), t(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    l1 = np.minimum(np.maximum(src - i0.astype(t), t(0)), t(1)).astype(t)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, (t(1) - l1).astype(t), l1


def cubic_indices(in_size, out_size, scale_factor, align_corners, np_type):
    """(four index arrays, four weight arrays): PyTorch's bicubic taps (source index - 1 .. + 2,
    clamped to the input) and its cubic convolution coefficients (A = -0.75) in np_type."""
    t = np_type
    if align_corners:
        scale = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
        src = scale * np.arange(out_size).astype(t)
    else:
        scale = _scale(in_size, out_size, scale_factor, t)
        src = scale * (np.arange(out_size).astype(t) + t(0.5)) - t(0.5)      # not clamped at 0 (cubic)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lam = np.minimum(np.maximum(src - i0.astype(t), t(0)), t(1)).astype(t)
    a = t(-0.75)

    def conv1(v):
        return (((a + t(2)) * v - (a + t(3))) * v * v + t(1)).astype(t)

    def conv2(v):
        return (((a * v - t(5) * a) * v + t(8) * a) * v - t(4) * a).astype(t)
    rest = (t(1) - lam).astype(t)
    weights = [conv2((lam + t(1)).astype(t)), conv1(lam), conv1(rest), conv2((rest + t(1)).astype(t))]
    indices = [np.clip(i0 - 1 + j, 0, in_size - 1) for j in range(4)]
    return indices, weights


def _taps(mode, in_size, out_size, scale, align_corners, np_type, d):
    """(source indices per tap, weights per tap or None for nearest, the backward's indices)
    of one spatial dim."""
    if mode in ("nearest", "nearest-exact"):
        exact = mode == "nearest-exact"
        return ([nearest_indices(in_size, out_size, scale, exact, shortcuts=d == 2)], None,
                [nearest_indices(in_size, out_size, scale, exact, shortcuts=True)])
    if mode == "bicubic":
        idx, w = cubic_indices(in_size, out_size, scale, align_corners, np_type)
        return idx, w, idx
    i0, i1, l0, l1 = linear_indices(in_size, out_size, scale, align_corners, np_type)
    return [i0, i1], [l0, l1], [i0, i1]


# --------------------------------------------------------------------------- the two ops

class _Plan:
    """One interpolation's geometry on the device and PyTorch's node name: one pass per
    spatial dim, innermost first.  Pass k computes t[.., j, ..] = sum over taps of
    t[.., idx[tap][j], ..] * w[tap][j] in tap order (nearest: t[.., idx[j], ..]), so the
    passes give the products and sums of PyTorch's recursion, whose outer dims' weights
    multiply last.  `axes`: the backend's interp_pass buffers; else `passes`: gather
    positions and weight tensors (and nearest: `positions`, one gather over all dims, with
    `back_positions` for its backward's own index rule)."""

    def __init__(self, name, in_shape, nearest, half=False, axes=None, passes=None, positions=None,
                 back_positions=None):
        self.name, self.in_shape, self.nearest, self.half = name, in_shape, nearest, half
        self.axes, self.passes = axes, passes
        self.positions, self.back_positions = positions, back_positions


class _UpsampleBackward(Node):
    def backward(self, g):
        return _upsample_backward(g, self.plan)


class _UpsampleBackwardBackward(Node):
    def backward(self, gg):
        return _upsample_forward(gg, self.plan)


_NODES = {}


def _node(name):
    """PyTorch's node class of that name (made once)."""
    if name not in _NODES:
        base = _UpsampleBackwardBackward if name.endswith("BackwardBackward0") else _UpsampleBackward
        _NODES[name] = type(name, (base,), {})
        _saved_names.install_class(_NODES[name])     # (PyTorch's grad_fn._saved_<name> of that node)
    return _NODES[name]


def _upsample_forward(x, plan):
    """The interpolation of x (the plan's input shape); recorded as Upsample...Backward0."""
    with no_grad():
        t = x.contiguous()
        if plan.axes is not None:
            out = _run_axes(t, plan, backward=False)
        elif plan.positions is not None:
            out = gather_flat(t, plan.positions)
        else:
            t = t.float() if plan.half else t
            for positions, weights, _ in plan.passes:
                acc = gather_flat(t, positions[0]) * weights[0]
                for pos, w in zip(positions[1:], weights[1:]):
                    acc = acc + gather_flat(t, pos) * w
                t = acc
            out = t.to(plan.half) if plan.half else t
    if needs_grad(x):
        record(_node(plan.name), (x,), (out,), plan=plan)
    return out


def _upsample_backward(g, plan):
    """The input's gradient: g scattered back, pass by pass in reverse (one scatter-add
    each); recorded as Upsample...BackwardBackward0, whose own backward is the forward."""
    with no_grad():
        if plan.axes is not None:
            gx = _run_axes(g.contiguous(), plan, backward=True)
        elif plan.positions is not None:
            numel = int(np.prod(plan.in_shape))
            gx = scatter_add_flat(numel, plan.back_positions, g, once=True, shape=plan.in_shape)
        else:
            from .indexing import cat
            gx = g.float() if plan.half else g
            for positions, weights, shape in reversed(plan.passes):
                src = cat([V.reshape(gx * w, (-1,)) for w in weights])
                pos = cat([V.reshape(p, (-1,)) for p in positions])
                gx = scatter_add_flat(int(np.prod(shape)), pos, src, shape=shape)
            if plan.half:
                gx = gx.to(plan.half)
    if needs_grad(g):
        record(_node(plan.name[:-1] + "Backward0"), (g,), (gx,), plan=plan)
    return gx


def _run_axes(t, plan, backward):
    """The backend's one-dim passes over t (contiguous): forward innermost dim first, the
    backward's adjoint passes in reverse."""
    be, dev, dt = backend_of(t), t.device, t._dtype
    d = len(plan.axes)
    shape = list(t._shape)
    lead = len(shape) - d
    for k, in_size, out_size, taps, idx, w, back in (reversed(plan.axes) if backward else plan.axes):
        outer = int(np.prod(shape[:lead + k]))
        inner = int(np.prod(shape[lead + k + 1:]))
        if backward:
            shape[lead + k] = in_size
            buf = be.interp_pass_backward(t._view_tuple(), outer, in_size, inner, back, w, taps, out_size,
                                          plan.nearest)
        else:
            shape[lead + k] = out_size
            buf = be.interp_pass(t._view_tuple(), outer, in_size, inner, idx, w, taps, out_size, plan.nearest)
        t = new_tensor(buf, tuple(shape), dt, dev)
    return t


def _positions(shape, index_lists, device):
    """Flat positions in a contiguous tensor of `shape` (..., *spatial) of the grid
    index_lists[0] x index_lists[1] ... (one int64 host array per spatial dim)."""
    from .. import tensor
    d = len(index_lists)
    lead = shape[:-d]
    spatial = shape[-d:]
    planes = int(np.prod(lead)) if lead else 1
    plane = int(np.prod(spatial))
    pos = tensor(np.arange(planes, dtype=np.int64) * plane, device=device).reshape((planes,) + (1,) * d)
    stride = plane
    for k, idx in enumerate(index_lists):
        stride //= spatial[k]
        dims = [1] * (d + 1)
        dims[k + 1] = len(idx)
        pos = pos + tensor(idx * stride, device=device).reshape(dims)
    return V.reshape(pos, tuple(lead) + tuple(len(i) for i in index_lists)).contiguous()


def _weight(values, k, d, dtype, device):
    """A weight vector along spatial dim k of d, shaped to broadcast over the output."""
    from .. import tensor
    dims = [1] * d
    dims[k] = len(values)
    return tensor(values, dtype=dtype, device=device).reshape(dims)


_KINDS = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear", "bilinear": "Bilinear",
          "trilinear": "Trilinear", "bicubic": "Bicubic"}


def _plan(x, out_size, scales, mode, align_corners):
    from .. import tensor
    d = len(out_size)
    shape, dev = tuple(x._shape), x.device
    name = f"Upsample{_KINDS[mode]}{d}DBackward0"
    nearest = mode in ("nearest", "nearest-exact")
    # float16/bfloat16 (half: that dtype) computed in float32 (weights too), rounded once, as PyTorch's
    half = x._dtype if x._dtype in (D.float16, D.bfloat16) else False
    work = D.float32 if half else x._dtype
    t = np.float64 if work is D.float64 else np.float32
    taps = [_taps(mode, shape[-d + k], out_size[k], scales[k], align_corners, t, d) for k in range(d)]
    with no_grad():
        if x._dtype in (D.float32, D.float64) and accelerated(x, "interp_pass") and \
                accelerated(x, "interp_pass_backward"):
            axes = []
            for k in reversed(range(d)):
                idx, w, back = taps[k]
                w = w if w is not None else [np.ones(out_size[k], t)]
                axes.append((k, shape[-d + k], out_size[k], len(idx),
                             *(tensor(np.concatenate(v), dtype=dt, device=dev)._storage.buffer
                               for v, dt in ((idx, D.int64), (w, work), (back, D.int64)))))
            return _Plan(name, shape, nearest, axes=axes)
        if nearest:
            idx = [tp[0][0] for tp in taps]
            back = [tp[2][0] for tp in taps]
            pos = _positions(shape, idx, dev)
            same = all((a == b).all() for a, b in zip(idx, back))
            return _Plan(name, shape, True, positions=pos,
                         back_positions=pos if same else _positions(shape, back, dev))
        passes = []
        current = shape                  # the shape pass k reads: out sizes inside k, in sizes outside
        for k in reversed(range(d)):
            idx, w, _ = taps[k]
            lists = [np.arange(n) for n in current[-d:]]
            positions = []
            for side in idx:
                lists[k] = side
                positions.append(_positions(current, lists, dev))
            passes.append((positions, [_weight(v, k, d, work, dev) for v in w], current))
            current = current[:len(current) - d + k] + (out_size[k],) + current[len(current) - d + k + 1:]
        return _Plan(name, shape, False, half=half, passes=passes)


def _is_integer(v):
    """F.interpolate's _is_integer: an int (a bool too), a NumPy integer, a tensor that is not
    floating (its sizes' types; the op's parser then reads their values)."""
    return isinstance(v, (int, np.integer)) or (isinstance(v, Tensor) and not v._dtype.is_floating_point)


# the op F.interpolate dispatches to for (input rank, mode): its parser reads the sizes
_DISPATCH = {(3, "nearest"): "upsample_nearest1d", (4, "nearest"): "upsample_nearest2d",
             (5, "nearest"): "upsample_nearest3d", (3, "nearest-exact"): "_upsample_nearest_exact1d",
             (4, "nearest-exact"): "_upsample_nearest_exact2d", (5, "nearest-exact"): "_upsample_nearest_exact3d",
             (3, "linear"): "upsample_linear1d", (4, "bilinear"): "upsample_bilinear2d",
             (5, "trilinear"): "upsample_trilinear3d", (4, "bicubic"): "upsample_bicubic2d"}
# ... and PyTorch's words for a linear mode given the wrong rank
_WRONG_RANK = {(3, "bilinear"): "4D", (3, "trilinear"): "5D", (4, "linear"): "3D", (4, "trilinear"): "5D",
               (5, "linear"): "3D", (5, "bilinear"): "4D"}
_INT64_MAX = 2 ** 63 - 1


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """PyTorch's F.interpolate for 3-D, 4-D and 5-D inputs (N, C, *spatial): its Python's
    checks in its order (input.dim() read as it reads it), the sizes parsed where its dispatch
    hands them to the op (upsample_nearest2d, ...), whose TypeError refuses a float size or a
    tensor scale factor."""
    x = input
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = x.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(x.shape[2:])} and output size of {size}. Please "
                                 "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                                 "...,oK) format.")
            if not all(_is_integer(s) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(x.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(x.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and x.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == "area" and 3 <= x.dim() <= 5:
        if dim != 2:
            raise NotImplementedError(f"interpolate(mode='area') of a {x.dim()}D input is not supported by nbgrad")
        from .pooling import adaptive_avg_pool2d
        return adaptive_avg_pool2d(x, output_size)
    if mode == "lanczos" and dim == 2:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    known = isinstance(mode, str)          # (PyTorch compares any mode; only a str is one)
    op = _DISPATCH.get((x.dim(), mode)) if known else None
    if op is None or antialias:
        if antialias or mode == "lanczos" and dim == 2:
            raise NotImplementedError("interpolate(antialias=True) is not supported by nbgrad")
        if known and (x.dim(), mode) in _WRONG_RANK:
            raise NotImplementedError(f"Got {x.dim()}D input, but {mode} mode needs {_WRONG_RANK[x.dim(), mode]} input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.dim()}D) for the "
                                  f"modes: {_MODES} (got {mode})")
    output_size, scale_factors = _parsed(op, x, output_size, None if mode.startswith("nearest") else align_corners,
                                         scale_factors)
    if scale_factors is not None:
        output_size = [_scaled_size(x._shape[i + 2], scale_factors[i]) for i in range(dim)]
    scales = scale_factors if scale_factors is not None else [None] * dim
    _check(x, output_size, mode)
    # (PyTorch allocates the result before its work: a size that cannot be is that refusal, before
    # nbgrad's plan builds index tables of the output's sizes)
    from .._checks import check_new_sizes
    out_shape = tuple(x._shape[:2]) + tuple(output_size)
    check_new_sizes(out_shape, x._dtype.itemsize)
    check_result_fits(out_shape, x._dtype, x.device)
    return _upsample_forward(x, _plan(x, tuple(output_size), scales, mode, align_corners))


def _parsed(op, x, output_size, align_corners, scale_factors):
    """(output_size as ints, scale_factors as floats) as the op's parser reads them: an
    integer tensor's value is a size; a float size, a tensor scale factor, ... its TypeError."""
    from ._argument_check import argument_error
    args = (x, output_size) + (() if align_corners is None else (align_corners,)) + (scale_factors,)
    error = argument_error(op, args, {}, key="nn." + op)
    if error is not None:
        raise error
    return (None if output_size is None else [int(n) for n in output_size],
            None if scale_factors is None else [float(f) for f in scale_factors])


def _scaled_size(n, scale):
    """The kernel's output size: (int64) (n * scale), refused where it does not fit."""
    size = n * scale
    if not -_INT64_MAX <= size <= _INT64_MAX:       # (inf and NaN too: NaN compares false)
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(size)


def _check(x, output_size, mode):
    dim = len(output_size)
    spatial = x._shape[2:]
    if min(spatial) <= 0 or min(output_size) <= 0:
        axes = _AXES[3 - dim:]
        ins = ", ".join(f"{a}: {s}" for a, s in zip(axes, spatial))
        outs = ", ".join(f"{a}: {s}" for a, s in zip(axes, output_size))
        joint = " and output" if dim == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){joint} ({outs})")
    if x._shape[1] == 0:
        raise RuntimeError(f"Non-empty {dim + 2}D data tensor expected but got a tensor with sizes {list(x._shape)}")
    if not x._dtype.is_floating_point:
        if dim == 2 and mode in ("nearest", "bilinear"):
            fn = f"upsample_{mode}2d_channels_last"
        elif dim == 2:
            fn = {"nearest-exact": "upsample_nearest2d_channels_last",
                  "bicubic": "compute_indices_weights_cubic"}.get(mode, "compute_indices_weights_linear")
        else:
            fn = "compute_indices_weights_nearest" if mode.startswith("nearest") else "compute_indices_weights_linear"
        raise not_implemented(fn, x._dtype)


def _deprecated(name):
    _warn_user(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """PyTorch's deprecated F.upsample: interpolate (with its warning)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
