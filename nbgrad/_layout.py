"""Output memory layout: PyTorch's TensorIterator rule for where an op's result lives.

PyTorch's elementwise results follow their inputs' layout: a transposed input gives a
transposed-strided result, so that a later view/reshape/data_ptr() behaves the same.
This module computes that geometry; it is pure Python over (shape, strides) tuples
and knows nothing of kernels or autograd.

A *layout* is None (row-major: the backends' C-order buffer, the common case) or a
pair (order, strides): `strides` are the result's strides in elements and `order` the
result's dims from outermost to innermost, so that a backend's C-order buffer for the
operands' views permuted by `order` holds exactly the result with those strides.

The rules, as TensorIterator (aten/src/ATen/TensorIterator.cpp) applies them:
- every operand of the same shape (no broadcast, no Python number), and
  - all row-major contiguous (size-1 dims' strides ignored): row-major;
  - else all channels-last contiguous (4-D): channels-last strides;
  - else all non-overlapping and dense with one stride tuple: those strides exactly;
- otherwise (`reorder_dimensions` + `compatible_stride`) the dims are sorted by the
  operands' strides, fastest first: the first operand that is not broadcast in both
  dims and whose strides differ decides; equal strides put the smaller dim first.
  A result whose order is row-major gets row-major (contiguous) strides.
Python numbers and 0-dim tensors are operands that broadcast everywhere: they never
decide, but they do make the operands' shapes differ (the second rule).

`preserve_strides` is `empty_like(memory_format=torch.preserve_format)`'s rule, which
clone() and to(dtype) follow: a dense layout is kept as it is, any other is given the
dense strides of the same dims' order (`infer_dense_strides`).
"""
_ROW_MAJOR = {}


def row_major_strides(shape):
    """C-order strides (in elements); size-0 and size-1 dims count as 1, as PyTorch's."""
    strides = _ROW_MAJOR.get(shape)
    if strides is None:
        acc = 1
        out = [0] * len(shape)
        for i in range(len(shape) - 1, -1, -1):
            out[i] = acc
            acc *= max(shape[i], 1)
        strides = tuple(out)
        if len(_ROW_MAJOR) < 4096:
            _ROW_MAJOR[shape] = strides
    return strides


def is_contiguous(shape, strides):
    """PyTorch's is_contiguous(): row-major, ignoring size-1 dims; any empty tensor is."""
    if 0 in shape:
        return True
    expected = 1
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if st != expected:
                return False
            expected *= n
    return True


def is_channels_last(shape, strides):
    """PyTorch's is_contiguous(memory_format=torch.channels_last) (4-D only)."""
    if len(shape) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        n = shape[d]
        if n != 1:
            if strides[d] != expected:
                return False
            expected *= n
    return True


def channels_last_strides(shape):
    n, c, h, w = shape
    return (c * w * h, 1, c * w, c)


def is_dense(shape, strides):
    """PyTorch's is_non_overlapping_and_dense(): a permutation of a contiguous layout
    (dims of size 0 or 1 may have any stride)."""
    nd = len(shape)
    if nd == 1:
        return shape[0] < 2 or strides[0] == 1
    dims = sorted((d for d in range(nd) if shape[d] >= 2), key=lambda d: strides[d])
    require = 1
    for d in dims:
        if strides[d] != require:
            return False
        require *= shape[d]
    return True


def _sorted_dims(shape, op_strides, reduction=False):
    """TensorIterator's reorder_dimensions: the dims, fastest first.  reduction: the first
    operand is a reduction's output (stride 0 on its reduced dims), which go first."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        for k, st in enumerate(op_strides):
            s0 = st[d0]
            s1 = st[d1]
            if reduction and k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _order_of(shape, strides):
    """Outermost-first dims of a dense layout (size-1 dims where they fall)."""
    return tuple(sorted(range(len(shape)), key=lambda d: -strides[d]))


def layout_of(shape, operands):
    """The result layout of an elementwise op with broadcast shape `shape` over
    `operands`: (shape, strides) pairs of the tensor operands in PyTorch's operand
    order, with None for each Python-number operand.  None means row-major."""
    nd = len(shape)
    if nd < 2:
        return None
    same = True
    for op in operands:
        if op is None or op[0] != shape:
            same = False
            break
    if same:
        if all(is_contiguous(s, st) for s, st in operands):
            return None
        if nd == 4 and all(is_channels_last(s, st) for s, st in operands):
            return (0, 2, 3, 1), channels_last_strides(shape)
        last = operands[-1][1]
        if all(st == last for _, st in operands) and is_dense(shape, last):
            return _order_of(shape, last), tuple(last)
    # the general case: each operand's strides broadcast to shape (0 where broadcast)
    op_strides = []
    for op in operands:
        if op is None:
            continue
        s, st = op
        off = nd - len(s)
        if off == 0 and s == shape:
            op_strides.append(st)
            continue
        full = [0] * nd
        for i, n in enumerate(s):
            if n != 1 or shape[off + i] == 1:
                full[off + i] = st[i]
        op_strides.append(full)
    perm = _sorted_dims(shape, op_strides)
    if all(perm[j] == nd - 1 - j for j in range(nd)):
        return None
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(reversed(perm)), tuple(out)


def preserve_strides(shape, strides):
    """The strides of empty_like(t, memory_format=torch.preserve_format) for a tensor t
    of (shape, strides): t's own when dense, else dense ones in t's dims' order."""
    nd = len(shape)
    if 0 in shape or is_dense(shape, strides):
        return tuple(strides)
    if nd == 1:
        return (1,)
    perm = _sorted_dims(shape, (strides,))      # TensorIterator's order for this one operand
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)


