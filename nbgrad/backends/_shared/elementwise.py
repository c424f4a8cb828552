"""Elementwise dispatch for both devices: what is decided before a kernel runs (plain Python).

A backend's unary/binary/where wrapper asks here which path a call takes and
which kernels serve an op; its own code is then only the launches.  Nothing
here is jitted.
"""
import numpy as np

from ... import _debug
from .geometry import as_index_array, coalesce, contiguous_strides, numel


class LazyKernels(dict):
    """op -> the kernels `factory(fns[op])` makes, made on the op's first use (`kernels[op]`)."""

    def __init__(self, factory, fns):
        super().__init__()
        self.factory = factory
        self.fns = fns

    def __missing__(self, op):
        kernels = self[op] = self.factory(self.fns[op])
        return kernels


# Ops that are the identity on integers and bools (exact, so not via float).
INTEGER_IDENTITY = frozenset({"floor", "ceil", "round", "trunc"})
# Ops that are a constant on integers and bools.
_INTEGER_CONSTANT = {"isnan": False, "isinf": False, "isfinite": True}

COPY, FILL, KERNEL = "copy", "fill", "kernel"


def integer_unary(op, kind):
    """How unary `op` runs on an integer or bool tensor (dtype kind 'b', 'i' or 'u'):
    (COPY, None): the identity, a copy of the input; (FILL, value): a constant;
    (KERNEL, op): the kernel of that op (bitwise_not of bools is logical_not)."""
    if op in INTEGER_IDENTITY or (op == "abs" and kind in "bu"):
        return COPY, None
    if op in _INTEGER_CONSTANT:
        return FILL, _INTEGER_CONSTANT[op]
    if op == "bitwise_not" and kind == "b":
        return KERNEL, "logical_not"
    return KERNEL, op


# Geometry plans, cached per (shape, strides...): the path to take and the
# coalesced shape/strides (lists and int64 arrays).  Small ops are dominated
# by this Python work (coalesce + index arrays ~2 us of a 3 us call), and a
# training loop repeats the same few geometries.
CONTIGUOUS, SCALAR_A, SCALAR_B, STRIDED = 0, 1, 2, 3
PATH_NAMES = ("contiguous", "scalar_a", "scalar_b", "strided")     # NBGRAD_DEBUG's words for them
_plans = {}
_PLANS_LIMIT = 4096


def plan(shape, *strides):
    """(path, coalesced shape, [coalesced strides of each operand], [those as int64 arrays],
    the shape as an int64 array) of an elementwise call writing a contiguous output of `shape`.
    path: CONTIGUOUS (every operand dense), SCALAR_A / SCALAR_B (two operands, the first /
    second one element broadcast, the other dense) or STRIDED."""
    key = (shape,) + strides
    found = _plans.get(key)
    if found is not None:
        return found
    cshape, cst = coalesce(shape, list(strides))
    path = STRIDED
    if len(cshape) == 1:
        firsts = [st[0] for st in cst]
        if cshape[0] == 1 or all(f == 1 for f in firsts):
            # (one element: every operand's one value sits at its offset, whatever its
            # strides, so the contiguous kernels read it; no strided walk for W8's x + 1)
            path = CONTIGUOUS
        elif len(firsts) == 2 and firsts == [1, 0]:
            path = SCALAR_B
        elif len(firsts) == 2 and firsts == [0, 1]:
            path = SCALAR_A
    found = (path, cshape, cst, [as_index_array(st) for st in cst], as_index_array(cshape))
    if len(_plans) >= _PLANS_LIMIT:
        _plans.clear()
    _plans[key] = found
    return found


