"""Index walks over strided views, written once for every strided kernel of both backends.

CPU kernels walk the outer dims of a view in C order with an odometer, one
step per inner row: `carry` steps the odometer and says which dim stepped,
and each operand's position moves by that dim's entry of its `jumps` (so a
walk over any number of operands is one odometer), or by `jump`, the same
entry computed on the fly.  CUDA threads jump to a
flat index instead: `strided_offsets` decomposes it over the shape into up to
three operands' positions (geom: shape[nd] followed by each operand's
strides[nd], as _device.geometry packs them).
"""
import numpy as np
from numba.extending import register_jitable

_walk = register_jitable(error_model="numpy")


@_walk
def jumps(shape, strides, last):
    """jump[d]: how far a position moves when the odometer over dims 0..last carries into dim d
    (dim d steps by one, dims d+1..last wrap back to 0)."""
    out = np.zeros(max(last + 1, 1), np.int64)
    back = 0
    for d in range(last, -1, -1):
        out[d] = strides[d] - back
        back += strides[d] * (shape[d] - 1)
    return out


@_walk
def jump(shape, strides, d, last):
    """jumps(shape, strides, last)[d] without the array (a kernel that walks small views
    allocates nothing more): mostly d == last, where it is strides[d]."""
    back = 0
    for e in range(d + 1, last + 1):
        back += strides[e] * (shape[e] - 1)
    return strides[d] - back


@_walk
def odometer(shape, strides, last):
    """(idx, jump) of a walk with a single operand: the odometer at 0 and the operand's jumps."""
    return np.zeros(max(last + 1, 1), np.int64), jumps(shape, strides, last)


@_walk
def carry(idx, shape, last):
    """Step the C-order odometer idx over dims 0..last: the dim that stepped, or -1 past the end."""
    d = last
    while d >= 0:
        idx[d] += 1
        if idx[d] < shape[d]:
            return d
        idx[d] = 0
        d -= 1
    return -1


@_walk
def advance(idx, shape, last, p, jump):
    """One odometer step of a walk with a single operand at position p: its next position."""
    d = carry(idx, shape, last)
    return p + jump[d] if d >= 0 else p


@_walk
def strided_offsets(i, geom, nd, count, o0, o1, o2):
    """Positions of flat (C-order) index i for `count` (1 to 3) operands starting at o0, o1, o2."""
    rem = i
    for d in range(nd - 1, -1, -1):
        size = geom[d]
        q = rem // size
        k = rem - q * size
        rem = q
        o0 += k * geom[nd + d]
        if count > 1:
            o1 += k * geom[2 * nd + d]
        if count > 2:
            o2 += k * geom[3 * nd + d]
    return o0, o1, o2