def order_of_strides(shape, strides):
    """Outermost-first dims for a dense (shape, strides): the order a C-order buffer
    must be written in to hold a tensor of those strides."""
    return _order_of(shape, strides)


# -- memory formats (torch.contiguous_format, torch.channels_last, ...) ------------------
class memory_format:
    """PyTorch's memory formats: the layout a new tensor or a copy is asked to take."""

    __slots__ = ("name", "_kind")

    def __init__(self, name, kind):
        self.name = name
        self._kind = kind

    def __repr__(self):
        return f"nbgrad.{self.name}"

    def __reduce__(self):
        return (_format_named, (self.name,))


contiguous_format = memory_format("contiguous_format", "contiguous")
preserve_format = memory_format("preserve_format", "preserve")
channels_last = memory_format("channels_last", "cl")
channels_last_3d = memory_format("channels_last_3d", "cl3d")
_FORMATS = {f.name: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)}


def _format_named(name):
    return _FORMATS[name]


def _kind(fmt):
    if fmt is None:
        return "preserve"
    if isinstance(fmt, memory_format):
        return fmt._kind
    raise TypeError(f"memory_format must be nbgrad.memory_format, not {type(fmt).__name__}")


def _channels_last_3d_strides(shape):
    n, c, d, h, w = shape
    return (c * w * h * d, 1, c * w * h, c * w, c)


def format_strides(shape, fmt):
    """The strides of a new tensor of `shape` in memory format `fmt` (contiguous_format,
    channels_last, channels_last_3d); PyTorch's errors for a wrong rank or Preserve."""
    kind = _kind(fmt)
    if kind == "contiguous":
        return row_major_strides(tuple(shape))
    if kind == "cl":
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return channels_last_strides(tuple(shape))
    if kind == "cl3d":
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return _channels_last_3d_strides(tuple(shape))
    raise RuntimeError("unsupported memory format Preserve")


def is_contiguous_as(shape, strides, fmt):
    """is_contiguous(memory_format=fmt): contiguous in that format (size-1 dims ignored)."""
    kind = _kind(fmt)
    if kind in ("contiguous", "preserve"):
        return is_contiguous(shape, strides)
    if kind == "cl":                    # (no shortcut for empty tensors here, as PyTorch's)
        return is_channels_last(shape, strides)
    if len(shape) != 5:
        return False
    expected = 1
    for d in (1, 4, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def copy_strides(shape, strides, fmt):
    """The strides of x.clone(memory_format=fmt) (None: preserve_format) for x of (shape, strides)."""
    if _kind(fmt) == "preserve":
        return preserve_strides(shape, strides)
    return format_strides(shape, fmt)


def _strides_like_channels_last(shape, strides, order=(1, 3, 2, 0)):
    """PyTorch's is_channels_last_strides_2d heuristic (4-D; with order (1, 4, 3, 2, 0) its
    is_channels_last_strides_3d, 5-D)."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d]
        if shape[d] > 1:
            low *= shape[d]
    return True


def suggest_memory_format(shape, strides):
    """PyTorch's Tensor.suggest_memory_format(): channels_last (4-D) or channels_last_3d
    (5-D) for tensors whose strides look so, else contiguous_format."""
    if len(shape) == 4 and _strides_like_channels_last(shape, strides):
        return channels_last
    if len(shape) == 5 and _strides_like_channels_last(shape, strides, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format