def entry_points(device):
    """The backend entry points (unary, binary, where, mul_backward), written once for both devices.

    They unpack the views, allocate the output, take the integer shortcuts and
    choose the path; `device` (a namespace) holds what differs:
      empty(n, dtype): a new buffer; on_device(buf): buf where the kernels read it (None: as it is);
      copy(src_view, dst_view) and fill(out, value) of whole buffers;
      unary_kernels, binary_kernels: LazyKernels of the device's templates;
      run_unary(op, (contiguous, strided), plan, buf, off, out, n);
      run_binary(op, (contiguous, scalar_a, scalar_b, strided), plan, abuf, aoff, bbuf, boff, out, n);
      run_where(plan, cbuf, coff, abuf, aoff, bbuf, boff, out, n);
      run_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, n, dtype) -> (ga, gb), all contiguous;
      log: the prefix of the NBGRAD_DEBUG events it logs itself.
    The kernels of the plan's path are the run_* functions' to launch.
    """
    empty, on_device, copy, fill = device.empty, device.on_device, device.copy, device.fill
    unary_kernels, binary_kernels = device.unary_kernels, device.binary_kernels
    run_unary, run_binary, run_where = device.run_unary, device.run_binary, device.run_where
    run_mul_backward, log = device.run_mul_backward, device.log

    def unary(op, x_view, out_dtype, out=None):
        buf, off, shape, strides = x_view
        shape = tuple(shape)
        n = numel(shape)
        if out is None:
            out = empty(n, np.dtype(out_dtype))
        if n == 0:
            return out
        if on_device is not None:
            buf = on_device(buf)
        kind = buf.dtype.kind
        if kind in "biu":
            route, op = integer_unary(op, kind)
            if route == COPY:
                copy((buf, off, shape, strides), (out, 0, shape, contiguous_strides(shape)))
                return out
            if route == FILL:
                fill(out, op)
                return out
        run_unary(op, unary_kernels[op], plan(shape, tuple(strides)), buf, off, out, n)
        return out

    # (op, shape, strides of a, strides of b) -> (numel, the op's kernels, plan): a small
    # op's own Python (numel, the plan's key, the kernel table) looked up in one step
    binary_calls = {}

    def binary(op, a_view, b_view, out_shape, out_dtype, out=None):
        abuf, aoff, _, ast = a_view
        bbuf, boff, _, bst = b_view
        try:
            call = binary_calls.get((op, out_shape, ast, bst))
        except TypeError:       # shape or strides given as lists
            call = None
        if call is None:
            out_shape = tuple(out_shape)
            n = numel(out_shape)
            if n == 0:
                return empty(n, out_dtype) if out is None else out
            call = (n, binary_kernels[op], plan(out_shape, tuple(ast), tuple(bst)))
            if len(binary_calls) >= _PLANS_LIMIT:
                binary_calls.clear()
            binary_calls[(op, out_shape, tuple(ast), tuple(bst))] = call
        n, kernels, geometry = call
        if out is None:
            out = empty(n, out_dtype)
        if on_device is not None:
            abuf, bbuf = on_device(abuf), on_device(bbuf)
        run_binary(op, kernels, geometry, abuf, aoff, bbuf, boff, out, n)
        return out

    def where(cond_view, a_view, b_view, out_shape, out_dtype):
        (cbuf, coff, _, cst), (abuf, aoff, _, ast), (bbuf, boff, _, bst) = cond_view, a_view, b_view
        out_shape = tuple(out_shape)
        n = numel(out_shape)
        out = empty(n, out_dtype)
        if n == 0:
            return out
        if on_device is not None:
            cbuf, abuf, bbuf = on_device(cbuf), on_device(abuf), on_device(bbuf)
        run_where(plan(out_shape, tuple(cst), tuple(ast), tuple(bst)), cbuf, coff, abuf, aoff, bbuf, boff, out, n)
        return out

    def mul_backward(g_view, a_view, b_view, need_a=True, need_b=True):
        """Both gradients of out = a * b: (g * b, g * a) as buffers of g's shape, in one pass
        when all three are contiguous.

        a and b are broadcast to g's shape (0 strides) and have g's dtype; a
        gradient that is not needed comes back as None.  Reducing a broadcast
        operand's gradient to its own shape stays the caller's job.
        """
        gbuf, goff, shape, gst = g_view
        shape = tuple(shape)
        n = numel(shape)
        if not (need_a and need_b) or n == 0:
            ga = binary("mul", g_view, b_view, shape, gbuf.dtype) if need_a else None
            gb = binary("mul", g_view, a_view, shape, gbuf.dtype) if need_b else None
            return ga, gb
        (abuf, aoff, _, ast), (bbuf, boff, _, bst) = a_view, b_view
        if plan(shape, tuple(gst), tuple(ast), tuple(bst))[0] != CONTIGUOUS:
            if _debug.ENABLED: _debug.log(log + "mul_backward", path="strided", n=n)       # two binary muls
            return (binary("mul", g_view, b_view, shape, gbuf.dtype),
                    binary("mul", g_view, a_view, shape, gbuf.dtype))
        if on_device is not None:
            gbuf, abuf, bbuf = on_device(gbuf), on_device(abuf), on_device(bbuf)
        return run_mul_backward(gbuf, goff, abuf, aoff, bbuf, boff, n, gbuf.dtype)

    return unary, binary, where, mul_backward
